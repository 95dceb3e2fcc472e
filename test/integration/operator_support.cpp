#include "operator_support.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <thread>

#include "client/kubeconfig.hpp"
#include "core/yaml.hpp"

namespace cfo::it {

const ResourceType kRayJobs{"ray.io", "v1", "rayjobs", true};
const ResourceType kWorkloads{"codeflare.dev", "v1alpha1", "codeflareworkloads", true};
const ResourceType kRayClusters{"ray.io", "v1", "rayclusters", true};
const ResourceType kAppWrappers{"workload.codeflare.dev", "v1beta2", "appwrappers", true};
const ResourceType kLocalQueues{"kueue.x-k8s.io", "v1beta1", "localqueues", true};
const ResourceType kNamespaces{"", "v1", "namespaces", false};

namespace {
std::unique_ptr<client::RestClient> g_client;
pid_t g_operator = -1;
std::string g_log_path;
}  // namespace

client::RestClient& api() { return *g_client; }

bool eventually(const std::function<bool()>& pred, std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return pred();
}

std::string operator_log() {
  std::ifstream in(g_log_path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  return s.size() > 4000 ? s.substr(s.size() - 4000) : s;
}

json::Document from_yaml(const std::string& text) {
  auto docs = yaml::to_json(text);
  EXPECT_TRUE(docs.has_value()) << (docs ? "" : docs.error().message);
  return std::move((*docs)[0]);
}

void patch_spec(const ResourceType& t, const std::string& ns, const std::string& name, const std::string& yaml) {
  client::WriteOptions wo;
  wo.field_manager = "someone-else";
  auto r = api().merge_patch(t.object_path(ns, name), from_yaml(yaml), wo);
  ASSERT_TRUE(r.has_value()) << r.error().message;
}

std::string unique_namespace(const std::string& prefix) {
  static std::mt19937 rng(std::random_device{}());
  return prefix + "-" + std::to_string(rng() % 100000);
}

void create_namespace(const std::string& ns) {
  auto body = from_yaml("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + ns + "\n");
  auto r = g_client->create(kNamespaces.collection_path(""), body);
  ASSERT_TRUE(r.has_value()) << r.error().message;
}

std::optional<json::Document> get(const ResourceType& t, const std::string& ns, const std::string& name) {
  auto r = g_client->get_json(t.object_path(ns, name));
  if (!r) return std::nullopt;
  return std::move(*r);
}

std::string condition_status(const json::Value& obj, const std::string& type, std::string* message) {
  const json::Value* conds = json::find_path(obj, "status.conditions");
  if (!conds || !conds->IsArray()) return "";
  for (const auto& c : conds->GetArray()) {
    if (json::get_string(c, "type") == type) {
      if (message) *message = json::get_string(c, "message").value_or("");
      return json::get_string(c, "status").value_or("");
    }
  }
  return "";
}

void apply_workload(const std::string& ns, const std::string& yaml_text) {
  auto body = from_yaml(yaml_text);
  std::string name = body["metadata"]["name"].GetString();
  client::WriteOptions wo;
  wo.field_manager = "integration-test";
  auto r = g_client->apply(kWorkloads.object_path(ns, name), body, wo);
  ASSERT_TRUE(r.has_value()) << r.error().message;
}

std::string cpu_workload(const std::string& name, int replicas, const std::string& extra) {
  return "apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata:\n  name: " + name +
         "\nspec:\n  workerGroups:\n  - name: workers\n    replicas: " + std::to_string(replicas) +
         "\n    resources:\n      requests: {cpu: \"1\", memory: 2Gi}\n      limits: {cpu: \"1\", memory: 2Gi}\n" +
         extra;
}

namespace {
class OperatorEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* kc = std::getenv("KUBECONFIG");
    const char* bin = std::getenv("CFO_OPERATOR_BIN");
    ASSERT_TRUE(kc && bin) << "KUBECONFIG and CFO_OPERATOR_BIN must be set (the ctest fixture sets them)";
    auto cfg = client::load_kubeconfig_file(kc);
    ASSERT_TRUE(cfg.has_value()) << cfg.error().message;
    g_client = std::make_unique<client::RestClient>(*cfg);
    g_log_path = std::string(kc) + ".operator-test.log";
    g_operator = fork();
    if (g_operator == 0) {
      FILE* log = std::freopen(g_log_path.c_str(), "w", stderr);
      (void)log;
      dup2(fileno(stderr), fileno(stdout));
      execl(bin, bin, "run", "--kubeconfig", kc, "--log-level", "debug", "--webhook-bind-address=0",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    ASSERT_GT(g_operator, 0);
  }
  void TearDown() override {
    if (g_operator > 0) {
      kill(g_operator, SIGTERM);
      int status = 0;
      for (int i = 0; i < 100 && waitpid(g_operator, &status, WNOHANG) == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (waitpid(g_operator, &status, WNOHANG) == 0) {
        ADD_FAILURE() << "operator did not stop within 10 s of SIGTERM";
        kill(g_operator, SIGKILL);
        waitpid(g_operator, &status, 0);
      } else {
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "operator exit status " << status;
      }
    }
  }
};

const auto* const g_env = ::testing::AddGlobalTestEnvironment(new OperatorEnvironment);
}  // namespace

}  // namespace cfo::it
