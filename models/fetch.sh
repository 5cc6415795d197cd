#!/bin/bash
# fetch.sh - gets the MediaPipe .tflite models from their npm packages into models/cache/.
#
# Each package version is pinned; every extracted file is checked against models/SHA256SUMS.
# Idempotent: a model already in the cache with the right checksum is not fetched again.
# Usage: models/fetch.sh            (needs npm and network the first time)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache="$here/cache"
sums="$here/SHA256SUMS"

# package@version  model files it holds
packages=(
  "@mediapipe/selfie_segmentation@0.1.1675465747 selfie_segmentation.tflite selfie_segmentation_landscape.tflite"
  "@mediapipe/face_detection@0.4.1657300184 face_detection_short_range.tflite face_detection_full_range.tflite face_detection_full_range_sparse.tflite"
  "@mediapipe/pose@0.5.1675469404 pose_landmark_lite.tflite pose_landmark_full.tflite pose_landmark_heavy.tflite"
  "@mediapipe/hands@0.4.1675469240 hand_landmark_lite.tflite hand_landmark_full.tflite"
)

expected_sum() {
  awk -v f="$1" '$2 == f { print $1 }' "$sums"
}

# True when $cache/$1 exists and matches SHA256SUMS.
verified() {
  [ -f "$cache/$1" ] || return 1
  local want got
  want=$(expected_sum "$1")
  got=$(sha256sum "$cache/$1" | cut -d' ' -f1)
  [ -n "$want" ] && [ "$got" = "$want" ]
}

mkdir -p "$cache"
status=0
for entry in "${packages[@]}"; do
  read -r pkg files <<<"$entry"
  missing=()
  for f in $files; do verified "$f" || missing+=("$f"); done
  [ ${#missing[@]} -eq 0 ] && continue

  command -v npm >/dev/null || { echo "fetch.sh: npm is missing (run scripts/setup.sh)" >&2; exit 1; }
  echo "fetch.sh: npm pack $pkg" >&2
  work=$(mktemp -d "$cache/.pack.XXXXXX")
  tgz=$( (cd "$work" && npm pack --silent "$pkg") | tail -n 1)
  tar -xzf "$work/$tgz" -C "$work"
  for f in "${missing[@]}"; do
    if [ ! -f "$work/package/$f" ]; then
      echo "fetch.sh: $pkg has no $f" >&2; status=1; continue
    fi
    want=$(expected_sum "$f")
    got=$(sha256sum "$work/package/$f" | cut -d' ' -f1)
    if [ "$got" != "$want" ]; then
      echo "fetch.sh: sha256 mismatch for $f from $pkg:" >&2
      echo "  expected $want" >&2
      echo "  got      $got" >&2
      status=1; continue
    fi
    mv "$work/package/$f" "$cache/$f"
    echo "fetch.sh: $f ok" >&2
  done
  rm -rf "$work"
done
[ $status -eq 0 ] && echo "fetch.sh: all models in $cache verified" >&2
exit $status
