// rules/ray_start_rules.cpp: rayStartParams as `ray start` (Ray scripts.py, click) parses the flags KubeRay builds.
#include "test_support.hpp"

using namespace cfo;
using namespace cfo::test;
using validation::validate_object;

namespace {
const std::string kWorkerParams = "spec.workerGroupSpecs[0].rayStartParams";
const std::string kHeadParams = "spec.headGroupSpec.rayStartParams";

FieldErrors with_params(const validation::SchemaSet& schemas, const std::string& at, const std::string& key,
                        const std::string& value) {
  return validate_object(schemas, patched(yaml1(raycluster_yaml()), {{at + "." + key, "\"" + value + "\""}}));
}

bool refused(const FieldErrors& errs, const std::string& at, const std::string& key) {
  return has(errs, at + "." + key, "RayStart");
}
}  // namespace

TEST(RayStartRules, IntegerOptionsRefuseFractionsWordsAndUnits) {
  CFO_REQUIRE_SCHEMAS();
  for (auto [key, value] : std::vector<std::pair<std::string, std::string>>{{"num-cpus", "1.5"},
                                                                            {"num-gpus", "one"},
                                                                            {"memory", "4Gi"},
                                                                            {"object-store-memory", "1e9"},
                                                                            {"dashboard-port", "http"},
                                                                            {"port", ""}}) {
    auto errs = with_params(schemas, kWorkerParams, key, value);
    EXPECT_TRUE(refused(errs, kWorkerParams, key)) << key << "=" << value << "\n" << describe(errs);
    EXPECT_EQ(matching(errs, kWorkerParams + "." + key, "RayStart")[0].severity, Severity::Error);
  }
}

TEST(RayStartRules, IntegersAsPythonReadsThemPass) {
  CFO_REQUIRE_SCHEMAS();
  for (auto [key, value] : std::vector<std::pair<std::string, std::string>>{{"num-cpus", "4"},
                                                                            {"num-gpus", "0"},
                                                                            {"object-store-memory", "1_000_000_000"},
                                                                            {"dashboard-port", "+8265"},
                                                                            {"memory", "$RAY_MEMORY"}}) {
    auto errs = with_params(schemas, kHeadParams, key, value);
    EXPECT_FALSE(refused(errs, kHeadParams, key)) << key << "=" << value << "\n" << describe(errs);
    EXPECT_EQ(error_count(errs), 0u) << describe(errs);
  }
}

TEST(RayStartRules, TrueBecomesABareFlag) {
  CFO_REQUIRE_SCHEMAS();
  // "true" is passed as --num-cpus with no value: click then has no integer for it.
  EXPECT_TRUE(refused(with_params(schemas, kWorkerParams, "num-cpus", "true"), kWorkerParams, "num-cpus"));
  // "false" drops the entry; on a flag "true" is the flag itself.
  EXPECT_EQ(error_count(with_params(schemas, kWorkerParams, "num-cpus", "false")), 0u);
  EXPECT_EQ(error_count(with_params(schemas, kWorkerParams, "disable-usage-stats", "True")), 0u);
}

TEST(RayStartRules, FlagsTakeNoValue) {
  CFO_REQUIRE_SCHEMAS();
  EXPECT_TRUE(refused(with_params(schemas, kWorkerParams, "block", "yes"), kWorkerParams, "block"));
  EXPECT_TRUE(
      refused(with_params(schemas, kHeadParams, "disable-usage-stats", "1"), kHeadParams, "disable-usage-stats"));
}

TEST(RayStartRules, BooleansChoicesAndFloats) {
  CFO_REQUIRE_SCHEMAS();
  // include-dashboard keeps its value (--include-dashboard=false): click's BOOL words.
  EXPECT_EQ(error_count(with_params(schemas, kHeadParams, "include-dashboard", "false")), 0u);
  EXPECT_EQ(error_count(with_params(schemas, kHeadParams, "include-dashboard", "no")), 0u);
  EXPECT_TRUE(
      refused(with_params(schemas, kHeadParams, "include-dashboard", "maybe"), kHeadParams, "include-dashboard"));
  EXPECT_EQ(error_count(with_params(schemas, kHeadParams, "log-style", "record")), 0u);
  EXPECT_TRUE(refused(with_params(schemas, kHeadParams, "log-style", "json"), kHeadParams, "log-style"));
  EXPECT_EQ(error_count(with_params(schemas, kHeadParams, "system-reserved-cpu", "1.5")), 0u);
  EXPECT_TRUE(
      refused(with_params(schemas, kHeadParams, "system-reserved-cpu", "lots"), kHeadParams, "system-reserved-cpu"));
}

TEST(RayStartRules, UnknownOptionsAreRefused) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = with_params(schemas, kWorkerParams, "num-cpu", "4");
  EXPECT_TRUE(refused(errs, kWorkerParams, "num-cpu")) << describe(errs);
  EXPECT_EQ(error_count(with_params(schemas, kWorkerParams, "object-spilling-directory", "/spill")), 0u);
}

TEST(RayStartRules, RayJobClustersAreJudgedToo) {
  CFO_REQUIRE_SCHEMAS();
  auto job = patched(yaml1(rayjob_yaml()), {{"spec.rayClusterSpec.headGroupSpec.rayStartParams.num-gpus", "\"0.5\""}});
  auto errs = validate_object(schemas, job);
  EXPECT_TRUE(has(errs, "spec.rayClusterSpec.headGroupSpec.rayStartParams.num-gpus", "RayStart")) << describe(errs);
}
