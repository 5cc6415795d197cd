#!/bin/bash
# venv.sh VENV CMD [ARG...] - runs CMD with TFL_EVAL_PYTHON set to the python3 of a virtual
# environment that has pycocotools (CMD "python3" is that python3 itself) (requirements.txt beside this script: hash-pinned
# wheels from PyPI), creating it first when it is missing or its pins changed.
# TFL_EVAL_VENV, when set, replaces VENV (scripts/test.sh shares one between its two
# builds). Parallel tests wait for each other (flock) instead of installing twice.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
venv=${TFL_EVAL_VENV:-$1}
shift
req=$here/requirements.txt

mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
if ! cmp -s "$req" "$venv/requirements.txt"; then
  rm -rf "$venv"
  python3 -m venv "$venv" || {
    echo "venv.sh: python3 -m venv failed (python3-venv missing? run scripts/setup.sh)" >&2; exit 1; }
  "$venv/bin/pip" install --quiet --disable-pip-version-check --only-binary=:all: --require-hashes \
      -r "$req" || {
    echo "venv.sh: installing pycocotools from PyPI into $venv failed" >&2; rm -rf "$venv"; exit 1; }
  cp "$req" "$venv/requirements.txt"
fi
exec 9>&-

export TFL_EVAL_PYTHON=$venv/bin/python3
if [ "$1" = python3 ]; then
  shift
  exec "$TFL_EVAL_PYTHON" "$@"
fi
exec "$@"
