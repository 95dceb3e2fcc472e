#!/usr/bin/env bash
# Writes the copies of the monitoring files that the Helm chart and kustomize need (neither can read a file outside
# its own folder) from the sources in deploy/monitoring/:
#   codeflare-operator-dashboard.json -> deploy/helm/codeflare-operator/files/  and  config/grafana/
#   codeflare-operator-alerts.yaml    -> deploy/helm/codeflare-operator/files/  (as it is)
#                                     -> config/prometheus-rules/prometheus_rule.yaml (its "groups:" on, as the
#                                        spec of a PrometheusRule whose head this script keeps)
#
# Usage:   deploy/monitoring/sync.sh           rewrite the copies
#          deploy/monitoring/sync.sh --check   exit 1 (and print a diff) when a copy is out of date
# Run it after every change to the sources; test/monitoring/monitoring_test.sh fails while a copy differs.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
dashboard="$here/codeflare-operator-dashboard.json"
alerts="$here/codeflare-operator-alerts.yaml"
chart_files="$repo/deploy/helm/codeflare-operator/files"
rule="$repo/config/prometheus-rules/prometheus_rule.yaml"

grep -q '^groups:$' "$alerts" || { echo "$0: no line 'groups:' in $alerts" >&2; exit 1; }
grep -q '^spec:$' "$rule" || { echo "$0: no line 'spec:' in $rule" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The PrometheusRule: its own head (everything up to "spec:"), then the rule file's groups indented under spec.
{
  sed -n '1,/^spec:$/p' "$rule"
  sed -n '/^groups:$/,$p' "$alerts" | sed 's/^\(.\)/  \1/'
} >"$work/prometheus_rule.yaml"

# copy <source> <destination>
status=0
copy() {
  if [[ "${check:-}" == 1 ]]; then
    if ! cmp -s "$1" "$2"; then
      echo "$0: ${2#"$repo"/} is out of date with ${3:-${1#"$repo"/}} (run deploy/monitoring/sync.sh):" >&2
      diff -u "$2" "$1" 2>&1 | head -20 >&2 || true
      status=1
    fi
  else
    cmp -s "$1" "$2" || cp "$1" "$2"
  fi
}
check=0
[[ "${1:-}" == --check ]] && check=1
copy "$dashboard" "$chart_files/codeflare-operator-dashboard.json"
copy "$alerts" "$chart_files/codeflare-operator-alerts.yaml"
copy "$dashboard" "$repo/config/grafana/codeflare-operator-dashboard.json"
copy "$work/prometheus_rule.yaml" "$rule" "deploy/monitoring/codeflare-operator-alerts.yaml"
exit "$status"
