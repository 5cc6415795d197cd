#!/bin/bash
# bench_peers.sh - our CPU delegate against the runtimes a user would pick instead, on this
# CPU: native TensorFlow Lite (ai-edge-litert, XNNPACK) and OpenVINO (f32 hint, and its
# default precision), every model, 1 and 2 threads, interleaved in one run.
#
# Set-up (first run, then reused): a Python virtual environment in --venv with
# ai-edge-litert==2.3.0, openvino==2026.4.1 and numpy from PyPI, and scripts/fma_peak.c
# built with -march=native to measure this machine's fp32 multiply-add peak (1 core, all
# cores) for the GFLOP/s column. Needs python3-venv and network access for the set-up.
#
# Per model and thread count (scripts/bench_peers.py does the work): every engine runs the
# same Gaussian input (tflite-run --gauss 1 writes it), outputs are checked against native
# TensorFlow Lite's (engines that disagree are not timed), then ROUNDS rounds in which the
# engines take turns, RUNS timed inferences each. Cells are median / min ms.
# Models ending in a custom op that a peer lacks (PosenetDecoderOp; OpenVINO has no
# TFLite_Detection_PostProcess) run everywhere as a copy cut before it
# (scripts/cut_last_op.py), marked "(cut)". Models a peer cannot load are marked in the
# notes column, not dropped.
#
# Numbers only mean something on a quiet machine: the load average is printed before and
# after, with a warning above 1.5 (other jobs then steal cores, most at 2 threads), and so
# is the round trip of a cache line between cores 0 and 1 (scripts/core_pingpong.c): this
# VM's two cores are sometimes near (50-60 ns) and sometimes far (~300 ns), which moves
# every 2-thread figure.
#
# Usage: scripts/bench_peers.sh [--runs R] [--rounds N] [--threads "1 2"] [--build DIR]
#          [--models "NAME|PATH ..."] [--venv DIR] [--log DIR] [--bf16] [--baseline DIR]
#          [--peak "P1 PN"] [--busy-cpu K] [--load N] [--setup-only]
#   --runs R      timed runs per engine and round (default 30)
#   --rounds N    rounds of every engine in turn (default 3)
#   --threads     thread counts (default "1 2")
#   --build DIR   release build with tools/tflite-benchmark and tools/tflite-run
#                 (default build-rel: meson setup build-rel --buildtype=release &&
#                 ninja -C build-rel tools/tflite-benchmark tools/tflite-run)
#   --models      model names (looked up in ../shared/models and models/cache) or paths
#                 (default: every model in both folders)
#   --venv DIR    the virtual environment (default build-peers/venv)
#   --log DIR     raw outputs and results.json (default a new folder under /tmp)
#   --bf16        also time ours with --precision bf16 (column "ours bf16")
#   --busy-cpu K  a process spinning on CPU K while the engines are timed (a shared box:
#                 an encoder or another camera's work on that core); cells are then
#                 median / 90th percentile
#   --load N      N spinning processes, not pinned, while the engines are timed (a loaded
#                 box); cells median / 90th percentile
#   --baseline DIR  also time an earlier build of ours (its build directory), column
#                 "ours before", same input and checks
#   --peak "P1 PN"  fp32 GFLOP/s on 1 core and on all cores, instead of measuring them now
#                 (the measurement needs a quiet machine too)
#   --setup-only  make the environment and measure the peak, then stop
# The markdown table goes to stdout, progress to stderr.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
runs=30
rounds=3
threads="1 2"
build="$repo/build-rel"
models=""
venv="$repo/build-peers/venv"
log=""
bf16=""
baseline=()
busy=()
setup_only=0
peak=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --models) models=$2; shift 2 ;;
    --venv) venv=$2; shift 2 ;;
    --log) log=$2; shift 2 ;;
    --bf16) bf16=--bf16; shift ;;
    --baseline) baseline=(--baseline "$(cd "$2" && pwd)/tools"); shift 2 ;;
    --busy-cpu) busy+=(--busy-cpu "$2"); shift 2 ;;
    --load) busy+=(--load "$2"); shift 2 ;;
    --setup-only) setup_only=1; shift ;;
    --peak) peak=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_peers.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

# --- set-up: the peers' virtual environment ---------------------------------------------
peer_packages="ai-edge-litert==2.3.0 openvino==2026.4.1 numpy"
if ! "$venv/bin/python" -c 'import ai_edge_litert, openvino, numpy' 2>/dev/null; then
  echo "bench_peers.sh: making $venv ($peer_packages)" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet $peer_packages
fi
"$venv/bin/python" -c 'import ai_edge_litert, openvino, numpy' ||
  { echo "bench_peers.sh: $venv lacks the peer packages" >&2; exit 1; }

# --- this machine's fp32 peak ---------------------------------------------------------------
peak_bin="$venv/fma_peak"
if [ ! -x "$peak_bin" ] || [ "$repo/scripts/fma_peak.c" -nt "$peak_bin" ]; then
  cc -O2 -march=native -ffp-contract=fast -pthread "$repo/scripts/fma_peak.c" -o "$peak_bin"
fi
if [ -n "$peak" ]; then
  read -r peak1 peakn <<<"$peak"
else
  peak_out=$("$peak_bin" "$(nproc)")
  peak1=$(echo "$peak_out" | sed -n 's/^peak 1 thread: \([0-9.]*\).*/\1/p')
  peakn=$(echo "$peak_out" | sed -n 's/^peak [0-9]* threads: \([0-9.]*\).*/\1/p')
fi
load_warn() {
  local l
  l=$(cut -d' ' -f1 /proc/loadavg)
  echo "bench_peers.sh: load average $(cut -d' ' -f1-3 /proc/loadavg) $1" >&2
  if awk -v l="$l" 'BEGIN { exit !(l >= 1.5) }'; then
    echo "bench_peers.sh: WARNING: load $l >= 1.5: other jobs share the cores, numbers are not valid" >&2
  fi
}
# --- how far apart the first two cores are (2-thread figures depend on it) ---------------------
pingpong_bin="$venv/core_pingpong"
if [ ! -x "$pingpong_bin" ] || [ "$repo/scripts/core_pingpong.c" -nt "$pingpong_bin" ]; then
  cc -O2 -pthread "$repo/scripts/core_pingpong.c" -o "$pingpong_bin"
fi
core_trip() {
  [ "$(nproc)" -ge 2 ] && echo "bench_peers.sh: $("$pingpong_bin" 0 1) $1" >&2
  return 0
}
echo "bench_peers.sh: fp32 peak $peak1 GFLOP/s on 1 core, $peakn on $(nproc) (fma_peak)" >&2
core_trip "(set-up)"
[ "$setup_only" = 1 ] && exit 0

# --- models ------------------------------------------------------------------------------------
for tool in tflite-benchmark tflite-run; do
  [ -x "$build/tools/$tool" ] || { echo "bench_peers.sh: $build/tools/$tool missing (build it first)" >&2; exit 1; }
done
[ -n "$log" ] || log=$(mktemp -d /tmp/bench_peers.XXXXXX)
mkdir -p "$log"
prog=bench_peers.sh
# shellcheck source=scripts/bench_models.sh
. "$repo/scripts/bench_models.sh"
model_paths=$(bench_model_paths "$models")
specs=()
for path in $model_paths; do
  name=$(basename "$path" .tflite)
  if needs_cut "$path"; then
    python3 "$repo/scripts/cut_last_op.py" "$path" "$log/$name.cut.tflite" >/dev/null
    specs+=("$name (cut)=$log/$name.cut.tflite")
  else
    specs+=("$name=$path")
  fi
done

echo "bench_peers.sh: logs in $log; $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)" >&2
load_warn "before"
core_trip "before"
"$venv/bin/python" "$repo/scripts/bench_peers.py" --tools "$build/tools" --runs "$runs" \
  --rounds "$rounds" --threads "$threads" --log "$log" --peak1 "$peak1" --peakn "$peakn" \
  --pingpong "$pingpong_bin" \
  $bf16 "${baseline[@]}" "${busy[@]}" "${specs[@]}"
echo
echo "fp32 peak (scripts/fma_peak.c): $peak1 GFLOP/s on 1 core, $peakn on $(nproc) cores."
load_warn "after"
core_trip "after"
