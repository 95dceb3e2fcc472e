#!/usr/bin/env bash
# Test: the Grafana dashboard and the alerts of deploy/monitoring/ read metrics the operator really exports, parse as
# PromQL, and the alerts fire when they should and only then. No server needed.
#
# Checks
#   1. check_monitoring.py against controller/metrics/*.cpp: the dashboard's structure and the alerts' labels and
#      annotations; every metric name used is exported, with the functions its type needs, scoped to the job; the
#      dashboard shows every exported family. (monitoring_scrape does the same against a running operator.)
#   2. The copies in the Helm chart and config/ are those of deploy/monitoring/ (deploy/monitoring/sync.sh --check).
#   3. `promtool check rules` on the alerts, and on the dashboard's queries written as recording rules (Grafana's
#      variables replaced by plain values): both parse as PromQL, and the alerts' templates parse.
#   4. `promtool test rules test/monitoring/alerts_test.yaml`: each alert fires on its scenario with the expected
#      labels and annotations, and none fires on a healthy operator, a standby or a leader handover.
# Inputs:  promtool from test/harness/fetch-promtool.sh (CFO_PROMTOOL overrides); python3 with yaml.
# Output:  one line per check, then "N passed, N failed"; exit 1 when anything failed.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../harness/lib.sh"

py="$(cfo_python)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$CFO_REPO_DIR"
dashboard=deploy/monitoring/codeflare-operator-dashboard.json
alerts=deploy/monitoring/codeflare-operator-alerts.yaml

cfo_tally_begin

# --- 1. names, types, structure ------------------------------------------------------------------------------------
status=0
"$py" test/monitoring/check_monitoring.py check --dashboard "$dashboard" --rules "$alerts" \
  --source controller/metrics --promql-out "$work/dashboard-rules.yaml" >"$work/check.out" 2>"$work/check.err" ||
  status=$?
while IFS= read -r line; do
  case "$line" in
    "ok "*) pass "${line#ok }" ;;
    "FAIL "*) fail "${line#FAIL }" ;;
    *) echo "     $line" ;;
  esac
done <"$work/check.out"
((status == 0)) || fail "check_monitoring.py exited $status: $(tr '\n' ' ' <"$work/check.err")"

# --- 2. the copies -------------------------------------------------------------------------------------------------
if deploy/monitoring/sync.sh --check 2>"$work/sync.err"; then
  pass "the copies in deploy/helm/codeflare-operator/files/, config/grafana/ and config/prometheus-rules/ are up to date"
else
  fail "$(tr '\n' ' ' <"$work/sync.err" | head -c 1500)"
fi

# --- 3-4. promtool -------------------------------------------------------------------------------------------------
if ! promtool="$(test/harness/fetch-promtool.sh 2>"$work/fetch.err")"; then
  fail "no promtool: $(tr '\n' ' ' <"$work/fetch.err")"
else
  if "$promtool" check rules "$alerts" >"$work/promtool.out" 2>&1; then
    pass "promtool check rules $alerts: $(grep -o 'SUCCESS.*' "$work/promtool.out")"
  else
    fail "promtool check rules $alerts: $(tr '\n' ' ' <"$work/promtool.out")"
  fi
  if [[ -s "$work/dashboard-rules.yaml" ]] && "$promtool" check rules "$work/dashboard-rules.yaml" >"$work/promtool.out" 2>&1; then
    pass "promtool check rules on the dashboard's queries: $(grep -o 'SUCCESS.*' "$work/promtool.out")"
  else
    fail "promtool check rules on the dashboard's queries: $(tr '\n' ' ' <"$work/promtool.out" 2>/dev/null)"
  fi
  if (cd test/monitoring && "$promtool" test rules alerts_test.yaml) >"$work/promtool.out" 2>&1; then
    pass "promtool test rules test/monitoring/alerts_test.yaml: $(grep -c '^- name:' test/monitoring/alerts_test.yaml) scenarios as expected"
  else
    fail "promtool test rules test/monitoring/alerts_test.yaml: $(cat "$work/promtool.out")"
  fi
fi

echo "$passed passed, $failed failed"
((failed == 0))
