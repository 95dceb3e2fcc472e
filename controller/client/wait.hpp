#pragma once
// Waiting as RestClient does it: interruptible sleeps, replaceable in tests (its clock is core/clock.hpp's NowFn).
#include <chrono>
#include <functional>
#include <span>

#include "core/clock.hpp"  // NowFn, the monotonic clock RestClient reads

namespace cfo::client {

class StopToken;

/// Waits `delay` unless one of `stops` (null entries are ignored) is or becomes requested. Returns true when the
/// whole delay passed, false when a stop ended the wait (or was already requested). Must be callable from any thread.
using SleepFn = std::function<bool(std::chrono::nanoseconds delay, std::span<StopToken* const> stops)>;

/// The real SleepFn: a condition-variable wait that a stop request wakes at once. A zero or negative delay
/// returns at once (false when a stop is already requested).
bool sleep_unless_stopped(std::chrono::nanoseconds delay, std::span<StopToken* const> stops);

}  // namespace cfo::client
