#include "runtime/cached_object.hpp"

#include <memory>

namespace cfo::runtime {

void strip_managed_fields(json::Document& object) {
  if (json::Value* meta = json::find(object, "metadata"); meta && meta->IsObject()) meta->RemoveMember("managedFields");
}

namespace {
// The allocator and the document it serves, kept together: the ObjectPtr handed out points at `doc` and owns both.
struct CompactHolder {
  explicit CompactHolder(std::size_t bytes) : allocator(bytes), doc(&allocator) {}
  rapidjson::MemoryPoolAllocator<> allocator;
  json::Document doc;
};
}  // namespace

ObjectPtr compact_object(const json::Value& object) {
  // A first copy measures the room the object takes; the second goes into a block of that size.
  json::Document measure;
  measure.CopyFrom(object, measure.GetAllocator());
  auto holder = std::make_shared<CompactHolder>(measure.GetAllocator().Size() + 64);
  holder->doc.CopyFrom(object, holder->allocator);
  return ObjectPtr(holder, &holder->doc);
}

}  // namespace cfo::runtime
