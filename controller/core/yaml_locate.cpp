// yaml::locate: from a finding's field path back to the line and column where the user wrote it.
#include <yaml.h>

#include <string>
#include <vector>

#include "core/yaml.hpp"

namespace cfo::yaml {

namespace {

// The steps of a finding path: "a.b[0].c[x.y]" -> a, b, 0, c, x.y (an index and a bracketed key alike are text).
std::vector<std::string> steps_of(std::string_view path) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
    } else if (path[i] == '[') {
      std::size_t close = path.find(']', i);
      if (close == std::string_view::npos) close = path.size();
      out.emplace_back(path.substr(i + 1, close - i - 1));
      i = close + 1;
    } else {
      std::size_t end = path.find_first_of(".[", i);
      if (end == std::string_view::npos) end = path.size();
      out.emplace_back(path.substr(i, end - i));
      i = end;
    }
  }
  return out;
}

// LibYAML's event parser over the text, one event at a time.
class Events {
 public:
  explicit Events(std::string_view text) {
    ok_ = yaml_parser_initialize(&parser_) != 0;
    if (ok_) yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()), text.size());
  }
  ~Events() {
    if (have_) yaml_event_delete(&event_);
    if (ok_) yaml_parser_delete(&parser_);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;

  /// The next event; false at a syntax error (or when the parser could not start).
  bool next() {
    if (have_) yaml_event_delete(&event_);
    have_ = ok_ && yaml_parser_parse(&parser_, &event_) != 0;
    return have_;
  }
  const yaml_event_t& event() const { return event_; }
  Position position() const { return {event_.start_mark.line + 1, event_.start_mark.column + 1}; }

 private:
  yaml_parser_t parser_{};
  yaml_event_t event_{};
  bool ok_ = false;
  bool have_ = false;
};

// Walks the node whose start event is current, keeping in `best` the deepest position on the way to `steps`.
class Walker {
 public:
  Walker(Events& events, const std::vector<std::string>& steps) : events_(events), steps_(steps) {}

  /// False at a syntax error. `matched`: the path to this node is steps[0, depth).
  bool node(std::size_t depth, bool matched, Position at) {
    if (matched && depth >= best_depth_) {
      best_ = at;
      best_depth_ = depth;
      if (depth == steps_.size()) done_ = true;
    }
    if (done_) return true;  // found: not even its own content is read
    if (depth > kMaxDepth) return skip_rest_of_node();
    const yaml_event_type_t type = events_.event().type;
    if (type == YAML_MAPPING_START_EVENT) {
      for (;;) {
        if (!events_.next()) return false;
        if (events_.event().type == YAML_MAPPING_END_EVENT) return true;
        std::string key;
        if (events_.event().type == YAML_SCALAR_EVENT)
          key.assign(reinterpret_cast<const char*>(events_.event().data.scalar.value),
                     events_.event().data.scalar.length);
        else if (!skip_rest_of_node())  // a complex key
          return false;
        const Position key_at = events_.position();
        if (!events_.next()) return false;
        const bool child = matched && depth < steps_.size() && key != "<<" && key == steps_[depth];
        if (!node(depth + 1, child, child ? key_at : events_.position())) return false;
        if (done_) return true;  // found: nothing after it is read
      }
    }
    if (type == YAML_SEQUENCE_START_EVENT) {
      for (std::size_t i = 0;; ++i) {
        if (!events_.next()) return false;
        if (events_.event().type == YAML_SEQUENCE_END_EVENT) return true;
        const bool child = matched && depth < steps_.size() && std::to_string(i) == steps_[depth];
        if (!node(depth + 1, child, events_.position())) return false;
        if (done_) return true;
      }
    }
    return true;  // a scalar or an alias: a leaf
  }

  Position best() const { return best_; }

 private:
  static constexpr std::size_t kMaxDepth = 256;  // as to_json's limit

  // Consumes the rest of the current node (nothing for a leaf).
  bool skip_rest_of_node() {
    const yaml_event_type_t type = events_.event().type;
    if (type != YAML_MAPPING_START_EVENT && type != YAML_SEQUENCE_START_EVENT) return true;
    for (int open = 1; open > 0;) {
      if (!events_.next()) return false;
      const yaml_event_type_t t = events_.event().type;
      if (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT) ++open;
      if (t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT) --open;
    }
    return true;
  }
  Events& events_;
  const std::vector<std::string>& steps_;
  Position best_;
  std::size_t best_depth_ = 0;
  bool done_ = false;
};

}  // namespace

std::optional<Position> locate(std::string_view text, std::size_t document, std::string_view path) {
  if (text.size() > kMaxStreamBytes) return std::nullopt;
  const std::vector<std::string> steps = steps_of(path);
  Events events(text);
  std::size_t index = 0;
  for (;;) {
    if (!events.next()) return std::nullopt;
    const yaml_event_type_t type = events.event().type;
    if (type == YAML_STREAM_END_EVENT) return std::nullopt;
    if (type != YAML_DOCUMENT_START_EVENT) continue;
    if (!events.next()) return std::nullopt;
    if (events.event().type == YAML_DOCUMENT_END_EVENT) continue;  // an empty document is not counted
    // A document that is only a null scalar is skipped by to_json too.
    if (events.event().type == YAML_SCALAR_EVENT && events.event().data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
      const std::string_view v(reinterpret_cast<const char*>(events.event().data.scalar.value),
                               events.event().data.scalar.length);
      if (v.empty() || v == "~" || v == "null" || v == "Null" || v == "NULL") continue;
    }
    if (index++ != document) {
      static const std::vector<std::string> kNoPath;
      Walker skip(events, kNoPath);
      if (!skip.node(0, false, events.position())) return std::nullopt;
      continue;
    }
    Walker walker(events, steps);
    const Position root = events.position();
    if (!walker.node(0, true, root)) return std::nullopt;
    return walker.best();
  }
}

}  // namespace cfo::yaml
