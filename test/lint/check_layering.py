#!/usr/bin/env python3
"""Fails when a file of one layer under controller/ includes a header of a layer that is not below it.

The layer graph is not written down here: it is read from the build. Each folder controller/<layer>/ with a
CMakeLists.txt is a layer; the libraries it defines (add_library, add_executable) belong to it, and the `cfo_*`
libraries named in its target_link_libraries calls are its direct edges. A layer may include its own headers and
those of every layer it reaches through those edges (the transitive closure: runtime links client, client links
core, so runtime may include core/). The build and this check therefore cannot disagree: a new include of a layer
above is refused here, and allowing it means adding the link edge in CMake, where a reviewer sees it.

An include is resolved as the compiler does for the project's include root: "x" next to the including file first,
then controller/x; <x> under controller/ only. Includes that resolve to neither (standard and third-party headers)
are not layer edges. An include of a missing project header ("core/gone.hpp") is reported too.

Also reported: a cycle among the layers' link edges (there would be no "below"), and a file under controller/ that is
outside every layer.

Usage:  check_layering.py [--root REPO]   (REPO: the checkout, default: two folders above this script)
Output: one line per finding (file:line: what), then a summary; exit 0 when clean, 1 on findings, 2 on usage errors.
"""
import argparse
import os
import re
import sys

SOURCE_SUFFIXES = (".cpp", ".hpp", ".h", ".cc", ".hh", ".ipp", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')
CALL = re.compile(r"\b(add_library|add_executable|target_link_libraries)\s*\(([^)]*)\)", re.S)


def strip_cmake_comments(text):
    """Drops `# ...` to the end of each line (the CMake files here put no '#' inside strings)."""
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def read_layers(controller):
    """Returns ({layer: set of direct link edges (layers)}, {library: layer}) from controller/*/CMakeLists.txt."""
    owners = {}  # library -> layer
    links = {}  # layer -> set of library names it links
    for layer in sorted(os.listdir(controller)):
        cmake = os.path.join(controller, layer, "CMakeLists.txt")
        if not os.path.isfile(cmake):
            continue
        with open(cmake, encoding="utf-8") as f:
            text = strip_cmake_comments(f.read())
        links[layer] = set()
        for call, args in CALL.findall(text):
            words = args.split()
            if not words:
                continue
            if call in ("add_library", "add_executable"):
                owners[words[0]] = layer
            else:
                links[layer].update(w for w in words[1:] if w not in ("PUBLIC", "PRIVATE", "INTERFACE"))
    edges = {layer: {owners[lib] for lib in libs if lib in owners} - {layer} for layer, libs in links.items()}
    return edges, owners


def closure(edges):
    """Returns ({layer: every layer below it}, [cycles found, as lists of layers])."""
    below = {}
    cycles = []

    def visit(layer, path):
        if layer in below:
            return below[layer]
        if layer in path:
            cycles.append(path[path.index(layer):] + [layer])
            return set()
        reach = set()
        for dep in sorted(edges[layer]):
            reach.add(dep)
            reach |= visit(dep, path + [layer])
        below[layer] = reach
        return reach

    for layer in sorted(edges):
        visit(layer, [])
    return below, cycles


def resolve(controller, including_file, quote, name):
    """Returns the path, relative to controller/, that an include names, or None when it is not a project file."""
    candidates = [os.path.join(controller, name)]
    if quote == '"':
        candidates.insert(0, os.path.join(os.path.dirname(including_file), name))
    for c in candidates:
        if os.path.isfile(c):
            rel = os.path.relpath(os.path.realpath(c), os.path.realpath(controller))
            if not rel.startswith(".."):
                return rel
    return None


def check(root):
    controller = os.path.join(root, "controller")
    if not os.path.isdir(controller):
        print(f"check_layering: no controller/ folder under {root}", file=sys.stderr)
        return 2
    edges, owners = read_layers(controller)
    if not edges:
        print(f"check_layering: no layer (controller/<layer>/CMakeLists.txt) under {controller}", file=sys.stderr)
        return 2
    below, cycles = closure(edges)
    library_of = {layer: sorted(lib for lib, owner in owners.items() if owner == layer) for layer in edges}

    findings = []
    for cycle in cycles:
        findings.append("controller/*/CMakeLists.txt: the layers link in a cycle: " + " -> ".join(cycle))
    files = 0
    for dirpath, dirnames, filenames in os.walk(controller):
        dirnames.sort()
        for filename in sorted(filenames):
            if not filename.endswith(SOURCE_SUFFIXES):
                continue
            path = os.path.join(dirpath, filename)
            shown = os.path.relpath(path, root)
            layer = os.path.relpath(path, controller).split(os.sep)[0]
            if layer not in edges:
                findings.append(f"{shown}: outside every layer (no controller/<layer>/CMakeLists.txt holds it)")
                continue
            files += 1
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    quote, name = m.groups()
                    target = resolve(controller, path, quote, name)
                    if target is None:
                        if quote == '"' and name.split("/")[0] in edges:
                            findings.append(f"{shown}:{number}: includes \"{name}\", which does not exist")
                        continue
                    target_layer = target.split(os.sep)[0]
                    if target_layer == layer or target_layer in below[layer]:
                        continue
                    if target_layer not in edges:
                        findings.append(f"{shown}:{number}: includes {target}, which is outside every layer")
                        continue
                    libs = "/".join(library_of[layer]) or layer
                    allowed = ", ".join(sorted(below[layer])) or "no other layer"
                    findings.append(f"{shown}:{number}: layer {layer} includes {target} (layer {target_layer}), "
                                    f"which {libs} does not link; {layer} may include: {allowed}")
    for finding in findings:
        print(finding)
    graph = "; ".join(f"{layer} -> {', '.join(sorted(edges[layer])) or '(nothing)'}" for layer in sorted(edges))
    print(f"check_layering: {files} files in {len(edges)} layers ({graph}): {len(findings)} finding(s)")
    return 1 if findings else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    args = parser.parse_args()
    return check(os.path.abspath(args.root))


if __name__ == "__main__":
    sys.exit(main())
