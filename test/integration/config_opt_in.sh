#!/usr/bin/env bash
# Integration test: the opt-in kustomizations of config/ (prometheus-rules, grafana, network-policy, pdb, and the
# webhook's webhook-guards and certmanager) build on their own and inside config/default, reach the objects of
# config/default, and are accepted by the apiserver where their kinds are served; with their lines left commented,
# config/default holds none of them.
#
# Checks
#   1. config/default as checked in: no PodDisruptionBudget, NetworkPolicy, PrometheusRule or dashboard ConfigMap.
#   2. Each of the four builds on its own (`kubectl kustomize config/<name>`).
#   3. In a copy of config/, the lines "#- ../prometheus-rules", "#- ../grafana", "#- ../network-policy",
#      "#- ../pdb" and the "#replicas:" block of config/default/kustomization.yaml are uncommented; the build then
#      has one of each, and opt_in_objects.py checks them against its Deployment and metrics Service: the
#      PodDisruptionBudget (policy/v1) and the NetworkPolicy select the manager's pods, the budget lets a drain of
#      the 2 replicas go on, the policy opens exactly the metrics and health ports in and the API and DNS out, the
#      ConfigMap holds deploy/monitoring's dashboard, the PrometheusRule deploy/monitoring's alerts with the job of
#      the metrics Service. With --pdb alone uncommented (no replicas block), the budget check fails: the
#      comment's warning is real.
#   4. `kubectl apply --dry-run=server` accepts the NetworkPolicy, the PodDisruptionBudget and the ConfigMap in
#      codeflare-operator-system. kube-apiserver 1.20 does not serve policy/v1 (1.21+), so there the budget is sent
#      as policy/v1beta1, whose spec is the same (a "note" line says so). The PrometheusRule is not sent: its CRD
#      (monitoring.coreos.com) is not installed here.
#   5. The webhook opt-ins: config/webhook, config/webhook-guards and config/certmanager build alone; in copies of
#      config/, "../webhook-guards" with its manager patch, "../certmanager" with its two patches, and both, are
#      checked by webhook_objects.py (guards at every served path with failurePolicy Ignore and selectors, the
#      manager naming every configuration, cert-manager's Secret mounted and its CA injected into every
#      configuration, roles limited to the names); the guards without their patch are refused by the checker (the
#      manager would never fill their caBundle); the apiserver's dry run accepts the configurations, roles, Service,
#      Secret and Deployment of the build with both (not the Certificate and Issuer: no cert-manager CRDs here).
# Inputs:  KUBECONFIG (ctest fixture), KUBECTL (optional).
# Output:  one line per check, then "N passed, N failed"; exit 1 when anything failed.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../harness/lib.sh"

[[ -n "${KUBECONFIG:-}" && -f "$KUBECONFIG" ]] || cfo_die "KUBECONFIG must name the control plane's kubeconfig"
k() { "${KUBECTL:-kubectl}" --kubeconfig "$KUBECONFIG" "$@"; }
kz() { "${KUBECTL:-kubectl}" kustomize "$@"; }
py="$(cfo_python)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$CFO_REPO_DIR"
checker=test/integration/opt_in_objects.py

cfo_tally_begin
# checks <label> <checker args...>: runs opt_in_objects.py and counts its lines.
checks() {
  local label="$1" line status=0
  shift
  "$py" "$checker" "$@" >"$work/checks.out" 2>"$work/checks.err" || status=$?
  while IFS= read -r line; do
    case "$line" in
      "ok "*) pass "$label: ${line#ok }" ;;
      "FAIL "*) fail "$label: ${line#FAIL }" ;;
      *) echo "     $line" ;;
    esac
  done <"$work/checks.out"
  ((status == 0)) || fail "$label: checker exited $status: $(tr '\n' ' ' <"$work/checks.err")"
}
# checks_with <checker> <label> <checker args...>: like checks, with another checker script.
checks_with() {
  local saved="$checker"
  checker="$1"
  shift
  checks "$@"
  checker="$saved"
}
none=(--expect PodDisruptionBudget=0 --expect NetworkPolicy=0 --expect PrometheusRule=0 --expect ConfigMap=0)
all=(--expect PodDisruptionBudget=1 --expect NetworkPolicy=1 --expect PrometheusRule=1 --expect ConfigMap=1)

# --- 1. off by default ----------------------------------------------------------------------------------------------
if kz config/default >"$work/default.yaml" 2>"$work/err"; then
  checks "config/default" "$work/default.yaml" "${none[@]}"
else
  fail "kubectl kustomize config/default: $(tr '\n' ' ' <"$work/err")"
fi

# --- 2. each on its own -------------------------------------------------------------------------------------------
for d in prometheus-rules grafana network-policy pdb; do
  if kz "config/$d" >"$work/$d.yaml" 2>"$work/err"; then
    pass "kubectl kustomize config/$d: $(grep '^kind:' "$work/$d.yaml" | tr '\n' ' ')"
  else
    fail "kubectl kustomize config/$d: $(tr '\n' ' ' <"$work/err")"
  fi
done

# --- 3. switched on in config/default -----------------------------------------------------------------------------
# opt_in <copy> <pattern>...: uncomments the lines of the copy's config/default/kustomization.yaml that match exactly.
opt_in() {
  local file="$1/default/kustomization.yaml" line
  shift
  for line in "$@"; do
    grep -qxF -- "$line" "$file" || { fail "config/default/kustomization.yaml has no line \"$line\""; return 1; }
    LINE="$line" "$py" - "$file" <<'PY'
import os, sys
path, line = sys.argv[1], os.environ["LINE"]
with open(path, encoding="utf-8") as f:
    lines = f.read().split("\n")
lines = [l.replace("#", "", 1) if l == line else l for l in lines]
with open(path, "w", encoding="utf-8") as f:
    f.write("\n".join(lines))
PY
  done
}
cp -r config "$work/all"
built=false
if opt_in "$work/all" "  #- ../prometheus-rules" "  #- ../grafana" "  #- ../network-policy" "  #- ../pdb" \
  "#replicas:" "#  - name: controller-manager" "#    count: 2"; then
  if kz "$work/all/default" >"$work/all.yaml" 2>"$work/err"; then
    built=true
    pass "config/default with the four opt-ins and 2 replicas builds $(grep -c '^kind:' "$work/all.yaml") objects"
    checks "config/default + opt-ins" "$work/all.yaml" "${all[@]}" --pdb-api-version policy/v1
  else
    fail "config/default with the opt-ins: $(tr '\n' ' ' <"$work/err")"
  fi
fi
# The budget without the replicas block: one replica, and a budget that would block every drain.
cp -r config "$work/pdb-only"
if opt_in "$work/pdb-only" "  #- ../pdb" && kz "$work/pdb-only/default" >"$work/pdb-only.yaml" 2>"$work/err"; then
  "$py" "$checker" "$work/pdb-only.yaml" --expect PodDisruptionBudget=1 >"$work/pdb-only.out" 2>&1 || true
  if grep -q '^FAIL .*with 1 replicas a drain may evict 0 pod' "$work/pdb-only.out"; then
    pass "config/default with ../pdb but one replica: the checker finds that a drain could evict no pod"
  else
    fail "config/default with ../pdb but one replica: expected the checker to refuse it: $(tr '\n' ' ' <"$work/pdb-only.out")"
  fi
fi

# --- 4. the apiserver's dry run -----------------------------------------------------------------------------------
if [[ $built == true ]]; then
  served_v1=false
  k api-versions 2>/dev/null | grep -qx 'policy/v1' && served_v1=true
  SERVED_V1="$served_v1" "$py" - "$work/all.yaml" "$work/dry.yaml" <<'PY'
import os, sys, yaml
with open(sys.argv[1], encoding="utf-8") as f:
    docs = [d for d in yaml.safe_load_all(f) if isinstance(d, dict)]
keep = []
for d in docs:
    if d["kind"] == "PodDisruptionBudget" and os.environ["SERVED_V1"] != "true":
        d["apiVersion"] = "policy/v1beta1"
    if d["kind"] in ("PodDisruptionBudget", "NetworkPolicy") or \
            (d["kind"] == "ConfigMap" and "grafana_dashboard" in d["metadata"].get("labels", {})):
        keep.append(d)
with open(sys.argv[2], "w", encoding="utf-8") as f:
    yaml.safe_dump_all(keep, f, sort_keys=False)
PY
  [[ $served_v1 == true ]] || echo "note the apiserver does not serve policy/v1 (Kubernetes 1.20): the budget is" \
    "dry-run as policy/v1beta1, whose spec fields are the same"
  if ! k create namespace codeflare-operator-system --dry-run=client -o yaml | k apply -f - >"$work/ns.out" 2>&1; then
    fail "creating namespace codeflare-operator-system: $(tr '\n' ' ' <"$work/ns.out")"
  elif k apply --dry-run=server -f "$work/dry.yaml" >"$work/apply.out" 2>&1; then
    pass "apply --dry-run=server accepts: $(grep '(server dry run)$' "$work/apply.out" | tr '\n' ' ')"
  else
    fail "apply --dry-run=server: $(grep -v '(server dry run)$' "$work/apply.out" | tr '\n' ' ')"
  fi
  echo "note the PrometheusRule is not sent to the apiserver: its CRD (monitoring.coreos.com) is not installed here"
fi

# --- 5. the webhook opt-ins: guards and cert-manager -----------------------------------------------------------------
# webhook_checks <label> <build> <checker flags...>: test/integration/webhook_objects.py on a build.
webhook_checks() {
  local label="$1" file="$2"
  shift 2
  checks_with test/integration/webhook_objects.py "$label" "$file" "$@"
}
for d in webhook webhook-guards certmanager; do
  if kz "config/$d" >"$work/$d.yaml" 2>"$work/err"; then
    pass "kubectl kustomize config/$d: $(grep '^kind:' "$work/$d.yaml" | sort | uniq -c | tr -s ' \n' ' ')"
  else
    fail "kubectl kustomize config/$d: $(tr '\n' ' ' <"$work/err")"
  fi
done
guards_patch="  #- {path: manager_webhook_guards_patch.yaml, target: {kind: Deployment, name: controller-manager}}"
cm_patches=("  #- {path: certmanager_manager_patch.yaml}"
  "  #- {path: certmanager_webhook_patch.yaml, target: {kind: ValidatingWebhookConfiguration}}")
cp -r config "$work/guards"
if opt_in "$work/guards" "  #- ../webhook-guards" "$guards_patch" &&
  kz "$work/guards/default" >"$work/guards.yaml" 2>"$work/err"; then
  webhook_checks "config/default + webhook-guards" "$work/guards.yaml" --guards
else
  fail "config/default with ../webhook-guards: $(tr '\n' ' ' <"$work/err")"
fi
# The guards without their manager patch: the manager would not fill their caBundle; the checker must see it.
cp -r config "$work/guards-only"
if opt_in "$work/guards-only" "  #- ../webhook-guards" && kz "$work/guards-only/default" >"$work/guards-only.yaml" 2>"$work/err"; then
  "$py" test/integration/webhook_objects.py "$work/guards-only.yaml" --guards >"$work/guards-only.out" 2>&1 || true
  if grep -q '^FAIL --webhook-configuration' "$work/guards-only.out"; then
    pass "config/default with ../webhook-guards but not its patch: the checker finds the manager does not name the guards"
  else
    fail "config/default with ../webhook-guards but not its patch: expected the checker to refuse it: $(tr '\n' ' ' <"$work/guards-only.out")"
  fi
fi
cp -r config "$work/certmanager"
if opt_in "$work/certmanager" "  #- ../certmanager" "${cm_patches[@]}" &&
  kz "$work/certmanager/default" >"$work/certmanager.yaml" 2>"$work/err"; then
  webhook_checks "config/default + certmanager" "$work/certmanager.yaml" --cert-manager
else
  fail "config/default with ../certmanager: $(tr '\n' ' ' <"$work/err")"
fi
cp -r config "$work/both"
if opt_in "$work/both" "  #- ../webhook-guards" "$guards_patch" "  #- ../certmanager" "${cm_patches[@]}" &&
  kz "$work/both/default" >"$work/both.yaml" 2>"$work/err"; then
  webhook_checks "config/default + webhook-guards + certmanager" "$work/both.yaml" --guards --cert-manager
  # The apiserver accepts the guards' configuration and role, and the manager mounting cert-manager's Secret. The
  # Certificate and Issuer are not sent: cert-manager's CRDs are not installed here.
  "$py" - "$work/both.yaml" "$work/webhook-dry.yaml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1], encoding="utf-8")) if isinstance(d, dict)]
keep = [d for d in docs if d["kind"] in ("ValidatingWebhookConfiguration", "Deployment", "ClusterRole",
                                         "ClusterRoleBinding", "Secret", "Service")]
yaml.safe_dump_all(keep, open(sys.argv[2], "w", encoding="utf-8"), sort_keys=False)
PY
  if ! k create namespace codeflare-operator-system --dry-run=client -o yaml | k apply -f - >"$work/ns.out" 2>&1; then
    fail "creating namespace codeflare-operator-system: $(tr '\n' ' ' <"$work/ns.out")"
  elif k apply --dry-run=server -f "$work/webhook-dry.yaml" >"$work/apply.out" 2>&1; then
    pass "apply --dry-run=server accepts the webhook objects with guards and cert-manager: $(grep -c '(server dry run)$' "$work/apply.out") object(s)"
  else
    fail "apply --dry-run=server of the webhook objects: $(grep -v '(server dry run)$' "$work/apply.out" | tr '\n' ' ')"
  fi
  echo "note the Certificate and Issuer are not sent to the apiserver: cert-manager's CRDs are not installed here"
else
  fail "config/default with ../webhook-guards and ../certmanager: $(tr '\n' ' ' <"$work/err")"
fi

echo "$passed passed, $failed failed"
((failed == 0))
