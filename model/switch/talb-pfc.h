#ifndef TALB_PFC_H
#define TALB_PFC_H

#include "talb-pfc-net-device.h"
#include "talb-shared-buffer.h"

#include "ns3/event-id.h"
#include "ns3/object.h"
#include "ns3/queue-size.h"
#include "ns3/talb-wire.h"
#include "ns3/traced-callback.h"

#include <array>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-switch
 * \brief A switch's ingress buffer accounting with priority flow control (PFC, IEEE 802.1Qbb).
 *
 * Every packet a switch accepts is charged to its (ingress port, priority) until it leaves
 * through its egress port. For a lossless priority (LosslessPriorities):
 * - when the charge exceeds XoffThreshold, the ingress port sends XOFF (pause PauseQuanta) to
 *   its upstream neighbour for that priority, and refreshes it every half pause while the charge
 *   stays above the resume level;
 * - when the charge falls to XoffThreshold - XonOffset or below, it sends XON (quanta 0);
 * - the bytes that still arrive after XOFF land in the headroom; a packet that would take the
 *   charge past XoffThreshold + headroom is dropped and counted (a headroom overflow: the
 *   headroom was too small for the link, never expected with the computed default).
 * Lossy priorities are not charged: the egress queue's drop-tail limit applies to them.
 *
 * With the switch's shared buffer (SetSharedBuffer) the XOFF threshold is dynamic: the buffer's
 * PfcAlpha times its free bytes at that moment (TalbSharedBuffer::GetPfcThreshold()), so a
 * fuller switch pauses earlier. The headroom is then counted from the threshold at which the
 * pause started (a threshold that falls while paused does not turn the in-flight bytes into
 * drops), and an (ingress, priority) resumes once its charge is XonOffset below the threshold
 * of the moment, or empty; a pause refresh checks that too, since the threshold also rises as
 * other ports drain.
 *
 * Headroom (0 = computed per port) covers what can arrive once XOFF is decided: the frame that
 * crossed XOFF, one this port may be sending before the pause frame, the pause frame itself, a
 * frame the upstream port may have just started, and two propagation delays at line rate.
 *
 * The charge is released when the egress device reports the packet leaving its queue
 * (TalbPfcNetDevice's dequeue callback). The switch tells which ingress port each queued packet
 * came from (Queued()). The egress queue serves each of its slots (TalbPriorityQueue: the eight
 * bands and the best-effort class) first-in first-out, but not a priority: under Dwrr the
 * best-effort class reports UntaggedBand's priority, shares it with that tensor band, and is
 * served by DWRR out of their joint arrival order. So the ring of ingress port numbers is kept
 * per (egress port, slot), not per priority: the packet's slot is known on both sides (the
 * switch classifies it, the queue reports it on dequeue), so no per-packet tag (a packet tag
 * allocates) and no allocation in steady state.
 *
 * Counter identities: admitted bytes = released bytes + bytes charged now (asserted); pause
 * starts = resumes + (ingress, priority) pairs pausing now.
 */
class TalbPfc : public Object
{
  public:
    static TypeId GetTypeId();
    TalbPfc();
    ~TalbPfc() override;

    /// Counters.
    struct Stats
    {
        uint64_t pausesSent{0};    //!< XOFF frames requested (refreshes included)
        uint64_t pauseStarts{0};   //!< ... of which started a pause (refreshes excluded)
        uint64_t resumesSent{0};   //!< XON frames requested
        uint64_t headroomDrops{0}; //!< packets dropped past XOFF + headroom
        uint64_t admittedBytes{0}; //!< bytes charged (lossless priorities)
        uint64_t releasedBytes{0}; //!< bytes released
    };

    /**
     * Take the switch's ports (port id = index); computes the headroom of each. Call once.
     */
    void Install(const std::vector<Ptr<TalbPfcNetDevice>>& ports);

    /// \return true when priority \p priority is lossless
    bool IsLossless(uint8_t priority) const;

    /// The ingress of a packet the switch made itself (a balancer's control packet): it takes
    /// no ingress buffer, so it is never charged, paused or dropped for headroom.
    static constexpr uint32_t NO_INGRESS = UINT32_MAX;

    /**
     * Charge a packet arriving on \p inPort (NO_INGRESS: charges nothing) with \p priority.
     * \return false when it must be dropped (headroom overflow); nothing is charged then
     */
    bool Admit(uint32_t inPort, uint8_t priority, uint32_t bytes);
    /// Undo the charge of a packet Admit()ted that will never be queued (a load balancer
    /// consumed it).
    void Uncharge(uint32_t inPort, uint8_t priority, uint32_t bytes);
    /// The admitted packet was queued on \p outPort in band \p priority, queue slot \p slot
    /// (TalbPriorityQueue::ClassifySlot).
    void Queued(uint32_t inPort, uint32_t outPort, uint8_t priority, uint8_t slot);
    /// The admitted packet, Queued() on \p outPort, was refused by the egress: undo its charge.
    void Refused(uint32_t inPort, uint32_t outPort, uint8_t priority, uint8_t slot, uint32_t bytes);
    /// A packet of band \p priority left slot \p slot of the queue of \p outPort (the
    /// TalbPfcNetDevice's dequeue callback).
    void Released(uint32_t outPort, uint8_t priority, uint8_t slot, uint32_t bytes);

    /// \return bytes charged now to (\p port, \p priority)
    uint32_t GetIngressBytes(uint32_t port, uint8_t priority) const;
    /// \return the largest charge (\p port, \p priority) has had
    uint32_t GetMaxIngressBytes(uint32_t port, uint8_t priority) const;
    /// \return true while (\p port, \p priority) has its upstream paused
    bool IsPausing(uint32_t port, uint8_t priority) const;
    /// \return the XOFF threshold in bytes (now: dynamic with a shared buffer)
    uint32_t GetXoff() const;
    /// Make the XOFF threshold dynamic on \p buffer (the switch's egress queues share it).
    void SetSharedBuffer(Ptr<TalbSharedBuffer> buffer);
    /// \return the headroom of \p port in bytes
    uint32_t GetHeadroom(uint32_t port) const;
    const Stats& GetStats() const;

    /**
     * TracedCallback signature for pause, resume and headroom-drop events.
     * \param port the ingress port
     * \param priority the priority
     * \param bytes the charge of (port, priority) at that moment
     */
    typedef void (*PfcTracedCallback)(uint32_t port, uint8_t priority, uint32_t bytes);

  protected:
    void DoDispose() override;

  private:
    /// Ingress port numbers of the packets queued in one (egress port, slot), oldest first.
    /// NO_INGRESS as a PortRing entry (Install allows ports 0..0xFFFE).
    static constexpr uint16_t RING_NO_INGRESS = 0xFFFF;

    struct PortRing
    {
        std::vector<uint16_t> slots; //!< capacity a power of two (grows when full)
        uint32_t head{0};
        uint32_t size{0};

        void Push(uint16_t port);
        uint16_t Pop();
        void PopBack();
    };

    /// Charge state of one (ingress port, priority).
    struct Ingress
    {
        uint32_t bytes{0};
        uint32_t maxBytes{0};
        uint32_t pauseLevel{0}; //!< the XOFF threshold when the pause started
        bool pausing{false};
        EventId refresh;
    };

    /// \return whether a pausing (ingress, priority) with this charge may resume now
    bool MayResume(const Ingress& in) const;
    PortRing& RingOf(uint32_t outPort, uint8_t slot);
    Ingress& At(uint32_t port, uint8_t priority);
    const Ingress& At(uint32_t port, uint8_t priority) const;
    void Pause(uint32_t port, uint8_t priority);
    void Refresh(uint32_t port, uint8_t priority);
    void Resume(uint32_t port, uint8_t priority);
    void Release(uint32_t inPort, uint8_t priority, uint32_t bytes);

    QueueSize m_xoff;               //!< XoffThreshold attribute
    Ptr<TalbSharedBuffer> m_shared; //!< dynamic thresholds on it, or null (static)
    QueueSize m_xonOffset;          //!< XonOffset attribute
    QueueSize m_headroom;           //!< Headroom attribute (0: computed)
    uint8_t m_lossless;             //!< LosslessPriorities attribute
    uint16_t m_quanta;              //!< PauseQuanta attribute

    std::vector<Ptr<TalbPfcNetDevice>> m_ports;
    std::vector<uint32_t> m_portHeadroom;
    std::vector<Ingress> m_ingress; //!< [port * priorities + priority]
    std::vector<PortRing> m_queued; //!< [egress port * TalbPriorityQueue::NUM_SLOTS + slot]
    Stats m_stats;

    TracedCallback<uint32_t, uint8_t, uint32_t> m_pauseTrace;
    TracedCallback<uint32_t, uint8_t, uint32_t> m_resumeTrace;
    TracedCallback<uint32_t, uint8_t, uint32_t> m_dropTrace;
};

} // namespace ns3

#endif /* TALB_PFC_H */
