# shellcheck shell=bash disable=SC2034
# Shared helpers for the scripts in test/harness/ (sourced, not run).
#
# Provides:
#   cfo_log MSG...        message on stderr, prefixed with the calling script's name
#   cfo_die MSG...        cfo_log, then exit 1
#   cfo_as_root CMD...    runs CMD as root (directly when already root, else through sudo)
#   cfo_python            prints the path of a python3 that can `import yaml` (Debian's /usr/bin/python3 first,
#                         because python3-yaml from install-deps.sh lands there; then python3 on PATH)
#   cfo_free_ports N      prints N distinct free TCP ports on 127.0.0.1, one per line
#   cfo_cache_dir         prints the cache folder: ${CODEFLARE_CACHE:-$HOME/.cache/codeflare-operator}
#   CFO_HARNESS_DIR       absolute path of test/harness/
#   CFO_REPO_DIR          absolute path of the checkout's root

CFO_HARNESS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CFO_REPO_DIR="$(cd "$CFO_HARNESS_DIR/../.." && pwd)"

cfo_log() { echo "$(basename "$0"): $*" >&2; }

# The tally of a test script: after cfo_tally_begin, `pass WHAT` and `fail WHAT` print one line ("ok   WHAT",
# "FAIL WHAT") and count it in $passed and $failed; the script ends by printing them and failing when $failed > 0.
cfo_tally_begin() {
  passed=0 failed=0
  pass() { echo "ok   $*"; passed=$((passed + 1)); }
  fail() { echo "FAIL $*"; failed=$((failed + 1)); }
}
cfo_die() { cfo_log "$@"; exit 1; }

cfo_as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo "$@"
  else
    cfo_die "need root for: $* (run as root or install sudo)"
  fi
}

cfo_python() {
  local py
  for py in /usr/bin/python3 "$(command -v python3 || true)"; do
    if [[ -n "$py" && -x "$py" ]] && "$py" -c 'import yaml' 2>/dev/null; then
      echo "$py"
      return 0
    fi
  done
  cfo_die "no python3 with the yaml module (install python3-yaml: test/harness/install-deps.sh)"
}

# Binds N sockets to port 0 at the same time, so the kernel hands out N different free ports, then closes them.
cfo_free_ports() {
  local n="$1" py
  py="$(command -v python3 || echo /usr/bin/python3)"
  "$py" - "$n" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    socks.append(s)
for s in socks:
    print(s.getsockname()[1])
    s.close()
PY
}

cfo_cache_dir() { echo "${CODEFLARE_CACHE:-$HOME/.cache/codeflare-operator}"; }

# Prints the Kueue objects that config/samples name but the operator does not create, for `kubectl apply -f -`:
# LocalQueue team-a-queue in namespace $1, ClusterQueues team-a-cq (behind it) and team-b-cq (behind the LocalQueue
# that cfw_managed_queue.yaml has the operator make), their ResourceFlavors (demo-tas-flavor for cfw_topology.yaml's
# topology; no Topology object: the demo's Kueue CRDs have none) and WorkloadPriorityClass high-priority. The quotas
# hold every sample at once, so that each one's Admissible condition is True (the flavors' names are the demo's own: an
# upstream sample's default-flavor created on the same test control plane must not collide); without these objects the queued
# samples are held (LocalQueueNotFound, PriorityClassNotFound) or found inadmissible (ClusterQueueNotFound).
cfo_sample_prerequisites() {
  cat <<KUEUE
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: team-a-queue
  namespace: $1
spec:
  clusterQueue: team-a-cq
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: high-priority
value: 1000
description: Samples that should go first.
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: demo-flavor
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: demo-tas-flavor
spec:
  nodeLabels:
    cloud.provider.com/node-group: tas
  topologyName: default
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a-cq
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu, google.com/tpu, example.com/fpga]
    flavors:
$(for flavor in demo-flavor demo-tas-flavor; do
    cat <<FLAVOR
    - name: $flavor
      resources:
      - {name: cpu, nominalQuota: 64}
      - {name: memory, nominalQuota: 256Gi}
      - {name: nvidia.com/gpu, nominalQuota: 8}
      - {name: google.com/tpu, nominalQuota: 8}
      - {name: example.com/fpga, nominalQuota: 4}
FLAVOR
  done)
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-b-cq
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu]
    flavors:
    - name: demo-flavor
      resources:
      - {name: cpu, nominalQuota: 64}
      - {name: memory, nominalQuota: 256Gi}
      - {name: nvidia.com/gpu, nominalQuota: 8}
KUEUE
}
