#pragma once
// Shared pieces of the end-to-end tests: the operator process (started once per test binary by a gtest environment,
// against the control plane of the ctest fixture) and small helpers to read and write the apiserver.
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "client/rest_client.hpp"
#include "core/json.hpp"

namespace cfo::it {

using client::ResourceType;

extern const ResourceType kWorkloads;    ///< codeflare.dev/v1alpha1 codeflareworkloads
extern const ResourceType kRayClusters;  ///< ray.io/v1 rayclusters
extern const ResourceType kRayJobs;      ///< ray.io/v1 rayjobs
extern const ResourceType kAppWrappers;  ///< workload.codeflare.dev/v1beta2 appwrappers
extern const ResourceType kLocalQueues;  ///< kueue.x-k8s.io/v1beta1 localqueues
extern const ResourceType kNamespaces;   ///< v1 namespaces

/// The client of the test (system:masters on the fixture's apiserver).
client::RestClient& api();

/// Polls `pred` every 200 ms until it is true or `timeout` passes; returns its last value.
bool eventually(const std::function<bool()>& pred, std::chrono::seconds timeout = std::chrono::seconds(30));

/// The last 4000 bytes of the operator's log, for failure messages.
std::string operator_log();

/// The first document of a YAML text as JSON (a test failure when it does not parse).
json::Document from_yaml(const std::string& text);

/// "<prefix>-<random number>", a fresh namespace name.
std::string unique_namespace(const std::string& prefix);

/// Creates a namespace (fatal test failure on error).
void create_namespace(const std::string& ns);

/// Merge-patches object `name` with `yaml` (its spec, metadata or both) as field manager "someone-else", as another
/// client would; fatal test failure on error.
void patch_spec(const ResourceType& t, const std::string& ns, const std::string& name, const std::string& yaml);

/// GET of one object; std::nullopt when absent or on error.
std::optional<json::Document> get(const ResourceType& t, const std::string& ns, const std::string& name);

/// The status of condition `type` in obj.status.conditions ("" when absent); `message` receives its message.
std::string condition_status(const json::Value& obj, const std::string& type, std::string* message = nullptr);

/// Server-side applies a workload given as YAML (field manager "integration-test"); fatal failure on refusal.
void apply_workload(const std::string& ns, const std::string& yaml_text);

/// A workload named `name` with one worker group "workers" of `replicas` small pods; `extra` is appended to spec
/// (YAML lines indented by two spaces).
std::string cpu_workload(const std::string& name, int replicas, const std::string& extra = "");

}  // namespace cfo::it
