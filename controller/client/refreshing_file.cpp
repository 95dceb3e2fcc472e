#include "client/refreshing_file.hpp"

#include "client/file_text.hpp"

namespace cfo::client {

RefreshingFile::RefreshingFile(std::string path, std::chrono::milliseconds max_age_ms, std::string initial, bool trim,
                               NowFn now)
    : path_(std::move(path)), max_age_ms_(max_age_ms), trim_(trim), now_(steady_now_unless(std::move(now))) {
  if (!initial.empty()) {
    value_ = std::move(initial);
    read_at_ = now_();
  }
}

Result<std::string> RefreshingFile::get() {
  std::lock_guard lock(mu_);
  auto now = now_();
  // With no content yet every call tries again; with content, a failed read waits a full period before the next
  // attempt, so a vanished file does not turn every request into a read.
  if (!value_ || now - read_at_ >= max_age_ms_) {
    read_at_ = now;
    auto text = read_file_text(path_);
    if (text) {
      std::string v = trim_ ? trim_space(*text) : std::move(*text);
      if (!v.empty())
        value_ = std::move(v);
      else if (!value_)
        return fail(path_ + " is empty");
    } else if (!value_) {
      return std::unexpected(text.error());
    }
  }
  return *value_;
}

}  // namespace cfo::client
