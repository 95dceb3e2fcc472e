#include "webhook_support.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <thread>

#include "client/base64.hpp"
#include "client/kubeconfig.hpp"

namespace cfo::it {

namespace fs = std::filesystem;

namespace {
const client::ResourceType kConfigs{"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", false};
const client::ResourceType kNamespaces{"", "v1", "namespaces", false};

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
}  // namespace

client::RestClient& api() {
  static std::unique_ptr<client::RestClient> c = [] {
    const char* path = std::getenv("KUBECONFIG");
    if (!path) throw std::runtime_error("KUBECONFIG is not set");
    auto cfg = client::load_kubeconfig_file(path);
    if (!cfg) throw std::runtime_error("kubeconfig: " + cfg.error().message);
    return std::make_unique<client::RestClient>(std::move(*cfg));
  }();
  return *c;
}

bool eventually(const std::function<bool()>& pred, std::chrono::milliseconds timeout) {
  for (auto deadline = std::chrono::steady_clock::now() + timeout; std::chrono::steady_clock::now() < deadline;) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return pred();
}

CommandResult kubectl(const std::string& args, const std::string& stdin_text) {
  const char* bin = std::getenv("KUBECTL");
  std::string input_file;
  std::string cmd = shell_quote(bin && *bin ? bin : "kubectl") + " --kubeconfig " +
                    shell_quote(std::getenv("KUBECONFIG") ? std::getenv("KUBECONFIG") : "") + " " + args;
  if (!stdin_text.empty()) {
    input_file = (fs::temp_directory_path() / unique_name("cfo-kubectl-input")).string();
    std::ofstream(input_file) << stdin_text;
    cmd += " < " + shell_quote(input_file);
  }
  cmd += " 2>&1";
  CommandResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (!input_file.empty()) fs::remove(input_file);
  return r;
}

std::string source_dir() { return CFO_SOURCE_DIR; }

std::string read_text(const std::string& path) {
  std::ifstream in(path.front() == '/' ? path : source_dir() + "/" + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> yaml_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".yaml" && e.path().filename() != "kustomization.yaml") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string unique_name(const std::string& prefix) {
  static std::mt19937 rng(std::random_device{}());
  return prefix + "-" + std::to_string(rng() % 1000000);
}

void create_test_namespace(const std::string& ns, const std::string& label) {
  auto body = json::parse(R"({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ")" + ns +
                          R"(", "labels": {"cfo-webhook-test": ")" + label + R"("}}})");
  ASSERT_TRUE(body);
  auto r = api().create(kNamespaces.collection_path(""), *body);
  ASSERT_TRUE(r) << r.error().message;
}

LoopbackCerts::LoopbackCerts() {
  dir = (fs::temp_directory_path() / unique_name("cfo-webhook-certs")).string();
  fs::create_directories(dir);
  const auto now = webhook::Clock::now();
  ca = *webhook::generate_ca("webhook-test-ca", {now - std::chrono::minutes(1), now + std::chrono::hours(2)});
  serving = *webhook::generate_serving_certificate(ca, webhook::ServingNames{{"localhost"}, {"127.0.0.1"}},
                                                   {now - std::chrono::minutes(1), now + std::chrono::hours(2)});
  std::ofstream(cert_path()) << serving.cert_pem;
  std::ofstream(key_path()) << serving.key_pem;
}

LoopbackCerts::~LoopbackCerts() {
  std::error_code ec;
  fs::remove_all(dir, ec);
}

void create_webhook_configuration(const std::string& name, const std::vector<WebhookSpec>& webhooks) {
  json::Document d;
  d.Parse(R"({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
              "metadata": {}, "webhooks": []})");
  auto& a = d.GetAllocator();
  d["metadata"].AddMember("name", json::str(name, a), a);
  for (const auto& w : webhooks) {
    json::Document one;
    one.Parse(R"({"clientConfig": {}, "rules": [{"operations": ["CREATE", "UPDATE"]}], "sideEffects": "None",
                  "admissionReviewVersions": ["v1"], "timeoutSeconds": 10})");
    auto& b = one.GetAllocator();
    one.AddMember("name", json::str(w.name, b), b);
    one["clientConfig"].AddMember("url", json::str(w.url, b), b);
    if (!w.ca_bundle_pem.empty())
      one["clientConfig"].AddMember("caBundle", json::str(client::encode_base64(w.ca_bundle_pem), b), b);
    json::Value& rule = one["rules"][0];
    for (auto [key, value] :
         {std::pair{"apiGroups", w.group}, std::pair{"apiVersions", w.version}, std::pair{"resources", w.resource}}) {
      json::Value list(rapidjson::kArrayType);
      list.PushBack(json::str(value, b), b);
      rule.AddMember(rapidjson::StringRef(key), list, b);
    }
    rule.AddMember("scope", json::str(w.cluster_scoped ? "Cluster" : "Namespaced", b), b);
    one.AddMember("failurePolicy", json::str(w.failure_policy, b), b);
    json::Value selector(rapidjson::kObjectType), labels(rapidjson::kObjectType);
    labels.AddMember("cfo-webhook-test", json::str(w.selector_label, b), b);
    selector.AddMember("matchLabels", labels, b);
    one.AddMember(rapidjson::StringRef(w.cluster_scoped ? "objectSelector" : "namespaceSelector"), selector, b);
    d["webhooks"].PushBack(json::Value(one, a), a);
  }
  auto r = api().create(kConfigs.collection_path(""), d);
  ASSERT_TRUE(r) << r.error().message;
}

void delete_webhook_configuration(const std::string& name) { (void)api().remove(kConfigs.object_path("", name)); }

void set_failure_policy(const std::string& name, const std::string& policy) {
  auto got = api().get_json(kConfigs.object_path("", name));
  ASSERT_TRUE(got) << got.error().message;
  std::string ops = "[";
  for (rapidjson::SizeType i = 0; i < (*got)["webhooks"].Size(); ++i)
    ops += std::string(i ? "," : "") + R"({"op": "replace", "path": "/webhooks/)" + std::to_string(i) +
           R"(/failurePolicy", "value": ")" + policy + R"("})";
  ops += "]";
  auto r = api().request("PATCH", kConfigs.object_path("", name), ops, "application/json-patch+json");
  ASSERT_TRUE(r && r->status == 200) << (r ? r->body : r.error().message);
}

std::pair<unsigned, std::string> dry_run_create(const std::string& collection, const json::Value& obj) {
  auto r = api().request("POST", collection + "?dryRun=All", json::dump(obj));
  if (!r) return {0, r.error().message};
  return {r->status, r->body};
}

}  // namespace cfo::it
