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

// The CRD informer caches metadata only (no conditions): the resourceVersion of every watched CRD read, served or
// not, is what it compares with to tell whether the CRDs must be read again; a CRD not installed has none.
TEST(ServedApis, TheResourceVersionOfEveryWatchedCrdReadIsKept) {
  test::FakeApi fake;
  put_crd(fake, "rayclusters.ray.io");
  put_crd(fake, "rayjobs.ray.io");
  const std::string rc = resources::kCrds.object_path("", "rayclusters.ray.io");
  const std::string rj = resources::kCrds.object_path("", "rayjobs.ray.io");
  auto& rc_doc = fake.objects.at(rc);
  json::set(rc_doc["metadata"], "resourceVersion", json::str("41", rc_doc.GetAllocator()), rc_doc.GetAllocator());
  auto& rj_doc = fake.objects.at(rj);
  json::set(rj_doc["metadata"], "resourceVersion", json::str("57", rj_doc.GetAllocator()), rj_doc.GetAllocator());
  rj_doc.RemoveMember("status");  // not Established yet: not served, but a change of it must still be seen
  auto apis = read_served_apis(fake.api());
  ASSERT_TRUE(apis.has_value()) << apis.error().message;
  EXPECT_EQ(apis->resource_versions,
            (std::map<std::string, std::string>{{"rayclusters.ray.io", "41"}, {"rayjobs.ray.io", "57"}}));
  EXPECT_FALSE(apis->generations.count("rayjobs.ray.io")) << "not served";
}

// Of KubeRay's CRDs only ray.io/v1 is compiled: the operator generates v1 and its guard webhooks are registered for
// v1; a v1alpha1 schema (about 1 MiB parsed) would only hold memory. A CRD that serves v1alpha1 alone compiles nothing
// and is no error; other groups keep every served version.
TEST(ServedApis, OfKubeRaysVersionsOnlyV1IsCompiled) {
  auto ray_crd = [](const std::string& versions) {
    return doc(
        "{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: "
        "rayclusters.ray.io, generation: 1}, spec: {group: ray.io, names: {kind: RayCluster, plural: "
        "rayclusters}, scope: Namespaced, versions: [" +
        versions + "]}, status: {conditions: [{type: Established, status: 'True'}]}}");
  };
  const std::string v1 = "{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}";
  const std::string v1alpha1 =
      "{name: v1alpha1, served: true, storage: false, schema: {openAPIV3Schema: {type: object}}}";
  test::FakeApi fake;
  fake.put(resources::kCrds.object_path("", "rayclusters.ray.io"), ray_crd(v1alpha1 + ", " + v1));
  put_crd(fake, "appwrappers.workload.codeflare.dev");  // example.com/v1 Thing
  auto both = read_served_apis(fake.api());
  ASSERT_TRUE(both.has_value()) << both.error().message;
  EXPECT_TRUE(both->schemas->has("ray.io/v1", "RayCluster"));
  EXPECT_FALSE(both->schemas->has("ray.io/v1alpha1", "RayCluster"));
  EXPECT_TRUE(both->ray_cluster);
  EXPECT_TRUE(both->schemas->has("example.com/v1", "Thing")) << "another group keeps its versions";

  fake.put(resources::kCrds.object_path("", "rayclusters.ray.io"), ray_crd(v1alpha1));
  auto old = read_served_apis(fake.api());
  ASSERT_TRUE(old.has_value()) << old.error().message;
  EXPECT_FALSE(old->ray_cluster);
  EXPECT_FALSE(old->schemas->has("ray.io/v1alpha1", "RayCluster"));
  EXPECT_TRUE(old->generations.count("rayclusters.ray.io")) << "still served, and watched for a change";
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

// A deletion that starts is published from the CRD informer's view at once, before the CRDs are read again (the
// twenty-first user trial: AppWrappers re-created while they were read): the view is the one the read gives then.
TEST(ServedApis, ADeletionStartingStopsServingAsTheReadWould) {
  struct Crd {
    const char* name;
    const char* group;
    const char* kind;
    const char* version;
  };
  const std::vector<Crd> crds = {
      {"rayclusters.ray.io", "ray.io", "RayCluster", "v1"},
      {"rayjobs.ray.io", "ray.io", "RayJob", "v1"},
      {"appwrappers.workload.codeflare.dev", "workload.codeflare.dev", "AppWrapper", "v1beta2"},
      {"localqueues.kueue.x-k8s.io", "kueue.x-k8s.io", "LocalQueue", "v1beta2"},
      {"workloads.kueue.x-k8s.io", "kueue.x-k8s.io", "Workload", "v1beta2"},
      {"datascienceclusters.datasciencecluster.opendatahub.io", "datasciencecluster.opendatahub.io",
       "DataScienceCluster", "v1"}};
  // The fake cluster with every CRD, `deleting` being deleted ("" for none).
  auto read_with = [&](const std::string& deleting) {
    test::FakeApi fake;
    for (const auto& c : crds) {
      json::Document crd = doc(
          std::string("{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: ") +
          c.name + ", generation: 2}, spec: {group: " + c.group + ", names: {kind: " + c.kind +
          ", plural: x}, scope: Namespaced, versions: [{name: " + c.version +
          ", served: true, storage: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, "
          "properties: {podSets: {type: array, maxItems: 8}}}}}}}]}, status: {conditions: [{type: Established, "
          "status: 'True'}]}}");
      if (deleting == c.name)
        json::set(crd["metadata"], "deletionTimestamp", json::str("2026-12-03T19:30:00Z", crd.GetAllocator()),
                  crd.GetAllocator());
      fake.put(resources::kCrds.object_path("", c.name), crd);
    }
    return read_served_apis(fake.api());
  };
  auto all = read_with("");
  ASSERT_TRUE(all.has_value()) << all.error().message;
  ASSERT_TRUE(all->ray_cluster && all->ray_job && all->app_wrapper);
  ASSERT_EQ(all->kueue_version, "v1beta2");
  ASSERT_EQ(all->kueue_max_pod_sets, 8);
  ASSERT_EQ(all->profile, validation::Profile::kOdh);
  for (const auto& c : crds) {
    auto read = read_with(c.name);
    ASSERT_TRUE(read.has_value()) << read.error().message;
    const ServedApis stopped = stop_serving(*all, {c.name});
    EXPECT_EQ(stopped.ray_cluster, read->ray_cluster) << c.name;
    EXPECT_EQ(stopped.ray_job, read->ray_job) << c.name;
    EXPECT_EQ(stopped.app_wrapper, read->app_wrapper) << c.name;
    EXPECT_EQ(stopped.kueue_version, read->kueue_version) << c.name;
    EXPECT_EQ(stopped.kueue_max_pod_sets, read->kueue_max_pod_sets) << c.name;
    EXPECT_EQ(stopped.profile, read->profile) << c.name;
    EXPECT_EQ(stopped.generations, read->generations) << c.name;
    EXPECT_EQ(stopped.terminating, read->terminating) << c.name;
  }
  EXPECT_EQ(stop_serving(*all, {"not.watched.example.com"}).generations, all->generations);
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
  fill_queue_objects(wl, caches, nullptr, facts, keep);
  EXPECT_FALSE(facts.queue_objects.has_value()) << "not listed yet: nothing is judged";
  listed = true;
  fill_queue_objects(wl, caches, nullptr, facts, keep);
  ASSERT_TRUE(facts.queue_objects.has_value());
  EXPECT_EQ(facts.queue_objects->local_queues().size(), 1u);
  EXPECT_EQ(facts.queue_objects->cluster_queues().size(), 1u);
  EXPECT_EQ(facts.queue_objects->resource_flavors().size(), 1u);
  EXPECT_FALSE(facts.queue_objects->cohorts_known);
  EXPECT_EQ(keep.size(), 3u);
  EXPECT_TRUE(facts.queue_objects->namespaces().empty());
  // The workload's Namespace, with its labels, for the ClusterQueues' namespaceSelectors (the thirty-sixth user
  // trial: a ClusterQueue selecting team=z was said to admit a workload of a namespace labelled team=a).
  auto ns = std::make_shared<const json::Document>(
      doc("{apiVersion: v1, kind: Namespace, metadata: {name: ns, labels: {team: a}}}"));
  fill_queue_objects(wl, caches, ns, facts, keep);
  ASSERT_TRUE(facts.queue_objects.has_value());
  ASSERT_EQ(facts.queue_objects->namespaces().size(), 1u);
  EXPECT_EQ(json::string_at(*facts.queue_objects->namespaces()[0], "metadata.labels.team"), "a");
}

TEST(ServedApis, KubernetesMinorComesFromTheVersionAnswer) {
  auto minor = [](const char* text) { return kubernetes_minor_of(json::parse(text).value()); };
  EXPECT_EQ(minor(R"({"major": "1", "minor": "20", "gitVersion": "v1.20.2"})"), 20);
  EXPECT_EQ(minor(R"({"major": "1", "minor": "27+"})"), 27);  // some distributions mark their builds so
  EXPECT_EQ(minor(R"({"major": "2", "minor": "1"})"), 0);
  EXPECT_EQ(minor(R"({"major": "1", "minor": ""})"), 0);
  EXPECT_EQ(minor(R"({"gitVersion": "v1.30.0"})"), 0);
}
