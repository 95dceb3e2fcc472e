#!/usr/bin/env bash
# Coverage-guided fuzzing of the harnesses in test/fuzz with libFuzzer (`make fuzz`).
#
# Usage:   test/harness/fuzz.sh BUILD_DIR SECONDS [TARGET]
#   BUILD_DIR  the fuzzing build folder (configured here with clang++-19, -DCFO_FUZZ=ON: ASan + UBSan + libFuzzer)
#   SECONDS    how long each harness runs
#   TARGET     one harness name (yaml, json, quantity, label_selector, cel, kubeconfig, watch_event, validate,
#              workload); all of them when empty
# Inputs:  UPSTREAM_CRDS (laid out like shared/crds) for the validate and workload harnesses; FUZZ_JOBS (default 2)
#          compile jobs; FUZZ_RUNS, when set, also stops each harness after that many executions.
# Engine:  clang 19 with its libFuzzer runtime (Debian bookworm: clang-19, libclang-rt-19-dev; installed here when
#          missing). clang 14, the default clang of bookworm, cannot compile libstdc++ 12's <expected>; clang 19 can.
# Output:  per harness: executions, exec/s and the result. New interesting inputs accumulate in
#          BUILD_DIR/corpus/<name> (seeded from test/fuzz/corpus/<name> and test/fuzz/regressions/<name>, which are
#          only read); a crash, leak or timeout is written to BUILD_DIR/artifacts/<name>/ -- once fixed, copy it into
#          test/fuzz/regressions/<name>/ so that `make test` replays it forever.
# Exit:    0 when no harness found anything, 1 otherwise.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/lib.sh"

build_dir="${1:?usage: fuzz.sh BUILD_DIR SECONDS [TARGET]}"
seconds="${2:?usage: fuzz.sh BUILD_DIR SECONDS [TARGET]}"
target="${3:-}"
all=(yaml json quantity label_selector cel kubeconfig watch_event validate workload)
if [[ -n "$target" ]]; then
  [[ " ${all[*]} " == *" $target "* ]] || cfo_die "unknown harness '$target' (one of: ${all[*]})"
  harnesses=("$target")
else
  harnesses=("${all[@]}")
fi

if ! command -v clang++-19 >/dev/null || ! dpkg-query -W -f='${db:Status-Status}' libclang-rt-19-dev 2>/dev/null |
  grep -q '^installed$'; then
  cfo_log "installing clang-19 and libclang-rt-19-dev (the libFuzzer engine)"
  export DEBIAN_FRONTEND=noninteractive
  cfo_as_root apt-get update >&2
  cfo_as_root apt-get install -y --no-install-recommends clang-19 libclang-rt-19-dev >&2
fi

cmake -S "$CFO_REPO_DIR" -B "$build_dir" -DCMAKE_CXX_COMPILER=clang++-19 -DCFO_FUZZ=ON -DCFO_BUILD_BENCH=OFF \
  -DCFO_INTEGRATION_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build_dir" -j "${FUZZ_JOBS:-2}" --target "${harnesses[@]/#/fuzz_}"

found=0
summary=()
for h in "${harnesses[@]}"; do
  work="$build_dir/corpus/$h"
  artifacts="$build_dir/artifacts/$h/"
  mkdir -p "$work" "$artifacts"
  log="$build_dir/fuzz-$h.log"
  cfo_log "fuzzing $h for ${seconds}s (log: $log)"
  rc=0
  "$build_dir/test/fuzz/fuzz_$h" -max_total_time="$seconds" -runs="${FUZZ_RUNS:--1}" -timeout=30 -rss_limit_mb=4096 \
    -print_final_stats=1 \
    -artifact_prefix="$artifacts" "$work" "$CFO_REPO_DIR/test/fuzz/corpus/$h" \
    "$CFO_REPO_DIR/test/fuzz/regressions/$h" >"$log" 2>&1 || rc=$?
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n1)"
  if ((rc == 0)); then
    result="ok"
  else
    result="FOUND (exit $rc): $(ls -1 "$artifacts" | head -n3 | tr '\n' ' ')"
    found=1
    grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz: invariant)' "$log" | head -n5 >&2 || true
  fi
  summary+=("$(printf '%-15s %12s executions %8s exec/s  %s' "$h" "${runs:-?}" "${rate:-?}" "$result")")
done
printf '%s\n' "${summary[@]}"
exit "$found"
