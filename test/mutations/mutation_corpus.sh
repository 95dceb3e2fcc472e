#!/usr/bin/env bash
# ctest entry of the mutation corpus test of `codeflare-operator validate` (test/mutations/run_corpus.py).
#
# Usage: mutation_corpus.sh [--server] [run_corpus.py options...]
#   without --server: no apiserver is needed (ctest test mutation_corpus, label "unit");
#   with --server:    the objects are also dry-run on the apiserver of KUBECONFIG and the verdicts compared
#                     (ctest test mutation_corpus_server, label "integration", the control_plane fixture).
# Inputs:  CFO_OPERATOR_BIN, UPSTREAM_CRDS (folder laid out like shared/crds), CFO_SHARED_DIR (the shared samples),
#          KUBECONFIG with --server. Skips (exit 0, "skip: ...") when UPSTREAM_CRDS or CFO_SHARED_DIR is unset.
# Output:  a summary (mutations per family and rule, agreements with the apiserver), the failures; exit 1 on any.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../harness/lib.sh"

exec "$(cfo_python)" "$(dirname "$0")/run_corpus.py" "$@"
