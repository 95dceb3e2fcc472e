#pragma once
// The admission webhooks of `codeflare-operator run`, assembled: the server with every handler, and with
// self-managed certificates the CertManager loop on a thread of its own. What the operator wires into its manager.
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "client/rest_client.hpp"
#include "core/error.hpp"
#include "runtime/webhook_observer.hpp"
#include "validation/schema_set.hpp"
#include "validation/validator.hpp"
#include "webhook/cert_manager.hpp"
#include "webhook/validators.hpp"
#include "webhook/webhook_options.hpp"
#include "webhook/webhook_server.hpp"

namespace cfo::webhook {

/// What the webhooks take from the operator. `client` must outlive the Webhooks; `facts` and `is_leader` must be
/// thread-safe (they run on the server's handler threads and on the CertManager thread).
struct WebhookDependencies {
  client::RestClient* client = nullptr;  ///< for self-managed certificates; may be null without them
  std::shared_ptr<const validation::SchemaSet> schemas;
  validation::ClusterProfile profile;  ///< of the guards (the workload handler gets its profile from `facts`)
  FactsFn facts;                       ///< see FactsFn; empty: no cluster facts (validate's view)
  std::function<bool()> is_leader;     ///< only the leader writes certificates; empty: always
  std::shared_ptr<runtime::WebhookObserver> observer;  ///< metrics; may be null
};

/// Every path served: the CodeFlareWorkload webhook first, then the guards (for metrics' track()).
std::vector<std::string> webhook_paths();

/// The server (CodeFlareWorkload handler and the guards, always registered: the webhook configurations decide which
/// are called) and, when options.cert_secret is set, the CertManager loop. Not copyable; stop() or the destructor
/// ends both.
class Webhooks {
 public:
  Webhooks(WebhookOptions options, WebhookDependencies deps);
  Webhooks(const Webhooks&) = delete;
  Webhooks& operator=(const Webhooks&) = delete;
  ~Webhooks();

  /// Starts the server and, with self-managed certificates, the CertManager thread (its first pass writes the
  /// certificate files; the server serves once they exist). Errors: the webhooks are off (no bind address), the
  /// schemas are missing, self-managed certificates without a client, or the server cannot listen.
  Result<void> start();

  /// Stops the CertManager loop, then the server. Idempotent.
  void stop();

  /// True once the server has a certificate to serve (readiness).
  bool ready() const;

  /// The bound port (0 before start()).
  uint16_t port() const;

 private:
  WebhookOptions options_;
  WebhookDependencies deps_;
  std::unique_ptr<WebhookServer> server_;
  std::unique_ptr<CertManager> certs_;
  client::StopToken stop_;
  std::thread cert_thread_;
};

}  // namespace cfo::webhook
