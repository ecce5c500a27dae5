#!/bin/bash
# Builds the namespace testbed: N hosts, each a network namespace whose traffic crosses its own
# talb-agent (net_af_packet on both sides) before a Linux bridge joins all the wires.
#
#   talb-hK-ID  eth0 10.250.0.K/24, MTU 1492 (the wire MTU less the 8-byte option)
#                 | veth
#   talb-mid-ID hK-host ==[talb-agent K]== hK-wire
#                                            | veth
#               hK-br --- bridge br0 --- (the other hosts' hJ-br)
#
# The agents run in talb-mid-ID; their logs and pids go to the run directory. Undo everything
# with talb-netns-down.sh --id=ID --run-dir=DIR (also safe after a partial set-up).
set -euo pipefail

usage() {
    cat <<USAGE
usage: $(basename "$0") --id=ID --run-dir=DIR [--hosts=N] [--agent=PATH] [--agent-args='ARGS']
                         [--no-agents]
  --id=ID            suffix of the namespace names (letters, digits; at most 8)
  --run-dir=DIR      where agent logs, pids and testbed.env go (created)
  --hosts=N          hosts, 2..8 (default 2)
  --agent=PATH       talb-agent binary (default: talb-agent on PATH)
  --agent-args=ARGS  extra talb-agent application arguments (after --), e.g. --dscp-only
  --no-agents        plain veths and bridge, no agents (hK-host and hK-wire are bridged too)
Needs root, iproute2 (ip netns) and ethtool.
USAGE
}

die() {
    echo "$(basename "$0"): $*" >&2
    exit 2
}

id=""
run_dir=""
hosts=2
agent="talb-agent"
agent_args=""
with_agents=1
for arg in "$@"; do
    case "$arg" in
    --id=*) id="${arg#*=}" ;;
    --run-dir=*) run_dir="${arg#*=}" ;;
    --hosts=*) hosts="${arg#*=}" ;;
    --agent=*) agent="${arg#*=}" ;;
    --agent-args=*) agent_args="${arg#*=}" ;;
    --no-agents) with_agents=0 ;;
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
[[ "$id" =~ ^[A-Za-z0-9]{1,8}$ ]] || die "--id: '$id' must be 1-8 letters or digits"
[[ -n "$run_dir" ]] || die "--run-dir is required"
[[ "$hosts" =~ ^[0-9]+$ && "$hosts" -ge 2 && "$hosts" -le 8 ]] || die "--hosts: '$hosts' is not in 2..8"
# shellcheck source=testbed/scripts/talb-netns-lib.sh
. "$(dirname "$0")/talb-netns-lib.sh"
need_netns_tools die
if [[ $with_agents -eq 1 ]]; then
    agent_bin=$(command -v "$agent") || die "--agent: '$agent' not found"
fi

mid="talb-mid-$id"
ip netns list | grep -q "^$mid\b" && die "namespace $mid exists already: pick another --id or run talb-netns-down.sh --id=$id"
mkdir -p "$run_dir"

in_mid() { ip netns exec "$mid" "$@"; }

ip netns add "$mid"
in_mid sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
in_mid ip link set lo up
in_mid ip link add br0 type bridge
in_mid ip link set br0 up

ncpu=$(nproc)
{
    echo "TALB_TESTBED_ID=$id"
    echo "TALB_TESTBED_HOSTS=$hosts"
    echo "TALB_TESTBED_MID=$mid"
} >"$run_dir/testbed.env"

for k in $(seq 1 "$hosts"); do
    ns="talb-h$k-$id"
    ip netns add "$ns"
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
    ip netns exec "$ns" ip link set lo up
    # host <-> agent host port
    in_mid ip link add "h$k-host" type veth peer name eth0 netns "$ns"
    # agent wire port <-> bridge
    in_mid ip link add "h$k-wire" type veth peer name "h$k-br"
    in_mid ip link set "h$k-br" master br0
    for dev in "h$k-host" "h$k-wire" "h$k-br"; do
        no_offloads "$mid" "$dev"
        in_mid ip link set "$dev" up
    done
    no_offloads "$ns" eth0
    ip netns exec "$ns" ip link set eth0 mtu 1492
    ip netns exec "$ns" ip addr add "10.250.0.$k/24" dev eth0
    ip netns exec "$ns" ip link set eth0 up
    echo "TALB_TESTBED_H${k}_NS=$ns" >>"$run_dir/testbed.env"
    echo "TALB_TESTBED_H${k}_ADDR=10.250.0.$k" >>"$run_dir/testbed.env"

    if [[ $with_agents -eq 0 ]]; then
        in_mid ip link add "h$k-pass" type bridge
        in_mid ip link set "h$k-host" master "h$k-pass"
        in_mid ip link set "h$k-wire" master "h$k-pass"
        in_mid ip link set "h$k-pass" up
        continue
    fi
    # Two lcores: the main one (stats) and the forwarding one, spread over the CPUs.
    worker=$(((k - 1) % ncpu))
    main=$((k % ncpu))
    # shellcheck disable=SC2086 # agent_args is a list of arguments
    # `ip netns exec` execs the agent: $! is the agent itself, for talb-netns-down.sh.
    ip netns exec "$mid" "$agent_bin" --no-huge --no-pci --no-shconf -m 128 --file-prefix="talb-$id-$k" \
        --lcores="0@$main,1@$worker" --log-level=warning \
        --vdev="net_af_packet0,iface=h$k-host" --vdev="net_af_packet1,iface=h$k-wire" \
        -- --host-port=net_af_packet0 --wire-port=net_af_packet1 $agent_args \
        >"$run_dir/agent-$k.log" 2>&1 </dev/null &
    echo $! >"$run_dir/agent-$k.pid"
done

# Each agent prints "talb-agent: forwarding ..." once its ports are up.
if [[ $with_agents -eq 1 ]]; then
    for k in $(seq 1 "$hosts"); do
        wait_started "$run_dir" "agent-$k"
    done
fi
echo "talb testbed $id up: $hosts hosts (10.250.0.1-$hosts), run dir $run_dir"
