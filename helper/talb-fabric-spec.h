#ifndef TALB_FABRIC_SPEC_H
#define TALB_FABRIC_SPEC_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/talb-leaf-spine-helper.h"
#include "ns3/talb-scenario-config.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief The leaf-spine fabric and its hosts' network stack as the scenario parameters describe
 * them (TalbScenarioParameters' FABRIC and HOSTS groups): read once, checked, then built.
 *
 * Every talb program that simulates a fabric (talb-scenario, talb-leaf-spine, talb-training,
 * talb-sim-bench) declares these parameters through TalbScenarioParameters and builds through
 * this struct, so a parameter has one meaning and one default in all of them.
 */
struct TalbFabricSpec
{
    uint32_t leaves{0};
    uint32_t spines{0};
    uint32_t hostsPerLeaf{0};
    DataRate hostRate;
    DataRate fabricRate;
    double oversubscription{0}; //!< 0: use fabricRate
    Time linkDelay;
    uint32_t mtu{0};
    std::string queueSize;          //!< empty: the helper's default
    std::string sharedBuffer{"0B"}; //!< per switch; 0: per-port buffers only
    double bufferAlpha{1.0};        //!< TalbSharedBuffer Alpha
    double pfcAlpha{0.125};         //!< TalbSharedBuffer PfcAlpha
    std::string hostQueueSize;
    uint32_t untaggedBand{0};
    bool dwrr{true};                            //!< port queues: DWRR classes (false: strict bands)
    uint32_t trainingWeight{1};                 //!< DWRR weight of the training class
    uint32_t bestEffortWeight{1};               //!< DWRR weight of the best-effort class
    bool dwrrBands{false};                      //!< tensor bands by DWRR (false: strict)
    uint32_t strictBands{1};                    //!< dwrrBands: bands served strictly first
    std::string bandWeights{"1,1,1,1,1,1,1,1"}; //!< dwrrBands: DWRR weight per band
    uint32_t bestEffortBuffer{0}; //!< bytes best effort may hold per switch port (0: all)
    bool pushOut{false};          //!< switch ports push out lower bands (PushOut)
    std::string ecnThreshold;     //!< empty: the helper's default
    std::vector<TalbLeafSpineHelper::LinkRate> linkRates;
    std::string topologyFile;                //!< empty: the fabric came from parameters
    std::map<uint32_t, uint32_t> hostOfNode; //!< topologyFile's node ids -> host indices
    std::vector<TalbLeafSpineHelper::LinkFailure> linkFailures;
    std::vector<TalbLeafSpineHelper::LinkFlap> linkFlaps;
    Time failDetect; //!< FailureDetection: failure to routes withdrawn
    std::vector<TalbLeafSpineHelper::LinkLoss> linkLosses;
    bool stockRouting{false};
    uint32_t gpusPerServer{1}; //!< GPUs (hosts) per server; 1: no servers
    bool railOptimized{false}; //!< servers' NICs in rails (TalbServerLayout)
    DataRate nvlinkRate;       //!< each GPU's NVLink egress rate (gpusPerServer > 1)
    Time nvlinkLatency;        //!< NVLink message latency (gpusPerServer > 1)
    // Hosts
    std::string tcpVariant; //!< TypeId name of the hosts' TCP congestion control
    uint32_t sndBuf{0};     //!< hosts' TCP send buffer, bytes (TalbHostConfig)
    uint32_t rcvBuf{0};     //!< hosts' TCP receive buffer, bytes (TalbHostConfig)
    Time minRto;            //!< hosts' minimum TCP retransmission timeout (TalbHostConfig)
    std::string hostQdisc;  //!< hosts' NIC queueing, fifo or fq (TalbHostConfig Qdisc)
    bool rdmaHosts{false};  //!< RoCEv2 NICs and PFC switches (set from the scenario's transport)
    /// the RoCEv2 NICs recover by selective repeat, not go-back-N (set from rdmaRecovery and
    /// the scenario's transport)
    bool rdmaSelectiveRepeat{false};
    bool hostsSpray{false}; //!< the hosts spray every packet over paths (transport spray)

    /**
     * Reads the FABRIC and HOSTS parameters of \p config, checking what they cannot check one
     * by one (links inside the fabric, a flap of a failing link, byte sizes). Each problem is
     * one message appended to \p errors, naming the parameter.
     */
    void Parse(const TalbScenarioConfig& config, std::vector<std::string>* errors);

    /// Sets the ns-3 defaults the hosts' TCP (TalbHostConfig) and the port queues
    /// (TalbPriorityQueue) take; call before Build().
    void ConfigureDefaults() const;

    /**
     * Builds and installs the fabric: switches with load balancer \p lb, partitioned over
     * \p ranks processes (TalbLeafSpineHelper's Ranks), host NICs and switch ports set up.
     */
    Ptr<TalbLeafSpineHelper> Build(const ObjectFactory& lb, uint32_t ranks = 1) const;

    /// \return the number of hosts, leaves x hostsPerLeaf
    uint64_t GetNHosts() const;
};

} // namespace ns3

#endif /* TALB_FABRIC_SPEC_H */
