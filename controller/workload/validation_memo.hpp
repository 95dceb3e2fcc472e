#pragma once
// The verdicts on generated objects already judged, kept so that a reconcile that generates the same object again
// (most reconciles: a child's status changed, a LocalQueue appeared) does not validate it again.
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/field_error.hpp"
#include "core/json.hpp"
#include "validation/validator.hpp"

namespace cfo::workload {

/// Findings by a key that names what was judged: the generated object (its spec hash, which covers the whole
/// object), the live object it was judged as an update of (uid and metadata.generation, or none), and the cluster
/// profile. Holds at most `capacity` verdicts (the oldest go first). Thread-safe. The owner clears it when the schemas
/// change.
class ValidationMemo {
 public:
  explicit ValidationMemo(std::size_t capacity = 4096) : capacity_(capacity) {}

  /// The key of judging `desired` (carrying its spec hash annotation) as an update of `live` (may be null: a create)
  /// with `profile` (Kueue's MaxPodSets and the namespace's Pod Security level); empty when `desired` has no spec hash
  /// (then nothing is remembered).
  static std::string key_of(const json::Value& desired, const json::Value* live,
                            const validation::ClusterProfile& profile);

  std::optional<FieldErrors> find(const std::string& key) const;
  void put(const std::string& key, FieldErrors findings);
  void clear();
  std::size_t size() const;

 private:
  std::size_t capacity_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, FieldErrors> verdicts_;
  std::deque<std::string> order_;  // insertion order, for eviction
};

}  // namespace cfo::workload
