#ifndef TALB_TIMELY_H
#define TALB_TIMELY_H

#include "talb-rdma-rate-control.h"

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief TIMELY (Mittal et al., "TIMELY: RTT-based Congestion Control for the Datacenter",
 * SIGCOMM 2015): the sender paces at a rate it sets from round-trip times alone, with no
 * switch feedback (no ECN marks, no CNPs).
 *
 * On each RTT sample (the queue pair times one packet per round trip, as a NIC timestamps its
 * completions), with the previous sample prev, the smoothed RTT difference d and rate R:
 * - d = (1 - Alpha) d + Alpha (rtt - prev); the normalised gradient g = d / MinRtt;
 * - rtt < TLow: R += delta (additive increase; a queue too short to matter);
 * - rtt > THigh: R *= 1 - Beta (1 - THigh / rtt) (the tail is too long, whatever the gradient);
 * - otherwise g <= 0: R += N delta, N = HaiFactor once the gradient has been at most zero for
 *   HaiThreshold samples in a row (hyper-active increase), else 1;
 * - otherwise R *= 1 - Beta g.
 * The first sample only sets prev. One update never cuts the rate below half of what it was
 * (a gradient far above MinRtt would otherwise take it to the minimum at once). delta is
 * AdditiveIncrease scaled from ReferenceRate to the queue pair's line rate, as TalbDcqcn scales
 * its steps (ReferenceRate 0: as given at every rate).
 *
 * Defaults: the paper's section 5 values for its 10 Gb/s testbed (TLow 50 us, THigh 500 us,
 * delta 10 Mb/s, Beta 0.8, N = 5 after 5 samples); Alpha 0.875 and MinRtt 20 us as HPCC's
 * published comparison ran TIMELY. doc/talb-transport.rst ("TIMELY") gives the validation and
 * the settings for faster links.
 */
class TalbTimely : public TalbRdmaRateControl
{
  public:
    static TypeId GetTypeId();
    TalbTimely();
    ~TalbTimely() override;

    /// \return the smoothed RTT difference d (seconds)
    double GetRttDiff() const;
    /// \return the last RTT sample (zero before the first)
    Time GetLastRtt() const;

  private:
    Ptr<TalbRdmaRateControl> DoFork() const override;
    void DoStart() override;
    void DoAckReceived(uint64_t newlyAcked, Time rtt) override;
    bool DoUsesRtt() const override;

    // Attributes
    double m_alpha;
    double m_beta;
    Time m_tLow;
    Time m_tHigh;
    Time m_minRtt;
    DataRate m_additive;
    DataRate m_referenceRate;
    uint32_t m_haiThreshold;
    uint32_t m_haiFactor;

    // State
    Time m_prevRtt;            //!< zero before the first sample
    double m_rttDiff{0};       //!< d, in seconds
    uint32_t m_calmSamples{0}; //!< samples in a row with g <= 0
    uint64_t m_additiveBps{0}; //!< delta at this line rate
};

} // namespace ns3

#endif /* TALB_TIMELY_H */
