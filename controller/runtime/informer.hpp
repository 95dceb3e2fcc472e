#pragma once
// An informer: one thread that lists and watches one resource type, keeps a Store current and tells handlers
// what changed (client-go SharedIndexInformer / kube-rs reflector(watcher())).
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "client/rest_client.hpp"
#include "core/error.hpp"
#include "core/json.hpp"
#include "runtime/cached_object.hpp"
#include "core/clock.hpp"
#include "runtime/random.hpp"
#include "runtime/store.hpp"
#include "runtime/watcher.hpp"

namespace cfo::runtime {

/// The two requests an informer makes, so that tests can script them without a server. `target` is the path
/// with query ("/apis/ray.io/v1/rayclusters?limit=500").
/// - list: GET, returning the parsed `*List` object, or an Error carrying http_status for non-2xx answers.
/// - watch: streaming GET, calling on_line per newline-delimited JSON line until the stream ends, on_line returns
///   false, or `stop` is requested (then success); non-2xx → Error with http_status. Same contract as
///   client::RestClient::watch.
/// - stopping (may be empty): true once the requests end for good because the process is stopping
///   (client::RestClient::stop_requested); the informer then waits for its own stop without counting an error,
///   logging a retry or backing off.
struct ListWatcher {
  std::function<Result<json::Document>(const std::string& target)> list;
  /// A list read item by item (RestClient::get_list): each item's text goes to the callback, the result is the list
  /// without its items. Used instead of `list` when set.
  std::function<Result<json::Document>(const std::string& target, const json::ListSplitter::ItemFn& on_item)>
      list_items;
  std::function<Result<void>(const std::string& target, const std::function<bool(std::string_view)>& on_line,
                             client::StopToken& stop)>
      watch;
  std::function<bool()> stopping;
};

/// A ListWatcher over a RestClient (get_json and watch). The client is shared by copies. `metadata_only`: the list asks
/// for client::kMetadataListAccept, the watch for client::kMetadataAccept (InformerOptions::metadata_only).
ListWatcher rest_list_watcher(client::RestClient client, bool metadata_only = false);

/// What to watch and how.
struct InformerOptions {
  client::ResourceType resource;  ///< e.g. {"ray.io", "v1", "rayclusters", true}
  std::string namespace_name;     ///< empty = all namespaces (or a cluster-scoped type)
  std::string label_selector;     ///< labelSelector of list and watch; empty = everything
  std::string field_selector;     ///< fieldSelector of list and watch ("metadata.name=x"); empty = everything
  /// Applied to every object before it is cached and handed to handlers; an empty one keeps objects whole.
  /// Cached objects are compact copies (compact_object) either way.
  ObjectTransform transform = strip_managed_fields;
  /// Hold the cached objects deflated (Store(true), packed_object.hpp): for many objects read now and then by key.
  bool pack_cache = false;
  /// List and watch the objects' metadata only (client::kMetadataListAccept / kMetadataAccept: meta.k8s.io/v1
  /// PartialObjectMetadata, whole objects where the apiserver does not serve it): for a cache that tells only that
  /// something changed, of objects large in full (CRDs). With a RestClient only; a given ListWatcher decides itself.
  bool metadata_only = false;
  WatcherOptions watcher;  ///< page size, watch timeouts, backoff (its selectors are overridden)
  NowFn now;               ///< clock for backoff bookkeeping; empty = steady clock
  UniformFn uniform;       ///< randomness for jitter and watch timeouts; empty = seeded PRNG
};

/// Counters of what the informer thread did; cumulative, readable from any thread.
struct InformerStats {
  uint64_t lists_completed = 0;  ///< complete (all pages) lists applied to the store
  uint64_t relists = 0;          ///< 410 Gone/Expired answers that forced a relist
  uint64_t watch_errors = 0;     ///< failed watch requests and ERROR events other than 410
  uint64_t list_errors = 0;      ///< failed list requests
};

/// Runs the Watcher state machine against a ListWatcher on its own thread and applies the results to a Store.
/// Handlers run on the informer thread, in the order of the changes; they should be quick (enqueue keys) and
/// must not call stop(). Exceptions thrown by handlers are caught and logged. A list or watch answered with 403
/// is logged at error level (missing RBAC leaves the cache stale) and retried with backoff like other errors.
/// Register handlers before start(); later registrations are ignored (logged).
class Informer {
 public:
  using ObjectHandler = std::function<void(const ObjectPtr& object)>;
  using UpdateHandler = std::function<void(const ObjectPtr& old_object, const ObjectPtr& new_object)>;

  Informer(ListWatcher io, InformerOptions opts);
  Informer(client::RestClient client, InformerOptions opts);
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;
  /// Stops and joins the thread.
  ~Informer();

  /// Called for every object that enters the cache (initial list, relist, ADDED/unknown MODIFIED events).
  void on_add(ObjectHandler handler);
  /// Called with the cached and the new state for every replacement, including every object still present
  /// after a relist (a resync: old and new may be equal).
  void on_update(UpdateHandler handler);
  /// Called with the last state of every object that leaves the cache (DELETED events, or gone at a relist).
  void on_delete(ObjectHandler handler);

  /// Starts the thread. Error when already started (an informer runs once).
  Result<void> start();
  /// Requests a stop (interrupting a backoff wait or an open watch through the StopToken) and joins the thread.
  /// A list request in flight is not interruptible (ListWatcher::list takes no StopToken) and is waited for (at
  /// most the client's request timeout). Idempotent; safe to call without start().
  void stop();

  /// True once the first complete list has been applied to the store.
  bool has_synced() const;
  /// Waits up to `timeout_ms` (real time) for has_synced(). False on timeout or when stopped before syncing.
  bool wait_for_sync(int64_t timeout_ms);

  /// The cache. Reads are thread-safe.
  const Store& store() const { return store_; }
  /// Counters of lists, relists and errors so far.
  InformerStats stats() const;
  /// When the list has been failing since (the informer's clock, InformerOptions::now): the end of the first of the
  /// failed list requests in a row, none of them followed by a page received; nullopt while a list request is in
  /// flight (a list still arriving, however slowly, is not failing), after a page came, or before any failure.
  std::optional<TimePoint> list_failing_since() const;
  /// "<collection path>" of the watched type, for logs.
  const std::string& path() const { return path_; }

 private:
  void run();
  bool sleep_ms(int64_t delay_ms);
  bool requests_ended() const;  // ListWatcher::stopping
  /// One page of the list (or the whole list when it comes unpaged): its items prepared into `pending`, the page
  /// without them returned (its metadata is what the Watcher reads).
  Result<json::Document> list_page(const std::string& target, std::vector<Store::Item>& pending);
  void do_list(const std::string& target, std::vector<Store::Item>& pending);
  void do_watch(const std::string& target);
  void dispatch(const StoreChange& change);
  void log_request_error(std::string_view what, const Error& e);

  ListWatcher io_;
  InformerOptions opts_;
  std::string path_;
  Watcher watcher_;  // touched only by the informer thread (and the constructor)
  Store store_;
  std::vector<ObjectHandler> add_handlers_;
  std::vector<UpdateHandler> update_handlers_;
  std::vector<ObjectHandler> delete_handlers_;

  client::StopToken stop_;
  std::mutex mu_;
  std::condition_variable cv_;  // wakes sleep_ms() on stop and wait_for_sync() on sync
  std::atomic<bool> started_{false};
  std::atomic<bool> synced_{false};
  std::thread thread_;

  std::atomic<uint64_t> lists_completed_{0};
  std::atomic<uint64_t> relists_{0};
  std::atomic<uint64_t> watch_errors_{0};
  std::atomic<uint64_t> list_errors_{0};
  NowFn now_;                                   // opts_.now or the steady clock
  std::atomic<bool> listing_{false};            // a list request is in flight
  std::atomic<int64_t> list_failing_since_{0};  // TimePoint ticks of the first failure in a row; 0: none
};

}  // namespace cfo::runtime
