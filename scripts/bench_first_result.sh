#!/bin/bash
# bench_first_result.sh - time to the first result of a GL pipeline, tflitefilter gl-start=wait
# against gl-start=cpu, with cold and warm shader caches (docs/gl-performance.md, "First
# results on the CPU while the GL programs compile").
#
# Each run is a fresh process (gst_first_result, tests/gst/first_result.c) of
#   gltestsrc is-live=true ! video/x-raw(memory:GLMemory),format=RGBA,WxH,30 fps !
#     tflitefilter name=f model=M gl-start=MODE cache-dir=D ! fakesink sync=true
# stopped 10 frames after the first GL result, and prints one line:
#   RUN model state mode first_ms F first_gl_ms G cpu_frames C gl_start_ms S max_gap_ms M frames N
# first_ms: from PLAYING to the first results (any delegate); first_gl_ms: to the first GL
# results; gl_start_ms: the GL engine's background start (gl-start=cpu); max_gap_ms: the
# longest time between two results (the frames' GL thread held up shows here). With
# gl-start=cpu a DETAIL line follows: the element's own breakdown (compile on a context of
# its own, the engine on the frames' context, its first inference). After REPEAT runs of a
# case: MEDIAN model state mode first_ms F first_gl_ms G.
# States (both the NVIDIA and the Mesa variables are set; each driver reads its own):
#   cold   driver shader cache off (__GL_SHADER_DISK_CACHE=0, MESA_SHADER_CACHE_DISABLE=true),
#          empty cache-dir: every start compiles everything
#   first  driver cache on but empty (a folder of its own), empty cache-dir: an
#          application's first start on a machine
#   warm   both caches filled by one run before: the second start
#
# Usage: scripts/bench_first_result.sh [--build DIR] [--models "M ..."] [--states "cold first warm"]
#          [--modes "wait cpu"] [--repeat N] [--size WxH] [--timeout S] [--filter-props "p=v ..."]
#   --build DIR    holds gst/libgsttflite.so and tests/gst_first_result (a meson build)
#                  or bin/gst_first_result (a staged one); default build/ or $BUILD_DIR
#   --models       .tflite files or names in models/cache, ../shared/models (default
#                  selfie_segmentation deeplabv3_257_mv_gpu)
#   --repeat N     runs per case (default 3)
#   --size WxH     default 1920x1080
#   --timeout S    per run (default 300)
#   --filter-props more tflitefilter properties, e.g. "engine-context=shared" (default none)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
models="selfie_segmentation deeplabv3_257_mv_gpu"
states="cold first warm"
modes="wait cpu"
repeat=3
size=1920x1080
timeout=300
filter_props=""
die() { echo "bench_first_result.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --states) states=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --filter-props) filter_props=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $size =~ ^([0-9]+)x([0-9]+)$ ]] || die "--size must be WxH, not '$size'"
width=${BASH_REMATCH[1]}; height=${BASH_REMATCH[2]}
[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "--repeat must be a number >= 1"
tool=$build/tests/gst_first_result
[ -x "$tool" ] || tool=$build/bin/gst_first_result
[ -x "$tool" ] || die "no gst_first_result in $build/tests or $build/bin (scripts/build.sh?)"
[ -f "$build/gst/libgsttflite.so" ] || die "no $build/gst/libgsttflite.so"
export GST_PLUGIN_PATH=$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}
if [ -z "${GST_GL_WINDOW:-}" ] && [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then export GST_GL_WINDOW=egl-device; fi
gst-inspect-1.0 tflitefilter >/dev/null || die "gst-inspect-1.0 cannot load tflitefilter from $build/gst"

find_model() {
  local m=$1
  for c in "$m" "$root/models/cache/$m.tflite" "$root/../shared/models/$m.tflite" "$root/models/cache/$m" \
           "$root/../shared/models/$m"; do
    [ -f "$c" ] && { echo "$(cd "$(dirname "$c")" && pwd)/$(basename "$c")"; return; }
  done
  die "model '$m' not found"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# run MODEL STATE MODE CACHE_DIR DRIVER_DIR -> the tool's line (and DETAIL)
run() {
  local model=$1 state=$2 mode=$3 cache=$4 driver=$5 env=() log=$tmp/log
  if [ "$state" = cold ]; then env=(__GL_SHADER_DISK_CACHE=0 MESA_SHADER_CACHE_DISABLE=true)
  else env=(__GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_PATH="$driver" __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1
            MESA_SHADER_CACHE_DIR="$driver"); fi
  local pipe="gltestsrc is-live=true ! video/x-raw(memory:GLMemory),format=RGBA,width=$width,height=$height,framerate=30/1 ! tflitefilter name=f model=$model gl-start=$mode cache-dir=$cache $filter_props ! fakesink sync=true"
  local line
  line=$(env "${env[@]}" GST_DEBUG=tflitefilter:4,tflinfer:4 GST_DEBUG_NO_COLOR=1 "$tool" --timeout "$timeout" "$pipe" 2>"$log") ||
    { cat "$log" >&2; die "run failed: $pipe"; }
  echo "RUN $(basename "$model" .tflite) $state $mode $line"
  grep -o 'GL engine ready after.*' "$log" | sed "s/^/DETAIL $(basename "$model" .tflite) $state $mode /" || true
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) print "-"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# field NAME: its value in RUN lines on stdin ("-" dropped)
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k && $(i + 1) != "-") print $(i + 1) }'; }

echo "$size, $repeat runs per case${filter_props:+, $filter_props}; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi')"
for m in $models; do
  model=$(find_model "$m")
  for state in $states; do
    case $state in cold|first|warm) ;; *) die "unknown state '$state'" ;; esac
    # warm: caches of their own, filled once by a run not counted
    if [ "$state" = warm ]; then
      mkdir -p "$tmp/warm-cache" "$tmp/warm-driver"
      run "$model" warm wait "$tmp/warm-cache" "$tmp/warm-driver" >/dev/null
    fi
    for mode in $modes; do
      case $mode in wait|cpu) ;; *) die "unknown mode '$mode'" ;; esac
      : >"$tmp/runs"
      for ((i = 0; i < repeat; i++)); do
        if [ "$state" = warm ]; then c=$tmp/warm-cache d=$tmp/warm-driver
        else c=$(mktemp -d -p "$tmp") d=$(mktemp -d -p "$tmp"); fi
        run "$model" "$state" "$mode" "$c" "$d" | tee -a "$tmp/runs"
      done
      echo "MEDIAN $(basename "$model" .tflite) $state $mode first_ms $(grep '^RUN' "$tmp/runs" | field first_ms | median)" \
           "first_gl_ms $(grep '^RUN' "$tmp/runs" | field first_gl_ms | median)"
    done
  done
done
