#!/bin/bash
# fetch_pictures.sh - puts skimage's sample pictures into tests/data/pictures/: astronaut.png
# and chelsea.png (real-model and element tests), and for the evaluation tools' small
# labelled sets (tests/data/eval/) also coffee.png, rocket.jpg (a JPEG), camera.png (gray),
# motorcycle_left.png and horse.png (RGBA).
#
# They come from Debian's python3-skimage package (apt-get download + dpkg -x; no install,
# no root needed). Idempotent: does nothing when every picture is there and verified.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dest="$here/data/pictures"
# sha256 of the pictures in python3-skimage 0.19.3-8 (Debian 12)
declare -A sums=(
  [astronaut.png]=88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5
  [chelsea.png]=596aa1e7cb875eb79f437e310381d26b338a81c2da23439704a73c4651e8c4bb
  [coffee.png]=cc02f8ca188b167c775a7101b5d767d1e71792cf762c33d6fa15a4599b5a8de7
  [rocket.jpg]=c2dd0de7c538df8d111e479619b129464d0269d0ae5fd18ca91d33a7fdfea95c
  [camera.png]=b0793d2adda0fa6ae899c03989482bff9a42d3d5690fc7e3648f2795d730c23a
  [motorcycle_left.png]=db18e9c4157617403c3537a6ba355dfeafe9a7eabb6b9b94cb33f6525dd49179
  [horse.png]=c7fb60789fe394c485f842291ea3b21e50d140f39d6dcb5fb9917cc178225455
)

ok() { [ -f "$dest/$1" ] && [ "$(sha256sum "$dest/$1" | cut -d' ' -f1)" = "${sums[$1]}" ]; }

all_ok=1
for f in "${!sums[@]}"; do ok "$f" || all_ok=0; done
[ "$all_ok" = 1 ] && exit 0

mkdir -p "$dest"
work=$(mktemp -d)
chmod 755 "$work"  # apt-get download writes as user _apt
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download python3-skimage >/dev/null) || {
  echo "fetch_pictures.sh: apt-get download python3-skimage failed (run apt-get update?)" >&2; exit 1; }
dpkg -x "$work"/python3-skimage_*.deb "$work/x"
for f in "${!sums[@]}"; do
  src=$(find "$work/x" -path "*skimage/data/$f" | head -n 1)
  [ -n "$src" ] || { echo "fetch_pictures.sh: $f not in python3-skimage" >&2; exit 1; }
  got=$(sha256sum "$src" | cut -d' ' -f1)
  if [ "$got" != "${sums[$f]}" ]; then
    echo "fetch_pictures.sh: sha256 mismatch for $f: expected ${sums[$f]}, got $got" >&2; exit 1
  fi
  cp "$src" "$dest/$f"
done
echo "fetch_pictures.sh: pictures in $dest" >&2
