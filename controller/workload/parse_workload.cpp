#include "workload/parse_workload.hpp"

#include <algorithm>

#include <regex>
#include <set>
#include <type_traits>

#include "core/names.hpp"
#include "workload/check_spec_conflicts.hpp"
#include "workload/check_workload.hpp"
#include "workload/field_reader.hpp"
#include "workload/labels.hpp"
#include "validation/rule_catalog.hpp"
#include "workload/odh_ca_bundle.hpp"
#include "workload/parse_autoscaling.hpp"
#include "workload/parse_gcs_fault_tolerance.hpp"
#include "workload/parse_job.hpp"
#include "workload/parse_label_maps.hpp"
#include "workload/parse_pod_fields.hpp"
#include "workload/parse_topology.hpp"
#include "workload/parse_pod_fragments.hpp"
#include "workload/parse_ray_start_params.hpp"
#include "workload/parse_resource_mapping.hpp"
#include "workload/parse_resources.hpp"
#include "workload/sdk_defaults.hpp"

namespace cfo::workload {

namespace {
constexpr int64_t kInt32Max = 2147483647;

void report_all(FieldErrors& errs, const std::string& path, const char* rule, const std::vector<std::string>& msgs,
                const char* source) {
  for (const auto& m : msgs) add_error(errs, path, rule, m, source);
}

// spec.head.ingressOptions: host, path, pathType and tls as KubeRay's IngressOptions (v1.7.0 raycluster_types.go).
std::optional<Fragment> parse_ingress_options(const json::Value& v, const std::string& path, FieldErrors& errs) {
  FieldReader r(v, path, errs);
  r.string("host");
  r.string("path");
  if (auto t = r.string("pathType"); t && *t != "Exact" && *t != "Prefix" && *t != "ImplementationSpecific")
    add_error(errs, r.child("pathType"), "schema:enum",
              "must be Exact, Prefix or ImplementationSpecific, not \"" + *t + "\"", "crd:ray.io/v1/RayCluster");
  if (const json::Value* tls = r.array("tls"))
    for (rapidjson::SizeType i = 0; i < tls->Size(); ++i) {
      FieldReader t((*tls)[i], index_path(r.child("tls"), i), errs);
      if (const json::Value* hosts = t.array("hosts"))
        for (rapidjson::SizeType j = 0; j < hosts->Size(); ++j)
          expect_type((*hosts)[j], (*hosts)[j].IsString(), "a string", index_path(t.child("hosts"), j), errs);
      t.string("secretName");
      t.reject_unknown();
    }
  r.reject_unknown();
  if (!r.is_object()) return std::nullopt;
  return Fragment(v);
}

HeadSpec parse_head(const json::Value& v, const std::string& path, const std::vector<ResourceMapping>& mapping,
                    bool odh, FieldErrors& errs) {
  HeadSpec h;
  FieldReader r(v, path, errs);
  if (const json::Value* res = r.get("resources"))
    h.resources = parse_resources(*res, r.child("resources"), mapping, errs);
  const json::Value* tolerations = r.get("tolerations");
  if (tolerations) h.tolerations = parse_tolerations(*tolerations, r.child("tolerations"), errs);
  if (const json::Value* p = r.get("rayStartParams"))
    h.ray_start_params = parse_ray_start_params(*p, r.child("rayStartParams"), RayNodeKind::Head, errs);
  TemplateScope scope{{{"ray-head", path}}, {}, odh};
  if (tolerations) scope.tolerations_given.push_back(r.child("tolerations"));
  h.pod = parse_pod_fields(r, scope, errs);
  if (auto t = r.string("serviceType")) {
    if (*t == "ClusterIP" || *t == "NodePort" || *t == "LoadBalancer")
      h.service_type = *t;
    else
      add_error(errs, r.child("serviceType"), "schema:enum",
                "must be ClusterIP, NodePort or LoadBalancer, not \"" + *t + "\"", "core/v1:ServiceType");
  }
  h.enable_ingress = r.boolean("enableIngress").value_or(false);
  if (const json::Value* o = r.get("ingressOptions")) {
    h.ingress_options = parse_ingress_options(*o, r.child("ingressOptions"), errs);
    if (!h.enable_ingress)
      add_warning(errs, r.child("ingressOptions"), "IngressOptionsIgnored",
                  "has no effect without spec.head.enableIngress: true (no Ingress is created)");
  }
  r.reject_unknown();
  return h;
}

std::optional<WorkerGroup> parse_group(const json::Value& v, const std::string& path,
                                       const std::vector<ResourceMapping>& mapping, bool autoscaling, bool odh,
                                       FieldErrors& errs) {
  FieldReader r(v, path, errs);
  if (!r.is_object()) return std::nullopt;
  WorkerGroup g;
  auto name = r.required_string("name");
  if (name) {
    g.name = *name;
    report_all(errs, r.child("name"), "DNS1123Label", names::dns1123_label(g.name),
               "kueue:Workload podSets[].name (from groupName); kuberay ray.io/group pod label");
    if (g.name == "head")
      add_error(errs, r.child("name"), "ReservedGroupName", "\"head\" is the name of the head PodSet in Kueue",
                "kueue:RayCluster podSets");
  }
  ReplicaCounts counts;
  counts.replicas = r.integer("replicas", 0, kInt32Max);
  counts.min_replicas = r.integer("minReplicas", 0, kInt32Max);
  counts.max_replicas = r.integer("maxReplicas", 0, kInt32Max);
  if (const json::Value* res = r.get("resources"))
    g.resources = parse_resources(*res, r.child("resources"), mapping, errs);
  const json::Value* tolerations = r.get("tolerations");
  if (tolerations) g.tolerations = parse_tolerations(*tolerations, r.child("tolerations"), errs);
  if (const json::Value* p = r.get("rayStartParams"))
    g.ray_start_params = parse_ray_start_params(*p, r.child("rayStartParams"), RayNodeKind::Worker, errs);
  TemplateScope scope{{{"machine-learning", path}}, {}, odh};
  if (tolerations) scope.tolerations_given.push_back(r.child("tolerations"));
  g.pod = parse_pod_fields(r, scope, errs);
  g.suspend = r.boolean("suspend").value_or(false);
  if (auto t = r.integer("idleTimeoutSeconds", 0, kInt32Max)) g.idle_timeout_seconds = static_cast<int32_t>(*t);
  r.reject_unknown();
  resolve_replicas(counts, autoscaling, path, g, errs);
  check_topology_pod_count(g.pod.topology, g.replicas, r.child("topology"), errs);
  return g;
}

std::vector<WorkerGroup> parse_groups(const json::Value& v, const std::string& path,
                                      const std::vector<ResourceMapping>& mapping, bool autoscaling, bool odh,
                                      FieldErrors& errs) {
  std::vector<WorkerGroup> out;
  if (!expect_type(v, v.IsArray(), "a list", path, errs)) return out;
  std::set<std::string> seen;
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    std::string p = index_path(path, i);
    auto g = parse_group(v[i], p, mapping, autoscaling, odh, errs);
    if (!g) continue;
    if (!g->name.empty() && !seen.insert(g->name).second)
      add_error(errs, join_path(p, "name"), "UniqueGroupName", "duplicate worker group name \"" + g->name + "\"",
                "kuberay:validateRayCluster webhook");
    out.push_back(std::move(*g));
  }
  return out;
}

// spec.queue. localQueue becomes a LocalQueue's name and the queue-name label's value: a DNS-1123 subdomain of at
// most 63 characters. clusterQueue names a ClusterQueue (a DNS-1123 subdomain); without localQueue it also names the
// managed LocalQueue, so it is then a label value too. priorityClass names a WorkloadPriorityClass and is the
// priority-class label's value.
QueueSpec parse_queue(const json::Value& v, const std::string& path, FieldErrors& errs) {
  constexpr const char* kLocalQueueSource = "kueue:LocalQueue name, queue-name label value";
  QueueSpec q;
  FieldReader r(v, path, errs);
  q.local_queue = r.string("localQueue").value_or("");
  q.cluster_queue = r.string("clusterQueue").value_or("");
  q.priority_class = r.string("priorityClass").value_or("");
  q.multi_kueue = r.boolean("multiKueue").value_or(false);
  r.reject_unknown();
  if (!q.local_queue.empty()) {
    report_all(errs, r.child("localQueue"), "DNS1123Subdomain", names::dns1123_subdomain(q.local_queue),
               kLocalQueueSource);
    report_all(errs, r.child("localQueue"), "LabelValue", names::label_value(q.local_queue), kLocalQueueSource);
  }
  if (!q.cluster_queue.empty()) {
    report_all(errs, r.child("clusterQueue"), "DNS1123Subdomain", names::dns1123_subdomain(q.cluster_queue),
               "kueue:ClusterQueue name (LocalQueue spec.clusterQueue)");
    if (q.local_queue.empty()) {  // the managed LocalQueue takes the CQ's name
      for (const auto& m : names::label_value(q.cluster_queue))
        add_error(errs, r.child("clusterQueue"), "LabelValue",
                  m + " (without localQueue, the LocalQueue takes the ClusterQueue's name)", kLocalQueueSource);
      q.local_queue = q.cluster_queue;
    }
  }
  if (!q.priority_class.empty()) {
    constexpr const char* kSource = "kueue:WorkloadPriorityClass name, priority-class label value";
    report_all(errs, r.child("priorityClass"), "DNS1123Subdomain", names::dns1123_subdomain(q.priority_class), kSource);
    report_all(errs, r.child("priorityClass"), "LabelValue", names::label_value(q.priority_class), kSource);
  }
  return q;
}

// The scope of spec.template: every Pod of the workload (the Ray containers of the head and of every group, whose
// tolerations it would replace).
TemplateScope all_pods_scope(const json::Value& spec, const WorkloadSpec& s) {
  TemplateScope scope{
      {{"ray-head", "spec.head"}, {"machine-learning", "spec.workerGroups[*]"}}, {}, s.odh_trusted_ca_bundle};
  if (const json::Value* head = json::find(spec, "head"); head && json::find(*head, "tolerations"))
    scope.tolerations_given.emplace_back("spec.head.tolerations");
  if (const json::Value* groups = json::find(spec, "workerGroups"); groups && groups->IsArray())
    for (rapidjson::SizeType i = 0; i < groups->Size(); ++i)
      if (json::find((*groups)[i], "tolerations"))
        scope.tolerations_given.push_back(index_path("spec.workerGroups", i) + ".tolerations");
  return scope;
}

// spec.authOptions (KubeRay AuthOptions, v1.7.0): mode disabled | token, secretName, enableK8sTokenAuth.
std::optional<AuthOptions> parse_auth_options(const json::Value& v, const std::string& path, FieldErrors& errs) {
  FieldReader r(v, path, errs);
  AuthOptions o;
  o.mode = r.string("mode").value_or("");
  if (!o.mode.empty() && o.mode != "disabled" && o.mode != "token")
    add_error(errs, r.child("mode"), "schema:enum", "must be disabled or token, not \"" + o.mode + "\"",
              "crd:ray.io/v1/RayCluster");
  o.secret_name = r.string("secretName").value_or("");
  if (!o.secret_name.empty())
    report_all(errs, r.child("secretName"), "DNS1123Subdomain", names::dns1123_subdomain(o.secret_name),
               "core/v1:Secret name");
  o.enable_k8s_token_auth = r.boolean("enableK8sTokenAuth");
  r.reject_unknown();
  if (!r.is_object()) return std::nullopt;
  return o;
}

// spec.upgradeStrategy: {type: Recreate | None} (KubeRay RayClusterUpgradeStrategy, v1.7.0).
std::string parse_upgrade_strategy(const json::Value& v, const std::string& path, FieldErrors& errs) {
  FieldReader r(v, path, errs);
  auto type = r.string("type");
  r.reject_unknown();
  if (type && *type != "Recreate" && *type != "None") {
    add_error(errs, r.child("type"), "schema:enum", "must be Recreate or None, not \"" + *type + "\"",
              "crd:ray.io/v1/RayCluster");
    return "";
  }
  return type.value_or("");
}

// A `topology` field next to a topology annotation of spec.annotations (which goes on every Pod template): the two
// would set the same annotation.
void check_topology_conflicts(const WorkloadSpec& s, FieldErrors& errs) {
  std::string given;
  for (const auto& [k, v] : s.annotations)
    if (is_topology_annotation(k)) given = k;
  if (given.empty()) return;
  auto conflict = [&](const TopologyRequest& t, const std::string& path) {
    if (!t.empty())
      add_error(errs, path, "TopologyConflict",
                "spec.annotations already sets " + given + " on every Pod template; use the `topology` fields only");
  };
  conflict(s.head.pod.topology, "spec.head.topology");
  for (std::size_t i = 0; i < s.worker_groups.size(); ++i)
    conflict(s.worker_groups[i].pod.topology, index_path("spec.workerGroups", i) + ".topology");
  if (s.job) conflict(s.job->submitter.topology, "spec.job.submitter.topology");
}

void parse_spec(const json::Value& v, WorkloadSpec& s, FieldErrors& errs) {
  FieldReader r(v, "spec", errs);
  if (auto rv = r.string("rayVersion")) {
    s.ray_version = *rv;
    static const std::regex version(R"(^[0-9]+\.[0-9]+\.[0-9]+$)");
    if (!std::regex_match(*rv, version))
      add_error(errs, r.child("rayVersion"), "RayVersion", "must be a Ray release version such as \"2.52.1\"");
  }
  s.image = r.string("image").value_or("");
  if (const json::Value* x = r.get("imagePullSecrets"))
    s.image_pull_secrets = parse_image_pull_secrets(*x, r.child("imagePullSecrets"), errs);
  // The mapping and autoscaling come first: resources are checked against the mapping, replica bounds depend on
  // autoscaling.
  bool overwrite_defaults = r.boolean("overwriteDefaultResourceMapping").value_or(false);
  if (const json::Value* x = r.get("extendedResourceMapping"))
    s.resource_mapping = parse_resource_mapping(*x, r.child("extendedResourceMapping"), overwrite_defaults, errs);
  if (const json::Value* x = r.get("autoscaling")) s.autoscaling = parse_autoscaling(*x, r.child("autoscaling"), errs);
  // Read before the groups: their templates may not take the CA-bundle volume names and mount paths.
  s.odh_trusted_ca_bundle = r.boolean("odhTrustedCABundle").value_or(false);
  if (const json::Value* x = r.get("head"))
    s.head = parse_head(*x, r.child("head"), s.resource_mapping, s.odh_trusted_ca_bundle, errs);
  if (const json::Value* x = r.get("workerGroups"))
    s.worker_groups = parse_groups(*x, r.child("workerGroups"), s.resource_mapping, s.autoscaling.enabled,
                                   s.odh_trusted_ca_bundle, errs);
  if (const json::Value* x = r.get("template"))
    s.template_ = parse_pod_template(*x, r.child("template"), all_pods_scope(v, s), errs);
  if (const json::Value* x = r.get("env")) s.env = parse_env(*x, r.child("env"), errs);
  if (const json::Value* x = r.get("volumes")) s.volumes = parse_volumes(*x, r.child("volumes"), errs);
  if (const json::Value* x = r.get("volumeMounts")) {
    std::vector<std::string> mountable = volume_names(s.volumes);
    if (s.odh_trusted_ca_bundle)  // a user mount may also use the bundle volumes the operator adds
      for (auto name : {kOdhTrustedCaVolume, kOdhCaVolume}) mountable.emplace_back(name);
    s.volume_mounts = parse_volume_mounts(*x, r.child("volumeMounts"), mountable, errs);
  }
  if (const json::Value* x = r.get("labels"))
    s.labels = parse_label_map(*x, r.child("labels"), LabelMapKind::ObjectLabels, errs);
  if (const json::Value* x = r.get("annotations"))
    s.annotations = parse_label_map(*x, r.child("annotations"), LabelMapKind::ObjectAnnotations, errs);
  if (const json::Value* x = r.get("queue")) s.queue = parse_queue(*x, r.child("queue"), errs);
  s.app_wrapper = r.boolean("appWrapper").value_or(false);
  if (const json::Value* x = r.get("gcsFaultTolerance"))
    s.gcs_fault_tolerance = parse_gcs_fault_tolerance(*x, r.child("gcsFaultTolerance"), errs);
  s.usage_stats = r.boolean("usageStats").value_or(false);
  s.suspend = r.boolean("suspend").value_or(false);
  if (const json::Value* x = r.get("job")) s.job = parse_job(*x, v, r.child("job"), errs);
  if (const json::Value* x = r.get("authOptions"))
    s.auth_options = parse_auth_options(*x, r.child("authOptions"), errs);
  if (const json::Value* x = r.get("upgradeStrategy"))
    s.upgrade_strategy = parse_upgrade_strategy(*x, r.child("upgradeStrategy"), errs);
  r.reject_unknown();
  check_spec_conflicts(v, s, errs);
  check_topology_conflicts(s, errs);
}

// metadata.annotations["codeflare.dev/ignore-checks"]: a comma-separated list of the operator's own checks to turn
// off. A rule id outside kIgnorableChecks is an error: what a cluster enforces cannot be waved through.
void parse_ignored_checks(const json::Value& meta, Workload& w, FieldErrors& errs) {
  const json::Value* annotations = json::find(meta, "annotations");
  if (!annotations || !annotations->IsObject()) return;
  auto list = json::get_string(*annotations, kIgnoreChecksAnnotation);
  if (!list) return;
  const std::string path = "metadata.annotations[" + std::string(kIgnoreChecksAnnotation) + "]";
  std::string_view rest = *list;
  while (!rest.empty()) {
    auto comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) continue;
    if (std::find(std::begin(kIgnorableChecks), std::end(kIgnorableChecks), item) == std::end(kIgnorableChecks)) {
      std::string known;
      for (auto k : kIgnorableChecks) known += (known.empty() ? "" : ", ") + std::string(k);
      // A rule the cluster enforces cannot be turned off, and says so; any other name is not one of the ignorable
      // checks (the thirty-eighth user trial: "Bogus" was told it "cannot be ignored", as a cluster rule is).
      const bool cluster_rule =
          validation::find_rule(item) != nullptr || item.starts_with("schema:") || item.starts_with("cel:");
      add_error(errs, path, "IgnoreChecks",
                cluster_rule ? "\"" + std::string(item) +
                                   "\" is a rule the cluster enforces and cannot be ignored; only the operator's own "
                                   "checks can: " +
                                   known
                             : "\"" + std::string(item) + "\" is not one of the checks that can be ignored: " + known);
      continue;
    }
    w.ignored_checks.emplace_back(item);
  }
}

void parse_metadata(const json::Value& obj, Workload& w, FieldErrors& errs) {
  const json::Value* meta = json::find(obj, "metadata");
  if (!meta || meta->IsNull()) {
    // What is missing is the name: the namespace comes from -n or the kubeconfig's context, as kubectl gives it.
    add_error(errs, "metadata.name", "schema:required", "is required (the workload has no metadata)");
    return;
  }
  if (!meta->IsObject()) {
    add_error(errs, "metadata", "schema:type", std::string("must be an object, not ") + json::type_name(*meta));
    return;
  }
  w.name = json::get_string(*meta, "name").value_or("");
  w.namespace_ = json::get_string(*meta, "namespace").value_or("");
  w.uid = json::get_string(*meta, "uid").value_or("");
  w.generation = json::get_int(*meta, "generation").value_or(0);
  // A name written as another type (`name: 5`, or a YAML tag such as !!int) is a type error, not a missing name:
  // the apiserver refuses to decode it.
  auto check = [&](const char* key, const std::string& value) {
    const json::Value* v = json::find(*meta, key);
    if (v && !v->IsString() && !v->IsNull())
      add_error(errs, std::string("metadata.") + key, "schema:type",
                std::string("must be a string, not ") + json::type_name(*v));
    else if (value.empty())
      add_error(errs, std::string("metadata.") + key, "schema:required", "is required");
  };
  check("name", w.name);
  check("namespace", w.namespace_);
  parse_ignored_checks(*meta, w, errs);
}

void apply_defaults(Workload& w) {
  const SdkDefaults& d = sdk_defaults();
  WorkloadSpec& s = w.spec;
  if (s.ray_version.empty()) s.ray_version = d.ray_version;
  if (s.image.empty()) s.image = default_image(s.ray_version);
  s.head.resources = apply_resource_defaults(s.head.resources, d.head);
  if (s.worker_groups.empty()) {
    WorkerGroup g;
    g.name = default_group_name(w.name);
    g.replicas = g.min_replicas = g.max_replicas = d.default_worker_replicas;
    s.worker_groups.push_back(std::move(g));
  }
  for (auto& g : s.worker_groups) g.resources = apply_resource_defaults(g.resources, d.worker);
  s.autoscaling.resources = apply_resource_defaults(s.autoscaling.resources, d.autoscaler);
}
}  // namespace

// Fields the apiserver would drop without a word: unknown top-level fields, and unknown metadata fields
// (metav1.ObjectMeta's field list, apimachinery types.go).
void reject_unknown_object_fields(const json::Value& obj, FieldErrors& errs) {
  static const std::set<std::string> top = {"apiVersion", "kind", "metadata", "spec", "status"};
  static const std::set<std::string> meta = {"name",
                                             "generateName",
                                             "namespace",
                                             "selfLink",
                                             "uid",
                                             "resourceVersion",
                                             "generation",
                                             "creationTimestamp",
                                             "deletionTimestamp",
                                             "deletionGracePeriodSeconds",
                                             "labels",
                                             "annotations",
                                             "ownerReferences",
                                             "finalizers",
                                             "managedFields",
                                             "clusterName"};
  for (const auto& m : obj.GetObject()) {
    std::string k(m.name.GetString(), m.name.GetStringLength());
    if (!top.count(k))
      add_error(errs, key_path("", k), "schema:unknownField",
                "unknown field \"" + k + "\" (the apiserver would drop it)",
                "crd:codeflare.dev/v1alpha1/CodeFlareWorkload");
  }
  const json::Value* metadata = json::find(obj, "metadata");
  if (!metadata || !metadata->IsObject()) return;
  for (const auto& m : metadata->GetObject()) {
    std::string k(m.name.GetString(), m.name.GetStringLength());
    if (!meta.count(k))
      add_error(errs, key_path("metadata", k), "schema:unknownField",
                "unknown field \"" + k + "\" (not an ObjectMeta field; the apiserver would drop it)",
                "apimachinery:ObjectMeta");
  }
}

namespace {
// kube-apiserver removes every null member of a CodeFlareWorkload's spec before anything reads it: no field of the
// CRD is nullable or has a default (null pruning; list items are kept). A spec.volumes item passes its volume
// source through (x-kubernetes-preserve-unknown-fields), so only its declared `name` is pruned there. The operator
// reads objects the apiserver already pruned; `render` and `validate` read files, and prune here to judge the same.
// A mutable `v` has its prunable nulls removed; a const one is only searched (true at the first find).
template <class V>
bool prune_spec_nulls(V& v, bool volume_item) {
  constexpr bool remove = !std::is_const_v<V>;
  if (v.IsObject()) {
    for (auto it = v.MemberBegin(); it != v.MemberEnd();) {
      const std::string_view name(it->name.GetString(), it->name.GetStringLength());
      if ((!volume_item || name == "name") && it->value.IsNull()) {
        if constexpr (!remove) {
          return true;
        } else {
          it = v.EraseMember(it);
          continue;
        }
      }
      if (!volume_item) {
        if (name == "volumes" && it->value.IsArray()) {
          for (auto& item : it->value.GetArray())
            if (prune_spec_nulls(item, true) && !remove) return true;
        } else if (prune_spec_nulls(it->value, false) && !remove) {
          return true;
        }
      }
      ++it;
    }
  } else if (v.IsArray()) {
    for (auto& item : v.GetArray())
      if (prune_spec_nulls(item, false) && !remove) return true;
  }
  return false;
}

ParsedWorkload parse_workload_pruned(const json::Value& obj) {
  ParsedWorkload out;
  if (!expect_type(obj, obj.IsObject(), "an object", "", out.errors)) return out;
  reject_unknown_object_fields(obj, out.errors);
  parse_metadata(obj, out.workload, out.errors);
  static const json::Value empty_spec(rapidjson::kObjectType);
  const json::Value* spec = json::find(obj, "spec");
  parse_spec(spec && !spec->IsNull() ? *spec : empty_spec, out.workload.spec, out.errors);
  auto written = check_written_resources(out.workload);
  out.errors.insert(out.errors.end(), written.begin(), written.end());
  apply_defaults(out.workload);
  check_image(out.workload.spec.image, "spec.image", out.errors);
  auto more = check_workload(out.workload);
  out.errors.insert(out.errors.end(), more.begin(), more.end());
  return out;
}
}  // namespace

ParsedWorkload parse_workload(const json::Value& obj) {
  const json::Value* spec = obj.IsObject() ? json::find(obj, "spec") : nullptr;
  if (spec && spec->IsObject() && prune_spec_nulls(*spec, false)) {
    json::Document copy;
    copy.CopyFrom(obj, copy.GetAllocator());
    prune_spec_nulls(copy["spec"], false);
    return parse_workload_pruned(copy);
  }
  return parse_workload_pruned(obj);
}

}  // namespace cfo::workload
