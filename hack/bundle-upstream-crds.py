#!/usr/bin/env python3
"""Bundles the pinned upstream CRDs into the schema file that ships with codeflare-operator.

Usage: bundle-upstream-crds.py UPSTREAM_DIR OUT_JSON

UPSTREAM_DIR is a folder laid out like shared/crds/upstream (or its parent, holding upstream/): the CRD files at its
top level (the pinned KubeRay, AppWrapper and Kueue releases; sub-folders of older releases are not bundled).
OUT_JSON is written as one compact JSON `v1 List` of those CustomResourceDefinitions, sorted by name, keeping only
what validation reads: every `description` of the schemas (and of the CRD's printer columns) is dropped, so the
bundle holds schema facts (types, formats, constraints, defaults, CEL rules), not upstream prose. A property that is
named "description" (under `properties`) is a field, not a description, and is kept.
`render`, `validate` and the Argo CD plugin read the bundle when no --crds is given.
Exit 0 on success, 1 when the folder holds no CRD.
"""
import json
import os
import sys

import yaml


def strip(node, under_properties=False):
    """`node` without description keywords; keys of a `properties` map are field names and are all kept."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "description" and not under_properties:
                continue
            out[key] = strip(value, under_properties=key in ("properties", "patternProperties")
                             and not under_properties)
        return out
    if isinstance(node, list):
        return [strip(item) for item in node]
    return node


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    src, out_path = argv[1], argv[2]
    if os.path.isdir(os.path.join(src, "upstream")):
        src = os.path.join(src, "upstream")
    crds = []
    for name in sorted(os.listdir(src)):
        path = os.path.join(src, name)
        if not name.endswith((".yaml", ".yml")) or not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            for doc in yaml.safe_load_all(f):
                if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
                    crds.append(strip(doc))
    if not crds:
        sys.stderr.write(f"bundle-upstream-crds.py: no CustomResourceDefinition in {src}\n")
        return 1
    crds.sort(key=lambda c: c.get("metadata", {}).get("name", ""))
    bundle = {"apiVersion": "v1", "kind": "List", "items": crds}
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    tmp = out_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(bundle, f, separators=(",", ":"), sort_keys=False)
        f.write("\n")
    os.replace(tmp, out_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
