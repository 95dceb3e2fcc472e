// Where the configuration comes from when nothing is said: controller-runtime's pkg/client/config GetConfig order.
#include <cstdlib>
#include <filesystem>

#include "client/kubeconfig.hpp"

namespace cfo::client {

Result<ClientConfig> load_default(const std::string& flag_path) {
  // 1. --kubeconfig: when given, it is the answer, including its error.
  if (!flag_path.empty()) return load_kubeconfig_file(flag_path);

  std::string tried;
  // 2. $KUBECONFIG: its first non-empty entry when it is a colon-separated list.
  if (const char* env = std::getenv("KUBECONFIG"); env && *env) {
    std::string list = env;
    std::size_t start = 0;
    while (start <= list.size()) {
      std::size_t end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      std::string entry = list.substr(start, end - start);
      if (!entry.empty()) return load_kubeconfig_file(entry);
      start = end + 1;
    }
    tried += "$KUBECONFIG is set but lists no file; ";
  } else {
    tried += "--kubeconfig not given; $KUBECONFIG not set; ";
  }

  // 3. In-cluster: any failure falls through to the home directory, as in controller-runtime.
  auto in_cluster = load_in_cluster();
  if (in_cluster) return in_cluster;
  tried += in_cluster.error().message + "; ";

  // 4. $HOME/.kube/config.
  if (const char* home = std::getenv("HOME"); home && *home) {
    std::string path = (std::filesystem::path(home) / ".kube" / "config").string();
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) return load_kubeconfig_file(path);
    tried += path + " does not exist";
  } else {
    tried += "$HOME is not set";
  }
  return fail("no apiserver configuration found: " + tried);
}

}  // namespace cfo::client
