#!/usr/bin/env bash
# Builds test/helm/render (helm-render: renders a Helm chart with text/template + sprig, as Helm 3 does) offline from
# Debian's Go packages, and prints the binary's path.
#
# Usage:   build-render.sh OUT_DIR
# Inputs:  golang-go, golang-github-masterminds-sprig-dev and golang-k8s-sigs-yaml-dev (test/harness/install-deps.sh),
#          whose sources are under /usr/share/gocode/src (override with CFO_GOCODE).
# Output:  OUT_DIR/helm-render, rebuilt only when the sources changed (the copies in OUT_DIR/gopath are compared).
#
# How it builds without a network: GOPATH mode (GO111MODULE=off, GOPROXY=off) with GOPATH=OUT_DIR/gopath:/usr/share/
# gocode. The sources are copied to OUT_DIR/gopath/src/codeflare.dev/helm-render; their go.mod only turns on Go's
# "minimal module compatibility", which resolves the /v3 import paths of sprig and semver to Debian's folders
# (github.com/Masterminds/sprig, whose go.mod says module .../sprig/v3), the way Debian builds those packages.
set -euo pipefail

(($# == 1)) || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
src="$(cd "$(dirname "$0")/render" && pwd)"
out="$(mkdir -p "$1" && cd "$1" && pwd)"
gocode="${CFO_GOCODE:-/usr/share/gocode}"
pkg="$out/gopath/src/codeflare.dev/helm-render"
bin="$out/helm-render"

command -v go >/dev/null || { echo "$0: go not found (install golang-go: test/harness/install-deps.sh)" >&2; exit 1; }
for dep in github.com/Masterminds/sprig github.com/Masterminds/semver sigs.k8s.io/yaml; do
  [[ -d "$gocode/src/$dep" ]] || {
    echo "$0: $gocode/src/$dep missing (install golang-github-masterminds-sprig-dev golang-k8s-sigs-yaml-dev)" >&2
    exit 1
  }
done

# One build at a time per OUT_DIR (tests running in parallel share it).
exec 9>"$out/.lock"
flock 9
if [[ -x "$bin" ]] && diff -rq "$src" "$pkg" >/dev/null 2>&1; then
  echo "$bin"
  exit 0
fi
rm -rf "$pkg"
mkdir -p "$pkg"
cp "$src"/*.go "$src"/go.mod "$pkg"/
(
  cd "$pkg"
  unset GOFLAGS
  GO111MODULE=off GOPROXY=off GOPATH="$out/gopath:$gocode" GOCACHE="${GOCACHE:-$out/gocache}" \
    go build -o "$bin.tmp" .
)
mv "$bin.tmp" "$bin"
echo "$bin"
