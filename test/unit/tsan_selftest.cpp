// The ThreadSanitizer folder's own test (ctest tsan_selftest, only in the -DCFO_SANITIZE=thread build): an
// unsynchronised counter written by two threads must be reported as a data race. It fails when the folder is built
// or run without TSan (the flags lost, or an unexpected memory layout), so that "no reports" in unit_runtime and
// unit_operator means something.
#include <cstdio>
#include <thread>

namespace {
int counter = 0;  // deliberately unguarded
}

int main() {
  std::thread other([] { ++counter; });
  ++counter;
  other.join();
  std::printf("counter=%d (ThreadSanitizer should have reported a data race above)\n", counter);
  return 0;
}
