#!/usr/bin/env bash
# Fetches the pinned upstream CRDs (KubeRay, AppWrapper, Kueue) and prepares a folder laid out like shared/crds:
#   <out>/upstream/        the originals, byte for byte (sha256-checked), with sub-folders for other releases
#   <out>/apiserver-1.20/  the top-level originals adapted for kube-apiserver 1.20 by adapt-crds-for-1.20.py
#
# Inputs:  test/harness/upstream-crds.pins (local_file repo path commit sha256), fetched from
#          https://raw.githubusercontent.com/<repo>/<commit>/<path>. Needs network access to that host.
#          CFO_CRD_FETCH_BASE replaces https://raw.githubusercontent.com (a mirror, or file:///... for tests).
# Output:  prints <out> on the last stdout line. Cached: ${CODEFLARE_CACHE:-$HOME/.cache/codeflare-operator}/
#          upstream-crds-<hash of the pins and the adapter>; a complete cache is reused without network.
# Callers that already have such a folder set UPSTREAM_CRDS instead and never call this script.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/lib.sh"

pins="$CFO_HARNESS_DIR/upstream-crds.pins"
adapter="$CFO_HARNESS_DIR/adapt-crds-for-1.20.py"
key="$(cat "$pins" "$adapter" | sha256sum | cut -c1-16)"
out="$(cfo_cache_dir)/upstream-crds-$key"
if [[ -f "$out/.complete" ]]; then
  echo "$out"
  exit 0
fi

command -v curl >/dev/null || cfo_die "curl is missing (test/harness/install-deps.sh installs it)"
py="$(cfo_python)"
mkdir -p "$(dirname "$out")"
tmp="$(mktemp -d "$out.tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

base="${CFO_CRD_FETCH_BASE:-https://raw.githubusercontent.com}"
no_network_hint="
  This machine may have no access to $base. Instead, point UPSTREAM_CRDS at a folder laid out like shared/crds
  (upstream/ with the originals, apiserver-1.20/ with the adapted copies), e.g. 'make run UPSTREAM_CRDS=/path/to/crds' (the same for make test, make build)."
failed=()
while read -r file repo path commit sha; do
  [[ -z "$file" || "$file" == \#* ]] && continue
  url="$base/$repo/$commit/$path"
  dest="$tmp/upstream/$file"
  mkdir -p "$(dirname "$dest")"
  rc=0
  curl -fsSL --connect-timeout 15 --max-time 180 --retry 2 -o "$dest" "$url" 2>"$tmp/curl.err" || rc=$?
  if ((rc != 0)); then
    cfo_log "download failed: $url: $(head -n1 "$tmp/curl.err")"
    # No name resolution, no connection, or a timeout: the other files would fail the same way.
    case "$rc" in 5 | 6 | 7 | 28 | 35) cfo_die "cannot reach $base (curl exit $rc).$no_network_hint" ;; esac
    failed+=("$file")
    continue
  fi
  actual="$(sha256sum "$dest" | cut -d' ' -f1)"
  if [[ "$actual" != "$sha" ]]; then
    cfo_log "sha256 mismatch for $file from $url: expected $sha, got $actual"
    failed+=("$file")
  fi
done <"$pins"

if ((${#failed[@]})); then
  cfo_die "could not fetch ${#failed[@]} pinned CRD file(s): ${failed[*]}.$no_network_hint"
fi

rm -f "$tmp/curl.err"
cp "$pins" "$tmp/upstream/PINS.txt"
shopt -s nullglob
originals=("$tmp"/upstream/*.yaml)
((${#originals[@]})) || cfo_die "no CRD files fetched"
"$py" "$adapter" "$tmp/apiserver-1.20" "${originals[@]}"
touch "$tmp/.complete"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
cfo_log "upstream CRDs in $out"
echo "$out"
