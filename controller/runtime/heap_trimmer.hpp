#pragma once
// Returning the heap's free pages to the kernel while the operator is idle.
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>

#include "core/clock.hpp"

namespace cfo::runtime {

/// Gives free heap pages back to the kernel, at most once per `interval`. glibc's malloc returns only the free top
/// of a heap by itself; pages freed in the middle of one (the CRDs parsed and the lists read at start-up, a burst of
/// reconciles) stay resident until malloc_trim(0) releases them (at 500 workloads, about 1 MiB of the operator's 8
/// MiB of heap). The operator asks when a controller's work queue drains, as Go's runtime returns unused heap from its
/// background scavenger. Thread-safe.
class HeapTrimmer {
 public:
  /// Releases what it can; the default is glibc's malloc_trim(0) (nothing elsewhere).
  using TrimFn = std::function<void()>;

  /// `interval`: the least time between two trims (a trim walks every free chunk of every arena: about a
  /// millisecond for a heap of a few MiB). `now` and `trim` are for tests; empty means the real clock and malloc_trim.
  explicit HeapTrimmer(std::chrono::milliseconds interval, NowFn now = {}, TrimFn trim = {});

  /// Trims when no trim has run yet or the last one is at least `interval` ago. Returns whether it trimmed.
  bool maybe_trim();
  /// Trims run so far.
  uint64_t trims() const;

 private:
  std::chrono::milliseconds interval_;
  NowFn now_;
  TrimFn trim_;
  mutable std::mutex mu_;
  std::optional<TimePoint> last_;
  uint64_t trims_ = 0;
};

}  // namespace cfo::runtime
