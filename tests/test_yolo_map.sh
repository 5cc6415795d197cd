#!/bin/sh
# test_yolo_map.sh TOOL DATA_DIR - the trained tiny YOLO models' detection mAP by
# tflite-eval-detection (our preprocessing, decoder and COCO metric) on the held-out
# synthetic sets (DATA_DIR/eval_TASK: pictures, instances.json) equals Ultralytics' val
# on the same pictures and labels within 0.01 (eval_TASK/val.txt, written by
# make_yolo_tasks.py: box mAP50-95 and mAP50 at conf 0.001, iou 0.7).
set -u
tool=$1
data=$2
fail=0
runs=0
for set in "$data"/eval_*; do
  [ -f "$set/val.txt" ] || { echo "FAIL: $set/val.txt missing"; fail=1; continue; }
  while read -r model map map50; do
    case "$model" in '#'*|'') continue ;; esac
    runs=$((runs + 1))
    out=$("$tool" "$data/$model" --images "$set" --annotations "$set/instances.json" --fit auto \
      --decoder-options threshold=0.001,iou-threshold=0.7,max-results=100 2>&1) || {
      echo "FAIL: $model: tflite-eval-detection failed:"; echo "$out"; fail=1; continue; }
    ours=$(echo "$out" | awk -F'] = ' '/Average Precision .*IoU=0.50:0.95 \| area= *all \| maxDets=100/ {print $2; exit}')
    ours50=$(echo "$out" | awk -F'] = ' '/Average Precision .*IoU=0.50 +\| area= *all \| maxDets=100/ {print $2; exit}')
    verdict=$(awk -v a="$ours" -v b="$map" -v c="$ours50" -v d="$map50" 'BEGIN {
      if (a == "" || c == "") { print "missing"; exit }
      e = a - b; if (e < 0) e = -e; f = c - d; if (f < 0) f = -f
      print (e <= 0.01 && f <= 0.01) ? "ok" : "off" }')
    echo "$(basename "$set") $model: mAP50-95 ours $ours, Ultralytics val $map; mAP50 ours $ours50, val $map50: $verdict"
    [ "$verdict" = ok ] || { fail=1; echo "$out" | tail -20; }
  done < "$set/val.txt"
done
[ "$runs" -ge 4 ] || { echo "FAIL: $runs models evaluated, want 4 (segment and pose, fp32 and int8)"; fail=1; }
exit $fail
