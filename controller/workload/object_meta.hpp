#pragma once
// metav1.ObjectMeta and metav1.OwnerReference, reduced to the fields the operator sets on generated objects.
#include <map>
#include <string>
#include <vector>

#include "core/json.hpp"

namespace cfo::workload {

/// metav1.OwnerReference. `controller` and `block_owner_deletion` are written only when true.
struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  bool block_owner_deletion = false;

  json::Value to_json(json::Allocator& a) const;
};

/// metav1.ObjectMeta: name, namespace, labels, annotations and owner references. Empty maps and lists are omitted
/// from the JSON, as are an empty name and namespace.
struct ObjectMeta {
  std::string name;
  std::string namespace_;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::vector<OwnerReference> owner_references;

  json::Value to_json(json::Allocator& a) const;
};

/// JSON object of a string map; used for labels, annotations and rayStartParams.
json::Value string_map_to_json(const std::map<std::string, std::string>& m, json::Allocator& a);

}  // namespace cfo::workload
