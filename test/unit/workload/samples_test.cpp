#include <gtest/gtest.h>

#include <set>

#include "core/yaml.hpp"
#include "parse_test_util.hpp"
#include "validation/validator.hpp"
#include "workload/reconcile.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
std::vector<std::string> workload_samples() {
  std::vector<std::string> out;
  for (const auto& f : yaml_files("config/samples"))
    if (f.find("kustomization") == std::string::npos) out.push_back(f);
  return out;
}

json::Document load(const std::string& path) {
  json::Document d = yaml_doc(read_text(path));
  set_identity(d);
  return d;
}
}  // namespace

TEST(Samples, KustomizationListsEverySample) {
  std::string k = read_text(source_dir() + "/config/samples/kustomization.yaml");
  auto samples = workload_samples();
  EXPECT_GE(samples.size(), 3u);
  for (const auto& f : samples) {
    std::string base = f.substr(f.rfind('/') + 1);
    EXPECT_NE(k.find("- " + base), std::string::npos) << base << " is not in kustomization.yaml";
  }
}

TEST(Samples, EveryOneParsesWithoutFindings) {
  for (const auto& f : workload_samples()) {
    json::Document d = load(f);
    EXPECT_EQ(json::get_string(d, "apiVersion"), "codeflare.dev/v1alpha1") << f;
    EXPECT_EQ(json::get_string(d, "kind"), "CodeFlareWorkload") << f;
    auto p = parse_workload(d);
    EXPECT_TRUE(p.errors.empty()) << f << ":\n" << dump(p.errors);
  }
}

TEST(Samples, EveryOneMatchesOurCrdSchema) {
  auto crd = yaml_doc(read_text(source_dir() + "/crds/codeflare.dev_codeflareworkloads.yaml"));
  validation::SchemaSet ours;
  auto added = ours.add_crd(crd);
  ASSERT_TRUE(added.has_value()) << added.error().message;
  ASSERT_TRUE(ours.has("codeflare.dev/v1alpha1", "CodeFlareWorkload"));
  for (const auto& f : workload_samples()) {
    json::Document d = yaml_doc(read_text(f));  // as a user applies it: metadata.name only
    auto errs = ours.validate(d);
    EXPECT_FALSE(has_errors(errs)) << f << ":\n" << dump(errs);
  }
}

TEST(Samples, EveryOneReconcilesToValidChildren) {
  CFO_REQUIRE_SCHEMAS(schemas);
  for (const auto& f : workload_samples()) {
    json::Document d = load(f);
    // As on a cluster where Kueue is served and the LocalQueue to be managed does not exist yet.
    ClusterFacts facts;
    facts.kueue_version = "v1beta2";
    const json::Value* cq = json::find_path(d, "spec.queue.clusterQueue");
    if (cq) facts.local_queue_presence = Presence::kAbsent;
    Outcome out = reconcile(d, Observed{}, facts, schemas, "2026-01-01T00:00:00Z");
    EXPECT_TRUE(out.valid) << f << ":\n" << dump(out.errors);
    EXPECT_FALSE(out.held) << f;
    ASSERT_EQ(out.desired.size(), cq ? 2u : 1u) << f;
    if (cq) {
      EXPECT_EQ(json::get_string(out.desired[0], "kind"), "LocalQueue") << f;
    }
    const json::Value& top = out.desired.back();
    bool wrapped = json::find_path(d, "spec.appWrapper") && json::find_path(d, "spec.appWrapper")->GetBool();
    bool job = json::find_path(d, "spec.job") != nullptr;
    EXPECT_EQ(json::get_string(top, "kind"), job ? "RayJob" : wrapped ? "AppWrapper" : "RayCluster") << f;
    for (const auto& obj : out.desired) {
      // Every generated object validates on its own and round-trips through YAML unchanged.
      auto errs = validation::validate_object(schemas, obj);
      EXPECT_FALSE(has_errors(errs)) << f << ":\n" << dump(errs);
      auto back = yaml::to_json(yaml::from_json(obj));
      ASSERT_TRUE(back.has_value()) << f;
      EXPECT_EQ(json::dump((*back)[0]), json::dump(obj)) << f;
    }
  }
}

// Dotted paths of every object key under `v` (array indices left out), e.g. "spec.workerGroups.resources".
static void key_paths(const json::Value& v, const std::string& prefix, std::set<std::string>& out) {
  if (v.IsObject()) {
    for (const auto& m : v.GetObject()) {
      std::string p = prefix.empty() ? m.name.GetString() : prefix + "." + m.name.GetString();
      out.insert(p);
      key_paths(m.value, p, out);
    }
  } else if (v.IsArray()) {
    for (const auto& e : v.GetArray()) key_paths(e, prefix, out);
  }
}

TEST(Samples, CoverEveryFieldGroup) {
  // config/samples/ shows each group of the API at least once.
  std::set<std::string> used;
  for (const auto& f : workload_samples()) key_paths(load(f), "", used);
  for (const char* field : {"spec.extendedResourceMapping",
                            "spec.head.rayStartParams",
                            "spec.head.resources",
                            "spec.head.tolerations",
                            "spec.workerGroups.tolerations",
                            "spec.workerGroups.minReplicas",
                            "spec.autoscaling.enabled",
                            "spec.autoscaling.elasticJob",
                            "spec.autoscaling.resources",
                            "spec.gcsFaultTolerance.redisAddress",
                            "spec.gcsFaultTolerance.redisPassword",
                            "spec.usageStats",
                            "spec.odhTrustedCABundle",
                            "spec.job.entrypoint",
                            "spec.job.runtimeEnvYAML",
                            "spec.job.clusterSelector",
                            "spec.job.activeDeadlineSeconds",
                            "spec.queue.localQueue",
                            "spec.queue.clusterQueue",
                            "spec.queue.priorityClass",
                            "spec.appWrapper",
                            "spec.imagePullSecrets",
                            "spec.env",
                            "spec.volumes",
                            "spec.volumeMounts",
                            "spec.labels",
                            "spec.annotations",
                            "spec.template",
                            "spec.head.template",
                            "spec.head.topology",
                            "spec.head.serviceType",
                            "spec.workerGroups.template",
                            "spec.workerGroups.env",
                            "spec.workerGroups.labels",
                            "spec.workerGroups.annotations",
                            "spec.workerGroups.topology",
                            "spec.workerGroups.idleTimeoutSeconds",
                            "spec.autoscaling.version",
                            "spec.authOptions",
                            "spec.upgradeStrategy",
                            "spec.queue.multiKueue",
                            "spec.job.submissionMode",
                            "spec.job.backoffLimit",
                            "spec.job.submitter.template",
                            "spec.job.submitter.backoffLimit",
                            "spec.job.deletionRules",
                            "spec.job.preRunningDeadlineSeconds",
                            "spec.job.entrypointNumCpus",
                            "spec.job.metadata",
                            "spec.job.jobId"})
    EXPECT_TRUE(used.count(field)) << "no sample sets " << field;
}

TEST(Samples, OurCrdRejectsTheInvalidInputsASchemaCanCatch) {
  // The CRD catches what a schema can (unknown fields, bad quantities, name grammars); parse_workload catches all.
  auto crd = yaml_doc(read_text(source_dir() + "/crds/codeflare.dev_codeflareworkloads.yaml"));
  validation::SchemaSet ours;
  ASSERT_TRUE(ours.add_crd(crd).has_value());
  for (const char* f :
       {"unknown-field.yaml", "bad-memory-quantity.yaml", "group-name-not-dns1123.yaml", "name-too-long.yaml"}) {
    json::Document d = yaml_doc(read_text(source_dir() + "/test/invalid/" + f));
    EXPECT_TRUE(has_errors(ours.validate(d))) << f;
  }
}
