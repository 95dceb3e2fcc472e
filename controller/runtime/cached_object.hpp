#pragma once
// What an informer keeps of an object: a transformed, compact, immutable copy (controller-runtime's cache
// transforms, e.g. TransformStripManagedFields).
#include <functional>

#include "core/json.hpp"
#include "runtime/store.hpp"

namespace cfo::runtime {

/// Rewrites an object before it enters a cache (removing what no reader needs). Runs on the informer thread.
using ObjectTransform = std::function<void(json::Document& object)>;

/// Removes metadata.managedFields: server-side apply's bookkeeping, often the largest part of an object, which no
/// reconcile reads (controller-runtime cache.TransformStripManagedFields).
void strip_managed_fields(json::Document& object);

/// An immutable copy of `object` whose memory is one block sized to it: a RapidJSON document otherwise reserves a
/// 64 KiB chunk, so that a cache of small objects would hold mostly unused room.
ObjectPtr compact_object(const json::Value& object);

}  // namespace cfo::runtime
