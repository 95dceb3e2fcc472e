// yaml::split_documents: cutting a stream at document markers, so that its parts can be converted in parallel.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

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

// '%' is rare in manifests and '\n' is in every line: looking for the '%' first makes this one pass of memchr.
bool has_directive(std::string_view text) {
  for (std::size_t at = text.find('%'); at != std::string_view::npos; at = text.find('%', at + 1))
    if (at == 0 || text[at - 1] == '\n') return true;
  return false;
}

// The line breaks in [from, to), eight bytes at a time (a plain loop over chars is not vectorised at -O2).
std::size_t count_line_breaks(std::string_view text, std::size_t from, std::size_t to) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHighs = 0x8080808080808080ULL;
  constexpr uint64_t kBreaks = kOnes * static_cast<unsigned char>('\n');
  std::size_t n = 0;
  for (; from + 8 <= to; from += 8) {
    uint64_t word = 0;
    std::memcpy(&word, text.data() + from, 8);
    const uint64_t x = word ^ kBreaks;  // a zero byte where a '\n' was
    // Exact zero-byte test (no false positives across bytes): the high bit of each byte of ~(((x & ~highs) + ~highs)
    // | x) & highs is set exactly for the zero bytes of x.
    const uint64_t zero = ~(((x & ~kHighs) + ~kHighs) | x) & kHighs;
    n += static_cast<std::size_t>(std::popcount(zero));
  }
  for (; from < to; ++from) n += text[from] == '\n' ? 1 : 0;
  return n;
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
    line += count_line_breaks(text, counted, at);
    counted = at;
    out.push_back(TextPart{at, line});
  }
  return out;
}

}  // namespace cfo::yaml
