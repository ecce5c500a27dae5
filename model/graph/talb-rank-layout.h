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
    kTp,  ///< tensor parallelism (with sequence parallelism: the same group)
    kCp,  ///< context parallelism
    kEp,  ///< expert parallelism (carved out of the data-parallel ranks for expert layers)
    kDp,  ///< data parallelism
    kPp,  ///< pipeline parallelism
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
 * into an expert index (d mod ep) and an expert-data-parallel index (d / ep), so expert groups
 * hold tensor-parallel-adjacent ranks and dense data-parallel groups are unchanged. ("ep"
 * before "dp" in the order gives Megatron's layout; "dp" before "ep" strides experts instead.)
 */
class RankLayout
{
  public:
    /**
     * \return false, with \p error saying which size or order is wrong, unless every size is
     * >= 1, ep divides dp, the order names each of tp, cp, ep, dp, pp once, and the world size
     * fits 32 bits
     */
    static bool Make(const Parallelism& p, RankLayout* layout, std::string* error);

    /// \return tp x cp x dp x pp
    uint32_t World() const;
    /// \return the size of dimension \p d (ep and dp as given: ep is part of dp)
    uint32_t Size(Dim d) const;
    /// \return rank \p rank's coordinate along \p d (kEp: d mod ep; kDp: the full dp index)
    uint32_t Coord(uint32_t rank, Dim d) const;
    /// \return the rank with coordinates \p coords (indexed by Dim; kEp ignored, inside kDp)
    uint32_t RankOf(const std::array<uint32_t, static_cast<size_t>(Dim::kCount)>& coords) const;

    /**
     * \return the groups along \p dims: ranks that share every coordinate outside \p dims,
     * each group in increasing rank order, groups ordered by their first rank. kEp alone gives
     * the expert-parallel groups; {kDp} the dense data-parallel groups; an "expert
     * data-parallel" group is ExpertDataGroups().
     */
    std::vector<std::vector<uint32_t>> Groups(const std::vector<Dim>& dims) const;
    /// \return the expert-data-parallel groups: same coordinates but d / ep
    std::vector<std::vector<uint32_t>> ExpertDataGroups() const;

  private:
    Parallelism m_p;
    std::vector<Dim> m_order; //!< fastest first, kEp included
};

} // namespace graph
} // namespace talb

#endif /* TALB_RANK_LAYOUT_H */
