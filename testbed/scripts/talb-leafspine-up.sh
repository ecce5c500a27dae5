#!/bin/bash
# Builds the namespace leaf-spine testbed: four hosts, each a network namespace behind its own
# talb-agent, two leaf and two spine talb-switch processes, veth links, and one uplink (leaf 0
# to spine 1) shaped to a lower rate than the others, so that the fabric is asymmetric.
#
#   talb-hK-ID  host K: eth0 10.250.0.K/24, MTU 1492, MAC 02:00:00:00:00:0K, static neighbours,
#               ECN on
#   talb-aK-ID  agent K: "host" (veth to the host's eth0) and "wire" (veth to its leaf)
#   talb-lL-ID  leaf L: "hK" to each of its hosts' agents, "s0", "s1" to the spines
#   talb-sS-ID  spine S: "l0", "l1" to the leaves
#
#   hosts 1, 2 under leaf 0; hosts 3, 4 under leaf 1; every leaf has an uplink to each spine.
#   Leaf ports: 0, 1 its hosts, 2 spine 0, 3 spine 1. Spine ports: 0 leaf 0, 1 leaf 1.
#
# Every DPDK process has a namespace of its own, like a box of its own: net_af_packet joins each
# socket to a fanout group numbered (pid ^ ifindex), and two processes sharing a namespace can
# draw the same number for different interfaces, which the kernel refuses. They run without
# hugepages and sleep when idle (--idle-sleep-us), so that eight of them share two cores. The
# switches' configurations, logs and pids go to the run directory. Undo everything with
# talb-netns-down.sh --id=ID --run-dir=DIR (also safe after a partial set-up).
set -euo pipefail

usage() {
    cat <<USAGE
usage: $(basename "$0") --id=ID --run-dir=DIR --switch=PATH --agent=PATH [options]
  --id=ID             suffix of the namespace names (letters, digits; at most 8)
  --run-dir=DIR       where configurations, logs and pids go (created)
  --switch=PATH       talb-switch binary
  --agent=PATH        talb-agent binary
  --lb=NAME           the switches' load balancer: ecmp, rps, letflow, drill, presto, hermes,
                      talb (TaLB v2) or talb-v1 (default ecmp)
  --labels=SRC        option or dscp: what the switches read labels from (default option)
  --fabric-rate=R     rate of every host link and uplink (default 40Mbps)
  --slow-rate=R       rate of the uplink from leaf 0 to spine 1 (default 10Mbps)
  --ecn=BYTES         ECN marking threshold of every switch port (default 15000)
  --buffer=BYTES      egress buffer of every switch port (default 262144)
  --idle-sleep-us=U   DPDK processes sleep U us when idle (default 50)
  --seed=S            the switches' random seed (default 1)
  --switch-args=ARGS  extra talb-switch arguments (after --)
Needs root, iproute2 (ip netns) and ethtool.
USAGE
}

die() {
    echo "$(basename "$0"): $*" >&2
    exit 2
}

id=""
run_dir=""
switch=""
agent=""
lb=ecmp
labels=option
fabric_rate=40Mbps
slow_rate=10Mbps
ecn=15000
buffer=262144
idle_us=50
seed=1
switch_args=""
for arg in "$@"; do
    case "$arg" in
    --id=*) id="${arg#*=}" ;;
    --run-dir=*) run_dir="${arg#*=}" ;;
    --switch=*) switch="${arg#*=}" ;;
    --agent=*) agent="${arg#*=}" ;;
    --lb=*) lb="${arg#*=}" ;;
    --labels=*) labels="${arg#*=}" ;;
    --fabric-rate=*) fabric_rate="${arg#*=}" ;;
    --slow-rate=*) slow_rate="${arg#*=}" ;;
    --ecn=*) ecn="${arg#*=}" ;;
    --buffer=*) buffer="${arg#*=}" ;;
    --idle-sleep-us=*) idle_us="${arg#*=}" ;;
    --seed=*) seed="${arg#*=}" ;;
    --switch-args=*) switch_args="${arg#*=}" ;;
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
[[ -x "$switch" ]] || die "--switch: '$switch' is not an executable"
[[ -x "$agent" ]] || die "--agent: '$agent' is not an executable"
[[ "$lb" =~ ^(ecmp|rps|letflow|drill|presto|hermes|talb|talb-v1)$ ]] || die "--lb: '$lb' is not ecmp, rps, letflow, drill, presto, hermes, talb or talb-v1"
[[ "$labels" =~ ^(option|dscp)$ ]] || die "--labels: '$labels' is not option or dscp"
for v in ecn buffer idle_us seed; do
    [[ "${!v}" =~ ^[0-9]+$ ]] || die "--${v/_us/-sleep-us}: '${!v}' is not a number"
done
for r in fabric_rate slow_rate; do
    [[ "${!r}" =~ ^[0-9]+(\.[0-9]+)?(bps|kbps|Kbps|Mbps|Gbps)$ ]] || die "--${r/_/-}: '${!r}' is not a rate such as 40Mbps"
done
# shellcheck source=testbed/scripts/talb-netns-lib.sh
. "$(dirname "$0")/talb-netns-lib.sh"
need_netns_tools die

ns_of() { echo "talb-$1-$id"; } # h1..h4 hosts, a1..a4 agents, l0 l1 leaves, s0 s1 spines
first=$(ns_of a1)
ip netns list | grep -q "^$first\b" && die "namespace $first exists already: pick another --id or run talb-netns-down.sh --id=$id"
mkdir -p "$run_dir"


# A namespace with loopback up and IPv6 off.
new_ns() {
    ip netns add "$1"
    ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
        net.ipv6.conf.default.disable_ipv6=1
    ip netns exec "$1" ip link set lo up
}

# link NS_A IF_A NS_B IF_B: a veth pair between two namespaces, both ends up, offloads off.
link() {
    ip link add "$2" netns "$1" type veth peer name "$4" netns "$3"
    for end in "$1 $2" "$3 $4"; do
        read -r n i <<<"$end"
        no_offloads "$n" "$i"
        ip netns exec "$n" ip link set "$i" up
    done
}

ncpu=$(nproc)
next_cpu=0
# EAL arguments of one DPDK process: no hugepages, its own file prefix, two lcores (main: stats,
# worker: forwarding) spread over the CPUs, one net_af_packet vdev per interface.
eal_args() {
    local name=$1
    shift
    local worker=$((next_cpu % ncpu)) main=$(((next_cpu + 1) % ncpu))
    next_cpu=$((next_cpu + 1))
    printf '%s\n' --no-huge --no-pci --no-shconf -m 128 "--file-prefix=talb-$id-$name" \
        "--lcores=0@$main,1@$worker" --log-level=warning
    local i=0
    for iface in "$@"; do
        printf '%s\n' "--vdev=net_af_packet$i,iface=$iface"
        i=$((i + 1))
    done
}

# Starts a DPDK process in namespace $2; `ip netns exec` execs it, so $! is its pid.
start() {
    local name=$1 ns=$2
    shift 2
    ip netns exec "$ns" "$@" >"$run_dir/$name.log" 2>&1 </dev/null &
    echo $! >"$run_dir/$name.pid"
}

for n in a1 a2 a3 a4 l0 l1 s0 s1; do
    new_ns "$(ns_of "$n")"
done
{
    echo "TALB_TESTBED_ID=$id"
    echo "TALB_TESTBED_LB=$lb"
} >"$run_dir/testbed.env"

# Hosts and their agents.
for k in 1 2 3 4; do
    ns=$(ns_of "h$k")
    new_ns "$ns"
    ip netns exec "$ns" sysctl -qw net.ipv4.tcp_ecn=1
    link "$(ns_of "a$k")" host "$ns" eth0
    ip netns exec "$ns" ip link set eth0 address "02:00:00:00:00:0$k" mtu 1492
    ip netns exec "$ns" ip addr add "10.250.0.$k/24" dev eth0
    # The switches route by IP and forward frames unchanged: hosts know each other's MAC.
    for j in 1 2 3 4; do
        [[ $j -eq $k ]] && continue
        ip netns exec "$ns" ip neigh replace "10.250.0.$j" lladdr "02:00:00:00:00:0$j" \
            dev eth0 nud permanent
    done
    leaf=$(((k - 1) / 2))
    link "$(ns_of "a$k")" wire "$(ns_of "l$leaf")" "h$k"
    echo "TALB_TESTBED_H${k}_NS=$ns" >>"$run_dir/testbed.env"
    # shellcheck disable=SC2046 # one argument per line
    start "agent-$k" "$(ns_of "a$k")" "$agent" $(eal_args "agent$k" host wire) -- \
        --host-port=net_af_packet0 --wire-port=net_af_packet1 --idle-sleep-us="$idle_us"
done

# Leaf-spine links and the switches.
for leaf in 0 1; do
    for spine in 0 1; do
        link "$(ns_of "l$leaf")" "s$spine" "$(ns_of "s$spine")" "l$leaf"
    done
done
for leaf in 0 1; do
    a=$((2 * leaf + 1))
    b=$((2 * leaf + 2))
    slow=$fabric_rate
    [[ $leaf -eq 0 ]] && slow=$slow_rate
    cat >"$run_dir/leaf$leaf.conf" <<CONF
# leaf $leaf: hosts $a and $b, uplinks to spines 0 and 1
port 0 net_af_packet0 rate=$fabric_rate ecn=$ecn buffer=$buffer   # host $a (through agent $a)
port 1 net_af_packet1 rate=$fabric_rate ecn=$ecn buffer=$buffer   # host $b
port 2 net_af_packet2 rate=$fabric_rate ecn=$ecn buffer=$buffer   # spine 0
port 3 net_af_packet3 rate=$slow ecn=$ecn buffer=$buffer   # spine 1
route 10.250.0.$a/32 0 leaf=$leaf
route 10.250.0.$b/32 1 leaf=$leaf
route 10.250.0.0/24 2,3 leaf=$((1 - leaf))
CONF
    # shellcheck disable=SC2046,SC2086 # one argument per line; switch_args is a list
    start "switch-leaf$leaf" "$(ns_of "l$leaf")" "$switch" $(eal_args "leaf$leaf" "h$a" "h$b" s0 s1) \
        -- --config="$run_dir/leaf$leaf.conf" --lb="$lb" --labels="$labels" \
        --switch-id=$((leaf + 1)) --seed="$seed" --idle-sleep-us="$idle_us" $switch_args
done
for spine in 0 1; do
    cat >"$run_dir/spine$spine.conf" <<CONF
# spine $spine: one port to each leaf
port 0 net_af_packet0 rate=$fabric_rate ecn=$ecn buffer=$buffer   # leaf 0
port 1 net_af_packet1 rate=$fabric_rate ecn=$ecn buffer=$buffer   # leaf 1
route 10.250.0.1/32 0 leaf=0
route 10.250.0.2/32 0 leaf=0
route 10.250.0.3/32 1 leaf=1
route 10.250.0.4/32 1 leaf=1
CONF
    # shellcheck disable=SC2046,SC2086
    start "switch-spine$spine" "$(ns_of "s$spine")" "$switch" $(eal_args "spine$spine" l0 l1) -- \
        --config="$run_dir/spine$spine.conf" --lb="$lb" --labels="$labels" \
        --switch-id=$((spine + 11)) --seed="$seed" --idle-sleep-us="$idle_us" $switch_args
done

# Every process prints "... forwarding ..." once its ports are up.
for pidfile in "$run_dir"/*.pid; do
    wait_started "$run_dir" "$(basename "$pidfile" .pid)"
done
echo "talb leaf-spine $id up: hosts 10.250.0.1-4, lb $lb, links $fabric_rate, leaf 0 -> spine 1 $slow_rate"
