#ifndef TALB_PLB_H
#define TALB_PLB_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief Protective Load Balancing's decision for one connection (Qureshi et al., "PLB:
 * Congestion Signals are Simple and Effective for Network Load Balancing", SIGCOMM 2022): the
 * host moves the connection to another path (new flow label or source port) after Rounds
 * consecutive rounds, of about one round-trip time each, in which the fraction of
 * congestion-marked packets exceeded MarkFraction.
 *
 * Plain C++, no simulator state: the transport measures the rounds and applies the new entropy;
 * this class only counts. A round that does not exceed the threshold restarts the count, and so
 * does a repath (the next one needs Rounds congested rounds on the new path).
 *
 * With forceRounds > 0 (Linux's TCP PLB: tcp_plb_idle_rehash_rounds 3, tcp_plb_rehash_rounds
 * 12) a repath waits for the connection to be idle, so no segment overtakes another: after
 * Rounds congested rounds the next send from idle repaths (IdleRepath()), and forceRounds
 * congested rounds repath at once (EndRound()). With 0 (RDMA's queue pairs) EndRound() repaths
 * at Rounds.
 */
class TalbPlb
{
  public:
    /// PLB's parameters; the defaults are the paper's (K = 3 rounds, 50 % marked).
    struct Config
    {
        uint32_t rounds{3};       //!< consecutive congested rounds that trigger a repath (>= 1)
        double markFraction{0.5}; //!< a round is congested when its marked fraction exceeds it
        /// congested rounds that repath even while packets are in flight (>= rounds); 0: every
        /// repath at rounds, whatever is in flight
        uint32_t forceRounds{0};
    };

    TalbPlb() = default;
    explicit TalbPlb(const Config& config);

    /**
     * End a round.
     * \param markedFraction the fraction of the round's packets that were congestion-marked
     * \return true when the connection should repath now (its Rounds-th congested round in a row)
     */
    bool EndRound(double markedFraction);

    /**
     * The connection is idle (nothing in flight) and about to send.
     * \return true when it should repath now: forceRounds > 0 and at least Rounds congested
     * rounds in a row (a repath with 0 is decided by EndRound() alone)
     */
    bool IdleRepath();

    /// \return congested rounds in a row so far (since the last uncongested round or repath)
    uint32_t GetCongestedRounds() const;
    /// \return the repaths decided
    uint64_t GetRepaths() const;
    const Config& GetConfig() const;

    /**
     * \return a RoCEv2 UDP source port (0xC000 | 14 bits, as the NIC's) other than \p current,
     * derived from \p current and \p salt: the new entropy of a repath, deterministic so runs
     * repeat
     */
    static uint16_t NextSourcePort(uint16_t current, uint32_t salt);

  private:
    Config m_config;
    uint32_t m_congested{0};
    uint64_t m_repaths{0};
};

} // namespace ns3

#endif /* TALB_PLB_H */
