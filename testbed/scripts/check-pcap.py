#!/usr/bin/python3
"""Checks a capture of the wire between two talb-agents against the sender's message log.

For every TCP connection from --sender to --receiver (seen from its SYN), the script rebuilds the
byte stream from the capture, parses the TaLB frames in it, and checks that
  - the frames are exactly the messages of the log (tensor id, priority, bytes), after the NCCL
    plugin's connection handshake (a first frame of tensor 0 whose 12-byte payload starts with
    "TLBH"), which the log does not list;
  - every data packet carries the TaLB IPv4 option of the frame owning its first payload byte
    (tensor id, priority, FIRST/LAST flags) and the DSCP of that priority (with --dscp-only: the
    DSCP and no option); the only exemption is the agent's documented one: a packet starting
    inside a frame header that neither it nor an earlier packet completes;
  - every IPv4 header checksum and every TCP checksum is right, and no packet exceeds the MTU;
  - packets in other directions carry no option unless they hold data;
and, when given, that the agents' counters equal the capture's counts.
Plain stdlib (struct): no scapy.
"""
import argparse
import bisect
import csv
import struct
import sys
from array import array

TALB_OPT_TYPE = 0x9E
TALB_OPT_LEN = 8
FRAME_LEN = 16
FLAG_FIRST, FLAG_LAST = 1, 2
HELLO_MAGIC, HELLO_PAYLOAD = b'TLBH', 12  # testbed/nccl-plugin/talb-net-frame.h
DEFAULT_DSCP = [46, 40, 32, 24, 16, 12, 10, 8]  # model/wire/talb-wire.h talb_dscp_from_priority


def read_pcap(path):
    """Yields the Ethernet frames of a classic pcap file."""
    with open(path, 'rb') as f:
        data = f.read()
    if len(data) < 24:
        raise ValueError('%s: not a pcap file (%d bytes)' % (path, len(data)))
    magic = data[:4]
    if magic in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1'):
        endian = '<'
    elif magic in (b'\xa1\xb2\xc3\xd4', b'\xa1\xb2\x3c\x4d'):
        endian = '>'
    else:
        raise ValueError('%s: not a classic pcap file (magic %s)' % (path, magic.hex()))
    linktype = struct.unpack(endian + 'I', data[20:24])[0]
    if linktype != 1:
        raise ValueError('%s: link type %d, expected Ethernet (1)' % (path, linktype))
    at = 24
    while at + 16 <= len(data):
        incl, orig = struct.unpack(endian + 'II', data[at + 8:at + 16])
        if incl != orig:
            raise ValueError('%s: packet at byte %d truncated by the capture (snaplen)' % (path, at))
        yield data[at + 16:at + 16 + incl]
        at += 16 + incl


def ones_sum(buf):
    if len(buf) % 2:
        buf = buf + b'\0'
    words = array('H', buf)
    if sys.byteorder == 'little':
        words.byteswap()
    s = sum(words)
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def parse(frame):
    """Returns a dict for an IPv4 packet (TCP fields when TCP), else None."""
    at, ethertype = 14, struct.unpack('!H', frame[12:14])[0]
    while ethertype in (0x8100, 0x88A8):
        ethertype = struct.unpack('!H', frame[at + 2:at + 4])[0]
        at += 4
    if ethertype != 0x0800:
        return None
    ip = frame[at:]
    ihl = (ip[0] & 0xF) * 4
    total = struct.unpack('!H', ip[2:4])[0]
    p = {'ip': ip[:total], 'ihl': ihl, 'total': total, 'tos': ip[1], 'proto': ip[9],
         'src': '.'.join(map(str, ip[12:16])), 'dst': '.'.join(map(str, ip[16:20])),
         'options': ip[20:ihl]}
    if ip[9] == 6:
        tcp = ip[ihl:total]
        doff = (tcp[12] >> 4) * 4
        p.update(sport=struct.unpack('!H', tcp[0:2])[0], dport=struct.unpack('!H', tcp[2:4])[0],
                 seq=struct.unpack('!I', tcp[4:8])[0], flags=tcp[13], payload=tcp[doff:])
    return p


def find_option(options):
    """The TaLB option's (flags, priority, tensor id), None when absent; raises when malformed."""
    i = 0
    while i < len(options):
        t = options[i]
        if t == 0:
            return None
        if t == 1:
            i += 1
            continue
        if i + 1 >= len(options) or options[i + 1] < 2 or options[i + 1] > len(options) - i:
            raise ValueError('malformed IPv4 options %s' % options.hex())
        if t == TALB_OPT_TYPE:
            o = options[i:i + options[i + 1]]
            if len(o) != TALB_OPT_LEN or o[2] >> 4 != 1:
                raise ValueError('bad TaLB option %s' % o.hex())
            return (o[2] & 0xF, o[3] & 7, struct.unpack('!I', o[4:8])[0])
        i += options[i + 1]
    return None


def tcp_checksum_ok(p):
    ip, ihl = p['ip'], p['ihl']
    pseudo = ip[12:20] + struct.pack('!BBH', 0, 6, p['total'] - ihl)
    return ones_sum(pseudo + ip[ihl:p['total']]) == 0xFFFF


class Connection:
    """One direction of a TCP connection: its segments, rebuilt stream and frames."""

    def __init__(self, isn):
        self.base = (isn + 1) & 0xFFFFFFFF
        self.packets = []  # (offset, payload, option, dscp)
        self.top = 0

    def offset(self, seq):
        rel = (seq - self.base - self.top) & 0xFFFFFFFF
        if rel >= 1 << 31:
            rel -= 1 << 32
        return self.top + rel

    def add(self, seq, payload, option, dscp):
        off = self.offset(seq)
        self.top = max(self.top, off + len(payload))
        self.packets.append((off, payload, option, dscp))

    def frames(self):
        stream = bytearray(self.top)
        have = bytearray(self.top)
        for off, payload, _, _ in self.packets:
            stream[off:off + len(payload)] = payload
            have[off:off + len(payload)] = b'\1' * len(payload)
        if 0 in have:
            raise ValueError('stream has a hole at offset %d: capture incomplete' % have.index(0))
        frames, at = [], 0
        while at < len(stream):
            h = bytes(stream[at:at + FRAME_LEN])
            if len(h) < FRAME_LEN or h[:4] != b'TALB' or h[4] != 1 or h[5] > 7 or h[7] != 0:
                raise ValueError('bad frame header at stream offset %d: %s' % (at, h.hex()))
            tensor, length = struct.unpack('!II', h[8:16])
            hello = (at == 0 and tensor == 0 and length == HELLO_PAYLOAD and
                     bytes(stream[FRAME_LEN:FRAME_LEN + 4]) == HELLO_MAGIC)
            frames.append({'start': at, 'len': length, 'prio': h[5], 'flags': h[6],
                           'tensor': tensor, 'hello': hello})
            at += FRAME_LEN + length
        if at != len(stream):
            raise ValueError('stream ends inside a frame (%d of %d bytes)' % (len(stream), at))
        return frames


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('pcap')
    ap.add_argument('--log', required=True, help="sender's CSV: message,tensor_id,priority,bytes")
    ap.add_argument('--sender', required=True, help='IPv4 address of the tagged sender')
    ap.add_argument('--receiver', required=True, help='IPv4 address of the receiver')
    ap.add_argument('--dscp-map', default=','.join(map(str, DEFAULT_DSCP)))
    ap.add_argument('--mtu', type=int, default=1500)
    ap.add_argument('--dscp-only', action='store_true', help='the agent ran with --dscp-only')
    ap.add_argument('--expect-tagged', type=int, help="sending agent's tagged counter")
    ap.add_argument('--expect-untracked', type=int, help="sending agent's untracked counter")
    ap.add_argument('--expect-stripped', type=int, help="receiving agent's stripped counter")
    args = ap.parse_args()
    dscp_map = [int(x) for x in args.dscp_map.split(',')]
    if len(dscp_map) != 8:
        ap.error('--dscp-map needs 8 values')

    errors = []
    conns = {}
    counts = {'ipv4': 0, 'data': 0, 'with_option': 0, 'labelled': 0, 'other_with_option': 0}
    for n, frame in enumerate(read_pcap(args.pcap), 1):
        p = parse(frame)
        if p is None:
            continue
        counts['ipv4'] += 1
        if ones_sum(p['ip'][:p['ihl']]) != 0xFFFF:
            errors.append('packet %d: bad IPv4 header checksum' % n)
        if p['total'] > args.mtu:
            errors.append('packet %d: IPv4 length %d exceeds the MTU %d' % (n, p['total'], args.mtu))
        try:
            option = find_option(p['options'])
        except ValueError as e:
            errors.append('packet %d: %s' % (n, e))
            continue
        if p['proto'] != 6:
            continue
        if not tcp_checksum_ok(p):
            errors.append('packet %d: bad TCP checksum' % n)
        forward = p['src'] == args.sender and p['dst'] == args.receiver
        key = (p['sport'], p['dport'])
        if forward and p['flags'] & 0x02:
            conns[key] = Connection(p['seq'])
        if not forward or not p['payload']:
            if option is not None:
                counts['other_with_option'] += 1
                if not p['payload']:
                    errors.append('packet %d: option on a packet without data' % n)
            continue
        counts['data'] += 1
        counts['with_option'] += option is not None
        if key not in conns:
            errors.append('packet %d: data of connection %s before its SYN' % (n, key))
            continue
        conns[key].add(p['seq'], p['payload'], option, p['tos'] >> 2)

    exempt = 0
    frames_seen = []
    for key, c in sorted(conns.items()):
        try:
            frames = c.frames()
        except ValueError as e:
            errors.append('connection %s: %s' % (key, e))
            continue
        frames_seen += frames
        starts = [f['start'] for f in frames]
        known = 0  # stream offset up to which an agent in front of this capture has parsed
        for off, payload, option, dscp in c.packets:
            end = off + len(payload)
            f = frames[bisect.bisect_right(starts, off) - 1]
            header_end = f['start'] + FRAME_LEN
            known = max(known, end)
            if off < header_end and known < header_end:
                exempt += 1
                if option is not None:
                    errors.append('connection %s offset %d: tagged inside an unseen header' % (key, off))
                continue
            counts['labelled'] += 1
            first = header_end if f['len'] else header_end - 1
            last = header_end + f['len'] - 1
            flags = (FLAG_FIRST if f['flags'] & FLAG_FIRST and off <= first < end else 0) | \
                    (FLAG_LAST if f['flags'] & FLAG_LAST and off <= last < end else 0)
            want = (flags, f['prio'], f['tensor'])
            if args.dscp_only:
                if option is not None:
                    errors.append('connection %s offset %d: option in DSCP-only mode' % (key, off))
            elif option is None:
                errors.append('connection %s offset %d: data packet without the option' % (key, off))
            elif option != want:
                errors.append('connection %s offset %d: option (flags, priority, tensor) %s, '
                              'expected %s' % (key, off, option, want))
            if dscp != dscp_map[f['prio']]:
                errors.append('connection %s offset %d: DSCP %d, expected %d for priority %d'
                              % (key, off, dscp, dscp_map[f['prio']], f['prio']))

    with open(args.log) as fh:
        logged = sorted((int(r['tensor_id']), int(r['priority']), int(r['bytes']))
                        for r in csv.DictReader(fh))
    got = sorted((f['tensor'], f['prio'], f['len']) for f in frames_seen if not f['hello'])
    if got != logged:
        errors.append('frames on the wire %s differ from the log %s' % (got[:5], logged[:5]))
    if not conns:
        errors.append('no TCP connection from %s to %s in the capture' % (args.sender, args.receiver))

    for name, want, have in (('tagged', args.expect_tagged, counts['labelled']),
                             ('untracked', args.expect_untracked, exempt),
                             ('stripped', args.expect_stripped, counts['with_option'])):
        if want is not None and want != have:
            errors.append('agent counter %s=%d, capture shows %d' % (name, want, have))

    print('check-pcap: %d IPv4 packets, %d connection(s), %d frames (%d handshakes), %d data '
          'packets: %d labelled, %d with the option, %d exempt; %d other packets with the option'
          % (counts['ipv4'], len(conns), len(frames_seen), sum(f['hello'] for f in frames_seen),
             counts['data'], counts['labelled'], counts['with_option'], exempt,
             counts['other_with_option']))
    for e in errors[:20]:
        print('check-pcap: error: %s' % e)
    if len(errors) > 20:
        print('check-pcap: ... %d more errors' % (len(errors) - 20))
    print('check-pcap: %s' % ('OK' if not errors else 'FAILED'))
    return 0 if not errors else 1


if __name__ == '__main__':
    try:
        sys.exit(main())
    except (OSError, ValueError) as e:
        print('check-pcap: %s' % e, file=sys.stderr)
        sys.exit(2)
