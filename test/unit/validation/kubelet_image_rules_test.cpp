// rules/kubelet_image_rules.cpp: container images as the kubelet parses them before it pulls (ParseNormalizedNamed).
#include "test_support.hpp"
#include "validation/rules/rules.hpp"

using namespace cfo;
using namespace cfo::test;

namespace {
const std::string kHeadImage = "spec.headGroupSpec.template.spec.containers[0].image";

// The findings of ParseNormalizedNamed alone on `image`.
FieldErrors judged(const std::string& image) {
  FieldErrors out;
  validation::rules::ParseNormalizedNamed(image, "image", validation::rules::Sink(out));
  return out;
}
}  // namespace

TEST(KubeletImageRules, ReferencesTheKubeletPullsPass) {
  const std::string sha = std::string(64, 'a');
  for (const std::string& image : std::vector<std::string>{
           "ray", "rayproject/ray:2.46.0", "quay.io/rayproject/ray:2.52.1", "localhost/ray", "localhost:5000/a/b:c",
           "registry.example.com:443/team/ray-ml@sha256:" + sha, "ray:2.9@sha256:" + sha, "[fd00::1]:5000/img:v1",
           "Registry.Example.com/ray", "a__b/c--d_e.f:latest_2", "docker.io/library/python:3.11-slim",
           "ray@sha512:" + std::string(128, '0'), "x:" + std::string(128, 'v')})
    EXPECT_TRUE(judged(image).empty()) << image << "\n" << describe(judged(image));
}

TEST(KubeletImageRules, ReferencesTheKubeletRefusesAreErrorsThatSayWhy) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"rayproject/Ray:2.9", "must be lower case"},
      {"ray:2.9:latest", "tag \"2.9:latest\""},
      {"ray project/ray", "repository path component \"ray project\""},
      {"ray:", "tag \"\""},
      {"ray:-x", "tag \"-x\""},
      {"x:" + std::string(129, 'v'), "tag"},
      {"quay.io//ray", "repository path component \"\""},
      {"my_reg.com/ray", "registry \"my_reg.com\""},
      {"reg.io:port/ray", "registry \"reg.io:port\""},
      {"ray/-x", "repository path component \"-x\""},
      {"ray@sha256:abc", "64 hex digits, not 3"},
      {"ray@md5:" + std::string(32, 'a'), "not sha256, sha384 or sha512"},
      {"ray@sha256:" + std::string(64, 'A'), "lower-case hex"},
      {std::string(64, 'f'), "image ID"},
      {"a/" + std::string(260, 'b'), "longer than 255"},
  };
  for (const auto& [image, why] : cases) {
    const auto errs = judged(image);
    ASSERT_EQ(errs.size(), 1u) << image;
    EXPECT_EQ(errs[0].rule, "ParseNormalizedNamed");
    EXPECT_EQ(errs[0].severity, Severity::Error);
    EXPECT_NE(errs[0].reason.find(why), std::string::npos) << image << ": " << errs[0].reason;
    EXPECT_NE(errs[0].reason.find("InvalidImageName"), std::string::npos);
  }
  // Surrounding whitespace is core/v1's finding, not this rule's.
  EXPECT_TRUE(judged(" ray:2.9 ").empty());
}

// On a RayCluster: every container of a Pod template is judged, at the image's path.
TEST(KubeletImageRules, EveryContainerOfARayClusterTemplateIsJudged) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = validation::validate_object(
      schemas, patched(yaml1(raycluster_yaml()), {{kHeadImage, "\"rayproject/ray:2.46.0:latest\""}}));
  EXPECT_TRUE(has(errs, kHeadImage, "ParseNormalizedNamed")) << describe(errs);
  EXPECT_EQ(error_count(validation::validate_object(schemas, yaml1(raycluster_yaml()))), 0u);
}
