#!/usr/bin/env bash
# Scale curve: one training iteration with every host in one job, on leaf-spine fabrics of
# growing size (8 hosts per leaf, 8 spines), one process per point so that peak RSS is the
# point's own. Prints a table (hosts, wall and CPU time, events, packet-hops, peak RSS, load) as it
# goes, appends the same to OUT/scale.csv, and plots OUT/scale.png with Debian's matplotlib.
# A benchmark, not a test: nothing here asserts a time.
#
# usage: bench/talb-scale.sh [options] [-- scenario options]
#   --bin=PATH       talb-scenario binary (default build/bin/talb-scenario; the fast build's is
#                    /tmp/talb-fast/bin/talb-scenario, see scripts/setup-fast.sh); the table's
#                    binary column names one inside this repository relative to it
#   --hosts="16 32"  points (default "16 32 64 128 256 512")
#   --rate=RATE      every link's rate (default 100Gbps)
#   --model=NAME     model of the job (default resnet50)
#   --scheduler=S    communication scheduler of the job (default wfbp)
#   --timeout=SEC    wall-clock limit per point (default 3600); a point cut here is reported
#   --out=DIR        outputs (default /tmp/talb-scale)
# Everything after -- goes to talb-scenario unchanged (e.g. -- --mtu=1500 --tcp=dctcp).
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=$TOP/build/bin/talb-scenario
HOSTS="16 32 64 128 256 512"
RATE=100Gbps
MODEL=resnet50
SCHEDULER=wfbp
TIMEOUT=3600
OUT=/tmp/talb-scale
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin=*) BIN=${1#*=} ;;
    --hosts=*) HOSTS=${1#*=} ;;
    --rate=*) RATE=${1#*=} ;;
    --model=*) MODEL=${1#*=} ;;
    --scheduler=*) SCHEDULER=${1#*=} ;;
    --timeout=*) TIMEOUT=${1#*=} ;;
    --out=*) OUT=${1#*=} ;;
    --) shift; EXTRA=("$@"); break ;;
    *) echo "talb-scale: unknown option '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$BIN" ] || { echo "talb-scale: no talb-scenario binary at $BIN (build first, or --bin=)" >&2; exit 2; }
# The table names a binary of this repository relative to it (build/bin/talb-scenario), so that a
# committed table names no folder of the machine that made it; any other binary as given.
BIN_ABS=$(realpath -m -- "$BIN")
TOP_ABS=$(realpath -- "$TOP")
case "$BIN_ABS" in
  "$TOP_ABS"/*) BIN_NAME=${BIN_ABS#"$TOP_ABS"/} ;;
  *) BIN_NAME=$BIN ;;
esac
[ -x /usr/bin/time ] || { echo "talb-scale: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
for h in $HOSTS; do
  if ! [[ $h =~ ^[0-9]+$ ]] || [ $((h % 8)) -ne 0 ] || [ "$h" -lt 16 ]; then
    echo "talb-scale: --hosts: '$h' is not a multiple of 8 of at least 16" >&2; exit 2
  fi
done
export TALB_DATA_DIR=${TALB_DATA_DIR:-$TOP/data}

mkdir -p "$OUT"
CSV=$OUT/scale.csv
[ -s "$CSV" ] || echo "date,cores,binary,hosts,leaves,spines,rate,model,scheduler,load1,status,complete,sim_s,wall_s,events,packet_hops,delivered,peak_rss_mib,events_per_s,hops_per_s,run_cpu_s" >"$CSV"
if ! head -1 "$CSV" | grep -q ',run_cpu_s$'; then
  echo "talb-scale: $CSV has no run_cpu_s column (written by an older version): use another --out" >&2; exit 2
fi
printf '%6s %6s %9s %9s %9s %13s %12s %9s %10s %6s  %s\n' hosts leaves "sim ms" "wall s" "cpu s" events "pkt-hops" "RSS MiB" "hops/s" load status
for h in $HOSTS; do
  leaves=$((h / 8))
  dir=$OUT/h$h
  rm -rf "$dir" "$OUT/h$h.time"
  load=$(cut -d' ' -f1 /proc/loadavg)
  # A non-zero exit (incomplete run, timeout, out of memory) is recorded, and the curve goes on.
  rc=0
  timeout "$TIMEOUT" /usr/bin/time -f '%M %e' -o "$OUT/h$h.time" "$BIN" \
      --leaves=$leaves --spines=8 --hostsPerLeaf=8 --hostRate="$RATE" --fabricRate="$RATE" \
      --jobs="model=$MODEL,workers=$h,scheduler=$SCHEDULER" --iterations=1 --warmup=0 \
      --bgLoad=0 --lb=ecmp --progress=false --out="$dir" "${EXTRA[@]}" \
      >"$OUT/h$h.log" 2>&1 || rc=$?
  status=ok
  [ $rc -eq 0 ] || status="failed(rc=$rc)"
  if [ ! -s "$dir/run.json" ]; then
    echo "$(printf '%6s' "$h")  no run.json ($status): see $OUT/h$h.log"
    echo "$(date -u +%FT%TZ),$(nproc),$BIN_NAME,$h,$leaves,8,$RATE,$MODEL,$SCHEDULER,$load,$status,false,,,,,,,,," >>"$CSV"
    continue
  fi
  read -r rss_kib _ <"$OUT/h$h.time" || true
  /usr/bin/python3 - "$dir/run.json" "$rss_kib" "$h" "$leaves" "$load" "$status" "$CSV" \
    "$(date -u +%FT%TZ),$(nproc),$BIN_NAME,$h,$leaves,8,$RATE,$MODEL,$SCHEDULER,$load,$status" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
# A point cut by the timeout has the run.json written at its start (complete false, zeros) and
# no .time file (/usr/bin/time was killed with it): its figures are unknown, not zero.
rss = round(int(sys.argv[2]) / 1024, 1) if sys.argv[2] else None
hosts, leaves, load, status, csv, prefix = sys.argv[3:9]
wall = run['wall_seconds'] if run['wall_seconds'] > 0 else None
row = [run['complete'], run['sim_seconds'], wall, run['events'], run['packet_hops'],
       run['delivered_packets'], rss, run['events'] / wall if wall else None,
       run['packet_hops'] / wall if wall else None, run['run_cpu_seconds']]
with open(csv, 'a') as f:
    f.write(prefix + ',' + ','.join('' if x is None else str(x).lower() if isinstance(x, bool) else str(x)
                                    for x in row) + '\n')
def show(x, fmt):
    return '-' if x is None else fmt % x
print('%6s %6s %9.2f %9s %9.1f %13d %12d %9s %10s %6s  %s%s' % (
    hosts, leaves, run['sim_seconds'] * 1e3, show(wall, '%.1f'), run['run_cpu_seconds'], run['events'],
    run['packet_hops'], show(rss, '%.0f'), show(row[8], '%.0f'), load, status,
    '' if run['complete'] else ' (incomplete)'))
PY
done
/usr/bin/python3 "$TOP/bench/talb-scale-plot.py" "$CSV" "$OUT/scale.png"
echo "talb-scale: table $CSV, plot $OUT/scale.png"
