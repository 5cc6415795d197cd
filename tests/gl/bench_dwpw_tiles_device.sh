#!/usr/bin/env bash
# bench_dwpw_tiles_device.sh [AUX] - ON THE GPU MACHINE (after tests/gl/stage_device.sh):
# the depthwise + 1x1 dispatches (gl_gen_dwpw.c) at each tile size in TILES (default
# "1 2 4 8 16 64", pixels per workgroup, capped by shared memory) and unfused
# (--gl-no-dwpw), per model: the TABLE line and every dispatch's GPU time (--dispatches),
# into OUTDIR/<model>.<config>.txt (default $OUT or /tmp/dwpw-tiles). MODELS: paths
# (default AUX/m/*.tflite).
set -u
A=${1:-build-aux}
B=$A/bin RUNS=${RUNS:-100}
O=${OUTDIR:-${OUT:-/tmp/dwpw-tiles}}
mkdir -p "$O"
source "$(dirname "$0")"/device_gl_env.sh "$A"
for m in ${MODELS:-"$A"/m/*.tflite}; do
  n=$(basename "$m" .tflite)
  for c in no-dwpw ${TILES:-1 2 4 8 16 64}; do
    if [ "$c" = no-dwpw ]; then s=--gl-no-dwpw; else s="--gl-dwpw-tile $c"; fi
    "$B"/gl_bench --runs "$RUNS" --queued "$RUNS" --no-cache --dispatches $s "$m" > "$O/$n.$c.txt" 2>&1
    echo "$c $(grep '^TABLE' "$O/$n.$c.txt")"
  done
done
