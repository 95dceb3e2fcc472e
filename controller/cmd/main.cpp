// codeflare-operator: one binary, three subcommands (render, validate, run).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "cmd/commands.hpp"
#include "cmd/heap_choice.hpp"
#include "core/offline_heap.hpp"

namespace {
constexpr const char* kUsage =
    "codeflare-operator: expands CodeFlareWorkloads into checked RayCluster, RayJob, AppWrapper and Kueue objects.\n"
    "\n"
    "Usage:\n"
    "  codeflare-operator render   -f FILE [-f FILE...] [--crds DIR] print the generated objects (YAML, -o json)\n"
    "  codeflare-operator validate -f FILE [-f FILE...] [--crds DIR] check objects; exit 0 valid, 1 invalid, 2 error\n"
    "  codeflare-operator run [--kubeconfig FILE] [--namespace NS]   run the controller\n"
    "  codeflare-operator version\n"
    "\n"
    "Run 'codeflare-operator <command> --help' (or 'codeflare-operator help <command>') for the flags of a command.\n";

// The exit status of a command whose output may not have reached its reader: what the command returned, unless
// stdout could not be written (closed: `>&-`, a full disk, /dev/full), which is an I/O error (exit 2) with a message,
// not a success with the output cut short.
int with_output_written(const char* command, int status) {
  errno = 0;
  std::cout.flush();
  if (std::cout && std::fflush(stdout) == 0 && !std::ferror(stdout)) return status;
  // The failed write may lie further back (a long output fills the buffer many times), its errno long overwritten.
  const int write_errno = errno;
  std::cerr << command << ": cannot write the output to stdout: "
            << (write_errno ? std::string(std::strerror(write_errno))
                            : std::string("a write failed (stdout closed, a full disk or a reader that went)"))
            << "\n";
  return 2;
}

// `help COMMAND` is `COMMAND --help` (kubectl's and git's habit).
int help_of(char* command, char* argv0) {
  char help_flag[] = "--help";
  char* args[] = {argv0, command, help_flag, nullptr};
  const std::string sub = command;
  if (sub == "render") return with_output_written("render", cfo::cmd::render_command(3, args, 2));
  if (sub == "validate") return with_output_written("validate", cfo::cmd::validate_command(3, args, 2));
  if (sub == "run") return cfo::cmd::run_command(3, args, 2);
  if (sub == "version") {
    std::cout << "codeflare-operator version: print the version and exit (no flags)\n";
    return 0;
  }
  std::cerr << "error: unknown command \"" << sub << "\" (render, validate, run, version)\n"
            << "See 'codeflare-operator --help' for usage.\n";
  return 2;
}
// The offline commands set their heap up (core/offline_heap.hpp) from here, the first entry of the executable's
// init_array (glibc passes it argc, argv and the environment): before the static constructors of the binary's own code
// (OpenSSL's and Asio's set-up, the rule tables) allocate, so that their blocks land in the huge pages too.
__attribute__((constructor(101))) void offline_heap_first(int argc, char** argv, char** /*envp*/) {
  if (cfo::cmd::wants_offline_heap(argc, argv)) cfo::heap::use_offline_heap();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && !std::strcmp(argv[1], "help")) return help_of(argv[2], argv[0]);
  if (argc < 2 || !std::strcmp(argv[1], "help") || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  std::string sub = argv[1];
  if (sub == "render") return with_output_written("render", cfo::cmd::render_command(argc, argv, 2));
  if (sub == "validate") return with_output_written("validate", cfo::cmd::validate_command(argc, argv, 2));
  if (sub == "run") return cfo::cmd::run_command(argc, argv, 2);
  if (sub == "version" || sub == "--version") {
    if (argc > 2) {
      std::cerr << "version: takes no arguments, got \"" << argv[2] << "\"\n";
      return 2;
    }
    std::cout << "codeflare-operator 0.1.0\n";
    return with_output_written("version", 0);
  }
  // A usage error names the mistake and where help is, not the whole help (kubectl's habit).
  std::cerr << "error: unknown command \"" << sub << "\" (render, validate, run, version)\n"
            << "See 'codeflare-operator --help' for usage.\n";
  return 2;
}
