#include "runtime/heap_trimmer.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace cfo::runtime {

namespace {
void release_free_heap() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}
}  // namespace

HeapTrimmer::HeapTrimmer(std::chrono::milliseconds interval, NowFn now, TrimFn trim)
    : interval_(interval), now_(steady_now_unless(std::move(now))), trim_(trim ? std::move(trim) : release_free_heap) {}

bool HeapTrimmer::maybe_trim() {
  {
    std::lock_guard lk(mu_);
    const TimePoint now = now_();
    if (last_ && now - *last_ < interval_) return false;
    last_ = now;
    ++trims_;
  }
  trim_();
  return true;
}

uint64_t HeapTrimmer::trims() const {
  std::lock_guard lk(mu_);
  return trims_;
}

}  // namespace cfo::runtime
