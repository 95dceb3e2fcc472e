#include <iostream>

#include "cmd/args.hpp"
#include "cmd/closed_sets.hpp"
#include "cmd/commands.hpp"
#include "cmd/findings_output.hpp"
#include "cmd/offline_inputs.hpp"
#include "core/condition.hpp"
#include "core/yaml.hpp"
#include "validation/validator.hpp"
#include "workload/finding_paths.hpp"
#include "workload/reconcile.hpp"

namespace cfo::cmd {

namespace {

// What validate says of a workload's generated objects within its closed set (the other objects of the file or
// folder: the references to Kueue objects the set holds, and the admissibility of a queued workload against them),
// told at the workload's fields: render refuses what validate refuses.
FieldErrors judge_in_set(const InputDocument& in, const workload::Outcome& outcome,
                         const std::vector<const json::Value*>& set_objects, const validation::SchemaSet& schemas,
                         const validation::ClusterProfile& profile) {
  std::vector<validation::SetEntry> entries;
  entries.reserve(set_objects.size() + outcome.desired.size());
  for (const json::Value* o : set_objects) entries.push_back({o, true});
  const std::size_t first_child = entries.size();
  for (const auto& child : outcome.desired) entries.push_back({&child, true});
  auto judged = validation::validate_set(schemas, entries, profile);
  FieldErrors errs;
  for (std::size_t k = first_child; k < entries.size(); ++k) {
    const std::string kind = json::string_at(*entries[k].object, "kind");
    workload::add_child_findings(std::move(judged[k]), kind,
                                 kind + "/" + json::string_at(*entries[k].object, "metadata.name"), in.doc, errs);
  }
  return errs;
}

bool has_error(const FieldErrors& errs) {
  for (const auto& e : errs)
    if (e.severity == Severity::Error) return true;
  return false;
}

constexpr const char* kRenderHelp =
    "Print the objects that CodeFlareWorkloads expand to, as YAML, without a cluster.\n"
    "Exit code: 0 every workload rendered, 1 a workload is invalid or an input is not readable (a file that is not\n"
    "valid YAML, a malformed v1 List): its findings go to stderr and the other workloads are still printed, 2 usage\n"
    "or I/O error (a missing or unreadable file or folder, unloadable --crds).\n"
    "The items of a v1 List (`kubectl get -o yaml`) or a typed list are rendered one by one; objects of other kinds\n"
    "are skipped with a note on stderr, except a codeflare.dev object that is not a v1alpha1 CodeFlareWorkload (an\n"
    "unknown version or kind), which is an error, as in `validate`. The documents of one file, or of a folder\n"
    "given with -f, are one closed set as in `validate`: a queued workload that the Kueue objects of its set can\n"
    "never admit, or that names a LocalQueue the set does not hold while it holds others, is an error.\n"
    "\n"
    "Flags:\n"
    "  -f, --filename FILE          a manifest file, a folder of them, or - for stdin (repeatable)\n"
    "  -R, --recursive              read the folders given with -f and their sub-folders\n"
    "      --crds DIR               folder (or file) of the upstream CRDs to check against (repeatable); default:\n"
    "                               the pinned KubeRay, AppWrapper and Kueue schemas that ship with the binary\n"
    "  -n, --namespace NS           namespace for workloads that do not name one (default \"default\")\n"
    "      --default-local-queue Q  act as if the namespace's default LocalQueue were Q\n"
    "      --kueue-max-podsets N    Kueue's MaxPodSets: 8 (<= v0.17), 10 (v0.18), 18 (>= v0.19); default: what the\n"
    "                               Workload CRD among the schemas says (spec.podSets.maxItems), else 8\n"
    "      --profile NAME           the cluster's profile, vanilla (default) or odh (OpenDataHub / OpenShift AI):\n"
    "                               the rules of the CodeFlare operator's webhooks apply only under odh\n"
    "      --kueue-version V        Kueue API version of a managed LocalQueue (spec.queue.clusterQueue), which is\n"
    "                               printed before the workload's objects: v1beta2 (default) or v1beta1\n"
    "      --quota                  print, instead of the objects, each workload's quota preview: the PodSets Kueue\n"
    "                               makes of its top-level child, the requests it charges per Pod and the totals\n"
    "                               (status.podSets and status.totalRequests), to read against a ClusterQueue\n";

// One YAML document per workload for --quota: the workload, the kind Kueue admits, the queue, its PodSets and totals.
std::string quota_document(const json::Value& workload, const workload::Outcome& outcome) {
  json::Document d;
  d.SetObject();
  auto& a = d.GetAllocator();
  d.AddMember(
      "workload",
      json::str(json::string_at(workload, "metadata.namespace") + "/" + json::string_at(workload, "metadata.name"), a),
      a);
  if (!outcome.desired.empty()) d.AddMember("kind", json::str(json::string_at(outcome.desired.back(), "kind"), a), a);
  if (auto q = json::get_string(outcome.status, "queue")) d.AddMember("queue", json::str(*q, a), a);
  static const json::Value none(rapidjson::kArrayType);
  const json::Value* sets = json::find(outcome.status, "podSets");
  d.AddMember("podSets", json::Value(sets ? *sets : none, a), a);
  static const json::Value empty(rapidjson::kObjectType);
  const json::Value* total = json::find(outcome.status, "totalRequests");
  d.AddMember("totalRequests", json::Value(total ? *total : empty, a), a);
  return yaml::from_json(d);
}
}  // namespace

int render_command(int argc, char** argv, int first) {
  auto args = Args::parse(argc, argv, first,
                          {{"filename", true},
                           {"recursive", false},
                           {"crds", true},
                           {"namespace", true},
                           {"default-local-queue", true},
                           {"kueue-max-podsets", true},
                           {"profile", true},
                           {"kueue-version", true},
                           {"quota", false},
                           {"help", false}},
                          {{"f", "filename"}, {"R", "recursive"}, {"n", "namespace"}, {"h", "help"}});
  if (!args) {
    std::cerr << "render: " << args.error().message << "\n\n" << kRenderHelp;
    return 2;
  }
  if (args->flag("help")) {
    std::cout << kRenderHelp;
    return 0;
  }
  auto loaded = load_offline_inputs(*args, "render", kRenderHelp);
  if (!loaded) return loaded.error();
  workload::ClusterFacts facts;
  facts.profile = loaded->profile;
  if (args->has("default-local-queue")) facts.default_local_queue = args->get("default-local-queue");
  facts.kueue_version = args->get("kueue-version", "v1beta2");
  if (facts.kueue_version != "v1beta2" && facts.kueue_version != "v1beta1") {
    std::cerr << "render: --kueue-version must be v1beta2 or v1beta1\n";
    return 2;
  }
  const std::string ns = args->get("namespace", "default");
  const bool quota = args->flag("quota");

  // The closed sets, as validate forms them; each set's other objects (Kueue objects, Namespaces) judge its
  // workloads' generated objects.
  const auto set_of = closed_sets(loaded->docs, args->all("filename"), false);
  std::vector<std::vector<const json::Value*>> set_objects;
  for (std::size_t i = 0; i < loaded->docs.size(); ++i) {
    const auto& in = loaded->docs[i];
    if (set_of[i] >= set_objects.size()) set_objects.resize(set_of[i] + 1);
    if (!in.kustomize && in.problems.empty() && !is_workload(in.doc)) set_objects[set_of[i]].push_back(&in.doc);
  }

  int exit_code = 0;
  bool first_doc = true;
  for (std::size_t i = 0; i < loaded->docs.size(); ++i) {
    auto& in = loaded->docs[i];
    if (in.kustomize) {
      std::cerr << in.file << ": a kustomize file (for kubectl apply -k), not an object; skipped\n";
      continue;
    }
    if (!in.problems.empty()) {  // not YAML, or a malformed List: nothing of it is rendered
      print_findings_text(std::cerr, in, in.problems);
      exit_code = 1;
      continue;
    }
    if (!is_workload(in.doc)) {
      // An object that claims the codeflare.dev group or the CodeFlareWorkload kind but is not one this operator
      // serves is a mistake to report, as validate does (an unknown version would otherwise render nothing, and a
      // GitOps sync of the output would silently drop the workload).
      if (auto unserved = unserved_workload(in.doc)) {
        print_findings_text(std::cerr, in, FieldErrors{*unserved});
        exit_code = 1;
        continue;
      }
      // A document that is not a map is no object at all: refused as validate refuses it, not skipped (a GitOps
      // sync of the output would otherwise pass on garbage).
      if (!in.doc.IsObject()) {
        print_findings_text(std::cerr, in, validation::validate_object(loaded->schemas, in.doc, loaded->profile));
        exit_code = 1;
        continue;
      }
      // describe_object already names the position of a List item, and is the position itself without a kind.
      const std::string what = describe_object(in);
      std::cerr << in.file << ": "
                << (in.item.empty() && what != position(in) ? position(in) + " (" + what + ")" : what)
                << " is not a codeflare.dev/v1alpha1 CodeFlareWorkload; skipped\n";
      continue;
    }
    ensure_namespace(in.doc, ns);
    // Offline, nothing is known to exist: a LocalQueue the workload asks the operator to manage is rendered, and
    // any other Kueue object it names is assumed to be there (the apiserver or Kueue will say otherwise).
    workload::ClusterFacts doc_facts = facts;
    const json::Value* cq = json::find_path(in.doc, "spec.queue.clusterQueue");
    if (cq && cq->IsString() && cq->GetStringLength() > 0) doc_facts.local_queue_presence = workload::Presence::kAbsent;
    auto outcome = workload::reconcile(in.doc, workload::Observed{}, doc_facts, loaded->schemas, now_rfc3339());
    if (!outcome.valid) {
      print_findings_text(std::cerr, in, outcome.errors);
      exit_code = 1;
      continue;
    }
    if (FieldErrors in_set = judge_in_set(in, outcome, set_objects[set_of[i]], loaded->schemas, loaded->profile);
        has_error(in_set)) {
      print_findings_text(std::cerr, in, in_set);
      exit_code = 1;
      continue;
    }
    if (quota) {
      if (!first_doc) std::cout << "---\n";
      first_doc = false;
      std::cout << quota_document(in.doc, outcome);
      continue;
    }
    for (const auto& obj : outcome.desired) {
      if (!first_doc) std::cout << "---\n";
      first_doc = false;
      std::cout << yaml::from_json(obj);
    }
  }
  return exit_code;
}

}  // namespace cfo::cmd
