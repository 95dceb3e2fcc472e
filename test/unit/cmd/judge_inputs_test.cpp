// validate's judging step over read inputs (judge_inputs): which inputs are skipped, and which are of a kind no schema
// serves (what render refuses rather than passing on).
#include <gtest/gtest.h>

#include "cmd/input_files.hpp"
#include "cmd/judge_inputs.hpp"
#include "test_files.hpp"

using namespace cfo;
using namespace cfo::cmd;

TEST(JudgeInputs, MarksKindsNoSchemaServesAndSkipsUnknownGroups) {
  const auto schemas = test_support::upstream_schemas();
  if (!schemas) GTEST_SKIP() << "UPSTREAM_CRDS is not set: the upstream CRD schemas are needed";
  auto docs = documents_of_text("in.yaml",
                                "apiVersion: ray.io/v2\nkind: RayCluster\nmetadata: {name: a}\n---\n"  // version
                                "apiVersion: ray.io/v1\nkind: RayClustr\nmetadata: {name: b}\n---\n"   // kind
                                "apiVersion: codeflare.dev/v1\nkind: CodeFlareWorkload\nmetadata: {name: c}\n---\n"
                                "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: d}\n---\n"  // no schema
                                "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: e}\n"
                                "spec: {clusterQueue: cq}\n");
  ASSERT_EQ(docs.size(), 5u);
  const std::vector<std::size_t> one_set(docs.size(), 0);
  Judged judged =
      judge_inputs(docs, one_set, *schemas, checked_apis(schemas->kinds()), {}, "default", "2025-01-01T00:00:00Z");
  EXPECT_EQ(judged.unknown_kind, (std::vector<bool>{true, true, true, false, false}));
  for (std::size_t i = 0; i < 5; ++i) {
    bool unknown = false;
    for (const auto& f : judged.findings[i]) unknown = unknown || f.rule == "schema:unknownKind";
    EXPECT_EQ(unknown, judged.unknown_kind[i]) << "the mark and the finding agree, input " << i;
  }
  EXPECT_TRUE(judged.skipped[3].has_value());
  EXPECT_FALSE(judged.skipped[4].has_value());
  EXPECT_EQ(judged.skipped_count, 1u);
  EXPECT_EQ(judged.judged_count, 4u);
}
