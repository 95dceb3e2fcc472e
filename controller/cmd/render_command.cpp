#include <iostream>

#include "cmd/args.hpp"
#include "cmd/commands.hpp"
#include "cmd/findings_output.hpp"
#include "cmd/offline_inputs.hpp"
#include "core/condition.hpp"
#include "core/yaml.hpp"
#include "workload/reconcile.hpp"

namespace cfo::cmd {

namespace {
constexpr const char* kRenderHelp =
    "Print the objects that CodeFlareWorkloads expand to, as YAML, without a cluster.\n"
    "\n"
    "Flags:\n"
    "  -f, --filename FILE          a manifest file, a folder of them, or - for stdin (repeatable)\n"
    "      --crds DIR               folder (or file) of the upstream CRDs to check against (repeatable)\n"
    "  -n, --namespace NS           namespace for workloads that do not name one (default \"default\")\n"
    "      --default-local-queue Q  act as if the namespace's default LocalQueue were Q\n"
    "      --kueue-max-podsets N    Kueue's MaxPodSets: 8 (<= v0.17), 10 (v0.18), 18 (>= v0.19); default 8\n";
}

int render_command(int argc, char** argv, int first) {
  auto args = Args::parse(argc, argv, first,
                          {{"filename", true},
                           {"crds", true},
                           {"namespace", true},
                           {"default-local-queue", true},
                           {"kueue-max-podsets", true},
                           {"help", false}},
                          {{"f", "filename"}, {"n", "namespace"}, {"h", "help"}});
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
  const std::string ns = args->get("namespace", "default");

  int exit_code = 0;
  bool first_doc = true;
  for (auto& in : loaded->docs) {
    if (!is_workload(in.doc)) {
      std::cerr << in.file << ": document " << in.index << " (" << describe_object(in)
                << ") is not a codeflare.dev/v1alpha1 CodeFlareWorkload; skipped\n";
      continue;
    }
    ensure_namespace(in.doc, ns);
    auto outcome = workload::reconcile(in.doc, workload::Observed{}, facts, loaded->schemas, now_rfc3339());
    if (!outcome.valid) {
      print_findings_text(std::cerr, in, outcome.errors);
      exit_code = 1;
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
