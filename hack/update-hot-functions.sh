#!/usr/bin/env bash
# Remakes controller/cmd/hot-functions.txt: the functions of the operator binary that `codeflare-operator run`
# executes, one mangled symbol a line, which the operator's link lays out first (CFO_HOT_FUNCTIONS in
# controller/cmd/CMakeLists.txt). Run it after a change that renames or adds much of the code `run` uses; the ctest
# lint_hot_functions fails when too few of the listed symbols are left in the binary.
#
# Usage:  hack/update-hot-functions.sh <build-dir> [OUT]     (OUT default controller/cmd/hot-functions.txt)
# Needs:  valgrind (callgrind), kubectl, curl, and what test/harness/control-plane.sh needs (UPSTREAM_CRDS).
# What it does: starts a local control plane with the CRDs, runs `run` under callgrind (about 50x slower), and walks
# the operator through what a cluster asks of it: start-up on existing workloads, every config/samples workload
# (RayCluster, RayJob, AppWrapper, queued, managed LocalQueue), Kueue objects appearing, a rejected workload, KubeRay
# reporting ready, a spec change, a deleted and a modified child, deletes, /metrics and the probes, and SIGTERM; then
# `validate` on a large file and on the samples. The list is every function callgrind saw run in the binary, `run`'s
# first, each in order of first sight. A function only other paths reach (the webhook server, leader election,
# `render`'s output) is left out and stays in the rest of the text.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../test/harness/lib.sh"

(($# >= 1)) || { sed -n '7,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
build="$(cd "$1" && pwd)"
out="${2:-$CFO_REPO_DIR/controller/cmd/hot-functions.txt}"
operator="$build/controller/cmd/codeflare-operator"
[[ -x "$operator" ]] || cfo_die "no operator binary at $operator"
command -v valgrind >/dev/null || cfo_die "valgrind is needed (apt-get install valgrind)"
work="$(mktemp -d)"
state="$work/control-plane"
vg_pid=""
cleanup() {
  [[ -n "$vg_pid" ]] && kill "$vg_pid" 2>/dev/null || true
  "$CFO_HARNESS_DIR/control-plane.sh" stop "$state" --purge >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

"$CFO_HARNESS_DIR/control-plane.sh" start "$state" --crds >&2
# shellcheck source=/dev/null
source "$state/env"
k=(kubectl --kubeconfig "$state/kubeconfig")
mapfile -t ports < <(cfo_free_ports 2)
status_patch() { # namespace raycluster: KubeRay's ready status
  curl -sf -o /dev/null --cacert "$CFO_CA_FILE" -H "Authorization: Bearer $CFO_ADMIN_TOKEN" \
    -H "Content-Type: application/merge-patch+json" -X PATCH \
    "$CFO_APISERVER_URL/apis/ray.io/v1/namespaces/$1/rayclusters/$2/status" \
    -d '{"status":{"state":"ready","desiredWorkerReplicas":2,"availableWorkerReplicas":2,"readyWorkerReplicas":2}}'
}
wait_for() { # seconds command...: polls until the command succeeds
  local deadline=$((SECONDS + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || cfo_die "timed out waiting for: $*"
    sleep 1
  done
}

"${k[@]}" create namespace existing >&2
for i in 1 2 3; do
  sed "0,/^  name: .*/s//  name: existing-$i/" "$CFO_REPO_DIR/config/samples/cfw_cpu.yaml" | "${k[@]}" -n existing apply -f - >&2
done
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/callgrind.out" \
  "$operator" run --kubeconfig "$state/kubeconfig" --metrics-bind-address "127.0.0.1:${ports[0]}" \
  --health-probe-bind-address "127.0.0.1:${ports[1]}" >"$work/operator.log" 2>&1 &
vg_pid=$!
wait_for 300 curl -sf "127.0.0.1:${ports[1]}/readyz"
wait_for 120 sh -c "'${k[0]}' --kubeconfig '$state/kubeconfig' -n existing get raycluster existing-3"

"${k[@]}" create namespace demo >&2
for f in "$CFO_REPO_DIR"/config/samples/cfw_*.yaml; do "${k[@]}" -n demo apply -f "$f" >&2; done
"${k[@]}" -n demo apply -f - >&2 <<'EOF'
apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata: {name: rejected}
spec:
  workerGroups:
  - {name: workers, replicas: 1, resources: {requests: {cpu: "4"}, limits: {cpu: "2"}}}
EOF
wait_for 120 sh -c "'${k[0]}' --kubeconfig '$state/kubeconfig' -n demo get raycluster raytest-cpu"
# The samples' queues appear: their LocalQueue, ClusterQueues and flavors (cfo_sample_prerequisites).
cfo_sample_prerequisites demo | "${k[@]}" apply -f - >&2
sleep 20
for rc in raytest-cpu raytest-multi; do status_patch demo "$rc"; done
for i in 1 2 3; do status_patch existing "existing-$i"; done
"${k[@]}" -n demo patch codeflareworkload raytest-ft --type json \
  -p '[{"op":"replace","path":"/spec/workerGroups/0/replicas","value":3}]' >&2
"${k[@]}" -n existing delete raycluster existing-1 --wait=false >&2
"${k[@]}" -n existing patch raycluster existing-2 --type merge -p '{"spec":{"headGroupSpec":{"serviceType":"NodePort"}}}' >&2
sleep 20
"${k[@]}" -n demo delete codeflareworkload raytest-accel rayjob-adhoc --wait=false >&2
curl -sf "127.0.0.1:${ports[0]}/metrics" >/dev/null
curl -sf "127.0.0.1:${ports[1]}/healthz" >/dev/null
sleep 10
kill -TERM "$vg_pid"
wait "$vg_pid" || true
vg_pid=""

# Then `validate` (after `run`'s functions in the list, so that `run` does not reach into them): a file of 500
# RayClusters (over 1 MiB: converted a part per core, judged on every core) through a warm CRD cache, and the samples
# with the schemas shipped in the binary. GLIBC_TUNABLES= keeps the default heap (core/offline_heap.hpp) under valgrind.
"$operator" render -f "$CFO_REPO_DIR/config/samples/cfw_cpu.yaml" >"$work/one.yaml"
for i in $(seq 500); do echo "---"; sed "s/raytest-cpu/raytest-cpu-$i/" "$work/one.yaml"; done >"$work/many.yaml"
crds=(--crds "$UPSTREAM_CRDS" --cache-dir "$work/crd-cache")
"$operator" validate -f "$work/one.yaml" "${crds[@]}" >/dev/null
GLIBC_TUNABLES='' valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/callgrind.validate-many.out"   "$operator" validate -f "$work/many.yaml" "${crds[@]}" >/dev/null 2>"$work/validate.log"
GLIBC_TUNABLES='' valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/callgrind.validate-samples.out"   "$operator" validate -f "$CFO_REPO_DIR/config/samples" >/dev/null 2>>"$work/validate.log" || true

# callgrind names a function once per object file ("fn=(id) name" after "ob=(id) file"), later by id only; a
# recursive call's copy carries a "'N" suffix.
"$(cfo_python)" - "$(basename "$operator")" "$work/callgrind.out" "$work/callgrind.validate-many.out" \
  "$work/callgrind.validate-samples.out" >"$out" <<'PY'
import re, sys
seen = set()
for path in sys.argv[2:]:
    objects, names, current = {}, {}, ""
    for line in open(path, errors="replace"):
        m = re.match(r"(c?ob|c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not m:
            continue
        kind, ident, name = m.groups()
        table = objects if kind.endswith("ob") else names
        if name:
            table[ident] = name
        if kind == "ob":
            current = objects.get(ident, "")
        elif kind == "fn" and current.endswith("/" + sys.argv[1]):
            symbol = re.sub(r"'\d+$", "", names.get(ident, ""))
            if symbol and not symbol.startswith("0x") and symbol not in seen:  # 0x...: no symbol (a PLT entry)
                seen.add(symbol)
                print(symbol)
PY
cfo_log "$(wc -l <"$out") functions written to $out"
