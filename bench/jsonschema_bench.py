#!/usr/bin/env python3
"""The python3-jsonschema side of validate_bench: validates one object against the openAPIV3Schema of a CRD, N
times, and prints one JSON line with the figures.

Usage: jsonschema_bench.py CRD_FILE API_VERSION KIND OBJECT_JSON N

The structural schema is turned into a draft-04 JSON Schema the way controller/validation/schema_set.cpp prepares
it for RapidJSON, so that both sides check the same thing:
  * `nullable: true` -> type [T, "null"];
  * `x-kubernetes-int-or-string` without anyOf -> anyOf integer/string;
  * a required property that has a default is not required (the apiserver defaults first);
  * an object with `properties`, without `additionalProperties` and `x-kubernetes-preserve-unknown-fields`, gets
    `additionalProperties: false` (unknown fields are errors, as the validator reports them; an embedded resource
    keeps apiVersion, kind and metadata);
  * descriptions, CEL rules and the other x-kubernetes-* extensions are dropped; formats are not checked (neither
    does RapidJSON).
Output: {"iterations": N, "seconds": S, "errors": E, "jsonschema": VERSION} where E is the number of errors found
in the object (the same every iteration; a realistic valid object has 0).
"""
import json
import sys
import time

import jsonschema
import yaml

try:
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader


def prepare(node):
    if isinstance(node, list):
        return [prepare(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for k, v in node.items():
        if k in ("description", "x-kubernetes-validations", "nullable") or k.startswith("x-kubernetes-"):
            continue
        if k == "properties":
            out[k] = {name: prepare(sub) for name, sub in v.items()}
        elif k in ("items", "additionalProperties", "not", "allOf", "anyOf", "oneOf"):
            out[k] = prepare(v)
        else:
            out[k] = v
    if node.get("nullable") and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
        if "enum" in out:
            out["enum"] = list(out["enum"]) + [None]
    if node.get("x-kubernetes-int-or-string") and "anyOf" not in out:
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if "required" in out:
        props = node.get("properties") or {}
        out["required"] = [r for r in out["required"] if "default" not in (props.get(r) or {})]
        if not out["required"]:
            del out["required"]
    if ("properties" in node and "additionalProperties" not in node
            and not node.get("x-kubernetes-preserve-unknown-fields")):
        if node.get("x-kubernetes-embedded-resource"):
            for k in ("apiVersion", "kind", "metadata"):
                out["properties"].setdefault(k, {})
        out["additionalProperties"] = False
    return out


def main(argv):
    crd_file, api_version, kind, object_file, n = argv[1], argv[2], argv[3], argv[4], int(argv[5])
    with open(crd_file, encoding="utf-8") as f:
        docs = list(yaml.load_all(f, Loader=_Loader))
    group, version = api_version.split("/", 1)
    schema = None
    for d in docs:
        if not isinstance(d, dict) or d.get("kind") != "CustomResourceDefinition":
            continue
        spec = d["spec"]
        if spec.get("group") != group or spec["names"]["kind"] != kind:
            continue
        for v in spec["versions"]:
            if v["name"] == version:
                schema = v["schema"]["openAPIV3Schema"]
    if schema is None:
        sys.stderr.write("no schema for %s %s in %s\n" % (api_version, kind, crd_file))
        return 2
    with open(object_file, encoding="utf-8") as f:
        obj = json.load(f)
    validator_cls = jsonschema.Draft4Validator
    t0 = time.perf_counter()
    prepared = prepare(schema)
    validator_cls.check_schema(prepared)
    validator = validator_cls(prepared)
    setup = time.perf_counter() - t0
    errors = sorted(validator.iter_errors(obj), key=lambda e: list(e.absolute_path))  # warm-up, and the verdict
    t0 = time.perf_counter()
    for _ in range(n):
        for _ in validator.iter_errors(obj):
            pass
    seconds = time.perf_counter() - t0
    try:
        from importlib.metadata import version as pkg_version
        jv = pkg_version("jsonschema")
    except Exception:  # pragma: no cover
        jv = getattr(jsonschema, "__version__", "?")
    print(json.dumps({"iterations": n, "seconds": seconds, "setup_seconds": setup, "errors": len(errors),
                      "first_errors": ["%s: %s" % ("/".join(map(str, e.absolute_path)), e.message[:120])
                                       for e in errors[:3]],
                      "jsonschema": jv, "python": sys.version.split()[0]}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
