#pragma once
// Filters on informer updates: which changes of an object are worth a reconcile.
#include <functional>

#include "core/json.hpp"

namespace cfo::runtime {

/// Decides whether an update from `old_object` to `new_object` should enqueue the object's key.
using UpdatePredicate = std::function<bool(const json::Value& old_object, const json::Value& new_object)>;

/// True when the update is more than a status write: metadata.generation changed (the spec did), or one of
/// metadata.labels, annotations, finalizers, ownerReferences or deletionTimestamp did. A change of status alone
/// (with the resourceVersion and managedFields that go with it) gives false, and so does a resync of an unchanged
/// object. An object without a generation is always reconciled (true).
/// Follows controller-runtime's GenerationChangedPredicate, widened with the metadata that its
/// Label/AnnotationChangedPredicate cover and with finalizers and deletion, which a generation does not reflect
/// on every server version. Used on the primary (CodeFlareWorkload) informer, so that the operator's own status
/// writes do not wake it again; children are not filtered, since their status is what the workload follows.
bool spec_or_metadata_changed(const json::Value& old_object, const json::Value& new_object);

/// True when the objects differ in anything but metadata.resourceVersion and metadata.managedFields (member order
/// does not matter). For caches whose transform keeps only what readers use: a LocalQueue cached as its labels and
/// clusterQueue changes in nothing the operator reads when Kueue rewrites its status (on every admission in it), so
/// that write wakes none of the workloads naming it. A resync of an unchanged object gives false.
bool kept_fields_changed(const json::Value& old_object, const json::Value& new_object);

}  // namespace cfo::runtime
