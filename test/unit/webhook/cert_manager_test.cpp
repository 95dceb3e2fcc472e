// The Secret layout of the self-managed certificates (the I/O of CertManager runs against the real apiserver in
// test/integration/webhook_rotation).
#include <gtest/gtest.h>

#include "client/base64.hpp"
#include "webhook/cert_manager.hpp"

using namespace cfo;
using namespace cfo::webhook;
using namespace std::chrono_literals;

namespace {
const Clock::time_point kT0 = Clock::from_time_t(1'780'000'000);
const ServingNames kNames{{"svc.ns.svc"}, {"127.0.0.1"}};

CertificateSet staged_set() {
  RotationPolicy p;
  p.validity = p.ca_validity = 90s;
  auto s = apply_rotation(RotationStep::Create, {}, kT0, p, kNames);
  auto staged = apply_rotation(RotationStep::Stage, *s, kT0 + 61s, p, kNames);
  EXPECT_TRUE(staged);
  return *staged;
}
}  // namespace

TEST(CertSecret, RoundTripsEveryKeyAndTime) {
  CertificateSet set = staged_set();
  json::Document secret = secret_with_certificates(nullptr, "codeflare-operator-system", "webhook-cert", set);
  EXPECT_EQ(json::string_at(secret, "kind"), "Secret");
  EXPECT_EQ(json::string_at(secret, "type"), "Opaque");
  EXPECT_EQ(json::string_at(secret, "metadata.name"), "webhook-cert");
  EXPECT_EQ(json::string_at(secret, "metadata.namespace"), "codeflare-operator-system");
  EXPECT_EQ(*client::decode_base64(json::get_string(secret["data"], "tls.crt").value_or("")), set.serving.cert_pem);
  EXPECT_EQ(*client::decode_base64(json::get_string(secret["data"], "ca.crt").value_or("")), set.ca_bundle);
  EXPECT_EQ(json::get_string(secret["metadata"]["annotations"], secret_keys::kStagedAtAnnotation).value_or(""),
            "2026-05-28T20:27:41Z");
  json::set(secret["metadata"], "resourceVersion", json::str("42", secret.GetAllocator()), secret.GetAllocator());
  std::string rv;
  EXPECT_EQ(certificates_from_secret(secret, &rv), set);
  EXPECT_EQ(rv, "42");
}

TEST(CertSecret, KeepsForeignKeysAndDropsStagedOnesAfterPromotion) {
  CertificateSet set = staged_set();
  json::Document secret = secret_with_certificates(nullptr, "ns", "s", set);
  auto& a = secret.GetAllocator();
  json::set(secret["data"], "other", json::str("eA==", a), a);
  json::set(secret["metadata"]["annotations"], "team", json::str("a", a), a);
  RotationPolicy p;
  auto promoted = apply_rotation(RotationStep::Promote, set, kT0 + 80s, p, kNames);
  ASSERT_TRUE(promoted);
  json::Document next = secret_with_certificates(&secret, "ns", "s", *promoted);
  EXPECT_TRUE(next["data"].HasMember("other"));
  EXPECT_TRUE(next["metadata"]["annotations"].HasMember("team"));
  EXPECT_FALSE(next["data"].HasMember(secret_keys::kNextTlsCert));
  EXPECT_FALSE(next["data"].HasMember(secret_keys::kNextSignerKey));
  EXPECT_FALSE(next["metadata"]["annotations"].HasMember(secret_keys::kStagedAtAnnotation));
  EXPECT_EQ(certificates_from_secret(next), *promoted);
}

TEST(CertSecret, AnEmptyOrForeignSecretReadsAsNothing) {
  auto empty = json::parse(R"({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}})");
  EXPECT_EQ(certificates_from_secret(*empty), CertificateSet{});
  auto junk = json::parse(R"({"data": {"tls.crt": "!!not base64!!", "ca.crt": 7},
                              "metadata": {"annotations": {"codeflare.dev/webhook-cert-staged-at": "yesterday"}}})");
  CertificateSet s = certificates_from_secret(*junk);
  EXPECT_TRUE(s.serving.cert_pem.empty());
  EXPECT_TRUE(s.ca_bundle.empty());
  EXPECT_EQ(s.staged_at, Clock::time_point{});
}

TEST(CertSecret, Rfc3339RoundTrips) {
  EXPECT_EQ(format_rfc3339(kT0), "2026-05-28T20:26:40Z");
  EXPECT_EQ(parse_rfc3339("2026-05-28T20:26:40Z"), kT0);
  EXPECT_EQ(parse_rfc3339("garbage"), Clock::time_point{});
}
