#pragma once
// Read-only views of the children as observed on the cluster: the few status fields the workload's status is made
// of, read defensively (any field may be missing or of the wrong type; then it reads as empty).
#include <cstdint>
#include <string>
#include <string_view>

#include "core/json.hpp"

namespace cfo::workload {

/// What a RayCluster reports (ray.io/v1 RayClusterStatus), or the rayClusterStatus embedded in a RayJob.
struct RayClusterView {
  bool present = false;
  /// spec.suspend is true.
  bool suspended = false;
  /// status.state: "ready", "suspended", "failed", ... (empty while KubeRay has not reported).
  std::string state;
  /// status.reason, set with state "failed".
  std::string reason;
  int32_t ready_workers = 0;
  /// status.head.serviceName (KubeRay >= 1.1).
  std::string head_service;
  /// False while the object has no status at all (its controller has not reconciled it yet).
  bool reported = false;
  /// metadata.creationTimestamp (RFC 3339), empty when unknown.
  std::string created;
};

/// Reads a RayCluster object (null: not present).
RayClusterView view_ray_cluster(const json::Value* ray_cluster);

/// What a RayJob reports (ray.io/v1 RayJobStatus).
struct RayJobView {
  bool present = false;
  bool suspended = false;
  /// status.jobStatus: PENDING, RUNNING, STOPPED, SUCCEEDED, FAILED.
  std::string job_status;
  /// status.jobDeploymentStatus: Initializing, Running, Complete, Failed, Suspending, Suspended, Retrying, Waiting.
  std::string deployment_status;
  std::string message;
  std::string ray_cluster_name;
  std::string dashboard_url;
  /// status.rayClusterStatus, with `present` true when the RayJob reports one.
  RayClusterView cluster;
  /// False while the RayJob has no status at all (KubeRay has not reconciled it yet).
  bool reported = false;
  /// metadata.creationTimestamp (RFC 3339), empty when unknown.
  std::string created;
  /// metadata.deletionTimestamp is set: someone deleted it and its finalizers still run.
  bool deleting = false;
};

/// Reads a RayJob object (null: not present).
RayJobView view_ray_job(const json::Value* ray_job);

/// Kueue's verdict on a queued object, read from its Workload (kueue.x-k8s.io Workload status).
struct AdmissionView {
  bool present = false;
  std::string workload_name;
  /// Admitted condition True (or, on older Kueue, status.admission set).
  bool admitted = false;
  /// Evicted condition True.
  bool evicted = false;
  /// status.admission.clusterQueue.
  std::string cluster_queue;
  /// The message of the most telling condition (Evicted, else QuotaReserved when False, else Admitted).
  std::string message;
};

/// Reads a Kueue Workload object (null: not present).
AdmissionView view_admission(const json::Value* kueue_workload);

/// True when `obj`'s controller owner reference (metadata.ownerReferences, the one with controller: true) is the
/// CodeFlareWorkload with `uid`. False for an empty `uid` (an offline render has none), without a controller reference,
/// or for one to another object: Kubernetes allows one controller reference per object (ValidateOwnerReferences).
bool controlled_by(const json::Value& obj, std::string_view uid);

}  // namespace cfo::workload
