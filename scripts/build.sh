#!/bin/bash
# build.sh - configures (once) and builds the project with meson.
#
#   scripts/build.sh [BUILD_DIR [MESON_OPTION...]]     default: build, debugoptimized
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build}
shift || true
if [ ! -f "$dir/build.ninja" ]; then
  meson setup --buildtype=debugoptimized "$@" "$dir" "$root"
fi
meson compile -C "$dir"
