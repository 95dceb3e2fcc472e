#!/usr/bin/env bash
# `make bench-reconcile`: the operator's reconcile throughput, cost and memory on a local control plane, and (with
# --peer) the same work done by a bare client and by client-go's sample-controller, side by side in the same run.
#
# Usage: reconcile-bench.sh <build-dir> [--peer] [-n N] [--timeout S] [--out DIR]
#   <build-dir>   the CMake build folder: its controller/cmd/codeflare-operator is measured
#   --out DIR     the control plane's state (DIR/control-plane), the logs and pid files of the processes under test
#                 (default <build-dir>/bench-reconcile; emptied at start)
#   --peer        also run the bare-client floor and sample-controller (bench/build-sample-controller.sh, cached)
#   -n N          workloads per phase (default $BENCH_N, else 500)
#   --timeout S   give up on a phase after S seconds (default 120 + N/2)
# Inputs:  UPSTREAM_CRDS (install-crds.sh defaults), KUBECTL (optional), BENCH_SAMPLE (the CodeFlareWorkload to
#          create N times; default config/samples/cfw_cpu.yaml).
# Output:  key=value lines on stdout (bench/reconcile_bench.py lists them; figures only, no thresholds), progress on
#          stderr. The control plane, the operator and the peer are stopped on exit; exit 1 when a phase fails.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../test/harness/lib.sh"

usage() { sed -n '5,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
(($# >= 1)) || usage
build="$1"
shift
peer=0
n="${BENCH_N:-500}"
timeout=()
out=""
while (($#)); do
  case "$1" in
    --peer) peer=1 ;;
    -n) (($# >= 2)) || usage; n="$2"; shift ;;
    --timeout) (($# >= 2)) || usage; timeout=(--timeout "$2"); shift ;;
    --out) (($# >= 2)) || usage; out="$2"; shift ;;
    *) usage ;;
  esac
  shift
done
[[ "$n" =~ ^[1-9][0-9]*$ ]] || cfo_die "N must be a positive integer, got '$n'"
[[ -d "$build" ]] || cfo_die "no build folder $build"
build="$(cd "$build" && pwd)"
operator="$build/controller/cmd/codeflare-operator"
[[ -x "$operator" ]] || cfo_die "no operator binary at $operator (make operator)"
sample="${BENCH_SAMPLE:-$CFO_REPO_DIR/config/samples/cfw_cpu.yaml}"
work="${out:-$build/bench-reconcile}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
state="$work/control-plane"
py="$(cfo_python)"
kubectl=("${KUBECTL:-kubectl}")

peer_args=()
if ((peer)); then
  peer_dir="$("$CFO_REPO_DIR/bench/build-sample-controller.sh" | tail -n1)"
  peer_args=(--floor --peer "$peer_dir/sample-controller")
fi

cleanup() {
  local rc=$? f pid
  for f in "$work/operator.pid" "$work/peer.pid"; do
    [[ -f "$f" ]] || continue
    pid="$(<"$f")"
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$f"
  done
  "$CFO_HARNESS_DIR/control-plane.sh" stop "$state" >/dev/null 2>&1 || true
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A control plane left by an interrupted run is stopped before its folder goes.
[[ -d "$state" ]] && "$CFO_HARNESS_DIR/control-plane.sh" stop "$state" >/dev/null 2>&1
find "$work" -mindepth 1 -delete
"$CFO_HARNESS_DIR/control-plane.sh" start "$state" --crds >/dev/null
if ((peer)); then
  "${kubectl[@]}" --kubeconfig "$state/kubeconfig" apply -f "$peer_dir/crd.yaml" >/dev/null
  "${kubectl[@]}" --kubeconfig "$state/kubeconfig" wait --for=condition=Established --timeout=60s \
    crd/foos.samplecontroller.k8s.io >/dev/null
fi
echo "operator=$operator"
echo "kube_apiserver=$(readlink -f "/proc/$(<"$state/kube-apiserver.pid")/exe")"
((peer)) && echo "peer=$peer_dir/sample-controller"
echo "cpus=$(nproc)"
"$py" "$CFO_REPO_DIR/bench/reconcile_bench.py" --state "$state" --operator "$operator" --sample "$sample" \
  --work "$work" --n "$n" "${timeout[@]}" "${peer_args[@]}"
