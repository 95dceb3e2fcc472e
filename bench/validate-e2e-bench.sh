#!/usr/bin/env bash
# The end-to-end `validate` figures of `make bench`: wall time of whole `codeflare-operator validate` runs (process
# start, schema loading, reading, checking), next to a Python lint step (bench/python_lint.py: PyYAML's C loader and
# python3-jsonschema) on the same file.
#
# Usage: validate-e2e-bench.sh <build-dir> <crds-dir> [--docs D] [--runs R]
#   <crds-dir>  a folder laid out like shared/crds (its upstream/ is used) or a folder of CRDs ($UPSTREAM_CRDS)
#   --docs D    documents in the large file (default 2000)
#   --runs R    runs of each measurement; the median is printed (default 5; the small-file ones run 4R times)
# Measurements:
#   one.yaml:  the RayCluster that `codeflare-operator render` makes of config/samples/cfw_cpu.yaml;
#              `validate -f one.yaml --crds <crds-dir>` through a CRD cache of its own (--cache-dir, warm after the
#              first run) and with --cache-dir off (the CRDs parsed every run), and `validate -f one.yaml` (the
#              schemas shipped in the binary)
#   many.yaml: D copies of it under distinct names; ours on one core (taskset -c 0) and on every core the machine
#              has (today validate uses one; the figure shows when it uses more), the Python lint step on one core
# Output: key=value lines on stdout (milliseconds, medians of wall time, and of CPU time as *_cpu_ms; ratios of wall
#         times; figures only), the inputs in a temporary folder removed on exit. Exit 1 when a run fails or finds the input invalid.
set -euo pipefail
# shellcheck source=test/harness/lib.sh
source "$(dirname "$0")/../test/harness/lib.sh"

usage() { sed -n '5,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
(($# >= 2)) || usage
build="$1" crds="$2"
shift 2
docs=2000 runs=5
while (($#)); do
  case "$1" in
    --docs) (($# >= 2)) || usage; docs="$2"; shift ;;
    --runs) (($# >= 2)) || usage; runs="$2"; shift ;;
    *) usage ;;
  esac
  shift
done
operator="$build/controller/cmd/codeflare-operator"
[[ -x "$operator" ]] || cfo_die "no operator binary at $operator"
upstream="$crds"
[[ -d "$crds/upstream" ]] && upstream="$crds/upstream"
py="$(cfo_python)"
command -v taskset >/dev/null || cfo_die "taskset (util-linux) is needed"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$operator" render -f "$CFO_REPO_DIR/config/samples/cfw_cpu.yaml" >"$tmp/one.yaml"
name="$(sed -n 's/^  name: //p' "$tmp/one.yaml" | head -n1)"
[[ -n "$name" ]] || cfo_die "render gave no metadata.name"
"$py" - "$tmp/one.yaml" "$tmp/many.yaml" "$name" "$docs" <<'PY'
import sys
one, many, name, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
text = open(one).read()
with open(many, "w") as f:
    for i in range(n):
        f.write("---\n" + text.replace(name, "%s-%d" % (name, i)))
PY
# The RayCluster CRD file, for the Python side.
rc_crd="$(grep -l '^  group: ray.io' "$upstream"/*.yaml | xargs grep -l '^    kind: RayCluster$' | head -n1)"
[[ -n "$rc_crd" ]] || cfo_die "no ray.io RayCluster CRD in $upstream"

# children_cpu_us: sets CPU_US to the user+sys CPU time of this shell's finished children so far, in microseconds.
# Bash's `times` runs in this shell (in a command substitution, a forked subshell, it would report the subshell's
# own children) and writes to a file; the parsing is bash's own, so no process of the measurement is counted.
children_cpu_us() {
  local _line user sys
  times >"$tmp/times"
  { read -r _line; read -r user sys; } <"$tmp/times"
  CPU_US=0
  minsec_us "$user"
  minsec_us "$sys"
}
# minsec_us XmY.ZZZs: adds that duration to CPU_US, in microseconds (`times` prints milliseconds). No command
# substitution: its subshell would be a child, counted by the next `times`.
minsec_us() {
  [[ "$1" =~ ^([0-9]+)m([0-9]+)[.,]([0-9]{3})s$ ]] || cfo_die "unexpected times output: $1"
  CPU_US=$((CPU_US + (10#${BASH_REMATCH[1]} * 60 + 10#${BASH_REMATCH[2]}) * 1000000 + 10#${BASH_REMATCH[3]} * 1000))
}

# median_ms R CMD...: runs CMD R times (output discarded, exit status checked) and prints the median wall time and
# the median CPU time (user+sys; steadier than wall time on a shared machine), in ms, separated by a space. Wall
# time comes from bash's EPOCHREALTIME: a `date` process on either side would add its start-up (about 10 ms on a
# small VM) to every figure.
median_ms() {
  local r="$1" i t0 t1 c0 c1
  shift
  local walls=() cpus=()
  for ((i = 0; i < r; i++)); do
    children_cpu_us
    c0=$CPU_US
    t0=${EPOCHREALTIME/[.,]/}
    "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; cfo_die "failed: $*"; }
    t1=${EPOCHREALTIME/[.,]/}
    children_cpu_us
    c1=$CPU_US
    walls+=($((10#$t1 - 10#$t0)))
    cpus+=($((c1 - c0)))
  done
  echo "$(median "${walls[@]}") $(median "${cpus[@]}")"
}
median() {
  printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "%.1f\n", m/1000}'
}

cores="$(nproc)"
all_cores="0-$((cores - 1))"
small_runs=$((runs * 4))
# --crds through the CRD cache (--cache-dir, warm after the first run), and without it (every run parses the CRDs).
cache=(--cache-dir "$tmp/cache")
read -r one_crds one_crds_cpu < <(median_ms "$small_runs" taskset -c 0 "$operator" validate -f "$tmp/one.yaml" --crds "$crds" "${cache[@]}")
read -r one_uncached one_uncached_cpu < <(median_ms "$small_runs" taskset -c 0 "$operator" validate -f "$tmp/one.yaml" --crds "$crds" --cache-dir off)
read -r one_bundled one_bundled_cpu < <(median_ms "$small_runs" taskset -c 0 "$operator" validate -f "$tmp/one.yaml")
read -r many_1 many_1_cpu < <(median_ms "$runs" taskset -c 0 "$operator" validate -f "$tmp/many.yaml" --crds "$crds" "${cache[@]}")
read -r many_all many_all_cpu < <(median_ms "$runs" taskset -c "$all_cores" "$operator" validate -f "$tmp/many.yaml" --crds "$crds" "${cache[@]}")
read -r python_1 python_1_cpu < <(median_ms "$runs" taskset -c 0 "$py" "$CFO_REPO_DIR/bench/python_lint.py" "$tmp/many.yaml" "$rc_crd")

echo "validate_one_file_crds_ms=$one_crds"
echo "validate_one_file_crds_cpu_ms=$one_crds_cpu"
echo "validate_one_file_crds_uncached_ms=$one_uncached"
echo "validate_one_file_crds_uncached_cpu_ms=$one_uncached_cpu"
echo "validate_one_file_bundled_ms=$one_bundled"
echo "validate_one_file_bundled_cpu_ms=$one_bundled_cpu"
echo "validate_documents=$docs"
echo "validate_many_one_core_ms=$many_1"
echo "validate_many_one_core_cpu_ms=$many_1_cpu"
echo "validate_many_${cores}_cores_ms=$many_all"
echo "validate_many_${cores}_cores_cpu_ms=$many_all_cpu"
echo "python_lint_many_one_core_ms=$python_1"
echo "python_lint_many_one_core_cpu_ms=$python_1_cpu"
awk -v p="$python_1" -v a="$many_1" -v b="$many_all" -v c="$cores" 'BEGIN {
  printf "ratio_python_to_validate_one_core=%.2f\n", p / a
  printf "ratio_python_to_validate_%d_cores=%.2f\n", c, p / b
}'
