# bench_models.sh - the models the benchmark scripts run (sourced by bench_cpu.sh and
# bench_peers.sh; not run on its own). Needs $repo (the checkout) and $prog (the calling
# script's name, for messages). Defines:
#   bench_model_paths "NAME|PATH ..."   the paths of the named models, or of every model in
#                                       ../shared/models and models/cache when the list is empty
#   needs_cut PATH                      true for models ending in a custom op the peers lack
#                                       (PosenetDecoderOp; TFLite_Detection_PostProcess,
#                                       which the oracle cannot bench and OpenVINO cannot read)

shared_dir="$repo/../shared/models"
# The npm models: models/cache (models/fetch.sh), else an extracted copy under /tmp/npmm.
npm_dir="$repo/models/cache"
if ! ls "$npm_dir"/*.tflite >/dev/null 2>&1; then
  npm_dir=""
  for d in /tmp/npmm/*/package; do ls "$d"/*.tflite >/dev/null 2>&1 && npm_dir="$npm_dir $d"; done
fi

find_model() {  # NAME|PATH -> path
  if [ -f "$1" ]; then echo "$1"; return; fi
  for d in $shared_dir $npm_dir; do
    [ -f "$d/$1.tflite" ] && { echo "$d/$1.tflite"; return; }
  done
  echo "$prog: no model '$1'" >&2
  exit 1
}

bench_model_paths() {
  if [ -z "$1" ]; then
    ls "$shared_dir"/*.tflite
    for d in $npm_dir; do ls "$d"/*.tflite; done
  else
    for m in $1; do find_model "$m"; done
  fi
}

needs_cut() {
  case "$(basename "$1" .tflite)" in
    posenet_*_decoder|coco_ssd_mobilenet_v1_*_quant_*) return 0 ;;
    *) return 1 ;;
  esac
}
