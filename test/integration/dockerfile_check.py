#!/usr/bin/env python3
"""Checks the Dockerfile without a container engine: the image would build and its binary would run.

Usage: dockerfile_check.py [--keep]

1. The build stage runs as written, outside a container: a scratch folder receives exactly what its COPY lines copy
   from the checkout (into its WORKDIR), its ARGs come from the environment (UPSTREAM_CRDS, as `--build-arg`), each
   RUN runs there with /bin/sh -c, as Docker runs it. An `apt-get install` is not run: each package it names must be
   installed on this machine instead (the build then uses them, as the image would).
2. What the runtime stage copies from the build stage (COPY --from=build SRC DST) exists after the build.
3. Every shared library the built binary loads (ldd) belongs to a Debian package that the runtime stage installs, or
   to one that debian:bookworm-slim already holds (BASE_PACKAGES).
4. The binary, laid out as the runtime stage lays it out, starts (`--help`) and finds the schemas that ship with it
   (`validate` of config/samples/ without --crds).
Inputs: the checkout (found from this file), UPSTREAM_CRDS (optional: without it the build stage fetches the pinned
CRDs, which needs network). Output: one line per check; exit 1 when a check fails. --keep leaves the scratch folder.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# Packages every debian:bookworm-slim image holds (essential, or needed by apt itself), so a runtime stage need not
# install them.
BASE_PACKAGES = {"libc6", "libgcc-s1", "libstdc++6", "zlib1g"}

failed = 0


def ok(msg):
    print(f"ok   {msg}")


def fail(msg):
    global failed
    failed += 1
    print(f"FAIL {msg}")


def instructions(path):
    """(keyword, argument text) per instruction, with line continuations joined and comments dropped."""
    out, pending = [], ""
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not pending and (not line.strip() or line.lstrip().startswith("#")):
                continue
            if line.rstrip().endswith("\\"):
                pending += line.rstrip()[:-1] + " "
                continue
            pending += line
            keyword, _, rest = pending.strip().partition(" ")
            out.append((keyword.upper(), rest.strip()))
            pending = ""
    return out


def stages(instrs):
    """[(name, [(keyword, arg), ...])] in order; a stage without AS is named by its index."""
    result = []
    for keyword, arg in instrs:
        if keyword == "FROM":
            m = re.match(r"(\S+)(?:\s+AS\s+(\S+))?", arg, re.IGNORECASE)
            result.append((m.group(2) or str(len(result)), []))
        elif result:
            result[-1][1].append((keyword, arg))
    return result


def apt_packages(command):
    """The packages an `apt-get install` in a RUN names, or None when the RUN installs nothing."""
    m = re.search(r"apt-get install ([^&;|]*)", command)
    if not m:
        return None
    return [w for w in m.group(1).split() if not w.startswith("-") and w != "\\"]


def installed(package):
    r = subprocess.run(["dpkg-query", "-W", "-f=${db:Status-Status}", package], capture_output=True, text=True)
    return r.returncode == 0 and r.stdout.strip() == "installed"


def copy_into(src_rel, dst, workdir):
    """Docker's COPY of a path of the build context into `dst` (relative to `workdir`)."""
    src = os.path.join(REPO, src_rel)
    target = dst if os.path.isabs(dst) else os.path.join(workdir, dst)
    if os.path.isdir(src):
        shutil.copytree(src, target, dirs_exist_ok=True)
    else:
        if dst.endswith("/") or os.path.isdir(target):
            os.makedirs(target, exist_ok=True)
            target = os.path.join(target, os.path.basename(src))
        else:
            os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(src, target)


def package_of(lib):
    """The Debian package that holds `lib` (tries the path as given, resolved, and with/without /usr: merged /usr)."""
    candidates = [lib, os.path.realpath(lib)]
    for c in list(candidates):
        candidates.append(c[4:] if c.startswith("/usr/") else "/usr" + c)
    for c in candidates:
        r = subprocess.run(["dpkg", "-S", c], capture_output=True, text=True)
        if r.returncode == 0 and r.stdout:
            return r.stdout.split(":")[0].strip()
    return None


def main():
    keep = "--keep" in sys.argv[1:]
    scratch = tempfile.mkdtemp(prefix="cfo-dockerfile-")
    try:
        run_checks(scratch)
    finally:
        if keep:
            print(f"scratch folder kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"{'all checks passed' if failed == 0 else f'{failed} check(s) failed'}")
    return 1 if failed else 0


def run_checks(scratch):
    all_stages = stages(instructions(os.path.join(REPO, "Dockerfile")))
    if len(all_stages) < 2:
        fail(f"expected a build stage and a runtime stage, found {len(all_stages)}")
        return
    build_name, build = all_stages[0]
    runtime_name, runtime = all_stages[-1]

    # --- 1. the build stage ---
    root = os.path.join(scratch, "build-root")
    workdir = root
    env = dict(os.environ)
    for keyword, arg in build:
        if keyword == "WORKDIR":
            workdir = os.path.join(root, arg.lstrip("/"))
            os.makedirs(workdir, exist_ok=True)
        elif keyword == "COPY":
            parts = shlex.split(arg)
            if any(p.startswith("--from") for p in parts):
                fail(f"build stage: COPY --from is not handled by this check: {arg}")
                return
            *sources, dst = parts
            for src in sources:
                if not os.path.exists(os.path.join(REPO, src)):
                    fail(f"build stage: COPY {src}: no such path in the checkout")
                    return
                copy_into(src, dst, workdir)
        elif keyword == "ARG":
            name, _, default = arg.partition("=")
            env.setdefault(name, default)
        elif keyword == "ENV":
            name, _, value = arg.partition("=")
            env[name] = value
        elif keyword == "RUN":
            packages = apt_packages(arg)
            if packages is not None:
                missing = [p for p in packages if not installed(p)]
                if missing:
                    fail(f"build stage: packages it installs are missing here, so its build cannot be checked: {missing}")
                    return
                ok(f"build stage: the {len(packages)} packages it installs are those this build uses")
                continue
            r = subprocess.run(["/bin/sh", "-c", arg], cwd=workdir, env=env, capture_output=True, text=True)
            if r.returncode != 0:
                fail(f"build stage: RUN failed (exit {r.returncode}): {arg[:200]}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
                return
            ok(f"build stage: RUN {arg[:90]}{'...' if len(arg) > 90 else ''}")

    # --- 2. what the runtime stage copies, and its packages ---
    runtime_packages = []
    image = os.path.join(scratch, "image")
    for keyword, arg in runtime:
        if keyword == "RUN":
            runtime_packages += apt_packages(arg) or []
        if keyword != "COPY":
            continue
        parts = shlex.split(arg)
        frm = [p for p in parts if p.startswith("--from=")]
        if not frm:
            continue
        if frm[0] != f"--from={build_name}":
            fail(f"runtime stage copies from {frm[0]}, not from the build stage {build_name}")
            continue
        src, dst = [p for p in parts if not p.startswith("--")]
        src_path = os.path.join(root, src.lstrip("/"))
        if not os.path.exists(src_path):
            fail(f"runtime stage: COPY --from={build_name} {src}: the build stage did not make it")
            continue
        target = os.path.join(image, dst.lstrip("/"))
        if os.path.isdir(src_path):
            shutil.copytree(src_path, target, dirs_exist_ok=True)
        else:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(src_path, target)
        ok(f"runtime stage: COPY --from={build_name} {src} exists after the build")

    entry = [a for k, a in runtime if k == "ENTRYPOINT"]
    binary_in_image = shlex.split(entry[-1].strip("[]").replace(",", " "))[0].strip('"') if entry else ""
    binary = os.path.join(image, binary_in_image.lstrip("/"))
    if not os.path.isfile(binary):
        fail(f"the ENTRYPOINT {binary_in_image or '(none)'} is not in the image")
        return

    # --- 3. the shared libraries ---
    r = subprocess.run(["ldd", binary], capture_output=True, text=True)
    libs = re.findall(r"=>\s+(/\S+)", r.stdout)
    if r.returncode != 0 or not libs:
        fail(f"ldd {binary}: {r.stdout}{r.stderr}")
        return
    allowed = set(runtime_packages) | BASE_PACKAGES
    uncovered = []
    for lib in libs:
        pkg = package_of(lib)
        if pkg is None or pkg not in allowed:
            uncovered.append(f"{lib} ({pkg or 'no package'})")
    if uncovered:
        fail(f"runtime stage ({runtime_name}) does not install the packages of: {', '.join(uncovered)}")
    else:
        ok(f"runtime stage: the {len(libs)} shared libraries of the binary come from its packages or the base image")

    # --- 4. the binary runs and finds its schemas ---
    r = subprocess.run([binary, "--help"], capture_output=True, text=True)
    if r.returncode == 0 and "validate" in r.stdout + r.stderr:
        ok("the binary in the image layout starts (--help)")
    else:
        fail(f"{binary} --help: exit {r.returncode}: {r.stdout[-500:]}{r.stderr[-500:]}")
    r = subprocess.run([binary, "validate", "-f", os.path.join(REPO, "config", "samples")], capture_output=True,
                       text=True)
    if r.returncode == 0 and "object(s) valid" in r.stdout:
        ok("the binary in the image layout validates config/samples/ with the schemas that ship with it")
    else:
        fail(f"validate without --crds in the image layout: exit {r.returncode}: {r.stdout[-800:]}{r.stderr[-800:]}")


if __name__ == "__main__":
    sys.exit(main())
