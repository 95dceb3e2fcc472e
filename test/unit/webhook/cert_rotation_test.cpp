// Rotation decisions as a function of the stored certificates and the time, and a whole rotation carried out step
// by step: at every step the served certificate is signed by a CA of the bundle.
#include <gtest/gtest.h>

#include "webhook/cert_rotation.hpp"

using namespace cfo;
using namespace cfo::webhook;
using namespace std::chrono_literals;

namespace {

const Clock::time_point kT0 = Clock::from_time_t(1'780'000'000);
const ServingNames kNames{{"svc.ns.svc", "svc.ns.svc.cluster.local"}, {}};

RotationPolicy policy() {
  RotationPolicy p;
  p.validity = 90s;
  p.ca_validity = 90s;
  p.backdate = 0s;
  p.settle = 10s;
  return p;
}

CertificateSet created(Clock::time_point at) {
  auto s = apply_rotation(RotationStep::Create, {}, at, policy(), kNames);
  EXPECT_TRUE(s) << s.error().message;
  return s ? *s : CertificateSet{};
}

RotationStep step(const CertificateSet& s, Clock::time_point now, bool in_place = true) {
  return decide_rotation(s, now, policy(), kNames, in_place).step;
}

// The invariant of the whole sequence: what is served is trusted by the bundle.
bool served_is_trusted(const CertificateSet& s) {
  for (const auto& ca : split_pem_certificates(s.ca_bundle))
    if (signed_by(s.serving.cert_pem, ca)) return true;
  return false;
}

}  // namespace

TEST(RotationDecision, NothingStoredMeansCreate) {
  auto d = decide_rotation({}, kT0, policy(), kNames, false);
  EXPECT_EQ(d.step, RotationStep::Create);
  EXPECT_FALSE(d.why.empty());
}

TEST(RotationDecision, BrokenOrExpiredStateMeansCreate) {
  CertificateSet s = created(kT0);
  EXPECT_EQ(step(s, kT0 + 1s), RotationStep::Keep);
  CertificateSet wrong_key = s;
  wrong_key.serving.key_pem = s.signer.key_pem;
  EXPECT_EQ(step(wrong_key, kT0 + 1s), RotationStep::Create);
  CertificateSet foreign = s;
  foreign.signer = created(kT0).signer;  // serving not signed by the stored CA
  EXPECT_EQ(step(foreign, kT0 + 1s), RotationStep::Create);
  CertificateSet junk = s;
  junk.serving.cert_pem = "junk";
  EXPECT_EQ(step(junk, kT0 + 1s), RotationStep::Create);
  EXPECT_EQ(step(s, kT0 + 91s), RotationStep::Create);
}

TEST(RotationDecision, RenewalIsDueWhenAThirdOfTheValidityIsLeft) {
  CertificateSet s = created(kT0);
  EXPECT_EQ(step(s, kT0 + 59s), RotationStep::Keep);   // 31 s of 90 left
  EXPECT_EQ(step(s, kT0 + 61s), RotationStep::Stage);  // 29 s left
}

TEST(RotationDecision, NewNamesMeanRenewal) {
  CertificateSet s = created(kT0);
  ServingNames more = kNames;
  more.ip_addresses.push_back("127.0.0.1");
  EXPECT_EQ(decide_rotation(s, kT0 + 1s, policy(), more, true).step, RotationStep::Stage);
}

TEST(RotationDecision, PromotionWaitsForTheSettleTimeAndTheBundle) {
  CertificateSet s = created(kT0);
  auto staged = apply_rotation(RotationStep::Stage, s, kT0 + 61s, policy(), kNames);
  ASSERT_TRUE(staged);
  EXPECT_EQ(step(*staged, kT0 + 65s), RotationStep::Keep);                      // settle not over
  EXPECT_EQ(step(*staged, kT0 + 72s, /*in_place=*/false), RotationStep::Keep);  // bundle not injected
  EXPECT_EQ(step(*staged, kT0 + 72s), RotationStep::Promote);
  CertificateSet broken = *staged;
  broken.next_serving.key_pem = "junk";
  EXPECT_EQ(step(broken, kT0 + 72s), RotationStep::Stage);
}

TEST(RotationDecision, ABundleWithoutTheServingCaIsRepairedAtOnce) {
  CertificateSet s = created(kT0);
  s.ca_bundle = created(kT0).signer.cert_pem;
  EXPECT_EQ(step(s, kT0 + 1s), RotationStep::Prune);
  auto fixed = apply_rotation(RotationStep::Prune, s, kT0 + 1s, policy(), kNames);
  ASSERT_TRUE(fixed);
  EXPECT_TRUE(served_is_trusted(*fixed));
}

TEST(Rotation, AWholeRotationNeverServesAnUntrustedCertificate) {
  CertificateSet s = created(kT0);
  ASSERT_TRUE(served_is_trusted(s));
  const std::string first_serving = s.serving.cert_pem;
  const std::string first_ca = s.signer.cert_pem;
  std::vector<RotationStep> steps;
  // One pass every 2 s for 3 minutes: two renewals happen (validity 90 s, renewal at 60 s, settle 10 s).
  for (auto now = kT0 + 2s; now < kT0 + 180s; now += 2s) {
    RotationDecision d = decide_rotation(s, now, policy(), kNames, true);
    if (d.step == RotationStep::Keep) continue;
    steps.push_back(d.step);
    auto next = apply_rotation(d.step, s, now, policy(), kNames);
    ASSERT_TRUE(next) << next.error().message;
    // Replicas load the new pair late: the CA of the certificate served before a promotion stays trusted.
    if (d.step == RotationStep::Promote) {
      bool old_still_trusted = false;
      for (const auto& ca : split_pem_certificates(next->ca_bundle))
        old_still_trusted = old_still_trusted || signed_by(s.serving.cert_pem, ca);
      EXPECT_TRUE(old_still_trusted) << "a promotion keeps the previous CA in the bundle";
    }
    if (d.step == RotationStep::Stage) {
      EXPECT_EQ(split_pem_certificates(next->ca_bundle).size(), 2u);
      EXPECT_EQ(next->serving, s.serving) << "staging does not change what is served";
    }
    s = std::move(*next);
    ASSERT_TRUE(served_is_trusted(s)) << rotation_step_name(d.step);
  }
  EXPECT_EQ(steps, (std::vector<RotationStep>{RotationStep::Stage, RotationStep::Promote, RotationStep::Prune,
                                              RotationStep::Stage, RotationStep::Promote, RotationStep::Prune}));
  EXPECT_NE(s.serving.cert_pem, first_serving);
  EXPECT_NE(s.signer.cert_pem, first_ca);
  EXPECT_EQ(split_pem_certificates(s.ca_bundle).size(), 1u);
}
