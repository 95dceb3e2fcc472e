#include "cmd/malloc_tunables.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
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
// dynamic loader (`ld-linux-x86-64.so.2 codeflare-operator ...`), that is the loader.
std::optional<std::string> own_binary() {
  const auto here = reinterpret_cast<std::uintptr_t>(&reexec_with_offline_malloc_tunables);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
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

}  // namespace cfo::cmd
