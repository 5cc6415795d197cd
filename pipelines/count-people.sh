#!/bin/bash
# count-people.sh - people counting from the tracker's messages: COCO SSD finds people,
# tflitetracker follows them and posts "tflite-track" messages when one enters or leaves;
# this script prints them and the running count.
# No clip ships here: without VIDEO two astronauts side by side are held for N frames, so
# it prints "person #1 entered: 1 present, 1 counted", "person #2 entered: 2 present,
# 2 counted" and, at the end, "2 people counted". Pass a video of a street for real counts.
# Usage: [MEMORY=system] pipelines/count-people.sh [VIDEO [FRAMES]]
set -euo pipefail
source "$(dirname "$0")/env.sh"

frames=${2:-8}
ssd=$MODELS/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite
need "$ssd" "$PICTURES/astronaut.png"
if [ -n "${1:-}" ]; then
  src="filesrc location=\"$1\" ! decodebin ! videoconvert"
else
  two_astronauts "$frames"
fi
eval gst-launch-1.0 -m "$src" ! video/x-raw,format=RGBA ! $UPLOAD \
  tflitefilter name=ssd model="$ssd" labels="$MODELS/coco_labelmap_91.txt" fit=letterbox threshold=0.4 ! \
  tflitetracker source=ssd labels=person min-hits=2 ! $DOWNLOAD fakesink ${srcs:-} |
  awk '/tflite-track/ {
         match($0, /event=\(string\)[a-z]+/); ev = substr($0, RSTART + 14, RLENGTH - 14)
         match($0, /track-id=\(guint64\)[0-9]+/); id = substr($0, RSTART + 18, RLENGTH - 18)
         # counted here, event by event: the active and total fields of the message already
         # hold every track of its frame (the first of two entering together said 2 present)
         if (ev == "enter") { present++; counted++ } else if (ev == "leave") present--
         printf "person #%s %s: %d present, %d counted\n", id, ev == "enter" ? "entered" : "left", present, counted }
       END { printf "%d people counted\n", counted }'
