#pragma once
// Decoding of one line of a watch stream (metav1.WatchEvent as newline-delimited JSON).
#include <string_view>

#include "core/json.hpp"

namespace cfo {

/// A watch event. For `Error`, `object` is a metav1.Status (its `code` 410 means the resourceVersion expired).
struct WatchEvent {
  enum class Type { Added, Modified, Deleted, Bookmark, Error };
  Type type = Type::Added;
  json::Document object;
};

/// Decodes one JSON line `{"type":"ADDED","object":{...}}`. Errors: invalid JSON, unknown type, missing object.
Result<WatchEvent> decode_watch_event(std::string_view line);

}  // namespace cfo
