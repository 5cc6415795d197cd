#!/usr/bin/env bash
# 1080p GL pipelines before/after on the GPU machine (docs/gl-performance.md, "Round 4"):
# the queued read-back (tflitefilter gl-queue-depth: masks, then every decoder's outputs)
# and the post-processing ops appended to landmark models and raw SSDs. Stage first, here:
#     BEFORE=<commit> MODELS="deeplabv3_257_mv_gpu selfie_segmentation pose_landmark_full
#       object_detection_ssd_mobilenetv2_oidv4_fp16 face_detection_short_range" \
#       bash tests/gl/stage_postproc_device.sh build-pp
# then on the GPU machine, from the project root, carrying .device and build-pp:
#     source .device/env.sh && bash tests/gl/bench_pipelines_device.sh build-pp
# Each line "PIPE config ..." is scripts/bench_pipeline.sh's output (gltestsrc 1080p,
# --repeat 3 interleaved stages, medians). FRAMES (default 3000) overrides the count;
# FRAMES=5 checks the script on llvmpipe.
set -u
A=${1:-build-pp}
FRAMES=${FRAMES:-3000}
M=$A/m
[ -d "$A"/xdebs ] && source "$(dirname "$0")"/device_libs.sh "$A"/xdebs
nvidia-smi --query-gpu=name,driver_version --format=csv 2>/dev/null | tail -1
pipe() { # CONFIG BUILD MODEL STAGES FILTER-PROPS
  scripts/bench_pipeline.sh --build "$A/$2" --path gl --frames "$FRAMES" --repeat 3 --stages "$4" \
    --filter-props "$5" --size 1920x1080 --model "$M/$3.tflite" 2>&1 | sed "s/^/PIPE $1 /"
}
pipe deeplab-readback-before before deeplabv3_257_mv_gpu filter "gl-readback=true"
pipe deeplab-readback-depth1 after deeplabv3_257_mv_gpu filter "gl-readback=true gl-queue-depth=1"
pipe deeplab-readback-depth2 after deeplabv3_257_mv_gpu filter "gl-readback=true gl-queue-depth=2"
pipe selfie-overlay-before before selfie_segmentation filter,overlay ""
pipe selfie-overlay-after after selfie_segmentation filter,overlay ""
pipe pose-landmark-before before pose_landmark_full filter ""
pipe pose-landmark-after after pose_landmark_full filter ""
pipe oidv4-before before object_detection_ssd_mobilenetv2_oidv4_fp16 filter ""
pipe oidv4-after after object_detection_ssd_mobilenetv2_oidv4_fp16 filter ""
# every decoder's outputs queued (depth 1 is "after" above: the same build)
pipe pose-landmark-depth2 after pose_landmark_full filter "gl-queue-depth=2"
pipe oidv4-depth2 after object_detection_ssd_mobilenetv2_oidv4_fp16 filter "gl-queue-depth=2"
pipe face-depth1 after face_detection_short_range filter "gl-queue-depth=1"
pipe face-depth2 after face_detection_short_range filter "gl-queue-depth=2"
