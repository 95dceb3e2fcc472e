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
#   many.yaml: D copies of it under distinct names; in R rounds, ours on one core (taskset -c 0), ours on every core
#              the machine has, and the Python lint step on one core, one after the other, each timed on its second
#              of two runs in a row
# Output: key=value lines on stdout (milliseconds, medians of wall time, and of CPU time as *_cpu_ms; the ratios are
#         the medians of each round's ratio of wall times; figures only), the inputs in a temporary folder removed on
#         exit. Exit 1 when a run fails or finds the input invalid.
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

# timed CMD...: runs CMD once (output discarded, exit status checked) and sets WALL_US and RUN_CPU_US to its wall
# time and its CPU time (user+sys; steadier than wall time on a shared machine), in microseconds. Wall time comes
# from bash's EPOCHREALTIME: a `date` process on either side would add its start-up (about 10 ms on a small VM).
timed() {
  local t0 t1 c0
  children_cpu_us
  c0=$CPU_US
  t0=${EPOCHREALTIME/[.,]/}
  "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; cfo_die "failed: $*"; }
  t1=${EPOCHREALTIME/[.,]/}
  children_cpu_us
  WALL_US=$((10#$t1 - 10#$t0))
  RUN_CPU_US=$((CPU_US - c0))
}

# median_ms R CMD...: runs CMD R times and prints the median wall time and the median CPU time, in ms, separated by
# a space.
median_ms() {
  local r="$1" i
  shift
  local walls=() cpus=()
  for ((i = 0; i < r; i++)); do
    timed "$@"
    walls+=("$WALL_US")
    cpus+=("$RUN_CPU_US")
  done
  echo "$(median "${walls[@]}") $(median "${cpus[@]}")"
}
# median [--ratio] N...: the median of microseconds as milliseconds (%.1f), or with --ratio of thousandths as a
# ratio (%.2f).
median() {
  local scale=1000 format="%.1f\n"
  if [[ "$1" == --ratio ]]; then format="%.2f\n"; shift; fi
  printf '%s\n' "$@" | sort -n | awk -v s="$scale" -v f="$format" \
    '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf f, m/s}'
}

cores="$(nproc)"
all_cores="0-$((cores - 1))"
small_runs=$((runs * 4))
# --crds through the CRD cache (--cache-dir, warm after the first run), and without it (every run parses the CRDs).
cache=(--cache-dir "$tmp/cache")
read -r one_crds one_crds_cpu < <(median_ms "$small_runs" taskset -c 0 "$operator" validate -f "$tmp/one.yaml" --crds "$crds" "${cache[@]}")
read -r one_uncached one_uncached_cpu < <(median_ms "$small_runs" taskset -c 0 "$operator" validate -f "$tmp/one.yaml" --crds "$crds" --cache-dir off)
read -r one_bundled one_bundled_cpu < <(median_ms "$small_runs" taskset -c 0 "$operator" validate -f "$tmp/one.yaml")
# The large file: rounds of ours on one core, ours on every core and the Python step, one after the other, so that
# each round's three runs meet the same machine (a shared VM's speed drifts by a fifth within minutes). Each measured
# run follows an unmeasured run of the same command: a run that follows another program meets the memory that one
# freed, which this VM's host has taken back (free page reporting) and must fault in again (ours after the Python
# step: 40-50 ms more of kernel time, page zeroing); so each tool is timed in the state its own run leaves. The ratios
# are the medians of each round's ratio.
m1_w=() m1_c=() ma_w=() ma_c=() py_w=() py_c=() ratio_1=() ratio_all=()
ours_1=(taskset -c 0 "$operator" validate -f "$tmp/many.yaml" --crds "$crds" "${cache[@]}")
ours_all=(taskset -c "$all_cores" "$operator" validate -f "$tmp/many.yaml" --crds "$crds" "${cache[@]}")
python_step=(taskset -c 0 "$py" "$CFO_REPO_DIR/bench/python_lint.py" "$tmp/many.yaml" "$rc_crd")
for ((i = 0; i < runs; i++)); do
  timed "${ours_1[@]}"
  timed "${ours_1[@]}"
  m1_w+=("$WALL_US") m1_c+=("$RUN_CPU_US")
  timed "${ours_all[@]}"
  timed "${ours_all[@]}"
  ma_w+=("$WALL_US") ma_c+=("$RUN_CPU_US")
  timed "${python_step[@]}"
  timed "${python_step[@]}"
  py_w+=("$WALL_US") py_c+=("$RUN_CPU_US")
  ratio_1+=($((py_w[i] * 1000 / m1_w[i]))) ratio_all+=($((py_w[i] * 1000 / ma_w[i])))
done
many_1="$(median "${m1_w[@]}")" many_1_cpu="$(median "${m1_c[@]}")"
many_all="$(median "${ma_w[@]}")" many_all_cpu="$(median "${ma_c[@]}")"
python_1="$(median "${py_w[@]}")" python_1_cpu="$(median "${py_c[@]}")"

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
echo "ratio_python_to_validate_one_core=$(median --ratio "${ratio_1[@]}")"
echo "ratio_python_to_validate_${cores}_cores=$(median --ratio "${ratio_all[@]}")"
