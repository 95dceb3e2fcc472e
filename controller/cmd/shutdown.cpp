#include "cmd/shutdown.hpp"

#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdlib>

namespace cfo::cmd {

namespace {

/// Nanoseconds of the duration units Go accepts, longest spellings first so that "ms" is not read as "m".
struct Unit {
  std::string_view name;
  long double ns;
};
constexpr Unit kUnits[] = {{"ns", 1.0L}, {"us", 1e3L}, {"\xC2\xB5s", 1e3L}, {"\xCE\xBCs", 1e3L},
                           {"ms", 1e6L}, {"s", 1e9L},  {"m", 60e9L},        {"h", 3600e9L}};

void exit_after_deadline(std::chrono::milliseconds timeout) {
  spdlog::error("graceful shutdown did not finish within {}; exiting", format_duration(timeout));
  spdlog::default_logger()->flush();
  std::_Exit(1);
}

}  // namespace

Result<std::chrono::milliseconds> parse_duration(std::string_view text) {
  const std::string original(text);
  auto bad = [&](const std::string& why) {
    return fail("invalid duration \"" + original + "\": " + why + " (examples: 30s, 1m30s, 500ms)");
  };
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text == "0") return std::chrono::milliseconds(0);
  if (text.empty()) return bad("empty");

  long double total_ns = 0;
  while (!text.empty()) {
    long double value = 0;
    bool digits = false;
    std::size_t i = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      value = value * 10 + (text[i] - '0');
      digits = true;
    }
    if (i < text.size() && text[i] == '.') {
      long double scale = 0.1L;
      for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, scale /= 10) {
        value += (text[i] - '0') * scale;
        digits = true;
      }
    }
    if (!digits) return bad("a number is missing");
    text.remove_prefix(i);
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits)
      if (text.starts_with(u.name) && (!unit || u.name.size() > unit->name.size())) unit = &u;
    if (!unit) return bad(text.empty() ? "a unit is missing" : "unknown unit");
    text.remove_prefix(unit->name.size());
    total_ns += value * unit->ns;
    if (total_ns > 9.2e18L) return bad("too large");
  }
  const auto ms = static_cast<int64_t>(std::trunc(total_ns / 1e6L));
  return std::chrono::milliseconds(negative ? -ms : ms);
}

std::string format_duration(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + "s";
  return std::to_string(d.count()) + "ms";
}

// --- ShutdownDeadline ---------------------------------------------------------------------------------------------

ShutdownDeadline::ShutdownDeadline(Action on_expiry)
    : on_expiry_(on_expiry ? std::move(on_expiry) : Action(exit_after_deadline)) {}

ShutdownDeadline::~ShutdownDeadline() { disarm(); }

void ShutdownDeadline::arm(std::chrono::milliseconds timeout) {
  std::lock_guard lock(mu_);
  if (armed_ || disarmed_) return;
  armed_ = true;
  if (timeout < std::chrono::milliseconds::zero()) return;  // no limit
  thread_ = std::thread([this, timeout] {
    std::unique_lock lock(mu_);
    if (cv_.wait_for(lock, timeout, [this] { return disarmed_; })) return;
    expired_ = true;
    lock.unlock();
    on_expiry_(timeout);
  });
}

void ShutdownDeadline::disarm() {
  {
    std::lock_guard lock(mu_);
    disarmed_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

// --- ShutdownControl ----------------------------------------------------------------------------------------------

ShutdownControl::ShutdownControl(std::chrono::milliseconds graceful_timeout, ShutdownDeadline::Action on_expiry)
    : graceful_timeout_(graceful_timeout), deadline_(std::move(on_expiry)) {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGTERM);
  sigaddset(&signals_, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
  thread_ = std::thread([this] { signal_loop(); });
}

ShutdownControl::~ShutdownControl() {
  deadline_.disarm();
  closing_ = true;
  // The signal thread sits in sigwait: a SIGTERM aimed at it (blocked everywhere, so only sigwait takes it) wakes it,
  // and closing_ tells it to return. (clang-tidy's concern, a SIGTERM that ends the process, cannot happen: the
  // signal is blocked in every thread and taken by sigwait.)
  pthread_kill(thread_.native_handle(), SIGTERM);  // NOLINT(bugprone-bad-signal-to-kill-thread)
  thread_.join();
}

void ShutdownControl::signal_loop() {
  int count = 0;
  while (true) {
    int sig = 0;
    if (sigwait(&signals_, &sig) != 0) continue;
    if (closing_) return;
    if (++count > 1) {
      spdlog::error("received signal {} again; exiting at once", sig);
      spdlog::default_logger()->flush();
      std::_Exit(1);
    }
    bool starting = false;
    {
      std::lock_guard lock(mu_);
      starting = !started_up_;
    }
    if (starting) {
      spdlog::info("received signal {} while starting; nothing to drain yet, exiting", sig);
      spdlog::default_logger()->flush();
      std::_Exit(0);
    }
    if (graceful_timeout_ == std::chrono::milliseconds::zero()) {
      spdlog::info("received signal {}; --graceful-shutdown-timeout is 0, exiting without waiting", sig);
      spdlog::default_logger()->flush();
      std::_Exit(0);
    }
    spdlog::info("received signal {}, shutting down (limit {})", sig,
                 graceful_timeout_.count() < 0 ? std::string("none") : format_duration(graceful_timeout_));
    deadline_.arm(graceful_timeout_);
    {
      std::lock_guard lock(mu_);
      signal_ = sig;
    }
    cv_.notify_all();
  }
}

int ShutdownControl::wait() {
  std::unique_lock lock(mu_);
  started_up_ = true;
  cv_.wait(lock, [this] { return signal_ != 0; });
  return signal_;
}

void ShutdownControl::begin_stop() {
  {
    std::lock_guard lock(mu_);
    started_up_ = true;
  }
  deadline_.arm(graceful_timeout_);
  token_->request_stop();
}

}  // namespace cfo::cmd
