#pragma once
// Splits the JSON text of a Kubernetes list as it arrives, so that a list of ten thousand objects is never held
// whole: each element of its "items" array is handed on by itself, the rest is kept.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "core/json.hpp"

namespace cfo::json {

/// Reads the body of a list response ({"apiVersion": ..., "kind": "...List", "metadata": {...}, "items": [{...}, ...]},
/// api-concepts "Retrieving large results sets in chunks"; members in any order) in pieces of any size. Each element
/// of the top-level "items" array is handed to the caller as the exact JSON text of that object once its closing
/// brace has arrived; everything else, the list's "envelope", is kept with "items" emptied and parsed by finish().
///
/// Only the lexical structure is followed here (strings with their escapes, nesting of objects and arrays); each
/// item is parsed, and so checked, by whoever receives it, and the envelope by finish() (json::parse). Errors: the
/// text is not one object; an element of "items" is not an object; an item larger than `max_item_bytes`; an envelope
/// larger than kMaxEnvelopeBytes; bytes after the object; a text that ends before the object does (finish); any error
/// the item callback returns. After an error the splitter refuses further input.
class ListSplitter {
 public:
  /// Receives one item: its JSON text (valid until the callback returns), and the list's apiVersion and kind as far
  /// as they have arrived (empty if not yet: kube-apiserver writes a custom resource list's members in alphabetical
  /// order, so "kind" comes after "items"). An error ends the splitting.
  using ItemFn =
      std::function<Result<void>(std::string_view item, std::string_view list_api_version, std::string_view list_kind)>;

  /// Largest list envelope kept (bytes): the list's metadata and type, never its items.
  static constexpr std::size_t kMaxEnvelopeBytes = std::size_t{1} << 20;
  /// Default largest single item (bytes): well above etcd's default request limit of 1.5 MiB per object.
  static constexpr std::size_t kDefaultMaxItemBytes = std::size_t{64} << 20;

  explicit ListSplitter(std::size_t max_item_bytes = kDefaultMaxItemBytes) : max_item_bytes_(max_item_bytes) {}

  /// Reads the next piece of the text; calls `on_item` for each item completed within it.
  Result<void> feed(std::string_view piece, const ItemFn& on_item);

  /// After the last piece: the envelope (the list with "items": []), or an error when the text ended early or the
  /// envelope is not valid JSON.
  Result<Document> finish();

  /// The number of items handed on so far.
  std::size_t items() const { return items_; }

 private:
  Result<void> fail_with(const std::string& message);

  std::size_t max_item_bytes_;
  std::string envelope_;            // everything outside the items, "items" as []
  std::string item_;                // the item in progress (the part of it from earlier pieces)
  std::string key_;                 // the last key read at the top level (a bounded prefix of it)
  std::string api_version_;         // the list's apiVersion, once read
  std::string kind_;                // the list's kind, once read
  std::string* capture_ = nullptr;  // where the characters of the string being read go, if anywhere
  std::size_t depth_ = 0;           // open objects and arrays
  std::size_t items_ = 0;
  bool started_ = false;  // the top-level '{' was read
  bool done_ = false;     // the top-level '}' was read
  bool in_string_ = false;
  bool escaped_ = false;         // the previous character in the string was a backslash
  bool awaiting_value_ = false;  // a ':' at the top level was read and its value has not begun
  bool in_items_ = false;        // inside the top-level "items" array (depth 2 between items)
  bool items_seen_ = false;
  bool failed_ = false;
  std::string error_;
};

}  // namespace cfo::json
