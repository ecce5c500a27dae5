#ifndef TALB_CHAKRA_COMM_GROUPS_H
#define TALB_CHAKRA_COMM_GROUPS_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

/**
 * \file
 * \ingroup talb-graph
 * The communicator-group file of a Chakra trace, as ASTRA-sim reads it
 * (--comm-group-configuration): one JSON object whose keys are the groups' names, which the
 * nodes' pg_name attribute gives, and whose values are the groups' global ranks, in order:
 *
 *     {"0": [0, 1, 2, 3], "1": [4, 5, 6, 7]}
 *
 * Read (a small parser for exactly this shape: strings with the escapes \" \\ \/, non-negative
 * integers, whitespace) and written.
 */

namespace talb
{
namespace graph
{

/// The groups of one file, in the file's order.
struct ChakraCommGroups
{
    std::vector<std::pair<std::string, std::vector<uint32_t>>> groups;

    bool operator==(const ChakraCommGroups& o) const;
};

/**
 * Read \p text.
 * \param where the file's name in messages
 * \param error set to "WHERE:LINE: what is wrong" (not the shape above, a name twice, a group
 *        without ranks or with a rank twice, a rank past 2^32 - 2)
 * \return false on any problem (\p groups then empty)
 */
bool ReadChakraCommGroups(const std::string& text,
                          const std::string& where,
                          ChakraCommGroups* groups,
                          std::string* error);

/// ReadChakraCommGroups() of the file \p path (named by its path in messages).
bool ReadChakraCommGroupsFile(const std::string& path,
                              ChakraCommGroups* groups,
                              std::string* error);

/// \return \p groups in the format ReadChakraCommGroups() reads
std::string WriteChakraCommGroups(const ChakraCommGroups& groups);

} // namespace graph
} // namespace talb

#endif /* TALB_CHAKRA_COMM_GROUPS_H */
