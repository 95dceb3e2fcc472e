#include "client/wait.hpp"

#include <condition_variable>
#include <mutex>
#include <vector>

#include "client/rest_client.hpp"

namespace cfo::client {

bool sleep_unless_stopped(std::chrono::nanoseconds delay, std::span<StopToken* const> stops) {
  auto any_stopped = [&] {
    for (StopToken* s : stops)
      if (s && s->stop_requested()) return true;
    return false;
  };
  if (delay <= std::chrono::nanoseconds::zero()) return !any_stopped();

  std::mutex mu;
  std::condition_variable cv;
  bool woken = false;
  std::vector<std::pair<StopToken*, int>> registrations;
  for (StopToken* s : stops) {
    if (!s) continue;
    registrations.emplace_back(s, s->on_stop([&] {
      {
        std::lock_guard lock(mu);
        woken = true;
      }
      cv.notify_all();
    }));
  }
  {
    std::unique_lock lock(mu);
    cv.wait_for(lock, delay, [&] { return woken; });
  }
  // Once remove_callback returns, the callback is neither running nor going to run, so the locals may go.
  for (auto& [token, id] : registrations) token->remove_callback(id);
  return !any_stopped();
}

}  // namespace cfo::client
