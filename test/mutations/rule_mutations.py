"""Rule-driven mutations: for every rule id of controller/validation/rules/*.cpp, single changes that break it (an
error at a known path) and, where there is an interesting boundary, changes that must still pass (sometimes with a
warning the validator must report).

Each generator takes a base and yields Mutation records; it applies to the bases of the kinds it knows and yields
nothing for the others. Paths are written the way the validator writes them (corpus_base.key_path), relative to the
document; locations inside AppWrapper components carry the "spec.components[i].template" prefix.
"""
import copy
import json

from corpus_base import Mutation, get_at, set_at, del_at, ptr_path

GENERATORS = []


def rule(fn):
    GENERATORS.append(fn)
    return fn


QUEUE = "kueue.x-k8s.io/queue-name"
PRIO = "kueue.x-k8s.io/priority-class"


# ---- locations --------------------------------------------------------------------------------------------------

def kind_of(obj):
    return (obj.get("apiVersion"), obj.get("kind")) if isinstance(obj, dict) else (None, None)


def is_kind(obj, *kinds):
    return kind_of(obj)[1] in kinds


class ClusterLoc:
    """A RayClusterSpec inside a document: its location, the object that owns it (whose metadata counts) and how
    it got there."""

    def __init__(self, spec_ptr, owner_ptr, from_rayjob, wrapped):
        self.spec_ptr, self.owner_ptr, self.from_rayjob, self.wrapped = spec_ptr, owner_ptr, from_rayjob, wrapped

    def p(self, *rest):
        return self.spec_ptr + tuple(rest)

    def path(self, *rest):
        return ptr_path(self.p(*rest))

    def owner(self, *rest):
        return self.owner_ptr + tuple(rest)


def cluster_locs(doc):
    out = []
    if kind_of(doc) == ("ray.io/v1", "RayCluster") and isinstance(doc.get("spec"), dict):
        out.append(ClusterLoc(("spec",), (), False, False))
    if kind_of(doc) == ("ray.io/v1", "RayJob") and isinstance(get_at(doc, ("spec", "rayClusterSpec")), dict):
        out.append(ClusterLoc(("spec", "rayClusterSpec"), (), True, False))
    if is_kind(doc, "AppWrapper"):
        for i, comp in enumerate(get_at(doc, ("spec", "components"), []) or []):
            t = comp.get("template") if isinstance(comp, dict) else None
            base = ("spec", "components", i, "template")
            if kind_of(t) == ("ray.io/v1", "RayCluster"):
                out.append(ClusterLoc(base + ("spec",), base, False, True))
            elif kind_of(t) == ("ray.io/v1", "RayJob") and isinstance(get_at(t, ("spec", "rayClusterSpec")), dict):
                out.append(ClusterLoc(base + ("spec", "rayClusterSpec"), base, True, True))
    return out


def pod_spec_locs(doc):
    """PodSpecs whose Pods a controller creates later (late core/v1 rules apply to each)."""
    out = []
    for c in cluster_locs(doc):
        cs = get_at(doc, c.spec_ptr)
        if isinstance(get_at(cs, ("headGroupSpec", "template", "spec")), dict):
            out.append(c.p("headGroupSpec", "template", "spec"))
        for i, g in enumerate(cs.get("workerGroupSpecs") or []):
            if isinstance(get_at(g, ("template", "spec")), dict):
                out.append(c.p("workerGroupSpecs", i, "template", "spec"))
    if kind_of(doc) == ("ray.io/v1", "RayJob") and isinstance(get_at(doc, ("spec", "submitterPodTemplate", "spec")),
                                                               dict):
        out.append(("spec", "submitterPodTemplate", "spec"))
    if is_kind(doc, "AppWrapper"):
        from schema_mutations import wrapped_pod_spec_ptrs
        for i, comp in enumerate(get_at(doc, ("spec", "components"), []) or []):
            t = comp.get("template") if isinstance(comp, dict) else None
            if isinstance(t, dict) and t.get("apiVersion") != "ray.io/v1":
                base = ("spec", "components", i, "template")
                out += [base + p for p in wrapped_pod_spec_ptrs(t) if isinstance(get_at(t, p), dict)]
    return out


def object_locs(doc):
    """Objects with their own ObjectMeta: the document and each AppWrapper component template."""
    out = [()]
    if is_kind(doc, "AppWrapper"):
        for i, comp in enumerate(get_at(doc, ("spec", "components"), []) or []):
            if isinstance(comp, dict) and isinstance(comp.get("template"), dict):
                out.append(("spec", "components", i, "template"))
    return out


def queued(obj):
    return bool(get_at(obj, ("metadata", "labels", QUEUE)))


def name_of(obj):
    return get_at(obj, ("metadata", "name")) or ""


# ---- building Mutations ----------------------------------------------------------------------------------------

class Ctx:
    def __init__(self, base):
        self.base = base
        self.doc = base.docs[0]

    def mk(self, family, expect, path, rules, change, note, server=None, rule_stable=True, warn=None, doc_index=0,
           profile="vanilla", pod_security="privileged"):
        docs = self.base.copy_docs()
        change(docs[doc_index])
        m = Mutation(self.base.id, family, expect, path, rules, docs, doc_index, note, rule_stable, server, warn)
        m.profile = profile
        m.pod_security = pod_security
        return m

    def bad(self, family, path, rules, change, note, **kw):
        return self.mk(family, "invalid", path, rules if isinstance(rules, tuple) else (rules,), change, note, **kw)

    def ok(self, family, change, note, warn=None, **kw):
        return self.mk(family, "valid", warn[0] if warn else None, (warn[1],) if warn else (), change, note,
                       warn=warn, **kw)


def setter(ptr, value):
    return lambda d: set_at(d, ptr, copy.deepcopy(value))


def chain(*fns):
    def run(d):
        for f in fns:
            f(d)
    return run


def deleter(ptr):
    return lambda d: del_at(d, ptr)


NOT_JUDGED_LATE = "late: checked when the Pods are created"
NOT_JUDGED_CTRL = "KubeRay controller or webhook (none in the test control plane)"
NOT_JUDGED_CEL = "CEL rule (the apiserver-1.20 CRDs have none)"
NOT_JUDGED_AW = "AppWrapper webhook or controller (none in the test control plane)"
NOT_JUDGED_KUEUE = "Kueue webhook or controller (none in the test control plane)"
NOT_JUDGED_WRAPPED = "inside an AppWrapper template, which the apiserver keeps opaque"


def srv(ctx_wrapped, reason):
    return NOT_JUDGED_WRAPPED if ctx_wrapped else reason


# ---- apimachinery ObjectMeta and embedded resources (metadata_rules.cpp) ---------------------------------------

@rule
def metadata_rules(c):
    doc = c.doc
    for loc in object_locs(doc):
        wrapped = loc != ()
        obj = get_at(doc, loc)
        if not isinstance(obj.get("metadata"), dict):
            continue
        P = lambda *r: loc + ("metadata",) + r  # noqa: E731
        fam = "embedded" if wrapped else "metadata"
        # The apiserver checks an embedded object's namespace, labels and annotations (validateEmbeddedResource),
        # but its name only as a path segment: name rules inside an AppWrapper template are not judged.
        meta_judged = "judged"
        kind = obj.get("kind")
        named = bool(get_at(obj, ("metadata", "name")))
        # DNS1123SubdomainName: underscore and upper case; too long
        if named:
            rules = ("DNS1123SubdomainName",) + (("DNS1035Name",) if kind in ("RayCluster", "RayJob") else ()) + \
                (("AppWrapperName",) if kind == "AppWrapper" else ())
            yield c.bad(fam, ptr_path(P("name")), rules, setter(P("name"), "Bad_Name"),
                        "name with an underscore and upper case", server=srv(wrapped, "judged"))
            yield c.bad(fam, ptr_path(P("name")), ("DNS1123SubdomainName", "MaxNameLength", "AppWrapperName"),
                        setter(P("name"), "a" * 254), "name of 254 characters", server=srv(wrapped, "judged"))
            # NameRequired
            yield c.bad(fam, ptr_path(P("name")), ("NameRequired",), chain(deleter(P("name")),
                                                                             deleter(P("generateName"))),
                        "neither name nor generateName", server=srv(wrapped, "judged"))
            # GenerateName
            if not wrapped:
                yield c.bad(fam, ptr_path(P("generateName")), ("GenerateName", "DNS1035Name", "AppWrapperName"),
                            chain(deleter(P("name")), setter(P("generateName"), "Bad_Prefix-")),
                            "generateName that is no name prefix", server="judged")
                yield c.ok(fam, chain(deleter(P("name")), setter(P("generateName"), "gen-")),
                           "generateName instead of name", server=None)
            # Finalizers, OwnerReferences (ValidateObjectMeta)
            if not wrapped:
                yield c.bad(fam, ptr_path(P("finalizers", 0)), ("Finalizers",), setter(P("finalizers"), ["bad name!"]),
                            "finalizer that is no qualified name", server="judged")
                yield c.ok(fam, setter(P("finalizers"), ["example.com/cleanup"]), "qualified finalizer", server=None)
                yield c.bad(fam, ptr_path(P("ownerReferences", 0, "uid")), ("OwnerReferences",),
                            setter(P("ownerReferences"), [{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner"}]),
                            "owner reference without a uid", server="judged")
        # namespace (namespaced kinds only; the documents without one get the default namespace)
        cluster_scoped = kind in ("ClusterQueue", "ResourceFlavor", "WorkloadPriorityClass", "Cohort")
        if not cluster_scoped:
            yield c.bad(fam, ptr_path(P("namespace")), ("DNS1123LabelNamespace",), setter(P("namespace"), "Team_A"),
                        "namespace that is no DNS-1123 label", server=meta_judged)
        elif not wrapped:
            yield c.ok(fam, setter(P("namespace"), "default"), "namespace on a cluster-scoped object (ignored)",
                       warn=(ptr_path(P("namespace")), "ClusterScopedNamespace"),
                       server="not sent: kubectl refuses a namespace on a cluster-scoped object")
        # labels
        yield c.bad(fam, ptr_path(P("labels", "bad key")), ("LabelKey",), setter(P("labels", "bad key"), "v"),
                    "label key with a space", server=meta_judged)
        yield c.bad(fam, ptr_path(P("labels", "example.com/k")), ("LabelValue",),
                    setter(P("labels", "example.com/k"), "not a value!"), "label value with spaces",
                    server=meta_judged)
        yield c.bad(fam, ptr_path(P("labels", "example.com/k")), ("LabelValue",),
                    setter(P("labels", "example.com/k"), "v" * 64), "label value of 64 characters",
                    server=meta_judged)
        yield c.ok(fam, setter(P("labels", "example.com/" + "k" * 63), "v" * 63),
                   "label with a prefixed 63-character name and a 63-character value", server=srv(wrapped, None))
        # annotations
        yield c.bad(fam, ptr_path(P("annotations", "bad key!")), ("AnnotationKey",),
                    setter(P("annotations", "bad key!"), "v"), "annotation key that is no qualified name",
                    server=meta_judged)
        used = sum(len(k) + len(v) for k, v in (get_at(obj, ("metadata", "annotations")) or {}).items()
                   if isinstance(v, str))
        room = 262144 - used - len("example.com/big")
        if not wrapped:
            yield c.bad(fam, ptr_path(P("annotations")), ("AnnotationsTotalSize",),
                        setter(P("annotations", "example.com/big"), "x" * (room + 1)),
                        "annotations one byte over 256 KiB", server="judged")
            yield c.ok(fam, setter(P("annotations", "example.com/big"), "x" * room),
                       "annotations of exactly 256 KiB", server="judged")
        # ObjectMeta shape: wrong types, unknown fields
        yield c.bad(fam, ptr_path(P("labels")), ("schema:type",), setter(P("labels"), "team=a"),
                    "labels given as a string", server=meta_judged)
        yield c.bad(fam, ptr_path(P("labels", "team")), ("schema:type",), setter(P("labels", "team"), 7),
                    "label value given as a number", server=meta_judged)
        if not wrapped:
            yield c.bad("metadata:unknownField", ptr_path(P("lables")), ("schema:unknownField",),
                        setter(P("lables"), {"team": "a"}), "misspelt labels",
                        server="unknown ObjectMeta fields are pruned by the apiserver")
        else:  # the wrapped object's metadata is pruned when it is created: only a warning
            yield c.ok("metadata:unknownField", setter(P("lables"), {"team": "a"}), "misspelt labels in a component",
                       warn=(ptr_path(P("lables")), "schema:unknownField"), server=None)


@rule
def embedded_type_meta(c):
    """apiextensions validateEmbeddedResource on AppWrapper component templates."""
    if not is_kind(c.doc, "AppWrapper"):
        return
    for i, comp in enumerate(get_at(c.doc, ("spec", "components"), []) or []):
        if not isinstance(comp, dict) or not isinstance(comp.get("template"), dict):
            continue
        t = ("spec", "components", i, "template")
        yield c.bad("embedded", ptr_path(t + ("apiVersion",)), ("EmbeddedAPIVersion",), deleter(t + ("apiVersion",)),
                    "embedded object without apiVersion")
        yield c.bad("embedded", ptr_path(t + ("apiVersion",)), ("EmbeddedAPIVersion",),
                    setter(t + ("apiVersion",), "ray.io/v1/extra"), "apiVersion with two slashes")
        yield c.bad("embedded", ptr_path(t + ("kind",)), ("EmbeddedKind",), deleter(t + ("kind",)),
                    "embedded object without kind")
        yield c.bad("embedded", ptr_path(t + ("kind",)), ("EmbeddedKind",), setter(t + ("kind",), "Ray_Cluster"),
                    "kind that is no DNS-1035 label when lower-cased")


@rule
def label_selector(c):
    if not is_kind(c.doc, "ClusterQueue"):
        return
    sel = ("spec", "namespaceSelector")
    yield c.bad("kueue", ptr_path(sel + ("matchExpressions",)) + "[0].operator", ("LabelSelector",),
                setter(sel, {"matchExpressions": [{"key": "team", "operator": "Within", "values": ["a"]}]}),
                "selector operator outside In/NotIn/Exists/DoesNotExist", server=NOT_JUDGED_KUEUE)
    yield c.bad("kueue", ptr_path(sel + ("matchExpressions",)) + "[0].values", ("LabelSelector",),
                setter(sel, {"matchExpressions": [{"key": "team", "operator": "In", "values": []}]}),
                "operator In without values", server=NOT_JUDGED_KUEUE)
    yield c.bad("kueue", ptr_path(sel + ("matchLabels", "bad key")), ("LabelKey",),
                setter(sel, {"matchLabels": {"bad key": "a"}}), "matchLabels key with a space",
                server=NOT_JUDGED_KUEUE)
    yield c.ok("kueue", setter(sel, {"matchExpressions": [{"key": "team", "operator": "Exists"}]}),
               "selector with operator Exists", server=None)
    yield c.ok("kueue", deleter(sel), "no namespaceSelector: it selects no namespace",
               warn=("spec.namespaceSelector", "NamespaceSelector"), server=None)


# ---- core/v1 Pod rules, applied late (core_pod_*.cpp), from pod_rule_cases.yaml ----------------------------------
# Every entry of pod_rule_cases.yaml (a failing and a passing change per rule id) is applied to the first pod
# template of the first bases of each kind (two of ours, one upstream sample); the head (and for worker-scoped cases a worker group) of RayCluster bases
# also feeds the differential test against the Pods the apiserver would be sent (kuberay_pod.py).

import os  # noqa: E402
import re  # noqa: E402

import yaml  # noqa: E402

POD_CASES = yaml.safe_load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "pod_rule_cases.yaml"),
                                encoding="utf-8"))
POD_CASE_BASES_PER_KIND = {"ours": 2, "upstream": 1}  # bases per kind and origin that get every case
_pod_case_bases = {}


def parse_rel(path):
    """'spec.containers[0].env[+]' -> ('spec', 'containers', 0, 'env', '+'); keys in brackets stay whole."""
    out = []
    for m in re.finditer(r"([^.\[\]]+)|\[([^\]]*)\]", path):
        if m.group(1) is not None:
            out.append(m.group(1))
        else:
            inner = m.group(2)
            out.append(int(inner) if re.fullmatch(r"-?\d+", inner) else ("+" if inner == "+" else inner))
    return tuple(out)


def resolve_rel(doc, ptr, append):
    """Replaces '+' (append) and -1 (last element) in a pointer by indices of `doc`'s lists."""
    out = []
    for i, p in enumerate(ptr):
        if (append and p == "+") or (not append and p == -1):
            lst = get_at(doc, tuple(out))
            n = len(lst) if isinstance(lst, list) else 0
            out.append(n if append else max(n - 1, 0))
        else:
            out.append(p)
    return tuple(out)


def apply_pod_edits(doc, tmpl_ptr, group_ptr, edits, c0):
    for key, value in (edits or {}).items():
        key = key.strip()
        if key.startswith("@group."):
            ptr = group_ptr + parse_rel(key[len("@group."):])
        else:
            ptr = tmpl_ptr + parse_rel(key)
        if isinstance(value, str) or isinstance(value, (dict, list)):
            value = json_sub(value, c0)
        if value == "~delete":
            del_at(doc, resolve_rel(doc, ptr, True))
            continue
        if ptr[-1] == "+" and not isinstance(get_at(doc, ptr[:-1]), list):
            set_at(doc, resolve_rel(doc, ptr[:-1], True), [copy.deepcopy(value)])
            continue
        ptr = resolve_rel(doc, ptr, True)
        parent = get_at(doc, ptr[:-1])
        if isinstance(ptr[-1], int) and isinstance(parent, list) and ptr[-1] == len(parent):
            parent.append(copy.deepcopy(value))
        else:
            set_at(doc, ptr, copy.deepcopy(value))


def json_sub(value, c0):
    """Replaces the placeholder @c0 (the name of containers[0]) in keys and strings."""
    if isinstance(value, str):
        return value.replace("@c0", c0)
    if isinstance(value, list):
        return [json_sub(v, c0) for v in value]
    if isinstance(value, dict):
        return {json_sub(k, c0): json_sub(v, c0) for k, v in value.items()}
    return value


class PodCaseLoc:
    """Where the cases of pod_rule_cases.yaml go in a document: a pod template, and for Ray templates the group."""

    def __init__(self, tmpl_ptr, group_ptr, ray_node, wrapped):
        self.tmpl_ptr, self.group_ptr, self.ray_node, self.wrapped = tmpl_ptr, group_ptr, ray_node, wrapped


def pod_case_locs(doc):
    locs = []
    for cl in cluster_locs(doc):
        cs = get_at(doc, cl.spec_ptr)
        if isinstance(get_at(cs, ("headGroupSpec", "template", "spec")), dict):
            locs.append(PodCaseLoc(cl.p("headGroupSpec", "template"), cl.p("headGroupSpec"), "head", cl.wrapped))
        for i, g in enumerate(cs.get("workerGroupSpecs") or []):
            if isinstance(get_at(g, ("template", "spec")), dict):
                locs.append(PodCaseLoc(cl.p("workerGroupSpecs", i, "template"), cl.p("workerGroupSpecs", i), "worker",
                                       cl.wrapped))
                break
    for ps in pod_spec_locs(doc):
        if ps[-1] == "spec" and not any(l.tmpl_ptr == ps[:-1] for l in locs) and \
                not any(ps[:len(l.tmpl_ptr)] == l.tmpl_ptr for l in locs):
            locs.append(PodCaseLoc(ps[:-1], None, None, ps[:2] == ("spec", "components")))
    return locs


@rule
def core_pod_rules(c):
    doc = c.doc
    if c.base.is_set:
        return
    key = (doc.get("kind"), c.base.origin)
    chosen = _pod_case_bases.setdefault(key, [])
    # Not a cluster with the v2 autoscaler: KubeRay then requires restartPolicy Never of every Ray Pod
    # (AutoscalerV2RestartPolicy) and builds them so, which the cases about restartPolicy cannot assume.
    if any(get_at(doc, cl.p("autoscalerOptions", "version")) == "v2" for cl in cluster_locs(doc)):
        return
    if c.base.id not in chosen:
        if len(chosen) >= POD_CASE_BASES_PER_KIND.get(c.base.origin, 1):
            return
        chosen.append(c.base.id)
    locs = pod_case_locs(doc)
    head = next((l for l in locs if l.ray_node == "head"), None)
    worker = next((l for l in locs if l.ray_node == "worker"), None)
    first = locs[0] if locs else None
    q = queued(doc)
    # Every case goes to the first template; on a RayCluster also to the first worker group's template, whose Pods
    # get KubeRay's injected init container (the differential test builds both Pods).
    targets = []
    for n, case in enumerate(POD_CASES):
        if case.get("scope", "") == "ray-worker":
            targets.append((n, case, worker))
        else:
            targets.append((n, case, first))
            if worker is not None and worker is not first and not worker.wrapped and \
                    kind_of(doc) == ("ray.io/v1", "RayCluster"):
                targets.append((n, case, worker))
    for n, case, loc in targets:
        scope = case.get("scope", "")
        if loc is None:
            continue
        if scope == "ray-worker" and (loc.wrapped or q or any(get_at(comp, ("podSets",)) for comp in
                                                               get_at(doc, ("spec", "components"), []) or [])):
            continue
        c0 = get_at(doc, loc.tmpl_ptr + ("spec", "containers", 0, "name")) or ""
        rules = (case["rule"],) + tuple(case.get("also") or ())
        late = srv(loc.wrapped, NOT_JUDGED_LATE)

        def change(edits, loc=loc, c0=c0):
            return lambda d: apply_pod_edits(d, loc.tmpl_ptr, loc.group_ptr, edits, c0)

        bad_docs = c.base.copy_docs()
        change(case["bad"])(bad_docs[0])
        at = case["at"]
        at_ptr = (loc.group_ptr + parse_rel(at[len("@group."):])) if at.startswith("@group.") else \
            loc.tmpl_ptr + parse_rel(at)
        path = ptr_path(resolve_rel(bad_docs[0], at_ptr, False))
        pod = {"case": n, "server": case.get("server", ""), "node": loc.ray_node, "tmpl_ptr": loc.tmpl_ptr,
               "group_ptr": loc.group_ptr} if loc.ray_node and not loc.wrapped and \
            kind_of(doc) == ("ray.io/v1", "RayCluster") else None
        if pod and "restartPolicy" in json.dumps(case["bad"]) and \
                get_at(doc, ("spec", "enableInTreeAutoscaling")) is True and \
                get_at(doc, ("spec", "autoscalerOptions", "version")) == "v2":
            pod["server"] = "autoscaler v2: KubeRay writes restartPolicy Never into the Pod, whatever the template says"
        note = "pod case %d (%s): %s" % (n, loc.ray_node or "template", case["what"])
        if case.get("warn"):
            m = c.ok("core/v1 Pod", change(case["bad"]), note, warn=(path, case["rule"]), server=srv(loc.wrapped, None))
        else:
            m = c.bad("core/v1 Pod", path, rules, change(case["bad"]), note, server=late)
        m.pod = pod
        yield m
        g = c.ok("core/v1 Pod", change(case["good"]), note + " (passing change)", server=srv(loc.wrapped, None))
        g.pod = pod
        yield g


# ---- Pod Security Standards (pod_security_checks.cpp), from pss_cases.yaml -------------------------------------
# Every case of pss_cases.yaml (a failing and a passing change per check) on the head template of a RayCluster of our
# own samples, judged with validate --pod-security-level at the case's level. Before the change every Pod template
# of the cluster is made to meet the restricted level (pod runAsNonRoot and seccompProfile, every container
# allowPrivilegeEscalation false and capabilities drop ALL), so that only the change is judged.
PSS_CASES = yaml.safe_load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "pss_cases.yaml"),
                                encoding="utf-8"))
NOT_JUDGED_PSS = "Pod Security admission judges the Pods KubeRay creates later (the 1.20 test apiserver has none)"
_pss_bases = []


def pss_compliant(doc, cl):
    cs = get_at(doc, cl.spec_ptr)
    tmpls = [cl.p("headGroupSpec", "template")] + \
        [cl.p("workerGroupSpecs", i, "template") for i in range(len(cs.get("workerGroupSpecs") or []))]
    for t in tmpls:
        if not isinstance(get_at(doc, t + ("spec",)), dict):
            continue
        set_at(doc, t + ("spec", "securityContext", "runAsNonRoot"), True)
        set_at(doc, t + ("spec", "securityContext", "seccompProfile"), {"type": "RuntimeDefault"})
        for lst in ("initContainers", "containers"):
            for i, c in enumerate(get_at(doc, t + ("spec", lst)) or []):
                if isinstance(c, dict):
                    set_at(doc, t + ("spec", lst, i, "securityContext", "allowPrivilegeEscalation"), False)
                    set_at(doc, t + ("spec", lst, i, "securityContext", "capabilities"), {"drop": ["ALL"]})


@rule
def pod_security_rules(c):
    doc = c.doc
    # (a cluster with in-tree autoscaling would need each case written for the autoscaler container too)
    if c.base.is_set or c.base.origin != "ours" or kind_of(doc) != ("ray.io/v1", "RayCluster") or \
            get_at(doc, ("spec", "enableInTreeAutoscaling")):
        return
    if c.base.id not in _pss_bases:
        if _pss_bases:
            return
        _pss_bases.append(c.base.id)
    cl = next((l for l in cluster_locs(doc) if not l.wrapped), None)
    if cl is None or not isinstance(get_at(doc, cl.p("headGroupSpec", "template", "spec")), dict):
        return
    head = PodCaseLoc(cl.p("headGroupSpec", "template"), cl.p("headGroupSpec"), "head", False)
    c0 = get_at(doc, head.tmpl_ptr + ("spec", "containers", 0, "name")) or ""

    def change(edits):
        return chain(lambda d: pss_compliant(d, cl),
                     lambda d: apply_pod_edits(d, head.tmpl_ptr, head.group_ptr, edits, c0))

    for n, case in enumerate(PSS_CASES["cases"]):
        note = "pss case %d (%s, %s): %s" % (n, case["rule"], case["level"], case["what"])
        bad_docs = c.base.copy_docs()
        change(case["bad"])(bad_docs[0])
        path = ptr_path(resolve_rel(bad_docs[0], head.tmpl_ptr + parse_rel(case["at"]), False))
        yield c.bad("Pod Security", path, case["rule"], change(case["bad"]), note, server=NOT_JUDGED_PSS,
                    pod_security=case["level"])
        yield c.ok("Pod Security", change(case["good"]), note + " (passing change)", server=NOT_JUDGED_PSS,
                   pod_security=case["level"])
        # the same bad change one level down passes, unless baseline forbids it too
        if case["level"] == "restricted":
            yield c.ok("Pod Security", change(case["bad"]), note + " (at baseline: allowed)", server=NOT_JUDGED_PSS,
                       pod_security="baseline")


# ---- KubeRay (kuberay_rules.cpp) and the CodeFlare operator webhook ---------------------------------------------

def worker_groups(doc, cl):
    return get_at(doc, cl.p("workerGroupSpecs")) or []


def head_container(cl):
    return cl.p("headGroupSpec", "template", "spec", "containers", 0)


def deletion_rule(policy, job_status, ttl=None):
    cond = {"jobStatus": job_status}
    if ttl is not None:
        cond["ttlSeconds"] = ttl
    return {"policy": policy, "condition": cond}


def add_env(doc, cptr, entries):
    env = list(get_at(doc, cptr + ("env",)) or [])
    return setter(cptr + ("env",), env + entries)


@rule
def kuberay_names(c):
    doc = c.doc
    kind = doc.get("kind")
    locs = [()] if kind in ("RayCluster", "RayJob") else []
    if kind == "AppWrapper":
        locs = [l.owner_ptr for l in cluster_locs(doc) if l.wrapped and not l.from_rayjob]
    for loc in locs:
        obj = get_at(doc, loc)
        wrapped = loc != ()
        S = srv(wrapped, NOT_JUDGED_CTRL)
        limit = 47 if obj.get("kind") == "RayJob" else 53
        named = bool(get_at(obj, ("metadata", "name")))
        field = "name" if named else "generateName"
        fp = loc + ("metadata", field)
        suffix = 5 if field == "generateName" else 0
        yield c.bad("kuberay", ptr_path(fp), ("DNS1035Name",), setter(fp, "1cluster" + ("-" if suffix else "")),
                    "name starting with a digit", server=S)
        if named:
            yield c.bad("kuberay", ptr_path(fp), ("DNS1035Name",), setter(fp, "ray.cluster"),
                        "name with a dot (a DNS-1123 subdomain, not a DNS-1035 label)", server=S)
        yield c.bad("kuberay", ptr_path(fp), ("MaxNameLength",), setter(fp, "r" * (limit + 1 - suffix)),
                    "%s of %d characters (limit %d)" % (field, limit + 1 - suffix, limit), server=S)
        yield c.ok("kuberay", setter(fp, "r" * (limit - suffix)),
                   "%s of %d characters (limit %d)" % (field, limit - suffix, limit),
                   server=srv(wrapped, None))


@rule
def kuberay_cluster_spec(c):
    doc = c.doc
    for n, cl in enumerate(cluster_locs(doc)):
        S = srv(cl.wrapped, NOT_JUDGED_CTRL)
        V = srv(cl.wrapped, None)
        groups = worker_groups(doc, cl)
        W = lambda i, *r: cl.p("workerGroupSpecs", i, *r)  # noqa: E731
        H = lambda *r: cl.p("headGroupSpec", *r)  # noqa: E731
        hc = head_container(cl)
        owner_q = queued(get_at(doc, cl.owner_ptr)) or (queued(doc) and not cl.wrapped)
        declared_podsets = cl.wrapped and any(
            get_at(comp, ("podSets",)) for comp in get_at(doc, ("spec", "components"), []) or [])
        fam = "kuberay"
        if groups:
            g0 = groups[0]
            # UniqueGroupName / copies
            yield c.bad(fam, ptr_path(W(len(groups), "groupName")), ("UniqueGroupName",),
                        setter(cl.p("workerGroupSpecs"), groups + [copy.deepcopy(g0)]),
                        "worker group [0] repeated with its name", server=S)
            if not declared_podsets:
                g = copy.deepcopy(g0)
                g["groupName"] = "extra-group"
                yield c.ok(fam, setter(cl.p("workerGroupSpecs"), groups + [g]), "worker group [0] copied under "
                           "another name", server=V)
            yield c.bad(fam, ptr_path(W(0, "template", "spec", "containers")), ("ContainersRequired",),
                        setter(W(0, "template", "spec", "containers"), []), "worker template without containers",
                        server=S)
            yield c.bad(fam, ptr_path(W(0, "minReplicas")), ("NonNegativeReplicas",), setter(W(0, "minReplicas"), -1),
                        "minReplicas -1", server=S)
            yield c.bad(fam, ptr_path(W(0, "maxReplicas")), ("NonNegativeReplicas",),
                        chain(setter(W(0, "minReplicas"), 0), setter(W(0, "replicas"), 0),
                              setter(W(0, "maxReplicas"), -2)), "maxReplicas -2", server=S)
            maxr = g0.get("maxReplicas", 5)
            yield c.bad(fam, ptr_path(W(0, "minReplicas")), ("MinWithinMaxReplicas",),
                        setter(W(0, "minReplicas"), maxr + 1), "minReplicas above maxReplicas", server=S)
            yield c.bad(fam, ptr_path(W(0, "labels", "bad key")), ("GroupLabels",),
                        setter(W(0, "labels"), {"bad key": "v"}), "group label key with a space", server=S)
            yield c.bad(fam, ptr_path(W(0, "labels", "tier")), ("GroupLabels",),
                        setter(W(0, "labels"), {"tier": "gold plated"}), "group label value with a space", server=S)
            yield c.ok(fam, setter(W(0, "labels"), {"example.com/tier": "gold"}), "valid group labels", server=V)
            yield c.bad(fam, ptr_path(W(0, "rayStartParams", "num-cpus")), ("GroupResourcesExclusive",),
                        chain(setter(W(0, "resources"), {"CPU": "1"}), setter(W(0, "rayStartParams", "num-cpus"), "1")),
                        "num-cpus in rayStartParams and a group resources map", server=S)
            yield c.ok(fam, chain(setter(W(0, "resources"), {"CPU": "1"}),
                                  *[deleter(W(0, "rayStartParams", k)) for k in ("num-cpus", "num-gpus", "memory",
                                                                                  "resources")]),
                       "group resources map alone", server=V)
            yield c.bad(fam, ptr_path(W(0, "idleTimeoutSeconds")), ("IdleTimeoutSeconds",),
                        chain(setter(W(0, "idleTimeoutSeconds"), 60), deleter(cl.p("autoscalerOptions", "version"))),
                        "per-group idleTimeoutSeconds without autoscaler v2", server=S)
            yield c.bad(fam, ptr_path(W(0, "idleTimeoutSeconds")), ("IdleTimeoutSeconds",),
                        chain(setter(W(0, "idleTimeoutSeconds"), -5),
                              setter(cl.p("autoscalerOptions", "version"), "v2")),
                        "negative per-group idleTimeoutSeconds", server=S)
            yield c.ok(fam, chain(setter(W(0, "idleTimeoutSeconds"), 60),
                                  setter(cl.p("autoscalerOptions", "version"), "v2")),
                       "per-group idleTimeoutSeconds with autoscalerOptions.version v2", server=V)
            yield c.bad(fam, ptr_path(W(0, "priority")), ("WorkerGroupPriority",),
                        chain(setter(W(0, "priority"), 5), setter(cl.p("rayVersion"), "2.52.0")),
                        "group priority with rayVersion 2.52.0", server=S)
            yield c.ok(fam, chain(setter(W(0, "priority"), 5), setter(cl.p("rayVersion"), "2.56.0"),
                                  setter(cl.p("autoscalerOptions", "version"), "v2")),
                       "group priority with rayVersion 2.56.0 and autoscaler v2", server=V)
            yield c.bad(fam, ptr_path(W(0, "groupName")), ("GroupNameLabelValue",),
                        setter(W(0, "groupName"), "gpu workers"), "group name with a space", server=S)
            yield c.bad(fam, ptr_path(W(0, "groupName")), ("GroupNameLabelValue",),
                        setter(W(0, "groupName"), "g" * 64), "group name of 64 characters", server=S)
            if not owner_q and not declared_podsets:
                yield c.ok(fam, setter(W(0, "groupName"), "GPU.Workers"),
                           "group name that is a label value but no DNS-1123 label",
                           warn=(ptr_path(W(0, "groupName")), "GroupNameDNS1123"), server=V)
            if not declared_podsets and not cl.wrapped:
                yield c.ok(fam, chain(setter(W(0, "replicas"), g0.get("maxReplicas", 5) + 3)),
                           "replicas above maxReplicas (KubeRay clamps it)",
                           warn=(ptr_path(W(0, "replicas")), "ReplicasWithinBounds"), server=V)
            yield c.bad(fam, ptr_path(W(0, "suspend")), ("WorkerGroupSuspend",),
                        chain(setter(cl.p("enableInTreeAutoscaling"), True), setter(W(0, "suspend"), True)),
                        "suspended worker group with autoscaling", server=S)
            yield c.bad(fam, ptr_path(W(0, "groupName")), ("NetworkPolicyGroupName",),
                        chain(setter(cl.p("networkPolicy"), {"mode": "DenyAll"}),
                              setter(W(0, "groupName"), "gpu.workers")),
                        "networkPolicy with a group name that is no DNS-1123 label", server=S)
            yield c.bad(fam, ptr_path(W(0, "template", "spec", "restartPolicy")), ("AutoscalerV2RestartPolicy",),
                        chain(setter(cl.p("enableInTreeAutoscaling"), True),
                              setter(cl.p("autoscalerOptions", "version"), "v2"),
                              setter(W(0, "template", "spec", "restartPolicy"), "Always")),
                        "autoscaler v2 with a worker restartPolicy Always", server=S)
        # head
        yield c.bad(fam, ptr_path(H("template", "spec", "containers")), ("ContainersRequired",),
                    setter(H("template", "spec", "containers"), []), "head template without containers", server=S)
        yield c.bad(fam, ptr_path(H("rayStartParams", "labels")), ("RayStartParamsLabels",),
                    setter(H("rayStartParams", "labels"), "tier=gold"), "labels in rayStartParams", server=S)
        # Ray scripts.py `start` (ray_start_rules.cpp): the flags KubeRay builds from rayStartParams
        RS = lambda *r: H("rayStartParams", *r)  # noqa: E731
        for key, value, note in (("object-store-memory", "1.5e9", "an integer option given 1.5e9"),
                                 ("dashboard-port", "dashboard", "a port given a word"),
                                 ("block", "yes", "a flag given a value"),
                                 ("num-cpu", "4", "an option ray start does not have (num-cpu)"),
                                 ("log-style", "json", "log-style outside auto/record/pretty"),
                                 ("include-dashboard", "maybe", "a boolean option given maybe"),
                                 ("metrics-export-port", "true", "\"true\" on an integer option (passed bare)")):
            yield c.bad(fam, ptr_path(RS(key)), ("RayStart",), setter(RS(key), value), "rayStartParams: " + note,
                        server=S)
        # the kubelet's image reference parse (kubelet_image_rules.cpp): InvalidImageName once the Pods exist
        late = srv(cl.wrapped, NOT_JUDGED_LATE)
        for image, note in (("rayproject/Ray:2.46.0", "an image with an upper-case repository name"),
                            ("rayproject/ray:2.46.0:latest", "an image with two tags"),
                            ("rayproject/ray@sha256:abc", "an image with a short digest")):
            yield c.bad(fam, ptr_path(hc + ("image",)), ("ParseNormalizedNamed",), setter(hc + ("image",), image),
                        "head " + note, server=late)
        for image, note in (("localhost:5000/team/ray:2.46.0", "an image from a registry with a port"),
                            ("Registry.Example.com/ray", "an image whose upper-case first component is a registry")):
            yield c.ok(fam, setter(hc + ("image",), image), "head " + note, server=V)
        for key, value, note in (("object-store-memory", "1_000_000_000", "an integer with underscores"),
                                 ("include-dashboard", "false", "include-dashboard false (kept as a value)"),
                                 ("disable-usage-stats", "true", "a flag set with true"),
                                 ("dashboard-port", "$DASHBOARD_PORT", "a value the shell expands")):
            yield c.ok(fam, setter(RS(key), value), "rayStartParams: " + note, server=V)
        if groups:
            yield c.bad(fam, ptr_path(W(0, "rayStartParams", "num-gpus")), ("RayStart", "GroupResourcesExclusive"),
                        setter(W(0, "rayStartParams", "num-gpus"), "0.5"), "rayStartParams: half a GPU", server=S)
        yield c.bad(fam, ptr_path(cl.p("autoscalerOptions", "idleTimeoutSeconds")), ("IdleTimeoutSeconds",),
                    setter(cl.p("autoscalerOptions", "idleTimeoutSeconds"), -1), "negative idleTimeoutSeconds",
                    server=S)
        # GCS fault tolerance
        ft = cl.p("gcsFaultToleranceOptions")
        has_ft = isinstance(get_at(doc, ft), dict)
        ann = cl.owner("metadata", "annotations")
        ftopts = get_at(doc, ft) if has_ft else {"redisAddress": "redis:6379"}
        yield c.bad(fam, ptr_path(ann + ("ray.io/ft-enabled",)), ("GcsFTAnnotationConflict",),
                    chain(setter(ft, ftopts), setter(ann + ("ray.io/ft-enabled",), "true")),
                    "ray.io/ft-enabled annotation together with gcsFaultToleranceOptions", server=S)
        if not has_ft:
            yield c.bad(fam, ptr_path(hc + ("env", len(get_at(doc, hc + ("env",)) or []))), ("RedisAddressNeedsGcsFT",),
                        add_env(doc, hc, [{"name": "RAY_REDIS_ADDRESS", "value": "redis:6379"}]),
                        "RAY_REDIS_ADDRESS without fault tolerance", server=S)
            yield c.ok(fam, chain(add_env(doc, hc, [{"name": "RAY_REDIS_ADDRESS", "value": "redis:6379"}]),
                                  setter(ann + ("ray.io/ft-enabled",), "true")),
                       "RAY_REDIS_ADDRESS with the ray.io/ft-enabled annotation", server=V)
        yield c.bad(fam, ptr_path(H("rayStartParams", "redis-password")), ("GcsFTForbiddenSetting",),
                    chain(setter(ft, ftopts), setter(H("rayStartParams", "redis-password"), "secret")),
                    "rayStartParams redis-password with gcsFaultToleranceOptions", server=S)
        yield c.bad(fam, ptr_path(ann + ("ray.io/external-storage-namespace",)), ("GcsFTForbiddenSetting",),
                    chain(setter(ft, ftopts), setter(ann + ("ray.io/external-storage-namespace",), "ns")),
                    "external-storage-namespace annotation with gcsFaultToleranceOptions", server=S)
        yield c.bad(fam, ptr_path(H("rayStartParams", "redis-username")), ("RedisUsername",),
                    setter(H("rayStartParams", "redis-username"), "ray"), "rayStartParams redis-username", server=S)
        yield c.bad(fam, ptr_path(hc + ("env", len(get_at(doc, hc + ("env",)) or []))), ("RedisUsername",),
                    add_env(doc, hc, [{"name": "REDIS_USERNAME", "value": "ray"}]), "env REDIS_USERNAME", server=S)
        yield c.bad(fam, ptr_path(ft + ("redisAddress",)), ("GcsFTBackend",),
                    setter(ft, {"backend": "rocksdb", "redisAddress": "redis:6379"}),
                    "rocksdb backend with a redisAddress", server=S)
        yield c.bad(fam, ptr_path(ft + ("storage",)), ("GcsFTBackend",),
                    setter(ft, {"redisAddress": "redis:6379", "storage": {}}), "storage with the redis backend",
                    server=S)
        yield c.bad(fam, ptr_path(ft + ("backend",)), ("GcsFTBackend",), setter(ft, {"backend": "rocksdb"}),
                    "rocksdb backend (its feature gate is off by default)", server=S)
        yield c.bad(fam, ptr_path(ft + ("storage", "size")), ("GcsFTBackend",),
                    setter(ft, {"backend": "rocksdb", "storage": {"claimName": "gcs", "size": "1Gi"}}),
                    "rocksdb storage with both claimName and size", server=S)
        # the head Service KubeRay creates (kubernetes ValidateService)
        yield c.bad(fam, ptr_path(H("serviceType")), ("HeadServiceType",), setter(H("serviceType"), "Loadbalancer"),
                    "head serviceType Loadbalancer (a typo)", server=S)
        yield c.bad(fam, ptr_path(H("serviceType")), ("HeadServiceType",),
                    chain(setter(H("serviceType"), "ExternalName"), deleter(H("headService"))),
                    "head serviceType ExternalName without headService.spec.externalName", server=S)
        yield c.ok(fam, setter(H("serviceType"), "LoadBalancer"), "head serviceType LoadBalancer", server=V)
        # autoscaler
        yield c.bad(fam, ptr_path(hc + ("env", len(get_at(doc, hc + ("env",)) or []))), ("AutoscalerV2Env",),
                    chain(setter(cl.p("enableInTreeAutoscaling"), False),
                          add_env(doc, hc, [{"name": "RAY_enable_autoscaler_v2", "value": "1"}])),
                    "RAY_enable_autoscaler_v2=1 without autoscaling", server=S)
        yield c.bad(fam, ptr_path(cl.p("autoscalerOptions", "version")), ("AutoscalerVersionConflict",),
                    chain(setter(cl.p("enableInTreeAutoscaling"), True),
                          setter(cl.p("autoscalerOptions", "version"), "v2"),
                          add_env(doc, hc, [{"name": "RAY_enable_autoscaler_v2", "value": "1"}])),
                    "autoscalerOptions.version and RAY_enable_autoscaler_v2 together", server=S)
        yield c.bad(fam, ptr_path(H("template", "spec", "restartPolicy")), ("AutoscalerV2RestartPolicy",),
                    chain(setter(cl.p("enableInTreeAutoscaling"), True),
                          setter(cl.p("autoscalerOptions", "version"), "v2"),
                          setter(H("template", "spec", "restartPolicy"), "OnFailure")),
                    "autoscaler v2 with a head restartPolicy OnFailure", server=S)
        yield c.bad(fam, ptr_path(cl.p("autoscalerOptions", "env")) + "[0]", ("AutoscalerEnvReserved",),
                    setter(cl.p("autoscalerOptions", "env"),
                           [{"name": "KUBERAY_GEN_AUTOSCALER_START_CMD", "value": "x"}]),
                    "reserved autoscaler env var", server=S)
        # auth
        yield c.bad(fam, ptr_path(cl.p("authOptions", "mode")), ("AuthRayVersion",),
                    chain(setter(cl.p("authOptions"), {"mode": "token"}), setter(cl.p("rayVersion"), "2.46.0")),
                    "token authentication with rayVersion 2.46.0", server=S)
        yield c.ok(fam, chain(setter(cl.p("authOptions"), {"mode": "token"}), setter(cl.p("rayVersion"), "2.52.0")),
                   "token authentication with rayVersion 2.52.0", server=V)
        yield c.bad(fam, ptr_path(cl.p("authOptions", "enableK8sTokenAuth")), ("K8sTokenAuth",),
                    chain(setter(cl.p("authOptions"), {"mode": "token", "enableK8sTokenAuth": True}),
                          setter(cl.p("rayVersion"), "2.52.0")),
                    "enableK8sTokenAuth with rayVersion 2.52.0" + (" (RayJob)" if cl.from_rayjob else ""), server=S)
        if not cl.from_rayjob:
            yield c.ok(fam, chain(setter(cl.p("authOptions"), {"mode": "token", "enableK8sTokenAuth": True}),
                                  setter(cl.p("rayVersion"), "2.55.0")),
                       "enableK8sTokenAuth with rayVersion 2.55.0", server=V)
        # feature gates, TLS, upgrade strategy, managedBy
        for field, value in (("networkPolicy", {"mode": "DenyAll"}), ("tlsOptions", {}),
                             ("historyServerOptions", {})):
            yield c.bad(fam, ptr_path(cl.p(field)), ("FeatureGate",), setter(cl.p(field), value),
                        "%s (behind a feature gate that is off by default)" % field, server=S)
        env = get_at(doc, hc + ("env",)) or []
        yield c.bad(fam, ptr_path(hc + ("env",)) + "[%d]" % len(env), ("TLSEnv",),
                    chain(setter(cl.p("tlsOptions"), {}), add_env(doc, hc, [{"name": "RAY_USE_TLS", "value": "1"}])),
                    "RAY_USE_TLS env with tlsOptions", server=S)
        if cl.from_rayjob:
            yield c.bad(fam, ptr_path(cl.p("upgradeStrategy", "type")), ("UpgradeStrategyOwner",),
                        setter(cl.p("upgradeStrategy"), {"type": "Recreate"}), "upgradeStrategy on a RayJob's cluster",
                        server=S)
            yield c.ok(fam, setter(cl.p("upgradeStrategy"), {}),
                       "an upgradeStrategy without a type on a RayJob's cluster (KubeRay checks the type)", server=V)
        else:
            yield c.ok(fam, setter(cl.p("upgradeStrategy"), {"type": "Recreate"}), "upgradeStrategy on a RayCluster",
                       server=V)
        yield c.bad(fam, ptr_path(cl.p("managedBy")), ("ManagedBy",), setter(cl.p("managedBy"), "example.com/mine"),
                    "managedBy naming another controller", rule_stable=False, server=srv(cl.wrapped, NOT_JUDGED_CEL))
        yield c.ok(fam, setter(cl.p("managedBy"), "ray.io/kuberay-operator"), "managedBy ray.io/kuberay-operator",
                   server=V)
        # CodeFlare operator webhook: only where that operator runs (--profile odh)
        odh = srv(cl.wrapped, "CodeFlare operator webhook (not in the test control plane)")
        yield c.bad("codeflare-operator", ptr_path(H("enableIngress")), ("EnableIngress",),
                    setter(H("enableIngress"), True), "enableIngress true under the odh profile", server=odh,
                    profile="odh")
        yield c.ok("codeflare-operator", setter(H("enableIngress"), True), "enableIngress true on a vanilla cluster",
                   server=V)
        yield c.ok("codeflare-operator", setter(H("enableIngress"), False), "enableIngress false under odh",
                   server=odh, profile="odh")
        hmounts = H("template", "spec", "containers", 0, "volumeMounts")
        mounts = get_at(doc, hmounts) or []
        yield c.bad("codeflare-operator", ptr_path(hmounts + (len(mounts), "mountPath")), ("CodeFlareCertMounts",),
                    setter(hmounts, mounts + [{"name": "my-certs", "mountPath": "/home/ray/workspace/tls"}]),
                    "a mount at the path of the CodeFlare operator's server-cert mount (odh)", server=odh,
                    profile="odh")
        hvols = H("template", "spec", "volumes")
        yield c.ok("codeflare-operator", chain(setter(hmounts, mounts + [{"name": "my-certs", "mountPath": "/certs"}]),
                                               setter(hvols, (get_at(doc, hvols) or []) +
                                                      [{"name": "my-certs", "emptyDir": {}}])),
                   "a mount elsewhere (odh)", server=odh, profile="odh")
        yield c.ok("codeflare-operator", setter(H("template", "spec", "serviceAccountName"), "ray-sa"),
                   "a head service account the CodeFlare operator replaces (odh)",
                   warn=(ptr_path(H("template", "spec", "serviceAccountName")), "CodeFlareOAuthServiceAccount"),
                   server=odh, profile="odh")


@rule
def kuberay_rayjob(c):
    doc = c.doc
    if kind_of(doc) != ("ray.io/v1", "RayJob"):
        return
    S = NOT_JUDGED_CTRL
    fam = "kuberay"
    spec = doc.get("spec") or {}
    q = queued(doc)
    selector_only = "rayClusterSpec" not in spec
    yield c.bad(fam, "spec.deletionStrategy", ("DeletionStrategyShape",),
                setter(("spec", "deletionStrategy"), {"onSuccess": {"policy": "DeleteCluster"}}),
                "onSuccess without onFailure", rule_stable=False, server=NOT_JUDGED_CEL)
    yield c.bad(fam, "spec.deletionStrategy", ("DeletionStrategyShape",),
                chain(setter(("spec", "shutdownAfterJobFinishes"), False),
                      setter(("spec", "deletionStrategy"), {
                          "onSuccess": {"policy": "DeleteCluster"}, "onFailure": {"policy": "DeleteNone"},
                          "deletionRules": [{"policy": "DeleteCluster", "condition": {"jobStatus": "SUCCEEDED"}}]})),
                "legacy policies and deletionRules together", rule_stable=False, server=NOT_JUDGED_CEL)
    yield c.bad(fam, "spec.deletionStrategy.deletionRules[0].condition", ("DeletionStrategyShape",),
                chain(setter(("spec", "shutdownAfterJobFinishes"), False),
                      setter(("spec", "deletionStrategy"), {"deletionRules": [
                          {"policy": "DeleteCluster", "condition": {"jobStatus": "SUCCEEDED",
                                                                   "jobDeploymentStatus": "Failed"}}]})),
                "deletion condition with both jobStatus and jobDeploymentStatus", rule_stable=False,
                server=NOT_JUDGED_CEL)
    keep_cluster = (setter(("spec", "shutdownAfterJobFinishes"), False),
                    deleter(("spec", "ttlSecondsAfterFinished")))

    def rules(*entries):
        return setter(("spec", "deletionStrategy"), {"deletionRules": [deletion_rule(*e) for e in entries]})

    if not q and not selector_only:
        yield c.ok(fam, chain(*keep_cluster,
                              rules(("DeleteCluster", "SUCCEEDED", 10), ("DeleteSelf", "SUCCEEDED", 20))),
                   "two deletion rules with growing TTLs", server=None)
        yield c.bad(fam, "spec.deletionStrategy.deletionRules", ("DeletionPolicies",),
                    chain(*keep_cluster, rules(("DeleteCluster", "SUCCEEDED", 30), ("DeleteSelf", "SUCCEEDED", 20))),
                    "DeleteSelf TTL below DeleteCluster TTL", server=S)
        yield c.bad(fam, "spec.deletionStrategy.deletionRules[1]", ("DeletionPolicies",),
                    chain(*keep_cluster, rules(("DeleteCluster", "FAILED", None), ("DeleteCluster", "FAILED", 5))),
                    "two rules for the same policy and status", server=S)
    if not q and not selector_only:
        yield c.bad(fam, "spec.deletionStrategy.deletionRules", ("DeletionPolicies",),
                    chain(*keep_cluster, setter(("spec", "deletionStrategy"), {"deletionRules": []})),
                    "an empty deletionRules list (CEL takes it, KubeRay does not)", server=S)
    yield c.bad(fam, "spec.shutdownAfterJobFinishes", ("DeletionPolicies",),
                chain(setter(("spec", "shutdownAfterJobFinishes"), True),
                      setter(("spec", "deletionStrategy"), {"deletionRules": [
                          {"policy": "DeleteCluster", "condition": {"jobStatus": "SUCCEEDED"}}]})),
                "deletionRules with shutdownAfterJobFinishes", server=S)
    yield c.bad(fam, "spec.suspend", ("SuspendNeedsShutdown",),
                chain(setter(("spec", "suspend"), True), setter(("spec", "shutdownAfterJobFinishes"), False),
                      deleter(("spec", "ttlSecondsAfterFinished"))), "suspend without shutdownAfterJobFinishes",
                server=S)
    yield c.bad(fam, "spec.ttlSecondsAfterFinished", ("TTLSecondsAfterFinished",),
                setter(("spec", "ttlSecondsAfterFinished"), -1), "negative ttlSecondsAfterFinished", server=S)
    if not q:
        yield c.bad(fam, "spec.ttlSecondsAfterFinished", ("TTLSecondsAfterFinished",),
                    chain(setter(("spec", "ttlSecondsAfterFinished"), 60),
                          setter(("spec", "shutdownAfterJobFinishes"), False)),
                    "ttlSecondsAfterFinished without shutdownAfterJobFinishes", server=S)
    if not selector_only:
        yield c.bad(fam, "spec.rayClusterSpec", ("ClusterSource",), deleter(("spec", "rayClusterSpec")),
                    "neither rayClusterSpec nor clusterSelector", server=S)
        yield c.bad(fam, "spec.clusterSelector[ray.io/cluster]", ("ClusterSelector",),
                    chain(deleter(("spec", "rayClusterSpec")), setter(("spec", "clusterSelector"), {"app": "ray"})),
                    "clusterSelector without ray.io/cluster", server=S)
    else:
        yield c.bad(fam, "spec.suspend", ("ClusterSelector",),
                    chain(setter(("spec", "suspend"), True), setter(("spec", "shutdownAfterJobFinishes"), True)),
                    "suspend with clusterSelector", server=S)
        yield c.bad(fam, "spec.submissionMode", ("ClusterSelector",), setter(("spec", "submissionMode"), "SidecarMode"),
                    "SidecarMode with clusterSelector", server=S)
        yield c.bad(fam, "spec.backoffLimit", ("ClusterSelector",), setter(("spec", "backoffLimit"), 2),
                    "retries with clusterSelector", server=S)
        yield c.bad(fam, "spec.deletionStrategy.onSuccess.policy", ("DeletionPolicies",),
                    setter(("spec", "deletionStrategy"), {"onSuccess": {"policy": "DeleteCluster"},
                                                          "onFailure": {"policy": "DeleteNone"}}),
                    "DeleteCluster with clusterSelector", server=S)
    yield c.bad(fam, "spec.backoffLimit", ("InteractiveModeBackoff",),
                chain(setter(("spec", "submissionMode"), "InteractiveMode"), setter(("spec", "backoffLimit"), 3)),
                "InteractiveMode with retries", server=S)
    if not selector_only:
        yield c.bad(fam, "spec.submitterPodTemplate", ("SidecarMode",),
                    chain(setter(("spec", "submissionMode"), "SidecarMode"),
                          setter(("spec", "submitterPodTemplate"),
                                 {"spec": {"restartPolicy": "Never",
                                           "containers": [{"name": "s", "image": "busybox"}]}})),
                    "SidecarMode with a submitter pod template", server=S)
        yield c.bad(fam, "spec.rayClusterSpec.headGroupSpec.template.spec.restartPolicy", ("SidecarMode",),
                    chain(setter(("spec", "submissionMode"), "SidecarMode"),
                          setter(("spec", "rayClusterSpec", "headGroupSpec", "template", "spec", "restartPolicy"),
                                 "Always")), "SidecarMode with head restartPolicy Always", server=S)
        yield c.ok(fam, setter(("spec", "submissionMode"), "HTTPMode"), "HTTPMode", server=None)
    yield c.bad(fam, "spec.runtimeEnvYAML", ("RuntimeEnvYAML",), setter(("spec", "runtimeEnvYAML"), "pip: [a, b"),
                "runtimeEnvYAML that does not parse", server=S)
    yield c.bad(fam, "spec.runtimeEnvYAML", ("RuntimeEnvYAML",), setter(("spec", "runtimeEnvYAML"), "- a\n- b\n"),
                "runtimeEnvYAML that is a list", server=S)
    yield c.ok(fam, setter(("spec", "runtimeEnvYAML"), "env_vars:\n  A: \"1\"\n"), "runtimeEnvYAML map", server=None)
    yield c.bad(fam, "spec.activeDeadlineSeconds", ("JobDeadlines",), setter(("spec", "activeDeadlineSeconds"), 0),
                "activeDeadlineSeconds 0", server=S)
    yield c.bad(fam, "spec.backoffLimit", ("JobDeadlines",), setter(("spec", "backoffLimit"), -1),
                "negative backoffLimit", server=S)
    yield c.bad(fam, "spec.managedBy", ("ManagedBy",), setter(("spec", "managedBy"), "example.com/other"),
                "RayJob managedBy naming another controller", rule_stable=False, server=NOT_JUDGED_CEL)


# ---- AppWrapper (appwrapper_rules.cpp) ------------------------------------------------------------------------

@rule
def appwrapper_rules(c):
    doc = c.doc
    if not is_kind(doc, "AppWrapper"):
        return
    S = NOT_JUDGED_AW
    fam = "appwrapper"
    q = queued(doc)
    comps = get_at(doc, ("spec", "components")) or []
    if q:
        yield c.bad(fam, "metadata.name", ("AppWrapperName",), setter(("metadata", "name"), "team.job"),
                    "queued AppWrapper named with a dot", server=S)
        yield c.bad(fam, "metadata.name", ("AppWrapperName",), setter(("metadata", "name"), "w" * 62),
                    "queued AppWrapper name of 62 characters", server=S)
        yield c.ok(fam, setter(("metadata", "name"), "w" * 61), "queued AppWrapper name of 61 characters",
                   server=None)
        yield c.bad("kueue", "metadata.annotations[kueue.x-k8s.io/elastic-job]", ("ElasticJobKind",),
                    setter(("metadata", "annotations", "kueue.x-k8s.io/elastic-job"), "true"),
                    "elastic-job annotation on an AppWrapper", server=NOT_JUDGED_KUEUE)
    else:
        yield c.ok(fam, setter(("metadata", "name"), "team.job"), "unqueued AppWrapper named with a dot",
                   warn=("metadata.name", "AppWrapperName"), server=None)
        yield c.bad(fam, "metadata.name", ("AppWrapperName",), setter(("metadata", "name"), "w" * 64),
                    "AppWrapper name of 64 characters (the appwrapper label value)", server=S)
    yield c.ok(fam, setter(("metadata", "annotations", "workload.codeflare.dev.appwrapper/successTTLDuration"),
                           "1 day"),
               "behaviour annotation that is no duration",
               warn=("metadata.annotations[workload.codeflare.dev.appwrapper/successTTLDuration]",
                     "BehaviorAnnotations"),
               server=None)
    yield c.ok(fam, setter(("metadata", "annotations", "workload.codeflare.dev.appwrapper/retryLimit"), "three"),
               "retryLimit that is no integer",
               warn=("metadata.annotations[workload.codeflare.dev.appwrapper/retryLimit]", "BehaviorAnnotations"),
               server=None)
    yield c.ok(fam, setter(("metadata", "annotations", "workload.codeflare.dev.appwrapper/retryLimit"), "3"),
               "retryLimit 3", server=None)
    if not comps:
        return
    t0 = ("spec", "components", 0, "template")
    tmpl = get_at(doc, t0)
    if get_at(doc, ("metadata", "name")):
        pod_t = first_component_pod_template(tmpl)
        if pod_t is not None:
            lab = t0 + pod_t + ("metadata", "labels", "workload.codeflare.dev/appwrapper")
            yield c.bad(fam, ptr_path(t0 + pod_t + ("metadata", "labels")) + "[workload.codeflare.dev/appwrapper]",
                        ("AppWrapperLabelConflict",), setter(lab, "another-appwrapper"),
                        "pod template labelled for another AppWrapper", server=S)
            yield c.ok(fam, setter(lab, get_at(doc, ("metadata", "name"))),
                       "pod template labelled with its own AppWrapper's name", server=None)
    yield c.bad(fam, "spec.components[0].template", ("TemplateObject", "schema:type"),
                setter(t0, "apiVersion: v1"), "component template given as a string", server="judged")
    yield c.bad(fam, "spec.components[0].template", ("NestedAppWrapper",),
                setter(t0, {"apiVersion": doc["apiVersion"], "kind": "AppWrapper", "metadata": {"name": "inner"},
                            "spec": {"components": copy.deepcopy(comps)}}), "an AppWrapper inside an AppWrapper",
                server=S)
    ns = get_at(doc, ("metadata", "namespace"))
    if ns:
        yield c.bad(fam, "spec.components[0].template.metadata.namespace", ("ComponentNamespace",),
                    setter(t0 + ("metadata", "namespace"), ns + "-other"), "component in another namespace", server=S)
        yield c.ok(fam, setter(t0 + ("metadata", "namespace"), ns), "component in the AppWrapper's namespace",
                   server=None)
    else:
        yield c.ok(fam, setter(t0 + ("metadata", "namespace"), "other"),
                   "component namespace while the AppWrapper names none",
                   warn=("spec.components[0].template.metadata.namespace", "ComponentNamespace"), server=None)
    if isinstance(tmpl, dict) and get_at(tmpl, ("metadata", "name")):
        yield c.ok(fam, chain(deleter(t0 + ("metadata", "name")), setter(t0 + ("metadata", "generateName"), "part-")),
                   "component with generateName only",
                   warn=("spec.components[0].template.metadata.name", "ComponentName"), server=None)
    from schema_mutations import wrapped_pod_spec_ptrs
    inferred = ["template" + ("." + ptr_path(p[:-1]) if p[:-1] else "")
                for p in wrapped_pod_spec_ptrs(tmpl if isinstance(tmpl, dict) else {})]
    declared = get_at(doc, ("spec", "components", 0, "podSets"))
    ps = ("spec", "components", 0, "podSets")
    yield c.bad(fam, "spec.components[0].podSets[%d].path" % len(declared or []), ("PodSetPath",),
                setter(ps, (declared or []) + [{"path": "template.spec.missing.template", "replicas": 1}]),
                "PodSet path that leads nowhere", server=S)
    yield c.bad(fam, "spec.components[0].podSets[%d].path" % len(declared or []), ("PodSetPath",),
                setter(ps, (declared or []) + [{"path": "", "replicas": 1}]), "empty PodSet path", server=S)
    if declared:
        yield c.bad(fam, "spec.components[0].podSets[%d].path" % len(declared), ("PodSetsMatchInferred",),
                    setter(ps, declared + [copy.deepcopy(declared[0])]), "PodSet declared twice", server=S)
        yield c.bad(fam, "spec.components[0].podSets[0].replicas", ("PodSetsMatchInferred",),
                    setter(ps + (0, "replicas"), (declared[0].get("replicas") or 1) + 4),
                    "declared replicas differ from the template's", server=S)
        yield c.ok(fam, deleter(ps), "declared PodSets removed (inferred instead)", server=None)
    elif inferred:
        yield c.bad(fam, "spec.components[0].podSets[0].replicas", ("PodSetsMatchInferred",),
                    setter(ps, [{"path": p, "replicas": 99} for p in inferred]),
                    "declared PodSets with replicas that differ from the template's", server=S)
        if len(inferred) > 1:
            yield c.bad(fam, "spec.components[0].podSets", ("PodSetsMatchInferred",),
                        setter(ps, [{"path": inferred[0], "replicas": 1}]),
                        "fewer PodSets declared than the template has", server=S)
    # PodSetCount: no pod templates at all / more than 8
    yield c.bad(fam, "spec.components", ("PodSetCount",), setter(("spec", "components"), []),
                "no components", server=S)
    kind = tmpl.get("kind") if isinstance(tmpl, dict) else None
    if kind == "RayCluster" and not declared:
        groups = get_at(tmpl, ("spec", "workerGroupSpecs")) or []
        if groups:
            more = []
            for i in range(8):
                g = copy.deepcopy(groups[0])
                g["groupName"] = "group-%d" % i
                more.append(g)
            yield c.bad(fam, "spec.components", ("PodSetCount",),
                        setter(t0 + ("spec", "workerGroupSpecs"), more), "head plus 8 worker groups: 9 PodSets",
                        server=S)
            wp = t0 + ("spec", "workerGroupSpecs", 0)
            yield c.bad(fam, ptr_path(wp + ("replicas",)), ("InferredReplicas", "schema:type"),
                        setter(wp + ("replicas",), "2"), "wrapped worker replicas given as a string", server=S)
            yield c.ok(fam, deleter(wp + ("replicas",)), "wrapped worker group without replicas",
                       warn=(ptr_path(wp + ("replicas",)), "AppWrapperRayReplicas"), server=None)
            yield c.ok(fam, setter(wp + ("numOfHosts",), 2), "wrapped worker group with numOfHosts 2",
                       warn=(ptr_path(wp + ("numOfHosts",)), "AppWrapperRayReplicas"), server=None)
    if kind not in ("RayCluster", "RayJob") and isinstance(tmpl, dict):
        yield c.bad(fam, "spec.components", ("PodSetCount",),
                    setter(("spec", "components"), [copy.deepcopy(comps[0]) for _ in range(9)]),
                    "nine components of one pod template each", server=S)


# ---- Kueue (kueue_rules.cpp) ----------------------------------------------------------------------------------

@rule
def kueue_job_rules(c):
    doc = c.doc
    if not is_kind(doc, "RayCluster", "RayJob", "AppWrapper"):
        return
    S = NOT_JUDGED_KUEUE
    fam = "kueue"
    L = lambda k: ("metadata", "labels", k)  # noqa: E731
    yield c.bad(fam, "metadata.labels[%s]" % QUEUE, ("QueueNameLabel",), setter(L(QUEUE), "Team_Queue"),
                "queue name that is no DNS-1123 subdomain", server=S)
    yield c.bad(fam, "metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]", ("MaxExecTimeSeconds",),
                setter(L("kueue.x-k8s.io/max-exec-time-seconds"), "0"), "max-exec-time-seconds 0", server=S)
    yield c.bad(fam, "metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]", ("MaxExecTimeSeconds",),
                setter(L("kueue.x-k8s.io/max-exec-time-seconds"), "1h"), "max-exec-time-seconds 1h", server=S)
    yield c.ok(fam, setter(L("kueue.x-k8s.io/max-exec-time-seconds"), "3600"), "max-exec-time-seconds 3600",
               server=None)
    yield c.bad(fam, "metadata.labels[kueue.x-k8s.io/prebuilt-workload-name]", ("PrebuiltWorkloadName",),
                setter(L("kueue.x-k8s.io/prebuilt-workload-name"), "Prebuilt_WL"), "prebuilt workload name with an "
                "underscore", server=S)
    A = lambda k: ("metadata", "annotations", k)  # noqa: E731
    yield c.bad(fam, "metadata.annotations[kueue.x-k8s.io/prebuilt-workload-name]", ("PrebuiltWorkloadName",),
                setter(A("kueue.x-k8s.io/prebuilt-workload-name"), "Prebuilt_WL"), "prebuilt workload annotation "
                "with an underscore (the annotation takes precedence)", server=S)
    gate = "kueue.x-k8s.io/admission-gated-by"
    for value, note in (("example.com/check,example.com/check", "a gate twice"), ("my-gate", "a gate without a "
                        "domain"), ("example.com/a,,example.com/b", "an empty gate")):
        yield c.bad(fam, "metadata.annotations[%s]" % gate, ("AdmissionGatedBy",), setter(A(gate), value),
                    "admission-gated-by: " + note, server=S)
    yield c.ok(fam, setter(A(gate), "example.com/quota-check, example.com/budget"),
               "admission-gated-by with two domain-prefixed gates", server=None)


@rule
def kueue_ray_rules(c):
    doc = c.doc
    S = NOT_JUDGED_KUEUE
    fam = "kueue"
    for cl in cluster_locs(doc):
        if cl.wrapped:
            if queued(doc) and not queued(get_at(doc, cl.owner_ptr)) and not get_at(doc, ("spec", "components", 0,
                                                                                           "podSets")):
                yield c.ok(fam, setter(cl.p("enableInTreeAutoscaling"), True),
                           "autoscaling inside a queued AppWrapper (quota fixed at admission)",
                           warn=(cl.path("enableInTreeAutoscaling"), "KueueAutoscaling"), server=None)
            continue
        q = queued(doc)
        groups = worker_groups(doc, cl)
        k8s_job_mode = cl.from_rayjob and (get_at(doc, ("spec", "submissionMode")) or "K8sJobMode") == "K8sJobMode"
        # Queued: an autoscaling base stops autoscaling (Kueue admits that only as an elastic job), unless a
        # mutation turns it on again after this.
        with_q = chain(
            setter(("metadata", "labels", QUEUE), get_at(doc, ("metadata", "labels", QUEUE)) or "user-queue"),
            (lambda d: set_at(d, cl.p("enableInTreeAutoscaling"), False)) if get_at(doc, cl.p(
                "enableInTreeAutoscaling")) else (lambda d: None))
        # A queued RayJob must delete its cluster when done (shutdownAfterJobFinishes), which excludes the
        # deletionStrategy of the samples that have one (DeletionPolicies).
        shutdown = chain(setter(("spec", "shutdownAfterJobFinishes"), True),
                         deleter(("spec", "deletionStrategy"))) if cl.from_rayjob else (lambda d: None)
        yield c.bad(fam, cl.path("enableInTreeAutoscaling"), ("KueueAutoscaling",),
                    chain(with_q, shutdown, setter(cl.p("enableInTreeAutoscaling"), True),
                          deleter(("metadata", "annotations", "kueue.x-k8s.io/elastic-job"))),
                    "Kueue-managed cluster with autoscaling", server=S)
        yield c.ok(fam, chain(with_q, shutdown, setter(cl.p("enableInTreeAutoscaling"), True),
                              setter(("metadata", "annotations", "kueue.x-k8s.io/elastic-job"), "true"),
                              deleter(cl.p("managedBy"))),  # (MultiKueue refuses it: ElasticMultiKueueAutoscaling)
                   "Kueue-managed elastic cluster with autoscaling", server=None)
        if groups:
            def many(n):
                out = []
                for i in range(n):
                    g = copy.deepcopy(groups[0])
                    g["groupName"] = "group-%d" % i
                    out.append(g)
                return out
            limit = c.base.max_pod_sets - 1 - (1 if k8s_job_mode else 0)
            yield c.bad(fam, cl.path("workerGroupSpecs"), ("MaxPodSets",),
                        chain(with_q, shutdown, setter(cl.p("workerGroupSpecs"), many(limit + 1))),
                        "Kueue-managed: %d worker groups (MaxPodSets %d%s)" % (
                            limit + 1, c.base.max_pod_sets, ", plus the submitter" if k8s_job_mode else ""),
                        server=S)
            yield c.ok(fam, chain(with_q, shutdown, setter(cl.p("workerGroupSpecs"), many(limit))),
                       "Kueue-managed: %d worker groups" % limit, server=None)
            yield c.bad(fam, ptr_path(cl.p("workerGroupSpecs", 0, "groupName")), ("ReservedHeadGroupName",),
                        chain(with_q, shutdown, setter(cl.p("workerGroupSpecs", 0, "groupName"), "head")),
                        "Kueue-managed worker group named head", server=S)
            if not q:
                yield c.ok(fam, setter(cl.p("workerGroupSpecs", 0, "groupName"), "head"),
                           "worker group named head without Kueue",
                           warn=(ptr_path(cl.p("workerGroupSpecs", 0, "groupName")), "ReservedHeadGroupName"),
                           server=None)
            two = many(2)
            two[0]["groupName"], two[1]["groupName"] = "Workers", "workers"
            yield c.bad(fam, ptr_path(cl.p("workerGroupSpecs", 1, "groupName")), ("PodSetNames",),
                        chain(with_q, shutdown, setter(cl.p("workerGroupSpecs"), two)),
                        "Kueue-managed groups Workers and workers (one PodSet name)", server=S)
            yield c.bad(fam, ptr_path(cl.p("workerGroupSpecs", 0, "groupName")), ("PodSetNames",),
                        chain(with_q, shutdown, setter(cl.p("workerGroupSpecs", 0, "groupName"), "gpu_workers")),
                        "Kueue-managed group name that is no DNS-1123 label", server=S)
            if k8s_job_mode:
                yield c.bad(fam, ptr_path(cl.p("workerGroupSpecs", 0, "groupName")), ("PodSetNames",),
                            chain(with_q, shutdown, setter(cl.p("workerGroupSpecs", 0, "groupName"), "submitter")),
                            "Kueue-managed K8sJobMode group named submitter", server=S)
        if not cl.from_rayjob:
            yield c.bad(fam, cl.path("enableInTreeAutoscaling"), ("ElasticMultiKueueAutoscaling",),
                        chain(with_q, setter(cl.p("enableInTreeAutoscaling"), True),
                              setter(cl.p("managedBy"), "kueue.x-k8s.io/multikueue"),
                              setter(("metadata", "annotations", "kueue.x-k8s.io/elastic-job"), "true")),
                        "MultiKueue-managed elastic cluster with autoscaling", server=S)
        res0 = cl.p("headGroupSpec", "template", "spec", "containers", 0, "resources")
        yield c.bad(fam, ptr_path(res0 + ("requests", "pods")), ("PodsResourceReserved",),
                    chain(with_q, shutdown, setter(res0 + ("requests", "pods"), "1")),
                    "Kueue-managed job whose head container requests the resource pods", server=S)
        hann = cl.p("headGroupSpec", "template", "metadata", "annotations")
        tas = "kueue.x-k8s.io/podset-"
        C = tas + "slice-required-topology-constraints"
        for extra, at, note in (
                ({tas + "required-topology": "rack", tas + "preferred-topology": "block"}, ptr_path(hann),
                 "two topology annotations"),
                ({tas + "required-topology": "bad key!"}, ptr_path(hann + (tas + "required-topology",)),
                 "a topology that is no label"),
                ({tas + "slice-required-topology": "rack"}, ptr_path(hann + (tas + "slice-size",)),
                 "slice topology without a size"),
                ({tas + "slice-required-topology": "rack", tas + "slice-size": "2"},
                 ptr_path(hann + (tas + "slice-size",)), "a slice of 2 Pods for the single head Pod"),
                ({tas + "unconstrained-topology": "yes"}, ptr_path(hann + (tas + "unconstrained-topology",)),
                 "unconstrained not a bool"),
                ({tas + "group-name": "7", tas + "required-topology": "rack"},
                 ptr_path(hann + (tas + "group-name",)), "a group name that is a number"),
                ({C: '[{"topology": "rack", "size": 0}]'}, ptr_path(hann + (C,)) + "[0].size",
                 "a multi-layer slice of size 0")):
            yield c.bad(fam, at, ("TASPodSetRequest",), setter(hann, extra), "TAS annotations: " + note, server=S)
        yield c.ok(fam, setter(hann, {tas + "required-topology": "cloud.example.com/rack"}),
                   "TAS: a required topology on the head", server=None)
        if cl.from_rayjob:
            yield c.bad(fam, "spec.shutdownAfterJobFinishes", ("KueueShutdownAfterJobFinishes",),
                        chain(with_q, setter(("spec", "shutdownAfterJobFinishes"), False),
                              deleter(("spec", "ttlSecondsAfterFinished"))),
                        "Kueue-managed RayJob that keeps its cluster", server=S)
            yield c.bad(fam, "spec.clusterSelector", ("KueueClusterSelector",),
                        chain(with_q, shutdown, setter(("spec", "clusterSelector"), {"ray.io/cluster": "other"})),
                        "Kueue-managed RayJob with clusterSelector and rayClusterSpec", server=S)
            # (a RayJob on a selected cluster cannot run its submitter as a sidecar of a head it does not create, retry
            # with backoffLimit, or delete that cluster: ClusterSelector, DeletionPolicies)
            if not q and get_at(doc, ("spec", "submissionMode")) != "SidecarMode":
                yield c.ok(fam, chain(setter(("spec", "clusterSelector"), {"ray.io/cluster": "other"}),
                                      deleter(("spec", "deletionStrategy")), deleter(("spec", "backoffLimit"))),
                           "clusterSelector and rayClusterSpec without Kueue",
                           warn=("spec.clusterSelector", "KueueClusterSelector"), server=None)


@rule
def kueue_clusterqueue(c):
    doc = c.doc
    if not is_kind(doc, "ClusterQueue"):
        return
    S = NOT_JUDGED_KUEUE
    fam = "kueue"
    rg = ("spec", "resourceGroups")
    groups = get_at(doc, rg) or []
    if not groups:
        return
    v2 = doc["apiVersion"].endswith("v1beta2")
    cohort_field = "cohortName" if v2 else "cohort"
    g0 = groups[0]
    res = rg + (0, "flavors", 0, "resources")
    resources = get_at(doc, res) or []
    R = lambda *r: res + (0,) + r  # noqa: E731
    rp = lambda *r: ptr_path(R(*r))  # noqa: E731
    if len(resources) >= 2:
        yield c.bad(fam, ptr_path(res), ("FlavorResourceCount",), setter(res, resources[:-1]),
                    "flavor lists fewer resources than the group covers", rule_stable=False, server=NOT_JUDGED_CEL)
        yield c.bad(fam, ptr_path(res) + "[0].name", ("FlavorResourceOrder",), setter(res, resources[::-1]),
                    "flavor resources in another order than coveredResources", server=S)
    yield c.bad(fam, ptr_path(rg) + "[1].coveredResources[0]", ("CoveredResources",),
                setter(rg, groups + [{"coveredResources": [g0["coveredResources"][0]],
                                      "flavors": [{"name": "other-flavor", "resources": [
                                          {"name": g0["coveredResources"][0], "nominalQuota": 1}]}]}]),
                "a resource covered by two groups", server=S)
    yield c.bad(fam, ptr_path(rg) + "[1].flavors[0].name", ("UniqueFlavorNames",),
                setter(rg, groups + [{"coveredResources": ["example.com/accel"],
                                      "flavors": [{"name": g0["flavors"][0]["name"], "resources": [
                                          {"name": "example.com/accel", "nominalQuota": 1}]}]}]),
                "a flavor used by two groups", server=S)
    yield c.ok(fam, setter(rg, groups + [{"coveredResources": ["example.com/accel"],
                                          "flavors": [{"name": "accel-flavor", "resources": [
                                              {"name": "example.com/accel", "nominalQuota": 4}]}]}]),
               "a second resource group with its own flavor and resource", server=None)
    yield c.bad(fam, rp("nominalQuota"), ("NonNegativeQuota",), setter(R("nominalQuota"), "-1"),
                "negative nominalQuota", server=S)
    yield c.bad(fam, rp("borrowingLimit"), ("LimitsNeedCohort",),
                chain(deleter(("spec", cohort_field)), setter(R("borrowingLimit"), "1")),
                "borrowingLimit without a cohort", rule_stable=False, server=NOT_JUDGED_CEL)
    yield c.bad(fam, rp("lendingLimit"), ("LimitsNeedCohort",),
                chain(deleter(("spec", cohort_field)), setter(R("lendingLimit"), "1")),
                "lendingLimit without a cohort", server=S)
    yield c.ok(fam, chain(setter(("spec", cohort_field), "team-cohort"), setter(R("borrowingLimit"), "1"),
                          setter(R("lendingLimit"), 0)), "borrowingLimit and lendingLimit inside a cohort", server=None)
    yield c.bad(fam, rp("lendingLimit"), ("LendingLimitWithinNominal",),
                chain(setter(("spec", cohort_field), "team-cohort"), setter(R("nominalQuota"), 4),
                      setter(R("lendingLimit"), 5)), "lendingLimit above nominalQuota", server=S)
    covered = ["example.com/r%d" % i for i in range(64)]
    yield c.bad(fam, ptr_path(rg) + "[0]", ("ResourceGroupLimits",),
                setter(rg, [{"coveredResources": covered, "flavors": [
                    {"name": "f%d" % j, "resources": [{"name": r, "nominalQuota": 1} for r in covered]}
                    for j in range(9)]}]), "9 flavors x 64 resources in one group (limit 512)", server=S)
    yield c.bad(fam, "spec.preemption.borrowWithinCohort.policy", ("PreemptionPolicies",),
                setter(("spec", "preemption"), {"reclaimWithinCohort": "Never",
                                                "borrowWithinCohort": {"policy": "LowerPriority"}}),
                "borrowWithinCohort without reclaimWithinCohort", rule_stable=False, server=NOT_JUDGED_CEL)
    yield c.ok(fam, setter(("spec", "preemption"), {"reclaimWithinCohort": "Any",
                                                    "borrowWithinCohort": {"policy": "LowerPriority"}}),
               "borrowWithinCohort with reclaimWithinCohort Any", server=None)
    if v2:
        yield c.bad(fam, "spec.flavorFungibility.preference", ("FungibilityPreference",),
                    setter(("spec", "flavorFungibility"), {"preference": "BorrowingOverPreemption"}),
                    "fungibility preference with the default whenCanBorrow", rule_stable=False,
                    server=NOT_JUDGED_CEL)
        yield c.ok(fam, setter(("spec", "flavorFungibility"), {"preference": "BorrowingOverPreemption",
                                                               "whenCanBorrow": "TryNextFlavor",
                                                               "whenCanPreempt": "TryNextFlavor"}),
                   "fungibility preference with both TryNextFlavor", server=None)
        fname = g0["flavors"][0]["name"]
        acs = ("spec", "admissionChecksStrategy")
        yield c.bad(fam, "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]", ("AdmissionCheckFlavors",),
                    setter(acs, {"admissionChecks": [{"name": "check", "onFlavors": ["no-such-flavor"]}]}),
                    "admission check on a flavor the queue does not have", server=S)
        yield c.ok(fam, setter(acs, {"admissionChecks": [{"name": "check", "onFlavors": [fname]}]}),
                   "admission check on the queue's flavor", server=None)
        yield c.bad("schema:listSetDuplicate", "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[1]",
                    ("schema:duplicate",), setter(acs, {"admissionChecks": [{"name": "check",
                                                                            "onFlavors": [fname, fname]}]}),
                    "a flavor twice in the onFlavors set")
    yield c.bad(fam, "spec.fairSharing.weight", ("FairSharingWeight",),
                setter(("spec", "fairSharing"), {"weight": "-1"}),
                "negative fair-sharing weight", server=S)
    yield c.bad(fam, "spec.fairSharing.weight", ("FairSharingWeight",),
                setter(("spec", "fairSharing"), {"weight": "1n"}),
                "fair-sharing weight 1n (collapses to zero)", server=S)
    yield c.ok(fam, setter(("spec", "fairSharing"), {"weight": "0"}), "fair-sharing weight 0", server=None)
    yield c.ok(fam, setter(("spec", "fairSharing"), {"weight": "2n"}), "fair-sharing weight 2n", server=None)


@rule
def kueue_resourceflavor(c):
    doc = c.doc
    if not is_kind(doc, "ResourceFlavor"):
        return
    S = NOT_JUDGED_KUEUE
    fam = "kueue"
    yield c.bad(fam, "spec.nodeLabels[bad key]", ("LabelKey",), setter(("spec", "nodeLabels"), {"bad key": "a"}),
                "node label key with a space", server=S)
    yield c.bad(fam, "spec.nodeLabels.pool", ("LabelValue",), setter(("spec", "nodeLabels"), {"pool": "a b"}),
                "node label value with a space", server=S)
    yield c.ok(fam, setter(("spec", "nodeLabels"), {"cloud.example.com/pool": "gpu-a100"}), "valid node labels",
               server=None)
    T = ("spec", "nodeTaints")
    yield c.bad(fam, "spec.nodeTaints[0].key", ("NodeTaints",), setter(T, [{"key": "bad key", "effect": "NoSchedule"}]),
                "taint key with a space", server=S)
    yield c.bad(fam, "spec.nodeTaints[0].value", ("NodeTaints",),
                setter(T, [{"key": "gpu", "value": "a b", "effect": "NoSchedule"}]), "taint value with a space",
                server=S)
    yield c.bad(fam, "spec.nodeTaints[0].effect", ("NodeTaints",), setter(T, [{"key": "gpu", "effect": "Evict"}]),
                "taint effect Evict", rule_stable=False, server=NOT_JUDGED_CEL)
    yield c.bad(fam, "spec.nodeTaints[1]", ("NodeTaints",),
                setter(T, [{"key": "gpu", "effect": "NoSchedule"},
                           {"key": "gpu", "value": "x", "effect": "NoSchedule"}]),
                "the same taint key and effect twice", server=S)
    yield c.ok(fam, setter(T, [{"key": "gpu", "effect": "NoSchedule"}, {"key": "gpu", "effect": "NoExecute"}]),
               "one taint key with two effects", server=None)
    yield c.bad("schema:maxProperties", "spec.nodeLabels", ("schema:maxProperties",),
                setter(("spec", "nodeLabels"), {"example.com/k%d" % i: "v" for i in range(9)}),
                "9 node labels (maxProperties 8)")
    yield c.ok("schema:maxProperties", setter(("spec", "nodeLabels"), {"example.com/k%d" % i: "v" for i in range(8)}),
               "8 node labels (maxProperties 8)")
    TL = ("spec", "tolerations")
    for tol, field, note in (([{"operator": "Equal", "value": "x"}], "operator", "no key and operator Equal"),
                             ([{"key": "k", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 5}],
                              "effect", "tolerationSeconds with effect NoSchedule"),
                             ([{"key": "k", "operator": "Like"}], "operator", "operator Like"),
                             ([{"key": "k", "operator": "Exists", "value": "v"}], "value",
                              "operator Exists with a value"),
                             ([{"key": "k", "operator": "Exists", "effect": "Evict"}], "effect", "effect Evict")):
        yield c.bad(fam, "spec.tolerations[0].%s" % field, ("Tolerations",), setter(TL, tol),
                    "toleration: " + note, rule_stable=False, server=NOT_JUDGED_CEL)
    yield c.ok(fam, setter(TL, [{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 5}]),
               "toleration with tolerationSeconds and NoExecute", server=None)
    yield c.bad(fam, "spec.tolerations[0].key", ("TolerationKey",),
                setter(TL, [{"key": "bad key", "operator": "Exists"}]), "toleration key with a space", server=S)
    yield c.bad(fam, "spec.nodeLabels", ("TopologyNeedsNodeLabels",),
                chain(deleter(("spec", "nodeLabels")), setter(("spec", "topologyName"), "default-topology")),
                "topologyName without nodeLabels", rule_stable=False, server=NOT_JUDGED_CEL)
    yield c.ok(fam, chain(setter(("spec", "nodeLabels"), {"pool": "a"}), setter(("spec", "topologyName"), "topo")),
               "topologyName with a node label", server=None)


@rule
def kueue_queues(c):
    doc = c.doc
    if is_kind(doc, "LocalQueue"):
        yield c.ok("kueue", deleter(("spec", "clusterQueue")), "LocalQueue without clusterQueue",
                   warn=("spec.clusterQueue", "LocalQueueClusterQueue"), server=None)
        yield c.ok("kueue", setter(("metadata", "name"), "team.queue"), "LocalQueue named with a dot",
                   warn=("metadata.name", "ReferencedByLabelName"), server=None)
        yield c.bad("schema:pattern", "spec.clusterQueue", ("schema:pattern",),
                    setter(("spec", "clusterQueue"), "Cluster_Queue"), "clusterQueue that is no DNS-1123 subdomain")
        if doc["apiVersion"].endswith("v1beta2"):
            yield c.ok("schema", setter(("apiVersion",), doc["apiVersion"].replace("v1beta2", "v1beta1")),
                       "the same LocalQueue in the deprecated v1beta1", warn=("apiVersion", "schema:deprecatedVersion"),
                       server="judged")
            yield c.bad("schema", "apiVersion", ("schema:unknownKind",),
                        setter(("apiVersion",), "kueue.x-k8s.io/v1beta9"), "a version no CRD serves",
                        server="not sent: kubectl cannot map a kind the server does not serve")
    if is_kind(doc, "ClusterQueue"):
        yield c.ok("kueue", setter(("metadata", "name"), "a" * 253), "ClusterQueue name of 253 characters",
                   server=None)


@rule
def schema_specials(c):
    """Schema semantics beyond single keywords: nullable and pruned nulls, formats, bounds in embedded objects."""
    doc = c.doc
    if kind_of(doc) == ("ray.io/v1", "RayCluster"):
        yield c.ok("schema:nullable", setter(("status",), {"lastUpdateTime": None}),
                   "null on a nullable status field", server="judged")
        yield c.ok("schema:type", setter(("status",), {"lastUpdateTime": 5, "state": ["ready"]}),
                   "status with wrong types (the apiserver drops status on create)", server="judged")
        yield c.ok("schema:nullable", setter(("spec", "headGroupSpec", "serviceType"), None),
                   "null on a field that is not nullable (the apiserver prunes it)", server="judged")
        yield c.ok("schema:nullable", setter(("spec", "headGroupSpec", "rayStartParams"), None),
                   "empty rayStartParams map (YAML `rayStartParams:`), pruned", server="judged")
        cond = {"type": "Ready", "status": "True", "lastTransitionTime": "2024-05-01T10:00:00Z",
                "reason": "Serving", "message": "ok"}
        hs = ("spec", "headGroupSpec", "headService")
        yield c.ok("schema:format", setter(hs, {"status": {"conditions": [cond]}}),
                   "head service status with a well-formed condition")
        yield c.bad("schema:minLength", "spec.headGroupSpec.headService.status.conditions[0].reason",
                    ("schema:minLength", "schema:pattern"),
                    setter(hs, {"status": {"conditions": [dict(cond, reason="")]}}), "empty condition reason")
        yield c.bad("schema:minimum", "spec.headGroupSpec.headService.status.conditions[0].observedGeneration",
                    ("schema:minimum",), setter(hs, {"status": {"conditions": [dict(cond, observedGeneration=-1)]}}),
                    "condition observedGeneration -1")
        yield c.bad("schema:format", "spec.headGroupSpec.headService.status.conditions[0].lastTransitionTime",
                    ("schema:format",),
                    setter(hs, {"status": {"conditions": [dict(cond, lastTransitionTime="May 1st")]}}),
                    "date-time field given \"May 1st\"")
        if get_at(doc, ("spec", "workerGroupSpecs", 0)):
            yield c.bad("schema:format", "spec.workerGroupSpecs[0].replicas", ("schema:format", "schema:maximum"),
                        setter(("spec", "workerGroupSpecs", 0, "replicas"), 2147483648),
                        "int32 field given 2147483648",
                        server="the 1.20 apiserver does not check int32 ranges; KubeRay cannot decode the value (late)")


# ---- references within a closed set -------------------------------------------------------------------------------

def first_component_pod_template(tmpl):
    """The path (tuple, relative to a component template) of its first pod template the AppWrapper labels."""
    if not isinstance(tmpl, dict):
        return None
    if tmpl.get("kind") == "RayCluster":
        return ("spec", "headGroupSpec", "template")
    if tmpl.get("kind") == "RayJob":
        return ("spec", "rayClusterSpec", "headGroupSpec", "template")
    if tmpl.get("kind") in ("Job", "Deployment", "StatefulSet"):
        return ("spec", "template")
    if tmpl.get("kind") == "PyTorchJob":
        return ("spec", "pytorchReplicaSpecs", "Master", "template")
    return None


def first_pod_template(job):
    """The path (tuple) of the first PodSet's template of a queued job, and the count field of a worker PodSet."""
    if is_kind(job, "RayCluster"):
        return ("spec", "headGroupSpec", "template"), ("spec", "workerGroupSpecs", 0)
    if is_kind(job, "RayJob"):
        return ("spec", "rayClusterSpec", "headGroupSpec", "template"), ("spec", "rayClusterSpec", "workerGroupSpecs", 0)
    if is_kind(job, "AppWrapper") and get_at(job, ("spec", "components", 0, "template", "kind")) == "Job":
        return ("spec", "components", 0, "template", "spec", "template"), None
    return None, None


def admissibility(base, i, idx):
    """Kueue admissibility (kueue_admission_rules.cpp) of job i of a closed set holding its whole queue chain."""
    if not all(k in idx for k in ("LocalQueue", "ClusterQueue", "ResourceFlavor")):
        return
    docs = base.docs
    job = docs[i]
    tmpl, worker = first_pod_template(job)
    if tmpl is None:
        return
    fam, S = "kueue:admissibility", NOT_JUDGED_KUEUE
    cq_i, rf_i = idx["ClusterQueue"], idx["ResourceFlavor"]
    container = tmpl + ("spec", "containers", 0, "resources")

    def mut(expect, path, rules, changes, note):
        d = copy.deepcopy(docs)
        for doc_i, fn in changes:
            fn(d[doc_i])
        return Mutation(base.id, fam, expect, path, rules, d, i, note, True, S)

    yield mut("invalid", "metadata.labels[%s]" % QUEUE, ("ValidateAdmissibility",),
              [(cq_i, deleter(("spec", "namespaceSelector")))], "ClusterQueue without namespaceSelector (selects none)")
    yield mut("valid", None, (), [(cq_i, setter(("spec", "namespaceSelector"), {"matchExpressions": [
        {"key": "kubernetes.io/metadata.name", "operator": "Exists"}]}))], "namespaceSelector every namespace matches")
    covered = set(get_at(docs[cq_i], ("spec", "resourceGroups", 0, "coveredResources")) or [])
    extra = "example.com/fpga"
    yield mut("invalid", ptr_path(container + ("limits", extra)), ("FindFlavorForPodSets",),
              [(i, setter(container + ("limits", extra), "1"))], "a resource the ClusterQueue does not cover")
    yield mut("valid", None, (), [(i, setter(container + ("limits", extra), "0"))],
              "a zero request of a resource the ClusterQueue does not cover")
    taint = [{"key": "dedicated", "value": "ml", "effect": "NoSchedule"}]
    yield mut("invalid", ptr_path(tmpl + ("spec", "tolerations")), ("CheckFlavorForPodSets",),
              [(rf_i, setter(("spec", "nodeTaints"), taint))], "the flavor has a taint the Pods do not tolerate")
    yield mut("valid", None, (), [(rf_i, setter(("spec", "nodeTaints"), taint)),
                                   (rf_i, setter(("spec", "tolerations"), [{"key": "dedicated", "operator": "Exists"}]))],
              "the flavor tolerates its own taint")
    yield mut("invalid", ptr_path(tmpl + ("spec", "nodeSelector", "pool")), ("CheckFlavorForPodSets",),
              [(rf_i, setter(("spec", "nodeLabels"), {"pool": "a"})), (i, setter(tmpl + ("spec", "nodeSelector"),
                                                                                  {"pool": "b"}))],
              "nodeSelector against the flavor's node labels")
    if worker is not None and "cpu" in covered:
        yield mut("invalid", ptr_path(worker + ("replicas",)), ("FitsResourceQuota",),
                  [(i, setter(worker + ("replicas",), 5000)), (i, setter(worker + ("maxReplicas",), 5000))],
                  "5000 workers, more than the ClusterQueue ever holds")
    elif "cpu" in covered:
        yield mut("invalid", ptr_path(container + ("requests", "cpu")), ("FitsResourceQuota",),
                  [(i, setter(container + ("requests", "cpu"), "5000"))], "one Pod asks for more cpu than the queue holds")


REPEATABLE_KINDS = ("RayCluster", "RayJob", "AppWrapper", "LocalQueue", "ClusterQueue", "ResourceFlavor",
                    "WorkloadPriorityClass", "CodeFlareWorkload")


@rule
def repeated_resources(c):
    """The same object twice in one file: a warning on the repeat (Argo CD's RepeatedResourceWarning)."""
    base = c.base
    if base.is_set or not base.docs or not isinstance(base.docs[0], dict):
        return
    if base.docs[0].get("kind") not in REPEATABLE_KINDS or not get_at(base.docs[0], ("metadata", "name")):
        return
    docs = base.copy_docs()
    docs.append(copy.deepcopy(docs[0]))
    yield Mutation(base.id, "argocd:repeated", "valid", "metadata.name", ("RepeatedResource",), docs, len(docs) - 1,
                   "the same object twice in one file (kubectl apply keeps the later; Argo CD warns)", True,
                   "not sent: kubectl apply of the file applies the same object twice",
                   warn=("metadata.name", "RepeatedResource"))


@rule
def kueue_references(c):
    base = c.base
    if not base.is_set:
        return
    docs = base.docs
    idx = {d.get("kind"): i for i, d in enumerate(docs)}
    fam = "kueue:references"
    S = NOT_JUDGED_KUEUE
    if "LocalQueue" in idx:
        i = idx["LocalQueue"]
        yield c.bad(fam, "spec.clusterQueue", ("LocalQueueClusterQueueExists",),
                    setter(("spec", "clusterQueue"), "missing-cq"), "LocalQueue of a ClusterQueue not in the set",
                    doc_index=i, server=S)
    if "ClusterQueue" in idx:
        i = idx["ClusterQueue"]
        yield c.bad(fam, "spec.resourceGroups[0].flavors[0].name", ("ClusterQueueFlavorExists",),
                    setter(("spec", "resourceGroups", 0, "flavors", 0, "name"), "missing-flavor"),
                    "ClusterQueue of a ResourceFlavor not in the set", doc_index=i, server=S)
    for i, d in enumerate(docs):
        if d.get("kind") in ("RayCluster", "RayJob", "AppWrapper") and queued(d):
            yield c.bad(fam, "metadata.labels[%s]" % QUEUE, ("QueueNameExists",),
                        setter(("metadata", "labels", QUEUE), "missing-queue"),
                        "job sent to a LocalQueue not in the set",
                        doc_index=i, server=S)
            ns = get_at(d, ("metadata", "namespace"))
            lq = docs[idx["LocalQueue"]] if "LocalQueue" in idx else None
            lq_ns = get_at(lq, ("metadata", "namespace")) if lq else None
            if lq_ns:
                yield c.bad(fam, "metadata.labels[%s]" % QUEUE, ("QueueNameExists",),
                            setter(("metadata", "namespace"), lq_ns + "-other"),
                            "job in another namespace than its LocalQueue", doc_index=i, server=S)
            # The set is closed for the kinds it holds: with a WorkloadPriorityClass in it, "urgent" must be too.
            docs1 = base.copy_docs()
            docs1[i].setdefault("metadata", {}).setdefault("labels", {})[PRIO] = "urgent"
            docs1.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
                          "metadata": {"name": "routine"}, "value": 10})
            yield Mutation(base.id, fam, "invalid", "metadata.labels[%s]" % PRIO, ("PriorityClassExists",), docs1, i,
                           "priority class not in a set that holds another", True, S)
            yield c.ok(fam, setter(("metadata", "labels", PRIO), "urgent"),
                       "priority class in a set that holds none (taken to be on the cluster)", doc_index=i, server=S)
            for m in admissibility(base, i, idx):
                yield m
            docs2 = base.copy_docs()
            docs2[i].setdefault("metadata", {}).setdefault("labels", {})[PRIO] = "urgent"
            docs2.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
                          "metadata": {"name": "urgent"}, "value": 1000})
            yield Mutation(base.id, fam, "valid", None, (), docs2, i, "priority class added to the set", True, None)
