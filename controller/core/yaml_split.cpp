// yaml::split_documents: cutting a stream at document markers, so that its parts can be converted in parallel.
#include <algorithm>

#include "core/yaml.hpp"

namespace cfo::yaml {

namespace {

// Whether the line starting at `at` is a document start marker: `---` then a blank, a line break or the end.
bool marker_at(std::string_view text, std::size_t at) {
  if (text.compare(at, 3, "---") != 0) return false;
  if (at + 3 == text.size()) return true;
  const char next = text[at + 3];
  return next == ' ' || next == '\t' || next == '\n' || next == '\r';
}

// The start of the first line at or after `from` that is a document marker; npos when there is none.
std::size_t next_marker(std::string_view text, std::size_t from) {
  std::size_t line = from;
  if (line > 0 && text[line - 1] != '\n') {  // not at a line start: go to the next one
    line = text.find('\n', line);
    if (line == std::string_view::npos) return line;
    ++line;
  }
  while (line < text.size()) {
    if (marker_at(text, line)) return line;
    line = text.find('\n', line);
    if (line == std::string_view::npos) return line;
    ++line;
  }
  return std::string_view::npos;
}

bool has_directive(std::string_view text) {
  if (!text.empty() && text.front() == '%') return true;
  return text.find("\n%") != std::string_view::npos;
}

}  // namespace

std::vector<TextPart> split_documents(std::string_view text, std::size_t parts) {
  std::vector<TextPart> out{TextPart{}};
  if (parts < 2 || text.empty() || has_directive(text)) return out;
  std::size_t counted = 0;  // lines are counted from here on
  std::size_t line = 1;
  for (std::size_t k = 1; k < parts; ++k) {
    const std::size_t target = std::max(text.size() / parts * k, out.back().offset + 1);
    if (target >= text.size()) break;
    const std::size_t at = next_marker(text, target);
    if (at == std::string_view::npos) break;
    line += static_cast<std::size_t>(std::count(text.begin() + static_cast<std::ptrdiff_t>(counted),
                                                text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    counted = at;
    out.push_back(TextPart{at, line});
  }
  return out;
}

}  // namespace cfo::yaml
