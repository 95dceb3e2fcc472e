#!/usr/bin/env python3
"""The layering check's own test: it passes on a copy of controller/, and fails on copies broken on purpose.

Cases, each on a fresh copy of controller/ in a temporary folder:
  - unchanged: exit 0;
  - core/names.cpp includes "workload/status.hpp" (a layer above): exit 1, the finding names the file and line;
  - the same through a relative path ("../workload/status.hpp"): exit 1;
  - runtime's target_link_libraries loses cfo_client: runtime's includes of client/ headers are refused, so the
    allowed edges come from CMake;
  - core links cfo_workload (a cycle core -> ... -> workload -> core): the cycle is reported;
  - an include of a project header that does not exist ("core/gone.hpp"): reported.
Usage: check_layering_selftest.py [--root REPO]. Prints one line per case; exit 0 when every case holds.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "check_layering.py")


def run_check(root):
    p = subprocess.run([sys.executable, CHECK, "--root", root], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def append_line(path, line):
    with open(path, "a", encoding="utf-8") as f:
        f.write(line + "\n")


def edit(path, old, new):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    changed = re.sub(old, new, text, count=1)
    assert changed != text, f"{path}: nothing matched {old!r}"
    with open(path, "w", encoding="utf-8") as f:
        f.write(changed)


def lines_of(path):
    with open(path, encoding="utf-8") as f:
        return sum(1 for _ in f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(HERE, "..", ".."))
    src = os.path.join(os.path.abspath(parser.parse_args().root), "controller")

    def case_unchanged(root):
        return 0, []

    def case_upward_include(root):
        f = os.path.join(root, "controller", "core", "names.cpp")
        append_line(f, '#include "workload/status.hpp"')
        return 1, [f"controller/core/names.cpp:{lines_of(f)}: layer core includes workload/status.hpp (layer workload)"]

    def case_relative_include(root):
        f = os.path.join(root, "controller", "core", "names.cpp")
        append_line(f, '#include "../workload/status.hpp"')
        return 1, ["layer core includes workload/status.hpp"]

    def case_edge_removed(root):
        edit(os.path.join(root, "controller", "runtime", "CMakeLists.txt"),
             r"(target_link_libraries\(cfo_runtime PUBLIC) cfo_client", r"\1")
        return 1, ["layer runtime includes client/"]

    def case_cycle(root):
        edit(os.path.join(root, "controller", "core", "CMakeLists.txt"),
             r"target_link_libraries\(cfo_core PUBLIC", "target_link_libraries(cfo_core PUBLIC cfo_workload")
        return 1, ["the layers link in a cycle"]

    def case_missing_header(root):
        append_line(os.path.join(root, "controller", "client", "base64.cpp"), '#include "core/gone.hpp"')
        return 1, ['controller/client/base64.cpp:', 'includes "core/gone.hpp", which does not exist']

    cases = [case_unchanged, case_upward_include, case_relative_include, case_edge_removed, case_cycle,
             case_missing_header]
    failed = 0
    for case in cases:
        with tempfile.TemporaryDirectory(prefix="cfo-layering-") as root:
            shutil.copytree(src, os.path.join(root, "controller"))
            want_rc, want_texts = case(root)
            rc, out = run_check(root)
            missing = [t for t in want_texts if t not in out]
            ok = rc == want_rc and not missing
            name = case.__name__[len("case_"):]
            print(f"{'ok  ' if ok else 'FAIL'} {name}: exit {rc} (want {want_rc})")
            if not ok:
                failed += 1
                for t in missing:
                    print(f"     missing from the output: {t!r}")
                print("     output:\n" + "\n".join("       " + l for l in out.splitlines()))
    print(f"check_layering_selftest: {len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
