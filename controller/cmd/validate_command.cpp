#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cmd/args.hpp"
#include "cmd/commands.hpp"
#include "cmd/crd_schemas.hpp"
#include "cmd/findings_output.hpp"
#include "cmd/judge_inputs.hpp"
#include "cmd/offline_inputs.hpp"
#include "core/condition.hpp"
#include "validation/validator.hpp"

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
    "error finding (rule yaml:syntax); the other files are still checked.\n"
    "\n"
    "Flags:\n"
    "  -f, --filename FILE        a manifest file (multi-document), a folder of them, or - for stdin (repeatable)\n"
    "  -R, --recursive            read the folders given with -f and their sub-folders\n"
    "      --crds DIR             folder (or file) of the upstream CRDs to check against (repeatable); default: the\n"
    "                             pinned KubeRay, AppWrapper and Kueue schemas that ship with the binary\n"
    "  -o, --output text|json     output format (default text); json is an array with one entry per finding and\n"
    "                             per skipped object (\"skipped\": true, severity \"info\")\n"
    "  -n, --namespace NS         namespace for CodeFlareWorkloads that do not name one (default \"default\")\n"
    "      --kueue-max-podsets N  Kueue's MaxPodSets: 8 (<= v0.17), 10 (v0.18), 18 (>= v0.19); default 8\n"
    "      --pod-security-level privileged|baseline|restricted\n"
    "                             the Pod Security Standards level the target namespace enforces (its label\n"
    "                             pod-security.kubernetes.io/enforce): the Pods the objects lead to are judged at\n"
    "                             that level; default privileged (no check)\n"
    "      --list-unsupported-rules\n"
    "                             list the x-kubernetes-validations rules of the --crds that are outside the\n"
    "                             supported CEL subset (not evaluated), then exit; -f is not needed\n";

/// --list-unsupported-rules: one entry per rule that is not evaluated, then a count. Exit 0, or 2 on an I/O error.
int list_unsupported_rules(const Args& args) {
  if (!args.has("crds")) {
    std::cerr << "validate: --list-unsupported-rules needs --crds\n\n" << kValidateHelp;
    return 2;
  }
  auto schemas = load_schemas_from_files(args.all("crds"));
  if (!schemas) {
    std::cerr << "validate: " << schemas.error().message << "\n";
    return 2;
  }
  const auto all = schemas->cel_rules();
  const auto unsupported = schemas->unsupported_cel_rules();
  for (const auto& r : unsupported)
    std::cout << r.api_version << " " << r.kind << " " << (r.path.empty() ? "(root)" : r.path) << ": " << r.rule
              << "\n    why: " << r.why << "\n";
  std::cout << unsupported.size() << " of " << all.size()
            << " x-kubernetes-validations rule(s) are outside the supported CEL subset and not evaluated\n";
  return 0;
}
}  // namespace

int validate_command(int argc, char** argv, int first) {
  auto args = Args::parse(argc, argv, first,
                          {{"filename", true},
                           {"recursive", false},
                           {"crds", true},
                           {"output", true},
                           {"kueue-max-podsets", true},
                           {"pod-security-level", true},
                           {"namespace", true},
                           {"list-unsupported-rules", false},
                           {"help", false}},
                          {{"f", "filename"}, {"R", "recursive"}, {"o", "output"}, {"n", "namespace"}, {"h", "help"}});
  if (!args) {
    std::cerr << "validate: " << args.error().message << "\n\n" << kValidateHelp;
    return 2;
  }
  if (args->flag("help")) {
    std::cout << kValidateHelp;
    return 0;
  }
  if (args->flag("list-unsupported-rules")) return list_unsupported_rules(*args);
  const std::string output = args->get("output", "text");
  if (output != "text" && output != "json") {
    std::cerr << "validate: --output must be text or json\n";
    return 2;
  }
  auto loaded = load_offline_inputs(*args, "validate", kValidateHelp);
  if (!loaded) return loaded.error();
  auto& inputs = loaded->docs;
  const auto& schemas = loaded->schemas;
  const auto& profile = loaded->profile;
  if (const auto unsupported = schemas.unsupported_cel_rules(); !unsupported.empty())
    std::cerr << "validate: note: " << unsupported.size()
              << " x-kubernetes-validations rule(s) of the CRDs are outside the supported CEL subset and are not "
                 "evaluated (see --list-unsupported-rules)\n";

  auto judged = judge_inputs(inputs, schemas, profile, args->get("namespace", "default"), now_rfc3339());
  const auto& findings = judged.findings;
  const auto& skipped = judged.skipped;
  const std::size_t judged_count = judged.judged_count, skipped_count = judged.skipped_count;

  json::Document report(rapidjson::kArrayType);
  std::size_t invalid_count = 0, unreadable_count = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& in = inputs[i];
    if (!in.problems.empty())
      ++unreadable_count;
    else if (has_errors(findings[i]))
      ++invalid_count;
    if (output == "json") {
      if (skipped[i]) append_skipped_json(report, report.GetAllocator(), in, *skipped[i]);
      append_findings_json(report, report.GetAllocator(), in, findings[i]);
    } else {
      if (skipped[i]) print_skipped_text(std::cout, in, *skipped[i]);
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
