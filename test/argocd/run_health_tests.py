#!/usr/bin/env python3
"""Runs deploy/argocd/health.lua under a Lua 5.1 interpreter against the cases of test/argocd/health_test.yaml.

Argo CD runs health scripts in gopher-lua (Lua 5.1) with the live object, decoded from JSON, as the global `obj`,
and only the safe base, string, table and math libraries. Here each fixture is turned into a Lua table literal the
same way (JSON null -> absent key, arrays -> 1-based tables), and the script runs in an environment holding only
those libraries, so a script that reaches for os, io or require fails here as it would in Argo CD.

Checks, one line each:
  - every case gives the expected status and message, and the status is one Argo CD knows;
  - every phase in the CRD's status.phase enum has a case with a fresh status (observedGeneration = generation)
    that maps to something other than Unknown;
  - the argocd-cm snippet (deploy/argocd/argocd-cm-health.yaml) embeds exactly health.lua under
    data["resource.customizations.health.codeflare.dev_CodeFlareWorkload"].
Usage: run_health_tests.py REPO_DIR LUA_INTERPRETER. Prints "N passed, N failed"; exit 1 when anything failed.
"""
import math
import os
import subprocess
import sys
import tempfile

import yaml

ARGO_STATUSES = {"Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown"}
CM_KEY = "resource.customizations.health.codeflare.dev_CodeFlareWorkload"

# Runs SCRIPT (arg 1) with `obj` and the safe libraries only; prints status, a newline, then the message.
HARNESS = r"""
local script, obj = ...
local env = {
  obj = obj, ipairs = ipairs, pairs = pairs, next = next, select = select, type = type,
  tostring = tostring, tonumber = tonumber, error = error, assert = assert, pcall = pcall, unpack = unpack,
  string = string, table = table, math = math,
}
local chunk, err = loadfile(script)
if chunk == nil then io.stderr:write("load: ", err, "\n") os.exit(3) end
setfenv(chunk, env)
local ok, hs = pcall(chunk)
if not ok then io.stderr:write("run: ", tostring(hs), "\n") os.exit(4) end
if type(hs) ~= "table" then io.stderr:write("returned ", type(hs), ", not a table\n") os.exit(5) end
if type(hs.status) ~= "string" or type(hs.message) ~= "string" then
  io.stderr:write("status/message are ", type(hs.status), "/", type(hs.message), ", not strings\n") os.exit(6)
end
io.write(hs.status, "\n", hs.message)
"""


class StringDatesLoader(yaml.SafeLoader):
    """Safe loader that keeps timestamps as strings, as JSON does."""


StringDatesLoader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def lua_string(s):
    out = ['"']
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append("\\%03d" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def lua_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            raise ValueError("NaN/Inf are not JSON")
        return repr(v)
    if isinstance(v, str):
        return lua_string(v)
    if isinstance(v, list):
        return "{" + ", ".join(lua_value(x) for x in v if x is not None) + "}"
    if isinstance(v, dict):
        return "{" + ", ".join(f"[{lua_string(str(k))}] = {lua_value(x)}" for k, x in v.items() if x is not None) + "}"
    raise ValueError(f"cannot express {type(v).__name__} in JSON")


def run_script(lua, script, obj, work):
    prog = os.path.join(work, "case.lua")
    with open(prog, "w", encoding="utf-8") as f:
        f.write("local obj = " + ("nil" if obj is None else lua_value(obj)) + "\n")
        f.write("local harness = loadstring(" + lua_string(HARNESS) + ")\n")
        f.write("harness(" + lua_string(script) + ", obj)\n")
    r = subprocess.run([lua, prog], capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        return None, None, r.stderr.strip() or f"exit {r.returncode}"
    status, _, message = r.stdout.partition("\n")
    return status, message, None


def main():
    repo, lua = sys.argv[1], sys.argv[2]
    script = os.path.join(repo, "deploy/argocd/health.lua")
    here = os.path.join(repo, "test/argocd")
    passed = failed = 0

    def result(ok, msg):
        nonlocal passed, failed
        print(("ok   " if ok else "FAIL ") + msg)
        if ok:
            passed += 1
        else:
            failed += 1

    with open(os.path.join(here, "health_test.yaml"), encoding="utf-8") as f:
        cases = yaml.safe_load(f)["tests"]
    fresh_phases = {}
    with tempfile.TemporaryDirectory() as work:
        for case in cases:
            path = case["inputPath"]
            with open(os.path.join(here, path), encoding="utf-8") as f:
                obj = yaml.load(f, Loader=StringDatesLoader)
            want = case["healthStatus"]
            status, message, err = run_script(lua, script, obj, work)
            if err:
                result(False, f"{path}: the script failed: {err}")
                continue
            problems = []
            if status not in ARGO_STATUSES:
                problems.append(f"status {status!r} is not an Argo CD health status")
            if status != want["status"]:
                problems.append(f"status {status!r}, want {want['status']!r}")
            if message != want["message"]:
                problems.append(f"message {message!r}, want {want['message']!r}")
            result(not problems, f"{path}: {status}: {message}" + (f" -- {'; '.join(problems)}" if problems else ""))
            st = obj.get("status") or {}
            gen = (obj.get("metadata") or {}).get("generation")
            if st.get("phase") and st.get("observedGeneration") == gen and status != "Unknown":
                fresh_phases.setdefault(st["phase"], status)

    # Every phase the CRD can report has a case.
    with open(os.path.join(repo, "crds/codeflare.dev_codeflareworkloads.yaml"), encoding="utf-8") as f:
        crd = next(d for d in yaml.safe_load_all(f) if isinstance(d, dict))
    version = crd["spec"]["versions"][0]
    phases = version["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"]["phase"].get("enum") or []
    missing = [p for p in phases if p not in fresh_phases]
    result(bool(phases) and not missing,
           f"every status.phase of the CRD ({', '.join(phases)}) has a case: "
           + (f"missing {missing}" if missing else ", ".join(f"{p}->{fresh_phases[p]}" for p in phases)))

    # The argocd-cm snippet carries exactly the standalone script.
    with open(script, encoding="utf-8") as f:
        text = f.read()
    cm_path = os.path.join(repo, "deploy/argocd/argocd-cm-health.yaml")
    with open(cm_path, encoding="utf-8") as f:
        cm = yaml.safe_load(f)
    embedded = ((cm or {}).get("data") or {}).get(CM_KEY)
    ok = cm.get("kind") == "ConfigMap" and cm.get("metadata", {}).get("name") == "argocd-cm" and embedded == text
    detail = "identical to health.lua" if ok else (
        f"kind {cm.get('kind')!r}, name {cm.get('metadata', {}).get('name')!r}, "
        + ("key missing" if embedded is None else
           f"embedded script differs from health.lua (first difference at character "
           f"{next((i for i, (a, b) in enumerate(zip(embedded, text)) if a != b), min(len(embedded), len(text)))})"))
    result(ok, f"argocd-cm-health.yaml data[{CM_KEY}]: {detail}")

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
