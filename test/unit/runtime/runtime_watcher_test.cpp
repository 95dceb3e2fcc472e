#include <gtest/gtest.h>

#include <string>

#include "core/json.hpp"
#include "json_doc.hpp"
#include "core/watch_event.hpp"
#include "core/clock.hpp"
#include "runtime/random.hpp"
#include "runtime/watcher.hpp"

using namespace cfo;
using namespace cfo::runtime;
using cfo::runtime::test::doc;

namespace {

json::Document list_page(const std::string& rv, const std::string& cont = "") {
  std::string meta = "\"resourceVersion\":\"" + rv + "\"";
  if (!cont.empty()) meta += ",\"continue\":\"" + cont + "\"";
  return doc("{\"kind\":\"RayClusterList\",\"metadata\":{" + meta + "},\"items\":[]}");
}

WatchEvent event(const std::string& type, const std::string& object_json) {
  auto ev = decode_watch_event("{\"type\":\"" + type + "\",\"object\":" + object_json + "}");
  EXPECT_TRUE(ev.has_value());
  return ev ? std::move(*ev) : WatchEvent{};
}

WatchEvent object_event(const std::string& type, const std::string& rv) {
  return event(type, "{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\",\"resourceVersion\":\"" + rv + "\"}}");
}

WatchEvent error_event(int code) {
  return event("ERROR", "{\"kind\":\"Status\",\"code\":" + std::to_string(code) + ",\"reason\":\"x\"}");
}

struct Fixture {
  ManualClock clock;
  Watcher w;
  explicit Fixture(WatcherOptions opts = {}, double u = 0.0) : w(std::move(opts), clock.fn(), fixed_uniform(u)) {}

  /// Drives the watcher to Watching at resourceVersion `rv` with a one-page list.
  void listed(const std::string& rv) {
    auto req = w.next_request();
    ASSERT_EQ(req.kind, WatcherRequest::Kind::List);
    auto last = w.on_list_page(list_page(rv));
    ASSERT_TRUE(last.has_value());
    ASSERT_TRUE(*last);
  }
};

}  // namespace

TEST(Watcher, StartsWithAFirstListPage) {
  Fixture f;
  EXPECT_EQ(f.w.state(), WatcherState::NeedList);
  auto req = f.w.next_request();
  EXPECT_EQ(req.kind, WatcherRequest::Kind::List);
  EXPECT_EQ(req.query, "limit=500&resourceVersion=0");  // from the watch cache, as client-go's reflector
  EXPECT_EQ(req.delay_ms, 0);
  EXPECT_EQ(f.w.state(), WatcherState::Listing);
}

// The first list may be served from the watch cache (resourceVersion=0); a continuation carries its own version;
// the lists after a completed one (a 410 on the watch) read the latest state; the option turns the first one off.
TEST(Watcher, OnlyTheFirstListComesFromTheWatchCache) {
  Fixture f;
  EXPECT_EQ(f.w.next_request().query, "limit=500&resourceVersion=0");
  f.w.on_list_error(Error{"connection refused"});
  EXPECT_EQ(f.w.next_request().query, "limit=500&resourceVersion=0");  // still the first list
  ASSERT_FALSE(f.w.on_list_page(list_page("", "c1")).value());
  EXPECT_EQ(f.w.next_request().query, "limit=500&continue=c1");
  ASSERT_TRUE(f.w.on_list_page(list_page("9")).value());
  f.w.next_request();  // the watch
  f.w.on_watch_error(Error{"too old resource version", 410, "Expired"});
  EXPECT_EQ(f.w.next_request().query, "limit=500");

  Fixture off(WatcherOptions{.first_list_from_cache = false});
  EXPECT_EQ(off.w.next_request().query, "limit=500");
}

TEST(Watcher, PaginatesWithContinueTokensThenWatchesFromTheListVersion) {
  Fixture f;
  f.w.next_request();
  auto more = f.w.on_list_page(list_page("", "tok/en=="));
  ASSERT_TRUE(more.has_value());
  EXPECT_FALSE(*more);
  EXPECT_EQ(f.w.state(), WatcherState::Listing);
  EXPECT_EQ(f.w.next_request().query, "limit=500&continue=tok%2Fen%3D%3D");

  auto last = f.w.on_list_page(list_page("1234"));
  ASSERT_TRUE(last.has_value());
  EXPECT_TRUE(*last);
  EXPECT_EQ(f.w.state(), WatcherState::Watching);
  EXPECT_EQ(f.w.resource_version(), "1234");

  auto req = f.w.next_request();
  EXPECT_EQ(req.kind, WatcherRequest::Kind::Watch);
  EXPECT_EQ(req.query, "watch=1&allowWatchBookmarks=true&resourceVersion=1234&timeoutSeconds=300");
  EXPECT_EQ(req.delay_ms, 0);
}

TEST(Watcher, WatchTimeoutIsDrawnBetweenFiveAndTenMinutes) {
  Fixture high({}, 0.999999);
  high.listed("1");
  EXPECT_EQ(high.w.next_request().query, "watch=1&allowWatchBookmarks=true&resourceVersion=1&timeoutSeconds=600");
  Fixture mid({}, 0.5);
  mid.listed("1");
  EXPECT_EQ(mid.w.next_request().query, "watch=1&allowWatchBookmarks=true&resourceVersion=1&timeoutSeconds=450");
}

TEST(Watcher, LabelSelectorIsSentEscapedOnListAndWatch) {
  Fixture f(WatcherOptions{.label_selector = "app in (a,b),tier=x"});
  EXPECT_EQ(f.w.next_request().query, "limit=500&resourceVersion=0&labelSelector=app%20in%20%28a%2Cb%29%2Ctier%3Dx");
  ASSERT_TRUE(f.w.on_list_page(list_page("7")).value());
  EXPECT_EQ(f.w.next_request().query,
            "watch=1&allowWatchBookmarks=true&resourceVersion=7&timeoutSeconds=300"
            "&labelSelector=app%20in%20%28a%2Cb%29%2Ctier%3Dx");
}

TEST(Watcher, ListPageWithoutResourceVersionIsAnError) {
  Fixture f;
  f.w.next_request();
  auto r = f.w.on_list_page(doc(R"({"kind":"List","metadata":{},"items":[]})"));
  EXPECT_FALSE(r.has_value());
}

TEST(Watcher, EventsAndBookmarksAdvanceTheResourceVersion) {
  Fixture f;
  f.listed("100");
  f.w.next_request();
  EXPECT_EQ(f.w.on_watch_event(object_event("ADDED", "101")), WatchEventAction::Apply);
  EXPECT_EQ(f.w.resource_version(), "101");
  EXPECT_EQ(f.w.on_watch_event(object_event("MODIFIED", "105")), WatchEventAction::Apply);
  EXPECT_EQ(f.w.on_watch_event(object_event("BOOKMARK", "150")), WatchEventAction::Skip);
  EXPECT_EQ(f.w.resource_version(), "150");
  f.w.on_watch_closed();  // normal end after timeoutSeconds
  auto req = f.w.next_request();
  EXPECT_EQ(req.kind, WatcherRequest::Kind::Watch);
  EXPECT_EQ(req.delay_ms, 0);
  EXPECT_EQ(req.query, "watch=1&allowWatchBookmarks=true&resourceVersion=150&timeoutSeconds=300");
}

TEST(Watcher, ExpiredErrorEventRelistsWithEmptyResourceVersion) {
  Fixture f;
  f.listed("100");
  f.w.next_request();
  f.w.on_watch_event(object_event("MODIFIED", "120"));
  EXPECT_EQ(f.w.on_watch_event(error_event(410)), WatchEventAction::Restart);
  EXPECT_EQ(f.w.state(), WatcherState::NeedList);
  EXPECT_EQ(f.w.resource_version(), "");
  auto req = f.w.next_request();
  EXPECT_EQ(req.kind, WatcherRequest::Kind::List);
  EXPECT_EQ(req.query, "limit=500");  // no resourceVersion: a consistent (quorum) read
  EXPECT_EQ(req.delay_ms, 0);
}

TEST(Watcher, GoneOnTheWatchRequestRelists) {
  Fixture f;
  f.listed("100");
  f.w.next_request();
  f.clock.advance(std::chrono::milliseconds(5000));  // the watch ran a while before the server answered 410
  f.w.on_watch_error(Error{"too old resource version", 410, "Expired"});
  EXPECT_EQ(f.w.state(), WatcherState::NeedList);
  auto req = f.w.next_request();
  EXPECT_EQ(req.kind, WatcherRequest::Kind::List);
  EXPECT_EQ(req.delay_ms, 0);
}

TEST(Watcher, ImmediateGoneAfterListBacksOffBeforeRelisting) {
  Fixture f;
  f.listed("100");
  f.w.next_request();
  f.w.on_watch_error(Error{"expired", 410, "Expired"});  // at once, no events: would loop list→410→list
  auto req = f.w.next_request();
  EXPECT_EQ(req.kind, WatcherRequest::Kind::List);
  EXPECT_EQ(req.delay_ms, 800);
}

TEST(Watcher, OtherErrorsBackOffThenWatchFromTheLastVersion) {
  Fixture f;
  f.listed("100");
  f.w.next_request();
  f.w.on_watch_event(object_event("MODIFIED", "130"));
  EXPECT_EQ(f.w.on_watch_event(error_event(500)), WatchEventAction::Restart);
  EXPECT_EQ(f.w.state(), WatcherState::Watching);
  auto req = f.w.next_request();
  EXPECT_EQ(req.kind, WatcherRequest::Kind::Watch);
  EXPECT_EQ(req.delay_ms, 800);
  EXPECT_EQ(req.query, "watch=1&allowWatchBookmarks=true&resourceVersion=130&timeoutSeconds=300");

  f.w.on_watch_error(Error{"connection refused"});
  req = f.w.next_request();
  EXPECT_EQ(req.delay_ms, 1600);
  EXPECT_EQ(req.query, "watch=1&allowWatchBookmarks=true&resourceVersion=130&timeoutSeconds=300");
  f.w.on_watch_error(Error{"forbidden", 403, "Forbidden"});
  EXPECT_EQ(f.w.next_request().delay_ms, 3200);
}

TEST(Watcher, ReconnectBackoffGrowsCapsAndResetsAfterTwoHealthyMinutes) {
  Fixture f;
  f.listed("1");
  std::vector<int64_t> delays;
  f.w.next_request();
  for (int i = 0; i < 8; ++i) {
    f.w.on_watch_error(Error{"unavailable", 503});
    delays.push_back(f.w.next_request().delay_ms);
  }
  EXPECT_EQ(delays, (std::vector<int64_t>{800, 1600, 3200, 6400, 12800, 25600, 30000, 30000}));
  // A watch that then stays healthy for more than 2 min: the next failure starts over.
  f.clock.advance(std::chrono::milliseconds(121 * 1000));
  f.w.on_watch_error(Error{"unavailable", 503});
  EXPECT_EQ(f.w.next_request().delay_ms, 800);
}

TEST(Watcher, VeryShortEmptyWatchCountsAsFailure) {
  Fixture f;
  f.listed("1");
  f.w.next_request();
  f.w.on_watch_closed();  // closed at once without events
  EXPECT_EQ(f.w.next_request().delay_ms, 800);
  f.clock.advance(std::chrono::milliseconds(800 + 1000));  // the backoff delay, then a watch that lasted a second
  f.w.on_watch_closed();                                   // healthy
  EXPECT_EQ(f.w.next_request().delay_ms, 0);
  f.w.on_watch_event(object_event("BOOKMARK", "2"));
  f.w.on_watch_closed();  // short but delivered an event: healthy
  EXPECT_EQ(f.w.next_request().delay_ms, 0);
}

TEST(Watcher, ListErrorBacksOffAndRestartsTheList) {
  Fixture f;
  f.w.next_request();
  ASSERT_FALSE(f.w.on_list_page(list_page("", "c1")).value());
  f.w.on_list_error(Error{"internal error", 500});
  EXPECT_EQ(f.w.state(), WatcherState::NeedList);
  auto req = f.w.next_request();
  EXPECT_EQ(req.query, "limit=500&resourceVersion=0");  // no list has completed yet
  EXPECT_EQ(req.delay_ms, 800);
}

// The sixteenth user trial: a paged list slower than etcd's compaction (2,500 LocalQueues at 15 KB/s) lost its
// continue token and started over, paged again, so it could expire again for ever. It lists again at once in one
// request without `limit` (client-go's pager falls back so); the list after that is paged again.
TEST(Watcher, ExpiredContinueTokenListsAgainAtOnceInOneRequest) {
  Fixture f;
  f.w.next_request();
  ASSERT_FALSE(f.w.on_list_page(list_page("", "c1")).value());
  EXPECT_EQ(f.w.next_request().query, "limit=500&continue=c1");
  f.w.on_list_error(Error{"continue token expired", 410, "Expired"});
  auto req = f.w.next_request();
  EXPECT_EQ(req.query, "resourceVersion=0");  // still the first list: from the watch cache, unpaged
  EXPECT_EQ(req.delay_ms, 0);
  ASSERT_TRUE(f.w.on_list_page(list_page("7")).value());
  f.w.next_request();  // the watch
  f.w.on_watch_error(Error{"too old resource version", 410, "Expired"});
  EXPECT_EQ(f.w.next_request().query, "limit=500");
}
