#pragma once
// Where the operator finds its apiserver and credentials.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace cfo::client {

/// Everything needed to talk to one apiserver. PEM material is held in memory; the *_file fields remember where it
/// came from so that it can be re-read (service-account token every minute, CA every 5 minutes, as client-go).
struct ClientConfig {
  std::string server;  ///< "https://127.0.0.1:6443" (scheme, host, port; no trailing slash)
  std::string ca_pem;  ///< CA bundle used to verify the server; empty means the system store
  bool insecure_skip_tls_verify = false;
  std::string bearer_token;       ///< "Authorization: Bearer <token>" when non-empty
  std::string bearer_token_file;  ///< re-read periodically when set (in-cluster)
  std::string ca_file;
  std::string client_cert_pem;  ///< client-certificate auth when both cert and key are set
  std::string client_key_pem;
  /// Impersonation (kubeconfig user `as`, `as-uid`, `as-groups`, `as-user-extra`): every request carries the
  /// Impersonate-User / -Uid / -Group / -Extra-<key> headers, so the apiserver authorizes it as that user (the
  /// credentials above must be allowed to impersonate). Empty user: no impersonation.
  std::string impersonate_user;
  std::string impersonate_uid;
  std::vector<std::string> impersonate_groups;
  std::map<std::string, std::vector<std::string>> impersonate_extra;
  std::string default_namespace = "default";  ///< the context's namespace, or the pod's namespace in-cluster
  std::string source;                         ///< where it was loaded from, for logs: a kubeconfig path or "in-cluster"
};

/// Parses a kubeconfig (YAML or JSON text) and returns the current context's cluster and user.
/// Supports `certificate-authority(-data)`, `insecure-skip-tls-verify`, `token`, `tokenFile`,
/// `client-certificate(-data)`, `client-key(-data)`, and impersonation (`as`, `as-uid`, `as-groups`,
/// `as-user-extra`; groups, uid or extra without `as` are refused, as clientcmd does); relative file paths are
/// resolved against `base_dir`. A file named there is read up to kMaxCredentialFileBytes (1 MiB, file_text.hpp);
/// a larger one is an error naming the field and the file.
/// `context_override` picks a context other than `current-context`.
/// Errors name the missing or malformed field, e.g. "kubeconfig: context \"x\" not found".
Result<ClientConfig> parse_kubeconfig(const std::string& text, const std::string& base_dir,
                                      const std::string& context_override = {});

/// Reads (at most kMaxKubeconfigBytes, 16 MiB) and parses a kubeconfig file (see parse_kubeconfig).
Result<ClientConfig> load_kubeconfig_file(const std::string& path, const std::string& context_override = {});

/// The in-cluster configuration: KUBERNETES_SERVICE_HOST/PORT, and the token, CA and namespace under
/// `sa_dir` (default /var/run/secrets/kubernetes.io/serviceaccount). Error when not running in a pod.
Result<ClientConfig> load_in_cluster(const std::string& sa_dir = "/var/run/secrets/kubernetes.io/serviceaccount");

/// controller-runtime's precedence: `flag_path` (--kubeconfig) if non-empty, then $KUBECONFIG, then in-cluster,
/// then $HOME/.kube/config. The error lists every place that was tried.
Result<ClientConfig> load_default(const std::string& flag_path);

}  // namespace cfo::client
