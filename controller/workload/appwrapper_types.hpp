#pragma once
// CodeFlare AppWrapper (workload.codeflare.dev/v1beta2, project-codeflare/appwrapper api/v1beta2
// appwrapper_types.go), reduced to what the operator generates: metadata and a list of components, each holding a
// full object as its template. podSets are not declared: the AppWrapper controller infers them for a RayCluster.
#include <string>
#include <vector>

#include "core/json.hpp"
#include "workload/fragment.hpp"
#include "workload/object_meta.hpp"

namespace cfo::workload {

inline constexpr const char* kAppWrapperApiVersion = "workload.codeflare.dev/v1beta2";
inline constexpr const char* kAppWrapperKind = "AppWrapper";

/// spec.components[i]: `template` is a whole Kubernetes object (apiVersion, kind, metadata, spec).
struct AppWrapperComponent {
  Fragment template_;

  json::Value to_json(json::Allocator& a) const;
};

/// A whole AppWrapper object (no status). spec.suspend is written only when `suspend` is true (the user's
/// spec.suspend); false is never written, since Kueue owns the field of a queued AppWrapper.
struct AppWrapper {
  ObjectMeta metadata;
  std::vector<AppWrapperComponent> components;
  bool suspend = false;
  /// spec.managedBy, written only when set (MultiKueue).
  std::string managed_by;

  json::Document to_json() const;
};

}  // namespace cfo::workload
