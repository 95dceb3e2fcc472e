#include "cmd/malloc_tunables.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

namespace cfo::cmd {

namespace {

// True when the address space or the data segment is limited (`ulimit -v`, `ulimit -d`): the 64 MiB top pad and
// whole huge pages would spend a limit that the default heap fits in.
bool memory_limited() {
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    rlimit limit{};
    if (::getrlimit(resource, &limit) != 0 || limit.rlim_cur != RLIM_INFINITY) return true;
  }
  return false;
}

// The file the code of this process was loaded from, as /proc/self/maps names the mapping that holds this function;
// nullopt without /proc or for an anonymous mapping. Not /proc/self/exe: when the binary is started through the
// dynamic loader (`ld-linux-x86-64.so.2 codeflare-operator ...`), that is the loader. Plain POSIX reads: this runs
// before the static constructors of the binary (offline_heap_first), iostreams included.
std::optional<std::string> own_binary() {
  const auto here = reinterpret_cast<std::uintptr_t>(&reexec_with_offline_malloc_tunables);
  const int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string maps;
  char chunk[16384];
  for (ssize_t n; (n = ::read(fd, chunk, sizeof chunk)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || maps.size() > (std::size_t{16} << 20)) {
      ::close(fd);
      return std::nullopt;
    }
    maps.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(fd);
  for (std::size_t from = 0; from < maps.size();) {
    std::size_t to = maps.find('\n', from);
    if (to == std::string::npos) to = maps.size();
    const std::string line = maps.substr(from, to - from);
    from = to + 1;
    std::uintptr_t start = 0, end = 0;
    int path_at = 0;
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " %*s %*s %*s %*s %n", &start, &end, &path_at) < 2 ||
        here < start || here >= end)
      continue;
    std::string path = path_at > 0 ? line.substr(static_cast<std::size_t>(path_at)) : "";
    if (path.empty() || path.front() != '/') return std::nullopt;
    return path;
  }
  return std::nullopt;
}

}  // namespace

void reexec_with_offline_malloc_tunables(char** argv) {
  if (std::getenv("GLIBC_TUNABLES") != nullptr || memory_limited()) return;
  const std::optional<std::string> binary = own_binary();
  if (!binary) return;
  if (::setenv("GLIBC_TUNABLES", kOfflineMallocTunables, 1) != 0) return;
  ::execv(binary->c_str(), argv);
  // Not re-executed (a binary replaced or deleted since it started, a mount that forbids exec, an argument list too
  // long for a second exec): run on without the variable, so that a child process does not inherit a setting it
  // never asked for.
  ::unsetenv("GLIBC_TUNABLES");
}

bool wants_offline_heap(int argc, char** argv) {
  return argc >= 2 && argv[1] != nullptr &&
         (std::strcmp(argv[1], "render") == 0 || std::strcmp(argv[1], "validate") == 0);
}

}  // namespace cfo::cmd
