#!/bin/bash
# test_count_people.sh BUILD_DIR - pipelines/count-people.sh on its own scene (two
# astronauts side by side, entering together) prints one line per person with the people
# present and counted so far, on both paths (issue 28: it said "enter #1 person, 2 present").
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
want=$'person #1 entered: 1 present, 1 counted\nperson #2 entered: 2 present, 2 counted\n2 people counted'
status=0
for memory in system gl; do
  got=$(BUILD_DIR=$1 MEMORY=$memory bash "$repo/pipelines/count-people.sh" 2>&1 | grep -E '^person|counted$' || true)
  if [ "$got" = "$want" ]; then
    echo "ok   MEMORY=$memory"
  else
    printf 'FAIL MEMORY=%s printed:\n%s\n' "$memory" "$got"
    status=1
  fi
done
exit $status
