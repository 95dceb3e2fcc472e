#!/usr/bin/env bash
# Checks test/harness/adapt-crds-for-1.20.py against the hand-checked adaptation kept in the shared data folder:
# for every file in <crds>/apiserver-1.20/, adapting the upstream original of the same name (in <crds>/upstream/ or
# one of its sub-folders, which hold other upstream releases) must give the same objects, compared as parsed YAML.
#
# Inputs: UPSTREAM_CRDS (a folder with upstream/ and apiserver-1.20/), else CFO_SHARED_DIR/crds.
# Output: one line per file; exit 0 when all match, 1 otherwise. Exits 0 with "skipped" when neither is set.
# Needs no API server.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../harness/lib.sh"

crds="${UPSTREAM_CRDS:-}"
[[ -z "$crds" && -n "${CFO_SHARED_DIR:-}" ]] && crds="$CFO_SHARED_DIR/crds"
if [[ -z "$crds" || ! -d "$crds/apiserver-1.20" || ! -d "$crds/upstream" ]]; then
  echo "skipped: set UPSTREAM_CRDS or CFO_SHARED_DIR to a folder with upstream/ and apiserver-1.20/"
  exit 0
fi

py="$(cfo_python)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$py" - "$CFO_HARNESS_DIR/adapt-crds-for-1.20.py" "$crds" "$work" <<'PY'
import glob, os, subprocess, sys, yaml

adapter, crds, work = sys.argv[1:4]

def load(path):
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]

def first_difference(a, b, path=""):
    if type(a) is not type(b):
        return f"{path or '/'}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                return f"{path}/{k}: only in {'adapted' if k in a else 'expected'}"
            d = first_difference(a[k], b[k], f"{path}/{k}")
            if d:
                return d
    elif isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: list of {len(a)} vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}/{i}")
            if d:
                return d
    elif a != b:
        return f"{path}: {a!r} vs {b!r}"
    return None

failed = 0
expected_files = sorted(glob.glob(os.path.join(crds, "apiserver-1.20", "*.yaml")))
if not expected_files:
    print(f"no files in {crds}/apiserver-1.20")
    sys.exit(1)
for expected_path in expected_files:
    name = os.path.basename(expected_path)
    expected = load(expected_path)
    candidates = [os.path.join(crds, "upstream", name)] + sorted(glob.glob(os.path.join(crds, "upstream", "*", name)))
    candidates = [c for c in candidates if os.path.isfile(c)]
    notes = []
    for i, cand in enumerate(candidates):
        out = os.path.join(work, str(i))
        subprocess.run([sys.executable, adapter, out, cand], check=True)
        diff = first_difference(load(os.path.join(out, name)), expected)
        if diff is None:
            print(f"ok   {name} (from {os.path.relpath(cand, crds)})")
            break
        notes.append(f"{os.path.relpath(cand, crds)}: {diff}")
    else:
        failed += 1
        print(f"FAIL {name}")
        for n in notes or ["no upstream original found"]:
            print(f"       {n}")
print(f"{len(expected_files) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
