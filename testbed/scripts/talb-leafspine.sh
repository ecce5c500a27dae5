#!/bin/bash
# Runs tensor traffic over the namespace leaf-spine testbed (talb-leafspine-up.sh) once per load
# balancer and prints talb-scenario's comparison table of flow completion times.
#
# Per scheme: the fabric comes up with the switches running that load balancer; four NCCL
# plugin harness pairs cross the fabric from leaf 0 to leaf 1 (hosts 1 -> 3, 1 -> 4, 2 -> 3,
# 2 -> 4), each sending messages of every priority (message i: priority i % 8) open-loop at a
# fixed interval, so that together they offer --load of leaf 0's uplink capacity; with --peer,
# a frame peer adds a back-to-back burst of tagged messages (2 -> 3) as competing traffic. The
# receivers write flows.csv in the simulator's columns; the run folder (run.json, flows.csv,
# empty tensors.csv and iterations.csv) is what analysis/talb-report.py reads. Then the fabric
# is torn down (the DPDK processes' final counters stay in their logs).
#
# Exit 0 when every scheme delivered every message intact, 1 otherwise, 2 on bad usage, 77 when
# skipped (not root, no ip netns, no ethtool). A trap removes the namespaces on every exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
usage() {
    cat <<USAGE
usage: $(basename "$0") --switch=PATH --agent=PATH --harness=PATH [options]
  --switch=PATH     talb-switch binary
  --agent=PATH      talb-agent binary
  --harness=PATH    talb-nccl-harness binary (its plugin is found next to it, in ../lib)
  --peer=PATH       talb-frame-peer binary: adds a burst of tagged competing traffic
  --schemes=LIST    load balancers, the first is the baseline (default ecmp,talb)
  --seconds=S       how long each scheme offers traffic (default 20)
  --bytes=B         bytes per message (default 100000)
  --load=F          offered load as a fraction of leaf 0's uplink capacity, 0.05..0.95
                    (default 0.6)
  --fabric-rate=N   rate of every link in Mbit/s (default 40)
  --slow-rate=N     rate of the uplink from leaf 0 to spine 1 in Mbit/s (default 10)
  --labels=SRC      option or dscp: what the switches read labels from (default option)
  --seed=S          switches' random seed and the runs' seed column (default 1)
  --switch-args=A   extra talb-switch options for every switch, space-separated (e.g.
                    '--talb-active-window-us=25000'); recorded in run.json
  --out=DIR         where the run folders go, one per scheme (default: a runs folder in the
                    run directory, WORK/talb-leafspine-PID.XXXX, kept)
  --work-dir=DIR    where the run directories go (default /tmp)
  --short           the CI version: --seconds=6 unless given
  --keep            keep the run directories (logs, configurations) after success
USAGE
}
die() {
    echo "talb-leafspine: $*" >&2
    exit 2
}
skip() {
    echo "talb-leafspine: SKIPPED: $*"
    exit 77
}

switch=""
agent=""
harness=""
peer=""
schemes="ecmp,talb"
seconds=""
bytes=100000
load=0.6
fabric=40
slow=10
labels=option
seed=1
switch_args=""
out=""
work_dir=/tmp
short=0
keep=0
for arg in "$@"; do
    case "$arg" in
    --switch=*) switch="${arg#*=}" ;;
    --agent=*) agent="${arg#*=}" ;;
    --harness=*) harness="${arg#*=}" ;;
    --peer=*) peer="${arg#*=}" ;;
    --schemes=*) schemes="${arg#*=}" ;;
    --seconds=*) seconds="${arg#*=}" ;;
    --bytes=*) bytes="${arg#*=}" ;;
    --load=*) load="${arg#*=}" ;;
    --fabric-rate=*) fabric="${arg#*=}" ;;
    --slow-rate=*) slow="${arg#*=}" ;;
    --labels=*) labels="${arg#*=}" ;;
    --seed=*) seed="${arg#*=}" ;;
    --switch-args=*) switch_args="${arg#*=}" ;;
    --out=*) out="${arg#*=}" ;;
    --work-dir=*) work_dir="${arg#*=}" ;;
    --short) short=1 ;;
    --keep) keep=1 ;;
    -h | --help)
        usage
        exit 0
        ;;
    *)
        usage >&2
        die "unknown argument '$arg'"
        ;;
    esac
done
[[ -z "$seconds" ]] && seconds=$((short ? 6 : 20))
for v in seconds bytes fabric slow seed; do
    [[ "${!v}" =~ ^[0-9]+$ && "${!v}" -gt 0 ]] || die "--${v}: '${!v}' is not a positive number"
done
[[ $bytes -ge 16 ]] || die "--bytes: at least 16 (the harness stamps its messages)"
if ! [[ "$load" =~ ^0?\.[0-9]+$ ]] || ! awk -v l="$load" 'BEGIN{exit !(l >= 0.05 && l <= 0.95)}'; then
    die "--load: '$load' is not in 0.05..0.95"
fi
IFS=, read -r -a scheme_list <<<"$schemes"
for s in "${scheme_list[@]}"; do
    [[ "$s" =~ ^(ecmp|rps|letflow|drill|presto|hermes|talb|talb-v1)$ ]] || die "--schemes: '$s' is not ecmp, rps, letflow, drill, presto, hermes, talb or talb-v1"
done
[[ "$labels" =~ ^(option|dscp)$ ]] || die "--labels: '$labels' is not option or dscp"
[[ "$switch_args" =~ ^[A-Za-z0-9=_.,:\ -]*$ ]] || die "--switch-args: '$switch_args' has characters other than letters, digits, spaces and =_.,:-"

# shellcheck source=testbed/scripts/talb-netns-lib.sh
. "$(dirname "$0")/talb-netns-lib.sh"
need_netns_tools skip
for b in switch agent harness; do
    [[ -x "${!b}" ]] || die "--$b: '${!b}' is not an executable"
done
[[ -z "$peer" || -x "$peer" ]] || die "--peer: '$peer' is not an executable"
plugin_dir=$(cd "$(dirname "$harness")/../lib" 2>/dev/null && pwd) || plugin_dir=""

tag="$$"
mkdir -p "$work_dir"
top=$(mktemp -d "$work_dir/talb-leafspine-$tag.XXXX")
[[ -n "$out" ]] || out="$top/runs"
mkdir -p "$out"
current_id=""
current_dir=""
bg_pids=()

cleanup() {
    local rc=$?
    for pid in "${bg_pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    if [[ -n "$current_id" ]]; then
        "$here/talb-netns-down.sh" --id="$current_id" --run-dir="$current_dir" >/dev/null 2>&1 || true
    fi
    if [[ $rc -eq 0 && $keep -eq 0 ]]; then
        rm -rf "$top/run-"*
        rmdir "$top" 2>/dev/null || true # kept when it holds the run folders (no --out)
    else
        echo "talb-leafspine: logs kept in $top"
    fi
    exit $rc
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Four pairs share the offered load: message interval = bytes x 8 / (load x capacity / 4).
capacity=$((fabric + slow))
interval_us=$(awk -v b="$bytes" -v l="$load" -v c="$capacity" 'BEGIN{printf "%d", b * 8 / (l * c / 4)}')
messages=$((seconds * 1000000 / interval_us))
[[ $messages -ge 8 ]] || die "fewer than 8 messages per pair: raise --seconds or --load"
pairs=("1 3" "1 4" "2 3" "2 4")
echo "talb-leafspine: ${#pairs[@]} pairs x $messages messages of $bytes bytes every ${interval_us} us" \
    "(load $load of ${capacity} Mbit/s), links ${fabric} Mbit/s, leaf 0 -> spine 1 ${slow} Mbit/s"

failed=0
runs=()
index=0
for scheme in "${scheme_list[@]}"; do
    index=$((index + 1))
    current_id="L$index$((tag % 100000))"
    current_dir="$top/run-$scheme"
    mkdir -p "$current_dir"
    "$here/talb-leafspine-up.sh" --id="$current_id" --run-dir="$current_dir" --switch="$switch" \
        --agent="$agent" --lb="$scheme" --labels="$labels" --fabric-rate="${fabric}Mbps" \
        --slow-rate="${slow}Mbps" --seed="$seed" --switch-args="$switch_args" |
        sed 's/^/talb-leafspine: /'
    ns() { echo "talb-h$1-$current_id"; }
    timeout_s=$((seconds * 4 + 30))
    common=(--messages="$messages" --bytes="$bytes" --seed="$seed" --timeout="$timeout_s"
        --idle-sleep-us=200 --inflight=8)
    pids=()
    for p in "${pairs[@]}"; do
        read -r src dst <<<"$p"
        name="p$src$dst"
        ip netns exec "$(ns "$dst")" env TALB_NET_ADDR="10.250.0.$dst" LD_LIBRARY_PATH="$plugin_dir" \
            "$harness" recv --handle-file="$current_dir/$name.handle" "${common[@]}" \
            --flows="$current_dir/flows-$name.csv" --scheme="$scheme" --ideal-mbps="$fabric" \
            --base-rtt-us=200 >"$current_dir/recv-$name.log" 2>&1 &
        pids+=($!)
    done
    for p in "${pairs[@]}"; do
        read -r src dst <<<"$p"
        name="p$src$dst"
        ip netns exec "$(ns "$src")" env TALB_NET_ADDR="10.250.0.$src" LD_LIBRARY_PATH="$plugin_dir" \
            "$harness" send --handle-file="$current_dir/$name.handle" "${common[@]}" \
            --interval-us="$interval_us" --stamp --log="$current_dir/send-$name.csv" \
            >"$current_dir/send-$name.log" 2>&1 &
        pids+=($!)
    done
    if [[ -n "$peer" ]]; then
        burst=$((messages / 2 + 1))
        ip netns exec "$(ns 3)" env TALB_NET_ADDR=10.250.0.3:5999 \
            "$peer" recv --handle-file="$current_dir/peer.handle" --messages="$burst" \
            --bytes="$bytes" --timeout="$timeout_s" >"$current_dir/peer-recv.log" 2>&1 &
        pids+=($!)
        ip netns exec "$(ns 2)" env TALB_NET_ADDR=10.250.0.2 \
            "$peer" send --handle-file="$current_dir/peer.handle" --messages="$burst" \
            --bytes="$bytes" --timeout="$timeout_s" >"$current_dir/peer-send.log" 2>&1 &
        pids+=($!)
    fi
    bg_pids=("${pids[@]}")
    status=0
    for pid in "${pids[@]}"; do
        wait "$pid" || status=1
    done
    bg_pids=()
    "$here/talb-netns-down.sh" --id="$current_id" --run-dir="$current_dir" >/dev/null
    current_id=""

    # The run folder: the receivers' rows in one flows.csv, the simulator's other two tables
    # (empty: the testbed has no iterations), run.json.
    run="$out/$scheme"
    mkdir -p "$run"
    head -n 1 "$current_dir/flows-p13.csv" >"$run/flows.csv"
    for p in "${pairs[@]}"; do
        read -r src dst <<<"$p"
        tail -n +2 "$current_dir/flows-p$src$dst.csv" >>"$run/flows.csv"
    done
    echo "job,iteration,tensor,name,bytes,priority,ready_ns,done_ns,comm_ns,scheme,seed" >"$run/tensors.csv"
    echo "job,worker,iteration,start_ns,end_ns,compute_ns,exposed_comm_ns,scheme,seed" >"$run/iterations.csv"
    rows=$(($(wc -l <"$run/flows.csv") - 1))
    expected=$((messages * ${#pairs[@]}))
    counters() { sed -n "s/^talb-switch final: //p" "$current_dir/switch-$1.log"; }
    cat >"$run/run.json" <<JSON
{"talb_version": "testbed", "scheme": "$scheme", "seed": $seed, "complete": $([[ $rows -eq $expected ]] && echo true || echo false),
 "iterations_expected": 0, "messages_expected": $expected,
 "testbed": {"leaf0": "$(counters leaf0)", "leaf1": "$(counters leaf1)"},
 "parameters": {"testbed": "namespace leaf-spine", "lb": "$scheme", "labels": "$labels",
  "pairs": ${#pairs[@]}, "messages": $messages, "bytes": $bytes, "interval_us": $interval_us,
  "load": $load, "fabric_mbps": $fabric, "slow_uplink_mbps": $slow, "peer": $([[ -n "$peer" ]] && echo true || echo false)$([[ -n "$switch_args" ]] && echo ", \"switch_args\": \"$switch_args\"")}}
JSON
    for f in "$current_dir"/recv-*.log; do
        grep -q "0 corrupt" "$f" && grep -q "^labels: 0 mislabelled" "$f" || status=1
    done
    if [[ $status -ne 0 || $rows -ne $expected ]]; then
        echo "talb-leafspine: FAIL: $scheme: $rows of $expected messages measured, or a harness failed:"
        tail -n 3 "$current_dir"/recv-*.log "$current_dir"/send-*.log | sed 's/^/    /'
        failed=1
    fi
    echo "talb-leafspine: $scheme: $rows messages; leaf 0: $(counters leaf0 | grep -o 'reroutes=[0-9]*\|marked=[0-9]*\|queue_drops=[0-9]*' | tr '\n' ' ')"
    runs+=("$run")
done

echo "talb-leafspine: flow completion times (run folders in $out)"
/usr/bin/python3 "$here/talb-testbed-table.py" "${runs[@]}"
if [[ $failed -ne 0 ]]; then
    echo "talb-leafspine: FAILED"
    exit 1
fi
echo "talb-leafspine: PASSED"
