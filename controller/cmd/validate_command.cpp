#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cmd/args.hpp"
#include "cmd/closed_sets.hpp"
#include "cmd/commands.hpp"
#include "cmd/crd_cache.hpp"
#include "cmd/crd_schemas.hpp"
#include "cmd/findings_output.hpp"
#include "cmd/judge_inputs.hpp"
#include "cmd/kept_until_exit.hpp"
#include "cmd/offline_inputs.hpp"
#include "core/condition.hpp"
#include "validation/rule_catalog.hpp"
#include "validation/validator.hpp"
#include "workload/rule_catalog.hpp"

namespace cfo::cmd {

namespace {
constexpr const char* kValidateHelp =
    "Check RayCluster, RayJob, AppWrapper, Kueue and CodeFlareWorkload manifests as a real cluster would, and more.\n"
    "Exit code: 0 valid, 1 invalid (a file that is not valid YAML included), 2 usage or I/O error (a missing or\n"
    "unreadable file or folder, unloadable --crds). Warnings do not change the exit code.\n"
    "\n"
    "A v1 List (what `kubectl get -o yaml` prints) or a typed list (RayClusterList) is checked item by item. An\n"
    "object whose API group is served by none of the --crds (and is not codeflare.dev), such as a ConfigMap, a\n"
    "Deployment or a Kustomization, is reported as skipped and does not change the exit code; an unknown version or\n"
    "kind of a known group, or a known kind under another group, is an error. A file that is not valid YAML is one\n"
    "error finding (rule yaml:syntax; yaml:limit for one beyond a size or nesting limit); the other files are still\n"
    "checked.\n"
    "\n"
    "Closed sets: the documents of one file, every file of a folder given with -f (and, with -R, of its\n"
    "sub-folders), or with --set everything given, are judged together, as Argo CD applies them: a LocalQueue's\n"
    "ClusterQueue, a job's LocalQueue and WorkloadPriorityClass must be in the set when the set holds objects of\n"
    "that kind (a kind it holds none of is taken to be on the cluster), and a queued RayCluster, RayJob,\n"
    "AppWrapper or CodeFlareWorkload whose LocalQueue -> ClusterQueue -> ResourceFlavor chain is in the set must be\n"
    "admissible: a ClusterQueue namespaceSelector that selects its namespace (v1 Namespaces in the set give their\n"
    "labels), flavors whose taints and node labels its Pods accept, every requested resource covered, and each\n"
    "PodSet within what the ClusterQueue can ever hold (nominalQuota plus borrowing). Having to wait is fine.\n"
    "\n"
    "Flags:\n"
    "  -f, --filename FILE        a manifest file (multi-document), a folder of them, or - for stdin (repeatable;\n"
    "                             a,b as with kubectl)\n"
    "  -R, --recursive            read the folders given with -f and their sub-folders\n"
    "      --crds DIR             folder (or file) of the upstream CRDs to check against (repeatable); default: the\n"
    "                             pinned KubeRay, AppWrapper and Kueue schemas that ship with the binary\n"
    "      --cache-dir DIR        where the CRDs of --crds are kept once parsed (descriptions stripped): the next\n"
    "                             run reads them in milliseconds; an entry serves while its file is unchanged (path,\n"
    "                             size, mtime, inode); default $XDG_CACHE_HOME/codeflare-operator, else\n"
    "                             ~/.cache/codeflare-operator; off: no cache\n"
    "  -o, --output text|json     output format (default text); json is an array with one entry per finding and\n"
    "                             per skipped object (\"skipped\": true, severity \"info\"); a finding has the\n"
    "                             line and column where its field (or its nearest written parent) is written\n"
    "  -n, --namespace NS         namespace for CodeFlareWorkloads that do not name one (default \"default\")\n"
    "      --set                  judge everything given as one closed set (see above)\n"
    "      --kueue-max-podsets N  Kueue's MaxPodSets: 8 (<= v0.17), 10 (v0.18), 18 (>= v0.19); default: what the\n"
    "                             Workload CRD among the schemas says (spec.podSets.maxItems), else 8\n"
    "      --pod-security-level privileged|baseline|restricted\n"
    "                             the Pod Security Standards level the target namespace enforces (its label\n"
    "                             pod-security.kubernetes.io/enforce): the Pods the objects lead to are judged at\n"
    "                             that level; default privileged (no check)\n"
    "      --kubernetes-version V the target cluster's Kubernetes version (1.31, v1.31.2): rules whose verdict "
    "changed\n"
    "                             with a release judge by it (env var names only 1.32 accepts are an error below\n"
    "                             1.32); default unknown, where those rules warn\n"
    "      --profile NAME         the cluster's profile: vanilla (default) or odh (OpenDataHub / OpenShift AI, where\n"
    "                             the CodeFlare operator's webhooks also judge RayClusters); rules report only under\n"
    "                             the profiles they belong to\n"
    "      --list-rules           list every rule id with its profiles and upstream source, the CodeFlareWorkload's\n"
    "                             own checks included, then exit; -f is not needed (-o json for a JSON array)\n"
    "      --list-unsupported-rules\n"
    "                             list the x-kubernetes-validations rules of the schemas (--crds, else the\n"
    "                             bundled ones) that are outside the supported CEL subset (not evaluated), then\n"
    "                             exit; -f is not needed\n";

/// --list-unsupported-rules: one entry per rule that is not evaluated, then a count. Exit 0, or 2 on an I/O error.
int list_unsupported_rules(const Args& args) {
  auto crds = schema_paths(args);
  if (!crds) {
    std::cerr << "validate: " << crds.error().message << "\n";
    return 2;
  }
  auto loaded = load_schemas_from_files(*crds, {}, crd_cache_dir(args));
  if (!loaded) {
    std::cerr << "validate: " << loaded.error().message << "\n";
    return 2;
  }
  const validation::SchemaSet* schemas = &loaded->schemas;
  const auto all = schemas->cel_rules();
  const auto unsupported = schemas->unsupported_cel_rules();
  for (const auto& r : unsupported)
    std::cout << r.api_version << " " << r.kind << " " << (r.path.empty() ? "(root)" : r.path) << ": " << r.rule
              << "\n    why: " << r.why << "\n";
  std::cout << unsupported.size() << " of " << all.size()
            << " x-kubernetes-validations rule(s) are outside the supported CEL subset and not evaluated\n";
  return 0;
}
/// --list-rules: one line per rule (id, profiles, upstream source) of validation::rule_catalog(), then a section of
/// the CodeFlareWorkload's own checks (workload::workload_rule_catalog(): id, profiles, severity, source); or one JSON
/// array of both, whose workload entries also have "severity" and "object": "CodeFlareWorkload". Exit 0.
int list_rules(const std::string& output) {
  const auto rules = validation::rule_catalog();
  const auto checks = workload::workload_rule_catalog();
  const std::string_view every_profile = validation::profiles_text(validation::kAllProfiles);
  if (output == "json") {
    json::Document arr(rapidjson::kArrayType);
    auto& a = arr.GetAllocator();
    for (const auto& r : rules) {
      json::Value entry(rapidjson::kObjectType);
      entry.AddMember("id", json::str(r.id, a), a);
      entry.AddMember("profiles", json::str(validation::profiles_text(r.profiles), a), a);
      entry.AddMember("source", json::str(r.source, a), a);
      arr.PushBack(entry, a);
    }
    for (const auto& c : checks) {
      json::Value entry(rapidjson::kObjectType);
      entry.AddMember("id", json::str(c.id, a), a);
      entry.AddMember("profiles", json::str(every_profile, a), a);
      entry.AddMember("source", json::str(c.source, a), a);
      entry.AddMember("severity", json::str(c.severity, a), a);
      entry.AddMember("object", "CodeFlareWorkload", a);
      arr.PushBack(entry, a);
    }
    std::cout << json::dump_pretty(arr) << "\n";
    return 0;
  }
  std::size_t width = 0;
  for (const auto& r : rules) width = std::max(width, r.id.size());
  for (const auto& c : checks) width = std::max(width, c.id.size());
  for (const auto& r : rules)
    std::cout << r.id << std::string(width + 2 - r.id.size(), ' ') << validation::profiles_text(r.profiles)
              << std::string(13 - validation::profiles_text(r.profiles).size(), ' ') << r.source << "\n";
  std::cout << "CodeFlareWorkload checks (controller/workload):\n";
  for (const auto& c : checks)
    std::cout << c.id << std::string(width + 2 - c.id.size(), ' ') << every_profile
              << std::string(13 - every_profile.size(), ' ') << c.severity << std::string(15 - c.severity.size(), ' ')
              << c.source << "\n";
  std::cout << rules.size() << " rules and " << checks.size()
            << " CodeFlareWorkload checks; besides them, the CRD schemas' own checks (schema:..., cel:...) apply "
               "under every profile\n";
  return 0;
}
}  // namespace

int validate_command(int argc, char** argv, int first) {
  auto args = Args::parse(argc, argv, first,
                          {{"filename", true},
                           {"recursive", false},
                           {"crds", true},
                           {"cache-dir", true},
                           {"output", true},
                           {"kueue-max-podsets", true},
                           {"pod-security-level", true},
                           {"namespace", true},
                           {"list-unsupported-rules", false},
                           {"list-rules", false},
                           {"set", false},
                           {"profile", true},
                           {"kubernetes-version", true},
                           {"help", false}},
                          {{"f", "filename"}, {"R", "recursive"}, {"o", "output"}, {"n", "namespace"}, {"h", "help"}});
  if (!args) {
    std::cerr << "validate: " << args.error().message << "\n" << usage_hint("validate");
    return 2;
  }
  if (args->flag("help")) {
    std::cout << kValidateHelp;
    return 0;
  }
  // A listing judges nothing: -f given with it would be ignored without a word (the thirty-eighth user trial).
  if ((args->flag("list-rules") || args->flag("list-unsupported-rules")) && args->has("filename")) {
    std::cerr << "validate: --list-rules and --list-unsupported-rules list and exit; they take no -f\n"
              << usage_hint("validate");
    return 2;
  }
  if (args->flag("list-unsupported-rules")) return list_unsupported_rules(*args);
  const std::string output = args->get("output", "text");
  if (output != "text" && output != "json") {
    std::cerr << "validate: --output must be text or json, not \"" << output << "\"\n" << usage_hint("validate");
    return 2;
  }
  if (args->flag("list-rules")) return list_rules(output);
  auto& loaded = kept_until_exit(load_offline_inputs(*args, "validate"));
  if (!loaded) return loaded.error();
  auto& inputs = loaded->docs;
  const auto& schemas = loaded->schemas;
  const auto& profile = loaded->profile;

  // Closed sets (closed_sets.hpp): the documents of a file, a folder, or with --set everything, judged together.
  const auto set_of = closed_sets(inputs, filename_args(*args), args->flag("set"));
  Expansion expansion;
  expansion.facts.profile = profile;
  expansion.facts.default_local_queue_unknown = true;  // no cluster to ask
  const auto& judged = kept_until_exit(
      judge_inputs(inputs, set_of, schemas, loaded->apis, expansion, args->get("namespace", "default"), now_rfc3339()));
  const auto& findings = judged.findings;
  const auto& skipped = judged.skipped;
  const std::size_t judged_count = judged.judged_count, skipped_count = judged.skipped_count;
  // Schemas are compiled on first use: the note counts the rules of the kinds judged.
  if (const auto unsupported = schemas.unsupported_cel_rules(validation::SchemaSet::RulesOf::kUsedKinds);
      !unsupported.empty())
    std::cerr << "validate: note: " << unsupported.size()
              << " x-kubernetes-validations rule(s) of the kinds checked are outside the supported CEL subset and are "
                 "not evaluated (see --list-unsupported-rules)\n";

  json::Document report(rapidjson::kArrayType);
  std::size_t invalid_count = 0, unreadable_count = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& in = inputs[i];
    if (!in.problems.empty())
      ++unreadable_count;
    else if (has_errors(findings[i]))
      ++invalid_count;
    const auto& skip = skipped[i];
    if (output == "json") {
      if (skip) append_skipped_json(report, report.GetAllocator(), in, *skip);
      append_findings_json(report, report.GetAllocator(), in, findings[i]);
    } else {
      if (skip) print_skipped_text(std::cout, in, *skip);
      print_findings_text(std::cout, in, findings[i]);
    }
  }
  const bool invalid = invalid_count > 0 || unreadable_count > 0;
  if (output == "json") {
    std::cout << json::dump_pretty(report) << "\n";
  } else {
    if (invalid)
      std::cout << judged_count << " object(s) checked, " << invalid_count << " invalid";
    else
      std::cout << judged_count << " object(s) valid";
    if (unreadable_count > 0)
      std::cout << ", " << unreadable_count << " input(s) not readable as objects (a YAML error or a malformed List)";
    if (skipped_count > 0) std::cout << ", " << skipped_count << " skipped";
    std::cout << "\n";
  }
  return invalid ? 1 : 0;
}

}  // namespace cfo::cmd
