#!/bin/bash
# bench_streams.sh - many 1080p streams through one model: in one process and in separate
# processes, fps together, CPU time and GPU memory.
#
# Each stream is `SRC num-buffers=N ! caps ! tflitefilter model=M PROPS ! tfliteoverlay !
# fakesink sync=false`, SRC gltestsrc (GL path, frames made on the GPU) or videotestsrc
# (system memory). "process" puts S such branches in one gst-launch-1.0 (S sources, one
# pipeline, so one GstGLContext); "processes" starts S gst-launch-1.0 at once.
#
# As in bench_pipeline.sh every configuration runs twice (after a warm-up run), with 1 frame and
# with N frames per stream, so loading, compiling and the first inference cancel out:
#   fps = S * (N - 1) / (wall(N) - wall(1)),  CPU ms/frame from getrusage of the children.
# GPU memory (GL path, when nvidia-smi exists): the most `memory.used` seen while the N-frame
# run goes, minus the idle value before it.
#
# Usage: scripts/bench_streams.sh [--streams "1 2 4 8"] [--frames N] [--model M]
#          [--path gl|cpu] [--mode process|processes|both] [--size WxH]
#          [--filter-props "prop=value ..."] [--no-overlay] [--build DIR]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
streams="1 2 4 8"
frames=1000
model=selfie_segmentation.tflite
path=gl
mode=both
size=1920x1080
filter_props=""
overlay="! tfliteoverlay"
build=${BUILD_DIR:-$root/build}

die() { echo "bench_streams.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --streams) streams=$2; shift 2 ;;
    --frames) frames=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --path) path=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --filter-props) filter_props=$2; shift 2 ;;
    --no-overlay) overlay=""; shift ;;
    --build) build=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $frames =~ ^[0-9]+$ ]] && [ "$frames" -ge 2 ] || die "--frames must be a number >= 2"
[[ $size =~ ^([0-9]+)x([0-9]+)$ ]] || die "--size must be WxH, not '$size'"
width=${BASH_REMATCH[1]}; height=${BASH_REMATCH[2]}
case $path in gl|cpu) ;; *) die "--path must be gl or cpu" ;; esac
case $mode in process) modes=(process) ;; processes) modes=(processes) ;; both) modes=(process processes) ;;
  *) die "--mode must be process, processes or both" ;; esac
if [ ! -f "$model" ]; then
  for dir in "$root/models/cache" "$root/../shared/models"; do
    [ -f "$dir/$model" ] && { model=$dir/$model; break; }
  done
fi
[ -f "$model" ] || die "model '$model' not found (run models/fetch.sh?)"
model=$(cd "$(dirname "$model")" && pwd)/$(basename "$model")
[ -f "$build/gst/libgsttflite.so" ] || die "no $build/gst/libgsttflite.so (run scripts/build.sh or pass --build)"
export GST_PLUGIN_PATH=$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}
[ -n "${GST_GL_WINDOW:-}" ] || export GST_GL_WINDOW=egl-device
gst-inspect-1.0 tflitefilter >/dev/null || die "gst-inspect-1.0 cannot load tflitefilter from $build/gst"

# branch N -> one stream's launch words
branch() {
  if [ "$path" = gl ]; then
    echo "gltestsrc num-buffers=$1 ! video/x-raw(memory:GLMemory),format=RGBA,width=$width,height=$height"
  else
    echo "videotestsrc num-buffers=$1 ! video/x-raw,format=RGBA,width=$width,height=$height"
  fi
  echo "! tflitefilter model=$model $filter_props $overlay ! fakesink sync=false"
}

gpu_used() {
  command -v nvidia-smi >/dev/null || { echo 0; return; }
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -n 1 | tr -d ' '
}

# run MODE S N -> "wall_s cpu_s peak_gpu_mib"
run() {
  local m=$1 s=$2 n=$3 words=() pids=() log peak=0 cpu
  log=$(mktemp)
  local idle; idle=$(gpu_used)
  local t0 t1
  t0=$(date +%s.%N)
  cpu=$( (
    if [ "$m" = process ]; then
      for _ in $(seq "$s"); do words+=($(branch "$n" | tr '\n' ' ')); done
      gst-launch-1.0 -q "${words[@]}" >"$log" 2>&1 &
      pids+=($!)
    else
      for _ in $(seq "$s"); do
        gst-launch-1.0 -q $(branch "$n" | tr '\n' ' ') >>"$log" 2>&1 &
        pids+=($!)
      done
    fi
    # sample GPU memory while they run
    while kill -0 "${pids[@]}" 2>/dev/null; do
      u=$(gpu_used); [ "$u" -gt "$peak" ] && peak=$u
      sleep 0.2
    done
    for p in "${pids[@]}"; do wait "$p" || { echo "run failed:" >&2; cat "$log" >&2; exit 1; }; done
    echo "$((peak > idle ? peak - idle : 0))" >"$log.gpu"
    times) | tail -n 1)
  t1=$(date +%s.%N)
  local g; g=$(cat "$log.gpu" 2>/dev/null || echo 0)
  rm -f "$log" "$log.gpu"
  echo "$t0 $t1 $cpu $g" | awk '{ split($3, u, /[ms]/); split($4, c, /[ms]/);
    printf "%.6f %.6f %s\n", $2 - $1, u[1] * 60 + u[2] + c[1] * 60 + c[2], $5 }'
}

echo "model $(basename "$model"), ${width}x${height}, path $path, $frames frames per stream per timed run," \
     "$(nproc) CPU cores${filter_props:+, props: $filter_props}${overlay:+, with tfliteoverlay}"
printf '%-10s %8s %10s %14s %10s %10s\n' mode streams fps "cpu ms/frame" "gpu MiB" startup_s
for m in "${modes[@]}"; do
  for s in $streams; do
    run "$m" "$s" 2 >/dev/null  # warm-up: the driver's shader cache and ours, the page cache
    r1=$(run "$m" "$s" 1)
    rn=$(run "$m" "$s" "$frames")
    read -r w1 c1 _ <<<"$r1"
    read -r wn cn gn <<<"$rn"
    awk -v m="$m" -v s="$s" -v n="$frames" -v w1="$w1" -v c1="$c1" -v wn="$wn" -v cn="$cn" -v g="$gn" 'BEGIN {
      d = wn - w1; f = s * (n - 1);
      if (d <= 0) { printf "%-10s %8d %10s  (lost in startup noise)\n", m, s, "-"; exit }
      printf "%-10s %8d %10.0f %14.3f %10d %10.2f\n", m, s, f / d, (cn - c1) / f * 1000, g, w1 }'
  done
done
echo
echo "One stream: gst-launch-1.0 $(branch "$frames" | tr '\n' ' ')"
