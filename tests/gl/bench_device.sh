#!/usr/bin/env bash
# Measures the GL delegate on the GPU machine (docs/gl-performance.md). Run from the
# project root there:   bash tests/gl/bench_device.sh AUX [MODEL.tflite...]
# AUX (carried, git-ignored) holds debs/ (glvnd EGL/GLES loaders, XNNPACK), bin/
# (gl_bench, tflite-benchmark from a release build) and m*/ (models).
# Per model: fp16 cold init (empty program cache, driver cache off), fp16 warm init
# (cache hit), fp32; then tflite-benchmark --delegate gl on the goal models.
set -u
A=${1:-build-h8b-aux}; shift
for f in "$A"/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv 2>&1
B=$A/bin RUNS=${RUNS:-200}
models=("$@"); [ ${#models[@]} -gt 0 ] || models=("$A"/m*/*.tflite)
for m in "${models[@]}"; do
  rm -rf /tmp/glc; mkdir -p /tmp/glc
  __GL_SHADER_DISK_CACHE=0 "$B"/gl_bench --runs "$RUNS" --top ${TOP:-6} --cache /tmp/glc "$m"
  __GL_SHADER_DISK_CACHE=0 "$B"/gl_bench --runs "$RUNS" --cache /tmp/glc "$m" | grep -E '^TABLE|FAIL'
  "$B"/gl_bench --fp32 --runs "$RUNS" --top 3 "$m"
done
for m in "$A"/m*/selfie_segmentation.tflite "$A"/m*/object_detection_ssd_mobilenetv2_oidv4_fp16.tflite \
  "$A"/m*/deeplabv3_257_mv_gpu.tflite; do
  for p in fp16 fp32; do
    [ -f "$m" ] && "$B"/tflite-benchmark "$m" --delegate gl --precision $p --runs "$RUNS" 2>&1 | grep -E 'model:|init:|median|error'
  done
done
