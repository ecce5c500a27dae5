#ifndef TALB_REPS_ENTROPY_H
#define TALB_REPS_ENTROPY_H

#include "talb-entropy-policy.h"

#include "ns3/random-variable-stream.h"

#include <map>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief REPS, recycled entropy packet spraying ("reps"; Bonato et al., "REPS: Recycled Entropy
 * Packet Spraying for Adaptive Load Balancing and Failure Mitigation", 2024): the sender reuses
 * the entropies that came back in acknowledgements without an ECN mark, and explores new ones
 * only when it has none.
 *
 * - A circular buffer of BufferSize entries, each an entropy and a valid bit. An acknowledgement
 *   without ECN mark writes its echoed entropy at the buffer's head (overwriting the oldest
 *   entry), valid; a marked one writes nothing, so a congested path is not taken again.
 * - Each packet takes the oldest valid entry and clears its bit: every entropy that came back
 *   is recycled once. With no valid entry the packet explores: a random entropy (not a failed
 *   one).
 * - Failure (the paper's freezing mode): when a packet is declared lost (a SACK hole or a
 *   retransmission timeout), its entropy is failed for FailedHold: removed from the buffer, not
 *   explored, not recycled even if an acknowledgement echoes it. For FreezeTime after a
 *   retransmission timeout (FreezeOn Timeout, the default) or after any loss (FreezeOn Loss)
 *   the policy stops exploring: with no valid entry it reuses the buffer's remaining entries
 *   round robin (paths known to have worked), and explores only if the buffer holds none. A
 *   SACK hole is what random loss looks like, a timeout what a dead path looks like: freezing
 *   on every hole cost 2-7 % against oblivious spraying at 0.1-1 % random loss and gained only
 *   above a few per cent (doc/talb-transport.rst).
 *
 * Acknowledgements are coalesced (TalbRdmaNic AckInterval); each carries the entropy of the
 * packet that triggered it, so one entropy comes back per acknowledgement, as with Ultra
 * Ethernet's coalesced ACKs. The paper's constants as talb reads them: an 8-entry buffer; the
 * freezing and failure periods are talb's choices (the attribute defaults), not the paper's.
 */
class TalbRepsEntropy : public TalbEntropyPolicy
{
  public:
    /// What starts the freezing mode.
    enum FreezeOn
    {
        FREEZE_ON_LOSS,    //!< any packet declared lost (SACK hole or timeout)
        FREEZE_ON_TIMEOUT, //!< only a retransmission timeout
    };

    static TypeId GetTypeId();
    TalbRepsEntropy();
    ~TalbRepsEntropy() override;

    int64_t AssignStreams(int64_t stream) override;

    /// \return the number of valid (not yet recycled) entries in the buffer
    uint32_t GetValidEntries() const;
    /// \return true while \p entropy is failed
    bool IsFailed(uint16_t entropy) const;
    /// \return true while the policy is frozen (no exploration)
    bool IsFrozen() const;

  protected:
    void DoDispose() override;

  private:
    uint16_t DoNextEntropy(bool* recycled) override;
    void DoAcked(uint16_t entropy, bool marked) override;
    void DoLost(uint16_t entropy, LossCause cause) override;
    void DoStart() override;
    Ptr<TalbEntropyPolicy> DoFork() const override;

    /// \return a random entropy that is not failed (or any, after a few tries)
    uint16_t Explore();

    /// One buffer entry.
    struct Entry
    {
        uint16_t entropy{0};
        bool valid{false};
        bool used{false}; //!< holds an entropy (valid or recycled already)
    };

    // Attributes
    uint32_t m_bufferSize;
    Time m_freezeTime;
    FreezeOn m_freezeOn;
    Time m_failedHold;

    Ptr<UniformRandomVariable> m_random;
    std::vector<Entry> m_buffer;
    uint32_t m_head{0};  //!< next entry written (the oldest one)
    uint32_t m_valid{0}; //!< valid entries
    uint32_t m_reuse{0}; //!< frozen: next entry reused
    Time m_frozenUntil;
    std::map<uint16_t, Time> m_failed; //!< failed entropies and when they are forgiven
};

} // namespace ns3

#endif /* TALB_REPS_ENTROPY_H */
