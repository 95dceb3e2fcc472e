#!/usr/bin/env bash
# Integration test: the control plane serves the CRDs this project works with, and they accept upstream samples.
#
# Checks
#   1. RayCluster, AppWrapper, LocalQueue, WorkloadPriorityClass and CodeFlareWorkload are served: `kubectl get crd`
#      finds each CRD and `kubectl api-resources` lists its resource. CodeFlareWorkload is skipped, with a message,
#      while crds/codeflare.dev_codeflareworkloads.yaml does not exist in the checkout.
#   2. `kubectl apply --dry-run=server` (`create` for objects with generateName) accepts every document of every
#      upstream sample in $CFO_SHARED_DIR/samples/upstream whose apiVersion/kind the server serves; other kinds are
#      skipped. Documents without a namespace go to the namespace cfo-crds-served; namespaces a sample names are
#      created when missing.
#   3. `kubectl explain` walks the Pod template schema of the CodeFlareWorkload CRD (spec.workerGroups.template.spec.
#      affinity, spec.head.template.spec.containers, spec.job.submitter.template.spec.nodeSelector).
#   4. The apiserver prunes nothing from a CodeFlareWorkload: every sample of config/samples and
#      test/integration/cfw_pod_template_fields.yaml (many PodSpec fields in templates), applied with --dry-run=server,
#      comes back holding every field it was sent (defaults may be added, nothing is removed).
# Inputs:  KUBECONFIG (set by the ctest fixture), CFO_SHARED_DIR (optional: without it check 2 is skipped),
#          KUBECTL (optional). Works with Debian's kubectl 1.20 and with newer clients.
# Output:  one line per check, then "N passed, N failed"; exit 1 when anything failed.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../harness/lib.sh"

[[ -n "${KUBECONFIG:-}" && -f "$KUBECONFIG" ]] || cfo_die "KUBECONFIG must name the control plane's kubeconfig"
k() { "${KUBECTL:-kubectl}" --kubeconfig "$KUBECONFIG" "$@"; }
py="$(cfo_python)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cfo_tally_begin

# --- 1. the CRDs are served ----------------------------------------------------------------------------------------
crds=(rayclusters.ray.io appwrappers.workload.codeflare.dev localqueues.kueue.x-k8s.io
  workloadpriorityclasses.kueue.x-k8s.io)
if [[ -f "$CFO_REPO_DIR/crds/codeflare.dev_codeflareworkloads.yaml" ]]; then
  crds+=(codeflareworkloads.codeflare.dev)
else
  echo "skip CodeFlareWorkload: crds/codeflare.dev_codeflareworkloads.yaml does not exist yet"
fi

k api-resources -o name >"$work/api-resources" 2>"$work/api-resources.err" ||
  { cat "$work/api-resources.err" >&2; cfo_die "kubectl api-resources failed"; }
for crd in "${crds[@]}"; do
  if ! k get crd "$crd" -o name >/dev/null 2>"$work/err"; then
    fail "crd/$crd: $(tr '\n' ' ' <"$work/err")"
  elif ! grep -qx "$crd" "$work/api-resources"; then
    fail "crd/$crd exists but kubectl api-resources does not list $crd"
  else
    pass "crd/$crd served"
  fi
done

# --- 2. upstream samples pass a server-side dry run ----------------------------------------------------------------
samples="${CFO_SHARED_DIR:-}/samples/upstream"
if [[ -z "${CFO_SHARED_DIR:-}" || ! -d "$samples" ]]; then
  echo "skip samples: CFO_SHARED_DIR is not set or has no samples/upstream"
else
  # Split every sample into one JSON file per document; list: file|apiVersion|kind|namespace|generateName.
  "$py" - "$samples" "$work/docs" >"$work/docs.tsv" <<'PY'
import glob, json, os, sys, yaml
src, out = sys.argv[1:3]
os.makedirs(out)
for path in sorted(glob.glob(os.path.join(src, "*.yaml")) + sorted(glob.glob(os.path.join(src, "*.yml")))):
    with open(path, encoding="utf-8") as f:
        docs = [d for d in yaml.safe_load_all(f) if isinstance(d, dict)]
    for i, doc in enumerate(docs):
        meta = doc.get("metadata") or {}
        target = os.path.join(out, f"{os.path.basename(path)}.{i}.json")
        with open(target, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        print("|".join([target, doc.get("apiVersion", ""), doc.get("kind", ""), meta.get("namespace") or "",
                         "1" if meta.get("generateName") and not meta.get("name") else ""]))
PY
  ns=cfo-crds-served
  k get namespace "$ns" >/dev/null 2>&1 || k create namespace "$ns" >/dev/null

  # Kinds served for one apiVersion, from the discovery document (same JSON for every kubectl version).
  served_kinds() {
    local gv="$1" cache="$work/gv-${1//\//_}"
    if [[ ! -f "$cache" ]]; then
      local url="/apis/$gv"
      [[ "$gv" == v1 ]] && url=/api/v1
      if k get --raw "$url" >"$cache.json" 2>/dev/null; then
        "$py" -c 'import json,sys; print("\n".join(r["kind"] for r in json.load(open(sys.argv[1]))["resources"]))' \
          "$cache.json" >"$cache"
      else
        : >"$cache"
      fi
    fi
    cat "$cache"
  }

  while IFS="|" read -r file gv kind docns generated; do
    name="$(basename "$file" .json)"
    if ! served_kinds "$gv" | grep -qx "$kind"; then
      echo "skip $name: $gv $kind is not served"
      continue
    fi
    if [[ -n "$docns" ]] && ! k get namespace "$docns" >/dev/null 2>&1; then
      k create namespace "$docns" >/dev/null
    fi
    verb=(apply)
    [[ "$generated" == 1 ]] && verb=(create)
    if k "${verb[@]}" --dry-run=server -n "${docns:-$ns}" -f "$file" >"$work/out" 2>&1; then
      pass "$name: $kind accepted by ${verb[0]} --dry-run=server"
    else
      fail "$name: $kind rejected: $(tr '\n' ' ' <"$work/out")"
    fi
  done <"$work/docs.tsv"
fi

# --- 3. kubectl explain walks the generated Pod template schema --------------------------------------------------
if [[ -f "$CFO_REPO_DIR/crds/codeflare.dev_codeflareworkloads.yaml" ]]; then
  for field in "cfw.spec.workerGroups.template.spec.affinity:nodeAffinity" \
    "cfw.spec.head.template.spec.containers:securityContext" \
    "cfw.spec.job.submitter.template.spec.nodeSelector:<map[string]string>" \
    "cfw.spec.template.metadata.labels:Pod labels"; do
    path="${field%%:*}" want="${field#*:}"
    if k explain "$path" >"$work/explain" 2>&1 && grep -qF -- "$want" "$work/explain"; then
      pass "kubectl explain $path (shows $want)"
    else
      fail "kubectl explain $path: $(head -c 400 "$work/explain" | tr '\n' ' ')"
    fi
  done

  # --- 4. nothing of a CodeFlareWorkload is pruned -----------------------------------------------------------------
  ns=cfo-crds-served
  k get namespace "$ns" >/dev/null 2>&1 || k create namespace "$ns" >/dev/null
  # The control: a field the schema does not declare is pruned, and this check must see it.
  "$py" - "$CFO_REPO_DIR/test/integration/cfw_pod_template_fields.yaml" "$work/control_pruned.yaml" <<'PY'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
doc["spec"]["head"]["template"]["spec"]["notAPodSpecField"] = 1
yaml.safe_dump(doc, open(sys.argv[2], "w", encoding="utf-8"))
PY
  for f in "$CFO_REPO_DIR"/config/samples/cfw_*.yaml "$CFO_REPO_DIR"/test/integration/cfw_pod_template_fields.yaml \
    "$work/control_pruned.yaml"; do
    name="$(basename "$f")"
    control=0
    [[ "$name" == control_pruned.yaml ]] && control=1
    # The control skips kubectl's own schema check (which refuses the undeclared field before the apiserver sees it).
    validate_flag=()
    ((control)) && validate_flag=(--validate=false)
    if ! k apply --dry-run=server "${validate_flag[@]}" -n "$ns" -o json -f "$f" >"$work/applied.json" 2>"$work/err"; then
      fail "$name: refused by the apiserver: $(head -c 400 "$work/err" | tr '\n' ' ')"
      continue
    fi
    if missing="$("$py" - "$f" "$work/applied.json" <<'PY'
import json, sys, yaml
sent = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))["spec"]
got = json.load(open(sys.argv[2], encoding="utf-8"))["spec"]
missing = []
def covers(a, b, at):
    if isinstance(a, dict):
        if not isinstance(b, dict):
            missing.append(at); return
        for k, v in a.items():
            if k not in b: missing.append(f"{at}.{k}")
            else: covers(v, b[k], f"{at}.{k}")
    elif isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b): missing.append(at); return
        for i, (x, y) in enumerate(zip(a, b)): covers(x, y, f"{at}[{i}]")
    elif a != b and not (isinstance(a, (int, float)) and str(a) == str(b)):
        missing.append(f"{at} ({a!r} -> {b!r})")
covers(sent, got, "spec")
print("; ".join(missing[:5]))
sys.exit(1 if missing else 0)
PY
)"; then
      if ((control)); then fail "$name: the undeclared field was kept, or not seen pruned"; else
        pass "$name: the apiserver keeps every field of the workload"
      fi
    elif ((control)); then
      pass "$name: an undeclared field is seen pruned ($missing)"
    else
      fail "$name: the apiserver pruned or changed: $missing"
    fi
  done
fi

echo "$passed passed, $failed failed"
((failed == 0))
