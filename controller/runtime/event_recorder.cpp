#include "runtime/event_recorder.hpp"

#include <optional>

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <ctime>
#include <memory>
#include <random>

#include "runtime/object_key.hpp"

namespace cfo::runtime {

void log_event(std::string_view type, std::string_view reason, std::string_view note) {
  spdlog::log(type == "Warning" ? spdlog::level::warn : spdlog::level::info, "{} {}: {}", type, reason, note);
}

namespace {

constexpr std::size_t kNameMaxLength = 253;      // DNS-1123 subdomain
constexpr std::size_t kInstanceMaxLength = 128;  // events.k8s.io/v1 reportingInstance limit

std::string metadata_string(const json::Value& obj, std::string_view field) {
  const json::Value* meta = json::find(obj, "metadata");
  if (!meta) return {};
  return json::get_string(*meta, field).value_or("");
}

std::string host_name() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "unknown";
  return buf;
}

std::function<std::string()> random_hex_suffix() {
  struct State {
    std::mutex mu;
    std::mt19937_64 engine{std::random_device{}()};
  };
  auto state = std::make_shared<State>();
  return [state] {
    uint64_t v;
    {
      std::lock_guard lk(state->mu);
      v = state->engine();
    }
    static const char* hex = "0123456789abcdef";
    std::string out(16, '0');
    for (int i = 15; i >= 0; --i, v >>= 4) out[static_cast<std::size_t>(i)] = hex[v & 0xF];
    return out;
  };
}

/// `base` shortened so that "<base>.<suffix>" fits a DNS subdomain; a cut never leaves '.' or '-' at the end.
std::string event_name(const std::string& base, std::string_view suffix) {
  const std::size_t room = kNameMaxLength > suffix.size() + 1 ? kNameMaxLength - suffix.size() - 1 : 0;
  std::string head = base.substr(0, std::min(base.size(), room));
  if (head.size() < base.size())
    while (!head.empty() && (head.back() == '.' || head.back() == '-')) head.pop_back();
  return head + "." + std::string(suffix);
}

}  // namespace

std::string format_micro_time(std::chrono::system_clock::time_point t) {
  using namespace std::chrono;
  const auto micros = duration_cast<microseconds>(t.time_since_epoch()).count();
  int64_t secs = micros / 1000000;
  int64_t frac = micros % 1000000;
  if (frac < 0) {
    frac += 1000000;
    secs -= 1;
  }
  std::time_t tt = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%06lldZ", date, static_cast<long long>(frac));
  return out;
}

std::string truncate_utf8(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  std::size_t cut = max_bytes;
  // Step back over continuation bytes (10xxxxxx) so the cut lands before the start of a sequence.
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return std::string(s.substr(0, cut));
}

std::string events_collection_path(const std::string& ns) {
  return "/apis/events.k8s.io/v1/namespaces/" + ns + "/events";
}

json::Document event_body(const json::Value& regarding, const EventFields& fields,
                          const std::string& reporting_controller, const std::string& reporting_instance,
                          std::chrono::system_clock::time_point event_time, std::string_view name_suffix) {
  json::Document doc;
  doc.SetObject();
  auto& a = doc.GetAllocator();
  const std::string name = metadata_string(regarding, "name");
  const std::string ns = metadata_string(regarding, "namespace");

  json::set(doc, "apiVersion", json::str("events.k8s.io/v1", a), a);
  json::set(doc, "kind", json::str("Event", a), a);

  json::Value meta(rapidjson::kObjectType);
  json::set(meta, "name", json::str(event_name(name, name_suffix), a), a);
  json::set(meta, "namespace", json::str(ns.empty() ? "default" : ns, a), a);
  json::set(doc, "metadata", std::move(meta), a);

  json::Value ref(rapidjson::kObjectType);
  auto put = [&](std::string_view key, const std::string& value) {
    if (!value.empty()) json::set(ref, key, json::str(value, a), a);
  };
  put("apiVersion", json::get_string(regarding, "apiVersion").value_or(""));
  put("kind", json::get_string(regarding, "kind").value_or(""));
  put("name", name);
  put("namespace", ns);
  put("uid", metadata_string(regarding, "uid"));
  put("resourceVersion", metadata_string(regarding, "resourceVersion"));
  json::set(doc, "regarding", std::move(ref), a);

  json::set(doc, "reportingController", json::str(reporting_controller, a), a);
  json::set(doc, "reportingInstance", json::str(truncate_utf8(reporting_instance, kInstanceMaxLength), a), a);
  json::set(doc, "eventTime", json::str(format_micro_time(event_time), a), a);
  json::set(doc, "type", json::str(fields.type, a), a);
  json::set(doc, "reason", json::str(fields.reason, a), a);
  json::set(doc, "action", json::str(fields.action, a), a);
  json::set(doc, "note", json::str(truncate_utf8(fields.note, kEventNoteMaxBytes), a), a);
  return doc;
}

EventPoster rest_event_poster(client::RestClient client) {
  auto shared = std::make_shared<client::RestClient>(std::move(client));
  return [shared](const std::string& path, const json::Value& body) { return shared->create(path, body); };
}

EventRecorder::EventRecorder(EventPoster post, EventRecorderOptions opts)
    : post_(std::move(post)), opts_(std::move(opts)) {
  if (opts_.reporting_instance.empty()) opts_.reporting_instance = host_name();
  if (!opts_.now) opts_.now = steady_now();
  if (!opts_.wall_now) opts_.wall_now = [] { return std::chrono::system_clock::now(); };
  if (!opts_.name_suffix) opts_.name_suffix = random_hex_suffix();
  if (opts_.dedup_capacity == 0) opts_.dedup_capacity = 1;
  if (opts_.async_capacity > 0) sender_ = std::thread([this] { send_loop(); });
}

EventRecorder::EventRecorder(client::RestClient client, EventRecorderOptions opts)
    : EventRecorder(rest_event_poster(std::move(client)), std::move(opts)) {}

void EventRecorder::prune_locked(TimePoint now) {
  if (sent_.size() < opts_.dedup_capacity) return;
  std::erase_if(sent_, [&](const auto& kv) { return millis_between(kv.second, now) >= opts_.dedup_window_ms; });
  while (sent_.size() >= opts_.dedup_capacity) {
    auto oldest =
        std::min_element(sent_.begin(), sent_.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
    sent_.erase(oldest);
  }
}

EventRecorder::Outcome EventRecorder::record(const json::Value& regarding, std::string_view type,
                                             std::string_view reason, std::string_view action, std::string_view note) {
  EventFields fields{std::string(type), std::string(reason), std::string(action),
                     truncate_utf8(note, kEventNoteMaxBytes)};
  const std::string object_key = key_of(regarding);
  if (type != "Normal" && type != "Warning") {
    spdlog::warn("event about {} not posted: type \"{}\" is neither Normal nor Warning", object_key, type);
    return Outcome::Failed;
  }
  std::string identity = metadata_string(regarding, "uid");
  if (identity.empty()) identity = json::get_string(regarding, "kind").value_or("") + "/" + object_key;
  std::string dedup_key = identity;
  for (const std::string* part : {&fields.type, &fields.reason, &fields.note}) {
    dedup_key += '\0';
    dedup_key += *part;
  }

  TimePoint now;
  {
    std::lock_guard lk(mu_);
    now = opts_.now();
    auto it = sent_.find(dedup_key);
    if (it != sent_.end() && millis_between(it->second, now) < opts_.dedup_window_ms) return Outcome::Deduplicated;
    prune_locked(now);
    sent_[dedup_key] = now;  // reserve, so a concurrent identical record is deduplicated
  }

  json::Document body = event_body(regarding, fields, opts_.reporting_controller, opts_.reporting_instance,
                                   opts_.wall_now(), opts_.name_suffix());
  const std::string ns = json::get_string(body["metadata"], "namespace").value_or("default");
  if (opts_.async_capacity == 0)
    return post(events_collection_path(ns), body, dedup_key, now, fields.reason, object_key);
  {
    std::lock_guard lk(mu_);
    if (queue_.size() < opts_.async_capacity) {
      queue_.push_back(Pending{events_collection_path(ns), std::move(body), dedup_key, now, fields.reason, object_key});
      queue_cv_.notify_one();
      return Outcome::Queued;
    }
    if (auto it = sent_.find(dedup_key); it != sent_.end() && it->second == now) sent_.erase(it);
  }
  spdlog::warn("event {} about {} dropped: {} events are waiting to be posted", fields.reason, object_key,
               opts_.async_capacity);
  return Outcome::Failed;
}

EventRecorder::Outcome EventRecorder::post(const std::string& path, const json::Document& body,
                                           const std::string& dedup_key, TimePoint reserved, const std::string& reason,
                                           const std::string& object_key) {
  Result<json::Document> posted = post_ ? post_(path, body) : fail("no event poster");
  if (posted) return Outcome::Posted;
  spdlog::warn("event {} about {} not posted: {}", reason, object_key, posted.error().message);
  std::lock_guard lk(mu_);
  if (auto it = sent_.find(dedup_key); it != sent_.end() && it->second == reserved) sent_.erase(it);
  return Outcome::Failed;
}

void EventRecorder::send_loop() {
  std::optional<std::chrono::steady_clock::time_point> drain_until;
  for (;;) {
    Pending next;
    {
      std::unique_lock lk(mu_);
      queue_cv_.wait(lk, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_ && !drain_until) drain_until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
      if (queue_.empty() || (drain_until && std::chrono::steady_clock::now() >= *drain_until)) {
        if (!queue_.empty()) spdlog::warn("{} event(s) not posted: the recorder stopped", queue_.size());
        return;
      }
      next = std::move(queue_.front());
      queue_.pop_front();
    }
    post(next.path, next.body, next.dedup_key, next.reserved, next.reason, next.object_key);
  }
}

EventRecorder::~EventRecorder() {
  {
    std::lock_guard lk(mu_);
    stopping_ = true;
  }
  queue_cv_.notify_all();
  if (sender_.joinable()) sender_.join();
}

}  // namespace cfo::runtime
