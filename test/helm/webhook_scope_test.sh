#!/usr/bin/env bash
# Test of the Helm chart's webhook scope for sharded installs (deploy/helm/codeflare-operator), rendered offline with
# helm-render (test/helm/render), no apiserver:
#   1. without watchNamespaces and labelSelector the CodeFlareWorkload webhook has no namespaceSelector and no
#      objectSelector (it judges every workload, as the one operator reconciles every workload);
#   2. a shard (watchNamespaces [team-a, team-b], labelSelector "shard in (a,b)"; guards on): every webhook of every
#      Validating/MutatingWebhookConfiguration that admits codeflareworkloads selects the namespaces by
#      kubernetes.io/metadata.name In [team-a, team-b] and the objects by shard In [a, b]; the guards keep their own
#      selectors; the operator's --namespace and --label-selector flags are unchanged. watchNamespaces alone gives only
#      the namespaceSelector, labelSelector alone only the objectSelector;
#   3. each form of --label-selector that a LabelSelector can express becomes the equivalent matchExpressions:
#      k=v, k==v, k!=v, k in (...), k notin (...), k, !k, comma-separated, with whitespace, an empty value;
#   4. a labelSelector with no LabelSelector form (k>N, k<N), or one the chart cannot read, stops the render with a
#      message that names webhook.objectSelector;
#   5. webhook.namespaceSelector and webhook.objectSelector, when set, are used as they are, instead of what
#      watchNamespaces and labelSelector give (even a labelSelector of case 4);
#   6. NOTES.txt says when the webhook is scoped, and on Kubernetes 1.20 (which does not label namespaces with
#      kubernetes.io/metadata.name) tells to label the watched namespaces;
#   7. README.md's kustomize overlay for a shard (section "Sharded installs") builds on config/default, passes the
#      shard's flags to the manager, and gives its webhook the selectors the chart gives a release with the same
#      watchNamespaces and labelSelector.
# Inputs:  CFO_HELM_RENDER_DIR (build cache of helm-render; default a temporary folder); KUBECTL (for kustomize).
# Output:  one line per check, then "N passed, N failed"; exit 1 when anything failed.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../harness/lib.sh"

py="$(cfo_python)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$CFO_REPO_DIR"
chart=deploy/helm/codeflare-operator

cfo_tally_begin

if ! renderer="$(test/helm/build-render.sh "${CFO_HELM_RENDER_DIR:-$work/helm-render}" 2>"$work/build.err")"; then
  fail "build helm-render: $(tr '\n' ' ' <"$work/build.err")"
  echo "$passed passed, $failed failed"
  exit 1
fi

# scope <label> <values yaml> <expected namespaceSelector JSON or null> <expected objectSelector JSON or null>
#   Renders with the values (release shard-a in cfo-shard-a) and checks every CodeFlareWorkload webhook's selectors,
#   the guards' (when on) against values.yaml's defaults, and the operator's sharding flags against the values.
scope() {
  local label="$1" values="$2" want_ns="$3" want_obj="$4"
  printf '%s\n' "$values" >"$work/values.yaml"
  if ! "$renderer" --strict --release shard-a --namespace cfo-shard-a -f "$work/values.yaml" "$chart" \
    >"$work/out.yaml" 2>"$work/out.err"; then
    fail "$label: does not render: $(tr '\n' ' ' <"$work/out.err")"
    return
  fi
  if "$py" - "$work/out.yaml" "$work/values.yaml" "$chart/values.yaml" "$want_ns" "$want_obj" >"$work/check.out" \
    2>&1 <<'PY'; then
import json, sys, yaml
out, values, defaults, want_ns, want_obj = sys.argv[1:6]
docs = [d for d in yaml.safe_load_all(open(out, encoding="utf-8")) if isinstance(d, dict)]
v = yaml.safe_load(open(values, encoding="utf-8")) or {}
d = yaml.safe_load(open(defaults, encoding="utf-8"))
want = {"namespaceSelector": json.loads(want_ns), "objectSelector": json.loads(want_obj)}
problems, cfw, guards = [], [], []
for doc in docs:
    if doc.get("kind") not in ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
        continue
    for w in doc.get("webhooks") or []:
        resources = {r for rule in w.get("rules") or [] for r in rule.get("resources") or []}
        (cfw if "codeflareworkloads" in resources or "*" in resources else guards).append((doc, w))
if not cfw:
    problems.append("no webhook admits codeflareworkloads")
for doc, w in cfw:
    for key, exp in want.items():
        if w.get(key) != exp:
            problems.append(f"{doc['kind']} {doc['metadata']['name']}/{w['name']}: {key} {w.get(key)}, want {exp}")
# The guards keep the selectors of their own values.
g = (((v.get("webhook") or {}).get("guards")) or {})
gd = d["webhook"]["guards"]
for doc, w in guards:
    namespaced = all(r.get("scope") == "Namespaced" for r in w.get("rules") or [])
    exp = {"namespaceSelector": g.get("namespaceSelector", gd["namespaceSelector"]) if namespaced else None,
           "objectSelector": g.get("objectSelector", gd["objectSelector"])}
    for key, e in exp.items():
        if w.get(key) != e:
            problems.append(f"guard {w['name']}: {key} {w.get(key)}, want {e}")
# The operator's own sharding flags are what they were.
dep = next(x for x in docs if x.get("kind") == "Deployment")
args = dep["spec"]["template"]["spec"]["containers"][0].get("args") or []
want_args = [f"--namespace={n}" for n in v.get("watchNamespaces") or []]
if v.get("labelSelector"):
    want_args.append(f"--label-selector={v['labelSelector']}")
got_args = [a for a in args if a.startswith(("--namespace=", "--label-selector="))]
if got_args != want_args:
    problems.append(f"the Deployment's sharding flags {got_args}, want {want_args}")
if problems:
    sys.exit("; ".join(problems))
show = lambda s: "none" if s is None else json.dumps(s, separators=(",", ":"))
print(f"{len(cfw)} CodeFlareWorkload webhook(s): namespaceSelector {show(want['namespaceSelector'])}, objectSelector "
      f"{show(want['objectSelector'])}" + (f"; {len(guards)} guards keep their own" if guards else ""))
PY
    pass "$label: $(cat "$work/check.out")"
  else
    fail "$label: $(tr '\n' ' ' <"$work/check.out")"
  fi
}

# in_ns <namespaces...>: the namespaceSelector watchNamespaces should give, as JSON.
in_ns() {
  local vals
  vals="$(printf '"%s",' "$@")"
  echo "{\"matchExpressions\": [{\"key\": \"kubernetes.io/metadata.name\", \"operator\": \"In\", \"values\": [${vals%,}]}]}"
}
# exprs <expression JSON>...: a selector of those matchExpressions, as JSON.
exprs() {
  local IFS=,
  echo "{\"matchExpressions\": [$*]}"
}
guards_on=$'webhook:\n  guards:\n    enabled: true'

# --- 1. one install for the whole cluster -------------------------------------------------------------------------
scope "defaults" "" null null
scope "defaults, guards on" "$guards_on" null null

# --- 2. a shard ---------------------------------------------------------------------------------------------------
shard=$'watchNamespaces: [team-a, team-b]\nlabelSelector: "shard in (a,b)"'
scope "shard (namespaces and labels)" "$shard" "$(in_ns team-a team-b)" \
  "$(exprs '{"key": "shard", "operator": "In", "values": ["a", "b"]}')"
scope "shard, guards on" "$shard"$'\n'"$guards_on" "$(in_ns team-a team-b)" \
  "$(exprs '{"key": "shard", "operator": "In", "values": ["a", "b"]}')"
scope "watchNamespaces only" "watchNamespaces: [team-a]" "$(in_ns team-a)" null
scope "labelSelector only" 'labelSelector: "shard=a"' null "$(exprs '{"key": "shard", "operator": "In", "values": ["a"]}')"

# --- 3. the forms of --label-selector -----------------------------------------------------------------------------
# form <selector> <expected expression JSON>...
form() {
  local sel="$1"
  shift
  scope "labelSelector \"$sel\"" "labelSelector: '$sel'" null "$(exprs "$@")"
}
form 'shard=a' '{"key": "shard", "operator": "In", "values": ["a"]}'
form 'shard==a' '{"key": "shard", "operator": "In", "values": ["a"]}'
form 'shard!=a' '{"key": "shard", "operator": "NotIn", "values": ["a"]}'
form 'shard in (a, b,c)' '{"key": "shard", "operator": "In", "values": ["a", "b", "c"]}'
form 'shard notin (a,b)' '{"key": "shard", "operator": "NotIn", "values": ["a", "b"]}'
form 'codeflare.dev/shard' '{"key": "codeflare.dev/shard", "operator": "Exists"}'
form '!example.com/legacy' '{"key": "example.com/legacy", "operator": "DoesNotExist"}'
form 'tier=' '{"key": "tier", "operator": "In", "values": [""]}'
form 'tier in ()' '{"key": "tier", "operator": "In", "values": [""]}'
form ' team = ml ,shard in (a,b), ! legacy,tier != gold,owner' \
  '{"key": "team", "operator": "In", "values": ["ml"]}' '{"key": "shard", "operator": "In", "values": ["a", "b"]}' \
  '{"key": "legacy", "operator": "DoesNotExist"}' '{"key": "tier", "operator": "NotIn", "values": ["gold"]}' \
  '{"key": "owner", "operator": "Exists"}'

# --- 4. selectors without a LabelSelector form --------------------------------------------------------------------
# refuse <label> <values yaml> <message part>...
refuse() {
  local label="$1" values="$2" want
  shift 2
  printf '%s\n' "$values" >"$work/values.yaml"
  if "$renderer" --release shard-a --namespace cfo-shard-a -f "$work/values.yaml" "$chart" >"$work/out.yaml" \
    2>"$work/out.err"; then
    fail "$label: rendered instead of failing"
    return
  fi
  for want in "$@"; do
    if ! grep -qF -- "$want" "$work/out.err"; then
      fail "$label: failed without \"$want\": $(tr '\n' ' ' <"$work/out.err")"
      return
    fi
  done
  pass "$label: refused ($(sed 's/.*error calling fail: //' "$work/out.err" | head -c 240))"
}
refuse 'labelSelector "shard in (a,b),replicas>2"' 'labelSelector: "shard in (a,b),replicas>2"' \
  '"replicas>2"' 'compare numbers' 'webhook.objectSelector'
refuse 'labelSelector "gpu<4"' 'labelSelector: "gpu<4"' '"gpu<4"' 'compare numbers' 'webhook.objectSelector'
refuse 'labelSelector "shard in a"' 'labelSelector: "shard in a"' 'cannot read the requirement "shard in a"' \
  'webhook.objectSelector'
refuse 'labelSelector "shard=a," (empty requirement)' 'labelSelector: "shard=a,"' 'webhook.objectSelector'
refuse 'labelSelector "shard in (a"' 'labelSelector: "shard in (a"' 'webhook.objectSelector'

# --- 5. explicit selectors win ------------------------------------------------------------------------------------
explicit=$'webhook:\n  namespaceSelector:\n    matchLabels:\n      codeflare.dev/shard: a\n  objectSelector:\n    matchLabels:\n      shard: a'
scope "explicit webhook selectors over a shard's" "$shard"$'\n'"$explicit" \
  '{"matchLabels": {"codeflare.dev/shard": "a"}}' '{"matchLabels": {"shard": "a"}}'
scope "explicit objectSelector with labelSelector \"replicas>2\"" \
  $'labelSelector: "replicas>2"\nwebhook:\n  objectSelector:\n    matchExpressions:\n      - {key: replicas, operator: Exists}' \
  null "$(exprs '{"key": "replicas", "operator": "Exists"}')"
scope "explicit namespaceSelector, derived objectSelector" \
  "$shard"$'\nwebhook:\n  namespaceSelector:\n    matchLabels:\n      team: ml' \
  '{"matchLabels": {"team": "ml"}}' "$(exprs '{"key": "shard", "operator": "In", "values": ["a", "b"]}')"

# --- 6. NOTES.txt ---------------------------------------------------------------------------------------------------
# notes <label> <kube version> <values yaml> <grep -E pattern> <want: present|absent>
notes() {
  printf '%s\n' "$3" >"$work/values.yaml"
  if ! "$renderer" --kube-version "$2" --notes "$work/notes.txt" -f "$work/values.yaml" "$chart" >/dev/null \
    2>"$work/out.err"; then
    fail "NOTES.txt $1: does not render: $(tr '\n' ' ' <"$work/out.err")"
  elif { grep -qE -- "$4" "$work/notes.txt" && [[ $5 == present ]]; } ||
    { ! grep -qE -- "$4" "$work/notes.txt" && [[ $5 == absent ]]; }; then
    pass "NOTES.txt $1: /$4/ $5"
  else
    fail "NOTES.txt $1: /$4/ should be $5: $(tr '\n' ' ' <"$work/notes.txt")"
  fi
}
notes "shard" v1.27.0 "$shard" 'judges only the workloads selected by its namespaceSelector and objectSelector' present
notes "defaults" v1.27.0 "" 'judges only the workloads' absent
notes "watchNamespaces on Kubernetes 1.20" v1.20.15 "watchNamespaces: [team-a]" \
  'label namespace NAMESPACE kubernetes.io/metadata.name=NAMESPACE' present
notes "watchNamespaces on Kubernetes 1.21" v1.21.0 "watchNamespaces: [team-a]" 'kubernetes.io/metadata.name' absent

# --- 7. README's kustomize overlay --------------------------------------------------------------------------------
# The overlay as README.md writes it, in a folder beside a link to config/, so that its ../config/default resolves.
mkdir -p "$work/kz/shard-a"
ln -s "$CFO_REPO_DIR/config" "$work/kz/config"
if "$py" - README.md "$work/kz/shard-a/kustomization.yaml" >"$work/kz.out" 2>&1 <<'PY'; then
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
section = text.split("### Sharded installs", 1)[-1].split("\n## ", 1)[0]
m = re.search(r"```yaml\n( *)# shard-a/kustomization.yaml\n(.*?)\n *```", section, re.S)
if not m:
    sys.exit("no ```yaml block starting with '# shard-a/kustomization.yaml' in the section Sharded installs")
indent = len(m.group(1))
lines = [line[indent:] for line in m.group(2).split("\n")]
with open(sys.argv[2], "w", encoding="utf-8") as f:
    f.write("\n".join(lines) + "\n")
PY
  if "${KUBECTL:-kubectl}" kustomize "$work/kz/shard-a" >"$work/kz.yaml" 2>"$work/kz.err"; then
    printf '%s\n' "$shard" >"$work/values.yaml"
    "$renderer" --release shard-a --namespace codeflare-shard-a -f "$work/values.yaml" "$chart" >"$work/out.yaml"
    if "$py" - "$work/kz.yaml" "$work/out.yaml" >"$work/kz.out" 2>&1 <<'PY'; then
import sys, yaml
load = lambda p: [d for d in yaml.safe_load_all(open(p, encoding="utf-8")) if isinstance(d, dict)]
kz, helm = load(sys.argv[1]), load(sys.argv[2])
def cfw_hooks(docs):
    return [w for d in docs if d.get("kind") == "ValidatingWebhookConfiguration" for w in d.get("webhooks") or []
            if any("codeflareworkloads" in (r.get("resources") or []) for r in w.get("rules") or [])]
problems = []
kh, hh = cfw_hooks(kz), cfw_hooks(helm)
if len(kh) != 1 or len(hh) != 1:
    problems.append(f"{len(kh)} CodeFlareWorkload webhook(s) from kustomize, {len(hh)} from the chart")
else:
    for key in ("namespaceSelector", "objectSelector"):
        if kh[0].get(key) != hh[0].get(key) or not kh[0].get(key):
            problems.append(f"{key}: kustomize {kh[0].get(key)}, the chart {hh[0].get(key)}")
flags = lambda docs: sorted(a for d in docs if d.get("kind") == "Deployment"
                            for a in d["spec"]["template"]["spec"]["containers"][0].get("args") or []
                            if a.startswith(("--namespace=", "--label-selector=")))
if flags(kz) != flags(helm):
    problems.append(f"manager flags: kustomize {flags(kz)}, the chart {flags(helm)}")
if problems:
    sys.exit("; ".join(problems))
print(f"builds; manager flags {flags(kz)}; webhook selectors equal to the chart's for the same values")
PY
      pass "README's kustomize overlay for a shard: $(cat "$work/kz.out")"
    else
      fail "README's kustomize overlay for a shard: $(tr '\n' ' ' <"$work/kz.out")"
    fi
  else
    fail "README's kustomize overlay for a shard does not build: $(tr '\n' ' ' <"$work/kz.err")"
  fi
else
  fail "README's kustomize overlay for a shard: $(tr '\n' ' ' <"$work/kz.out")"
fi

echo "$passed passed, $failed failed"
((failed == 0))
