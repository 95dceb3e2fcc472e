#pragma once
// Certificates made at test time with the OpenSSL C API: a CA and leaf certificates it signs.
#include <memory>
#include <string>
#include <vector>

#include <openssl/evp.h>
#include <openssl/x509.h>

namespace cfo::client::testing {

/// A certificate and its private key, both PEM.
struct TestCert {
  std::string cert_pem;
  std::string key_pem;
};

/// A self-signed CA (EC P-256, SHA-256, valid for a day) that issues leaf certificates.
class TestCa {
 public:
  explicit TestCa(const std::string& common_name);

  const std::string& cert_pem() const { return self_.cert_pem; }

  /// A leaf certificate for `common_name` with the given subject alternative names, e.g. {"IP:127.0.0.1"} or
  /// {"DNS:localhost"}; usable for both server and client authentication.
  TestCert issue(const std::string& common_name, const std::vector<std::string>& sans);

 private:
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key_{nullptr, EVP_PKEY_free};
  std::unique_ptr<X509, decltype(&X509_free)> cert_{nullptr, X509_free};
  TestCert self_;
  long next_serial_ = 2;
};

}  // namespace cfo::client::testing
