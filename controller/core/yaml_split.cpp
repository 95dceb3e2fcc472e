// yaml::split_documents: cutting a stream at document markers, so that its parts can be converted in parallel.
#include <algorithm>
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

// The line breaks in [from, to), sixteen bytes at a time in GCC's portable vector types (SSE2 on x86-64, NEON on
// arm64): each compare adds 1 to a byte counter per '\n', and the counters are summed every 255 blocks, before one
// can overflow. No popcount: the baseline x86-64 has no instruction for it and the library call cost a quarter of
// the split.
std::size_t count_line_breaks(std::string_view text, std::size_t from, std::size_t to) {
  using Bytes = unsigned char __attribute__((vector_size(16)));
  constexpr std::size_t kBlock = sizeof(Bytes), kMaxBlocks = 255;
  std::size_t n = 0;
  while (to - from >= kBlock) {
    Bytes counters = {};
    const std::size_t blocks = std::min((to - from) / kBlock, kMaxBlocks);
    for (std::size_t b = 0; b < blocks; ++b, from += kBlock) {
      Bytes bytes;
      std::memcpy(&bytes, text.data() + from, kBlock);
      counters -= reinterpret_cast<Bytes>(bytes == '\n');  // a true lane is all ones: -1
    }
    for (std::size_t lane = 0; lane < kBlock; ++lane) n += counters[lane];
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
