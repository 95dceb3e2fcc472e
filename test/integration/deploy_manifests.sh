#!/usr/bin/env bash
# Integration test: the kustomize deployment in config/ builds, is accepted by the apiserver, grants the operator
# exactly the permissions it uses, wires its probes and metrics to ports it declares, and the opt-in ServiceMonitor
# in config/prometheus reaches the metrics Service.
#
# Checks
#   1. config/crd/bases/codeflare.dev_codeflareworkloads.yaml is byte for byte crds/codeflare.dev_codeflareworkloads.yaml
#      (kustomize cannot read files outside config/crd, so the CRD is copied there).
#   2. `kubectl kustomize config/default` succeeds.
#   3. Its output is accepted by the apiserver: the Namespace (codeflare-operator-system) is applied for real, because
#      namespaced objects cannot be dry-run into a namespace that does not exist; every other object goes through
#      `kubectl apply --dry-run=server`. The namespace is left in place (this control plane has no namespace
#      controller, so a deleted namespace would stay Terminating and break the next run).
#   4. config/rbac/role.yaml and the ClusterRole manager-role in the built output have exactly the expected rules:
#      the same (apiGroup, resource) pairs with the same verbs, no wildcards, resourceNames or nonResourceURLs.
#   5. The manager Deployment in the built output: its liveness probe is an HTTP GET of /healthz and its readiness
#      probe one of /readyz (with ?exclude=leader, so leader-election standbys stay Ready), both on a port the
#      container declares, the one --health-probe-bind-address names; the args include --leader-elect;
#      --metrics-bind-address names a declared container port; terminationGracePeriodSeconds is above the
#      --graceful-shutdown-timeout (default 30s).
#   6. The metrics Service in config/default selects the manager's pods and targets a declared container port.
#   7. `kubectl kustomize config/prometheus` builds a monitoring.coreos.com/v1 ServiceMonitor whose selector matches
#      the metrics Service's labels in config/default, whose endpoint port is a port name of that Service, path
#      /metrics; and config/default with its "#- ../prometheus" line uncommented (in a copy) builds with the
#      ServiceMonitor in codeflare-operator-system. The ServiceMonitor is never sent to the apiserver: its CRD is not
#      installed here (nor on every cluster, which is why config/default leaves it out).
#   8. The admission webhook (config/webhook) in the built output, by test/integration/webhook_objects.py: the
#      CodeFlareWorkload ValidatingWebhookConfiguration (path, failurePolicy Fail, sideEffects None, v1 reviews,
#      10 s), its Service (443 to the manager's webhook-server port), the manager's --webhook-* flags naming the
#      objects built (through namePrefix), the certificate folder an emptyDir, the Secret and configuration roles
#      limited to those names, no guards and no cert-manager objects; the flags are ones `run --help` documents.
# Inputs:  KUBECONFIG (set by the ctest fixture), CFO_OPERATOR_BIN (optional, for `run --help`),
#          KUBECTL (optional; its `kustomize` must understand
#          kustomize.config.k8s.io/v1beta1, which every kubectl since 1.14 does).
# Output:  one line per check, then "N passed, N failed"; exit 1 when anything failed.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../harness/lib.sh"

[[ -n "${KUBECONFIG:-}" && -f "$KUBECONFIG" ]] || cfo_die "KUBECONFIG must name the control plane's kubeconfig"
k() { "${KUBECTL:-kubectl}" --kubeconfig "$KUBECONFIG" "$@"; }
py="$(cfo_python)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$CFO_REPO_DIR"

cfo_tally_begin

# --- 1. the CRD copy under config/crd matches crds/ ---------------------------------------------------------------
src=crds/codeflare.dev_codeflareworkloads.yaml copy=config/crd/bases/codeflare.dev_codeflareworkloads.yaml
if [[ ! -f "$copy" ]]; then
  fail "$copy does not exist"
elif cmp -s "$src" "$copy"; then
  pass "$copy is identical to $src"
else
  fail "$copy differs from $src (copy it over: cp $src $copy)"
fi

# --- 2. kustomize builds config/default ----------------------------------------------------------------------------
built=false
if "${KUBECTL:-kubectl}" kustomize config/default >"$work/default.yaml" 2>"$work/kustomize.err"; then
  built=true
  pass "kubectl kustomize config/default builds $(grep -c '^kind:' "$work/default.yaml") objects"
else
  fail "kubectl kustomize config/default: $(tr '\n' ' ' <"$work/kustomize.err")"
fi

# --- 3. the apiserver accepts the output ---------------------------------------------------------------------------
if [[ $built == true ]]; then
  # Namespaces into one file, everything else into another; print how many of each.
  counts="$("$py" - "$work/default.yaml" "$work/namespaces.yaml" "$work/rest.yaml" <<'PY'
import sys, yaml
src, ns_out, rest_out = sys.argv[1:4]
with open(src, encoding="utf-8") as f:
    docs = [d for d in yaml.safe_load_all(f) if isinstance(d, dict)]
ns = [d for d in docs if d.get("kind") == "Namespace"]
rest = [d for d in docs if d.get("kind") != "Namespace"]
for path, part in ((ns_out, ns), (rest_out, rest)):
    with open(path, "w", encoding="utf-8") as f:
        yaml.safe_dump_all(part, f, sort_keys=False)
print(len(ns), len(rest))
PY
)"
  read -r n_ns n_rest <<<"$counts"
  if ((n_ns > 0)) && ! k apply -f "$work/namespaces.yaml" >"$work/ns.out" 2>&1; then
    fail "config/default: applying its Namespace failed: $(tr '\n' ' ' <"$work/ns.out")"
  elif k apply --dry-run=server -f "$work/rest.yaml" >"$work/apply.out" 2>&1; then
    pass "config/default: $n_ns namespace(s) applied, $n_rest object(s) accepted by apply --dry-run=server"
  else
    # Only the lines that are not "... created/configured (server dry run)".
    fail "config/default rejected by apply --dry-run=server: $(grep -v '(server dry run)$' "$work/apply.out" | tr '\n' ' ')"
  fi
else
  echo "skip apply --dry-run=server: config/default did not build"
fi

# --- 4. the operator's ClusterRole grants exactly what it uses ------------------------------------------------------
# Expected verbs per (apiGroup, resource); keep in line with config/rbac/role.yaml and the Helm chart's clusterrole.
check_rules() {
  local label="$1" file="$2" name="$3" out
  if out="$("$py" - "$file" "$name" 2>"$work/rules.err" <<'PY'
import sys, yaml
path, name = sys.argv[1:3]
expected = {
    ("apiextensions.k8s.io", "customresourcedefinitions"): {"get", "list", "watch"},
    ("", "namespaces"): {"list", "watch"},
    ("codeflare.dev", "codeflareworkloads"): {"list", "watch", "patch"},
    ("codeflare.dev", "codeflareworkloads/status"): {"patch"},
    ("codeflare.dev", "codeflareworkloads/finalizers"): {"update"},
    ("events.k8s.io", "events"): {"create", "patch"},
    ("kueue.x-k8s.io", "localqueues"): {"get", "list", "watch", "create", "patch", "delete"},
    ("kueue.x-k8s.io", "workloadpriorityclasses"): {"list", "watch"},
    ("kueue.x-k8s.io", "clusterqueues"): {"list", "watch"},
    ("kueue.x-k8s.io", "resourceflavors"): {"list", "watch"},
    ("kueue.x-k8s.io", "workloads"): {"list", "watch"},
    ("ray.io", "rayclusters"): {"list", "watch", "create", "patch", "delete"},
    ("ray.io", "rayjobs"): {"list", "watch", "create", "patch", "delete"},
    ("workload.codeflare.dev", "appwrappers"): {"list", "watch", "create", "patch", "delete"},
}
with open(path, encoding="utf-8") as f:
    roles = [d for d in yaml.safe_load_all(f)
             if isinstance(d, dict) and d.get("kind") == "ClusterRole" and (d.get("metadata") or {}).get("name") == name]
if len(roles) != 1:
    sys.exit(f"{len(roles)} ClusterRoles named {name}")
problems, got = [], {}
for i, rule in enumerate(roles[0].get("rules") or []):
    for key in ("resourceNames", "nonResourceURLs"):
        if rule.get(key):
            problems.append(f"rule {i} has {key}")
    for group in rule.get("apiGroups") or []:
        for resource in rule.get("resources") or []:
            got.setdefault((group, resource), set()).update(rule.get("verbs") or [])
for key in sorted(set(expected) | set(got)):
    g, r = key
    what = f"{r}.{g}" if g else r
    if key not in got:
        problems.append(f"{what} missing")
    elif key not in expected:
        problems.append(f"{what} not expected ({','.join(sorted(got[key]))})")
    elif got[key] != expected[key]:
        extra, lacking = sorted(got[key] - expected[key]), sorted(expected[key] - got[key])
        problems.append(f"{what}: extra verbs {extra}, missing verbs {lacking}")
if problems:
    sys.exit("; ".join(problems))
print(len(got))
PY
  )"; then
    pass "$label: ClusterRole $name grants exactly the expected verbs on $out resources"
  else
    fail "$label: ClusterRole $name: $(tr '\n' ' ' <"$work/rules.err")"
  fi
}
check_rules config/rbac/role.yaml config/rbac/role.yaml manager-role
if [[ $built == true ]]; then
  check_rules "config/default output" "$work/default.yaml" codeflare-operator-manager-role
fi

# --- 5-7. probes, metrics Service, ServiceMonitor -----------------------------------------------------------------
# The checker prints "ok ..." / "FAIL ..." lines; they are counted here.
wiring() {
  "$py" - "$@" <<'PY'
import re, sys, yaml

def load(path):
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if isinstance(d, dict)]

def out(ok, msg):
    print(("ok " if ok else "FAIL ") + msg)

def seconds(d):
    """Go duration (h, m, s, ms) to seconds; None when it cannot be read."""
    if not re.fullmatch(r"(\d+(\.\d*)?(h|m|s|ms))+", d):
        return None
    units = {"h": 3600, "m": 60, "s": 1, "ms": 0.001}
    return sum(float(n) * units[u] for n, _, u in re.findall(r"(\d+(\.\d*)?)(ms|h|m|s)", d))

mode, path = sys.argv[1], sys.argv[2]
docs = load(path)
deps = [d for d in docs if d.get("kind") == "Deployment"]
svcs = [d for d in docs if d.get("kind") == "Service"]
if len(deps) != 1:
    out(False, f"{len(deps)} Deployments in config/default, want 1")
    sys.exit(0)
dep = deps[0]
pod = dep["spec"]["template"]
containers = [c for c in pod["spec"]["containers"] if c.get("name") == "manager"]
if len(containers) != 1:
    out(False, "no container named manager")
    sys.exit(0)
c = containers[0]
ports = {p.get("name"): p.get("containerPort") for p in c.get("ports") or []}
args = c.get("args") or []
flags = {}
for a in args[1:]:
    k, _, v = a[2:].partition("=")
    flags[k] = v if "=" in a else "true"
name = dep["metadata"]["name"]

if mode == "manager":
    addr = flags.get("health-probe-bind-address", ":8081")
    health_port = int(addr.rsplit(":", 1)[1]) if ":" in addr else None
    for probe, want_path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
        get = (c.get(probe) or {}).get("httpGet") or {}
        port = get.get("port")
        number = ports.get(port) if isinstance(port, str) else port
        path_ok = get.get("path", "").split("?", 1)[0] == want_path
        out(path_ok and number in ports.values() and number == health_port,
            f"Deployment {name}: {probe} GET {get.get('path')} on port {port!r} (container port {number}); want "
            f"{want_path} on a declared port, the one of --health-probe-bind-address={addr}")
    rpath = ((c.get("readinessProbe") or {}).get("httpGet") or {}).get("path", "")
    out("--leader-elect" not in args or "exclude=leader" in rpath,
        f"Deployment {name}: with --leader-elect the readiness probe excludes the leader check ({rpath}), so "
        "standbys stay Ready during a rolling update")
    out("--leader-elect" in args, f"Deployment {name}: args {args} include --leader-elect")
    maddr = flags.get("metrics-bind-address", ":8080")
    mport = int(maddr.rsplit(":", 1)[1]) if ":" in maddr else None
    out(maddr != "0" and mport in ports.values() and ports.get("metrics") == mport,
        f"Deployment {name}: --metrics-bind-address={maddr} is the declared container port \"metrics\" "
        f"({ports.get('metrics')})")
    grace = pod["spec"].get("terminationGracePeriodSeconds", 30)
    timeout = flags.get("graceful-shutdown-timeout", "30s")
    t = seconds(timeout)
    out(t is not None and grace > t,
        f"Deployment {name}: terminationGracePeriodSeconds {grace} is above --graceful-shutdown-timeout {timeout}")
elif mode == "service":
    metrics = [s for s in svcs if any(p.get("name") == "metrics" for p in s["spec"].get("ports") or [])]
    if len(metrics) != 1:
        out(False, f"{len(metrics)} Services with a port named metrics in config/default, want 1")
        sys.exit(0)
    s = metrics[0]
    sel = s["spec"].get("selector") or {}
    labels = pod["metadata"].get("labels") or {}
    out(bool(sel) and all(labels.get(k) == v for k, v in sel.items()),
        f"Service {s['metadata']['name']}: selector {sel} picks the manager's pods")
    for p in s["spec"]["ports"]:
        t = p.get("targetPort")
        out((t in ports) if isinstance(t, str) else (t in ports.values()),
            f"Service {s['metadata']['name']}: port {p.get('name')} targets {t!r}, a declared container port "
            f"({sorted(ports)})")
elif mode == "monitor":
    metrics = [s for s in svcs if any(p.get("name") == "metrics" for p in s["spec"].get("ports") or [])]
    mons = [d for d in load(sys.argv[3]) if d.get("kind") == "ServiceMonitor"]
    want_ns = sys.argv[4] if len(sys.argv) > 4 else None
    if len(mons) != 1 or len(metrics) != 1:
        out(False, f"{len(mons)} ServiceMonitor(s) and {len(metrics)} metrics Service(s), want 1 and 1")
        sys.exit(0)
    m, s = mons[0], metrics[0]
    what = f"ServiceMonitor {m['metadata']['name']}"
    out(m.get("apiVersion") == "monitoring.coreos.com/v1", f"{what}: apiVersion {m.get('apiVersion')}")
    match = (m["spec"].get("selector") or {}).get("matchLabels") or {}
    slabels = s["metadata"].get("labels") or {}
    out(bool(match) and all(slabels.get(k) == v for k, v in match.items()),
        f"{what}: selector {match} matches the labels of Service {s['metadata']['name']}")
    names = {p.get("name") for p in s["spec"]["ports"]}
    eps = m["spec"].get("endpoints") or []
    out(bool(eps) and all(e.get("port") in names and e.get("path") == "/metrics" for e in eps),
        f"{what}: endpoints {eps} use a port of the Service ({sorted(names)}) and path /metrics")
    if want_ns:
        out(m["metadata"].get("namespace") == want_ns == s["metadata"].get("namespace"),
            f"{what}: in namespace {m['metadata'].get('namespace')}, with the Service")
PY
}
# wired <args for the checker...>: runs it and counts its lines; a checker that crashes is a failure too.
wired() {
  local line status=0
  wiring "$@" >"$work/wiring.out" 2>"$work/wiring.err" || status=$?
  while IFS= read -r line; do
    case "$line" in
      "ok "*) pass "${line#ok }" ;;
      "FAIL "*) fail "${line#FAIL }" ;;
      *) echo "     $line" ;;
    esac
  done <"$work/wiring.out"
  ((status == 0)) || fail "checker ($1) exited $status: $(tr '\n' ' ' <"$work/wiring.err")"
}
if [[ $built == true ]]; then
  wired manager "$work/default.yaml"
  wired service "$work/default.yaml"
  if "${KUBECTL:-kubectl}" kustomize config/prometheus >"$work/prometheus.yaml" 2>"$work/prometheus.err"; then
    pass "kubectl kustomize config/prometheus builds $(grep -c '^kind:' "$work/prometheus.yaml") object(s)"
    wired monitor "$work/default.yaml" "$work/prometheus.yaml"
  else
    fail "kubectl kustomize config/prometheus: $(tr '\n' ' ' <"$work/prometheus.err")"
  fi
  # The opt-in line of config/default, switched on in a copy of config/.
  cp -r config "$work/config"
  if ! grep -qx '  #- ../prometheus' "$work/config/default/kustomization.yaml"; then
    fail "config/default/kustomization.yaml has no opt-in line \"  #- ../prometheus\""
  else
    sed -i 's|^  #- ../prometheus$|  - ../prometheus|' "$work/config/default/kustomization.yaml"
    if "${KUBECTL:-kubectl}" kustomize "$work/config/default" >"$work/with-monitor.yaml" \
      2>"$work/with-monitor.err"; then
      pass "config/default with ../prometheus uncommented builds $(grep -c '^kind:' "$work/with-monitor.yaml") objects"
      wired monitor "$work/with-monitor.yaml" "$work/with-monitor.yaml" codeflare-operator-system
    else
      fail "config/default with ../prometheus uncommented: $(tr '\n' ' ' <"$work/with-monitor.err")"
    fi
  fi
  echo "note the ServiceMonitor is not sent to the apiserver: its CRD (monitoring.coreos.com) is not installed here"
  # 8. The admission webhook of config/webhook, wired to the manager (webhook_objects.py).
  "${CFO_OPERATOR_BIN:-false}" run --help >"$work/run-help.txt" 2>&1 || true
  help_args=()
  grep -q -- '--webhook-bind-address' "$work/run-help.txt" && help_args=(--run-help "$work/run-help.txt")
  [[ ${#help_args[@]} -gt 0 ]] || echo "note CFO_OPERATOR_BIN is not set: the webhook flags are not checked against run --help"
  "$py" test/integration/webhook_objects.py "$work/default.yaml" "${help_args[@]}" >"$work/webhook.out" \
    2>"$work/webhook.err" || fail "webhook_objects.py exited $?: $(tr '\n' ' ' <"$work/webhook.err")"
  while IFS= read -r line; do
    case "$line" in
      "ok "*) pass "webhook: ${line#ok }" ;;
      "FAIL "*) fail "webhook: ${line#FAIL }" ;;
      *) echo "     $line" ;;
    esac
  done <"$work/webhook.out"
fi

echo "$passed passed, $failed failed"
((failed == 0))
