#!/usr/bin/env bash
# `codeflare-operator validate` and `render` from the command line, no server needed:
#   1. the input layer: a v1 List (`kubectl get -o yaml`) is judged item by item; objects of API groups that no CRD
#      serves (ConfigMap, Kustomization...) are reported skipped and do not change the exit code, while an unknown
#      kind of a known group stays an error; a file that is not YAML is one error finding and the other files are
#      still judged (exit 1, in text and in -o json); a missing file, output that cannot be written (/dev/full, a
#      closed stdout) and a closed stdin are exit 2; `render` follows the same codes, and its -o json is one v1 List
#      of the objects its YAML prints; started through the dynamic loader, `validate` still works.
#   2. every case rebuilt from a public bug report ($CFO_SHARED_DIR/cases/public-bugs, and the project's own in
#      test/cases): the exit code gives the case's expected verdict (0 valid, 1 invalid) and, for an invalid case, an
#      error finding sits at the path of its `# path:` header line; a `# profile:` line judges it under that cluster
#      profile. The shared cases are skipped with a message when CFO_SHARED_DIR is unset.
# Inputs:  CFO_OPERATOR_BIN, UPSTREAM_CRDS (folder with upstream/; skips with a message when unset), CFO_SHARED_DIR
#          (optional, for part 2).
# Output:  one line per check, then "N passed, N failed"; exit 1 when anything failed.
set -euo pipefail

[[ -x "${CFO_OPERATOR_BIN:-}" ]] || { echo "CFO_OPERATOR_BIN must name the codeflare-operator binary" >&2; exit 1; }
if [[ -z "${UPSTREAM_CRDS:-}" ]]; then
  echo "skip: UPSTREAM_CRDS is unset"
  exit 0
fi
[[ -d "$UPSTREAM_CRDS/upstream" ]] || { echo "UPSTREAM_CRDS must name a folder with upstream/" >&2; exit 1; }
repo="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

passed=0 failed=0
pass() { echo "ok   $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

# run NAME ARGS...: runs the binary with ARGS; stdout in $work/NAME.out, stderr in $work/NAME.err, the exit code in
# $rc, NAME in $last.
run() {
  last="$1"
  shift
  set +e
  "$CFO_OPERATOR_BIN" "$@" >"$work/$last.out" 2>"$work/$last.err"
  rc=$?
  set -e
}
# expect DESCRIPTION WANT_RC [STDOUT_SUBSTRING...]: one check on the last run.
expect() {
  local what="$1" want="$2" s
  shift 2
  if [[ $rc -ne $want ]]; then
    fail "$what: exit code $rc, expected $want: $(head -c 600 "$work/$last.out") $(head -c 300 "$work/$last.err")"
    return
  fi
  for s in "$@"; do
    if ! grep -qF -- "$s" "$work/$last.out"; then
      fail "$what: no \"$s\" in the output: $(head -c 800 "$work/$last.out")"
      return
    fi
  done
  pass "$what"
}
# expect_io DESCRIPTION WANT_RC CHECK...: one check on the last run's exit code and both streams. Each CHECK is
# "err:TEXT" or "out:TEXT" (TEXT is in stderr / stdout) or "err!TEXT" or "out!TEXT" (it is not).
expect_io() {
  local what="$1" want="$2" check stream text file
  shift 2
  if [[ $rc -ne $want ]]; then
    fail "$what: exit code $rc, expected $want: $(head -c 400 "$work/$last.err") $(head -c 300 "$work/$last.out")"
    return
  fi
  for check in "$@"; do
    stream="${check:0:3}" text="${check:4}"
    file="$work/$last.$stream"
    if [[ "${check:3:1}" == ":" ]] && ! grep -qF -- "$text" "$file"; then
      fail "$what: no \"$text\" in std$stream: $(head -c 800 "$file")"
      return
    elif [[ "${check:3:1}" == "!" ]] && grep -qF -- "$text" "$file"; then
      fail "$what: \"$text\" in std$stream: $(head -c 800 "$file")"
      return
    fi
  done
  pass "$what"
}
# json_check NAME PYTHON_EXPR: the last run's stdout parses as JSON (python3 -m json.tool) and PYTHON_EXPR, over the
# parsed array `f`, is true.
json_check() {
  local name="$1" expr="$2"
  if ! python3 -m json.tool "$work/$name.out" >/dev/null 2>&1; then
    fail "$name: the output is not JSON: $(head -c 400 "$work/$name.out")"
  elif ! python3 -c "import json,sys; f=json.load(open(sys.argv[1])); sys.exit(0 if ($expr) else 1)" \
      "$work/$name.out"; then
    fail "$name: not ($expr): $(head -c 1200 "$work/$name.out")"
  else
    pass "$name: $expr"
  fi
}

crds=(--crds "$UPSTREAM_CRDS")
rc_yaml() {  # rc_yaml NAME [EXTRA_SPEC_LINE]: a RayCluster in flow style, valid unless the extra line breaks it
  echo "{apiVersion: ray.io/v1, kind: RayCluster, metadata: {name: $1, namespace: team-a}, spec: {rayVersion: \"2.46.0\",${2:-}
  headGroupSpec: {template: {spec: {containers: [{name: ray-head, image: \"rayproject/ray:2.46.0\",
    resources: {requests: {cpu: \"1\", memory: 4Gi}, limits: {cpu: \"1\", memory: 4Gi}}}]}}}}}"
}

# --- a v1 List ---
{ echo "apiVersion: v1"; echo "kind: List"; echo "items:"
  echo "- $(rc_yaml list-a)"; echo "- $(rc_yaml list-b)"; } >"$work/list.yaml"
run list validate -f "$work/list.yaml" "${crds[@]}"
expect "validate of a v1 List of two valid RayClusters" 0 "2 object(s) valid"
{ echo "apiVersion: v1"; echo "kind: List"; echo "items:"
  echo "- $(rc_yaml list-a)"; echo "- $(rc_yaml list-b " bogusField: 1,")"; echo "- not an object"; } >"$work/list-bad.yaml"
run list-bad validate -f "$work/list-bad.yaml" "${crds[@]}" -o json
expect "validate of a v1 List with one invalid item and one that is not a map" 1
json_check list-bad 'sorted((e["item"], e["path"], e["rule"]) for e in f if e["severity"] == "error") == [("1", "spec.bogusField", "schema:unknownField"), ("2", "", "list:itemNotAnObject")] and all(e["document"] == 0 for e in f)'
run list-bad-text validate -f "$work/list-bad.yaml" "${crds[@]}"
expect "validate of the same List, text" 1 "RayCluster team-a/list-b (document 0, item 1): error: spec.bogusField" \
  "document 0, item 2: error: <object>: an item of a v1 List must be an object"

# --- objects of API groups that no CRD serves ---
mkdir "$work/mixed"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\ndata: {a: b}\n' >"$work/mixed/a-configmap.yaml"
printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [b-raycluster.yaml]\n' \
  >"$work/mixed/kustomization.yaml"
rc_yaml mixed-rc >"$work/mixed/b-raycluster.yaml"
run mixed validate -f "$work/mixed" "${crds[@]}"
expect "validate of a folder with a ConfigMap, a Kustomization and a valid RayCluster" 0 \
  "skipped: v1 ConfigMap default/x (no schema for this API group; not checked)" \
  "skipped: kustomize.config.k8s.io/v1beta1 Kustomization" "1 object(s) valid, 2 skipped"
run mixed-json validate -f "$work/mixed" "${crds[@]}" -o json
expect "validate -o json of the same folder" 0
json_check mixed-json 'sorted(e["kind"] for e in f if e.get("skipped")) == ["ConfigMap", "Kustomization"] and not [e for e in f if e["severity"] == "error"]'
printf 'apiVersion: ray.io/v1\nkind: RayClustr\nmetadata: {name: typo}\n' >"$work/mixed/c-typo.yaml"
run typo validate -f "$work/mixed" "${crds[@]}" -o json
expect "validate of a known group with an unknown kind (a typo)" 1
json_check typo '[e["rule"] for e in f if e["severity"] == "error"] == ["schema:unknownKind"]'

# --- Pod Security levels (validate --pod-security-level): findings at a level are errors (exit 1) ---
rc_yaml pss-rc >"$work/pss-rc.yaml"
run pss-privileged validate -f "$work/pss-rc.yaml" "${crds[@]}"
expect "validate of a RayCluster without securityContext, default level privileged" 0 "1 object(s) valid"
run pss-baseline validate -f "$work/pss-rc.yaml" "${crds[@]}" --pod-security-level baseline
expect "the same at baseline (nothing it forbids)" 0 "1 object(s) valid"
run pss-restricted validate -f "$work/pss-rc.yaml" "${crds[@]}" --pod-security-level restricted -o json
expect "the same at restricted: its Pods would run as root" 1
json_check pss-restricted '("spec.headGroupSpec.template.spec.containers[0].securityContext.runAsNonRoot", "CheckRunAsNonRoot", "error") in [(e["path"], e["rule"], e["severity"]) for e in f]'
sed 's/template: {spec: {containers/template: {spec: {hostNetwork: true, containers/' "$work/pss-rc.yaml" >"$work/pss-host.yaml"
run pss-host validate -f "$work/pss-host.yaml" "${crds[@]}" --pod-security-level baseline
expect "hostNetwork at baseline" 1 "spec.headGroupSpec.template.spec.hostNetwork" "[CheckHostNamespaces"
run pss-cfw validate -f "$repo/config/samples/cfw_cpu.yaml" "${crds[@]}" --pod-security-level restricted
expect "a CodeFlareWorkload judged by the Pods of its RayCluster at restricted" 1 "[CheckRunAsNonRoot"
run pss-bad-level validate -f "$work/pss-rc.yaml" "${crds[@]}" --pod-security-level strict
expect "an unknown level is a usage error" 2
run samples-clean validate -f "$repo/config/samples" "${crds[@]}" -o json
json_check samples-clean '[e["rule"] for e in f if e["severity"] != "info"] == []'
# Offline the namespace's default LocalQueue is unknown: elasticJob and priorityClass without a queue are not said to
# do nothing (the thirty-fourth user trial: the cluster-options sample warned on itself); with --default-local-queue
# none, render knows there is none.
printf 'apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata: {name: pc}\nspec: {queue: {priorityClass: high}}\n' >"$work/pc.yaml"
run pc-offline validate -f "$work/pc.yaml" "${crds[@]}"
expect_io "priorityClass without a queue: no warning offline" 0 "out!PriorityClassWithoutQueue" "err!PriorityClassWithoutQueue"
# The source of a finding: the CRD for a schema rule, the operator for its own rules (no upstream has them).
printf 'apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata: {name: mem}\nspec: {head: {resources: {requests: {memory: "8"}}}, workerGroups: [{name: a, replicas: -1}]}\n' >"$work/sources.yaml"
run sources validate -f "$work/sources.yaml" "${crds[@]}" -o json
json_check sources 'sorted((e["rule"], e["source"]) for e in f) == [("MemoryUnits", "codeflare-operator"), ("schema:minimum", "crd:codeflare.dev/v1alpha1/CodeFlareWorkload")]'
run bad-namespace validate -f "$repo/config/samples/cfw_cpu.yaml" "${crds[@]}" -n Bad_NS
expect "a namespace name the apiserver refuses (-n Bad_NS) is a usage error" 2
run bad-namespace-render render -f "$repo/config/samples/cfw_cpu.yaml" "${crds[@]}" --namespace Bad_NS
expect "render -n Bad_NS is a usage error too" 2
# -n gives a namespace only to the workloads without one: a workload naming another keeps it, and render says so
# (kubectl apply -n of the output would refuse it); one naming none, or -n's own, gets no note.
printf 'apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata: {name: own-ns, namespace: team-b}\nspec: {}\n---\napiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata: {name: no-ns}\nspec: {}\n' >"$work/own-ns.yaml"
run render-own-ns render -f "$work/own-ns.yaml" "${crds[@]}" -n team-a
expect_io "render -n team-a of a workload in team-b: it keeps team-b, with a note" 0 \
  "err:names its own namespace team-b" "out:namespace: team-b" "out:namespace: team-a" "err!no-ns"
run render-same-ns render -f "$work/own-ns.yaml" "${crds[@]}" -n team-b
expect_io "render -n team-b of the same file: no note" 0 "err!names its own namespace"
run unknown-flag validate -f "$repo/config/samples/cfw_cpu.yaml" --no-such-flag
expect_io "an unknown flag: the error and where help is, not the whole help (kubectl's habit)" 2 \
  "err:--no-such-flag" "err:See 'codeflare-operator validate --help' for usage." "err!Exit code"
run bad-output validate -f "$repo/config/samples/cfw_cpu.yaml" -o yaml
expect_io "an output format it does not have: named, with where help is" 2 \
  "err:--output must be text or json, not \"yaml\"" "err:See 'codeflare-operator validate --help' for usage."
run bad-duration run --kube-api-request-timeout 5q
expect_io "run: a flag value it cannot read: named, with where help is" 2 \
  "err:invalid duration \"5q\"" "err:See 'codeflare-operator run --help' for usage."
run bad-sync-timeout run --cache-sync-timeout 0s
expect_io "run: --cache-sync-timeout out of its range is named" 2 \
  "err:flag --cache-sync-timeout must be between 1s and 24h" "err:See 'codeflare-operator run --help' for usage."
run run-help run --help
expect_io "run --help tells the cache-sync limit and what happens past it" 0 \
  "out:--cache-sync-timeout DURATION" "out:exits with status 1 for its supervisor to restart it"
run bad-boolean run --leader-elect=maybe
expect_io "run: a boolean flag that is neither true nor false: named, with where help is" 2 \
  "err:--leader-elect needs true or false" "err:See 'codeflare-operator run --help' for usage."
cat >"$work/refused.kubeconfig" <<'KC'
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
KC
run refused run --kubeconfig "$work/refused.kubeconfig" --metrics-bind-address 0 --health-probe-bind-address 0 \
  --kube-api-qps 20 --kube-api-request-timeout 30s
expect_io "run: the client settings are logged before the first request, with the flags that set them" 1 \
  "err:apiserver client: 20 requests/s, bursts of 10 (--kube-api-qps, --kube-api-burst), request timeout 30000 ms" \
  "err:cannot reach the apiserver at https://127.0.0.1:1"
run unknown-command bogus
expect_io "an unknown command: the error and where help is, not the whole help" 2 \
  "err:unknown command \"bogus\"" "err:See 'codeflare-operator --help' for usage." "err!Usage:"

# --- a file that is not YAML next to an invalid object ---
mkdir "$work/broken"
printf 'apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: [unclosed\n' >"$work/broken/a-syntax.yaml"
printf 'apiVersion: v1\nkind: ConfigMap\nkind: Secret\n' >"$work/broken/b-duplicate-key.yaml"
rc_yaml broken-rc " bogusField: 1," >"$work/broken/c-invalid.yaml"
run broken validate -f "$work/broken" "${crds[@]}"
expect "validate of a folder with two unparsable files and an invalid RayCluster, text" 1 \
  "a-syntax.yaml:" ": error: the file is not valid YAML" "[yaml:syntax, yaml]" \
  "b-duplicate-key.yaml:3:1: error" "c-invalid.yaml:1:120: RayCluster team-a/broken-rc: error: spec.bogusField" \
  "1 object(s) checked, 1 invalid, 2 input(s) not readable as objects"
run broken-json validate -f "$work/broken" "${crds[@]}" -o json
expect "validate -o json of the same folder" 1
json_check broken-json 'sorted((e["file"].split("/")[-1], e["document"], e["rule"]) for e in f if e["severity"] == "error") == [("a-syntax.yaml", None, "yaml:syntax"), ("b-duplicate-key.yaml", None, "yaml:syntax"), ("c-invalid.yaml", 0, "schema:unknownField")]'
# A file that does not parse names where the parser stopped: the duplicate key at line 3, column 1.
json_check broken-json "[(e['line'], e['column']) for e in f if e['file'].endswith('b-duplicate-key.yaml')] == [(3, 1)]"
json_check broken-json "[e['line'] for e in f if e['file'].endswith('a-syntax.yaml')] != []"
# The finding names where its field is written: line 1, at bogusField (the RayCluster is written on a few lines).
bogus_column=$(( $(head -1 "$work/broken/c-invalid.yaml" | grep -bo "bogusField" | cut -d: -f1) + 1 ))
json_check broken-json "[(e['line'], e['column']) for e in f if e['file'].endswith('c-invalid.yaml')] == [(1, $bogus_column)]"

# --- I/O errors stay exit 2 ---
run missing validate -f "$work/no-such-file.yaml" "${crds[@]}"
expect "validate of a missing file" 2
run missing-mixed validate -f "$work/mixed" -f "$work/no-such-folder/" "${crds[@]}" -o json
expect "validate of a folder and a missing folder" 2

# The thirty-seventh user trial's MINORs. A link to nothing inside a folder is an error finding and the folder's other
# files are still judged (it stopped the folder, exit 2; the thirty-eighth: a warning let CI pass without it).
mkdir "$work/dangling"
rc_yaml dangling-rc >"$work/dangling/a.yaml"
ln -s "$work/no-such-target.yaml" "$work/dangling/b.yaml"
rc_yaml dangling-rc2 " bogusField: 1," >"$work/dangling/c.yaml"
run dangling validate -f "$work/dangling" "${crds[@]}"
expect_io "validate of a folder with a link to nothing: the link an error, the others judged" 1 \
  "out:b.yaml: error: a symbolic link to nothing" "out:[file:danglingLink, file]" \
  "out:2 object(s) checked, 1 invalid, 1 input(s) not readable as objects"
# A document nested deeper than the reader's limit is yaml:limit, not a syntax error.
python3 -c "print('apiVersion: v1\nkind: ConfigMap\ndata: ' + '[' * 300 + ']' * 300)" >"$work/deep.yaml"
run deep validate -f "$work/deep.yaml" "${crds[@]}"
expect "validate of a document nested 300 levels deep" 1 "[yaml:limit, yaml]" "deeper than 256 levels"
# A bad quantity says so once; a whole number beyond 64 bits says why it is not an integer.
{ echo "apiVersion: codeflare.dev/v1alpha1"; echo "kind: CodeFlareWorkload"; echo "metadata: {name: q, namespace: a}"
  echo "spec: {workerGroups: [{name: w, replicas: 99999999999999999999,"
  echo "  resources: {requests: {cpu: \"1x\"}, limits: {cpu: \"1x\"}}}]}"; } >"$work/numbers.yaml"
run numbers validate -f "$work/numbers.yaml" "${crds[@]}"
expect_io "validate of a bad quantity and a 20-digit replicas" 1 \
  'out:requests.cpu: "1x" is not a quantity: expected' 'out!not a valid quantity' \
  "out:is beyond the 64-bit integers a Kubernetes API field holds"
# The same for a RayCluster judged by its CRD schema, and an ignore-checks name that is no check (the thirty-eighth
# trial: "found number 9.999999999999999e22"; "Bogus" was told it "cannot be ignored").
rc_yaml big-rc " workerGroupSpecs: [{groupName: w, replicas: 99999999999999999999999, rayStartParams: {},
  template: {spec: {containers: [{name: w, image: \"rayproject/ray:2.46.0\"}]}}}]," >"$work/big-rc.yaml"
run big-rc validate -f "$work/big-rc.yaml" "${crds[@]}"
expect "validate of a RayCluster with a 23-digit replicas" 1 "a whole number beyond the 64-bit integers"
{ echo "apiVersion: codeflare.dev/v1alpha1"; echo "kind: CodeFlareWorkload"
  echo "metadata: {name: ig, namespace: a, annotations: {codeflare.dev/ignore-checks: \"Bogus, ValidateEnv\"}}"
  echo "spec: {}"; } >"$work/ignore-bogus.yaml"
run ignore-bogus validate -f "$work/ignore-bogus.yaml" "${crds[@]}"
expect "validate of ignore-checks naming no check and a cluster rule" 1 '"Bogus" is not one of the checks that can be' \
  '"ValidateEnv" is a rule the cluster enforces and cannot be ignored'
# A --default-local-queue that is no queue name is a usage error (it was a finding on every workload, exit 1).
run bad-queue render -f "$repo/config/samples/cfw_cpu.yaml" --default-local-queue 'Bad Queue' "${crds[@]}"
expect_io "render --default-local-queue 'Bad Queue' is a usage error" 2 \
  'err:--default-local-queue "Bad Queue" is not a LocalQueue name' "out!kind: RayCluster"

# A listing takes no -f (the thirty-eighth trial: -f was ignored, exit 0).
run list-with-f validate --list-rules -f "$work/env-name.yaml"
expect_io "validate --list-rules -f FILE is a usage error" 2 "err:they take no -f"
# The listing names the CodeFlareWorkload's own checks too (a trial: "--list-rules lacks the CodeFlareWorkload
# checks"), in text and in -o json.
run list-rules validate --list-rules
expect "validate --list-rules names the CodeFlareWorkload checks" 0 "CodeFlareWorkload checks (controller/workload):" \
  "MemoryUnits "
run list-rules-json validate --list-rules -o json
json_check list-rules-json 'any(e["id"] == "MemoryUnits" and e.get("object") == "CodeFlareWorkload" for e in f) and any(e["id"] == "EnableIngress" and "object" not in e for e in f)'

# --kubernetes-version: an env var name only Kubernetes 1.32 accepts warns when the version is unknown, is an error
# for 1.31 and nothing for 1.32; a value that is no version is a usage error.
echo "{apiVersion: ray.io/v1, kind: RayCluster, metadata: {name: env-rc, namespace: team-a}, spec: {rayVersion: \"2.46.0\",
  headGroupSpec: {template: {spec: {containers: [{name: ray-head, image: \"rayproject/ray:2.46.0\", env: [{name: 1ST_VAR, value: x}],
    resources: {requests: {cpu: \"1\", memory: 4Gi}, limits: {cpu: \"1\", memory: 4Gi}}}]}}}}}" >"$work/env-name.yaml"
run env-unknown validate -f "$work/env-name.yaml" "${crds[@]}"
expect "validate, version unknown: an env var name of 1.32 warns" 0 "warning: spec.headGroupSpec.template.spec.containers[0].env[0].name"
run env-131 validate -f "$work/env-name.yaml" "${crds[@]}" --kubernetes-version v1.31.4
expect "validate --kubernetes-version v1.31.4: the same name is an error" 1 "(Kubernetes 1.31; such names are accepted from 1.32)"
run env-132 validate -f "$work/env-name.yaml" "${crds[@]}" --kubernetes-version 1.32 -o json
expect "validate --kubernetes-version 1.32: no finding" 0
json_check env-132 '[e for e in f if e["severity"] != "info"] == []'
run env-bad validate -f "$work/env-name.yaml" "${crds[@]}" --kubernetes-version 2.0
expect_io "validate --kubernetes-version 2.0 is a usage error" 2 "err:--kubernetes-version must be a Kubernetes version"

# --- render shares the input layer ---
{ echo "apiVersion: v1"; echo "kind: List"; echo "items:"
  grep -v '^#' "$repo/config/samples/cfw_cpu.yaml" | sed -e '1s/^/- /' -e '2,$s/^/  /'; } >"$work/render-list.yaml"
run render-list render -f "$work/render-list.yaml" "${crds[@]}"
expect "render of a v1 List holding a CodeFlareWorkload" 0 "kind: RayCluster" "name: raytest-cpu"
run render-broken render -f "$work/broken/a-syntax.yaml" -f "$work/render-list.yaml" "${crds[@]}"
expect_io "render of an unparsable file and a workload: exit 1, the error on stderr, the workload still printed" 1 \
  "err:[yaml:syntax, yaml]" "out:kind: RayCluster"
run render-missing render -f "$work/no-such-file.yaml" "${crds[@]}"
expect "render of a missing file" 2
# A file given twice is read once, with a warning (the thirty-first trial: judged twice, silently).
run twice validate -f "$work/render-list.yaml" -f "$work/render-list.yaml" "${crds[@]}"
expect_io "validate -f F -f F judges F once and says so" 0 "out:1 object(s) valid" "err:is given more than once"
# Two workloads managing LocalQueue team-b for two ClusterQueues (the thirty-third trial: exit 0, and render printed
# two LocalQueues of one name): the second is refused, the first rendered with its LocalQueue once.
for cq in team-b-cq other-cq; do
  printf 'apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata: {name: wl-%s}\n' "$cq"
  printf 'spec: {queue: {localQueue: team-b, clusterQueue: %s}, workerGroups: [{name: w}]}\n---\n' "$cq"
done >"$work/managed-queues.yaml"
run managed-queues render -f "$work/managed-queues.yaml" "${crds[@]}" -o json
expect_io "render of two workloads managing one LocalQueue for two ClusterQueues refuses the second" 1 \
  "err:wl-other-cq: error: spec.queue.clusterQueue: LocalQueue team-b is managed by workload wl-team-b-cq"
json_check managed-queues "[i['kind'] for i in f['items']].count('LocalQueue') == 1 and \
  f['items'][0]['spec']['clusterQueue'] == 'team-b-cq'"
# The same two workloads in two files are two sets; render --set judges them as one, as validate --set does.
for cq in team-b-cq other-cq; do
  printf 'apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata: {name: wl-%s}\n' "$cq" >"$work/mq-$cq.yaml"
  printf 'spec: {queue: {localQueue: team-b, clusterQueue: %s}, workerGroups: [{name: w}]}\n' "$cq" >>"$work/mq-$cq.yaml"
done
run managed-queues-set render -f "$work/mq-team-b-cq.yaml" -f "$work/mq-other-cq.yaml" "${crds[@]}" --set -o json
expect_io "render --set of two files managing one LocalQueue for two ClusterQueues refuses the second" 1 \
  "err:LocalQueue team-b is managed by workload wl-team-b-cq"
# `help COMMAND` is `COMMAND --help`; `version` takes no arguments (the thirty-third trial: the top-level help, and
# `version --bogus` exit 0).
run help-render help render
expect "help render prints render's own help" 0 "-o, --output yaml|json"
run version-extra version --bogus
expect_io "version with an argument is a usage error" 2 "err:version: takes no arguments"
# -f takes a comma-separated list, as kubectl's does; a URL is refused as such (the thirty-third trial: "no such file").
run comma-list validate -f "$work/render-list.yaml,$repo/config/samples/cfw_gpu_queue.yaml" "${crds[@]}"
expect "validate -f a,b reads both" 0 "2 object(s) valid"
run url validate -f https://example.com/workload.yaml "${crds[@]}"
expect_io "validate -f URL is a usage error that says URLs are not read" 2 "err:URLs are not read"
# An empty -f (an unset variable in `-f "$FILE"`) is named as such (the thirty-first trial: "cannot read : no such file").
run empty-name validate -f "$work/render-list.yaml" -f "" "${crds[@]}"
expect_io "validate -f \"\" is a usage error that says the name is empty" 2 "err:-f \"\": an empty name" "out!valid"
# -o json (the thirty-second user trial: render had only YAML): one v1 List holding what the YAML render prints, in
# the same order; with --quota an array of the previews; an invalid workload is left out as in YAML (exit 1).
run render-json render -f "$work/render-list.yaml" -f "$work/broken/a-syntax.yaml" "${crds[@]}" -o json
json_check render-json "f['apiVersion'] == 'v1' and f['kind'] == 'List' and \
  [(i['kind'], i['metadata']['name']) for i in f['items']] == [('RayCluster', 'raytest-cpu')]"
expect "render -o json with an unparsable file beside the workload: exit 1" 1
run render-yaml-items render -f "$work/render-list.yaml" -f "$repo/config/samples" "${crds[@]}"
run render-json-items render -f "$work/render-list.yaml" -f "$repo/config/samples" "${crds[@]}" -o json
if python3 - "$work/render-yaml-items.out" "$work/render-json-items.out" <<'PY'; then
import json, sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d is not None]
items = json.load(open(sys.argv[2]))["items"]
sys.exit(0 if docs == items and len(items) > 3 else 1)
PY
  pass "render -o json holds the objects the YAML render prints, equal and in the same order"
else
  fail "render -o json and the YAML render differ: $(head -c 300 "$work/render-json-items.out")"
fi
run render-quota-json render -f "$work/render-list.yaml" "${crds[@]}" --quota -o json
json_check render-quota-json "isinstance(f, list) and len(f) == 1 and f[0]['workload'] == 'default/raytest-cpu' \
  and f[0]['kind'] == 'RayCluster' and f[0]['podSets'][0]['name'] == 'head'"
run render-output-wide render -f "$work/render-list.yaml" "${crds[@]}" -o wide
expect_io "render -o wide is a usage error naming the two formats" 2 "err:--output must be yaml or json"
# Output that cannot be written and input that cannot be read are I/O errors too, not a success (the thirty-first
# user trial: a full disk kept 64 KiB of a render, exit 0). run_io NAME REDIRECTION ARGS... runs with that redirection.
run_io() {
  last="$1" rc=0
  local redirect="$2"
  shift 2
  : >"$work/$last.out"
  case "$redirect" in
    full) "$CFO_OPERATOR_BIN" "$@" >/dev/full 2>"$work/$last.err" || rc=$? ;;
    closed-out) "$CFO_OPERATOR_BIN" "$@" >&- 2>"$work/$last.err" || rc=$? ;;
    closed-in) "$CFO_OPERATOR_BIN" "$@" <&- >"$work/$last.out" 2>"$work/$last.err" || rc=$? ;;
  esac
}
sample="$repo/config/samples/cfw_cpu.yaml"
run_io render-full full render -f "$sample" "${crds[@]}"
expect_io "render to a full disk (/dev/full): exit 2 naming the command and the write" 2 \
  "err:render: cannot write the output to stdout"
run_io validate-closed-out closed-out validate -f "$sample" "${crds[@]}"
expect_io "validate with stdout closed: exit 2 naming the write" 2 "err:cannot write the output to stdout"
run_io validate-closed-in closed-in validate -f - "${crds[@]}"
expect_io "validate -f - with stdin closed: exit 2, not an empty input" 2 "err:<stdin>: cannot read it" \
  "out!0 object(s)"
# Started through the dynamic loader (a way round a noexec mount), it runs as when started directly.
loader=/lib64/ld-linux-x86-64.so.2
if [[ -x "$loader" ]]; then
  last=through-loader rc=0
  "$loader" "$CFO_OPERATOR_BIN" validate -f "$sample" "${crds[@]}" >"$work/$last.out" 2>"$work/$last.err" || rc=$?
  expect_io "validate started through $loader" 0 "out:1 object(s) valid"
fi

# --- what a new user runs into first ---
printf 'apiVersion: codeflare.dev/v1beta1\nkind: CodeFlareWorkload\nmetadata: {name: old}\nspec: {}\n' >"$work/wrong-version.yaml"
run render-wrong-version render -f "$work/wrong-version.yaml" "${crds[@]}"
expect_io "render of a CodeFlareWorkload of another version fails as validate does (a GitOps sync must not go empty)" 1 \
  "err:is not served: this operator serves CodeFlareWorkload as codeflare.dev/v1alpha1"
printf 'apiVersion: ray.io/v2\nkind: RayCluster\nmetadata: {name: typo}\nspec: {}\n' >"$work/ray-v2.yaml"
run render-ray-v2 render -f "$work/ray-v2.yaml" "${crds[@]}"
expect_io "render of an unknown version of a known group (ray.io/v2) fails as validate does" 1 \
  "err:no schema is loaded for ray.io/v2 RayCluster [schema:unknownKind" "err!skipped"
run validate-wrong-version validate -f "$work/wrong-version.yaml" "${crds[@]}"
expect "validate of a CodeFlareWorkload of another version" 1 "[schema:unknownKind, crd:codeflare.dev]"
# A document that is not an object (a fresh user's trial: render said "skipped" and exit 0, validate exit 1).
printf 'hello world\n' >"$work/plain.txt"
run render-plain render -f "$work/plain.txt" "${crds[@]}"
expect_io "render of a document that is not an object fails as validate does" 1 \
  "err:a Kubernetes object must be a map, found string [schema:type" "err!skipped"
run validate-plain validate -f "$work/plain.txt" "${crds[@]}"
expect "validate of the same document" 1 "[schema:type"
# A queued workload its set's ClusterQueue can never admit (7 + 2 cpu against a quota of 8): render refuses it as
# validate does, and renders it once the quota holds it.
cat >"$work/inadmissible.yaml" <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cluster-queue}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu", "memory"]
    flavors:
    - name: default-flavor
      resources:
      - {name: cpu, nominalQuota: 8}
      - {name: memory, nominalQuota: 32Gi}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: team-a-queue, namespace: team-a}
spec: {clusterQueue: cluster-queue}
---
apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata: {name: sum-too-big, namespace: team-a}
spec:
  head: {resources: {limits: {cpu: "2", memory: 4Gi}}}
  workerGroups: [{name: w, replicas: 1, resources: {limits: {cpu: "7", memory: 8Gi}}}]
  queue: {localQueue: team-a-queue}
YAML
run validate-inadmissible validate -f "$work/inadmissible.yaml" "${crds[@]}"
expect "validate of a workload its set's ClusterQueue can never admit" 1 "[FitsResourceQuota"
run render-inadmissible render -f "$work/inadmissible.yaml" "${crds[@]}"
expect_io "render refuses the same workload, as validate does (a GitOps sync must not apply what Kueue never admits)" 1 \
  "err:[FitsResourceQuota" "out!kind: RayCluster"
sed 's/nominalQuota: 8}/nominalQuota: 9}/' "$work/inadmissible.yaml" >"$work/admissible.yaml"
run render-admissible render -f "$work/admissible.yaml" "${crds[@]}"
expect "render of the same workload once the quota holds it" 0 "kind: RayCluster" "name: sum-too-big"
# The same workload twice in one set: rendered (a warning leaves the exit code), with validate's RepeatedResource note.
{ cat "$repo/config/samples/cfw_cpu.yaml"; echo "---"; cat "$repo/config/samples/cfw_cpu.yaml"; } >"$work/twice.yaml"
run render-twice render -f "$work/twice.yaml" "${crds[@]}"
expect_io "render of a workload given twice warns as validate does" 0 "err:warning: metadata.name:" \
  "err:[RepeatedResource" "out:kind: RayCluster"
run bundled validate -f "$repo/config/samples"
expect "validate without --crds uses the schemas that ship with the binary" 0 "object(s) valid" \
  "kustomization.yaml: skipped: kustomize.config.k8s.io/v1beta1 Kustomization <no name> (a kustomize file"
run render-quota render --quota -f "$repo/config/samples/cfw_rayjob_k8s_job_mode.yaml" "${crds[@]}"
expect "render --quota prints each PodSet's count and per-Pod requests and the totals, not the objects" 0 \
  "workload: default/rayjob-k8s-job-mode" "- name: submitter" "cpu: 500m" "totalRequests:" "cpu: 3500m"
if grep -q "^apiVersion:" "$work/render-quota.out"; then
  fail "render --quota also printed the objects"
fi
run bundled-render render -f "$repo/config/samples/cfw_cpu.yaml"
expect "render without --crds uses the schemas that ship with the binary" 0 "kind: RayCluster"
run which-flag-f validate -f "$work/no-such-file.yaml"
expect_io "a missing input file names -f" 2 "err:-f: cannot read $work/no-such-file.yaml: no such file or folder"
run which-flag-crds validate -f "$repo/config/samples" --crds "$work/no-such-crds"
expect_io "a missing CRD folder names --crds" 2 "err:--crds: cannot read $work/no-such-crds: no such file or folder"
: >"$work/empty.yaml"
run empty validate -f "$work/empty.yaml" "${crds[@]}"
expect_io "an empty input is a warning" 0 "err:warning: $work/empty.yaml holds no object"
mkdir -p "$work/tree/sub"
printf 'resources: [sub]\n' >"$work/tree/kustomization.yaml"
printf 'see sub/\n' >"$work/tree/README.md"
rc_yaml deep-rc " bogusField: 1," >"$work/tree/sub/deep.yaml"
run tree-flat validate -f "$work/tree" "${crds[@]}"
expect_io "a folder without -R: sub-folders are not read, other files are named, a bare kustomization.yaml is skipped" 0 \
  "err:not .yaml, .yml or .json" "err:README.md" "out:kustomization.yaml: skipped: document 0 (a kustomize file" \
  "err:1 sub-folder(s) of the folders given are not read (add -R to read them): $work/tree/sub"
run unsupported-bundled validate --list-unsupported-rules
expect "validate --list-unsupported-rules without --crds reads the bundled schemas" 0 \
  "x-kubernetes-validations rule(s) are outside the supported CEL subset"
run tree-deep validate -R -f "$work/tree" "${crds[@]}"
expect "a folder with -R reads its sub-folders" 1 "deep.yaml:1:118: RayCluster team-a/deep-rc: error: spec.bogusField"

# --- the public bug-report cases ---
# run_case FILE: one case, judged as its header says.
run_case() {
  local case_file="$1" name verdict path profile want
  name="$(basename "$(dirname "$case_file")")/$(basename "$case_file")"
  verdict="$(sed -n 's/^# expect: *//p' "$case_file" | head -n1)"
  path="$(sed -n 's/^# path: *//p' "$case_file" | head -n1)"
  profile="$(sed -n 's/^# profile: *//p' "$case_file" | head -n1)"
  set +e
  "$CFO_OPERATOR_BIN" validate -f "$case_file" --crds "$UPSTREAM_CRDS" --profile "${profile:-vanilla}" -o json \
    >"$work/out.json" 2>"$work/err"
  rc=$?
  set -e
  want=0
  [[ "$verdict" == invalid ]] && want=1
  if [[ "$verdict" != valid && "$verdict" != invalid ]]; then
    fail "$name: no '# expect: valid|invalid' header"
  elif [[ $rc -ne $want ]]; then
    fail "$name: exit code $rc, expected $want ($verdict): $(head -c 400 "$work/out.json") $(head -c 200 "$work/err")"
  elif [[ $want -eq 1 ]] && ! python3 -c 'import json,sys; f=json.load(open(sys.argv[1])); sys.exit(0 if any(e["path"] == sys.argv[2] and e["severity"] == "error" for e in f) else 1)' \
      "$work/out.json" "$path"; then
    fail "$name: no error at $path: $(head -c 600 "$work/out.json")"
  else
    pass "$name: $verdict${path:+ at $path}${profile:+ (profile $profile)}"
  fi
}
if [[ -z "${CFO_SHARED_DIR:-}" || ! -d "$CFO_SHARED_DIR/cases/public-bugs" ]]; then
  echo "skip: public bug-report cases: CFO_SHARED_DIR is unset or has no cases/public-bugs"
else
  for case_file in "$CFO_SHARED_DIR"/cases/public-bugs/*.yaml; do run_case "$case_file"; done
fi
own_cases=("$repo"/test/cases/*.yaml)
[[ ${#own_cases[@]} -ge 15 ]] || fail "test/cases holds ${#own_cases[@]} cases, fewer than 15"
for case_file in "${own_cases[@]}"; do run_case "$case_file"; done
echo "$passed passed, $failed failed"
((failed == 0))
