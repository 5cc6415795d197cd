#!/bin/bash
# classify-labels.sh - ImageNet classification of chelsea.png, results read from the bus.
#
# Shows: no code is needed to get results: tflitefilter posts a "tflite-results" element
# message per inference, which `gst-launch-1.0 -m` prints; the filter below keeps the labels.
# The video goes to fakesink (system-memory path, CPU delegate).
# Prints: one line per class, best first, e.g. "Egyptian cat  0.656" (the cat in chelsea.png
# is a tabby; MobileNet v1 0.25 calls it Egyptian cat, as the real TensorFlow Lite does).
# Usage: pipelines/classify-labels.sh [PICTURE [MODEL.tflite [LABELS.txt]]]
set -euo pipefail
source "$(dirname "$0")/env.sh"

in=${1:-$PICTURES/chelsea.png}
model=${2:-$MODELS/mobilenet_v1_0.25_224.tflite}
labels=${3:-$MODELS/imagenet_labels_1001.txt}
need "$in" "$model" "$labels"

gst-launch-1.0 -m \
  filesrc location="$in" ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! \
  tflitefilter model="$model" labels="$labels" max-results=5 threshold=0.02 ! \
  fakesink |
  # -m prints each message's structure escaped on one line: pull out label and score pairs.
  perl -ne 'next unless /tflite-results/;
    while (/label\\=\\\(string\\\)(.*?)\\,\\ score\\=\\\(double\\\)([0-9.eE+-]+)/g) {
      my ($l, $s) = ($1, $2); $l =~ s/\\(.)/$1/g; $l =~ s/^"(.*)"$/$1/; $l =~ s/\\(.)/$1/g;
      printf "%-24s %.3f\n", $l, $s; }'
