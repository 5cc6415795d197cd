#!/bin/bash
# publish-mqtt.sh - objects from a camera or a video to MQTT, printed as they arrive.
#
# tflitefilter runs MediaPipe face detection on each frame; tflitepublish sends the frame's
# objects as JSON (docs/results-schema.md) to an MQTT broker on topic cameras/CAMERA/objects
# and passes the video on to tfliteoverlay and an MJPEG file (pass-through: the video does
# not wait for the broker). pipelines/mqtt-subscribe.py prints what the broker delivers.
# When nothing answers on HOST:PORT and HOST is this machine, a private Mosquitto is started
# on 127.0.0.1 for the run (apt-get install mosquitto mosquitto-clients).
#
# Source: a camera (/dev/video0), a video file, a picture (held for FRAMES frames), or
# nothing: astronaut.png (tests/fetch_pictures.sh), else videotestsrc.
# On screen: lines like
#   astronaut  frame 0    t=0.000s   detection 0 0.92 [188,83 97x97] 6 keypoints
# and pipelines/out/publish-mqtt.avi with the boxes drawn.
# Usage: [HOST=localhost] [PORT=1883] [CAMERA=astronaut] [FRAMES=20] [MEMORY=system]
#        pipelines/publish-mqtt.sh [SOURCE [MODEL.tflite]]
set -euo pipefail
source "$(dirname "$0")/env.sh"

src=${1:-}
model=${2:-$NPM/face_detection_short_range.tflite}
host=${HOST:-localhost}
port=${PORT:-1883}
frames=${FRAMES:-20}
need "$model"

case "$src" in
  "") if [ -e "$PICTURES/astronaut.png" ]; then src=$PICTURES/astronaut.png; fi ;;
esac
case "$src" in
  "") camera=${CAMERA:-testsrc}
      input="videotestsrc num-buffers=$frames pattern=ball ! video/x-raw,width=640,height=480,framerate=10/1" ;;
  /dev/video*) camera=${CAMERA:-$(basename "$src")}
      input="v4l2src device=$src num-buffers=$frames" ;;
  *.png|*.jpg|*.jpeg) camera=${CAMERA:-$(basename "${src%.*}")}
      input="filesrc location=$src ! decodebin ! imagefreeze num-buffers=$frames ! video/x-raw,framerate=10/1" ;;
  *) camera=${CAMERA:-$(basename "${src%.*}")}
      input="filesrc location=$src ! decodebin" ;;
esac

broker_pid=
cleanup() {
  [ -n "${sub_pid:-}" ] && kill "$sub_pid" 2>/dev/null || true
  [ -n "$broker_pid" ] && kill "$broker_pid" 2>/dev/null || true
}
trap cleanup EXIT
if ! (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
  case "$host" in
    localhost|127.0.0.1)
      command -v mosquitto >/dev/null || PATH=$PATH:/usr/sbin
      echo "no broker on $host:$port: starting a private mosquitto on 127.0.0.1:$port for this run"
      mosquitto -p "$port" >"$OUT/mosquitto.log" 2>&1 &
      broker_pid=$!
      sleep 0.5 ;;
    *) echo "no MQTT broker answers on $host:$port" >&2; exit 1 ;;
  esac
fi

"$REPO/pipelines/mqtt-subscribe.py" --host "$host" --port "$port" --topic "cameras/$camera/#" &
sub_pid=$!
sleep 0.5

out=$OUT/publish-mqtt$SUFFIX.avi
gst-launch-1.0 -q \
  $input ! videoconvert ! video/x-raw,format=RGBA ! $UPLOAD \
  tflitefilter model="$model" ! \
  tflitepublish host="$host" port="$port" camera-id="$camera" ! \
  tfliteoverlay ! \
  $DOWNLOAD videoconvert ! jpegenc ! avimux ! filesink location="$out"
sleep 1 # the last messages reach the subscriber
echo "wrote $out"
