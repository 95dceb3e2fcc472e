// operator/served_apis.hpp: what the served CRDs tell, the profile included.
#include <gtest/gtest.h>

#include "fake_api.hpp"
#include "operator/resources.hpp"
#include "operator/cluster_reads.hpp"
#include "operator/served_apis.hpp"
#include "test_files.hpp"

using namespace cfo;
using namespace cfo::op;

namespace {
json::Document doc(const std::string& text) { return cfo::test_support::yaml_doc(text); }

/// A served, Established CRD of `name` (group and kind do not matter here) with one served, stored version.
void put_crd(test::FakeApi& fake, const std::string& name, const std::string& schema = "{type: object}") {
  fake.put(resources::kCrds.object_path("", name),
           doc("{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: " + name +
               ", generation: 1}, spec: {group: example.com, names: {kind: Thing, plural: things}, scope: "
               "Namespaced, versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: " +
               schema + "}}]}, status: {conditions: [{type: Established, status: 'True'}]}}"));
}
}  // namespace

TEST(ServedApis, DetectProfileFromTheOpenDataHubCrds) {
  EXPECT_EQ(detect_profile({}), validation::Profile::kVanilla);
  EXPECT_EQ(detect_profile({"rayclusters.ray.io", "workloads.kueue.x-k8s.io"}), validation::Profile::kVanilla);
  EXPECT_EQ(detect_profile({"rayclusters.ray.io", "datascienceclusters.datasciencecluster.opendatahub.io"}),
            validation::Profile::kOdh);
  EXPECT_EQ(detect_profile({"dscinitializations.dscinitialization.opendatahub.io"}), validation::Profile::kOdh);
}

TEST(ServedApis, ReadServedApisTellsTheProfileAndWatchesItsCrds) {
  test::FakeApi fake;
  put_crd(fake, "rayclusters.ray.io");
  auto vanilla = read_served_apis(fake.api());
  ASSERT_TRUE(vanilla.has_value()) << vanilla.error().message;
  EXPECT_EQ(vanilla->profile, validation::Profile::kVanilla);
  EXPECT_EQ(fake.count("GET " + resources::kCrds.object_path("", kOdhCrdNames[0])), 1u) << "asked for";

  put_crd(fake, "datascienceclusters.datasciencecluster.opendatahub.io");
  auto odh = read_served_apis(fake.api());
  ASSERT_TRUE(odh.has_value()) << odh.error().message;
  EXPECT_EQ(odh->profile, validation::Profile::kOdh);
  EXPECT_TRUE(odh->generations.count("datascienceclusters.datasciencecluster.opendatahub.io"))
      << "a change of it makes the served APIs be read again";
  EXPECT_TRUE(odh->schemas->has("example.com/v1", "Thing")) << "the rayclusters stand-in is compiled";
  EXPECT_EQ(odh->schemas->kinds().size(), 1u) << "the OpenDataHub CRDs are not compiled";
  const auto& watched = watched_crd_names();
  for (const auto& n : kOdhCrdNames) EXPECT_NE(std::find(watched.begin(), watched.end(), n), watched.end()) << n;
}

// A CRD being deleted is not served: a server-side apply (not refused then) would re-create the objects its deletion
// removes, and the deletion would never end (the nineteenth user trial: 230 AppWrappers re-created in 10 minutes).
TEST(ServedApis, ACrdBeingDeletedIsNotServed) {
  json::Document crd =
      doc("{metadata: {name: appwrappers.workload.codeflare.dev}, status: {conditions: [{type: "
          "Established, status: 'True'}]}}");
  EXPECT_TRUE(crd_served(crd));
  json::set(crd["metadata"], "deletionTimestamp", json::str("2026-12-03T19:30:00Z", crd.GetAllocator()),
            crd.GetAllocator());
  EXPECT_TRUE(crd_established(crd)) << "still Established while its objects are removed";
  EXPECT_FALSE(crd_served(crd));

  test::FakeApi fake;
  put_crd(fake, "rayclusters.ray.io");
  const std::string path = resources::kCrds.object_path("", "rayclusters.ray.io");
  json::set(fake.objects.at(path)["metadata"], "deletionTimestamp",
            json::str("2026-12-03T19:30:00Z", fake.objects.at(path).GetAllocator()),
            fake.objects.at(path).GetAllocator());
  auto apis = read_served_apis(fake.api());
  ASSERT_TRUE(apis.has_value()) << apis.error().message;
  EXPECT_TRUE(apis->schemas->kinds().empty()) << "not compiled";
  EXPECT_FALSE(apis->generations.count("rayclusters.ray.io")) << "its return is a change that is read again";
  EXPECT_TRUE(apis->terminating.contains("rayclusters.ray.io")) << "its objects may still exist";
}

TEST(ServedApis, MaxPodSetsOfTheServedWorkloadCrd) {
  test::FakeApi fake;
  put_crd(fake, "workloads.kueue.x-k8s.io",
          "{type: object, properties: {spec: {type: object, properties: {podSets: {type: array, maxItems: 18}}}}}");
  auto apis = read_served_apis(fake.api());
  ASSERT_TRUE(apis.has_value()) << apis.error().message;
  EXPECT_EQ(apis->kueue_max_pod_sets, 18);
}

// The queue objects of a reconcile come from the caches once they have listed; Cohorts are not read.
TEST(ClusterReads, QueueObjectsOnlyOnceTheCachesHaveListed) {
  auto lq = std::make_shared<const json::Document>(
      doc("{apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, metadata: {name: q, namespace: ns}}"));
  auto cq = std::make_shared<const json::Document>(
      doc("{apiVersion: kueue.x-k8s.io/v1beta2, kind: ClusterQueue, metadata: {name: cq}}"));
  auto rf = std::make_shared<const json::Document>(
      doc("{apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: rf}}"));
  KueueCaches caches;
  bool listed = false;
  caches.local_queues_synced = [] { return true; };
  caches.local_queues_in = [&](const std::string& ns) {
    return ns == "ns" ? std::vector<runtime::ObjectPtr>{lq} : std::vector<runtime::ObjectPtr>{};
  };
  caches.quota_objects = [&]() -> std::optional<std::vector<runtime::ObjectPtr>> {
    if (!listed) return std::nullopt;
    return std::vector<runtime::ObjectPtr>{cq, rf};
  };
  auto wl = doc("{metadata: {name: w, namespace: ns}, spec: {queue: {localQueue: q}}}");
  workload::ClusterFacts facts;
  std::vector<runtime::ObjectPtr> keep;
  fill_queue_objects(wl, caches, facts, keep);
  EXPECT_FALSE(facts.queue_objects.has_value()) << "not listed yet: nothing is judged";
  listed = true;
  fill_queue_objects(wl, caches, facts, keep);
  ASSERT_TRUE(facts.queue_objects.has_value());
  EXPECT_EQ(facts.queue_objects->local_queues().size(), 1u);
  EXPECT_EQ(facts.queue_objects->cluster_queues().size(), 1u);
  EXPECT_EQ(facts.queue_objects->resource_flavors().size(), 1u);
  EXPECT_FALSE(facts.queue_objects->cohorts_known);
  EXPECT_EQ(keep.size(), 3u);
}
