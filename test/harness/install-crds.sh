#!/usr/bin/env bash
# Installs CustomResourceDefinitions into a cluster and waits until each one is Established and its schema is in the
# apiserver's /openapi/v2 (published a little later, in the background: kubectl's client-side validation reads it,
# and a kubectl run before that would not check the kind's fields at all).
#
# Usage: install-crds.sh <kubeconfig> [<dir>...]
#   Every CRD file of each <dir> is applied (*.yaml, *.yml; kustomization.yaml and non-CRD files skipped). A <dir>
#   laid out like shared/crds (with an apiserver-1.20/ sub-folder) stands for its apiserver-1.20/ copies, which
#   kube-apiserver 1.20 accepts (it rejects some upstream originals).
#   Without <dir>: the upstream CRDs ($UPSTREAM_CRDS, else fetched by fetch-upstream-crds.sh) plus the project's
#   own crds/ when it has files.
# Inputs:  UPSTREAM_CRDS (optional), KUBECTL (optional, default: kubectl on PATH), CFO_CRD_WAIT_SECONDS
#          (optional, default 300: how long to wait for Established and for the OpenAPI definitions).
# Output:  the CRD names on stdout once all are ready; exit 1 when an apply or the wait fails.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/lib.sh"

(($# >= 1)) || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
kubeconfig="$1"
shift
[[ -f "$kubeconfig" ]] || cfo_die "no kubeconfig at $kubeconfig"
kubectl=("${KUBECTL:-kubectl}" --kubeconfig "$kubeconfig")
err_file="$(mktemp)"
trap 'rm -f "$err_file"' EXIT

dirs=("$@")
if ((${#dirs[@]} == 0)); then
  upstream="${UPSTREAM_CRDS:-}"
  [[ -n "$upstream" ]] || upstream="$("$CFO_HARNESS_DIR/fetch-upstream-crds.sh" | tail -n1)"
  dirs=("$upstream")
  if compgen -G "$CFO_REPO_DIR/crds/*.yaml" >/dev/null; then
    dirs+=("$CFO_REPO_DIR/crds")
  else
    cfo_log "no CRD files in $CFO_REPO_DIR/crds yet (skipped)"
  fi
fi

files=()
shopt -s nullglob
for dir in "${dirs[@]}"; do
  [[ -d "$dir/apiserver-1.20" ]] && dir="$dir/apiserver-1.20"
  if [[ ! -d "$dir" ]]; then
    cfo_die "no folder $dir"
  fi
  found=0
  for f in "$dir"/*.yaml "$dir"/*.yml; do
    [[ "$(basename "$f")" == kustomization.yaml ]] && continue
    grep -q '^kind: *CustomResourceDefinition' "$f" || continue
    files+=("$f")
    found=1
  done
  ((found)) || cfo_log "no CRD files in $dir (skipped)"
done
((${#files[@]})) || cfo_die "no CRD files in: ${dirs[*]}"

# One kubectl call for all files (one discovery round trip). Server-side apply: the biggest CRDs (RayJob) exceed the
# annotation size limit of client-side apply.
apply_args=()
for f in "${files[@]}"; do apply_args+=(-f "$f"); done
if ! out="$("${kubectl[@]}" apply --server-side --force-conflicts --field-manager=codeflare-test-harness \
  -o name "${apply_args[@]}" 2>&1)"; then
  echo "$out" >&2
  cfo_die "kubectl apply failed for: ${files[*]}"
fi
names=()
while read -r line; do
  if [[ "$line" == customresourcedefinition.apiextensions.k8s.io/* ]]; then
    names+=("crd/${line#*/}")
  fi
done <<<"$out"
((${#names[@]})) || cfo_die "kubectl apply reported no CRD names"

# kubectl wait fails at once (instead of waiting) while a new CRD has no status.conditions yet, so retry it.
timeout_s="${CFO_CRD_WAIT_SECONDS:-300}"
deadline=$((SECONDS + timeout_s))
until "${kubectl[@]}" wait --for=condition=Established --timeout=10s "${names[@]}" >/dev/null 2>"$err_file"; do
  if ((SECONDS >= deadline)); then
    cat "$err_file" >&2
    cfo_die "not all CRDs became Established within $timeout_s s: ${names[*]}"
  fi
  sleep 1
done
# The OpenAPI v2 definition of every served version: <group, reversed>.<version>.<Kind>.
py="$(cfo_python)"
wanted="$("$py" - "${files[@]}" <<'PY'
import sys, yaml
for path in sys.argv[1:]:
    for doc in yaml.safe_load_all(open(path, encoding="utf-8")):
        if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
            spec = doc["spec"]
            group = ".".join(reversed(spec["group"].split(".")))
            for v in spec.get("versions") or []:
                if v.get("served"):
                    print("%s.%s.%s" % (group, v["name"], spec["names"]["kind"]))
PY
)"
until missing="$("${kubectl[@]}" get --raw /openapi/v2 2>"$err_file" | "$py" -c '
import json, sys
have = json.load(sys.stdin).get("definitions", {})
print(" ".join(n for n in sys.argv[1].split() if n not in have))' "$wanted" 2>>"$err_file")" && [[ -z "$missing" ]]; do
  if ((SECONDS >= deadline)); then
    cat "$err_file" >&2
    cfo_die "not in /openapi/v2 within $timeout_s s: ${missing:-(could not read it)}"
  fi
  sleep 1
done
printf '%s\n' "${names[@]#crd/}"
cfo_log "${#names[@]} CRDs established, $(wc -w <<<"$wanted") OpenAPI definitions published"
