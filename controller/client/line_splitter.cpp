#include "client/line_splitter.hpp"

namespace cfo::client {

namespace {
bool emit(std::string_view line, const std::function<bool(std::string_view)>& on_line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty()) return true;
  return on_line(line);
}
}  // namespace

bool LineSplitter::feed(std::string_view bytes, const std::function<bool(std::string_view)>& on_line) {
  // Fast path: lines that lie wholly inside `bytes` are passed without copying.
  std::size_t start = 0;
  while (true) {
    std::size_t nl = bytes.find('\n', start);
    if (nl == std::string_view::npos) break;
    bool keep_going;
    if (!pending_.empty()) {
      pending_.append(bytes.substr(start, nl - start));
      std::string line = std::move(pending_);
      pending_.clear();
      keep_going = emit(line, on_line);
    } else {
      keep_going = emit(bytes.substr(start, nl - start), on_line);
    }
    start = nl + 1;
    if (!keep_going) return false;
  }
  pending_.append(bytes.substr(start));
  return true;
}

bool LineSplitter::finish(const std::function<bool(std::string_view)>& on_line) {
  std::string line = std::move(pending_);
  pending_.clear();
  return emit(line, on_line);
}

}  // namespace cfo::client
