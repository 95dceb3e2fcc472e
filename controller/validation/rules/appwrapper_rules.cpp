// AppWrapper rules (project-codeflare/appwrapper v1.2.1):
//   internal/webhook/appwrapper_webhook.go  validateAppWrapperCreate (vappwrapper.kb.io)
//   pkg/utils/utils.go                       InferPodSets, ValidatePodSets, GetPodTemplateSpec (path grammar)
//   internal/controller/appwrapper/*.go      what the controller does later with the components (late failures)
//   api/v1beta2/appwrapper_types.go          behaviour annotations
// The AppWrapper CRD keeps each component template as an opaque embedded object, so nothing inside it is checked
// at admission except what the webhook does; each template is therefore also validated as an object in its own
// right (schema and rules), because that is what happens when the controller creates it.
#include <algorithm>
#include <map>
#include <set>

#include "core/names.hpp"
#include "validation/rules/appwrapper_pod_sets.hpp"
#include "validation/rules/rule_util.hpp"
#include "validation/rules/rules.hpp"

namespace cfo::validation::rules {

namespace {

constexpr std::string_view kWebhook = "appwrapper:webhook";
constexpr std::string_view kController = "appwrapper:controller";
constexpr std::string_view kChecklist = "cfo:checklist";

constexpr int64_t kMaxPodSets = 8;              // hard-coded in the AppWrapper webhook
constexpr std::size_t kMaxAppWrapperName = 61;  // PodSet names "<name>-<index>" must stay DNS-1123 labels

// ---- rules ---------------------------------------------------------------------------------------------------

// AppWrapper controller + Kueue: the name becomes the label value workload.codeflare.dev/appwrapper=<name> (so it
// must be a label value, <= 63), and, once Kueue manages the AppWrapper, the Workload PodSet names "<name>-<index>",
// which must be DNS-1123 labels: a DNS-1123 label of at most 61 characters. Without the queue label only the first
// part is certain to fail; the rest is reported as a warning.
void AppWrapperName(const json::Value& obj, const Sink& sink) {
  const json::Value* meta = object_at(obj, "metadata");
  if (!meta) return;
  std::string name = string_at(*meta, "name").value_or("");
  std::string path = "metadata.name";
  std::string shown = name;
  if (name.empty()) {
    shown = string_at(*meta, "generateName").value_or("");
    if (shown.empty()) return;
    name = shown.substr(0, 58) + "xxxxx";
    path = "metadata.generateName";
  }
  const bool queued = has_queue_label(obj);
  const bool label_ok = names::label_value(name).empty();
  auto severity = [&](bool breaks_label) { return queued || breaks_label ? Severity::Error : Severity::Warning; };
  if (name.size() > kMaxAppWrapperName)
    sink.add(path, "AppWrapperName", kController,
             "name of " + std::to_string(name.size()) +
                 " characters is too long: PodSet names <name>-<index> need it at most " +
                 std::to_string(kMaxAppWrapperName) + " characters",
             severity(!label_ok));
  std::vector<std::string> shape;
  for (auto& m : names::dns1123_label(name))
    if (m.find("longer than") == std::string::npos) shape.push_back(m);
  if (!shape.empty())
    sink.add(path, "AppWrapperName", kController,
             "name " + dq(shown) + " must be a DNS-1123 label (no dots): it becomes a label value and PodSet names",
             severity(!label_ok));
}

// AppWrapper api/v1beta2 annotations: the behaviour annotations hold Go durations or integers. A value that does not
// parse is ignored by the controller (the default applies), which is rarely what was meant.
void BehaviorAnnotations(const json::Value& obj, const Sink& sink) {
  const json::Value* meta = object_at(obj, "metadata");
  const json::Value* annotations = meta ? object_at(*meta, "annotations") : nullptr;
  if (!annotations) return;
  constexpr std::string_view prefix = "workload.codeflare.dev.appwrapper/";
  for (auto it = annotations->MemberBegin(); it != annotations->MemberEnd(); ++it) {
    const std::string key = text(it->name);
    if (!key.starts_with(prefix) || !it->value.IsString()) continue;
    const std::string value = text(it->value);
    const std::string at = key_path("metadata.annotations", key);
    if (key.ends_with("Duration")) {
      if (!is_go_duration(value))
        sink.warn(at, "BehaviorAnnotations", kController,
                  "value " + dq(value) + " is not a duration such as 90s or 5m");
    } else if (key == std::string(prefix) + "retryLimit") {
      if (!parse_int(value))
        sink.warn(at, "BehaviorAnnotations", kController, "value " + dq(value) + " is not an integer");
    } else if (key.ends_with("ExitCodes")) {
      std::string_view rest = value;
      bool ok = true;
      while (ok && !rest.empty()) {
        auto comma = rest.find(',');
        ok = parse_int(rest.substr(0, comma)).has_value();
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      }
      if (!ok)
        sink.warn(at, "BehaviorAnnotations", kController,
                  "value " + dq(value) + " is not a comma-separated list of integers");
    }
  }
}

// AppWrapper webhook (1): a component template must decode as an object.
bool TemplateObject(const json::Value* tmpl, const std::string& cp, const Sink& sink) {
  if (tmpl && tmpl->IsObject()) return true;
  sink.error(cp + ".template", "TemplateObject", kWebhook,
             "the component template must be a Kubernetes object (a map)");
  return false;
}

// AppWrapper webhook (1): an AppWrapper cannot contain another AppWrapper.
void NestedAppWrapper(const json::Value& tmpl, const std::string& cp, const Sink& sink) {
  std::string av = string_at(tmpl, "apiVersion").value_or("");
  if (av.starts_with("workload.codeflare.dev/") && string_at(tmpl, "kind") == "AppWrapper")
    sink.error(cp + ".template", "NestedAppWrapper", kWebhook, "an AppWrapper cannot contain another AppWrapper");
}

// AppWrapper webhook (2): a component is created in the AppWrapper's own namespace.
void ComponentNamespace(const json::Value& aw, const json::Value& tmpl, const std::string& cp, const Sink& sink) {
  const json::Value* meta = object_at(tmpl, "metadata");
  std::string ns = meta ? string_at(*meta, "namespace").value_or("") : "";
  if (ns.empty()) return;
  const json::Value* aw_meta = object_at(aw, "metadata");
  std::string aw_ns = aw_meta ? string_at(*aw_meta, "namespace").value_or("") : "";
  if (aw_ns.empty())
    sink.warn(cp + ".template.metadata.namespace", "ComponentNamespace", kWebhook,
              "namespace " + dq(ns) +
                  " must equal the namespace the AppWrapper is created in, which the manifest leaves open");
  else if (ns != aw_ns)
    sink.error(cp + ".template.metadata.namespace", "ComponentNamespace", kWebhook,
               "namespace " + dq(ns) + " differs from the AppWrapper's namespace " + dq(aw_ns));
}

// AppWrapper controller: components are tracked by metadata.name (recorded before creation); a generateName-only
// component cannot be found again for status or deletion.
void ComponentName(const json::Value& tmpl, const std::string& cp, const Sink& sink) {
  const json::Value* meta = object_at(tmpl, "metadata");
  if (!meta || !string_at(*meta, "name").value_or("").empty()) return;
  if (!string_at(*meta, "generateName").value_or("").empty())
    sink.warn(cp + ".template.metadata.name", "ComponentName", kController,
              "set metadata.name: the AppWrapper tracks its components by name, not generateName");
}

// AppWrapper webhook (4): a declared PodSet path is non-empty and resolves to a map with a spec. (That the spec
// strictly decodes as a core/v1 PodSpec is checked with the component itself: by its CRD schema for Ray kinds, by
// SchemaSet::validate_pod_spec for the others.)
void PodSetPath(const json::Value& tmpl, const json::Value& ps, const std::string& psp, const Sink& sink) {
  std::string path = string_at(ps, "path").value_or("");
  if (path.empty()) {
    sink.error(psp + ".path", "PodSetPath", kWebhook, "a PodSet needs the path of its pod template");
    return;
  }
  std::string why;
  const json::Value* target = resolve(tmpl, path, why);
  if (target && !target->IsObject()) {
    why = "it is not a map";
    target = nullptr;
  } else if (target && !object_at(*target, "spec")) {
    why = "it has no spec";
    target = nullptr;
  }
  if (!target)
    sink.error(psp + ".path", "PodSetPath", kWebhook, "path " + dq(path) + " does not lead to a pod template: " + why);
}

// AppWrapper utils.InferPodSets: replica counts read from the template must be JSON integers.
void InferredReplicas(const Inference& inf, const std::string& cp, const Sink& sink) {
  for (const auto& p : inf.bad_replicas)
    sink.error(cp + ".template." + relative_to_template(p), "InferredReplicas", kWebhook,
               "the AppWrapper reads this replica count and needs an integer");
}

// AppWrapper utils.ValidatePodSets: declared PodSets of a known kind equal the inferred ones (no duplicates, same
// count, same paths, same replicas; a declared PodSet without replicas means 1).
void PodSetsMatchInferred(const json::Value& declared, const Inference& inf, const std::string& cp, const Sink& sink) {
  const std::string psp = cp + ".podSets";
  std::map<std::string, std::pair<rapidjson::SizeType, int64_t>> by_path;
  for (rapidjson::SizeType j = 0; j < declared.Size(); ++j) {
    std::string path = string_at(declared[j], "path").value_or("");
    int64_t replicas = int_at(declared[j], "replicas").value_or(1);
    if (!by_path.emplace(path, std::pair{j, replicas}).second)
      sink.error(index_path(psp, j) + ".path", "PodSetsMatchInferred", kWebhook,
                 "PodSet path " + dq(path) + " is declared twice");
  }
  if (!inf.known || inf.pod_sets.empty()) return;
  if (by_path.size() != inf.pod_sets.size()) {
    sink.error(psp, "PodSetsMatchInferred", kWebhook,
               std::to_string(declared.Size()) + " PodSets are declared but the template has " +
                   std::to_string(inf.pod_sets.size()) + "; declare exactly its pod templates or omit podSets");
    return;
  }
  for (const auto& p : inf.pod_sets) {
    auto it = by_path.find(p.path);
    if (it == by_path.end()) {
      sink.error(psp, "PodSetsMatchInferred", kWebhook, "no PodSet is declared for " + dq(p.path));
      continue;
    }
    if (p.replicas && *p.replicas != it->second.second)
      sink.error(index_path(psp, it->second.first) + ".replicas", "PodSetsMatchInferred", kWebhook,
                 "declares " + std::to_string(it->second.second) + " replicas but the template has " +
                     std::to_string(*p.replicas));
  }
}

// AppWrapper controller createComponent: every PodSet template gets the label workload.codeflare.dev/appwrapper=<the
// AppWrapper's name>, and a template that already holds that label with another value makes the component fail for
// good (utilmaps.HaveConflict: the AppWrapper goes to Failed after Kueue admitted it). The component's own top-level
// label is kept as it is (MergeKeepFirst).
void AppWrapperLabelConflict(const json::Value& aw, const json::Value& tmpl, const std::set<std::string>& pod_paths,
                             const std::string& cp, const Sink& sink) {
  const json::Value* meta = object_at(aw, "metadata");
  const std::string name = meta ? string_at(*meta, "name").value_or("") : "";
  if (name.empty()) return;  // a generateName: the label value is not known yet
  constexpr std::string_view key = "workload.codeflare.dev/appwrapper";
  for (const auto& p : pod_paths) {
    std::string why;
    const json::Value* pts = resolve(tmpl, p, why);
    const json::Value* pmeta = pts ? object_at(*pts, "metadata") : nullptr;
    const json::Value* labels = pmeta ? object_at(*pmeta, "labels") : nullptr;
    auto v = labels ? string_at(*labels, key) : std::nullopt;
    if (!v || *v == name) continue;
    const std::string rel = relative_to_template(p);
    sink.error(key_path(cp + ".template" + (rel.empty() ? "" : "." + rel) + ".metadata.labels", std::string(key)),
               "AppWrapperLabelConflict", kController,
               "the AppWrapper labels every pod template " + std::string(key) + "=" + name + "; the value " + dq(*v) +
                   " here conflicts, and the component fails when the AppWrapper is admitted");
  }
}

// AppWrapper webhook (5): all components together hold 1 to 8 PodSets (Kueue's old limit, still hard-coded).
void PodSetCount(int64_t count, const Sink& sink) {
  if (count == 0)
    sink.error("spec.components", "PodSetCount", kWebhook,
               "no component holds a pod template, so there is nothing for Kueue to admit");
  else if (count > kMaxPodSets)
    sink.error("spec.components", "PodSetCount", kWebhook,
               "the components contain " + std::to_string(count) + " pod templates; at most " +
                   std::to_string(kMaxPodSets) + " are allowed");
}

// Checklist (notes §3.3): for a wrapped RayCluster/RayJob the AppWrapper counts `replicas` Pods per worker group
// (1 when unset, while KubeRay defaults it to 0) and ignores numOfHosts; set replicas and keep numOfHosts 1.
void AppWrapperRayReplicas(const json::Value& tmpl, const std::string& cp, const Sink& sink) {
  const std::string kind = string_at(tmpl, "kind").value_or("");
  if (string_at(tmpl, "apiVersion") != "ray.io/v1" || (kind != "RayCluster" && kind != "RayJob")) return;
  std::string why;
  const std::string prefix = kind == "RayCluster" ? "template.spec." : "template.spec.rayClusterSpec.";
  const json::Value* workers = resolve(tmpl, prefix + "workerGroupSpecs", why);
  if (!workers || !workers->IsArray()) return;
  for (rapidjson::SizeType i = 0; i < workers->Size(); ++i) {
    const json::Value& g = (*workers)[i];
    if (!g.IsObject()) continue;
    const std::string gp =
        cp + ".template." + relative_to_template(prefix) + "workerGroupSpecs[" + std::to_string(i) + "]";
    if (!member(g, "replicas"))
      sink.warn(gp + ".replicas", "AppWrapperRayReplicas", kChecklist,
                "set replicas: the AppWrapper assumes 1 where KubeRay defaults to 0");
    if (int_at(g, "numOfHosts").value_or(1) != 1)
      sink.warn(gp + ".numOfHosts", "AppWrapperRayReplicas", kChecklist,
                "the AppWrapper ignores numOfHosts, so quota covers only one host per replica");
  }
}

}  // namespace

void validate_appwrapper(const Scope& scope, const json::Value& obj, const Sink& sink, const ComponentCheck& check) {
  (void)scope;  // components get their own scope from `check`
  AppWrapperName(obj, sink);
  BehaviorAnnotations(obj, sink);
  const json::Value* spec = object_at(obj, "spec");
  const json::Value* components = spec ? array_at(*spec, "components") : nullptr;
  if (!components) return;  // the schema reports it
  int64_t count = 0;
  for (rapidjson::SizeType i = 0; i < components->Size(); ++i) {
    const json::Value& component = (*components)[i];
    const std::string cp = index_path("spec.components", i);
    if (!component.IsObject()) continue;
    const json::Value* tmpl = member(component, "template");
    if (!TemplateObject(tmpl, cp, sink)) continue;
    const Sink tsink(sink.out(), sink.full(cp + ".template"));
    validate_embedded_type_meta(*tmpl, tsink);
    NestedAppWrapper(*tmpl, cp, sink);
    ComponentNamespace(obj, *tmpl, cp, sink);
    ComponentName(*tmpl, cp, sink);

    const json::Value* declared = array_at(component, "podSets");
    if (declared)
      for (rapidjson::SizeType j = 0; j < declared->Size(); ++j)
        PodSetPath(*tmpl, (*declared)[j], index_path(cp + ".podSets", j), sink);
    Inference inf = infer_pod_sets(*tmpl);
    InferredReplicas(inf, cp, sink);
    if (declared && !declared->Empty()) PodSetsMatchInferred(*declared, inf, cp, sink);
    const int64_t declared_count = declared ? declared->Size() : 0;
    count += std::max<int64_t>(declared_count, static_cast<int64_t>(inf.pod_sets.size()));
    AppWrapperRayReplicas(*tmpl, cp, sink);

    // The pod templates of this component: inferred for known kinds, else the declared ones.
    std::set<std::string> pod_paths;
    for (const auto& p : inf.pod_sets) pod_paths.insert(p.path);
    if (declared)
      for (auto it = declared->Begin(); it != declared->End(); ++it)
        if (auto p = string_at(*it, "path"); p && exists(*tmpl, *p)) pod_paths.insert(*p);
    AppWrapperLabelConflict(obj, *tmpl, pod_paths, cp, sink);
    std::vector<std::string> pod_spec_paths;
    for (const auto& p : pod_paths) {
      const std::string rel = relative_to_template(p);
      pod_spec_paths.push_back(rel.empty() ? "spec" : rel + ".spec");
    }
    check(*tmpl, tsink, pod_spec_paths);
  }
  PodSetCount(count, sink);
}

}  // namespace cfo::validation::rules
