// The managed-LocalQueue collector without a server: the Api seam is a recording fake, the caches are vectors. Each
// test reads which requests were made.
#include "operator/local_queue_collector.hpp"

#include <gtest/gtest.h>

#include "fake_api.hpp"
#include "operator/finalizer.hpp"
#include "test_files.hpp"
#include "workload/local_queue.hpp"

using namespace cfo;
using namespace cfo::op;
using cfo::op::test::FakeApi;

namespace {

constexpr const char* kLq = "/apis/kueue.x-k8s.io/v1beta1/namespaces/team-a/localqueues/cq-a";

runtime::ObjectPtr obj(const std::string& yaml) {
  return std::make_shared<const json::Document>(test_support::yaml_doc(yaml));
}

runtime::ObjectPtr local_queue(bool managed) {
  return obj(std::string("apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata:\n  name: cq-a\n"
                         "  namespace: team-a\n") +
             (managed ? "  labels: {app.kubernetes.io/managed-by: codeflare-operator}\n" : "") +
             "spec: {clusterQueue: cq-a}\n");
}

runtime::ObjectPtr a_workload(const std::string& name, const std::string& queue, bool deleting = false,
                              const std::string& managed = "") {
  std::string y = "apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata:\n  name: " + name +
                  "\n  namespace: team-a\n";
  if (deleting) y += "  deletionTimestamp: \"2026-12-01T00:00:00Z\"\n";
  y += "spec:\n  workerGroups: []\n";
  if (!queue.empty()) y += "  queue: " + queue + "\n";
  if (!managed.empty()) y += "status: {managedLocalQueue: " + managed + "}\n";
  return obj(y);
}

// The collector over a FakeApi holding the LocalQueue, with `cached` as both the cache and the namespace's list.
struct Rig {
  FakeApi fake;
  runtime::ObjectPtr lq;
  std::vector<runtime::ObjectPtr> workloads;
  std::vector<runtime::ObjectPtr> other_shard;  // listed, not cached
  std::string kueue_version = "v1beta1";
  bool list_fails = false;

  runtime::ReconcileResult collect() {
    if (lq) fake.put(kLq, *lq);
    LocalQueueCollectorReads reads;
    reads.local_queue = [this](const std::string& key) { return key == "team-a/cq-a" ? lq : nullptr; };
    reads.cached_workloads_in = [this](const std::string&) { return workloads; };
    reads.workloads_in = [this](const std::string&) -> Result<std::vector<runtime::ObjectPtr>> {
      if (list_fails) return std::unexpected(Error{"connection refused"});
      auto all = workloads;
      all.insert(all.end(), other_shard.begin(), other_shard.end());
      return all;
    };
    reads.kueue_version = [this] { return kueue_version; };
    fake.log.clear();
    return collect_local_queue("team-a/cq-a", fake.api(), reads);
  }
};

}  // namespace

TEST(LocalQueueCollector, AManagedLocalQueueNoWorkloadUsesIsDeleted) {
  Rig rig;
  rig.lq = local_queue(true);
  rig.workloads = {a_workload("other", "{clusterQueue: cq-b}")};
  auto r = rig.collect();
  EXPECT_EQ(r.kind, runtime::ReconcileResult::Kind::Ok) << r.error;
  EXPECT_EQ(rig.fake.count(std::string("DELETE ") + kLq), 1U) << ::testing::PrintToString(rig.fake.log);
}

TEST(LocalQueueCollector, ALocalQueueInUseCostsNoRequest) {
  for (const auto& user :
       {a_workload("w", "{clusterQueue: cq-a}"), a_workload("w", "{localQueue: cq-a}"),
        a_workload("w", "{clusterQueue: cq-b, localQueue: cq-a}"), a_workload("w", "", false, "cq-a"),
        obj("apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata:\n  name: d\n"
            "  namespace: team-a\nspec: {}\nstatus: {queue: cq-a}\n")}) {
    Rig rig;
    rig.lq = local_queue(true);
    rig.workloads = {user};
    EXPECT_EQ(rig.collect().kind, runtime::ReconcileResult::Kind::Ok);
    EXPECT_TRUE(rig.fake.log.empty()) << json::dump(*user) << ": " << ::testing::PrintToString(rig.fake.log);
  }
}

// The eleventh user trial: a workload with no spec.queue runs in the namespace's default LocalQueue (status.queue);
// a managed LocalQueue that is that default is kept for it (above). One used only by another shard's workload is
// looked at again later: that workload's deletion wakes nothing here.
TEST(LocalQueueCollector, AQueueUsedByAnotherShardIsLookedAtAgain) {
  Rig other;
  other.lq = local_queue(true);
  other.other_shard = {a_workload("elsewhere", "{clusterQueue: cq-a}")};
  auto r = other.collect();
  EXPECT_EQ(r.kind, runtime::ReconcileResult::Kind::RequeueAfter);
  EXPECT_EQ(r.requeue_after_ms, kOtherShardRecheckMs);
  EXPECT_EQ(other.fake.count("DELETE"), 0U);
}

// The twelfth user trial: a managed LocalQueue that may be the namespace's default (named "default", or annotated) is
// kept while a workload names no queue, reconciled or not; another managed one is not.
TEST(LocalQueueCollector, AMaybeDefaultQueueIsKeptForWorkloadsThatNameNone) {
  auto queue_named = [](const std::string& name, const std::string& annotations) {
    return obj("apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata:\n  name: " + name +
               "\n  namespace: team-a\n  labels: {app.kubernetes.io/managed-by: codeflare-operator}\n" + annotations +
               "spec: {clusterQueue: cq-a}\n");
  };
  EXPECT_TRUE(may_be_default_queue(*queue_named("default", "")));
  EXPECT_TRUE(may_be_default_queue(*queue_named("team", "  annotations: {kueue.x-k8s.io/default-queue: \"True\"}\n")));
  EXPECT_FALSE(may_be_default_queue(*queue_named("team", "")));
  // The rig's queue is cq-a: annotated as the default, a queue-less workload keeps it.
  Rig annotated;
  annotated.lq = queue_named("cq-a", "  annotations: {kueue.x-k8s.io/default-queue: \"true\"}\n");
  annotated.workloads = {a_workload("implicit", "")};
  annotated.collect();
  EXPECT_TRUE(annotated.fake.log.empty()) << ::testing::PrintToString(annotated.fake.log);
  Rig plain;
  plain.lq = local_queue(true);
  plain.workloads = {a_workload("implicit", "")};
  plain.collect();
  EXPECT_EQ(plain.fake.count("DELETE"), 1U) << ::testing::PrintToString(plain.fake.log);
}

TEST(LocalQueueCollector, AUserBeingDeletedDoesNotKeepIt) {
  Rig rig;
  rig.lq = local_queue(true);
  rig.workloads = {a_workload("going", "{clusterQueue: cq-a}", /*deleting=*/true)};
  rig.collect();
  EXPECT_EQ(rig.fake.count(std::string("DELETE ") + kLq), 1U) << ::testing::PrintToString(rig.fake.log);
}

// The twenty-first user trial: a workload being deleted with the finalizer still on cleans its queue up itself (the
// collector, woken by the same deletion, sent a second DELETE for the queue); without it, the collector does.
TEST(LocalQueueCollector, AQueueIsLeftToTheFinalizerOfTheWorkloadBeingDeleted) {
  auto with_finalizer = [](const runtime::ObjectPtr& wl) {
    json::Document d = json::clone(*wl);
    json::Value list(rapidjson::kArrayType);
    list.PushBack(json::str(workload::kLocalQueueFinalizer, d.GetAllocator()), d.GetAllocator());
    d["metadata"].AddMember("finalizers", list, d.GetAllocator());
    return std::make_shared<const json::Document>(std::move(d));
  };
  for (const auto& going :
       {a_workload("going", "{clusterQueue: cq-a}", true), a_workload("going", "{clusterQueue: cq-b}", true, "cq-a")}) {
    Rig rig;
    rig.lq = local_queue(true);
    rig.workloads = {with_finalizer(going)};
    EXPECT_EQ(rig.collect().kind, runtime::ReconcileResult::Kind::Ok);
    EXPECT_TRUE(rig.fake.log.empty()) << ::testing::PrintToString(rig.fake.log);
  }
  // One that manages another queue leaves this one to the collector.
  Rig rig;
  rig.lq = local_queue(true);
  rig.workloads = {with_finalizer(a_workload("going", "{clusterQueue: cq-b}", true))};
  rig.collect();
  EXPECT_EQ(rig.fake.count(std::string("DELETE ") + kLq), 1U) << ::testing::PrintToString(rig.fake.log);
}

// The twenty-second user trial: a status write that stops naming a queue wakes the collector for it (it is mapped
// from the old object too); a status write that changes nothing of the queues does not.
TEST(LocalQueueCollector, AStatusThatStopsNamingAQueueWakesIt) {
  auto with_status = [](const std::string& status) {
    return obj(
        "apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata:\n  name: w\n  namespace: "
        "team-a\n  generation: 2\nspec: {queue: {clusterQueue: rq-2}}\nstatus: " +
        status + "\n");
  };
  auto before = with_status("{queue: rq-1, managedLocalQueue: rq-1, phase: Pending}");
  EXPECT_TRUE(local_queues_may_have_changed(*before, *with_status("{queue: rq-2, managedLocalQueue: rq-2}")));
  EXPECT_TRUE(local_queues_may_have_changed(*before, *with_status("{queue: rq-1, managedLocalQueue: rq-2}")));
  EXPECT_FALSE(
      local_queues_may_have_changed(*before, *with_status("{queue: rq-1, managedLocalQueue: rq-1, phase: Running}")));
  auto keys = workload_to_local_queues()(*before);
  EXPECT_NE(std::find(keys.begin(), keys.end(), "team-a/rq-1"), keys.end()) << "the old object names it";
}

TEST(LocalQueueCollector, SomeoneElsesLocalQueueOrNoKueueIsLeftAlone) {
  Rig unmanaged;
  unmanaged.lq = local_queue(false);
  unmanaged.collect();
  EXPECT_TRUE(unmanaged.fake.log.empty()) << ::testing::PrintToString(unmanaged.fake.log);
  Rig no_kueue;
  no_kueue.lq = local_queue(true);
  no_kueue.kueue_version.clear();
  no_kueue.collect();
  EXPECT_TRUE(no_kueue.fake.log.empty()) << ::testing::PrintToString(no_kueue.fake.log);
  Rig not_cached;
  EXPECT_EQ(not_cached.collect().kind, runtime::ReconcileResult::Kind::Ok);
  EXPECT_TRUE(not_cached.fake.log.empty());
}

TEST(LocalQueueCollector, AFailedListIsRetriedAndDeletesNothing) {
  Rig rig;
  rig.lq = local_queue(true);
  rig.list_fails = true;
  auto r = rig.collect();
  EXPECT_EQ(r.kind, runtime::ReconcileResult::Kind::Error);
  EXPECT_NE(r.error.find("connection refused"), std::string::npos) << r.error;
  EXPECT_EQ(rig.fake.count("DELETE"), 0U);
}

TEST(LocalQueueCollector, AWorkloadWakesTheQueuesItNamesAndManages) {
  auto mapper = workload_to_local_queues();
  EXPECT_EQ(mapper(*a_workload("w", "{clusterQueue: cq-b}", false, "cq-a")),
            (std::vector<std::string>{"team-a/cq-b", "team-a/cq-a"}));
  EXPECT_EQ(mapper(*a_workload("w", "{clusterQueue: cq-a}")), (std::vector<std::string>{"team-a/cq-a"}));
  EXPECT_EQ(mapper(*obj("apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata:\n  name: d\n"
                        "  namespace: team-a\nspec: {}\nstatus: {queue: default}\n")),
            (std::vector<std::string>{"team-a/default"}));
  EXPECT_TRUE(mapper(*a_workload("w", "")).empty());
  // The thirteenth user trial: the last user of a managed default queue named no queue and had no status.queue (it
  // never ran, or ran outside Kueue); its deletion woke nothing and the queue stayed. Such a workload wakes the
  // managed LocalQueues of its namespace that may be the default.
  std::vector<runtime::ObjectPtr> queues = {
      obj("metadata: {name: default, namespace: team-a, labels: {app.kubernetes.io/managed-by: codeflare-operator}}"),
      obj("metadata: {name: marked, namespace: team-a, labels: {app.kubernetes.io/managed-by: codeflare-operator},\n"
          "  annotations: {kueue.x-k8s.io/default-queue: 'True'}}"),
      obj("metadata: {name: plain, namespace: team-a, labels: {app.kubernetes.io/managed-by: codeflare-operator}}"),
      obj("metadata: {name: mine, namespace: team-a, annotations: {kueue.x-k8s.io/default-queue: 'true'}}")};
  auto with_queues = workload_to_local_queues([&](const std::string&) { return queues; });
  EXPECT_EQ(with_queues(*a_workload("w", "")), (std::vector<std::string>{"team-a/default", "team-a/marked"}));
  EXPECT_EQ(with_queues(*a_workload("w", "{localQueue: plain}")), (std::vector<std::string>{"team-a/plain"}))
      << "a workload naming its queue uses no default";
  auto own = managed_local_queue_key();
  EXPECT_EQ(own(*local_queue(true)), std::optional<std::string>("team-a/cq-a"));
  EXPECT_EQ(own(*local_queue(false)), std::nullopt);
}

// The clean-up deletes the LocalQueue it read and no other: the DELETE carries its uid, and one gone meanwhile (deleted
// by another workload's clean-up) is not told as deleted again (the eighteenth user trial: one deletion, two events).
TEST(LocalQueueCollector, TheCleanUpDeletesOnlyTheLocalQueueItRead) {
  const auto lqs = client::ResourceType{"kueue.x-k8s.io", "v1beta1", "localqueues", true};
  auto managed = [](const std::string& uid) {
    return test_support::yaml_doc(
        "apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata:\n  name: cq-a\n"
        "  namespace: team-a\n  uid: " +
        uid +
        "\n  labels: {app.kubernetes.io/managed-by: codeflare-operator}\n"
        "spec: {clusterQueue: cq-a}\n");
  };
  struct Case {
    const char* name;
    std::optional<std::string> uid_at_delete;  // the object's uid when the DELETE arrives; nullopt: gone
    bool deleted;
  };
  for (const Case& c :
       {Case{"as read", "u-1", true}, Case{"made again", "u-2", false}, Case{"gone", std::nullopt, false}}) {
    FakeApi fake;
    fake.put(kLq, managed("u-1"));
    Api api = fake.api();
    auto get = api.get;
    api.get = [&](const std::string& path) {  // the state changes between the read and the DELETE
      auto read = get(path);
      if (c.uid_at_delete)
        fake.put(kLq, managed(*c.uid_at_delete));
      else
        fake.objects.erase(kLq);
      return read;
    };
    auto done = clean_up_local_queue(api, lqs, "team-a", "cq-a", "self", {});
    ASSERT_TRUE(done.has_value()) << c.name;
    EXPECT_EQ(done->deleted, c.deleted) << c.name;
    EXPECT_EQ(fake.count(std::string("DELETE ") + kLq), 1U) << c.name;
    EXPECT_EQ(fake.objects.contains(kLq), std::string(c.name) == "made again") << c.name;
  }
}

// A LocalQueue that is not the operator's (replaced by hand since) is neither deleted nor told as kept for its users.
TEST(LocalQueueCollector, TheCleanUpSaysNothingOfAQueueThatIsNotTheOperators) {
  const auto lqs = client::ResourceType{"kueue.x-k8s.io", "v1beta1", "localqueues", true};
  FakeApi fake;
  fake.put(kLq, *local_queue(false));
  auto done =
      clean_up_local_queue(fake.api(), lqs, "team-a", "cq-a", "self", {a_workload("other", "{localQueue: cq-a}")});
  ASSERT_TRUE(done.has_value());
  EXPECT_FALSE(done->deleted);
  EXPECT_EQ(done->other_users, 0U);
  EXPECT_EQ(fake.count(std::string("DELETE ") + kLq), 0U);

  fake.put(kLq, *local_queue(true));  // the operator's: its user keeps it
  auto kept =
      clean_up_local_queue(fake.api(), lqs, "team-a", "cq-a", "self", {a_workload("other", "{localQueue: cq-a}")});
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->other_users, 1U);
}
