#!/usr/bin/env bash
# Integration test: the kustomize deployment in config/ builds, is accepted by the apiserver, and grants the operator
# exactly the permissions it uses.
#
# Checks
#   1. config/crd/bases/codeflare.dev_codeflareworkloads.yaml is byte for byte crds/codeflare.dev_codeflareworkloads.yaml
#      (kustomize cannot read files outside config/crd, so the CRD is copied there).
#   2. `kubectl kustomize config/default` succeeds.
#   3. Its output is accepted by the apiserver: the Namespace (codeflare-operator-system) is applied for real, because
#      namespaced objects cannot be dry-run into a namespace that does not exist; every other object goes through
#      `kubectl apply --dry-run=server`. The namespace is left in place (this control plane has no namespace
#      controller, so a deleted namespace would stay Terminating and break the next run).
#   4. config/rbac/role.yaml and the ClusterRole manager-role in the built output have exactly the expected rules:
#      the same (apiGroup, resource) pairs with the same verbs, no wildcards, resourceNames or nonResourceURLs.
# Inputs:  KUBECONFIG (set by the ctest fixture), KUBECTL (optional; its `kustomize` must understand
#          kustomize.config.k8s.io/v1beta1, which every kubectl since 1.14 does).
# Output:  one line per check, then "N passed, N failed"; exit 1 when anything failed.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../harness/lib.sh"

[[ -n "${KUBECONFIG:-}" && -f "$KUBECONFIG" ]] || cfo_die "KUBECONFIG must name the control plane's kubeconfig"
k() { "${KUBECTL:-kubectl}" --kubeconfig "$KUBECONFIG" "$@"; }
py="$(cfo_python)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$CFO_REPO_DIR"

passed=0 failed=0
pass() { echo "ok   $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

# --- 1. the CRD copy under config/crd matches crds/ ---------------------------------------------------------------
src=crds/codeflare.dev_codeflareworkloads.yaml copy=config/crd/bases/codeflare.dev_codeflareworkloads.yaml
if [[ ! -f "$copy" ]]; then
  fail "$copy does not exist"
elif cmp -s "$src" "$copy"; then
  pass "$copy is identical to $src"
else
  fail "$copy differs from $src (copy it over: cp $src $copy)"
fi

# --- 2. kustomize builds config/default ----------------------------------------------------------------------------
built=false
if "${KUBECTL:-kubectl}" kustomize config/default >"$work/default.yaml" 2>"$work/kustomize.err"; then
  built=true
  pass "kubectl kustomize config/default builds $(grep -c '^kind:' "$work/default.yaml") objects"
else
  fail "kubectl kustomize config/default: $(tr '\n' ' ' <"$work/kustomize.err")"
fi

# --- 3. the apiserver accepts the output ---------------------------------------------------------------------------
if [[ $built == true ]]; then
  # Namespaces into one file, everything else into another; print how many of each.
  counts="$("$py" - "$work/default.yaml" "$work/namespaces.yaml" "$work/rest.yaml" <<'PY'
import sys, yaml
src, ns_out, rest_out = sys.argv[1:4]
with open(src, encoding="utf-8") as f:
    docs = [d for d in yaml.safe_load_all(f) if isinstance(d, dict)]
ns = [d for d in docs if d.get("kind") == "Namespace"]
rest = [d for d in docs if d.get("kind") != "Namespace"]
for path, part in ((ns_out, ns), (rest_out, rest)):
    with open(path, "w", encoding="utf-8") as f:
        yaml.safe_dump_all(part, f, sort_keys=False)
print(len(ns), len(rest))
PY
)"
  read -r n_ns n_rest <<<"$counts"
  if ((n_ns > 0)) && ! k apply -f "$work/namespaces.yaml" >"$work/ns.out" 2>&1; then
    fail "config/default: applying its Namespace failed: $(tr '\n' ' ' <"$work/ns.out")"
  elif k apply --dry-run=server -f "$work/rest.yaml" >"$work/apply.out" 2>&1; then
    pass "config/default: $n_ns namespace(s) applied, $n_rest object(s) accepted by apply --dry-run=server"
  else
    # Only the lines that are not "... created/configured (server dry run)".
    fail "config/default rejected by apply --dry-run=server: $(grep -v '(server dry run)$' "$work/apply.out" | tr '\n' ' ')"
  fi
else
  echo "skip apply --dry-run=server: config/default did not build"
fi

# --- 4. the operator's ClusterRole grants exactly what it uses ------------------------------------------------------
# Expected verbs per (apiGroup, resource); keep in line with config/rbac/role.yaml and the Helm chart's clusterrole.
check_rules() {
  local label="$1" file="$2" name="$3" out
  if out="$("$py" - "$file" "$name" 2>"$work/rules.err" <<'PY'
import sys, yaml
path, name = sys.argv[1:3]
expected = {
    ("apiextensions.k8s.io", "customresourcedefinitions"): {"get"},
    ("codeflare.dev", "codeflareworkloads"): {"get", "list", "watch", "patch"},
    ("codeflare.dev", "codeflareworkloads/status"): {"get", "patch", "update"},
    ("codeflare.dev", "codeflareworkloads/finalizers"): {"update"},
    ("events.k8s.io", "events"): {"create", "patch"},
    ("kueue.x-k8s.io", "localqueues"): {"get", "list", "watch", "create", "patch", "delete"},
    ("kueue.x-k8s.io", "workloadpriorityclasses"): {"get"},
    ("kueue.x-k8s.io", "workloads"): {"list"},
    ("ray.io", "rayclusters"): {"get", "list", "watch", "create", "patch", "update", "delete"},
    ("ray.io", "rayjobs"): {"get", "list", "watch", "create", "patch", "update", "delete"},
    ("workload.codeflare.dev", "appwrappers"): {"get", "list", "watch", "create", "patch", "update", "delete"},
}
with open(path, encoding="utf-8") as f:
    roles = [d for d in yaml.safe_load_all(f)
             if isinstance(d, dict) and d.get("kind") == "ClusterRole" and (d.get("metadata") or {}).get("name") == name]
if len(roles) != 1:
    sys.exit(f"{len(roles)} ClusterRoles named {name}")
problems, got = [], {}
for i, rule in enumerate(roles[0].get("rules") or []):
    for key in ("resourceNames", "nonResourceURLs"):
        if rule.get(key):
            problems.append(f"rule {i} has {key}")
    for group in rule.get("apiGroups") or []:
        for resource in rule.get("resources") or []:
            got.setdefault((group, resource), set()).update(rule.get("verbs") or [])
for key in sorted(set(expected) | set(got)):
    g, r = key
    what = f"{r}.{g}" if g else r
    if key not in got:
        problems.append(f"{what} missing")
    elif key not in expected:
        problems.append(f"{what} not expected ({','.join(sorted(got[key]))})")
    elif got[key] != expected[key]:
        extra, lacking = sorted(got[key] - expected[key]), sorted(expected[key] - got[key])
        problems.append(f"{what}: extra verbs {extra}, missing verbs {lacking}")
if problems:
    sys.exit("; ".join(problems))
print(len(got))
PY
  )"; then
    pass "$label: ClusterRole $name grants exactly the expected verbs on $out resources"
  else
    fail "$label: ClusterRole $name: $(tr '\n' ' ' <"$work/rules.err")"
  fi
}
check_rules config/rbac/role.yaml config/rbac/role.yaml manager-role
if [[ $built == true ]]; then
  check_rules "config/default output" "$work/default.yaml" codeflare-operator-manager-role
fi

echo "$passed passed, $failed failed"
((failed == 0))
