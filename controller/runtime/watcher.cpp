#include "runtime/watcher.hpp"

#include <algorithm>
#include <cmath>

#include "client/query.hpp"

namespace cfo::runtime {

namespace {

std::string metadata_string(const json::Value& obj, std::string_view field) {
  const json::Value* meta = json::find(obj, "metadata");
  if (!meta) return {};
  return json::get_string(*meta, field).value_or("");
}

int64_t status_code(const json::Value& status) { return json::get_int(status, "code").value_or(0); }

}  // namespace

Watcher::Watcher(WatcherOptions opts, NowFn now, UniformFn uniform)
    : opts_(std::move(opts)),
      now_(now ? std::move(now) : steady_now()),
      uniform_(uniform ? std::move(uniform) : default_uniform()),
      backoff_(opts_.backoff, now_, uniform_) {}

WatcherRequest Watcher::next_request() {
  WatcherRequest req;
  req.delay_ms = pending_delay_ms_;
  pending_delay_ms_ = 0;
  if (state_ == WatcherState::NeedList) {
    state_ = WatcherState::Listing;
    continue_.clear();
  }
  if (state_ == WatcherState::Listing) {
    req.kind = WatcherRequest::Kind::List;
    req.query = list_query();
  } else {
    req.kind = WatcherRequest::Kind::Watch;
    req.query = watch_query();
    // The stream is considered started once the caller has waited the delay.
    watch_started_ = now_() + std::chrono::milliseconds(req.delay_ms);
    watch_events_ = 0;
  }
  return req;
}

std::string Watcher::list_query() const {
  std::string q = unpaged_next_ ? "" : "limit=" + std::to_string(opts_.page_size);
  if (!continue_.empty())
    q += "&continue=" + client::query_escape(continue_);  // the token carries the resourceVersion
  else if (opts_.first_list_from_cache && !listed_)
    q += "&resourceVersion=0";
  if (!opts_.label_selector.empty()) q += "&labelSelector=" + client::query_escape(opts_.label_selector);
  if (!opts_.field_selector.empty()) q += "&fieldSelector=" + client::query_escape(opts_.field_selector);
  return q.starts_with('&') ? q.substr(1) : q;
}

std::string Watcher::watch_query() {
  const int64_t lo = std::min(opts_.min_watch_timeout_s, opts_.max_watch_timeout_s);
  const int64_t hi = std::max(opts_.min_watch_timeout_s, opts_.max_watch_timeout_s);
  int64_t timeout_s = lo + static_cast<int64_t>(std::floor(uniform_() * static_cast<double>(hi - lo + 1)));
  timeout_s = std::clamp(timeout_s, lo, hi);
  std::string q = "watch=1&allowWatchBookmarks=true&resourceVersion=" + client::query_escape(resource_version_) +
                  "&timeoutSeconds=" + std::to_string(timeout_s);
  if (!opts_.label_selector.empty()) q += "&labelSelector=" + client::query_escape(opts_.label_selector);
  if (!opts_.field_selector.empty()) q += "&fieldSelector=" + client::query_escape(opts_.field_selector);
  return q;
}

Result<bool> Watcher::on_list_page(const json::Value& page) {
  if (state_ != WatcherState::Listing) return fail("watcher: list page received while not listing");
  std::string rv = metadata_string(page, "resourceVersion");
  std::string next = metadata_string(page, "continue");
  if (!next.empty()) {
    continue_ = std::move(next);
    return false;
  }
  if (rv.empty()) return fail("watcher: list response has no metadata.resourceVersion");
  continue_.clear();
  unpaged_next_ = false;
  listed_ = true;
  resource_version_ = std::move(rv);
  state_ = WatcherState::Watching;
  return true;
}

void Watcher::on_list_error(const Error& e) {
  const bool continuation = !continue_.empty();
  state_ = WatcherState::NeedList;
  continue_.clear();
  // An expired continue token is routine (the list took longer than etcd keeps the snapshot): start over now, in one
  // request, which has no token to expire.
  unpaged_next_ = continuation && e.is_gone();
  if (unpaged_next_) return;
  backoff();
}

WatchEventAction Watcher::on_watch_event(const WatchEvent& ev) {
  if (state_ != WatcherState::Watching) return WatchEventAction::Restart;
  if (ev.type == WatchEvent::Type::Error) {
    if (status_code(ev.object) == 410) {
      const bool short_watch = watch_was_short();
      relist();
      if (short_watch) backoff();
    } else {
      backoff();
    }
    return WatchEventAction::Restart;
  }
  ++watch_events_;
  if (std::string rv = metadata_string(ev.object, "resourceVersion"); !rv.empty()) resource_version_ = std::move(rv);
  return ev.type == WatchEvent::Type::Bookmark ? WatchEventAction::Skip : WatchEventAction::Apply;
}

void Watcher::on_watch_error(const Error& e) {
  if (e.is_gone()) {
    const bool short_watch = watch_was_short();
    relist();
    if (short_watch) backoff();
    return;
  }
  backoff();
}

void Watcher::on_watch_closed() {
  if (watch_was_short()) backoff();
}

void Watcher::relist() {
  state_ = WatcherState::NeedList;
  resource_version_.clear();
  continue_.clear();
}

void Watcher::backoff() { pending_delay_ms_ = backoff_.next_delay_ms(); }

bool Watcher::watch_was_short() const {
  return watch_events_ == 0 && millis_between(watch_started_, now_()) < opts_.min_healthy_watch_ms;
}

}  // namespace cfo::runtime
