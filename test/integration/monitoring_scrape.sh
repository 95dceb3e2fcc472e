#!/usr/bin/env bash
# Integration test: every metric that the Grafana dashboard and the alerts of deploy/monitoring/ read is in a real
# scrape of a running operator, with the type their functions need (monitoring_kit checks the same against the
# registrations in controller/metrics/; this one catches a family that is registered but not served).
#
# Checks
#   1. `codeflare-operator run` with --leader-elect (so leader_election_master_status exists), on a namespace of its
#      own, with its metrics and probe servers on free loopback ports, starts its controller and takes the Lease.
#   2. A valid workload gets its RayCluster, and an invalid one (a request above its limit) Valid=False, so that the
#      apply and rejection counters have series.
#   3. GET /metrics answers 200; test/monitoring/check_monitoring.py --scrape on its text: every name the dashboard
#      and the alerts use is a "# TYPE" family of the scrape (histograms through _bucket, _sum, _count), used as its
#      type allows, and the dashboard shows every family of the scrape.
#   4. SIGTERM stops the operator with exit code 0.
# Inputs:  KUBECONFIG (ctest fixture), CFO_OPERATOR_BIN, KUBECTL (optional); curl.
# Output:  one line per check, then "N passed, N failed"; exit 1 when anything failed.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../harness/lib.sh"

[[ -n "${KUBECONFIG:-}" && -f "$KUBECONFIG" ]] || cfo_die "KUBECONFIG must name the control plane's kubeconfig"
[[ -n "${CFO_OPERATOR_BIN:-}" && -x "$CFO_OPERATOR_BIN" ]] || cfo_die "CFO_OPERATOR_BIN must name the operator binary"
command -v curl >/dev/null || cfo_die "curl is needed (test/harness/install-deps.sh)"
k() { "${KUBECTL:-kubectl}" --kubeconfig "$KUBECONFIG" "$@"; }
py="$(cfo_python)"
work="$(mktemp -d)"
pid=""
cleanup() {
  [[ -n "$pid" ]] && kill -KILL "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
cd "$CFO_REPO_DIR"

cfo_tally_begin
finish() {
  echo "$passed passed, $failed failed"
  ((failed == 0))
  exit
}

# --- 1. start ------------------------------------------------------------------------------------------------------
ns="cfo-scrape-$RANDOM"
k create namespace "$ns" >/dev/null
mapfile -t ports < <(cfo_free_ports 3)
metrics="127.0.0.1:${ports[0]}"
webhook_port="${ports[2]}"  # the webhook metrics exist once its server is configured
"$CFO_OPERATOR_BIN" run --kubeconfig "$KUBECONFIG" --namespace "$ns" --leader-elect --webhook-bind-address="127.0.0.1:$webhook_port" \
  --leader-election-namespace "$ns" --leader-election-id scrape-lock --metrics-bind-address="$metrics" \
  --health-probe-bind-address="127.0.0.1:${ports[1]}" >"$work/op.out" 2>"$work/op.err" &
pid=$!
leading=false
for _ in $(seq 1 240); do
  if curl -sf "http://$metrics/metrics" 2>/dev/null | grep -q '^leader_election_master_status{name="scrape-lock"} 1$' &&
    grep -q 'controller started' "$work/op.err"; then
    leading=true
    break
  fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.5
done
if $leading; then
  pass "the operator started and leads (metrics on $metrics)"
else
  fail "the operator did not start and take the Lease: $(tail -c 2000 "$work/op.err")"
  finish
fi

# --- 2. one valid and one invalid workload -------------------------------------------------------------------------
k apply -n "$ns" -f - >/dev/null <<'YAML'
apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata:
  name: scrape-valid
spec:
  workerGroups:
  - name: workers
    replicas: 1
    resources:
      requests: {cpu: "1", memory: 2Gi}
      limits: {cpu: "1", memory: 2Gi}
---
apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata:
  name: scrape-invalid
spec:
  workerGroups:
  - name: workers
    replicas: 1
    resources:
      requests: {cpu: "1", memory: 4Gi}
      limits: {cpu: "1", memory: 2Gi}
YAML
done_both=false
for _ in $(seq 1 120); do
  if k get rayclusters.ray.io -n "$ns" scrape-valid -o name >/dev/null 2>&1 &&
    [[ "$(k get cfw -n "$ns" scrape-invalid -o jsonpath='{.status.conditions[?(@.type=="Valid")].status}' 2>/dev/null)" == False ]]; then
    done_both=true
    break
  fi
  sleep 0.5
done
if $done_both; then
  pass "scrape-valid has its RayCluster, scrape-invalid is Valid=False"
else
  fail "the workloads were not reconciled: $(tail -c 2000 "$work/op.err")"
fi

# --- 3. the scrape against the dashboard and the alerts ------------------------------------------------------------
code="$(curl -s -o "$work/scrape.txt" -w '%{http_code}' "http://$metrics/metrics" || true)"
if [[ "$code" == 200 ]]; then
  pass "GET /metrics: 200, $(grep -c '^# TYPE' "$work/scrape.txt") families, $(grep -vc '^#' "$work/scrape.txt") samples"
  status=0
  "$py" test/monitoring/check_monitoring.py check --dashboard deploy/monitoring/codeflare-operator-dashboard.json \
    --rules deploy/monitoring/codeflare-operator-alerts.yaml --scrape "$work/scrape.txt" >"$work/check.out" \
    2>"$work/check.err" || status=$?
  while IFS= read -r line; do
    case "$line" in
      "ok "*) pass "${line#ok }" ;;
      "FAIL "*) fail "${line#FAIL }" ;;
      *) echo "     $line" ;;
    esac
  done <"$work/check.out"
  ((status == 0)) || fail "check_monitoring.py exited $status: $(tr '\n' ' ' <"$work/check.err")"
else
  fail "GET /metrics answered $code"
fi

# --- 4. stop -------------------------------------------------------------------------------------------------------
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
pid=""
if ((rc == 0)); then pass "SIGTERM: exit 0"; else fail "SIGTERM: exit $rc: $(tail -c 1000 "$work/op.err")"; fi
k delete cfw -n "$ns" --all --wait=false >/dev/null 2>&1 || true
finish
