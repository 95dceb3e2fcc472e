#include "core/watch_event.hpp"

namespace cfo {

Result<WatchEvent> decode_watch_event(std::string_view line) {
  auto doc = json::parse(line);
  if (!doc) return std::unexpected(doc.error());
  auto type = json::get_string(*doc, "type");
  if (!type) return fail("watch event has no type");
  WatchEvent ev;
  if (*type == "ADDED")
    ev.type = WatchEvent::Type::Added;
  else if (*type == "MODIFIED")
    ev.type = WatchEvent::Type::Modified;
  else if (*type == "DELETED")
    ev.type = WatchEvent::Type::Deleted;
  else if (*type == "BOOKMARK")
    ev.type = WatchEvent::Type::Bookmark;
  else if (*type == "ERROR")
    ev.type = WatchEvent::Type::Error;
  else
    return fail("watch event has unknown type \"" + *type + "\"");
  json::Value* obj = json::find(*doc, "object");
  if (!obj || !obj->IsObject()) return fail("watch event has no object");
  // Keep the parsed document (and its allocator) and make its "object" member the root: no copy.
  json::Value inner;
  inner.Swap(*obj);
  ev.object = std::move(*doc);
  static_cast<json::Value&>(ev.object).Swap(inner);
  return ev;
}

}  // namespace cfo
