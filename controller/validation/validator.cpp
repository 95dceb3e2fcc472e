#include "validation/validator.hpp"

#include <algorithm>
#include <unordered_map>

#include "core/parallel.hpp"
#include "validation/admissibility.hpp"
#include "validation/rule_catalog.hpp"
#include "validation/rules/rule_util.hpp"
#include "validation/rules/rules.hpp"

namespace cfo::validation {

namespace {

constexpr std::size_t kParallelFrom = 64;  // objects in a set from which validate_set uses more than one thread
constexpr std::size_t kMaxThreads = 8;

using rules::Scope;
using rules::Sink;

bool group_is(const std::string& api_version, std::string_view group) {
  return api_version.starts_with(group) && api_version.size() > group.size() && api_version[group.size()] == '/';
}

/// True when `path` is `base` or lies below it.
bool is_within(const std::string& path, const std::string& base) {
  if (!path.starts_with(base)) return false;
  return path.size() == base.size() || path[base.size()] == '.' || path[base.size()] == '[';
}

/// Resolves a field path made of plain keys and indices ("spec.replicatedJobs[0].template.spec").
const json::Value* resolve_field_path(const json::Value& root, const std::string& path) {
  const json::Value* cur = &root;
  std::size_t i = 0;
  while (cur && i < path.size()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      auto end = path.find(']', i);
      if (end == std::string::npos || !cur->IsArray()) return nullptr;
      auto idx = rules::parse_int(std::string_view(path).substr(i + 1, end - i - 1));
      if (!idx || *idx < 0 || *idx >= static_cast<int64_t>(cur->Size())) return nullptr;
      cur = &(*cur)[static_cast<rapidjson::SizeType>(*idx)];
      i = end + 1;
      continue;
    }
    auto end = path.find_first_of(".[", i);
    cur = json::find(*cur, path.substr(i, end == std::string::npos ? std::string::npos : end - i));
    i = end == std::string::npos ? path.size() : end;
  }
  return cur;
}

/// True when obj[key] is exactly `v`.
bool member_is(const json::Value& obj, std::string_view key, const json::Value* v) { return json::find(obj, key) == v; }

void check_object(const Scope& scope, const json::Value& obj, const Sink& sink,
                  const std::vector<std::string>* pod_spec_paths);
void check_rules(const Scope& scope, const json::Value& obj, const Sink& sink,
                 const std::vector<std::string>* pod_spec_paths);

/// An AppWrapper component, judged as the object the AppWrapper controller will create. Unknown fields outside the
/// PodSets' PodSpecs are only pruned by the apiserver (a warning); inside them the strict PodSpec decoding fails.
void check_component(const Scope& aw_scope, const json::Value& aw, const json::Value& tmpl, const Sink& sink,
                     const std::vector<std::string>& pod_spec_paths) {
  Scope scope{aw_scope.schemas, aw_scope.profile, &aw};
  FieldErrors local;
  check_object(scope, tmpl, Sink(local), &pod_spec_paths);
  for (auto& f : local) {
    if (f.rule != "schema:unknownField") continue;
    bool in_pod_spec = std::any_of(pod_spec_paths.begin(), pod_spec_paths.end(),
                                   [&](const std::string& p) { return is_within(f.path, p); });
    if (!in_pod_spec) f.severity = Severity::Warning;
  }
  sink.append(std::move(local));
}

void check_schema(const Scope& scope, const json::Value& obj, const Sink& sink,
                  const std::vector<std::string>* pod_spec_paths) {
  const std::string api_version = rules::string_at(obj, "apiVersion").value_or("");
  const std::string kind = rules::string_at(obj, "kind").value_or("");
  if (scope.schemas.has(api_version, kind) || !scope.in_appwrapper()) {
    sink.append(scope.old && !scope.in_appwrapper() ? scope.schemas.validate_update(obj, *scope.old)
                                                    : scope.schemas.validate(obj));
    return;
  }
  // A component of a kind we hold no schema for: the PodSets' PodSpecs are still decoded strictly.
  if (!pod_spec_paths) return;
  for (const auto& p : *pod_spec_paths)
    if (const json::Value* spec = resolve_field_path(obj, p); spec && spec->IsObject())
      Sink(sink.out(), sink.full(p)).append(scope.schemas.validate_pod_spec(*spec));
}

void check_object(const Scope& scope, const json::Value& obj, const Sink& sink,
                  const std::vector<std::string>* pod_spec_paths) {
  if (!obj.IsObject()) {
    sink.error("", "schema:type", "apimachinery:TypeMeta",
               std::string("a Kubernetes object must be a map, found ") + json::type_name(obj));
    return;
  }
  // Every check judges the object as the cluster's webhooks and controllers will see it (SchemaSet::prepare: status
  // dropped, nulls pruned), prepared once here; the schema check then finds nothing left to prepare.
  json::Document prepared_doc;
  const json::Value& prepared = scope.schemas.prepare(obj, prepared_doc) ? prepared_doc : obj;
  check_schema(scope, prepared, sink, pod_spec_paths);
  check_rules(scope, prepared, sink, pod_spec_paths);
}

void check_rules(const Scope& scope, const json::Value& obj, const Sink& sink,
                 const std::vector<std::string>* pod_spec_paths) {
  rules::validate_object_meta(scope, obj, sink);

  const std::string api_version = rules::string_at(obj, "apiVersion").value_or("");
  const std::string kind = rules::string_at(obj, "kind").value_or("");
  if (group_is(api_version, "ray.io") && kind == "RayCluster") {
    rules::validate_raycluster(scope, obj, sink);
    rules::validate_kueue_job(scope, obj, sink);
    rules::validate_kueue_raycluster(scope, obj, sink);
    rules::validate_pod_security(scope, obj, sink);
    rules::validate_kueue_pod_sets(scope, obj, sink);
  } else if (group_is(api_version, "ray.io") && kind == "RayJob") {
    rules::validate_rayjob(scope, obj, sink);
    rules::validate_kueue_job(scope, obj, sink);
    rules::validate_kueue_rayjob(scope, obj, sink);
    rules::validate_pod_security(scope, obj, sink);
    rules::validate_kueue_pod_sets(scope, obj, sink);
  } else if (group_is(api_version, "workload.codeflare.dev") && kind == "AppWrapper") {
    if (scope.in_appwrapper()) return;  // nested AppWrappers are rejected; do not descend
    rules::validate_appwrapper(scope, obj, sink,
                               [&](const json::Value& tmpl, const Sink& tsink, const std::vector<std::string>& paths) {
                                 check_component(scope, obj, tmpl, tsink, paths);
                               });
    rules::validate_kueue_job(scope, obj, sink);
    rules::validate_kueue_pod_sets(scope, obj, sink);
  } else if (group_is(api_version, "kueue.x-k8s.io") && kind == "ClusterQueue") {
    rules::validate_clusterqueue(scope, obj, sink);
  } else if (group_is(api_version, "kueue.x-k8s.io") && kind == "Cohort") {
    rules::validate_cohort(scope, obj, sink);
  } else if (group_is(api_version, "kueue.x-k8s.io") && kind == "ResourceFlavor") {
    rules::validate_resourceflavor(scope, obj, sink);
  } else if (group_is(api_version, "kueue.x-k8s.io") && kind == "LocalQueue") {
    rules::validate_localqueue(scope, obj, sink);
  } else if (group_is(api_version, "kueue.x-k8s.io") && kind == "WorkloadPriorityClass") {
    rules::validate_workloadpriorityclass(scope, obj, sink);
  } else if (scope.in_appwrapper() && pod_spec_paths) {
    // Other wrapped kinds (Job, PyTorchJob, ...): their Pods are created later.
    // A PodSet path ends in ".spec" of a PodTemplateSpec: judge the template (its metadata too).
    for (const auto& p : *pod_spec_paths) {
      const json::Value* spec = resolve_field_path(obj, p);
      if (!spec) continue;
      const std::string tp = p.ends_with(".spec") ? p.substr(0, p.size() - 5) : std::string();
      const json::Value* tmpl = tp.empty() ? nullptr : resolve_field_path(obj, tp);
      const bool is_template = tmpl && tmpl->IsObject() && member_is(*tmpl, "spec", spec);
      if (is_template)
        rules::validate_pod_template(*tmpl, tp, sink, scope.profile.kubernetes_minor);
      else
        rules::validate_pod_spec_late(*spec, p, sink, scope.profile.kubernetes_minor);
      if (spec->IsObject())
        rules::validate_pod_security_of(scope, *spec, is_template ? rules::object_at(*tmpl, "metadata") : nullptr, p,
                                        is_template ? tp + ".metadata" : p + ".metadata", sink);
    }
  }
}

// ---- document order ------------------------------------------------------------------------------------------

void number_paths(const json::Value& v, const std::string& path, std::unordered_map<std::string, std::size_t>& ordinal,
                  std::size_t& next, int depth) {
  ordinal.emplace(path, next++);
  if (depth > 300) return;
  if (v.IsObject()) {
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it)
      number_paths(it->value, key_path(path, rules::text(it->name)), ordinal, next, depth + 1);
  } else if (v.IsArray()) {
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i)
      number_paths(v[i], index_path(path, i), ordinal, next, depth + 1);
  }
}

/// "a.b[c.d]" -> "a.b"; "a.b" -> "a"; "a" -> "".
std::string parent_path(const std::string& p) {
  if (p.empty()) return p;
  if (p.back() == ']') {
    auto open = p.rfind('[');
    return open == std::string::npos ? std::string() : p.substr(0, open);
  }
  auto dot = p.rfind('.');
  auto close = p.rfind(']');
  if (dot == std::string::npos || (close != std::string::npos && close > dot)) {
    // "a[0]b" does not occur; "a" alone or "x[0].b" handled by the dot.
    return close != std::string::npos && close + 1 < p.size() ? p.substr(0, close + 1) : std::string();
  }
  return p.substr(0, dot);
}

void order_findings(const json::Value& obj, FieldErrors& errs) {
  if (errs.size() < 2) return;
  std::unordered_map<std::string, std::size_t> ordinal;
  std::size_t next = 0;
  number_paths(obj, "", ordinal, next, 0);
  auto rank = [&](const std::string& path) {
    std::string p = path;
    for (int guard = 0; guard < 1000; ++guard) {
      if (auto it = ordinal.find(p); it != ordinal.end()) return it->second;
      if (p.empty()) break;
      p = parent_path(p);
    }
    return std::size_t{0};
  };
  std::vector<std::pair<std::size_t, FieldError>> ranked;
  ranked.reserve(errs.size());
  for (auto& e : errs) ranked.emplace_back(rank(e.path), std::move(e));
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < errs.size(); ++i) errs[i] = std::move(ranked[i].second);
}

/// Removes the findings of rules that do not belong to `profile` (rule_catalog()).
void keep_profile(FieldErrors& errs, Profile profile) {
  std::erase_if(errs, [&](const FieldError& e) { return !rule_applies(e.rule, profile); });
}

}  // namespace

FieldErrors validate_object(const SchemaSet& schemas, const json::Value& obj, const ClusterProfile& profile) {
  FieldErrors out;
  Scope scope{schemas, profile};
  check_object(scope, obj, Sink(out), nullptr);
  keep_profile(out, profile.name);
  order_findings(obj, out);
  return out;
}

FieldErrors validate_update(const SchemaSet& schemas, const json::Value& obj, const json::Value& old,
                            const ClusterProfile& profile) {
  FieldErrors out;
  Scope scope{schemas, profile, nullptr, &old};
  check_object(scope, obj, Sink(out), nullptr);
  keep_profile(out, profile.name);
  order_findings(obj, out);
  return out;
}

FieldErrors validate_object_meta(const json::Value& obj) {
  static const SchemaSet kNoSchemas;  // unknown kinds count as namespaced
  static const ClusterProfile kProfile;
  FieldErrors out;
  Sink sink(out);
  if (obj.IsObject()) rules::validate_object_meta(Scope{kNoSchemas, kProfile}, obj, sink);
  return out;
}

std::vector<FieldErrors> validate_set(const SchemaSet& schemas, const std::vector<SetEntry>& entries,
                                      const ClusterProfile& profile) {
  std::vector<FieldErrors> out(entries.size());
  std::vector<const json::Value*> objects(entries.size());
  std::vector<std::size_t> to_judge;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    objects[i] = entries[i].object;
    if (!objects[i]) {
      out[i].push_back({"", "schema:type", "apimachinery:TypeMeta", "no object given"});
      continue;
    }
    if (!entries[i].judged) to_judge.push_back(i);
  }
  // The objects are independent: a large set is judged on every core (validate_object only reads the schemas,
  // which compile once whichever thread asks first).
  const std::size_t threads = to_judge.size() < kParallelFrom ? 1 : worker_threads(kMaxThreads);
  for_each_index_in_parallel(to_judge.size(), threads, [&](std::size_t k) {
    out[to_judge[k]] = validate_object(schemas, *objects[to_judge[k]], profile);
  });
  QueueObjects queues;
  for (const json::Value* o : objects)
    if (o) queues.add(o);
  std::vector<Sink> sinks;
  sinks.reserve(objects.size());
  for (auto& f : out) sinks.emplace_back(f);
  rules::validate_kueue_references(objects, sinks);
  std::vector<const json::Value*> own(objects.size(), nullptr);  // the set's own objects, not generated or context
  for (std::size_t i = 0; i < objects.size(); ++i)
    if (!entries[i].judged) own[i] = objects[i];
  rules::argocd_repeated_resource_warning(own, sinks);
  for (std::size_t i = 0; i < objects.size(); ++i)
    if (objects[i]) sinks[i].append(judge_admissibility(*objects[i], queues));
  for (std::size_t i = 0; i < objects.size(); ++i) {
    keep_profile(out[i], profile.name);
    if (objects[i]) order_findings(*objects[i], out[i]);
  }
  return out;
}

std::vector<FieldErrors> repeated_objects(const std::vector<const json::Value*>& objects) {
  std::vector<FieldErrors> out(objects.size());
  std::vector<Sink> sinks;
  sinks.reserve(out.size());
  for (auto& f : out) sinks.emplace_back(f);
  rules::argocd_repeated_resource_warning(objects, sinks);
  return out;
}

std::vector<FieldErrors> validate_set(const SchemaSet& schemas, const std::vector<const json::Value*>& objects,
                                      const ClusterProfile& profile) {
  std::vector<SetEntry> entries;
  entries.reserve(objects.size());
  for (const json::Value* o : objects) entries.push_back({o, false});
  return validate_set(schemas, entries, profile);
}

}  // namespace cfo::validation
