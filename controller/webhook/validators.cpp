#include "webhook/validators.hpp"

#include <cctype>

#include "core/condition.hpp"
#include "core/timestamp.hpp"
#include "webhook/update_rules.hpp"
#include "webhook/verdict.hpp"

namespace cfo::webhook {

namespace {

std::string api_version_of(const std::string& group, const std::string& version) {
  return group.empty() ? version : group + "/" + version;
}

// The request names another kind than the handler serves: the webhook configuration routes it wrongly.
std::optional<AdmissionResponse> wrong_kind(const AdmissionRequest& req, const ServedKind& kind) {
  if (req.group == kind.group && req.kind == kind.kind) return std::nullopt;
  return deny(400, "BadRequest",
              "this webhook judges " + kind.kind + "." + kind.group + ", not " + req.kind +
                  (req.group.empty() ? "" : "." + req.group) + "; check the webhook configuration's rules");
}

std::string object_name(const AdmissionRequest& req, const json::Value& obj) {
  if (!req.name.empty()) return req.name;
  return json::string_at(obj, "metadata.name");
}

// A copy of `obj` with `status` replaced by `status` (removed when null).
json::Document with_status(const json::Value& obj, const json::Value* status) {
  json::Document d = json::clone(obj);
  d.RemoveMember("status");
  if (status && status->IsObject()) {
    json::Value copy(*status, d.GetAllocator());
    d.AddMember("status", copy, d.GetAllocator());
  }
  return d;
}

// The warning of a valid workload whose children are held back (the Queued condition says why).
std::optional<std::string> held_warning(const workload::Outcome& outcome) {
  if (!outcome.held) return std::nullopt;
  const json::Value* conds = json::find(outcome.status, "conditions");
  if (!conds) return std::nullopt;
  for (const auto& c : conditions_from_json(*conds))
    if (c.type == "Queued" && c.status == "False")
      return "spec.queue: nothing is created until this is resolved: " + c.message + " [" + c.reason + "]";
  return std::nullopt;
}

}  // namespace

std::string validate_path(const ServedKind& kind) {
  std::string group = kind.group;
  for (char& c : group)
    if (c == '.') c = '-';
  std::string lower = kind.kind;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return "/validate-" + group + "-" + kind.version + "-" + lower;
}

const ServedKind& codeflare_workload_kind() {
  static const ServedKind k{"codeflare.dev", "v1alpha1", "CodeFlareWorkload", "codeflareworkloads"};
  return k;
}

const std::vector<ServedKind>& guard_kinds() {
  static const std::vector<ServedKind> kinds{
      {"ray.io", "v1", "RayCluster", "rayclusters"},
      {"ray.io", "v1", "RayJob", "rayjobs"},
      {"workload.codeflare.dev", "v1beta2", "AppWrapper", "appwrappers"},
      {"kueue.x-k8s.io", "v1beta2", "LocalQueue", "localqueues"},
      {"kueue.x-k8s.io", "v1beta2", "ClusterQueue", "clusterqueues"},
      {"kueue.x-k8s.io", "v1beta2", "ResourceFlavor", "resourceflavors"},
      {"kueue.x-k8s.io", "v1beta2", "WorkloadPriorityClass", "workloadpriorityclasses"},
  };
  return kinds;
}

AdmissionHandler make_workload_handler(std::shared_ptr<const validation::SchemaSet> schemas, FactsFn facts, NowFn now) {
  if (!now) now = now_rfc3339;
  return [schemas = std::move(schemas), facts = std::move(facts),
          now = std::move(now)](const AdmissionRequest& req) -> AdmissionResponse {
    const ServedKind& kind = codeflare_workload_kind();
    if (req.operation != Operation::Create && req.operation != Operation::Update) return allow();
    if (auto bad = wrong_kind(req, kind)) return *bad;
    const json::Value* obj = req.object();
    const json::Value* old = req.old_object();
    if (!obj) return deny(400, "BadRequest", "the request carries no object");
    if (req.operation == Operation::Update && old && verdict_inputs_unchanged(*obj, *old)) return allow();

    // The stored status is reconcile's previous status. The apiserver hands an update the stored status already
    // (a write of the main resource cannot change it); a create has none.
    const json::Value* stored_status = old ? json::find(*old, "status") : nullptr;
    json::Document workload = with_status(*obj, req.operation == Operation::Update ? stored_status : nullptr);
    if (json::string_at(workload, "metadata.namespace").empty() && !req.namespace_.empty()) {
      json::Value* meta = json::find(workload, "metadata");
      if (meta && meta->IsObject())
        json::set(*meta, "namespace", json::str(req.namespace_, workload.GetAllocator()), workload.GetAllocator());
    }

    workload::ClusterFacts cluster;
    json::Document storage;
    if (facts) {
      auto got = facts(workload, storage);
      if (!got)
        return deny(500, "InternalError",
                    "cannot read what the workload names from the cluster: " + got.error().message);
      cluster = std::move(*got);
    }
    workload::Outcome outcome = workload::reconcile(workload, workload::Observed{}, cluster, *schemas, now());
    FieldErrors findings = std::move(outcome.errors);
    if (req.operation == Operation::Update) {
      static const json::Value kNoSpec(rapidjson::kObjectType);
      const json::Value* spec = json::find(*obj, "spec");
      if (auto moved = queue_change_while_running(stored_status, spec ? *spec : kNoSpec))
        findings.push_back(std::move(*moved));
    }
    AdmissionResponse r = verdict(findings, ObjectRef{kind.kind, kind.group, object_name(req, *obj)});
    if (r.allowed)
      if (auto held = held_warning(outcome)) r.warnings.push_back(truncate_utf8(std::move(*held), kMaxWarningBytes));
    return r;
  };
}

AdmissionHandler make_guard_handler(std::shared_ptr<const validation::SchemaSet> schemas,
                                    validation::ClusterProfile profile, ServedKind kind) {
  return [schemas = std::move(schemas), profile, kind = std::move(kind)](const AdmissionRequest& req) {
    if (req.operation != Operation::Create && req.operation != Operation::Update) return allow();
    if (auto bad = wrong_kind(req, kind)) return *bad;
    const json::Value* obj = req.object();
    const json::Value* old = req.old_object();
    if (!obj) return deny(400, "BadRequest", "the request carries no object");
    const std::string api_version = api_version_of(req.group, req.version);
    if (!schemas->has(api_version, req.kind))
      return allow({"not checked by codeflare-operator: it has no schema for " + api_version + " " + req.kind});
    if (req.operation == Operation::Update && old && verdict_inputs_unchanged(*obj, *old)) return allow();
    FieldErrors findings = req.operation == Operation::Update && old
                               ? validation::validate_update(*schemas, *obj, *old, profile)
                               : validation::validate_object(*schemas, *obj, profile);
    return verdict(findings, ObjectRef{kind.kind, kind.group, object_name(req, *obj)});
  };
}

}  // namespace cfo::webhook
