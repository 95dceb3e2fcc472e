#include "workload/check_workload.hpp"

#include <regex>

#include "core/names.hpp"
#include "workload/field_reader.hpp"

namespace cfo::workload {

namespace {
constexpr const char* kKubeRayMeta = "kuberay:ValidateRayClusterMetadata";

void check_name(const Workload& w, FieldErrors& errs) {
  if (w.name.empty()) return;
  for (const auto& m : names::dns1035_label(w.name))
    if (m.find("longer than") == std::string::npos)
      add_error(errs, "metadata.name", "DNS1035Label", "the RayCluster name " + m, kKubeRayMeta);
  if (w.name.size() > kMaxRayClusterNameLength)
    add_error(errs, "metadata.name", "MaxRayClusterNameLength",
              "is " + std::to_string(w.name.size()) + " characters; a RayCluster name may have at most " +
                  std::to_string(kMaxRayClusterNameLength),
              kKubeRayMeta);
}

// A RayJob's name is cut shorter: KubeRay derives the submitter Job's and the cluster's names from it.
void check_job_name(const Workload& w, FieldErrors& errs) {
  if (!w.spec.job || w.name.size() <= kMaxRayJobNameLength) return;
  add_error(errs, "metadata.name", "MaxRayJobNameLength",
            "is " + std::to_string(w.name.size()) + " characters; a RayJob name (spec.job is set) may have at most " +
                std::to_string(kMaxRayJobNameLength),
            "kuberay:ValidateRayJobMetadata");
}

// spec.image, and a group's own image (spec.head.image, spec.workerGroups[i].image) when given.
void check_image_version(const std::string& image, const std::string& path, const std::string& ray_version,
                         FieldErrors& errs) {
  static const std::regex tag(R"((^|/)ray(-ml)?:([0-9]+\.[0-9]+\.[0-9]+))");
  std::smatch m;
  if (std::regex_search(image, m, tag) && m[3].str() != ray_version)
    add_warning(errs, path, "RayVersionMatchesImage",
                "image is Ray " + m[3].str() + " but spec.rayVersion is " + ray_version,
                "codeflare-sdk:validate_ray_version_compatibility");
}

// A memory quantity below 1Mi written as a bare number: the SDK reads a bare number as gigabytes, Kubernetes as
// bytes, and no Ray container starts in a few bytes; and a memory quantity in milli-units ("4096m" for 4096M), which
// Kubernetes rounds up to whole bytes. An error unless the annotation codeflare.dev/ignore-checks names MemoryUnits.
void check_memory(const Workload& w, const ResourceRequirements& r, const std::string& path, FieldErrors& errs) {
  static const Quantity one_mi = *Quantity::parse("1Mi");
  if (w.ignores("MemoryUnits")) return;
  for (const char* side : {"requests", "limits"}) {
    const ResourceList& list = std::string_view(side) == "requests" ? r.requests : r.limits;
    const Quantity* q = list.find("memory");
    if (!q || q->nanos() <= 0) continue;
    const std::string& text = q->text();
    if (text.ends_with('m')) {  // milli: "4096m" is 4.096 bytes, a slip for M or Mi
      const std::string digits = text.substr(0, text.size() - 1);
      add_error(errs, join_path(join_path(path, side), "memory"), "MemoryUnits",
                "memory " + text + " means " + digits + " thousandths of a byte (m is milli); write \"" + digits +
                    "M\" or \"" + digits + "Mi\" for megabytes (or set the annotation " + kIgnoreChecksAnnotation +
                    ": MemoryUnits if this is really meant)");
      continue;
    }
    if (!(*q < one_mi) || text.find_first_not_of("0123456789") != std::string::npos) continue;
    add_error(errs, join_path(join_path(path, side), "memory"), "MemoryUnits",
              "memory " + text + " means " + text + " bytes; write \"" + text +
                  "G\" for gigabytes (or set the annotation " + kIgnoreChecksAnnotation +
                  ": MemoryUnits if bytes are really meant)");
  }
}
}  // namespace

FieldErrors check_workload(const Workload& w) {
  FieldErrors errs;
  check_name(w, errs);
  check_job_name(w, errs);
  const WorkloadSpec& s = w.spec;
  if (s.app_wrapper && s.worker_groups.size() > kAppWrapperMaxWorkerGroups)
    add_error(errs, "spec.workerGroups", "AppWrapperMaxPodSets",
              "an AppWrapper holds at most 8 pod specs: the head and " + std::to_string(kAppWrapperMaxWorkerGroups) +
                  " worker groups, not " + std::to_string(s.worker_groups.size()),
              "appwrapper:validateAppWrapperCreate");
  if (!w.ignores("RayVersionMatchesImage")) {
    check_image_version(s.image, "spec.image", s.ray_version, errs);
    if (!s.head.pod.image.empty()) check_image_version(s.head.pod.image, "spec.head.image", s.ray_version, errs);
    for (std::size_t i = 0; i < s.worker_groups.size(); ++i)
      if (!s.worker_groups[i].pod.image.empty())
        check_image_version(s.worker_groups[i].pod.image, index_path("spec.workerGroups", i) + ".image", s.ray_version,
                            errs);
  }
  return errs;
}

FieldErrors check_written_resources(const Workload& w) {
  FieldErrors errs;
  const WorkloadSpec& s = w.spec;
  check_memory(w, s.head.resources, "spec.head.resources", errs);
  for (std::size_t i = 0; i < s.worker_groups.size(); ++i)
    check_memory(w, s.worker_groups[i].resources, index_path("spec.workerGroups", i) + ".resources", errs);
  return errs;
}

}  // namespace cfo::workload
