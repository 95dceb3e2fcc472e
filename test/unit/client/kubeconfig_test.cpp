#include <gtest/gtest.h>
#include <openssl/evp.h>

#include "client/base64.hpp"
#include "client/file_text.hpp"
#include "client/kubeconfig.hpp"
#include "temp_dir.hpp"

using namespace cfo;
using namespace cfo::client;
using cfo::client::testing::TempDir;

namespace {

std::string b64(const std::string& raw) {
  std::string out(4 * ((raw.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(raw.data()), static_cast<int>(raw.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

const char* kTwoContexts = R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://127.0.0.1:6443/
    insecure-skip-tls-verify: true
- name: prod-cluster
  cluster:
    server: https://[fd00::10]:443
contexts:
- name: dev
  context:
    cluster: dev-cluster
    user: dev-user
    namespace: team-a
- name: prod
  context:
    cluster: prod-cluster
    user: prod-user
users:
- name: dev-user
  user:
    token: " dev-token "
- name: prod-user
  user:
    token: prod-token
)";

}  // namespace

TEST(Base64, DecodesPaddedTextAndIgnoresLineBreaks) {
  auto r = decode_base64("aGVsbG8g\nd29ybGQ=");
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(*r, "hello world");
  EXPECT_EQ(decode_base64("YQ==").value(), "a");
}

TEST(Base64, RejectsTextOutsideTheAlphabet) {
  EXPECT_FALSE(decode_base64("not*base64!").has_value());
  EXPECT_FALSE(decode_base64("abc").has_value());
}

TEST(Kubeconfig, ReadsCurrentContextWithToken) {
  auto cfg = parse_kubeconfig(kTwoContexts, "/nowhere");
  ASSERT_TRUE(cfg.has_value()) << cfg.error().message;
  EXPECT_EQ(cfg->server, "https://127.0.0.1:6443");  // trailing slash dropped
  EXPECT_TRUE(cfg->insecure_skip_tls_verify);
  EXPECT_EQ(cfg->bearer_token, "dev-token");
  EXPECT_EQ(cfg->default_namespace, "team-a");
  EXPECT_TRUE(cfg->ca_pem.empty());
  EXPECT_NE(cfg->source.find("dev"), std::string::npos);
}

TEST(Kubeconfig, ContextOverridePicksAnotherContext) {
  auto cfg = parse_kubeconfig(kTwoContexts, "/nowhere", "prod");
  ASSERT_TRUE(cfg.has_value()) << cfg.error().message;
  EXPECT_EQ(cfg->server, "https://[fd00::10]:443");
  EXPECT_FALSE(cfg->insecure_skip_tls_verify);
  EXPECT_EQ(cfg->bearer_token, "prod-token");
  EXPECT_EQ(cfg->default_namespace, "default");
}

TEST(Kubeconfig, MissingContextIsAnErrorNamingIt) {
  auto cfg = parse_kubeconfig(kTwoContexts, "/nowhere", "staging");
  ASSERT_FALSE(cfg.has_value());
  EXPECT_EQ(cfg.error().message, "kubeconfig: context \"staging\" not found");
}

TEST(Kubeconfig, MissingClusterAndUserAreErrorsNamingThem) {
  std::string text = R"(current-context: c
contexts:
- name: c
  context: {cluster: gone, user: u}
clusters: []
users: []
)";
  auto cfg = parse_kubeconfig(text, "");
  ASSERT_FALSE(cfg.has_value());
  EXPECT_EQ(cfg.error().message, "kubeconfig: cluster \"gone\" not found");

  text = R"(current-context: c
contexts:
- name: c
  context: {cluster: k, user: nobody}
clusters:
- name: k
  cluster: {server: "https://k:6443"}
)";
  cfg = parse_kubeconfig(text, "");
  ASSERT_FALSE(cfg.has_value());
  EXPECT_EQ(cfg.error().message, "kubeconfig: user \"nobody\" not found");
}

TEST(Kubeconfig, NoCurrentContextIsAnError) {
  auto cfg = parse_kubeconfig("clusters: []\n", "");
  ASSERT_FALSE(cfg.has_value());
  EXPECT_NE(cfg.error().message.find("current-context"), std::string::npos);
}

TEST(Kubeconfig, ClientCertificateDataIsDecoded) {
  const std::string ca = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
  const std::string cert = "-----BEGIN CERTIFICATE-----\nCLIENT\n-----END CERTIFICATE-----\n";
  const std::string key = "-----BEGIN EC PRIVATE KEY-----\nKEY\n-----END EC PRIVATE KEY-----\n";
  std::string text =
      "current-context: kind\n"
      "contexts:\n- name: kind\n  context: {cluster: kind, user: admin}\n"
      "clusters:\n- name: kind\n  cluster:\n    server: https://127.0.0.1:40123\n"
      "    certificate-authority-data: " +
      b64(ca) +
      "\n"
      "users:\n- name: admin\n  user:\n"
      "    client-certificate-data: " +
      b64(cert) +
      "\n"
      "    client-key-data: " +
      b64(key) + "\n";
  auto cfg = parse_kubeconfig(text, "");
  ASSERT_TRUE(cfg.has_value()) << cfg.error().message;
  EXPECT_EQ(cfg->ca_pem, ca);
  EXPECT_EQ(cfg->client_cert_pem, cert);
  EXPECT_EQ(cfg->client_key_pem, key);
  EXPECT_TRUE(cfg->bearer_token.empty());
  EXPECT_TRUE(cfg->ca_file.empty());
}

TEST(Kubeconfig, BadBase64NamesTheField) {
  std::string text =
      "current-context: c\n"
      "contexts:\n- name: c\n  context: {cluster: k}\n"
      "clusters:\n- name: k\n  cluster:\n    server: https://k:6443\n"
      "    certificate-authority-data: '%%%not base64%%%'\n";
  auto cfg = parse_kubeconfig(text, "");
  ASSERT_FALSE(cfg.has_value());
  EXPECT_NE(cfg.error().message.find("clusters[\"k\"].cluster.certificate-authority-data"), std::string::npos)
      << cfg.error().message;
}

TEST(Kubeconfig, RelativeFilePathsAreResolvedAgainstTheKubeconfigFolder) {
  TempDir dir;
  dir.write("certs/ca.crt", "CA-PEM");
  dir.write("certs/client.crt", "CERT-PEM");
  dir.write("certs/client.key", "KEY-PEM");
  dir.write("token", "file-token\n");
  std::string path = dir.write("conf/kubeconfig", R"(current-context: c
contexts:
- name: c
  context: {cluster: k, user: u, namespace: ns1}
clusters:
- name: k
  cluster:
    server: https://k.example:6443
    certificate-authority: ../certs/ca.crt
users:
- name: u
  user:
    client-certificate: ../certs/client.crt
    client-key: ../certs/client.key
    tokenFile: ../token
)");
  auto cfg = load_kubeconfig_file(path);
  ASSERT_TRUE(cfg.has_value()) << cfg.error().message;
  EXPECT_EQ(cfg->ca_pem, "CA-PEM");
  EXPECT_EQ(cfg->ca_file, (dir.path() / "certs/ca.crt").string());
  EXPECT_EQ(cfg->client_cert_pem, "CERT-PEM");
  EXPECT_EQ(cfg->client_key_pem, "KEY-PEM");
  EXPECT_EQ(cfg->bearer_token, "file-token");
  EXPECT_EQ(cfg->bearer_token_file, (dir.path() / "token").string());
  EXPECT_EQ(cfg->default_namespace, "ns1");
  EXPECT_NE(cfg->source.find(path), std::string::npos);
}

TEST(Kubeconfig, MissingReferencedFileNamesFieldAndPath) {
  std::string text = R"(current-context: c
contexts:
- name: c
  context: {cluster: k}
clusters:
- name: k
  cluster: {server: "https://k:6443", certificate-authority: missing-ca.crt}
)";
  auto cfg = parse_kubeconfig(text, "/definitely/not/here");
  ASSERT_FALSE(cfg.has_value());
  EXPECT_NE(cfg.error().message.find("certificate-authority"), std::string::npos) << cfg.error().message;
  EXPECT_NE(cfg.error().message.find("/definitely/not/here/missing-ca.crt"), std::string::npos) << cfg.error().message;
}

TEST(Kubeconfig, WrongTypesAndBadServerAreRejectedWithTheField) {
  std::string base =
      "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k}\nclusters:\n- name: k\n  cluster:\n";
  auto cfg = parse_kubeconfig(base + "    server: [1, 2]\n", "");
  ASSERT_FALSE(cfg.has_value());
  EXPECT_NE(cfg.error().message.find("clusters[\"k\"].cluster.server must be a string"), std::string::npos)
      << cfg.error().message;

  cfg = parse_kubeconfig(base + "    server: http://k:8080\n", "");
  ASSERT_FALSE(cfg.has_value());
  EXPECT_NE(cfg.error().message.find("clusters[\"k\"].cluster.server"), std::string::npos) << cfg.error().message;

  cfg = parse_kubeconfig(base + "    server: https://k\n    insecure-skip-tls-verify: \"maybe\"\n", "");
  ASSERT_FALSE(cfg.has_value());
  EXPECT_NE(cfg.error().message.find("insecure-skip-tls-verify must be a boolean"), std::string::npos);

  cfg = parse_kubeconfig(base + "    foo: bar\n", "");
  ASSERT_FALSE(cfg.has_value());
  EXPECT_NE(cfg.error().message.find("server is required"), std::string::npos);
}

TEST(Kubeconfig, BothDataAndFileOrCertWithoutKeyAreErrors) {
  std::string base =
      "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\n"
      "clusters:\n- name: k\n  cluster: {server: 'https://k'}\nusers:\n- name: u\n  user:\n";
  auto cfg = parse_kubeconfig(base + "    client-certificate-data: " + b64("C") + "\n", "");
  ASSERT_FALSE(cfg.has_value());
  EXPECT_NE(cfg.error().message.find("client-certificate is set without client-key"), std::string::npos);

  cfg = parse_kubeconfig(base + "    client-key-data: " + b64("K") + "\n    client-key: k.pem\n", "");
  ASSERT_FALSE(cfg.has_value());
  EXPECT_NE(cfg.error().message.find("both client-key-data and client-key"), std::string::npos);
}

TEST(Kubeconfig, ExecPluginsAreReportedAsUnsupported) {
  std::string text =
      "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\n"
      "clusters:\n- name: k\n  cluster: {server: 'https://k'}\n"
      "users:\n- name: u\n  user:\n    exec: {command: gke-gcloud-auth-plugin}\n";
  auto cfg = parse_kubeconfig(text, "");
  ASSERT_FALSE(cfg.has_value());
  EXPECT_NE(cfg.error().message.find("users[\"u\"].user.exec is not supported"), std::string::npos)
      << cfg.error().message;
}

TEST(Kubeconfig, MalformedYamlAndNonMappingsAreErrors) {
  EXPECT_FALSE(parse_kubeconfig("a: [1, 2\n", "").has_value());
  EXPECT_FALSE(parse_kubeconfig("- just\n- a list\n", "").has_value());
  EXPECT_FALSE(parse_kubeconfig("", "").has_value());
  auto cfg = parse_kubeconfig("current-context: c\ncontexts: {c: 1}\n", "");
  ASSERT_FALSE(cfg.has_value());
  EXPECT_NE(cfg.error().message.find("contexts must be a list"), std::string::npos);
}

TEST(Kubeconfig, AcceptsJsonText) {
  auto cfg = parse_kubeconfig(R"({"current-context":"c","contexts":[{"name":"c","context":{"cluster":"k"}}],
    "clusters":[{"name":"k","cluster":{"server":"https://10.0.0.1:6443"}}]})",
                              "");
  ASSERT_TRUE(cfg.has_value()) << cfg.error().message;
  EXPECT_EQ(cfg->server, "https://10.0.0.1:6443");
  EXPECT_TRUE(cfg->bearer_token.empty());
}

TEST(Kubeconfig, ImpersonationFieldsAreRead) {
  std::string text = kTwoContexts;
  text.replace(
      text.find("    token: \" dev-token \""), std::string("    token: \" dev-token \"").size(),
      "    token: dev-token\n    as: nobody\n    as-uid: \"42\"\n    as-groups: [team-a, system:authenticated]\n"
      "    as-user-extra: {scopes.example.com/level: [low]}");
  auto cfg = parse_kubeconfig(text, "/nowhere");
  ASSERT_TRUE(cfg.has_value()) << cfg.error().message;
  EXPECT_EQ(cfg->impersonate_user, "nobody");
  EXPECT_EQ(cfg->impersonate_uid, "42");
  EXPECT_EQ(cfg->impersonate_groups, (std::vector<std::string>{"team-a", "system:authenticated"}));
  ASSERT_EQ(cfg->impersonate_extra.count("scopes.example.com/level"), 1u);
  EXPECT_EQ(cfg->impersonate_extra.at("scopes.example.com/level"), std::vector<std::string>{"low"});
  // Without `as` the rest means nothing: refused, as clientcmd refuses it.
  std::string groups_only = kTwoContexts;
  groups_only.replace(groups_only.find("    token: prod-token"), std::string("    token: prod-token").size(),
                      "    token: prod-token\n    as-groups: [x]");
  auto bad = parse_kubeconfig(groups_only, "/nowhere", "prod");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("need `as`"), std::string::npos) << bad.error().message;
}

// Files named in a kubeconfig are read up to 1 MiB: `certificate-authority: /dev/zero` used to exhaust memory.
// The error names the field, the file and the limit; every file-valued field is bounded.
TEST(Kubeconfig, NamedFilesAreReadUpToTheirSizeLimit) {
  TempDir dir;
  const std::string big = dir.write("big.pem", std::string(kMaxCredentialFileBytes + 1, 'x'));
  const std::string fits = dir.write("fits.txt", std::string(kMaxCredentialFileBytes, 't'));
  auto config = [](const std::string& cluster_extra, const std::string& user) {
    return "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\nclusters:\n- name: k\n"
           "  cluster: {server: \"https://k:6443\"" +
           cluster_extra + "}\nusers:\n- name: u\n  user: {" + user + "}\n";
  };
  struct Case {
    std::string cluster, user, field;
  };
  for (const Case& c : {Case{", certificate-authority: /dev/zero", "token: t", "certificate-authority"},
                        Case{", certificate-authority: big.pem", "token: t", "certificate-authority"},
                        Case{"", "tokenFile: /dev/zero", "tokenFile"},
                        Case{"", "client-certificate: big.pem, client-key: fits.txt", "client-certificate"},
                        Case{"", "client-certificate: fits.txt, client-key: /dev/zero", "client-key"}}) {
    auto cfg = parse_kubeconfig(config(c.cluster, c.user), dir.path().string());
    ASSERT_FALSE(cfg.has_value()) << c.field;
    const std::string& m = cfg.error().message;
    EXPECT_NE(m.find(c.field), std::string::npos) << m;
    EXPECT_NE(m.find("larger than 1 MiB"), std::string::npos) << m;
    EXPECT_TRUE(m.find("/dev/zero") != std::string::npos || m.find("big.pem") != std::string::npos) << m;
  }
  // A file of exactly the limit is read whole.
  auto cfg = parse_kubeconfig(config("", "tokenFile: fits.txt"), dir.path().string());
  ASSERT_TRUE(cfg.has_value()) << cfg.error().message;
  EXPECT_EQ(cfg->bearer_token.size(), kMaxCredentialFileBytes);
  // The kubeconfig itself is bounded too.
  auto whole = load_kubeconfig_file("/dev/zero");
  ASSERT_FALSE(whole.has_value());
  EXPECT_NE(whole.error().message.find("larger than 16 MiB"), std::string::npos) << whole.error().message;
}
