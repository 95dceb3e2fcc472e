#include "core/read_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace cfo {

std::string size_text(std::size_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

Result<std::string> read_file(const std::string& path, std::size_t max_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return fail("cannot read " + path + ": it is a directory");
  if (!std::filesystem::exists(path, ec) && !ec) return fail("cannot read " + path + ": no such file or folder");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot read " + path + ": " + (errno ? std::strerror(errno) : "cannot open"));
  std::string out;
  char chunk[65536];
  while (in) {
    in.read(chunk, sizeof chunk);
    out.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (out.size() > max_bytes)
      return fail("cannot read " + path + ": larger than " + size_text(max_bytes) + " (the limit for this file)");
  }
  if (in.bad()) return fail("cannot read " + path + ": read error");
  return out;
}

}  // namespace cfo
