// End-to-end tests of `codeflare-operator run` against a real kube-apiserver and etcd (the ctest fixture
// control_plane starts them). Each test works in a namespace of its own; the operator runs as a child process.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <thread>

#include "client/kubeconfig.hpp"
#include "client/rest_client.hpp"
#include "core/json.hpp"
#include "core/yaml.hpp"

using namespace cfo;
using client::ResourceType;

namespace {

const ResourceType kWorkloads{"codeflare.dev", "v1alpha1", "codeflareworkloads", true};
const ResourceType kRayClusters{"ray.io", "v1", "rayclusters", true};
const ResourceType kAppWrappers{"workload.codeflare.dev", "v1beta2", "appwrappers", true};
const ResourceType kLocalQueues{"kueue.x-k8s.io", "v1beta1", "localqueues", true};
const ResourceType kNamespaces{"", "v1", "namespaces", false};

std::unique_ptr<client::RestClient> g_client;
pid_t g_operator = -1;
std::string g_log_path;

// Polls `pred` every 200 ms until it is true or `timeout` passes.
bool eventually(const std::function<bool()>& pred, std::chrono::seconds timeout = std::chrono::seconds(30)) {
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

std::string condition_status(const json::Value& obj, const std::string& type, std::string* message = nullptr) {
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

// Applies a workload; the test fails (and the caller should stop) if the apiserver refuses it.
void apply_workload(const std::string& ns, const std::string& yaml_text) {
  auto body = from_yaml(yaml_text);
  std::string name = body["metadata"]["name"].GetString();
  client::WriteOptions wo;
  wo.field_manager = "integration-test";
  auto r = g_client->apply(kWorkloads.object_path(ns, name), body, wo);
  ASSERT_TRUE(r.has_value()) << r.error().message;
}

std::string cpu_workload(const std::string& name, int replicas, const std::string& extra = "") {
  return "apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata:\n  name: " + name +
         "\nspec:\n  workerGroups:\n  - name: workers\n    replicas: " + std::to_string(replicas) +
         "\n    resources:\n      requests: {cpu: \"1\", memory: 2Gi}\n      limits: {cpu: \"1\", memory: 2Gi}\n" +
         extra;
}

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
      execl(bin, bin, "run", "--kubeconfig", kc, "--log-level", "debug", static_cast<char*>(nullptr));
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

TEST(Operator, CpuWorkloadYieldsOwnedRayClusterAndValidTrue) {
  const std::string ns = unique_namespace("cpu");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("demo", 2)));
  std::optional<json::Document> rc;
  ASSERT_TRUE(eventually([&] { return (rc = get(kRayClusters, ns, "demo")).has_value(); })) << operator_log();
  const json::Value& meta = (*rc)["metadata"];
  EXPECT_EQ(json::get_string(meta["labels"], "ray.io/cluster"), "demo");
  const json::Value* owners = json::find(meta, "ownerReferences");
  ASSERT_TRUE(owners && owners->IsArray() && owners->Size() == 1);
  EXPECT_EQ(json::get_string((*owners)[0], "kind"), "CodeFlareWorkload");
  EXPECT_TRUE((*owners)[0]["controller"].GetBool());
  auto wl = get(kWorkloads, ns, "demo");
  ASSERT_TRUE(wl);
  EXPECT_EQ(json::get_string((*owners)[0], "uid"), json::get_string((*wl)["metadata"], "uid"));
  const json::Value& worker = (*rc)["spec"]["workerGroupSpecs"][0];
  EXPECT_EQ(worker["replicas"].GetInt(), 2);
  const json::Value& limits = worker["template"]["spec"]["containers"][0]["resources"]["limits"];
  EXPECT_EQ(json::get_string(limits, "memory"), "2Gi");
  ASSERT_TRUE(eventually([&] {
    auto w = get(kWorkloads, ns, "demo");
    return w && condition_status(*w, "Valid") == "True" &&
           json::get_int((*w)["status"], "observedGeneration") == json::get_int((*w)["metadata"], "generation");
  })) << operator_log();
}

TEST(Operator, AppWrapperHoldsRayClusterAndCarriesQueueLabel) {
  const std::string ns = unique_namespace("aw");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(
      apply_workload(ns, cpu_workload("wrapped", 1, "  appWrapper: true\n  queue:\n    localQueue: team-queue\n")));
  std::optional<json::Document> aw;
  ASSERT_TRUE(eventually([&] { return (aw = get(kAppWrappers, ns, "wrapped")).has_value(); })) << operator_log();
  EXPECT_EQ(json::get_string((*aw)["metadata"]["labels"], "kueue.x-k8s.io/queue-name"), "team-queue");
  const json::Value& tmpl = (*aw)["spec"]["components"][0]["template"];
  EXPECT_EQ(json::get_string(tmpl, "kind"), "RayCluster");
  const json::Value* inner_labels = json::find_path(tmpl, "metadata.labels");
  ASSERT_TRUE(inner_labels);
  EXPECT_FALSE(json::find(*inner_labels, "kueue.x-k8s.io/queue-name")) << "the wrapped RayCluster must not be queued";
  EXPECT_FALSE(get(kRayClusters, ns, "wrapped").has_value()) << "no bare RayCluster when wrapped";
}

TEST(Operator, InvalidWorkloadGetsValidFalseNamingTheFieldAndNoChild) {
  const std::string ns = unique_namespace("bad");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(
      apply_workload(ns,
                     "apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata:\n  name: broken\nspec:\n"
                     "  workerGroups:\n  - name: workers\n    replicas: 1\n    resources:\n"
                     "      requests: {cpu: \"1\", memory: 4Gi}\n      limits: {cpu: \"1\", memory: 2Gi}\n"));
  std::string message;
  ASSERT_TRUE(eventually([&] {
    auto w = get(kWorkloads, ns, "broken");
    return w && condition_status(*w, "Valid", &message) == "False";
  })) << operator_log();
  // The apiserver accepts this spec (each quantity is well formed); only the operator knows that a request above its
  // limit makes every worker pod fail at creation.
  EXPECT_NE(message.find("spec.workerGroups[0].resources.requests.memory"), std::string::npos) << message;
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_FALSE(get(kRayClusters, ns, "broken").has_value());
  EXPECT_FALSE(get(kAppWrappers, ns, "broken").has_value());
}

TEST(Operator, EditingReplicasUpdatesTheRayCluster) {
  const std::string ns = unique_namespace("edit");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("scale", 1)));
  ASSERT_TRUE(eventually([&] { return get(kRayClusters, ns, "scale").has_value(); })) << operator_log();
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("scale", 3)));
  ASSERT_TRUE(eventually([&] {
    auto rc = get(kRayClusters, ns, "scale");
    return rc && (*rc)["spec"]["workerGroupSpecs"][0]["replicas"].GetInt() == 3;
  })) << operator_log();
}

TEST(Operator, DeletedChildIsRecreated) {
  const std::string ns = unique_namespace("drift");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("phoenix", 1)));
  std::optional<json::Document> rc;
  ASSERT_TRUE(eventually([&] { return (rc = get(kRayClusters, ns, "phoenix")).has_value(); })) << operator_log();
  std::string old_uid = json::get_string((*rc)["metadata"], "uid").value_or("");
  ASSERT_TRUE(g_client->remove(kRayClusters.object_path(ns, "phoenix")).has_value());
  ASSERT_TRUE(eventually([&] {
    auto again = get(kRayClusters, ns, "phoenix");
    return again && json::get_string((*again)["metadata"], "uid").value_or("") != old_uid;
  })) << operator_log();
}

TEST(Operator, DefaultLocalQueueIsPickedUp) {
  const std::string ns = unique_namespace("lq");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  auto lq = from_yaml(
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata:\n  name: team-default\n"
      "  annotations:\n    kueue.x-k8s.io/default-queue: \"true\"\nspec:\n  clusterQueue: cq\n");
  auto created = g_client->create(kLocalQueues.collection_path(ns), lq);
  ASSERT_TRUE(created.has_value()) << created.error().message;
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("queued", 1)));
  std::optional<json::Document> rc;
  ASSERT_TRUE(eventually([&] { return (rc = get(kRayClusters, ns, "queued")).has_value(); })) << operator_log();
  EXPECT_EQ(json::get_string((*rc)["metadata"]["labels"], "kueue.x-k8s.io/queue-name"), "team-default");
}

TEST(Operator, ForeignRayClusterIsNotTakenOver) {
  const std::string ns = unique_namespace("foreign");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  auto theirs = from_yaml(
      "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata:\n  name: taken\n  labels: {team: other}\nspec:\n"
      "  headGroupSpec:\n    template:\n      spec:\n        containers:\n        - {name: ray-head, image: ray}\n");
  auto created = g_client->create(kRayClusters.collection_path(ns), theirs);
  ASSERT_TRUE(created.has_value()) << created.error().message;
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("taken", 1)));
  std::string message;
  ASSERT_TRUE(eventually([&] {
    auto w = get(kWorkloads, ns, "taken");
    return w && condition_status(*w, "Ready", &message) == "False" &&
           message.find("not take it over") != std::string::npos;
  })) << operator_log();
  auto rc = get(kRayClusters, ns, "taken");
  ASSERT_TRUE(rc);
  EXPECT_FALSE(json::find((*rc)["metadata"], "ownerReferences")) << "the operator must not adopt it";
  EXPECT_FALSE(json::find((*rc)["spec"], "workerGroupSpecs")) << "the operator must not rewrite it";
}

TEST(Operator, SwitchingToAppWrapperRemovesTheBareRayCluster) {
  const std::string ns = unique_namespace("switch");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("flip", 1)));
  ASSERT_TRUE(eventually([&] { return get(kRayClusters, ns, "flip").has_value(); })) << operator_log();
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("flip", 1, "  appWrapper: true\n")));
  ASSERT_TRUE(eventually([&] { return get(kAppWrappers, ns, "flip").has_value() && !get(kRayClusters, ns, "flip"); }))
      << operator_log();
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("flip", 1, "  appWrapper: false\n")));
  ASSERT_TRUE(eventually([&] { return get(kRayClusters, ns, "flip").has_value() && !get(kAppWrappers, ns, "flip"); }))
      << operator_log();
}
