#!/usr/bin/env bash
# The ctest "reconcile_bench" (label bench): keeps `make bench-reconcile` from rotting. Runs bench/reconcile-bench.sh
# with a tiny N (no peer) and checks that every figure it promises is printed as key=value with a number. Timings
# are not judged.
#
# Usage:  reconcile-bench-test.sh <build-dir> [N]     (N default 5)
# Inputs: UPSTREAM_CRDS as for reconcile-bench.sh; the state goes to <build-dir>/bench-reconcile-test.
# Output: the benchmark's lines; exit 1 naming the keys that are missing or not numbers.
set -euo pipefail
(($# >= 1)) || { sed -n '6,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
build="$1"
n="${2:-5}"
here="$(cd "$(dirname "$0")" && pwd)"

output="$("$here/reconcile-bench.sh" "$build" -n "$n" --out "$build/bench-reconcile-test")"
echo "$output"

keys=(
  n objects_per_second seconds loader_objects_per_second start_ready_seconds
  requests_per_workload requests_per_workload_PATCH dry_run_requests_per_workload
  reconciles_per_workload
  cpu_ms_per_workload rss_start_kib rss_at_n_kib rss_anon_at_n_kib rss_file_at_n_kib rss_file_at_n_kib_self rss_peak_kib
  rss_per_workload_kib
  apiserver_cpu_ms_per_workload
  seconds_after_last_create kuberay_status_write_requests_per_workload startup_ready_seconds startup_seconds startup_reconciles startup_write_requests
  startup_changed_objects startup_cpu_ms startup_rss_peak_kib
  startup_rss_steady_kib startup_rss_peak_to_steady apiserver_list_items apiserver_list_seconds startup_to_list_ratio
  apiserver_list_rayclusters_seconds apiserver_list_both_seconds startup_to_both_lists_ratio
  apiserver_list_cached_seconds startup_to_cached_list_ratio
  backlog_objects_per_second backlog_cpu_ms_per_workload backlog_apiserver_cpu_ms_per_workload
)
missing=()
for k in "${keys[@]}"; do
  grep -Eq "^$k=[0-9]+(\.[0-9]+)?$" <<<"$output" || missing+=("$k")
done
if ((${#missing[@]})); then
  echo "reconcile-bench-test: missing or not a number: ${missing[*]}" >&2
  exit 1
fi
# Behaviour, not speed: every workload was counted, and the restart reconciled each of them.
grep -qx "n=$n" <<<"$output" || { echo "reconcile-bench-test: n is not $n" >&2; exit 1; }
grep -qx "apiserver_list_items=$n" <<<"$output" || { echo "reconcile-bench-test: the LIST did not see $n workloads" >&2; exit 1; }
echo "reconcile-bench-test: all ${#keys[@]} keys printed"
