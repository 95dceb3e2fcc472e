#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "runtime/health_checks.hpp"

using namespace cfo::runtime;

namespace {

HttpRequest req(const std::string& path, const std::string& query = "", const std::string& method = "GET") {
  return HttpRequest{method, path, query};
}

struct Probes {
  bool synced = false;
  bool leading = false;
  std::shared_ptr<HealthChecks> healthz = std::make_shared<HealthChecks>();
  std::shared_ptr<HealthChecks> readyz = std::make_shared<HealthChecks>();
  HttpHandler handler;
  Probes() {
    healthz->add("ping", [] { return std::optional<std::string>(); });
    readyz->add("informers", [this]() -> std::optional<std::string> {
      return synced ? std::nullopt : std::optional<std::string>("not synced");
    });
    readyz->add("leader", [this]() -> std::optional<std::string> {
      return leading ? std::nullopt : std::optional<std::string>("standby");
    });
    handler = probe_handler(healthz, readyz);
  }
};

}  // namespace

TEST(HealthChecks, HealthzIsOkWhileReadyzWaitsForEveryCheck) {
  Probes p;
  EXPECT_EQ(p.handler(req("/healthz")).status, 200u);
  EXPECT_EQ(p.handler(req("/healthz")).body, "ok");
  HttpResponse r = p.handler(req("/readyz"));
  EXPECT_EQ(r.status, 500u);
  EXPECT_NE(r.body.find("[-]informers failed: not synced"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("[-]leader failed: standby"), std::string::npos) << r.body;
  p.synced = true;
  EXPECT_EQ(p.handler(req("/readyz")).status, 500u);
  p.leading = true;
  EXPECT_EQ(p.handler(req("/readyz")).status, 200u);
}

TEST(HealthChecks, ExcludeSkipsANamedCheck) {
  Probes p;
  p.synced = true;
  EXPECT_EQ(p.handler(req("/readyz", "exclude=leader")).status, 200u);
  EXPECT_EQ(p.handler(req("/readyz", "exclude=nothing&exclude=leader")).status, 200u);
  EXPECT_EQ(p.handler(req("/readyz", "exclude=informers")).status, 500u);
}

TEST(HealthChecks, VerboseListsEveryCheck) {
  Probes p;
  p.synced = p.leading = true;
  HttpResponse r = p.handler(req("/readyz", "verbose"));
  EXPECT_EQ(r.status, 200u);
  EXPECT_NE(r.body.find("[+]informers ok"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("[+]leader ok"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("readyz check passed"), std::string::npos) << r.body;
}

TEST(HealthChecks, OneCheckAloneAtItsSubPath) {
  Probes p;
  p.synced = true;
  EXPECT_EQ(p.handler(req("/readyz/informers")).status, 200u);
  EXPECT_EQ(p.handler(req("/readyz/leader")).status, 500u);
  EXPECT_EQ(p.handler(req("/readyz/nope")).status, 404u);
  EXPECT_EQ(p.handler(req("/readyz/")).status, 500u) << "a trailing slash is the endpoint itself";
}

TEST(HealthChecks, OtherPathsAndMethods) {
  Probes p;
  EXPECT_EQ(p.handler(req("/")).status, 404u);
  EXPECT_EQ(p.handler(req("/healthzz")).status, 404u);
  EXPECT_EQ(p.handler(req("/metrics")).status, 404u);
  EXPECT_EQ(p.handler(req("/healthz", "", "POST")).status, 405u);
  HttpResponse head = p.handler(req("/healthz", "", "HEAD"));
  EXPECT_EQ(head.status, 200u);
  EXPECT_TRUE(head.body.empty());
}

TEST(HealthChecks, AThrowingCheckFails) {
  HealthChecks checks;
  checks.add("bad", []() -> std::optional<std::string> { throw std::runtime_error("oops"); });
  HttpResponse r = checks.serve("readyz", req("/readyz"), "");
  EXPECT_EQ(r.status, 500u);
  EXPECT_NE(r.body.find("oops"), std::string::npos);
}
