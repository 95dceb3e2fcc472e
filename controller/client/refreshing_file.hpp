#pragma once
// A credential file that is re-read on a fixed cadence (client-go's cached file token source and CA reload).
#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include "client/wait.hpp"
#include "core/error.hpp"

namespace cfo::client {

/// Holds the last good content of a file and re-reads it when that content is older than `max_age_ms`.
/// A failed read keeps the last good content (client-go keeps the old token: kubernetes/kubernetes#68164);
/// only when there has never been good content is the read error returned (and the next call tries again).
/// Thread-safe.
class RefreshingFile {
 public:
  /// `path`: the file; `max_age_ms`: how long content is trusted (60000 for tokens, 300000 for CA bundles);
  /// `initial`: content already known (read at load time), trusted for `max_age_ms` from now; empty means none.
  /// `trim`: strip surrounding whitespace (tokens) or not (PEM bundles); `now`: the clock that ages the content
  /// (steady_clock when empty; tests pass a fake one).
  RefreshingFile(std::string path, std::chrono::milliseconds max_age_ms, std::string initial, bool trim,
                 NowFn now = {});

  /// The current content, re-read first when it is due. Error: the file could not be read (or was empty when
  /// `trim` is set) and no earlier content exists.
  Result<std::string> get();

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::chrono::milliseconds max_age_ms_;
  bool trim_;
  NowFn now_;
  std::mutex mu_;
  std::optional<std::string> value_;
  std::chrono::steady_clock::time_point read_at_{};
};

}  // namespace cfo::client
