#!/usr/bin/env bash
# Runs clang-tidy-19 with the checked-in .clang-tidy on controller/ sources of a build's compile_commands.json
# (ctest lint_clang_tidy; make tidy, make tidy-all; docs/testing.md "Guardrails").
#
# Usage:   test/lint/clang_tidy.sh BUILD_DIR [--all | FILE...]
#   BUILD_DIR   a configured build folder (CMAKE_EXPORT_COMPILE_COMMANDS is on in CMakeLists.txt); nothing needs
#               to be built, there are no generated headers
#   --all       every controller/ source (about 14 min of CPU on 2 cores: make tidy-all)
#   FILE...     these sources only
#   (nothing)   the sources that changed since test/lint/tidy-baseline, or include a header that did
#               (test/lint/tidy_files.py decides, and says why; every source when the baseline is not in the history)
# Inputs:  CFO_TIDY_SCOPE=all does what --all does (ctest: make tidy-all); CFO_TIDY_JOBS parallel clang-tidy
#          processes (default: nproc); CLANG_TIDY_VERSION (default 19).
# Why 19: the sources use libstdc++ 12's <expected>, which clang 14 (bookworm's default clang-tidy) cannot parse;
#          clang-tidy-19 (Debian bookworm's clang-tidy-19 package, make deps installs it) can. RapidJSON 1.1.0 has a
#          copy assignment that assigns const members (never instantiated); clang 19 rejects it unless template bodies
#          are parsed when instantiated (-fdelayed-template-parsing, as the fuzzing build does), so the checks see
#          every template of ours that is used, and none that is not. Delayed parsing also instantiates libstdc++'s
#          std::stable_sort after the `#pragma GCC diagnostic` that hides its own use of the deprecated
#          std::get_temporary_buffer has ended, so clang-tidy runs with -Wno-deprecated-declarations (g++, which
#          builds with -Wall -Werror, still reports a deprecated declaration of ours). The compile commands are g++'s:
#          a warning option only g++ knows (-Wno-restrict, for GCC 12) is not a finding (-Wno-unknown-warning-option).
# Nothing is skipped: a source clang-tidy cannot parse is an error (clang-diagnostic-error), like any finding.
# Output:  the findings (each one an error, WarningsAsErrors in .clang-tidy) and a count; exit 0 when there is none.
set -euo pipefail

build_dir="${1:?usage: clang_tidy.sh BUILD_DIR [--all | FILE...]}"
shift
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
version="${CLANG_TIDY_VERSION:-19}"
db="$build_dir/compile_commands.json"
[[ -f "$db" ]] || { echo "clang_tidy.sh: no $db (configure the build folder first)" >&2; exit 2; }
for tool in "clang-tidy-$version" "run-clang-tidy-$version"; do
  command -v "$tool" >/dev/null ||
    { echo "clang_tidy.sh: $tool not found (Debian: apt-get install clang-tidy-$version, or make deps)" >&2; exit 2; }
done

if (($#)) && [[ "$1" != --all ]]; then
  files=()
  for f in "$@"; do files+=("$(realpath "$f")"); done
else
  scope=()
  [[ "${1:-}" == --all || "${CFO_TIDY_SCOPE:-}" == all ]] && scope=(--all)
  mapfile -t files < <(python3 "$repo/test/lint/tidy_files.py" --root "$repo" --db "$db" "${scope[@]}")
fi
if ((${#files[@]} == 0)); then
  echo "clang_tidy.sh: no source to check"
  exit 0
fi
# run-clang-tidy takes regular expressions: each file as itself, anchored, its dots escaped.
patterns=()
for f in "${files[@]}"; do patterns+=("^${f//./\\.}\$"); done

started=$SECONDS
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
rc=0
"run-clang-tidy-$version" -clang-tidy-binary "$(command -v "clang-tidy-$version")" -p "$build_dir" \
  -j "${CFO_TIDY_JOBS:-$(nproc)}" -quiet -use-color=false \
  -extra-arg=-fdelayed-template-parsing -extra-arg=-Wno-delayed-template-parsing-in-cxx20 \
  -extra-arg=-Wno-deprecated-declarations -extra-arg=-Wno-unknown-warning-option \
  "${patterns[@]}" >"$log" 2>&1 || rc=$?
# run-clang-tidy prints each command it runs and clang-tidy's counts of suppressed warnings: keep the findings.
grep -vE '^(clang-tidy-[0-9]+ |Running clang-tidy|[0-9]+ warnings? (and [0-9]+ errors? )?generated\.|Suppressed [0-9]+ warnings|Use -header-filter=|[0-9]+ warnings? treated as errors?|Error while processing|\[ *[0-9]+/[0-9]+\])' "$log" || true
checked="$(grep -cE '^\[ *[0-9]+/[0-9]+\]' "$log" || true)"
findings="$(grep -cE ': (error|warning): .*\[[a-z]' "$log" || true)"
echo "clang_tidy.sh: $findings finding(s), $((SECONDS - started)) s, clang-tidy-$version on ${checked:-?} of ${#files[@]} files"
if ((rc)) && ((findings == 0)); then
  echo "clang_tidy.sh: run-clang-tidy-$version failed (exit $rc) without a finding:" >&2
  tail -n 20 "$log" >&2
fi
exit "$rc"
