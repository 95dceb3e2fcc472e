#pragma once
// When and how the self-managed webhook certificates rotate, as pure functions of what the Secret holds and the
// time. The sequence keeps every admission working while the certificate changes:
//   1. Stage: a new CA and serving certificate are made but not served; the CA bundle (what the apiserver trusts)
//      becomes old CA + new CA.
//   2. Promote, `settle` later (and only once the bundle with both CAs is in every webhook configuration): the new
//      certificate is served; the bundle still trusts both, so replicas still serving the old one keep working.
//   3. Prune, `settle` after the promotion: the old CA leaves the bundle.
#include <chrono>
#include <string>

#include "core/error.hpp"
#include "webhook/certificates.hpp"

namespace cfo::webhook {

/// The certificates of the webhook as stored in its Secret (see cert_manager.hpp for the keys).
struct CertificateSet {
  std::string ca_bundle;            ///< PEM, one or more CA certificates: what the webhook configurations trust
  CertificatePair signer;           ///< the CA that issued `serving`
  CertificatePair serving;          ///< the certificate and key the webhook server presents
  CertificatePair next_signer;      ///< staged: the CA of `next_serving` (empty when nothing is staged)
  CertificatePair next_serving;     ///< staged: the next serving certificate, not served yet
  Clock::time_point staged_at{};    ///< when next_* were staged (epoch when never)
  Clock::time_point promoted_at{};  ///< when the last staged pair became `serving` (epoch when never)

  bool operator==(const CertificateSet&) const = default;
};

/// How certificates are made and renewed. Defaults: serving and CA certificates valid for a year, renewed when less
/// than a third of their validity is left (as cert-manager renews at 2/3 of a certificate's life), backdated a
/// minute against clock skew, and 5 minutes between the steps of a rotation: several times the replicas' Secret
/// poll (CertManagerOptions::sync_period, 1 minute) plus the server's file reload (10 s), so every replica has the
/// new pair before the old CA is dropped.
struct RotationPolicy {
  std::chrono::seconds validity{365 * 24 * 3600};
  std::chrono::seconds ca_validity{365 * 24 * 3600};
  /// Renew when the serving certificate has less than this fraction of its validity (notAfter - notBefore) left.
  double renew_fraction = 1.0 / 3.0;
  std::chrono::seconds backdate{60};
  std::chrono::seconds settle{300};
  std::string ca_common_name = "codeflare-operator-webhook-ca";
};

/// What one pass does to the certificates.
enum class RotationStep {
  Keep,     ///< nothing to do
  Create,   ///< nothing usable is stored (or what is served has expired): make a CA and a serving certificate now
  Stage,    ///< renewal is due: make the next pair and add its CA to the bundle
  Promote,  ///< serve the staged pair
  Prune,    ///< set the bundle to what is needed: the signer's CA (and a staged one), no other
};

/// "Keep", "Create", ...
const char* rotation_step_name(RotationStep step);

/// The decision and why (one line, for the log).
struct RotationDecision {
  RotationStep step = RotationStep::Keep;
  std::string why;
};

/// Decides the next step from `current`, the time `now`, the names the serving certificate must cover, and
/// `bundle_in_place` (the webhook configurations already carry current.ca_bundle; a staged pair is never promoted
/// before that). In order:
///  - Create when the serving pair or its signer is missing, does not parse, does not match its key, is not signed
///    by the signer, or has expired (nothing valid is served, so nothing can break);
///  - Stage when a staged pair is broken (it is made again);
///  - Promote when a pair is staged, `settle` has passed since staged_at, and the bundle is in place;
///  - Prune when the bundle lacks the signer's CA (at once), or, with nothing staged, holds another CA and `settle`
///    has passed since promoted_at, or holds an expired one;
///  - Stage when less than renew_fraction of the serving certificate's validity is left, when it does not cover
///    `names`, or when the signer expires before it;
///  - Keep otherwise.
/// Pure: no clock, no randomness.
RotationDecision decide_rotation(const CertificateSet& current, Clock::time_point now, const RotationPolicy& policy,
                                 const ServingNames& names, bool bundle_in_place);

/// Carries out `step` on `current` and returns the new set (Keep returns `current`). Create and Stage make keys
/// (generate_ca, generate_serving_certificate) valid from now - backdate to now + validity; the bundle gets the new
/// CA; Promote moves next_* into place; Prune sets the bundle to the signer's CA plus the staged one, if any. Errors:
/// certificate generation failed.
Result<CertificateSet> apply_rotation(RotationStep step, const CertificateSet& current, Clock::time_point now,
                                      const RotationPolicy& policy, const ServingNames& names);

}  // namespace cfo::webhook
