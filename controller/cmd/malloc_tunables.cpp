#include "cmd/malloc_tunables.hpp"

#include <unistd.h>

#include <cstdlib>

namespace cfo::cmd {

void reexec_with_offline_malloc_tunables(char** argv) {
  if (std::getenv("GLIBC_TUNABLES") != nullptr) return;
  if (::setenv("GLIBC_TUNABLES", kOfflineMallocTunables, 1) != 0) return;
  ::execv("/proc/self/exe", argv);
  // Not re-executed: run on without the variable, so that a child process does not inherit a setting it never
  // asked for.
  ::unsetenv("GLIBC_TUNABLES");
}

}  // namespace cfo::cmd
