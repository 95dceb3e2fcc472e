#!/usr/bin/env bash
# `codeflare-operator validate` on every case rebuilt from a public bug report ($CFO_SHARED_DIR/cases/public-bugs):
# the exit code gives the case's expected verdict (0 valid, 1 invalid) and, for an invalid case, a finding sits at the
# path of its `# path:` header line. No server needed.
# Inputs:  CFO_OPERATOR_BIN, UPSTREAM_CRDS (folder with upstream/), CFO_SHARED_DIR (skips with a message when unset).
# Output:  one line per case, then "N passed, N failed"; exit 1 when anything failed.
set -euo pipefail

[[ -x "${CFO_OPERATOR_BIN:-}" ]] || { echo "CFO_OPERATOR_BIN must name the codeflare-operator binary" >&2; exit 1; }
[[ -d "${UPSTREAM_CRDS:-}/upstream" ]] || { echo "UPSTREAM_CRDS must name a folder with upstream/" >&2; exit 1; }
if [[ -z "${CFO_SHARED_DIR:-}" || ! -d "$CFO_SHARED_DIR/cases/public-bugs" ]]; then
  echo "skip: CFO_SHARED_DIR is unset or has no cases/public-bugs"
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

passed=0 failed=0
for case_file in "$CFO_SHARED_DIR"/cases/public-bugs/*.yaml; do
  name="$(basename "$case_file")"
  expect="$(sed -n 's/^# expect: *//p' "$case_file" | head -n1)"
  path="$(sed -n 's/^# path: *//p' "$case_file" | head -n1)"
  set +e
  "$CFO_OPERATOR_BIN" validate -f "$case_file" --crds "$UPSTREAM_CRDS" -o json >"$work/out.json" 2>"$work/err"
  rc=$?
  set -e
  want=0
  [[ "$expect" == invalid ]] && want=1
  if [[ $rc -ne $want ]]; then
    echo "FAIL $name: exit code $rc, expected $want ($expect): $(head -c 400 "$work/out.json") $(head -c 200 "$work/err")"
    failed=$((failed + 1))
  elif [[ $want -eq 1 ]] && ! grep -qF "\"path\": \"$path" "$work/out.json"; then
    echo "FAIL $name: no finding at $path: $(head -c 600 "$work/out.json")"
    failed=$((failed + 1))
  else
    echo "ok   $name: $expect${path:+ at $path}"
    passed=$((passed + 1))
  fi
done
echo "$passed passed, $failed failed"
((failed == 0))
