#!/usr/bin/env bash
# Start-up on the GPU machine (docs/gl-performance.md, "Round 5"): time to the first result
# of a 1080p GL pipeline with tflitefilter gl-start=wait and gl-start=cpu in three cache
# states (scripts/bench_first_result.sh), and the GL delegate's creation before/after with
# both caches warm (gl_bench's create: line). Stage first, here:
#     BEFORE=<commit> MODELS="deeplabv3_257_mv_gpu selfie_segmentation
#       object_detection_ssd_mobilenetv2_oidv4_fp16 ..." bash tests/gl/stage_postproc_device.sh build-pp
#     ninja -C build-pp-rel tests/gst_first_result && cp build-pp-rel/tests/gst_first_result build-pp/after/bin/
# then on the GPU machine, from the project root, carrying .device and build-pp:
#     source .device/env.sh && bash tests/gl/bench_startup_device.sh build-pp
# REPEAT (default 3) runs per first-result case; STARTS (default 3) warm starts per model.
set -u
A=${1:-build-pp}
REPEAT=${REPEAT:-3}
STARTS=${STARTS:-3}
[ -d "$A"/xdebs ] && source "$(dirname "$0")"/device_libs.sh "$A"/xdebs
nvidia-smi --query-gpu=name,driver_version --format=csv 2>/dev/null | tail -1
fr_models="$A/m/selfie_segmentation.tflite $A/m/deeplabv3_257_mv_gpu.tflite"
scripts/bench_first_result.sh --build "$A/after" --repeat "$REPEAT" --models "$fr_models" 2>&1 | sed 's/^/FR frames /'
scripts/bench_first_result.sh --build "$A/after" --repeat "$REPEAT" --models "$fr_models" --modes cpu \
  --filter-props engine-context=shared 2>&1 | sed 's/^/FR shared /'
# the delegate's creation, both caches warm: one start fills them, then STARTS starts
for m in selfie_segmentation deeplabv3_257_mv_gpu object_detection_ssd_mobilenetv2_oidv4_fp16; do
  [ -f "$A/m/$m.tflite" ] || continue
  for b in before after; do
    c=/tmp/warm-$b-$m; rm -rf "$c" "$c-nv"; mkdir -p "$c" "$c-nv"
    for k in $(seq 0 "$STARTS"); do
      __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_PATH="$c-nv" "$A/$b/bin/gl_bench" --runs 20 --queued 0 \
        --cache "$c" "$A/m/$m.tflite" 2>&1 | grep -E '^  (start-up|create):' | sed "s/^/WARM $b $m start$k /"
    done
  done
done
