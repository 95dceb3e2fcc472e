#include "client/response_observer.hpp"

#include <atomic>
#include <memory>

namespace cfo::client {

namespace {
std::atomic<std::shared_ptr<const ResponseObserver>> g_observer;
}  // namespace

void set_response_observer(ResponseObserver observer) {
  g_observer.store(observer ? std::make_shared<const ResponseObserver>(std::move(observer)) : nullptr);
}

void notify_response(std::string_view method, std::string_view host, unsigned status) {
  if (auto observer = g_observer.load()) (*observer)(method, host, status);
}

}  // namespace cfo::client
