"""check-pcap.py on synthetic captures: passes a correct one, fails each kind of mistake."""
import os
import struct
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SENDER, RECEIVER = (10, 250, 0, 1), (10, 250, 0, 2)
DSCP = [46, 40, 32, 24, 16, 12, 10, 8]


def csum(buf):
    if len(buf) % 2:
        buf += b'\0'
    s = sum(struct.unpack('!%dH' % (len(buf) // 2), buf))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def packet(src, dst, seq, flags, payload=b'', option=None, tos=0):
    opts = b''
    if option is not None:
        oflags, prio, tensor = option
        opts = struct.pack('!BBBBI', 0x9E, 8, 0x10 | oflags, prio, tensor)
    ihl = 20 + len(opts)
    tcp = struct.pack('!HHIIBBHHH', 40000, 5000, seq & 0xFFFFFFFF, 1, 5 << 4, flags, 65535, 0, 0)
    pseudo = bytes(src) + bytes(dst) + struct.pack('!BBH', 0, 6, len(tcp) + len(payload))
    tcp = tcp[:16] + struct.pack('!H', csum(pseudo + tcp + payload)) + tcp[18:]
    ip = struct.pack('!BBHHHBBH4s4s', 0x40 | ihl // 4, tos, ihl + len(tcp) + len(payload), 1,
                     0x4000, 64, 6, 0, bytes(src), bytes(dst)) + opts
    ip = ip[:10] + struct.pack('!H', csum(ip)) + ip[12:]
    return b'\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00' + ip + tcp + payload


def frame(tensor, prio, flags, payload):
    return b'TALB' + struct.pack('!BBBBII', 1, prio, flags, 0, tensor, len(payload)) + payload


def write_pcap(path, frames):
    with open(path, 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for fr in frames:
            f.write(struct.pack('<IIII', 0, 0, len(fr), len(fr)) + fr)


MESSAGES = [((1 << 24) | i, i % 8, 3000 + 100 * i) for i in range(4)]


def capture(tamper=None, mss=1400, hello=False):
    """A correct capture of MESSAGES, each frame FIRST; tamper(index, kwargs) may change a packet.
    With hello, the stream starts with the NCCL plugin's handshake frame (tensor 0, FIRST|LAST)."""
    stream, owners = b'', []
    if hello:
        owners.append((0, 0, 7, 12, 3))
        stream += frame(0, 7, 3, b'TLBH' + struct.pack('!Q', 0x0123456789ABCDEF))
    for tensor, prio, size in MESSAGES:
        owners.append((len(stream), tensor, prio, size, 1))
        stream += frame(tensor, prio, 1, bytes((tensor + j) & 0xFF for j in range(size)))
    isn = 0xFFFFF000  # the stream crosses the sequence wrap
    pkts = [packet(SENDER, RECEIVER, isn, 0x02), packet(RECEIVER, SENDER, 77, 0x12)]
    for i, off in enumerate(range(0, len(stream), mss)):
        seg = stream[off:off + mss]
        start, tensor, prio, size, fflags = [o for o in owners if o[0] <= off][-1]
        flags = 1 if off <= start + 16 < off + len(seg) else 0
        if fflags & 2 and off <= start + 16 + size - 1 < off + len(seg):
            flags |= 2
        kw = dict(option=(flags, prio, tensor), tos=DSCP[prio] << 2)
        if tamper:
            tamper(i, kw)
        pkts.append(packet(SENDER, RECEIVER, isn + 1 + off, 0x18, seg, **kw))
        pkts.append(packet(RECEIVER, SENDER, 78, 0x10))
    return pkts, len(range(0, len(stream), mss))


def run(tmp_path, pkts, *extra, logged=MESSAGES):
    pcap, log = tmp_path / 'w.pcap', tmp_path / 'send.csv'
    write_pcap(pcap, pkts)
    log.write_text('message,tensor_id,priority,bytes\n' +
                   ''.join('%d,%d,%d,%d\n' % (i, t, p, b) for i, (t, p, b) in enumerate(logged)))
    r = subprocess.run([sys.executable, os.path.join(HERE, 'check-pcap.py'), str(pcap),
                        '--log=%s' % log, '--sender=10.250.0.1', '--receiver=10.250.0.2'] +
                       list(extra), capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def test_correct_capture_passes_and_counts_match(tmp_path):
    pkts, n = capture()
    rc, out = run(tmp_path, pkts, '--expect-tagged=%d' % n, '--expect-stripped=%d' % n,
                  '--expect-untracked=0')
    assert rc == 0, out
    assert 'check-pcap: OK' in out


def test_plugin_handshake_frame_is_not_a_message(tmp_path):
    pkts, n = capture(hello=True)
    rc, out = run(tmp_path, pkts, '--expect-tagged=%d' % n)
    assert rc == 0, out
    assert '(1 handshakes)' in out
    # A handshake-looking frame later in the stream is a message like any other.
    rc, out = run(tmp_path, pkts, logged=MESSAGES + [(0, 7, 12)])
    assert rc == 1 and 'differ from the log' in out, out


@pytest.mark.parametrize('what,tamper,message', [
    ('no option', lambda i, kw: kw.update(option=None) if i == 3 else None, 'without the option'),
    ('wrong tensor', lambda i, kw: kw.update(option=(0, kw['option'][1], 99)) if i == 5 else None,
     'expected'),
    ('wrong priority', lambda i, kw: kw.update(option=(0, 7, kw['option'][2])) if i == 4 else None,
     'expected'),
    ('wrong flags', lambda i, kw: kw.update(option=(2, kw['option'][1], kw['option'][2]))
     if i == 4 else None, 'expected'),
    ('wrong DSCP', lambda i, kw: kw.update(tos=0) if i == 2 else None, 'DSCP 0'),
])
def test_each_mistake_fails(tmp_path, what, tamper, message):
    pkts, _ = capture(tamper)
    rc, out = run(tmp_path, pkts)
    assert rc == 1, what + ': ' + out
    assert message in out, out


def test_counter_mismatch_fails(tmp_path):
    pkts, n = capture()
    rc, out = run(tmp_path, pkts, '--expect-tagged=%d' % (n - 1))
    assert rc == 1 and 'agent counter tagged' in out, out


def test_bad_checksum_and_oversize_fail(tmp_path):
    pkts, _ = capture()
    bad = bytearray(pkts[3])
    bad[14 + 10] ^= 0xFF  # IPv4 header checksum
    pkts[3] = bytes(bad)
    rc, out = run(tmp_path, pkts, '--mtu=1000')
    assert rc == 1
    assert 'bad IPv4 header checksum' in out and 'exceeds the MTU 1000' in out, out


def test_missing_packet_and_wrong_log_fail(tmp_path):
    pkts, _ = capture()
    rc, out = run(tmp_path, pkts[:4] + pkts[6:])
    assert rc == 1 and 'hole' in out, out
    rc, out = run(tmp_path, capture()[0], logged=MESSAGES + [(5, 5, 5)])
    assert rc == 1 and 'differ from the log' in out, out


def test_dscp_only_mode(tmp_path):
    pkts, n = capture(lambda i, kw: kw.update(option=None))
    rc, out = run(tmp_path, pkts, '--dscp-only', '--expect-tagged=%d' % n, '--expect-stripped=0')
    assert rc == 0, out
    pkts, _ = capture()
    rc, out = run(tmp_path, pkts, '--dscp-only')
    assert rc == 1 and 'option in DSCP-only mode' in out, out


def test_not_a_pcap_is_a_usage_error(tmp_path):
    (tmp_path / 'x').write_bytes(b'garbage' * 10)
    r = subprocess.run([sys.executable, os.path.join(HERE, 'check-pcap.py'), str(tmp_path / 'x'),
                        '--log=/dev/null', '--sender=1.1.1.1', '--receiver=2.2.2.2'],
                       capture_output=True, text=True)
    assert r.returncode == 2 and 'not a classic pcap' in r.stderr
