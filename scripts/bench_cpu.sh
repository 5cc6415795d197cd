#!/bin/bash
# bench_cpu.sh - our CPU delegate against the real TensorFlow Lite (../shared/oracle bench),
# model by model, same thread count, measured back to back in the same run.
#
# For every model and thread count T it runs, straight after one another:
#   oracle bench MODEL --runs R --threads T                    (T=1: LiteRT.js "compat" build)
#   oracle bench MODEL --runs R --threads 1 --build threaded   (T=1 only: the build T>1 uses)
#   tflite-benchmark MODEL --threads T --runs R                (ours, --delegate cpu)
# and prints a markdown table: min / median ms of each, the speed-up (oracle / ours) on the
# minima and on the medians, our init time, first inference, arena size and peak RSS. At T=1 the speed-up
# is taken against the faster of the two oracle builds. With --rounds N the triple is repeated
# N times and each cell keeps its best value (lowest min, lowest median) over the rounds: on a
# shared machine a busy moment only ever makes a number larger.
#
# Models ending in a custom op the oracle cannot run (PosenetDecoderOp) or bench (its
# TFLite_Detection_PostProcess outputs cannot be read back) are benchmarked on both sides as a
# copy cut before that op (scripts/cut_last_op.py), marked "(cut)"; ours also runs the whole
# model, in a row marked "(whole, ours only)".
#
# Usage: scripts/bench_cpu.sh [--runs R] [--threads "1 2"] [--rounds N] [--build DIR]
#          [--models "NAME|PATH ..."] [--log DIR]
#   --runs R      timed runs per benchmark (default 30)
#   --threads     thread counts (default "1 2")
#   --rounds N    repeats of each oracle/ours pair (default 1)
#   --build DIR   build directory with tools/tflite-benchmark (default build-rel; make it with
#                 meson setup build-rel --buildtype=release && ninja -C build-rel)
#   --models      model names (without .tflite, looked up in ../shared/models and models/cache)
#                 or paths (default: every model in both folders)
#   --log DIR     where the raw outputs go (default a new folder under /tmp)
# The table goes to stdout, progress to stderr.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
oracle="$repo/../shared/oracle/oracle"
runs=30
threads="1 2"
rounds=1
build="$repo/build-rel"
models=""
log=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --models) models=$2; shift 2 ;;
    --log) log=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_cpu.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

bench="$build/tools/tflite-benchmark"
[ -x "$bench" ] || { echo "bench_cpu.sh: $bench missing (build it first)" >&2; exit 1; }
[ -x "$oracle" ] || { echo "bench_cpu.sh: $oracle missing" >&2; exit 1; }
[ -n "$log" ] || log=$(mktemp -d /tmp/bench_cpu.XXXXXX)
mkdir -p "$log"

prog=bench_cpu.sh
# shellcheck source=scripts/bench_models.sh
. "$repo/scripts/bench_models.sh"
model_paths=$(bench_model_paths "$models")

# json_field FILE KEY -> number
json_field() { jq -r ".$2" "$1"; }
# ours_field FILE min|median|init|first|arena|rss -> number
ours_field() {
  case "$2" in
    min) sed -n 's/^runs: .* min: \([0-9.]*\) ms .*/\1/p' "$1" ;;
    median) sed -n 's/^runs: .* median: \([0-9.]*\) ms .*/\1/p' "$1" ;;
    init) sed -n 's/^init: \([0-9.]*\) ms/\1/p' "$1" ;;
    arena) sed -n 's/^arena: \([0-9]*\) bytes/\1/p' "$1" ;;
    first) sed -n 's/^first inference: \([0-9.]*\) ms/\1/p' "$1" ;;
    rss) sed -n 's/^peak RSS: \([0-9.]*\) MB/\1/p' "$1" ;;
  esac
}
# lowest of the numbers given (empty ones skipped)
lowest() { printf '%s\n' "$@" | awk 'NF { if (m == "" || $1 < m) m = $1 } END { print m }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "n/a"; else printf "%.2f×", a / b }'; }
fmt() { awk -v v="$1" 'BEGIN { if (v == "") print "n/a"; else if (v < 10) printf "%.2f", v; else printf "%.1f", v }'; }

echo "bench_cpu.sh: logs in $log; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "| model | T | oracle min / median | oracle threaded build, T=1: min / median | ours min / median | speed-up min | speed-up median | ours init ms | ours first ms | arena MB | peak RSS MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"

for path in $model_paths; do
  name=$(basename "$path" .tflite)
  subject="$path"
  label="$name"
  if needs_cut "$path"; then
    subject="$log/$name.cut.tflite"
    python3 "$repo/scripts/cut_last_op.py" "$path" "$subject" >/dev/null
    label="$name (cut)"
  fi
  for t in $threads; do
    om=(); od=(); tm=(); td=(); um=(); ud=(); wm=(); wd=()
    init=""; first=""; arena=""; rss=""; winit=""; wfirst=""; warena=""; wrss=""
    for r in $(seq "$rounds"); do
      base="$log/$name.t$t.r$r"
      echo "bench_cpu.sh: $name T=$t round $r (load $(cut -d' ' -f1 /proc/loadavg))" >&2
      if "$oracle" bench "$subject" --runs "$runs" --threads "$t" >"$base.oracle.json" 2>"$base.oracle.err"; then
        om+=("$(json_field "$base.oracle.json" min_ms)"); od+=("$(json_field "$base.oracle.json" median_ms)")
      else
        echo "bench_cpu.sh: oracle failed on $name, see $base.oracle.err" >&2
      fi
      if [ "$t" = 1 ]; then
        if "$oracle" bench "$subject" --runs "$runs" --threads 1 --build threaded \
            >"$base.oracle-threaded.json" 2>"$base.oracle-threaded.err"; then
          tm+=("$(json_field "$base.oracle-threaded.json" min_ms)")
          td+=("$(json_field "$base.oracle-threaded.json" median_ms)")
        fi
      fi
      if "$bench" "$subject" --threads "$t" --runs "$runs" >"$base.ours.txt" 2>"$base.ours.err"; then
        um+=("$(ours_field "$base.ours.txt" min)"); ud+=("$(ours_field "$base.ours.txt" median)")
        init=$(lowest "$init" "$(ours_field "$base.ours.txt" init)")
        first=$(lowest "$first" "$(ours_field "$base.ours.txt" first)")
        arena=$(ours_field "$base.ours.txt" arena); rss=$(ours_field "$base.ours.txt" rss)
      else
        echo "bench_cpu.sh: tflite-benchmark failed on $name, see $base.ours.err" >&2
      fi
      if [ "$subject" != "$path" ] &&
          "$bench" "$path" --threads "$t" --runs "$runs" >"$base.whole.txt" 2>"$base.whole.err"; then
        wm+=("$(ours_field "$base.whole.txt" min)"); wd+=("$(ours_field "$base.whole.txt" median)")
        winit=$(lowest "$winit" "$(ours_field "$base.whole.txt" init)")
        wfirst=$(lowest "$wfirst" "$(ours_field "$base.whole.txt" first)")
        warena=$(ours_field "$base.whole.txt" arena); wrss=$(ours_field "$base.whole.txt" rss)
      fi
    done
    o_min=$(lowest "${om[@]}"); o_med=$(lowest "${od[@]}")
    t_min=$(lowest "${tm[@]}"); t_med=$(lowest "${td[@]}")
    u_min=$(lowest "${um[@]}"); u_med=$(lowest "${ud[@]}")
    ref_min=$(lowest "$o_min" "$t_min"); ref_med=$(lowest "$o_med" "$t_med")
    threaded_cell="—"
    [ "$t" = 1 ] && threaded_cell="$(fmt "$t_min") / $(fmt "$t_med")"
    mb=$(awk -v b="$arena" 'BEGIN { if (b == "") print "n/a"; else printf "%.1f", b / 1048576 }')
    echo "| $label | $t | $(fmt "$o_min") / $(fmt "$o_med") | $threaded_cell | $(fmt "$u_min") / $(fmt "$u_med") |" \
         "$(ratio "$ref_min" "$u_min") | $(ratio "$ref_med" "$u_med") | $(fmt "$init") | $(fmt "$first") | $mb | $rss |"
    if [ "$subject" != "$path" ]; then
      w_min=$(lowest "${wm[@]}"); w_med=$(lowest "${wd[@]}")
      wmb=$(awk -v b="$warena" 'BEGIN { if (b == "") print "n/a"; else printf "%.1f", b / 1048576 }')
      echo "| $name (whole, ours only) | $t | n/a | n/a | $(fmt "$w_min") / $(fmt "$w_med") | n/a | n/a |" \
           "$(fmt "$winit") | $(fmt "$wfirst") | $wmb | $wrss |"
    fi
  done
done
echo "bench_cpu.sh: done; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
