#!/bin/bash
# install_check.sh BUILD_DIR SOURCE_DIR - the meta library installs like a GStreamer
# library: `meson install` into a scratch root, then pipelines/examples/appsink-meta.c
# builds outside the tree with pkg-config alone, and Python loads the installed typelib.
set -euo pipefail
build=$1
src=$2
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
meson install -C "$build" --destdir "$root" --no-rebuild --quiet >/dev/null
fail() { echo "FAIL $*"; exit 1; }
pc=$(find "$root" -name gsttflitemeta-1.0.pc | head -1)
[ -n "$pc" ] || fail "no gsttflitemeta-1.0.pc installed"
echo "ok   $(basename "$pc") in ${pc#$root}"
for h in gst/tflitemeta/gsttflitemeta.h decoders/tfl_results.h; do
  f=$(find "$root" -path "*/gsttflitemeta-1.0/$h" | head -1)
  [ -n "$f" ] || fail "header $h not installed"
  echo "ok   header ${f#$root}"
done
# the .pc as an installed system would have it, its prefix moved into the scratch root
mkdir -p "$root/pc"
sed "s|^prefix=|prefix=$root|" "$pc" >"$root/pc/gsttflitemeta-1.0.pc"
export PKG_CONFIG_PATH=$root/pc
flags=$(pkg-config --cflags --libs gsttflitemeta-1.0 gstreamer-app-1.0)
cc -std=gnu11 -o "$root/appsink-meta" "$src/pipelines/examples/appsink-meta.c" $flags \
  || fail "appsink-meta.c does not build against the installed library"
echo "ok   appsink-meta.c builds with: pkg-config --cflags --libs gsttflitemeta-1.0 gstreamer-app-1.0"
lib=$(dirname "$(find "$root" -name 'libgsttflitemeta-1.0.so*' | head -1)")
soname=$(readelf -d "$lib/libgsttflitemeta-1.0.so" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
[ "$soname" = libgsttflitemeta-1.0.so.0 ] || fail "SONAME '$soname', not the versioned libgsttflitemeta-1.0.so.0"
[ -e "$lib/libgsttflitemeta-1.0.so.0" ] || fail "libgsttflitemeta-1.0.so.0 not installed"
echo "ok   SONAME $soname"
LD_LIBRARY_PATH=$lib readelf -d "$root/appsink-meta" | grep -q 'NEEDED.*libgsttflitemeta-1.0.so.0' \
  || fail "appsink-meta does not record the versioned SONAME"
echo "ok   appsink-meta needs libgsttflitemeta-1.0.so.0"
LD_LIBRARY_PATH=$lib ldd "$root/appsink-meta" | grep -q "$lib/libgsttflitemeta-1.0" \
  || fail "appsink-meta does not load the installed library"
echo "ok   it links the installed libgsttflitemeta-1.0"
typelib=$(find "$root" -name GstTflite-1.0.typelib | head -1)
gir=$(find "$root" -name GstTflite-1.0.gir | head -1)
[ -n "$typelib" ] && [ -n "$gir" ] || fail "GstTflite-1.0 .gir/.typelib not installed"
echo "ok   ${gir#$root} and ${typelib#$root}"
py=/usr/bin/python3
[ -x "$py" ] || py=python3
GI_TYPELIB_PATH=$(dirname "$typelib") LD_LIBRARY_PATH=$lib "$py" -c '
import gi
gi.require_version("Gst", "1.0"); gi.require_version("GstTflite", "1.0")
from gi.repository import Gst, GstTflite
Gst.init(None)
assert GstTflite.buffer_get_meta(Gst.Buffer.new()) is None
assert GstTflite.ObjectKind.LANDMARKS is not None
' || fail "Python cannot use the installed typelib"
echo "ok   Python imports GstTflite from the installed typelib"
