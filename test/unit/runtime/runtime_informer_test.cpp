#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/json.hpp"
#include "json_doc.hpp"
#include "core/json_list_splitter.hpp"
#include "runtime/controller.hpp"
#include "runtime/informer.hpp"
#include "runtime/work_queue.hpp"

using namespace cfo;
using namespace cfo::runtime;
using cfo::runtime::test::doc;
using namespace std::chrono_literals;

namespace {

std::string item(const std::string& name, const std::string& rv, const std::string& extra_meta = "") {
  return R"({"metadata":{"name":")" + name + R"(","namespace":"ns","resourceVersion":")" + rv + "\"" + extra_meta +
         "}}";
}

std::string list(const std::string& rv, const std::vector<std::string>& items, const std::string& cont = "") {
  std::string out = R"({"apiVersion":"ray.io/v1","kind":"RayClusterList","metadata":{"resourceVersion":")" + rv + "\"";
  if (!cont.empty()) out += R"(,"continue":")" + cont + "\"";
  out += R"(},"items":[)";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i];
  return out + "]}";
}

std::string line(const std::string& type, const std::string& object) {
  return R"({"type":")" + type + R"(","object":)" + object + "}";
}

/// A scripted apiserver: answers lists and watches in order; once a script runs out, the request blocks until the
/// informer stops (as an idle watch would).
class FakeApi {
 public:
  struct Stream {
    std::vector<std::string> lines;
    Result<void> end;
  };

  void add_list(Result<json::Document> answer) {
    std::lock_guard lk(mu_);
    lists_.push_back(std::move(answer));
  }
  void add_watch(std::vector<std::string> lines, Result<void> end = {}) {
    std::lock_guard lk(mu_);
    watches_.push_back({std::move(lines), std::move(end)});
  }

  ListWatcher io() {
    ListWatcher lw;
    lw.list = [this](const std::string& target) -> Result<json::Document> {
      std::unique_lock lk(mu_);
      list_targets_.push_back(target);
      if (lists_.empty()) {
        lk.unlock();
        return fail("stopped");  // not reached in the tests' scripts while running
      }
      auto answer = std::move(lists_.front());
      lists_.pop_front();
      return answer;
    };
    lw.watch = [this](const std::string& target, const std::function<bool(std::string_view)>& on_line,
                      client::StopToken& stop) -> Result<void> {
      std::optional<Stream> stream;
      {
        std::lock_guard lk(mu_);
        watch_targets_.push_back(target);
        if (!watches_.empty()) {
          stream = std::move(watches_.front());
          watches_.pop_front();
        }
      }
      if (stream) {
        for (const auto& l : stream->lines)
          if (!on_line(l)) break;
        return stream->end;
      }
      // Out of script: hang like an idle watch until stopped.
      int id = stop.on_stop([this] {
        std::lock_guard lk(mu_);
        cv_.notify_all();
      });
      {
        std::unique_lock lk(mu_);
        idle_ = true;
        cv_.notify_all();
        cv_.wait(lk, [&] { return stop.stop_requested(); });
      }
      stop.remove_callback(id);
      return {};
    };
    return lw;
  }

  /// Waits until the informer has consumed the whole script and sits in an idle watch.
  bool wait_idle() {
    std::unique_lock lk(mu_);
    return cv_.wait_for(lk, 10s, [&] { return idle_; });
  }

  std::vector<std::string> list_targets() {
    std::lock_guard lk(mu_);
    return list_targets_;
  }
  std::vector<std::string> watch_targets() {
    std::lock_guard lk(mu_);
    return watch_targets_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Result<json::Document>> lists_;
  std::deque<Stream> watches_;
  std::vector<std::string> list_targets_, watch_targets_;
  bool idle_ = false;
};

InformerOptions options() {
  InformerOptions o;
  o.resource = {"ray.io", "v1", "rayclusters", true};
  o.namespace_name = "ns";
  o.watcher.backoff = {.initial_ms = 1, .max_ms = 1, .factor = 2.0, .jitter = 0.0, .reset_after_ms = 120000};
  o.uniform = fixed_uniform(0.0);
  return o;
}

/// Records handler calls as "add ns/a", "update ns/a 1->2", "delete ns/b".
struct Recorder {
  std::mutex mu;
  std::vector<std::string> calls;

  static std::string rv(const ObjectPtr& o) {
    return json::get_string(*json::find(*o, "metadata"), "resourceVersion").value_or("");
  }
  void attach(Informer& inf) {
    inf.on_add([this](const ObjectPtr& o) { push("add " + key_of(*o)); });
    inf.on_update(
        [this](const ObjectPtr& a, const ObjectPtr& b) { push("update " + key_of(*b) + " " + rv(a) + "->" + rv(b)); });
    inf.on_delete([this](const ObjectPtr& o) { push("delete " + key_of(*o)); });
  }
  void push(std::string s) {
    std::lock_guard lk(mu);
    calls.push_back(std::move(s));
  }
  std::vector<std::string> get() {
    std::lock_guard lk(mu);
    return calls;
  }
};

const std::string kPath = "/apis/ray.io/v1/namespaces/ns/rayclusters";

}  // namespace

TEST(Informer, ListsAllPagesThenWatchesAndAppliesEvents) {
  FakeApi api;
  api.add_list(doc(list("10", {item("a", "9")}, "c1")));
  api.add_list(doc(list("10", {item("b", "8")})));
  api.add_watch({line("ADDED", item("c", "11")), line("MODIFIED", item("a", "12")),
                 line("BOOKMARK", R"({"metadata":{"resourceVersion":"13"}})"), line("DELETED", item("b", "14"))});
  Informer inf(api.io(), options());
  Recorder rec;
  rec.attach(inf);
  ASSERT_TRUE(inf.start().has_value());
  ASSERT_TRUE(inf.wait_for_sync(10000));
  ASSERT_TRUE(api.wait_idle());

  EXPECT_EQ(api.list_targets(),
            (std::vector<std::string>{kPath + "?limit=500&resourceVersion=0", kPath + "?limit=500&continue=c1"}));
  EXPECT_EQ(
      api.watch_targets(),
      (std::vector<std::string>{kPath + "?watch=1&allowWatchBookmarks=true&resourceVersion=10&timeoutSeconds=300",
                                kPath + "?watch=1&allowWatchBookmarks=true&resourceVersion=14&timeoutSeconds=300"}));
  EXPECT_EQ(rec.get(),
            (std::vector<std::string>{"add ns/a", "add ns/b", "add ns/c", "update ns/a 9->12", "delete ns/b"}));
  EXPECT_EQ(inf.store().keys(), (std::vector<std::string>{"ns/a", "ns/c"}));
  ObjectPtr a = inf.store().get("ns/a");
  ASSERT_TRUE(a);
  EXPECT_EQ(Recorder::rv(a), "12");
  EXPECT_EQ(inf.stats().lists_completed, 1u);
  inf.stop();
}

TEST(Informer, ListItemsCarryTheListsKindAndApiVersion) {
  FakeApi api;
  api.add_list(doc(list("10", {item("a", "9")})));
  Informer inf(api.io(), options());
  ASSERT_TRUE(inf.start().has_value());
  ASSERT_TRUE(inf.wait_for_sync(10000));
  ObjectPtr a = inf.store().get("ns/a");
  ASSERT_TRUE(a);
  EXPECT_EQ(json::get_string(*a, "kind"), "RayCluster");
  EXPECT_EQ(json::get_string(*a, "apiVersion"), "ray.io/v1");
}

// A list read item by item (ListWatcher::list_items, as RestClient::get_list reads it): a custom resource list comes
// with its members in alphabetical order, so its kind arrives after its items; an item without a kind of its own
// still gets it. A broken item fails the list, which is made again.
TEST(Informer, ListItemsReadOneByOneGetTheKindThatComesAfterThem) {
  const std::string alphabetical = R"({"apiVersion":"ray.io/v1","items":[)" + item("a", "9") + "," + item("b", "8") +
                                   R"(],"kind":"RayClusterList","metadata":{"resourceVersion":"10"}})";
  std::vector<std::string> answers = {
      R"({"apiVersion":"ray.io/v1","items":[{"kind":"RayCluster","metadata":{"name":"x","namespace":"ns"}},{"met)",
      alphabetical};
  std::atomic<int> lists = 0;
  FakeApi api;
  ListWatcher io = api.io();
  io.list = nullptr;
  io.list_items = [&](const std::string&, const json::ListSplitter::ItemFn& on_item) -> Result<json::Document> {
    const std::string& text = answers[std::min<std::size_t>(lists++, answers.size() - 1)];
    json::ListSplitter splitter;
    for (std::size_t at = 0; at < text.size(); at += 7)
      if (auto fed = splitter.feed(std::string_view(text).substr(at, 7), on_item); !fed)
        return std::unexpected(fed.error());
    return splitter.finish();
  };
  Informer inf(io, options());
  Recorder rec;
  rec.attach(inf);
  ASSERT_TRUE(inf.start().has_value());
  ASSERT_TRUE(inf.wait_for_sync(10000));
  EXPECT_EQ(lists.load(), 2);
  EXPECT_EQ(inf.stats().list_errors, 1u);
  EXPECT_EQ(rec.get(), (std::vector<std::string>{"add ns/a", "add ns/b"}));  // nothing of the broken list
  EXPECT_FALSE(inf.store().get("ns/x"));
  for (const std::string name : {"ns/a", "ns/b"}) {
    ObjectPtr o = inf.store().get(name);
    ASSERT_TRUE(o) << name;
    EXPECT_EQ(json::get_string(*o, "kind"), "RayCluster");
    EXPECT_EQ(json::get_string(*o, "apiVersion"), "ray.io/v1");
  }
  inf.stop();
}

TEST(Informer, ExpiredWatchRelistsAndReportsVanishedObjectsAsDeleted) {
  FakeApi api;
  api.add_list(doc(list("10", {item("a", "1"), item("b", "2")})));
  api.add_watch({line("MODIFIED", item("a", "3")),
                 line("ERROR", R"({"kind":"Status","code":410,"reason":"Expired","message":"too old"})")});
  api.add_list(doc(list("20", {item("a", "4")})));
  Informer inf(api.io(), options());
  Recorder rec;
  rec.attach(inf);
  ASSERT_TRUE(inf.start().has_value());
  ASSERT_TRUE(api.wait_idle());

  EXPECT_EQ(api.list_targets(),
            (std::vector<std::string>{kPath + "?limit=500&resourceVersion=0", kPath + "?limit=500"}));
  auto watches = api.watch_targets();
  ASSERT_EQ(watches.size(), 2u);
  EXPECT_NE(watches[1].find("resourceVersion=20&"), std::string::npos) << watches[1];
  EXPECT_EQ(rec.get(),
            (std::vector<std::string>{"add ns/a", "add ns/b", "update ns/a 1->3", "update ns/a 3->4", "delete ns/b"}));
  EXPECT_EQ(inf.stats().relists, 1u);
  EXPECT_EQ(inf.stats().lists_completed, 2u);
  EXPECT_EQ(inf.store().keys(), (std::vector<std::string>{"ns/a"}));
}

// A packed cache (InformerOptions::pack_cache) hands handlers the same objects and events across pages and relists.
TEST(Informer, APackedCacheHandsOutTheSameEventsAndObjects) {
  FakeApi api;
  api.add_list(doc(list("10", {item("a", "1")}, "c1")));
  api.add_list(doc(list("10", {item("b", "2")})));
  api.add_watch({line("MODIFIED", item("a", "3")),
                 line("ERROR", R"({"kind":"Status","code":410,"reason":"Expired","message":"too old"})")});
  api.add_list(doc(list("20", {item("a", "4"), item("c", "5")})));
  InformerOptions opts = options();
  opts.pack_cache = true;
  Informer inf(api.io(), opts);
  Recorder rec;
  rec.attach(inf);
  ASSERT_TRUE(inf.start().has_value());
  ASSERT_TRUE(api.wait_idle());
  EXPECT_EQ(rec.get(), (std::vector<std::string>{"add ns/a", "add ns/b", "update ns/a 1->3", "update ns/a 3->4",
                                                 "delete ns/b", "add ns/c"}));
  EXPECT_EQ(inf.store().keys(), (std::vector<std::string>{"ns/a", "ns/c"}));
  ObjectPtr c = inf.store().get("ns/c");
  ASSERT_TRUE(c);
  EXPECT_EQ(Recorder::rv(c), "5");
  EXPECT_EQ(json::get_string(*c, "kind"), "RayCluster");
}

TEST(Informer, GoneOnTheWatchRequestRelists) {
  FakeApi api;
  api.add_list(doc(list("10", {item("a", "1")})));
  api.add_watch({}, fail("Expired: too old resource version", 410, "Expired"));
  api.add_list(doc(list("30", {})));
  Informer inf(api.io(), options());
  Recorder rec;
  rec.attach(inf);
  ASSERT_TRUE(inf.start().has_value());
  ASSERT_TRUE(api.wait_idle());
  EXPECT_EQ(api.list_targets().size(), 2u);
  EXPECT_EQ(rec.get(), (std::vector<std::string>{"add ns/a", "delete ns/a"}));
  EXPECT_EQ(inf.stats().relists, 1u);
}

TEST(Informer, ForbiddenAndFailedWatchesAreRetriedFromTheLastVersion) {
  FakeApi api;
  api.add_list(doc(list("10", {})));
  api.add_watch({}, fail("watch forbidden", 403, "Forbidden"));
  api.add_watch(
      {line("ADDED", item("a", "11")), line("ERROR", R"({"kind":"Status","code":500,"reason":"InternalError"})")});
  api.add_watch({"not json"});
  Informer inf(api.io(), options());
  ASSERT_TRUE(inf.start().has_value());
  ASSERT_TRUE(api.wait_idle());
  EXPECT_EQ(api.list_targets().size(), 1u);  // no relist for these errors
  auto watches = api.watch_targets();
  ASSERT_EQ(watches.size(), 4u);
  EXPECT_NE(watches[1].find("resourceVersion=10&"), std::string::npos) << watches[1];
  EXPECT_NE(watches[2].find("resourceVersion=11&"), std::string::npos) << watches[2];
  EXPECT_NE(watches[3].find("resourceVersion=11&"), std::string::npos) << watches[3];
  EXPECT_EQ(inf.stats().watch_errors, 3u);
  EXPECT_EQ(inf.store().keys(), (std::vector<std::string>{"ns/a"}));
}

// The fifteenth user trial: one failed list followed by a slow one was given up (a cumulative error count and a
// fixed wait) while its pages were arriving. "Failing" lasts from the first failure of a run of them to the next
// page, and never while a request is in flight.
TEST(Informer, AListIsFailingOnlyBetweenAFailureAndTheNextPage) {
  ManualClock clock;
  std::mutex mu;
  std::condition_variable cv;
  int calls = 0;         // list requests made
  bool release = false;  // lets the request in flight answer
  std::vector<Result<json::Document>> answers;
  answers.push_back(fail("internal error", 500, "InternalError"));
  answers.push_back(doc(list("5", {item("a", "1")}, "next")));
  answers.push_back(fail("connection reset"));
  answers.push_back(fail("connection reset"));
  answers.push_back(doc(list("6", {item("b", "2")})));
  ListWatcher io;
  io.list = [&](const std::string&) -> Result<json::Document> {
    std::unique_lock lk(mu);
    const int n = calls++;
    cv.notify_all();
    cv.wait(lk, [&] { return release || n >= static_cast<int>(answers.size()); });
    release = false;
    if (n >= static_cast<int>(answers.size())) return fail("script ended");
    return std::move(answers[n]);
  };
  io.watch = [](const std::string&, const std::function<bool(std::string_view)>&, client::StopToken& stop) {
    while (!stop.stop_requested()) std::this_thread::sleep_for(1ms);
    return Result<void>{};
  };
  InformerOptions o = options();
  o.now = clock.fn();
  Informer inf(io, o);
  // Waits for request n to be in flight; the one before it has then been handled.
  auto in_flight = [&](int n) {
    std::unique_lock lk(mu);
    return cv.wait_for(lk, 5s, [&] { return calls >= n; });
  };
  auto answer = [&] {
    std::lock_guard lk(mu);
    release = true;
    cv.notify_all();
  };
  ASSERT_TRUE(inf.start().has_value());
  ASSERT_TRUE(in_flight(1));
  EXPECT_FALSE(inf.list_failing_since()) << "nothing failed yet";
  clock.advance(10s);
  answer();  // 500
  ASSERT_TRUE(in_flight(2));
  EXPECT_FALSE(inf.list_failing_since()) << "a request in flight is arriving, however long it takes";
  clock.advance(40s);
  answer();  // the first page
  ASSERT_TRUE(in_flight(3));
  EXPECT_FALSE(inf.list_failing_since());
  answer();  // reset
  ASSERT_TRUE(in_flight(4));
  clock.advance(5s);
  answer();  // reset again: the run of failures started at the first of them
  ASSERT_TRUE(in_flight(5));
  EXPECT_FALSE(inf.list_failing_since()) << "in flight again";
  answer();
  ASSERT_TRUE(inf.wait_for_sync(5000));
  EXPECT_FALSE(inf.list_failing_since());
  EXPECT_EQ(inf.stats().list_errors, 3u);
}

// A failure leaves the list failing, from the end of the first failed request, until a page comes.
TEST(Informer, AFailingListSaysSinceWhen) {
  ManualClock clock;
  FakeApi api;
  api.add_list(fail("list forbidden", 403, "Forbidden"));
  InformerOptions o = options();
  o.now = clock.fn();
  o.watcher.backoff.initial_ms = o.watcher.backoff.max_ms = 60000;  // the retry waits (real time) past the test
  clock.advance(7s);
  Informer inf(api.io(), o);
  ASSERT_TRUE(inf.start().has_value());
  for (int i = 0; i < 500 && !inf.list_failing_since(); ++i) std::this_thread::sleep_for(1ms);
  ASSERT_TRUE(inf.list_failing_since());
  EXPECT_EQ(*inf.list_failing_since(), TimePoint{} + 7s);
  clock.advance(31s);
  EXPECT_EQ(*inf.list_failing_since(), TimePoint{} + 7s) << "a later look does not move it";
  inf.stop();
}

TEST(Informer, FailedListIsRetried) {
  FakeApi api;
  api.add_list(fail("list forbidden", 403, "Forbidden"));
  api.add_list(doc(list("5", {item("a", "1")})));
  Informer inf(api.io(), options());
  ASSERT_TRUE(inf.start().has_value());
  ASSERT_TRUE(inf.wait_for_sync(10000));
  EXPECT_EQ(inf.stats().list_errors, 1u);
  EXPECT_EQ(inf.store().size(), 1u);
}

TEST(Informer, NotSyncedWhileListsFail) {
  FakeApi api;
  api.add_list(fail("boom", 500));
  // The script then runs out: further lists fail too.
  InformerOptions o = options();
  o.watcher.backoff.initial_ms = o.watcher.backoff.max_ms = 60000;  // one retry would take a minute
  Informer inf(api.io(), o);
  ASSERT_TRUE(inf.start().has_value());
  EXPECT_FALSE(inf.wait_for_sync(50));
  EXPECT_FALSE(inf.has_synced());
  // stop() interrupts the backoff wait.
  auto stopped = std::async(std::launch::async, [&] { inf.stop(); });
  EXPECT_EQ(stopped.wait_for(10s), std::future_status::ready);
}

TEST(Informer, StopInterruptsAnOpenWatch) {
  FakeApi api;
  api.add_list(doc(list("10", {})));
  Informer inf(api.io(), options());
  ASSERT_TRUE(inf.start().has_value());
  ASSERT_TRUE(api.wait_idle());
  auto stopped = std::async(std::launch::async, [&] { inf.stop(); });
  EXPECT_EQ(stopped.wait_for(10s), std::future_status::ready);
  EXPECT_FALSE(inf.start().has_value());  // an informer runs once
}

// A process stop ends the client's requests before it stops the informers (RestClient::with_stop): the list that
// fails then ("cancelled") and the watch that ends are not failures to count, log and retry with backoff.
TEST(Informer, RequestsEndedByTheProcessStopAreNotRetried) {
  std::atomic<bool> ending{false};
  FakeApi api;
  api.add_list(fail("list: cancelled", 0, "Cancelled"));
  ListWatcher io = api.io();
  auto list = io.list;
  io.list = [&](const std::string& target) {
    ending = true;  // the stop began while this list was in flight
    return list(target);
  };
  io.stopping = [&] { return ending.load(); };
  Informer inf(std::move(io), options());  // a failed request is retried after 1 ms
  ASSERT_TRUE(inf.start().has_value());
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(api.list_targets().size(), 1u) << "no second list once the requests ended";
  EXPECT_EQ(inf.stats().list_errors, 0u);
  EXPECT_FALSE(inf.list_failing_since().has_value());
  auto stopped = std::async(std::launch::async, [&] { inf.stop(); });
  EXPECT_EQ(stopped.wait_for(10s), std::future_status::ready);
}

TEST(Informer, AWatchEndedByTheProcessStopIsNotOpenedAgain) {
  std::atomic<bool> ending{false};
  std::atomic<int> watches{0};
  FakeApi api;
  api.add_list(doc(list("10", {})));
  ListWatcher io = api.io();
  io.watch = [&](const std::string&, const std::function<bool(std::string_view)>&, client::StopToken&) {
    ++watches;
    ending = true;  // a watch ended by the client's stop returns success
    return Result<void>{};
  };
  io.stopping = [&] { return ending.load(); };
  Informer inf(std::move(io), options());
  ASSERT_TRUE(inf.start().has_value());
  ASSERT_TRUE(inf.wait_for_sync(10000));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(watches.load(), 1) << "no second watch once the requests ended";
  EXPECT_EQ(api.list_targets().size(), 1u);
  auto stopped = std::async(std::launch::async, [&] { inf.stop(); });
  EXPECT_EQ(stopped.wait_for(10s), std::future_status::ready);
}

TEST(Informer, HandlerExceptionsDoNotStopTheInformer) {
  FakeApi api;
  api.add_list(doc(list("10", {item("a", "1")})));
  api.add_watch({line("ADDED", item("b", "11"))});
  Informer inf(api.io(), options());
  inf.on_add([](const ObjectPtr&) { throw std::runtime_error("handler bug"); });
  ASSERT_TRUE(inf.start().has_value());
  ASSERT_TRUE(api.wait_idle());
  EXPECT_EQ(inf.store().keys(), (std::vector<std::string>{"ns/a", "ns/b"}));
}

TEST(EnqueueFrom, OwnedObjectsWakeTheirControllingOwner) {
  FakeApi api;
  const std::string owned = R"(,"ownerReferences":[{"apiVersion":"codeflare.dev/v1alpha1","kind":"CodeFlareWorkload",
                                "name":"wl","uid":"u1","controller":true}])";
  api.add_list(doc(list("10", {item("wl-ray", "1", owned), item("stray", "2")})));
  auto queue = std::make_shared<WorkQueue>();
  Informer inf(api.io(), options());
  enqueue_from(inf, queue, owner_key("codeflare.dev", "CodeFlareWorkload"));
  ASSERT_TRUE(inf.start().has_value());
  ASSERT_TRUE(api.wait_idle());
  EXPECT_EQ(queue->try_get(), "ns/wl");
  EXPECT_EQ(queue->try_get(), std::nullopt);
}

TEST(EnqueueFrom, OwnKeysAreQueued) {
  FakeApi api;
  api.add_list(doc(list("10", {item("a", "1"), item("b", "2")})));
  api.add_watch({line("MODIFIED", item("a", "3"))});
  auto queue = std::make_shared<WorkQueue>();
  Informer inf(api.io(), options());
  enqueue_from(inf, queue, own_key());
  ASSERT_TRUE(inf.start().has_value());
  ASSERT_TRUE(api.wait_idle());
  EXPECT_EQ(queue->len(), 2u);  // ns/a's second add coalesced
  EXPECT_EQ(queue->try_get(), "ns/a");
  EXPECT_EQ(queue->try_get(), "ns/b");
}

TEST(EnqueueAllFrom, OneObjectWakesEveryKeyItMapsTo) {
  FakeApi api;
  api.add_list(doc(list("10", {item("team-q", "1"), item("unused-q", "2")})));
  auto queue = std::make_shared<WorkQueue>();
  Informer inf(api.io(), options());
  // As a LocalQueue wakes the workloads that name it: two for team-q, none for unused-q.
  enqueue_all_from(inf, queue, [](const json::Value& obj) {
    std::vector<std::string> keys;
    if (json::get_string(obj["metadata"], "name") == std::string("team-q")) keys = {"ns/wl-1", "ns/wl-2"};
    return keys;
  });
  ASSERT_TRUE(inf.start().has_value());
  ASSERT_TRUE(api.wait_idle());
  EXPECT_EQ(queue->len(), 2u);
  EXPECT_EQ(queue->try_get(), "ns/wl-1");
  EXPECT_EQ(queue->try_get(), "ns/wl-2");
}

TEST(EnqueueFrom, UpdatePredicateSkipsStatusOnlyChangesButNotAddsOrDeletes) {
  // The workload informer's filter: our own status writes must not wake the workload again.
  auto wl = [](const std::string& rv, int generation, const std::string& meta_extra, const std::string& phase) {
    return R"({"metadata":{"name":"a","namespace":"ns","resourceVersion":")" + rv + R"(","generation":)" +
           std::to_string(generation) + meta_extra + R"(},"status":{"phase":")" + phase + R"("}})";
  };
  FakeApi api;
  api.add_list(doc(list("1", {wl("1", 1, "", "")})));
  api.add_watch({
      line("MODIFIED", wl("2", 1, "", "Pending")),                                             // status only: skipped
      line("MODIFIED", wl("3", 2, "", "Pending")),                                             // spec changed
      line("MODIFIED", wl("4", 2, R"(,"labels":{"x":"y"})", "Pending")),                       // labels
      line("MODIFIED", wl("5", 2, R"(,"labels":{"x":"y"},"managedFields":[{}])", "Running")),  // status + fields
      line("MODIFIED", wl("6", 2, R"(,"labels":{"x":"y"},"deletionTimestamp":"t")", "Running")),  // deletion
      line("DELETED", wl("7", 2, R"(,"labels":{"x":"y"},"deletionTimestamp":"t")", "Running")),
  });
  auto queue = std::make_shared<WorkQueue>();
  std::mutex mu;
  std::vector<std::string> mapped;  // resourceVersions of the objects mapped to a key (an update maps old and new)
  Informer inf(api.io(), options());
  enqueue_from(
      inf, queue,
      [&](const json::Value& obj) -> std::optional<std::string> {
        std::lock_guard lk(mu);
        mapped.push_back(json::get_string(obj["metadata"], "resourceVersion").value_or("?"));
        return key_of(obj);
      },
      spec_or_metadata_changed);
  ASSERT_TRUE(inf.start().has_value());
  ASSERT_TRUE(api.wait_idle());
  std::lock_guard lk(mu);
  EXPECT_EQ(mapped, (std::vector<std::string>{"1", "2", "3", "3", "4", "5", "6", "7"}));
}
