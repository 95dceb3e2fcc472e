#include "client/file_text.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace cfo::client {

Result<std::string> read_file_text(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return fail("cannot read " + path + ": it is a directory");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot read " + path + ": " + (errno ? std::strerror(errno) : "cannot open"));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return fail("cannot read " + path + ": read error");
  return ss.str();
}

std::string trim_space(std::string_view text) {
  const char* ws = " \t\r\n";
  auto b = text.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  auto e = text.find_last_not_of(ws);
  return std::string(text.substr(b, e - b + 1));
}

}  // namespace cfo::client
