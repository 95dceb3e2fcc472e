#pragma once
// The serving certificate of the webhook server, read from files and read again when they change (what
// controller-runtime's certwatcher does for its webhook server).
#include <boost/asio/ssl/context.hpp>

#include <memory>
#include <mutex>
#include <string>

#include "core/error.hpp"

namespace cfo::webhook {

/// A server TLS context: TLS 1.2 or newer, the certificate chain and key of `cert_pem` / `key_pem` (PEM, any key
/// type OpenSSL reads), no client certificate asked. Errors name the bad input ("certificate: ...", "key: ...",
/// "key: it does not match the certificate").
Result<std::shared_ptr<boost::asio::ssl::context>> make_server_tls_context(const std::string& cert_pem,
                                                                           const std::string& key_pem);

/// Holds the TLS context made from a certificate file and a key file. check() reads both files and, when their
/// content differs from what is loaded, makes a new context from them; a pair that cannot be read or does not make
/// a context (a torn write, a key of another certificate) keeps the one in use and is reported once per distinct
/// content. Files are compared by content, so replacing them by a rename (kubelet's Secret volumes, atomic writes)
/// and rewriting them in place are both seen. Thread-safe.
class CertWatcher {
 public:
  CertWatcher(std::string cert_path, std::string key_path);

  /// What one check found.
  enum class Outcome {
    Unchanged,  ///< the files hold what is loaded
    Loaded,     ///< a new pair is in use
    Rejected,   ///< the files changed, but the new pair is unusable; the previous context (if any) stays
  };

  /// Reads the files and loads a changed pair. `error` (optional) receives why a pair was rejected or could not be
  /// read. A missing file counts as Rejected (or Unchanged when it was already reported).
  Outcome check(std::string* error = nullptr);

  /// The context in use; null before a pair was ever loaded. Each connection keeps the one it started with.
  std::shared_ptr<boost::asio::ssl::context> current() const;

  /// The certificate PEM in use ("" before the first load).
  std::string current_certificate() const;

  const std::string& cert_path() const { return cert_path_; }
  const std::string& key_path() const { return key_path_; }

 private:
  std::string cert_path_, key_path_;
  mutable std::mutex mu_;
  std::shared_ptr<boost::asio::ssl::context> context_;
  std::string loaded_cert_, loaded_key_;      // the content behind context_
  std::string rejected_cert_, rejected_key_;  // the last content found unusable (reported once)
};

}  // namespace cfo::webhook
