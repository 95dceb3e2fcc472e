// The webhook server on a real loopback socket with TLS: routing, HTTP errors, the answer budget, certificate
// reload, and the observer's counts.
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "https_client.hpp"
#include "test_support.hpp"
#include "webhook/certificates.hpp"
#include "webhook/webhook_server.hpp"

using namespace cfo;
using namespace cfo::webhook;
using namespace cfo::webhook::test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// A CA and a certificate dir that a test can rewrite.
class Certs {
 public:
  Certs()
      : dir_(fs::temp_directory_path() /
             ("cfo-webhook-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++))) {
    fs::create_directories(dir_);
    ca_ = make_ca();
  }
  ~Certs() { fs::remove_all(dir_); }

  static CertificatePair make_ca() {
    const auto now = Clock::now();
    return *generate_ca("test-ca", Validity{now - 1min, now + 1h});
  }
  CertificatePair issue(const CertificatePair& ca) const {
    const auto now = Clock::now();
    return *generate_serving_certificate(ca, ServingNames{{"localhost"}, {"127.0.0.1"}},
                                         Validity{now - 1min, now + 1h});
  }
  void write(const CertificatePair& pair) const {
    std::ofstream(dir_ / "tls.crt.tmp") << pair.cert_pem;
    std::ofstream(dir_ / "tls.key.tmp") << pair.key_pem;
    fs::rename(dir_ / "tls.crt.tmp", dir_ / "tls.crt");
    fs::rename(dir_ / "tls.key.tmp", dir_ / "tls.key");
  }
  std::string cert_path() const { return (dir_ / "tls.crt").string(); }
  std::string key_path() const { return (dir_ / "tls.key").string(); }
  const CertificatePair& ca() const { return ca_; }

 private:
  static inline std::atomic<int> counter_{0};
  fs::path dir_;
  CertificatePair ca_;
};

std::string fingerprint(const std::string& pem) { return inspect_certificate(pem)->sha256_fingerprint; }

WebhookServerOptions options(const Certs& certs) {
  WebhookServerOptions o;
  o.bind = runtime::BindAddress{"127.0.0.1", 0};
  o.cert_path = certs.cert_path();
  o.key_path = certs.key_path();
  o.cert_check_interval = 50ms;
  return o;
}

const char* kWorkload = R"({"apiVersion": "codeflare.dev/v1alpha1", "kind": "CodeFlareWorkload",
                            "metadata": {"name": "demo"}, "spec": {}})";

json::Document object() { return *json::parse(kWorkload); }

// Allows everything, with one warning naming the operation.
AdmissionResponse allow_all(const AdmissionRequest& r) {
  return allow({std::string("seen ") + operation_name(r.operation)});
}

class Recorder : public runtime::WebhookObserver {
 public:
  void on_request_start(const std::string& path) override {
    std::lock_guard lk(mu_);
    starts.push_back(path);
  }
  void on_request_end(const std::string& path, unsigned code, double seconds) override {
    std::lock_guard lk(mu_);
    ends.push_back(path + " " + std::to_string(code));
    EXPECT_GE(seconds, 0.0);
  }
  std::vector<std::string> starts, ends;

 private:
  std::mutex mu_;
};

bool eventually(const std::function<bool()>& cond, std::chrono::milliseconds limit = 5000ms) {
  for (auto deadline = std::chrono::steady_clock::now() + limit; std::chrono::steady_clock::now() < deadline;) {
    if (cond()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return cond();
}

}  // namespace

TEST(WebhookServer, AnswersAReviewWithTheSameUidOverKeepAlive) {
  Certs certs;
  auto served = certs.issue(certs.ca());
  certs.write(served);
  auto recorder = std::make_shared<Recorder>();
  WebhookServerOptions o = options(certs);
  o.observer = recorder;
  WebhookServer server(o);
  ASSERT_TRUE(server.handle("/validate-x", allow_all));
  ASSERT_TRUE(server.start());
  EXPECT_TRUE(server.has_certificate());
  EXPECT_EQ(server.paths(), std::vector<std::string>{"/validate-x"});
  HttpsClient client(server.port(), certs.ca().cert_pem);
  ASSERT_TRUE(client.connected()) << client.error();
  EXPECT_EQ(client.peer_fingerprint(), fingerprint(served.cert_pem));
  for (const char* uid : {"first", "second"}) {
    HttpsReply r =
        client.send("POST", "/validate-x?timeout=10s", review_json(object(), Operation::Create, nullptr, uid));
    ASSERT_EQ(r.status, 200u) << r.error << r.body;
    auto doc = json::parse(r.body);
    ASSERT_TRUE(doc) << r.body;
    EXPECT_EQ(json::string_at(*doc, "response.uid"), uid);
    EXPECT_TRUE(json::find_path(*doc, "response.allowed")->GetBool());
    EXPECT_EQ(json::find_path(*doc, "response.warnings")->GetArray()[0], "seen CREATE");
  }
  EXPECT_TRUE(eventually([&] { return recorder->ends.size() == 2; }));
  EXPECT_EQ(recorder->starts, (std::vector<std::string>{"/validate-x", "/validate-x"}));
  EXPECT_EQ(recorder->ends, (std::vector<std::string>{"/validate-x 200", "/validate-x 200"}));
}

TEST(WebhookServer, HttpErrorsNameTheProblem) {
  Certs certs;
  certs.write(certs.issue(certs.ca()));
  auto recorder = std::make_shared<Recorder>();
  WebhookServerOptions o = options(certs);
  o.observer = recorder;
  WebhookServer server(o);
  ASSERT_TRUE(server.handle("/validate-x", allow_all));
  ASSERT_TRUE(
      server.handle("/throws", [](const AdmissionRequest&) -> AdmissionResponse { throw std::runtime_error("bug"); }));
  EXPECT_FALSE(server.handle("/validate-x", allow_all)) << "a path is registered once";
  EXPECT_FALSE(server.handle("no-slash", allow_all));
  ASSERT_TRUE(server.start());
  EXPECT_FALSE(server.handle("/late", allow_all)) << "no registration after start";
  HttpsClient client(server.port(), certs.ca().cert_pem);
  ASSERT_TRUE(client.connected()) << client.error();
  const std::string review = review_json(object());
  EXPECT_EQ(client.send("POST", "/nowhere", review).status, 404u);
  EXPECT_EQ(client.send("GET", "/validate-x", "").status, 405u);
  HttpsReply text = client.send("POST", "/validate-x", review, {{"Content-Type", "text/plain"}});
  EXPECT_EQ(text.status, 415u);
  EXPECT_NE(text.body.find("application/json"), std::string::npos);
  HttpsReply junk = client.send("POST", "/validate-x", "{\"apiVersion\": \"v1\"}");
  EXPECT_EQ(junk.status, 400u);
  EXPECT_NE(junk.body.find("is not admission.k8s.io/v1"), std::string::npos) << junk.body;
  EXPECT_EQ(client.send("POST", "/throws", review).status, 500u);
  EXPECT_EQ(client.send("POST", "/validate-x", review).status, 200u) << "the connection still works";
  EXPECT_TRUE(eventually([&] { return recorder->ends.size() == 5; }));  // the 404 is not a webhook's
  EXPECT_EQ(recorder->ends, (std::vector<std::string>{"/validate-x 405", "/validate-x 415", "/validate-x 400",
                                                      "/throws 500", "/validate-x 200"}));

  HttpsClient big(server.port(), certs.ca().cert_pem);
  ASSERT_TRUE(big.connected());
  HttpsReply r = big.send_raw(
      "POST /validate-x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Content-Length: 8388608\r\n\r\n{");
  EXPECT_EQ(r.status, 413u) << r.error;
  EXPECT_NE(r.body.find("larger than the 7340032 bytes"), std::string::npos) << r.body;
}

TEST(WebhookServer, ASlowHandlerGets503WithinTheBudget) {
  Certs certs;
  certs.write(certs.issue(certs.ca()));
  WebhookServerOptions o = options(certs);
  o.answer_budget = 300ms;
  WebhookServer server(o);
  std::atomic<int> calls{0};
  ASSERT_TRUE(server.handle("/slow", [&](const AdmissionRequest&) {
    ++calls;
    std::this_thread::sleep_for(1500ms);
    return allow({"late"});
  }));
  ASSERT_TRUE(server.handle("/fast", allow_all));
  ASSERT_TRUE(server.start());
  HttpsClient client(server.port(), certs.ca().cert_pem);
  ASSERT_TRUE(client.connected());
  HttpsReply slow = client.send("POST", "/slow", review_json(object()));
  EXPECT_EQ(slow.status, 503u) << slow.body;
  EXPECT_NE(slow.body.find("did not decide within 300 ms"), std::string::npos) << slow.body;
  // The late answer of the slow handler must not be taken for the next request's.
  HttpsReply fast = client.send("POST", "/fast", review_json(object(), Operation::Create, nullptr, "next"));
  ASSERT_EQ(fast.status, 200u);
  EXPECT_EQ(json::string_at(*json::parse(fast.body), "response.uid"), "next");
  EXPECT_NE(fast.body.find("seen CREATE"), std::string::npos);
  EXPECT_EQ(calls.load(), 1);
}

TEST(WebhookServer, TheApiserversTimeoutHalvesTheBudget) {
  Certs certs;
  certs.write(certs.issue(certs.ca()));
  WebhookServer server(options(certs));  // budget 5 s
  ASSERT_TRUE(server.handle("/slow", [](const AdmissionRequest&) {
    std::this_thread::sleep_for(1500ms);
    return allow();
  }));
  ASSERT_TRUE(server.start());
  HttpsClient client(server.port(), certs.ca().cert_pem);
  HttpsReply r = client.send("POST", "/slow?timeout=1s", review_json(object()));
  EXPECT_EQ(r.status, 503u);
  EXPECT_NE(r.body.find("within 500 ms"), std::string::npos) << r.body;
  EXPECT_EQ(client.send("POST", "/slow?timeout=10s", review_json(object())).status, 200u);
}

TEST(WebhookServer, ReloadsChangedCertificatesAndKeepsTheOldOnABadPair) {
  Certs certs;
  auto first = certs.issue(certs.ca());
  certs.write(first);
  WebhookServer server(options(certs));
  ASSERT_TRUE(server.handle("/validate-x", allow_all));
  ASSERT_TRUE(server.start());
  {
    HttpsClient c(server.port(), certs.ca().cert_pem);
    ASSERT_TRUE(c.connected());
    EXPECT_EQ(c.peer_fingerprint(), fingerprint(first.cert_pem));
  }
  // A new CA and certificate: new connections get it; a client trusting the new CA connects.
  CertificatePair ca2 = Certs::make_ca();
  auto second = certs.issue(ca2);
  certs.write(second);
  EXPECT_TRUE(eventually([&] { return server.serving_certificate() == second.cert_pem; }));
  HttpsClient c2(server.port(), ca2.cert_pem);
  ASSERT_TRUE(c2.connected()) << c2.error();
  EXPECT_EQ(c2.peer_fingerprint(), fingerprint(second.cert_pem));
  EXPECT_EQ(c2.send("POST", "/validate-x", review_json(object())).status, 200u);
  // A certificate with another certificate's key: rejected, the second pair stays.
  auto third = certs.issue(ca2);
  certs.write(CertificatePair{third.cert_pem, first.key_pem});
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(server.serving_certificate(), second.cert_pem);
  HttpsClient c3(server.port(), ca2.cert_pem);
  ASSERT_TRUE(c3.connected());
  EXPECT_EQ(c3.peer_fingerprint(), fingerprint(second.cert_pem));
}

TEST(WebhookServer, WaitsForItsFirstCertificate) {
  Certs certs;  // nothing written yet
  WebhookServer server(options(certs));
  ASSERT_TRUE(server.handle("/validate-x", allow_all));
  ASSERT_TRUE(server.start()) << "a missing certificate is waited for, not fatal";
  EXPECT_FALSE(server.has_certificate());
  HttpsClient before(server.port(), certs.ca().cert_pem);
  EXPECT_FALSE(before.connected());
  certs.write(certs.issue(certs.ca()));
  EXPECT_TRUE(eventually([&] { return server.has_certificate(); }));
  HttpsClient after(server.port(), certs.ca().cert_pem);
  ASSERT_TRUE(after.connected()) << after.error();
  EXPECT_EQ(after.send("POST", "/validate-x", review_json(object())).status, 200u);
}

TEST(WebhookServer, RubbishFromAClientDoesNotStopIt) {
  Certs certs;
  certs.write(certs.issue(certs.ca()));
  WebhookServer server(options(certs));
  ASSERT_TRUE(server.handle("/validate-x", allow_all));
  ASSERT_TRUE(server.start());
  {
    boost::asio::io_context ioc;
    boost::asio::ip::tcp::socket s(ioc);
    s.connect({boost::asio::ip::make_address("127.0.0.1"), server.port()});
    boost::system::error_code ec;
    boost::asio::write(s, boost::asio::buffer(std::string("GET / HTTP/1.1\r\n\r\n not TLS at all")), ec);
  }
  HttpsClient c(server.port(), certs.ca().cert_pem);
  ASSERT_TRUE(c.connected());
  EXPECT_EQ(c.send("POST", "/validate-x", review_json(object())).status, 200u);
  server.stop();
  server.stop();  // idempotent
}

TEST(WebhookServer, BindErrorsAreReported) {
  Certs certs;
  certs.write(certs.issue(certs.ca()));
  WebhookServer a(options(certs));
  ASSERT_TRUE(a.start());
  WebhookServerOptions o = options(certs);
  o.bind.port = a.port();
  WebhookServer b(o);
  auto r = b.start();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("cannot listen on 127.0.0.1:" + std::to_string(a.port())), std::string::npos);
  EXPECT_FALSE(a.start()) << "already started";
}

TEST(GoDuration, ParsesWhatTheApiserverSends) {
  EXPECT_EQ(*parse_go_duration("10s"), 10000ms);
  EXPECT_EQ(*parse_go_duration("1m30s"), 90000ms);
  EXPECT_EQ(*parse_go_duration("1.5s"), 1500ms);
  EXPECT_EQ(*parse_go_duration("250ms"), 250ms);
  EXPECT_EQ(*parse_go_duration("1h"), 3600000ms);
  EXPECT_EQ(*parse_go_duration("0"), 0ms);
  for (const char* bad : {"", "10", "s", "10x", "-1s", "1.2.3s"}) EXPECT_FALSE(parse_go_duration(bad)) << bad;
}
