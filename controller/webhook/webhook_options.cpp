#include "webhook/webhook_options.hpp"

#include "client/file_text.hpp"
#include "core/names.hpp"

namespace cfo::webhook {

namespace {

Result<std::string> single(const FlagValues& values, const std::string& flag, const std::string& fallback) {
  auto all = values(flag);
  if (all.size() > 1) return fail("flag --" + flag + " is given more than once");
  return all.empty() ? fallback : all.front();
}

Result<void> check_name(const std::string& flag, const std::string& value, bool label) {
  auto errs = label ? names::dns1123_label(value) : names::dns1123_subdomain(value);
  if (!errs.empty()) return fail("flag --" + flag + " \"" + value + "\": " + errs.front());
  return {};
}

}  // namespace

const std::map<std::string, bool>& webhook_flags() {
  static const std::map<std::string, bool> flags{
      {"webhook-bind-address", true}, {"webhook-cert-dir", true},  {"webhook-cert-secret", true},
      {"webhook-service", true},      {"webhook-namespace", true}, {"webhook-configuration", true},
  };
  return flags;
}

const char* webhook_help() {
  return "      --webhook-bind-address ADDR            serve the validating admission webhooks (HTTPS) on "
         "[host]:port; \"0\" disables them (default :9443)\n"
         "      --webhook-cert-dir DIR                 folder of the serving certificate, tls.crt and tls.key, "
         "reloaded when they change (default /tmp/k8s-webhook-server/serving-certs)\n"
         "      --webhook-cert-secret NAME             self-managed certificates: keep a CA and the serving "
         "certificate in this Secret (the leader creates and rotates them), write them to --webhook-cert-dir and "
         "put the CA bundle into the --webhook-configuration objects; empty = the files come from elsewhere, e.g. "
         "cert-manager (default \"\")\n"
         "      --webhook-service NAME                 the Service in front of the webhooks, whose DNS names the "
         "self-managed certificate covers (default codeflare-operator-webhook-service)\n"
         "      --webhook-namespace NS                 namespace of that Service and Secret (default: the pod's "
         "namespace)\n"
         "      --webhook-configuration NAME           a ValidatingWebhookConfiguration whose caBundle the leader "
         "keeps with self-managed certificates (repeatable; one that does not exist is skipped)\n";
}

Result<WebhookOptions> parse_webhook_options(const FlagValues& values, const std::string& namespace_file) {
  WebhookOptions o;
  auto bind_text = single(values, "webhook-bind-address", ":9443");
  if (!bind_text) return std::unexpected(bind_text.error());
  auto bind = runtime::parse_bind_address(*bind_text);
  if (!bind) return fail("flag --webhook-bind-address: " + bind.error().message);
  o.bind = *bind;

  auto dir = single(values, "webhook-cert-dir", kDefaultCertDir);
  if (!dir) return std::unexpected(dir.error());
  if (dir->empty() || dir->front() != '/') return fail("flag --webhook-cert-dir must be an absolute path");
  o.cert_dir = *dir;
  while (o.cert_dir.size() > 1 && o.cert_dir.back() == '/') o.cert_dir.pop_back();

  auto secret = single(values, "webhook-cert-secret", "");
  if (!secret) return std::unexpected(secret.error());
  o.cert_secret = *secret;
  if (!o.cert_secret.empty())
    if (auto r = check_name("webhook-cert-secret", o.cert_secret, false); !r) return std::unexpected(r.error());

  auto service = single(values, "webhook-service", kDefaultWebhookService);
  if (!service) return std::unexpected(service.error());
  o.service = *service;
  if (auto r = check_name("webhook-service", o.service, true); !r) return std::unexpected(r.error());

  for (const auto& c : values("webhook-configuration")) {
    if (auto r = check_name("webhook-configuration", c, false); !r) return std::unexpected(r.error());
    o.configurations.push_back(c);
  }

  auto ns = single(values, "webhook-namespace", "");
  if (!ns) return std::unexpected(ns.error());
  o.namespace_ = *ns;
  if (o.namespace_.empty() && o.bind && !o.cert_secret.empty()) {
    auto text = client::read_file_text(namespace_file);
    if (text) o.namespace_ = client::trim_space(*text);
    if (o.namespace_.empty())
      return fail("flag --webhook-namespace is required with --webhook-cert-secret outside a cluster (" +
                  namespace_file + " is not readable)");
  }
  if (!o.namespace_.empty())
    if (auto r = check_name("webhook-namespace", o.namespace_, true); !r) return std::unexpected(r.error());
  return o;
}

WebhookServerOptions server_options(const WebhookOptions& o, std::shared_ptr<runtime::WebhookObserver> observer) {
  WebhookServerOptions s;
  if (o.bind) s.bind = *o.bind;
  s.cert_path = o.cert_dir + "/tls.crt";
  s.key_path = o.cert_dir + "/tls.key";
  s.observer = std::move(observer);
  return s;
}

CertManagerOptions cert_manager_options(const WebhookOptions& o) {
  CertManagerOptions c;
  c.namespace_ = o.namespace_;
  c.secret_name = o.cert_secret;
  c.names.dns_names = service_dns_names(o.service, o.namespace_);
  c.webhook_configurations = o.configurations;
  c.cert_dir = o.cert_dir;
  return c;
}

}  // namespace cfo::webhook
