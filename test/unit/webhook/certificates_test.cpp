// Certificate generation: the CA, the serving certificate's names and validity, signatures, and what is refused.
#include <gtest/gtest.h>

#include "webhook/certificates.hpp"

using namespace cfo;
using namespace cfo::webhook;
using namespace std::chrono_literals;

namespace {
// A fixed, whole-second time (certificates keep seconds).
const Clock::time_point kT0 = Clock::from_time_t(1'780'000'000);

CertificatePair ca(Clock::duration validity = 24h) {
  auto c = generate_ca("test-ca", Validity{kT0, kT0 + validity});
  EXPECT_TRUE(c) << c.error().message;
  return c ? *c : CertificatePair{};
}
}  // namespace

TEST(Certificates, CaIsSelfSignedWithItsValidity) {
  CertificatePair c = ca();
  auto info = inspect_certificate(c.cert_pem);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_TRUE(info->is_ca);
  EXPECT_EQ(info->subject_cn, "test-ca");
  EXPECT_EQ(info->issuer_cn, "test-ca");
  EXPECT_EQ(info->not_before, kT0);
  EXPECT_EQ(info->not_after, kT0 + 24h);
  EXPECT_TRUE(signed_by(c.cert_pem, c.cert_pem));
  EXPECT_TRUE(key_matches(c.cert_pem, c.key_pem));
  EXPECT_NE(c.key_pem.find("-----BEGIN PRIVATE KEY-----"), std::string::npos);
  EXPECT_EQ(info->sha256_fingerprint.size(), 64u);
}

TEST(Certificates, ServingCertificateCoversTheServiceNamesAndIps) {
  CertificatePair c = ca();
  ServingNames names{service_dns_names("codeflare-operator-webhook-service", "codeflare-operator-system"),
                     {"127.0.0.1", "::1"}};
  EXPECT_EQ(names.dns_names, (std::vector<std::string>{
                                 "codeflare-operator-webhook-service.codeflare-operator-system.svc",
                                 "codeflare-operator-webhook-service.codeflare-operator-system.svc.cluster.local"}));
  auto s = generate_serving_certificate(c, names, Validity{kT0, kT0 + 12h});
  ASSERT_TRUE(s) << s.error().message;
  auto info = inspect_certificate(s->cert_pem);
  ASSERT_TRUE(info);
  EXPECT_FALSE(info->is_ca);
  EXPECT_EQ(info->dns_names, names.dns_names);
  EXPECT_EQ(info->ip_addresses, (std::vector<std::string>{"127.0.0.1", "::1"}));
  EXPECT_EQ(info->subject_cn, names.dns_names.front());
  EXPECT_EQ(info->issuer_cn, "test-ca");
  EXPECT_EQ(info->not_after, kT0 + 12h);
  EXPECT_TRUE(covers(*info, names));
  EXPECT_TRUE(covers(*info, ServingNames{{}, {"0:0:0:0:0:0:0:1"}}));  // the same IPv6 address written out
  EXPECT_FALSE(covers(*info, ServingNames{{"other.svc"}, {}}));
  EXPECT_FALSE(covers(*info, ServingNames{{}, {"10.0.0.1"}}));
  EXPECT_TRUE(signed_by(s->cert_pem, c.cert_pem));
  EXPECT_TRUE(key_matches(s->cert_pem, s->key_pem));
  EXPECT_FALSE(key_matches(s->cert_pem, c.key_pem));
}

TEST(Certificates, AnotherCaDoesNotVerify) {
  CertificatePair a = ca(), b = ca();
  auto s = generate_serving_certificate(a, ServingNames{{"x.svc"}, {}}, Validity{kT0, kT0 + 1h});
  ASSERT_TRUE(s);
  EXPECT_TRUE(signed_by(s->cert_pem, a.cert_pem));
  EXPECT_FALSE(signed_by(s->cert_pem, b.cert_pem));  // same subject CN, other key
  EXPECT_NE(inspect_certificate(a.cert_pem)->serial_hex, inspect_certificate(b.cert_pem)->serial_hex);
}

TEST(Certificates, ServingValidityEndsWithTheCa) {
  CertificatePair c = ca(1h);
  auto s = generate_serving_certificate(c, ServingNames{{"x.svc"}, {}}, Validity{kT0, kT0 + 24h});
  ASSERT_TRUE(s);
  EXPECT_EQ(inspect_certificate(s->cert_pem)->not_after, kT0 + 1h);
}

TEST(Certificates, BadInputIsAnErrorNotACrash) {
  CertificatePair c = ca();
  const Validity v{kT0, kT0 + 1h};
  struct Case {
    ServingNames names;
    std::string says;
  } cases[] = {
      {{}, "no DNS name or IP address"},
      {{{"bad name,DNS:evil"}, {}}, "is not a DNS name"},
      {{{std::string(254, 'a')}, {}}, "is not a DNS name"},
      {{{}, {"300.1.1.1"}}, "is not an IP address"},
  };
  for (const auto& k : cases) {
    auto s = generate_serving_certificate(c, k.names, v);
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message.find(k.says), std::string::npos) << s.error().message;
  }
  EXPECT_FALSE(generate_serving_certificate(CertificatePair{"junk", "junk"}, ServingNames{{"x.svc"}, {}}, v));
  CertificatePair other = ca();
  EXPECT_FALSE(
      generate_serving_certificate(CertificatePair{c.cert_pem, other.key_pem}, ServingNames{{"x.svc"}, {}}, v));
  EXPECT_FALSE(generate_ca("", v));
  EXPECT_FALSE(generate_ca("x", Validity{kT0, kT0}));
  EXPECT_FALSE(inspect_certificate("not a certificate"));
  EXPECT_FALSE(signed_by("junk", c.cert_pem));
  EXPECT_FALSE(key_matches(c.cert_pem, "junk"));
}

TEST(Certificates, BundlesSplitIntoCertificates) {
  CertificatePair a = ca(), b = ca();
  auto parts = split_pem_certificates("leading text\n" + a.cert_pem + b.key_pem + b.cert_pem + "trailing");
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(inspect_certificate(parts[0])->sha256_fingerprint, inspect_certificate(a.cert_pem)->sha256_fingerprint);
  EXPECT_EQ(inspect_certificate(parts[1])->sha256_fingerprint, inspect_certificate(b.cert_pem)->sha256_fingerprint);
  EXPECT_TRUE(split_pem_certificates("").empty());
}
