#!/usr/bin/env bash
# A local Kubernetes control plane for tests: etcd plus kube-apiserver 1.20, both on 127.0.0.1, no nodes, no
# controller-manager, no scheduler.
#
# Usage:
#   control-plane.sh start  <state-dir> [--crds]   start etcd and kube-apiserver (an empty cluster: one already
#                                                  running there is replaced); --crds then runs install-crds.sh
#                                                  with its default folders (upstream CRDs and the project's crds/)
#   control-plane.sh stop   <state-dir> [--purge]  SIGTERM, then SIGKILL after 10 s; --purge also deletes <state-dir>
#   control-plane.sh status <state-dir>            exit 0 when both processes run and /readyz answers "ok"
#   control-plane.sh restart-apiserver <state-dir> [--kill] [--down SECONDS]
#                                                  stop kube-apiserver (SIGTERM, or SIGKILL with --kill), wait
#                                                  SECONDS (default 0), start it again on the same port, etcd, PKI
#                                                  and tokens, and wait for /readyz (for chaos tests)
#   control-plane.sh compact <state-dir>           compact etcd at its current revision (etcdctl, ETCDCTL_API=3)
#                                                  and print that revision: older resourceVersions are gone (410)
#
# Environment: CFO_APISERVER_EXTRA_FLAGS (space-separated) is appended to kube-apiserver's flags at every start,
# e.g. "--watch-cache=false" so that watches are served by etcd itself (then a compaction ends a watch that resumes
# from an older resourceVersion with 410 Gone).
#
# Inputs:
#   build-kube-apiserver.sh gives the binaries (it honours KUBEBUILDER_ASSETS and caches under
#   ${CODEFLARE_CACHE:-$HOME/.cache/codeflare-operator}).
#   Extra API users: lines in <state-dir>/extra-tokens.csv and in the file named by CFO_EXTRA_TOKENS (if set) are
#   appended to the token file at start. The format is kube-apiserver's --token-auth-file format:
#     token,user,uid,"group1,group2"
#   kube-apiserver reads the file only when it starts: add users before `start`.
#
# Outputs (all in <state-dir>):
#   kubeconfig        server https://127.0.0.1:<port>, the CA inline, the admin token (user "admin", group
#                     system:masters); a second context "admin-cert" authenticates with the admin client certificate
#   env               shell lines to source: KUBECONFIG, CFO_APISERVER_URL, CFO_ADMIN_TOKEN, CFO_CA_FILE, ports
#   tokens.csv        the --token-auth-file given to kube-apiserver
#   pki/              ca.crt/.key (serving CA), apiserver.crt/.key (SANs IP:127.0.0.1, DNS:localhost),
#                     sa.key/sa.pub (service-account signing pair), client-ca.crt/.key and admin.crt/.key
#                     (CN=admin, O=system:masters)
#   etcd-data/        etcd's data (wiped at every start: each start gives an empty cluster)
#   etcd.log, kube-apiserver.log, etcd.pid, kube-apiserver.pid, etcd.exe, kube-apiserver.exe (the programs run)
#
# What is missing compared with a real cluster: no controllers run, so namespaces stay Terminating after delete,
# ownerReferences are not garbage-collected, and no pods are scheduled. The ServiceAccount admission plugin is off.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/lib.sh"

usage() {
  sed -n '5,16p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

(($# >= 2)) || usage
action="$1"
state="$2"
shift 2
if [[ "$action" == start ]]; then
  mkdir -p "$state"
elif [[ ! -d "$state" ]]; then
  cfo_log "no state folder $state: nothing to do"
  [[ "$action" == stop ]] && exit 0
  exit 1
fi
state="$(cd "$state" && pwd)"
pki="$state/pki"

# --- process bookkeeping (processes.sh: alive, running_pid, spawn, stop_one; they read $state) ---------------------
# shellcheck source=test/harness/processes.sh
source "$CFO_HARNESS_DIR/processes.sh"

log_tails() {
  local f
  for f in "$state/etcd.log" "$state/kube-apiserver.log"; do
    [[ -f "$f" ]] || continue
    echo "----- last 40 lines of $f" >&2
    tail -n 40 "$f" >&2
  done
}

# --- certificates --------------------------------------------------------------------------------------------------

make_pki() {
  rm -rf "$pki"
  mkdir -p "$pki"
  (
    cd "$pki"
    local days=3650
    # Serving CA and the apiserver's certificate.
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days "$days" \
      -subj "/CN=codeflare-test-ca" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr \
      -subj "/CN=kube-apiserver" 2>/dev/null
    cat >apiserver.ext <<'EXT'
basicConstraints = CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost, DNS:kubernetes, DNS:kubernetes.default, DNS:kubernetes.default.svc, IP:10.0.0.1
EXT
    openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out apiserver.crt \
      -days "$days" -extfile apiserver.ext 2>/dev/null
    # Service-account token signing pair.
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
    # Client CA and the admin client certificate (O becomes the group).
    openssl req -x509 -newkey rsa:2048 -nodes -keyout client-ca.key -out client-ca.crt -days "$days" \
      -subj "/CN=codeflare-test-client-ca" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -keyout admin.key -out admin.csr \
      -subj "/O=system:masters/CN=admin" 2>/dev/null
    cat >admin.ext <<'EXT'
basicConstraints = CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = clientAuth
EXT
    openssl x509 -req -in admin.csr -CA client-ca.crt -CAkey client-ca.key -CAcreateserial -out admin.crt \
      -days "$days" -extfile admin.ext 2>/dev/null
    rm -f ./*.csr ./*.ext ./*.srl
    chmod 600 ./*.key
  )
}

# --- kubeconfig ----------------------------------------------------------------------------------------------------

write_kubeconfig() {
  local url="$1" token="$2" ca_data cert_data key_data
  ca_data="$(base64 -w0 <"$pki/ca.crt")"
  cert_data="$(base64 -w0 <"$pki/admin.crt")"
  key_data="$(base64 -w0 <"$pki/admin.key")"
  cat >"$state/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: codeflare-test
  cluster:
    server: $url
    certificate-authority-data: $ca_data
users:
- name: admin
  user:
    token: $token
- name: admin-cert
  user:
    client-certificate-data: $cert_data
    client-key-data: $key_data
contexts:
- name: admin
  context:
    cluster: codeflare-test
    user: admin
- name: admin-cert
  context:
    cluster: codeflare-test
    user: admin-cert
current-context: admin
KC
  chmod 600 "$state/kubeconfig"
}

# --- actions -------------------------------------------------------------------------------------------------------

readyz() {
  local url="$1" token="$2"
  [[ "$(curl -sS --max-time 5 --cacert "$pki/ca.crt" -H "Authorization: Bearer $token" "$url/readyz" 2>/dev/null)" == ok ]]
}

start_error=""

# Starts etcd on $etcd_port/$peer_port with an empty data folder and waits (20 s) for /health.
start_etcd() {
  local etcd_bin="$1"
  rm -rf "$state/etcd-data"
  local args=(
    --name=cfo-test
    --data-dir="$state/etcd-data"
    --listen-client-urls="http://127.0.0.1:$etcd_port"
    --advertise-client-urls="http://127.0.0.1:$etcd_port"
    --listen-peer-urls="http://127.0.0.1:$peer_port"
    --initial-advertise-peer-urls="http://127.0.0.1:$peer_port"
    --initial-cluster="cfo-test=http://127.0.0.1:$peer_port"
    --initial-cluster-state=new
  )
  if "$etcd_bin" --help 2>&1 | grep -q -- '--unsafe-no-fsync'; then
    args+=(--unsafe-no-fsync)
  fi
  spawn etcd "$etcd_bin" "${args[@]}"
  local deadline=$((SECONDS + 20))
  until curl -sf --max-time 2 "http://127.0.0.1:$etcd_port/health" 2>/dev/null | grep -q '"health":"true"'; do
    if ! alive "$(<"$state/etcd.pid")"; then
      start_error="etcd exited during start"
      return 1
    fi
    if ((SECONDS >= deadline)); then
      start_error="etcd not healthy after 20 s"
      return 1
    fi
    sleep 0.1
  done
}

# Starts kube-apiserver on $secure_port against the etcd above and waits (60 s) until /readyz says ok.
start_apiserver() {
  local apiserver_bin="$1" url="$2" token="$3"
  local args=(
    --etcd-servers="http://127.0.0.1:$etcd_port"
    --secure-port="$secure_port"
    --insecure-port=0
    --bind-address=127.0.0.1
    --advertise-address=127.0.0.1
    --cert-dir="$pki"
    --tls-cert-file="$pki/apiserver.crt"
    --tls-private-key-file="$pki/apiserver.key"
    --client-ca-file="$pki/client-ca.crt"
    --token-auth-file="$state/tokens.csv"
    --authorization-mode=RBAC
    --service-cluster-ip-range=10.0.0.0/24
    --service-account-issuer=https://kubernetes.default.svc
    --service-account-key-file="$pki/sa.pub"
    --service-account-signing-key-file="$pki/sa.key"
    --disable-admission-plugins=ServiceAccount
    --allow-privileged=true
    --endpoint-reconciler-type=none
    --profiling=false
    --v=1
  )
  # shellcheck disable=SC2206
  [[ -n "${CFO_APISERVER_EXTRA_FLAGS:-}" ]] && args+=(${CFO_APISERVER_EXTRA_FLAGS})
  spawn kube-apiserver "$apiserver_bin" "${args[@]}"
  local deadline=$((SECONDS + 60))
  until readyz "$url" "$token"; do
    if ! alive "$(<"$state/kube-apiserver.pid")"; then
      start_error="kube-apiserver exited during start"
      return 1
    fi
    if ((SECONDS >= deadline)); then
      start_error="kube-apiserver not ready after 60 s"
      return 1
    fi
    sleep 0.1
  done
}

do_start() {
  local with_crds="$1"
  # Every start gives an empty cluster: a control plane left running in this state folder is replaced.
  if running_pid kube-apiserver >/dev/null || running_pid etcd >/dev/null; then
    cfo_log "replacing the control plane already running in $state"
    stop_one kube-apiserver
    stop_one etcd
  fi

  local t0 bin etcd_bin apiserver_bin
  t0=$(date +%s%3N)
  bin="$("$CFO_HARNESS_DIR/build-kube-apiserver.sh" | tail -n1)"
  apiserver_bin="$bin/kube-apiserver"
  etcd_bin="$bin/etcd"
  [[ -x "$apiserver_bin" ]] || cfo_die "no kube-apiserver in '$bin' (from build-kube-apiserver.sh)"
  [[ -x "$etcd_bin" ]] || etcd_bin="$(command -v etcd || true)"
  [[ -x "$etcd_bin" ]] || cfo_die "no etcd in '$bin' nor on PATH (apt-get install etcd-server)"

  rm -f "$state/kubeconfig" "$state/env" "$state/etcd.log" "$state/kube-apiserver.log"
  make_pki

  # Token file: the admin first, then any extra users the caller prepared.
  local token
  token="$(openssl rand -hex 24)"
  {
    echo "$token,admin,admin-uid,\"system:masters\""
    if [[ -f "$state/extra-tokens.csv" ]]; then
      grep -v '^[[:space:]]*\(#\|$\)' "$state/extra-tokens.csv" || true
    fi
    if [[ -n "${CFO_EXTRA_TOKENS:-}" ]]; then
      grep -v '^[[:space:]]*\(#\|$\)' "$CFO_EXTRA_TOKENS" || true
    fi
  } >"$state/tokens.csv"
  chmod 600 "$state/tokens.csv"

  # Ports are free when picked but may be taken before etcd or kube-apiserver binds them: on "address already in
  # use" the start is retried with new ports.
  local attempt url etcd_port peer_port secure_port ports
  for attempt in 1 2 3; do
    mapfile -t ports < <(cfo_free_ports 3)
    etcd_port="${ports[0]}" peer_port="${ports[1]}" secure_port="${ports[2]}"
    url="https://127.0.0.1:$secure_port"
    if start_etcd "$etcd_bin" && start_apiserver "$apiserver_bin" "$url" "$token"; then
      break
    fi
    stop_one kube-apiserver
    stop_one etcd
    if ((attempt < 3)) && grep -qi 'address already in use' "$state/etcd.log" "$state/kube-apiserver.log" 2>/dev/null; then
      cfo_log "a port was taken meanwhile; retrying with new ports"
      continue
    fi
    log_tails
    cfo_die "$start_error"
  done

  write_kubeconfig "$url" "$token"
  cat >"$state/env" <<ENV
export KUBECONFIG=$state/kubeconfig
export CFO_APISERVER_URL=$url
export CFO_ADMIN_TOKEN=$token
export CFO_CA_FILE=$pki/ca.crt
export CFO_TOKEN_FILE=$state/tokens.csv
export CFO_ETCD_PORT=$etcd_port
export CFO_ETCD_PEER_PORT=$peer_port
export CFO_APISERVER_PORT=$secure_port
ENV
  local ms=$(($(date +%s%3N) - t0))
  cfo_log "ready at $url in $((ms / 1000)).$((ms % 1000 / 100)) s (etcd :$etcd_port, peer :$peer_port); KUBECONFIG=$state/kubeconfig"
  if [[ "$with_crds" == 1 ]]; then
    "$CFO_HARNESS_DIR/install-crds.sh" "$state/kubeconfig"
  fi
}

do_status() {
  local rc=0 pid name
  for name in etcd kube-apiserver; do
    if pid="$(running_pid "$name")"; then
      echo "$name: running (pid $pid)"
    else
      echo "$name: not running"
      rc=1
    fi
  done
  if [[ -f "$state/env" ]]; then
    local url token
    url="$(sed -n 's/^export CFO_APISERVER_URL=//p' "$state/env")"
    token="$(sed -n 's/^export CFO_ADMIN_TOKEN=//p' "$state/env")"
    if readyz "$url" "$token"; then
      echo "readyz: ok ($url)"
    else
      echo "readyz: not ready ($url)"
      rc=1
    fi
  else
    echo "readyz: no $state/env"
    rc=1
  fi
  return "$rc"
}

env_value() { sed -n "s/^export $1=//p" "$state/env"; }

do_restart_apiserver() {
  local kill_first="$1" down="$2"
  [[ -f "$state/env" ]] || cfo_die "no $state/env: start the control plane first"
  local etcd_port secure_port url token apiserver_bin pid
  etcd_port="$(env_value CFO_ETCD_PORT)" secure_port="$(env_value CFO_APISERVER_PORT)"
  url="$(env_value CFO_APISERVER_URL)" token="$(env_value CFO_ADMIN_TOKEN)"
  apiserver_bin="$(cat "$state/kube-apiserver.exe" 2>/dev/null)" || cfo_die "kube-apiserver was not started here"
  if [[ "$kill_first" == 1 ]] && pid="$(running_pid kube-apiserver)"; then
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  fi
  stop_one kube-apiserver
  [[ "$down" == 0 ]] || sleep "$down"
  local t0
  t0=$(date +%s%3N)
  mv -f "$state/kube-apiserver.log" "$state/kube-apiserver.log.1" 2>/dev/null || true
  if ! start_apiserver "$apiserver_bin" "$url" "$token"; then
    log_tails
    cfo_die "$start_error"
  fi
  cfo_log "kube-apiserver restarted at $url in $(( ($(date +%s%3N) - t0) )) ms"
}

do_compact() {
  [[ -f "$state/env" ]] || cfo_die "no $state/env: start the control plane first"
  command -v etcdctl >/dev/null || cfo_die "no etcdctl (apt-get install etcd-client: test/harness/install-deps.sh)"
  local endpoint rev
  endpoint="http://127.0.0.1:$(env_value CFO_ETCD_PORT)"
  rev="$(ETCDCTL_API=3 etcdctl --endpoints="$endpoint" endpoint status -w json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["Status"]["header"]["revision"])')"
  ETCDCTL_API=3 etcdctl --endpoints="$endpoint" compact "$rev" --physical >&2
  echo "$rev"
}

do_stop() {
  local purge="$1"
  stop_one kube-apiserver
  stop_one etcd
  if [[ "$purge" == 1 ]]; then
    rm -rf "$state"
    cfo_log "removed $state"
  fi
}

case "$action" in
  start)
    crds=0
    for a in "$@"; do
      case "$a" in --crds) crds=1 ;; *) usage ;; esac
    done
    do_start "$crds"
    ;;
  stop)
    purge=0
    for a in "$@"; do
      case "$a" in --purge) purge=1 ;; *) usage ;; esac
    done
    do_stop "$purge"
    ;;
  status)
    (($# == 0)) || usage
    do_status
    ;;
  restart-apiserver)
    kill_first=0 down=0
    while (($#)); do
      case "$1" in
        --kill) kill_first=1 ;;
        --down) down="${2:?--down needs seconds}"; shift ;;
        *) usage ;;
      esac
      shift
    done
    do_restart_apiserver "$kill_first" "$down"
    ;;
  compact)
    (($# == 0)) || usage
    do_compact
    ;;
  *) usage ;;
esac
