#!/usr/bin/env bash
# Integration test: CRDs that appear after the operator started are picked up without a restart, and until then the
# workloads that need them are held with a clear condition instead of failing their applies in a loop.
#
# On a control plane of its own that starts with only our CRD:
#   0. the operator starts without KubeRay's RayCluster CRD (it exited before: a crash loop, the twenty-fourth user
#      trial) and holds every workload with RayClusterNotInstalled; then the RayCluster CRD is installed;
#   1. a workload with spec.appWrapper, one with spec.job and one naming a LocalQueue are held: Ready=False with
#      AppWrapperNotInstalled, RayJobNotInstalled, KueueNotInstalled, and no child is created;
#   2. no hot loop: over 10 s the operator sends at most a handful of requests (rest_client_requests_total);
#   3. the AppWrapper, RayJob and Kueue CRDs (and the LocalQueue) are installed: each workload gets its child within
#      60 s, with a Normal event saying the hold ended;
#   4. the AppWrapper CRD is deleted while an AppWrapper holds it with a finalizer, and the operator is restarted: it
#      still sees that AppWrapper (no RayCluster beside it); once released, the deletion completes (the operator does
#      not re-create what it removes) and the workload is held again.
# Inputs:  CFO_OPERATOR_BIN, CFO_BUILD_DIR (for the control plane's state folder), UPSTREAM_CRDS, KUBECTL (optional).
# Output:  one line per check; exit 1 when a check fails.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../harness/lib.sh"

[[ -x "${CFO_OPERATOR_BIN:-}" ]] || cfo_die "CFO_OPERATOR_BIN must name the codeflare-operator binary"
[[ -n "${UPSTREAM_CRDS:-}" && -d "$UPSTREAM_CRDS/apiserver-1.20" ]] || { echo "skip: UPSTREAM_CRDS is unset"; exit 0; }
state="${CFO_BUILD_DIR:?}/served-apis-control-plane"
work="$(mktemp -d)"
op_pid=""
cleanup() {
  [[ -n "$op_pid" ]] && kill -TERM "$op_pid" 2>/dev/null && wait "$op_pid" 2>/dev/null
  "$CFO_HARNESS_DIR/control-plane.sh" stop "$state" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
cfo_tally_begin

# CRD folders of their own, so that install-crds.sh installs just these.
crd_dir() {  # crd_dir NAME FILE... : a folder NAME in $work holding links to the adapted upstream CRD files
  local d="$work/$1"
  shift
  mkdir -p "$d"
  for f in "$@"; do ln -sf "$UPSTREAM_CRDS/apiserver-1.20/$f" "$d/$f"; done
  echo "$d"
}
"$CFO_HARNESS_DIR/control-plane.sh" start "$state" >/dev/null
kubeconfig="$state/kubeconfig"
k() { "${KUBECTL:-kubectl}" --kubeconfig "$kubeconfig" "$@"; }
"$CFO_HARNESS_DIR/install-crds.sh" "$kubeconfig" "$CFO_REPO_DIR/crds" >/dev/null

ns=served-apis
k create namespace "$ns" >/dev/null
metrics_port="$(cfo_free_ports 1)"
"$CFO_OPERATOR_BIN" run --kubeconfig "$kubeconfig" --namespace "$ns" --webhook-bind-address=0 \
  --metrics-bind-address="127.0.0.1:$metrics_port" --health-probe-bind-address=0 >"$work/op.log" 2>&1 &
op_pid=$!

k apply -n "$ns" -f - >/dev/null <<'CFW'
apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata: {name: wrapped}
spec: {appWrapper: true}
---
apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata: {name: job}
spec: {job: {entrypoint: python -c 'print(1)', shutdownAfterJobFinishes: true}}
---
apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata: {name: queued}
spec: {queue: {localQueue: team-queue}}
CFW

reason() { k get cfw "$1" -n "$ns" -o jsonpath='{.status.conditions[?(@.type=="Ready")].reason}' 2>/dev/null; }
wait_reason() {  # wait_reason NAME REASON SECONDS
  local deadline=$((SECONDS + $3))
  until [[ "$(reason "$1")" == "$2" ]]; do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}

# --- 0. no RayCluster CRD yet --------------------------------------------------------------------------------------
for name in wrapped job queued; do
  if wait_reason "$name" RayClusterNotInstalled 60; then pass "$name is held: RayClusterNotInstalled"
  else fail "$name: Ready reason '$(reason "$name")', expected RayClusterNotInstalled; log: $(tail -n 5 "$work/op.log" | tr '\n' ' ')"; fi
done
if kill -0 "$op_pid" 2>/dev/null; then pass "the operator runs without the RayCluster CRD"
else fail "the operator exited without the RayCluster CRD: $(tail -n 3 "$work/op.log" | tr '\n' ' ')"; fi
"$CFO_HARNESS_DIR/install-crds.sh" "$kubeconfig" "$(crd_dir base ray.io_rayclusters.yaml)" >/dev/null

# --- 1. held, with the reason -----------------------------------------------------------------------------------------
for pair in wrapped:AppWrapperNotInstalled job:RayJobNotInstalled queued:KueueNotInstalled; do
  name="${pair%%:*}" want="${pair#*:}"
  if wait_reason "$name" "$want" 60; then
    msg="$(k get cfw "$name" -n "$ns" -o jsonpath='{.status.conditions[?(@.type=="Ready")].message}')"
    pass "$name is held: $want ($msg)"
  else
    fail "$name: Ready reason '$(reason "$name")', expected $want; log: $(tail -n 5 "$work/op.log" | tr '\n' ' ')"
  fi
done
if [[ -z "$(k get rayclusters -n "$ns" -o name)" ]]; then pass "no child was created for the held workloads"
else fail "children were created: $(k get rayclusters -n "$ns" -o name | tr '\n' ' ')"; fi

# --- 2. no hot loop ---------------------------------------------------------------------------------------------------
requests() {
  curl -sf "http://127.0.0.1:$metrics_port/metrics" | awk '/^rest_client_requests_total/ {s += $NF} END {print s + 0}'
}
before="$(requests)"
sleep 10
after="$(requests)"
if ((after - before <= 5)); then pass "no hot loop: $((after - before)) request(s) in 10 s while held"
else fail "$((after - before)) requests in 10 s while held (a loop)"; fi

# --- 3. the CRDs appear -----------------------------------------------------------------------------------------------
"$CFO_HARNESS_DIR/install-crds.sh" "$kubeconfig" \
  "$(crd_dir later workload.codeflare.dev_appwrappers.yaml ray.io_rayjobs.yaml kueue.x-k8s.io_localqueues.yaml \
    kueue.x-k8s.io_clusterqueues.yaml kueue.x-k8s.io_resourceflavors.yaml kueue.x-k8s.io_workloadpriorityclasses.yaml \
    kueue.x-k8s.io_workloads.yaml)" >/dev/null
lq_version="$(k get crd localqueues.kueue.x-k8s.io -o jsonpath='{.spec.versions[?(@.storage==true)].name}')"
k apply -n "$ns" -f - >/dev/null <<LQ
apiVersion: kueue.x-k8s.io/$lq_version
kind: LocalQueue
metadata: {name: team-queue}
spec: {clusterQueue: team-cq}
LQ
child_appears() {  # child_appears RESOURCE NAME SECONDS
  local deadline=$((SECONDS + $3))
  until k get "$1" "$2" -n "$ns" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}
for triple in appwrappers.workload.codeflare.dev:wrapped:AppWrapperInstalled rayjobs.ray.io:job:RayJobInstalled \
  rayclusters.ray.io:queued:KueueInstalled; do
  IFS=: read -r resource name event <<<"$triple"
  if child_appears "$resource" "$name" 60; then
    pass "$name: its ${resource%%.*} is created once the CRD is served, without a restart"
  else
    fail "$name: no $resource $name 60 s after the CRDs were installed; Ready: $(reason "$name"); log: $(tail -n 8 "$work/op.log" | tr '\n' ' ')"
  fi
  if k get events.events.k8s.io -n "$ns" --field-selector "regarding.name=$name" -o jsonpath='{.items[*].reason}' |
    grep -qw "$event"; then pass "$name: a Normal $event event"
  else fail "$name: no $event event: $(k get events.events.k8s.io -n "$ns" --field-selector "regarding.name=$name" -o jsonpath='{.items[*].reason}')"; fi
done

# --- 4. a CRD is deleted ----------------------------------------------------------------------------------------------
# Its objects are removed by the deletion; an operator that kept applying them (a PATCH is not refused while a CRD is
# terminating) made the deletion never end (the nineteenth user trial). The workload is held instead.
# An AppWrapper held by a finalizer still runs while the deletion waits: an operator started then sees it (the
# twenty-third user trial: it did not, and a change to appWrapper: false created a RayCluster beside the running one).
k apply -n "$ns" -f - >/dev/null <<'CFW'
apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata: {name: running}
spec: {appWrapper: true}
CFW
child_appears appwrappers.workload.codeflare.dev running 60 || fail "running: no AppWrapper"
k patch appwrapper running -n "$ns" --type merge -p '{"metadata":{"finalizers":["example.com/hold"]}}' >/dev/null
k patch appwrapper running -n "$ns" --subresource=status --type merge -p '{"status":{"phase":"Running"}}' >/dev/null
k delete crd appwrappers.workload.codeflare.dev --wait=false >/dev/null
sleep 1
kill -TERM "$op_pid" && wait "$op_pid" 2>/dev/null || true
"$CFO_OPERATOR_BIN" run --kubeconfig "$kubeconfig" --namespace "$ns" --webhook-bind-address=0 \
  --metrics-bind-address="127.0.0.1:$metrics_port" --health-probe-bind-address=0 >>"$work/op.log" 2>&1 &
op_pid=$!
k patch cfw running -n "$ns" --type merge -p '{"spec":{"appWrapper":false}}' >/dev/null
sleep 5
if k get raycluster running -n "$ns" >/dev/null 2>&1; then
  fail "running: a RayCluster was created beside its AppWrapper still running while its CRD was deleted"
else
  pass "restarted during the AppWrapper CRD's deletion, the operator sees the AppWrapper still there (Ready: $(reason running))"
fi
k patch appwrapper running -n "$ns" --type json -p '[{"op":"remove","path":"/metadata/finalizers"}]' >/dev/null
deleted_at=$SECONDS
deadline=$((SECONDS + 60))
while k get crd appwrappers.workload.codeflare.dev >/dev/null 2>&1 && ((SECONDS < deadline)); do sleep 0.5; done
if k get crd appwrappers.workload.codeflare.dev >/dev/null 2>&1; then
  fail "the AppWrapper CRD is still there 60 s after its deletion; log: $(grep -c 'created AppWrapper' "$work/op.log") AppWrapper creates"
else
  pass "the AppWrapper CRD's deletion completed while the operator ran (in about $((SECONDS - deleted_at)) s; \
$(grep -c 'created AppWrapper' "$work/op.log") AppWrapper creates in all)"
fi
if wait_reason wrapped AppWrapperNotInstalled 30; then pass "wrapped is held again: AppWrapperNotInstalled"
else fail "wrapped: Ready reason '$(reason wrapped)' after the AppWrapper CRD went, expected AppWrapperNotInstalled"; fi
if kill -0 "$op_pid" 2>/dev/null; then pass "the operator kept running (no restart needed)"; else fail "the operator exited"; fi
echo "$passed passed, $failed failed"
((failed == 0))
