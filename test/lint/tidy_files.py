#!/usr/bin/env python3
"""Chooses the controller/ sources that clang-tidy checks: all of them, or those a change since the baseline reaches.

The baseline (test/lint/tidy-baseline: one commit) is a commit at which clang-tidy found nothing in any controller/
source. A source is checked when it changed since then, or when a project header it includes (directly or through
other project headers) changed: clang-tidy reports findings in our headers from the sources that include them, so a
changed header is checked through every source that sees it. Nothing is skipped for being hard to parse: every chosen
file is handed to clang-tidy, and a file it cannot parse is an error.

Everything is checked (the answer is "all") when:
  - --all is given (make tidy-all, CFO_TIDY_SCOPE=all);
  - the baseline is not in the history (a shallow clone, or not a git checkout): nothing tells what changed;
  - a file that can change every file's result changed: .clang-tidy (the checks), clang_tidy.sh or this script.
    (Compile flags are not among them: the build's flags change what is compiled, not what the checks find in it;
    a source new to a CMakeLists.txt is a changed file itself.)

Changed means: `git diff --name-only BASELINE` (committed since the baseline, staged or not yet staged) and the
untracked files git does not ignore.

Usage:  tidy_files.py --db BUILD/compile_commands.json [--root REPO] [--all]
Output: the chosen sources, one absolute path a line, on stdout; one line on stderr saying why (which baseline, how
many changed files); exit 2 on usage errors.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
SOURCE_SUFFIXES = (".cpp", ".hpp", ".h", ".cc", ".hh", ".ipp", ".inc")
# Paths (relative to the repository) whose change can change the findings of every file.
GLOBAL_INPUTS = (".clang-tidy", "test/lint/clang_tidy.sh", "test/lint/tidy_files.py")


def git(root, *args):
    p = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True)
    return p.returncode, p.stdout


def read_baseline(root):
    with open(os.path.join(HERE, "tidy-baseline"), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                return line
    return None


def changed_files(root, baseline):
    """Returns the changed paths (relative to root), or None when git cannot tell."""
    rc, _ = git(root, "cat-file", "-e", f"{baseline}^{{commit}}")
    if rc != 0:
        return None
    rc, diff = git(root, "diff", "--name-only", baseline, "--")
    if rc != 0:
        return None
    rc2, untracked = git(root, "ls-files", "--others", "--exclude-standard")
    if rc2 != 0:
        return None
    return {p for p in (diff + untracked).splitlines() if p}


def include_graph(root):
    """Returns {file: set of project files it includes}, paths absolute, for every source under controller/."""
    controller = os.path.join(root, "controller")
    graph = {}
    for dirpath, _, filenames in os.walk(controller):
        for filename in filenames:
            if not filename.endswith(SOURCE_SUFFIXES):
                continue
            path = os.path.join(dirpath, filename)
            deps = set()
            with open(path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    for c in (os.path.join(dirpath, m.group(1)), os.path.join(controller, m.group(1))):
                        if os.path.isfile(c):
                            deps.add(os.path.realpath(c))
                            break
            graph[os.path.realpath(path)] = deps
    return graph


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", required=True, help="compile_commands.json of a configured build folder")
    parser.add_argument("--root", default=os.path.join(HERE, "..", ".."))
    parser.add_argument("--all", action="store_true", help="every controller/ source")
    args = parser.parse_args()
    root = os.path.realpath(args.root)
    controller = os.path.join(root, "controller") + os.sep

    # {real path: the path as the database spells it} (run-clang-tidy matches the latter)
    with open(args.db, encoding="utf-8") as f:
        spelled = {os.path.realpath(p): p for p in (os.path.join(e.get("directory", ""), e["file"]) for e in json.load(f))}
    sources = sorted(s for s in spelled if s.startswith(controller))

    reason = None
    chosen = sources
    if args.all:
        reason = "every controller/ source (--all)"
    else:
        baseline = read_baseline(root)
        changed = changed_files(root, baseline) if baseline else None
        if changed is None:
            reason = f"every controller/ source: the baseline {baseline} is not in this checkout's history"
        else:
            global_hits = sorted(p for p in changed if p in GLOBAL_INPUTS)
            if global_hits:
                reason = f"every controller/ source: {', '.join(global_hits)} changed since {baseline[:12]}"
            else:
                touched = {os.path.realpath(os.path.join(root, p)) for p in changed}
                graph = include_graph(root)
                included_by = {}
                for path, deps in graph.items():
                    for d in deps:
                        included_by.setdefault(d, set()).add(path)
                # Every file that is a changed file or includes one, through any chain of project headers.
                reached = set(touched)
                todo = list(touched)
                while todo:
                    for includer in included_by.get(todo.pop(), ()):
                        if includer not in reached:
                            reached.add(includer)
                            todo.append(includer)
                chosen = [s for s in sources if s in reached]
                n = len([p for p in changed if p.startswith("controller/")])
                reason = (f"{len(chosen)} of {len(sources)} controller/ sources: those that changed or include a "
                          f"changed header since the baseline {baseline[:12]} ({n} changed files under controller/)")
    print(f"tidy_files: {reason}", file=sys.stderr)
    for s in chosen:
        print(spelled[s])
    return 0


if __name__ == "__main__":
    sys.exit(main())
