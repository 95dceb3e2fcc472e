#include "runtime/manager.hpp"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <ranges>

namespace cfo::runtime {

Manager::Manager(ManagerOptions opts)
    : opts_(std::move(opts)),
      probe_server_("health probe", probe_handler(healthz_, readyz_)),
      metrics_server_("metrics", opts_.metrics_handler ? opts_.metrics_handler : HttpHandler([](const HttpRequest&) {
                        return HttpResponse{404, "text/plain; charset=utf-8", "no metrics\n"};
                      })) {
  readyz_->add("informers", [this]() -> std::optional<std::string> {
    if (synced_.load()) return std::nullopt;
    return "the caches have not synced yet";
  });
  if (opts_.leader_election) {
    if (!opts_.lease_lock) throw std::invalid_argument("leader election needs a lease lock");
    elector_ = std::make_unique<LeaderElector>(*opts_.leader_election, opts_.lease_lock);
    readyz_->add("leader", [this]() -> std::optional<std::string> {
      if (elector_->is_leader()) return std::nullopt;
      return "not leading (standby)";
    });
  }
}

Manager::~Manager() { stop(); }

InformerGroup& Manager::add_informers(std::unique_ptr<InformerGroup> group, bool wait_for_sync) {
  std::lock_guard<std::mutex> lock(mu_);
  InformerGroup& g = *group;
  groups_.push_back(std::move(group));
  if (wait_for_sync) awaited_.push_back(&g);
  if (started_.load() && !stopped_.load())
    if (auto r = g.start(); !r) spdlog::error("{}", r.error().message);
  return g;
}

void Manager::add_controller(std::shared_ptr<Controller> controller) { controllers_.push_back(std::move(controller)); }

void Manager::add_runnable(Runnable runnable) { runnables_.push_back(std::move(runnable)); }

bool Manager::is_leader() const { return elector_ ? elector_->is_leader() : leading_started_.load(); }

Result<void> Manager::start_servers() {
  if (serving_.exchange(true)) return {};
  if (opts_.probe_address)
    if (auto r = probe_server_.start(*opts_.probe_address); !r) return std::unexpected(r.error());
  if (opts_.metrics_address)
    if (auto r = metrics_server_.start(*opts_.metrics_address); !r) return std::unexpected(r.error());
  return {};
}

Result<void> Manager::start() {
  if (started_.exchange(true)) return fail("the manager is already started");
  if (auto r = start_servers(); !r) return r;
  for (auto& r : runnables_)
    if (!r.needs_leader_election)
      if (auto s = r.start(); !s) return fail(r.name + ": " + s.error().message);
  std::vector<InformerGroup*> groups;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& g : groups_)
      if (auto r = g->start(); !r) return std::unexpected(r.error());
    groups = awaited_;
  }
  const auto deadline = std::chrono::steady_clock::now() + opts_.cache_sync_timeout;
  for (auto* g : groups) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (!g->wait_for_sync(std::max<int64_t>(left, 0)))
      return fail("caches did not sync within " + std::to_string(opts_.cache_sync_timeout.count()) + " ms", 0,
                  std::string(kCacheSyncTimeoutReason));
  }
  synced_ = true;
  if (!elector_) {
    start_leading();
    return {};
  }
  election_thread_ = std::thread([this] {
    if (elector_->run([this] { start_leading(); }) == ElectionEnd::Lost) {
      if (opts_.on_lost_lease) {
        opts_.on_lost_lease();
        return;
      }
      spdlog::critical("leader election lost; exiting so that another replica takes over");
      spdlog::default_logger()->flush();
      std::_Exit(1);
    }
  });
  return {};
}

void Manager::start_leading() {
  if (stopped_.load() || leading_started_.exchange(true)) return;
  for (auto& c : controllers_)
    if (auto r = c->start(); !r) spdlog::error("starting controller {}: {}", c->name(), r.error().message);
  for (auto& r : runnables_)
    if (r.needs_leader_election)
      if (auto s = r.start(); !s) spdlog::error("starting {}: {}", r.name, s.error().message);
}

void Manager::stop() {
  if (stopped_.exchange(true)) return;
  for (auto& c : controllers_) c->stop();
  for (auto& r : std::views::reverse(runnables_))
    if (r.needs_leader_election && r.stop) r.stop();
  if (elector_) elector_->stop();
  if (election_thread_.joinable()) election_thread_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& group : std::views::reverse(groups_)) group->stop();
  }
  for (auto& r : std::views::reverse(runnables_))
    if (!r.needs_leader_election && r.stop) r.stop();
  metrics_server_.stop();
  probe_server_.stop();
}

}  // namespace cfo::runtime
