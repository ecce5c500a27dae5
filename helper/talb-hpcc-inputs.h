#ifndef TALB_HPCC_INPUTS_H
#define TALB_HPCC_INPUTS_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief A two-tier leaf-spine fabric read from a topology file in the format of HPCC's and
 * ConWeave's ns-3 simulators, so their experiments run here from their own files (with
 * TalbHpccFlows for their flow files).
 *
 * The format: a first line "NODES SWITCHES LINKS", then the SWITCHES node ids of the switches
 * (whitespace-separated, on one or more lines), then LINKS lines "SRC DST RATE DELAY
 * ERROR_RATE" (e.g. "0 144 100Gbps 0.001ms 0"). Every other node is a host.
 *
 * talb builds leaf-spine fabrics only, so the file must describe one: every host on exactly
 * one link, to a switch (its leaf); every leaf with the same number of hosts; every switch
 * without hosts a spine, linked once to every leaf; no other links. Host links share one rate
 * (hostRate), all links one delay (linkDelay); the leaf-spine links' most common rate is
 * fabricRate and any other becomes a per-link override (TalbFabricSpec's linkRates). Leaves,
 * spines and the hosts under each leaf are numbered in node-id order: talb host i is the i-th
 * host in that order (GetHostOfNode() maps an HPCC node id to it). A nonzero error rate is
 * refused: talb does not drop packets at random.
 */
struct TalbHpccTopology
{
    /**
     * A leaf-spine link whose rate is not fabricRate (TalbLeafSpineHelper::SetLinkRate). The
     * helper's own LinkRate is not used here so that this reader builds without the fabric
     * helper (the libFuzzer build compiles it alone); TalbFabricSpec copies it over.
     */
    struct LinkRate
    {
        uint32_t leaf{0};
        uint32_t spine{0};
        DataRate rate;
    };

    uint32_t leaves{0};
    uint32_t spines{0};
    uint32_t hostsPerLeaf{0};
    DataRate hostRate;
    DataRate fabricRate;
    Time linkDelay;
    std::vector<LinkRate> linkRates; //!< links not at fabricRate

    /// A leaf-spine link with a non-zero error rate (TalbLeafSpineHelper::SetLinkLoss).
    struct LinkLoss
    {
        uint32_t leaf{0};
        uint32_t spine{0};
        double probability{0};
    };

    std::vector<LinkLoss> linkLosses;        //!< leaf-spine links with an error rate
    std::map<uint32_t, uint32_t> hostOfNode; //!< HPCC node id -> talb host index

    /**
     * Read \p path into \p out.
     * \return an empty string, or an error "PATH:LINE: what was wrong"
     */
    static std::string Read(const std::string& path, TalbHpccTopology* out);
    /// Parse the file's text \p text (\p path names it in errors). \return as Read()
    static std::string Parse(const std::string& text,
                             const std::string& path,
                             TalbHpccTopology* out);
};

/// One flow of an HPCC flow file.
struct TalbHpccFlow
{
    uint32_t src{0};   //!< talb host index of the sender
    uint32_t dst{0};   //!< talb host index of the receiver
    uint32_t pg{0};    //!< HPCC's priority group, as given (see TalbHpccFlows)
    uint32_t dport{0}; //!< as given (see TalbHpccFlows)
    uint64_t sizeBytes{0};
    Time start;       //!< simulated time the flow starts
    uint32_t line{0}; //!< where the file gives it
};

/**
 * \ingroup talb-helper
 * \brief The flows of a flow file in the format of HPCC's and ConWeave's ns-3 simulators: a
 * first line with the flow count, then one line per flow "SRC DST PG DPORT SIZE START" (node
 * ids, priority group, destination port, size in bytes, start in seconds), e.g. "0 17 3 100
 * 200000 2.000001".
 *
 * talb runs them as background flows (kind background in flows.csv, the untagged band): the
 * priority group and the port are read and checked but not used, since talb's background
 * traffic has one class and its own port. Node ids are mapped to talb hosts by the topology
 * file's TalbHpccTopology::hostOfNode when one was given, else taken as host indices.
 */
struct TalbHpccFlows
{
    /**
     * Read \p path into \p out, mapping node ids by \p hostOfNode (null: node id = host
     * index, below \p nHosts).
     * \return an empty string, or an error "PATH:LINE: field 'F': what was wrong"
     */
    static std::string Read(const std::string& path,
                            const std::map<uint32_t, uint32_t>* hostOfNode,
                            uint32_t nHosts,
                            std::vector<TalbHpccFlow>* out);
    /// Parse the file's text \p text (\p path names it in errors). \return as Read()
    static std::string Parse(const std::string& text,
                             const std::string& path,
                             const std::map<uint32_t, uint32_t>* hostOfNode,
                             uint32_t nHosts,
                             std::vector<TalbHpccFlow>* out);
};

} // namespace ns3

#endif /* TALB_HPCC_INPUTS_H */
