#pragma once
// Self-managed webhook certificates: kept in a Secret, rotated by the leader (cert_rotation.hpp), written to the
// files the webhook server reloads by every replica, and trusted by the apiserver through the caBundle the leader
// keeps in the ValidatingWebhookConfigurations. The cert-manager alternative (config/certmanager) needs none of
// this: cert-manager fills the Secret and its cainjector the caBundle.
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "client/rest_client.hpp"
#include "core/error.hpp"
#include "webhook/cert_rotation.hpp"

namespace cfo::webhook {

/// The Secret's data keys: `tls.crt`, `tls.key` (what is served, the names cert-manager and kubernetes.io/tls use),
/// `ca.crt` (the CA bundle), `signer.crt` / `signer.key` (the CA that issued tls.crt), and while a rotation is
/// staged `next-tls.crt`, `next-tls.key`, `next-signer.crt`, `next-signer.key`. The times of the last staging and
/// promotion are the annotations below (RFC 3339 UTC). Other keys and annotations are left alone.
namespace secret_keys {
inline constexpr const char* kTlsCert = "tls.crt";
inline constexpr const char* kTlsKey = "tls.key";
inline constexpr const char* kCaBundle = "ca.crt";
inline constexpr const char* kSignerCert = "signer.crt";
inline constexpr const char* kSignerKey = "signer.key";
inline constexpr const char* kNextTlsCert = "next-tls.crt";
inline constexpr const char* kNextTlsKey = "next-tls.key";
inline constexpr const char* kNextSignerCert = "next-signer.crt";
inline constexpr const char* kNextSignerKey = "next-signer.key";
inline constexpr const char* kStagedAtAnnotation = "codeflare.dev/webhook-cert-staged-at";
inline constexpr const char* kPromotedAtAnnotation = "codeflare.dev/webhook-cert-promoted-at";
}  // namespace secret_keys

/// Where the certificates live and how often they are looked at.
struct CertManagerOptions {
  /// The Secret, in the operator's namespace. The manifests ship it empty, so that RBAC can name it
  /// (create cannot be limited to one name); when it is missing the leader tries to create it.
  std::string namespace_;
  std::string secret_name = "codeflare-operator-webhook-server-cert";
  /// What the serving certificate is made for: service_dns_names(<Service>, <namespace>) in a cluster; an IP such as
  /// 127.0.0.1 for a webhook registered by URL (tests).
  ServingNames names;
  /// The ValidatingWebhookConfigurations whose every webhook gets the CA bundle (clientConfig.caBundle). A
  /// configuration that does not exist (e.g. the optional guards) is skipped.
  std::vector<std::string> webhook_configurations;
  /// The folder of tls.crt, tls.key and ca.crt for the webhook server (WebhookServerOptions::cert_path/key_path).
  std::string cert_dir = "/tmp/k8s-webhook-server/serving-certs";
  RotationPolicy policy;
  /// How often every replica reads the Secret (and the leader rotates and injects). policy.settle should exceed it
  /// plus the server's certificate check, or a replica may still serve a pair whose CA left the bundle.
  std::chrono::milliseconds sync_period{60'000};
  /// Wall clock; system_clock::now when empty. For tests.
  std::function<Clock::time_point()> now;
};

/// What one sync did.
struct CertSyncReport {
  bool leader = false;
  RotationDecision decision;       ///< Keep for a replica that is not the leader
  bool secret_written = false;     ///< the leader created or updated the Secret
  int webhooks_patched = 0;        ///< webhooks whose caBundle the leader changed
  bool files_written = false;      ///< tls.crt / tls.key / ca.crt changed on disk
  bool serving_available = false;  ///< the Secret holds a serving pair (written to the files)
};

/// Keeps the webhook certificates. `client` must outlive it; `is_leader` (thread-safe) says whether this replica
/// may write (the Secret, the webhook configurations): only the leader writes, every replica reads and serves.
class CertManager {
 public:
  CertManager(client::RestClient& client, CertManagerOptions options, std::function<bool()> is_leader);

  /// One pass. Every replica reads the Secret and writes its serving pair and bundle to cert_dir (only when they
  /// changed; tls.key with mode 0600, each file replaced by a rename). The leader first makes the webhook
  /// configurations carry the Secret's bundle, then applies decide_rotation()'s step (writing the Secret with its
  /// resourceVersion, so a concurrent writer makes this pass fail with a conflict instead of losing an update) and
  /// injects the new bundle. Errors: the apiserver refused or could not be reached (a 403 names the missing RBAC
  /// rule), certificate generation, or the files could not be written; the next pass starts over.
  Result<CertSyncReport> sync_once();

  /// sync_once() every sync_period until `stop` is requested (5 s after a failed pass, at most sync_period); errors
  /// are logged. Blocks; run it on a thread of its own.
  void run(client::StopToken& stop);

  const CertManagerOptions& options() const { return options_; }

 private:
  client::RestClient& client_;
  CertManagerOptions options_;
  std::function<bool()> is_leader_;
};

/// The certificates in a Secret object (JSON), and the Secret's resourceVersion in `resource_version`. Missing or
/// undecodable keys read as empty.
CertificateSet certificates_from_secret(const json::Value& secret, std::string* resource_version = nullptr);

/// `secret` (may be null: a new one named `name` in `namespace_`) with its data and annotations set from `set`
/// (other keys and annotations kept; staged keys removed when nothing is staged).
json::Document secret_with_certificates(const json::Value* secret, const std::string& namespace_,
                                        const std::string& name, const CertificateSet& set);

/// RFC 3339 UTC with second precision, and back (epoch when `text` does not parse).
std::string format_rfc3339(Clock::time_point t);
Clock::time_point parse_rfc3339(const std::string& text);

}  // namespace cfo::webhook
