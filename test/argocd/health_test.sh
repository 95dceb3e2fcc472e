#!/usr/bin/env bash
# Test of the Argo CD health check (deploy/argocd/health.lua): runs it with Lua 5.1 (Debian's lua5.1, the language
# level of Argo CD's gopher-lua) against the cases in test/argocd/health_test.yaml, checks every CRD phase has a case,
# and that deploy/argocd/argocd-cm-health.yaml embeds exactly the same script. No apiserver needed.
# Inputs:  LUA (default lua5.1 on PATH; test/harness/install-deps.sh installs it), python3 with yaml.
# Output:  one line per check, then "N passed, N failed"; exit 1 when anything failed.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../harness/lib.sh"

lua="${LUA:-$(command -v lua5.1 || true)}"
[[ -n "$lua" && -x "$lua" ]] || cfo_die "lua5.1 not found (install lua5.1: test/harness/install-deps.sh)"
"$lua" -v 2>&1 | grep -q '^Lua 5\.1' || cfo_die "$lua is not Lua 5.1: $("$lua" -v 2>&1)"
exec "$(cfo_python)" "$CFO_HARNESS_DIR/../argocd/run_health_tests.py" "$CFO_REPO_DIR" "$lua"
