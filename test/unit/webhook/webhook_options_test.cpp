// The --webhook-* flags: defaults, checks, and the options they give the server, the CertManager and Webhooks.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "test_support.hpp"
#include "webhook/webhooks.hpp"

using namespace cfo;
using namespace cfo::webhook;
namespace fs = std::filesystem;

namespace {
FlagValues flags(std::map<std::string, std::vector<std::string>> given) {
  return [given](const std::string& f) {
    auto it = given.find(f);
    return it == given.end() ? std::vector<std::string>{} : it->second;
  };
}
const char* kNoFile = "/nonexistent/namespace";
}  // namespace

TEST(WebhookOptions, DefaultsFollowControllerRuntime) {
  auto o = parse_webhook_options(flags({}), kNoFile);
  ASSERT_TRUE(o) << o.error().message;
  ASSERT_TRUE(o->bind);
  EXPECT_EQ(o->bind->host, "");
  EXPECT_EQ(o->bind->port, 9443);
  EXPECT_EQ(o->cert_dir, "/tmp/k8s-webhook-server/serving-certs");
  EXPECT_EQ(o->cert_secret, "");
  EXPECT_EQ(o->service, "codeflare-operator-webhook-service");
  EXPECT_TRUE(o->configurations.empty());
  WebhookServerOptions s = server_options(*o, nullptr);
  EXPECT_EQ(s.cert_path, "/tmp/k8s-webhook-server/serving-certs/tls.crt");
  EXPECT_EQ(s.key_path, "/tmp/k8s-webhook-server/serving-certs/tls.key");
  EXPECT_EQ(s.answer_budget.count(), 5000);
  for (const auto& [flag, takes_value] : webhook_flags()) {
    EXPECT_TRUE(takes_value) << flag;
    EXPECT_NE(std::string(webhook_help()).find("--" + flag + " "), std::string::npos) << flag;
  }
}

TEST(WebhookOptions, SelfManagedCertificatesInThePodsNamespace) {
  const fs::path ns_file = fs::temp_directory_path() / "cfo-webhook-options-namespace";
  std::ofstream(ns_file) << "codeflare-operator-system\n";
  auto o = parse_webhook_options(
      flags({{"webhook-cert-secret", {"codeflare-operator-webhook-server-cert"}},
             {"webhook-configuration", {"codeflare-operator-validating-webhook-configuration", "guards"}},
             {"webhook-cert-dir", {"/certs/"}}}),
      ns_file.string());
  fs::remove(ns_file);
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->namespace_, "codeflare-operator-system");
  EXPECT_EQ(o->cert_dir, "/certs");
  CertManagerOptions c = cert_manager_options(*o);
  EXPECT_EQ(c.namespace_, "codeflare-operator-system");
  EXPECT_EQ(c.secret_name, "codeflare-operator-webhook-server-cert");
  EXPECT_EQ(c.cert_dir, "/certs");
  EXPECT_EQ(c.webhook_configurations.size(), 2u);
  EXPECT_EQ(c.names.dns_names, (std::vector<std::string>{
                                   "codeflare-operator-webhook-service.codeflare-operator-system.svc",
                                   "codeflare-operator-webhook-service.codeflare-operator-system.svc.cluster.local"}));
}

TEST(WebhookOptions, BadValuesNameTheFlag) {
  struct Case {
    std::map<std::string, std::vector<std::string>> given;
    std::string says;
  } cases[] = {
      {{{"webhook-bind-address", {"9443"}}}, "flag --webhook-bind-address"},
      {{{"webhook-bind-address", {":1", ":2"}}}, "--webhook-bind-address is given more than once"},
      {{{"webhook-cert-dir", {"certs"}}}, "--webhook-cert-dir must be an absolute path"},
      {{{"webhook-cert-secret", {"Bad_Name"}}}, "flag --webhook-cert-secret \"Bad_Name\""},
      {{{"webhook-service", {"a.b"}}}, "flag --webhook-service \"a.b\""},
      {{{"webhook-configuration", {"ok", "-bad"}}}, "flag --webhook-configuration \"-bad\""},
      {{{"webhook-cert-secret", {"s"}}},
       "--webhook-namespace is required with --webhook-cert-secret outside a cluster"},
  };
  for (const auto& c : cases) {
    auto o = parse_webhook_options(flags(c.given), kNoFile);
    ASSERT_FALSE(o) << c.says;
    EXPECT_NE(o.error().message.find(c.says), std::string::npos) << o.error().message;
  }
  auto off = parse_webhook_options(flags({{"webhook-bind-address", {"0"}}, {"webhook-cert-secret", {"s"}}}), kNoFile);
  ASSERT_TRUE(off) << "no namespace is needed when the webhooks are off";
  EXPECT_FALSE(off->bind);
}

TEST(Webhooks, ServeEveryPathWithProvidedCertificates) {
  CFO_REQUIRE_SCHEMAS(schemas);
  const fs::path dir = fs::temp_directory_path() / "cfo-webhooks-test";
  fs::create_directories(dir);
  const auto now = Clock::now();
  auto ca = generate_ca("ca", {now - std::chrono::minutes(1), now + std::chrono::hours(1)});
  auto serving = generate_serving_certificate(*ca, {{}, {"127.0.0.1"}},
                                              {now - std::chrono::minutes(1), now + std::chrono::hours(1)});
  std::ofstream(dir / "tls.crt") << serving->cert_pem;
  std::ofstream(dir / "tls.key") << serving->key_pem;
  auto o =
      parse_webhook_options(flags({{"webhook-bind-address", {"127.0.0.1:0"}}, {"webhook-cert-dir", {dir}}}), kNoFile);
  ASSERT_TRUE(o);
  WebhookDependencies deps;
  deps.schemas = schemas;
  Webhooks hooks(*o, deps);
  ASSERT_TRUE(hooks.start());
  EXPECT_TRUE(hooks.ready());
  EXPECT_NE(hooks.port(), 0);
  EXPECT_FALSE(hooks.start()) << "already started";
  EXPECT_EQ(webhook_paths().size(), 8u);
  EXPECT_EQ(webhook_paths().front(), "/validate-codeflare-dev-v1alpha1-codeflareworkload");
  hooks.stop();
  hooks.stop();
  fs::remove_all(dir);

  WebhookOptions self = *o;
  self.cert_secret = "s";
  self.namespace_ = "ns";
  Webhooks no_client(self, deps);
  auto r = no_client.start();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("need an apiserver client"), std::string::npos);
  WebhookOptions off = *o;
  off.bind.reset();
  EXPECT_FALSE(Webhooks(off, deps).start());
}
