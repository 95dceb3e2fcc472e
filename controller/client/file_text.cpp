#include "client/file_text.hpp"

#include "core/read_file.hpp"

namespace cfo::client {

Result<std::string> read_file_text(const std::string& path, std::size_t max_bytes) {
  return read_file(path, max_bytes);
}

std::string trim_space(std::string_view text) {
  const char* ws = " \t\r\n";
  auto b = text.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  auto e = text.find_last_not_of(ws);
  return std::string(text.substr(b, e - b + 1));
}

}  // namespace cfo::client
