#!/usr/bin/env bash
# bench_ab_device.sh [AUX] - runs ON THE GPU MACHINE after tests/gl/stage_device.sh AUX
# (staged with BEFORE=<the tree to compare with>): per model, one gl_bench run of
#   this tree (fp16, with the worst element against the golden CPU outputs),
#   this tree with each switch in AB_SWITCHES (default "--gl-no-dwpw"),
#   this tree with --postprocess on PP_MODELS (default the MediaPipe detectors: their
#   anchor decoding and NMS in the graph, on the GPU),
#   the BEFORE build,
# all with the program cache cold and NVIDIA's shader disk cache off, so the start-up
# columns are comparable; then native TensorFlow Lite's GPU accelerator on LITERT_MODELS
# (default the issue's three goal models), same inputs. RUNS / QUEUED: run counts
# (default 200 / 200); ONLY: the model names to run (default all staged; LITERT_MODELS
# still apply). Prints TABLE lines (gl_bench's format, config first) and LITERT lines.
set -u
A=${1:-build-aux}
B=$A/bin RUNS=${RUNS:-200} QUEUED=${QUEUED:-200}
SW=${AB_SWITCHES:-"--gl-no-dwpw"}
PP=${PP_MODELS:-"face_detection_short_range face_detection_full_range palm_detection_lite pose_detection"}
LM=${LITERT_MODELS:-"selfie_segmentation deeplabv3_257_mv_gpu object_detection_ssd_mobilenetv2_oidv4_fp16"}
for f in "$A"/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
source "$(dirname "$0")"/device_libs.sh "$A"/xdebs
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export __GL_SHADER_DISK_CACHE=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1
D=/tmp/gl-dump; rm -rf "$D"; mkdir -p "$D"
G="--golden tests/data/golden --pictures $A/pictures"
one() { # config, then gl_bench arguments
  local c=$1; shift
  rm -rf /tmp/glc; mkdir -p /tmp/glc
  "$@" | grep -E '^TABLE|^FAIL|read back' | sed "s/^TABLE /TABLE $c /"
}
for m in "$A"/m/*.tflite; do
  [ -n "${ONLY:-}" ] && case " $ONLY " in *" $(basename "$m" .tflite) "*) ;; *) continue ;; esac
  echo "=== $(basename "$m")"
  one after "$B"/gl_bench --runs "$RUNS" --queued "$QUEUED" --cache /tmp/glc $G --dump "$D" "$m"
  for s in $SW; do one "${s#--gl-}" "$B"/gl_bench --runs "$RUNS" --queued "$QUEUED" --cache /tmp/glc $s "$m"; done
  case " $PP " in *" $(basename "$m" .tflite) "*)
    one postprocess "$B"/gl_bench --runs "$RUNS" --queued "$QUEUED" --cache /tmp/glc --postprocess "$m" ;;
  esac
  [ -x "$B"/gl_bench_before ] && one before "$B"/gl_bench_before --runs "$RUNS" --queued "$QUEUED" --cache /tmp/glc "$m"
done
lm=()
for n in $LM; do [ -f "$A/m/$n.tflite" ] && lm+=("$A/m/$n.tflite"); done
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$A"/whl/*.whl &&
  PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 python3 tests/gl/litert_bench.py --dump "$D" --runs "$RUNS" --queued "$QUEUED" \
    "${lm[@]}" 2>&1 | grep -E '^LITERT'
echo "# TABLE config name prec load_ms create_ms first_ms first_result_ms cache median_ms min_ms p90_ms queued_ms gpu_ms"
echo "#       dispatches barriers conv_layers GFLOP GFLOP/s_gpu err_picture err_gauss device_fill device_wg"
echo "# LITERT name prec create_ms first_ms first_result_ms median_ms queued_ms err_picture err_gauss accelerated"
