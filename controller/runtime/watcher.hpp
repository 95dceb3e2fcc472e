#pragma once
// The list+watch protocol as a pure state machine (kube-rs watcher style): it decides the next request and digests
// the answers; the Informer does the I/O.
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/json.hpp"
#include "core/watch_event.hpp"
#include "runtime/backoff.hpp"
#include "core/clock.hpp"
#include "runtime/random.hpp"

namespace cfo::runtime {

/// Options of a Watcher, with their upstream sources.
struct WatcherOptions {
  /// `limit` of each list page (kube-rs watcher Config page_size 500, "same default page size limit as client-go").
  int64_t page_size = 500;
  /// The watch `timeoutSeconds` is drawn uniformly from [min, max] (client-go reflector: 5 min and twice that,
  /// "to spread the load on apiserver").
  int64_t min_watch_timeout_s = 300;
  int64_t max_watch_timeout_s = 600;
  /// `labelSelector` of both list and watch; empty = everything.
  std::string label_selector;
  /// `fieldSelector` of both list and watch; empty = everything.
  std::string field_selector;
  /// Reconnect backoff after failures (client-go reflector / kube-rs DefaultBackoff).
  BackoffOptions backoff;
  /// A watch that ends (normally or with 410) within this time without delivering any event counts as a failure
  /// and is retried with backoff, so that a server that closes streams at once is not hammered (client-go
  /// reflector's "very short watch" check uses 1 s).
  int64_t min_healthy_watch_ms = 1000;
  /// The first list asks for resourceVersion=0: any state the apiserver has, served from its watch cache instead of
  /// a read from etcd, as client-go's reflector lists first (relistResourceVersion "0", api-concepts "Semantics for
  /// get and list"). Later lists (after a 410 Gone) read the latest state. A watch cache that ignores `limit` there
  /// (kube-apiserver 1.20 does) answers in one response, which the informer reads item by item (RestClient::get_list).
  bool first_list_from_cache = true;
};

/// NeedList: the next request is the first page of a list. Listing: a paginated list is in progress.
/// Watching: the cache is complete and the next request (re)opens a watch from resource_version().
enum class WatcherState { NeedList, Listing, Watching };

/// One request to make. `query` is the query string without '?', to append to the collection path; the caller
/// must wait `delay_ms` before sending it (0 = send now).
struct WatcherRequest {
  enum class Kind { List, Watch };
  Kind kind = Kind::List;
  std::string query;
  int64_t delay_ms = 0;
};

/// What the caller should do with one watch event.
enum class WatchEventAction {
  Apply,    ///< ADDED / MODIFIED / DELETED: apply it to the cache
  Skip,     ///< BOOKMARK: only the resourceVersion moved
  Restart,  ///< ERROR (or undecodable): close this stream and ask next_request()
};

/// client-go Reflector.ListAndWatch / kube-rs watcher():
/// - NeedList → list pages with `limit` and `continue` (quorum reads: no resourceVersion, kube-rs
///   ListSemantic::MostRecent) → Watching with the list's resourceVersion.
/// - Watching: `watch=1&allowWatchBookmarks=true&resourceVersion=<rv>&timeoutSeconds=<random>`; every event,
///   BOOKMARK included, advances the resourceVersion. A stream that ends normally is reopened at once from the
///   last resourceVersion.
/// - 410 Gone/Expired (an ERROR event with code 410, or HTTP 410 on the watch request) → NeedList with
///   resourceVersion "" (relist). A 410 on a list continuation restarts the list as one request without `limit`.
/// - Any other failure → backoff (BackoffOptions) and then retry the same step: re-watch from the last
///   resourceVersion, or restart the list.
/// Not thread-safe: one Informer thread drives it.
class Watcher {
 public:
  explicit Watcher(WatcherOptions opts = {}, NowFn now = {}, UniformFn uniform = {});

  /// Where the protocol stands.
  WatcherState state() const { return state_; }
  /// The resourceVersion the next watch starts from ("" before the first complete list and after a 410).
  const std::string& resource_version() const { return resource_version_; }
  /// The continue token of the list in progress ("" on the first page).
  const std::string& continue_token() const { return continue_; }

  /// The request to make now, with the backoff delay owed by the previous failure (consumed by this call).
  /// NeedList becomes Listing. For a watch, it starts the clock of the "very short watch" check.
  WatcherRequest next_request();

  /// Digests one page of a list response (a `*List` object). Returns true when it was the last page: the state
  /// becomes Watching and resource_version() is the list's metadata.resourceVersion. Returns false when another
  /// page is needed (continue token kept). Error when not Listing or when the page has no metadata.resourceVersion.
  Result<bool> on_list_page(const json::Value& page);
  /// A list request failed. 410 on a continuation (the snapshot the pages came from is compacted away) → list again
  /// at once, in one request without `limit` (client-go's pager, FullListIfExpired: a paged list slower than etcd's
  /// compaction would otherwise start over for ever); anything else → list again from the first page, paged, after
  /// a backoff delay.
  void on_list_error(const Error& e);

  /// Digests one watch event: records its resourceVersion (object.metadata.resourceVersion) and says what to do.
  /// ERROR events with code 410 → NeedList; other ERROR events → backoff, then watch from the last resourceVersion.
  WatchEventAction on_watch_event(const WatchEvent& ev);
  /// The watch request failed (transport error or non-2xx status). 410 → NeedList; otherwise backoff.
  void on_watch_error(const Error& e);
  /// The server ended the stream normally (timeoutSeconds elapsed). Re-watch from the last resourceVersion, at
  /// once unless the watch was "very short" (then with backoff).
  void on_watch_closed();

 private:
  std::string list_query() const;
  std::string watch_query();
  void relist();
  void backoff();
  bool watch_was_short() const;

  WatcherOptions opts_;
  NowFn now_;
  UniformFn uniform_;
  Backoff backoff_;
  WatcherState state_ = WatcherState::NeedList;
  std::string resource_version_;
  std::string continue_;
  bool listed_ = false;        // a list has completed (the first list is over)
  bool unpaged_next_ = false;  // the next list is one request without `limit` (its paged attempt expired)
  int64_t pending_delay_ms_ = 0;
  TimePoint watch_started_{};
  int64_t watch_events_ = 0;
};

}  // namespace cfo::runtime
