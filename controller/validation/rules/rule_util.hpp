#pragma once
// Internal helpers shared by the rule files: tolerant accessors (rules run on objects that may be ill-typed, and
// must never crash), well-known keys, and small parsers (versions, Go durations).
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"

namespace cfo::validation::rules {

// Well-known label and annotation keys.
inline constexpr std::string_view kQueueNameLabel = "kueue.x-k8s.io/queue-name";
inline constexpr std::string_view kPriorityClassLabel = "kueue.x-k8s.io/priority-class";
inline constexpr std::string_view kMaxExecTimeLabel = "kueue.x-k8s.io/max-exec-time-seconds";
inline constexpr std::string_view kPrebuiltWorkloadLabel = "kueue.x-k8s.io/prebuilt-workload-name";
/// The label, and its value, on a LocalQueue that codeflare-operator makes for a workload (spec.queue.clusterQueue).
inline constexpr std::string_view kManagedByLabel = "app.kubernetes.io/managed-by";
inline constexpr std::string_view kManagedByOperator = "codeflare-operator";
inline constexpr std::string_view kElasticJobAnnotation = "kueue.x-k8s.io/elastic-job";

/// "text" with double quotes, for messages.
std::string dq(std::string_view s);
/// A short rendering of any JSON value for messages.
std::string brief(const json::Value& v);

/// The member `key` of `obj` when `obj` is an object, else nullptr.
const json::Value* member(const json::Value& obj, std::string_view key);
/// The member as an object / array / string, else nullptr / nullopt.
const json::Value* object_at(const json::Value& obj, std::string_view key);
const json::Value* array_at(const json::Value& obj, std::string_view key);
std::optional<std::string> string_at(const json::Value& obj, std::string_view key);
std::optional<int64_t> int_at(const json::Value& obj, std::string_view key);
/// True only for a JSON `true`.
bool true_at(const json::Value& obj, std::string_view key);
/// A string value as a std::string ("" for non-strings).
std::string text(const json::Value& v);

/// metadata.labels[key] / metadata.annotations[key] as strings.
std::optional<std::string> label_of(const json::Value& obj, std::string_view key);
std::optional<std::string> annotation_of(const json::Value& obj, std::string_view key);
/// True when the object carries a non-empty kueue.x-k8s.io/queue-name label.
bool has_queue_label(const json::Value& obj);

/// The environment variable `name` of a container (the `env` list entry), or nullptr.
const json::Value* env_entry(const json::Value& container, std::string_view name);
/// `containers[0]` of a pod template (`template.spec.containers[0]`), or nullptr.
const json::Value* first_container(const json::Value& pod_template);

/// major.minor.patch parsed as k8s.io/apimachinery `version.ParseGeneric` accepts it (optional leading "v",
/// at least major.minor, further dot parts and suffixes ignored); nullopt when it does not parse.
std::optional<std::array<long, 3>> parse_version(std::string_view s);

/// True when `s` parses as a Go time.Duration ("90s", "1m30s", "-1.5h", "0").
bool is_go_duration(std::string_view s);

/// True when `s` is a base-10 integer that fits int64 (optional sign), as strconv.Atoi accepts it.
std::optional<int64_t> parse_int(std::string_view s);

}  // namespace cfo::validation::rules
