// Pod Security end to end: in a namespace labelled pod-security.kubernetes.io/enforce=restricted, a workload whose
// Pods would run as root is refused (Valid=False naming the field) and nothing is created; relabelled baseline, the
// same workload gets its RayCluster without any change to it (the operator watches the Namespace's label).
#include <gtest/gtest.h>

#include "core/json.hpp"
#include "operator_process.hpp"

using namespace cfo;
using namespace cfo::rt;
using namespace std::chrono_literals;

namespace {
const client::ResourceType kNamespaces{"", "v1", "namespaces", false};
const client::ResourceType kWorkloads{"codeflare.dev", "v1alpha1", "codeflareworkloads", true};
const client::ResourceType kRayClusters{"ray.io", "v1", "rayclusters", true};

void label_namespace(const std::string& ns, const std::string& level) {
  auto patch = from_yaml("metadata:\n  labels:\n    pod-security.kubernetes.io/enforce: " + level + "\n");
  auto r = api().merge_patch(kNamespaces.object_path("", ns), patch);
  ASSERT_TRUE(r.has_value()) << r.error().message;
}
}  // namespace

TEST(PodSecurity, RestrictedNamespaceRefusesRootPodsWithTheFieldNamed) {
  const std::string ns = create_namespace("pss");
  ASSERT_NO_FATAL_FAILURE(label_namespace(ns, "restricted"));
  OperatorProcess op("pss", {"--namespace=" + ns});
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("root-pods", 1)));

  std::string reason, message;
  ASSERT_TRUE(eventually(
      [&] {
        auto wl = get(kWorkloads, ns, "root-pods");
        return wl && condition(*wl, "Valid", &reason, &message) == "False";
      },
      60s))
      << op.log_tail();
  EXPECT_NE(message.find("securityContext.runAsNonRoot"), std::string::npos) << message;
  EXPECT_NE(message.find("restricted"), std::string::npos) << message;
  EXPECT_FALSE(get(kRayClusters, ns, "root-pods").has_value()) << "nothing is created for a refused workload";

  // The namespace relaxed to baseline: the same workload goes ahead (the Namespace watch wakes it). The reconcile
  // applies the RayCluster before it writes the status, so the status is waited for too (a read right after the
  // RayCluster appeared could still see Valid=False: CI of 8e623ff).
  ASSERT_NO_FATAL_FAILURE(label_namespace(ns, "baseline"));
  EXPECT_TRUE(eventually([&] { return get(kRayClusters, ns, "root-pods").has_value(); }, 60s)) << op.log_tail();
  EXPECT_TRUE(eventually_condition(kWorkloads, ns, "root-pods", "Valid", "True", 60s)) << op.log_tail();
}
