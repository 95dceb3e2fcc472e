#!/usr/bin/env bash
# The CodeFlareWorkload CRD's generated Pod template schema, its size and its 1.20 compatibility (no server needed).
#
# Checks
#   1. hack/gen-pod-template-schema.py --check: the PodTemplateSpec blocks of crds/codeflare.dev_codeflareworkloads.yaml
#      are what the script generates from the pinned KubeRay CRD ($UPSTREAM_CRDS).
#   2. The CRD as compact JSON stays below 256 KiB minus 4 KiB: `kubectl apply` (client side) keeps the whole object in
#      the last-applied-configuration annotation, and all annotations of an object together may hold at most 256 KiB
#      (apimachinery TotalAnnotationSizeLimitB); the 4 KiB leave room for the labels and annotations kustomize and Helm
#      add. The figures are printed.
#   3. What kube-apiserver 1.20 refuses is absent: no x-kubernetes-validations, no empty-string default, every list-map
#      key required or defaulted.
# Inputs:  UPSTREAM_CRDS (folder with upstream/). Output: one line per check; exit 1 when one fails.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../harness/lib.sh"

[[ -d "${UPSTREAM_CRDS:-}/upstream" ]] || cfo_die "UPSTREAM_CRDS must name a folder with upstream/"
py="$(cfo_python)"
crd="$CFO_REPO_DIR/crds/codeflare.dev_codeflareworkloads.yaml"
failed=0

if "$py" "$CFO_REPO_DIR/hack/gen-pod-template-schema.py" --check "$UPSTREAM_CRDS" "$crd"; then
  echo "ok   the generated PodTemplateSpec blocks are up to date"
else
  echo "FAIL the generated PodTemplateSpec blocks are out of date"
  failed=1
fi

"$py" - "$crd" <<'PY' || failed=1
import json, sys, yaml

path = sys.argv[1]
with open(path, encoding="utf-8") as f:
    crd = yaml.safe_load(f)
limit, margin = 256 * 1024, 4 * 1024
size = len(json.dumps(crd, separators=(",", ":")))
ok = True
if size <= limit - margin:
    print(f"ok   the CRD is {size} bytes of compact JSON ({limit - size} below the 256 KiB annotation limit)")
else:
    print(f"FAIL the CRD is {size} bytes of compact JSON, above {limit - margin} (256 KiB - 4 KiB): client-side "
          "`kubectl apply` could not store it")
    ok = False

problems = []
def walk(node, at):
    if isinstance(node, dict):
        if "x-kubernetes-validations" in node:
            problems.append(f"{at}: x-kubernetes-validations")
        if node.get("default") == "":
            problems.append(f"{at}: empty-string default")
        if node.get("x-kubernetes-list-type") == "map" and isinstance(node.get("items"), dict):
            items = node["items"]
            for k in node.get("x-kubernetes-list-map-keys") or []:
                if k not in (items.get("required") or []) and "default" not in (items.get("properties", {}).get(k) or {}):
                    problems.append(f"{at}: list-map key {k} neither required nor defaulted")
        for key, value in node.items():
            walk(value, f"{at}.{key}" if at else key)
    elif isinstance(node, list):
        for i, item in enumerate(node):
            walk(item, f"{at}[{i}]")
walk(crd, "")
if problems:
    print("FAIL kube-apiserver 1.20 would refuse: " + "; ".join(problems[:5]))
    ok = False
else:
    print("ok   nothing kube-apiserver 1.20 refuses (CEL rules, empty-string defaults, list-map keys)")
sys.exit(0 if ok else 1)
PY

((failed == 0))
