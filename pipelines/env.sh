# env.sh - sourced by every pipeline script: finds the plugin, the models and the pictures
# relative to this repository, so the scripts run from any directory.
#
# Overrides (environment): BUILD_DIR (default <repo>/build, as scripts/build.sh),
# MODELS (default <repo>/../shared/models), NPM (default <repo>/models/cache),
# OUT (where outputs go, default <repo>/pipelines/out), MEMORY=gl|system (default gl: frames
# live in GL textures between glupload and gldownload; system: the same pipeline without
# them, so tflitefilter runs the CPU delegate and tfliteoverlay draws with its software renderer).

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO/build}
MODELS=${MODELS:-$REPO/../shared/models}
NPM=${NPM:-$REPO/models/cache}
PICTURES=${PICTURES:-$REPO/tests/data/pictures}
OUT=${OUT:-$REPO/pipelines/out}

# Only our plugin from the build tree (plus the system's); the registry is rebuilt when it changes.
export GST_PLUGIN_PATH=$BUILD_DIR/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}
# Headless GL: with no window system GStreamer's GL fails fast unless it uses an EGL device.
if [ -z "${GST_GL_WINDOW:-}" ] && [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  export GST_GL_WINDOW=egl-device
fi

# $UPLOAD / $DOWNLOAD: the pipeline pieces that move frames to and from GL memory, left
# unquoted in the scripts so that they vanish on the system-memory path; $SUFFIX tells the
# two paths' output files apart.
case ${MEMORY:=gl} in
  gl) UPLOAD="glupload !"; DOWNLOAD="gldownload !"; SUFFIX="" ;;
  system) UPLOAD=""; DOWNLOAD=""; SUFFIX="-system" ;;
  *) echo "MEMORY must be gl or system, not '$MEMORY'" >&2; exit 1 ;;
esac

# need FILE... - stops with a hint when a model, picture or the plugin is missing.
need() {
  local f
  for f in "$@"; do
    if [ ! -e "$f" ]; then
      echo "$(basename "$0"): missing $f" >&2
      case "$f" in
        "$NPM"/*) echo "  run models/fetch.sh" >&2 ;;
        "$PICTURES"/*) echo "  run tests/fetch_pictures.sh" >&2 ;;
        "$BUILD_DIR"/*) echo "  run scripts/build.sh (or set BUILD_DIR)" >&2 ;;
      esac
      exit 1
    fi
  done
}

need "$BUILD_DIR/gst/libgsttflite.so"
mkdir -p "$OUT"

# two_astronauts FRAMES - a source for launch lines when no video is given: astronaut.png
# twice side by side (1024x512, 10 fps) for FRAMES frames. Sets $src (the compositor, up
# to its output) and $srcs (its inputs, for the end of the line).
two_astronauts() {
  src="compositor name=c sink_1::xpos=512 ! video/x-raw,width=1024,height=512,framerate=10/1 ! videoconvert"
  srcs="filesrc location=$PICTURES/astronaut.png ! pngdec ! videoconvert ! imagefreeze num-buffers=$1 ! c.sink_0
        filesrc location=$PICTURES/astronaut.png ! pngdec ! videoconvert ! imagefreeze num-buffers=$1 ! c.sink_1"
}
