#!/usr/bin/env bash
# Builds client-go's sample-controller (Foo -> Deployment), the peer of `make bench-reconcile PEER=1`, from the same
# Debian source package "kubernetes" (1.20.2) that test/harness/build-kube-apiserver.sh builds kube-apiserver from,
# and caches it.
#
# Usage:   build-sample-controller.sh
# Output:  the folder holding `sample-controller` and `crd.yaml` (its Foo CRD, artifacts/examples/crd.yaml) on
#          stdout (last line); build logs on stderr.
# Cache:   ${CODEFLARE_CACHE:-$HOME/.cache/codeflare-operator}/sample-controller-1.20.2 (outside the checkout);
#          the source tree is unpacked in .../sample-controller-src and removed after the build. Builds are
#          serialised by a lock file there.
#
# The upstream source stays outside the repository. Two changes are made to the unpacked copy, none to the repo:
#   * as in build-kube-apiserver.sh, the vendored github.com/modern-go/reflect2 1.0.1 (which crashes under Go 1.19)
#     is replaced by Debian's golang-github-modern-go-reflect2-dev (1.0.2);
#   * main.go gets `cfg.QPS = 1000; cfg.Burst = 2000` after its rest config is built, so that client-go's default
#     client-side limit (5 QPS, burst 10) does not throttle the peer (issue 11 asks for this).
# The binary is `go build` of k8s.io/sample-controller from the vendored tree in GOPATH mode (what
# `make WHAT=vendor/k8s.io/sample-controller` builds, without the code generators that make runs first).
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../test/harness/lib.sh"

cache="$(cfo_cache_dir)"
out="$cache/sample-controller-1.20.2"
if [[ -x "$out/sample-controller" && -f "$out/crd.yaml" ]]; then
  echo "$out"
  exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.sample-controller.lock"
if ! flock -n 9; then
  cfo_log "another build is in progress; waiting for it"
  flock 9
fi
if [[ -x "$out/sample-controller" && -f "$out/crd.yaml" ]]; then
  echo "$out"
  exit 0
fi

need=()
command -v go >/dev/null || need+=(golang-go)
command -v dpkg-source >/dev/null || need+=(dpkg-dev)
[[ -d /usr/share/gocode/src/github.com/modern-go/reflect2 ]] || need+=(golang-github-modern-go-reflect2-dev)
if ((${#need[@]})); then
  cfo_log "installing ${need[*]}"
  cfo_as_root apt-get install -y --no-install-recommends "${need[@]}" >&2
fi
# build-kube-apiserver.sh enables deb-src for bookworm (in its own sources file) when apt has none.
if ! apt-get source --print-uris kubernetes >/dev/null 2>&1; then
  cfo_die "apt has no deb-src for the kubernetes source package; run test/harness/build-kube-apiserver.sh first"
fi

work="$cache/sample-controller-src"
rm -rf "$work"
mkdir -p "$work"
chmod 755 "$work"  # apt-get source drops to the _apt user where it can
cd "$work"
cfo_log "fetching Debian source package kubernetes"
apt-get source --only-source kubernetes >&2
src=$(find "$work" -maxdepth 1 -mindepth 1 -type d -name 'kubernetes-*' | head -n1)
[[ -n "$src" ]] || cfo_die "source tree not found in $work"

cfo_log "replacing vendored modern-go/reflect2 with Debian's 1.0.2"
vend="$src/vendor/github.com/modern-go/reflect2"
find "$vend" -maxdepth 1 -type f \( -name '*.go' -o -name '*.s' \) -delete
cp /usr/share/gocode/src/github.com/modern-go/reflect2/*.go "$vend/"
cp /usr/share/gocode/src/github.com/modern-go/reflect2/*.s "$vend/" 2>/dev/null || true
rm -f "$vend"/*_test.go

# The copy of main.go in this build folder (staging/, which vendor/k8s.io/sample-controller links to).
main="$src/staging/src/k8s.io/sample-controller/main.go"
[[ -f "$main" ]] || cfo_die "no $main in the source package"
grep -q 'cfg, err := clientcmd.BuildConfigFromFlags(masterURL, kubeconfig)' "$main" ||
  cfo_die "main.go does not build its rest config as expected; cannot raise QPS/Burst"
sed -i '/cfg, err := clientcmd.BuildConfigFromFlags(masterURL, kubeconfig)/,/^\t}/{/^\t}/a\
\tcfg.QPS = 1000 // codeflare-operator bench: client-go'"'"'s default 5 QPS would throttle the peer\
\tcfg.Burst = 2000
}' "$main"
grep -q 'cfg.QPS = 1000' "$main" || cfo_die "the QPS/Burst patch did not apply to $main"

gopath="$work/gopath"
mkdir -p "$gopath/src/k8s.io"
ln -sfn "$src" "$gopath/src/k8s.io/kubernetes"
cd "$gopath/src/k8s.io/kubernetes"
cfo_log "building sample-controller (a few minutes on 2 cores)"
export GOPATH="$gopath" GO111MODULE=off GOCACHE="$cache/gocache"
unset GOFLAGS
mkdir -p "$out"
go build -o "$out/sample-controller.tmp" ./vendor/k8s.io/sample-controller >&2
cp "$src/staging/src/k8s.io/sample-controller/artifacts/examples/crd.yaml" "$out/crd.yaml"
mv "$out/sample-controller.tmp" "$out/sample-controller"
cd "$cache"
rm -rf "$work"
cfo_log "cached in $out"
echo "$out"
