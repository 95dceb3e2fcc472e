#!/usr/bin/env bash
# `make run`: the operator against a local control plane, fed with the samples in config/samples/, then left running
# for you to try your own workloads (as kubebuilder's `make run` stays up).
#
# Usage: run-demo.sh <build-dir>
#   1. starts a control plane in <build-dir>/run-control-plane and installs the CRDs (install-crds.sh defaults:
#      $UPSTREAM_CRDS, else the pinned download, plus crds/)
#   2. starts <build-dir>/controller/cmd/codeflare-operator run --kubeconfig ... in the background, logging to
#      <build-dir>/run-operator.log
#   3. creates namespace demo when missing and applies every config/samples/*.yaml (not kustomization.yaml) into it
#   4. waits up to CFO_DEMO_WAIT_SECONDS (default 60) until every CodeFlareWorkload has status.observedGeneration
#   5. prints a summary: the workloads, the objects generated for them, each workload's conditions, and the commands
#      to look further (the KUBECONFIG line, the YAML of a generated object, your own workload)
#   6. keeps the control plane and the operator running until Ctrl-C (or SIGTERM), then stops both; their logs stay.
#      An operator that exits meanwhile leaves the control plane up, with the command that starts it again.
#      CFO_DEMO_KEEP_RUNNING=0 skips the wait (tests).
# Output: the summary on stdout; exit 1 when a step fails, a workload is never observed or the operator exits.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/lib.sh"
# `make run | tee log`: Ctrl-C ends tee too, and the next line written would kill this script by SIGPIPE before it
# stopped anything (etcd was left running: the thirtieth user trial). Ignored, a write to the closed pipe fails
# instead, and the clean-up below goes on without its output.
trap '' PIPE

(($# == 1)) || { sed -n '3,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
build="$(cd "$1" && pwd)"
operator="$build/controller/cmd/codeflare-operator"
[[ -x "$operator" ]] || cfo_die "no operator binary at $operator (make build)"
state="$build/run-control-plane"
oplog="$build/run-operator.log"
ns=demo
wait_s="${CFO_DEMO_WAIT_SECONDS:-60}"
keep_running="${CFO_DEMO_KEEP_RUNNING:-1}"

# One `make run` per build folder: a second one would replace the first one's control plane (every start gives an
# empty cluster, so the objects made there would be lost) and either one's Ctrl-C would stop the other's (the thirtieth
# user trial). The lock is this script's alone (children get fd 8 closed), so it goes when the script ends, however.
exec 8>"$build/run.lock"
if ! flock -n 8; then
  cfo_die "another \`make run\` of this build folder is running (its control plane: $state); use that one (its KUBECONFIG
  line is in its summary) or stop it with Ctrl-C first. Starting here would empty its cluster."
fi

operator_pid=""
cleanup() {
  local rc=$?
  set +e # a message that cannot be written (its reader gone) must not end the clean-up
  if [[ -n "$operator_pid" ]] && kill -0 "$operator_pid" 2>/dev/null; then
    kill -TERM "$operator_pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$operator_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$operator_pid" 2>/dev/null || true
    cfo_log "stopped the operator (log: $oplog)"
  fi
  # Its messages go to a file first, so that it finishes however this script's output fares.
  "$CFO_HARNESS_DIR/control-plane.sh" stop "$state" 8>&- >"$build/run-stop.log" 2>&1
  cat "$build/run-stop.log" >&2 2>/dev/null
  rm -f "$build/run-stop.log"
  exit "$rc"
}
trap cleanup EXIT
# Ctrl-C or SIGTERM: during the set-up an interruption (exit 130); once everything runs, the way to stop it (exit 0,
# so that `make run` does not end with "Error 130").
waiting=0
on_signal() {
  if [[ "$waiting" == 1 ]]; then
    echo "Stopping the operator and the control plane (asked to)." || true
    exit 0
  fi
  exit 130
}
trap on_signal INT TERM

"$CFO_HARNESS_DIR/control-plane.sh" start "$state" 8>&-
"$CFO_HARNESS_DIR/install-crds.sh" "$state/kubeconfig" >/dev/null 8>&-
export KUBECONFIG="$state/kubeconfig"
k() { "${KUBECTL:-kubectl}" "$@"; }

# No admission webhook here (nothing registers it with this apiserver); its port stays free. The metrics and probe
# servers take free loopback ports, so that a second `make run` (or anything on :8080) does not collide.
mapfile -t ports < <(cfo_free_ports 2)
metrics_addr="127.0.0.1:${ports[0]}"
probe_addr="127.0.0.1:${ports[1]}"
run_args=(run --kubeconfig "$KUBECONFIG" --webhook-bind-address=0 --metrics-bind-address="$metrics_addr"
  --health-probe-bind-address="$probe_addr")
"$operator" "${run_args[@]}" </dev/null >"$oplog" 2>&1 8>&- &
operator_pid=$!
cfo_log "operator running (pid $operator_pid, log $oplog)"

k get namespace "$ns" >/dev/null 2>&1 || k create namespace "$ns" >/dev/null
# The Kueue objects the samples name (lib.sh); without them those workloads would be held with Queued=False.
cfo_sample_prerequisites "$ns" | k apply -f - >/dev/null
shopt -s nullglob
samples=()
for f in "$CFO_REPO_DIR"/config/samples/*.yaml; do
  [[ "$(basename "$f")" == kustomization.yaml ]] || samples+=("$f")
done
((${#samples[@]})) || cfo_die "no samples in $CFO_REPO_DIR/config/samples"
for f in "${samples[@]}"; do
  k apply -n "$ns" -f "$f"
done

# Waits until every workload reports status.observedGeneration.
cfw=codeflareworkloads.codeflare.dev
deadline=$((SECONDS + wait_s))
while :; do
  pending="$(k get "$cfw" -n "$ns" \
    -o jsonpath='{range .items[*]}{.metadata.name}{"="}{.status.observedGeneration}{"\n"}{end}' | grep '=$' || true)"
  [[ -z "$pending" ]] && break
  if ! kill -0 "$operator_pid" 2>/dev/null; then
    tail -n 40 "$oplog" >&2
    cfo_die "the operator exited; last lines of $oplog above"
  fi
  if ((SECONDS >= deadline)); then
    tail -n 40 "$oplog" >&2
    cfo_die "no status.observedGeneration after $wait_s s for: $(tr '\n' ' ' <<<"${pending//=/}")"
  fi
  sleep 1
done

echo "===== workloads (kubectl get cfw -n $ns)"
k get "$cfw" -n "$ns"
echo
echo "===== generated objects (kubectl get rayclusters,rayjobs,appwrappers,localqueues -n $ns)"
k get rayclusters.ray.io,rayjobs.ray.io,appwrappers.workload.codeflare.dev,localqueues.kueue.x-k8s.io -n "$ns"
echo
echo "===== conditions"
k get "$cfw" -n "$ns" -o jsonpath='{range .items[*]}{.metadata.name}{" (generation "}{.metadata.generation}{", observed "}{.status.observedGeneration}{")\n"}{range .status.conditions[*]}{"  "}{.type}{"="}{.status}{"  "}{.reason}{": "}{.message}{"\n"}{end}{end}'
echo
# The README's sample when it is there (its generated object is a RayCluster), else the first workload.
first=raytest-gpu
k get "$cfw" "$first" -n "$ns" >/dev/null 2>&1 || first="$(k get "$cfw" -n "$ns" -o jsonpath='{.items[0].metadata.name}')"
cat <<EOT
===== try it (from another terminal)
  export KUBECONFIG=$KUBECONFIG
  kubectl get cfw -n $ns                                   # the workloads (printer columns of the CRD)
  kubectl describe cfw $first -n $ns           # conditions and events of one workload
  kubectl get raycluster $first -n $ns -o yaml # the YAML of what was generated for it
  $operator render -n $ns -f $CFO_REPO_DIR/config/samples/cfw_gpu_queue.yaml   # the same expansion, offline
  kubectl apply -n $ns -f my-workload.yaml                 # your own workload (start from $CFO_REPO_DIR/config/samples/)
  tail -f $oplog                                           # the operator's log
  curl -s http://$metrics_addr/metrics | grep ^codeflare_         # its metrics
  curl -s http://$probe_addr/readyz?verbose                       # its readiness checks
No KubeRay, Kueue or kubelet runs here: clusters stay Pending, and what the operator generates is what you see.
Nor does the admission webhook (it needs a certificate the apiserver trusts): an invalid workload is created and
gets Valid=False, where an installed operator would refuse it at kubectl apply (README: Admission webhooks).
Nor does the garbage collector: a deleted workload leaves what it generated. Delete that too before you use the name
again (kubectl delete raycluster,rayjob,appwrapper NAME -n $ns), or the new workload reports ChildConflict.
EOT
if [[ "$keep_running" == 0 ]]; then
  exit 0
fi
echo "The control plane and the operator keep running; press Ctrl-C to stop them (or kill -TERM $$, when this runs in"
echo "the background, where Ctrl-C does not reach it)."
waiting=1
# Waits for the operator; Ctrl-C (or SIGTERM) ends the wait through the traps above, and cleanup stops everything.
while kill -0 "$operator_pid" 2>/dev/null; do
  sleep 1 &
  wait $! || true
done
# The operator exited (stopped by hand to try a restart, or failed): the control plane and what was created stay, so
# that it can be started again on them.
tail -n 20 "$oplog" >&2
printf -v restart '%q ' "$operator" "${run_args[@]}"
cat <<EOT >&2
The operator exited (last lines of $oplog above). The control plane keeps running; start the operator again from
another terminal with
  ${restart}
or press Ctrl-C (kill -TERM $$ in the background) to stop everything.
EOT
operator_pid=""
while :; do
  sleep 1 &
  wait $! || true
done
