#!/usr/bin/env python3
"""The ctest lint_hot_functions: the operator binary's hot-function layout (controller/cmd/hot-functions.txt,
CFO_HOT_FUNCTIONS in controller/cmd/CMakeLists.txt) is current and took effect.

Usage: check_hot_functions.py --binary BIN --list FILE [--min-found F] [--max-spread S]
  --binary BIN      the linked codeflare-operator (its symbol table, read with `nm`)
  --list FILE       hot-functions.txt: one mangled symbol a line
  --min-found F     the share of listed symbols that must still be functions of BIN (default 0.9): below it the list
                    is stale (code renamed or moved) and hack/update-hot-functions.sh must be run again
  --max-spread S    the listed functions found must lie in one address range at most S times their combined size
                    (default 1.5): larger, and the linker did not lay them out side by side
Output: one line of figures (found, bytes, spread); exit 1 with the reason when a check fails, 2 on bad usage.
"""
import argparse
import subprocess
import sys


def text_symbols(binary):
    """{mangled name: (address, size in bytes)} of the functions in BIN's symbol table (nm types t, T, w, W)."""
    out = subprocess.run(["nm", "--defined-only", "-S", binary], check=True, capture_output=True, text=True).stdout
    symbols = {}
    for line in out.splitlines():
        fields = line.split(None, 3)
        if len(fields) == 4 and fields[2] in "tTwW":
            symbols.setdefault(fields[3], (int(fields[0], 16), int(fields[1], 16)))
    return symbols


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--list", required=True)
    ap.add_argument("--min-found", type=float, default=0.9)
    ap.add_argument("--max-spread", type=float, default=1.5)
    args = ap.parse_args()

    with open(args.list) as f:
        listed = [line.strip() for line in f if line.strip()]
    if not listed:
        print("check_hot_functions: %s lists no function" % args.list)
        return 1
    symbols = text_symbols(args.binary)
    found = [symbols[name] for name in listed if name in symbols and symbols[name][1] > 0]
    share = len(found) / len(listed)
    size = sum(s for _, s in found)
    lo = min((a for a, _ in found), default=0)
    hi = max((a + s for a, s in found), default=0)
    spread = (hi - lo) / size if size else 0.0
    print("check_hot_functions: listed=%d found=%d found_share=%.3f bytes=%d range_bytes=%d spread=%.2f"
          % (len(listed), len(found), share, size, hi - lo, spread))
    if share < args.min_found:
        print("check_hot_functions: only %.0f%% of %s's functions are in %s (at least %.0f%% expected): the list is "
              "stale; run hack/update-hot-functions.sh" % (100 * share, args.list, args.binary, 100 * args.min_found))
        return 1
    if spread > args.max_spread:
        print("check_hot_functions: the listed functions are spread over %.2fx their size (at most %.2fx expected): "
              "the link did not lay them out first (is %s linked with ld.lld and --symbol-ordering-file?)"
              % (spread, args.max_spread, args.binary))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
