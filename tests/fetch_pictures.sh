#!/bin/bash
# fetch_pictures.sh - puts skimage's astronaut.png and chelsea.png into tests/data/pictures/.
#
# They come from Debian's python3-skimage package (apt-get download + dpkg -x; no install,
# no root needed). Idempotent: does nothing when both pictures are there and verified.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dest="$here/data/pictures"
# sha256 of the pictures in python3-skimage 0.19.3-8 (Debian 12)
declare -A sums=(
  [astronaut.png]=88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5
  [chelsea.png]=596aa1e7cb875eb79f437e310381d26b338a81c2da23439704a73c4651e8c4bb
)

ok() { [ -f "$dest/$1" ] && [ "$(sha256sum "$dest/$1" | cut -d' ' -f1)" = "${sums[$1]}" ]; }

if ok astronaut.png && ok chelsea.png; then exit 0; fi

mkdir -p "$dest"
work=$(mktemp -d)
chmod 755 "$work"  # apt-get download writes as user _apt
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download python3-skimage >/dev/null) || {
  echo "fetch_pictures.sh: apt-get download python3-skimage failed (run apt-get update?)" >&2; exit 1; }
dpkg -x "$work"/python3-skimage_*.deb "$work/x"
for f in astronaut.png chelsea.png; do
  src=$(find "$work/x" -path "*skimage/data/$f" | head -n 1)
  [ -n "$src" ] || { echo "fetch_pictures.sh: $f not in python3-skimage" >&2; exit 1; }
  got=$(sha256sum "$src" | cut -d' ' -f1)
  if [ "$got" != "${sums[$f]}" ]; then
    echo "fetch_pictures.sh: sha256 mismatch for $f: expected ${sums[$f]}, got $got" >&2; exit 1
  fi
  cp "$src" "$dest/$f"
done
echo "fetch_pictures.sh: pictures in $dest" >&2
