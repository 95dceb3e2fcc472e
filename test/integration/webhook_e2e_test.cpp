// The admission webhooks on the real kube-apiserver of the ctest fixture: a WebhookServer on 127.0.0.1 with a
// self-made certificate, registered by URL with its CA bundle, and judged through kubectl (what a user sees) and
// the REST API. Each test labels a namespace of its own and its configurations select only that label, so that the
// other tests on the same apiserver never meet these webhooks.
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>

#include "core/yaml.hpp"
#include "validation/schema_set.hpp"
#include "webhook/validators.hpp"
#include "webhook/webhook_server.hpp"
#include "webhook_support.hpp"

using namespace cfo;
using namespace cfo::it;
using namespace cfo::webhook;
using namespace std::chrono_literals;

namespace {

const client::ResourceType kWorkloads{"codeflare.dev", "v1alpha1", "codeflareworkloads", true};
const client::ResourceType kRayClusters{"ray.io", "v1", "rayclusters", true};

std::shared_ptr<const validation::SchemaSet> schemas() {
  static std::shared_ptr<const validation::SchemaSet> s = []() -> std::shared_ptr<const validation::SchemaSet> {
    const char* dir = std::getenv("UPSTREAM_CRDS");
    if (!dir || !*dir) return nullptr;
    auto loaded = validation::SchemaSet::load_dir(std::string(dir) + "/upstream");
    if (!loaded) throw std::runtime_error(loaded.error().message);
    return std::make_shared<const validation::SchemaSet>(std::move(*loaded));
  }();
  return s;
}

// What the operator's caches would answer, read live: the LocalQueue the spec names (Kueue v1beta2).
Result<workload::ClusterFacts> live_facts(const json::Value& wl, json::Document& storage) {
  workload::ClusterFacts f;
  f.kueue_version = "v1beta2";
  const std::string lq = json::string_at(wl, "spec.queue.localQueue");
  if (lq.empty()) return f;
  const client::ResourceType lqs{"kueue.x-k8s.io", "v1beta2", "localqueues", true};
  auto got = api().get_json(lqs.object_path(json::string_at(wl, "metadata.namespace"), lq));
  if (got) {
    storage = std::move(*got);
    f.local_queue = &storage;
    f.local_queue_presence = workload::Presence::kPresent;
  } else if (got.error().is_not_found()) {
    f.local_queue_presence = workload::Presence::kAbsent;
  } else {
    return std::unexpected(got.error());
  }
  return f;
}

std::string header_value(const std::string& text, const std::string& key) {
  std::smatch m;
  if (std::regex_search(text, m, std::regex("^# " + key + ": *(.*)$", std::regex::multiline))) return m[1];
  return "";
}

const char* kValidWorkload = R"(apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata:
  name: NAME
spec:
  workerGroups:
    - name: workers
      replicas: 1
)";

std::string workload_yaml(const std::string& name, const std::string& extra = "") {
  std::string y = kValidWorkload;
  y.replace(y.find("NAME"), 4, name);
  return y + extra;
}

class WebhookE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!schemas()) GTEST_SKIP() << "UPSTREAM_CRDS is not set";
    label_ = unique_name("wh");
    ns_ = "webhook-" + label_;
    create_test_namespace(ns_, label_);
    start_server();
  }

  void TearDown() override {
    for (const auto& c : configs_) delete_webhook_configuration(c);
    if (server_) server_->stop();
  }

  void start_server() {
    WebhookServerOptions o;
    o.bind = runtime::BindAddress{"127.0.0.1", 0};
    o.cert_path = certs_.cert_path();
    o.key_path = certs_.key_path();
    server_ = std::make_unique<WebhookServer>(o);
    ASSERT_TRUE(
        server_->handle(validate_path(codeflare_workload_kind()), make_workload_handler(schemas(), live_facts)));
    for (const auto& k : guard_kinds())
      ASSERT_TRUE(server_->handle(validate_path(k), make_guard_handler(schemas(), {}, k)));
    ASSERT_TRUE(server_->start());
  }

  std::string url(const ServedKind& k) const {
    return "https://127.0.0.1:" + std::to_string(server_->port()) + validate_path(k);
  }

  // Registers the CodeFlareWorkload webhook for this test's namespace and waits until the apiserver calls it.
  void register_workload_webhook(const std::string& policy = "Fail") {
    const std::string name = "cfo-test-" + label_;
    const ServedKind& k = codeflare_workload_kind();
    create_webhook_configuration(name, {WebhookSpec{"vcodeflareworkload.codeflare.dev", url(k), certs_.ca.cert_pem,
                                                    k.group, k.version, k.resource, false, policy, label_}});
    configs_.push_back(name);
    // An input the CRD schema accepts (the apiserver runs its schema before the validating webhooks).
    auto bad = yaml::to_json(read_text("test/invalid/requests-exceed-limits.yaml"));
    ASSERT_TRUE(bad);
    ASSERT_TRUE(eventually([&] {
      auto [status, body] = dry_run_create(kWorkloads.collection_path(ns_), (*bad)[0]);
      return body.find("denied the request") != std::string::npos;
    })) << "the apiserver never called the webhook";
  }

  // Registers the guards (one configuration, every guarded kind; objects labelled cfo-webhook-test=<label>).
  void register_guards() {
    const std::string name = "cfo-test-guards-" + label_;
    std::vector<WebhookSpec> hooks;
    for (const auto& k : guard_kinds()) {
      const bool cluster = k.kind == "ClusterQueue" || k.kind == "ResourceFlavor" || k.kind == "WorkloadPriorityClass";
      std::string hook_name = "v" + k.resource.substr(0, k.resource.size() - 1) + ".guard.codeflare.dev";
      hooks.push_back(WebhookSpec{hook_name, url(k), certs_.ca.cert_pem, k.group, k.version, k.resource, cluster,
                                  "Ignore", label_});
      // The guards also judge objects of Kueue's older served version.
      if (k.group == "kueue.x-k8s.io") {
        hooks.back().version = "*";
      }
    }
    create_webhook_configuration(name, hooks);
    configs_.push_back(name);
  }

  // `obj` with this test's label (and namespace, for namespaced kinds), as JSON for kubectl -f -.
  std::string labelled(const json::Value& obj) const {
    json::Document d = json::clone(obj);
    auto& a = d.GetAllocator();
    if (!d.HasMember("metadata")) d.AddMember("metadata", json::Value(rapidjson::kObjectType), a);
    json::Value& meta = d["metadata"];
    if (!meta.HasMember("labels") || !meta["labels"].IsObject())
      json::set(meta, "labels", json::Value(rapidjson::kObjectType), a);
    json::set(meta["labels"], "cfo-webhook-test", json::str(label_, a), a);
    const std::string kind = json::get_string(d, "kind").value_or("");
    if (kind != "ClusterQueue" && kind != "ResourceFlavor" && kind != "WorkloadPriorityClass") {
      // An AppWrapper's components name their namespace too, and it must stay the AppWrapper's.
      const std::string before = json::string_at(d, "metadata.namespace");
      json::Value* spec = json::find(d, "spec");
      json::Value* comps = spec ? json::find(*spec, "components") : nullptr;
      if (comps && comps->IsArray() && !before.empty())
        for (auto& c : comps->GetArray()) {
          json::Value* t = json::find(c, "template");
          json::Value* m = t ? json::find(*t, "metadata") : nullptr;
          if (m && json::string_at(*m, "namespace") == before) json::set(*m, "namespace", json::str(ns_, a), a);
        }
      json::set(meta, "namespace", json::str(ns_, a), a);
    }
    return json::dump(d);
  }

  std::string label_, ns_;
  LoopbackCerts certs_;
  std::unique_ptr<WebhookServer> server_;
  std::vector<std::string> configs_;
};

}  // namespace

// Three layers refuse the invalid inputs, and kubectl names the field for each: kubectl's own client-side schema
// check (an unknown field: kube-apiserver 1.20 ignores ?fieldValidation, and would prune the field before admission),
// the apiserver's CRD schema (it runs before the validating webhooks; 1.20 writes list items without their index,
// and a duplicate list-map key at the item), and the webhook for everything else (the exact path, "reason [rule]").
TEST_F(WebhookE2E, InvalidWorkloadsAreRefusedByKubectlApplyWithTheirPath) {
  register_workload_webhook();
  int by_webhook = 0, by_schema = 0, by_kubectl = 0;
  for (const auto& file : yaml_files(source_dir() + "/test/invalid")) {
    const std::string text = read_text(file);
    const std::string path = header_value(text, "expect-path");
    CommandResult r = kubectl("apply -n " + ns_ + " -f " + file);
    EXPECT_NE(r.code, 0) << file << " was accepted:\n" << r.output;
    const std::string unindexed = std::regex_replace(path, std::regex("\\[[0-9]+\\]"), "");
    const std::string item = path.substr(0, path.rfind('.'));  // the list item or parent object
    const std::string field = path.substr(path.rfind('.') + 1);
    if (std::regex_search(r.output, std::regex(std::regex_replace(path, std::regex(R"([.\[\]])"), R"(\$&)") +
                                               ": .* \\[[A-Za-z0-9:]+\\]"))) {
      ++by_webhook;
    } else if (r.output.find(unindexed + ": Invalid value") != std::string::npos ||
               r.output.find(item + ": Duplicate value") != std::string::npos) {
      ++by_schema;
    } else if (r.output.find("ValidationError(CodeFlareWorkload." + item + "): unknown field \"" + field + "\"") !=
               std::string::npos) {
      ++by_kubectl;
    } else {
      ADD_FAILURE() << file << ": kubectl does not name " << path << ":\n" << r.output;
    }
  }
  std::cout << "test/invalid refused by: webhook=" << by_webhook << " apiserver_schema=" << by_schema
            << " kubectl_client_side=" << by_kubectl << "\n";
  EXPECT_GE(by_webhook, 9) << "every input the CRD schema lets through";
}

TEST_F(WebhookE2E, SamplesAreAcceptedAndServerDryRunAndDiffWork) {
  register_workload_webhook();
  for (const auto& file : yaml_files(source_dir() + "/config/samples")) {
    CommandResult dry = kubectl("apply --dry-run=server -n " + ns_ + " -f " + file);
    EXPECT_EQ(dry.code, 0) << file << ":\n" << dry.output;
    EXPECT_NE(dry.output.find("(server dry run)"), std::string::npos) << dry.output;
    CommandResult real = kubectl("apply -n " + ns_ + " -f " + file);
    EXPECT_EQ(real.code, 0) << file << ":\n" << real.output;
    // kubectl diff sends a server-side dry run too (sideEffects: None makes that possible); no change, exit 0.
    CommandResult diff = kubectl("diff -n " + ns_ + " -f " + file);
    EXPECT_EQ(diff.code, 0) << file << ":\n" << diff.output;
  }
}

TEST_F(WebhookE2E, WarningsArePrintedByKubectl) {
  register_workload_webhook();
  CommandResult r =
      kubectl("apply -n " + ns_ + " -f -",
              workload_yaml("old-image", "  rayVersion: \"2.52.1\"\n  image: quay.io/rayproject/ray:2.9.0\n"));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("Warning: spec.image: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[RayVersionMatchesImage]"), std::string::npos) << r.output;
  // A LocalQueue that does not exist holds the workload: admitted, with the reason.
  CommandResult held =
      kubectl("apply -n " + ns_ + " -f -", workload_yaml("held", "  queue:\n    localQueue: nowhere\n"));
  EXPECT_EQ(held.code, 0) << held.output;
  EXPECT_NE(held.output.find("Warning: spec.queue: "), std::string::npos) << held.output;
  EXPECT_NE(held.output.find("LocalQueue nowhere does not exist"), std::string::npos) << held.output;
}

TEST_F(WebhookE2E, UpdatesAreJudgedAndTheQueueOfARunningWorkloadStays) {
  register_workload_webhook();
  ASSERT_EQ(kubectl("apply -n " + ns_ + " -f -", workload_yaml("grow", "  queue:\n    localQueue: team-a\n")).code, 0);
  CommandResult bad =
      kubectl("apply -n " + ns_ + " -f -", workload_yaml("grow",
                                                         "  queue:\n    localQueue: team-a\n  head:\n    resources:\n"
                                                         "      requests: {memory: 6GG}\n"));
  EXPECT_NE(bad.code, 0) << bad.output;
  EXPECT_NE(bad.output.find("spec.head.resources.requests.memory"), std::string::npos) << bad.output;

  // The status the controller would have written for a running workload in LocalQueue team-a.
  auto status = json::parse(R"({"status": {"phase": "Running", "queue": "team-a", "rayClusterName": "grow",
                                           "observedGeneration": 1}})");
  auto patched = api().merge_patch(kWorkloads.object_path(ns_, "grow") + "/status", *status);
  ASSERT_TRUE(patched) << patched.error().message;
  CommandResult moved =
      kubectl("apply -n " + ns_ + " -f -", workload_yaml("grow", "  queue:\n    localQueue: team-b\n"));
  EXPECT_NE(moved.code, 0) << moved.output;
  EXPECT_NE(moved.output.find("spec.queue.localQueue: the workload runs in LocalQueue team-a"), std::string::npos)
      << moved.output;
  EXPECT_NE(moved.output.find("[QueueChangeWhileRunning]"), std::string::npos) << moved.output;
  // A metadata-only update (a finalizer, as the operator adds) is not judged.
  auto fin = json::parse(R"({"metadata": {"finalizers": ["codeflare.dev/test"]}})");
  auto with_fin = api().merge_patch(kWorkloads.object_path(ns_, "grow"), *fin);
  EXPECT_TRUE(with_fin) << with_fin.error().message;
  auto no_fin = json::parse(R"({"metadata": {"finalizers": null}})");
  EXPECT_TRUE(api().merge_patch(kWorkloads.object_path(ns_, "grow"), *no_fin));
}

TEST_F(WebhookE2E, ALongDenialReachesKubectlWhole) {
  register_workload_webhook();
  std::string groups = "  workerGroups:\n";
  for (int i = 0; i < 60; ++i)
    groups += "    - name: g" + std::to_string(i) + "\n      resources:\n        requests: {cpu: \"2\"}\n" +
              "        limits: {cpu: \"1\"}\n";
  std::string y = kValidWorkload;
  y.replace(y.find("NAME"), 4, "many");
  y = y.substr(0, y.find("  workerGroups:")) + groups;
  CommandResult r = kubectl("apply -n " + ns_ + " -f -", y);
  EXPECT_NE(r.code, 0);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m, std::regex("\\.\\.\\.: and ([0-9]+) more"))) << r.output;
  EXPECT_NE(r.output.find("spec.workerGroups[0].resources.requests.cpu: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("spec.workerGroups[1].resources.requests.cpu: "), std::string::npos) << r.output;
  std::cout << "a denial of 60+ findings: " << r.output.size() << " bytes printed by kubectl, " << m[1]
            << " findings counted, not listed\n";
}

TEST_F(WebhookE2E, GuardsRefusePublicBugCasesAndAdmitUpstreamSamples) {
  const char* shared = std::getenv("CFO_SHARED_DIR");
  if (!shared || !*shared) GTEST_SKIP() << "CFO_SHARED_DIR is not set";
  register_guards();
  auto invalid_rc = yaml::to_json(read_text(std::string(shared) + "/cases/public-bugs/rc-duplicate-groupname.yaml"));
  ASSERT_TRUE(invalid_rc);
  const std::string rc_json = labelled((*invalid_rc)[0]);
  ASSERT_TRUE(eventually([&] {
    return kubectl("apply --dry-run=server -f -", rc_json).output.find("spec.workerGroupSpecs[1].groupName") !=
           std::string::npos;
  })) << "the apiserver never called the guard";
  CommandResult rc = kubectl("apply -f -", rc_json);
  EXPECT_NE(rc.code, 0) << rc.output;
  EXPECT_NE(rc.output.find("spec.workerGroupSpecs[1].groupName"), std::string::npos) << rc.output;

  int refused = 0;
  for (const auto& file : yaml_files(std::string(shared) + "/cases/public-bugs")) {
    const std::string text = read_text(file);
    auto docs = yaml::to_json(text);
    ASSERT_TRUE(docs) << file;
    if (docs->size() != 1) continue;  // a closed set: the fault is a reference between objects
    CommandResult r = kubectl("apply --dry-run=server -f -", labelled((*docs)[0]));
    if (header_value(text, "expect") == "valid") {
      EXPECT_EQ(r.code, 0) << file << ":\n" << r.output;
    } else {
      EXPECT_NE(r.code, 0) << file << ":\n" << r.output;
      EXPECT_NE(r.output.find(header_value(text, "path")), std::string::npos) << file << ":\n" << r.output;
      ++refused;
    }
  }
  EXPECT_GE(refused, 6);

  int accepted = 0;
  for (const auto& file : yaml_files(std::string(shared) + "/samples/upstream")) {
    // codeflare-sdk's AppWrapper fixture holds the literal "${image}" as its Ray image, which the guard refuses
    // (ParseNormalizedNamed; the unit test GuardHandlers.UpstreamSamplesAreAdmitted checks that): an image fills it.
    std::string text = read_text(file);
    for (std::size_t at; (at = text.find("${image}")) != std::string::npos;)
      text.replace(at, std::string_view("${image}").size(), "quay.io/rayproject/ray:2.46.0");
    auto docs = yaml::to_json(text);
    ASSERT_TRUE(docs) << file;
    for (const auto& d : *docs) {
      const std::string kind = json::get_string(d, "kind").value_or("");
      if (kind.empty()) continue;
      // create, not apply: some samples use generateName.
      CommandResult r = kubectl("create --dry-run=server -f -", labelled(d));
      EXPECT_EQ(r.code, 0) << file << " " << kind << ":\n" << r.output;
      ++accepted;
    }
  }
  EXPECT_GE(accepted, 15);
  std::cout << "guards: public-bug cases refused=" << refused << ", upstream sample objects admitted=" << accepted
            << "\n";
}

TEST_F(WebhookE2E, FailurePolicyDecidesWhenTheServerIsDown) {
  register_workload_webhook("Fail");
  server_->stop();
  const std::string valid = workload_yaml("while-down");
  CommandResult refused = kubectl("apply --dry-run=server -n " + ns_ + " -f -", valid);
  EXPECT_NE(refused.code, 0) << refused.output;
  EXPECT_NE(refused.output.find("failed calling webhook"), std::string::npos) << refused.output;
  set_failure_policy(configs_.back(), "Ignore");
  EXPECT_TRUE(eventually([&] { return kubectl("apply --dry-run=server -n " + ns_ + " -f -", valid).code == 0; }))
      << "failurePolicy Ignore admits while the webhook is down";
  CommandResult admitted = kubectl("apply -n " + ns_ + " -f -", valid);
  EXPECT_EQ(admitted.code, 0) << admitted.output;
}
