#pragma once
// The Namespaces the operator watches, cached for two facts: the Pod Security Standards level each enforces (its
// pod-security.kubernetes.io/enforce label), which decides the level the generated Pod templates are judged at, and
// its labels, which ClusterQueues' namespaceSelectors select (the admissibility judgement).
#include <string>
#include <vector>

#include "core/json.hpp"
#include "runtime/controller.hpp"
#include "runtime/informer.hpp"
#include "runtime/informer_group.hpp"
#include "validation/pod_security.hpp"

namespace cfo::op {

/// The informer options of the Namespace cache: name, uid, resourceVersion and labels (namespace_transform). `name`
/// non-empty: that one namespace (a field selector metadata.name=<name>, for an operator restricted to some namespaces
/// with --namespace); empty: every namespace.
runtime::InformerOptions namespace_informer(const std::string& name);

/// Reduces a Namespace to apiVersion, kind and metadata.{name, uid, resourceVersion, labels}.
void namespace_transform(json::Document& ns);

/// The level a cached Namespace enforces (validation::pod_security_level_of_label); privileged for nullptr (a
/// namespace not cached: the cache is not synced yet, or the Namespace is gone).
validation::PodSecurityLevel pod_security_level_of(const json::Value* ns);

/// A Namespace to every workload of `workloads` (the workload cache) in it: a change of its labels judges them
/// again.
runtime::KeysMapper namespace_to_workloads(const runtime::InformerGroup& workloads);

}  // namespace cfo::op
