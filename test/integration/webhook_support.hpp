#pragma once
// Pieces of the webhook tests against the fixture's kube-apiserver: a client, kubectl runs, a self-signed serving
// certificate for 127.0.0.1, namespaces selected by a label, and ValidatingWebhookConfigurations registered by URL.
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "client/rest_client.hpp"
#include "core/json.hpp"
#include "webhook/certificates.hpp"

namespace cfo::it {

/// The test's client (system:masters on the fixture's apiserver, from $KUBECONFIG).
client::RestClient& api();

/// Polls `pred` every 100 ms until it is true or `timeout` passes; returns its last value.
bool eventually(const std::function<bool()>& pred, std::chrono::milliseconds timeout = std::chrono::seconds(20));

/// A shell command's exit code and its stdout and stderr together.
struct CommandResult {
  int code = -1;
  std::string output;
};

/// Runs `kubectl --kubeconfig $KUBECONFIG <args>` ($KUBECTL or kubectl), `stdin_text` on its standard input.
CommandResult kubectl(const std::string& args, const std::string& stdin_text = "");

/// A project file's text (relative to the source dir), or a file's by absolute path.
std::string read_text(const std::string& path);

/// The project's source folder.
std::string source_dir();

/// *.yaml files of `dir` (absolute), sorted, kustomization.yaml left out.
std::vector<std::string> yaml_files(const std::string& dir);

/// "<prefix>-<random>".
std::string unique_name(const std::string& prefix);

/// Creates namespace `ns` labelled `cfo-webhook-test: <label>` (what the test's webhook configurations select, so
/// that other tests on the same apiserver never meet them). Fatal test failure on error.
void create_test_namespace(const std::string& ns, const std::string& label);

/// A CA and a serving certificate for IP 127.0.0.1 (and "localhost"), written as tls.crt / tls.key in a new folder.
struct LoopbackCerts {
  LoopbackCerts();
  ~LoopbackCerts();
  std::string dir;
  webhook::CertificatePair ca;
  webhook::CertificatePair serving;
  std::string cert_path() const { return dir + "/tls.crt"; }
  std::string key_path() const { return dir + "/tls.key"; }
};

/// One webhook of a ValidatingWebhookConfiguration, registered by URL.
struct WebhookSpec {
  std::string name;           ///< e.g. "vcodeflareworkload.codeflare.dev"
  std::string url;            ///< https://127.0.0.1:<port>/<path>
  std::string ca_bundle_pem;  ///< "" leaves caBundle out (CertManager fills it)
  std::string group, version, resource;
  bool cluster_scoped = false;
  std::string failure_policy = "Fail";
  std::string selector_label;  ///< the value of cfo-webhook-test: namespaceSelector (namespaced) or objectSelector
};

/// Creates a ValidatingWebhookConfiguration (admissionregistration.k8s.io/v1; sideEffects None,
/// admissionReviewVersions [v1], timeoutSeconds 10, CREATE and UPDATE). Fatal test failure on error.
void create_webhook_configuration(const std::string& name, const std::vector<WebhookSpec>& webhooks);

/// Deletes it (ignoring "not found").
void delete_webhook_configuration(const std::string& name);

/// Sets failurePolicy of every webhook of the configuration.
void set_failure_policy(const std::string& name, const std::string& policy);

/// POSTs `obj` to `collection` with dryRun=All; returns the HTTP status (0 on a transport error) and the body.
std::pair<unsigned, std::string> dry_run_create(const std::string& collection, const json::Value& obj);

}  // namespace cfo::it
