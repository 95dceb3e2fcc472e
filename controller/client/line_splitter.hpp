#pragma once
// Splitting a byte stream into newline-delimited lines (the framing of a watch response body).
#include <functional>
#include <string>
#include <string_view>

namespace cfo::client {

/// Collects bytes that arrive in arbitrary pieces and hands out each complete line once its '\n' has arrived.
/// A trailing '\r' is dropped and empty lines are skipped. Not thread-safe.
class LineSplitter {
 public:
  /// Appends `bytes` and calls `on_line` for every line completed by them, in order. Returns false as soon as
  /// `on_line` returns false (the remaining lines stay unread), true otherwise.
  bool feed(std::string_view bytes, const std::function<bool(std::string_view)>& on_line);

  /// Calls `on_line` for an unterminated last line, if any (used when the body ended cleanly). Returns what
  /// `on_line` returned, or true when there was nothing left.
  bool finish(const std::function<bool(std::string_view)>& on_line);

  /// Bytes held back because their line is not complete yet.
  std::size_t pending_bytes() const { return pending_.size(); }

 private:
  std::string pending_;
};

}  // namespace cfo::client
