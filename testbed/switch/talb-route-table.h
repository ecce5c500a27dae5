/*
 * Longest-prefix match over a switch's few routes, without a linear scan: one open-addressing
 * hash table keyed by (prefix, length), probed once per prefix length that some route uses,
 * longest first. A lookup costs one hash probe per distinct length (a leaf-spine uses two or
 * three: /32 hosts, a /24 fabric, maybe a default route). Built once; lookups never allocate.
 */
#ifndef TALB_ROUTE_TABLE_H
#define TALB_ROUTE_TABLE_H

#include <cstdint>
#include <vector>

namespace talb
{

class RouteTable
{
  public:
    static constexpr int kNoRoute = -1;

    /**
     * Builds the table from (prefix, length) pairs; entry i's value is i.
     * \param prefixes host-order prefixes with their host bits zero
     * \param lengths their lengths, 0..32, no pair repeated
     */
    void Build(const std::vector<uint32_t>& prefixes, const std::vector<uint8_t>& lengths);

    /// \return the index of the longest prefix containing \p address (host order), or kNoRoute
    int Lookup(uint32_t address) const;

  private:
    struct Slot
    {
        uint32_t prefix{0};
        uint8_t length{0};
        int value{kNoRoute}; ///< kNoRoute: empty slot
    };

    uint32_t Hash(uint32_t prefix, uint8_t length) const;

    std::vector<Slot> m_slots;
    uint32_t m_mask{0};
    uint8_t m_lengths[33]{}; ///< distinct lengths in use, longest first
    uint32_t m_nLengths{0};
};

} // namespace talb

#endif /* TALB_ROUTE_TABLE_H */
