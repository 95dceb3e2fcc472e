#!/usr/bin/env bash
# `make bench-webhook`: admission latency of the CodeFlareWorkload webhook through a real apiserver. Starts a local
# control plane of its own in <build>/bench-control-plane (etcd + kube-apiserver 1.20 with the CRDs), runs
# webhook_latency_bench against it, and stops it again.
# Usage: bench/webhook_latency.sh <build-dir> <upstream-crds> [bench arguments...]
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../test/harness/lib.sh"

build="${1:?usage: webhook_latency.sh <build-dir> <upstream-crds> [args...]}"
crds="${2:?usage: webhook_latency.sh <build-dir> <upstream-crds> [args...]}"
shift 2
state="$build/bench-control-plane"
trap '"$CFO_HARNESS_DIR/control-plane.sh" stop "$state" >/dev/null 2>&1 || true' EXIT
UPSTREAM_CRDS="$crds" "$CFO_HARNESS_DIR/control-plane.sh" start "$state" --crds >&2
KUBECONFIG="$state/kubeconfig" "$build/bench/webhook_latency_bench" --crds "$crds" "$@"
