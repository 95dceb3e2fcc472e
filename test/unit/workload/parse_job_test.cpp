// spec.job: parse_job's fields, defaults and rules, each with a failing and a passing case.
#include <gtest/gtest.h>

#include "parse_test_util.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
// Errors at spec.job or below (what parse_job reports about the job itself).
bool has_job_errors(const FieldErrors& errs) {
  for (const auto& e : errs)
    if (e.severity == Severity::Error && e.path.starts_with("spec.job")) return true;
  return false;
}

// The number of findings with `rule`.
std::size_t count_rule(const FieldErrors& errs, const std::string& rule) {
  std::size_t n = 0;
  for (const auto& e : errs) n += e.rule == rule;
  return n;
}

constexpr const char* kSelector = "clusterSelector: {ray.io/cluster: existing}";
}  // namespace

TEST(ParseJob, MinimalJobTakesTheDefaultsOfANewCluster) {
  auto p = parse_spec("{job: {entrypoint: python train.py}}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  ASSERT_TRUE(p.workload.spec.job.has_value());
  const JobSpec& j = *p.workload.spec.job;
  EXPECT_EQ(j.entrypoint, "python train.py");
  EXPECT_EQ(j.runtime_env_yaml, "");
  EXPECT_TRUE(j.shutdown_after_job_finishes);
  EXPECT_EQ(j.ttl_seconds_after_finished, 0);
  EXPECT_FALSE(j.active_deadline_seconds.has_value());
  EXPECT_TRUE(j.cluster_selector.empty());
}

TEST(ParseJob, NoJobLeavesItUnset) {
  auto p = parse_spec("{}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  EXPECT_FALSE(p.workload.spec.job.has_value());
}

TEST(ParseJob, EveryFieldIsRead) {
  auto p = parse_spec(
      "{job: {entrypoint: 'python -m train --epochs 3', runtimeEnvYAML: \"pip: [numpy]\\nenv_vars: {A: b}\\n\","
      " shutdownAfterJobFinishes: true, ttlSecondsAfterFinished: 300, activeDeadlineSeconds: 3600}}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  const JobSpec& j = *p.workload.spec.job;
  EXPECT_EQ(j.entrypoint, "python -m train --epochs 3");
  EXPECT_EQ(j.runtime_env_yaml, "pip: [numpy]\nenv_vars: {A: b}\n");  // passed through unchanged
  EXPECT_TRUE(j.shutdown_after_job_finishes);
  EXPECT_EQ(j.ttl_seconds_after_finished, 300);
  ASSERT_TRUE(j.active_deadline_seconds.has_value());
  EXPECT_EQ(*j.active_deadline_seconds, 3600);
}

TEST(ParseJob, JobMustBeAnObject) {
  auto p = parse_spec("{job: python train.py}");
  EXPECT_TRUE(finding(p.errors, "spec.job", "schema:type")) << dump(p.errors);
  EXPECT_FALSE(p.workload.spec.job.has_value());
}

TEST(ParseJob, EntrypointIsRequiredAndNotEmpty) {
  auto missing = parse_spec("{job: {runtimeEnvYAML: 'pip: [numpy]'}}");
  EXPECT_TRUE(finding(missing.errors, "spec.job.entrypoint", "schema:required")) << dump(missing.errors);
  auto empty = parse_spec("{job: {entrypoint: ''}}");
  EXPECT_TRUE(finding(empty.errors, "spec.job.entrypoint", "schema:minLength")) << dump(empty.errors);
  auto wrong_type = parse_spec("{job: {entrypoint: [python, train.py]}}");
  EXPECT_TRUE(finding(wrong_type.errors, "spec.job.entrypoint", "schema:type")) << dump(wrong_type.errors);
}

TEST(ParseJob, UnknownFieldsAreReported) {
  // KubeRay's name of the submitter's template is not ours (spec.job.submitter.template).
  auto p = parse_spec("{job: {entrypoint: x, submitterPodTemplate: {}, entryPoint: y}}");
  EXPECT_TRUE(finding(p.errors, "spec.job.submitterPodTemplate", "schema:unknownField")) << dump(p.errors);
  EXPECT_TRUE(finding(p.errors, "spec.job.entryPoint", "schema:unknownField")) << dump(p.errors);
  EXPECT_EQ(count_rule(p.errors, "schema:unknownField"), 2u) << dump(p.errors);
}

TEST(ParseJob, RuntimeEnvYAMLMustBeOneYamlMapping) {
  const std::string at = "spec.job.runtimeEnvYAML";
  auto broken = parse_spec("{job: {entrypoint: x, runtimeEnvYAML: 'pip: [numpy'}}");
  const FieldError* e = finding(broken.errors, at, "RuntimeEnvYAML");
  ASSERT_TRUE(e) << dump(broken.errors);
  EXPECT_NE(e->reason.find("not valid YAML"), std::string::npos) << e->reason;
  EXPECT_EQ(e->source, "kuberay:ValidateRayJobSpec");
  EXPECT_EQ(e->severity, Severity::Error);

  auto scalar = parse_spec("{job: {entrypoint: x, runtimeEnvYAML: 'just text'}}");
  e = finding(scalar.errors, at, "RuntimeEnvYAML");
  ASSERT_TRUE(e) << dump(scalar.errors);
  EXPECT_NE(e->reason.find("mapping"), std::string::npos) << e->reason;

  auto list = parse_spec("{job: {entrypoint: x, runtimeEnvYAML: \"- numpy\\n- pandas\\n\"}}");
  EXPECT_TRUE(finding(list.errors, at, "RuntimeEnvYAML")) << dump(list.errors);

  auto two_docs = parse_spec("{job: {entrypoint: x, runtimeEnvYAML: \"pip: [a]\\n---\\npip: [b]\\n\"}}");
  EXPECT_TRUE(finding(two_docs.errors, at, "RuntimeEnvYAML")) << dump(two_docs.errors);

  auto repeated_key = parse_spec("{job: {entrypoint: x, runtimeEnvYAML: \"pip: [a]\\npip: [b]\\n\"}}");
  EXPECT_TRUE(finding(repeated_key.errors, at, "RuntimeEnvYAML")) << dump(repeated_key.errors);

  auto not_a_string = parse_spec("{job: {entrypoint: x, runtimeEnvYAML: {pip: [numpy]}}}");
  EXPECT_TRUE(finding(not_a_string.errors, at, "schema:type")) << dump(not_a_string.errors);

  for (const char* good :
       {"'pip: [numpy]'", "\"working_dir: s3://bucket/code.zip\\nenv_vars:\\n  A: b\\n\"", "'# nothing yet'", "''"}) {
    auto p = parse_spec(std::string("{job: {entrypoint: x, runtimeEnvYAML: ") + good + "}}");
    EXPECT_TRUE(p.ok()) << good << "\n" << dump(p.errors);
  }
}

TEST(ParseJob, TtlSecondsAfterFinishedIsNotNegative) {
  auto p = parse_spec("{job: {entrypoint: x, ttlSecondsAfterFinished: -1}}");
  EXPECT_TRUE(finding(p.errors, "spec.job.ttlSecondsAfterFinished", "schema:minimum")) << dump(p.errors);
  auto zero = parse_spec("{job: {entrypoint: x, ttlSecondsAfterFinished: 0}}");
  EXPECT_TRUE(zero.ok()) << dump(zero.errors);
}

TEST(ParseJob, PositiveTtlNeedsShutdownAfterJobFinishes) {
  auto p = parse_spec("{job: {entrypoint: x, shutdownAfterJobFinishes: false, ttlSecondsAfterFinished: 60}}");
  const FieldError* e = finding(p.errors, "spec.job.ttlSecondsAfterFinished", "TTLSecondsAfterFinished");
  ASSERT_TRUE(e) << dump(p.errors);
  EXPECT_EQ(e->source, "kuberay:ValidateRayJobSpec");

  auto with_shutdown =
      parse_spec("{job: {entrypoint: x, shutdownAfterJobFinishes: true, ttlSecondsAfterFinished: 60}}");
  EXPECT_TRUE(with_shutdown.ok()) << dump(with_shutdown.errors);
  auto by_default = parse_spec("{job: {entrypoint: x, ttlSecondsAfterFinished: 60}}");
  EXPECT_TRUE(by_default.ok()) << dump(by_default.errors);
  EXPECT_EQ(by_default.workload.spec.job->ttl_seconds_after_finished, 60);
  auto no_ttl = parse_spec("{job: {entrypoint: x, shutdownAfterJobFinishes: false, ttlSecondsAfterFinished: 0}}");
  EXPECT_TRUE(no_ttl.ok()) << dump(no_ttl.errors);

  // With clusterSelector shutdown defaults to false, so a TTL is refused too (codeflare-sdk: ttl must be 0).
  auto selector = parse_spec(std::string("{job: {entrypoint: x, ttlSecondsAfterFinished: 60, ") + kSelector + "}}");
  EXPECT_TRUE(finding(selector.errors, "spec.job.ttlSecondsAfterFinished", "TTLSecondsAfterFinished"))
      << dump(selector.errors);
}

TEST(ParseJob, ActiveDeadlineSecondsIsPositive) {
  for (const char* bad : {"0", "-5"}) {
    auto p = parse_spec(std::string("{job: {entrypoint: x, activeDeadlineSeconds: ") + bad + "}}");
    EXPECT_TRUE(finding(p.errors, "spec.job.activeDeadlineSeconds", "schema:minimum")) << bad << dump(p.errors);
  }
  auto too_big = parse_spec("{job: {entrypoint: x, activeDeadlineSeconds: 4294967296}}");
  EXPECT_TRUE(finding(too_big.errors, "spec.job.activeDeadlineSeconds", "schema:format")) << dump(too_big.errors);
  auto one = parse_spec("{job: {entrypoint: x, activeDeadlineSeconds: 1}}");
  ASSERT_TRUE(one.ok()) << dump(one.errors);
  EXPECT_EQ(one.workload.spec.job->active_deadline_seconds, 1);
}

TEST(ParseJob, ShutdownDefaultsFollowTheClusterSource) {
  auto fresh = parse_spec("{job: {entrypoint: x}}");
  ASSERT_TRUE(fresh.ok()) << dump(fresh.errors);
  EXPECT_TRUE(fresh.workload.spec.job->shutdown_after_job_finishes);

  auto kept = parse_spec("{job: {entrypoint: x, shutdownAfterJobFinishes: false}}");
  ASSERT_TRUE(kept.ok()) << dump(kept.errors);
  EXPECT_FALSE(kept.workload.spec.job->shutdown_after_job_finishes);

  auto existing = parse_spec(std::string("{job: {entrypoint: x, ") + kSelector + "}}");
  ASSERT_TRUE(existing.ok()) << dump(existing.errors);
  EXPECT_FALSE(existing.workload.spec.job->shutdown_after_job_finishes);
  EXPECT_EQ(existing.workload.spec.job->cluster_selector,
            (std::map<std::string, std::string>{{"ray.io/cluster", "existing"}}));

  auto not_bool = parse_spec("{job: {entrypoint: x, shutdownAfterJobFinishes: 'yes'}}");
  EXPECT_TRUE(finding(not_bool.errors, "spec.job.shutdownAfterJobFinishes", "schema:type")) << dump(not_bool.errors);
}

TEST(ParseJob, ClusterSelectorNamesTheClusterUnderRayIoCluster) {
  const std::string at = "spec.job.clusterSelector[ray.io/cluster]";
  for (const char* bad : {"{app: training}", "{}", "{ray.io/cluster: ''}", "{ray.io/cluster: Existing_Cluster}"}) {
    auto p = parse_spec(std::string("{job: {entrypoint: x, clusterSelector: ") + bad + "}}");
    const FieldError* e = finding(p.errors, at, "ClusterSelector");
    ASSERT_TRUE(e) << bad << "\n" << dump(p.errors);
    EXPECT_EQ(e->source, "kuberay:ValidateRayJobSpec");
  }
  // A value of the wrong type is a type error, reported once.
  auto number = parse_spec("{job: {entrypoint: x, clusterSelector: {ray.io/cluster: 5}}}");
  EXPECT_TRUE(finding(number.errors, at, "schema:type")) << dump(number.errors);
  EXPECT_FALSE(finding(number.errors, at, "ClusterSelector")) << dump(number.errors);
  auto not_a_map = parse_spec("{job: {entrypoint: x, clusterSelector: existing}}");
  EXPECT_TRUE(finding(not_a_map.errors, "spec.job.clusterSelector", "schema:type")) << dump(not_a_map.errors);

  // Extra selector labels are kept.
  auto good = parse_spec("{job: {entrypoint: x, clusterSelector: {ray.io/cluster: shared-cluster, team: ml}}}");
  ASSERT_TRUE(good.ok()) << dump(good.errors);
  EXPECT_EQ(good.workload.spec.job->cluster_selector,
            (std::map<std::string, std::string>{{"ray.io/cluster", "shared-cluster"}, {"team", "ml"}}));
}

TEST(ParseJob, ClusterShapingFieldsAreRefusedWithAnExistingCluster) {
  const std::vector<std::pair<std::string, std::string>> fields = {
      {"head", "{resources: {requests: {cpu: 1}}}"},
      {"workerGroups", "[{name: small, replicas: 1}]"},
      {"autoscaling", "{enabled: false}"},
      {"gcsFaultTolerance", "{redisAddress: 'redis:6379'}"},
      {"extendedResourceMapping", "{example.com/fpga: FPGA}"},
      {"overwriteDefaultResourceMapping", "false"},
      {"image", "quay.io/rayproject/ray:2.52.1"},
      {"imagePullSecrets", "[{name: pull}]"},
      {"env", "[{name: A, value: b}]"},
      {"volumes", "[{name: data, emptyDir: {}}]"},
      {"volumeMounts", "[{name: data, mountPath: /data}]"},
      {"odhTrustedCABundle", "false"},
      {"usageStats", "false"},
  };
  std::string all;
  for (const auto& [field, value] : fields) {
    const std::string path = "spec." + field;
    auto p = parse_spec("{" + field + ": " + value + ", job: {entrypoint: x, " + kSelector + "}}");
    const FieldError* e = finding(p.errors, path, "ExistingClusterFields");
    ASSERT_TRUE(e) << field << "\n" << dump(p.errors);
    EXPECT_EQ(e->severity, Severity::Error);
    EXPECT_EQ(count_rule(p.errors, "ExistingClusterFields"), 1u) << field << "\n" << dump(p.errors);
    // The same field with a new cluster is no ExistingClusterFields finding.
    auto fresh = parse_spec("{" + field + ": " + value + ", job: {entrypoint: x}}");
    EXPECT_FALSE(finding(fresh.errors, path, "ExistingClusterFields")) << field << "\n" << dump(fresh.errors);
    all += field + ": " + value + ", ";
  }
  // Each field given is its own finding.
  auto every = parse_spec("{" + all + "job: {entrypoint: x, " + kSelector + "}}");
  EXPECT_EQ(count_rule(every.errors, "ExistingClusterFields"), fields.size()) << dump(every.errors);

  // Fields of the RayJob itself (labels, annotations) and rayVersion are fine with an existing cluster.
  auto own =
      parse_spec(std::string("{labels: {team: ml}, annotations: {note: x}, job: {entrypoint: x, ") + kSelector + "}}");
  EXPECT_TRUE(own.ok()) << dump(own.errors);
}

TEST(ParseJob, ExistingClusterCannotBeSuspended) {
  auto p = parse_spec(std::string("{suspend: true, job: {entrypoint: x, ") + kSelector + "}}");
  const FieldError* e = finding(p.errors, "spec.suspend", "ClusterSelectorSuspend");
  ASSERT_TRUE(e) << dump(p.errors);
  EXPECT_EQ(e->source, "kuberay:ValidateRayJobSpec");
  // The selector explains it: no second finding about shutdownAfterJobFinishes.
  EXPECT_EQ(count_rule(p.errors, "SuspendNeedsShutdown"), 0u) << dump(p.errors);

  auto not_suspended = parse_spec(std::string("{suspend: false, job: {entrypoint: x, ") + kSelector + "}}");
  EXPECT_FALSE(finding(not_suspended.errors, "spec.suspend", "ClusterSelectorSuspend")) << dump(not_suspended.errors);
  EXPECT_FALSE(has_job_errors(not_suspended.errors)) << dump(not_suspended.errors);
}

TEST(ParseJob, ExistingClusterIsNotShutDown) {
  auto p = parse_spec(std::string("{job: {entrypoint: x, shutdownAfterJobFinishes: true, ") + kSelector + "}}");
  EXPECT_TRUE(finding(p.errors, "spec.job.shutdownAfterJobFinishes", "ClusterSelectorShutdown")) << dump(p.errors);
  auto explicit_false =
      parse_spec(std::string("{job: {entrypoint: x, shutdownAfterJobFinishes: false, ") + kSelector + "}}");
  EXPECT_TRUE(explicit_false.ok()) << dump(explicit_false.errors);
  EXPECT_FALSE(explicit_false.workload.spec.job->shutdown_after_job_finishes);
}

TEST(ParseJob, SuspendNeedsShutdownAfterJobFinishes) {
  auto p = parse_spec("{suspend: true, job: {entrypoint: x, shutdownAfterJobFinishes: false}}");
  const FieldError* e = finding(p.errors, "spec.job.shutdownAfterJobFinishes", "SuspendNeedsShutdown");
  ASSERT_TRUE(e) << dump(p.errors);
  EXPECT_EQ(e->source, "kuberay:ValidateRayJobSpec");

  for (const char* ok : {"{suspend: true, job: {entrypoint: x}}",
                         "{suspend: true, job: {entrypoint: x, shutdownAfterJobFinishes: true}}",
                         "{suspend: false, job: {entrypoint: x, shutdownAfterJobFinishes: false}}"}) {
    auto q = parse_spec(ok);
    EXPECT_EQ(count_rule(q.errors, "SuspendNeedsShutdown"), 0u) << ok << "\n" << dump(q.errors);
    EXPECT_FALSE(has_job_errors(q.errors)) << ok << "\n" << dump(q.errors);
  }
}

TEST(ParseJob, JobIsNeverWrappedInAnAppWrapper) {
  auto p = parse_spec("{appWrapper: true, job: {entrypoint: x}}");
  const FieldError* e = finding(p.errors, "spec.appWrapper", "JobInAppWrapper");
  ASSERT_TRUE(e) << dump(p.errors);
  EXPECT_EQ(e->severity, Severity::Error);
  auto unwrapped = parse_spec("{appWrapper: false, job: {entrypoint: x}}");
  EXPECT_TRUE(unwrapped.ok()) << dump(unwrapped.errors);
  auto wrapped_cluster = parse_spec("{appWrapper: true}");
  EXPECT_FALSE(finding(wrapped_cluster.errors, "spec.appWrapper", "JobInAppWrapper")) << dump(wrapped_cluster.errors);
}

TEST(ParseJob, FindingsAreOneLineWithASource) {
  auto p = parse_spec(
      "{appWrapper: true, suspend: true, job: {entrypoint: '', runtimeEnvYAML: "
      "'a: [', shutdownAfterJobFinishes: false, ttlSecondsAfterFinished: 5, activeDeadlineSeconds: 0, bogus: 1}}");
  ASSERT_FALSE(p.ok());
  for (const char* rule : {"schema:minLength", "RuntimeEnvYAML", "TTLSecondsAfterFinished", "schema:minimum",
                           "SuspendNeedsShutdown", "JobInAppWrapper", "schema:unknownField"})
    EXPECT_GE(count_rule(p.errors, rule), 1u) << rule << "\n" << dump(p.errors);
  for (const auto& e : p.errors) {
    EXPECT_FALSE(e.reason.empty()) << e.path;
    EXPECT_EQ(e.reason.find('\n'), std::string::npos) << e.path << ": " << e.reason;
    EXPECT_FALSE(e.source.empty()) << e.path;
  }
}

TEST(ParseJob, RayJobNamesAreShorterThanClusterNames) {
  std::string name47(47, 'a'), name48(48, 'a');
  auto ok = parse_spec("{job: {entrypoint: x}}", name47);
  EXPECT_FALSE(finding(ok.errors, "metadata.name", "MaxRayJobNameLength")) << dump(ok.errors);
  auto too_long = parse_spec("{job: {entrypoint: x}}", name48);
  EXPECT_TRUE(finding(too_long.errors, "metadata.name", "MaxRayJobNameLength")) << dump(too_long.errors);
  auto cluster = parse_spec("{}", name48);  // a RayCluster may have 53
  EXPECT_FALSE(finding(cluster.errors, "metadata.name", "MaxRayJobNameLength"));
}
