#pragma once
// The subcommands of codeflare-operator. Each takes the raw argv and the index of its first flag, and returns the
// process exit code.
namespace cfo::cmd {

/// `render -f FILE... --crds DIR... [--namespace NS] [--default-local-queue NAME] [--kueue-max-podsets N]
/// [--profile vanilla|odh]`:
/// expands CodeFlareWorkloads offline and prints the generated objects as YAML documents. Exit 0 when every
/// workload is valid, 1 when one is invalid (findings on stderr, nothing printed for it), 2 on usage or I/O errors.
int render_command(int argc, char** argv, int first);

/// `validate -f FILE... --crds DIR... [-o text|json] [--set] [--kueue-max-podsets N] [--profile vanilla|odh]
/// [--pod-security-level privileged|baseline|restricted]`:
/// checks every object (RayCluster, RayJob, AppWrapper, Kueue kinds, and CodeFlareWorkloads with their expansion),
/// the objects of each closed set together (closed_sets.hpp). `--list-rules` prints the rule catalog. Exit 0 valid,
/// 1 invalid, 2 usage or I/O error. Warnings never change the exit code.
int validate_command(int argc, char** argv, int first);

/// `run [--kubeconfig F] [--namespace NS]...`: the controller. Exit 0 after a clean shutdown (SIGTERM/SIGINT).
int run_command(int argc, char** argv, int first);

}  // namespace cfo::cmd
