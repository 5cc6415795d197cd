#!/bin/bash
# bench_regions.sh - per-frame latency of each region chain with 1, 2 and 5 regions.
#
# The frame is astronaut.png six times over (3 x 2 tiles of 256 px, 768x512), held for
# FRAMES frames. Each chain: a detector on the whole frame, then the second model on its
# regions (max-regions = 1, 2, 5: all regions of a frame as one batch where the model can
# be batched). From the elements' "tflite-results" messages: the median latency-ms of the
# detector and of the second model (all its regions), over the frames after the first two
# (warm-up, runner rebuilds for the batch). The people are small, so regions come from:
#   face:  face_detection_full_range -> face_landmark
#   pose:  COCO SSD person boxes -> pose_landmark_full (BlazePose's detector finds only 2
#          of the 6 people at this size; boxes get the pose rule without rotation)
#   hand:  face boxes -> hand_landmark_full (no picture with hands ships here: the timing of
#          the hand model on N regions, not hands found)
#   ssd:   COCO SSD -> mobilenet_v1_0.25_224 on each box
# Usage: [MEMORY=gl|system] [FRAMES=12] [THREADS=2] scripts/bench_regions.sh
# Prints one line per chain and count: "face  2 regions: detector 12.3 ms + face_landmark 8.1 ms
# (batch 2) = 20.4 ms per frame".
set -euo pipefail
source "$(dirname "$0")/../pipelines/env.sh"

frames=${FRAMES:-12}
threads=${THREADS:-2}
pic=$PICTURES/astronaut.png
need "$pic" "$MODELS/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite" "$NPM/face_detection_full_range.tflite" \
  "$MODELS/face_landmark.tflite" "$NPM/pose_landmark_full.tflite" "$NPM/hand_landmark_full.tflite" \
  "$MODELS/mobilenet_v1_0.25_224.tflite"
pads="" tiles=""
for i in 0 1 2 3 4 5; do
  pads="$pads sink_$i::xpos=$(( (i % 3) * 256 )) sink_$i::ypos=$(( (i / 3) * 256 ))"
  tiles="$tiles filesrc location=$pic ! pngdec ! videoconvert ! videoscale ! video/x-raw,width=256,height=256 !
         imagefreeze num-buffers=$frames ! c.sink_$i"
done
ssd="model=$MODELS/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite threshold=0.3 max-results=10"
faces="model=$NPM/face_detection_full_range.tflite fit=letterbox threshold=0.3 max-results=10"

run() { # NAME DETECTOR_PROPS SECOND_MODEL EXTRA N
  local name=$1 det=$2 second=$3 extra=$4 n=$5
  # shellcheck disable=SC2086
  gst-launch-1.0 -m compositor name=c $pads ! video/x-raw,width=768,height=512,framerate=30/1 ! videoconvert ! \
      video/x-raw,format=RGBA ! $UPLOAD tflitefilter name=det $det threads=$threads ! \
      tflitefilter name=second model="$second" regions-from=det max-regions="$n" threads=$threads $extra ! \
      $DOWNLOAD fakesink $tiles 2>&1 |
    awk -v name="$name" -v n="$n" -v model="$(basename "${second%.tflite}")" '
      /tflite-results/ {
        match($0, /latency-ms=\(double\)[0-9.]+/); ms = substr($0, RSTART + 19, RLENGTH - 19)
        match($0, /batch=\(int\)[0-9]+/); b = substr($0, RSTART + 11, RLENGTH - 11)
        if ($0 ~ /element "det"/) d[nd++] = ms; else { s[ns++] = ms; batch = b }
      }
      function median(a, k,   i, j, t) {
        for (i = 2; i < k; i++) for (j = i + 1; j < k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
        return k > 2 ? a[int((k + 2) / 2)] : a[k - 1]
      }
      END {
        if (ns < 3) { printf "%-5s %d regions: the second model ran on %d frames only\n", name, n, ns; exit }
        md = median(d, nd); ms2 = median(s, ns)
        printf "%-5s %d regions: detector %.1f ms + %s %.1f ms (batch %s) = %.1f ms per frame\n",
               name, n, md, model, ms2, batch, md + ms2 }'
}

echo "bench_regions: $(uname -m), $(nproc) cores, MEMORY=$MEMORY, threads=$threads, $frames frames of 768x512"
for n in 1 2 5; do
  run face "$faces" "$MODELS/face_landmark.tflite" "" "$n"
  run pose "$ssd" "$NPM/pose_landmark_full.tflite" "region-labels=#1" "$n"
  run hand "$faces" "$NPM/hand_landmark_full.tflite" "" "$n"
  run ssd "$ssd" "$MODELS/mobilenet_v1_0.25_224.tflite" "" "$n"
done
