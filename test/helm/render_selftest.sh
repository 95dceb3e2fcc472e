#!/usr/bin/env bash
# Self-test of helm-render (test/helm/render), the stand-in for `helm template` used by
# test/integration/helm_chart.sh: it renders test/helm/testchart and compares with what Helm 3 gives.
#   1. values.yaml, then -f files in order (later wins key by key, null deletes a default), include, tpl, required,
#      toYaml (sorted keys), fromYaml, quote, Helm's float formatting of big integers (1e+06), .Release, .Chart,
#      .Capabilities, .Template, .Files; CRDs of crds/ first and untemplated; kinds in Helm's install order; blank
#      documents dropped and comment-only ones kept: byte for byte testchart-values/expected-full.yaml;
#   2. NOTES.txt is rendered apart (--notes), not into the manifests;
#   3. `required` stops rendering with Helm's "execution error at (file:line:col): message";
#   4. --strict refuses a template that reads a value no values file sets;
#   5. Chart.yaml's kubeVersion is enforced against --kube-version;
#   6. --skip-crds leaves out crds/ and nothing else.
# Inputs:  CFO_HELM_RENDER_DIR (build cache of helm-render; default a temporary folder).
# Output:  one line per check, then "N passed, N failed"; exit 1 when anything failed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

passed=0 failed=0
pass() { echo "ok   $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

if ! renderer="$("$here/build-render.sh" "${CFO_HELM_RENDER_DIR:-$work/helm-render}" 2>"$work/build.err")"; then
  fail "build helm-render: $(tr '\n' ' ' <"$work/build.err")"
  echo "$passed passed, $failed failed"
  exit 1
fi
chart="$here/testchart" vals="$here/testchart-values"
all=(-f "$vals/with-sa.yaml" -f "$vals/override-1.yaml" -f "$vals/override-2.yaml")

# 1, 2
if "$renderer" --release rel --namespace ns --notes "$work/notes.txt" "${all[@]}" "$chart" >"$work/full.yaml" \
  2>"$work/full.err"; then
  if diff -u "$vals/expected-full.yaml" "$work/full.yaml" >"$work/full.diff"; then
    pass "full render equals expected-full.yaml ($(grep -c '^# Source:' "$work/full.yaml") documents)"
  else
    fail "full render differs from expected-full.yaml: $(head -c 1500 "$work/full.diff")"
  fi
  if cmp -s "$vals/expected-notes.txt" "$work/notes.txt" && ! grep -q 'says' "$work/full.yaml"; then
    pass "NOTES.txt rendered apart: $(cat "$work/notes.txt")"
  else
    fail "NOTES.txt: got '$(cat "$work/notes.txt")', or it leaked into the manifests"
  fi
else
  fail "full render failed: $(tr '\n' ' ' <"$work/full.err")"
fi

# expect_error <label> <message part> <renderer args...>
expect_error() {
  local label="$1" want="$2"
  shift 2
  if "$renderer" "$@" >"$work/e.out" 2>"$work/e.err"; then
    fail "$label: rendered instead of failing"
  elif grep -qF -- "$want" "$work/e.err"; then
    pass "$label: $(head -c 200 "$work/e.err")"
  else
    fail "$label: error without \"$want\": $(tr '\n' ' ' <"$work/e.err")"
  fi
}
# 3, 4, 5
expect_error "required" \
  "execution error at (selftest/templates/sub/serviceaccount.yaml:4:11): serviceAccountName is required" \
  --release rel "$chart"
expect_error "--strict" 'map has no entry for key "extra"' --strict -f "$vals/with-sa.yaml" "$chart"
expect_error "kubeVersion" "incompatible with Kubernetes v1.19.9" --kube-version v1.19.9 "${all[@]}" "$chart"

# 6
if "$renderer" --release rel --namespace ns --skip-crds "${all[@]}" "$chart" >"$work/nocrd.yaml" 2>"$work/nocrd.err" &&
  ! grep -q 'crds/' "$work/nocrd.yaml" &&
  cmp -s "$work/nocrd.yaml" <(awk '/^---$/ { n++ } n >= 2' "$vals/expected-full.yaml"); then
  pass "--skip-crds leaves out crds/widgets.yaml and nothing else"
else
  fail "--skip-crds: $(head -c 300 "$work/nocrd.err") $(head -c 300 "$work/nocrd.yaml")"
fi

echo "$passed passed, $failed failed"
((failed == 0))
