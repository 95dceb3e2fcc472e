// The golden test: every sample of config/samples renders to exactly the bytes of its file in
// test/unit/workload/golden/ (the objects reconcile wants applied, as YAML, separated by "---" as `render` prints
// them). New API fields must default to what was generated before they existed, so a sample's golden file only
// changes when the sample itself changes. CFO_UPDATE_GOLDEN=1 writes the files (for a new or changed sample; the
// diff of test/unit/workload/golden/ then shows what changed).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/yaml.hpp"
#include "parse_test_util.hpp"
#include "workload/reconcile.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
// What `render` prints for one sample, on a cluster that serves Kueue (v1beta2) and where a LocalQueue the sample
// asks the operator to manage does not exist yet.
std::string rendered(const std::string& file, const validation::SchemaSet& schemas) {
  json::Document d = yaml_doc(read_text(file));
  set_identity(d);
  ClusterFacts facts;
  facts.kueue_version = "v1beta2";
  if (json::find_path(d, "spec.queue.clusterQueue")) facts.local_queue_presence = Presence::kAbsent;
  Outcome out = reconcile(d, Observed{}, facts, schemas, "2026-01-01T00:00:00Z");
  EXPECT_TRUE(out.valid) << file << ":\n" << dump(out.errors);
  std::string text;
  for (const auto& obj : out.desired) text += (text.empty() ? "" : "---\n") + yaml::from_json(obj);
  return text;
}
}  // namespace

TEST(Golden, EverySampleRendersAsItsGoldenFile) {
  CFO_REQUIRE_SCHEMAS(schemas);
  const bool update = std::getenv("CFO_UPDATE_GOLDEN") && std::string(std::getenv("CFO_UPDATE_GOLDEN")) == "1";
  const std::string dir = source_dir() + "/test/unit/workload/golden";
  int compared = 0;
  for (const auto& f : yaml_files("config/samples")) {
    const std::string base = std::filesystem::path(f).filename().string();
    if (base == "kustomization.yaml") continue;
    const std::string got = rendered(f, schemas);
    const std::string golden = dir + "/" + base;
    if (update) {
      std::ofstream(golden) << got;
      continue;
    }
    ASSERT_TRUE(std::filesystem::exists(golden)) << base << " has no golden file (CFO_UPDATE_GOLDEN=1 writes it)";
    EXPECT_EQ(read_text(golden), got) << base << " no longer renders as " << golden;
    ++compared;
  }
  if (!update) {
    EXPECT_GE(compared, 10);
  }
}

TEST(Golden, EveryGoldenFileHasItsSample) {
  // A golden file without a sample would be a check that cannot fail.
  for (const auto& f : yaml_files("test/unit/workload/golden")) {
    const std::string base = std::filesystem::path(f).filename().string();
    EXPECT_TRUE(std::filesystem::exists(source_dir() + "/config/samples/" + base)) << base << " has no sample";
  }
}
