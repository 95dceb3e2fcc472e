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

namespace cfo::workload {

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

/// core/v1 PodSpec: containers plus the user's volumes, tolerations and image pull secrets (by name).
struct PodSpec {
  std::vector<Container> containers;
  std::vector<Fragment> volumes;
  std::vector<Fragment> tolerations;
  std::vector<std::string> image_pull_secrets;

  json::Value to_json(json::Allocator& a) const;
};

/// core/v1 PodTemplateSpec; `metadata.annotations` is written only when non-empty (as the SDK does).
struct PodTemplateSpec {
  std::map<std::string, std::string> annotations;
  PodSpec spec;

  json::Value to_json(json::Allocator& a) const;
};

}  // namespace cfo::workload
