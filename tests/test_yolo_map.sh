#!/bin/sh
# test_yolo_map.sh TOOL DATA_DIR - the trained tiny YOLO models' box mAP by
# tflite-eval-detection (our preprocessing, decoder, and Ultralytics' metric:
# evaluation/ultralytics_map.c) on the held-out synthetic sets (DATA_DIR/eval_TASK:
# pictures, instances.json) against eval_TASK/val.txt (make_yolo_tasks.py):
#  - Ultralytics' own metric functions on Ultralytics' predict boxes: within 0.01;
#  - Ultralytics' val: printed with the difference, held within 0.02: val's own run of
#    the same model gives the same boxes (its predictions.json) but 0.007-0.012 less
#    mAP50-95 (mAP50 equal): its ground-truth boxes differ from the label lines by
#    hundredths of a pixel, which flips matches at IoU 0.9 on these small sets
#    (docs/yolo.md).
set -u
tool=$1
data=$2
fail=0
runs=0
for set in "$data"/eval_*; do
  [ -f "$set/val.txt" ] || { echo "FAIL: $set/val.txt missing"; fail=1; continue; }
  while read -r model val val50 pred pred50; do
    case "$model" in '#'*|'') continue ;; esac
    runs=$((runs + 1))
    out=$("$tool" "$data/$model" --images "$set" --annotations "$set/instances.json" --fit auto --ultralytics-map \
      --decoder-options threshold=0.001,iou-threshold=0.7,max-results=300 2>&1) || {
      echo "FAIL: $model: tflite-eval-detection failed:"; echo "$out"; fail=1; continue; }
    ours=$(echo "$out" | awk -F' = ' '/^Ultralytics box mAP50-95 = / {print $2; exit}')
    ours50=$(echo "$out" | awk -F' = ' '/^Ultralytics box mAP50 = / {print $2; exit}')
    verdict=$(awk -v o="$ours" -v o50="$ours50" -v p="$pred" -v p50="$pred50" -v v="$val" -v v50="$val50" 'BEGIN {
      if (o == "" || o50 == "") { print "missing"; exit }
      a = o - p; if (a < 0) a = -a; b = o50 - p50; if (b < 0) b = -b
      c = o - v; if (c < 0) c = -c; d = o50 - v50; if (d < 0) d = -d
      print (a <= 0.01 && b <= 0.01 && c <= 0.02 && d <= 0.02) ? "ok" : "off" }')
    echo "$(basename "$set") $model: mAP50-95 ours $ours, on predict's boxes $pred, val $val;" \
      "mAP50 ours $ours50, on predict's $pred50, val $val50: $verdict"
    [ "$verdict" = ok ] || { fail=1; echo "$out" | tail -20; }
  done < "$set/val.txt"
done
[ "$runs" -ge 4 ] || { echo "FAIL: $runs models evaluated, want 4 (segment and pose, fp32 and int8)"; fail=1; }
exit $fail
