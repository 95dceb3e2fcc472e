#!/usr/bin/env python3
"""Adapts upstream CustomResourceDefinitions so that kube-apiserver 1.20 (the test control plane) accepts them.

Usage: adapt-crds-for-1.20.py OUT_DIR CRD.yaml...
Writes OUT_DIR/<basename of each input>, one file per input, YAML.

Why each change (kube-apiserver 1.20 rejects or cannot evaluate the originals):
  * `default: ""` on string fields: 1.20 reads the empty-string default as null and rejects the CRD
    ('...default: Invalid value: "null": in body must be of type string'), so those defaults are removed.
  * list-map keys (x-kubernetes-list-type: map) must be required or defaulted in 1.20; a key that lost its
    `default: ""` above (imagePullSecrets[].name, for example) is added to the item's `required` list.
  * x-kubernetes-validations (CEL rules) are unknown to 1.20 and are dropped.
  * spec.versions[].selectableFields (1.30+) is unknown to 1.20 and is dropped.
Everything else, descriptions included, is kept as is.
"""
import os
import sys

import yaml

HEADER = (
    "# Adapted for kube-apiserver 1.20 (test control plane) by test/harness/adapt-crds-for-1.20.py:\n"
    "# empty-string defaults removed, list-map keys that had them made required, CEL rules and selectableFields\n"
    "# dropped.\n"
)


def adapt_schema(node):
    """Rewrites one OpenAPI v3 schema node, and the nodes below it, in place."""
    if isinstance(node, list):
        for item in node:
            adapt_schema(item)
        return
    if not isinstance(node, dict):
        return
    node.pop("x-kubernetes-validations", None)
    if node.get("default") == "":
        del node["default"]
    for key in ("properties", "patternProperties", "definitions"):
        for sub in (node.get(key) or {}).values():
            adapt_schema(sub)
    for key in ("items", "additionalProperties", "not"):
        if isinstance(node.get(key), (dict, list)):
            adapt_schema(node[key])
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in node.get(key) or []:
            adapt_schema(sub)
    if node.get("x-kubernetes-list-type") == "map" and isinstance(node.get("items"), dict):
        items = node["items"]
        props = items.get("properties") or {}
        required = items.get("required") or []
        for k in node.get("x-kubernetes-list-map-keys") or []:
            if k not in required and "default" not in (props.get(k) or {}):
                required.append(k)
        if required:
            items["required"] = required


def adapt_crd(doc):
    if not isinstance(doc, dict) or doc.get("kind") != "CustomResourceDefinition":
        return doc
    spec = doc.get("spec") or {}
    for version in spec.get("versions") or []:
        version.pop("selectableFields", None)
        schema = (version.get("schema") or {}).get("openAPIV3Schema")
        if schema is not None:
            adapt_schema(schema)
    # apiextensions.k8s.io/v1beta1 layout: one schema under spec.validation.
    schema = (spec.get("validation") or {}).get("openAPIV3Schema")
    if schema is not None:
        adapt_schema(schema)
    return doc


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    out_dir = argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            docs = [d for d in yaml.safe_load_all(f) if d is not None]
        docs = [adapt_crd(d) for d in docs]
        target = os.path.join(out_dir, os.path.basename(path))
        with open(target, "w", encoding="utf-8") as f:
            f.write(HEADER)
            yaml.safe_dump_all(docs, f, sort_keys=False, width=120, allow_unicode=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
