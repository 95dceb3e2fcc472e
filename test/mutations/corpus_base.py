"""Shared pieces of the mutation corpus: field paths as the validator writes them, JSON-pointer style access to
documents, the CRD schemas (upstream and the kube-apiserver 1.20 adaptation), the base samples, and the Mutation
record.

Nothing here decides a verdict; schema_mutations.py and rule_mutations.py do, and run_corpus.py checks them.
"""
import copy
import glob
import json
import os
import re
import subprocess

import yaml

try:  # libyaml bindings (python3-yaml ships them): the big KubeRay CRDs load ten times faster
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader


# ---- field paths ------------------------------------------------------------------------------------------------
# The validator writes "spec.workerGroupSpecs[0].template", and keys that are not plain ([A-Za-z0-9_-]+) in brackets:
# "metadata.labels[kueue.x-k8s.io/queue-name]" (core/json.cpp key_path / index_path).

_PLAIN = re.compile(r"^[A-Za-z0-9_-]+$")


def key_path(parent, key):
    if _PLAIN.match(key):
        return key if not parent else parent + "." + key
    return parent + "[" + key + "]"


def index_path(parent, i):
    return "%s[%d]" % (parent, i)


def ptr_path(ptr, prefix=""):
    """The validator's path of a location given as a tuple of keys (str) and indices (int)."""
    path = prefix
    for p in ptr:
        path = index_path(path, p) if isinstance(p, int) else key_path(path, p)
    return path


def get_at(doc, ptr, default=None):
    cur = doc
    for p in ptr:
        if isinstance(p, int):
            if not isinstance(cur, list) or p >= len(cur):
                return default
        elif not isinstance(cur, dict) or p not in cur:
            return default
        cur = cur[p]
    return cur


def set_at(doc, ptr, value):
    """Sets doc[ptr] = value, creating maps on the way."""
    cur = doc
    for p in ptr[:-1]:
        if isinstance(p, str) and p not in cur:
            cur[p] = {}
        cur = cur[p]
    cur[ptr[-1]] = value


def del_at(doc, ptr):
    cur = get_at(doc, ptr[:-1])
    if isinstance(cur, dict):
        cur.pop(ptr[-1], None)
    elif isinstance(cur, list) and isinstance(ptr[-1], int) and ptr[-1] < len(cur):
        del cur[ptr[-1]]


# ---- the Mutation record ----------------------------------------------------------------------------------------

# Families the kube-apiserver 1.20 of the test control plane judges on create (with the apiserver-1.20 CRDs, which
# have no CEL, and without fieldValidation=Strict, so unknown fields are pruned silently). Everything else is a
# webhook, a controller, a late failure or a CEL rule, which it accepts.
SERVER_JUDGED_FAMILIES = {
    "schema:type", "schema:required", "schema:default", "schema:enum", "schema:pattern", "schema:maxLength",
    "schema:minLength", "schema:maxItems", "schema:minItems", "schema:minimum", "schema:maximum",
    "schema:maxProperties", "schema:intOrString", "schema:nullable", "schema:listMapDuplicate",
    "schema:listSetDuplicate", "schema:format", "embedded", "metadata",
}


class Mutation:
    """One corpus entry: the documents of one file, the mutated document's index, and what must happen.

    expect    "valid" (exit 0, no error finding) or "invalid" (exit 1 and an error finding at `path`)
    path      invalid: the path of the expected error; valid: the path of an expected warning, or None
    rules     acceptable rule ids at that path (the first is the canonical one, used for counting)
    rule_stable  False where the rule id may change (CEL-based rules that a CEL evaluator may take over): then only
              the path and the verdict are required, a different rule id is reported but does not fail the test
    server    "judged": the 1.20 apiserver judges this rule, its dry run is compared with our verdict;
              "not sent: <why>": not dry-run (kubectl cannot send it, or the apiserver-1.20 CRD differs there);
              otherwise why the apiserver does not judge it: a valid mutation is still compared (the apiserver must
              accept it too), an invalid one is only observed (run_corpus.py server_mode)
    """

    def __init__(self, base, family, expect, path, rules, docs, doc_index=0, note="", rule_stable=True,
                 server=None, warn=None):
        self.base = base
        self.family = family
        self.expect = expect
        self.path = path
        self.rules = tuple(rules) if rules else ()
        self.docs = docs
        self.doc_index = doc_index
        self.note = note
        self.rule_stable = rule_stable
        self.warn = warn  # (path, rule) of a warning that must be reported (valid mutations of warning rules)
        if server is None:
            server = "judged" if family in SERVER_JUDGED_FAMILIES else "not judged by the 1.20 apiserver"
        self.server = server
        self.id = None  # set by the corpus builder
        self.profile = "vanilla"  # the cluster profile it is judged under (validate --profile)
        self.pod_security = "privileged"  # the namespace's Pod Security level (validate --pod-security-level)
        self.pod = None  # for pod-template cases: how to build the Pod KubeRay creates (kuberay_pod.py)

    @property
    def rule(self):
        return self.rules[0] if self.rules else "-"

    def describe(self):
        return "%s [%s, %s] expect %s%s: %s" % (
            self.id, self.family, self.rule, self.expect, " at " + self.path if self.path else "", self.note)


# ---- CRD schemas ------------------------------------------------------------------------------------------------

class CRDSchema:
    def __init__(self, api_version, kind, schema, namespaced, deprecated, status_subresource):
        self.api_version = api_version
        self.kind = kind
        self.schema = schema
        self.namespaced = namespaced
        self.deprecated = deprecated
        self.status_subresource = status_subresource


def load_crds(directory, wanted_kinds=None):
    """{(apiVersion, kind): CRDSchema} for the CRDs directly inside `directory` (as SchemaSet::load_dir reads them).
    `wanted_kinds` limits parsing to files that mention one of those kinds (the Workload CRD is large)."""
    out = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.yaml")) + glob.glob(os.path.join(directory, "*.yml"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if wanted_kinds and not any(re.search(r"^\s*kind: %s\s*$" % k, text, re.M) for k in wanted_kinds):
            continue
        for doc in yaml.load_all(text, Loader=_Loader):
            if not isinstance(doc, dict) or doc.get("kind") != "CustomResourceDefinition":
                continue
            spec = doc.get("spec") or {}
            group = spec.get("group")
            kind = (spec.get("names") or {}).get("kind")
            for v in spec.get("versions") or []:
                if v.get("served") is False:
                    continue
                schema = ((v.get("schema") or {}).get("openAPIV3Schema"))
                if schema is None:
                    continue
                av = "%s/%s" % (group, v["name"])
                out[(av, kind)] = CRDSchema(av, kind, schema, spec.get("scope", "Namespaced") != "Cluster",
                                            bool(v.get("deprecated")), "status" in (v.get("subresources") or {}))
    return out


def kueue_max_pod_sets(crds_dir):
    """Kueue's MaxPodSets as `validate --crds DIR` reads it: spec.podSets.maxItems of the Workload CRD's storage
    version (else of the first version that states it), else 8."""
    path = os.path.join(crds_dir, "kueue.x-k8s.io_workloads.yaml")
    if not os.path.isfile(path):
        return 8
    with open(path, encoding="utf-8") as f:
        crd = yaml.load(f, Loader=_Loader)
    found = {}
    for v in (crd.get("spec") or {}).get("versions") or []:
        m = (((((v.get("schema") or {}).get("openAPIV3Schema") or {}).get("properties") or {}).get("spec") or {})
             .get("properties") or {}).get("podSets", {}).get("maxItems")
        if isinstance(m, int):
            found.setdefault("first", m)
            if v.get("storage"):
                found["storage"] = m
    return found.get("storage") or found.get("first") or 8


def schema_at(schema, sptr):
    """The schema node at a schema pointer (a tuple of 'properties'/<name>, 'items', 'additionalProperties')."""
    cur = schema
    for p in sptr:
        if not isinstance(cur, dict) or p not in cur:
            return None
        cur = cur[p]
    return cur


def pod_spec_schema(crds):
    """core/v1 PodSpec as embedded by the ray.io/v1 RayCluster CRD (what SchemaSet::validate_pod_spec uses)."""
    rc = crds.get(("ray.io/v1", "RayCluster"))
    if not rc:
        return None
    return schema_at(rc.schema, ("properties", "spec", "properties", "headGroupSpec", "properties", "template",
                                 "properties", "spec"))


# ---- base samples -----------------------------------------------------------------------------------------------

class Base:
    """A valid starting point: the documents of one file (one document, or a closed set of several)."""

    def __init__(self, base_id, origin, source, docs):
        self.max_pod_sets = 8  # Kueue's MaxPodSets as the CRDs judged against state it (kueue_max_pod_sets)
        self.id = base_id
        self.origin = origin  # "ours" (config/samples, rendered) or "upstream" (shared samples) or "set"
        self.source = source
        self.docs = docs

    def copy_docs(self):
        return copy.deepcopy(self.docs)

    @property
    def is_set(self):
        return len(self.docs) > 1


def _sanitize(s):
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", s).strip("-")


def render_our_samples(operator, crds_dir, repo_dir):
    """Each CodeFlareWorkload of config/samples rendered by `codeflare-operator render`, one base per object."""
    bases = []
    samples = sorted(glob.glob(os.path.join(repo_dir, "config", "samples", "*.yaml")))
    for sample in samples:
        if os.path.basename(sample) == "kustomization.yaml":
            continue
        proc = subprocess.run([operator, "render", "-f", sample, "--crds", crds_dir], capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError("render %s failed (%d): %s" % (sample, proc.returncode, proc.stderr[-2000:]))
        name = os.path.splitext(os.path.basename(sample))[0]
        for i, doc in enumerate(d for d in yaml.load_all(proc.stdout, Loader=_Loader) if d is not None):
            bases.append(Base("ours.%s.%d-%s" % (name, i, doc.get("kind", "doc")), "ours",
                              "config/samples/%s.yaml (rendered, object %d)" % (name, i), [doc]))
    return bases


# Placeholders that an upstream sample holds where its project fills in a value before applying it (SOURCES.txt says
# which): codeflare-sdk's AppWrapper unit-test fixture has the literal "${image}" as its Ray image, which the kubelet
# would refuse (ParseNormalizedNamed; the unit test upstream_data_test expects exactly that). As a base to mutate it
# gets an image in its place.
PLACEHOLDERS = {"${image}": "quay.io/rayproject/ray:2.46.0"}


def upstream_samples(shared_dir):
    """Every document of the shared upstream samples as a single-object base, and each multi-document file as a
    closed set as well (PLACEHOLDERS filled in)."""
    bases = []
    for path in sorted(glob.glob(os.path.join(shared_dir, "samples", "upstream", "*.yaml"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for placeholder, value in PLACEHOLDERS.items():
            text = text.replace(placeholder, value)
        docs = [d for d in yaml.load_all(text, Loader=_Loader) if d is not None]
        name = _sanitize(os.path.splitext(os.path.basename(path))[0])
        for i, doc in enumerate(docs):
            bases.append(Base("up.%s.%d-%s" % (name, i, doc.get("kind", "doc")), "upstream",
                              "samples/upstream/%s (object %d)" % (os.path.basename(path), i), [doc]))
        if len(docs) > 1:
            bases.append(Base("set.%s" % name, "set", "samples/upstream/%s (closed set)" % os.path.basename(path),
                              docs))
    return bases


def composed_sets(bases):
    """Closed sets made of upstream samples that belong together: a Kueue setup and a job that uses its queue."""
    by_source = {}
    for b in bases:
        if b.origin == "set":
            by_source[b.id] = b
        elif b.origin == "upstream":
            by_source.setdefault(b.source.split(" ")[0], []).append(b)

    def docs_of(sample):
        return [b.docs[0] for b in by_source.get("samples/upstream/" + sample, [])]

    out = []
    for setup, job in (("kueue_single-clusterqueue-setup.yaml", "kueue_ray-cluster-sample.yaml"),
                       ("kueue_single-clusterqueue-setup.yaml", "kueue_ray-job-sample.yaml"),
                       ("appwrapper_hack_default-queues.yaml", "appwrapper_wrapped-job.yaml")):
        s, j = docs_of(setup), docs_of(job)
        if s and j:
            out.append(Base("set.%s+%s" % (_sanitize(setup[:-5]), _sanitize(job[:-5])), "set",
                            "samples/upstream/%s + %s (closed set)" % (setup, job), copy.deepcopy(s + j)))
    return out


def dump_docs(docs):
    """The file text of a corpus entry: JSON documents (YAML 1.2 reads JSON as is), one per line."""
    return "---\n".join(json.dumps(d, sort_keys=False, ensure_ascii=True) + "\n" for d in docs)
