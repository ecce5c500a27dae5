#ifndef TALB_RANK_LAYOUT_H
#define TALB_RANK_LAYOUT_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace talb
{
namespace graph
{

/// A parallelism dimension of a job.
enum class Dim : uint8_t
{
    kTp, ///< tensor parallelism (with sequence parallelism: the same group)
    kCp, ///< context parallelism
    kEp, ///< expert parallelism (carved out of the data-parallel ranks for expert layers)
    kDp, ///< data parallelism
    kPp, ///< pipeline parallelism
    kCount,
};

/// The sizes of a job's parallelism and the order its ranks are numbered in.
struct Parallelism
{
    uint32_t tp{1};
    uint32_t cp{1};
    uint32_t ep{1};
    uint32_t dp{1};
    uint32_t pp{1};
    /// Dimensions from fastest-varying to slowest, '-'-separated; Megatron-core's default:
    /// tensor-parallel ranks adjacent (one server), pipeline stages farthest apart.
    std::string order{"tp-cp-ep-dp-pp"};
};

/**
 * \ingroup talb-graph
 * Megatron-core's rank numbering (its RankGenerator): a job of tp x cp x dp x pp ranks whose
 * coordinates vary in the given order, fastest first. Expert parallelism is carved out of the
 * data-parallel ranks: ep divides dp, and for expert layers the data-parallel index d splits
 * into an expert index e and an expert-data-parallel index d', adjacent in the order (when
 * ep > 1), so dense data-parallel groups are unchanged. With "ep" before "dp" (Megatron's
 * default) e = d mod ep and d' = d / ep: expert groups hold neighbouring data-parallel ranks;
 * with "dp" before "ep", d' = d mod (dp / ep) and e = d / (dp / ep): experts are strided.
 *
 * This is Megatron-core's single-generator form (ep inside dp, the expert groups taken with
 * its independent_ep flag); later releases build a second generator for expert layers (expert
 * tensor size, ep, expert dp = world / (expert tp x ep x pp), cp 1), which numbers ranks the
 * same way when cp = 1 and the expert tensor size is tp.
 */
class RankLayout
{
  public:
    /**
     * \return false, with \p error (when not null) saying which size or order is wrong, unless
     * every size is >= 1, ep divides dp, the order names each of tp, cp, ep, dp, pp once (any
     * case) with ep and dp adjacent when ep > 1 (as Megatron-core requires: d splits into e and
     * d'; with ep 1 the split is trivial), and the world size fits 32 bits; \p layout is set
     * only on success
     */
    static bool Make(const Parallelism& p, RankLayout* layout, std::string* error);

    /// \return tp x cp x dp x pp
    uint32_t World() const;
    /// \return the size of dimension \p d (ep and dp as given: ep is part of dp)
    uint32_t Size(Dim d) const;
    /// \return rank \p rank's coordinate along \p d (kEp: e; kDp: the full dp index d)
    uint32_t Coord(uint32_t rank, Dim d) const;
    /// \return rank \p rank's expert-data-parallel index d' (see the class comment)
    uint32_t ExpertDataCoord(uint32_t rank) const;
    /// \return the rank with coordinates \p coords (indexed by Dim; kEp ignored, inside kDp)
    uint32_t RankOf(const std::array<uint32_t, static_cast<size_t>(Dim::kCount)>& coords) const;

    /**
     * \return the groups along \p dims: ranks that share every coordinate outside \p dims,
     * each group in increasing rank order, groups ordered by their first rank (Megatron-core's
     * get_ranks). kEp alone gives the expert-parallel groups, {kTp, kEp} the tensor-and-expert
     * ones; kDp means the whole data-parallel index d (with or without kEp): {kDp} gives the
     * dense data-parallel groups; an "expert data-parallel" group is ExpertDataGroups().
     * O(World()).
     */
    std::vector<std::vector<uint32_t>> Groups(const std::vector<Dim>& dims) const;
    /// \return the expert-data-parallel groups: ranks that share every coordinate but d'
    std::vector<std::vector<uint32_t>> ExpertDataGroups() const;

  private:
    static constexpr std::size_t kDims = static_cast<size_t>(Dim::kCount);

    /// \return the groups of the ranks that share every split coordinate outside \p mask
    std::vector<std::vector<uint32_t>> MaskedGroups(const std::array<bool, kDims>& mask) const;

    Parallelism m_p;
    /// Fastest first, kEp included; kDp stands for d' here (the order of a default Parallelism).
    std::vector<Dim> m_order{Dim::kTp, Dim::kCp, Dim::kEp, Dim::kDp, Dim::kPp};
    std::array<uint32_t, kDims> m_size{1, 1, 1, 1, 1};   //!< per Dim; kDp: dp / ep (d')
    std::array<uint32_t, kDims> m_stride{1, 1, 1, 1, 1}; //!< per Dim: rank step of one unit
    bool m_epFirst{true};                                //!< "ep" before "dp" in the order
};

} // namespace graph
} // namespace talb

#endif /* TALB_RANK_LAYOUT_H */
