# shellcheck shell=bash
# Shell functions shared by the namespace testbeds (talb-netns-up.sh, talb-leafspine-up.sh and
# the tests talb-e2e.sh, talb-leafspine.sh): sourced, not run. Each expects a die() that prints
# and exits.

# need_netns_tools FAIL: what every namespace testbed needs -- root, 'ip netns', ethtool. Calls
# FAIL (die in the set-up scripts, skip in the tests) with the reason when one is missing.
need_netns_tools() {
    [[ $(id -u) -eq 0 ]] || "$1" "needs root to create network namespaces"
    ip netns list >/dev/null 2>&1 || "$1" "'ip netns' is not available"
    command -v ethtool >/dev/null || "$1" "ethtool not found (apt-get install ethtool)"
}

# no_offloads NS IF: offloads off on a veth end. With checksum offload or TSO the kernel hands
# af_packet partial checksums and 64 KiB super-frames.
no_offloads() {
    ip netns exec "$1" ethtool -K "$2" tx off tso off gso off gro off >/dev/null 2>&1 ||
        ip netns exec "$1" ethtool -K "$2" tx off tso off gso off >/dev/null
}

# wait_started RUN_DIR NAME: waits up to 30 s for the DPDK process NAME (RUN_DIR/NAME.pid, .log)
# to print its ": forwarding" line; dies with the log's tail if it exits or never does.
wait_started() {
    local log="$1/$2.log" pid
    pid=$(cat "$1/$2.pid")
    for _ in $(seq 1 300); do
        grep -q ": forwarding" "$log" && return 0
        kill -0 "$pid" 2>/dev/null || die "$2 exited during start-up: $(tail -5 "$log")"
        sleep 0.1
    done
    die "$2 did not start within 30 s: $(tail -5 "$log")"
}
