#!/usr/bin/env bash
# Test of the Argo CD pieces other than the health check, without Argo CD or an apiserver:
#   1. deploy/argocd/cmp-plugin.yaml is a ConfigManagementPlugin (argoproj.io/v1alpha1) named codeflare-render with a
#      generate command and no discover rule; its generate command, run the way the CMP sidecar runs it (in the
#      Application's source folder, with ARGOCD_APP_NAMESPACE and PARAM_* set) in a sidecar laid out as the operator's
#      image installs it (the binary in <prefix>/bin on PATH, its bundled upstream schemas in
#      <prefix>/share/codeflare-operator/, no CFO_UPSTREAM_CRDS and no CRD folder), renders every CodeFlareWorkload of
#      config/samples (one moved into a subfolder, to prove the search is recursive) into the same objects as
#      `codeflare-operator render` does directly (key by key), all in the Application's namespace;
#   2. its parameters reach render: default-local-queue puts the queue label on a workload that names no queue, and a
#      kueue-max-podsets of 0 is refused; CFO_UPSTREAM_CRDS, when set, becomes `render --crds` (the project's crds/,
#      which holds no upstream CRD, then fails every RayCluster; UPSTREAM_CRDS, when given, renders as the bundle);
#   3. an invalid workload fails the generation (exit code not 0, the file named on stderr), and a folder without
#      workloads gives no objects and exit 0;
#   4. deploy/argocd/application.yaml is an Application whose source path exists and builds with kustomize, with the
#      sync-wave annotations the README describes, and whose commented plugin name matches the plugin;
#   5. deploy/argocd/README.md offers the operator's image as the sidecar image at the paths where the Dockerfile
#      installs the binary and its schemas, and no longer asks for a CRD folder to be copied into it.
# Inputs:  CFO_OPERATOR_BIN (the codeflare-operator binary, built with its upstream schemas beside it:
#          <bin>/../share/codeflare-operator/upstream-crds.json), UPSTREAM_CRDS (optional: the pinned upstream CRDs, for
#          the CFO_UPSTREAM_CRDS check), KUBECTL.
# Output:  one line per check, then "N passed, N failed"; exit 1 when anything failed.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../harness/lib.sh"

[[ -x "${CFO_OPERATOR_BIN:-}" ]] || cfo_die "CFO_OPERATOR_BIN must name the codeflare-operator binary"
bundle="$(dirname "$CFO_OPERATOR_BIN")/../share/codeflare-operator/upstream-crds.json"
[[ -f "$bundle" ]] ||
  cfo_die "$bundle is missing: the binary was built without its upstream schemas (configure with CFO_UPSTREAM_CRDS)"
py="$(cfo_python)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$CFO_REPO_DIR"
plugin=deploy/argocd/cmp-plugin.yaml

cfo_tally_begin

# The sidecar: the operator's image, as its Dockerfile installs it (cmake --install with prefix /usr/local): the
# binary in <prefix>/bin, on PATH, and the schemas it finds by itself in <prefix>/share/codeflare-operator. A hard
# link (a copy on another file system), not a symbolic link: the binary looks for its schemas beside the file it was
# started from.
prefix="$work/image/usr/local"
mkdir -p "$prefix/bin" "$prefix/share/codeflare-operator"
ln "$CFO_OPERATOR_BIN" "$prefix/bin/codeflare-operator" 2>/dev/null || cp "$CFO_OPERATOR_BIN" "$prefix/bin/codeflare-operator"
cp "$bundle" "$prefix/share/codeflare-operator/upstream-crds.json"

# --- 1. the plugin file, and its generate command on the samples ----------------------------------------------------
if "$py" - "$plugin" "$work/generate.sh" >"$work/plugin.out" 2>&1 <<'PY'; then
import sys, yaml
path, out = sys.argv[1:3]
with open(path, encoding="utf-8") as f:
    p = yaml.safe_load(f)
problems = []
if p.get("apiVersion") != "argoproj.io/v1alpha1" or p.get("kind") != "ConfigManagementPlugin":
    problems.append(f"apiVersion/kind {p.get('apiVersion')}/{p.get('kind')}")
if (p.get("metadata") or {}).get("name") != "codeflare-render":
    problems.append(f"name {(p.get('metadata') or {}).get('name')!r}")
spec = p.get("spec") or {}
if "discover" in spec:
    problems.append("has a discover rule (it would take over plain folders of workloads)")
gen = spec.get("generate") or {}
cmd = list(gen.get("command") or []) + list(gen.get("args") or [])
if cmd[:2] != ["sh", "-c"] or len(cmd) != 3:
    problems.append(f"generate is not [sh, -c, SCRIPT]: {cmd[:2]}")
params = {x.get("name") for x in (spec.get("parameters") or {}).get("static") or []}
if params != {"default-local-queue", "kueue-max-podsets"}:
    problems.append(f"parameters {sorted(params)}")
if problems:
    sys.exit("; ".join(problems))
with open(out, "w", encoding="utf-8") as f:
    f.write(cmd[2])
PY
  pass "$plugin: ConfigManagementPlugin codeflare-render, generate = sh -c SCRIPT, parameters announced, no discover"
else
  fail "$plugin: $(tr '\n' ' ' <"$work/plugin.out")"
  echo "$passed passed, $failed failed"
  exit 1
fi

# generate <source dir> <out> <err> [VAR=value...]: the sidecar's run, in the source folder. CFO_UPSTREAM_CRDS is
# unset unless given.
generate() {
  local dir="$1" o="$2" e="$3"
  shift 3
  (cd "$dir" && env -u CFO_UPSTREAM_CRDS PATH="$prefix/bin:$PATH" ARGOCD_APP_NAMESPACE=team-a \
    ARGOCD_APP_NAME=codeflare-samples "$@" sh -c "$(cat "$work/generate.sh")" >"$o" 2>"$e")
}

mkdir -p "$work/src/nested"
cp config/samples/*.yaml "$work/src/"
mv "$work/src/cfw_multi_group.yaml" "$work/src/nested/"
if generate "$work/src" "$work/gen.yaml" "$work/gen.err"; then
  pass "generate on config/samples (one in a subfolder), bundled schemas, no CFO_UPSTREAM_CRDS: exit 0," \
    "$(grep -c '^kind:' "$work/gen.yaml") objects"
else
  fail "generate on config/samples (bundled schemas, no CFO_UPSTREAM_CRDS) failed: $(head -c 800 "$work/gen.err")"
fi
# The same objects as render on each sample directly (with the schemas that ship with it).
direct=()
for f in config/samples/cfw_*.yaml; do direct+=(-f "$f"); done
"$CFO_OPERATOR_BIN" render -n team-a "${direct[@]}" >"$work/direct.yaml" 2>"$work/direct.err" ||
  fail "render of config/samples directly: $(head -c 500 "$work/direct.err")"
if "$py" - "$work/gen.yaml" "$work/direct.yaml" config/samples >"$work/cmp.out" 2>&1 <<'PY'; then
import glob, sys, yaml
gen_path, direct_path, samples = sys.argv[1:4]
load = lambda p: [d for d in yaml.safe_load_all(open(p, encoding="utf-8")) if isinstance(d, dict)]
gen, direct = load(gen_path), load(direct_path)
key = lambda d: (d["kind"], d["metadata"]["name"])
problems = []
if sorted(map(key, gen)) != sorted(map(key, direct)):
    problems.append(f"objects {sorted(map(key, gen))} != render's {sorted(map(key, direct))}")
else:
    by_key = {key(d): d for d in direct}
    problems += [f"{k} differs from render's" for k in map(key, gen) if by_key[k] != next(d for d in gen if key(d) == k)]
kinds = {d["kind"] for d in gen}
# The children, plus the LocalQueue a workload asks the operator to manage (spec.queue.clusterQueue).
if not kinds or not kinds <= {"RayCluster", "RayJob", "AppWrapper", "LocalQueue"}:
    problems.append(f"kinds {sorted(kinds)}")
wrong_ns = [key(d) for d in gen if d["metadata"].get("namespace") != "team-a"]
if wrong_ns:
    problems.append(f"not in team-a: {wrong_ns}")
names = {yaml.safe_load(open(p, encoding="utf-8"))["metadata"]["name"] for p in glob.glob(f"{samples}/cfw_*.yaml")}
covered = {d["metadata"].get("labels", {}).get("codeflare.dev/workload") for d in gen}
if not covered & names:
    problems.append("no object carries a sample's codeflare.dev/workload label")
if problems:
    sys.exit("; ".join(problems))
# A workload may render to nothing offline (e.g. a RayJob on an existing cluster still renders its RayJob, but a
# workload held back for another reason would not).
idle = f"; none for {', '.join(sorted(names - covered))}, as with render" if names - covered else ""
print(f"{len(gen)} objects ({', '.join(sorted(kinds))}) for {len(names & covered)} of {len(names)} workloads, "
      f"equal to render's, in team-a{idle}")
PY
  pass "generate output: $(cat "$work/cmp.out")"
else
  fail "generate output: $(tr '\n' ' ' <"$work/cmp.out")"
fi

# --- 2. parameters ------------------------------------------------------------------------------------------------
queue_label() {
  "$py" -c '
import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if isinstance(d, dict) and d["kind"] == "RayCluster" and d["metadata"]["name"] == "raytest-cpu":
        print(d["metadata"].get("labels", {}).get("kueue.x-k8s.io/queue-name", "<none>"))' "$1"
}
# (on raytest-cpu's file alone: with a default queue every sample would be queued, and Kueue refuses the
# autoscaling one, cfw_cluster_options.yaml, unless it is an elastic job)
mkdir -p "$work/src-queue"
cp config/samples/cfw_cpu.yaml "$work/src-queue/"
if [[ "$(queue_label "$work/gen.yaml")" == "<none>" ]] &&
  generate "$work/src-queue" "$work/q.yaml" "$work/q.err" PARAM_DEFAULT_LOCAL_QUEUE=team-default &&
  [[ "$(queue_label "$work/q.yaml")" == team-default ]]; then
  pass "parameter default-local-queue: raytest-cpu gets kueue.x-k8s.io/queue-name=team-default (none without it)"
else
  fail "parameter default-local-queue: label without $(queue_label "$work/gen.yaml"), with $(queue_label "$work/q.yaml" 2>/dev/null || true) $(head -c 300 "$work/q.err")"
fi
if generate "$work/src" "$work/m.yaml" "$work/m.err" PARAM_KUEUE_MAX_PODSETS=0; then
  fail "parameter kueue-max-podsets=0 was not refused"
elif grep -q 'kueue-max-podsets' "$work/m.err"; then
  pass "parameter kueue-max-podsets reaches render (0 is refused: $(head -n 1 "$work/m.err"))"
else
  fail "parameter kueue-max-podsets=0 failed for another reason: $(head -c 300 "$work/m.err")"
fi

# CFO_UPSTREAM_CRDS: passed as --crds, instead of the bundled schemas. The project's crds/ holds only the
# CodeFlareWorkload CRD, so every RayCluster then lacks its schema.
if generate "$work/src-queue" "$work/own.yaml" "$work/own.err" CFO_UPSTREAM_CRDS="$CFO_REPO_DIR/crds"; then
  fail "CFO_UPSTREAM_CRDS=crds/ (no upstream CRD) rendered: it does not reach render --crds"
elif grep -q 'no schema is loaded for ray.io/v1 RayCluster' "$work/own.err"; then
  pass "CFO_UPSTREAM_CRDS=crds/ reaches render --crds: $(grep -m1 -o 'no schema is loaded for ray.io/v1 RayCluster' "$work/own.err")"
else
  fail "CFO_UPSTREAM_CRDS=crds/ failed for another reason: $(head -c 300 "$work/own.err")"
fi
if [[ -n "${UPSTREAM_CRDS:-}" ]]; then
  if generate "$work/src" "$work/pinned.yaml" "$work/pinned.err" CFO_UPSTREAM_CRDS="$UPSTREAM_CRDS" &&
    cmp -s "$work/gen.yaml" "$work/pinned.yaml"; then
    pass "CFO_UPSTREAM_CRDS=\$UPSTREAM_CRDS (the pinned CRDs the bundle is built from): the same output as the bundle"
  else
    fail "CFO_UPSTREAM_CRDS=\$UPSTREAM_CRDS: $(head -c 300 "$work/pinned.err") $(diff "$work/gen.yaml" "$work/pinned.yaml" | head -c 300)"
  fi
fi

# --- 3. an invalid workload, and no workload ----------------------------------------------------------------------
cp test/invalid/duplicate-worker-group.yaml "$work/src/nested/"
if generate "$work/src" "$work/bad.yaml" "$work/bad.err"; then
  fail "generate with an invalid workload exited 0"
elif grep -q 'duplicate-worker-group.yaml' "$work/bad.err"; then
  pass "generate with an invalid workload fails and names it: $(grep -m1 'duplicate-worker-group' "$work/bad.err" | head -c 200)"
else
  fail "generate with an invalid workload failed without naming it: $(head -c 300 "$work/bad.err")"
fi
mkdir -p "$work/empty"
cp config/samples/kustomization.yaml "$work/empty/"
if generate "$work/empty" "$work/none.yaml" "$work/none.err" && [[ ! -s "$work/none.yaml" ]]; then
  pass "generate without workloads: exit 0, no objects ($(head -n 1 "$work/none.err"))"
else
  fail "generate without workloads: $(head -c 300 "$work/none.yaml") $(head -c 300 "$work/none.err")"
fi

# --- 4. the example Application -----------------------------------------------------------------------------------
if "$py" - deploy/argocd/application.yaml "${KUBECTL:-kubectl}" >"$work/app.out" 2>&1 <<'PY'; then
import re, subprocess, sys, yaml
path, kubectl = sys.argv[1:3]
text = open(path, encoding="utf-8").read()
app = yaml.safe_load(text)
problems = []
if app.get("apiVersion") != "argoproj.io/v1alpha1" or app.get("kind") != "Application":
    problems.append(f"apiVersion/kind {app.get('apiVersion')}/{app.get('kind')}")
src, spec = app["spec"]["source"], app["spec"]
if src.get("path") != "config/samples":
    problems.append(f"source.path {src.get('path')!r}")
else:
    r = subprocess.run([kubectl, "kustomize", src["path"]], capture_output=True, text=True)
    docs = [d for d in yaml.safe_load_all(r.stdout) if isinstance(d, dict)] if r.returncode == 0 else []
    if r.returncode != 0 or not docs or any(d.get("kind") != "CodeFlareWorkload" for d in docs):
        problems.append(f"kustomize {src['path']}: rc {r.returncode}, kinds {[d.get('kind') for d in docs]}")
wave = "argocd.argoproj.io/sync-wave"
if (app["metadata"].get("annotations") or {}).get(wave) != "1":
    problems.append("the Application is not in sync wave 1")
if ((src.get("kustomize") or {}).get("commonAnnotations") or {}).get(wave) != "1":
    problems.append("the workloads are not stamped with sync wave 1")
for w in ('"-1"', '"0"', '"1"'):
    if not re.search(rf"sync-wave: {w}", text):
        problems.append(f"no guidance for wave {w}")
if not all(k in (spec.get("destination") or {}) for k in ("server", "namespace")):
    problems.append("destination needs server and namespace")
if "SkipDryRunOnMissingResource=true" not in (spec.get("syncPolicy") or {}).get("syncOptions", []):
    problems.append("no SkipDryRunOnMissingResource")
if not re.search(r"#\s+name: codeflare-render$", text, re.M):
    problems.append("the commented plugin block does not name codeflare-render")
if problems:
    sys.exit("; ".join(problems))
print(f"{len(docs)} workloads from {src['path']}, waves -1/0/1 documented, plugin name codeflare-render")
PY
  pass "deploy/argocd/application.yaml: $(cat "$work/app.out")"
else
  fail "deploy/argocd/application.yaml: $(tr '\n' ' ' <"$work/app.out")"
fi

# --- 5. the sidecar image in the README -----------------------------------------------------------------------------
if "$py" - deploy/argocd/README.md Dockerfile >"$work/readme.out" 2>&1 <<'PY'; then
import re, sys
readme, dockerfile = (open(p, encoding="utf-8").read() for p in sys.argv[1:3])
problems = []
# Where the image holds the binary and its schemas: the Dockerfile's install prefix, copied whole into the runtime
# stage.
m = re.search(r"-DCMAKE_INSTALL_PREFIX=(\S+)", dockerfile)
prefix = m.group(1).rstrip("/") if m else None
if not prefix or not re.search(rf"^COPY --from=build \S*{re.escape(prefix)}/ {re.escape(prefix)}/$", dockerfile, re.M):
    problems.append(f"the Dockerfile's install prefix ({prefix}) is not copied into the runtime image as it is")
section = readme.split("## The config-management plugin", 1)[-1]
for path in (f"{prefix}/bin/codeflare-operator", f"{prefix}/share/codeflare-operator/upstream-crds.json"):
    if f"`{path}`" not in section:
        problems.append(f"the plugin section does not name {path}")
if not re.search(r"operator's (own )?image", section):
    problems.append("the plugin section does not offer the operator's image as the sidecar image")
for stale in ("COPY crds/", "/opt/codeflare"):
    if stale in readme:
        problems.append(f"the README still says {stale!r}")
if problems:
    sys.exit("; ".join(problems))
print(f"the operator's image as the sidecar ({prefix}/bin/codeflare-operator and its schemas in "
      f"{prefix}/share/codeflare-operator/, as the Dockerfile installs them), no CRD folder to copy")
PY
  pass "deploy/argocd/README.md: $(cat "$work/readme.out")"
else
  fail "deploy/argocd/README.md: $(tr '\n' ' ' <"$work/readme.out")"
fi

echo "$passed passed, $failed failed"
((failed == 0))
