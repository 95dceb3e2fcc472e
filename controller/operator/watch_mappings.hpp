#pragma once
// How events on other objects map to the CodeFlareWorkloads they concern (controller-runtime's Owns() and
// Watches() with a mapping function).
#include <memory>
#include <string>

#include "operator/own_child_writes.hpp"
#include "runtime/controller.hpp"
#include "runtime/informer_group.hpp"

namespace cfo::op {

/// A child (RayCluster, AppWrapper, RayJob) to its workload: children carry the label codeflare.dev/workload with
/// the workload's name, and live in its namespace. An object of a child kind without the label (someone else's) maps
/// to the workload of `workloads` (the workload cache) with its namespace and name, whose child it blocks
/// (ChildConflict), so that its deletion lets that workload go on at once; std::nullopt when there is none.
/// With `own_writes` (may be null): the event of a child whose version is the one our own creation of it returned
/// maps to nothing (OwnChildWrites::is_echo): the reconcile that created it has reported it already.
runtime::KeyMapper child_to_workload(const runtime::InformerGroup& workloads,
                                     std::shared_ptr<OwnChildWrites> own_writes = nullptr);

/// A LocalQueue to every workload of `workloads` (the workload cache) that uses it (uses_local_queue: named in
/// spec.queue, managed, or in effect per status.queue) or names no queue (the namespace's default may change with
/// it), so that a held workload goes ahead as soon as its queue appears and a submitted one learns that it is gone.
runtime::KeysMapper local_queue_to_workloads(const runtime::InformerGroup& workloads);

/// A WorkloadPriorityClass to every workload of `workloads` that names it in spec.queue.priorityClass, so that a
/// workload held for a missing priority class goes ahead as soon as it appears.
runtime::KeysMapper priority_class_to_workloads(const runtime::InformerGroup& workloads);

/// Every workload of `workloads`: a ClusterQueue or ResourceFlavor change may change the admissibility of any queued
/// workload (the namespace's default LocalQueue included), and such changes are rare.
runtime::KeysMapper every_workload(const runtime::InformerGroup& workloads);

/// A Kueue Workload to the workload whose child (RayCluster, AppWrapper or RayJob: its controller owner) it admits:
/// children share their workload's name and namespace. std::nullopt when no cached workload has that key.
runtime::KeyMapper kueue_workload_to_workload(const runtime::InformerGroup& workloads);

}  // namespace cfo::op
