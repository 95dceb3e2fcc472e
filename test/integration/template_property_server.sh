#!/usr/bin/env bash
# The property test of the Pod template overrides, judged by the real apiserver: what the operator accepts is never
# refused by the apiserver, nor are the Pods KubeRay then creates from it.
#
# Checks
#   1. The unit property test (TemplateProperty.*, test/unit/workload/template_property_test.cpp) passes with
#      CFO_PROPERTY_CASES cases (default 150) and writes the objects of every case whose fragments are valid.
#   2. Each of those objects (RayCluster or RayJob) is accepted by `kubectl apply --dry-run=server`.
#   3. The Pods KubeRay v1.7 would create from each of them (the head and the first worker group, with
#      test/mutations/kuberay_pod.py; the submitter Job's Pod of a RayJob from its submitterPodTemplate) are accepted
#      by `kubectl create --dry-run=server`, after the objects the fragments name exist: ServiceAccount storage-reader,
#      PriorityClass research, RuntimeClass nvidia (the admission plugins look them up).
# Inputs:  KUBECONFIG (the ctest fixture's), CFO_UNIT_WORKLOAD_BIN (the unit_workload binary), UPSTREAM_CRDS,
#          CFO_PROPERTY_CASES and CFO_PROPERTY_SEED (optional), KUBECTL (optional).
# Output:  one line per check, then "N passed, N failed"; exit 1 when anything failed.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../harness/lib.sh"

[[ -n "${KUBECONFIG:-}" && -f "$KUBECONFIG" ]] || cfo_die "KUBECONFIG must name the control plane's kubeconfig"
[[ -x "${CFO_UNIT_WORKLOAD_BIN:-}" ]] || cfo_die "CFO_UNIT_WORKLOAD_BIN must name the unit_workload binary"
[[ -d "${UPSTREAM_CRDS:-}/upstream" ]] || cfo_die "UPSTREAM_CRDS must name a folder with upstream/"
k() { "${KUBECTL:-kubectl}" --kubeconfig "$KUBECONFIG" "$@"; }
py="$(cfo_python)"
work="$(mktemp -d)"
ns="tpl-property-$RANDOM"
cleanup() {
  k delete namespace "$ns" --wait=false >/dev/null 2>&1 || true
  k delete priorityclass research --ignore-not-found >/dev/null 2>&1 || true
  k delete runtimeclass nvidia --ignore-not-found >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

cfo_tally_begin

# --- 1. the property test, writing its valid cases ----------------------------------------------------------------
mkdir -p "$work/cases" "$work/objects" "$work/pods"
if CFO_PROPERTY_DUMP="$work/cases" CFO_PROPERTY_CASES="${CFO_PROPERTY_CASES:-150}" \
  "$CFO_UNIT_WORKLOAD_BIN" --gtest_filter='TemplateProperty.*' >"$work/unit.log" 2>&1; then
  pass "property test: $(grep -o '[0-9]* cases: .*' "$work/unit.log")"
else
  fail "property test: $(tail -c 800 "$work/unit.log")"
fi

# --- prerequisites the fragments name ------------------------------------------------------------------------------
k create namespace "$ns" >/dev/null
k apply -f - >/dev/null <<EOF
apiVersion: v1
kind: ServiceAccount
metadata: {name: storage-reader, namespace: $ns}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: research}
value: 1000
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: nvidia}
handler: nvidia
EOF

# --- 2 and 3: one file per object and per Pod ----------------------------------------------------------------------
PYTHONPATH="$CFO_REPO_DIR/test/mutations" "$py" - "$work/cases" "$work/objects" "$work/pods" "$ns" <<'PY'
import glob, json, os, sys
from kuberay_pod import build_pod

cases, objects, pods, ns = sys.argv[1:5]
n = 0
for path in sorted(glob.glob(os.path.join(cases, "*.json"))):
    case = os.path.basename(path)[:-5]
    for item in json.load(open(path, encoding="utf-8"))["items"]:
        item["metadata"]["namespace"] = ns
        item["metadata"].pop("ownerReferences", None)  # the workload does not exist here
        kind = item["kind"]
        json.dump(item, open(os.path.join(objects, f"{case}.{kind}.json"), "w"))
        cluster = item
        if kind == "RayJob":
            cluster = {"metadata": {"name": item["metadata"]["name"] + "-abcde"}, "spec": item["spec"]["rayClusterSpec"]}
            sub = item["spec"].get("submitterPodTemplate")
            if sub:
                pod = {"apiVersion": "v1", "kind": "Pod", "metadata": dict(sub.get("metadata") or {}),
                       "spec": sub["spec"]}
                pod["metadata"]["name"] = f"{case}-submitter"
                json.dump(pod, open(os.path.join(pods, f"{case}.submitter.json"), "w"))
        for node in ("head", "worker"):
            pod = build_pod(cluster, node, 0, ns)
            if pod is None:
                continue
            pod["metadata"].pop("generateName", None)
            pod["metadata"]["name"] = f"{case}-{node}"
            json.dump(pod, open(os.path.join(pods, f"{case}.{node}.json"), "w"))
PY

# One kubectl call per folder: it sends every file and names each one it cannot create.
objects="$(find "$work/objects" -name '*.json' | wc -l)" pods="$(find "$work/pods" -name '*.json' | wc -l)"
((objects > 0 && pods > 0)) || fail "no valid case was written"
if k apply --dry-run=server -n "$ns" -f "$work/objects" >"$work/out" 2>&1; then
  pass "$objects RayClusters and RayJobs of valid cases accepted by apply --dry-run=server"
else
  fail "RayClusters or RayJobs refused by the apiserver: $(grep -v ' (server dry run)$' "$work/out" | head -c 1500)"
fi
if k create --dry-run=server -n "$ns" -f "$work/pods" >"$work/out" 2>&1; then
  pass "$pods Pods KubeRay would create from them accepted by create --dry-run=server"
else
  fail "Pods refused by the apiserver: $(grep -v ' (server dry run)$' "$work/out" | head -c 1500)"
fi

echo "$passed passed, $failed failed"
((failed == 0))
