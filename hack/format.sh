#!/usr/bin/env bash
# Formats the C++ sources with clang-format-19 and the checked-in .clang-format, or checks that they are formatted.
#
# Usage:   hack/format.sh            rewrites every file that is not formatted (clang-format -i)
#          hack/format.sh --check    changes nothing; lists each place that is not formatted (clang-format --dry-run
#                                    --Werror) and exits 1 when there is one (ctest lint_clang_format runs this)
#          hack/format.sh --count    changes nothing; prints how many lines a reformat would change, and in how
#                                    many files
# Files:   every *.cpp, *.hpp, *.h and *.cc under controller/, test/ and bench/ (the one list of both modes).
# Tool:    CLANG_FORMAT (default clang-format-19, Debian bookworm's clang-format-19, which make deps installs).
#          The version matters: clang-format 14 and 19 break some lines differently.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
clang_format="${CLANG_FORMAT:-clang-format-19}"
mode="${1:-apply}"
case "$mode" in
  apply | --check | --count) ;;
  *)
    echo "usage: hack/format.sh [--check | --count]" >&2
    exit 2
    ;;
esac
if ! command -v "$clang_format" >/dev/null; then
  echo "hack/format.sh: $clang_format not found (Debian: apt-get install clang-format-19, or make deps)" >&2
  exit 2
fi

cd "$repo"
mapfile -t files < <(find controller test bench -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cc' \) | LC_ALL=C sort)
((${#files[@]})) || { echo "hack/format.sh: no C++ sources found under $repo" >&2; exit 2; }

case "$mode" in
  apply)
    # Files are rewritten only when their text changes, so untouched files keep their timestamps.
    printf '%s\0' "${files[@]}" | xargs -0 -n 50 "$clang_format" -i --style=file
    ;;
  --check)
    rc=0
    printf '%s\0' "${files[@]}" | xargs -0 -n 50 "$clang_format" --dry-run --Werror --style=file || rc=1
    if ((rc)); then
      echo "hack/format.sh --check: some files are not formatted; run hack/format.sh" >&2
    else
      echo "hack/format.sh --check: ${#files[@]} files formatted"
    fi
    exit "$rc"
    ;;
  --count)
    lines=0
    changed=0
    for f in "${files[@]}"; do
      n="$("$clang_format" --style=file "$f" | diff -U0 "$f" - | grep -cE '^[-+]([^-+]|$)' || true)"
      if ((n)); then
        lines=$((lines + n))
        changed=$((changed + 1))
      fi
    done
    echo "hack/format.sh --count: a reformat would change $lines lines (removed + added) in $changed of ${#files[@]} files"
    ;;
esac
