#pragma once
// An orderly, bounded end of `run`: SIGTERM/SIGINT handling and the graceful-shutdown deadline
// (controller-runtime's signal handler and Manager GracefulShutdownTimeout, 30 s by default).
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "client/rest_client.hpp"
#include "core/error.hpp"

namespace cfo::cmd {

/// Parses a duration the way Go's time.ParseDuration does (the flag syntax of controller-runtime operators):
/// an optional sign, then one or more <number><unit> pairs, units ns, us (or µs), ms, s, m, h, decimals allowed:
/// "30s", "1m30s", "1.5s", "500ms", "-1s"; a bare "0" is zero. Returns whole milliseconds (truncated towards
/// zero). Error: empty text, a missing or unknown unit, or a value beyond about 292 years.
Result<std::chrono::milliseconds> parse_duration(std::string_view text);

/// "<n>s" for whole seconds, "<n>ms" otherwise (for messages).
std::string format_duration(std::chrono::milliseconds d);

/// Ends the process when a shutdown takes too long. Once armed with a timeout, it runs the expiry action unless
/// disarmed first. The default action logs an error, flushes the logs and ends the process with exit code 1
/// (controller-runtime's Start fails with "failed waiting for all runnables to end within grace period").
class ShutdownDeadline {
 public:
  using Action = std::function<void(std::chrono::milliseconds timeout)>;

  /// `on_expiry`: run on the deadline's own thread when the time is up; the default ends the process.
  explicit ShutdownDeadline(Action on_expiry = {});
  /// Disarms.
  ~ShutdownDeadline();
  ShutdownDeadline(const ShutdownDeadline&) = delete;
  ShutdownDeadline& operator=(const ShutdownDeadline&) = delete;

  /// Starts the countdown (only the first call counts). A negative timeout never expires; zero expires at once.
  void arm(std::chrono::milliseconds timeout);
  /// Stops the countdown (the shutdown finished in time) and waits for the deadline's thread.
  void disarm();
  /// True once the action has started.
  bool expired() const { return expired_.load(); }

 private:
  Action on_expiry_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false;
  bool disarmed_ = false;
  std::atomic<bool> expired_{false};
  std::thread thread_;
};

/// SIGTERM/SIGINT handling of `run`:
/// - the constructor blocks both signals in the calling thread, so that threads started afterwards inherit the
///   mask, and starts a thread that waits for them: construct it before any other thread starts;
/// - a signal before wait() or begin_stop() (during start-up: caches syncing, nothing to drain yet) ends the process
///   at once with exit code 0;
/// - the first signal after that wakes wait() and arms the deadline (`graceful_timeout`; negative: no limit; zero:
///   exit 0 at once, as controller-runtime skips the graceful shutdown then);
/// - a second signal ends the process at once with exit code 1;
/// - begin_stop(), called by the run sequence before it stops anything, arms the deadline when no signal did (a
///   failed start) and requests token(), which ends the requests of the clients made with
///   RestClient::with_stop(token()) (the caches' lists, which no other stop interrupts).
class ShutdownControl {
 public:
  explicit ShutdownControl(std::chrono::milliseconds graceful_timeout, ShutdownDeadline::Action on_expiry = {});
  /// Disarms the deadline and ends the signal thread.
  ~ShutdownControl();
  ShutdownControl(const ShutdownControl&) = delete;
  ShutdownControl& operator=(const ShutdownControl&) = delete;

  /// Requested by begin_stop().
  std::shared_ptr<client::StopToken> token() const { return token_; }
  /// Marks the start-up as done and blocks until the first signal; returns its number.
  int wait();
  /// See the class comment. Idempotent.
  void begin_stop();

 private:
  void signal_loop();

  std::chrono::milliseconds graceful_timeout_;
  ShutdownDeadline deadline_;
  std::shared_ptr<client::StopToken> token_ = std::make_shared<client::StopToken>();
  sigset_t signals_{};
  std::mutex mu_;
  std::condition_variable cv_;
  int signal_ = 0;
  bool started_up_ = false;  // wait() or begin_stop() was called
  std::atomic<bool> closing_{false};
  std::thread thread_;
};

}  // namespace cfo::cmd
