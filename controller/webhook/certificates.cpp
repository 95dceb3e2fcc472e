#include "webhook/certificates.hpp"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cctype>
#include <cstring>
#include <ctime>
#include <memory>

namespace cfo::webhook {

namespace {

template <class T, void (*F)(T*)>
struct Deleter {
  void operator()(T* p) const { F(p); }
};
using Bio = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using Key = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using Cert = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using Bignum = std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>>;
using Names = std::unique_ptr<GENERAL_NAMES, Deleter<GENERAL_NAMES, GENERAL_NAMES_free>>;

// The last OpenSSL error, for messages (and the error queue cleared).
std::string ssl_error(const std::string& what) {
  unsigned long code = ERR_get_error();
  char buf[256] = "unknown error";
  if (code) ERR_error_string_n(code, buf, sizeof buf);
  ERR_clear_error();
  return what + ": " + buf;
}

Bio mem_bio(std::string_view text) { return Bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size()))); }

std::string bio_text(BIO* b) {
  char* data = nullptr;
  long n = BIO_get_mem_data(b, &data);
  return n > 0 ? std::string(data, static_cast<std::size_t>(n)) : std::string();
}

Cert read_cert(std::string_view pem) {
  if (pem.empty()) return nullptr;
  Bio b = mem_bio(pem);
  Cert c(b ? PEM_read_bio_X509(b.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!c) ERR_clear_error();
  return c;
}

Key read_key(std::string_view pem) {
  if (pem.empty()) return nullptr;
  Bio b = mem_bio(pem);
  Key k(b ? PEM_read_bio_PrivateKey(b.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!k) ERR_clear_error();
  return k;
}

Result<Key> new_p256_key() {
  Key k(EVP_EC_gen("P-256"));
  if (!k) return fail(ssl_error("generating an ECDSA P-256 key"));
  return k;
}

Result<CertificatePair> to_pem(X509* cert, EVP_PKEY* key) {
  Bio c(BIO_new(BIO_s_mem())), k(BIO_new(BIO_s_mem()));
  if (!c || !k || PEM_write_bio_X509(c.get(), cert) != 1 ||
      PEM_write_bio_PrivateKey(k.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1)
    return fail(ssl_error("writing PEM"));
  return CertificatePair{bio_text(c.get()), bio_text(k.get())};
}

std::time_t to_time_t(Clock::time_point t) { return Clock::to_time_t(t); }

// Serial, subject CN, issuer, validity and public key of a new certificate.
Result<Cert> new_certificate(const std::string& cn, const Validity& v, EVP_PKEY* key, X509* issuer) {
  Cert x(X509_new());
  if (!x) return fail(ssl_error("allocating a certificate"));
  X509_set_version(x.get(), 2);  // v3
  Bignum serial(BN_new());
  // 127 random bits with the top bit clear: a positive serial of at most 16 bytes (RFC 5280 s4.1.2.2 allows 20).
  if (!serial || BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
      !BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(x.get())))
    return fail(ssl_error("making a serial number"));
  if (!ASN1_TIME_set(X509_getm_notBefore(x.get()), to_time_t(v.not_before)) ||
      !ASN1_TIME_set(X509_getm_notAfter(x.get()), to_time_t(v.not_after)))
    return fail(ssl_error("setting the validity"));
  X509_NAME* name = X509_get_subject_name(x.get());
  if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1,
                                 0) != 1)
    return fail(ssl_error("setting the subject"));
  if (X509_set_issuer_name(x.get(), issuer ? X509_get_subject_name(issuer) : name) != 1 ||
      X509_set_pubkey(x.get(), key) != 1)
    return fail(ssl_error("setting the issuer and key"));
  return x;
}

Result<void> add_ext(X509* x, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer ? issuer : x, x, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (!ext) return fail(ssl_error(std::string("making extension ") + OBJ_nid2sn(nid) + "=" + value));
  const int ok = X509_add_ext(x, ext, -1);
  X509_EXTENSION_free(ext);
  if (ok != 1) return fail(ssl_error(std::string("adding extension ") + OBJ_nid2sn(nid)));
  return {};
}

Result<void> sign(X509* x, EVP_PKEY* key) {
  if (X509_sign(x, key, EVP_sha256()) <= 0) return fail(ssl_error("signing the certificate"));
  return {};
}

bool dns_name_ok(const std::string& n) {
  if (n.empty() || n.size() > 253) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '*')) return false;
  return true;
}

bool ip_ok(const std::string& ip) {
  unsigned char buf[16];
  return inet_pton(AF_INET, ip.c_str(), buf) == 1 || inet_pton(AF_INET6, ip.c_str(), buf) == 1;
}

// subjectAltName as GENERAL_NAMES built directly (no config-string parsing of user text).
Result<void> add_sans(X509* x, const ServingNames& names) {
  Names sans(sk_GENERAL_NAME_new_null());
  if (!sans) return fail(ssl_error("allocating subjectAltName"));
  for (const auto& dns : names.dns_names) {
    GENERAL_NAME* g = GENERAL_NAME_new();
    ASN1_IA5STRING* s = ASN1_IA5STRING_new();
    if (!g || !s || ASN1_STRING_set(s, dns.data(), static_cast<int>(dns.size())) != 1) {
      GENERAL_NAME_free(g);
      ASN1_IA5STRING_free(s);
      return fail(ssl_error("adding DNS name " + dns));
    }
    GENERAL_NAME_set0_value(g, GEN_DNS, s);
    sk_GENERAL_NAME_push(sans.get(), g);
  }
  for (const auto& ip : names.ip_addresses) {
    ASN1_OCTET_STRING* addr = a2i_IPADDRESS(ip.c_str());
    GENERAL_NAME* g = GENERAL_NAME_new();
    if (!addr || !g) {
      ASN1_OCTET_STRING_free(addr);
      GENERAL_NAME_free(g);
      return fail(ssl_error("adding IP address " + ip));
    }
    GENERAL_NAME_set0_value(g, GEN_IPADD, addr);
    sk_GENERAL_NAME_push(sans.get(), g);
  }
  if (X509_add1_ext_i2d(x, NID_subject_alt_name, sans.get(), 0, X509V3_ADD_DEFAULT) != 1)
    return fail(ssl_error("adding subjectAltName"));
  return {};
}

Clock::time_point from_asn1(const ASN1_TIME* t) {
  std::tm tm{};
  if (!t || ASN1_TIME_to_tm(t, &tm) != 1) return {};
  return Clock::from_time_t(timegm(&tm));
}

std::string hex(const unsigned char* data, std::size_t n, bool upper) {
  static const char* lower_digits = "0123456789abcdef";
  static const char* upper_digits = "0123456789ABCDEF";
  const char* digits = upper ? upper_digits : lower_digits;
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    out += digits[data[i] >> 4];
    out += digits[data[i] & 0xf];
  }
  return out;
}

std::string common_name(const X509_NAME* name) {
  char buf[256] = "";
  if (name && X509_NAME_get_text_by_NID(const_cast<X509_NAME*>(name), NID_commonName, buf, sizeof buf) < 0) return "";
  return buf;
}

}  // namespace

std::vector<std::string> service_dns_names(const std::string& service, const std::string& namespace_) {
  return {service + "." + namespace_ + ".svc", service + "." + namespace_ + ".svc.cluster.local"};
}

Result<CertificatePair> generate_ca(const std::string& common_name, const Validity& validity) {
  if (common_name.empty()) return fail("CA: the common name is empty");
  if (validity.not_after <= validity.not_before) return fail("CA: notAfter must be after notBefore");
  auto key = new_p256_key();
  if (!key) return std::unexpected(key.error());
  auto x = new_certificate(common_name, validity, key->get(), nullptr);
  if (!x) return std::unexpected(x.error());
  for (auto [nid, value] : {std::pair{NID_basic_constraints, "critical,CA:TRUE,pathlen:0"},
                            std::pair{NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature"},
                            std::pair{NID_subject_key_identifier, "hash"}})
    if (auto r = add_ext(x->get(), nullptr, nid, value); !r) return std::unexpected(r.error());
  if (auto r = sign(x->get(), key->get()); !r) return std::unexpected(r.error());
  return to_pem(x->get(), key->get());
}

Result<CertificatePair> generate_serving_certificate(const CertificatePair& ca, const ServingNames& names,
                                                     const Validity& validity) {
  if (names.dns_names.empty() && names.ip_addresses.empty())
    return fail("serving certificate: no DNS name or IP address to issue it for");
  for (const auto& n : names.dns_names)
    if (!dns_name_ok(n)) return fail("serving certificate: \"" + n + "\" is not a DNS name");
  for (const auto& ip : names.ip_addresses)
    if (!ip_ok(ip)) return fail("serving certificate: \"" + ip + "\" is not an IP address");
  Cert ca_cert = read_cert(ca.cert_pem);
  Key ca_key = read_key(ca.key_pem);
  if (!ca_cert || !ca_key) return fail("serving certificate: the CA certificate or key does not parse");
  if (X509_check_private_key(ca_cert.get(), ca_key.get()) != 1) {
    ERR_clear_error();
    return fail("serving certificate: the CA key does not match the CA certificate");
  }
  Validity v = validity;
  const Clock::time_point ca_end = from_asn1(X509_get0_notAfter(ca_cert.get()));
  if (v.not_after > ca_end) v.not_after = ca_end;
  if (v.not_after <= v.not_before) return fail("serving certificate: notAfter must be after notBefore (and the CA's)");
  auto key = new_p256_key();
  if (!key) return std::unexpected(key.error());
  const std::string cn = names.dns_names.empty() ? names.ip_addresses.front() : names.dns_names.front();
  auto x = new_certificate(cn.size() <= 64 ? cn : cn.substr(0, 64), v, key->get(), ca_cert.get());
  if (!x) return std::unexpected(x.error());
  for (auto [nid, value] :
       {std::pair{NID_basic_constraints, "critical,CA:FALSE"}, std::pair{NID_key_usage, "critical,digitalSignature"},
        std::pair{NID_ext_key_usage, "serverAuth"}, std::pair{NID_authority_key_identifier, "keyid:always"}})
    if (auto r = add_ext(x->get(), ca_cert.get(), nid, value); !r) return std::unexpected(r.error());
  if (auto r = add_sans(x->get(), names); !r) return std::unexpected(r.error());
  if (auto r = sign(x->get(), ca_key.get()); !r) return std::unexpected(r.error());
  return to_pem(x->get(), key->get());
}

Result<CertificateInfo> inspect_certificate(std::string_view pem) {
  Cert x = read_cert(pem);
  if (!x) return fail("no PEM certificate that OpenSSL can decode");
  CertificateInfo info;
  info.subject_cn = common_name(X509_get_subject_name(x.get()));
  info.issuer_cn = common_name(X509_get_issuer_name(x.get()));
  info.not_before = from_asn1(X509_get0_notBefore(x.get()));
  info.not_after = from_asn1(X509_get0_notAfter(x.get()));
  info.is_ca = X509_check_ca(x.get()) > 0;
  if (Bignum serial(ASN1_INTEGER_to_BN(X509_get0_serialNumber(x.get()), nullptr)); serial) {
    char* text = BN_bn2hex(serial.get());
    if (text) info.serial_hex = text;
    OPENSSL_free(text);
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  if (X509_digest(x.get(), EVP_sha256(), md, &md_len) == 1) info.sha256_fingerprint = hex(md, md_len, false);
  Names sans(static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(x.get(), NID_subject_alt_name, nullptr, nullptr)));
  for (int i = 0; sans && i < sk_GENERAL_NAME_num(sans.get()); ++i) {
    const GENERAL_NAME* g = sk_GENERAL_NAME_value(sans.get(), i);
    if (g->type == GEN_DNS) {
      const ASN1_IA5STRING* s = g->d.dNSName;
      info.dns_names.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)), ASN1_STRING_length(s));
    } else if (g->type == GEN_IPADD) {
      const ASN1_OCTET_STRING* s = g->d.iPAddress;
      char text[INET6_ADDRSTRLEN] = "";
      const int len = ASN1_STRING_length(s);
      if ((len == 4 || len == 16) &&
          inet_ntop(len == 4 ? AF_INET : AF_INET6, ASN1_STRING_get0_data(s), text, sizeof text))
        info.ip_addresses.emplace_back(text);
    }
  }
  ERR_clear_error();
  return info;
}

std::vector<std::string> split_pem_certificates(std::string_view pem) {
  static constexpr std::string_view kBegin = "-----BEGIN CERTIFICATE-----";
  static constexpr std::string_view kEnd = "-----END CERTIFICATE-----";
  std::vector<std::string> out;
  std::size_t pos = 0;
  while ((pos = pem.find(kBegin, pos)) != std::string_view::npos) {
    std::size_t end = pem.find(kEnd, pos);
    if (end == std::string_view::npos) break;
    end += kEnd.size();
    out.emplace_back(std::string(pem.substr(pos, end - pos)) + "\n");
    pos = end;
  }
  return out;
}

bool signed_by(std::string_view cert_pem, std::string_view ca_pem) {
  Cert c = read_cert(cert_pem), ca = read_cert(ca_pem);
  if (!c || !ca) return false;
  const bool ok =
      X509_check_issued(ca.get(), c.get()) == X509_V_OK && X509_verify(c.get(), X509_get0_pubkey(ca.get())) == 1;
  ERR_clear_error();
  return ok;
}

bool key_matches(std::string_view cert_pem, std::string_view key_pem) {
  Cert c = read_cert(cert_pem);
  Key k = read_key(key_pem);
  const bool ok = c && k && X509_check_private_key(c.get(), k.get()) == 1;
  ERR_clear_error();
  return ok;
}

bool covers(const CertificateInfo& info, const ServingNames& names) {
  auto has = [](const std::vector<std::string>& list, const std::string& v) {
    for (const auto& x : list)
      if (x == v) return true;
    return false;
  };
  for (const auto& d : names.dns_names)
    if (!has(info.dns_names, d)) return false;
  for (const auto& ip : names.ip_addresses) {
    // Compare in inet_ntop's canonical form ("::1", not "0:0::1").
    unsigned char buf[16];
    char canon[INET6_ADDRSTRLEN] = "";
    const int family = inet_pton(AF_INET, ip.c_str(), buf) == 1 ? AF_INET : AF_INET6;
    if (family == AF_INET6 && inet_pton(AF_INET6, ip.c_str(), buf) != 1) return false;
    if (!inet_ntop(family, buf, canon, sizeof canon) || !has(info.ip_addresses, canon)) return false;
  }
  return true;
}

}  // namespace cfo::webhook
