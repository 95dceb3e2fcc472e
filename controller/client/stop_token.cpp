#include "client/rest_client.hpp"

namespace cfo::client {

// Callbacks run with mu_ held: once remove_callback() returns, its callback is not running and never will, so a
// callback may safely refer to objects that the caller destroys right after removing it. Callbacks must therefore
// be short and must not call back into the token.
void StopToken::request_stop() {
  if (stopped_.exchange(true)) return;
  std::lock_guard lock(mu_);
  for (auto& [id, cb] : callbacks_) cb();
  callbacks_.clear();
}

int StopToken::on_stop(std::function<void()> cb) {
  std::lock_guard lock(mu_);
  int id = next_id_++;
  if (stopped_.load()) {
    cb();
    return id;
  }
  callbacks_.emplace(id, std::move(cb));
  return id;
}

void StopToken::remove_callback(int id) {
  std::lock_guard lock(mu_);
  callbacks_.erase(id);
}

}  // namespace cfo::client
