#!/bin/bash
# soak.sh - a long-running appliance: S live camera-rate streams in one gst-launch-1.0, run
# for a duration, sampled every INTERVAL seconds; fails when RSS, file descriptors, live
# GStreamer objects or GPU memory grow beyond a bound after the warm-up, when a stream stalls
# (its rate under a fraction of the camera rate) or when the leaks tracer finds objects alive
# at exit.
#
# Each stream is what a user runs on a camera, with a tee to a second (recording/display) branch:
#   filesrc astronaut.png ! pngdec ! imagefreeze is-live=true ! caps (W x H, FPS) ! [glupload !]
#     tee ! queue leaky ! tflitefilter model=M ! tflitetracker ! tfliteoverlay ! fakesink
#         tee. ! queue leaky ! fakesink
# (the cpu path keeps frames in system memory; the gl path uploads them, so the filter runs the
# GL delegate and the overlay draws with shaders).
#
# Sampled (one table row each INTERVAL): process RSS (VmRSS), open file descriptors, objects
# alive (GStreamer's leaks tracer, logged on SIGUSR1), GPU memory used (nvidia-smi's
# memory.used when present, else "-"), each stream's inference rate over the interval (from
# the filter's tflite-results messages), process CPU %.
# Bounds, after the warm-up (the first row after it is the baseline): the largest later value
# minus the baseline must not exceed --rss-growth MiB, --fd-growth, --object-growth,
# --gpu-growth MiB; every stream's rate must stay >= --min-rate (fraction of FPS) in every
# interval after the warm-up. At the end SIGINT stops the pipeline (gst-launch-1.0 sets it to
# NULL; a picture source has no EOS to send) and it must exit by itself with no object alive
# (the leaks tracer's report at gst_deinit).
#
# Usage: scripts/soak.sh [--path cpu|gl] [--streams S] [--duration SECONDS] [--model M]
#          [--fps F] [--size WxH] [--interval SECONDS] [--warmup SECONDS]
#          [--rss-growth MIB] [--fd-growth N] [--object-growth N] [--gpu-growth MIB]
#          [--min-rate FRACTION] [--filter-props "prop=value ..."] [--csv FILE] [--build DIR]
#          [--nice N]
# Defaults: cpu, 2 streams, 120 s, face_detection_short_range.tflite, 15 fps, 640x480,
# interval 30 s, warm-up 30 s, growth bounds 12 MiB / 0 fds / 50 objects / 32 MiB, min rate 0.5.
# Exit status: 0 pass, 1 a bound broken or the pipeline failed, 2 bad usage.
# Beside other work run it at low priority: --nice N renices the pipeline (nice -n 10
# scripts/soak.sh ... does the same for the script too).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
path=cpu
streams=2
duration=120
model=face_detection_short_range.tflite
fps=15
size=640x480
interval=30
warmup=30
rss_growth=12
fd_growth=0
object_growth=50
gpu_growth=32
min_rate=0.5
filter_props=""
csv=""
build=${BUILD_DIR:-$root/build}
niceness=0
picture=$root/tests/data/pictures/astronaut.png

die() { echo "soak.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --path) path=$2; shift 2 ;;
    --streams) streams=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --fps) fps=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --rss-growth) rss_growth=$2; shift 2 ;;
    --fd-growth) fd_growth=$2; shift 2 ;;
    --object-growth) object_growth=$2; shift 2 ;;
    --gpu-growth) gpu_growth=$2; shift 2 ;;
    --min-rate) min_rate=$2; shift 2 ;;
    --filter-props) filter_props=$2; shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --nice) niceness=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
for v in streams duration fps interval warmup rss_growth fd_growth object_growth gpu_growth niceness; do
  [[ ${!v} =~ ^[0-9]+$ ]] || die "--${v//_/-} must be a whole number, not '${!v}'"
done
[ "$streams" -ge 1 ] || die "--streams must be >= 1"
[ "$fps" -ge 1 ] || die "--fps must be >= 1"
[ "$interval" -ge 1 ] || die "--interval must be >= 1"
[ "$duration" -gt "$warmup" ] || die "--duration ($duration) must be longer than --warmup ($warmup)"
[[ $min_rate =~ ^[0-9]*\.?[0-9]+$ ]] || die "--min-rate must be a fraction like 0.5, not '$min_rate'"
[[ $size =~ ^([0-9]+)x([0-9]+)$ ]] || die "--size must be WxH, not '$size'"
width=${BASH_REMATCH[1]}; height=${BASH_REMATCH[2]}
case $path in gl|cpu) ;; *) die "--path must be cpu or gl, not '$path'" ;; esac
if [ ! -f "$model" ]; then
  for dir in "$root/models/cache" "${TFL_SHARED_MODELS:-$root/../shared/models}"; do
    [ -f "$dir/$model" ] && { model=$dir/$model; break; }
  done
fi
[ -f "$model" ] || die "model '$model' not found (models/fetch.sh, or ../shared/models)"
[ -f "$picture" ] || die "missing $picture (tests/fetch_pictures.sh)"
[ -f "$build/gst/libgsttflite.so" ] || die "no $build/gst/libgsttflite.so (scripts/build.sh, or --build DIR)"
export GST_PLUGIN_PATH=$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}
[ -n "${GST_GL_WINDOW:-}" ] || export GST_GL_WINDOW=egl-device
gst-inspect-1.0 tflitefilter >/dev/null || die "gst-inspect-1.0 cannot load tflitefilter from $build/gst"

work=$(mktemp -d)
pid=""
cleanup() {
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
[ -z "${SOAK_KEEP:-}" ] || { trap - EXIT; echo "soak: logs in $work"; }

words=()
for i in $(seq 0 $((streams - 1))); do
  up=""; [ "$path" = gl ] && up="! glupload"
  words+=(filesrc location="$picture" ! pngdec ! videoconvert ! videoscale ! imagefreeze is-live=true
          ! "video/x-raw,format=RGBA,width=$width,height=$height,framerate=$fps/1" $up ! tee name=t$i
          t$i. ! queue leaky=downstream max-size-buffers=4 ! tflitefilter name=f$i model="$model" $filter_props
          ! tflitetracker source=f$i ! tfliteoverlay ! fakesink sync=false
          t$i. ! queue leaky=downstream max-size-buffers=4 ! fakesink sync=false)
done

# The leaks tracer: SIGUSR1 logs every object alive (counted per sample), gst_deinit logs the
# ones left at exit.
export GST_TRACERS=leaks GST_LEAKS_TRACER_SIG=1 GST_DEBUG=GST_TRACER:7 GST_DEBUG_NO_COLOR=1
export GST_DEBUG_FILE=$work/tracer.log
# -m prints the bus messages; awk turns each stream's tflite-results into a running count,
# written once per 16 results so that the sampler reads a recent value cheaply.
(gst-launch-1.0 -m "${words[@]}" 2>"$work/stderr" |
  awk -v out="$work/counts" '
    /tflite-results/ && match($0, /element "f[0-9]+"/) {
      name = substr($0, RSTART + 9, RLENGTH - 10); n[name]++
      if (n[name] % 16 == 0) { print name, n[name] >> out; fflush(out) }
    }
    /^ERROR|^WARNING/ { print > "/dev/stderr" }' ) &
sleep 1
pid=$(pgrep -n -P "$!" -x gst-launch-1.0 || true)
[ -n "$pid" ] || { cat "$work/stderr" >&2; echo "soak.sh: the pipeline did not start" >&2; exit 1; }
[ "$niceness" -eq 0 ] || renice -n "$niceness" -p "$pid" >/dev/null

gpu_used() {
  command -v nvidia-smi >/dev/null || { echo -; return; }
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -n 1 | tr -d ' ' || echo -
}
# one line per object (not the record's format line, whose fields are %s)
alive_lines() { grep -c 'object-alive, type-name=(string)[^%]' "$GST_DEBUG_FILE" 2>/dev/null || true; }
alive_objects() {
  local before after
  before=$(alive_lines)
  kill -USR1 "$pid" 2>/dev/null || return 1
  sleep 1
  after=$(alive_lines)
  echo $(( ${after:-0} - ${before:-0} ))
}
stream_count() { awk -v s="f$1" '$1 == s { n = $2 } END { print n + 0 }' "$work/counts" 2>/dev/null || echo 0; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }

echo "soak: path $path, $streams streams of ${width}x${height} at $fps fps, $(basename "$model"), ${duration} s," \
     "sample every ${interval} s, warm-up ${warmup} s, $(nproc) cores${filter_props:+, props: $filter_props}"
header="t_s rss_mib fds objects gpu_mib cpu_pct"
for i in $(seq 0 $((streams - 1))); do header+=" fps_$i"; done
echo "$header" | awk '{ for (i = 1; i <= NF; i++) printf "%10s", $i; print "" }'
[ -n "$csv" ] && echo "$header" | tr ' ' ',' >"$csv"

hz=$(getconf CLK_TCK)
start=$(date +%s.%N)
last_t=0; last_ticks=$(cpu_ticks); declare -a last_n
for i in $(seq 0 $((streams - 1))); do last_n[$i]=0; done
rows=()
fail=""
next=$interval
while :; do
  now=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
  wait_s=$(awk -v a="$next" -v b="$now" 'BEGIN { d = a - b; print (d > 0 ? d : 0) }')
  sleep "$wait_s"
  kill -0 "$pid" 2>/dev/null || { fail="the pipeline exited early"; break; }
  t=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  rss=$(awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status")
  fds=$(ls "/proc/$pid/fd" | wc -l)
  ticks=$(cpu_ticks)
  cpu=$(awk -v d=$((ticks - last_ticks)) -v hz="$hz" -v dt="$t" -v t0="$last_t" \
    'BEGIN { printf "%.0f", 100 * d / hz / (dt - t0) }')
  row="$t $rss $fds OBJ $(gpu_used) $cpu"
  for i in $(seq 0 $((streams - 1))); do
    n=$(stream_count "$i")
    row+=" $(awk -v a="$n" -v b="${last_n[$i]}" -v dt="$t" -v t0="$last_t" 'BEGIN { printf "%.1f", (a - b) / (dt - t0) }')"
    last_n[$i]=$n
  done
  last_t=$t; last_ticks=$ticks
  objs=$(alive_objects) || { fail="the pipeline exited early"; break; }
  row=${row/OBJ/$objs}
  rows+=("$row")
  echo "$row" | awk '{ for (i = 1; i <= NF; i++) printf "%10s", $i; print "" }'
  [ -n "$csv" ] && echo "$row" | tr ' ' ',' >>"$csv"
  next=$((next + interval))
  [ "$next" -le "$duration" ] || break
done

# Stopped, then the leaks tracer's report at exit.
listed=$(alive_lines)
if [ -z "$fail" ]; then
  kill -INT "$pid"
  for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  if kill -0 "$pid" 2>/dev/null; then
    fail="the pipeline did not exit within 30 s of SIGINT"
    kill -KILL "$pid" 2>/dev/null || true
  fi
fi
wait || true
grep -q -i 'ERROR' "$work/stderr" && { sed 's/^/  /' "$work/stderr" >&2; fail=${fail:-"the pipeline reported an error"}; }
# At exit (gst_deinit) the tracer lists the objects still alive after the samples' listings.
leaked=$(( $(alive_lines) - ${listed:-0} ))
[ "${#rows[@]}" -eq 0 ] || [ "$(printf '%s\n' "${rows[@]}" | awk '{ s += $4 } END { print s }')" -gt 0 ] ||
  fail=${fail:-"the leaks tracer listed no object (GST_TRACERS=leaks not active?)"}

# Growth after the warm-up: the first row at or after --warmup is the baseline.
verdict=$(printf '%s\n' "${rows[@]}" | awk -v w="$warmup" -v rb="$rss_growth" -v fb="$fd_growth" \
    -v ob="$object_growth" -v gb="$gpu_growth" -v mr="$min_rate" -v fps="$fps" '
  $1 + 0 < w { next }
  !based { based = 1; r0 = $2; f0 = $3; o0 = $4; g0 = $5; next }
  {
    if ($2 - r0 > rmax) rmax = $2 - r0
    if ($3 - f0 > fmax) fmax = $3 - f0
    if ($4 - o0 > omax) omax = $4 - o0
    if (g0 != "-" && $5 - g0 > gmax) gmax = $5 - g0
    for (i = 7; i <= NF; i++) if ($i < mr * fps && (slow == "" || $i < slow)) { slow = $i; slowcol = i - 7 }
    rows++
  }
  END {
    if (!rows) { print "FAIL too few samples after the warm-up (lengthen --duration)"; exit }
    msg = sprintf("after warm-up: RSS +%.1f MiB (bound %d), fds +%d (bound %d), objects +%d (bound %d)",
                  rmax, rb, fmax, fb, omax, ob)
    if (g0 != "-") msg = msg sprintf(", GPU +%d MiB (bound %d)", gmax, gb)
    bad = rmax > rb || fmax > fb || omax > ob || (g0 != "-" && gmax > gb)
    if (slow != "") { msg = msg sprintf("; stream %d fell to %.1f fps (< %.2f x %d)", slowcol, slow, mr, fps); bad = 1 }
    print (bad ? "FAIL " : "ok ") msg
  }')
echo "$verdict"
echo "leaks tracer at exit: ${leaked:-0} objects alive"
[ "${leaked:-0}" -eq 0 ] || { grep 'object-alive, type-name=(string)[^%]' "$GST_DEBUG_FILE" | tail -n "$leaked" | sed 's/^/  /' | head -n 20;
  fail=${fail:-"$leaked objects alive at exit"}; }
case $verdict in FAIL*) fail=${fail:-"growth beyond the bounds"} ;; esac
if [ -n "$fail" ]; then
  echo "soak: FAIL: $fail"
  exit 1
fi
echo "soak: pass"
