#include "operator/served_apis.hpp"

#include <algorithm>

#include "operator/resources.hpp"
#include "validation/cluster_facts.hpp"

namespace cfo::op {

namespace {

constexpr const char* kLocalQueuesCrd = "localqueues.kueue.x-k8s.io";

// The served versions of a CRD.
std::vector<std::string> served_versions(const json::Value& crd) {
  std::vector<std::string> out;
  const json::Value* versions = json::find_path(crd, "spec.versions");
  if (versions && versions->IsArray())
    for (const auto& v : versions->GetArray())
      if (json::get_bool(v, "served").value_or(false)) out.push_back(json::get_string(v, "name").value_or(""));
  return out;
}

}  // namespace

bool crd_established(const json::Value& crd) {
  const json::Value* conds = json::find_path(crd, "status.conditions");
  if (!conds || !conds->IsArray()) return false;
  for (const auto& c : conds->GetArray())
    if (json::get_string(c, "type") == std::string("Established"))
      return json::get_string(c, "status") == std::string("True");
  return false;
}

bool crd_served(const json::Value& crd) {
  return crd_established(crd) && !json::find_path(crd, "metadata.deletionTimestamp");
}

namespace {

bool serves(const json::Value& crd, std::string_view version) {
  for (const auto& v : served_versions(crd))
    if (v == version) return true;
  return false;
}

void strip(json::Value& node, bool under_properties) {
  if (node.IsObject()) {
    for (auto it = node.MemberBegin(); it != node.MemberEnd();) {
      const std::string_view name(it->name.GetString(), it->name.GetStringLength());
      if (!under_properties && name == "description") {
        it = node.EraseMember(it);
        continue;
      }
      strip(it->value, !under_properties && (name == "properties" || name == "patternProperties"));
      ++it;
    }
  } else if (node.IsArray()) {
    for (auto& item : node.GetArray()) strip(item, false);
  }
}

}  // namespace

const std::vector<std::string> kTargetCrdNames = {
    "rayclusters.ray.io",
    "rayjobs.ray.io",
    "appwrappers.workload.codeflare.dev",
    "localqueues.kueue.x-k8s.io",
    "workloadpriorityclasses.kueue.x-k8s.io",
};

const std::vector<std::string> kOdhCrdNames = {
    "datascienceclusters.datasciencecluster.opendatahub.io",
    "dscinitializations.dscinitialization.opendatahub.io",
};

validation::Profile detect_profile(const std::vector<std::string>& served_crds) {
  for (const auto& name : served_crds)
    if (std::find(kOdhCrdNames.begin(), kOdhCrdNames.end(), name) != kOdhCrdNames.end())
      return validation::Profile::kOdh;
  return validation::Profile::kVanilla;
}

const std::vector<std::string>& watched_crd_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = kTargetCrdNames;
    n.emplace_back(validation::kKueueWorkloadCrdName);
    n.insert(n.end(), kOdhCrdNames.begin(), kOdhCrdNames.end());
    return n;
  }();
  return names;
}

void strip_schema_descriptions(json::Value& crd) {
  json::Value* spec = json::find(crd, "spec");
  if (json::Value* versions = spec ? json::find(*spec, "versions") : nullptr; versions && versions->IsArray())
    for (auto& v : versions->GetArray())
      if (json::Value* schema = json::find(v, "schema")) strip(*schema, false);
}

int kubernetes_minor_of(const json::Value& version) {
  if (json::get_string(version, "major").value_or("") != "1") return 0;
  const std::string minor = json::get_string(version, "minor").value_or("");
  int value = 0;
  std::size_t digits = 0;
  for (; digits < minor.size() && digits < 4 && minor[digits] >= '0' && minor[digits] <= '9'; ++digits)
    value = value * 10 + (minor[digits] - '0');
  return digits > 0 ? value : 0;
}

bool keep_versions_in_use(json::Value& crd) {
  json::Value* spec = json::find(crd, "spec");
  json::Value* versions = spec ? json::find(*spec, "versions") : nullptr;
  if (!versions || !versions->IsArray()) return false;
  if (json::get_string(*spec, "group").value_or("") == "ray.io")
    for (auto it = versions->Begin(); it != versions->End();)
      it = json::get_string(*it, "name").value_or("") == "v1" ? it + 1 : versions->Erase(it);
  return !versions->Empty();
}

Result<ServedApis> read_served_apis(const Api& api) {
  ServedApis out;
  auto schemas = std::make_shared<validation::SchemaSet>();
  std::vector<std::string> served;
  for (const auto& name : watched_crd_names()) {
    auto crd = api.get(resources::kCrds.object_path("", name));
    if (!crd) {
      if (crd.error().is_not_found()) continue;
      return fail("reading CRD " + name + ": " + crd.error().message, crd.error().http_status);
    }
    out.resource_versions[name] = json::string_at(*crd, "metadata.resourceVersion");
    // A CRD counts once it is Established (its API is served): before that an apply of its kind still fails. It
    // stops counting when its deletion starts.
    if (!crd_served(*crd)) {
      if (crd_established(*crd)) out.terminating.insert(name);
      continue;
    }
    out.generations[name] = json::get_int((*crd)["metadata"], "generation").value_or(0);
    served.push_back(name);
    if (std::find(kOdhCrdNames.begin(), kOdhCrdNames.end(), name) != kOdhCrdNames.end()) continue;
    if (name == validation::kKueueWorkloadCrdName) {
      out.kueue_max_pod_sets = validation::kueue_max_pod_sets_of(*crd);
      continue;
    }
    if (name == kLocalQueuesCrd)
      out.kueue_version = serves(*crd, "v1beta2") ? "v1beta2" : serves(*crd, "v1beta1") ? "v1beta1" : "";
    if (!keep_versions_in_use(*crd)) continue;
    strip_schema_descriptions(*crd);
    if (auto r = schemas->add_crd(*crd); !r) return fail("CRD " + name + ": " + r.error().message);
  }
  out.profile = detect_profile(served);
  out.ray_cluster = schemas->has("ray.io/v1", "RayCluster");
  out.app_wrapper = schemas->has("workload.codeflare.dev/v1beta2", "AppWrapper");
  out.ray_job = schemas->has("ray.io/v1", "RayJob");
  out.schemas = std::move(schemas);
  return out;
}

ServedApis stop_serving(const ServedApis& apis, const std::set<std::string>& deleting) {
  ServedApis out = apis;
  for (const auto& name : deleting) {
    if (out.generations.erase(name) == 0) continue;
    out.terminating.insert(name);
    if (name == "rayclusters.ray.io") out.ray_cluster = false;
    if (name == "rayjobs.ray.io") out.ray_job = false;
    if (name == "appwrappers.workload.codeflare.dev") out.app_wrapper = false;
    if (name == kLocalQueuesCrd) out.kueue_version.clear();
    if (name == validation::kKueueWorkloadCrdName) out.kueue_max_pod_sets = 0;
  }
  std::vector<std::string> served;
  served.reserve(out.generations.size());
  for (const auto& [name, generation] : out.generations) served.push_back(name);
  out.profile = detect_profile(served);
  return out;
}

std::shared_ptr<const ServedApis> ServedApiState::get() const {
  std::lock_guard lock(mu_);
  return apis_;
}

void ServedApiState::set(std::shared_ptr<const ServedApis> apis) {
  std::lock_guard lock(mu_);
  apis_ = std::move(apis);
}

}  // namespace cfo::op
