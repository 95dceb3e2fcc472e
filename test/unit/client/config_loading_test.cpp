#include <gtest/gtest.h>

#include "client/kubeconfig.hpp"
#include "temp_dir.hpp"

using namespace cfo::client;
using cfo::client::testing::ScopedEnv;
using cfo::client::testing::TempDir;

namespace {
std::string kubeconfig_for(const std::string& server, const std::string& token) {
  return "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\n"
         "clusters:\n- name: k\n  cluster: {server: '" +
         server +
         "', insecure-skip-tls-verify: true}\n"
         "users:\n- name: u\n  user: {token: " +
         token + "}\n";
}
}  // namespace

TEST(InCluster, ReadsServiceAccountFilesAndServiceEnv) {
  TempDir sa;
  sa.write("token", "sa-token\n");
  sa.write("ca.crt", "CLUSTER-CA");
  sa.write("namespace", "operators\n");
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
  auto cfg = load_in_cluster(sa.path().string());
  ASSERT_TRUE(cfg.has_value()) << cfg.error().message;
  EXPECT_EQ(cfg->server, "https://10.96.0.1:443");
  EXPECT_EQ(cfg->bearer_token, "sa-token");
  EXPECT_EQ(cfg->bearer_token_file, (sa.path() / "token").string());
  EXPECT_EQ(cfg->ca_pem, "CLUSTER-CA");
  EXPECT_EQ(cfg->ca_file, (sa.path() / "ca.crt").string());
  EXPECT_EQ(cfg->default_namespace, "operators");
  EXPECT_EQ(cfg->source, "in-cluster");
}

TEST(InCluster, BracketsIpv6HostsAndDefaultsTheNamespace) {
  TempDir sa;
  sa.write("token", "t");
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "fd00:10:96::1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "6443");
  auto cfg = load_in_cluster(sa.path().string());
  ASSERT_TRUE(cfg.has_value()) << cfg.error().message;
  EXPECT_EQ(cfg->server, "https://[fd00:10:96::1]:6443");
  EXPECT_EQ(cfg->default_namespace, "default");
  EXPECT_TRUE(cfg->ca_pem.empty());  // no ca.crt: the system store is used, as client-go does
}

TEST(InCluster, FailsOutsideAPodOrWithoutToken) {
  TempDir sa;
  {
    ScopedEnv host("KUBERNETES_SERVICE_HOST", nullptr);
    ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
    auto cfg = load_in_cluster(sa.path().string());
    ASSERT_FALSE(cfg.has_value());
    EXPECT_NE(cfg.error().message.find("KUBERNETES_SERVICE_HOST"), std::string::npos);
  }
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.0.0.1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
  auto cfg = load_in_cluster(sa.path().string());
  ASSERT_FALSE(cfg.has_value());
  EXPECT_NE(cfg.error().message.find("token"), std::string::npos);
}

TEST(LoadDefault, FlagWinsOverKubeconfigEnv) {
  TempDir dir;
  std::string flag = dir.write("flag.yaml", kubeconfig_for("https://flag:6443", "from-flag"));
  std::string env = dir.write("env.yaml", kubeconfig_for("https://env:6443", "from-env"));
  ScopedEnv kc("KUBECONFIG", env.c_str());
  auto cfg = load_default(flag);
  ASSERT_TRUE(cfg.has_value()) << cfg.error().message;
  EXPECT_EQ(cfg->bearer_token, "from-flag");
}

TEST(LoadDefault, UsesFirstEntryOfKubeconfigList) {
  TempDir dir;
  std::string first = dir.write("first.yaml", kubeconfig_for("https://first:6443", "first"));
  std::string second = dir.write("second.yaml", kubeconfig_for("https://second:6443", "second"));
  std::string list = ":" + first + ":" + second;
  ScopedEnv kc("KUBECONFIG", list.c_str());
  auto cfg = load_default("");
  ASSERT_TRUE(cfg.has_value()) << cfg.error().message;
  EXPECT_EQ(cfg->server, "https://first:6443");
}

TEST(LoadDefault, FallsBackToHomeAndListsEverythingTriedWhenNothingExists) {
  TempDir home;
  ScopedEnv kc("KUBECONFIG", nullptr);
  ScopedEnv host("KUBERNETES_SERVICE_HOST", nullptr);
  ScopedEnv h("HOME", home.path().c_str());
  auto none = load_default("");
  ASSERT_FALSE(none.has_value());
  EXPECT_NE(none.error().message.find("KUBECONFIG"), std::string::npos) << none.error().message;
  EXPECT_NE(none.error().message.find("in-cluster"), std::string::npos) << none.error().message;
  EXPECT_NE(none.error().message.find(".kube/config"), std::string::npos) << none.error().message;

  home.write(".kube/config", kubeconfig_for("https://home:6443", "home-token"));
  auto cfg = load_default("");
  ASSERT_TRUE(cfg.has_value()) << cfg.error().message;
  EXPECT_EQ(cfg->bearer_token, "home-token");
}

TEST(LoadDefault, BrokenFlagFileIsReportedNotSkipped) {
  TempDir home;
  home.write(".kube/config", kubeconfig_for("https://home:6443", "home-token"));
  ScopedEnv h("HOME", home.path().c_str());
  auto cfg = load_default((home.path() / "missing.yaml").string());
  ASSERT_FALSE(cfg.has_value());
  EXPECT_NE(cfg.error().message.find("missing.yaml"), std::string::npos);
}
