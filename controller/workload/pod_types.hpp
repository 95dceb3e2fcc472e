#pragma once
// The core/v1 pod-template pieces the operator generates: container, ports, resources, env, lifecycle, pod spec.
// Fields we never set are absent; user fragments (volumes, mounts, tolerations) are carried as JSON.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "workload/fragment.hpp"
#include "workload/resource_list.hpp"
#include "workload/strategic_merge.hpp"

namespace cfo::workload {

/// The containers the operator generates: the Ray container of the head and of the workers (codeflare-sdk names) and
/// KubeRay's job submitter (utils.SubmitterContainerName).
inline constexpr const char* kHeadContainerName = "ray-head";
inline constexpr const char* kWorkerContainerName = "machine-learning";
inline constexpr const char* kSubmitterContainerName = "ray-job-submitter";

/// core/v1 ContainerPort: a named TCP port. `protocol: TCP` is written out although it is the default: it is part of
/// the ports list-map key (containerPort, protocol), and a key the server fills in makes every server-side apply of an
/// unchanged object a change (a new resourceVersion, hence a watch event and another reconcile).
struct ContainerPort {
  std::string name;
  int32_t container_port = 0;

  json::Value to_json(json::Allocator& a) const;
};

/// core/v1 ResourceRequirements: requests and limits (empty lists are omitted).
struct ResourceRequirements {
  ResourceList requests;
  ResourceList limits;

  json::Value to_json(json::Allocator& a) const;
};

/// core/v1 EnvVar: a literal `value` or a `valueFrom` source (kept as the user wrote it).
struct EnvVar {
  std::string name;
  std::optional<std::string> value;
  std::optional<Fragment> value_from;

  json::Value to_json(json::Allocator& a) const;
};

/// core/v1 Container, with a preStop exec hook when `pre_stop_command` is non-empty.
struct Container {
  std::string name;
  std::string image;
  std::string image_pull_policy;
  std::vector<ContainerPort> ports;
  std::vector<std::string> pre_stop_command;
  ResourceRequirements resources;
  std::vector<EnvVar> env;
  std::vector<Fragment> volume_mounts;

  json::Value to_json(json::Allocator& a) const;
};

/// core/v1 PodSpec: containers plus the user's volumes, tolerations and image pull secrets (by name), and a
/// restartPolicy when set (the submitter's Never).
struct PodSpec {
  std::vector<Container> containers;
  std::string restart_policy;
  std::vector<Fragment> volumes;
  std::vector<Fragment> tolerations;
  std::vector<std::string> image_pull_secrets;

  json::Value to_json(json::Allocator& a) const;
};

/// A user's Pod template fragment (a `template` field of the workload) and that field's path in the workload
/// ("spec.head.template").
struct TemplateOverlay {
  Fragment patch;
  std::string source;
  /// MergeOptions::existing_only: the operator's container names, for a template that every Pod gets.
  std::vector<std::string> existing_only;
};

/// core/v1 PodTemplateSpec; `metadata.labels` and `metadata.annotations` are written only when non-empty (no
/// metadata at all when both are empty, as the SDK does), then the overlays are merged over it in order
/// (merge_pod_template).
struct PodTemplateSpec {
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  PodSpec spec;
  /// Values the builder copied from plain workload fields, with paths relative to the template
  /// ({"spec.containers[0].image", "spec.workerGroups[1].image"}); see collect_origins.
  PathOrigins origins;
  std::vector<TemplateOverlay> overlays;

  json::Value to_json(json::Allocator& a) const;
  /// Appends to `out` where the values of this template came from, with child paths under `at` (the template's path
  /// in the generated object): the builder's `origins`, then what each overlay's merge took from its fragment (a
  /// later, deeper origin names the field that wins).
  void collect_origins(const std::string& at, PathOrigins& out) const;
};

}  // namespace cfo::workload
