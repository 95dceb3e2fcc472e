#!/usr/bin/env bash
# Integration test: the operator works with the permissions of config/rbac and with nothing more.
#
# The identity: kube-apiserver's token file holds a user whose name and groups are those the apiserver gives the
# ServiceAccount of config/default (codeflare-operator-controller-manager in codeflare-operator-system):
#   user   system:serviceaccount:codeflare-operator-system:codeflare-operator-controller-manager
#   groups system:serviceaccounts, system:serviceaccounts:codeflare-operator-system, system:authenticated
# so the bindings of `kubectl kustomize config/default`, unchanged, apply to it; the test makes no binding of its
# own. A token user stands in for a real ServiceAccount token because this control plane runs no token controller.
# The line is added to the token file when the fixture starts the control plane (test/integration/CMakeLists.txt
# writes it to <build>/rbac-identity/tokens.csv, with a random token, and passes it as CFO_EXTRA_TOKENS);
# this script reads the token back from $CFO_CONTROL_PLANE_DIR/tokens.csv, the file the apiserver actually uses.
#
# Checks
#   1. Negative control: before the RBAC objects exist, the identity can neither list CodeFlareWorkloads nor read
#      CRDs (auth can-i says no and the real requests are Forbidden).
#   2. The RBAC objects of `kubectl kustomize config/default` (ServiceAccount, ClusterRoles, Role and the bindings;
#      not the CRD or the Deployment) are applied for real by the admin, with its Namespace; then the identity may
#      list CodeFlareWorkloads in all namespaces.
#   3. The operator runs as that identity (a kubeconfig with its token, all namespaces, leader election on a Lease in
#      codeflare-operator-system, --log-level=debug) and reconciles every config/samples workload in a namespace of
#      this test: each reaches status.observedGeneration == metadata.generation with Valid=True, and every object
#      that `codeflare-operator render` prints for it (RayCluster, RayJob, AppWrapper, the managed LocalQueue)
#      exists and is named in the operator's log as applied by it (so not by another operator on this control
#      plane). The admin first creates what the samples name but the operator does not create: LocalQueue
#      team-a-queue and WorkloadPriorityClass high-priority. Two more workloads name a missing LocalQueue and a
#      missing WorkloadPriorityClass and must be held (Queued=False, LocalQueueNotFound / PriorityClassNotFound):
#      the operator takes a 403 on those reads as "cannot tell" (with a warning in its log, which check 5 catches),
#      so the holds show they are granted.
#      The operator's events.k8s.io Events are there.
#   4. The operator holds the Lease.
#   5. Deleting the workloads: the operator removes the managed LocalQueue's finalizer and deletes that LocalQueue.
#      It then stops on SIGTERM with exit code 0, and its log has no "forbidden" or 403.
#   6. The roles are tight: requests outside them are refused both by `kubectl auth can-i` and for real (Forbidden;
#      writes go with --dry-run=server, which the authorizer sees like real writes), among them verbs the roles
#      leave out on resources they do grant (delete and create of CodeFlareWorkloads, list and patch of CRDs, list
#      of WorkloadPriorityClasses, get of Kueue Workloads, update of LocalQueues, get of CodeFlareWorkloads, update
#      of RayClusters, list of Leases), core Events anywhere and Leases outside the operator's namespace. Their
#      granted counterparts are checked to be allowed.
#   7. Once the RBAC objects are deleted again, the identity is refused again (the second negative control).
# Cleanup: the workloads and their children are deleted (this control plane runs no garbage collector), and so are
# the RBAC objects; the test namespace and codeflare-operator-system are left (no namespace controller either).
#
# Inputs:  KUBECONFIG, CFO_CONTROL_PLANE_DIR (set by the ctest fixture), CFO_OPERATOR_BIN, UPSTREAM_CRDS (folder with
#          upstream/, for `render --crds`), KUBECTL (optional; needs `kustomize`), CFO_RBAC_WAIT_SECONDS (how long
#          the samples may take to be reconciled, default 120; half of it for their deletion). Needs jq.
# Output:  one line per check, then "N passed, N failed"; exit 1 when anything failed. The operator's log goes to
#          $CFO_RBAC_LOG_DIR/rbac-operator.log when that is set, else to a temporary folder removed at exit; on a
#          failure its last lines are printed (and, from the temporary folder, it is kept as
#          ${TMPDIR:-/tmp}/cfo-rbac-operator.<pid>.log).
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../harness/lib.sh"

[[ -n "${KUBECONFIG:-}" && -f "$KUBECONFIG" ]] || cfo_die "KUBECONFIG must name the control plane's kubeconfig"
[[ -n "${CFO_CONTROL_PLANE_DIR:-}" && -f "$CFO_CONTROL_PLANE_DIR/tokens.csv" ]] ||
  cfo_die "CFO_CONTROL_PLANE_DIR must name the control plane's state folder (with tokens.csv)"
[[ -n "${CFO_OPERATOR_BIN:-}" && -x "$CFO_OPERATOR_BIN" ]] || cfo_die "CFO_OPERATOR_BIN must name the operator binary"
[[ -d "${UPSTREAM_CRDS:-}/upstream" ]] || cfo_die "UPSTREAM_CRDS must name a folder with upstream/ (for render --crds)"
command -v jq >/dev/null || cfo_die "jq is needed (Debian package jq)"
py="$(cfo_python)"

sa_ns=codeflare-operator-system
sa_name=codeflare-operator-controller-manager
user="system:serviceaccount:$sa_ns:$sa_name"
lease=codeflare-operator.codeflare.dev
wait_s="${CFO_RBAC_WAIT_SECONDS:-120}"
[[ "$wait_s" =~ ^[1-9][0-9]*$ ]] || cfo_die "CFO_RBAC_WAIT_SECONDS must be a whole number of seconds"

k() { "${KUBECTL:-kubectl}" --kubeconfig "$KUBECONFIG" "$@"; }
work="$(mktemp -d)"
oplog="${CFO_RBAC_LOG_DIR:-$work}/rbac-operator.log"
mkdir -p "$(dirname "$oplog")"
ns="cfo-rbac-$RANDOM"
pid=""
rbac_applied=false

cfo_tally_begin

op_rc=""
stop_operator() {
  [[ -n "$pid" ]] || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 150); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  op_rc=0
  wait "$pid" 2>/dev/null || op_rc=$?
  pid=""
}
# Deletes every workload and child left in the test namespace; the finalizer of a managed LocalQueue workload is
# removed by hand when the operator is gone.
delete_samples() {
  k get namespace "$ns" >/dev/null 2>&1 || return 0
  local w
  for w in $(k get codeflareworkloads.codeflare.dev -n "$ns" -o name 2>/dev/null); do
    k patch -n "$ns" "$w" --type=merge -p '{"metadata":{"finalizers":null}}' >/dev/null 2>&1 || true
  done
  k delete -n "$ns" --ignore-not-found --wait=false \
    codeflareworkloads.codeflare.dev,rayclusters.ray.io,rayjobs.ray.io,appwrappers.workload.codeflare.dev,localqueues.kueue.x-k8s.io \
    --all >/dev/null 2>&1 || true
}
cleanup() {
  local rc=$?
  stop_operator
  delete_samples
  if [[ $rbac_applied == true ]]; then
    k delete --ignore-not-found -f "$work/rbac.yaml" >/dev/null 2>&1 || true
  fi
  k delete leases.coordination.k8s.io -n "$sa_ns" "$lease" --ignore-not-found >/dev/null 2>&1 || true
  if ((rc != 0 || failed > 0)); then
    echo "operator log: $oplog" >&2
    [[ -f "$oplog" ]] && tail -n 40 "$oplog" >&2
    [[ -z "${CFO_RBAC_LOG_DIR:-}" ]] && cp "$oplog" "${TMPDIR:-/tmp}/cfo-rbac-operator.$$.log" 2>/dev/null &&
      echo "(copied to ${TMPDIR:-/tmp}/cfo-rbac-operator.$$.log)" >&2
  fi
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the identity's kubeconfig ---------------------------------------------------------------------------------------
token="$(awk -F, -v u="$user" '$2 == u { print $1; exit }' "$CFO_CONTROL_PLANE_DIR/tokens.csv")"
[[ -n "$token" ]] || cfo_die "no token for $user in $CFO_CONTROL_PLANE_DIR/tokens.csv: the control plane must be" \
  "started with it (the ctest fixture passes CFO_EXTRA_TOKENS=<build>/rbac-identity/tokens.csv; restart it)"
server="$(k config view --raw --minify -o jsonpath='{.clusters[0].cluster.server}')"
ca_data="$(k config view --raw --minify -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')"
[[ -n "$server" && -n "$ca_data" ]] || cfo_die "cannot read the server and CA from $KUBECONFIG"
op_kubeconfig="$work/operator.kubeconfig"
cat >"$op_kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: codeflare-test
  cluster:
    server: $server
    certificate-authority-data: $ca_data
users:
- name: operator
  user:
    token: $token
contexts:
- name: operator
  context:
    cluster: codeflare-test
    user: operator
current-context: operator
KC
chmod 600 "$op_kubeconfig"
as_op() { "${KUBECTL:-kubectl}" --kubeconfig "$op_kubeconfig" "$@"; }

who="$(as_op auth can-i --list -n default 2>/dev/null | head -n1 || true)"
[[ -n "$who" ]] || cfo_die "the identity's token is not accepted by $server"

# denied <what> <can-i args...> -- <real request args...>: auth can-i says no and the real request is Forbidden.
denied() {
  local what="$1" i can=() real=()
  shift
  for ((i = 1; i <= $#; i++)); do [[ "${!i}" == -- ]] && break; done
  can=("${@:1:i-1}")
  real=("${@:i+1}")
  local answer rc=0
  answer="$(as_op auth can-i "${can[@]}" 2>"$work/can-i.err")" || rc=$?
  if [[ $rc -eq 0 || "$answer" != no* ]]; then
    fail "$what: auth can-i ${can[*]} answered '$answer' (expected no) $(tr '\n' ' ' <"$work/can-i.err")"
    return
  fi
  rc=0
  as_op "${real[@]}" >"$work/real.out" 2>&1 || rc=$?
  if [[ $rc -ne 0 ]] && grep -qF "is forbidden: User \"$user\" cannot" "$work/real.out"; then
    pass "$what: denied (can-i no; kubectl ${real[*]}: Forbidden)"
  else
    fail "$what: kubectl ${real[*]} was not Forbidden (exit $rc): $(tr '\n' ' ' <"$work/real.out" | cut -c1-300)"
  fi
}
# allowed <what> <can-i args...>: auth can-i says yes.
allowed() {
  local what="$1" answer rc=0
  shift
  answer="$(as_op auth can-i "$@" 2>"$work/can-i.err")" || rc=$?
  if [[ $rc -eq 0 && "$answer" == yes* ]]; then
    pass "$what: allowed"
  else
    fail "$what: auth can-i $* answered '$answer' (expected yes) $(tr '\n' ' ' <"$work/can-i.err")"
  fi
}

# --- 1. negative control: no permissions before the RBAC objects exist ----------------------------------------------
# The RBAC objects of config/default: every kind but the CRD and the Deployment.
"${KUBECTL:-kubectl}" kustomize "$CFO_REPO_DIR/config/default" >"$work/default.yaml" ||
  cfo_die "kubectl kustomize config/default failed"
"$py" - "$work/default.yaml" "$work/namespace.yaml" "$work/rbac.yaml" <<'PY' >"$work/kinds.txt"
import sys, yaml
src, ns_out, rbac_out = sys.argv[1:4]
with open(src, encoding="utf-8") as f:
    docs = [d for d in yaml.safe_load_all(f) if isinstance(d, dict)]
rbac_kinds = {"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}
ns = [d for d in docs if d.get("kind") == "Namespace"]
rbac = [d for d in docs if d.get("kind") in rbac_kinds]
for path, part in ((ns_out, ns), (rbac_out, rbac)):
    with open(path, "w", encoding="utf-8") as f:
        yaml.safe_dump_all(part, f, sort_keys=False)
for d in ns + rbac:
    m = d.get("metadata") or {}
    print(d["kind"], (m.get("namespace") or "-"), m.get("name"))
PY
grep -q "^Namespace - $sa_ns$" "$work/kinds.txt" || cfo_die "config/default has no Namespace $sa_ns"
grep -q "^ServiceAccount $sa_ns $sa_name$" "$work/kinds.txt" ||
  cfo_die "config/default has no ServiceAccount $sa_ns/$sa_name (did the namespace or name prefix change?)"
k apply -f "$work/namespace.yaml" >/dev/null
k create namespace "$ns" >/dev/null
# Left over by an interrupted run: the negative control needs them gone.
k delete --ignore-not-found -f "$work/rbac.yaml" >/dev/null 2>&1 || true
# The RBAC authorizer reads bindings from a cache: wait until the deletion shows.
for _ in $(seq 1 50); do
  [[ "$(as_op auth can-i list codeflareworkloads.codeflare.dev -A 2>/dev/null)" == no* ]] && break
  sleep 0.2
done
denied "before the bindings: list CodeFlareWorkloads in all namespaces" \
  list codeflareworkloads.codeflare.dev -A -- get codeflareworkloads.codeflare.dev -A
denied "before the bindings: get a CRD" \
  get customresourcedefinitions.apiextensions.k8s.io/codeflareworkloads.codeflare.dev -- \
  get customresourcedefinitions.apiextensions.k8s.io codeflareworkloads.codeflare.dev

# --- 2. the RBAC objects of config/default ---------------------------------------------------------------------------
rbac_applied=true
if k apply -f "$work/rbac.yaml" >"$work/apply.out" 2>&1; then
  pass "config/default: applied $(grep -vc '^Namespace' "$work/kinds.txt") RBAC object(s) ($(grep -v '^Namespace' "$work/kinds.txt" | awk '{print $1}' | sort | uniq -c | awk '{printf "%s%s %s", sep, $1, $2; sep=", "}'))"
else
  fail "config/default: applying its RBAC objects failed: $(tr '\n' ' ' <"$work/apply.out")"
fi
granted=false
for _ in $(seq 1 50); do
  if [[ "$(as_op auth can-i list codeflareworkloads.codeflare.dev -A 2>/dev/null)" == yes* ]]; then granted=true; break; fi
  sleep 0.2
done
if $granted; then pass "after the bindings: the identity may list CodeFlareWorkloads in all namespaces"
else fail "after the bindings: the identity still may not list CodeFlareWorkloads"; fi

# --- 3. the operator reconciles every sample as that identity --------------------------------------------------------
if ! cfo_sample_prerequisites "$ns" | k apply -f - >/dev/null 2>"$work/kueue.err"; then
  cfo_die "creating the Kueue objects the samples name (cfo_sample_prerequisites): $(cat "$work/kueue.err")"
fi

# Ports 0: no HTTP servers (the metrics and probe servers are covered by operator_metrics). Under setpriv, when
# there, the operator gets SIGKILL if this script dies without its EXIT trap (e.g. killed by ctest's timeout).
deathsig=()
setpriv --help 2>/dev/null | grep -q -- --pdeathsig && deathsig=(setpriv --pdeathsig KILL --)
"${deathsig[@]}" "$CFO_OPERATOR_BIN" run --kubeconfig "$op_kubeconfig" --metrics-bind-address=0 --health-probe-bind-address=0 \
  --webhook-bind-address=0 \
  --leader-elect --leader-election-namespace "$sa_ns" --leader-elect-release-on-cancel \
  --graceful-shutdown-timeout=10s --log-level=debug </dev/null >"$oplog" 2>&1 &
pid=$!

samples=()
for f in "$CFO_REPO_DIR"/config/samples/*.yaml; do
  [[ "$(basename "$f")" == kustomization.yaml ]] || samples+=("$f")
done
((${#samples[@]} >= 5)) || cfo_die "expected the samples in $CFO_REPO_DIR/config/samples"
# What each sample should produce: "<workload> <kind> <apiVersion> <name>" per generated object.
: >"$work/expected.txt"
for f in "${samples[@]}"; do
  "$CFO_OPERATOR_BIN" render --crds "$UPSTREAM_CRDS" -n "$ns" -f "$f" >"$work/render.yaml" 2>"$work/render.err" ||
    cfo_die "render -f $f: $(cat "$work/render.err")"
  "$py" - "$f" "$work/render.yaml" <<'PY' >>"$work/expected.txt"
import sys, yaml
sample, rendered = sys.argv[1:3]
with open(sample, encoding="utf-8") as f:
    names = [d["metadata"]["name"] for d in yaml.safe_load_all(f) if isinstance(d, dict)]
with open(rendered, encoding="utf-8") as f:
    objs = [d for d in yaml.safe_load_all(f) if isinstance(d, dict)]
# render prints a workload's objects in the order of its documents: the managed LocalQueue first, then the child.
owner = names[0] if len(names) == 1 else None
for o in objs:
    refs = (o.get("metadata") or {}).get("ownerReferences") or []
    w = next((r["name"] for r in refs if r.get("kind") == "CodeFlareWorkload"), owner)
    print(w, o["kind"], o["apiVersion"], o["metadata"]["name"])
PY
done
for f in "${samples[@]}"; do
  k apply -n "$ns" -f "$f" >/dev/null || cfo_die "kubectl apply -f $f failed"
done
mapfile -t workloads < <(k get codeflareworkloads.codeflare.dev -n "$ns" -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}')

# kind + apiVersion -> the resource kubectl should ask for (group-qualified, version-free: the server may serve
# another version of Kueue than render prints).
resource_of() {
  local kind="$1" api="$2" group=""
  [[ "$api" == */* ]] && group=".${api%/*}"
  echo "${kind,,}$group"
}
# Prints the workloads not done yet: status.observedGeneration != generation, or not Valid=True, or a child missing.
pending() {
  local w obj gen seen valid kind api name
  for w in "${workloads[@]}"; do
    obj="$(k get codeflareworkloads.codeflare.dev -n "$ns" "$w" -o json 2>/dev/null)" || { echo "$w(gone)"; continue; }
    read -r gen seen valid < <(jq -r '[.metadata.generation, (.status.observedGeneration // "none"),
      ((.status.conditions // []) | map(select(.type == "Valid"))[0].status // "none")] | @tsv' <<<"$obj")
    if [[ "$gen" != "$seen" ]]; then echo "$w(observedGeneration $seen, generation $gen)"; continue; fi
    if [[ "$valid" != True ]]; then echo "$w(Valid=$valid)"; continue; fi
    while read -r _ kind api name; do
      k get -n "$ns" "$(resource_of "$kind" "$api")" "$name" >/dev/null 2>&1 || echo "$w(no $kind $name)"
    done < <(awk -v w="$w" '$1 == w' "$work/expected.txt")
  done
}
left=""
deadline=$((SECONDS + wait_s))
while :; do
  left="$(pending | tr '\n' ' ')"
  [[ -z "$left" ]] && break
  kill -0 "$pid" 2>/dev/null || break
  ((SECONDS < deadline)) || break
  sleep 1
done
n_children="$(wc -l <"$work/expected.txt")"
if ! kill -0 "$pid" 2>/dev/null; then
  fail "the operator exited before reconciling the samples (left: $left)"
elif [[ -z "$left" ]]; then
  pass "${#workloads[@]} sample workloads reconciled (Valid=True, observedGeneration current) and their $n_children generated object(s) exist"
else
  fail "not reconciled within $wait_s s: $left"
fi
# This operator did it (not another one running on the same control plane): its log names every child it created or
# updated (info) and every workload it reconciled (debug), each line prefixed with the workload's key.
unlogged=""
while read -r w kind _ name; do
  grep -qE "\] $ns/$w: (created|updated) $kind $name\$" "$oplog" || unlogged+="$kind/$name "
done <"$work/expected.txt"
for w in "${workloads[@]}"; do
  # Done, or done and looked at again later (a child waiting for KubeRay's first status is).
  grep -qE "(reconciled $ns/$w\$|reconcile $ns/$w requeued after)" "$oplog" || unlogged+="reconciled:$w "
done
if [[ -z "$unlogged" ]]; then pass "the operator's log shows it applied every generated object and reconciled every workload"
else fail "not in the operator's log: $unlogged"; fi

# Two workloads held back because what they name is missing. The operator reads the LocalQueue and the
# WorkloadPriorityClass for that, and takes a 403 there as "cannot tell" without a log line, so only the hold
# shows that those reads are granted.
k apply -n "$ns" -f - >/dev/null <<'PROBES'
apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata:
  name: rbac-missing-queue
spec:
  queue:
    localQueue: rbac-no-such-queue
  workerGroups:
    - name: workers
      replicas: 1
---
apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata:
  name: rbac-missing-priority
spec:
  queue:
    localQueue: team-a-queue
    priorityClass: rbac-no-such-class
  workerGroups:
    - name: workers
      replicas: 1
PROBES
queued_reason() {
  k get codeflareworkloads.codeflare.dev -n "$ns" "$1" -o json 2>/dev/null |
    jq -r '(.status.conditions // []) | map(select(.type == "Queued"))[0] | "\(.status // "")/\(.reason // "")"' || true
}
for probe in rbac-missing-queue:LocalQueueNotFound rbac-missing-priority:PriorityClassNotFound; do
  name="${probe%%:*}" want="False/${probe#*:}" got=""
  for _ in $(seq 1 "$wait_s"); do
    got="$(queued_reason "$name")"
    [[ "$got" == "$want" ]] && break
    sleep 1
  done
  if [[ "$got" == "$want" ]]; then pass "$name is held with Queued=$want"
  else fail "$name: Queued=$got, expected $want"; fi
done

# Events about the workloads (events.k8s.io), reported by the operator.
n_events="$(k get events.events.k8s.io -n "$ns" -o json 2>/dev/null |
  jq '[.items[] | select(.regarding.kind == "CodeFlareWorkload")] | length' || true)"
[[ "$n_events" =~ ^[0-9]+$ ]] || n_events=0
if ((n_events > 0)); then pass "the operator recorded $n_events event(s) about the workloads"
else fail "no events.k8s.io Event about the workloads in $ns"; fi

# --- 4. the Lease, and no refusal in the log --------------------------------------------------------------------------
holder="$(k get leases.coordination.k8s.io -n "$sa_ns" "$lease" -o jsonpath='{.spec.holderIdentity}' 2>/dev/null || true)"
if [[ -n "$holder" ]]; then pass "the operator holds Lease $sa_ns/$lease ($holder)"
else fail "no holder on Lease $sa_ns/$lease"; fi

# --- 5. deleting the workloads ----------------------------------------------------------------------------------------
managed_lq="$(awk '$2 == "LocalQueue" { print $4; exit }' "$work/expected.txt")"
k delete codeflareworkloads.codeflare.dev -n "$ns" --all --wait=false >/dev/null
gone=false
for _ in $(seq 1 "$((wait_s / 2))"); do
  if [[ -z "$(k get codeflareworkloads.codeflare.dev -n "$ns" -o name 2>/dev/null)" ]] &&
    { [[ -z "$managed_lq" ]] || ! k get localqueues.kueue.x-k8s.io -n "$ns" "$managed_lq" >/dev/null 2>&1; }; then
    gone=true
    break
  fi
  sleep 1
done
if $gone; then pass "the workloads are deleted and the operator deleted the managed LocalQueue ${managed_lq:-(none)}"
else fail "after delete: workloads left: $(k get codeflareworkloads.codeflare.dev -n "$ns" -o name 2>/dev/null | tr '\n' ' ')${managed_lq:+; LocalQueue $managed_lq: $(k get localqueues.kueue.x-k8s.io -n "$ns" "$managed_lq" -o name 2>&1)}"; fi

stop_operator
if [[ "$op_rc" == 0 ]]; then pass "the operator stopped on SIGTERM with exit code 0"
else fail "the operator stopped with exit code $op_rc"; fi
# An RBAC refusal reads 'User "<name>" cannot <verb> ...' (the apiserver's message); the operator's own warning for a
# skipped best-effort read says "forbidden (403)". Other 403s are not about these roles: a ResourceQuota's
# "exceeded quota" (a workload left by another test in its namespace) or an admission webhook's refusal.
refused='User \\?"[^"]*\\?" cannot|forbidden \(403\)'
if grep -qiE "$refused" "$oplog"; then
  fail "the operator's log reports refused requests: $(grep -iE "$refused" "$oplog" | head -n 5 | cut -c1-300 | tr '\n' ' ')"
else
  pass "the operator's log ($(wc -l <"$oplog") lines, debug level) has no refused request (forbidden/403)"
fi

# --- 6. the roles are tight --------------------------------------------------------------------------------------------
# Inside the roles (the counterparts of the verb-level refusals below).
allowed "watch CodeFlareWorkloads in all namespaces" watch codeflareworkloads.codeflare.dev -A
allowed "patch CodeFlareWorkloads" patch codeflareworkloads.codeflare.dev -n "$ns"
allowed "patch CodeFlareWorkload status" patch codeflareworkloads.codeflare.dev --subresource=status -n "$ns"
allowed "update CodeFlareWorkload finalizers" update codeflareworkloads.codeflare.dev --subresource=finalizers -n "$ns"
allowed "get a CRD" get customresourcedefinitions.apiextensions.k8s.io/rayclusters.ray.io
allowed "watch CRDs" watch customresourcedefinitions.apiextensions.k8s.io
allowed "watch Namespaces (their Pod Security label)" watch namespaces
allowed "watch WorkloadPriorityClasses" watch workloadpriorityclasses.kueue.x-k8s.io
allowed "watch ClusterQueues" watch clusterqueues.kueue.x-k8s.io
allowed "list ResourceFlavors" list resourceflavors.kueue.x-k8s.io
allowed "watch Kueue Workloads" watch workloads.kueue.x-k8s.io -n "$ns"
allowed "create RayClusters" create rayclusters.ray.io -n "$ns"
allowed "delete AppWrappers" delete appwrappers.workload.codeflare.dev -n "$ns"
allowed "create LocalQueues" create localqueues.kueue.x-k8s.io -n "$ns"
allowed "patch LocalQueues" patch localqueues.kueue.x-k8s.io -n "$ns"
allowed "create events.k8s.io Events" create events.events.k8s.io -n "$ns"
allowed "update the Lease in $sa_ns" update leases.coordination.k8s.io -n "$sa_ns"

# Outside the roles.

denied "list Secrets" list secrets -A -- get secrets -A
denied "create Pods" create pods -n "$ns" -- \
  run rbac-probe -n "$ns" --image=busybox --restart=Never --dry-run=server
denied "list ConfigMaps" list configmaps -n "$ns" -- get configmaps -n "$ns"
denied "get a Namespace (list and watch are granted)" get "namespaces/$ns" -- get namespace "$ns"
denied "label a Namespace" patch "namespaces/$ns" -- label namespace "$ns" rbac-probe=x --dry-run=server
denied "delete a CodeFlareWorkload (list, watch and patch are granted)" delete codeflareworkloads.codeflare.dev -n "$ns" -- \
  delete codeflareworkloads.codeflare.dev rbac-probe -n "$ns" --dry-run=server
denied "create a CodeFlareWorkload (patch is granted)" create codeflareworkloads.codeflare.dev -n "$ns" -- \
  create -n "$ns" --dry-run=server -f "${samples[0]}"
denied "patch a CRD (get, list and watch are granted)" patch customresourcedefinitions.apiextensions.k8s.io/codeflareworkloads.codeflare.dev -- \
  label customresourcedefinitions.apiextensions.k8s.io codeflareworkloads.codeflare.dev rbac-probe=x --dry-run=server
denied "get a WorkloadPriorityClass (list and watch are granted)" get workloadpriorityclasses.kueue.x-k8s.io -- \
  get workloadpriorityclasses.kueue.x-k8s.io high-priority
denied "get a Kueue Workload (list and watch are granted)" get workloads.kueue.x-k8s.io -n "$ns" -- \
  get workloads.kueue.x-k8s.io rbac-probe -n "$ns"
denied "get a RayCluster (list, watch and patch are granted)" get rayclusters.ray.io -n "$ns" -- \
  get rayclusters.ray.io rbac-probe -n "$ns"
denied "get a ClusterQueue (list and watch are granted)" get clusterqueues.kueue.x-k8s.io -- \
  get clusterqueues.kueue.x-k8s.io rbac-probe
denied "patch a ResourceFlavor (list and watch are granted)" patch resourceflavors.kueue.x-k8s.io -- \
  label resourceflavors.kueue.x-k8s.io rbac-probe rbac-probe=x --dry-run=server
denied "update a LocalQueue (patch is granted)" update localqueues.kueue.x-k8s.io -n "$ns" -- \
  replace -n "$ns" --dry-run=server -f - <<<"apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: team-a-queue, namespace: $ns}
spec: {clusterQueue: team-a-cq}"
denied "get a Lease outside $sa_ns" get leases.coordination.k8s.io -n "$ns" -- get leases.coordination.k8s.io -n "$ns"
denied "list Leases in $sa_ns (get, create and update are granted)" list leases.coordination.k8s.io -n "$sa_ns" -- \
  get leases.coordination.k8s.io -n "$sa_ns"
denied "update a RayCluster (server-side apply patches)" update rayclusters.ray.io -n "$ns" -- \
  replace -n "$ns" --dry-run=server -f - <<<"apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: rbac-probe, namespace: $ns}
spec: {headGroupSpec: {rayStartParams: {}, template: {spec: {containers: [{name: ray-head, image: rayproject/ray}]}}}}"
denied "get a CodeFlareWorkload (list, watch and patch are granted)" get codeflareworkloads.codeflare.dev -n "$ns" -- \
  get codeflareworkloads.codeflare.dev rbac-probe -n "$ns"
denied "create core Events in $sa_ns (no events rule for leader election)" create events -n "$sa_ns" -- \
  create -n "$sa_ns" --dry-run=server -f - <<<"apiVersion: v1
kind: Event
metadata: {name: rbac-probe}
involvedObject: {kind: Namespace, name: $sa_ns}
reason: Probe
message: probe"
denied "create core Events outside $sa_ns" create events -n "$ns" -- \
  create -n "$ns" --dry-run=server -f - <<<"apiVersion: v1
kind: Event
metadata: {name: rbac-probe}
involvedObject: {kind: Namespace, name: $ns}
reason: Probe
message: probe"
denied "create a ClusterRoleBinding" create clusterrolebindings.rbac.authorization.k8s.io -- \
  create clusterrolebinding rbac-probe --clusterrole=cluster-admin --user=rbac-probe --dry-run=server
denied "create Namespaces" create namespaces -- create namespace rbac-probe --dry-run=server

# --- 7. negative control: without the RBAC objects the identity is refused again -------------------------------------
delete_samples
k delete --ignore-not-found -f "$work/rbac.yaml" >/dev/null
rbac_applied=false
for _ in $(seq 1 50); do
  [[ "$(as_op auth can-i list codeflareworkloads.codeflare.dev -A 2>/dev/null)" == no* ]] && break
  sleep 0.2
done
denied "after deleting the RBAC objects: list CodeFlareWorkloads" \
  list codeflareworkloads.codeflare.dev -A -- get codeflareworkloads.codeflare.dev -A
denied "after deleting the RBAC objects: list RayClusters" list rayclusters.ray.io -n "$ns" -- \
  get rayclusters.ray.io -n "$ns"

echo "$passed passed, $failed failed"
((failed == 0))
