// The offline commands' re-execution with glibc's heap tunables (cmd/malloc_tunables.hpp).
#include "cmd/malloc_tunables.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace cfo::cmd;

namespace {
constexpr const char* kProbeVariable = "CFO_MALLOC_TUNABLES_PROBE";
}

// Not a check of its own: the process the re-execution starts runs only this test, which writes the GLIBC_TUNABLES it
// was started with into the file the parent named.
TEST(MallocTunablesProbe, WritesTheVariableItSees) {
  const char* out = std::getenv(kProbeVariable);
  if (out == nullptr) GTEST_SKIP() << "run by MallocTunables.AnOfflineCommandRunsAgainWithThemSet";
  const char* seen = std::getenv("GLIBC_TUNABLES");
  std::ifstream comm("/proc/self/comm");
  std::string name;
  std::getline(comm, name);
  std::ofstream(out) << (seen ? seen : "<unset>") << "\n" << name;
}

TEST(MallocTunables, AnOfflineCommandRunsAgainWithThemSet) {
  std::string probe = (std::filesystem::temp_directory_path() / "cfo-malloc-tunables-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  ASSERT_GE(fd, 0);
  ::close(fd);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::unsetenv("GLIBC_TUNABLES");
    ::setenv(kProbeVariable, probe.c_str(), 1);
    std::string self = "unit_cmd", filter = "--gtest_filter=MallocTunablesProbe.*";
    char* argv[] = {self.data(), filter.data(), nullptr};
    reexec_with_offline_malloc_tunables(argv);
    ::_exit(3);  // it returned: not re-executed
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << "3: the function returned instead of re-executing";
  std::ifstream in(probe);
  std::stringstream seen;
  seen << in.rdbuf();
  std::filesystem::remove(probe);
  // The variable, and the process name of the binary (not "exe", as an exec of /proc/self/exe would give).
  EXPECT_EQ(seen.str(), std::string(kOfflineMallocTunables) + "\nunit_cmd");
}

// Under `ulimit -v` the larger heap steps would spend the limit (the fresh-user trial met an abort at 120 MB that
// the default heap runs in): the command runs as it is.
TEST(MallocTunables, ALimitedAddressSpaceKeepsTheDefaultHeap) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::unsetenv("GLIBC_TUNABLES");
    rlimit limit{};
    ::getrlimit(RLIMIT_AS, &limit);
    limit.rlim_cur = rlim_t{64} << 30;
    if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(4);
    std::string self = "unit_cmd", filter = "--gtest_filter=MallocTunablesProbe.*";
    char* argv[] = {self.data(), filter.data(), nullptr};
    reexec_with_offline_malloc_tunables(argv);
    ::_exit(std::getenv("GLIBC_TUNABLES") == nullptr ? 3 : 5);  // returned, and left the environment alone
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3) << "0: re-executed; 4: setrlimit failed; 5: the variable was left set";
}

TEST(MallocTunables, AVariableSetAlreadyIsLeftAsItIsWithoutARestart) {
  const char* before = std::getenv("GLIBC_TUNABLES");
  const std::string saved = before ? before : "";
  ::setenv("GLIBC_TUNABLES", "glibc.malloc.arena_max=1", 1);
  char self[] = "unit_cmd";
  char* argv[] = {self, nullptr};
  reexec_with_offline_malloc_tunables(argv);  // returns: a re-execution would run the whole suite again
  EXPECT_STREQ(std::getenv("GLIBC_TUNABLES"), "glibc.malloc.arena_max=1");
  if (before)
    ::setenv("GLIBC_TUNABLES", saved.c_str(), 1);
  else
    ::unsetenv("GLIBC_TUNABLES");
}

// Which command lines get the offline heap: render and validate, named first; never run (a long-lived process).
TEST(MallocTunables, OnlyRenderAndValidateAskForTheOfflineHeap) {
  std::string self = "codeflare-operator", render = "render", validate = "validate", run = "run", help = "help";
  char* with_render[] = {self.data(), render.data(), nullptr};
  char* with_validate[] = {self.data(), validate.data(), nullptr};
  char* with_run[] = {self.data(), run.data(), nullptr};
  char* help_validate[] = {self.data(), help.data(), validate.data(), nullptr};
  char* alone[] = {self.data(), nullptr};
  EXPECT_TRUE(wants_offline_heap(2, with_render));
  EXPECT_TRUE(wants_offline_heap(2, with_validate));
  EXPECT_FALSE(wants_offline_heap(2, with_run));
  EXPECT_FALSE(wants_offline_heap(3, help_validate));
  EXPECT_FALSE(wants_offline_heap(1, alone));
}
