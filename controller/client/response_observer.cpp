#include "client/response_observer.hpp"

#include <atomic>
#include <memory>

namespace cfo::client {

namespace {
std::atomic<std::shared_ptr<const ResponseObserver>> g_observer;
std::atomic<std::shared_ptr<const RetryObserver>> g_retry_observer;
}  // namespace

void set_response_observer(ResponseObserver observer) {
  g_observer.store(observer ? std::make_shared<const ResponseObserver>(std::move(observer)) : nullptr);
}

void notify_response(std::string_view method, std::string_view host, unsigned status) {
  if (auto observer = g_observer.load()) (*observer)(method, host, status);
}

void set_retry_observer(RetryObserver observer) {
  g_retry_observer.store(observer ? std::make_shared<const RetryObserver>(std::move(observer)) : nullptr);
}

void notify_retry(std::string_view what, std::string_view reason, bool connection_dropped, int64_t delay_ms,
                  int retry) {
  if (auto observer = g_retry_observer.load()) (*observer)(what, reason, connection_dropped, delay_ms, retry);
}

}  // namespace cfo::client
