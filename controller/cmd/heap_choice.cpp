#include "cmd/heap_choice.hpp"

#include <cstring>

namespace cfo::cmd {

bool wants_offline_heap(int argc, char** argv) {
  return argc >= 2 && argv[1] != nullptr &&
         (std::strcmp(argv[1], "render") == 0 || std::strcmp(argv[1], "validate") == 0);
}

}  // namespace cfo::cmd
