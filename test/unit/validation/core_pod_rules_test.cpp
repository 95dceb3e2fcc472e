// rules/core_pod_rules.cpp: core/v1 Pod validation applied (late) to the pod templates.
#include "test_support.hpp"

using namespace cfo;
using namespace cfo::test;
using validation::validate_object;

namespace {
const std::string kHead = "spec.headGroupSpec.template.spec.containers[0]";
const std::string kWorker = "spec.workerGroupSpecs[0].template.spec.containers[0]";

FieldErrors check(const validation::SchemaSet& schemas, std::vector<std::pair<std::string, std::string>> edits) {
  return validate_object(schemas, patched(yaml1(raycluster_yaml()), edits));
}
}  // namespace

TEST(CorePodRules, DNS1123ContainerName) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = check(schemas, {{kHead + ".name", "Ray_Head"}});
  EXPECT_TRUE(has(errs, kHead + ".name", "DNS1123ContainerName")) << describe(errs);
  EXPECT_EQ(matching(errs, kHead + ".name", "DNS1123ContainerName")[0].source, "core/v1:PodValidation");
}

TEST(CorePodRules, UniqueContainerNameAcrossInitAndRegular) {
  CFO_REQUIRE_SCHEMAS();
  auto errs =
      check(schemas, {{"spec.headGroupSpec.template.spec.initContainers", "[{name: ray-head, image: busybox}]"}});
  EXPECT_TRUE(has(errs, kHead + ".name", "UniqueContainerName")) << describe(errs);
}

TEST(CorePodRules, RequestsWithinLimits) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = check(schemas, {{kWorker + ".resources.requests.memory", "16Gi"}});
  EXPECT_TRUE(has(errs, kWorker + ".resources.requests.memory", "RequestsWithinLimits")) << describe(errs);
}

TEST(CorePodRules, DecimalAndBinarySuffixesCompareByValue) {
  CFO_REQUIRE_SCHEMAS();
  // 8G = 8e9 bytes < 8Gi = 8.59e9 bytes: fine; the reverse exceeds the limit.
  auto ok = check(schemas, {{kWorker + ".resources.requests.memory", "8G"}});
  EXPECT_EQ(error_count(ok), 0u) << describe(ok);
  auto bad =
      check(schemas, {{kWorker + ".resources.requests.memory", "8Gi"}, {kWorker + ".resources.limits.memory", "8G"}});
  EXPECT_TRUE(has(bad, kWorker + ".resources.requests.memory", "RequestsWithinLimits")) << describe(bad);
}

TEST(CorePodRules, ExtendedResourceWhole) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = check(schemas, {{kWorker + ".resources.limits[nvidia.com/gpu]", "\"500m\""}});
  EXPECT_TRUE(has(errs, kWorker + ".resources.limits[nvidia.com/gpu]", "ExtendedResourceWhole")) << describe(errs);
}

TEST(CorePodRules, ExtendedResourceLimitRequired) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = check(schemas, {{kWorker + ".resources.requests[nvidia.com/gpu]", "1"}});
  EXPECT_TRUE(has(errs, kWorker + ".resources.requests[nvidia.com/gpu]", "ExtendedResourceLimitRequired"))
      << describe(errs);
  auto limit_only = check(schemas, {{kWorker + ".resources.limits[nvidia.com/gpu]", "1"}});
  EXPECT_EQ(error_count(limit_only), 0u) << "requests default to limits\n" << describe(limit_only);
}

TEST(CorePodRules, ExtendedResourceRequestsEqualLimits) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = check(schemas, {{kWorker + ".resources.requests[nvidia.com/gpu]", "1"},
                              {kWorker + ".resources.limits[nvidia.com/gpu]", "2"}});
  EXPECT_TRUE(has(errs, kWorker + ".resources.requests[nvidia.com/gpu]", "ExtendedResourceRequestsEqualLimits"))
      << describe(errs);
}

TEST(CorePodRules, HugePagesAreNotOvercommittedButMayBeFractional) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = check(schemas, {{kWorker + ".resources.requests.hugepages-2Mi", "1Gi"}});
  EXPECT_TRUE(has(errs, kWorker + ".resources.requests.hugepages-2Mi", "ExtendedResourceLimitRequired"))
      << describe(errs);
  auto ok = check(schemas, {{kWorker + ".resources.requests.hugepages-2Mi", "1Gi"},
                            {kWorker + ".resources.limits.hugepages-2Mi", "1Gi"}});
  EXPECT_EQ(error_count(ok), 0u) << describe(ok);
}

TEST(CorePodRules, ContainerResourceName) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = check(schemas, {{kWorker + ".resources.limits.pods", "1"}});
  EXPECT_TRUE(has(errs, kWorker + ".resources.limits.pods", "ContainerResourceName")) << describe(errs);
}

TEST(CorePodRules, NonNegativeQuantity) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = check(schemas, {{kWorker + ".resources.requests.cpu", "\"-1\""}});
  EXPECT_TRUE(has(errs, kWorker + ".resources.requests.cpu", "NonNegativeQuantity")) << describe(errs);
}

TEST(CorePodRules, IANASvcPortName) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = check(schemas, {{kHead + ".ports[0].name", "gcs-server-port-x"}});
  EXPECT_TRUE(has(errs, kHead + ".ports[0].name", "IANASvcPortName")) << describe(errs);
  auto digits = check(schemas, {{kHead + ".ports[0].name", "\"6379\""}});
  EXPECT_TRUE(has(digits, kHead + ".ports[0].name", "IANASvcPortName")) << describe(digits);
}

TEST(CorePodRules, QuantityFormatOnANonCrdComponent) {
  CFO_REQUIRE_SCHEMAS();
  // A batch/v1 Job has no CRD schema here, so only the Pod rules see its quantities.
  auto aw = yaml1(R"(
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
          template:
            spec:
              restartPolicy: Never
              containers:
                - name: main
                  image: busybox
                  resources:
                    requests: {cpu: 2x}
)");
  auto errs = validate_object(schemas, aw);
  const std::string at = "spec.components[0].template.spec.template.spec.containers[0].resources.requests.cpu";
  EXPECT_TRUE(has(errs, at, "QuantityFormat")) << describe(errs);
}

TEST(CorePodRules, EnvVarName) {
  CFO_REQUIRE_SCHEMAS();
  auto bad = check(schemas, {{kHead + ".env", "[{name: \"1 bad=name\", value: x}]"}});
  EXPECT_TRUE(has(bad, kHead + ".env[0].name", "EnvVarName")) << describe(bad);
  auto old_clusters = check(schemas, {{kHead + ".env", "[{name: \"1abc\", value: x}]"}});
  auto found = matching(old_clusters, kHead + ".env[0].name", "EnvVarName");
  ASSERT_EQ(found.size(), 1u) << describe(old_clusters);
  EXPECT_EQ(found[0].severity, Severity::Warning);
  auto fine = check(schemas, {{kHead + ".env", "[{name: MY_VAR.x-1, value: x}]"}});
  EXPECT_FALSE(has(fine, kHead + ".env[0].name", "EnvVarName")) << describe(fine);
}

TEST(CorePodRules, Tolerations) {
  const std::string t = "spec.workerGroupSpecs[0].template.spec.tolerations";
  CFO_REQUIRE_SCHEMAS();
  auto errs = check(schemas, {{t,
                               "[{key: gpu, operator: Exists, value: x}, {operator: Equal, value: y},"
                               " {key: a, operator: Exists, effect: NoSchedule, tolerationSeconds: 5}]"}});
  EXPECT_TRUE(has(errs, t + "[0].value", "TolerationValue")) << describe(errs);
  EXPECT_TRUE(has(errs, t + "[1].operator", "TolerationOperator")) << describe(errs);
  EXPECT_TRUE(has(errs, t + "[2].tolerationSeconds", "TolerationSeconds")) << describe(errs);
  auto fine = check(schemas, {{t, "[{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]"}});
  EXPECT_FALSE(has(fine, t + "[0].value", "TolerationValue")) << describe(fine);
}
