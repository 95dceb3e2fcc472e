#include "workload/apply_plan.hpp"

#include <cstdint>
#include <cstdio>

namespace cfo::workload {

std::size_t stamp_spec_hash(json::Document& obj) {
  auto& a = obj.GetAllocator();
  if (!obj.IsObject()) return 0;
  json::Value* meta = json::find(obj, "metadata");
  if (!meta || !meta->IsObject()) return 0;
  json::Value* annotations = json::find(*meta, "annotations");
  if (annotations && annotations->IsObject()) annotations->RemoveMember(kSpecHashAnnotation);
  std::string text = json::dump(obj);
  const std::string hex = content_hash(text);
  if (!annotations || !annotations->IsObject()) {
    json::set(*meta, "annotations", json::Value(rapidjson::kObjectType), a);
    annotations = json::find(*meta, "annotations");
  }
  json::set(*annotations, kSpecHashAnnotation, json::str(hex, a), a);
  return text.size();
}

std::string content_hash(std::string_view text) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a, 64 bit
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

bool is_applied(const json::Value& desired, const json::Value& live) {
  if (desired.IsObject()) {
    if (!live.IsObject()) return false;
    for (const auto& m : desired.GetObject()) {
      auto it = live.FindMember(m.name);
      if (it == live.MemberEnd() || !is_applied(m.value, it->value)) return false;
    }
    return true;
  }
  if (desired.IsArray()) {
    if (!live.IsArray() || live.Size() != desired.Size()) return false;
    for (rapidjson::SizeType i = 0; i < desired.Size(); ++i)
      if (!is_applied(desired[i], live[i])) return false;
    return true;
  }
  if (desired.IsNumber()) {
    if (!live.IsNumber()) return false;
    if (desired.IsDouble() || live.IsDouble()) return desired.GetDouble() == live.GetDouble();
    if (desired.IsInt64() && live.IsInt64()) return desired.GetInt64() == live.GetInt64();
    return desired.IsUint64() && live.IsUint64() && desired.GetUint64() == live.GetUint64();
  }
  return desired == live;
}

}  // namespace cfo::workload
