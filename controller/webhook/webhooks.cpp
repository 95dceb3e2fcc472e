#include "webhook/webhooks.hpp"

#include <spdlog/spdlog.h>

namespace cfo::webhook {

std::vector<std::string> webhook_paths() {
  std::vector<std::string> out{validate_path(codeflare_workload_kind())};
  for (const auto& k : guard_kinds()) out.push_back(validate_path(k));
  return out;
}

Webhooks::Webhooks(WebhookOptions options, WebhookDependencies deps)
    : options_(std::move(options)), deps_(std::move(deps)) {}

Webhooks::~Webhooks() { stop(); }

Result<void> Webhooks::start() {
  if (!options_.bind) return fail("webhooks: they are off (--webhook-bind-address=0)");
  if (!deps_.schemas) return fail("webhooks: no CRD schemas to judge objects with");
  if (server_) return fail("webhooks: already started");
  const bool self_managed = !options_.cert_secret.empty();
  if (self_managed && !deps_.client) return fail("webhooks: self-managed certificates need an apiserver client");

  server_ = std::make_unique<WebhookServer>(server_options(options_, deps_.observer));
  if (auto r =
          server_->handle(validate_path(codeflare_workload_kind()), make_workload_handler(deps_.schemas, deps_.facts));
      !r)
    return r;
  for (const auto& k : guard_kinds())
    if (auto r = server_->handle(validate_path(k), make_guard_handler(deps_.schemas, deps_.profile, k)); !r) return r;
  if (auto r = server_->start(); !r) return r;

  if (self_managed) {
    auto is_leader = deps_.is_leader ? deps_.is_leader : [] { return true; };
    certs_ = std::make_unique<CertManager>(*deps_.client, cert_manager_options(options_), std::move(is_leader));
    cert_thread_ = std::thread([this] { certs_->run(stop_); });
    spdlog::info("webhook certificates: self-managed in Secret {}/{}", options_.namespace_, options_.cert_secret);
  } else {
    spdlog::info("webhook certificates: read from {} (provided, e.g. by cert-manager)", options_.cert_dir);
  }
  return {};
}

void Webhooks::stop() {
  stop_.request_stop();
  if (cert_thread_.joinable()) cert_thread_.join();
  if (server_) server_->stop();
}

bool Webhooks::ready() const { return server_ && server_->has_certificate(); }

uint16_t Webhooks::port() const { return server_ ? server_->port() : 0; }

}  // namespace cfo::webhook
