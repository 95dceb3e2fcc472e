// Self-managed certificates on the real apiserver: CertManager keeps them in a Secret and the CA bundle in the
// webhook configuration, with a validity of 30 s so that several rotations happen during the test, while a client
// sends server-side dry-run creates through the apiserver without pause. Every admission must succeed, the served
// certificate must change and the configuration's caBundle must follow. The Secret starts empty, as the manifests
// ship it; a second CertManager that does not lead only copies the Secret's pair into its own folder.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "client/base64.hpp"
#include "core/yaml.hpp"
#include "validation/schema_set.hpp"
#include "webhook/cert_manager.hpp"
#include "webhook/validators.hpp"
#include "webhook/webhook_server.hpp"
#include "webhook_support.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <openssl/pem.h>
#include <openssl/x509.h>

using namespace cfo;
using namespace cfo::it;
using namespace cfo::webhook;
using namespace std::chrono_literals;

namespace {

const client::ResourceType kWorkloads{"codeflare.dev", "v1alpha1", "codeflareworkloads", true};
const client::ResourceType kConfigs{"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", false};

// The PEM certificate the server at 127.0.0.1:port presents ("" when none).
std::string served_certificate(unsigned short port) {
  namespace asio = boost::asio;
  asio::io_context ioc;
  asio::ssl::context tls(asio::ssl::context::tls_client);
  tls.set_verify_mode(asio::ssl::verify_none);
  asio::ssl::stream<asio::ip::tcp::socket> s(ioc, tls);
  boost::system::error_code ec;
  s.lowest_layer().connect({asio::ip::make_address("127.0.0.1"), port}, ec);
  if (!ec) s.handshake(asio::ssl::stream_base::client, ec);
  if (ec) return "";
  std::string pem;
  if (X509* peer = SSL_get1_peer_certificate(s.native_handle())) {
    BIO* b = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(b, peer);
    char* data = nullptr;
    long n = BIO_get_mem_data(b, &data);
    pem.assign(data, static_cast<std::size_t>(n));
    BIO_free(b);
    X509_free(peer);
  }
  s.shutdown(ec);
  return pem;
}

std::string fingerprint(const std::string& pem) {
  auto info = inspect_certificate(pem);
  return info ? info->sha256_fingerprint : "";
}

}  // namespace

TEST(WebhookRotation, CertificatesRotateWithoutAFailedAdmission) {
  const char* crds = std::getenv("UPSTREAM_CRDS");
  if (!crds || !*crds) GTEST_SKIP() << "UPSTREAM_CRDS is not set";
  auto loaded = validation::SchemaSet::load_dir(std::string(crds) + "/upstream");
  ASSERT_TRUE(loaded) << loaded.error().message;
  auto schemas = std::make_shared<const validation::SchemaSet>(std::move(*loaded));

  const std::string label = unique_name("rot");
  const std::string ns = "webhook-" + label;
  const std::string config = "cfo-test-rotation-" + label;
  create_test_namespace(ns, label);
  const std::string dir = "/tmp/" + unique_name("cfo-webhook-rotation");

  WebhookServerOptions so;
  so.bind = runtime::BindAddress{"127.0.0.1", 0};
  so.cert_path = dir + "/tls.crt";
  so.key_path = dir + "/tls.key";
  so.cert_check_interval = 200ms;
  WebhookServer server(so);
  ASSERT_TRUE(server.handle(validate_path(codeflare_workload_kind()), make_workload_handler(schemas, {})));
  ASSERT_TRUE(server.start());

  // Registered without a caBundle: CertManager injects it.
  const ServedKind& k = codeflare_workload_kind();
  create_webhook_configuration(
      config, {WebhookSpec{"vcodeflareworkload.codeflare.dev",
                           "https://127.0.0.1:" + std::to_string(server.port()) + validate_path(k), "", k.group,
                           k.version, k.resource, false, "Fail", label}});

  CertManagerOptions co;
  co.namespace_ = ns;
  co.secret_name = "webhook-server-cert";
  co.names = ServingNames{{"localhost"}, {"127.0.0.1"}};
  co.webhook_configurations = {config};
  co.cert_dir = dir;
  co.sync_period = 500ms;
  co.policy.validity = 30s;
  co.policy.ca_validity = 30s;
  co.policy.backdate = 1s;
  co.policy.settle = 3s;
  // The Secret exists empty, as the manifests ship it (the operator's role may update it, not create it).
  auto empty = json::parse(R"({"apiVersion": "v1", "kind": "Secret", "type": "Opaque", "metadata": {"name": ")" +
                           co.secret_name + R"("}})");
  ASSERT_TRUE(api().create("/api/v1/namespaces/" + ns + "/secrets", *empty));
  CertManager manager(api(), co, [] { return true; });
  // A second replica that does not lead: it only reads the Secret and writes the files its server would serve.
  CertManagerOptions follower_options = co;
  follower_options.cert_dir = dir + "-follower";
  CertManager follower(api(), follower_options, [] { return false; });
  client::StopToken stop;
  std::thread sync([&] { manager.run(stop); });
  std::thread follow([&] { follower.run(stop); });

  // Wait for the first certificate to be served and trusted.
  auto valid = yaml::to_json(read_text("config/samples/cfw_cpu.yaml"));
  ASSERT_TRUE(valid);
  auto bad = yaml::to_json(read_text("test/invalid/requests-exceed-limits.yaml"));
  ASSERT_TRUE(bad);
  ASSERT_TRUE(eventually(
      [&] {
        return dry_run_create(kWorkloads.collection_path(ns), (*bad)[0]).second.find("denied the request") !=
               std::string::npos;
      },
      30s))
      << "the webhook never became reachable with the injected CA bundle";

  // 75 s of admissions, about three rotations (renewal at 20 s of 30 s, 3 s to settle).
  int admitted = 0, failed = 0;
  std::string first_failure;
  std::set<std::string> served, bundles;
  std::vector<double> latencies_ms;
  const auto end = std::chrono::steady_clock::now() + 75s;
  while (std::chrono::steady_clock::now() < end) {
    const auto t0 = std::chrono::steady_clock::now();
    auto [status, body] = dry_run_create(kWorkloads.collection_path(ns), (*valid)[0]);
    latencies_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (status == 201) {
      ++admitted;
    } else {
      if (failed++ == 0) first_failure = std::to_string(status) + " " + body;
    }
    // Also an invalid one: a failure to reach the webhook must not pass as a denial, nor a denial as a call failure.
    auto [bad_status, bad_body] = dry_run_create(kWorkloads.collection_path(ns), (*bad)[0]);
    if (bad_body.find("denied the request") == std::string::npos) {
      if (failed++ == 0) first_failure = std::to_string(bad_status) + " " + bad_body;
    }
    served.insert(fingerprint(served_certificate(server.port())));
    if (auto c = api().get_json(kConfigs.object_path("", config)); c)
      bundles.insert(json::string_at((*c)["webhooks"][0], "clientConfig.caBundle"));
    std::this_thread::sleep_for(50ms);
  }
  // The follower catches up with the last rotation within its sync period.
  std::string follower_cert;
  const bool follower_serves_secret = eventually(
      [&] {
        auto secret = api().get_json("/api/v1/namespaces/" + ns + "/secrets/webhook-server-cert");
        follower_cert = read_text(follower_options.cert_dir + "/tls.crt");
        return secret && certificates_from_secret(*secret).serving.cert_pem == follower_cert &&
               read_text(follower_options.cert_dir + "/tls.key") == certificates_from_secret(*secret).serving.key_pem;
      },
      5s);
  stop.request_stop();
  sync.join();
  follow.join();
  server.stop();
  delete_webhook_configuration(config);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  std::filesystem::remove_all(follower_options.cert_dir, ignored);
  EXPECT_TRUE(follower_serves_secret) << "a replica that does not lead writes the Secret's pair for its server";

  std::sort(latencies_ms.begin(), latencies_ms.end());
  std::cout << "rotation: admitted=" << admitted << " failed=" << failed << " served_certificates=" << served.size()
            << " ca_bundles=" << bundles.size() << " p50_ms=" << latencies_ms[latencies_ms.size() / 2]
            << " max_ms=" << latencies_ms.back() << "\n";
  EXPECT_EQ(failed, 0) << "first failure: " << first_failure;
  EXPECT_GT(admitted, 100);
  EXPECT_GE(served.size(), 3u) << "the served certificate changed at least twice";
  EXPECT_GE(bundles.size(), 5u) << "the bundle followed: staged (two CAs) and pruned (one), at each rotation";
  // The Secret holds what was served last.
  auto secret = api().get_json("/api/v1/namespaces/" + ns + "/secrets/webhook-server-cert");
  ASSERT_TRUE(secret) << secret.error().message;
  CertificateSet stored = certificates_from_secret(*secret);
  EXPECT_FALSE(stored.serving.cert_pem.empty());
  EXPECT_TRUE(signed_by(stored.serving.cert_pem, stored.signer.cert_pem));
}
