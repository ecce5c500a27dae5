#!/usr/bin/env bash
# Regenerates the evaluation in doc/evaluation/ (the tables doc/talb-evaluation.rst includes):
# runs every grid in scenarios/eval/ with talb-sweep.py (resumable: finished points are kept in
# RESULTS and not rerun), then talb-report.py on each sweep.
#
# usage: scripts/talb-evaluate.sh [RESULTS]    (default results/eval; needs build/bin/talb-scenario)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
RESULTS=${1:-$TOP/results/eval}
JOBS=${TALB_JOBS:-$(nproc)}
PY=/usr/bin/python3
[ -x "$TOP/build/bin/talb-scenario" ] || { echo "talb-evaluate: build first (cmake --build build)" >&2; exit 2; }

start=$(date +%s)
for grid in "$TOP"/scenarios/eval/*.json; do
  name=$(basename "$grid" .json)
  echo "== $name"
  $PY "$TOP/scripts/talb-sweep.py" --runner="$TOP/build/bin/talb-scenario" --grid="$grid" \
    --out="$RESULTS/$name" --jobs="$JOBS"
  doc="$TOP/doc/evaluation/$name"
  mkdir -p "$doc"
  plotx=lb
  [ "$name" = background ] && plotx=bgLoad
  $PY "$TOP/analysis/talb-report.py" "$RESULTS/$name" --out="$doc" --plot-x="$plotx" \
    --format=markdown > "$doc/report.md"
  sed -n '/Best figures/,$p' "$doc/report.md"
done
echo "talb-evaluate: done in $(( $(date +%s) - start )) s; tables and plots in doc/evaluation/"
