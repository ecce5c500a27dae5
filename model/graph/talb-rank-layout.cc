#include "talb-rank-layout.h"

#include <cassert>
#include <cctype>
#include <limits>

// The rule (Megatron-core's RankGenerator and generate_masked_orthogonal_rank_groups): list
// the dimensions fastest-varying first with their sizes; a rank is the mixed-radix number of
// its coordinates, each coordinate's stride the product of the sizes before it. The groups of
// a set of dimensions (the "mask") are the ranks that share every coordinate outside it:
// group k's members enumerate the masked coordinates (fastest first) on top of the offset of
// the k-th combination of the unmasked ones (fastest first). For expert layers Megatron lists
// ep and dp / ep in place of dp (adjacent in the order when ep > 1), so that the dense
// numbering is unchanged.

namespace talb
{
namespace graph
{

namespace
{

constexpr std::size_t
Index(Dim d)
{
    return static_cast<std::size_t>(d);
}

const char* const kDimNames[] = {"tp", "cp", "ep", "dp", "pp"};

} // namespace

// Checks the sizes, then the order string, then where ep stands, then fills the strides: each
// check with its own message, in the order a user fixes them (one read, hence its length).
bool
RankLayout::Make(const Parallelism& p, RankLayout* layout, std::string* error)
{
    auto fail = [error](const std::string& what) {
        if (error)
        {
            *error = what;
        }
        return false;
    };
    const uint32_t sizes[] = {p.tp, p.cp, p.ep, p.dp, p.pp};
    for (std::size_t d = 0; d < kDims; ++d)
    {
        if (sizes[d] == 0)
        {
            return fail(std::string(kDimNames[d]) + " is 0: every size must be >= 1");
        }
    }
    if (p.dp % p.ep != 0)
    {
        return fail("ep " + std::to_string(p.ep) + " does not divide dp " + std::to_string(p.dp) +
                    ": expert parallelism is carved out of dp");
    }
    uint64_t world = 1;
    for (uint32_t size : {p.tp, p.cp, p.dp, p.pp})
    {
        world *= size; // each factor < 2^32 and the product so far <= 2^32 - 1: no overflow
        if (world > std::numeric_limits<uint32_t>::max())
        {
            return fail("world size tp x cp x dp x pp does not fit 32 bits");
        }
    }

    RankLayout out;
    out.m_p = p;
    out.m_order.clear();
    std::string order;
    for (char c : p.order)
    {
        order += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    const std::string bad = "order '" + p.order + "': ";
    std::array<bool, kDims> named{};
    std::size_t begin = 0;
    while (true)
    {
        std::size_t end = order.find('-', begin);
        std::string token = order.substr(begin, end == std::string::npos ? end : end - begin);
        std::size_t d = 0;
        while (d < kDims && token != kDimNames[d])
        {
            ++d;
        }
        if (d == kDims)
        {
            return fail(bad + "'" + token + "' is not one of tp, cp, ep, dp, pp");
        }
        if (named[d])
        {
            return fail(bad + "names " + token + " twice");
        }
        named[d] = true;
        out.m_order.push_back(static_cast<Dim>(d));
        if (end == std::string::npos)
        {
            break;
        }
        begin = end + 1;
    }
    for (std::size_t d = 0; d < kDims; ++d)
    {
        if (!named[d])
        {
            return fail(bad + "does not name " + kDimNames[d] + " (it must name all five)");
        }
    }
    std::size_t ep = 0;
    std::size_t dp = 0;
    for (std::size_t i = 0; i < kDims; ++i)
    {
        if (out.m_order[i] == Dim::kEp)
        {
            ep = i;
        }
        else if (out.m_order[i] == Dim::kDp)
        {
            dp = i;
        }
    }
    // With ep 1 the split is trivial wherever ep stands (Megatron's "tp-cp-ep-pp-dp").
    if (p.ep > 1 && ep + 1 != dp && dp + 1 != ep)
    {
        return fail(bad + "ep and dp must be adjacent when ep > 1 (the expert split of dp)");
    }
    out.m_epFirst = ep < dp;

    out.m_size = {p.tp, p.cp, p.ep, p.dp / p.ep, p.pp};
    uint32_t stride = 1;
    for (Dim d : out.m_order)
    {
        out.m_stride[Index(d)] = stride;
        stride *= out.m_size[Index(d)];
    }
    *layout = out;
    return true;
}

uint32_t
RankLayout::World() const
{
    return m_p.tp * m_p.cp * m_p.dp * m_p.pp;
}

uint32_t
RankLayout::Size(Dim d) const
{
    switch (d)
    {
    case Dim::kTp:
        return m_p.tp;
    case Dim::kCp:
        return m_p.cp;
    case Dim::kEp:
        return m_p.ep;
    case Dim::kDp:
        return m_p.dp;
    case Dim::kPp:
        return m_p.pp;
    case Dim::kCount:
        break;
    }
    assert(false && "RankLayout::Size of no dimension");
    return 0;
}

uint32_t
RankLayout::Coord(uint32_t rank, Dim d) const
{
    assert(rank < World() && d < Dim::kCount);
    auto split = [&](Dim s) { return rank / m_stride[Index(s)] % m_size[Index(s)]; };
    if (d != Dim::kDp)
    {
        return split(d);
    }
    const uint32_t e = split(Dim::kEp);
    const uint32_t dd = split(Dim::kDp);
    return m_epFirst ? e + m_size[Index(Dim::kEp)] * dd : dd + m_size[Index(Dim::kDp)] * e;
}

uint32_t
RankLayout::ExpertDataCoord(uint32_t rank) const
{
    assert(rank < World());
    return rank / m_stride[Index(Dim::kDp)] % m_size[Index(Dim::kDp)];
}

uint32_t
RankLayout::RankOf(const std::array<uint32_t, kDims>& coords) const
{
    const uint32_t d = coords[Index(Dim::kDp)];
    assert(coords[Index(Dim::kTp)] < m_p.tp && coords[Index(Dim::kCp)] < m_p.cp && d < m_p.dp &&
           coords[Index(Dim::kPp)] < m_p.pp);
    std::array<uint32_t, kDims> split = coords;
    const uint32_t ep = m_size[Index(Dim::kEp)];
    const uint32_t edp = m_size[Index(Dim::kDp)];
    split[Index(Dim::kEp)] = m_epFirst ? d % ep : d / edp;
    split[Index(Dim::kDp)] = m_epFirst ? d / ep : d % edp;
    uint32_t rank = 0;
    for (std::size_t i = 0; i < kDims; ++i)
    {
        rank += split[i] * m_stride[i];
    }
    return rank;
}

std::vector<std::vector<uint32_t>>
RankLayout::Groups(const std::vector<Dim>& dims) const
{
    std::array<bool, kDims> mask{};
    for (Dim d : dims)
    {
        assert(d < Dim::kCount);
        mask[Index(d)] = true;
    }
    // kDp names the whole index d: both of its expert parts.
    mask[Index(Dim::kEp)] = mask[Index(Dim::kEp)] || mask[Index(Dim::kDp)];
    return MaskedGroups(mask);
}

std::vector<std::vector<uint32_t>>
RankLayout::ExpertDataGroups() const
{
    std::array<bool, kDims> mask{};
    mask[Index(Dim::kDp)] = true;
    return MaskedGroups(mask);
}

std::vector<std::vector<uint32_t>>
RankLayout::MaskedGroups(const std::array<bool, kDims>& mask) const
{
    // The offsets of every combination of the dimensions in (or out of) the mask, the fastest
    // dimension first: an odometer over their coordinates. Both lists come out increasing.
    auto offsets = [this](bool inMask, const std::array<bool, kDims>& m) {
        std::vector<Dim> dims;
        uint32_t count = 1;
        for (Dim d : m_order)
        {
            if (m[Index(d)] == inMask)
            {
                dims.push_back(d);
                count *= m_size[Index(d)];
            }
        }
        std::vector<uint32_t> out(count);
        std::array<uint32_t, kDims> digit{};
        uint32_t value = 0;
        for (uint32_t k = 0; k < count; ++k)
        {
            out[k] = value;
            for (Dim d : dims)
            {
                const std::size_t i = Index(d);
                value += m_stride[i];
                if (++digit[i] < m_size[i])
                {
                    break;
                }
                value -= m_stride[i] * m_size[i];
                digit[i] = 0;
            }
        }
        return out;
    };
    const std::vector<uint32_t> members = offsets(true, mask);
    const std::vector<uint32_t> bases = offsets(false, mask);
    std::vector<std::vector<uint32_t>> groups(bases.size());
    for (std::size_t g = 0; g < bases.size(); ++g)
    {
        groups[g].reserve(members.size());
        for (uint32_t offset : members)
        {
            groups[g].push_back(bases[g] + offset);
        }
    }
    return groups;
}

} // namespace graph
} // namespace talb
