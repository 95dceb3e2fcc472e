#!/usr/bin/env bash
# Rewrites the chart's CRD template (codeflare-operator/templates/crds/codeflareworkloads.yaml) from the project's CRD
# (crds/codeflare.dev_codeflareworkloads.yaml): the template keeps its own head (the if, the Helm labels and the
# resource-policy annotation, everything before the line "spec:") and takes everything from "spec:" on from crds/.
#
# Usage:   deploy/helm/sync-crd.sh           rewrite the template
#          deploy/helm/sync-crd.sh --check   exit 1 (and print a diff) when the template is out of date
# Run it after every change to crds/; test/integration/helm_chart.sh fails while the chart's CRD differs.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
src="$repo/crds/codeflare.dev_codeflareworkloads.yaml"
tpl="$here/codeflare-operator/templates/crds/codeflareworkloads.yaml"

grep -q '^spec:$' "$src" || { echo "$0: no line 'spec:' in $src" >&2; exit 1; }
grep -q '^spec:$' "$tpl" || { echo "$0: no line 'spec:' in $tpl" >&2; exit 1; }
# Template delimiters in the CRD would be executed by Helm.
if grep -n '{{\|}}' "$src" >&2; then
  echo "$0: $src holds {{ or }}, which Helm would read as template actions" >&2
  exit 1
fi

new="$(mktemp)"
trap 'rm -f "$new"' EXIT
{
  sed -n '1,/^spec:$/{/^spec:$/d;p}' "$tpl"
  sed -n '/^spec:$/,$p' "$src"
  echo '{{- end }}'
} >"$new"

if [[ "${1:-}" == --check ]]; then
  if cmp -s "$new" "$tpl"; then
    exit 0
  fi
  echo "$0: $tpl is out of date with $src (run deploy/helm/sync-crd.sh):" >&2
  diff -u "$tpl" "$new" | head -40 >&2 || true
  exit 1
fi
cp "$new" "$tpl"
