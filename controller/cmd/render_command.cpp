#include <iostream>
#include <string>
#include <vector>

#include "cmd/args.hpp"
#include "cmd/closed_sets.hpp"
#include "cmd/commands.hpp"
#include "cmd/findings_output.hpp"
#include "cmd/judge_inputs.hpp"
#include "cmd/kept_until_exit.hpp"
#include "cmd/offline_inputs.hpp"
#include "core/condition.hpp"
#include "core/names.hpp"
#include "core/yaml.hpp"
#include "workload/quota_preview.hpp"

namespace cfo::cmd {

namespace {

bool has_error(const FieldErrors& errs) {
  for (const auto& e : errs)
    if (e.severity == Severity::Error) return true;
  return false;
}

constexpr const char* kRenderHelp =
    "Print the objects that CodeFlareWorkloads expand to, as YAML or JSON, without a cluster.\n"
    "Exit code: 0 every workload rendered, 1 a workload is invalid or an input is not readable (a file that is not\n"
    "valid YAML, a malformed v1 List): its findings go to stderr and the other workloads are still printed, 2 usage\n"
    "or I/O error (a missing or unreadable file or folder, unloadable --crds).\n"
    "The items of a v1 List (`kubectl get -o yaml`) or a typed list are rendered one by one; objects of other kinds\n"
    "are skipped with a note on stderr, except an unknown version or kind of a known group (a codeflare.dev object\n"
    "that is not a v1alpha1 CodeFlareWorkload, ray.io/v2), which is an error, as in `validate`. The documents of\n"
    "one file, or of a folder given with -f, are one closed set as in `validate`: a queued workload that the Kueue\n"
    "objects of its set can never admit, or that names a LocalQueue the set does not hold while it holds others,\n"
    "is an error. Warnings (a workload given twice in a set, a priority class without a queue...) go to stderr and\n"
    "leave the exit code.\n"
    "\n"
    "Flags:\n"
    "  -f, --filename FILE          a manifest file, a folder of them, or - for stdin (repeatable; a,b as with\n"
    "                               kubectl)\n"
    "  -R, --recursive              read the folders given with -f and their sub-folders\n"
    "  -o, --output yaml|json       yaml (default): one document per object; json: one v1 List of the objects (an\n"
    "                               array of the previews with --quota), for jq or `kubectl apply -f -`\n"
    "      --crds DIR               folder (or file) of the upstream CRDs to check against (repeatable); default:\n"
    "                               the pinned KubeRay, AppWrapper and Kueue schemas that ship with the binary\n"
    "      --cache-dir DIR          where the CRDs of --crds are kept once parsed (descriptions stripped): the next\n"
    "                               run reads them in milliseconds; an entry serves while its file is unchanged "
    "(path,\n"
    "                               size, mtime, inode); default $XDG_CACHE_HOME/codeflare-operator, else\n"
    "                               ~/.cache/codeflare-operator; off: no cache\n"
    "  -n, --namespace NS           namespace for workloads that do not name one (default \"default\")\n"
    "      --default-local-queue Q  act as if the namespace's default LocalQueue were Q\n"
    "      --kueue-max-podsets N    Kueue's MaxPodSets: 8 (<= v0.17), 10 (v0.18), 18 (>= v0.19); default: what the\n"
    "                               Workload CRD among the schemas says (spec.podSets.maxItems), else 8\n"
    "      --kubernetes-version V   the target cluster's Kubernetes version (1.31, v1.31.2): rules whose verdict\n"
    "                               changed with a release judge by it; default unknown, where those rules warn\n"
    "      --profile NAME           the cluster's profile, vanilla (default) or odh (OpenDataHub / OpenShift AI):\n"
    "                               the rules of the CodeFlare operator's webhooks apply only under odh\n"
    "      --kueue-version V        Kueue API version of a managed LocalQueue (spec.queue.clusterQueue), which is\n"
    "                               printed before the workload's objects: v1beta2 (default) or v1beta1\n"
    "      --set                    judge everything given as one closed set, as validate --set does (a\n"
    "                               LocalQueue two files manage for two ClusterQueues is then an error)\n"
    "      --quota                  print, instead of the objects, each workload's quota preview: the PodSets Kueue\n"
    "                               makes of its top-level child, the requests it charges per Pod and the totals\n"
    "                               (status.podSets and status.totalRequests), to read against a ClusterQueue\n";

// One YAML document per workload for --quota: the workload, the kind Kueue admits (its top-level child, generated
// last), the queue, its PodSets and totals (workload::quota_preview, as the operator writes them into the status).
json::Document quota_document(const json::Value& workload, const GeneratedObjects& generated) {
  json::Document d;
  d.SetObject();
  auto& a = d.GetAllocator();
  d.AddMember(
      "workload",
      json::str(json::string_at(workload, "metadata.namespace") + "/" + json::string_at(workload, "metadata.name"), a),
      a);
  workload::QuotaPreview preview;
  if (!generated.empty()) {
    const json::Value& top = generated.back().doc;
    d.AddMember("kind", json::str(json::string_at(top, "kind"), a), a);
    if (const json::Value* labels = json::find_path(top, "metadata.labels"))
      if (auto q = json::get_string(*labels, "kueue.x-k8s.io/queue-name")) d.AddMember("queue", json::str(*q, a), a);
    preview = workload::quota_preview(top);
  }
  d.AddMember("podSets", preview.pod_sets_json(a), a);
  d.AddMember("totalRequests", preview.total_json(a), a);
  return d;
}

/// Where the rendered documents go: YAML documents separated by "---" as they come, or, for -o json, one JSON
/// value printed at the end (a v1 List of the objects, as `kubectl get -o json` prints several; with --quota an
/// array of the previews).
class RenderOutput {
 public:
  RenderOutput(bool json, bool quota) : json_(json), quota_(quota) {
    if (quota_) {
      doc_.SetArray();
      return;
    }
    auto& a = doc_.GetAllocator();
    doc_.SetObject();
    doc_.AddMember("apiVersion", "v1", a);
    doc_.AddMember("kind", "List", a);
    json::Value meta(rapidjson::kObjectType);
    meta.AddMember("resourceVersion", "", a);
    doc_.AddMember("metadata", std::move(meta), a);
    doc_.AddMember("items", json::Value(rapidjson::kArrayType), a);
  }

  void add(const json::Value& doc) {
    if (json_) {
      json::Value& items = quota_ ? static_cast<json::Value&>(doc_) : doc_["items"];
      items.PushBack(json::Value(doc, doc_.GetAllocator()), doc_.GetAllocator());
      return;
    }
    if (!first_) std::cout << "---\n";
    first_ = false;
    std::cout << yaml::from_json(doc);
  }

  /// Prints the JSON value (nothing more for YAML, already printed).
  void finish() {
    if (json_) std::cout << json::dump_pretty(doc_) << "\n";
  }

 private:
  bool json_, quota_;
  bool first_ = true;
  json::Document doc_;  // -o json: the List, or the array of previews
};
}  // namespace

int render_command(int argc, char** argv, int first) {
  auto args = Args::parse(argc, argv, first,
                          {{"filename", true},
                           {"recursive", false},
                           {"output", true},
                           {"crds", true},
                           {"cache-dir", true},
                           {"namespace", true},
                           {"default-local-queue", true},
                           {"kueue-max-podsets", true},
                           {"profile", true},
                           {"kubernetes-version", true},
                           {"kueue-version", true},
                           {"quota", false},
                           {"set", false},
                           {"help", false}},
                          {{"f", "filename"}, {"R", "recursive"}, {"o", "output"}, {"n", "namespace"}, {"h", "help"}});
  if (!args) {
    std::cerr << "render: " << args.error().message << "\n" << usage_hint("render");
    return 2;
  }
  if (args->flag("help")) {
    std::cout << kRenderHelp;
    return 0;
  }
  const std::string output = args->get("output", "yaml");
  if (output != "yaml" && output != "json") {
    std::cerr << "render: --output must be yaml or json, not \"" << output << "\"\n" << usage_hint("render");
    return 2;
  }
  // A queue name Kueue would refuse (a DNS-1123 subdomain) is a usage error, not a finding on every workload; empty
  // says the namespace has no default LocalQueue.
  if (const std::string q = args->get("default-local-queue", ""); !q.empty())
    if (auto problems = names::dns1123_subdomain(q); !problems.empty()) {
      std::cerr << "render: --default-local-queue \"" << q << "\" is not a LocalQueue name: " << problems.front()
                << "\n"
                << usage_hint("render");
      return 2;
    }
  auto& loaded = kept_until_exit(load_offline_inputs(*args, "render"));
  if (!loaded) return loaded.error();
  workload::ClusterFacts facts;
  facts.profile = loaded->profile;
  if (args->has("default-local-queue")) facts.default_local_queue = args->get("default-local-queue");
  facts.default_local_queue_unknown = !args->has("default-local-queue");
  facts.kueue_version = args->get("kueue-version", "v1beta2");
  if (facts.kueue_version != "v1beta2" && facts.kueue_version != "v1beta1") {
    std::cerr << "render: --kueue-version must be v1beta2 or v1beta1\n" << usage_hint("render");
    return 2;
  }
  const std::string ns = args->get("namespace", "default");
  const bool quota = args->flag("quota");

  // The closed sets, judged as validate judges them (judge_inputs): a workload's generated objects with the other
  // objects of its file or folder (Kueue objects, Namespaces, the other workloads' objects). Offline, nothing is
  // known to exist: a LocalQueue a workload asks the operator to manage is generated, and any other Kueue object it
  // names outside its set is assumed to be there (the apiserver or Kueue will say otherwise).
  const auto set_of = closed_sets(loaded->docs, filename_args(*args), args->flag("set"));
  // The workloads that name a namespace other than -n's keep theirs (judge_inputs gives -n's only to those without
  // one), and so do their objects: `kubectl apply -n NS` of the output would then refuse them. Noted once each.
  std::vector<std::string> own_namespace(loaded->docs.size());
  if (args->has("namespace"))
    for (std::size_t i = 0; i < loaded->docs.size(); ++i)
      if (loaded->docs[i].doc.IsObject() && is_workload(loaded->docs[i].doc))
        if (std::string own = json::string_at(loaded->docs[i].doc, "metadata.namespace"); !own.empty() && own != ns)
          own_namespace[i] = std::move(own);
  Expansion expansion;
  expansion.facts = facts;
  expansion.always_generate_managed_queue = true;
  Judged& judged = kept_until_exit(
      judge_inputs(loaded->docs, set_of, loaded->schemas, loaded->apis, expansion, ns, now_rfc3339(), true));

  int exit_code = 0;
  RenderOutput out(output == "json", quota);
  for (std::size_t i = 0; i < loaded->docs.size(); ++i) {
    auto& in = loaded->docs[i];
    if (in.kustomize) {
      std::cerr << in.file << ": a kustomize file (for kubectl apply -k), not an object; skipped\n";
      continue;
    }
    const FieldErrors& found = judged.findings[i];
    if (!in.problems.empty() || !in.doc.IsObject() || judged.unknown_kind[i]) {
      // Not YAML, a malformed List, a document that is not an object, a codeflare.dev object that is not a v1alpha1
      // CodeFlareWorkload, or an unknown version or kind of a known group: refused as validate refuses them (a
      // GitOps sync of the output would otherwise pass on garbage or silently drop an object).
      print_findings_text(std::cerr, in, found);
      exit_code = 1;
      continue;
    }
    if (!is_workload(in.doc)) {
      // describe_object already names the position of a List item, and is the position itself without a kind.
      const std::string what = describe_object(in);
      std::cerr << in.file << ": "
                << (in.item.empty() && what != position(in) ? position(in) + " (" + what + ")" : what)
                << " is not a codeflare.dev/v1alpha1 CodeFlareWorkload; skipped\n";
      continue;
    }
    // Warnings (a repeated workload, a memory written without units...) go to stderr and leave the exit code; an
    // error refuses the workload, whose objects are not printed.
    print_findings_text(std::cerr, in, found);
    if (has_error(found)) {
      exit_code = 1;
      continue;
    }
    if (!own_namespace[i].empty())
      std::cerr << in.file << ": note: " << describe_object(in) << " names its own namespace " << own_namespace[i]
                << ", which it and its objects keep: -n " << ns
                << " applies to the workloads that name none (kubectl apply -n " << ns << " would refuse them)\n";
    if (quota) {
      out.add(quota_document(in.doc, judged.generated[i]));
      continue;
    }
    for (const auto& obj : judged.generated[i]) out.add(obj.doc);
  }
  out.finish();
  return exit_code;
}

}  // namespace cfo::cmd
