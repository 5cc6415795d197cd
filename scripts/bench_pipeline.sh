#!/bin/bash
# bench_pipeline.sh - 1080p throughput of tflitefilter + tfliteoverlay, GL and system-memory paths.
#
# For each path it runs, with gst-launch-1.0 and fakesink sync=false:
#   gl:     gltestsrc (frames made on the GPU) ! GLMemory RGBA caps !
#           tflitefilter delegate=gl ! tfliteoverlay ! fakesink
#           (--source videotestsrc: videotestsrc ! RGBA caps ! glupload ! ..., which adds one
#           CPU->GPU upload per frame)
#   system: videotestsrc ! FORMAT caps ! tflitefilter delegate=cpu threads=T ! tfliteoverlay ! fakesink
#           (FORMAT: each of --formats; the overlay draws on it in place; with --picture the
#           source is multifilesrc re-reading one raw FORMAT frame of that picture, so the
#           model finds something to draw: a new buffer each frame, as from a camera)
# at three stages (what bounds the rate): "source" (source ! fakesink only), "filter" (+ tflitefilter),
# "overlay" (+ tfliteoverlay: the whole pipeline).
#
# Each stage runs twice, with 1 frame and with N frames, so model loading, shader compilation
# and the first inference cancel out: per frame = (run(N) - run(1)) / (N - 1), for wall time
# and for the CPU time (user + system, all threads) of the gst-launch process, taken with bash's
# `times` (getrusage of children). fps = 1 / (wall time per frame). The GL path's GPU work is
# asynchronous: the rate is what the pipeline sustains, flushed at EOS.
#
# Usage: scripts/bench_pipeline.sh [--frames N] [--model M] [--path gl|cpu|both]
#          [--size WxH] [--threads T] [--source gltestsrc|videotestsrc] [--stages LIST]
#          [--filter-props "prop=value ..."] [--overlay-props "prop=value ..."] [--formats LIST]
#          [--repeat N] [--picture FILE] [--cpus LIST] [--build DIR]
#   --frames N     frames per timed run (default 300; llvmpipe: use 5-10 on the GL path); the
#                  source stage runs 10 N (at least 500)
#   --model M      .tflite file (default models/cache/selfie_segmentation.tflite; a bare name
#                  is looked up in models/cache/ and ../shared/models/)
#   --path         gl, cpu (system memory) or both (default both)
#   --stages LIST  comma-separated subset of source,filter,overlay (default all three)
#   --formats LIST system-memory pixel formats, comma-separated, of RGBA, RGBx, BGRA, BGRx,
#                  I420, NV12 (default RGBA; the GL path is always RGBA)
#   --overlay-props "prop=value ..."  tfliteoverlay properties (default none)
#   --cpus LIST    run every pipeline on these CPUs only (taskset -c LIST), e.g. 0 for one
#                  core (default: any)
#   --picture FILE system-memory path: frames of this picture (png/jpeg, scaled to --size)
#                  instead of videotestsrc's colour bars (default none)
#   --repeat N     run the stages N times, interleaved, and print medians (default 1); with
#                  filter and overlay, also the share of the filter stage's rate kept
#   --build DIR    build directory holding gst/libgsttflite.so (default build/, or $BUILD_DIR)
# Paths are resolved relative to the repository, so it runs from anywhere.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
frames=300
model=selfie_segmentation.tflite
path=both
size=1920x1080
threads=$(nproc 2>/dev/null || echo 1)
source_kind=gltestsrc
stages=source,filter,overlay
filter_props=""
overlay_props=""
formats=RGBA
repeat=1
picture=""
pin=()
build=${BUILD_DIR:-$root/build}

die() { echo "bench_pipeline.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --frames) frames=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --path) path=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --source) source_kind=$2; shift 2 ;;
    --stages) stages=$2; shift 2 ;;
    --filter-props) filter_props=$2; shift 2 ;;
    --overlay-props) overlay_props=$2; shift 2 ;;
    --formats) formats=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --picture) picture=$2; shift 2 ;;
    --cpus) pin=(taskset -c "$2"); shift 2 ;;
    --build) build=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $frames =~ ^[0-9]+$ ]] && [ "$frames" -ge 2 ] || die "--frames must be a number >= 2, not '$frames'"
[[ $repeat =~ ^[0-9]+$ ]] && [ "$repeat" -ge 1 ] || die "--repeat must be a number >= 1, not '$repeat'"
[[ $size =~ ^([0-9]+)x([0-9]+)$ ]] || die "--size must be WxH, not '$size'"
width=${BASH_REMATCH[1]}; height=${BASH_REMATCH[2]}
case $path in gl) paths=(gl) ;; cpu) paths=(cpu) ;; both) paths=(gl cpu) ;;
  *) die "--path must be gl, cpu or both, not '$path'" ;; esac
case $source_kind in gltestsrc|videotestsrc) ;; *) die "--source must be gltestsrc or videotestsrc" ;; esac
IFS=, read -r -a format_list <<<"$formats"
for f in "${format_list[@]}"; do
  case $f in RGBA|RGBx|BGRA|BGRx|I420|NV12) ;; *) die "--formats: '$f' is not one of RGBA, RGBx, BGRA, BGRx, I420, NV12" ;; esac
done

# The model: as given, else in the repository's model folders.
if [ ! -f "$model" ]; then
  for dir in "$root/models/cache" "$root/../shared/models"; do
    if [ -f "$dir/$model" ]; then model=$dir/$model; break; fi
  done
fi
[ -f "$model" ] || die "model '$model' not found (run models/fetch.sh?)"
model=$(cd "$(dirname "$model")" && pwd)/$(basename "$model")
[ -f "$build/gst/libgsttflite.so" ] || die "no $build/gst/libgsttflite.so (run scripts/build.sh or pass --build)"

export GST_PLUGIN_PATH=$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}
if [ -z "${GST_GL_WINDOW:-}" ] && [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  export GST_GL_WINDOW=egl-device
fi
# --picture: one raw frame per format, made now
rawdir=""
if [ -n "$picture" ]; then
  [ -f "$picture" ] || die "--picture '$picture' not found"
  picture=$(cd "$(dirname "$picture")" && pwd)/$(basename "$picture")
  rawdir=$(mktemp -d)
  trap 'rm -rf "$rawdir"' EXIT
  for f in "${format_list[@]}"; do
    gst-launch-1.0 -q filesrc location="$picture" ! decodebin ! videoconvert ! videoscale ! \
      "video/x-raw,format=$f,width=$width,height=$height" ! filesink location="$rawdir/$f.raw" >/dev/null ||
      die "cannot make a $f frame of $picture"
  done
fi
# Build the plugin registry now, so that no run pays for it.
gst-inspect-1.0 tflitefilter >/dev/null || die "gst-inspect-1.0 cannot load tflitefilter from $build/gst"

# pipeline PATH FORMAT STAGE FRAMES -> the gst-launch-1.0 arguments, one per line
pipeline() {
  local p=$1 fmt=$2 stage=$3 n=$4 raw="video/x-raw,format=$2,width=$width,height=$height"
  if [ "$p" = gl ] && [ "$source_kind" = gltestsrc ]; then
    echo "gltestsrc num-buffers=$n ! video/x-raw(memory:GLMemory),format=RGBA,width=$width,height=$height"
  elif [ "$p" = gl ]; then
    echo "videotestsrc num-buffers=$n ! $raw ! glupload"
  elif [ -n "$rawdir" ]; then
    echo "multifilesrc location=$rawdir/$fmt.raw loop=true num-buffers=$n caps=$raw,framerate=30/1"
  else
    echo "videotestsrc num-buffers=$n ! $raw"
  fi
  local delegate="delegate=gl"
  [ "$p" = cpu ] && delegate="delegate=cpu threads=$threads"
  case $stage in
    source) ;;
    filter) echo "! tflitefilter model=$model $delegate $filter_props" ;;
    overlay) echo "! tflitefilter model=$model $delegate $filter_props ! tfliteoverlay $overlay_props" ;;
  esac
  echo "! fakesink sync=false"
}

# timed PATH STAGE FRAMES -> "wall_s cpu_s" of one gst-launch-1.0 run
timed() {
  local args t0 t1 log
  args=$(pipeline "$@" | tr '\n' ' ')
  log=$(mktemp)
  t0=$(date +%s.%N)
  # `times` in the subshell: its second line is the CPU time of its children (gst-launch)
  local cpu
  # $args unquoted: the pipeline is meant to split into words
  cpu=$( (${pin[@]+"${pin[@]}"} gst-launch-1.0 -q $args >"$log" 2>&1 || { echo "bench_pipeline.sh: run failed:" \
            "gst-launch-1.0 $args" >&2; cat "$log" >&2; exit 1; }
          times) | tail -n 1) || { rm -f "$log"; exit 1; }
  t1=$(date +%s.%N)
  rm -f "$log"
  # "0m1.234s 0m0.056s" -> seconds
  echo "$t0 $t1 $cpu" | awk '{
    split($3, u, /[ms]/); split($4, s, /[ms]/);
    printf "%.6f %.6f\n", $2 - $1, u[1] * 60 + u[2] + s[1] * 60 + s[2] }'
}

echo "model $model, ${width}x${height}, $frames frames per run, $(nproc 2>/dev/null || echo '?') CPU cores"
echo "GST_GL_WINDOW=${GST_GL_WINDOW:-} GST_PLUGIN_PATH=$GST_PLUGIN_PATH${pin[*]:+, pinned: ${pin[*]}}"
printf '%-6s %-6s %-8s %10s %10s %14s %10s\n' path format stage fps ms/frame "cpu ms/frame" startup_s
IFS=, read -r -a stage_list <<<"$stages"
for stage in "${stage_list[@]}"; do
  case $stage in source|filter|overlay) ;; *) die "unknown stage '$stage'" ;; esac
done
# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for p in "${paths[@]}"; do
  fmts=("${format_list[@]}")
  [ "$p" = gl ] && fmts=(RGBA)
  for fmt in "${fmts[@]}"; do
    # the stages interleaved, --repeat times: a burst of load hits all of them alike
    declare -A wall=() cpu=() start=() frames_of=()
    for ((rep = 0; rep < repeat; rep++)); do
      for stage in "${stage_list[@]}"; do
        # the source alone is fast: more frames, so that its time stands out of the startup noise
        n=$frames
        if [ "$stage" = source ]; then n=$((frames * 10)); [ "$n" -ge 500 ] || n=500; fi
        r1=$(timed "$p" "$fmt" "$stage" 1)
        rn=$(timed "$p" "$fmt" "$stage" "$n")
        read -r w1 c1 <<<"$r1"
        read -r wn cn <<<"$rn"
        wall[$stage]+="$(awk -v a="$w1" -v b="$wn" -v n="$n" 'BEGIN { print (b - a) / (n - 1) }') "
        cpu[$stage]+="$(awk -v a="$c1" -v b="$cn" -v n="$n" 'BEGIN { print (b - a) / (n - 1) }') "
        start[$stage]+="$w1 "
        frames_of[$stage]=$n
      done
    done
    declare -A fps_of=()
    for stage in "${stage_list[@]}"; do
      wf=$(tr ' ' '\n' <<<"${wall[$stage]}" | grep . | median)
      cf=$(tr ' ' '\n' <<<"${cpu[$stage]}" | grep . | median)
      w1=$(tr ' ' '\n' <<<"${start[$stage]}" | grep . | median)
      fps_of[$stage]=$(awk -v w="$wf" 'BEGIN { print (w > 0) ? 1 / w : 0 }')
      awk -v p="$p" -v fm="$fmt" -v st="$stage" -v n="${frames_of[$stage]}" -v r="$repeat" -v wf="$wf" -v cf="$cf" -v w1="$w1" 'BEGIN {
        if (wf <= 0) { printf "%-6s %-6s %-8s %10s %10s %14s %10.2f  (%d frames: lost in startup noise)\n", p, fm, st, "-", "-", "-", w1, n; exit }
        printf "%-6s %-6s %-8s %10.1f %10.3f %14.3f %10.2f  (%d frames, median of %d)\n", p, fm, st, 1 / wf, wf * 1000, cf * 1000, w1, n, r }'
    done
    if [ -n "${fps_of[filter]:-}" ] && [ -n "${fps_of[overlay]:-}" ]; then
      awk -v p="$p" -v fm="$fmt" -v f="${fps_of[filter]}" -v o="${fps_of[overlay]}" 'BEGIN {
        if (f > 0 && o > 0) printf "%-6s %-6s overlay keeps %.0f%% of the filter stage'"'"'s rate\n", p, fm, 100 * o / f }'
    fi
    unset wall cpu start fps_of frames_of
  done
done
echo
echo "Commands (each stage runs once with num-buffers=1 and once with the frames shown above):"
for p in "${paths[@]}"; do
  fmts=("${format_list[@]}")
  [ "$p" = gl ] && fmts=(RGBA)
  for fmt in "${fmts[@]}"; do
    echo "  ${pin[*]:+${pin[*]} }gst-launch-1.0 $(pipeline "$p" "$fmt" overlay "$frames" | tr '\n' ' ')"
  done
done
