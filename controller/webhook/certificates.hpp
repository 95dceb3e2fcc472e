#pragma once
// X.509 for the webhook's self-managed certificates, with OpenSSL 3: a CA, a serving certificate it signs for the
// webhook Service's DNS names, and reading back what a PEM certificate says. No I/O besides the key generator's
// randomness.
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace cfo::webhook {

using Clock = std::chrono::system_clock;

/// A certificate and its private key, both PEM ("CERTIFICATE", "PRIVATE KEY" in PKCS#8).
struct CertificatePair {
  std::string cert_pem;
  std::string key_pem;

  bool empty() const { return cert_pem.empty() && key_pem.empty(); }
  bool operator==(const CertificatePair&) const = default;
};

/// When a certificate is valid. `not_before` is backdated by the caller (see generate_ca) to tolerate clock skew
/// between the operator and the apiserver; `not_after` = the time it was made + `validity`.
struct Validity {
  Clock::time_point not_before;
  Clock::time_point not_after;
};

/// Makes a self-signed CA: an ECDSA P-256 key, SHA-256 signature, a random 127-bit serial, subject CN
/// `common_name`, basicConstraints critical CA:TRUE with pathlen 0, keyUsage critical keyCertSign, cRLSign and
/// digitalSignature, and a subject key identifier. Errors: an empty common name, not_after not after not_before,
/// or an OpenSSL failure (named).
Result<CertificatePair> generate_ca(const std::string& common_name, const Validity& validity);

/// The names a serving certificate is made for: DNS names (e.g. service_dns_names()) and IP addresses
/// ("127.0.0.1", "::1"). The first DNS name (or the first IP) is also the subject CN.
struct ServingNames {
  std::vector<std::string> dns_names;
  std::vector<std::string> ip_addresses;
};

/// The DNS names the apiserver uses for a webhook Service: "<service>.<namespace>.svc" (what it dials for a
/// `clientConfig.service`) and "<service>.<namespace>.svc.cluster.local"; controller-runtime and cert-manager
/// examples list the same two.
std::vector<std::string> service_dns_names(const std::string& service, const std::string& namespace_);

/// Makes a serving certificate signed by `ca` (a pair from generate_ca): an ECDSA P-256 key, SHA-256, a random
/// serial, basicConstraints CA:FALSE, keyUsage critical digitalSignature (an ECDSA key signs, it never enciphers),
/// extendedKeyUsage serverAuth, subjectAltName with every name of `names` (Go, and so the apiserver, ignores the CN),
/// and the CA's key identifier. `validity.not_after` is cut to the CA's notAfter. Errors: no names, a DNS name with a
/// character outside [A-Za-z0-9.-*] or longer than 253, an IP that does not parse, a CA that does not parse or whose
/// key does not match it, or an OpenSSL failure.
Result<CertificatePair> generate_serving_certificate(const CertificatePair& ca, const ServingNames& names,
                                                     const Validity& validity);

/// What a certificate says.
struct CertificateInfo {
  std::string subject_cn;
  std::string issuer_cn;
  Clock::time_point not_before;
  Clock::time_point not_after;
  std::vector<std::string> dns_names;
  std::vector<std::string> ip_addresses;  ///< in the textual form inet_ntop gives
  bool is_ca = false;
  std::string serial_hex;          ///< upper-case hex
  std::string sha256_fingerprint;  ///< lower-case hex of the DER's SHA-256
};

/// Reads the first certificate of `pem`. Errors: no PEM certificate, or one OpenSSL cannot decode.
Result<CertificateInfo> inspect_certificate(std::string_view pem);

/// The certificates of a PEM bundle, each as its own PEM block (the text between and including the BEGIN/END
/// lines, with a final newline); other blocks and text are skipped.
std::vector<std::string> split_pem_certificates(std::string_view pem);

/// True when `cert_pem`'s signature verifies with the public key of `ca_pem` and its issuer names that CA.
bool signed_by(std::string_view cert_pem, std::string_view ca_pem);

/// True when `key_pem` is the private key of `cert_pem`.
bool key_matches(std::string_view cert_pem, std::string_view key_pem);

/// True when `info` covers every name of `names` (exact DNS and IP SAN matches).
bool covers(const CertificateInfo& info, const ServingNames& names);

}  // namespace cfo::webhook
