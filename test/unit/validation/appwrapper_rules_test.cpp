// rules/appwrapper_rules.cpp, and components validated as objects in their own right.
#include "test_support.hpp"

using namespace cfo;
using namespace cfo::test;
using validation::validate_object;

namespace {
using Edits = std::vector<std::pair<std::string, std::string>>;
FieldErrors aw(const validation::SchemaSet& s, Edits e) {
  return validate_object(s, patched(yaml1(appwrapper_yaml()), e));
}
const std::string kT = "spec.components[0].template";
const std::string kPodSets = "spec.components[0].podSets";

const char* kJobAppWrapper = R"(
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata: {name: job-aw, namespace: team-a}
spec:
  components:
    - template:
        apiVersion: batch/v1
        kind: Job
        metadata: {name: job}
        spec:
          parallelism: 2
          template:
            spec:
              restartPolicy: Never
              containers:
                - {name: main, image: busybox}
)";
}  // namespace

TEST(AppWrapperRules, ValidAppWrapperHasNoFindings) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = aw(schemas, {});
  EXPECT_TRUE(errs.empty()) << describe(errs);
  auto job = validate_object(schemas, yaml1(kJobAppWrapper));
  EXPECT_TRUE(job.empty()) << describe(job);
}

TEST(AppWrapperRules, WrappedRayClusterBadTypeIsReportedUnderTheComponent) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = aw(schemas, {{kT + ".spec.headGroupSpec.rayStartParams.num-cpus", "1"}});
  ASSERT_TRUE(has(errs, kT + ".spec.headGroupSpec.rayStartParams.num-cpus", "schema:type")) << describe(errs);
  EXPECT_EQ(matching(errs, kT + ".spec.headGroupSpec.rayStartParams.num-cpus", "schema:type")[0].source,
            "crd:ray.io/v1/RayCluster");
}

TEST(AppWrapperRules, WrappedComponentGetsKubeRayRules) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = aw(schemas, {{kT + ".metadata.name", "bad.name"}});
  EXPECT_TRUE(has(errs, kT + ".metadata.name", "DNS1035Name")) << describe(errs);
}

TEST(AppWrapperRules, UnknownFieldsOfAWrappedClusterWarnOutsidePodSpecsAndFailInside) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = aw(schemas, {{kT + ".spec.headGroupSpec.bogus", "1"},
                           {kT + ".spec.workerGroupSpecs[0].template.spec.containers[0].bogus", "1"}});
  EXPECT_TRUE(has(errs, kT + ".spec.headGroupSpec.bogus", "schema:unknownField", Severity::Warning)) << describe(errs);
  EXPECT_TRUE(has(errs, kT + ".spec.workerGroupSpecs[0].template.spec.containers[0].bogus", "schema:unknownField",
                  Severity::Error))
      << describe(errs);
}

TEST(AppWrapperRules, NonCrdComponentPodSpecIsDecodedStrictly) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = validate_object(
      schemas, patched(yaml1(kJobAppWrapper), {{kT + ".spec.template.spec.containers[0].imagee", "busybox"}}));
  EXPECT_TRUE(has(errs, kT + ".spec.template.spec.containers[0].imagee", "schema:unknownField")) << describe(errs);
}

TEST(AppWrapperRules, NestedAppWrapper) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = aw(schemas, {{kT,
                            "{apiVersion: workload.codeflare.dev/v1beta2, kind: AppWrapper, metadata: {name: x},"
                            " spec: {components: []}}"}});
  EXPECT_TRUE(has(errs, kT, "NestedAppWrapper")) << describe(errs);
}

TEST(AppWrapperRules, ComponentNamespace) {
  CFO_REQUIRE_SCHEMAS();
  EXPECT_EQ(error_count(aw(schemas, {{kT + ".metadata.namespace", "team-a"}})), 0u);
  auto errs = aw(schemas, {{kT + ".metadata.namespace", "team-b"}});
  EXPECT_TRUE(has(errs, kT + ".metadata.namespace", "ComponentNamespace")) << describe(errs);
}

TEST(AppWrapperRules, ComponentName) {
  CFO_REQUIRE_SCHEMAS();
  auto gen = aw(schemas, {{kT + ".metadata.name", "~delete"}, {kT + ".metadata.generateName", "demo-"}});
  EXPECT_TRUE(has(gen, kT + ".metadata.name", "ComponentName", Severity::Warning)) << describe(gen);
  auto none = aw(schemas, {{kT + ".metadata.name", "~delete"}});
  EXPECT_TRUE(has(none, kT + ".metadata.name", "NameRequired")) << describe(none);
}

TEST(AppWrapperRules, PodSetPath) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = aw(schemas, {{kPodSets, "[{path: template.spec.headGroupSpec.templat, replicas: 1}]"}});
  EXPECT_TRUE(has(errs, kPodSets + "[0].path", "PodSetPath")) << describe(errs);
}

TEST(AppWrapperRules, DeclaredPodSetsMatchInferred) {
  CFO_REQUIRE_SCHEMAS();
  auto ok = aw(schemas, {{kPodSets,
                          "[{path: template.spec.headGroupSpec.template, replicas: 1},"
                          " {path: 'template.spec.workerGroupSpecs[0].template', replicas: 2}]"}});
  EXPECT_EQ(error_count(ok), 0u) << describe(ok);
  auto count = aw(schemas, {{kPodSets, "[{path: template.spec.headGroupSpec.template}]"}});
  EXPECT_TRUE(has(count, kPodSets, "PodSetsMatchInferred")) << describe(count);
  auto replicas = aw(schemas, {{kPodSets,
                                "[{path: template.spec.headGroupSpec.template},"
                                " {path: 'template.spec.workerGroupSpecs[0].template', replicas: 3}]"}});
  EXPECT_TRUE(has(replicas, kPodSets + "[1].replicas", "PodSetsMatchInferred")) << describe(replicas);
}

TEST(AppWrapperRules, InferredReplicas) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = validate_object(schemas, patched(yaml1(R"(
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata: {name: pt, namespace: team-a}
spec:
  components:
    - template:
        apiVersion: kubeflow.org/v1
        kind: PyTorchJob
        metadata: {name: pt}
        spec:
          pytorchReplicaSpecs:
            Master:
              replicas: "1"
              template: {spec: {containers: [{name: pytorch, image: x}]}}
)"),
                                               {}));
  EXPECT_TRUE(has(errs, kT + ".spec.pytorchReplicaSpecs.Master.replicas", "InferredReplicas")) << describe(errs);
}

TEST(AppWrapperRules, PodSetCount) {
  CFO_REQUIRE_SCHEMAS();
  auto base = yaml1(appwrapper_yaml());
  const std::string group = json::dump(base["spec"]["components"][0]["template"]["spec"]["workerGroupSpecs"][0]);
  Edits edits;
  for (int i = 1; i < 8; ++i) {
    edits.push_back({kT + ".spec.workerGroupSpecs[" + std::to_string(i) + "]", group});
    edits.push_back({kT + ".spec.workerGroupSpecs[" + std::to_string(i) + "].groupName", "g" + std::to_string(i)});
  }
  auto errs = validate_object(schemas, patched(base, edits));
  EXPECT_TRUE(has(errs, "spec.components", "PodSetCount")) << describe(errs);
  auto empty = validate_object(schemas, yaml1(R"(
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata: {name: cm-aw, namespace: team-a}
spec:
  components:
    - template: {apiVersion: v1, kind: ConfigMap, metadata: {name: cm}, data: {a: b}}
)"));
  EXPECT_TRUE(has(empty, "spec.components", "PodSetCount")) << describe(empty);
}

TEST(AppWrapperRules, AppWrapperName) {
  CFO_REQUIRE_SCHEMAS();
  EXPECT_TRUE(has(aw(schemas, {{"metadata.name", "team.aw"}}), "metadata.name", "AppWrapperName"));
  EXPECT_TRUE(has(aw(schemas, {{"metadata.name", std::string(62, 'a')}}), "metadata.name", "AppWrapperName"));
  EXPECT_EQ(error_count(aw(schemas, {{"metadata.name", std::string(61, 'a')}})), 0u);
  // Without the queue label only the appwrapper label (a label value, <= 63) is certain to break.
  auto unqueued = aw(schemas, {{"metadata.labels", "~delete"}, {"metadata.name", "team.aw"}});
  EXPECT_TRUE(has(unqueued, "metadata.name", "AppWrapperName", Severity::Warning)) << describe(unqueued);
  auto too_long = aw(schemas, {{"metadata.labels", "~delete"}, {"metadata.name", std::string(64, 'a')}});
  EXPECT_TRUE(has(too_long, "metadata.name", "AppWrapperName", Severity::Error)) << describe(too_long);
}

TEST(AppWrapperRules, BehaviorAnnotationsWarn) {
  CFO_REQUIRE_SCHEMAS();
  const std::string key = "metadata.annotations[workload.codeflare.dev.appwrapper/successTTLDuration]";
  auto errs = aw(schemas, {{key, "one-minute"}});
  EXPECT_TRUE(has(errs, key, "BehaviorAnnotations", Severity::Warning)) << describe(errs);
  EXPECT_TRUE(aw(schemas, {{key, "1m30s"}}).empty());
}

TEST(AppWrapperRules, RayReplicasAndNumOfHostsWarn) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = aw(schemas, {{kT + ".spec.workerGroupSpecs[0].replicas", "~delete"},
                           {kT + ".spec.workerGroupSpecs[0].numOfHosts", "2"}});
  EXPECT_TRUE(has(errs, kT + ".spec.workerGroupSpecs[0].replicas", "AppWrapperRayReplicas", Severity::Warning))
      << describe(errs);
  EXPECT_TRUE(has(errs, kT + ".spec.workerGroupSpecs[0].numOfHosts", "AppWrapperRayReplicas", Severity::Warning))
      << describe(errs);
}

TEST(AppWrapperRules, TemplateMustBeAnObject) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = aw(schemas, {{kT, "\"text\""}});
  EXPECT_TRUE(has(errs, kT, "TemplateObject")) << describe(errs);
}

// AppWrapper controller createComponent: a PodSet template labelled for another AppWrapper fails the component.
TEST(AppWrapperRules, AppWrapperLabelConflict) {
  CFO_REQUIRE_SCHEMAS();
  const std::string label = kT + ".spec.headGroupSpec.template.metadata.labels[workload.codeflare.dev/appwrapper]";
  auto errs = aw(schemas, {{label, "other-aw"}});
  ASSERT_TRUE(has(errs, label, "AppWrapperLabelConflict")) << describe(errs);
  EXPECT_EQ(matching(errs, label, "AppWrapperLabelConflict")[0].source, "appwrapper:controller");
  EXPECT_EQ(error_count(aw(schemas, {{label, "demo-aw"}})), 0u) << "its own name is fine";
  EXPECT_EQ(error_count(aw(schemas, {{kT + ".metadata.labels[workload.codeflare.dev/appwrapper]", "other"}})), 0u)
      << "the component's own label is kept as it is";
}
