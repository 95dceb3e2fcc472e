#include <gtest/gtest.h>

#include "parse_test_util.hpp"
#include "workload/parse_resource_mapping.hpp"
#include "workload/resource_list.hpp"
#include "workload/resource_mapping.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
ResourceList list(std::initializer_list<std::pair<const char*, const char*>> items) {
  ResourceList l;
  for (const auto& [n, v] : items) l.set(n, must_quantity(v));
  return l;
}

const std::vector<ResourceMapping>& dflt() { return default_resource_mapping(); }

std::optional<std::string> ray_name(const char* k8s) { return ray_resource_name(k8s, dflt()); }

// parse_resource_mapping on a YAML flow mapping at spec.extendedResourceMapping.
std::vector<ResourceMapping> mapping(const std::string& yaml, bool overwrite, FieldErrors& errs) {
  json::Document d = yaml_doc(yaml);
  return parse_resource_mapping(d, "spec.extendedResourceMapping", overwrite, errs);
}
}  // namespace

TEST(ResourceMapping, HasTheEightSdkDefaults) {
  EXPECT_EQ(default_resource_mapping().size(), 8u);
  EXPECT_EQ(ray_name("nvidia.com/gpu"), "GPU");
  EXPECT_EQ(ray_name("intel.com/gpu"), "GPU");
  EXPECT_EQ(ray_name("amd.com/gpu"), "GPU");
  EXPECT_EQ(ray_name("aws.amazon.com/neuroncore"), "neuron_cores");
  EXPECT_EQ(ray_name("google.com/tpu"), "TPU");
  EXPECT_EQ(ray_name("habana.ai/gaudi"), "HPU");
  EXPECT_EQ(ray_name("huawei.com/Ascend910"), "NPU");
  EXPECT_EQ(ray_name("huawei.com/Ascend310"), "NPU");
  EXPECT_FALSE(ray_name("intel.com/gaudi"));
}

TEST(ResourceMapping, NumCpusFollowsTheSdkRule) {
  EXPECT_EQ(num_cpus_param(must_quantity("2")), "2");
  EXPECT_EQ(num_cpus_param(must_quantity("0")), "0");
  EXPECT_EQ(num_cpus_param(must_quantity("500m")), "1");
  // The eleventh user trial: a limit past int64 wrapped around ("3875820019684212735"); Python's int() keeps it.
  EXPECT_EQ(num_cpus_param(must_quantity("999999999999999999999")), "999999999999999999999");
  EXPECT_EQ(num_cpus_param(must_quantity("1999.5m")), "2");
  EXPECT_EQ(num_cpus_param(must_quantity("2500m")), "2");
  EXPECT_EQ(num_cpus_param(must_quantity("1.5")), "1");
  EXPECT_EQ(num_cpus_param(must_quantity("0.2")), "1");
}

TEST(ResourceMapping, NumGpusSumsEveryGpuKind) {
  EXPECT_EQ(num_gpus_param(list({{"cpu", "1"}, {"memory", "1G"}}), dflt()), "0");
  EXPECT_EQ(num_gpus_param(list({{"nvidia.com/gpu", "2"}, {"amd.com/gpu", "1"}, {"google.com/tpu", "4"}}), dflt()),
            "3");
}

TEST(ResourceMapping, CountsOfTwoToTheSixtyThreeAndMoreAreWrittenWhole) {
  // Quantity::value() is an int64: these wrapped to -9223372036854775808 and 1 (the thirty-seventh user trial).
  EXPECT_EQ(num_gpus_param(list({{"nvidia.com/gpu", "9223372036854775808"}}), dflt()), "9223372036854775808");
  EXPECT_EQ(num_gpus_param(list({{"nvidia.com/gpu", "18446744073709551616"}, {"amd.com/gpu", "1"}}), dflt()),
            "18446744073709551617");
  EXPECT_EQ(resources_param(list({{"habana.ai/gaudi", "18446744073709551617"}}), dflt()),
            R"("{\"HPU\": 18446744073709551617}")");
}

TEST(ResourceMapping, ResourcesStringIsQuotedAsTheSdkQuotesIt) {
  EXPECT_EQ(resources_param(list({{"cpu", "1"}, {"nvidia.com/gpu", "1"}}), dflt()), "\"{}\"");
  // The value is "{\"TPU\": 2}" wrapped in literal double quotes.
  EXPECT_EQ(resources_param(list({{"google.com/tpu", "2"}}), dflt()), R"("{\"TPU\": 2}")");
  EXPECT_EQ(resources_param(
                list({{"huawei.com/Ascend910", "1"}, {"google.com/tpu", "2"}, {"huawei.com/Ascend310", "3"}}), dflt()),
            R"("{\"NPU\": 4, \"TPU\": 2}")");
}

TEST(ResourceMapping, ParamsFollowTheMappingTheyAreGiven) {
  // intel.com/gpu remapped to TPU (the SDK's all-parameters case): it leaves num-gpus and enters resources.
  std::vector<ResourceMapping> m = dflt();
  for (auto& e : m)
    if (e.kubernetes_name == "intel.com/gpu") e.ray_name = "TPU";
  m.push_back({"example.com/fpga", "FPGA"});
  ResourceList req = list({{"nvidia.com/gpu", "1"}, {"intel.com/gpu", "2"}, {"example.com/fpga", "3"}});
  EXPECT_EQ(num_gpus_param(req, m), "1");
  EXPECT_EQ(resources_param(req, m), R"("{\"TPU\": 2, \"FPGA\": 3}")");
  EXPECT_EQ(num_gpus_param(req, dflt()), "3");
  EXPECT_EQ(resources_param(req, dflt()), "\"{}\"") << "example.com/fpga is unknown to the defaults";
  EXPECT_EQ(ray_resource_name("example.com/fpga", m), "FPGA");
  EXPECT_FALSE(ray_resource_name("example.com/fpga", dflt()));
}

TEST(ParseResourceMapping, DefaultsFirstThenNewKeysInTheUsersOrder) {
  FieldErrors errs;
  auto m = mapping("{example.com/zeta: Z, intel.com/gpu: TPU, example.com/alpha: A}", true, errs);
  ASSERT_EQ(m.size(), 10u) << dump(errs);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(m[i].kubernetes_name, dflt()[i].kubernetes_name) << i;
  EXPECT_EQ(m[1].ray_name, "TPU");  // overwritten in place
  EXPECT_EQ(m[8].kubernetes_name, "example.com/zeta");
  EXPECT_EQ(m[9].kubernetes_name, "example.com/alpha");
  const FieldError* w = finding(errs, "spec.extendedResourceMapping[intel.com/gpu]", "OverwriteDefaultResourceMapping");
  ASSERT_NE(w, nullptr) << dump(errs);
  EXPECT_EQ(w->severity, Severity::Warning);
  EXPECT_FALSE(has_errors(errs)) << dump(errs);
}

TEST(ParseResourceMapping, OverwritingADefaultNeedsTheFlag) {
  FieldErrors errs;
  auto m = mapping("{intel.com/gpu: TPU}", false, errs);
  const FieldError* e = finding(errs, "spec.extendedResourceMapping[intel.com/gpu]", "OverwriteDefaultResourceMapping");
  ASSERT_NE(e, nullptr) << dump(errs);
  EXPECT_EQ(e->severity, Severity::Error);
  EXPECT_EQ(ray_resource_name("intel.com/gpu", m), "GPU") << "a refused entry must not change the mapping";
  // Restating a default is no change and needs no flag.
  errs.clear();
  mapping("{intel.com/gpu: GPU}", false, errs);
  EXPECT_TRUE(errs.empty()) << dump(errs);
}

TEST(ParseResourceMapping, KeysAreExtendedResourceNamesAndValuesRayNames) {
  for (const char* bad : {"fpga", "kubernetes.io/fpga", "requests.example.com/fpga", "example.com/bad name",
                          "Example_Com/fpga", "example.com/"}) {
    FieldErrors errs;
    auto m = mapping(std::string("{'") + bad + "': FPGA}", false, errs);
    EXPECT_NE(finding(errs, key_path("spec.extendedResourceMapping", bad), "ExtendedResourceName"), nullptr)
        << bad << "\n"
        << dump(errs);
    EXPECT_EQ(m.size(), 8u) << bad;
  }
  FieldErrors errs;
  mapping("{example.com/a: '', example.com/b: 'has space', example.com/c: 'q\"uote', example.com/d: 3}", false, errs);
  EXPECT_NE(finding(errs, "spec.extendedResourceMapping[example.com/a]", "schema:minLength"), nullptr) << dump(errs);
  EXPECT_NE(finding(errs, "spec.extendedResourceMapping[example.com/b]", "RayResourceName"), nullptr) << dump(errs);
  EXPECT_NE(finding(errs, "spec.extendedResourceMapping[example.com/c]", "RayResourceName"), nullptr) << dump(errs);
  EXPECT_NE(finding(errs, "spec.extendedResourceMapping[example.com/d]", "schema:type"), nullptr) << dump(errs);
  errs.clear();
  mapping("[]", false, errs);
  EXPECT_NE(finding(errs, "spec.extendedResourceMapping", "schema:type"), nullptr) << dump(errs);
}

TEST(ParseResourceMapping, RayOwnNamesAreAWarning) {
  FieldErrors errs;
  auto m = mapping("{example.com/cores: CPU}", false, errs);
  const FieldError* w = finding(errs, "spec.extendedResourceMapping[example.com/cores]", "RayResourceNameReserved");
  ASSERT_NE(w, nullptr) << dump(errs);
  EXPECT_EQ(w->severity, Severity::Warning);
  EXPECT_EQ(resources_param(list({{"example.com/cores", "2"}}), m), "\"{}\"");
}
