/*
 * In-place edits of an IPv4 header inside an Ethernet frame, each keeping the header checksum
 * right by RFC 1624 incremental update. The TCP checksum needs no change: its pseudo-header
 * holds addresses, protocol and the TCP length, none of which an IPv4 option or the TOS byte
 * touches (inserting 8 option bytes raises IHL and total length by the same amount).
 */
#ifndef TALB_IPV4_EDIT_H
#define TALB_IPV4_EDIT_H

#include <cstddef>
#include <cstdint>

namespace talb
{

constexpr uint32_t kIpv4MaxHeaderLen = 60;

/// ECN field values (the low 2 bits of the TOS byte, RFC 3168).
constexpr uint8_t kEcnNotEct = 0;
constexpr uint8_t kEcnCe = 3;

/// Rewrites the DSCP (top 6 bits of the TOS byte), keeping the 2 ECN bits. ip: IPv4 header.
void SetDscp(uint8_t* ip, uint8_t dscp);

/// Sets the ECN field to CE (congestion experienced), keeping the DSCP. ip: IPv4 header.
void SetEcnCe(uint8_t* ip);

/**
 * Inserts the 8 option bytes at the end of the IPv4 header's options list and sets the DSCP.
 * The link-layer header and the header bytes before the insertion point move 8 bytes towards
 * the front (an EOL and the padding after it stay behind the new option): the caller
 * guarantees 8 writable bytes before frame and that the header has room (ipHeaderLen + 8 <=
 * 60). IHL, total length and the header checksum are updated.
 * \param frame first byte of the frame
 * \param l3 offset of the IPv4 header in the frame
 * \param ipHeaderLen the header's current length (IHL * 4)
 * \param at offset in the options area where the list ends (as reported by
 *        talb_ipv4_options_find on TALB_WIRE_NOT_FOUND; ipHeaderLen - 20 without options)
 * \param option TALB_OPT_LEN bytes
 * \return the frame's new first byte, frame - 8
 */
uint8_t* InsertOption(uint8_t* frame,
                      uint32_t l3,
                      uint32_t ipHeaderLen,
                      size_t at,
                      const uint8_t* option,
                      uint8_t dscp);

/**
 * Removes 8 option bytes found at optionOffset bytes into the IPv4 options area (as reported
 * by talb_ipv4_options_find). What precedes them moves 8 bytes towards the end. IHL, total
 * length and the header checksum are updated.
 * \return the frame's new first byte, frame + 8
 */
uint8_t* RemoveOption(uint8_t* frame, uint32_t l3, uint32_t ipHeaderLen, size_t optionOffset);

} // namespace talb

#endif /* TALB_IPV4_EDIT_H */
