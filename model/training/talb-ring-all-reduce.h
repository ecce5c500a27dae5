#ifndef TALB_RING_ALL_REDUCE_H
#define TALB_RING_ALL_REDUCE_H

#include "talb-collective.h"

#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-training
 * \brief Ring all-reduce: reduce-scatter then all-gather, 2(N-1) steps of S/N bytes.
 *
 * Worker w keeps one persistent connection to w+1. An operation of S bytes is cut into N
 * contiguous chunks (sizes differ by at most one byte). In reduce-scatter step s (0 <= s < N-1)
 * worker w sends chunk (w - s) mod N; in all-gather step s (N-1 <= s < 2(N-1)) it sends chunk
 * (w + 1 - (s - N + 1)) mod N. Step s+1 is sent when step s has arrived from w-1 (its data
 * depend on it); the operation is done at w when step 2N-3 has arrived. Reduction arithmetic
 * takes no simulated time. With one worker an operation completes at once without traffic.
 *
 * FIRST marks the first byte worker w sends of a tensor's first segment, LAST the last byte
 * it sends of the tensor's last segment, so a switch's tensor entry spans the whole collective
 * on that connection.
 */
class TalbRingAllReduce : public TalbCollective
{
  public:
    static TypeId GetTypeId();
    TalbRingAllReduce();
    ~TalbRingAllReduce() override;

  protected:
    void DoDispose() override;

  private:
    void DoSetup() override;
    void DoStart(const TalbCommOp& op) override;
    void DoDelivered(Ptr<TalbMessageChannel> channel, const TalbMessage& message) override;
    /// 2(N-1) steps of S/N bytes through each worker's NIC: 2(N-1)/N x S / rate
    Time DoGetIdealOpTime(uint64_t bytes, uint32_t nWorkers, DataRate rate) const override;

    /// An operation in progress.
    struct OpState
    {
        TalbCommOp op;
        std::vector<uint64_t> starts;    //!< segment prefix offsets
        std::vector<uint64_t> remaining; //!< [worker * segments + j]: bytes still to send
        std::vector<uint8_t> started;    //!< [worker * segments + j]: sent any byte yet
        uint32_t done{0};                //!< workers finished
    };

    /// \return the op byte range of chunk c
    std::pair<uint64_t, uint64_t> Chunk(const OpState& st, uint32_t c) const;
    void SendStep(OpState& st, uint32_t worker, uint16_t step);
    void WorkerDone(uint32_t opId, uint32_t worker);

    std::vector<Ptr<TalbMessageChannel>> m_next; //!< m_next[w]: w -> w+1
    std::unordered_map<uint32_t, OpState> m_ops;
};

} // namespace ns3

#endif /* TALB_RING_ALL_REDUCE_H */
