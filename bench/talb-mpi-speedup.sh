#!/usr/bin/env bash
# Speedup of a partitioned talb-scenario run (ns-3's MPI simulator) over one rank: the same
# scenario and seed under `mpirun -np 1` and `-np N` for each sync mode, at each fabric size.
# 16 hosts per leaf, 4 spines, one 64-worker job per 4 leaves (packed: each job on one rank),
# a communication-heavy model (4 tensors of 2M parameters, little compute), a fixed simulated
# duration. Prints hosts, ranks, sync, Simulator::Run() wall and CPU seconds (CPU summed over
# the ranks), events, packet-hops and cross-rank packets per lookahead window (= linkDelay), and
# the 1-minute load average before each run. A benchmark, not a test: nothing here asserts a time.
#
# usage: bench/talb-mpi-speedup.sh [--bin=PATH] [--hosts="128 256"] [--ranks=2]
#                                  [--duration=2ms] [--out=DIR] [-- scenario options]
#   --bin=PATH  talb-scenario of the MPI build (default /tmp/talb-fast-mpi/bin/talb-scenario)
set -euo pipefail

BIN=/tmp/talb-fast-mpi/bin/talb-scenario
HOSTS="128 256"
RANKS=2
DURATION=2ms
OUT=/tmp/talb-mpi-speedup
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
  --bin=*) BIN=${1#*=} ;;
  --hosts=*) HOSTS=${1#*=} ;;
  --ranks=*) RANKS=${1#*=} ;;
  --duration=*) DURATION=${1#*=} ;;
  --out=*) OUT=${1#*=} ;;
  --) shift; EXTRA=("$@"); break ;;
  *) echo "usage: bench/talb-mpi-speedup.sh [--bin=PATH] [--hosts=\"128 256\"] [--ranks=N]" \
       "[--duration=T] [--out=DIR] [-- scenario options]" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$BIN" ] || { echo "talb-mpi-speedup: $BIN not found (scripts/setup-fast.sh --mpi)" >&2; exit 2; }
mkdir -p "$OUT"
cat >"$OUT/comm-heavy.csv" <<'MODEL'
# talb-model-file v1
model,tensor,params,fwd_flops_per_sample,layer_group
heavy,l0.weight,2000000,1000,l0
heavy,l1.weight,2000000,1000,l1
heavy,l2.weight,2000000,1000,l2
heavy,l3.weight,2000000,1000,l3
MODEL
as_root=()
[ "$(id -u)" -ne 0 ] || as_root=(--allow-run-as-root)
printf '%6s %5s %8s %9s %9s %10s %10s %12s %14s %6s\n' hosts ranks sync run_wall_s run_cpu_s \
  events hops events/win remote_pkt/win load1
for hosts in $HOSTS; do
  leaves=$((hosts / 16))
  jobs=""
  for ((j = 0; j < hosts / 64; ++j)); do jobs+="${jobs:+;}workers=64"; done
  for point in "1 nullmsg" "$RANKS nullmsg" "$RANKS window"; do
    read -r np sync <<<"$point"
    dir=$OUT/h$hosts-n$np-$sync
    load=$(cut -d' ' -f1 /proc/loadavg)
    mpirun -np "$np" "${as_root[@]}" --oversubscribe "$BIN" --leaves="$leaves" --spines=4 \
      --hostsPerLeaf=16 --hostRate=10Gbps --fabricRate=10Gbps --linkDelay=1us \
      --placement=packed --jobs="$jobs" --model="$OUT/comm-heavy.csv" --iterations=1 \
      --bgLoad=0 --lb=ecmp --duration="$DURATION" --progress=false --mpiSync="$sync" \
      --out="$dir" "${EXTRA[@]}" >"$dir.log" 2>&1 || { echo "failed: see $dir.log" >&2; exit 1; }
    /usr/bin/python3 - "$dir/run.json" "$hosts" "$np" "$sync" "$load" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
windows = r['sim_seconds'] / 1e-6
print('%6s %5s %8s %9.2f %9.2f %10d %10d %12.1f %14s %6s' % (
    sys.argv[2], sys.argv[3], sys.argv[4], r['run_wall_seconds'], r['run_cpu_seconds'],
    r['events'], r['packet_hops'], r['events'] / windows, '%.1f' % (r.get('remote_packet_hops', 0) / windows),
    sys.argv[5]))
PY
  done
done
