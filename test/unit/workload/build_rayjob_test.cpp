// spec.job -> RayJob: metadata, spec field by field, the JSON shape of RayJob::to_json, and the upstream RayJob
// schema and rules (KubeRay, Kueue) on the result.
#include <gtest/gtest.h>

#include "core/yaml.hpp"
#include "parse_test_util.hpp"
#include "validation/validator.hpp"
#include "workload/build_raycluster.hpp"
#include "workload/build_rayjob.hpp"
#include "workload/kueue_labels.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
std::string s(const json::Value& v) {
  return v.IsString() ? v.GetString() : "<" + std::string(json::type_name(v)) + ">";
}

// Parses a workload (must be valid) whose spec is the YAML `spec`.
Workload parsed(const std::string& spec, const std::string& name = "train") {
  auto p = parse_spec(spec, name);
  EXPECT_TRUE(p.ok()) << dump(p.errors);
  EXPECT_TRUE(p.workload.spec.job.has_value());
  return p.workload;
}

// The Kueue labels of a workload with no namespace default queue.
std::map<std::string, std::string> queue_labels(const Workload& w) {
  return kueue_labels(select_local_queue(w.spec.queue, std::nullopt), w.spec.queue);
}

json::Document build(const Workload& w) { return build_ray_job(w, queue_labels(w)).to_json(); }

// Names of the members of an object, in order.
std::vector<std::string> keys(const json::Value& obj) {
  std::vector<std::string> out;
  for (const auto& m : obj.GetObject()) out.emplace_back(m.name.GetString());
  return out;
}

constexpr const char* kNewCluster =
    "{labels: {team: ml}, annotations: {owner: alice}, queue: {localQueue: team-q, priorityClass: high},"
    " workerGroups: [{name: small, replicas: 2}],"
    " job: {entrypoint: python train.py, runtimeEnvYAML: \"pip: [numpy]\\nenv_vars:\\n  A: b\\n\","
    " ttlSecondsAfterFinished: 120, activeDeadlineSeconds: 3600}}";
constexpr const char* kExistingCluster =
    "{labels: {team: ml}, job: {entrypoint: python eval.py, clusterSelector: {ray.io/cluster: shared}}}";
}  // namespace

TEST(BuildRayJob, MetadataLabelsAnnotationsAndOwner) {
  Workload w = parsed(kNewCluster);
  json::Document job = build(w);
  EXPECT_EQ(s(at(job, {"apiVersion"})), "ray.io/v1");
  EXPECT_EQ(s(at(job, {"kind"})), "RayJob");
  EXPECT_EQ(s(at(job, {"metadata", "name"})), "train");
  EXPECT_EQ(s(at(job, {"metadata", "namespace"})), "team-a");

  const auto& labels = at(job, {"metadata", "labels"});
  EXPECT_EQ(labels.MemberCount(), 4u) << json::dump(labels);
  EXPECT_EQ(s(at(labels, {"codeflare.dev/workload"})), "train");
  EXPECT_EQ(s(at(labels, {"team"})), "ml");
  EXPECT_EQ(s(at(labels, {"kueue.x-k8s.io/queue-name"})), "team-q");
  EXPECT_EQ(s(at(labels, {"kueue.x-k8s.io/priority-class"})), "high");
  // The RayCluster's own labels are KubeRay's to set on the cluster it creates, not ours on the RayJob.
  EXPECT_FALSE(json::find(labels, "ray.io/cluster"));

  const auto& annotations = at(job, {"metadata", "annotations"});
  EXPECT_EQ(annotations.MemberCount(), 1u) << json::dump(annotations);
  EXPECT_EQ(s(at(annotations, {"owner"})), "alice");

  const auto& refs = at(job, {"metadata", "ownerReferences"});
  ASSERT_EQ(refs.Size(), 1u);
  EXPECT_EQ(s(at(refs, {0, "apiVersion"})), "codeflare.dev/v1alpha1");
  EXPECT_EQ(s(at(refs, {0, "kind"})), "CodeFlareWorkload");
  EXPECT_EQ(s(at(refs, {0, "name"})), "train");
  EXPECT_EQ(s(at(refs, {0, "uid"})), "uid-1");
  EXPECT_TRUE(at(refs, {0, "controller"}).GetBool());
  EXPECT_TRUE(at(refs, {0, "blockOwnerDeletion"}).GetBool());
}

TEST(BuildRayJob, KueueLabelsAreTheGivenOnes) {
  Workload w = parsed("{job: {entrypoint: x}}");
  json::Document none = build_ray_job(w, {}).to_json();
  EXPECT_EQ(keys(at(none, {"metadata", "labels"})), std::vector<std::string>{"codeflare.dev/workload"});
  EXPECT_FALSE(json::find(at(none, {"metadata"}), "annotations"));

  // A namespace default queue (as the lead's reconcile passes it) lands on the RayJob too.
  auto labels = kueue_labels(select_local_queue(w.spec.queue, std::string("default")), w.spec.queue);
  json::Document queued = build_ray_job(w, labels).to_json();
  EXPECT_EQ(s(at(queued, {"metadata", "labels", "kueue.x-k8s.io/queue-name"})), "default");
}

TEST(BuildRayJob, ElasticJobAnnotation) {
  Workload w = parsed("{annotations: {owner: alice}, job: {entrypoint: x}}");
  w.spec.autoscaling.enabled = true;
  w.spec.autoscaling.elastic_job = true;
  json::Document elastic = build(w);
  const auto& annotations = at(elastic, {"metadata", "annotations"});
  EXPECT_EQ(annotations.MemberCount(), 2u) << json::dump(annotations);
  EXPECT_EQ(s(at(annotations, {"kueue.x-k8s.io/elastic-job"})), "true");
  EXPECT_EQ(s(at(annotations, {"owner"})), "alice");

  w.spec.autoscaling.elastic_job = false;  // autoscaling alone does not make an elastic job
  json::Document plain = build(w);
  EXPECT_FALSE(json::find(at(plain, {"metadata", "annotations"}), "kueue.x-k8s.io/elastic-job"));
  w.spec.autoscaling.enabled = false;  // nor does elasticJob without autoscaling (parse warns that it is ignored)
  w.spec.autoscaling.elastic_job = true;
  json::Document ignored = build(w);
  EXPECT_FALSE(json::find(at(ignored, {"metadata", "annotations"}), "kueue.x-k8s.io/elastic-job"));
}

TEST(BuildRayJob, OfflineRenderHasNoOwnerReference) {
  Workload w = parsed("{job: {entrypoint: x}}");
  w.uid.clear();
  json::Document job = build(w);
  EXPECT_FALSE(json::find(at(job, {"metadata"}), "ownerReferences"));
}

TEST(BuildRayJob, NewClusterSpecFieldByField) {
  Workload w = parsed(kNewCluster);
  json::Document job = build(w);
  const auto& spec = at(job, {"spec"});
  EXPECT_EQ(keys(spec),
            (std::vector<std::string>{"entrypoint", "runtimeEnvYAML", "shutdownAfterJobFinishes",
                                      "ttlSecondsAfterFinished", "activeDeadlineSeconds", "rayClusterSpec"}));
  EXPECT_EQ(s(at(spec, {"entrypoint"})), "python train.py");
  EXPECT_EQ(s(at(spec, {"runtimeEnvYAML"})), "pip: [numpy]\nenv_vars:\n  A: b\n");
  EXPECT_TRUE(at(spec, {"shutdownAfterJobFinishes"}).GetBool());
  EXPECT_EQ(at(spec, {"ttlSecondsAfterFinished"}).GetInt(), 120);
  EXPECT_EQ(at(spec, {"activeDeadlineSeconds"}).GetInt(), 3600);

  // The embedded cluster is exactly what the RayCluster builder makes of the same workload.
  json::Document want(rapidjson::kObjectType);
  json::Value cluster = build_ray_cluster_spec(w).to_json(want.GetAllocator());
  EXPECT_EQ(json::dump(at(spec, {"rayClusterSpec"})), json::dump(cluster));
  EXPECT_EQ(s(at(spec, {"rayClusterSpec", "rayVersion"})), w.spec.ray_version);
  ASSERT_EQ(at(spec, {"rayClusterSpec", "workerGroupSpecs"}).Size(), 1u);
  EXPECT_EQ(s(at(spec, {"rayClusterSpec", "workerGroupSpecs", 0, "groupName"})), "small");
  EXPECT_EQ(at(spec, {"rayClusterSpec", "workerGroupSpecs", 0, "replicas"}).GetInt(), 2);
  EXPECT_TRUE(json::find(at(spec, {"rayClusterSpec"}), "headGroupSpec"));
}

TEST(BuildRayJob, MinimalNewClusterOmitsOptionalFields) {
  Workload w = parsed("{job: {entrypoint: x}}");
  json::Document job = build(w);
  const auto& spec = at(job, {"spec"});
  EXPECT_EQ(keys(spec), (std::vector<std::string>{"entrypoint", "shutdownAfterJobFinishes", "ttlSecondsAfterFinished",
                                                  "rayClusterSpec"}));
  EXPECT_TRUE(at(spec, {"shutdownAfterJobFinishes"}).GetBool());
  EXPECT_EQ(at(spec, {"ttlSecondsAfterFinished"}).GetInt(), 0);
}

TEST(BuildRayJob, ExistingClusterSpecFieldByField) {
  Workload w = parsed(kExistingCluster);
  json::Document job = build(w);
  const auto& spec = at(job, {"spec"});
  EXPECT_EQ(keys(spec), (std::vector<std::string>{"entrypoint", "shutdownAfterJobFinishes", "clusterSelector"}));
  EXPECT_EQ(s(at(spec, {"entrypoint"})), "python eval.py");
  EXPECT_FALSE(at(spec, {"shutdownAfterJobFinishes"}).GetBool());
  const auto& sel = at(spec, {"clusterSelector"});
  EXPECT_EQ(sel.MemberCount(), 1u);
  EXPECT_EQ(s(at(sel, {"ray.io/cluster"})), "shared");
  EXPECT_EQ(s(at(job, {"metadata", "labels", "team"})), "ml");
}

TEST(BuildRayJob, SuspendIsWrittenOnlyWhenTrue) {
  Workload w = parsed("{job: {entrypoint: x}}");
  json::Document running = build(w);
  EXPECT_FALSE(json::find(at(running, {"spec"}), "suspend"));  // Kueue owns the field
  w.spec.suspend = true;
  json::Document stopped = build(w);
  ASSERT_TRUE(json::find(at(stopped, {"spec"}), "suspend"));
  EXPECT_TRUE(at(stopped, {"spec", "suspend"}).GetBool());
}

TEST(RayJobJson, TtlOnlyWithShutdownAndOneClusterSource) {
  RayJob j;
  j.metadata.name = "j";
  j.entrypoint = "x";
  j.shutdown_after_job_finishes = false;
  j.ttl_seconds_after_finished = 30;  // meaningless without shutdown: not written
  j.cluster_selector = {{"ray.io/cluster", "c"}};
  json::Document d = j.to_json();
  EXPECT_FALSE(json::find(at(d, {"spec"}), "ttlSecondsAfterFinished"));
  EXPECT_FALSE(json::find(at(d, {"spec"}), "suspend"));
  EXPECT_FALSE(json::find(at(d, {"spec"}), "runtimeEnvYAML"));
  EXPECT_FALSE(json::find(at(d, {"spec"}), "activeDeadlineSeconds"));
  EXPECT_TRUE(json::find(at(d, {"spec"}), "clusterSelector"));

  j.ray_cluster_spec = RayClusterSpec{};  // both given: the new cluster wins
  json::Document both = j.to_json();
  EXPECT_TRUE(json::find(at(both, {"spec"}), "rayClusterSpec"));
  EXPECT_FALSE(json::find(at(both, {"spec"}), "clusterSelector"));

  j.ray_cluster_spec.reset();
  j.cluster_selector.clear();  // neither: nothing written (the RayJob validation reports ClusterSource)
  json::Document neither = j.to_json();
  EXPECT_FALSE(json::find(at(neither, {"spec"}), "rayClusterSpec"));
  EXPECT_FALSE(json::find(at(neither, {"spec"}), "clusterSelector"));

  // The allocator overload builds the same object.
  json::Document holder(rapidjson::kObjectType);
  EXPECT_EQ(json::dump(j.to_json(holder.GetAllocator())), json::dump(neither));
}

TEST(BuildRayJob, RoundTripsThroughYaml) {
  for (const char* spec : {kNewCluster, kExistingCluster}) {
    json::Document job = build(parsed(spec));
    auto back = yaml::to_json(yaml::from_json(job));
    ASSERT_TRUE(back.has_value()) << spec;
    EXPECT_EQ(json::dump((*back)[0]), json::dump(job)) << spec;
  }
}

TEST(BuildRayJob, NewClusterPassesTheUpstreamRayJobSchemaAndRules) {
  CFO_REQUIRE_SCHEMAS(schemas);
  for (const char* spec : {kNewCluster, "{job: {entrypoint: x}}",
                           "{workerGroups: [{name: a}, {name: b, replicas: 3}], job: {entrypoint: x, "
                           "shutdownAfterJobFinishes: false}}"}) {
    Workload w = parsed(spec);
    json::Document job = build(w);
    auto errs = validation::validate_object(schemas, job);
    EXPECT_FALSE(has_errors(errs)) << spec << "\n" << dump(errs);
  }
  // Suspended by the user, and elastic: still valid.
  Workload w = parsed(kNewCluster);
  w.spec.suspend = true;
  w.spec.autoscaling.elastic_job = true;
  json::Document job = build(w);
  auto errs = validation::validate_object(schemas, job);
  EXPECT_FALSE(has_errors(errs)) << dump(errs);
}

TEST(BuildRayJob, ExistingClusterPassesTheUpstreamRayJobSchemaAndRules) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Workload w = parsed(kExistingCluster);
  json::Document job = build(w);
  auto errs = validation::validate_object(schemas, job);
  EXPECT_FALSE(has_errors(errs)) << dump(errs);
}

TEST(BuildRayJob, TheValidationSeesWhatParseRefuses) {
  // Control: the combinations parse_job refuses are refused by the RayJob rules too, so the checks above can fail.
  CFO_REQUIRE_SCHEMAS(schemas);
  Workload w = parsed(kExistingCluster);
  w.spec.suspend = true;  // parse reports ClusterSelectorSuspend
  auto suspended = validation::validate_object(schemas, build(w));
  EXPECT_TRUE(finding(suspended, "spec.suspend")) << dump(suspended);

  Workload fresh = parsed("{job: {entrypoint: x}}");
  fresh.spec.job->shutdown_after_job_finishes = false;
  fresh.spec.suspend = true;  // parse reports SuspendNeedsShutdown
  auto no_shutdown = validation::validate_object(schemas, build(fresh));
  EXPECT_TRUE(has_errors(no_shutdown)) << dump(no_shutdown);

  Workload bad_env = parsed("{job: {entrypoint: x}}");
  bad_env.spec.job->runtime_env_yaml = "- a\n- b\n";  // parse reports RuntimeEnvYAML
  auto env = validation::validate_object(schemas, build(bad_env));
  EXPECT_TRUE(finding(env, "spec.runtimeEnvYAML")) << dump(env);
}
