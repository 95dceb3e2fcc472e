#!/usr/bin/env bash
# Prints the path of a promtool (Prometheus's rule checker and rule unit-test runner), for test/monitoring/.
#
# Order: $CFO_PROMTOOL; `promtool` on PATH; the copy cached in $(cfo_cache_dir)/promtool/. When none exists, the
# Debian package "prometheus" is downloaded with `apt-get download` (about 19 MB; running `apt-get update` first when
# apt has no package lists) and only its usr/bin/promtool (about 48 MB) is kept in the cache. The package is not
# installed: installed it takes about 96 MB with its web assets, and sets up (and, under systemd, starts) a
# Prometheus server, none of which the tests need.
# Output:  the path on stdout; exit 1 with a message on stderr when promtool cannot be had.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/lib.sh"

if [[ -n "${CFO_PROMTOOL:-}" ]]; then
  [[ -x "$CFO_PROMTOOL" ]] || cfo_die "CFO_PROMTOOL=$CFO_PROMTOOL is not executable"
  echo "$CFO_PROMTOOL"
  exit 0
fi
if command -v promtool >/dev/null; then
  command -v promtool
  exit 0
fi

dir="$(cfo_cache_dir)/promtool"
bin="$dir/promtool"
mkdir -p "$dir"
# One download at a time (tests running in parallel share the cache).
exec 9>"$dir/.lock"
flock 9
if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi

command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || cfo_die "apt-get and dpkg-deb are needed"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"  # apt-get download drops to the _apt user where it can
download() { (cd "$work" && apt-get download prometheus) >"$work/apt.log" 2>&1; }
if ! download; then
  cfo_log "apt-get download prometheus failed; running apt-get update and trying again"
  cfo_as_root apt-get update >"$work/update.log" 2>&1 || cfo_die "apt-get update failed: $(tail -n 3 "$work/update.log")"
  download || cfo_die "apt-get download prometheus failed: $(tail -n 3 "$work/apt.log")"
fi
deb="$(ls "$work"/prometheus_*.deb)"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work" ./usr/bin/promtool ||
  cfo_die "$deb has no usr/bin/promtool"
"$work/usr/bin/promtool" --version >/dev/null 2>&1 || cfo_die "the promtool of $deb does not run"
mv "$work/usr/bin/promtool" "$bin.tmp"
mv "$bin.tmp" "$bin"
cfo_log "promtool from $(basename "$deb") cached in $bin"
echo "$bin"
