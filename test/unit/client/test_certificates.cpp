#include "test_certificates.hpp"

#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <stdexcept>

namespace cfo::client::testing {

namespace {

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("OpenSSL: ") + what);
}

EVP_PKEY* new_key() {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  check(key != nullptr, "EC key generation");
  return key;
}

void add_ext(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  check(ext != nullptr, "extension");
  check(X509_add_ext(cert, ext, -1) == 1, "add extension");
  X509_EXTENSION_free(ext);
}

X509* new_cert(EVP_PKEY* key, const std::string& cn, long serial) {
  X509* cert = X509_new();
  check(cert != nullptr, "X509_new");
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), serial);
  X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert), 24 * 3600);
  X509_set_pubkey(cert, key);
  X509_NAME_add_entry_by_txt(X509_get_subject_name(cert), "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  return cert;
}

std::string to_pem(X509* cert) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<std::size_t>(n));
  BIO_free(bio);
  return out;
}

std::string to_pem(EVP_PKEY* key) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<std::size_t>(n));
  BIO_free(bio);
  return out;
}

}  // namespace

TestCa::TestCa(const std::string& common_name) {
  key_.reset(new_key());
  cert_.reset(new_cert(key_.get(), common_name, 1));
  X509_set_issuer_name(cert_.get(), X509_get_subject_name(cert_.get()));
  add_ext(cert_.get(), cert_.get(), NID_basic_constraints, "critical,CA:TRUE");
  add_ext(cert_.get(), cert_.get(), NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature");
  add_ext(cert_.get(), cert_.get(), NID_subject_key_identifier, "hash");
  check(X509_sign(cert_.get(), key_.get(), EVP_sha256()) > 0, "sign CA");
  self_ = {to_pem(cert_.get()), to_pem(key_.get())};
}

TestCert TestCa::issue(const std::string& common_name, const std::vector<std::string>& sans) {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(new_key(), EVP_PKEY_free);
  std::unique_ptr<X509, decltype(&X509_free)> cert(new_cert(key.get(), common_name, next_serial_++), X509_free);
  X509_set_issuer_name(cert.get(), X509_get_subject_name(cert_.get()));
  add_ext(cert.get(), cert_.get(), NID_basic_constraints, "critical,CA:FALSE");
  add_ext(cert.get(), cert_.get(), NID_key_usage, "critical,digitalSignature,keyEncipherment");
  add_ext(cert.get(), cert_.get(), NID_ext_key_usage, "serverAuth,clientAuth");
  add_ext(cert.get(), cert_.get(), NID_authority_key_identifier, "keyid:always");
  if (!sans.empty()) {
    std::string joined;
    for (const auto& s : sans) joined += (joined.empty() ? "" : ",") + s;
    add_ext(cert.get(), cert_.get(), NID_subject_alt_name, joined);
  }
  check(X509_sign(cert.get(), key_.get(), EVP_sha256()) > 0, "sign leaf");
  return {to_pem(cert.get()), to_pem(key.get())};
}

}  // namespace cfo::client::testing
