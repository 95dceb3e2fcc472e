#pragma once
// What the cluster serves of the APIs the operator uses, and the schemas of their CRDs: read at start, and again
// whenever one of those CRDs appears, changes or goes (an upgrade of KubeRay, Kueue or AppWrapper, or an install
// after the operator's start), so that nothing needs a restart.
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "operator/api.hpp"
#include "validation/cluster_facts.hpp"
#include "validation/schema_set.hpp"
#include "validation/validator.hpp"

namespace cfo::op {

/// One consistent view of the served APIs. Immutable once published.
struct ServedApis {
  /// The schemas of the served CRDs of kTargetCrdNames (descriptions dropped; of ray.io's, v1 only: see
  /// keep_versions_in_use).
  std::shared_ptr<const validation::SchemaSet> schemas;
  bool ray_cluster = false;
  bool app_wrapper = false;
  bool ray_job = false;
  /// The Kueue API version to use ("v1beta2", "v1beta1"), "" when Kueue's LocalQueue CRD is not served.
  std::string kueue_version;
  /// Kueue's MaxPodSets from the Workload CRD (0 when unknown).
  int kueue_max_pod_sets = 0;
  /// The cluster profile the CRDs tell (detect_profile): odh where OpenDataHub / OpenShift AI is installed.
  validation::Profile profile = validation::Profile::kVanilla;
  /// metadata.generation of each CRD read and Established (absent: not installed or not served yet), to tell whether
  /// a CRD event changes anything.
  std::map<std::string, int64_t> generations;
  /// The watched CRDs being deleted (Established, with metadata.deletionTimestamp): not served, but their objects may
  /// still exist (held by finalizers) until the deletion ends.
  std::set<std::string> terminating;
  /// metadata.resourceVersion of each watched CRD read (served or not; absent: not installed): the CRD informer,
  /// which caches their metadata only, tells a change of any of them by a resourceVersion that differs.
  std::map<std::string, std::string> resource_versions;
};

/// The CRDs whose schemas the controller checks generated objects against (name as served, e.g. "rayclusters.ray.io").
extern const std::vector<std::string> kTargetCrdNames;

/// The CRDs whose presence tells an OpenDataHub / Red Hat OpenShift AI cluster, where the CodeFlare operator (and its
/// RayCluster webhooks) runs: its DataScienceCluster and DSCInitialization CRDs.
extern const std::vector<std::string> kOdhCrdNames;

/// The cluster profile from the names of the watched CRDs the cluster serves: odh when any of kOdhCrdNames is among
/// them, else vanilla.
validation::Profile detect_profile(const std::vector<std::string>& served_crds);

/// The CRDs whose appearance, change or removal makes the operator read the served APIs again: kTargetCrdNames,
/// Kueue's Workload CRD (for MaxPodSets) and kOdhCrdNames (for the profile).
const std::vector<std::string>& watched_crd_names();

/// Reads every CRD of watched_crd_names() with `api` (404: not installed), compiles the schemas of the target CRDs
/// (without their descriptions), tells which APIs are served and the profile (detect_profile). A CRD counts while
/// crd_served (Established, not being deleted); Kueue's API version is v1beta2 when its LocalQueue CRD serves it, else
/// v1beta1. Errors: any read failure other than 404, or a CRD whose schema does not compile.
Result<ServedApis> read_served_apis(const Api& api);

/// `apis` with the CRDs named in `deleting` (being deleted, as the CRD informer shows) no longer served: out of
/// `generations`, into `terminating`, their kinds' flags cleared (Kueue's version and MaxPodSets for its CRDs) and
/// the profile told again; the schemas are kept (the flags decide). Published at once when a deletion starts, before
/// the CRDs are read again: in the time that reading and compiling took, a server-side apply re-created the objects
/// the deletion had just removed (the twenty-first user trial: every AppWrapper once, a deletion of 61 s).
ServedApis stop_serving(const ServedApis& apis, const std::set<std::string>& deleting);

/// True when the CRD's status says Established=True (the apiserver serves its API).
bool crd_established(const json::Value& crd);

/// True when the CRD is Established and not being deleted (no metadata.deletionTimestamp): its kind may be written.
/// While a CRD is deleted its objects are removed; a server-side apply (a PATCH, which the apiserver does not refuse
/// then, unlike a POST) would only create them again, and the deletion would never end.
bool crd_served(const json::Value& crd);

/// Removes every `description` of a CRD's schemas (keeping properties named "description"): they are the bulk of a
/// CRD and validation never reads them.
void strip_schema_descriptions(json::Value& crd);

/// Removes the versions of a CRD that the operator neither writes nor judges: of ray.io's kinds every version but v1
/// (the children it generates, and what its guard webhooks are registered for). KubeRay's v1alpha1 schemas of
/// RayCluster and RayJob are about 1 MiB once parsed, and nothing reads them. Returns whether a version is left.
bool keep_versions_in_use(json::Value& crd);

/// The Kubernetes minor version in the apiserver's GET /version answer ({"major": "1", "minor": "20", ...}; some
/// distributions write "27+"): the leading digits of "minor" when "major" is "1", else 0 (unknown). It becomes
/// ClusterProfile::kubernetes_minor.
int kubernetes_minor_of(const json::Value& version);

/// The published view, shared by the reconcile workers and the refresher. Thread-safe.
class ServedApiState {
 public:
  std::shared_ptr<const ServedApis> get() const;
  void set(std::shared_ptr<const ServedApis> apis);

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const ServedApis> apis_;
};

}  // namespace cfo::op
