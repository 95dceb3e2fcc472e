// kubeconfig parsing (client/kubeconfig.hpp). Relative file names resolve in a folder that does not exist; standard
// input is /dev/null, so that a file named "/dev/stdin" cannot block.
#include <fcntl.h>
#include <unistd.h>

#include "client/kubeconfig.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  static const bool stdin_closed = [] {
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    return true;
  }();
  (void)stdin_closed;
  const std::string text(cfo::fuzz::text_of(data, size));
  (void)cfo::client::parse_kubeconfig(text, "/nonexistent-cfo-fuzz");
  (void)cfo::client::parse_kubeconfig(text, "/nonexistent-cfo-fuzz", "other");
  return 0;
}
