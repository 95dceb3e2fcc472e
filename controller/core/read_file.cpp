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
  auto too_large = [&] {
    return fail("cannot read " + path + ": larger than " + size_text(max_bytes) + " (the limit for this file)");
  };
  std::string out;
  // A regular file is read in one piece into a string of its size (growing a string chunk by chunk copied the text
  // several times, a tenth of `validate`'s time on a 5 MB file), without first filling the string with zeros (a
  // second pass over fresh memory); a pipe or a file that grows is read on in chunks.
  const std::uintmax_t size = std::filesystem::is_regular_file(path, ec) ? std::filesystem::file_size(path, ec) : 0;
  if (!ec && size > max_bytes) return too_large();
  if (!ec && size > 0) {
    out.resize_and_overwrite(static_cast<std::size_t>(size), [&](char* p, std::size_t n) {
      in.read(p, static_cast<std::streamsize>(n));
      return static_cast<std::size_t>(in.gcount());
    });
  }
  char chunk[65536];
  while (in) {
    in.read(chunk, sizeof chunk);
    out.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (out.size() > max_bytes) return too_large();
  }
  if (in.bad()) return fail("cannot read " + path + ": read error");
  return out;
}

}  // namespace cfo
