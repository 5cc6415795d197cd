#!/usr/bin/env bash
# The GL delegate's table on the GPU machine (docs/gl-performance.md), one command, about
# 5 minutes for the staged models. Stage AUX here first (tests/gl/stage_device.sh), then on
# the GPU machine, from the project root, with AUX carried:
#     bash tests/gl/bench_device.sh build-aux 2>&1 | tee $OUT/bench.log
# Per model (fp16 unless said):
#   cold:        empty program cache, NVIDIA's shader disk cache off (__GL_SHADER_DISK_CACHE=0):
#                start-up, sync and queued ms, GPU timers (the 8 slowest dispatches), GFLOP/s,
#                worst element vs the CPU on the golden picture and Gaussian inputs; dumps
#                those inputs and the CPU's outputs for the native TensorFlow Lite below
#   warm-ours:   the same program cache (hit), driver cache still off
#   cold-driver: no program cache of ours, driver cache on and empty
#   warm-both:   our cache hit, driver cache warm
#   fp32:        timings and the fp32 worst element
#   before:      the tree before this work (AUX/bin/gl_bench_before, its older TABLE line)
# then the native TensorFlow Lite GPU accelerator (ai-edge-litert 2.3.0, WebGPU on Vulkan)
# on the same models, fp16 and fp32, synchronous and queued, its worst element against
# our CPU outputs (tests/gl/litert_bench.py). The lines to tabulate start with TABLE, BEFORE
# and LITERT (formats in tests/gl/gl_bench.c and litert_bench.py). RUNS, QUEUED override the
# run counts (default 200, 200); MODELS the model list (default AUX/m/*.tflite).
set -u
A=${1:-build-aux}
B=$A/bin RUNS=${RUNS:-200} QUEUED=${QUEUED:-200}
for f in "$A"/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
source "$(dirname "$0")"/device_libs.sh "$A"/xdebs
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv 2>&1
models=(${MODELS:-"$A"/m/*.tflite})
D=/tmp/gl-dump; rm -rf "$D"; mkdir -p "$D"
G="--golden tests/data/golden --pictures $A/pictures"
for m in "${models[@]}"; do
  echo "=== $(basename "$m")"
  rm -rf /tmp/glc /tmp/nvc; mkdir -p /tmp/glc /tmp/nvc
  export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvc
  __GL_SHADER_DISK_CACHE=0 "$B"/gl_bench --runs "$RUNS" --queued "$QUEUED" --top 8 --cache /tmp/glc $G --dump "$D" "$m" |
    sed 's/^TABLE /TABLE cold /'
  __GL_SHADER_DISK_CACHE=0 "$B"/gl_bench --runs 20 --queued 20 --cache /tmp/glc "$m" | grep -E '^TABLE|FAIL' |
    sed 's/^TABLE /TABLE warm-ours /'
  __GL_SHADER_DISK_CACHE=1 "$B"/gl_bench --runs 20 --queued 20 --no-cache "$m" | grep -E '^TABLE|FAIL' |
    sed 's/^TABLE /TABLE cold-driver /'
  __GL_SHADER_DISK_CACHE=1 "$B"/gl_bench --runs 20 --queued 20 --cache /tmp/glc "$m" | grep -E '^TABLE|FAIL' |
    sed 's/^TABLE /TABLE warm-both /'
  "$B"/gl_bench --fp32 --runs "$RUNS" --queued "$QUEUED" $G "$m" | grep -E '^TABLE|FAIL' | sed 's/^TABLE /TABLE fp32 /'
  [ -x "$B"/gl_bench_before ] && "$B"/gl_bench_before --runs "$RUNS" "$m" | grep -E '^TABLE|FAIL' | sed 's/^TABLE /BEFORE /'
done
unset __GL_SHADER_DISK_CACHE_PATH
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$A"/whl/*.whl &&
  PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 python3 tests/gl/litert_bench.py --dump "$D" --runs "$RUNS" --queued "$QUEUED" \
    --fp32 "${models[@]}" 2>&1 | grep -E '^(litert|LITERT)'
echo "=== summary"
echo "# TABLE config name prec load_ms create_ms first_ms first_result_ms cache median_ms min_ms p90_ms queued_ms gpu_ms"
echo "#       dispatches barriers conv_layers GFLOP GFLOP/s_gpu err_picture err_gauss device_fill device_wg"
echo "# BEFORE name prec init_ms cache median_ms min_ms gpu_ms dispatches GFLOP GFLOP/s"
echo "# LITERT name prec create_ms first_ms first_result_ms median_ms queued_ms err_picture err_gauss accelerated"
