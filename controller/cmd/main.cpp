// codeflare-operator: one binary, three subcommands (render, validate, run).
#include <cstring>
#include <iostream>

#include "cmd/commands.hpp"
#include "cmd/malloc_tunables.hpp"

namespace {
constexpr const char* kUsage =
    "codeflare-operator: expands CodeFlareWorkloads into checked RayCluster, AppWrapper and Kueue objects.\n"
    "\n"
    "Usage:\n"
    "  codeflare-operator render   -f FILE [-f FILE...] [--crds DIR] print the generated objects as YAML\n"
    "  codeflare-operator validate -f FILE [-f FILE...] [--crds DIR] check objects; exit 0 valid, 1 invalid\n"
    "  codeflare-operator run [--kubeconfig FILE] [--namespace NS]   run the controller\n"
    "  codeflare-operator version\n"
    "\n"
    "Run 'codeflare-operator <command> --help' for the flags of a command.\n";
}

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "help") || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  std::string sub = argv[1];
  if (sub == "render" || sub == "validate") cfo::cmd::reexec_with_offline_malloc_tunables(argv);
  if (sub == "render") return cfo::cmd::render_command(argc, argv, 2);
  if (sub == "validate") return cfo::cmd::validate_command(argc, argv, 2);
  if (sub == "run") return cfo::cmd::run_command(argc, argv, 2);
  if (sub == "version" || sub == "--version") {
    std::cout << "codeflare-operator 0.1.0\n";
    return 0;
  }
  // A usage error names the mistake and where help is, not the whole help (kubectl's habit).
  std::cerr << "error: unknown command \"" << sub << "\" (render, validate, run, version)\n"
            << "See 'codeflare-operator --help' for usage.\n";
  return 2;
}
