#pragma once
// The validating handlers: one for CodeFlareWorkload (the controller's own reconcile, so the answer is the status
// the controller would write) and the optional guards for the Ray, AppWrapper and Kueue kinds (what
// `codeflare-operator validate` runs).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/json.hpp"
#include "validation/schema_set.hpp"
#include "validation/validator.hpp"
#include "webhook/admission.hpp"
#include "workload/reconcile.hpp"

namespace cfo::webhook {

/// Decides one admission request. Called on the webhook server's handler threads, concurrently for different
/// requests: implementations must be thread-safe. An exception becomes HTTP 500 (the webhook's failurePolicy then
/// decides).
using AdmissionHandler = std::function<AdmissionResponse(const AdmissionRequest&)>;

/// A kind a handler serves, and the version its path names (the version the webhook configuration's rule lists
/// first; a handler accepts every version whose schema is loaded).
struct ServedKind {
  std::string group;
  std::string version;
  std::string kind;
  std::string resource;  ///< plural, for the webhook configuration's rules
};

/// The kubebuilder path of a validating webhook: "/validate-" + group with '.' replaced by '-' + "-" + version + "-" +
/// lower-case kind, e.g. "/validate-ray-io-v1-raycluster".
std::string validate_path(const ServedKind& kind);

/// codeflare.dev/v1alpha1 CodeFlareWorkload.
const ServedKind& codeflare_workload_kind();

/// The kinds with a guard handler: ray.io/v1 RayCluster and RayJob, workload.codeflare.dev/v1beta2 AppWrapper, and
/// kueue.x-k8s.io/v1beta2 LocalQueue, ClusterQueue, ResourceFlavor and WorkloadPriorityClass.
const std::vector<ServedKind>& guard_kinds();

/// Reads, for one CodeFlareWorkload, what reconcile needs to know of the cluster (workload::ClusterFacts: the
/// LocalQueue and WorkloadPriorityClass the spec names, the namespace's default LocalQueue, the Kueue version and
/// profile). A LocalQueue read goes into `storage`, which outlives the reconcile; facts.local_queue may point into
/// it (or into any object that outlives the call). Called on a handler thread; must be thread-safe and should answer
/// well within the server's answer budget (read caches, not the apiserver). An error denies the request with code
/// 500 and the error's message.
using FactsFn = std::function<Result<workload::ClusterFacts>(const json::Value& workload, json::Document& storage)>;

/// The clock of status timestamps: RFC 3339 UTC ("2026-01-02T03:04:05Z"). now_rfc3339 when empty.
using NowFn = std::function<std::string()>;

/// The CodeFlareWorkload handler. CREATE and UPDATE run workload::reconcile (no observed children; the facts from
/// `facts`) on the object as it would be stored, `status` included on UPDATE (the stored status is reconcile's
/// previous status; on CREATE a status in the request is ignored, as the apiserver drops it). Errors deny, warnings
/// become admission warnings; a workload that is valid but held (e.g. LocalQueueNotFound) is admitted with a warning
/// naming why. UPDATE: admitted without a verdict when verdict_inputs_unchanged(); otherwise also refused when
/// queue_change_while_running(). Other operations are admitted. A request for another kind is denied with 400.
AdmissionHandler make_workload_handler(std::shared_ptr<const validation::SchemaSet> schemas, FactsFn facts,
                                       NowFn now = {});

/// A guard handler for `kind` (one of guard_kinds()): CREATE runs validation::validate_object, UPDATE
/// validation::validate_update against the stored object (CEL transition rules, ratcheting), with `profile`; errors
/// deny, warnings become admission warnings. UPDATE is admitted without a verdict when verdict_inputs_unchanged().
/// An object of a version without a loaded schema is admitted with a warning that it was not checked (the guards
/// fail open); a request for another kind is denied with 400.
AdmissionHandler make_guard_handler(std::shared_ptr<const validation::SchemaSet> schemas,
                                    validation::ClusterProfile profile, ServedKind kind);

}  // namespace cfo::webhook
