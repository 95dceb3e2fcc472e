// In-cluster configuration, as client-go's rest.InClusterConfig builds it: the apiserver address from the
// KUBERNETES_SERVICE_HOST/PORT variables the kubelet sets, and the pod's service-account token, CA and namespace.
#include <cstdlib>
#include <filesystem>

#include "client/file_text.hpp"
#include "client/kubeconfig.hpp"

namespace cfo::client {

Result<ClientConfig> load_in_cluster(const std::string& sa_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (!host || !*host || !port || !*port)
    return fail("in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set (not running in a pod)");

  const std::filesystem::path dir(sa_dir);
  ClientConfig cfg;
  std::string h = host;
  bool v6 = h.find(':') != std::string::npos && h.front() != '[';
  cfg.server = "https://" + (v6 ? "[" + h + "]" : h) + ":" + port;
  cfg.source = "in-cluster";

  // The token is required; client-go fails without it too.
  cfg.bearer_token_file = (dir / "token").string();
  auto token = read_file_text(cfg.bearer_token_file);
  if (!token) return fail("in-cluster: service-account token: " + token.error().message);
  cfg.bearer_token = trim_space(*token);
  if (cfg.bearer_token.empty())
    return fail("in-cluster: service-account token file " + cfg.bearer_token_file + " is empty");

  // A missing CA is not fatal in client-go either: the system trust store is used instead.
  std::string ca_path = (dir / "ca.crt").string();
  if (auto ca = read_file_text(ca_path); ca && !ca->empty()) {
    cfg.ca_pem = std::move(*ca);
    cfg.ca_file = ca_path;
  }

  if (auto ns = read_file_text((dir / "namespace").string()); ns) {
    std::string n = trim_space(*ns);
    if (!n.empty()) cfg.default_namespace = n;
  }
  return cfg;
}

}  // namespace cfo::client
