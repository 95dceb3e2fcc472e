#include "webhook/cert_rotation.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace cfo::webhook {

namespace {

// A pair whose certificate parses, matches its key and (when `issuer` is given) was signed by it.
std::optional<CertificateInfo> usable(const CertificatePair& pair, const CertificatePair* issuer) {
  auto info = inspect_certificate(pair.cert_pem);
  if (!info || !key_matches(pair.cert_pem, pair.key_pem)) return std::nullopt;
  if (issuer && !signed_by(pair.cert_pem, issuer->cert_pem)) return std::nullopt;
  return *info;
}

std::string fingerprint(const std::string& pem) {
  auto info = inspect_certificate(pem);
  return info ? info->sha256_fingerprint : std::string();
}

bool bundle_has(const std::vector<std::string>& bundle, const std::string& pem) {
  const std::string want = fingerprint(pem);
  if (want.empty()) return false;
  return std::any_of(bundle.begin(), bundle.end(), [&](const std::string& c) { return fingerprint(c) == want; });
}

// The bundle's certificates that are neither the signer nor the staged signer.
std::size_t extra_cas(const std::vector<std::string>& bundle, const CertificateSet& s) {
  const std::string a = fingerprint(s.signer.cert_pem), b = fingerprint(s.next_signer.cert_pem);
  return static_cast<std::size_t>(std::count_if(bundle.begin(), bundle.end(), [&](const std::string& c) {
    const std::string f = fingerprint(c);
    return f != a && (b.empty() || f != b);
  }));
}

bool any_expired(const std::vector<std::string>& bundle, Clock::time_point now) {
  return std::any_of(bundle.begin(), bundle.end(), [&](const std::string& c) {
    auto info = inspect_certificate(c);
    return !info || info->not_after <= now;
  });
}

std::string join(const std::vector<std::string>& pems) {
  std::string out;
  for (const auto& p : pems) out += p;
  return out;
}

// A new CA and a serving certificate it signs.
Result<std::pair<CertificatePair, CertificatePair>> make_pair(Clock::time_point now, const RotationPolicy& policy,
                                                              const ServingNames& names) {
  const Clock::time_point start = now - policy.backdate;
  auto ca = generate_ca(policy.ca_common_name, Validity{start, now + policy.ca_validity});
  if (!ca) return std::unexpected(ca.error());
  auto serving = generate_serving_certificate(*ca, names, Validity{start, now + policy.validity});
  if (!serving) return std::unexpected(serving.error());
  return std::pair{std::move(*ca), std::move(*serving)};
}

}  // namespace

const char* rotation_step_name(RotationStep step) {
  switch (step) {
    case RotationStep::Keep:
      return "Keep";
    case RotationStep::Create:
      return "Create";
    case RotationStep::Stage:
      return "Stage";
    case RotationStep::Promote:
      return "Promote";
    case RotationStep::Prune:
      return "Prune";
  }
  return "Keep";
}

RotationDecision decide_rotation(const CertificateSet& s, Clock::time_point now, const RotationPolicy& policy,
                                 const ServingNames& names, bool bundle_in_place) {
  auto signer = usable(s.signer, nullptr);
  if (!signer || !signer->is_ca) return {RotationStep::Create, "no usable CA is stored"};
  auto serving = usable(s.serving, &s.signer);
  if (!serving) return {RotationStep::Create, "no usable serving certificate signed by the stored CA is stored"};
  if (serving->not_after <= now) return {RotationStep::Create, "the serving certificate has expired"};

  const bool staged = !s.next_serving.empty() || !s.next_signer.empty();
  if (staged) {
    auto next_signer = usable(s.next_signer, nullptr);
    auto next = next_signer ? usable(s.next_serving, &s.next_signer) : std::nullopt;
    if (!next || next->not_after <= now) return {RotationStep::Stage, "the staged certificate is not usable"};
    if (now < s.staged_at + policy.settle) return {RotationStep::Keep, "a staged certificate waits to be served"};
    if (!bundle_in_place)
      return {RotationStep::Keep, "a staged certificate waits for its CA to be in every webhook configuration"};
    return {RotationStep::Promote,
            "the staged certificate's CA has been trusted for " + std::to_string(policy.settle.count()) + " s"};
  }

  const auto bundle = split_pem_certificates(s.ca_bundle);
  if (!bundle_has(bundle, s.signer.cert_pem)) return {RotationStep::Prune, "the CA bundle lacks the serving CA"};
  if (any_expired(bundle, now)) return {RotationStep::Prune, "the CA bundle holds an expired CA"};
  if (extra_cas(bundle, s) > 0 && now >= s.promoted_at + policy.settle)
    return {RotationStep::Prune, "the previous CA is no longer served"};

  const auto lifetime = serving->not_after - serving->not_before;
  const auto left = serving->not_after - now;
  if (left < std::chrono::duration_cast<Clock::duration>(lifetime * policy.renew_fraction))
    return {RotationStep::Stage, "less than " + std::to_string(std::lround(policy.renew_fraction * 100)) +
                                     "% of the serving certificate's validity is left"};
  if (!covers(*serving, names)) return {RotationStep::Stage, "the serving certificate does not cover every name"};
  if (signer->not_after < serving->not_after) return {RotationStep::Stage, "the CA expires before the certificate"};
  return {RotationStep::Keep, "the serving certificate is valid until renewal is due"};
}

Result<CertificateSet> apply_rotation(RotationStep step, const CertificateSet& current, Clock::time_point now,
                                      const RotationPolicy& policy, const ServingNames& names) {
  CertificateSet out = current;
  switch (step) {
    case RotationStep::Keep:
      return out;
    case RotationStep::Create: {
      auto made = make_pair(now, policy, names);
      if (!made) return std::unexpected(made.error());
      out = CertificateSet{};
      out.signer = std::move(made->first);
      out.serving = std::move(made->second);
      out.ca_bundle = out.signer.cert_pem;
      out.promoted_at = now;
      return out;
    }
    case RotationStep::Stage: {
      auto made = make_pair(now, policy, names);
      if (!made) return std::unexpected(made.error());
      // The bundle: what it trusts now, the serving CA (in case it was missing), and the new CA.
      std::vector<std::string> bundle;
      for (const auto& c : split_pem_certificates(current.ca_bundle))
        if (!bundle_has(bundle, c) && fingerprint(c) != fingerprint(current.next_signer.cert_pem)) bundle.push_back(c);
      if (!bundle_has(bundle, current.signer.cert_pem)) bundle.push_back(current.signer.cert_pem);
      bundle.push_back(made->first.cert_pem);
      out.ca_bundle = join(bundle);
      out.next_signer = std::move(made->first);
      out.next_serving = std::move(made->second);
      out.staged_at = now;
      return out;
    }
    case RotationStep::Promote:
      out.signer = std::move(out.next_signer);
      out.serving = std::move(out.next_serving);
      out.next_signer = {};
      out.next_serving = {};
      out.staged_at = {};
      out.promoted_at = now;
      return out;
    case RotationStep::Prune: {
      std::string bundle = current.signer.cert_pem;
      if (!current.next_signer.empty()) bundle += current.next_signer.cert_pem;
      out.ca_bundle = bundle;
      return out;
    }
  }
  return out;
}

}  // namespace cfo::webhook
