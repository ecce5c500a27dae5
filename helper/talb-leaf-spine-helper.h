#ifndef TALB_LEAF_SPINE_HELPER_H
#define TALB_LEAF_SPINE_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue-size.h"
#include "ns3/talb-link-drop-record.h"
#include "ns3/talb-load-balancer.h"
#include "ns3/talb-priority-queue.h"
#include "ns3/talb-rdma-helper.h"
#include "ns3/talb-server-layout.h"
#include "ns3/talb-switch.h"
#include "ns3/traced-callback.h"

#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief Builds a two-tier leaf-spine fabric of TaLB switches and hosts.
 *
 * Install() creates the hosts (node ids first), the leaves and the spines; point-to-point links
 * host-leaf (HostRate) and leaf-spine (FabricRate, or a per-link override); a TalbPriorityQueue
 * as every device's transmit queue; the hosts' transport; and on each switch a TalbSwitch (no
 * IPv4 stack) with the chosen load balancer and precomputed forwarding tables.
 *
 * Transport "tcp" (the default): ns-3's PointToPointNetDevice on every link, and on each host
 * ns-3's IPv4/TCP/UDP stack, static routing and a TalbHostEgressHook. Transport "rdma": a
 * TalbPfcNetDevice on every link (device MTU: the RDMA payload MTU plus RoCEv2 headers), on each
 * host a TalbRdmaNic and no IP stack, on each switch PFC (TalbPfc) and the RED-like ECN profile
 * of DCQCN, all as GetRdmaHelper() says; every switch queue is then at least as large as the
 * lossless bytes PFC can let in, so lossless priorities are never dropped at an egress.
 *
 * Hosts: host i has address FirstHostAddress + i (mask /8 or wider as needed, all hosts on-link,
 * default route to the leaf) and sits under leaf i / HostsPerLeaf, unless servers are wired in
 * rails (below). The contract for traffic
 * generators: with TCP, GetHosts() are nodes with full IPv4/TCP stacks; with RDMA, nodes with a
 * TalbRdmaNic (GetRdmaNic()); GetHostAddress(i) their addresses.
 *
 * With StockRouting the switches instead get ns-3's full IPv4 stack with Ipv4GlobalRouting and
 * RandomEcmpRouting (every link its own /30 subnet), for comparisons with stock ns-3.
 *
 * Ranks (ns-3's distributed simulator): with Ranks N > 1, leaf l and its hosts belong to rank
 * l x N / Leaves (contiguous blocks of leaves) and spine s to rank s mod N; every rank builds the
 * whole fabric (same node ids), and in an MPI build (NS3_MPI) a link whose ends are not both on
 * this process's rank becomes a PointToPointRemoteChannel. Only Transport tcp with TalbSwitch
 * forwarding can be partitioned.
 *
 * GPU servers (GpusPerServer G > 1): every host is one GPU with its own NIC, and a server is G
 * consecutive hosts (GetServerLayout()). Its NICs sit under one leaf (RailOptimized false; G
 * divides HostsPerLeaf) or, rail-optimized, NIC i of every server of a rail group of G leaves
 * on leaf i of the group (G divides Leaves); TalbServerLayout says which. Each host then also
 * carries a TalbNvlinkPort (NvlinkRate, NvlinkLatency): the server's intra-server
 * interconnect, which TalbNvlinkTransport uses between GPUs of one server (never the fabric).
 * With G = 1 (the default) the fabric is the one without servers.
 *
 * Leaf port layout: ports 0 .. HostsPerLeaf-1 lead to the leaf's hosts (port p to
 * GetServerLayout().GetHostAt(leaf, p)), port HostsPerLeaf + s to spine s. Spine port l leads
 * to leaf l.
 */
class TalbLeafSpineHelper : public Object
{
  public:
    static TypeId GetTypeId();
    TalbLeafSpineHelper();
    ~TalbLeafSpineHelper() override;

    /**
     * Choose the switches' path selector by short name (ecmp, rps, letflow, drill, conga,
     * talb) or TypeId name, with attribute name/value pairs.
     */
    template <typename... Ts>
    void SetLoadBalancer(const std::string& name, Ts&&... args);

    /// Choose the switches' path selector by a ready factory (TypeId and attributes set).
    void SetLoadBalancerFactory(const ObjectFactory& factory);

    /// A rate override of one leaf-spine link: "leaf:spine=rate".
    struct LinkRate
    {
        uint32_t leaf{0};
        uint32_t spine{0};
        DataRate rate;
    };

    /// A failure of one leaf-spine link: "leaf:spine@time".
    struct LinkFailure
    {
        uint32_t leaf{0};
        uint32_t spine{0};
        Time at;
    };

    /// A flapping leaf-spine link: "leaf:spine@start/down/up".
    struct LinkFlap
    {
        uint32_t leaf{0};
        uint32_t spine{0};
        Time start; //!< first failure
        Time down;  //!< how long each failure lasts
        Time up;    //!< how long the link is up between failures
    };

    /// A leaf-spine link that loses packets at random: "leaf:spine=probability".
    struct LinkLoss
    {
        uint32_t leaf{0};
        uint32_t spine{0};
        double probability{0}; //!< of each packet, in each direction, [0, 1)
    };

    /**
     * Parse a ';'-separated list of "leaf:spine=probability" items (e.g. "0:1=0.01"), each
     * probability in [0, 1).
     * \return an empty string, or an error naming the bad item
     */
    static std::string ParseLinkLosses(const std::string& text, std::vector<LinkLoss>* out);
    /**
     * Parse a ';'-separated list of "leaf:spine=rate" items (e.g. "0:1=2.5Gbps;1:0=5Gbps").
     * \return an empty string, or an error naming the bad item
     */
    static std::string ParseLinkRates(const std::string& text, std::vector<LinkRate>* out);
    /**
     * Parse a ';'-separated list of "leaf:spine@time" items (e.g. "0:1@5ms").
     * \return an empty string, or an error naming the bad item
     */
    static std::string ParseLinkFailures(const std::string& text, std::vector<LinkFailure>* out);
    /**
     * Parse a ';'-separated list of "leaf:spine@start/down/up" items (e.g. "0:1@5ms/1ms/4ms":
     * down at 5 ms, up at 6 ms, down at 10 ms, ...); down and up must be > 0.
     * \return an empty string, or an error naming the bad item
     */
    static std::string ParseLinkFlaps(const std::string& text, std::vector<LinkFlap>* out);

    /// Override the rate of the link between \p leaf and \p spine (both directions).
    void SetLinkRate(uint32_t leaf, uint32_t spine, DataRate rate);
    /**
     * Fail the link between \p leaf and \p spine at time \p at: from then on it loses every
     * packet; the switches take it out of their routes FailureDetection later (at once by
     * default), and until then keep sending into it (a blackhole).
     */
    void SetLinkFailure(uint32_t leaf, uint32_t spine, Time at);
    /**
     * Make the link between \p leaf and \p spine lose each packet, in each direction, with
     * probability \p probability (a gray failure, or a flaky optic): the receiving device
     * drops it as corrupt. A failure of the link loses everything while it lasts; the loss
     * resumes when a flap brings the link back.
     */
    void SetLinkLoss(uint32_t leaf, uint32_t spine, double probability);
    /// \return packets the SetLinkLoss() links lost at random while up (both directions)
    uint64_t GetLinkLossDrops() const;
    /**
     * \return packets lost on failed (or flapped-down) links that were sent onto them, i.e.
     * reached the far end of a link while it was down (both directions; what a failure's
     * queue flush discards is not counted). With FailureDetection > 0 these include the
     * blackhole's: packets the switches kept routing to the link until they withdrew it.
     */
    uint64_t GetFailedLinkDrops() const;

    /// Signature of the LinkDrop trace source.
    typedef void (*LinkDropTracedCallback)(const TalbLinkDropRecord& drop);
    /**
     * Flap the link between \p leaf and \p spine: it fails at \p start (as SetLinkFailure:
     * queued and in-flight packets are lost), comes back \p down later with routes restored,
     * fails again \p up after that, and so on until the simulation stops.
     */
    void SetLinkFlap(uint32_t leaf, uint32_t spine, Time start, Time down, Time up);
    /**
     * Set FabricRate from an oversubscription ratio: HostsPerLeaf x HostRate / (Spines x
     * FabricRate) = \p ratio, with the values set when Install() runs.
     */
    void SetOversubscription(double ratio);

    /// \return the recipes of the RDMA parts (Transport "rdma"), to configure before Install
    Ptr<TalbRdmaHelper> GetRdmaHelper() const;

    /// Build the fabric. Call once.
    void Install();

    /**
     * Fix the random streams of the load balancers.
     * \return the number of streams used
     */
    int64_t AssignStreams(int64_t stream);

    uint32_t GetNHosts() const;
    NodeContainer GetHosts() const;
    Ptr<Node> GetHost(uint32_t i) const;
    Ipv4Address GetHostAddress(uint32_t i) const;
    uint32_t GetLeafOfHost(uint32_t i) const;
    /// \return which hosts are GPUs of which server, and their leaves and ports
    const TalbServerLayout& GetServerLayout() const;
    Ptr<NetDevice> GetHostDevice(uint32_t i) const;
    /// \return host \p i's RDMA NIC (null with Transport "tcp")
    Ptr<TalbRdmaNic> GetRdmaNic(uint32_t i) const;
    /// \return true when Transport is "rdma"
    bool IsRdma() const;
    /// \return the rank (MPI system id) of leaf \p leaf and its hosts (Ranks attribute)
    uint32_t GetLeafRank(uint32_t leaf) const;
    /// \return the Ranks attribute
    uint32_t GetRanks() const;

    Ptr<Node> GetLeafNode(uint32_t leaf) const;
    Ptr<Node> GetSpineNode(uint32_t spine) const;
    /// \return the leaf's TalbSwitch (null with StockRouting)
    Ptr<TalbSwitch> GetLeafSwitch(uint32_t leaf) const;
    /// \return the spine's TalbSwitch (null with StockRouting)
    Ptr<TalbSwitch> GetSpineSwitch(uint32_t spine) const;
    /// \return every TalbSwitch, the leaves' then the spines' (none with StockRouting)
    std::vector<Ptr<TalbSwitch>> GetSwitches() const;
    /// \return the leaf's device on its link to \p spine
    Ptr<NetDevice> GetUplinkDevice(uint32_t leaf, uint32_t spine) const;
    /// \return the spine's device on its link to \p leaf
    Ptr<NetDevice> GetDownlinkDevice(uint32_t spine, uint32_t leaf) const;
    /// \return the rate of the link between \p leaf and \p spine
    DataRate GetLinkRate(uint32_t leaf, uint32_t spine) const;
    /// \return the transmit queue of a fabric device \p dev (either transport), or null
    static Ptr<TalbPriorityQueue> GetPortQueue(Ptr<NetDevice> dev);
    /// \return false once the link between \p leaf and \p spine has failed
    bool IsLinkUp(uint32_t leaf, uint32_t spine) const;

    /**
     * Round-trip time of an unloaded path from host \p src to host \p dst: propagation both
     * ways, plus store-and-forward serialisation of a \p dataBytes packet on each forward link
     * and of an \p ackBytes packet on each reverse link (best spine for remote leaves).
     * Remembered per (src, dst, dataBytes, ackBytes) until a link fails or comes back: the
     * runner asks once per flow, millions of times in a large run.
     */
    Time GetBaseRtt(uint32_t src,
                    uint32_t dst,
                    uint32_t dataBytes = 1500,
                    uint32_t ackBytes = 64) const;
    /// \return the bottleneck rate of the best path from host \p src to host \p dst
    DataRate GetBottleneckRate(uint32_t src, uint32_t dst) const;

  protected:
    void DoDispose() override;

  private:
    void DoSetLoadBalancer(ObjectFactory factory);
    /// Install()'s checks of the attributes and link settings (aborts on a bad one); sets
    /// FabricRate from the oversubscription ratio.
    void CheckConfig();
    /// The hosts (node ids first), leaves and spines, each on its rank.
    void CreateNodes();
    /// The host-leaf and leaf-spine links.
    void ConnectLinks();
    /// Every host's TalbNvlinkPort (GpusPerServer > 1), after the hosts' addresses.
    void InstallNvlinkPorts();
    /// The link failures and flaps of SetLinkFailure() and SetLinkFlap().
    void ScheduleLinkEvents();
    void CheckInstalled(const char* method) const;
    uint32_t CheckHost(uint32_t i, const char* method) const;
    Ptr<NetDevice> GetLinkDevice(uint32_t leaf, uint32_t spine, bool leafSide) const;
    std::pair<Ptr<NetDevice>, Ptr<NetDevice>> Connect(Ptr<Node> a,
                                                      Ptr<Node> b,
                                                      DataRate rate,
                                                      QueueSize aQueue,
                                                      QueueSize bQueue);
    /// \return the IPv4 mask that puts every host address on-link
    Ipv4Mask HostPlanMask() const;
    void InstallHostStacks();
    void InstallRdmaHosts();
    /// PFC and queue sizes of an RDMA fabric's switch.
    void InstallSwitchPfc(Ptr<TalbSwitch> sw);
    /// With SharedBuffer: one TalbSharedBuffer for \p sw's queues and PFC (after its PFC).
    void InstallSwitchBuffer(Ptr<TalbSwitch> sw);
    void InstallStockSwitches();
    void InstallTalbSwitches();
    void ComputeRoutes();
    void FailLink(uint32_t leaf, uint32_t spine);
    /// Bring a failed link back: packets flow again and routes use it.
    void RestoreLink(uint32_t leaf, uint32_t spine);
    /// One cycle of flap \p i: fail now, restore after its down time, repeat after its up time.
    void FlapCycle(uint32_t i);
    /// \return best spine from \p srcLeaf to \p dstLeaf by bottleneck rate (UINT32_MAX: none)
    uint32_t BestSpine(uint32_t srcLeaf, uint32_t dstLeaf) const;

    // Attributes
    uint32_t m_nLeaves;
    uint32_t m_nSpines;
    uint32_t m_hostsPerLeaf;
    DataRate m_hostRate;
    DataRate m_fabricRate;
    Time m_linkDelay;
    QueueSize m_queueSize;
    QueueSize m_sharedBuffer; //!< SharedBuffer attribute (0: none)
    QueueSize m_hostQueueSize;
    QueueSize m_ecnThreshold;
    std::string m_tcpVariant;
    Ipv4Address m_firstHost;
    bool m_stockRouting;
    uint16_t m_mtu;

    /// Transport attribute
    enum Transport
    {
        TRANSPORT_TCP,
        TRANSPORT_RDMA
    } m_transport;

    uint32_t m_ranks;
    uint32_t m_gpusPerServer;
    bool m_railOptimized;
    DataRate m_nvlinkRate;
    Time m_nvlinkLatency;

    Ptr<TalbRdmaHelper> m_rdma;
    TalbServerLayout m_layout; //!< set by CheckConfig()

    double m_oversubscription;
    ObjectFactory m_lbFactory;
    std::map<std::pair<uint32_t, uint32_t>, DataRate> m_rateOverrides;
    std::vector<std::pair<std::pair<uint32_t, uint32_t>, Time>> m_failures;
    std::vector<LinkFlap> m_flaps;
    std::map<std::pair<uint32_t, uint32_t>, double> m_losses;
    /// Set the receive error models of link \p k's leaf-side and spine-side devices (null: none).
    void SetLinkErrorModels(uint32_t k, Ptr<ErrorModel> leafSide, Ptr<ErrorModel> spineSide);
    /// PhyRxDrop of a leaf-spine link's device: a random loss while the link is up, a failure's
    /// loss while it is down.
    static void CountLinkDrop(TalbLeafSpineHelper* self,
                              uint32_t k,
                              bool towardSpine,
                              Ptr<const Packet> p);
    TracedCallback<const TalbLinkDropRecord&> m_linkDropTrace; //!< LinkDrop trace source
    /// Take link \p k out of the switches' routes (the failure detected), unless it came back
    /// since the failure of epoch \p epoch.
    void WithdrawLink(uint32_t k, uint32_t epoch);
    /// [leaf * nSpines + spine]: the lossy links' error models (leaf side, spine side)
    std::map<uint32_t, std::pair<Ptr<RateErrorModel>, Ptr<RateErrorModel>>> m_lossModels;
    uint64_t m_lossDrops{0};
    uint64_t m_failedDrops{0};
    Time m_failureDetection; //!< FailureDetection attribute
    /// [leaf * nSpines + spine]: failures and restorations so far (a withdrawal scheduled for
    /// one failure is void once the link came back)
    std::vector<uint32_t> m_linkEpoch;

    bool m_installed;
    NodeContainer m_hosts;
    NodeContainer m_leaves;
    NodeContainer m_spines;
    std::vector<Ptr<NetDevice>> m_hostDevices;
    std::vector<Ipv4Address> m_hostAddresses;
    /// [leaf * nSpines + spine]: (leaf-side device, spine-side device)
    std::vector<std::pair<Ptr<NetDevice>, Ptr<NetDevice>>> m_links;
    std::vector<bool> m_linkUp;
    /// GetBaseRtt's and GetBottleneckRate's answers while every link keeps its state.
    mutable std::unordered_map<uint64_t, Time> m_baseRttMemo;
    mutable std::unordered_map<uint64_t, DataRate> m_bottleneckMemo;
    std::vector<Ptr<TalbSwitch>> m_leafSwitches;
    std::vector<Ptr<TalbSwitch>> m_spineSwitches;
};

template <typename... Ts>
void
TalbLeafSpineHelper::SetLoadBalancer(const std::string& name, Ts&&... args)
{
    DoSetLoadBalancer(ObjectFactory(TalbLoadBalancer::GetRegistry().Get(name).GetName(),
                                    std::forward<Ts>(args)...));
}

} // namespace ns3

#endif /* TALB_LEAF_SPINE_HELPER_H */
