#!/usr/bin/env bash
# Post-processing on the GPU, before and after, on the GPU machine (docs/gl-performance.md).
# Stage first, here: bash tests/gl/stage_postproc_device.sh build-pp; then on the GPU machine,
# from the project root, carrying .device and build-pp:
#     source .device/env.sh && bash tests/gl/bench_postproc_device.sh build-pp 2>&1 | tee $OUT/pp.log
# 1. deeplab, 1080p pipeline, gl-readback=true (every frame's mask on the CPU):
#    scripts/bench_pipeline.sh, gltestsrc ! tflitefilter (filter stage), before (the float
#    output read back and decoded on the CPU) and after (the class map made on the GPU, one
#    byte a pixel read back). Lines "PIPE before|after ...".
# 2. per inference (gl_bench, fp16, median of RUNS): deeplab reading back its floats vs its
#    class map (--mask); coco SSD with TFLite_Detection_PostProcess on the GPU (after) vs on
#    the CPU (after --gl-cpu-postproc, and before). Lines "TABLE config ..." (format in
#    tests/gl/gl_bench.c: median_ms is field 9).
# FRAMES (default 3000) and RUNS (default 200) override the counts; works on llvmpipe too
# (FRAMES=5 RUNS=3) to check the script.
set -u
A=${1:-build-pp}
FRAMES=${FRAMES:-3000} RUNS=${RUNS:-200}
M=$A/m
[ -d "$A"/xdebs ] && source "$(dirname "$0")"/device_libs.sh "$A"/xdebs
nvidia-smi --query-gpu=name,driver_version --format=csv 2>/dev/null | tail -1
for t in before after; do
  scripts/bench_pipeline.sh --build "$A/$t" --path gl --frames "$FRAMES" --stages filter \
    --filter-props gl-readback=true --size 1920x1080 --model "$M/deeplabv3_257_mv_gpu.tflite" 2>&1 |
    sed "s/^/PIPE $t /"
done
c=/tmp/pp-cache; rm -rf $c; mkdir -p $c/before $c/after
run() { # CONFIG BIN ARGS...: gl_bench's TABLE line, tagged
  local cfg=$1 bin=$2; shift 2
  "$A/$bin/bin/gl_bench" --runs "$RUNS" --queued 0 --cache "$c/$bin" "$@" | grep -E '^TABLE|FAIL|last invoke' |
    sed "s/^TABLE /TABLE $cfg /; s/^  last invoke/CPU $cfg: last invoke/"
}
run deeplab-floats-before before "$M/deeplabv3_257_mv_gpu.tflite"
run deeplab-floats after "$M/deeplabv3_257_mv_gpu.tflite"
run deeplab-classmap after --mask "$M/deeplabv3_257_mv_gpu.tflite"
run selfie-floats after "$M/selfie_segmentation.tflite"
run selfie-bytes after --mask "$M/selfie_segmentation.tflite"
run ssd-cpu-postproc-before before "$M/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite"
run ssd-cpu-postproc after --gl-cpu-postproc "$M/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite"
run ssd-gpu-postproc after "$M/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite"
echo "# TABLE config name prec load_ms create_ms first_ms first_result_ms cache median_ms min_ms p90_ms queued_ms gpu_ms ..."
