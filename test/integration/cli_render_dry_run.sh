#!/usr/bin/env bash
# Integration test of the offline CLI against the real apiserver.
#
# Checks
#   1. `codeflare-operator render` of every sample in config/samples/ succeeds, and the apiserver accepts what it
#      prints (`kubectl apply --dry-run=server`, in a namespace of this test).
#   2. `codeflare-operator validate` accepts every sample (exit 0) and rejects every file in test/invalid/ with exit
#      code 1 and a finding at the path named on the file's `# expect-path:` line.
# Inputs:  KUBECONFIG (the ctest fixture's), CFO_OPERATOR_BIN, UPSTREAM_CRDS (folder with upstream/), KUBECTL (optional).
# Output:  one line per check, then "N passed, N failed"; exit 1 when anything failed.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../harness/lib.sh"

[[ -n "${KUBECONFIG:-}" && -f "$KUBECONFIG" ]] || cfo_die "KUBECONFIG must name the control plane's kubeconfig"
[[ -x "${CFO_OPERATOR_BIN:-}" ]] || cfo_die "CFO_OPERATOR_BIN must name the codeflare-operator binary"
[[ -d "${UPSTREAM_CRDS:-}/upstream" ]] || cfo_die "UPSTREAM_CRDS must name a folder with upstream/"
k() { "${KUBECTL:-kubectl}" --kubeconfig "$KUBECONFIG" "$@"; }
op() { "$CFO_OPERATOR_BIN" "$@"; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cfo_tally_begin

ns="cli-render-$RANDOM"
k create namespace "$ns" >/dev/null

for sample in "$CFO_REPO_DIR"/config/samples/*.yaml; do
  name="$(basename "$sample")"
  [[ "$name" == kustomization.yaml ]] && continue
  if ! op render -f "$sample" --crds "$UPSTREAM_CRDS" -n "$ns" >"$work/$name.out" 2>"$work/$name.err"; then
    fail "render $name: $(head -c 500 "$work/$name.err")"
    continue
  fi
  if k apply --dry-run=server -f "$work/$name.out" >"$work/$name.apply" 2>&1; then
    pass "render $name: accepted by the apiserver ($(grep -c . "$work/$name.apply") object(s))"
  else
    fail "render $name: refused by the apiserver: $(head -c 800 "$work/$name.apply")"
  fi
  if op validate -f "$sample" --crds "$UPSTREAM_CRDS" >"$work/$name.validate" 2>&1; then
    pass "validate $name: valid"
  else
    fail "validate $name: $(head -c 500 "$work/$name.validate")"
  fi
done

for bad in "$CFO_REPO_DIR"/test/invalid/*.yaml; do
  name="$(basename "$bad")"
  expect="$(sed -n 's/^# expect-path: *//p' "$bad" | head -n1)"
  set +e
  op validate -f "$bad" --crds "$UPSTREAM_CRDS" -o json >"$work/$name.json" 2>"$work/$name.err"
  rc=$?
  set -e
  if [[ $rc -ne 1 ]]; then
    fail "validate $name: exit code $rc, want 1 ($(head -c 300 "$work/$name.err"))"
  elif [[ -n "$expect" ]] && ! grep -qF "\"path\": \"$expect\"" "$work/$name.json"; then
    fail "validate $name: no finding at $expect: $(head -c 500 "$work/$name.json")"
  else
    pass "validate $name: rejected at $expect"
  fi
done

echo "$passed passed, $failed failed"
((failed == 0))
