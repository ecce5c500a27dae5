#ifndef TALB_ENTROPY_POLICY_H
#define TALB_ENTROPY_POLICY_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/talb-registry.h"

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief A host's packet-spraying policy: the entropy (UDP source port, which the switches'
 * ECMP hashes) of each data packet of one queue pair.
 *
 * A queue pair in selective-repeat mode (TalbRdmaNic Recovery SelectiveRepeat, EntropyPolicy
 * naming a policy) asks NextEntropy() for every data packet it sends, new or retransmitted, and
 * reports what came back: Acked() for every selective acknowledgement, with the entropy and the
 * ECN mark of the data packet that triggered it; Lost() for every packet it declared lost (a
 * SACK hole beyond the reordering threshold, or a retransmission timeout: the LossCause), with
 * the entropy that packet was sent with. The NIC forks one instance per queue pair from a
 * prototype, as it does for rate control.
 *
 * The public entry points are non-virtual and count; a policy implements the private Do* hooks
 * and registers its short name with TALB_REGISTER_PLUGIN in its own .cc, so this base names no
 * policy. Entropies lie in [ENTROPY_BASE, ENTROPY_BASE + ENTROPY_RANGE), the range RoCE NICs
 * draw their connections' source ports from.
 *
 * Counter identity (asserted): entropies given = recycled + explored.
 */
class TalbEntropyPolicy : public Object
{
  public:
    static TypeId GetTypeId();
    TalbEntropyPolicy();
    ~TalbEntropyPolicy() override;

    /// \return the family's registry: short policy names and TypeId names to TypeIds
    static TalbRegistry& GetRegistry();

    /// Lowest entropy value a policy gives.
    static const uint16_t ENTROPY_BASE = 0xC000;
    /// Number of entropy values a policy may give.
    static const uint32_t ENTROPY_RANGE = 0x4000;

    /// How a queue pair found a packet lost.
    enum class LossCause
    {
        kSackHole, //!< later packets were selectively acknowledged past the reorder threshold
        kTimeout,  //!< the retransmission timer fired with the packet unacknowledged
    };

    /// Counters of one queue pair's policy.
    struct Stats
    {
        uint64_t given{0};    //!< NextEntropy() calls
        uint64_t recycled{0}; //!< ... answered with an entropy that came back (policy's memory)
        uint64_t explored{0}; //!< ... answered with a fresh one
        uint64_t acked{0};    //!< Acked() calls
        uint64_t marked{0};   //!< ... with the ECN mark
        uint64_t lost{0};     //!< Lost() calls
        uint64_t timedOut{0}; //!< ... with LossCause::kTimeout
    };

    /**
     * Start serving a queue pair whose connection's own source port is \p connectionPort.
     * Called once, before the first NextEntropy().
     */
    void Start(uint16_t connectionPort);
    /// \return the entropy of the next data packet (new or retransmitted)
    uint16_t NextEntropy();
    /**
     * A selective acknowledgement came back for a packet sent with \p entropy.
     * \param marked that packet arrived with ECN CE
     */
    void Acked(uint16_t entropy, bool marked);
    /// A packet sent with \p entropy was declared lost, found so by \p cause.
    void Lost(uint16_t entropy, LossCause cause);

    /// \return a fresh instance with this one's attributes, for another queue pair
    Ptr<TalbEntropyPolicy> Fork() const;
    /// Use \p stream onwards for the policy's random variables. \return streams used
    virtual int64_t AssignStreams(int64_t stream);

    const Stats& GetStats() const;
    /// \return the connection's own source port (Start()'s)
    uint16_t GetConnectionPort() const;

  protected:
    /// \return true if \p entropy lies in the policy range
    static bool IsEntropy(uint16_t entropy);

  private:
    /**
     * The next packet's entropy.
     * \param recycled set true when it is one the policy remembered, false when fresh
     */
    virtual uint16_t DoNextEntropy(bool* recycled) = 0;
    /// Acked()'s hook. Default: nothing.
    virtual void DoAcked(uint16_t entropy, bool marked);
    /// Lost()'s hook. Default: nothing.
    virtual void DoLost(uint16_t entropy, LossCause cause);
    /// Start()'s hook. Default: nothing.
    virtual void DoStart();
    virtual Ptr<TalbEntropyPolicy> DoFork() const = 0;

    uint16_t m_connectionPort{0};
    bool m_started{false};
    Stats m_stats;
};

} // namespace ns3

#endif /* TALB_ENTROPY_POLICY_H */
