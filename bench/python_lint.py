#!/usr/bin/env python3
"""The Python lint step that `make bench` compares `codeflare-operator validate` with, end to end: load the CRD
file(s) with PyYAML's C loader, prepare each kind's openAPIV3Schema as bench/jsonschema_bench.py does, then read a
multi-document manifest file with the same loader and validate each document against its kind's schema with
python3-jsonschema (Draft4Validator).

Usage: python_lint.py MANIFEST CRD_FILE...
Output: one line "documents=D errors=E" on stdout; exit 0 when no document has an error, 1 otherwise, 2 when a
document's kind has no schema in the CRD files.
"""
import os
import sys

import jsonschema
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jsonschema_bench import prepare  # noqa: E402  (the same schema preparation as the per-object figure)

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def main(argv):
    manifest, crd_files = argv[1], argv[2:]
    schemas = {}
    for path in crd_files:
        with open(path, encoding="utf-8") as f:
            for d in yaml.load_all(f, Loader=Loader):
                if not isinstance(d, dict) or d.get("kind") != "CustomResourceDefinition":
                    continue
                spec = d["spec"]
                for v in spec["versions"]:
                    key = ("%s/%s" % (spec["group"], v["name"]), spec["names"]["kind"])
                    schemas[key] = v["schema"]["openAPIV3Schema"]
    validators = {}
    documents = errors = 0
    with open(manifest, encoding="utf-8") as f:
        for doc in yaml.load_all(f, Loader=Loader):
            if not doc:
                continue
            documents += 1
            key = (doc.get("apiVersion"), doc.get("kind"))
            if key not in validators:
                if key not in schemas:
                    sys.stderr.write("no schema for %s %s\n" % key)
                    return 2
                validators[key] = jsonschema.Draft4Validator(prepare(schemas[key]))
            errors += sum(1 for _ in validators[key].iter_errors(doc))
    print("documents=%d errors=%d" % (documents, errors))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
