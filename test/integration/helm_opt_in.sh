#!/usr/bin/env bash
# Integration test: the Helm chart's opt-in objects (podDisruptionBudget, networkPolicy, monitoring.dashboard,
# monitoring.prometheusRule). Off, the chart renders exactly what it rendered without them; on, they reach the
# Deployment and the metrics Service, follow their values, are refused where they would not work, and the apiserver
# accepts them.
#
# Checks
#   1. Off: the default render holds no PodDisruptionBudget, NetworkPolicy, PrometheusRule or dashboard ConfigMap,
#      and is byte for byte the render of a copy of the chart without the four templates.
#   2. On (test/helm/values-opt-in.yaml): opt_in_objects.py against the render's Deployment and metrics Service
#      (selectors, ports: metrics limited to namespace monitoring, the webhook's 9443, the extra 9090; a drain of 3 replicas with
#      minAvailable 2; the dashboard and alerts are deploy/monitoring's, the alerts with job <fullname>-metrics),
#      and the values themselves: the apiserver CIDRs and the extra egress rule, the dashboard's namespace, labels
#      and annotations, the PrometheusRule's labels.
#   3. Variants: policy/v1 where the cluster serves it (--api-versions policy/v1); maxUnavailable instead of
#      minAvailable; monitoring.prometheusRule.job; the metrics port left out of the NetworkPolicy with metrics off.
#      The webhooks (test/integration/webhook_objects.py on each render): the defaults, the guards, cert-manager, both,
#      other failurePolicies; certManager.issuerRef instead of the chart's Issuer; webhook.enabled=false leaves the
#      webhook port out of the NetworkPolicy.
#   4. Guards: a budget with replicaCount 1, minAvailable not below replicaCount, maxUnavailable 0; a NetworkPolicy
#      without API ports; alerts without metrics, or without the metrics Service and without a job; webhook guards
#      or cert-manager without the webhook, a failurePolicy other than Fail/Ignore, timeoutSeconds above 30, the
#      webhook on the metrics port; allowed: alerts with a job and no Service.
#   5. `kubectl apply --dry-run=server` accepts the on render's PodDisruptionBudget (policy/v1beta1, as helm-render
#      stands for a 1.20 cluster), NetworkPolicy and ConfigMap, and the guards + cert-manager render's webhook
#      configurations, Service, Secret and Deployment. The PrometheusRule is not sent: its CRD
#      (monitoring.coreos.com) is not installed here.
# Inputs:  KUBECONFIG (ctest fixture); CFO_HELM_RENDER_DIR (where helm-render is built and cached); KUBECTL.
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
chart=deploy/helm/codeflare-operator
checker=test/integration/opt_in_objects.py
opt_in_templates=(poddisruptionbudget.yaml networkpolicy.yaml grafana-dashboard.yaml prometheusrule.yaml)

cfo_tally_begin
# checks <label> <command...>: runs a checker printing "ok ..."/"FAIL ..." lines, and counts them.
checks() {
  local label="$1" line status=0
  shift
  "$@" >"$work/checks.out" 2>"$work/checks.err" || status=$?
  while IFS= read -r line; do
    case "$line" in
      "ok "*) pass "$label: ${line#ok }" ;;
      "FAIL "*) fail "$label: ${line#FAIL }" ;;
      *) echo "     $line" ;;
    esac
  done <"$work/checks.out"
  ((status == 0)) || fail "$label: checker exited $status: $(tr '\n' ' ' <"$work/checks.err")"
}

if ! renderer="$(test/helm/build-render.sh "${CFO_HELM_RENDER_DIR:-$work/helm-render}" 2>"$work/build.err")"; then
  fail "build helm-render: $(tr '\n' ' ' <"$work/build.err")"
  echo "$passed passed, $failed failed"
  exit 1
fi
# render <out> <chart dir> [flags...]
render() {
  local out="$1" dir="$2"
  shift 2
  "$renderer" --strict --release cfo --namespace cfo-opt-in "$@" "$dir" >"$out" 2>"$work/render.err"
}

# --- 1. off ------------------------------------------------------------------------------------------------------
cp -r "$chart" "$work/chart-without"
for t in "${opt_in_templates[@]}"; do rm "$work/chart-without/templates/$t"; done
if render "$work/default.yaml" "$chart" && render "$work/without.yaml" "$work/chart-without"; then
  checks "default values" "$py" "$checker" "$work/default.yaml" --expect PodDisruptionBudget=0 \
    --expect NetworkPolicy=0 --expect PrometheusRule=0 --expect ConfigMap=0
  if cmp -s "$work/default.yaml" "$work/without.yaml"; then
    pass "default values: the render ($(grep -c '^kind:' "$work/default.yaml") objects) is byte for byte that of the chart without ${opt_in_templates[*]}"
  else
    fail "default values: the render differs from the chart without the opt-in templates: $(diff "$work/without.yaml" "$work/default.yaml" | head -20 | tr '\n' ' ')"
  fi
else
  fail "render with default values: $(tr '\n' ' ' <"$work/render.err")"
fi

# --- 2. on -------------------------------------------------------------------------------------------------------
on_ok=false
if render "$work/on.yaml" "$chart" -f test/helm/values-opt-in.yaml; then
  on_ok=true
  checks "values-opt-in" "$py" "$checker" "$work/on.yaml" --expect PodDisruptionBudget=1 --expect NetworkPolicy=1 \
    --expect PrometheusRule=1 --expect ConfigMap=1 --pdb-api-version policy/v1beta1 --extra-ingress-port 9090 \
    --metrics-from-namespace monitoring
  checks "values-opt-in" "$py" - "$work/on.yaml" test/helm/values-opt-in.yaml <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1], encoding="utf-8")) if isinstance(d, dict)]
v = yaml.safe_load(open(sys.argv[2], encoding="utf-8"))
def one(kind):
    found = [d for d in docs if d["kind"] == kind]
    return found[0] if len(found) == 1 else {"metadata": {}, "spec": {}}
def out(ok, msg):
    print(("ok " if ok else "FAIL ") + msg)
np, cm, rule = one("NetworkPolicy"), one("ConfigMap"), one("PrometheusRule")
egress = np["spec"].get("egress") or []
api = [r for r in egress if any(p.get("port") == 443 for p in r.get("ports") or [])]
cidrs = [t.get("ipBlock", {}).get("cidr") for r in api for t in r.get("to") or []]
want = v["networkPolicy"]["apiServer"]["cidrs"]
out(cidrs == want, f"NetworkPolicy: the API rule goes to {cidrs}, want networkPolicy.apiServer.cidrs {want}")
extra = v["networkPolicy"]["extraEgress"]
out(all(r in egress for r in extra), f"NetworkPolicy: egress holds networkPolicy.extraEgress {extra}")
d = v["monitoring"]["dashboard"]
meta = cm["metadata"]
out(meta.get("namespace") == d["namespace"], f"dashboard ConfigMap in {meta.get('namespace')}, want {d['namespace']}")
labels, ann = meta.get("labels") or {}, meta.get("annotations") or {}
out(all(labels.get(k) == x for k, x in d["labels"].items()) and labels.get("app.kubernetes.io/instance") == "cfo",
    f"dashboard ConfigMap labels {labels} include {d['labels']} and the chart's")
out(ann == d["annotations"], f"dashboard ConfigMap annotations {ann}, want {d['annotations']}")
rl = rule["metadata"].get("labels") or {}
want_rl = v["monitoring"]["prometheusRule"]["labels"]
out(all(rl.get(k) == x for k, x in want_rl.items()), f"PrometheusRule labels {rl} include {want_rl}")
PY
else
  fail "render with values-opt-in.yaml: $(tr '\n' ' ' <"$work/render.err")"
fi

# --- 3. variants ---------------------------------------------------------------------------------------------------
# variant <label> <values yaml> <checker args...> [-- <renderer flags...>]
variant() {
  local label="$1" values="$2" args=() flags=()
  shift 2
  while (($#)) && [[ "$1" != -- ]]; do args+=("$1"); shift; done
  (($#)) && shift && flags=("$@")
  printf '%s\n' "$values" >"$work/variant.yaml"
  if render "$work/variant.out" "$chart" -f "$work/variant.yaml" "${flags[@]}"; then
    checks "$label" "$py" "$checker" "$work/variant.out" "${args[@]}"
  else
    fail "$label: does not render: $(tr '\n' ' ' <"$work/render.err")"
  fi
}
variant "policy/v1 served" $'replicaCount: 2\npodDisruptionBudget:\n  enabled: true' \
  --expect PodDisruptionBudget=1 --pdb-api-version policy/v1 -- --api-versions policy/v1
variant "maxUnavailable 1" $'replicaCount: 2\npodDisruptionBudget:\n  enabled: true\n  maxUnavailable: 1' \
  --expect PodDisruptionBudget=1 --pdb-api-version policy/v1beta1
if grep -q '^  maxUnavailable: 1$' "$work/variant.out" && ! grep -q '^  minAvailable:' "$work/variant.out"; then
  pass "maxUnavailable 1: the budget sets maxUnavailable and not minAvailable"
else
  fail "maxUnavailable 1: $(grep -E '^  (minAvailable|maxUnavailable):' "$work/variant.out" | tr '\n' ' ')"
fi
variant "prometheusRule.job" $'monitoring:\n  prometheusRule:\n    enabled: true\n    job: kubernetes-service-endpoints' \
  --expect PrometheusRule=1 --job kubernetes-service-endpoints
variant "networkPolicy with metrics off" $'metrics:\n  enabled: false\nnetworkPolicy:\n  enabled: true' \
  --expect NetworkPolicy=1

# The webhooks: off leaves no webhook port in the NetworkPolicy; the guards and cert-manager, alone and together,
# checked by webhook_objects.py.
variant "networkPolicy with the webhooks off" $'webhook:\n  enabled: false\nnetworkPolicy:\n  enabled: true' \
  --expect NetworkPolicy=1
hook_variant() {
  local label="$1" values="$2"
  shift 2
  printf '%s\n' "$values" >"$work/hook.yaml"
  if render "$work/hook-$label.out" "$chart" -f "$work/hook.yaml"; then
    checks "webhook $label" "$py" test/integration/webhook_objects.py "$work/hook-$label.out" "$@"
  else
    fail "webhook $label: does not render: $(tr '\n' ' ' <"$work/render.err")"
  fi
}
hook_variant defaults ""
hook_variant guards $'webhook:\n  guards:\n    enabled: true' --guards
hook_variant cert-manager $'certManager:\n  enabled: true' --cert-manager
hook_variant guards+cert-manager $'webhook:\n  guards:\n    enabled: true\ncertManager:\n  enabled: true' \
  --guards --cert-manager
hook_variant policies $'webhook:\n  failurePolicy: Ignore\n  guards:\n    enabled: true\n    failurePolicy: Fail' \
  --guards --cfw-failure-policy Ignore --guards-failure-policy Fail
printf '%s\n' $'certManager:\n  enabled: true\n  issuerRef:\n    kind: ClusterIssuer\n    name: corp-ca' >"$work/issuer.yaml"
if render "$work/issuer.out" "$chart" -f "$work/issuer.yaml" && ! grep -q '^kind: Issuer$' "$work/issuer.out" &&
  grep -A2 '^  issuerRef:' "$work/issuer.out" | grep -q 'name: corp-ca'; then
  pass "certManager.issuerRef: the Certificate uses ClusterIssuer corp-ca and no Issuer is rendered"
else
  fail "certManager.issuerRef: $(tr '\n' ' ' <"$work/render.err") $(grep -A3 '^  issuerRef:' "$work/issuer.out" | tr '\n' ' ')"
fi

# --- 4. guards -----------------------------------------------------------------------------------------------------
refuse() {
  local label="$1" want="$2"
  printf '%s\n' "$3" >"$work/guard.yaml"
  if render "$work/guard.out" "$chart" -f "$work/guard.yaml"; then
    fail "guard $label: rendered instead of failing"
  elif grep -qF -- "$want" "$work/render.err"; then
    pass "guard $label: refused ($(head -c 200 "$work/render.err"))"
  else
    fail "guard $label: failed without \"$want\": $(tr '\n' ' ' <"$work/render.err")"
  fi
}
refuse "budget with one replica" "podDisruptionBudget.enabled needs replicaCount 2 or more (it is 1)" \
  $'podDisruptionBudget:\n  enabled: true'
refuse "minAvailable 2 of 2" "podDisruptionBudget.minAvailable (2) must be below replicaCount (2)" \
  $'replicaCount: 2\npodDisruptionBudget:\n  enabled: true\n  minAvailable: 2'
refuse "maxUnavailable 0" "podDisruptionBudget.maxUnavailable 0 would forbid every eviction" \
  $'replicaCount: 2\npodDisruptionBudget:\n  enabled: true\n  maxUnavailable: 0'
refuse "NetworkPolicy without API ports" "networkPolicy.apiServer.ports must list" \
  $'networkPolicy:\n  enabled: true\n  apiServer:\n    ports: []'
refuse "alerts without metrics" "monitoring.prometheusRule.enabled needs metrics.enabled" \
  $'metrics:\n  enabled: false\nmonitoring:\n  prometheusRule:\n    enabled: true'
refuse "alerts without the metrics Service or a job" "needs monitoring.prometheusRule.job" \
  $'metrics:\n  service:\n    enabled: false\nmonitoring:\n  prometheusRule:\n    enabled: true'
refuse "guards without the webhook" "webhook.guards.enabled and certManager.enabled need webhook.enabled" \
  $'webhook:\n  enabled: false\n  guards:\n    enabled: true'
refuse "a failurePolicy the apiserver refuses" "webhook.guards.failurePolicy must be Fail or Ignore" \
  $'webhook:\n  guards:\n    failurePolicy: Retry'
refuse "timeoutSeconds above 30" "webhook.timeoutSeconds must be between 1 and 30" $'webhook:\n  timeoutSeconds: 31'
refuse "the webhook on the metrics port" "webhook.port 8080 is already the metrics or health probe port" \
  $'webhook:\n  port: 8080'
printf '%s\n' $'metrics:\n  service:\n    enabled: false\nmonitoring:\n  prometheusRule:\n    enabled: true\n    job: cfo-pods' \
  >"$work/allowed.yaml"
if render "$work/allowed.out" "$chart" -f "$work/allowed.yaml" && grep -q 'job="cfo-pods"' "$work/allowed.out"; then
  pass "guard: alerts without the metrics Service but with a job render, selecting job=\"cfo-pods\""
else
  fail "guard: alerts with a job and no Service: $(tr '\n' ' ' <"$work/render.err")"
fi

# --- 5. the apiserver's dry run -----------------------------------------------------------------------------------
if [[ $on_ok == true ]]; then
  "$py" - "$work/on.yaml" "$work/dry.yaml" "$work/hook-guards+cert-manager.out" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1], encoding="utf-8")) if isinstance(d, dict)]
keep = [d for d in docs if d["kind"] in ("PodDisruptionBudget", "NetworkPolicy", "ConfigMap")]
# The webhook objects of the guards + cert-manager render (not the Certificate and Issuer: no cert-manager CRDs).
hooks = [d for d in yaml.safe_load_all(open(sys.argv[3], encoding="utf-8")) if isinstance(d, dict)]
keep += [d for d in hooks if d["kind"] in ("ValidatingWebhookConfiguration", "Service", "Secret", "Deployment")
         and "webhook" in d["metadata"]["name"] or d["kind"] == "Deployment"]
yaml.safe_dump_all(keep, open(sys.argv[2], "w", encoding="utf-8"), sort_keys=False)
PY
  ns_ok=true
  for ns in cfo-opt-in cfo-grafana; do
    k create namespace "$ns" --dry-run=client -o yaml | k apply -f - >"$work/ns.out" 2>&1 ||
      { fail "creating namespace $ns: $(tr '\n' ' ' <"$work/ns.out")"; ns_ok=false; }
  done
  if [[ $ns_ok == true ]]; then
    if k apply --dry-run=server -f "$work/dry.yaml" >"$work/apply.out" 2>&1; then
      pass "apply --dry-run=server accepts: $(grep '(server dry run)$' "$work/apply.out" | tr '\n' ' ')"
    else
      fail "apply --dry-run=server: $(grep -v '(server dry run)$' "$work/apply.out" | tr '\n' ' ')"
    fi
  fi
  echo "note the PrometheusRule is not sent to the apiserver: its CRD (monitoring.coreos.com) is not installed here"
fi

echo "$passed passed, $failed failed"
((failed == 0))
