#ifndef TALB_LB_CORE_HERMES_H
#define TALB_LB_CORE_HERMES_H

#include "talb-lb-core-settings.h"
#include "talb-lb-core.h"

#include <cstdint>
#include <vector>

namespace talb
{
namespace lb
{

/// What a leaf has learnt about one path towards a destination leaf.
struct RemotePath
{
    double ecnFraction{0}; ///< fraction of the path's packets that met a queue above the ECN mark
    int64_t delayNs{0};    ///< queueing delay along the path (the RTT above the base RTT)
    bool known{false};     ///< false: no (or only aged) feedback
    /// the path loses packets without congestion (Hermes's failure sensing; independent of
    /// known)
    bool failed{false};
};

/**
 * \ingroup talb-lb
 * The path sensing a leaf has learnt from the destination leaves (in the ns-3 model, from the
 * TalbHermesTag feedback), read by Hermes when it decides. Owned by the caller.
 */
class RemoteView
{
  public:
    virtual ~RemoteView() = default;
    /// \return the path via \p path (a spine index) towards \p dstLeaf as known at \p nowNs
    virtual RemotePath Path(uint32_t dstLeaf, uint32_t path, int64_t nowNs) const = 0;
};

/**
 * \ingroup talb-lb
 * Hermes (Zhang et al., SIGCOMM 2017) as a leaf policy: comprehensive sensing, cautious
 * rerouting.
 *
 * Sensing, per candidate uplink and destination leaf: the ECN fraction f of the path (the
 * share of its packets that met a queue above the marking threshold at some hop, fed back by
 * the destination leaf), its queueing delay d (the larger of the fed-back delay along the path
 * and the uplink's queue now, queue bytes x 8 / rate: Hermes's RTT above the base RTT), and
 * failure (the switch offers only live ports). As in Hermes a path is
 *  - good when f < ecnThreshold and d < delayLowNs,
 *  - congested when f >= ecnThreshold and d >= delayHighNs,
 *  - gray otherwise.
 * Without feedback a path's f is 0 and d its uplink's delay. A path the remote view reports
 * failed (Hermes's sensing of random drops: retransmissions without congestion) is failed,
 * whatever f and d.
 *
 * New flows (and flows idle for longer than idleNs) are placed on the best path: good before
 * gray before congested, then the least local DRE utilisation (Hermes: the least local sending
 * rate), ties broken at random. A flow whose port is down or whose path is failed moves at
 * once (to a path that is not failed, if there is one). Otherwise a flow moves
 * only when all of Hermes's cautious conditions hold: its path is congested, it has sent at
 * least sizeThresholdBytes, its rate over the last completed rate window is below
 * rateThreshold x the uplink's line rate (a fast flow gains little by moving), and a path that
 * is not congested is notably better: f lower by deltaEcn and d lower by deltaDelayNs. A move
 * restarts the flow's rate window, so a flow moves at most once per window.
 *
 * Tables are sized by Configure(); Select() does not allocate.
 */
class Hermes : public Policy
{
  public:
    /// Port id -> path index for a port that is no uplink.
    static constexpr uint32_t kNoPath = UINT32_MAX;

    struct Config
    {
        std::vector<uint32_t> portPath;    ///< per port id: spine index of an uplink, or kNoPath
        std::vector<uint64_t> portRateBps; ///< per port id: line rate in bit/s (> 0 for uplinks)
        uint32_t nLeaves{0};               ///< destination leaves the remote view knows
        uint32_t nPaths{0};                ///< paths (spines) per destination leaf
        uint32_t tableSize{4096};          ///< flow slots, a power of two in 1..2^24
        int64_t idleNs{1000000};           ///< a flow idle this long is new again, >= 1
        double ecnThreshold{0.4};          ///< T_ECN: f below it may be good, at or above congested
        int64_t delayLowNs{20000};         ///< T_RTT_low: d below it (and f low) is good
        int64_t delayHighNs{40000};        ///< T_RTT_high: d at or above it (and f high) congested
        double deltaEcn{0.05};             ///< "notably better": f lower by at least this ...
        int64_t deltaDelayNs{20000};       ///< ... and d lower by at least this
        uint64_t sizeThresholdBytes{64000}; ///< S: bytes a flow must have sent to move
        double rateThreshold{0.3};          ///< R: a flow faster than R x line rate stays
        int64_t rateWindowNs{100000};       ///< window over which a flow's rate is measured
    };

    /// How Hermes sees one path.
    enum PathType
    {
        GOOD = 0,
        GRAY = 1,
        CONGESTED = 2,
        FAILED = 3 ///< losing packets without congestion (placed last, left at once)
    };

    /// \return nullptr when \p config is usable, else what is wrong with it
    static const char* Check(const Config& config);

    /// \return the settings of Config: its ns-3 attributes and the switch's flags
    static const SettingTable<Config>& Settings();

    /// Sizes the tables (the only allocation). \return false when Check() fails
    bool Configure(const Config& config);

    /// \param remote the remote path congestion (outlives the policy's use; null: none known)
    void BindRemote(const RemoteView* remote);

    /// \return how port \p port towards \p dstLeaf looks at \p nowNs
    PathType Classify(uint32_t port, uint32_t dstLeaf, int64_t nowNs) const;

    /// \return the rate (bit/s) of flow \p flowHash over its last completed window (0: none)
    double RateOf(uint32_t flowHash) const;

  private:
    uint32_t DoSelect(const PacketInfo& packet, const Candidates& candidates) override;

    /// The sensed state of one path.
    struct Sense
    {
        double fraction{0};  ///< ECN fraction f
        int64_t delayNs{0};  ///< local queueing delay d
        double localUtil{0}; ///< local DRE utilisation (placement key)
        PathType type{GOOD};
    };

    Sense Sensed(uint32_t port, uint32_t dstLeaf, int64_t nowNs) const;
    /// \return what the remote view knows of \p port's path towards \p dstLeaf (none for a port
    /// that is no uplink, or without a view)
    RemotePath Remote(uint32_t port, uint32_t dstLeaf, int64_t nowNs) const;
    /// \return true when the remote view reports \p port's path towards \p dstLeaf failed (the
    /// per-packet check of a placed flow: no sensing beyond it)
    bool PathFailed(uint32_t port, uint32_t dstLeaf, int64_t nowNs) const;
    /// \return the best candidate for a new or displaced flow
    uint32_t Place(const PacketInfo& packet, const Candidates& candidates);
    /// \return a notably better, uncongested candidate than \p current, or kNoPort
    uint32_t BetterThan(uint32_t current, const PacketInfo& packet, const Candidates& candidates);

    /// One flow.
    struct Entry
    {
        uint32_t flowHash{0};     ///< owner flow
        uint32_t port{0};         ///< current port
        uint64_t sentBytes{0};    ///< bytes sent since the flow (re)started
        int64_t windowStartNs{0}; ///< start of the current rate window
        uint64_t windowBytes{0};  ///< bytes in the current rate window
        double rateBps{0};        ///< rate over the last completed window (0: none yet)
        int64_t lastSeenNs{0};    ///< time of the flow's last packet
        bool valid{false};        ///< the slot holds a flow
    };

    Entry& Slot(uint32_t flowHash)
    {
        return m_entries[Mix32(flowHash ^ 0x165667b1u) & m_mask];
    }

    const Entry* Find(uint32_t flowHash) const;

    Config m_config;
    const RemoteView* m_remote{nullptr};
    std::vector<Entry> m_entries;
    uint32_t m_mask{0};
};

} // namespace lb
} // namespace talb

#endif /* TALB_LB_CORE_HERMES_H */
