#include "runtime/cached_object.hpp"

#include <memory>

namespace cfo::runtime {

void strip_managed_fields(json::Document& object) {
  if (json::Value* meta = json::find(object, "metadata"); meta && meta->IsObject()) meta->RemoveMember("managedFields");
}

namespace {
// The pool and the document it serves, kept together: the ObjectPtr handed out points at `doc` and owns both.
struct CompactHolder {
  std::unique_ptr<json::Pool> pool;
  json::Document doc;
};
}  // namespace

ObjectPtr compact_object(const json::Value& object) {
  auto holder = std::make_shared<CompactHolder>();
  holder->doc = json::compact_copy(object, holder->pool);
  return ObjectPtr(holder, &holder->doc);
}

}  // namespace cfo::runtime
