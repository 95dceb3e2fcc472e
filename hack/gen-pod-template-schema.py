#!/usr/bin/env python3
"""Writes the Pod template schema of the CodeFlareWorkload CRD from the pinned KubeRay CRD.

Usage: gen-pod-template-schema.py [--check] UPSTREAM_DIR [CRD.yaml]

UPSTREAM_DIR is a folder laid out like shared/crds (holding upstream/) or that upstream/ folder itself; the source is
its ray.io_rayclusters.yaml, version v1, at spec.headGroupSpec.template: a core/v1 PodTemplateSpec as KubeRay v1.7
publishes it. CRD.yaml (default: crds/codeflare.dev_codeflareworkloads.yaml of this checkout) holds blocks between the
lines `# BEGIN generated PodTemplateSpec ...` and `# END generated PodTemplateSpec`; each block is replaced by the
`properties` of the schema, indented like its BEGIN line. Everything outside the blocks is left as written.

What is kept and what changes (the schema's facts are kept: types, formats, enums, patterns, required members, list
and map types, list-map keys, int-or-string, non-empty defaults):
  * every `description` is dropped; ours are added for the template's top levels (DESCRIPTIONS below);
  * `spec.containers` is not required: a template here is a fragment merged over the Pod the operator generates;
  * `spec.ephemeralContainers` becomes an array of at most 0 items: a Pod template cannot carry them (core/v1
    ValidatePodTemplateSpec), and a refusal says so where pruning would drop them silently;
  * for kube-apiserver 1.20 (the test control plane), as test/harness/adapt-crds-for-1.20.py does for the upstream
    CRDs: empty-string defaults are dropped, a list-map key that had one becomes required, and CEL rules
    (x-kubernetes-validations) are dropped (the operator validates every merged template itself).
Exit 0 when written (or, with --check, when the file is up to date); 1 when --check finds it out of date or the file
has no block; 2 on a usage error.
"""
import copy
import os
import sys
import textwrap

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CRD = os.path.join(HERE, "..", "crds", "codeflare.dev_codeflareworkloads.yaml")
BEGIN = "# BEGIN generated PodTemplateSpec"
END = "# END generated PodTemplateSpec"

# Our descriptions, by path below the template ("spec.affinity"). Upstream's are not copied.
DESCRIPTIONS = {
    "metadata": "Labels and annotations added to the Pods (merged over the operator's).",
    "metadata.labels": "Pod labels. ray.io/cluster, ray.io/group, ray.io/node-type and the operator's own keys are "
                       "refused.",
    "metadata.annotations": "Pod annotations. The Kueue topology annotations are set through `topology`.",
    "metadata.name": "Not used: KubeRay names the Pods; refused.",
    "metadata.namespace": "Not used: the Pods run in the workload's namespace; refused.",
    "metadata.finalizers": "Finalizers of the Pods.",
    "spec": "A fragment of a core/v1 PodSpec, merged over the generated one with strategic-merge semantics.",
    "spec.containers": "Containers, merged by name: an entry named like a generated container (the Ray container "
                       "ray-head or machine-learning, the submitter ray-job-submitter) changes it; any other name adds "
                       "a container (a sidecar). The Ray container's command, args and resources are the operator's.",
    "spec.initContainers": "Init containers, merged by name; restartPolicy Always makes one a sidecar that runs "
                           "beside the Ray container.",
    "spec.ephemeralContainers": "Not allowed: a Pod template cannot carry ephemeral containers.",
    "spec.volumes": "Volumes, merged by name with spec.volumes and the operator's.",
    "spec.imagePullSecrets": "Image pull secrets, merged by name with spec.imagePullSecrets.",
    "spec.tolerations": "Tolerations; this list replaces the group's `tolerations`.",
    "spec.nodeSelector": "Node labels the Pods must match.",
    "spec.affinity": "Node affinity, Pod affinity and anti-affinity of the Pods.",
    "spec.topologySpreadConstraints": "How the Pods spread over topology domains, merged by topologyKey.",
    "spec.priorityClassName": "The Kubernetes PriorityClass of the Pods (not Kueue's WorkloadPriorityClass, which is "
                              "queue.priorityClass).",
    "spec.serviceAccountName": "The ServiceAccount the Pods run as.",
    "spec.schedulerName": "The scheduler that places the Pods.",
    "spec.securityContext": "Pod-level security attributes.",
    "spec.runtimeClassName": "The RuntimeClass of the Pods.",
    "spec.restartPolicy": "Restart policy of the Pods' containers (Always, OnFailure, Never).",
    "spec.resources": "Pod-level resource requests and limits (PodLevelResources).",
}


def strip(node, under_properties=False):
    """`node` without description keywords (a property named "description" is a field and is kept)."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "description" and not under_properties:
                continue
            out[key] = strip(value, under_properties=key == "properties" and not under_properties)
        return out
    if isinstance(node, list):
        return [strip(item) for item in node]
    return node


def adapt_for_1_20(node):
    """Empty-string defaults and CEL rules out; list-map keys required unless defaulted (in place)."""
    if isinstance(node, list):
        for item in node:
            adapt_for_1_20(item)
        return
    if not isinstance(node, dict):
        return
    node.pop("x-kubernetes-validations", None)
    if node.get("default") == "":
        del node["default"]
    for sub in (node.get("properties") or {}).values():
        adapt_for_1_20(sub)
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            adapt_for_1_20(node[key])
    for sub in node.get("anyOf") or []:
        adapt_for_1_20(sub)
    if node.get("x-kubernetes-list-type") == "map" and isinstance(node.get("items"), dict):
        items = node["items"]
        props = items.get("properties") or {}
        required = list(items.get("required") or [])
        for k in node.get("x-kubernetes-list-map-keys") or []:
            if k not in required and "default" not in (props.get(k) or {}):
                required.append(k)
        if required:
            items["required"] = required


class Folded(str):
    """A description, written as a folded block (`>-`) so that long ones wrap within the file's width."""


def folded_representer(dumper, data):
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(data), style=">")


def with_description(node, text):
    """`node` with `description` placed after `type` (kubectl explain shows it)."""
    out = {}
    for key, value in node.items():
        out[key] = value
        if key == "type":
            out["description"] = Folded(text)
    if "description" not in out:
        out = {"description": Folded(text), **out}
    return out


def describe(template):
    for path, text in DESCRIPTIONS.items():
        parent, node_key = template, None
        steps = path.split(".")
        for step in steps[:-1]:
            parent = parent["properties"][step]
        node_key = steps[-1]
        if node_key in parent.get("properties", {}):
            parent["properties"][node_key] = with_description(parent["properties"][node_key], text)


def pod_template_schema(upstream_dir):
    """The `properties` of our template schema, from KubeRay's head template."""
    if os.path.isdir(os.path.join(upstream_dir, "upstream")):
        upstream_dir = os.path.join(upstream_dir, "upstream")
    path = os.path.join(upstream_dir, "ray.io_rayclusters.yaml")
    with open(path, encoding="utf-8") as f:
        crd = yaml.safe_load(f)
    version = next(v for v in crd["spec"]["versions"] if v["name"] == "v1")
    template = version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["headGroupSpec"][
        "properties"]["template"]
    template = strip(copy.deepcopy(template))
    adapt_for_1_20(template)
    spec = template["properties"]["spec"]
    spec.pop("required", None)
    spec["properties"]["ephemeralContainers"] = {"type": "array", "maxItems": 0,
                                                 "items": {"type": "object"}}
    describe(template)
    return template["properties"]


class IndentedDumper(yaml.SafeDumper):
    """Block lists indented under their key, as the rest of the CRD is written."""

    def increase_indent(self, flow=False, indentless=False):
        return super().increase_indent(flow, False)


IndentedDumper.add_representer(Folded, folded_representer)


def rewrap_folded(lines, limit):
    """Folded descriptions re-wrapped so that no line is longer than `limit` columns."""
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if not line.rstrip().endswith(("description: >-", "description: >")):
            continue
        body = []
        while i < len(lines) and lines[i].startswith(" ") and len(lines[i]) - len(lines[i].lstrip()) > \
                len(line) - len(line.lstrip()):
            body.append(lines[i])
            i += 1
        pad = " " * (len(body[0]) - len(body[0].lstrip())) if body else ""
        words = " ".join(b.strip() for b in body)
        out.extend(pad + w for w in textwrap.wrap(words, max(40, limit - len(pad)), break_long_words=False,
                                                  break_on_hyphens=False))
    return out


def render_block(properties, indent):
    text = yaml.dump({"properties": properties}, Dumper=IndentedDumper, sort_keys=False, width=118 - indent,
                     default_flow_style=False, allow_unicode=True)
    pad = " " * indent
    return "".join(pad + line + "\n" for line in rewrap_folded(text.splitlines(), 120 - indent))


def rewrite(crd_text, properties):
    """`crd_text` with every generated block replaced; the number of blocks."""
    out, lines, i, blocks = [], crd_text.splitlines(keepends=True), 0, 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if line.strip().startswith(BEGIN):
            indent = len(line) - len(line.lstrip(" "))
            while i < len(lines) and not lines[i].strip().startswith(END):
                i += 1
            if i == len(lines):
                raise ValueError("a block has no END line")
            out.append(render_block(properties, indent))
            out.append(lines[i])
            i += 1
            blocks += 1
    return "".join(out), blocks


def main(argv):
    args = argv[1:]
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    if not 1 <= len(args) <= 2:
        sys.stderr.write(__doc__)
        return 2
    crd_path = args[1] if len(args) == 2 else DEFAULT_CRD
    with open(crd_path, encoding="utf-8") as f:
        before = f.read()
    after, blocks = rewrite(before, pod_template_schema(args[0]))
    if blocks == 0:
        sys.stderr.write(f"{crd_path}: no '{BEGIN}' block\n")
        return 1
    if check:
        if after != before:
            sys.stderr.write(f"{crd_path}: the generated PodTemplateSpec blocks are out of date "
                             f"(run hack/gen-pod-template-schema.py {args[0]})\n")
            return 1
        return 0
    with open(crd_path, "w", encoding="utf-8") as f:
        f.write(after)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
