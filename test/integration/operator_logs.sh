#!/usr/bin/env bash
# Integration test: `codeflare-operator run --log-format=json` against the control plane writes one JSON object per
# line, stops in order on SIGTERM, and refuses bad operations flags.
#
# Checks
#   1. Bad values of --log-format, --kube-api-qps, --kube-api-burst and --graceful-shutdown-timeout exit with 2.
#   2. With --log-format=json --kube-api-qps=50 --kube-api-burst=100, the operator reaches "controller started"
#      within 120 s; a CodeFlareWorkload applied meanwhile is reconciled (its lines are JSON too).
#   3. SIGTERM ends it within 15 s with exit code 0, the last line saying "stopped".
#   4. Every line of its stderr parses as a JSON object with string fields ts, level, logger and msg; lines that
#      carry "key" also carry "name".
# Inputs:  KUBECONFIG (set by the ctest fixture), CFO_OPERATOR_BIN, KUBECTL (optional).
# Output:  one line per check, then "N passed, N failed"; exit 1 when anything failed.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../harness/lib.sh"

[[ -n "${KUBECONFIG:-}" && -f "$KUBECONFIG" ]] || cfo_die "KUBECONFIG must name the control plane's kubeconfig"
[[ -n "${CFO_OPERATOR_BIN:-}" && -x "$CFO_OPERATOR_BIN" ]] || cfo_die "CFO_OPERATOR_BIN must name the operator binary"
command -v jq >/dev/null || cfo_die "jq is needed (Debian package jq)"
k() { "${KUBECTL:-kubectl}" --kubeconfig "$KUBECONFIG" "$@"; }
work="$(mktemp -d)"
pid=""
cleanup() {
  [[ -n "$pid" ]] && kill -KILL "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

cfo_tally_begin
# The operator without its HTTP servers (other operators may hold :8080/:8081 on this machine).
# (Called directly, not through a shell function: `function &` would make $! a subshell, not the operator.)
op=("$CFO_OPERATOR_BIN" run --kubeconfig "$KUBECONFIG" --metrics-bind-address=0 --health-probe-bind-address=0
  --webhook-bind-address=0)

# --- 1. bad flags ----------------------------------------------------------------------------------------------------
for bad in --log-format=xml --kube-api-qps=fast --kube-api-burst=0 --graceful-shutdown-timeout=30; do
  rc=0
  "${op[@]}" "$bad" >/dev/null 2>"$work/bad.err" || rc=$?
  if [[ $rc -eq 2 ]] && grep -q "flag --" "$work/bad.err"; then pass "$bad exits 2"; else fail "$bad: exit $rc: $(cat "$work/bad.err")"; fi
done

# --- 2. start with JSON logs -------------------------------------------------------------------------------------------
ns="cfo-logs-$RANDOM"
k create namespace "$ns" >/dev/null
"${op[@]}" --log-format=json --log-level=debug --kube-api-qps=50 --kube-api-burst=100 --graceful-shutdown-timeout=20s \
  >"$work/op.out" 2>"$work/op.err" &
pid=$!
started=false
for _ in $(seq 1 240); do
  if grep -q '"msg":"controller started' "$work/op.err"; then started=true; break; fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.5
done
if $started; then pass "the operator started"; else fail "the operator did not start: $(tail -c 2000 "$work/op.err")"; fi

k apply -n "$ns" -f - >/dev/null <<'YAML'
apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata:
  name: logs-demo
spec:
  workerGroups:
  - name: workers
    replicas: 1
    resources:
      requests: {cpu: "1", memory: 2Gi}
      limits: {cpu: "1", memory: 2Gi}
YAML
reconciled=false
for _ in $(seq 1 60); do
  if k get rayclusters.ray.io -n "$ns" -o name 2>/dev/null | grep -q .; then reconciled=true; break; fi
  sleep 0.5
done
if $reconciled; then pass "the workload was reconciled"; else fail "no RayCluster for the workload: $(tail -c 2000 "$work/op.err")"; fi

# --- 3. SIGTERM ----------------------------------------------------------------------------------------------------------
kill -TERM "$pid"
rc=""
for _ in $(seq 1 150); do
  if ! kill -0 "$pid" 2>/dev/null; then
    rc=0
    wait "$pid" || rc=$?
    break
  fi
  sleep 0.1
done
if [[ -z "$rc" ]]; then
  fail "the operator did not stop within 15 s of SIGTERM"
elif [[ "$rc" -eq 0 ]] && tail -n 1 "$work/op.err" | jq -e '.msg == "stopped"' >/dev/null 2>&1; then
  pass "SIGTERM: exit 0 after an orderly stop"
else
  fail "SIGTERM: exit $rc, last line: $(tail -n 1 "$work/op.err")"
fi
pid=""

# --- 4. every line is a JSON object with the fields ------------------------------------------------------------------
lines=$(wc -l <"$work/op.err")
good=$(jq -c 'select(type == "object" and (.ts | type) == "string" and (.level | type) == "string"
                     and (.logger | type) == "string" and (.msg | type) == "string"
                     and ((has("key") | not) or (.name | type) == "string"))' "$work/op.err" 2>/dev/null | wc -l)
if [[ "$lines" -gt 0 && "$good" -eq "$lines" ]] && [[ ! -s "$work/op.out" ]]; then
  pass "$lines log lines, all JSON objects with ts, level, logger and msg"
else
  fail "$good of $lines lines are well-formed JSON log objects (stdout: $(wc -c <"$work/op.out") bytes)"
  jq -c . "$work/op.err" >/dev/null || true
fi
keyed=$(jq -r 'select(has("key")) | .key' "$work/op.err" 2>/dev/null | sort -u | tr '\n' ' ')
echo "info lines with an object key: ${keyed:-none}"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
