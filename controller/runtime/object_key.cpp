#include "runtime/object_key.hpp"

namespace cfo::runtime {

namespace {

std::string metadata_field(const json::Value& obj, std::string_view field) {
  const json::Value* meta = json::find(obj, "metadata");
  if (!meta) return {};
  return json::get_string(*meta, field).value_or("");
}

std::string_view group_of(std::string_view api_version) {
  auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view{} : api_version.substr(0, slash);
}

}  // namespace

std::string key_of(const json::Value& obj) {
  std::string name = metadata_field(obj, "name");
  if (name.empty()) return {};
  std::string ns = metadata_field(obj, "namespace");
  return ns.empty() ? name : ns + "/" + name;
}

std::pair<std::string, std::string> split_key(std::string_view key) {
  auto slash = key.find('/');
  if (slash == std::string_view::npos) return {std::string{}, std::string(key)};
  return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

std::optional<std::string> controller_owner_key(const json::Value& obj, std::string_view api_group,
                                                std::string_view kind) {
  const json::Value* refs = json::find_path(obj, "metadata.ownerReferences");
  if (!refs || !refs->IsArray()) return std::nullopt;
  for (const auto& ref : refs->GetArray()) {
    if (!json::get_bool(ref, "controller").value_or(false)) continue;
    if (json::get_string(ref, "kind").value_or("") != kind) continue;
    auto api_version = json::get_string(ref, "apiVersion");
    if (!api_version || group_of(*api_version) != api_group) continue;
    auto name = json::get_string(ref, "name");
    if (!name || name->empty()) continue;
    std::string ns = metadata_field(obj, "namespace");
    return ns.empty() ? *name : ns + "/" + *name;
  }
  return std::nullopt;
}

}  // namespace cfo::runtime
