/*
 * talb-switch's per-packet logic, free of DPDK: parse the frame, look the destination up in the
 * route table, read the TaLB label (the IPv4 option, or the DSCP only), let the decision core
 * choose among the route's live ports, classify into a priority band and queue the packet on
 * the chosen port (marking it CE when the queue says so). Frames are forwarded as they are:
 * no MAC rewrite, no TTL change, like the simulator's device-level switch.
 *
 * Fail-open: an IPv4 packet whose options or headers are malformed is still routed when its
 * destination can be read, unlabelled; only frames that are not IPv4, or have no route, are
 * dropped (and counted).
 */
#ifndef TALB_SWITCH_PIPELINE_H
#define TALB_SWITCH_PIPELINE_H

#include "talb-packet-view.h"
#include "talb-route-table.h"
#include "talb-switch-config.h"
#include "talb-switch-policy.h"
#include "talb-switch-port.h"

#include <cstdint>
#include <string>
#include <vector>

namespace talb
{

/// Where the label a policy sees comes from.
enum class LabelSource
{
    kOption, ///< the TaLB IPv4 option: tensor id, priority, FIRST/LAST
    kDscp,   ///< the DSCP alone (switches behind DSCP-only agents): priority, tensor id 0
};

struct PipelineConfig
{
    LabelSource labels = LabelSource::kOption;
    uint8_t controlBand = 0;                        ///< TCP without payload and no TaLB DSCP
    uint8_t untaggedBand = TALB_NUM_PRIORITIES - 1; ///< everything else without a priority
    EgressConfig egress;                            ///< defaults for ports the config leaves
    uint64_t lineRateBps = 10000000000ull;          ///< DRE capacity of unshaped ports
    uint32_t shaperBurstUs = 500;                   ///< a shaped port's bucket depth, in time
    uint32_t maxFrameBytes = 1522;                  ///< the bucket holds at least 4 of these
};

/**
 * Identities (asserted by the tests):
 *   rx = queued + notIpv4 + noRoute + queueDrops
 *   queued = labelled + unlabelled
 * malformed counts routed packets whose label could not be read (they are in unlabelled).
 */
struct PipelineCounters
{
    uint64_t rx = 0;
    uint64_t queued = 0;
    uint64_t labelled = 0;
    uint64_t unlabelled = 0;
    uint64_t malformed = 0;
    uint64_t notIpv4 = 0;
    uint64_t noRoute = 0; ///< no route, or every port of the route down
    uint64_t queueDrops = 0;
    uint64_t marked = 0;
    uint64_t selections = 0; ///< decisions among two or more live ports
    uint64_t reroutes = 0;   ///< flows, flowlets or tensors that changed port
    uint64_t evictions = 0;  ///< live TaLB entries evicted for lack of space
};

class SwitchPipeline : public lb::Events
{
  public:
    /**
     * Sets up the ports (queues, shapers, DREs; the only allocations), the route table and the
     * policy. \p ports has config.ports.size() entries and outlives the pipeline.
     * \return false with *error naming what is wrong
     */
    bool Init(const SwitchConfig& config,
              const PipelineConfig& pipeline,
              const PolicyOptions& policy,
              SwitchPort* ports,
              std::string* error);

    /**
     * Forwards one frame: decides its port and queues \p item (the caller's handle of the
     * frame) there. The frame may be edited in place (ECN CE).
     * \return the port it was queued on, or -1: dropped, the caller frees the item
     */
    int Forward(uint8_t* frame, uint32_t len, void* item, int64_t nowNs);

    const PipelineCounters& Counters() const
    {
        return m_counters;
    }

    /// \return the policy that decides
    const lb::Policy& Policy() const
    {
        return m_policy.Main();
    }

    /// \return the deciding policy's table statistics at \p nowNs ("" when it keeps none)
    std::string PolicyReport(int64_t nowNs) const
    {
        return m_policy.Report(nowNs);
    }

    uint32_t NPorts() const
    {
        return m_nPorts;
    }

    void Rerouted(const lb::PacketInfo& packet, uint32_t from, uint32_t to) override;
    void Evicted(uint32_t flowHash, uint32_t tensorId) override;

  private:
    struct Route
    {
        uint32_t ports[kMaxSwitchPorts];
        uint32_t count;
        uint32_t leaf;
        uint32_t hostPort; ///< kNoHostPort unless the route names it
    };

    /// What Forward() reads of a packet besides its label, for the flow hash and the band.
    struct Headers
    {
        uint32_t ports{0};       ///< source port << 16 | destination port (TCP, UDP; else 0)
        uint8_t tos{0};          ///< IPv4 TOS byte
        int dscpPriority{-1};    ///< the TaLB priority of its DSCP, or -1
        bool pureControl{false}; ///< a TCP segment without payload
    };

    /// \return the route's ports that are up, copied to \p live (kMaxSwitchPorts)
    uint32_t LivePorts(const Route& route, uint32_t* live) const;
    /**
     * Reads the packet at \p l3 of \p frame: its size, ports, go-back-N flag and label into
     * \p info. \p view: its parsed headers (null: malformed, routed unlabelled); \p tcp: TCP.
     */
    Headers ReadHeaders(const uint8_t* frame,
                        uint32_t len,
                        uint32_t l3,
                        const PacketView* view,
                        bool tcp,
                        lb::PacketInfo* info);
    /// Queues \p item on port \p out in its band, marking CE when told. \return \p out, or -1
    int Queue(uint8_t* frame,
              uint32_t len,
              void* item,
              uint32_t l3,
              uint32_t out,
              const lb::PacketInfo& info,
              const Headers& h);

    PipelineConfig m_config;
    SwitchPort* m_ports{nullptr};
    uint32_t m_nPorts{0};
    SwitchPortView m_view;
    SwitchEcnView m_ecnView; ///< Hermes's sensing
    RouteTable m_table;
    std::vector<Route> m_routes;
    bool m_needSrcLeaf{false};
    PolicySet m_policy;
    PipelineCounters m_counters;
};

} // namespace talb

#endif /* TALB_SWITCH_PIPELINE_H */
