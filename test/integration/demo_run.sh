#!/usr/bin/env bash
# Test of `make run` (test/harness/run-demo.sh): it prints the summary README shows and then stays up.
#
# Checks
#   1. the demo reaches its summary and says it keeps running; the workload table it prints has README's columns and
#      the rows README shows (NAME to WORKERS; AGE differs from run to run);
#   2. while it waits, the printed KUBECONFIG reaches the control plane and the operator still reconciles: a new
#      workload applied from outside gets a status;
#   3. a second run of the same build folder is refused while it waits, and the first one's cluster keeps its objects;
#      the metrics address and the offline render line the summary prints work (the latter from another folder);
#   4. SIGTERM (Ctrl-C in a terminal) stops it with exit status 0: the operator and the control plane are gone
#      afterwards, also when what read its output went first (`make run 2>&1 | tee log`, where Ctrl-C ends tee too).
# Inputs:  CFO_BUILD_DIR (the build folder with controller/cmd/codeflare-operator), UPSTREAM_CRDS (optional, as for
#          make run), KUBECTL (optional).
# Output:  one line per check; exit 1 when a check fails.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../harness/lib.sh"

build="${CFO_BUILD_DIR:?CFO_BUILD_DIR must name the build folder}"
out="$(mktemp)"
pipe="$(mktemp -u)"
demo_pid="" reader_pid=""
cleanup() {
  if [[ -n "$demo_pid" ]] && kill -0 "$demo_pid" 2>/dev/null; then kill -TERM "$demo_pid" 2>/dev/null || true; fi
  if [[ -n "$reader_pid" ]]; then kill "$reader_pid" 2>/dev/null || true; fi
  wait 2>/dev/null || true
  "$CFO_HARNESS_DIR/control-plane.sh" stop "$build/run-control-plane" >/dev/null 2>&1 || true
  rm -f "$out" "$pipe"
}
trap cleanup EXIT
fail() { echo "FAIL $*"; echo "----- demo output"; cat "$out"; exit 1; }

# Its output goes through a pipe to a reader of its own, as `make run 2>&1 | tee log` sends it to tee (check 4).
mkfifo "$pipe"
cat "$pipe" >"$out" &
reader_pid=$!
"$CFO_HARNESS_DIR/run-demo.sh" "$build" >"$pipe" 2>&1 &
demo_pid=$!
deadline=$((SECONDS + 300))
until grep -q "keep running; press Ctrl-C" "$out"; do
  kill -0 "$demo_pid" 2>/dev/null || fail "the demo ended before its summary"
  ((SECONDS < deadline)) || fail "no summary after 300 s"
  sleep 1
done
echo "ok   the demo printed its summary and keeps running"

# README's table: the header and the rows of the block after "`make run` applies it".
readme_table="$(awk '/^`make run` applies it/{f=1} f&&/^```$/{n++; if(n==2) exit; next} f&&n==1' "$CFO_REPO_DIR/README.md")"
[[ -n "$readme_table" ]] || fail "README has no sample table after '\`make run\` applies it'"
strip_age() { awk '{ $NF=""; print }' | sed 's/ *$//'; }
printed="$(awk '/^===== workloads/{f=1; next} f&&/^$/{exit} f' "$out" | strip_age)"
while IFS= read -r row; do
  want="$(strip_age <<<"$row")"
  grep -Fxq -- "$(tr -s ' ' <<<"$want")" <(tr -s ' ' <<<"$printed") || fail "README row not printed: '$want'"
done <<<"$readme_table"
echo "ok   README's table matches the printed one ($(wc -l <<<"$readme_table") lines)"

kubeconfig="$(sed -n 's/^  export KUBECONFIG=//p' "$out")"
[[ -f "$kubeconfig" ]] || fail "no KUBECONFIG line in the summary"
k() { "${KUBECTL:-kubectl}" --kubeconfig "$kubeconfig" "$@"; }
k apply -n demo -f - >/dev/null <<'CFW'
apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata:
  name: demo-try-it
spec:
  workerGroups:
    - name: small
      replicas: 1
CFW
deadline=$((SECONDS + 60))
until [[ -n "$(k get cfw demo-try-it -n demo -o jsonpath='{.status.observedGeneration}')" ]]; do
  ((SECONDS < deadline)) || fail "a workload applied while the demo waits got no status in 60 s"
  sleep 1
done
echo "ok   a workload applied from another terminal is reconciled"

# A second `make run` of the same build folder is refused while this one runs: starting would empty this one's cluster.
second_rc=0
second="$(CFO_DEMO_KEEP_RUNNING=0 timeout 300 "$CFO_HARNESS_DIR/run-demo.sh" "$build" 2>&1)" || second_rc=$?
((second_rc != 0)) || fail "a second run-demo.sh of the same build folder started"
grep -q 'another `make run` of this build folder is running' <<<"$second" || fail "the second run said: $second"
k get cfw demo-try-it -n demo >/dev/null 2>&1 || fail "the second run-demo.sh emptied the first one's cluster"
echo "ok   a second make run of the same build folder is refused and leaves the first one's cluster alone"

# The metrics address the summary names (a free loopback port, not :8080) serves the operator's metrics.
metrics_url="$(grep -o 'http://127.0.0.1:[0-9]*/metrics' "$out" | head -n1)"
[[ -n "$metrics_url" ]] || fail "no metrics address in the summary"
curl -sf "$metrics_url" | grep -q '^codeflare_' || fail "$metrics_url serves no codeflare_ metric"
echo "ok   the metrics address in the summary serves the operator's metrics"

# The summary's offline render line works from any folder (the thirty-second trial: it named a relative sample path).
render_line="$(grep -o '[^ ]*codeflare-operator render -n [^ ]* -f [^ ]*' "$out" | head -n1)"
[[ -n "$render_line" ]] || fail "no render line in the summary"
(cd / && eval "$render_line" >/dev/null) || fail "the summary's '$render_line' fails when run from /"
echo "ok   the summary's render line works from another folder"

# Ctrl-C in `make run 2>&1 | tee log` ends tee as well: the reader goes first, and the demo's output has nowhere to go.
kill "$reader_pid"
wait "$reader_pid" 2>/dev/null || true
reader_pid=""
kill -TERM "$demo_pid"
rc=0
wait "$demo_pid" || rc=$?
demo_pid=""
((rc == 0)) || fail "stopped by SIGTERM while it kept running, the demo exited $rc (make would print 'Error $rc')"
if "$CFO_HARNESS_DIR/control-plane.sh" status "$build/run-control-plane" >/dev/null 2>&1; then
  fail "the control plane still runs after SIGTERM"
fi
pgrep -f "codeflare-operator run --kubeconfig $kubeconfig" >/dev/null && fail "the operator still runs after SIGTERM"
echo "ok   SIGTERM stopped the operator and the control plane"
