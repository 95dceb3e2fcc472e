#include <gtest/gtest.h>

#include "workload/resource_list.hpp"
#include "workload/resource_mapping.hpp"

using namespace cfo;
using namespace cfo::workload;

namespace {
ResourceList list(std::initializer_list<std::pair<const char*, const char*>> items) {
  ResourceList l;
  for (const auto& [n, v] : items) l.set(n, must_quantity(v));
  return l;
}
}  // namespace

TEST(ResourceMapping, HasTheEightSdkDefaults) {
  EXPECT_EQ(default_resource_mapping().size(), 8u);
  EXPECT_EQ(ray_resource_name("nvidia.com/gpu"), "GPU");
  EXPECT_EQ(ray_resource_name("intel.com/gpu"), "GPU");
  EXPECT_EQ(ray_resource_name("amd.com/gpu"), "GPU");
  EXPECT_EQ(ray_resource_name("aws.amazon.com/neuroncore"), "neuron_cores");
  EXPECT_EQ(ray_resource_name("google.com/tpu"), "TPU");
  EXPECT_EQ(ray_resource_name("habana.ai/gaudi"), "HPU");
  EXPECT_EQ(ray_resource_name("huawei.com/Ascend910"), "NPU");
  EXPECT_EQ(ray_resource_name("huawei.com/Ascend310"), "NPU");
  EXPECT_FALSE(ray_resource_name("intel.com/gaudi"));
}

TEST(ResourceMapping, NumCpusFollowsTheSdkRule) {
  EXPECT_EQ(num_cpus_param(must_quantity("2")), "2");
  EXPECT_EQ(num_cpus_param(must_quantity("0")), "0");
  EXPECT_EQ(num_cpus_param(must_quantity("500m")), "1");
  EXPECT_EQ(num_cpus_param(must_quantity("2500m")), "2");
  EXPECT_EQ(num_cpus_param(must_quantity("1.5")), "1");
  EXPECT_EQ(num_cpus_param(must_quantity("0.2")), "1");
}

TEST(ResourceMapping, NumGpusSumsEveryGpuKind) {
  EXPECT_EQ(num_gpus_param(list({{"cpu", "1"}, {"memory", "1G"}})), "0");
  EXPECT_EQ(num_gpus_param(list({{"nvidia.com/gpu", "2"}, {"amd.com/gpu", "1"}, {"google.com/tpu", "4"}})), "3");
}

TEST(ResourceMapping, ResourcesStringIsQuotedAsTheSdkQuotesIt) {
  EXPECT_EQ(resources_param(list({{"cpu", "1"}, {"nvidia.com/gpu", "1"}})), "\"{}\"");
  // The value is "{\"TPU\": 2}" wrapped in literal double quotes.
  EXPECT_EQ(resources_param(list({{"google.com/tpu", "2"}})), R"("{\"TPU\": 2}")");
  EXPECT_EQ(
      resources_param(list({{"huawei.com/Ascend910", "1"}, {"google.com/tpu", "2"}, {"huawei.com/Ascend310", "3"}})),
      R"("{\"NPU\": 4, \"TPU\": 2}")");
}
