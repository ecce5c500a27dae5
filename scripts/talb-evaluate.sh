#!/usr/bin/env bash
# Regenerates the evaluation: runs every grid file scenarios/eval/FAMILY/PART.json with
# talb-sweep.py into RESULTS/FAMILY/PART (resumable: finished points are kept and not rerun), then
# talb-report.py once per family over all its parts into RESULTS/FAMILY/report (every table, plot
# and report.md), copies from there into doc/evaluation/FAMILY/ only the files the doc pages show
# (the evaluation/FAMILY/... files that doc/*.rst includes as csv-tables or shows as figures),
# and runs talb-goals.py over doc/evaluation (goals.csv, goals_misses.csv: the goals counted) and,
# where the ablation's parts (FAMILY/ablate-*) have run, talb-ablation.py over RESULTS
# (doc/evaluation/ablation.csv: what each rule of TaLB's defaults buys).
#
# usage: scripts/talb-evaluate.sh [options] [RESULTS]      (default RESULTS: results/eval)
#   --only=GLOB        run only the grid files whose FAMILY/PART matches GLOB (e.g. 'idle/*',
#                      '*/*16', 'failure/flap-*'), and report and merge only the families
#                      with a part it matches, each over all of its parts in RESULTS (the
#                      ablation still reads every family in RESULTS)
#   --parallel=N       runners at a time (default: TALB_PARALLEL, else nproc)
#   --report-only      run nothing, only regenerate the reports
#   --replace-doc      replace doc/evaluation/FAMILY even where the new report lacks cells that
#                      its committed talb_vs_best.csv has (by default that family's doc files
#                      are kept, with a warning naming the missing cells: a partial results
#                      folder, e.g. one with only the ablation's parts, never overwrites them)
#   --merge-doc        update doc/evaluation/FAMILY cell by cell instead: the report is grouped
#                      by the committed tables' columns, the rows of the cells it has replace or
#                      join the committed ones, the other rows stay, and the figures it wrote
#                      replace theirs (analysis/talb-merge-doc.py); for a part rerun, seeds
#                      added or a new transport, where the family's other raw runs are gone
#   --add-schemes      --merge-doc for schemes run beside the committed ones (a baseline with its
#                      paper's settings, a new balancer): RESULTS holds them and ecmp, rerun in
#                      the same cells and seeds, whose rows must reproduce the committed ones;
#                      their rows join cells_brief.csv, talb_vs_best.csv takes them among the
#                      other schemes, the rest stays (analysis/talb-merge-doc.py --add-schemes)
#   --rerun-talb       --merge-doc for TaLB rerun (a default changed) with ecmp beside it, in
#                      the same cells and seeds: TaLB's rows are replaced, its gaps and verdicts
#                      recomputed against the committed best other scheme; ecmp's rows must
#                      reproduce the committed ones (analysis/talb-merge-doc.py --rerun-talb)
#   --dry-run          list what the sweeps would run (talb-sweep.py --dry-run); no reports
#   --sweep-arg=ARG    pass ARG to every talb-sweep.py call (repeatable), e.g. --sweep-arg=--seeds=1-2
#                      or --sweep-arg=--backend=slurm (a cluster); points keep their folder names,
#                      so a later full run continues where a partial one stopped
#   -h, --help         this text
# Needs build/bin/talb-scenario. scenarios/eval/README.md lists the families and their grids.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
PY=/usr/bin/python3
ONLY='*'
PARALLEL=${TALB_PARALLEL:-$(nproc)}
REPORT_ONLY=0
REPLACE_DOC=0
MERGE_DOC=0
MERGE_HOW=()
DRY=0
SWEEP_ARGS=()
RESULTS=$TOP/results/eval
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
for arg in "$@"; do
  case "$arg" in
    --only=*) ONLY=${arg#--only=} ;;
    --parallel=*) PARALLEL=${arg#--parallel=} ;;
    --jobs|--jobs=*)
      echo "talb-evaluate: --jobs is now --parallel=N (runners at a time)" >&2; exit 2 ;;
    --report-only) REPORT_ONLY=1 ;;
    --replace-doc) REPLACE_DOC=1 ;;
    --merge-doc) MERGE_DOC=1 ;;
    --add-schemes) MERGE_DOC=1; MERGE_HOW=(--add-schemes) ;;
    --rerun-talb) MERGE_DOC=1; MERGE_HOW=(--rerun-talb) ;;
    --dry-run) DRY=1 ;;
    --sweep-arg=*) SWEEP_ARGS+=("${arg#--sweep-arg=}") ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "talb-evaluate: unknown option $arg (see --help)" >&2; exit 2 ;;
    *) RESULTS=$arg ;;
  esac
done
[ "$REPLACE_DOC$MERGE_DOC" = 11 ] && { echo "talb-evaluate: --replace-doc or --merge-doc (--add-schemes, --rerun-talb), not both" >&2; exit 2; }
[[ "$PARALLEL" =~ ^[1-9][0-9]*$ ]] || { echo "talb-evaluate: --parallel=$PARALLEL is not a positive integer" >&2; exit 2; }
[ -x "$TOP/build/bin/talb-scenario" ] || { echo "talb-evaluate: build first (cmake --build build)" >&2; exit 2; }

start=$(date +%s)
matched=0
status=0
declare -A in_scope  # the families with a grid file --only matches: the only ones reported
for grid in "$TOP"/scenarios/eval/*/*.json; do
  family=$(basename "$(dirname "$grid")")
  part=$(basename "$grid" .json)
  # shellcheck disable=SC2053  # ONLY is a glob on purpose
  [[ "$family/$part" == $ONLY ]] || continue
  matched=$((matched + 1))
  in_scope[$family]=1
  [ "$REPORT_ONLY" = 1 ] && continue
  echo "== $family/$part"
  extra=()
  [ "$DRY" = 1 ] && extra+=(--dry-run)
  # A sweep with failed points goes on to the next grid; the exit status says so at the end.
  $PY "$TOP/scripts/talb-sweep.py" --runner="$TOP/build/bin/talb-scenario" --grid="$grid" \
    --out="$RESULTS/$family/$part" --parallel="$PARALLEL" ${SWEEP_ARGS[@]+"${SWEEP_ARGS[@]}"} \
    ${extra[@]+"${extra[@]}"} || status=$?
  [ "$status" = 130 ] && exit 130  # interrupted: what finished is kept
done
[ "$matched" -gt 0 ] || { echo "talb-evaluate: no grid file matches --only=$ONLY" >&2; exit 2; }
[ "$DRY" = 1 ] && exit "$status"

# The files of FAMILY's report that the doc pages show: every evaluation/FAMILY/NAME that a
# csv-table's :file:, a figure or an image of doc/*.rst names, one NAME a line.
shown() {
  grep -ohE "(:file:|\.\. (figure|image)::)[[:space:]]+evaluation/$1/[^[:space:]]+" "$TOP"/doc/*.rst |
    sed -E "s#^.*evaluation/$1/##" | sort -u
}

for dir in "$RESULTS"/*/; do
  family=$(basename "$dir")
  [ -d "$TOP/scenarios/eval/$family" ] || continue
  # A folder holding other families' partial runs must not rewrite (or merge into) their docs.
  [ -n "${in_scope[$family]:-}" ] ||
    { echo "== report $family: left as it is (none of its parts matches --only=$ONLY)"; continue; }
  report=$RESULTS/$family/report
  rm -rf "$report"  # plots are named by cell: none left stale
  mkdir -p "$report"
  plotx=lb
  [ "$family" = background ] && plotx=bgLoad
  echo "== report $family"
  doc=$TOP/doc/evaluation/$family
  grouping=()
  if [ "$MERGE_DOC" = 1 ]; then
    # Cells named as the committed ones, so that the merge can match them.
    keys=$($PY "$TOP/analysis/talb-merge-doc.py" --group-by "$doc") || { status=1; continue; }
    [ -n "$keys" ] && grouping=(--group-by="$keys")
  fi
  # Run from RESULTS, so that report.md names the folders relative to it.
  (cd "$RESULTS" && $PY "$TOP/analysis/talb-report.py" "$family" --out="$family/report" \
    --plot-x="$plotx" --format=markdown ${grouping[@]+"${grouping[@]}"}) > "$report/report.md" \
    || { echo "talb-evaluate: the report of $family failed (above); doc/evaluation/$family kept" >&2
         status=1; continue; }
  sed -n '/TaLB against the best/,/^$/p' "$report/report.md"
  if [ "$MERGE_DOC" = 1 ]; then
    mapfile -t names < <(shown "$family")
    $PY "$TOP/analysis/talb-merge-doc.py" ${MERGE_HOW[@]+"${MERGE_HOW[@]}"} "$doc" "$report" \
      ${names[@]+"${names[@]}"} || status=1
    continue
  fi
  if [ "$REPLACE_DOC" = 0 ]; then
    # "MISSING OF_ALL FIRST_MISSING": the committed cells the new report lacks, or nothing.
    gone=$($PY "$TOP/analysis/talb-merge-doc.py" --missing "$doc" "$report") || { status=1; continue; }
    if [ -n "$gone" ]; then
      read -r n all first <<< "$gone"
      echo "talb-evaluate: kept doc/evaluation/$family as it is: the report over $RESULTS lacks $n" \
        "of the $all cells its talb_vs_best.csv has (first: $first); run the parts they come" \
        "from, or pass --replace-doc" >&2
      continue
    fi
  fi
  rm -rf "$doc"
  mkdir -p "$doc"
  while read -r name; do
    if [ -f "$report/$name" ]; then
      cp "$report/$name" "$doc/$name"
    else
      echo "talb-evaluate: doc/*.rst shows evaluation/$family/$name, which the report did not write" >&2
      status=1
    fi
  done < <(shown "$family")
done
echo "== goals (every family's talb_vs_best.csv)"
$PY "$TOP/analysis/talb-goals.py" "$TOP/doc/evaluation" || status=$?
if compgen -G "$RESULTS/*/ablate-*" > /dev/null; then
  echo "== ablation (TaLB with each rule of its defaults off against default TaLB)"
  # --keep: the families RESULTS lacks keep their committed rows.
  $PY "$TOP/analysis/talb-ablation.py" "$RESULTS" --out="$TOP/doc/evaluation/ablation.csv" \
    --keep="$TOP/doc/evaluation/ablation.csv" --pairs-out="$RESULTS/ablation_pairs.csv" \
    || status=$?
fi
echo "talb-evaluate: done in $(( $(date +%s) - start )) s; every table and plot in $RESULTS/FAMILY/report, what the pages show in doc/evaluation/"
[ "$status" = 0 ] || echo "talb-evaluate: some sweeps had failed points or shown files are missing (exit $status); rerun to retry the points" >&2
exit "$status"
