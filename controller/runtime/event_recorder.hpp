#pragma once
// Kubernetes Events (events.k8s.io/v1) about the objects the operator manages.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <deque>
#include <condition_variable>
#include <string>
#include <string_view>
#include <unordered_map>

#include "client/rest_client.hpp"
#include "core/error.hpp"
#include "core/json.hpp"
#include "core/clock.hpp"

namespace cfo::runtime {

/// Options of an EventRecorder.
struct EventRecorderOptions {
  std::string reporting_controller = "codeflare.dev/codeflare-operator";
  std::string reporting_instance;                    ///< empty = this host's name
  int64_t dedup_window_ms = int64_t{5} * 60 * 1000;  ///< identical events within this window are sent once
  std::size_t dedup_capacity = 4096;                 ///< remembered events; the oldest are dropped beyond it
  NowFn now;                                         ///< monotonic clock for the dedup window; empty = steady clock
  WallNowFn wall_now;                                ///< clock for eventTime; empty = system clock
  std::function<std::string()> name_suffix;          ///< unique suffix of metadata.name; empty = 16 random hex digits
  /// 0: record() posts on the caller's thread. Above 0: record() queues the Event (at most this many waiting; beyond,
  /// an Event is dropped with a warning) and a thread of the recorder posts them, so that a reconcile never waits
  /// for an Event (client-go's broadcaster is asynchronous too). What is still queued at destruction is posted
  /// for at most 2 s, then dropped.
  std::size_t async_capacity = 0;
};

/// What an event says. `type` is "Normal" or "Warning"; `reason` and `action` are CamelCase (at most 128
/// characters each, events.k8s.io/v1 validation); `note` is free text (cut to 1024 bytes).
struct EventFields {
  std::string type;
  std::string reason;
  std::string action;
  std::string note;
};

/// Largest note the apiserver accepts, in bytes (events.k8s.io/v1 validation: note length limit 1024).
constexpr std::size_t kEventNoteMaxBytes = 1024;

/// RFC 3339 UTC with exactly six fractional digits, as metav1.MicroTime serialises: "2026-11-29T19:36:02.123456Z".
std::string format_micro_time(std::chrono::system_clock::time_point t);

/// The longest prefix of `s` of at most `max_bytes` bytes that does not split a UTF-8 sequence.
std::string truncate_utf8(std::string_view s, std::size_t max_bytes);

/// Builds the events.k8s.io/v1 Event for `regarding` (any object JSON with apiVersion, kind, metadata):
/// metadata {name: "<regarding name>.<name_suffix>" (the name part shortened so the whole stays within 253
/// characters), namespace: the object's namespace, or "default" for cluster-scoped objects (client-go does the
/// same)}, regarding {apiVersion, kind, name, namespace, uid, resourceVersion} (absent fields omitted),
/// reportingController, reportingInstance, eventTime (MicroTime), type, reason, action, note (truncated to
/// kEventNoteMaxBytes). Pure.
json::Document event_body(const json::Value& regarding, const EventFields& fields,
                          const std::string& reporting_controller, const std::string& reporting_instance,
                          std::chrono::system_clock::time_point event_time, std::string_view name_suffix);

/// "/apis/events.k8s.io/v1/namespaces/<ns>/events".
std::string events_collection_path(const std::string& ns);

/// POSTs an Event body to a collection path; returns what the server stored, or the error.
using EventPoster = std::function<Result<json::Document>(const std::string& collection_path, const json::Value& body)>;

/// An EventPoster over RestClient::create.
EventPoster rest_event_poster(client::RestClient client);

/// Posts Events synchronously on the caller's thread (a reconcile worker). Failures are logged (spdlog warn) and
/// reported by the return value, never thrown. Identical events — same regarding uid (or kind and key when there
/// is no uid), type, reason and note — within dedup_window_ms are posted once (a small-scale version of
/// client-go's event correlator; no series are built). Thread-safe.
/// The log line that goes with an event: "<type> <reason>: <note>", at warn for a Warning event and info otherwise,
/// so that what a user sees with `kubectl get events` is also in the operator's log at the matching level.
void log_event(std::string_view type, std::string_view reason, std::string_view note);

class EventRecorder {
 public:
  /// Queued: handed to the sending thread (async_capacity > 0).
  enum class Outcome { Posted, Deduplicated, Failed, Queued };

  EventRecorder(EventPoster post, EventRecorderOptions opts = {});
  EventRecorder(client::RestClient client, EventRecorderOptions opts = {});
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;
  /// Stops the sending thread (see async_capacity).
  ~EventRecorder();

  /// Records an event about `regarding`. `type` must be "Normal" or "Warning" (else Failed, nothing posted).
  Outcome record(const json::Value& regarding, std::string_view type, std::string_view reason, std::string_view action,
                 std::string_view note);

  /// The reporting instance in use (the host name unless set).
  const std::string& reporting_instance() const { return opts_.reporting_instance; }

 private:
  void prune_locked(TimePoint now);
  /// Posts one Event; on failure forgets its dedup entry (so a later identical one is tried again).
  Outcome post(const std::string& path, const json::Document& body, const std::string& dedup_key, TimePoint reserved,
               const std::string& reason, const std::string& object_key);
  void send_loop();

  struct Pending {
    std::string path;
    json::Document body;
    std::string dedup_key;
    TimePoint reserved;
    std::string reason, object_key;
  };

  EventPoster post_;
  EventRecorderOptions opts_;
  std::mutex mu_;
  std::unordered_map<std::string, TimePoint> sent_;  // dedup key -> when it was posted
  std::condition_variable queue_cv_;
  std::deque<Pending> queue_;  // guarded by mu_
  bool stopping_ = false;      // guarded by mu_
  std::thread sender_;
};

}  // namespace cfo::runtime
