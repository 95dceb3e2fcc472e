#pragma once
// Independent items spread over threads: the offline commands' large inputs (a stream's parts converted from YAML,
// a set's objects judged).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

#include "core/offline_heap.hpp"

namespace cfo {

/// The threads to use for `max` at most: the machine's hardware threads (std::thread::hardware_concurrency), at least
/// 1 (also when it is unknown) and at most `max`.
inline std::size_t worker_threads(std::size_t max) {
  return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, std::max<std::size_t>(max, 1));
}

/// Calls `each(i)` once for every i in [0, count) on at most `threads` threads, the calling thread among them (fewer
/// when there are fewer items), and returns when every call has returned. Items are taken in turn from a shared
/// counter: a thread that is done early takes the next one, so items of unequal work keep every thread busy. `each`
/// must be safe to call at once for different items and must not throw (on a helper thread that ends the process).
/// Each helper thread first prepares its heap (heap::prepare_thread_heap: huge pages in the offline commands).
template <class Each>
void for_each_index_in_parallel(std::size_t count, std::size_t threads, const Each& each) {
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < count;) each(i);
  };
  std::vector<std::jthread> helpers;
  for (std::size_t t = 1; t < std::min(threads, count); ++t)
    helpers.emplace_back([&work] {
      heap::prepare_thread_heap();
      work();
    });
  work();
}  // the helpers join here

}  // namespace cfo
