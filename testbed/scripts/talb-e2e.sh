#!/bin/bash
# End-to-end test of talb-agent: two hosts in network namespaces, each behind its own agent on
# net_af_packet (talb-netns-up.sh). Host 1 sends tensors of every priority to host 2; a capture
# on host 1's bridge port (between the agents) is checked packet by packet (check-pcap.py);
# host 2 must receive every payload intact; the agents' counters must equal the capture's.
# Exit 0 pass, 1 fail, 2 bad usage, 77 skipped (not root / no ip netns / no tcpdump).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
usage() {
    cat <<USAGE
usage: $(basename "$0") --agent=PATH --peer=PATH [--messages=N] [--bytes=B] [--seed=S]
                        [--timeout=SEC] [--work-dir=DIR] [--agent-args='ARGS'] [--keep]
  --agent=PATH      talb-agent binary
  --peer=PATH       sender/receiver with the talb-nccl-harness command line: talb-frame-peer
                    or talb-nccl-harness ("PATH recv ..." / "PATH send ...")
  --messages=N      messages (tensors) to send, priority i % 8 (default 24)
  --bytes=B         bytes per message (default 100000)
  --seed=S          payload seed (default 7)
  --timeout=SEC     bound on the whole transfer (default 60)
  --work-dir=DIR    where the run directory goes (default /tmp); the run's logs and capture stay
                    there on failure or with --keep
  --agent-args=ARGS extra talb-agent arguments, e.g. --dscp-only (then the capture must show
                    the DSCP and no option)
USAGE
}
die() {
    echo "talb-e2e: $*" >&2
    exit 2
}
skip() {
    echo "talb-e2e: SKIPPED: $*"
    exit 77
}

agent=""
peer=""
messages=24
bytes=100000
seed=7
timeout_s=60
work_dir=/tmp
agent_args=""
keep=0
for arg in "$@"; do
    case "$arg" in
    --agent=*) agent="${arg#*=}" ;;
    --peer=*) peer="${arg#*=}" ;;
    --messages=*) messages="${arg#*=}" ;;
    --bytes=*) bytes="${arg#*=}" ;;
    --seed=*) seed="${arg#*=}" ;;
    --timeout=*) timeout_s="${arg#*=}" ;;
    --work-dir=*) work_dir="${arg#*=}" ;;
    --agent-args=*) agent_args="${arg#*=}" ;;
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
for v in messages bytes seed timeout_s; do
    [[ "${!v}" =~ ^[0-9]+$ ]] || die "--${v%_s}: '${!v}' is not a number"
done

# shellcheck source=testbed/scripts/talb-netns-lib.sh
. "$(dirname "$0")/talb-netns-lib.sh"
need_netns_tools skip
command -v tcpdump >/dev/null || skip "tcpdump not found (apt-get install tcpdump)"
[[ -x /usr/bin/python3 ]] || skip "/usr/bin/python3 not found"
[[ -x "$agent" ]] || die "--agent: '$agent' is not an executable"
[[ -x "$peer" ]] || die "--peer: '$peer' is not an executable"

id="e$$"
id=${id:0:8}
mkdir -p "$work_dir"
run=$(mktemp -d "$work_dir/talb-e2e-$id.XXXX")
mid="talb-mid-$id"
bg_pids=()

cleanup() {
    local rc=$?
    for pid in "${bg_pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    "$here/talb-netns-down.sh" --id="$id" --run-dir="$run" >/dev/null 2>&1 || true
    if [[ $rc -eq 0 && $keep -eq 0 ]]; then
        rm -rf "$run"
    else
        echo "talb-e2e: logs and capture kept in $run"
    fi
    exit $rc
}
trap cleanup EXIT
trap 'exit 1' INT TERM

echo "talb-e2e: testbed $id, run dir $run"
"$here/talb-netns-up.sh" --id="$id" --run-dir="$run" --hosts=2 --agent="$agent" \
    --agent-args="--stats-interval=1 $agent_args"

# Capture between the agents: host 1's bridge port sees both directions.
ip netns exec "$mid" tcpdump -i h1-br -w "$run/wire.pcap" -U -s 0 -B 16384 \
    >"$run/tcpdump.log" 2>&1 &
tcpdump_pid=$!
bg_pids+=("$tcpdump_pid")
for _ in $(seq 1 100); do
    grep -q "listening on" "$run/tcpdump.log" && break
    sleep 0.1
done
grep -q "listening on" "$run/tcpdump.log" || die "tcpdump did not start: $(cat "$run/tcpdump.log")"

common=(--handle-file="$run/handle" --messages="$messages" --bytes="$bytes" --seed="$seed"
    --timeout="$timeout_s")
ip netns exec talb-h2-"$id" env TALB_NET_ADDR=10.250.0.2 \
    timeout $((timeout_s + 10)) "$peer" recv "${common[@]}" >"$run/recv.log" 2>&1 &
recv_pid=$!
bg_pids+=("$recv_pid")
# In the background too: `wait` returns at once on a signal, so the trap cleans up promptly.
ip netns exec talb-h1-"$id" env TALB_NET_ADDR=10.250.0.1 \
    timeout $((timeout_s + 10)) "$peer" send "${common[@]}" --log="$run/send.csv" \
    >"$run/send.log" 2>&1 &
send_pid=$!
bg_pids+=("$send_pid")
send_rc=0
wait "$send_pid" || send_rc=$?
recv_rc=0
wait "$recv_pid" || recv_rc=$?
sed 's/^/talb-e2e: sender: /' "$run/send.log"
sed 's/^/talb-e2e: receiver: /' "$run/recv.log"

# Let the last ACKs through, then stop the capture and the agents (final counters).
sleep 1
kill -INT "$tcpdump_pid" 2>/dev/null || true
wait "$tcpdump_pid" || true
"$here/talb-netns-down.sh" --id="$id" --run-dir="$run" >/dev/null
grep -h "packets.*dropped by kernel" "$run/tcpdump.log" | sed 's/^/talb-e2e: tcpdump: /' || true

failed=0
[[ $send_rc -eq 0 ]] || { echo "talb-e2e: FAIL: sender exited $send_rc"; failed=1; }
[[ $recv_rc -eq 0 ]] || { echo "talb-e2e: FAIL: receiver exited $recv_rc"; failed=1; }
grep -q "received $messages messages, $((messages * bytes)) bytes, 0 corrupt" "$run/recv.log" ||
    { echo "talb-e2e: FAIL: the receiver did not get every payload intact"; failed=1; }
if grep -q "dropped by kernel" "$run/tcpdump.log" && ! grep -q "^0 packets dropped by kernel" "$run/tcpdump.log"; then
    echo "talb-e2e: FAIL: tcpdump dropped packets: the capture is incomplete"
    failed=1
fi

counter() { # counter K NAME: NAME from agent K's final line
    sed -n "s/.*talb-agent final:.* $2=\([0-9]*\).*/\1/p" "$run/agent-$1.log"
}
for k in 1 2; do
    line=$(grep "talb-agent final:" "$run/agent-$k.log" || true)
    [[ -n "$line" ]] || { echo "talb-e2e: FAIL: agent $k printed no final counters"; failed=1; continue; }
    echo "talb-e2e: agent $k: ${line#talb-agent final: }"
    for name in malformed drops; do
        [[ $(counter "$k" "$name") -eq 0 ]] || { echo "talb-e2e: FAIL: agent $k $name=$(counter "$k" "$name")"; failed=1; }
    done
    [[ $(counter "$k" rx) -eq $(($(counter "$k" tx) + $(counter "$k" drops))) ]] ||
        { echo "talb-e2e: FAIL: agent $k: rx != tx + drops"; failed=1; }
done
if [[ $failed -eq 0 ]]; then
    check_args=()
    [[ " $agent_args " == *" --dscp-only "* ]] && check_args+=(--dscp-only)
    /usr/bin/python3 "$here/check-pcap.py" "$run/wire.pcap" --log="$run/send.csv" \
        --sender=10.250.0.1 --receiver=10.250.0.2 "${check_args[@]}" \
        --expect-tagged="$(counter 1 tagged)" --expect-untracked="$(counter 1 untracked)" \
        --expect-stripped="$(counter 2 stripped)" | sed 's/^/talb-e2e: /' || failed=1
    [[ ${PIPESTATUS[0]} -eq 0 ]] || failed=1
fi
if [[ $failed -ne 0 ]]; then
    echo "talb-e2e: FAILED"
    exit 1
fi
echo "talb-e2e: PASSED"
