#!/usr/bin/env bash
# Installs the Debian bookworm packages needed to build and test codeflare-operator.
#
# Inputs:  none (runs as root, or through sudo). CFO_SKIP_DEPS=1 skips everything (for machines set up by hand).
# Output:  the missing packages installed with apt-get; prints nothing when everything is already there.
# Quick and idempotent: one dpkg-query call decides; `apt-get update` runs only when something is missing.
# kubectl: an existing `kubectl` on PATH is used as it is; otherwise Debian's kubernetes-client provides it.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/lib.sh"

if [[ "${CFO_SKIP_DEPS:-}" == 1 ]]; then
  exit 0
fi

packages=(
  # C++ toolchain and libraries
  build-essential cmake pkg-config
  libboost-dev libboost-system-dev rapidjson-dev libyaml-dev prometheus-cpp-dev libspdlog-dev libre2-dev
  libgtest-dev libgmock-dev libssl-dev zlib1g-dev
  # ld.lld links the operator with its hot functions laid out first (CFO_HOT_FUNCTIONS)
  lld
  # local control plane: openssl for certificates, etcd (etcdctl: the chaos suite's compaction), and what
  # build-kube-apiserver.sh needs
  openssl etcd-server etcd-client golang-go rsync golang-github-modern-go-reflect2-dev dpkg-dev ca-certificates curl
  # test helpers (python3-yaml: the CRD adapter in adapt-crds-for-1.20.py; jq: the shell integration tests)
  python3 python3-jsonschema python3-yaml jq
  # deployment tests: helm-render (test/helm) builds on these Go libraries; lua5.1 runs the Argo CD health check
  golang-github-masterminds-sprig-dev golang-k8s-sigs-yaml-dev lua5.1
  # guardrails (test/lint, docs/testing.md "Guardrails"): clang-tidy and clang-format from LLVM 19, Debian bookworm's own
  # packages (clang 14, bookworm's default, cannot parse libstdc++ 12's <expected>); setarch (util-linux) runs the
  # ThreadSanitizer tests with a fixed memory layout
  clang-tidy-19 clang-format-19 util-linux
)
command -v kubectl >/dev/null || packages+=(kubernetes-client)

# ${db:Status-Status} is "installed" for a fully installed package; unknown packages print nothing.
missing=()
installed="$(dpkg-query -W -f='${binary:Package} ${db:Status-Status}\n' "${packages[@]}" 2>/dev/null || true)"
for p in "${packages[@]}"; do
  grep -Eq "^${p}(:[a-z0-9]+)? installed$" <<<"$installed" || missing+=("$p")
done
((${#missing[@]})) || exit 0

cfo_log "installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
cfo_as_root apt-get update >&2
cfo_as_root apt-get install -y --no-install-recommends "${missing[@]}" >&2
