// Which CRDs an offline run compiles (crd_needs_of, load_schemas_from_files with needs): only the kinds the inputs
// lead to, while every CRD found still counts for what the inputs may name.
#include "cmd/crd_schemas.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cmd/input_files.hpp"
#include "cmd/judge_inputs.hpp"
#include "cmd/offline_inputs.hpp"

using namespace cfo;
using namespace cfo::cmd;

namespace {
using Kinds = std::set<std::pair<std::string, std::string>>;

Kinds needs_of(const std::string& yaml) { return crd_needs_of(documents_of_text("in.yaml", yaml)).kinds; }

bool lists(const std::vector<std::string>& kinds, const std::string& k) {
  return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
}
}  // namespace

TEST(CrdNeeds, TheInputsKindsAndWhatTheyLeadTo) {
  EXPECT_EQ(needs_of("apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: a}\n"),
            (Kinds{{"ray.io", "RayCluster"}}));
  EXPECT_EQ(needs_of("apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: q}\n"),
            (Kinds{{"ray.io", "RayCluster"}, {"kueue.x-k8s.io", "LocalQueue"}}))
      << "RayCluster always: its Pod template schema judges every PodSpec";
  EXPECT_EQ(needs_of("apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata: {name: w}\n"),
            (Kinds{{"codeflare.dev", "CodeFlareWorkload"},
                   {"ray.io", "RayCluster"},
                   {"ray.io", "RayJob"},
                   {"workload.codeflare.dev", "AppWrapper"},
                   {"kueue.x-k8s.io", "LocalQueue"}}));
  EXPECT_EQ(
      needs_of("apiVersion: workload.codeflare.dev/v1beta2\nkind: AppWrapper\nmetadata: {name: aw}\n"
               "spec:\n  components:\n  - template: {apiVersion: ray.io/v1, kind: RayJob}\n"
               "  - template: {apiVersion: batch/v1, kind: Job}\n"),
      (Kinds{
          {"workload.codeflare.dev", "AppWrapper"}, {"ray.io", "RayCluster"}, {"ray.io", "RayJob"}, {"batch", "Job"}}));
}

TEST(CrdNeeds, OnlyTheNeededCrdsAreCompiledAndEveryOneIsListed) {
  const char* crds = std::getenv("UPSTREAM_CRDS");
  if (!crds || !*crds) GTEST_SKIP() << "UPSTREAM_CRDS is not set: the upstream CRDs are needed";
  auto docs = documents_of_text("in.yaml",
                                "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: a}\n---\n"
                                "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQeue\nmetadata: {name: typo}\n");
  auto loaded = load_schemas_from_files({crds}, crd_needs_of(docs));
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  EXPECT_TRUE(loaded->schemas.has("ray.io/v1", "RayCluster"));
  EXPECT_FALSE(loaded->schemas.has("ray.io/v1", "RayJob")) << "not among the inputs: not compiled";
  EXPECT_FALSE(loaded->schemas.has("workload.codeflare.dev/v1beta2", "AppWrapper"));
  EXPECT_TRUE(lists(loaded->available_kinds, "ray.io/v1/RayJob"));
  EXPECT_TRUE(lists(loaded->available_kinds, "kueue.x-k8s.io/v1beta2/LocalQueue"));
  EXPECT_GT(loaded->kueue_max_pod_sets, 0) << "the Workload CRD is read for MaxPodSets, compiled or not";
  // A typo of a kind of a group whose CRDs are not compiled is still judged (a finding), not skipped as unknown.
  const std::vector<std::size_t> one_set(docs.size(), 0);
  Judged judged = judge_inputs(docs, one_set, loaded->schemas, checked_apis(loaded->available_kinds), {}, "default",
                               "2025-01-01T00:00:00Z");
  EXPECT_FALSE(judged.skipped[1].has_value());
  EXPECT_TRUE(judged.unknown_kind[1]);
  // Without needs, every CRD is compiled.
  auto all = load_schemas_from_files({crds});
  ASSERT_TRUE(all.has_value());
  EXPECT_TRUE(all->schemas.has("ray.io/v1", "RayJob"));
}

TEST(CrdNeeds, TheCrdsAreReadOnceAndAddedKindByKind) {
  const char* crds = std::getenv("UPSTREAM_CRDS");
  if (!crds || !*crds) GTEST_SKIP() << "UPSTREAM_CRDS is not set: the upstream CRDs are needed";
  auto found = read_crds({crds});
  ASSERT_TRUE(found.has_value()) << found.error().message;
  EXPECT_FALSE(found->loaded.schemas.has("ray.io/v1", "RayCluster")) << "reading compiles nothing";
  EXPECT_TRUE(lists(found->loaded.available_kinds, "ray.io/v1/RayJob")) << "every CRD read is listed";
  EXPECT_GT(found->loaded.kueue_max_pod_sets, 0);
  // What an offline run does before it knows its inputs, then with them: the second call adds only what is new.
  ASSERT_TRUE(add_wanted_crds(*found, CrdNeeds{false, {{"ray.io", "RayCluster"}}}).has_value());
  EXPECT_TRUE(found->loaded.schemas.has("ray.io/v1", "RayCluster"));
  EXPECT_FALSE(found->loaded.schemas.has("ray.io/v1", "RayJob"));
  ASSERT_TRUE(add_wanted_crds(*found, crd_needs_of(documents_of_text(
                                          "in.yaml", "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: j}\n")))
                  .has_value());
  EXPECT_TRUE(found->loaded.schemas.has("ray.io/v1", "RayJob"));
  EXPECT_TRUE(found->loaded.schemas.has("ray.io/v1", "RayCluster"));
  EXPECT_FALSE(found->loaded.schemas.has("workload.codeflare.dev/v1beta2", "AppWrapper"));
  EXPECT_EQ(found->added_kinds, (Kinds{{"ray.io", "RayCluster"}, {"ray.io", "RayJob"}}));
}

TEST(CrdNeeds, AFolderWithoutCrdsIsAnError) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "cfo-crd-schemas-test-empty";
  std::filesystem::create_directories(dir);
  auto found = read_crds({dir.string()});
  ASSERT_FALSE(found.has_value());
  EXPECT_NE(found.error().message.find("no CustomResourceDefinition"), std::string::npos) << found.error().message;
  std::filesystem::remove_all(dir);
}

// A CRD folder with a link that leads nowhere, or to itself, is an error that names the link, whatever order the
// folder lists its entries in (the twenty-ninth user trial: exit 0 or 2 by the order, and an uncaught
// std::filesystem_error next to an upstream/ sub-folder).
TEST(CrdNeeds, ABrokenOrLoopingLinkAmongTheCrdsIsNamed) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / "cfo-crd-schemas-test-links";
  fs::remove_all(root);
  const std::string crd =
      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.dev}\n"
      "spec:\n  group: example.dev\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions:\n"
      "  - name: v1\n    served: true\n    storage: true\n    schema: {openAPIV3Schema: {type: object}}\n";
  for (const char* name : {"a-first", "m-middle", "z-last"}) {
    const fs::path dir = root / name;
    fs::create_directories(dir);
    std::ofstream(dir / "widgets.yaml") << crd;
    fs::create_symlink("/nonexistent/crd.yaml", dir / (std::string(name) + ".yaml"));
    auto found = read_crds({dir.string()});
    ASSERT_FALSE(found.has_value()) << name;
    EXPECT_NE(found.error().message.find(std::string(name) + ".yaml"), std::string::npos) << found.error().message;
  }
  const fs::path layout = root / "layout";
  fs::create_directories(layout / "upstream");
  std::ofstream(layout / "upstream" / "widgets.yaml") << crd;
  fs::create_symlink("loop.yaml", layout / "loop.yaml");
  auto looping = read_crds({layout.string()});
  ASSERT_FALSE(looping.has_value());
  EXPECT_NE(looping.error().message.find("loop.yaml"), std::string::npos) << looping.error().message;
  fs::remove_all(root);
}
