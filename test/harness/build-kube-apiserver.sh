#!/usr/bin/env bash
# Builds kube-apiserver 1.20.2 from Debian bookworm's source package "kubernetes" and caches it.
#
# Output: prints the directory holding `kube-apiserver` and `etcd` on stdout (last line).
# Honours KUBEBUILDER_ASSETS: when it names a folder with kube-apiserver and etcd, nothing is built.
# Cache: ${CODEFLARE_CACHE:-$HOME/.cache/codeflare-operator}/kube-apiserver-1.20.2 (outside the checkout); builds
# are serialised by a lock file there.
#
# Debian's 1.20.2 vendors github.com/modern-go/reflect2 1.0.1, which crashes at run time under Go 1.19;
# it is replaced by the sources of golang-github-modern-go-reflect2-dev (1.0.2) before building.
set -euo pipefail

if [[ -n "${KUBEBUILDER_ASSETS:-}" && -x "${KUBEBUILDER_ASSETS}/kube-apiserver" && -x "${KUBEBUILDER_ASSETS}/etcd" ]]; then
  echo "${KUBEBUILDER_ASSETS}"
  exit 0
fi

cache="${CODEFLARE_CACHE:-$HOME/.cache/codeflare-operator}"
out="$cache/kube-apiserver-1.20.2"
if [[ -x "$out/kube-apiserver" && -x "$out/etcd" ]]; then
  echo "$out"
  exit 0
fi

log() { echo "build-kube-apiserver: $*" >&2; }

# One build at a time per cache (parallel test runs share it): wait for a build in progress, then use its result.
mkdir -p "$cache"
exec 9>"$cache/.build.lock"
if ! flock -n 9; then
  log "another build is in progress; waiting for it"
  flock 9
fi
if [[ -x "$out/kube-apiserver" && -x "$out/etcd" ]]; then
  echo "$out"
  exit 0
fi
as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

need=()
command -v go >/dev/null || need+=(golang-go)
command -v rsync >/dev/null || need+=(rsync)
command -v dpkg-source >/dev/null || need+=(dpkg-dev)
[[ -d /usr/share/gocode/src/github.com/modern-go/reflect2 ]] || need+=(golang-github-modern-go-reflect2-dev)
[[ -x /usr/bin/etcd ]] || need+=(etcd-server)
if ((${#need[@]})); then
  log "installing ${need[*]}"
  as_root apt-get install -y --no-install-recommends "${need[@]}" >&2
fi

# deb-src for bookworm, in its own file so the system's sources stay untouched.
if ! apt-get source --print-uris kubernetes >/dev/null 2>&1; then
  log "enabling deb-src for bookworm"
  as_root tee /etc/apt/sources.list.d/codeflare-deb-src.sources >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  as_root apt-get update >&2
fi

work="$cache/src"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
log "fetching Debian source package kubernetes"
apt-get source --only-source kubernetes >&2
src=$(find "$work" -maxdepth 1 -mindepth 1 -type d -name 'kubernetes-*' | head -n1)
[[ -n "$src" ]] || { log "source tree not found"; exit 1; }

log "replacing vendored modern-go/reflect2 with Debian's 1.0.2"
vend="$src/vendor/github.com/modern-go/reflect2"
find "$vend" -maxdepth 1 -type f \( -name '*.go' -o -name '*.s' \) -delete
cp /usr/share/gocode/src/github.com/modern-go/reflect2/*.go "$vend/"
cp /usr/share/gocode/src/github.com/modern-go/reflect2/*.s "$vend/" 2>/dev/null || true
rm -f "$vend"/*_test.go

# Same layout as debian/rules: the tree is reached through a GOPATH at k8s.io/kubernetes.
gopath="$work/gopath"
mkdir -p "$gopath/src/k8s.io"
ln -sfn "$src" "$gopath/src/k8s.io/kubernetes"
cd "$gopath/src/k8s.io/kubernetes"
log "building (about 10 minutes on 2 cores)"
export GOPATH="$gopath" GO111MODULE=off GOFLAGS=-mod=vendor GOCACHE="$cache/gocache"
unset GOFLAGS
export GO111MODULE=off
export KUBE_GIT_VERSION=v1.20.2 KUBE_GIT_TREE_STATE=clean
make WHAT=cmd/kube-apiserver >&2

mkdir -p "$out"
bin=$(find "$gopath/src/k8s.io/kubernetes/_output" -type f -name kube-apiserver -perm -u+x | head -n1)
cp "$bin" "$out/kube-apiserver"
ln -sfn /usr/bin/etcd "$out/etcd"
rm -rf "$work"
log "cached in $out"
echo "$out"
