#include "runtime/informer.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>

#include "core/watch_event.hpp"

namespace cfo::runtime {

namespace {

/// List items carry no apiVersion/kind for built-in types; fill them from the list ("RayClusterList" → "RayCluster")
/// so that handlers (and event recorders) can name the object.
ObjectPtr item_object(json::Document doc, std::string_view api_version, std::string_view kind,
                      const ObjectTransform& transform) {
  if (doc.IsObject()) {
    if (!api_version.empty() && !json::find(doc, "apiVersion"))
      json::set(doc, "apiVersion", json::str(api_version, doc.GetAllocator()), doc.GetAllocator());
    if (!kind.empty() && !json::find(doc, "kind"))
      json::set(doc, "kind", json::str(kind, doc.GetAllocator()), doc.GetAllocator());
  }
  if (transform) transform(doc);
  return compact_object(doc);
}

/// The kind of a list's items: its kind without the "List" suffix ("RayClusterList" -> "RayCluster"); empty when the
/// list's kind does not end so (or is not known yet).
std::string_view item_kind(std::string_view list_kind) {
  constexpr std::string_view suffix = "List";
  if (list_kind.size() > suffix.size() && list_kind.ends_with(suffix))
    return list_kind.substr(0, list_kind.size() - suffix.size());
  return {};
}

std::string status_message(const json::Value& status) {
  std::string msg = json::get_string(status, "message").value_or("");
  std::string reason = json::get_string(status, "reason").value_or("");
  int64_t code = json::get_int(status, "code").value_or(0);
  return "code " + std::to_string(code) + (reason.empty() ? "" : " " + reason) + (msg.empty() ? "" : ": " + msg);
}

}  // namespace

ListWatcher rest_list_watcher(client::RestClient client, bool metadata_only) {
  std::shared_ptr<client::RestClient> lister;
  std::shared_ptr<client::RestClient> watcher;
  if (metadata_only) {
    lister = std::make_shared<client::RestClient>(client.with_accept(client::kMetadataListAccept));
    watcher = std::make_shared<client::RestClient>(client.with_accept(client::kMetadataAccept));
  } else {
    lister = watcher = std::make_shared<client::RestClient>(std::move(client));
  }
  ListWatcher lw;
  lw.list = [lister](const std::string& target) { return lister->get_json(target); };
  lw.list_items = [lister](const std::string& target, const json::ListSplitter::ItemFn& on_item) {
    return lister->get_list(target, on_item);
  };
  lw.watch = [watcher](const std::string& target, const std::function<bool(std::string_view)>& on_line,
                       client::StopToken& stop) { return watcher->watch(target, on_line, stop); };
  lw.stopping = [lister] { return lister->stop_requested(); };
  return lw;
}

Informer::Informer(ListWatcher io, InformerOptions opts)
    : io_(std::move(io)),
      opts_(std::move(opts)),
      path_(opts_.resource.collection_path(opts_.namespace_name)),
      watcher_(
          [&] {
            WatcherOptions w = opts_.watcher;
            w.label_selector = opts_.label_selector;
            w.field_selector = opts_.field_selector;
            return w;
          }(),
          opts_.now, opts_.uniform),
      store_(opts_.pack_cache),
      now_(steady_now_unless(opts_.now)) {}

Informer::Informer(client::RestClient client, InformerOptions opts) : Informer(ListWatcher{}, std::move(opts)) {
  io_ = rest_list_watcher(std::move(client), opts_.metadata_only);  // before start(): nothing reads io_ yet
}

Informer::~Informer() { stop(); }

void Informer::on_add(ObjectHandler handler) {
  if (started_) {
    spdlog::warn("informer {}: on_add registered after start is ignored", path_);
    return;
  }
  add_handlers_.push_back(std::move(handler));
}

void Informer::on_update(UpdateHandler handler) {
  if (started_) {
    spdlog::warn("informer {}: on_update registered after start is ignored", path_);
    return;
  }
  update_handlers_.push_back(std::move(handler));
}

void Informer::on_delete(ObjectHandler handler) {
  if (started_) {
    spdlog::warn("informer {}: on_delete registered after start is ignored", path_);
    return;
  }
  delete_handlers_.push_back(std::move(handler));
}

Result<void> Informer::start() {
  if (started_.exchange(true)) return fail("informer " + path_ + ": already started");
  if ((!io_.list && !io_.list_items) || !io_.watch)
    return fail("informer " + path_ + ": list/watch functions are not set");
  thread_ = std::thread([this] { run(); });
  return {};
}

void Informer::stop() {
  stop_.request_stop();
  {
    std::lock_guard lk(mu_);
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool Informer::has_synced() const { return synced_.load(); }

bool Informer::wait_for_sync(int64_t timeout_ms) {
  std::unique_lock lk(mu_);
  cv_.wait_for(lk, std::chrono::milliseconds(timeout_ms), [&] { return synced_.load() || stop_.stop_requested(); });
  return synced_.load();
}

InformerStats Informer::stats() const {
  return {lists_completed_.load(), relists_.load(), watch_errors_.load(), list_errors_.load()};
}

std::optional<TimePoint> Informer::list_failing_since() const {
  const int64_t since = list_failing_since_.load();
  if (since == 0 || listing_.load()) return std::nullopt;
  return TimePoint(TimePoint::duration(since));
}

bool Informer::requests_ended() const { return io_.stopping && io_.stopping(); }

bool Informer::sleep_ms(int64_t delay_ms) {
  std::unique_lock lk(mu_);
  cv_.wait_for(lk, std::chrono::milliseconds(delay_ms), [&] { return stop_.stop_requested(); });
  return !stop_.stop_requested();
}

void Informer::run() {
  spdlog::debug("informer {}: started", path_);
  std::vector<Store::Item> pending;  // the pages of the list in progress, prepared (packed) as they arrive
  while (!stop_.stop_requested()) {
    if (requests_ended()) {  // the process is stopping: nothing to retry, only the informer's own stop to await
      sleep_ms(std::numeric_limits<int32_t>::max());
      continue;
    }
    const bool first_page = watcher_.state() == WatcherState::NeedList;
    WatcherRequest req = watcher_.next_request();
    if (req.delay_ms > 0) {
      spdlog::debug("informer {}: retrying in {} ms", path_, req.delay_ms);
      if (!sleep_ms(req.delay_ms)) break;
    }
    const std::string target = path_ + "?" + req.query;
    if (req.kind == WatcherRequest::Kind::List) {
      if (first_page) pending.clear();
      do_list(target, pending);
    } else {
      do_watch(target);
    }
  }
  spdlog::debug("informer {}: stopped", path_);
}

Result<json::Document> Informer::list_page(const std::string& target, std::vector<Store::Item>& pending) {
  if (!io_.list_items) {
    auto page = io_.list(target);
    if (!page) return page;
    const std::string api_version = json::get_string(*page, "apiVersion").value_or("");
    const std::string kind(item_kind(json::get_string(*page, "kind").value_or("")));
    if (const json::Value* items = json::find(*page, "items"); items && items->IsArray())
      for (const auto& item : items->GetArray())
        pending.push_back(store_.prepare(item_object(json::clone(item), api_version, kind, opts_.transform)));
    return page;
  }
  // Read item by item: each is parsed, transformed and packed as it arrives. An item that needs the list's apiVersion
  // or kind before they have come (a custom resource list names its kind after its items) waits for the end.
  std::vector<json::Document> waiting;
  auto on_item = [&](std::string_view text, std::string_view list_api_version,
                     std::string_view list_kind) -> Result<void> {
    auto doc = json::parse(text);
    if (!doc) return fail("item " + std::to_string(pending.size()) + ": " + doc.error().message);
    const bool named = !doc->IsObject() || (json::find(*doc, "apiVersion") && json::find(*doc, "kind"));
    const std::string_view kind = named ? std::string_view{} : item_kind(list_kind);
    if (!named && (list_api_version.empty() || kind.empty())) {
      waiting.push_back(std::move(*doc));
      return {};
    }
    pending.push_back(store_.prepare(item_object(std::move(*doc), list_api_version, kind, opts_.transform)));
    return {};
  };
  auto page = io_.list_items(target, on_item);
  if (!page) return page;
  const std::string api_version = json::get_string(*page, "apiVersion").value_or("");
  const std::string kind(item_kind(json::get_string(*page, "kind").value_or("")));
  for (auto& doc : waiting)
    pending.push_back(store_.prepare(item_object(std::move(doc), api_version, kind, opts_.transform)));
  return page;
}

void Informer::do_list(const std::string& target, std::vector<Store::Item>& pending) {
  listing_ = true;
  auto page = list_page(target, pending);
  // The first failure of a run of them is remembered (a tick count of 0 is taken as 1: 0 means none).
  auto failed = [this] {
    int64_t none = 0;
    list_failing_since_.compare_exchange_strong(none, std::max<int64_t>(1, now_().time_since_epoch().count()));
    listing_ = false;
  };
  if (page) list_failing_since_ = 0;  // a page came: the list is arriving (listing_ stays set until its last page)
  if (stop_.stop_requested() || requests_ended()) return;
  if (!page) {
    failed();
    ++list_errors_;
    if (page.error().is_gone() && !watcher_.continue_token().empty())  // listed again at once, in one request
      spdlog::info("informer {}: list continuation expired ({}); listing again now, in one request", path_,
                   page.error().message);
    else
      log_request_error("list", page.error());
    watcher_.on_list_error(page.error());
    return;
  }
  auto last = watcher_.on_list_page(*page);
  if (!last) {
    failed();
    ++list_errors_;
    spdlog::warn("informer {}: {}", path_, last.error().message);
    watcher_.on_list_error(last.error());
    return;
  }
  if (!*last) return;  // more pages
  listing_ = false;

  const std::size_t count = pending.size();
  std::vector<StoreChange> changes = store_.replace(std::move(pending));
  pending.clear();
  ++lists_completed_;
  spdlog::debug("informer {}: listed {} objects at resourceVersion {}", path_, count, watcher_.resource_version());
  for (const auto& change : changes) dispatch(change);
  if (!synced_.exchange(true)) {
    {
      std::lock_guard lk(mu_);
    }
    cv_.notify_all();
  }
}

void Informer::do_watch(const std::string& target) {
  bool restarted = false;
  auto on_line = [&](std::string_view line) -> bool {
    if (stop_.stop_requested()) return false;
    if (line.find_first_not_of(" \t\r\n") == std::string_view::npos) return true;
    auto ev = decode_watch_event(line);
    if (!ev) {
      ++watch_errors_;
      spdlog::warn("informer {}: undecodable watch event ({}); reconnecting", path_, ev.error().message);
      watcher_.on_watch_error(ev.error());
      restarted = true;
      return false;
    }
    const WatchEventAction action = watcher_.on_watch_event(*ev);
    if (action == WatchEventAction::Restart) {
      restarted = true;
      if (ev->type == WatchEvent::Type::Error && json::get_int(ev->object, "code").value_or(0) == 410) {
        ++relists_;
        spdlog::info("informer {}: watch expired ({}); relisting", path_, status_message(ev->object));
      } else {
        ++watch_errors_;
        const int64_t code = json::get_int(ev->object, "code").value_or(0);
        if (code == 403)
          spdlog::error("informer {}: watch forbidden ({}); the cache stays stale until RBAC allows it", path_,
                        status_message(ev->object));
        else
          spdlog::warn("informer {}: watch error ({}); reconnecting with backoff", path_, status_message(ev->object));
      }
      return false;
    }
    if (action == WatchEventAction::Apply) {
      WatchEvent::Type type = ev->type;
      if (opts_.transform && ev->object.IsObject()) opts_.transform(ev->object);
      ObjectPtr object = compact_object(ev->object);
      if (auto change = store_.apply(type, std::move(object))) dispatch(*change);
    }
    return !stop_.stop_requested();
  };

  auto result = io_.watch(target, on_line, stop_);
  if (stop_.stop_requested() || requests_ended() || restarted) return;
  if (!result) {
    if (result.error().is_gone()) {
      ++relists_;
      spdlog::info("informer {}: watch request expired ({}); relisting", path_, result.error().message);
    } else {
      ++watch_errors_;
      log_request_error("watch", result.error());
    }
    watcher_.on_watch_error(result.error());
    return;
  }
  watcher_.on_watch_closed();
}

void Informer::dispatch(const StoreChange& change) {
  // A packed change opens its objects here, one change at a time, and only for kinds that have handlers.
  auto open = [&](const ChangedObject& changed) {
    ObjectPtr object = changed.get();
    if (!object)
      spdlog::error("informer {}: the cached object of {} does not unpack; event dropped", path_, change.key);
    return object;
  };
  try {
    switch (change.kind) {
      case StoreChange::Kind::Added:
        if (add_handlers_.empty()) break;
        if (ObjectPtr object = open(change.object))
          for (auto& h : add_handlers_) h(object);
        break;
      case StoreChange::Kind::Updated: {
        if (update_handlers_.empty()) break;
        ObjectPtr old_object = open(change.old_object);
        ObjectPtr object = old_object ? open(change.object) : nullptr;
        if (object)
          for (auto& h : update_handlers_) h(old_object, object);
        break;
      }
      case StoreChange::Kind::Deleted:
        if (delete_handlers_.empty()) break;
        if (ObjectPtr object = open(change.object))
          for (auto& h : delete_handlers_) h(object);
        break;
    }
  } catch (const std::exception& e) {
    spdlog::error("informer {}: event handler threw for {}: {}", path_, change.key, e.what());
  } catch (...) {
    spdlog::error("informer {}: event handler threw for {}", path_, change.key);
  }
}

void Informer::log_request_error(std::string_view what, const Error& e) {
  if (e.http_status == 403)
    spdlog::error("informer {}: {} forbidden ({}); the cache stays stale until RBAC allows it; retrying", path_, what,
                  e.message);
  else
    spdlog::warn("informer {}: {} failed ({}); retrying with backoff", path_, what, e.message);
}

}  // namespace cfo::runtime
