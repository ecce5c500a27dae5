#ifndef TALB_RDMA_RATE_CONTROL_H
#define TALB_RDMA_RATE_CONTROL_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/talb-registry.h"
#include "ns3/traced-callback.h"
#include "ns3/traced-value.h"

namespace ns3
{

class TalbIntTag;

/**
 * \ingroup talb-transport
 * \brief Congestion control of one RDMA queue pair: the sending rate a NIC paces it at.
 *
 * The split of ns-3's TCP: the queue pair (TalbRdmaQueuePair) owns the connection state, this
 * small class owns the rate. The NIC forks one instance per queue pair from a prototype chosen by
 * TypeId (TalbRdmaNic's RateControl attribute) and calls the public entry points on the events
 * a rate control may react to; subclasses implement the private Do* hooks they need and register
 * a short name (TALB_REGISTER_PLUGIN) for the scenario's rdmaCc option. DCQCN (TalbDcqcn)
 * reacts to congestion notification packets, TIMELY (TalbTimely) to the round-trip times the
 * queue pair measures, HPCC (TalbHpcc) to the in-band telemetry its acknowledgements echo
 * (TalbIntTag), which also bounds the bytes in flight (GetWindow); TalbFixedRate does not react
 * (PFC alone).
 *
 * The base keeps the rate within [MinRate, line rate] whatever a subclass sets, and reports every
 * change to the queue pair (which re-times its next packet) and to the Rate trace.
 */
class TalbRdmaRateControl : public Object
{
  public:
    static TypeId GetTypeId();
    TalbRdmaRateControl();
    ~TalbRdmaRateControl() override;

    /// Called with the new rate whenever it changes.
    typedef Callback<void, DataRate> RateChangedCallback;

    /**
     * Start controlling a queue pair on a port of rate \p lineRate: the rate starts there.
     * \param changed told of every later change
     */
    void Start(DataRate lineRate, RateChangedCallback changed);
    /// Stop (the queue pair is gone): cancel timers, report nothing more.
    void Stop();

    /// A congestion notification packet (CNP) arrived for the queue pair.
    void CnpReceived();
    /// The queue pair sent a packet of \p bytes (wire bytes).
    void PacketSent(uint32_t bytes);
    /**
     * An acknowledgement arrived.
     * \param newlyAcked bytes it acknowledged for the first time
     * \param rtt a round-trip time sample: the time since the queue pair sent the packet it
     *        timed, a packet sent once that this acknowledgement covers; zero when it ends no
     *        sample (the queue pair times one packet at a time: about one sample per round trip)
     */
    void AckReceived(uint64_t newlyAcked, Time rtt);

    /// \return whether the rate control reacts to RTT samples (the queue pair then takes them)
    bool UsesRtt() const;

    /**
     * \return whether the rate control reads in-band telemetry: the queue pair's data packets
     * then carry a TalbIntTag (and its wire bytes) that switches stamp, each asks for an
     * acknowledgement, and the responder echoes the telemetry in it
     */
    bool UsesTelemetry() const;
    /**
     * An acknowledgement echoed the telemetry of the data packet it answers (called before
     * AckReceived for the same acknowledgement).
     * \param telemetry the hop records
     * \param acked the acknowledgement's cumulative PSN: every packet below it has arrived
     * \param nextPsn the PSN the queue pair sends next (new data)
     */
    void TelemetryReceived(const TalbIntTag& telemetry, uint64_t acked, uint64_t nextPsn);
    /// \return the most bytes the queue pair may have unacknowledged (0: no limit of its own)
    uint64_t GetWindow() const;

    /// The family's registry: short names ("dcqcn", "timely", "hpcc", "none") for rdmaCc.
    static TalbRegistry& GetRegistry();

    DataRate GetRate() const;
    DataRate GetLineRate() const;
    /// \return the lowest rate SetRate allows (MinRate, at most the line rate once started)
    DataRate GetMinRate() const;

    /// \return a fresh instance with this one's attributes, for another queue pair
    Ptr<TalbRdmaRateControl> Fork() const;

  protected:
    /// Set the rate (clamped to [MinRate, line rate]); reports a change.
    void SetRate(DataRate rate);
    /**
     * \return \p step, a rate step tuned for line rate \p reference, scaled to this queue
     * pair's line rate (so recovery takes the same time at every rate), in bit/s; \p reference
     * 0: \p step as given
     */
    uint64_t ScaleToLineRate(DataRate step, DataRate reference) const;
    void DoDispose() override;

  private:
    virtual Ptr<TalbRdmaRateControl> DoFork() const = 0;

    virtual void DoStart()
    {
    }

    virtual void DoStop()
    {
    }

    virtual void DoCnpReceived()
    {
    }

    virtual void DoPacketSent(uint32_t /* bytes */)
    {
    }

    virtual void DoAckReceived(uint64_t /* newlyAcked */, Time /* rtt */)
    {
    }

    virtual bool DoUsesRtt() const
    {
        return false;
    }

    virtual bool DoUsesTelemetry() const
    {
        return false;
    }

    virtual void DoTelemetryReceived(const TalbIntTag& /* telemetry */,
                                     uint64_t /* acked */,
                                     uint64_t /* nextPsn */)
    {
    }

    virtual uint64_t DoGetWindow() const
    {
        return 0;
    }

    DataRate m_minRate; //!< MinRate attribute
    DataRate m_lineRate;
    TracedValue<DataRate> m_rate;
    TracedCallback<Time> m_rttTrace; //!< every RTT sample
    RateChangedCallback m_changed;
    bool m_running{false};
};

} // namespace ns3

#endif /* TALB_RDMA_RATE_CONTROL_H */
