#pragma once
// Keys that name objects in caches and work queues: "namespace/name", or "name" for cluster-scoped objects
// (client-go cache.MetaNamespaceKeyFunc).
#include <optional>
#include <string>
#include <string_view>

#include "core/json.hpp"

namespace cfo::runtime {

/// "<metadata.namespace>/<metadata.name>", or "<metadata.name>" when the object has no namespace.
/// Empty when the object has no metadata.name.
std::string key_of(const json::Value& obj);

/// Splits a key into {namespace, name}; namespace is "" for a cluster-scoped key (client-go SplitMetaNamespaceKey).
std::pair<std::string, std::string> split_key(std::string_view key);

/// The key of the controlling owner of `obj`: the first metadata.ownerReferences entry with `controller: true`,
/// `kind` equal to `kind` and an apiVersion whose group is `api_group` ("" for the core group, whose apiVersion
/// has no '/'), e.g. "ns/owner" for a RayCluster controlled by CodeFlareWorkload "owner". Owners live in the
/// object's namespace, so the key uses it. std::nullopt when there is no such owner.
/// Follows controller-runtime handler.EnqueueRequestForOwner with OnlyControllerOwner() (used by Owns()).
std::optional<std::string> controller_owner_key(const json::Value& obj, std::string_view api_group,
                                                std::string_view kind);

}  // namespace cfo::runtime
