#!/bin/sh
# test_yolo_map.sh TOOL DATA_DIR - the trained tiny YOLO models' box mAP by
# tflite-eval-detection (our preprocessing, decoder, and Ultralytics' metric:
# evaluation/ultralytics_map.c) on the held-out synthetic sets (DATA_DIR/eval_TASK:
# pictures, instances.json; oriented boxes with their "rbox") against eval_TASK/val.txt
# (make_yolo_tasks.py), twice:
#  - boxes clamped to the frame (as predict clips them) against Ultralytics' own metric
#    functions on predict's boxes;
#  - boxes unclamped (clamp=0) against Ultralytics' val, which scores its boxes in the
#    letterboxed input without clipping them: a box reaching into the grey bars loses
#    IoU there (0.007-0.012 of mAP50-95 on these sets).
# Both within 0.01 (issue 26); the fp32 models, whose boxes are predict's to 1e-4 px,
# within 1e-4, so that clamped boxes against val (0.0074 off at the least) fail.
set -u
tool=$1
data=$2
fail=0
runs=0
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= t) }'; }
for set in "$data"/eval_*; do
  [ -f "$set/val.txt" ] || { echo "FAIL: $set/val.txt missing"; fail=1; continue; }
  while read -r model val val50 pred pred50; do
    case "$model" in '#'*|'') continue ;; esac
    runs=$((runs + 1))
    case "$model" in *int8*) tol=0.01 ;; *) tol=0.0001 ;; esac
    for clamp in 1 0; do
      out=$("$tool" "$data/$model" --images "$set" --annotations "$set/instances.json" --fit auto --ultralytics-map \
        --decoder-options threshold=0.001,iou-threshold=0.7,max-results=300,clamp=$clamp 2>&1) || {
        echo "FAIL: $model: tflite-eval-detection failed:"; echo "$out"; fail=1; continue; }
      ours=$(echo "$out" | awk -F' = ' '/^Ultralytics box mAP50-95 = / {print $2; exit}')
      ours50=$(echo "$out" | awk -F' = ' '/^Ultralytics box mAP50 = / {print $2; exit}')
      if [ $clamp = 1 ]; then ref=$pred ref50=$pred50 what="Ultralytics' metric on predict's boxes"
      else ref=$val ref50=$val50 what="Ultralytics' val"; fi
      if near "$ours" "$ref" $tol && near "$ours50" "$ref50" $tol; then verdict=ok; else verdict="off (> $tol)"; fi
      echo "$(basename "$set") $model clamp=$clamp: mAP50-95 $ours, mAP50 $ours50; $what $ref, $ref50: $verdict"
      [ "$verdict" = ok ] || { fail=1; echo "$out" | tail -20; }
    done
  done < "$set/val.txt"
done
[ "$runs" -ge 6 ] || { echo "FAIL: $runs models evaluated, want 6 (segment, pose and obb; fp32 and int8)"; fail=1; }
exit $fail
