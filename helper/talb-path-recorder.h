#ifndef TALB_PATH_RECORDER_H
#define TALB_PATH_RECORDER_H

#include "ns3/callback.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/talb-load-balancer.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

class TalbSwitch;

/**
 * \ingroup talb-helper
 * \brief One stay of one flow on one egress port of one switch: the packets a switch's load
 * balancer sent there in a row, for the same tensor. A row of paths.csv.
 */
struct TalbPathRecord
{
    std::string node;     //!< the switch: leafL or spineS
    uint32_t port{0};     //!< its egress port id
    std::string nextHop;  //!< what the port leads to: spineS, leafL or hostH
    Ipv4Address src;      //!< the flow's source host
    uint16_t srcPort{0};  //!< TCP/UDP source port (RoCEv2: the queue pair's)
    Ipv4Address dst;      //!< destination host
    uint16_t dstPort{0};  //!< TCP/UDP destination port (RoCEv2: 4791)
    int32_t job{-1};      //!< the packets' job (from the tensor id), -1 untagged
    int64_t tensor{-1};   //!< their tensor index within the job, -1 untagged
    int32_t priority{-1}; //!< their tensor priority, -1 untagged
    Time start;           //!< the first packet's selection
    Time end;             //!< the last packet's selection
    uint64_t packets{0};  //!< packets sent there in that stay
    uint64_t bytes{0};    //!< their IPv4 bytes
    int64_t wireId{-1};   //!< the label's tensor id as sent (job and index), -1 untagged
};

/**
 * \ingroup talb-helper
 * \brief Follows the path decisions of switches' load balancers (their PathSelected trace) and
 * reports each flow's stays on ports: a record closes when the flow's next packet at that switch
 * goes to another port or carries another tensor, or when Finish() is called. Only decisions
 * among two or more candidates are seen (a single route is no decision).
 *
 * For per-packet schemes (DRILL, Presto's flowcells, spraying) a stay is a packet or a few:
 * expect a record per packet. Memory: one open record per (switch, flow).
 */
class TalbPathRecorder : public Object
{
  public:
    static TypeId GetTypeId();

    typedef Callback<void, const TalbPathRecord&> RecordCallback;

    /// Where closed records go (e.g. TalbOutputWriter::WritePath).
    void SetSink(RecordCallback sink);
    /// Follow \p sw's load balancer.
    void Connect(Ptr<TalbSwitch> sw);
    /// Close every open stay (in order of their start) and hand them to the sink.
    void Finish();

  protected:
    void DoDispose() override;

  private:
    /// A switch followed: its name and where each port leads.
    struct Followed
    {
        Ptr<TalbSwitch> sw;
        std::string node;
        std::vector<std::string> nextHop;
    };

    static void Selected(TalbPathRecorder* self,
                         uint32_t slot,
                         const TalbPacketContext& ctx,
                         uint32_t port);
    void Close(TalbPathRecord& r);

    std::vector<Followed> m_switches;
    /// Open stays by (switch slot << 32 | flow hash).
    std::unordered_map<uint64_t, TalbPathRecord> m_open;
    RecordCallback m_sink;
};

} // namespace ns3

#endif /* TALB_PATH_RECORDER_H */
