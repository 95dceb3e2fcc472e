// Admission latency of the CodeFlareWorkload webhook, printed as key=value figures (no thresholds). A WebhookServer
// runs in this process on 127.0.0.1 and is registered by URL with its CA bundle; then a typical workload is sent N
// times as a server-side dry-run create (POST ...?dryRun=All) over one keep-alive connection to the apiserver, in
// turns (so that both series see the same load of the machine):
//   1. without the webhook (a namespace its configuration does not select): what the apiserver costs alone,
//   2. with the webhook (failurePolicy Fail): the same request, judged by the webhook,
// and inside the process, from the same run:
//   3. the handler alone (workload::reconcile and the verdict, no I/O),
//   4. the server's own time per request (request read to answer written).
// Percentiles are nearest-rank over the N samples of each series, after a warm-up.
//
// Usage: webhook_latency_bench [--kubeconfig FILE] [--crds DIR] [-f FILE] [-n N] [--warmup N]
//   --kubeconfig FILE  the apiserver (default $KUBECONFIG); the user must create namespaces and webhook configurations
//   --crds DIR         folder laid out like shared/crds (its upstream/ is used); default $UPSTREAM_CRDS
//   -f FILE            the workload (default config/samples/cfw_gpu_queue.yaml: a head, a GPU worker group, a queue)
//   -n N               measured requests per series (default 2000)
//   --warmup N         requests sent first and not measured (default 100)
// Exit code: 0 when every series ran, 1 when a request failed, 2 on bad usage.
#include <openssl/x509v3.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>
#include <string>
#include <vector>

#include "client/base64.hpp"
#include "client/kubeconfig.hpp"
#include "client/server_url.hpp"
#include "core/yaml.hpp"
#include "validation/schema_set.hpp"
#include "webhook/certificates.hpp"
#include "webhook/validators.hpp"
#include "webhook/webhook_server.hpp"

#ifndef CFO_BENCH_SOURCE_DIR
#define CFO_BENCH_SOURCE_DIR "."
#endif

using namespace cfo;
namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace fs = std::filesystem;
using Steady = std::chrono::steady_clock;

namespace {

struct Options {
  std::string kubeconfig;
  std::string crds;
  std::string input = std::string(CFO_BENCH_SOURCE_DIR) + "/../config/samples/cfw_gpu_queue.yaml";
  int n = 2000;
  int warmup = 100;
};

/// One keep-alive HTTPS connection to the apiserver with the kubeconfig's credentials.
class ApiConnection {
 public:
  explicit ApiConnection(const client::ClientConfig& cfg) : cfg_(cfg), tls_(asio::ssl::context::tls_client) {
    auto url = client::parse_server_url(cfg.server);
    if (!url) throw std::runtime_error(url.error().message);
    url_ = *url;
    if (!cfg.ca_pem.empty()) tls_.add_certificate_authority(asio::buffer(cfg.ca_pem));
    tls_.set_verify_mode(cfg.insecure_skip_tls_verify ? asio::ssl::verify_none : asio::ssl::verify_peer);
    if (!cfg.client_cert_pem.empty() && !cfg.client_key_pem.empty()) {
      tls_.use_certificate_chain(asio::buffer(cfg.client_cert_pem));
      tls_.use_private_key(asio::buffer(cfg.client_key_pem), asio::ssl::context::pem);
    }
    connect();
  }

  /// Sends one request; reconnects once when the connection was closed. Returns status and body.
  std::pair<unsigned, std::string> send(http::verb method, const std::string& target, const std::string& body,
                                        const std::string& content_type = "application/json") {
    for (int attempt = 0; attempt < 2; ++attempt) {
      http::request<http::string_body> req(method, url_.path_prefix + target, 11);
      req.set(http::field::host, url_.host_header());
      req.set(http::field::content_type, content_type);
      req.set(http::field::accept, "application/json");
      if (!cfg_.bearer_token.empty()) req.set(http::field::authorization, "Bearer " + cfg_.bearer_token);
      req.body() = body;
      req.prepare_payload();
      boost::system::error_code ec;
      http::write(*stream_, req, ec);
      boost::beast::flat_buffer buffer;
      http::response<http::string_body> res;
      if (!ec) http::read(*stream_, buffer, res, ec);
      if (!ec) return {res.result_int(), res.body()};
      connect();
    }
    return {0, "connection failed"};
  }

 private:
  void connect() {
    stream_ = std::make_unique<asio::ssl::stream<asio::ip::tcp::socket>>(ioc_, tls_);
    if (url_.host_is_ip)
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(stream_->native_handle()), url_.host.c_str());
    else
      SSL_set1_host(stream_->native_handle(), url_.host.c_str());
    asio::ip::tcp::resolver resolver(ioc_);
    asio::connect(stream_->lowest_layer(), resolver.resolve(url_.host, url_.port));
    stream_->lowest_layer().set_option(asio::ip::tcp::no_delay(true));
    stream_->handshake(asio::ssl::stream_base::client);
  }

  client::ClientConfig cfg_;
  client::ServerUrl url_;
  asio::io_context ioc_;
  asio::ssl::context tls_;
  std::unique_ptr<asio::ssl::stream<asio::ip::tcp::socket>> stream_;
};

/// Collects the server's per-request seconds.
class ServerTimes : public runtime::WebhookObserver {
 public:
  void on_request_start(const std::string&) override {}
  void on_request_end(const std::string&, unsigned, double seconds) override {
    std::lock_guard lk(mu_);
    ms_.push_back(seconds * 1000);
  }
  std::vector<double> take() {
    std::lock_guard lk(mu_);
    return std::exchange(ms_, {});
  }

 private:
  std::mutex mu_;
  std::vector<double> ms_;
};

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t rank = static_cast<std::size_t>(p / 100.0 * static_cast<double>(v.size()) + 0.999999);
  return v[std::min(v.size(), std::max<std::size_t>(rank, 1)) - 1];
}

void print(const std::string& series, const std::vector<double>& ms) {
  std::printf("%s_p50_ms=%.3f %s_p99_ms=%.3f %s_max_ms=%.3f\n", series.c_str(), percentile(ms, 50), series.c_str(),
              percentile(ms, 99), series.c_str(), ms.empty() ? 0.0 : *std::max_element(ms.begin(), ms.end()));
}

int usage(const std::string& why) {
  std::cerr << "webhook_latency_bench: " << why
            << "\nusage: webhook_latency_bench [--kubeconfig FILE] [--crds DIR] [-f FILE] [-n N] [--warmup N]\n";
  return 2;
}

std::string random_suffix() {
  std::mt19937 rng(std::random_device{}());
  return std::to_string(rng() % 1000000);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (const char* k = std::getenv("KUBECONFIG")) o.kubeconfig = k;
  if (const char* c = std::getenv("UPSTREAM_CRDS")) o.crds = c;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--kubeconfig")
      o.kubeconfig = value();
    else if (a == "--crds")
      o.crds = value();
    else if (a == "-f")
      o.input = value();
    else if (a == "-n")
      o.n = std::atoi(value().c_str());
    else if (a == "--warmup")
      o.warmup = std::atoi(value().c_str());
    else
      return usage("unknown argument " + a);
  }
  if (o.kubeconfig.empty()) return usage("no kubeconfig (--kubeconfig or $KUBECONFIG)");
  if (o.crds.empty()) return usage("no CRDs (--crds or $UPSTREAM_CRDS)");
  if (o.n < 1 || o.warmup < 0) return usage("-n must be at least 1 and --warmup at least 0");

  auto cfg = client::load_kubeconfig_file(o.kubeconfig);
  if (!cfg) return usage(cfg.error().message);
  const std::string crd_dir = fs::is_directory(o.crds + "/upstream") ? o.crds + "/upstream" : o.crds;
  auto loaded = validation::SchemaSet::load_dir(crd_dir);
  if (!loaded) return usage(loaded.error().message);
  auto schemas = std::make_shared<const validation::SchemaSet>(std::move(*loaded));
  std::ifstream in(o.input);
  std::stringstream text;
  text << in.rdbuf();
  auto docs = yaml::to_json(text.str());
  if (!docs || docs->empty()) return usage("cannot read the workload " + o.input);
  json::Document workload = std::move((*docs)[0]);

  // The webhook: a CA and a serving certificate for 127.0.0.1, the handler with fixed facts (no lookups).
  const auto now = webhook::Clock::now();
  auto ca = webhook::generate_ca("bench-ca", {now - std::chrono::minutes(1), now + std::chrono::hours(1)});
  auto serving = webhook::generate_serving_certificate(*ca, {{}, {"127.0.0.1"}},
                                                       {now - std::chrono::minutes(1), now + std::chrono::hours(1)});
  const fs::path dir = fs::temp_directory_path() / ("cfo-webhook-bench-" + random_suffix());
  fs::create_directories(dir);
  std::ofstream(dir / "tls.crt") << serving->cert_pem;
  std::ofstream(dir / "tls.key") << serving->key_pem;
  auto times = std::make_shared<ServerTimes>();
  webhook::WebhookServerOptions so;
  so.bind = runtime::BindAddress{"127.0.0.1", 0};
  so.cert_path = (dir / "tls.crt").string();
  so.key_path = (dir / "tls.key").string();
  so.observer = times;
  webhook::WebhookServer server(so);
  auto facts = [](const json::Value&, json::Document&) -> Result<workload::ClusterFacts> {
    workload::ClusterFacts f;
    f.kueue_version = "v1beta2";
    return f;
  };
  const std::string path = webhook::validate_path(webhook::codeflare_workload_kind());
  auto handler = webhook::make_workload_handler(schemas, facts);
  if (!server.handle(path, handler) || !server.start()) return usage("the webhook server did not start");

  ApiConnection api(*cfg);
  const std::string label = "bench-" + random_suffix();
  const std::string judged = "webhook-" + label, plain = "plain-" + label;
  for (const auto& ns : {judged, plain}) {
    std::string body = R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + ns + R"(","labels":{)" +
                       (ns == judged ? R"("cfo-webhook-bench":")" + label + "\"" : std::string()) + "}}}";
    auto [status, out] = api.send(http::verb::post, "/api/v1/namespaces", body);
    if (status != 201) return usage("cannot create namespace " + ns + ": " + out);
  }
  const std::string config = "cfo-webhook-bench-" + label;
  const std::string config_body =
      R"({"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":")" +
      config +
      R"("},"webhooks":[{"name":"vcodeflareworkload.codeflare.dev","clientConfig":{"url":"https://127.0.0.1:)" +
      std::to_string(server.port()) + path + R"(","caBundle":")" + client::encode_base64(ca->cert_pem) +
      R"("},"rules":[{"apiGroups":["codeflare.dev"],"apiVersions":["v1alpha1"],"operations":["CREATE","UPDATE"],)"
      R"("resources":["codeflareworkloads"],"scope":"Namespaced"}],"failurePolicy":"Fail","sideEffects":"None",)"
      R"("admissionReviewVersions":["v1"],"timeoutSeconds":10,"namespaceSelector":{"matchLabels":{"cfo-webhook-bench":")" +
      label + R"("}}}]})";
  const std::string configs = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
  if (auto [status, out] = api.send(http::verb::post, configs, config_body); status != 201)
    return usage("cannot create the webhook configuration: " + out);

  const std::string body = json::dump(workload);
  // One request of each series in turn, so that both see the same load of the machine.
  auto one = [&](const std::string& ns, double& ms) -> bool {
    const std::string target = "/apis/codeflare.dev/v1alpha1/namespaces/" + ns + "/codeflareworkloads?dryRun=All";
    const auto t0 = Steady::now();
    auto [status, reply] = api.send(http::verb::post, target, body);
    ms = std::chrono::duration<double, std::milli>(Steady::now() - t0).count();
    if (status == 201) return true;
    std::cerr << "webhook_latency_bench: " << ns << ": HTTP " << status << ": " << reply.substr(0, 500) << "\n";
    return false;
  };
  auto series = [&](std::vector<double>& without, std::vector<double>& with) -> bool {
    for (int i = 0; i < o.warmup + o.n; ++i) {
      double plain_ms = 0, judged_ms = 0;
      if (!one(plain, plain_ms) || !one(judged, judged_ms)) return false;
      if (i < o.warmup) continue;
      without.push_back(plain_ms);
      with.push_back(judged_ms);
    }
    return true;
  };

  // The apiserver picks the configuration up asynchronously: wait until the webhook is called.
  bool ready = false;
  for (int i = 0; i < 200 && !ready; ++i) {
    api.send(http::verb::post, "/apis/codeflare.dev/v1alpha1/namespaces/" + judged + "/codeflareworkloads?dryRun=All",
             body);
    ready = !times->take().empty();
    if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::vector<double> without, with, handler_ms;
  times->take();
  bool ok = ready && series(without, with);
  std::vector<double> server_ms = times->take();
  if (server_ms.size() > static_cast<std::size_t>(o.n))
    server_ms.erase(server_ms.begin(), server_ms.end() - o.n);  // drop the warm-up
  // The handler alone, on the request the apiserver sends (namespace, uid, generation filled in).
  json::Document as_sent = json::clone(workload);
  auto& a = as_sent.GetAllocator();
  json::set(as_sent["metadata"], "namespace", json::str(judged, a), a);
  json::set(as_sent["metadata"], "uid", json::str("00000000-0000-0000-0000-000000000001", a), a);
  json::set(as_sent["metadata"], "generation", json::Value(1), a);
  std::string review = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u",)"
                       R"("kind":{"group":"codeflare.dev","version":"v1alpha1","kind":"CodeFlareWorkload"},)"
                       R"("operation":"CREATE","namespace":")" +
                       judged + R"(","object":)" + json::dump(as_sent) + "}}";
  auto decoded = webhook::decode_admission_review(review);
  for (int i = 0; decoded && i < o.warmup + o.n; ++i) {
    const auto t0 = Steady::now();
    webhook::AdmissionResponse r = handler(*decoded);
    const double ms = std::chrono::duration<double, std::milli>(Steady::now() - t0).count();
    if (!r.allowed) {
      std::cerr << "webhook_latency_bench: the workload is denied: " << r.message << "\n";
      ok = false;
      break;
    }
    if (i >= o.warmup) handler_ms.push_back(ms);
  }

  api.send(http::verb::delete_, configs + "/" + config, "");
  server.stop();
  fs::remove_all(dir);
  if (!ok) return 1;
  std::printf("webhook_latency workload=%s n=%d warmup=%d\n", fs::path(o.input).filename().c_str(), o.n, o.warmup);
  print("apiserver_without_webhook", without);
  print("apiserver_with_webhook", with);
  std::printf("webhook_added_p50_ms=%.3f webhook_added_p99_ms=%.3f\n", percentile(with, 50) - percentile(without, 50),
              percentile(with, 99) - percentile(without, 99));
  print("webhook_server", server_ms);
  print("handler", handler_ms);
  return 0;
}
