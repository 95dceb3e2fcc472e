#!/usr/bin/env bash
# Integration test: the Helm chart (deploy/helm/codeflare-operator, Helm 3, chart apiVersion v2) rendered for real,
# compared with config/default, checked against its values, and accepted by the apiserver.
#
# The helm binary is not available here, so test/helm/build-render.sh builds helm-render (test/helm/render/main.go):
# Go's text/template with the sprig functions and Helm's own (include, tpl, required, toYaml, ...), built offline
# from Debian's Go packages.
#
# Checks
#   1. helm-render builds; the chart renders with default values (release codeflare-operator in
#      codeflare-operator-system, --strict: no template reads a value that values.yaml lacks), NOTES.txt included.
#   2. The chart's CRD template is in step with crds/ (deploy/helm/sync-crd.sh --check).
#   3. The default render against `kubectl kustomize config/default` (test/helm/compare.py kustomize): the same
#      objects under mapped names, the same RBAC rules as (apiGroup, resource, verb) sets, the same bindings, the same
#      Deployment (security contexts, ports, liveness/readiness probes, resources, scheduling, grace period; args by
#      meaning, with `run --help` defaults, so both pass --leader-elect and the metrics/probe addresses), the same
#      metrics Service (ports; selects its Deployment's pods, targets a declared container port), the same CRD spec. Name mapping (F = the chart's fullname; with release "codeflare-operator" F is
#      "codeflare-operator", otherwise "<release>-codeflare-operator", or fullnameOverride):
#        kustomize (namePrefix codeflare-operator-)            chart
#        ServiceAccount  ...-controller-manager                F
#        Deployment      ...-controller-manager                F
#        ClusterRole     ...-manager-role                      F-manager
#        ClusterRoleBinding ...-manager-rolebinding            F-manager
#        Role            ...-leader-election-role              F-leader-election
#        RoleBinding     ...-leader-election-rolebinding       F-leader-election
#        ClusterRole     ...-codeflareworkload-viewer-role     F-codeflareworkload-viewer
#        ClusterRole     ...-codeflareworkload-editor-role     F-codeflareworkload-editor
#        Service         ...-controller-manager-metrics-service F-metrics
#        CustomResourceDefinition codeflareworkloads.codeflare.dev (same)
#        Namespace codeflare-operator-system                   none (helm install -n NS --create-namespace)
#      Intended differences are printed as "note" lines (labels, image tag, CRD metadata, the Namespace).
#   4. Non-default values take effect (test/helm/values-custom.yaml: fullnameOverride, image, two watch namespaces, a
#      label selector, log level, JSON logs, concurrency, extraArgs, resources, shutdown timeout and grace period,
#      pod metadata, scheduling, ServiceAccount annotations, crds.keep=false, 2 replicas with leader election and every
#      Lease setting, other metrics and probe ports, probe timings, metrics Service annotations, a ServiceMonitor with
#      interval and labels whose selector and port reach the metrics Service), and a second file laid over it
#      (values-override.yaml: nameOverride, no RBAC, an existing ServiceAccount, no CRD, one replica without leader
#      election, metrics off: no port, no Service, --metrics-bind-address=0) wins key by key. Every flag the chart
#      passes is one `codeflare-operator run --help` documents. NOTES.txt names the watched namespaces, the Lease and
#      the metrics Service. One shard of a sharded install (values-shard.yaml: two watch namespaces, a label selector
#      of every form the chart translates, its own Lease, no CRD, the guards) follows its values, its
#      CodeFlareWorkload webhook selecting those namespaces and labels.
#   5. The chart's guards refuse what the operator cannot run with: replicaCount 2 with leaderElection.enabled=false,
#      a logFormat other than text/json, a ServiceMonitor without metrics, a malformed duration, a
#      terminationGracePeriodSeconds not above gracefulShutdownTimeout, and a Kubernetes older than Chart.yaml's
#      kubeVersion; replicaCount 2 (leader election on by default) and replicaCount 0 are allowed.
#   6. Every rendered object (default, custom, custom+override, shard values) is accepted by `kubectl apply
#      --dry-run=server`, except the custom render's ServiceMonitor: its CRD (monitoring.coreos.com) is not installed
#      on the test apiserver, so it is left out there (a "note" line says so; compare.py checked it in 4). The
#      release namespaces are created for real first and left in place (no namespace controller here).
# Inputs:  KUBECONFIG (ctest fixture); CFO_OPERATOR_BIN (the codeflare-operator binary, for `run --help`);
#          CFO_HELM_RENDER_DIR (where helm-render is built and cached; default a temporary folder); KUBECTL.
# Output:  one line per check, then "N passed, N failed"; exit 1 when anything failed.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../harness/lib.sh"

[[ -n "${KUBECONFIG:-}" && -f "$KUBECONFIG" ]] || cfo_die "KUBECONFIG must name the control plane's kubeconfig"
[[ -x "${CFO_OPERATOR_BIN:-}" ]] || cfo_die "CFO_OPERATOR_BIN must name the codeflare-operator binary"
k() { "${KUBECTL:-kubectl}" --kubeconfig "$KUBECONFIG" "$@"; }
py="$(cfo_python)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$CFO_REPO_DIR"
chart=deploy/helm/codeflare-operator
compare=test/helm/compare.py

cfo_tally_begin
# Runs a checker that prints "ok ...", "FAIL ..." and "note ..." lines, and counts them.
checks() {
  local label="$1" line status=0
  shift
  "$@" >"$work/checks.out" 2>"$work/checks.err" || status=$?
  while IFS= read -r line; do
    case "$line" in
      "ok "*) pass "$label: ${line#ok }" ;;
      "FAIL "*) fail "$label: ${line#FAIL }" ;;
      "note "*) echo "note $label: ${line#note }" ;;
      *) echo "     $line" ;;
    esac
  done <"$work/checks.out"
  ((status == 0)) || fail "$label: checker exited $status: $(tr '\n' ' ' <"$work/checks.err")"
}

"$CFO_OPERATOR_BIN" run --help >"$work/run-help.txt" 2>&1 || true
grep -q -- '--namespace' "$work/run-help.txt" || cfo_die "codeflare-operator run --help printed no flags"

# --- 1. build the renderer, render the defaults -------------------------------------------------------------------
if ! renderer="$(test/helm/build-render.sh "${CFO_HELM_RENDER_DIR:-$work/helm-render}" 2>"$work/build.err")"; then
  fail "build helm-render: $(tr '\n' ' ' <"$work/build.err")"
  echo "$passed passed, $failed failed"
  exit 1
fi
pass "helm-render built ($renderer)"
render() { "$renderer" "$@" "$chart"; }

default_ok=false
if render --strict --release codeflare-operator --namespace codeflare-operator-system --notes "$work/default.notes" \
  >"$work/default.yaml" 2>"$work/default.err"; then
  default_ok=true
  pass "default values render: $(grep -c '^kind:' "$work/default.yaml") objects ($(grep '^kind:' "$work/default.yaml" |
    sort | uniq -c | awk '{printf "%s%s %s", sep, $1, $3; sep=", "}'))"
else
  fail "default values do not render: $(tr '\n' ' ' <"$work/default.err")"
fi

# --- 2. the CRD template follows crds/ ----------------------------------------------------------------------------
if deploy/helm/sync-crd.sh --check 2>"$work/sync.err"; then
  pass "templates/crds/codeflareworkloads.yaml is in step with crds/codeflare.dev_codeflareworkloads.yaml"
else
  fail "$(head -n 1 "$work/sync.err")"
fi

# --- 3. the same objects as config/default --------------------------------------------------------------------------
if ! "${KUBECTL:-kubectl}" kustomize config/default >"$work/kustomize.yaml" 2>"$work/kustomize.err"; then
  fail "kubectl kustomize config/default: $(tr '\n' ' ' <"$work/kustomize.err")"
elif [[ $default_ok == true ]]; then
  checks "helm vs kustomize" "$py" "$compare" kustomize "$work/kustomize.yaml" "$work/default.yaml" \
    --fullname codeflare-operator --run-help "$work/run-help.txt"
fi

# --- 4. non-default values ----------------------------------------------------------------------------------------
custom_ok=false
if render --strict --release ml-platform --namespace cfo-custom -f test/helm/values-custom.yaml \
  --notes "$work/custom.notes" >"$work/custom.yaml" 2>"$work/custom.err"; then
  custom_ok=true
  checks "values-custom" "$py" "$compare" values "$work/custom.yaml" --chart "$chart" \
    -f test/helm/values-custom.yaml --release ml-platform --namespace cfo-custom
  checks "values-custom" "$py" "$compare" flags "$work/custom.yaml" --run-help "$work/run-help.txt"
  if grep -q 'the namespaces team-a, team-b\.' "$work/custom.notes"; then
    pass "values-custom: NOTES.txt names the watched namespaces"
  else
    fail "values-custom: NOTES.txt does not name team-a, team-b: $(tr '\n' ' ' <"$work/custom.notes")"
  fi
  if grep -q 'get lease cfo-custom.codeflare.dev' "$work/custom.notes" &&
    grep -q 'behind the Service cfo-custom-op-metrics, scraped through a ServiceMonitor' "$work/custom.notes"; then
    pass "values-custom: NOTES.txt names the Lease, the metrics Service and the ServiceMonitor"
  else
    fail "values-custom: NOTES.txt lacks the Lease or metrics lines: $(tr '\n' ' ' <"$work/custom.notes")"
  fi
else
  fail "values-custom.yaml does not render: $(tr '\n' ' ' <"$work/custom.err")"
fi
override_ok=false
if render --strict --release ml-platform --namespace cfo-custom -f test/helm/values-custom.yaml \
  -f test/helm/values-override.yaml --notes "$work/override.notes" >"$work/override.yaml" 2>"$work/override.err"; then
  override_ok=true
  checks "values-custom+override" "$py" "$compare" values "$work/override.yaml" --chart "$chart" \
    -f test/helm/values-custom.yaml -f test/helm/values-override.yaml --release ml-platform --namespace cfo-custom
  checks "values-custom+override" "$py" "$compare" flags "$work/override.yaml" --run-help "$work/run-help.txt"
  if grep -qE 'Leader election|Prometheus metrics' "$work/override.notes"; then
    fail "values-custom+override: NOTES.txt mentions leader election or metrics, both off"
  else
    pass "values-custom+override: NOTES.txt says nothing of leader election or metrics (both off)"
  fi
else
  fail "values-custom.yaml + values-override.yaml do not render: $(tr '\n' ' ' <"$work/override.err")"
fi

shard_ok=false
if render --strict --release shard-a --namespace cfo-shard-a -f test/helm/values-shard.yaml >"$work/shard.yaml" \
  2>"$work/shard.err"; then
  shard_ok=true
  checks "values-shard" "$py" "$compare" values "$work/shard.yaml" --chart "$chart" -f test/helm/values-shard.yaml \
    --release shard-a --namespace cfo-shard-a
  checks "values-shard" "$py" "$compare" flags "$work/shard.yaml" --run-help "$work/run-help.txt"
else
  fail "values-shard.yaml does not render: $(tr '\n' ' ' <"$work/shard.err")"
fi

# --- 5. guards ----------------------------------------------------------------------------------------------------
# refuse <label> <expected message part> <values yaml> [renderer flags...]
refuse() {
  local label="$1" want="$2" values="$3"
  shift 3
  printf '%s\n' "$values" >"$work/guard.yaml"
  if render "$@" -f "$work/guard.yaml" >"$work/guard.out" 2>"$work/guard.err"; then
    fail "guard $label: rendered ($(grep -c '^kind:' "$work/guard.out") objects) instead of failing"
  elif grep -qF -- "$want" "$work/guard.err"; then
    pass "guard $label: refused ($(head -c 200 "$work/guard.err"))"
  else
    fail "guard $label: failed without \"$want\": $(tr '\n' ' ' <"$work/guard.err")"
  fi
}
refuse "replicaCount 2 without leader election" "replicaCount 2 needs leaderElection.enabled=true" \
  $'replicaCount: 2\nleaderElection:\n  enabled: false'
refuse "logFormat: yaml" 'logFormat must be text or json, not "yaml"' "logFormat: yaml"
refuse "ServiceMonitor without metrics" "metrics.serviceMonitor.enabled needs metrics.enabled" \
  $'metrics:\n  enabled: false\n  serviceMonitor:\n    enabled: true'
refuse "ServiceMonitor without the metrics Service" "metrics.serviceMonitor.enabled needs metrics.enabled" \
  $'metrics:\n  service:\n    enabled: false\n  serviceMonitor:\n    enabled: true'
refuse "leaseDuration: 15" 'leaderElection.leaseDuration: "15" is not a duration' \
  $'leaderElection:\n  leaseDuration: 15'
refuse "grace period 30 with a 30s shutdown timeout" "terminationGracePeriodSeconds (30) must be above" \
  "terminationGracePeriodSeconds: 30"
refuse "grace period 40 with a 1m shutdown timeout" "terminationGracePeriodSeconds (40) must be above" \
  "gracefulShutdownTimeout: 1m"
refuse "Kubernetes 1.19" "incompatible with Kubernetes" "{}" --kube-version v1.19.16
# allowed <label> <values yaml> <line the render must contain>
allowed() {
  printf '%s\n' "$2" >"$work/allowed.yaml"
  if render -f "$work/allowed.yaml" >"$work/allowed.out" 2>"$work/allowed.err" &&
    grep -qxF -- "$3" "$work/allowed.out"; then
    pass "guard $1: allowed (renders \"${3#"${3%%[! ]*}"}\")"
  else
    fail "guard $1: should render \"$3\": $(tr '\n' ' ' <"$work/allowed.err")"
  fi
}
allowed "replicaCount: 2 (leader election on by default)" "replicaCount: 2" "  replicas: 2"
allowed "replicaCount: 0" "replicaCount: 0" "  replicas: 0"
allowed "gracefulShutdownTimeout: 500ms" "gracefulShutdownTimeout: 500ms" \
  "            - --graceful-shutdown-timeout=500ms"

# --- 6. the apiserver accepts every rendered object ---------------------------------------------------------------
dry_run() {
  local label="$1" file="$2" ns="$3"
  # The release namespace for real (idempotent; never deleted: no namespace controller runs here).
  if ! k create namespace "$ns" --dry-run=client -o yaml | k apply -f - >"$work/ns.out" 2>&1; then
    fail "$label: creating namespace $ns: $(tr '\n' ' ' <"$work/ns.out")"
    return
  fi
  if k apply --dry-run=server -f "$file" >"$work/apply.out" 2>&1; then
    pass "$label: $(grep -c '(server dry run)$' "$work/apply.out") object(s) accepted by apply --dry-run=server in $ns"
  else
    fail "$label rejected by apply --dry-run=server: $(grep -v '(server dry run)$' "$work/apply.out" | tr '\n' ' ')"
  fi
}
[[ $default_ok == true ]] && dry_run "default values" "$work/default.yaml" codeflare-operator-system
if [[ $custom_ok == true ]]; then
  # The ServiceMonitor's CRD is not installed here: dry-run everything else, and say what was left out.
  n_sm="$("$py" - "$work/custom.yaml" "$work/custom-no-sm.yaml" <<'PY'
import sys, yaml
with open(sys.argv[1], encoding="utf-8") as f:
    docs = [d for d in yaml.safe_load_all(f) if isinstance(d, dict)]
keep = [d for d in docs if d.get("kind") != "ServiceMonitor"]
with open(sys.argv[2], "w", encoding="utf-8") as f:
    yaml.safe_dump_all(keep, f, sort_keys=False)
print(len(docs) - len(keep))
PY
)"
  echo "note values-custom: $n_sm ServiceMonitor left out of apply --dry-run=server: its CRD" \
    "(servicemonitors.monitoring.coreos.com) is not installed on the test apiserver; compare.py checked it above"
  dry_run "values-custom" "$work/custom-no-sm.yaml" cfo-custom
fi
[[ $override_ok == true ]] && dry_run "values-custom+override" "$work/override.yaml" cfo-custom
# The shard's webhook selectors, as the chart derives them from watchNamespaces and labelSelector.
[[ $shard_ok == true ]] && dry_run "values-shard" "$work/shard.yaml" cfo-shard-a

echo "$passed passed, $failed failed"
((failed == 0))
