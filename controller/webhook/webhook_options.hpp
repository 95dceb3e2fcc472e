#pragma once
// The `--webhook-*` flags of `codeflare-operator run`: where the admission webhooks listen and where their
// certificates come from. Parsed here so that the command line layer only lists them (run_options.cpp).
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "runtime/http_server.hpp"
#include "webhook/cert_manager.hpp"
#include "webhook/webhook_server.hpp"

namespace cfo::webhook {

/// The Service name the manifests give the webhook (config/webhook, the Helm chart's default release).
inline constexpr const char* kDefaultWebhookService = "codeflare-operator-webhook-service";
/// controller-runtime's default folder of the serving certificate.
inline constexpr const char* kDefaultCertDir = "/tmp/k8s-webhook-server/serving-certs";

/// Every webhook setting of `run`.
struct WebhookOptions {
  /// --webhook-bind-address (default ":9443"); std::nullopt ("0") turns the webhooks off.
  std::optional<runtime::BindAddress> bind;
  /// --webhook-cert-dir: tls.crt and tls.key, read and reloaded by the server.
  std::string cert_dir = kDefaultCertDir;
  /// --webhook-cert-secret: self-managed certificates, kept in this Secret of `namespace_`. Empty: the files of
  /// cert_dir come from elsewhere (cert-manager's Secret mounted there) and nothing is written.
  std::string cert_secret;
  /// --webhook-service: the Service in front of the webhooks; the self-managed certificate is made for
  /// <service>.<namespace>.svc and <service>.<namespace>.svc.cluster.local.
  std::string service = kDefaultWebhookService;
  /// --webhook-namespace: the namespace of that Service and of the Secret (default: the pod's own).
  std::string namespace_;
  /// --webhook-configuration (repeatable): the ValidatingWebhookConfigurations whose caBundle the leader keeps with
  /// self-managed certificates. One that does not exist is skipped.
  std::vector<std::string> configurations;
};

/// The flags (name -> takes a value), to be merged into `run`'s.
const std::map<std::string, bool>& webhook_flags();

/// The help lines of those flags, in `run --help`'s layout (each "(default X)").
const char* webhook_help();

/// Every value given for a flag (empty when absent), e.g. from the command line parser.
using FlagValues = std::function<std::vector<std::string>(const std::string& flag)>;

/// Reads and checks the webhook flags. `namespace_file` is where the pod's namespace is read when
/// --webhook-namespace is not given (the service account mount in a pod). Errors (the caller exits 2) name the flag:
/// a bad bind address, a flag given twice that takes one value, a Secret, Service or configuration name that is
/// not a DNS subdomain (the Service a DNS label), a relative --webhook-cert-dir, or self-managed certificates without
/// a namespace (outside a cluster, without --webhook-namespace).
Result<WebhookOptions> parse_webhook_options(const FlagValues& values, const std::string& namespace_file);

/// The server's options for these flags (bind address, tls.crt / tls.key in cert_dir); every other setting keeps
/// WebhookServerOptions' defaults. `observer` receives the requests (metrics).
WebhookServerOptions server_options(const WebhookOptions& o, std::shared_ptr<runtime::WebhookObserver> observer);

/// CertManager's options for self-managed certificates (cert_secret set): the Secret, the Service's DNS names, the
/// configurations and cert_dir; the rotation policy and sync period keep their defaults.
CertManagerOptions cert_manager_options(const WebhookOptions& o);

}  // namespace cfo::webhook
