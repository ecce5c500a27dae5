#ifndef TALB_DCQCN_H
#define TALB_DCQCN_H

#include "talb-rdma-rate-control.h"

#include "ns3/event-id.h"

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief DCQCN's reaction point (Zhu et al., "Congestion Control for Large-Scale RDMA
 * Deployments", SIGCOMM 2015): the sender's rate control of RoCEv2.
 *
 * The notification point (the receiving NIC, TalbRdmaNic) sends a CNP for an ECN-marked packet
 * at most once per CnpInterval per queue pair; switches mark by a RED-like profile
 * (TalbPriorityQueue's EcnKmin / EcnKmax / EcnPmax). Here, per queue pair, with current rate
 * R_C, target rate R_T and congestion estimate alpha:
 * - on a CNP: R_T = R_C, R_C = R_C (1 - alpha / 2), alpha = (1 - g) alpha + g; the increase
 *   timer and the byte counter restart and both stage counters return to 0;
 * - alpha decays, alpha = (1 - g) alpha, for every AlphaTimer period without a CNP (computed
 *   when the next CNP arrives: the same as a timer restarted at each CNP, without the events);
 * - a rate increase event comes every IncreaseTimer period (timer stage + 1) and every
 *   ByteCounter bytes sent (byte stage + 1). With F = FastRecoverySteps: while both stages are at
 *   most F, fast recovery R_C = (R_T + R_C) / 2; once both exceed F, hyper increase
 *   R_T += i HyperIncrease with i = min(stages) - F, then R_C = (R_T + R_C) / 2; otherwise
 *   additive increase R_T += AdditiveIncrease, then R_C = (R_T + R_C) / 2.
 * Increase events stop once R_C is back at line rate. Defaults are the paper's (its Table 1 and
 * section 5 for 40 Gb/s links), R_HAI the authors' simulator configuration, except that the two
 * increase steps are rates tuned for ReferenceRate (40 Gb/s): a queue pair of line rate R uses
 * AdditiveIncrease x R / ReferenceRate and HyperIncrease x R / ReferenceRate, so recovery takes
 * the same time at every link rate. ReferenceRate 0 applies the steps as given (the paper's
 * absolute values at any rate). Measurements and reasoning: doc/talb-transport.rst, "DCQCN at
 * 100 Gb/s".
 */
class TalbDcqcn : public TalbRdmaRateControl
{
  public:
    static TypeId GetTypeId();
    TalbDcqcn();
    ~TalbDcqcn() override;

    /// \return the congestion estimate alpha (as of the last CNP)
    double GetAlpha() const;
    /// \return the target rate R_T
    DataRate GetTargetRate() const;

  private:
    Ptr<TalbRdmaRateControl> DoFork() const override;
    void DoStart() override;
    void DoStop() override;
    void DoCnpReceived() override;
    void DoPacketSent(uint32_t bytes) override;

    void TimerExpired();
    /// One rate increase event, after a stage counter moved.
    void Increase();
    bool Recovering() const;

    // Attributes
    double m_g;
    Time m_alphaTimer;
    Time m_increaseTimer;
    uint64_t m_byteCounter;
    uint32_t m_fastRecoverySteps;
    DataRate m_additive;
    DataRate m_hyper;
    DataRate m_referenceRate;
    double m_initialAlpha;

    // State
    double m_alpha{1};
    Time m_lastAlphaUpdate;
    uint64_t m_target{0};      //!< R_T in bit/s
    uint64_t m_additiveBps{0}; //!< R_AI at this line rate
    uint64_t m_hyperBps{0};    //!< R_HAI at this line rate
    uint32_t m_timeStage{0};
    uint32_t m_byteStage{0};
    uint64_t m_bytes{0}; //!< bytes sent since the last byte-counter event
    EventId m_timer;
};

} // namespace ns3

#endif /* TALB_DCQCN_H */
