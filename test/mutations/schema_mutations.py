"""Schema-driven mutations: the base object is walked alongside its CRD schema and every schema keyword met on the
way (or on an absent property of a visited object) yields candidate single mutations, each with its verdict:

  schema:type            a value of the wrong JSON type                                       invalid
  schema:required        a required property without a default removed                         invalid
  schema:default         a required property that has a default removed (defaults come first)  valid
  schema:enum            a value outside the enum                                              invalid
                         another value of the enum (for fields no rule looks at)               valid
  schema:pattern         a string that does not match                                          invalid
  schema:maxLength/minLength, schema:maxItems/minItems, schema:minimum/maximum,
  schema:maxProperties   one past the bound                                                    invalid
  schema:unknownField    a field the schema does not declare                                   invalid
                         (inside an AppWrapper template, outside a PodSpec: a warning)         valid
  schema:listMapDuplicate  an x-kubernetes-list-type map entry repeated with the same keys     invalid
                         the same entry with other keys                                        valid
  schema:listSetDuplicate  an x-kubernetes-list-type set value repeated                        invalid
  schema:intOrString     x-kubernetes-int-or-string given a boolean                            invalid
                         a quantity written as a number instead of a string, or back           valid
  schema:nullable        null on a nullable field                                              valid
                         null on a field that is not nullable (the apiserver prunes it)        valid

Candidates are sampled per base and family with a seeded random generator, so the corpus is the same on every run.
"""
import copy
import random
import re

from corpus_base import (Mutation, get_at, set_at, del_at, ptr_path, key_path, index_path, schema_at,
                         pod_spec_schema)

# How many mutations of each family to keep per base (after a seeded shuffle of all candidates).
PER_BASE = {
    "schema:type": 6, "schema:required": 4, "schema:default": 3, "schema:enum": 3, "schema:enum-valid": 2,
    "schema:pattern": 4, "schema:maxLength": 2, "schema:minLength": 2, "schema:maxItems": 2, "schema:minItems": 2,
    "schema:minimum": 2, "schema:maximum": 2, "schema:maxProperties": 1, "schema:unknownField": 4,
    "schema:listMapDuplicate": 3, "schema:listMapDistinct": 2, "schema:listSetDuplicate": 1,
    "schema:intOrString": 2, "schema:intOrString-valid": 2,
}

# Enum fields whose value no rule reads: swapping in another allowed value must keep the object valid.
ENUM_SWAP_OK = {"imagePullPolicy", "serviceType", "upscalingMode", "queueingStrategy", "stopPolicy",
                "withinClusterQueue", "terminationMessagePolicy", "dnsPolicy", "pathType"}

# List-maps whose entries may be duplicated under new keys without any rule objecting.
DISTINCT_COPY_OK = {"env", "ports", "volumes", "volumeMounts", "imagePullSecrets", "containers"}

NOT_MATCHING = ["Not Valid!", "-bad-", "UPPER_case", "a..b", "x y", "!", "-"]


def _compile(pattern):
    try:
        return re.compile(pattern)
    except re.error:
        return None


def _fits(s, node):
    if "maxLength" in node and len(s) > node["maxLength"]:
        return False
    if "minLength" in node and len(s) < node["minLength"]:
        return False
    return True


def _matches(node, s):
    rx = _compile(node["pattern"]) if "pattern" in node else None
    return rx is None or rx.search(s) is not None


def _valid_string(node, i=0):
    """A string the node accepts (pattern and lengths), or None."""
    if "enum" in node:
        return node["enum"][0] if node["enum"] else None
    for cand in ("a%d" % i, "abc", "a", "1", "example.com", "500m", "x-%d" % i):
        if _fits(cand, node) and _matches(node, cand):
            return cand
    return None


def _wrong_type_value(node):
    t = node.get("type")
    return {"string": 12345, "integer": "not-a-number", "number": "not-a-number", "boolean": "true",
            "object": "not-a-map", "array": "not-a-list"}.get(t)


def _is_int_or_string(node):
    return bool(node.get("x-kubernetes-int-or-string"))


class Walk:
    """Where a walk happens: the schema root, where the walked object sits in the document, how the validator
    judges what it finds there (top-level object, AppWrapper component, PodSpec of a wrapped non-Ray kind), and
    whether the 1.20 apiserver sees it."""

    def __init__(self, root, doc_ptr, server_root=None, wrapped=False, pod_spec_ptrs=(), status_dropped=False):
        self.root = root                  # schema the walk starts from
        self.doc_ptr = doc_ptr            # location of the walked object in the document
        self.server_root = server_root    # the 1.20 CRD schema of the same object, or None: not judged by the server
        self.wrapped = wrapped            # inside an AppWrapper component template
        self.pod_spec_ptrs = pod_spec_ptrs  # (wrapped) PodSpec locations, where unknown fields are errors
        self.status_dropped = status_dropped


class Site:
    def __init__(self, node, value, ptr, sptr, walk, in_status):
        self.node, self.value, self.ptr, self.sptr, self.walk, self.in_status = node, value, ptr, sptr, walk, in_status

    @property
    def path(self):
        return ptr_path(self.ptr)


def collect_sites(walk, value, out, ptr=None, sptr=(), in_status=False, node=None):
    node = walk.root if node is None else node
    ptr = walk.doc_ptr if ptr is None else ptr
    if not isinstance(node, dict):
        return
    out.append(Site(node, value, ptr, sptr, walk, in_status))
    if isinstance(value, dict):
        props = node.get("properties") or {}
        addl = node.get("additionalProperties")
        for k, v in value.items():
            if k in props:
                collect_sites(walk, v, out, ptr + (k,), sptr + ("properties", k),
                              in_status or (not sptr and k == "status"), props[k])
            elif isinstance(addl, dict):
                collect_sites(walk, v, out, ptr + (k,), sptr + ("additionalProperties",), in_status, addl)
    elif isinstance(value, list) and isinstance(node.get("items"), dict):
        for i, v in enumerate(value):
            collect_sites(walk, v, out, ptr + (i,), sptr + ("items",), in_status, node["items"])


class SchemaMutator:
    def __init__(self, crds, crds120, seed):
        self.crds = crds
        self.crds120 = crds120
        self.pod_spec = pod_spec_schema(crds)
        self.seed = seed

    # ---- where to walk -------------------------------------------------------------------------------------

    def walks(self, doc):
        key = (doc.get("apiVersion"), doc.get("kind"))
        crd = self.crds.get(key)
        if not crd:
            return []
        c120 = self.crds120.get(key)
        out = [Walk(crd.schema, (), c120.schema if c120 else None, status_dropped=crd.status_subresource)]
        if doc.get("kind") == "AppWrapper":
            for i, comp in enumerate(get_at(doc, ("spec", "components"), []) or []):
                tmpl = comp.get("template") if isinstance(comp, dict) else None
                if not isinstance(tmpl, dict):
                    continue
                base = ("spec", "components", i, "template")
                tkey = (tmpl.get("apiVersion"), tmpl.get("kind"))
                pod_ptrs = [base + p for p in wrapped_pod_spec_ptrs(tmpl)]
                if tkey in self.crds:
                    out.append(Walk(self.crds[tkey].schema, base, None, True, tuple(pod_ptrs)))
                elif self.pod_spec:
                    for p in pod_ptrs:
                        if isinstance(get_at(doc, p), dict):
                            out.append(Walk(self.pod_spec, p, None, True, (p,)))
        return out

    # ---- candidates ----------------------------------------------------------------------------------------

    def candidates(self, base):
        """{family: [Mutation]} for the single document of `base`."""
        doc = base.docs[0]
        found = {}

        def add(family, mut):
            found.setdefault(family, []).append(mut)

        for walk in self.walks(doc):
            sites = []
            collect_sites(walk, get_at(doc, walk.doc_ptr), sites)
            for site in sites:
                self._site(base, doc, site, add)
        return found

    def _server(self, site, keyword_nodes=()):
        """"judged" when the 1.20 apiserver checks this site with the same schema keywords, else why not."""
        w = site.walk
        if w.wrapped:
            return "inside an AppWrapper template, which the apiserver keeps opaque (checked when it is created)"
        if w.server_root is None:
            return "not sent: no apiserver-1.20 CRD for this kind"
        if site.in_status and w.status_dropped:
            return "status is dropped on create (status subresource)"
        for sptr, keys in keyword_nodes:
            up, old = schema_at(w.root, sptr), schema_at(w.server_root, sptr)
            if up is None or old is None or any((up.get(k) if isinstance(up, dict) else None) !=
                                                (old.get(k) if isinstance(old, dict) else None) for k in keys):
                return "not sent: the apiserver-1.20 CRD differs here (%s)" % ", ".join(keys)
        return "judged"

    def _mut(self, base, doc, family, expect, path, rules, change, note, server, rule_stable=True, warn=None):
        docs = base.copy_docs()
        change(docs[0])
        return Mutation(base.id, family, expect, path, rules, docs, 0, note, rule_stable, server, warn)

    def _in_wrapped_pod_spec(self, site, ptr):
        return any(ptr[:len(p)] == p for p in site.walk.pod_spec_ptrs)

    def _site(self, base, doc, site, add):
        node, value, ptr, path = site.node, site.value, site.ptr, site.path
        judged = self._server(site, [(site.sptr, ("type",))])

        # -- type ----------------------------------------------------------------------------------------------
        if _is_int_or_string(node) and value is not None and not isinstance(value, (dict, list)):
            add("schema:intOrString", self._mut(
                base, doc, "schema:intOrString", "invalid", path, ("schema:anyOf", "schema:type"),
                lambda d, p=ptr: set_at(d, p, True), "int-or-string given a boolean", judged))
            if "pattern" in node:
                if isinstance(value, int) and not isinstance(value, bool):
                    add("schema:intOrString-valid", self._mut(
                        base, doc, "schema:intOrString", "valid", None, (),
                        lambda d, p=ptr, v=value: set_at(d, p, str(v)),
                        "quantity %r written as the string %r" % (value, str(value)),
                        self._server(site, [(site.sptr, ("pattern",))])))
                elif isinstance(value, str) and re.fullmatch(r"[0-9]+", value) and len(value) < 10:
                    add("schema:intOrString-valid", self._mut(
                        base, doc, "schema:intOrString", "valid", None, (),
                        lambda d, p=ptr, v=value: set_at(d, p, int(v)),
                        "quantity %r written as the number %s" % (value, value), judged))
        elif (node.get("type") and value is not None and _wrong_type_value(node) is not None
              and ptr != site.walk.doc_ptr
              and not (ptr[:-1] == site.walk.doc_ptr and ptr[-1] in ("apiVersion", "kind"))):
            wrong = _wrong_type_value(node)
            add("schema:type", self._mut(
                base, doc, "schema:type", "invalid", path, ("schema:type",), lambda d, p=ptr, w=wrong: set_at(d, p, w),
                "%s field given %r" % (node["type"], wrong), judged))

        # -- enum ----------------------------------------------------------------------------------------------
        if isinstance(value, str) and "enum" in node:
            js = self._server(site, [(site.sptr, ("enum",))])
            add("schema:enum", self._mut(
                base, doc, "schema:enum", "invalid", path, ("schema:enum",),
                lambda d, p=ptr: set_at(d, p, "NotAnAllowedValue"), "value outside the enum", js))
            others = [e for e in node["enum"] if e != value and isinstance(e, str)]
            if others and ptr and ptr[-1] in ENUM_SWAP_OK:
                add("schema:enum-valid", self._mut(
                    base, doc, "schema:enum", "valid", None, (), lambda d, p=ptr, v=others[0]: set_at(d, p, v),
                    "%s: %r instead of %r" % (ptr[-1], others[0], value), js))

        # -- strings -------------------------------------------------------------------------------------------
        if isinstance(value, str):
            self._string_bounds(base, doc, site, node, ptr, path, add)
        # -- integers ------------------------------------------------------------------------------------------
        if isinstance(value, int) and not isinstance(value, bool):
            self._number_bounds(base, doc, site, node, ptr, path, add)

        # -- objects -------------------------------------------------------------------------------------------
        if isinstance(value, dict):
            self._object(base, doc, site, node, value, ptr, path, add)
        # -- lists ---------------------------------------------------------------------------------------------
        if isinstance(value, list):
            self._list(base, doc, site, node, value, ptr, path, add)

    def _string_bounds(self, base, doc, site, node, ptr, path, add, absent=False):
        how = "absent field set to " if absent else ""
        if "pattern" in node and _compile(node["pattern"]) and "enum" not in node:
            for cand in NOT_MATCHING:
                if _fits(cand, node) and not _matches(node, cand):
                    add("schema:pattern", self._mut(
                        base, doc, "schema:pattern", "invalid", path, ("schema:pattern",),
                        lambda d, p=ptr, c=cand: set_at(d, p, c), how + "%r against %s" % (cand, node["pattern"]),
                        self._server(site, [(site.sptr, ("pattern",))])))
                    break
        if "maxLength" in node:
            n = node["maxLength"] + 1
            for cand in ("a" * n, "1" * n, "a" + "0" * (n - 1)):
                if _matches(node, cand):
                    add("schema:maxLength", self._mut(
                        base, doc, "schema:maxLength", "invalid", path, ("schema:maxLength",),
                        lambda d, p=ptr, c=cand: set_at(d, p, c), how + "%d characters, maxLength %d" %
                        (n, node["maxLength"]), self._server(site, [(site.sptr, ("maxLength",))])))
                    break
        if node.get("minLength", 0) >= 1:
            add("schema:minLength", self._mut(
                base, doc, "schema:minLength", "invalid", path, ("schema:minLength", "schema:pattern"),
                lambda d, p=ptr: set_at(d, p, ""), how + "empty string, minLength %d" % node["minLength"],
                self._server(site, [(site.sptr, ("minLength",))])))

    def _number_bounds(self, base, doc, site, node, ptr, path, add, absent=False):
        how = "absent field set to " if absent else ""
        if "minimum" in node:
            v = node["minimum"] - (0 if node.get("exclusiveMinimum") else 1)
            add("schema:minimum", self._mut(
                base, doc, "schema:minimum", "invalid", path, ("schema:minimum",),
                lambda d, p=ptr, v=int(v): set_at(d, p, v), how + "%d, minimum %s" % (v, node["minimum"]),
                self._server(site, [(site.sptr, ("minimum",))])))
        if "maximum" in node:
            v = node["maximum"] + (0 if node.get("exclusiveMaximum") else 1)
            add("schema:maximum", self._mut(
                base, doc, "schema:maximum", "invalid", path, ("schema:maximum",),
                lambda d, p=ptr, v=int(v): set_at(d, p, v), how + "%d, maximum %s" % (v, node["maximum"]),
                self._server(site, [(site.sptr, ("maximum",))])))

    def _object(self, base, doc, site, node, value, ptr, path, add):
        props = node.get("properties")
        preserve = node.get("x-kubernetes-preserve-unknown-fields")
        # required / default
        for r in node.get("required") or []:
            if r not in value or not props or r not in props:
                continue
            rptr, rpath = ptr + (r,), key_path(path, r)
            if "default" in props[r]:
                add("schema:default", self._mut(
                    base, doc, "schema:default", "valid", None, (), lambda d, p=rptr: del_at(d, p),
                    "required %s removed; its default %r applies" % (r, props[r]["default"]),
                    self._server(site, [(site.sptr, ("required",)), (site.sptr + ("properties", r), ("default",))])))
            else:
                add("schema:required", self._mut(
                    base, doc, "schema:required", "invalid", rpath, ("schema:required",),
                    lambda d, p=rptr: del_at(d, p), "required %s removed" % r,
                    self._server(site, [(site.sptr, ("required",)), (site.sptr + ("properties", r), ("default",))])))
        # unknown field: a plausible typo of a declared field
        if props and not preserve and "additionalProperties" not in node and value:
            known = sorted(value.keys())
            typo = None
            for k in known:
                for cand in (k + "s", k[:-1] if len(k) > 3 else None, k.capitalize()):
                    if cand and cand not in props and cand not in value and cand != k:
                        typo = cand
                        break
                if typo:
                    break
            if typo:
                tpath = key_path(path, typo)
                wrapped_outside_pod = site.walk.wrapped and not self._in_wrapped_pod_spec(site, ptr + (typo,))
                add("schema:unknownField", self._mut(
                    base, doc, "schema:unknownField", "valid" if wrapped_outside_pod else "invalid",
                    None if wrapped_outside_pod else tpath, () if wrapped_outside_pod else ("schema:unknownField",),
                    lambda d, p=ptr + (typo,): set_at(d, p, "x"),
                    "undeclared field %r%s" % (typo, " (AppWrapper component, outside a PodSpec: pruned, a warning)"
                                               if wrapped_outside_pod else ""),
                    "unknown fields are pruned by the apiserver (no fieldValidation=Strict in 1.20)",
                    warn=(tpath, "schema:unknownField") if wrapped_outside_pod else None))
        # maxProperties on a map of strings
        if "maxProperties" in node and isinstance(node.get("additionalProperties"), dict):
            n = node["maxProperties"] + 1
            add("schema:maxProperties", self._mut(
                base, doc, "schema:maxProperties", "invalid", path, ("schema:maxProperties",),
                lambda d, p=ptr, n=n: set_at(d, p, {"example.com/k%d" % i: "v" for i in range(n)}),
                "%d entries, maxProperties %d" % (n, node["maxProperties"]),
                self._server(site, [(site.sptr, ("maxProperties",))])))
        # absent properties that carry a bound, an enum or a pattern
        if props and not site.in_status:
            for name, sub in props.items():
                if name in value or not isinstance(sub, dict) or name in ("status", "metadata"):
                    continue
                sptr = site.sptr + ("properties", name)
                fake = Site(sub, None, ptr + (name,), sptr, site.walk, site.in_status)
                t = sub.get("type")
                if t == "string" and "enum" in sub:
                    add("schema:enum", self._mut(
                        base, doc, "schema:enum", "invalid", key_path(path, name), ("schema:enum",),
                        lambda d, p=ptr + (name,): set_at(d, p, "NotAnAllowedValue"),
                        "absent enum field set to a value outside it", self._server(fake, [(sptr, ("enum",))])))
                elif t == "string":
                    self._string_bounds(base, doc, fake, sub, ptr + (name,), key_path(path, name), add, absent=True)
                elif t == "integer":
                    self._number_bounds(base, doc, fake, sub, ptr + (name,), key_path(path, name), add, absent=True)
                elif t == "array" and isinstance(sub.get("items"), dict):
                    self._absent_list(base, doc, fake, sub, ptr + (name,), key_path(path, name), add)
                elif t == "object" and "maxProperties" in sub and isinstance(sub.get("additionalProperties"), dict):
                    n = sub["maxProperties"] + 1
                    add("schema:maxProperties", self._mut(
                        base, doc, "schema:maxProperties", "invalid", key_path(path, name), ("schema:maxProperties",),
                        lambda d, p=ptr + (name,), n=n: set_at(d, p, {"example.com/k%d" % i: "v" for i in range(n)}),
                        "absent map given %d entries, maxProperties %d" % (n, sub["maxProperties"]),
                        self._server(fake, [(sptr, ("maxProperties",))])))

    def _absent_list(self, base, doc, site, node, ptr, path, add):
        items = node["items"]
        if items.get("type") not in ("string", "integer"):
            return
        if node.get("minItems", 0) >= 1:
            add("schema:minItems", self._mut(
                base, doc, "schema:minItems", "invalid", path, ("schema:minItems",), lambda d, p=ptr: set_at(d, p, []),
                "absent list set to [], minItems %d" % node["minItems"],
                self._server(site, [(site.sptr, ("minItems",))])))
        if "maxItems" in node and node["maxItems"] < 100:
            n = node["maxItems"] + 1
            vals = [(_valid_string(items, i) if items.get("type") == "string" else items.get("minimum", 0) + i)
                    for i in range(n)]
            if None not in vals and len(set(vals)) == n:
                add("schema:maxItems", self._mut(
                    base, doc, "schema:maxItems", "invalid", path, ("schema:maxItems",),
                    lambda d, p=ptr, v=vals: set_at(d, p, list(v)),
                    "absent list given %d items, maxItems %d" % (n, node["maxItems"]),
                    self._server(site, [(site.sptr, ("maxItems",))])))

    def _list(self, base, doc, site, node, value, ptr, path, add):
        lt = node.get("x-kubernetes-list-type")
        items = node.get("items") if isinstance(node.get("items"), dict) else {}
        if value and "maxItems" in node and len(value) <= node["maxItems"] and node["maxItems"] < 100:
            n = node["maxItems"] + 1
            extra = [copy.deepcopy(value[-1]) for _ in range(n - len(value))]
            add("schema:maxItems", self._mut(
                base, doc, "schema:maxItems", "invalid", path, ("schema:maxItems",),
                lambda d, p=ptr, e=extra: get_at(d, p).extend(copy.deepcopy(e)),
                "%d items, maxItems %d" % (n, node["maxItems"]), self._server(site, [(site.sptr, ("maxItems",))])))
        if node.get("minItems", 0) >= 1:
            add("schema:minItems", self._mut(
                base, doc, "schema:minItems", "invalid", path, ("schema:minItems",), lambda d, p=ptr: set_at(d, p, []),
                "empty list, minItems %d" % node["minItems"], self._server(site, [(site.sptr, ("minItems",))])))
        if not value:
            return
        js = self._server(site, [(site.sptr, ("x-kubernetes-list-type", "x-kubernetes-list-map-keys"))])
        if lt == "map" and isinstance(value[0], dict):
            keys = node.get("x-kubernetes-list-map-keys") or []
            add("schema:listMapDuplicate", self._mut(
                base, doc, "schema:listMapDuplicate", "invalid", index_path(path, len(value)), ("schema:duplicate",),
                lambda d, p=ptr: get_at(d, p).append(copy.deepcopy(get_at(d, p)[0])),
                "entry [0] repeated (keys %s)" % ", ".join(keys), js))
            if ptr and ptr[-1] in DISTINCT_COPY_OK:
                entry = _distinct_copy(value, keys, items)
                if entry is not None:
                    add("schema:listMapDistinct", self._mut(
                        base, doc, "schema:listMapDuplicate", "valid", None, (),
                        lambda d, p=ptr, e=entry: get_at(d, p).append(copy.deepcopy(e)),
                        "entry [0] copied under new keys (%s)" % ", ".join(keys), js))
        elif lt == "set" and not isinstance(value[0], (dict, list)):
            add("schema:listSetDuplicate", self._mut(
                base, doc, "schema:listSetDuplicate", "invalid", index_path(path, len(value)), ("schema:duplicate",),
                lambda d, p=ptr: get_at(d, p).append(get_at(d, p)[0]), "set value [0] repeated", js))

    # ---- the sample --------------------------------------------------------------------------------------------

    def mutations(self, base):
        rng = random.Random("%s/%s" % (self.seed, base.id))
        out = []
        found = self.candidates(base)
        for family in sorted(found):
            cands = found[family]
            rng.shuffle(cands)
            out.extend(cands[:PER_BASE.get(family, 2)])
        return out


def _distinct_copy(value, keys, items):
    """value[0] with its map keys changed so that the copy is a new entry; None when that is not possible."""
    entry = copy.deepcopy(value[0])
    taken = {tuple(json_key(e, keys, items)) for e in value if isinstance(e, dict)}
    props = items.get("properties") or {}
    # A volume mount keeps naming its volume (the Pod rules check that it exists); a port changes protocol to
    # another one the Pod rules accept.
    rename = "name" in entry and "name" not in keys and "mountPath" not in entry
    for k in keys + (["name"] if rename else []):
        v = entry.get(k)
        if isinstance(v, bool):
            return None
        if k == "protocol":
            used = {e.get("protocol", "TCP") for e in value if isinstance(e, dict)
                    and e.get("containerPort") == entry.get("containerPort")}
            free = [p for p in ("TCP", "UDP", "SCTP") if p not in used]
            if not free:
                return None
            entry[k] = free[0]
            continue
        if isinstance(v, int):
            entry[k] = v + 1
        elif isinstance(v, str):
            nv = v[:13] + "b" if k == "name" and "containerPort" in entry else v + "-b"
            if k == "mountPath":
                nv = v.rstrip("/") + "-b"
            if not _matches(props.get(k, {}), nv):
                return None
            entry[k] = nv
    if tuple(json_key(entry, keys, items)) in taken:
        return None
    return entry


def json_key(entry, keys, items):
    props = items.get("properties") or {}
    return [repr(entry.get(k, (props.get(k) or {}).get("default"))) for k in keys]


def wrapped_pod_spec_ptrs(tmpl):
    """PodSpec locations inside an AppWrapper component template, relative to it, as the AppWrapper infers its
    PodSets (utils.InferPodSets) for the kinds it knows."""
    av, kind = tmpl.get("apiVersion"), tmpl.get("kind")
    spec = tmpl.get("spec") if isinstance(tmpl.get("spec"), dict) else {}
    out = []
    if av == "ray.io/v1" and kind in ("RayCluster", "RayJob"):
        cs = spec if kind == "RayCluster" else spec.get("rayClusterSpec") or {}
        pre = ("spec",) if kind == "RayCluster" else ("spec", "rayClusterSpec")
        out.append(pre + ("headGroupSpec", "template", "spec"))
        for i, _ in enumerate(cs.get("workerGroupSpecs") or []):
            out.append(pre + ("workerGroupSpecs", i, "template", "spec"))
    elif av == "v1" and kind == "Pod":
        out.append(("spec",))
    elif av == "batch/v1" and kind == "Job" or av == "apps/v1" and kind in ("Deployment", "StatefulSet"):
        out.append(("spec", "template", "spec"))
    elif av == "kubeflow.org/v1" and kind == "PyTorchJob":
        for role in ("Master", "Worker"):
            if role in (spec.get("pytorchReplicaSpecs") or {}):
                out.append(("spec", "pytorchReplicaSpecs", role, "template", "spec"))
    return out
