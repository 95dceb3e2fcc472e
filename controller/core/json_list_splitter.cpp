#include "core/json_list_splitter.hpp"

namespace cfo::json {

namespace {

/// Longest top-level key, apiVersion or kind kept; longer ones are cut (no key of interest is that long).
constexpr std::size_t kMaxCapturedBytes = 256;
constexpr std::size_t kNotInItem = static_cast<std::size_t>(-1);

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

}  // namespace

Result<void> ListSplitter::fail_with(const std::string& message) {
  failed_ = true;
  error_ = "list: " + message;
  return fail(error_);
}

Result<void> ListSplitter::feed(std::string_view piece, const ItemFn& on_item) {
  if (failed_) return fail(error_);
  const char* p = piece.data();
  const std::size_t n = piece.size();
  // Where the current item's bytes begin in this piece (0 when it began in an earlier one, whose part is in item_).
  std::size_t item_begin = in_items_ && depth_ >= 3 ? 0 : kNotInItem;
  auto keep = [this](char c) -> Result<void> {
    if (envelope_.size() >= kMaxEnvelopeBytes)
      return fail_with("the list without its items is larger than " + std::to_string(kMaxEnvelopeBytes) + " bytes");
    envelope_.push_back(c);
    return {};
  };

  for (std::size_t i = 0; i < n; ++i) {
    const char c = p[i];
    const bool in_item = item_begin != kNotInItem;
    if (in_string_) {
      if (escaped_) {
        escaped_ = false;
      } else if (c == '\\') {
        escaped_ = true;
      } else if (c == '"') {
        in_string_ = false;
        capture_ = nullptr;
      }
      if (capture_ && capture_->size() < kMaxCapturedBytes) capture_->push_back(c);
      if (!in_item)
        if (auto kept = keep(c); !kept) return kept;
      continue;
    }
    if (in_item) {
      switch (c) {
        case '"':
          in_string_ = true;
          break;
        case '{':
        case '[':
          ++depth_;
          break;
        case '}':
        case ']':
          if (--depth_ == 2) {  // the item's closing brace
            const std::size_t tail = i + 1 - item_begin;
            if (item_.size() + tail > max_item_bytes_)
              return fail_with("item " + std::to_string(items_) + " is larger than " + std::to_string(max_item_bytes_) +
                               " bytes");
            std::string_view text(p + item_begin, tail);
            if (!item_.empty()) {
              item_.append(text);
              text = item_;
            }
            ++items_;
            if (auto taken = on_item(text, api_version_, kind_); !taken) {
              failed_ = true;
              error_ = taken.error().message;
              return taken;
            }
            item_.clear();
            item_begin = kNotInItem;
          }
          break;
        default:
          break;
      }
      continue;
    }
    if (is_space(c)) continue;
    if (done_) return fail_with("text follows the end of the list");
    if (!started_) {
      if (c != '{') return fail_with(std::string("a list is a JSON object, and the text begins with '") + c + "'");
      started_ = true;
      depth_ = 1;
      if (auto kept = keep(c); !kept) return kept;
      continue;
    }
    if (in_items_) {  // between two items (depth 2)
      if (c == ',') continue;
      if (c == ']') {
        in_items_ = false;
        depth_ = 1;
        continue;
      }
      if (c != '{') return fail_with("item " + std::to_string(items_) + " is not an object");
      depth_ = 3;
      item_begin = i;
      continue;
    }
    const bool value_begins = depth_ == 1 && awaiting_value_;
    awaiting_value_ = false;
    switch (c) {
      case '"':
        in_string_ = true;
        if (depth_ == 1) {
          capture_ = !value_begins ? &key_ : key_ == "apiVersion" ? &api_version_ : key_ == "kind" ? &kind_ : nullptr;
          if (capture_) capture_->clear();
        }
        break;
      case '[':
        if (value_begins && key_ == "items" && !items_seen_) {
          items_seen_ = in_items_ = true;
          depth_ = 2;
          envelope_ += "[]";
          continue;
        }
        ++depth_;
        break;
      case '{':
        ++depth_;
        break;
      case '}':
      case ']':
        if (--depth_ == 0) done_ = true;
        break;
      case ':':
        awaiting_value_ = depth_ == 1;
        break;
      default:
        break;
    }
    if (auto kept = keep(c); !kept) return kept;
  }
  if (item_begin != kNotInItem) {
    if (item_.size() + (n - item_begin) > max_item_bytes_)
      return fail_with("item " + std::to_string(items_) + " is larger than " + std::to_string(max_item_bytes_) +
                       " bytes");
    item_.append(p + item_begin, n - item_begin);
  }
  return {};
}

Result<Document> ListSplitter::finish() {
  if (failed_) return fail(error_);
  if (!started_) return fail("list: the response is empty");
  if (!done_) return fail("list: the response ends before the list does (after " + std::to_string(items_) + " items)");
  auto doc = parse(envelope_);
  if (!doc) return fail("list: " + doc.error().message);
  return doc;
}

}  // namespace cfo::json
