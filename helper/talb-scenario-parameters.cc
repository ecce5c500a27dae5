#include "talb-scenario-parameters.h"

#include "talb-attribute-list.h"
#include "talb-balancer-rules.h"
#include "talb-balancer-spec.h"
#include "talb-graph-job-spec.h"
#include "talb-host-config.h"

#include "ns3/abort.h"
#include "ns3/talb-collective.h"
#include "ns3/talb-comm-scheduler.h"
#include "ns3/talb-dnn-model.h"
#include "ns3/talb-entropy-policy.h"
#include "ns3/talb-llm-device.h"
#include "ns3/talb-llm-model.h"
#include "ns3/talb-load-balancer.h"
#include "ns3/talb-nvlink-port.h"
#include "ns3/talb-rdma-rate-control.h"
#include "ns3/talb-rdma-transport.h"
#include "ns3/talb-tcp-transport.h"
#include "ns3/talb-transport.h"
#include "ns3/talb-wire.h"

#include <cctype>

namespace ns3
{

namespace
{

using C = TalbScenarioConfig;

/// \return \p names joined by '|' (for --help)
std::string
JoinNames(const std::vector<std::string>& names)
{
    std::string text;
    for (const auto& n : names)
    {
        text += (text.empty() ? "" : "|") + n;
    }
    return text;
}

/// \return the default of TalbHostConfig's attribute \p name, as text
std::string
HostConfigDefault(const std::string& name)
{
    return TalbAttributeList::DefaultOf(TalbHostConfig::GetTypeId(), name);
}

/// \return the default of TalbTcpTransport's attribute \p name, as text
std::string
TcpAttributeDefault(const std::string& name)
{
    return TalbAttributeList::DefaultOf(TalbTcpTransport::GetTypeId(), name);
}

/// talb-scenario's spelling of TalbRdmaTransport's default \p name: the enum name with a
/// lower-case initial; for TrafficClass, "tensor" or the FixedClass number.
std::string
RdmaTransportDefault(const std::string& name)
{
    auto initial = [](const std::string& attribute) {
        return TalbAttributeList::DefaultOf(TalbRdmaTransport::GetTypeId(), attribute);
    };
    if (name == "TrafficClass" && initial(name) == "Fixed")
    {
        return initial("FixedClass");
    }
    std::string value = initial(name);
    value[0] = static_cast<char>(std::tolower(value[0]));
    return value;
}

/// FABRIC: switches, hosts and links.
void
DeclareTopology(TalbScenarioConfig& c)
{
    c.Declare("leaves", C::UINT, "4", "leaf (ToR) switches", C::Between(1, 256));
    c.Declare("spines", C::UINT, "2", "spine switches", C::Between(1, 256));
    c.Declare("hostsPerLeaf", C::UINT, "4", "hosts below each leaf", C::Between(1, 1024));
    c.Declare("hostRate", C::RATE, "10Gbps", "host-leaf link rate");
    c.Declare("fabricRate", C::RATE, "10Gbps", "leaf-spine link rate (see oversubscription)");
    c.Declare("oversubscription",
              C::DOUBLE,
              "0",
              "if > 0, set the leaf-spine rate so hostsPerLeaf x hostRate / (spines x rate) "
              "equals this ratio",
              C::AtLeast(0));
    c.Declare("linkDelay", C::TIME, "1us", "propagation delay of every link");
    c.Declare("mtu",
              C::UINT,
              "9000",
              "device MTU in bytes; TCP segments are mtu - 52 bytes (jumbo frames, as in "
              "training clusters, keep packet counts and simulation time down)",
              C::Between(576, 9216));
    c.Declare("topologyFile",
              C::STRING,
              "",
              "HPCC/ConWeave topology file of a two-tier leaf-spine fabric (first line NODES "
              "SWITCHES LINKS, the switch ids, then SRC DST RATE DELAY ERROR_RATE per link): it "
              "gives leaves, spines, hostsPerLeaf, hostRate, fabricRate, linkDelay and "
              "linkRates, so none of them may be set too; empty: the fabric from those "
              "parameters");
}

/// FABRIC: GPU servers (hosts are GPUs with a NIC each) and their wiring.
void
DeclareServers(TalbScenarioConfig& c)
{
    c.Declare("gpusPerServer",
              C::UINT,
              "1",
              "GPUs per server, each a host with its own NIC (hostRate); a server is this many "
              "consecutive hosts, and messages between its GPUs go over NVLink, never the "
              "fabric. 1: hosts are single servers, as without this option (an H100/H200 "
              "server has 8)",
              C::Between(1, 1024));
    c.Declare("railOptimized",
              C::BOOL,
              "false",
              "gpusPerServer > 1: wire servers in rails, NIC i of every server of a group of "
              "gpusPerServer leaves on leaf i of the group (leaves must be a multiple of "
              "gpusPerServer); false: all NICs of a server under one leaf (gpusPerServer must "
              "divide hostsPerLeaf)");
    c.Declare("nvlinkRate",
              C::RATE,
              TalbNvlinkPort::DEFAULT_RATE,
              "gpusPerServer > 1: each GPU's egress rate to the other GPUs of its server "
              "(NVLink 4 of an H100/H200 SXM: 450 GB/s each way)");
    c.Declare("nvlinkLatency",
              C::TIME,
              TalbNvlinkPort::DEFAULT_LATENCY,
              "gpusPerServer > 1: latency of a message between two GPUs of one server, on top "
              "of its bytes at nvlinkRate");
}

/// FABRIC: the ports' queues.
void
DeclarePorts(TalbScenarioConfig& c)
{
    c.Declare("queueSize", C::SIZE, "", "switch port buffer, e.g. 1MB (empty: helper default)");
    c.Declare("sharedBuffer",
              C::SIZE,
              "0B",
              "bytes of one buffer per switch that all its ports share, under dynamic "
              "thresholds: a lossy queue may hold bufferAlpha x the free buffer, and PFC pauses "
              "an ingress above pfcAlpha x the free buffer (e.g. 16MB; doc/talb-switch.rst, "
              "'Shared buffer'). 0B: static per-port buffers of queueSize (and static PFC "
              "thresholds)");
    c.Declare("bufferAlpha",
              C::DOUBLE,
              "1",
              "sharedBuffer: a lossy egress queue's dynamic threshold, in units of the free "
              "buffer (1: one congested queue alone may take half the buffer)",
              C::Between(1.0 / 1024, 1024));
    c.Declare("pfcAlpha",
              C::DOUBLE,
              "0.125",
              "sharedBuffer with PFC: an (ingress port, priority)'s dynamic XOFF threshold, in "
              "units of the free buffer",
              C::Between(1.0 / 1024, 1024));
    c.Declare("hostQueueSize",
              C::SIZE,
              "1000000p",
              "host NIC buffer. Linux hosts do not drop their own packets (TCP small queues "
              "push back on the socket); ns-3 has no such feedback, so the default is large");
    c.Declare("portScheduling",
              C::CHOICE,
              "dwrr",
              "port queues: dwrr = training class (strict tensor bands) and best-effort class "
              "(untagged background) sharing each link by DWRR, as a data-center switch runs; "
              "strict = one strict-priority order, untagged traffic in untaggedBand",
              "dwrr,strict");
    c.Declare("trainingWeight",
              C::UINT,
              "1",
              "dwrr: weight of the training class (link share trainingWeight / (trainingWeight "
              "+ bestEffortWeight) while both classes have packets; an idle class gets nothing)",
              C::Between(1, 1000));
    c.Declare("bestEffortWeight",
              C::UINT,
              "1",
              "dwrr: weight of the best-effort class (untagged background traffic)",
              C::Between(1, 1000));
    c.Declare("bandScheduling",
              C::CHOICE,
              "strict",
              "between tensor bands (inside the training class under portScheduling=dwrr): "
              "strict = the most urgent non-empty band first (a busy band can starve the "
              "others); dwrr = bands below strictBands first, the others share the link by DWRR "
              "with bandWeights (doc/talb-switch.rst, 'Band scheduling')",
              "strict,dwrr");
    c.Declare("strictBands",
              C::UINT,
              "1",
              "bandScheduling=dwrr: bands 0..strictBands-1 are served strictly first (band 0 "
              "carries ACKs and CNPs)",
              C::Between(0, TALB_NUM_PRIORITIES));
    c.Declare("bandWeights",
              C::STRING,
              "1,1,1,1,1,1,1,1",
              "bandScheduling=dwrr: DWRR weight of each band 0..7, 1..1000 each (a strict band's "
              "is unused)");
    c.Declare("untaggedBand",
              C::UINT,
              "0",
              "strict: queue band (0 = served first .. 7) of untagged traffic (background "
              "flows); dwrr: the band PFC accounts the best-effort class in. Tensor packets use "
              "the band of their priority",
              C::Between(0, TALB_NUM_PRIORITIES - 1));
    c.Declare("bestEffortBuffer",
              C::SIZE,
              "",
              "most bytes the best-effort class (untagged background) may hold of a switch "
              "port's buffer, e.g. 300KB; more is dropped (empty: no cap, the whole buffer)");
    c.Declare("ecnThreshold",
              C::SIZE,
              "",
              "ECN marking threshold per port, e.g. 200KB (empty: helper default)");
    c.Declare("pushOut",
              C::BOOL,
              "false",
              "a packet that finds its switch port full drops the oldest queued packets of "
              "lower bands instead, the lowest band first, where they make room (pFabric's "
              "drop rule by band; counted in device_drops_by_priority under the dropped "
              "packets' priorities). Lossy ports only: transport tcp, no sharedBuffer; false: "
              "drop-tail");
}

/// FABRIC: asymmetric, failing and flapping links; stock routing.
void
DeclareLinkEvents(TalbScenarioConfig& c)
{
    c.Declare("linkRates",
              C::STRING,
              "",
              "asymmetric fabric: leaf:spine=rate overrides, ';'-separated, e.g. 0:1=2.5Gbps");
    c.Declare("failLink",
              C::STRING,
              "",
              "leaf-spine links that fail, leaf:spine@time, ';'-separated, e.g. 0:1@5ms");
    c.Declare("failDetect",
              C::TIME,
              "0s",
              "time from a failLink or flapLink failure to the switches taking the link out of "
              "their routes (a control plane's detection and convergence, e.g. 10ms); until "
              "then the balancers see the port up and what they send into it is lost (a "
              "blackhole; run.json's failed_link_drops). 0s: at once");
    c.Declare("flapLink",
              C::STRING,
              "",
              "leaf-spine links that flap, leaf:spine@start/down/up, ';'-separated: down at "
              "start for down, then up for up, repeated (e.g. 1:0@350ms/20ms/80ms)");
    c.Declare("linkLoss",
              C::STRING,
              "",
              "leaf-spine links that lose packets at random, leaf:spine=probability, "
              "';'-separated: each packet in each direction is lost with that probability, "
              "as a corrupt frame (a gray failure, a flaky optic; HPCC's error rate), e.g. "
              "0:1=0.01");
    c.Declare("stockRouting",
              C::BOOL,
              "false",
              "switches use ns-3's IPv4 stack with Ipv4GlobalRouting ECMP instead of TalbSwitch "
              "(for speed comparisons; lb is then ignored)");
}

/// The BALANCERS group.
void
DeclareBalancers(TalbScenarioConfig& c)
{
    c.Declare("lb",
              C::NAMES,
              "ecmp,talb",
              "load balancers to compare, comma-separated; one run each",
              TalbLoadBalancer::GetRegistry());
    c.Declare("lbAttributes",
              C::STRING,
              "",
              "attributes of the load balancer, Name=Value;... (applied to every lb that has "
              "them), e.g. HighPriorityThreshold=3");
    using Hosts = TalbBalancerSpec::HostTransport;
    auto profile = [](const Hosts& hosts) {
        return TalbAttributeList::ToText(
            TalbBalancerSpec::TransportProfile(hosts, TalbBalancerSpec::Jobs()));
    };
    // What an LLM job adds to the TCP profile.
    auto llmAdds = [] {
        TalbBalancerSpec::Jobs llm;
        llm.llm = true;
        auto with = TalbBalancerSpec::TransportProfile(Hosts::Tcp(), llm);
        auto without = TalbBalancerSpec::TransportProfile(Hosts::Tcp(), TalbBalancerSpec::Jobs());
        return TalbAttributeList::ToText({with.begin() + without.size(), with.end()});
    };
    c.Declare("lbProfile",
              C::CHOICE,
              "transport",
              "balancer settings applied before lbAttributes: transport, those measured best for "
              "the hosts' transport (rdma: TaLB with " +
                  profile(Hosts::GoBackN()) + "; rdma with rdmaRecovery=sr: TaLB with " +
                  profile(Hosts::SelectiveRepeat()) + "; spray: TaLB with " +
                  profile(Hosts::Spray()) +
                  "; rdma with rdmaQpsPerConnection > 1 and rdmaSharedSourcePort=false adds "
                  "RateKey=HostPair; tcp: TaLB with " +
                  profile(Hosts::Tcp()) + ", adding " + llmAdds() +
                  " where a job is an LLM job: the generator's, an AICB workload or a Chakra "
                  "trace); none, the attribute defaults",
              "transport,none");
    c.Declare("lbRulesOff",
              C::STRING,
              "",
              "TaLB rules of the defaults to turn off, comma-separated (the ablation of "
              "doc/talb-evaluation.rst): applied over lbProfile, under lbAttributes, which may "
              "not set the same attributes; a rule the defaults do not have on for the "
              "transport changes nothing. Rules: " +
                  TalbBalancerRule::Describe());
}

/// The HOSTS group.
void
DeclareHosts(TalbScenarioConfig& c)
{
    c.Declare("tcp", C::CHOICE, "newreno", "TCP congestion control of the hosts", "newreno,dctcp");
    c.Declare("sndBuf",
              C::UINT,
              HostConfigDefault("SndBufSize"),
              "TCP send buffer of the hosts in bytes (default: Linux's tcp_wmem maximum; larger "
              "windows can overflow a switch port)",
              C::Between(65536, 1e9));
    c.Declare("rcvBuf",
              C::UINT,
              HostConfigDefault("RcvBufSize"),
              "TCP receive buffer of the hosts in bytes (default: Linux's tcp_rmem maximum)",
              C::Between(65536, 1e9));
    c.Declare("minRto",
              C::TIME,
              HostConfigDefault("MinRto"),
              "tcp: the hosts' minimum retransmission timeout (Linux: rto_min, a route's "
              "option; data centres set milliseconds or less). The RTO is the larger of this and "
              "srtt + 4 rttvar, so in a fabric of microsecond RTTs a lost retransmission or tail "
              "costs about this much. Above the hosts' delayed-ACK timeout, at most 1s");
    c.Declare("hostQdisc",
              C::CHOICE,
              HostConfigDefault("Qdisc"),
              "host NIC queueing inside each priority band: fifo, or fq = per-flow deficit round "
              "robin, as Linux's fq qdisc shares a host's link evenly among its connections "
              "(tcp transport only)",
              "fifo,fq");
}

/// \return the default of TalbRdmaTransport's attribute \p name, as its checker writes it
std::string
RdmaAttributeDefault(const std::string& name)
{
    return TalbAttributeList::DefaultOf(TalbRdmaTransport::GetTypeId(), name);
}

/// The TRANSPORT group's path options: RDMA's queue-pair scaling, PLB (RDMA and TCP), and TCP's
/// slow start after idle.
void
DeclareRdmaPaths(TalbScenarioConfig& c)
{
    c.Declare("rdmaQpsPerConnection",
              C::UINT,
              RdmaAttributeDefault("QueuePairsPerConnection"),
              "rdma: queue pairs per connection lane (with perPriority, per priority), each with "
              "its own QP number and UDP source port, a connection's messages round-robin over "
              "them (NCCL_IB_QPS_PER_CONNECTION); 1: one. A job's trans.QueuePairsPerConnection "
              "overrides it",
              C::Between(1, 64));
    c.Declare("rdmaSharedSourcePort",
              C::BOOL,
              RdmaAttributeDefault("SharedSourcePort"),
              "rdma: every queue pair of a connection sends with the UDP source port of its first "
              "(a NIC whose entropy is per connection): ecmp then keeps a connection's queue "
              "pairs on one path and only eecmp, hashing the destination QP, spreads them");
    c.Declare("rdmaSplitMessages",
              C::BOOL,
              RdmaAttributeDefault("SplitMessages"),
              "rdma: cut each message into rdmaQpsPerConnection equal SENDs, one per queue pair "
              "(NCCL_IB_SPLIT_DATA_ON_QPS=1), so that even one message in flight spreads; "
              "false: whole messages round-robin");
    c.Declare("plb",
              C::BOOL,
              RdmaAttributeDefault("Plb"),
              "rdma: PLB, a queue pair takes a new UDP source port (a new path) after plbRounds "
              "rounds in a row whose CNP-estimated marked fraction exceeded plbMarkFraction "
              "(repaths: run.json's rdma_plb_repaths); tcp (needs tcp=dctcp): a connection takes "
              "a new flow label (IPv6's, which the switches hash with the 5-tuple) when idle after "
              "plbRounds congested rounds, or at once after plbForceRounds, a round being DCTCP's "
              "observation window, as Linux's TCP PLB (repaths: run.json's tcp_plb_repaths)");
    c.Declare("plbRounds",
              C::UINT,
              RdmaAttributeDefault("PlbRounds"),
              "rdma, tcp: PLB's congested rounds in a row before a repath (the PLB paper's and "
              "Linux's 3; on tcp a repath then waits for the connection to be idle)",
              C::Between(1, 1000));
    c.Declare("plbForceRounds",
              C::UINT,
              TcpAttributeDefault("PlbForceRounds"),
              "tcp: PLB's congested rounds in a row after which a connection repaths even with "
              "segments in flight (Linux's tcp_plb_rehash_rounds 12); at least plbRounds",
              C::Between(1, 1000));
    c.Declare("plbMarkFraction",
              C::DOUBLE,
              RdmaAttributeDefault("PlbMarkFraction"),
              "rdma, tcp: PLB's threshold, a round is congested when more than this fraction of it "
              "was marked (the PLB paper's 0.5); rdma: the fraction is CNPs x CnpInterval / "
              "plbRound; tcp: bytes acknowledged with ECN echo",
              C::Between(0, 0.999));
    c.Declare("plbRound",
              C::TIME,
              RdmaAttributeDefault("PlbRound"),
              "rdma: PLB's round, about one round-trip time under load and at least the NICs' "
              "CNP interval (50us)");
    c.Declare("slowStartAfterIdle",
              C::BOOL,
              TcpAttributeDefault("SlowStartAfterIdle"),
              "tcp: a connection that sends again after more than one RTO without sending "
              "restarts its congestion window (halved per RTO idle, down to the initial window; "
              "ssthresh raised to 3/4 of the old window), as Linux's "
              "net.ipv4.tcp_slow_start_after_idle, which is on there; off here, as the "
              "evaluation's TCP tables were measured (restarts: run.json's tcp_idle_restarts)");
    c.Declare("adaptiveReordering",
              C::BOOL,
              TcpAttributeDefault("AdaptiveReordering"),
              "tcp: a sender's duplicate-ACK threshold (ns-3's fixed 3) rises to the reordering "
              "it has seen, up to maxReordering segments, as Linux's tp->reordering: a segment "
              "never retransmitted that arrives below the highest SACKed one, or a retransmitted "
              "one acknowledged sooner than the minimum RTT, raises it; a timeout with SACKed "
              "segments waiting resets it (raises: run.json's tcp_reordering_raises). Off here, "
              "as the evaluation's TCP tables were measured");
    c.Declare("maxReordering",
              C::UINT,
              TcpAttributeDefault("MaxReordering"),
              "tcp, adaptiveReordering: the highest duplicate-ACK threshold in segments (Linux's "
              "net.ipv4.tcp_max_reordering); at least ns3::TcpSocketBase::ReTxThreshold",
              C::Between(1, 1u << 20));
    c.Declare("rackTlp",
              C::BOOL,
              TcpAttributeDefault("RackTlp"),
              "tcp: senders detect losses as Linux's RACK-TLP: with data in flight and no ACK "
              "for 2 SRTT + tlpDelay a sender sends a tail loss probe (a new segment, else its "
              "highest one again) whose ACK starts fast recovery for what was sent before it, "
              "and the first unacknowledged segment, or its retransmission, is lost once a "
              "segment sent later has arrived. Without it a lost tail or a lost retransmission "
              "waits for the RTO (minRto) and restarts from one segment (run.json's "
              "tcp_loss_probes, tcp_probe_losses, tcp_rack_losses). Off here, as the "
              "evaluation's TCP tables were measured");
    c.Declare("tlpDelay",
              C::TIME,
              TcpAttributeDefault("TlpDelay"),
              "tcp, rackTlp: the probe timeout beyond twice the smoothed RTT (Linux's "
              "TCP_TIMEOUT_MIN_US, 2ms); with one segment in flight the minimum RTO instead");
}

/// The TRANSPORT group.
void
DeclareTransport(TalbScenarioConfig& c)
{
    c.Declare("transport",
              C::NAME,
              "tcp",
              "how the jobs' collectives move their messages (unless a job says)",
              TalbTransport::GetRegistry());
    c.Declare("rdmaQueuePairs",
              C::CHOICE,
              RdmaTransportDefault("QueuePairs"),
              "rdma: queue pairs per connection: perPriority = one per tensor priority (a "
              "message is one SEND per run of parts of one priority), single = one (messages "
              "in order). A job's trans.QueuePairs overrides it",
              "perPriority,single");
    c.Declare("rdmaTrafficClass",
              C::CHOICE,
              RdmaTransportDefault("TrafficClass"),
              "rdma: traffic class (DSCP, switch band, PFC priority) of the jobs' packets: "
              "tensor = each packet's from its tensor's priority (with single, a queue pair's "
              "packets change band and strict priority reorders them: NAKs); 0-7 = that one "
              "class for every queue pair, as NCCL_IB_TC sets it, the TaLB option still carrying "
              "each tensor's priority to the balancers (the switches band by DSCP). A job's "
              "trans.TrafficClass/trans.FixedClass override it",
              "tensor,0,1,2,3,4,5,6,7");
    c.Declare("rdmaRecovery",
              C::CHOICE,
              "gbn",
              "rdma, spray: how the NICs' queue pairs recover lost packets: gbn = go-back-N "
              "(RoCEv2: a packet that arrives early is dropped, everything from the first "
              "missing one is sent again), sr = selective repeat (IRN-style: packets placed in "
              "any order, only missing ones sent again, a BDP-sized window; lossy fabrics work "
              "with rdmaPfc=false). spray always uses sr",
              "gbn,sr");
    c.Declare("rdmaCc",
              C::NAME,
              "dcqcn",
              "rdma, spray: the NICs' congestion control: dcqcn = DCQCN (ECN marks, CNPs), "
              "timely = TIMELY (round-trip times, no switch feedback; its ns3::TalbTimely "
              "attributes: doc/talb-transport.rst), hpcc = HPCC (in-band telemetry stamped by "
              "every switch port, echoed per packet; a window and rate from the busiest hop's "
              "utilisation; BaseRtt set from the fabric; ns3::TalbHpcc attributes), none = "
              "line rate, PFC alone",
              TalbRdmaRateControl::GetRegistry());
    c.Declare("sprayPolicy",
              C::NAME,
              "reps",
              "spray: the hosts' entropy policy, which gives each packet the UDP source port "
              "the switches hash: oblivious = a fresh random one per packet, reps = REPS "
              "(recycle the entropies acknowledged without ECN marks, explore when none, "
              "avoid those whose packets were lost)",
              TalbEntropyPolicy::GetRegistry());
    c.Declare("rdmaPfc",
              C::BOOL,
              "true",
              "rdma, spray: priority flow control on the switches; false: lossy, drop-tail "
              "(use rdmaRecovery=sr: go-back-N recovers losses poorly)");
    DeclareRdmaPaths(c);
}

/// The TRAINING group.
void
DeclareTraining(TalbScenarioConfig& c)
{
    c.Declare(
        "jobs",
        C::STRING,
        "workers=8,scheduler=fusion",
        "training jobs, ';'-separated, each key=value,...: model (default: the model "
        "parameter), workers, scheduler (" +
            TalbCommScheduler::GetRegistry().GetNames() + "), collective (" +
            TalbCollective::GetRegistry().GetNames() + "), transport, iterations, batch, " +
            "device, precision, start (time), sched.<Attribute>, coll.<Attribute>, " +
            "trans.<Attribute>. LLM jobs (model=" + JoinNames(talb::graph::LlmModelPresetNames()) +
            ", device " + JoinNames(talb::graph::LlmDevicePresetNames()) +
            " (default h100-sxm), precision bf16 (default) or fp8) and collective "
            "benchmarks (coll=) take: " +
            TalbGraphJobSpec::KeysHelp());
    c.Declare("model",
              C::STRING,
              "resnet50",
              "model of jobs that name none: a zoo name (alexnet, vgg19, resnet50) or a model "
              "file, PATH or PATH#MODEL");
    c.Declare("placement", C::CHOICE, "spread", "how jobs are placed on racks", "spread,packed");
    c.Declare("iterations",
              C::UINT,
              "3",
              "training iterations per job (unless a job says)",
              C::Between(1, 1e6));
    c.Declare("warmup",
              C::UINT,
              "1",
              "first iterations left out of the printed mean iteration time (CSVs hold all)",
              C::Between(0, 1e6));
    c.Declare("controlDelay",
              C::TIME,
              "0s",
              "latency of each job's agreement between its workers: a tensor's all-reduce "
              "starts this long after its gradient is ready on the last worker, and the "
              "scheduler learns an operation finished this long after its last worker (0: "
              "instantaneous). Under mpirun a job whose workers span ranks needs at least "
              "linkDelay");
    c.Declare("batch",
              C::UINT,
              "32",
              "samples per worker per iteration (unless a job says)",
              C::Between(1, 1e6));
    c.Declare("device",
              C::STRING,
              "V100-FP32",
              "compute-rate preset (" + TalbComputeModel::PresetNames() + ")");
    c.Declare("precision", C::CHOICE, "fp32", "gradient element type", "fp32,fp16");
}

/// The BACKGROUND group.
void
DeclareBackground(TalbScenarioConfig& c)
{
    c.Declare("bgLoad",
              C::DOUBLE,
              "0.1",
              "background load per host as a fraction of hostRate (0: none)",
              C::Between(0, 1, true));
    c.Declare("bgCdf",
              C::STRING,
              "websearch",
              "background flow sizes: websearch, datamining or a CDF file (size percent lines)");
    c.Declare("bgArrivals",
              C::TIME,
              "0s",
              "background flows arrive during this first stretch only; the run then drains: it "
              "ends once every background flow that started has finished, and every job, with "
              "stopTime as the safety limit (as HPCC's and ConWeave's experiments run). 0s: "
              "arrivals go on until the jobs are done, which end the run");
    c.Declare("bgWarmup",
              C::TIME,
              "0s",
              "background flows that start before this are left out of the table, run.json's "
              "figures and the slowdown table (flows.csv keeps them)");
    c.Declare("flowFile",
              C::STRING,
              "",
              "HPCC/ConWeave flow file (first line the count, then SRC DST PG DPORT SIZE START "
              "per flow: node ids, priority group, port, bytes, seconds): its flows run as "
              "background flows in place of bgLoad's, and the run ends once every one of them "
              "and every job finished; node ids are topologyFile's, else host indices");
}

/// The RUN group.
void
DeclareRun(TalbScenarioConfig& c)
{
    c.Declare("seed", C::UINT, "1", "run number of ns-3's RNG (RngRun)");
    c.Declare("duration",
              C::TIME,
              "0s",
              "stop after this simulated time (0s: once every job finished its iterations, or "
              "every flow its bytes)");
    c.Declare("stopTime",
              C::TIME,
              "60s",
              "safety limit on simulated time; a run stopped here is reported incomplete");
    c.Declare("progress", C::BOOL, "true", "print simulated-time progress every wall second");
    c.Declare("fctTxt",
              C::BOOL,
              "false",
              "also write fct.txt: the flows in HPCC's format (hexadecimal IPs, ports, size, "
              "start, FCT, ideal FCT in ns; no header), for HPCC's and ConWeave's FCT scripts");
    c.Declare("pathsCsv",
              C::BOOL,
              "false",
              "also write paths.csv: every stay of a flow on a switch port as the load "
              "balancers chose it (switch, port, next hop, the flow's addresses and ports, "
              "tensor, priority, first and last packet, packets, bytes); per-packet schemes "
              "write about a row per packet");
    c.Declare("out",
              C::STRING,
              "results/run",
              "output folder (one subfolder per lb when several are compared)");
}

} // namespace

void
TalbScenarioParameters::Declare(TalbScenarioConfig& config)
{
    for (Group g : {FABRIC, BALANCERS, HOSTS, TRANSPORT, TRAINING, BACKGROUND, RUN})
    {
        Declare(config, g);
    }
}

void
TalbScenarioParameters::Declare(TalbScenarioConfig& config, Group group)
{
    switch (group)
    {
    case FABRIC:
        DeclareTopology(config);
        DeclareServers(config);
        DeclarePorts(config);
        DeclareLinkEvents(config);
        return;
    case BALANCERS:
        DeclareBalancers(config);
        return;
    case HOSTS:
        DeclareHosts(config);
        return;
    case TRANSPORT:
        DeclareTransport(config);
        return;
    case TRAINING:
        DeclareTraining(config);
        return;
    case BACKGROUND:
        DeclareBackground(config);
        return;
    case RUN:
        DeclareRun(config);
        return;
    }
}

void
TalbScenarioParameters::Declare(TalbScenarioConfig& config, const std::vector<std::string>& names)
{
    TalbScenarioConfig all;
    Declare(all);
    for (const auto& name : names)
    {
        NS_ABORT_MSG_UNLESS(all.Has(name), "TalbScenarioParameters: no parameter '" << name << "'");
        config.Declare(all, name);
    }
}

} // namespace ns3
