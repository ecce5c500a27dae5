#ifndef TALB_HPCC_H
#define TALB_HPCC_H

#include "talb-rdma-rate-control.h"

#include <array>

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019): the sender
 * sets a window from the in-band telemetry (TalbIntTag) that every switch port on the path
 * stamps into its data packets and the responder echoes, and paces at window / BaseRtt.
 *
 * The paper's Algorithm 1, on each acknowledgement that echoes telemetry:
 * - per hop, from this record and the previous one of the same port: its transmit rate
 *   txRate = delta txBytes / delta t and its normalised in-flight bytes
 *   u' = min(qlen, previous qlen) / (B T) + txRate / B, B the port's rate, T = BaseRtt;
 *   u is the largest u' on the path, tau that hop's delta t;
 * - U = (1 - tau/T) U + (tau/T) u with tau at most T (an EWMA over about one round trip);
 * - if U >= eta (TargetUtilization) or MaxStage additive steps in a row were taken:
 *   W = Wc / (U / eta) + W_AI (multiplicative step towards eta, plus additive), else W = Wc + W_AI;
 * - Wc, the reference window, takes W only once per round trip: on the first acknowledgement
 *   of data sent after the previous update; in between W is computed from the same Wc (HPCC's
 *   fast reaction);
 * - the rate is W / T, and W also bounds the bytes in flight (GetWindow; LimitWindow).
 * W starts at the line rate's BDP, B_line T. W_AI is AdditiveIncrease x T (the rate step scaled
 * from ReferenceRate to the queue pair's line rate, as TalbDcqcn scales its steps).
 *
 * Unlike HPCC's published simulator, which compares a record with the previous record at the
 * same hop index, records are matched by port (node, interface; RecordSlots of them per queue
 * pair): when a balancer moves the queue pair's packets to another path (flowlets, spraying),
 * a hop whose port was not seen before only sets its record, and the others are still measured.
 *
 * Defaults are the settings of HPCC's published simulator runs: eta 0.95, MaxStage 0
 * (its run script's default; the paper's text names 5), AdditiveIncrease 10 Mb/s at a 25 Gb/s
 * reference (40 Mb/s at 100 Gb/s). BaseRtt has no default that fits every fabric:
 * TalbLeafSpineHelper offers its fabric's longest unloaded round trip
 * (TalbRdmaHelper::OfferBaseRtt); elsewhere it must be set. doc/talb-transport.rst ("HPCC") gives
 * the validation.
 */
class TalbHpcc : public TalbRdmaRateControl
{
  public:
    static TypeId GetTypeId();
    TalbHpcc();
    ~TalbHpcc() override;

    /// Ports whose last record a queue pair keeps (RecordSlots' most).
    static constexpr uint32_t MAX_RECORD_SLOTS = 64;

    /// \return U, the smoothed normalised in-flight bytes of the path's busiest hop
    double GetUtilization() const;
    /// \return the current window W in bytes
    double GetWindowBytes() const;
    /// \return the reference window Wc in bytes
    double GetReferenceWindow() const;
    /// \return additive steps taken in a row (incStage)
    uint32_t GetIncreaseStage() const;

  private:
    /// The last record of one switch port.
    struct PortRecord
    {
        uint32_t node{0};
        uint32_t port{0};
        uint64_t timeNs{0};
        uint64_t txBytes{0};
        uint32_t queueBytes{0};
        bool used{false};
    };

    Ptr<TalbRdmaRateControl> DoFork() const override;
    void DoStart() override;
    bool DoUsesTelemetry() const override;
    void DoTelemetryReceived(const TalbIntTag& telemetry,
                             uint64_t acked,
                             uint64_t nextPsn) override;
    uint64_t DoGetWindow() const override;

    /// Update U from the hops; \return false when no hop had a previous record to compare
    bool MeasureInflight(const TalbIntTag& telemetry);
    /// \return W from U and Wc; with \p updateReference, Wc and incStage take the step
    double ComputeWindow(bool updateReference);
    /// \return the record slot of (\p node, \p port): its own, or one to overwrite
    PortRecord& RecordOf(uint32_t node, uint32_t port, bool* found);

    // Attributes
    Time m_baseRtt;
    double m_eta;
    uint32_t m_maxStage;
    DataRate m_additive;
    DataRate m_referenceRate;
    bool m_limitWindow;
    uint32_t m_recordSlots;

    // State
    double m_u{0};             //!< U
    bool m_measured{false};    //!< U holds a measurement
    double m_window{0};        //!< W (bytes)
    double m_refWindow{0};     //!< Wc (bytes)
    double m_maxWindow{0};     //!< line-rate BDP (bytes)
    double m_minWindow{0};     //!< MinRate x T (bytes)
    double m_additiveBytes{0}; //!< W_AI
    uint32_t m_incStage{0};
    uint64_t m_lastUpdatePsn{0};
    bool m_updated{false}; //!< Wc has taken a step (m_lastUpdatePsn is valid)
    std::array<PortRecord, MAX_RECORD_SLOTS> m_records;
    uint32_t m_nextVictim{0}; //!< round-robin replacement when every slot is in use
};

} // namespace ns3

#endif /* TALB_HPCC_H */
