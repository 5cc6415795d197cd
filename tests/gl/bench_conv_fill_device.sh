#!/usr/bin/env bash
# bench_conv_fill_device.sh [AUX] - ON THE GPU MACHINE (after tests/gl/stage_device.sh):
# each model at each convolution fill in FILLS (default "auto 1048576 65536 16384 4096";
# auto: the default rule, the device's fill / 16; gl_plan.c conv_fill), then the BEFORE
# build when staged, ROUNDS times interleaved (default 2): the TABLE line, config first,
# and every dispatch's GPU time in OUTDIR/<model>.<config>.<round>.txt (default $OUT or
# /tmp/conv-fill). Program cache and NVIDIA's shader disk cache off. MODELS: paths
# (default AUX/m/*.tflite); RUNS: runs and queued runs (default 200).
set -u
A=${1:-build-aux}
B=$A/bin RUNS=${RUNS:-200}
O=${OUTDIR:-${OUT:-/tmp/conv-fill}}
mkdir -p "$O"
source "$(dirname "$0")"/device_gl_env.sh "$A"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1
for r in $(seq 1 "${ROUNDS:-2}"); do
  for m in ${MODELS:-"$A"/m/*.tflite}; do
    n=$(basename "$m" .tflite)
    for c in ${FILLS:-auto 1048576 65536 16384 4096} before; do
      bin=$B/gl_bench s=""
      [ "$c" = before ] && { bin=$B/gl_bench_before; [ -x "$bin" ] || continue; }
      case $c in auto | before) ;; *) s="--gl-conv-fill $c" ;; esac
      "$bin" --runs "$RUNS" --queued "$RUNS" --no-cache --dispatches $s "$m" > "$O/$n.$c.$r.txt" 2>&1
      echo "$r $c $(grep '^TABLE' "$O/$n.$c.$r.txt")"
    done
  done
done
echo "# round config TABLE name prec load_ms create_ms first_ms first_result_ms cache median_ms min_ms p90_ms"
echo "#   queued_ms gpu_ms dispatches barriers conv_layers GFLOP GFLOP/s_gpu err_picture err_gauss device_fill device_wg"
