#!/usr/bin/env python3
"""Writes the hand-made seeds of test/fuzz/corpus/<target>/seed-*.

Each seed is a readable recipe in the byte script its target reads (talb-fuzz.h's Input: U8,
U16 and U32 big-endian; Range(lo, hi) is one byte when hi - lo < 256, else two). The fuzzers
start from these; inputs they found (crash-*, regression-*) sit next to them and are kept.

    python3 test/fuzz/make-seeds.py        # rewrites the seed-* files only
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def u8(v):
    return bytes([v & 0xFF])


def u16(v):
    return struct.pack('>H', v & 0xFFFF)


def u32(v):
    return struct.pack('>I', v & 0xFFFFFFFF)


def rng(v, lo, hi):
    """The bytes that make Input::Range(lo, hi) return v."""
    assert lo <= v <= hi
    return u8(v - lo) if hi - lo + 1 <= 256 else u16(v - lo)


def option(tensor, prio, flags, version=1):
    return bytes([0x9E, 8, (version << 4) | flags, prio]) + u32(tensor)


def frame(tensor, prio, flags, length, magic=b'TALB', version=1, reserved=0):
    return magic + bytes([version, prio, flags, reserved]) + u32(tensor) + u32(length)


def write(target, name, data):
    folder = os.path.join(HERE, 'corpus', target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, 'seed-' + name), 'wb') as f:
        f.write(data)


def wire_seeds():
    write('wire-option', 'valid-first', option(0x01000007, 0, 1))
    write('wire-option', 'valid-last-prio7', option(0xFF123456, 7, 2))
    write('wire-option', 'reserved-bits', option(5, 3, 3)[:3] + bytes([0xF3]) + u32(5))
    write('wire-option', 'version2', option(5, 3, 0, version=2))
    write('wire-option', 'bad-flags', option(5, 3, 0xC))
    write('wire-option', 'truncated', option(5, 3, 0)[:5])
    write('wire-option', 'bad-length', bytes([0x9E, 12]) + bytes(10))

    rr = bytes([7, 7, 4]) + bytes(4)  # record route, one slot
    write('wire-options', 'only', option(9, 1, 0))
    write('wire-options', 'after-nops', bytes([1, 1, 1, 1]) + option(9, 1, 0))
    write('wire-options', 'after-rr', rr + bytes([1]) + option(9, 1, 0))
    write('wire-options', 'odd-offset', rr + option(9, 1, 0) + bytes([0]))
    write('wire-options', 'eol-first', bytes([0, 0, 0, 0]) + option(9, 1, 0))
    write('wire-options', 'overlong', bytes([7, 40, 4]) + bytes(5))
    write('wire-options', 'zero-length', bytes([0x44, 0]) + bytes(6))
    write('wire-options', 'talb-len-12', bytes([0x9E, 12]) + bytes(10))

    write('wire-frame', 'valid', frame(0x02000001, 2, 1, 1 << 20))
    write('wire-frame', 'empty-payload', frame(3, 7, 3, 0))
    write('wire-frame', 'bad-magic', frame(3, 0, 0, 8, magic=b'TALC'))
    write('wire-frame', 'version2', frame(3, 0, 0, 8, version=2))
    write('wire-frame', 'reserved', frame(3, 0, 0, 8, reserved=1))
    write('wire-frame', 'prio8', frame(3, 8, 0, 8))
    write('wire-frame', 'short', frame(3, 0, 0, 8)[:15])


def stream_piece(tensor, prio, flags, length, limit):
    """A frame piece of the frame-stream / plugin-rx scripts (payload made by the target)."""
    return u8(1) + u8(prio) + u8(flags) + u32(tensor) + rng(length, 0, limit)


def raw_piece(data):
    return u8(0) + rng(len(data), 1, 40) + data


def frame_stream_seeds():
    pieces = [stream_piece(0x01000000 + i, i % 8, (1 if i == 0 else 0) | (2 if i == 3 else 0),
                           [100, 0, 599, 16][i], 600) for i in range(4)]
    body = rng(len(pieces), 0, 40) + b''.join(pieces)
    # Chunks: 1, 15, 16, 17, 1500 bytes (the first byte of each: 1 = consume).
    chunks = b''.join(u8(1) + rng(n, 0, 1500) for n in (1, 15, 16, 17, 1500))
    write('frame-stream', 'four-frames-odd-chunks', body + chunks)
    # A skip inside the first payload (allowed) and one across the next header (refused).
    skips = u8(1) + rng(20, 0, 1500) + u8(0) + rng(50, 0, 1500) + u8(0) + rng(200, 0, 1500)
    write('frame-stream', 'skips', body + skips)
    bad = rng(2, 0, 40) + stream_piece(1, 0, 0, 10, 600) + raw_piece(b'NOTATALBFRAMEHDR')
    write('frame-stream', 'desync', bad)
    write('frame-stream', 'other-protocol', rng(1, 0, 40) + raw_piece(b'SSH-2.0-OpenSSH_9.2\r\n'))


def plugin_rx_seeds():
    pieces = [stream_piece(0x01000000 + i, i % 8, 1, [64, 0, 700][i], 700) for i in range(3)]
    body = rng(len(pieces), 0, 24) + b''.join(pieces)
    # Each receive: "exact capacity" (1), then reads: 5-byte chunks, EAGAIN (0), EINTR (1).
    script = u8(1) + (u8(3) + u8(4)) * 4 + u8(0) + u8(1) + u8(3) + u8(63)
    write('plugin-rx', 'three-frames', body + script)
    # A receive smaller than the frame: "any capacity" (0) of 10 bytes for 64.
    write('plugin-rx', 'too-long', body + u8(0) + rng(10, 0, 800))
    write('plugin-rx', 'bad-header', rng(2, 0, 24) + stream_piece(1, 0, 0, 4, 700) +
          raw_piece(frame(2, 0, 0, 4, version=9)))
    write('plugin-rx', 'eof-mid-payload', rng(1, 0, 24) + raw_piece(frame(1, 0, 0, 500)))
    write('plugin-rx', 'socket-error', body + u8(1) + u8(2) + u8(0))


def segment_extras(tos=0, headroom=16, tags=0, ip_options=None, tcp_words=0, padding=0):
    """BuildSegment's choices, then the headroom byte SendAndCheck reads."""
    out = u8(0 if tags else 1)
    if tags:
        out += rng(tags, 1, 2)
    out += u8(0 if ip_options is not None else 1)
    if ip_options is not None:
        out += ip_options
    out += u8(0 if tcp_words else 1)
    if tcp_words:
        out += rng(tcp_words, 0, 10)
    out += u8(0 if padding else 1)
    if padding:
        out += rng(padding, 0, 8)
    out += u16(0x0F0F) * tags  # VLAN ids
    out += u8(tos) + u16(0x1234) + u8(1) + u32(0)  # TOS, IP id, not a fragment, ack
    out += bytes(padding)
    return out, rng(headroom, 0, 16)


def syn(flow, isn, **kw):
    extras, headroom = segment_extras(**kw)
    return u8(0) + u8(flow) + u32(isn) + u8(0) + extras + headroom


def append_frame(flow, tensor, prio, flags, length):
    size = u8(0) if length == 0 else u8(1) + rng(length, 1, 4000)
    return u8(1) + u8(flow) + u8(1) + u8(prio) + u8(flags) + u32(tensor) + size


def segment(flow, mode, length, mode_arg=b'', fin=False, **kw):
    """mode: 0 retransmission (arg U16 % sent), 1 gap (arg Range(1, 3000)), 2 anywhere,
    3 in order."""
    extras, headroom = segment_extras(**kw)
    return (u8(3) + u8(flow) + u8(mode) + mode_arg + rng(length, 1, 1460) +
            u8(16 if fin else 2) + extras + headroom)


def agent_path_seeds():
    config = u8(1) + u8(2) + rng(4, 1, 16)  # option mode, MTU 1500, 4 flows
    session = (syn(0, 0xFFFFFF00) + append_frame(0, 0x01000001, 0, 1, 3000) +
               append_frame(0, 0x01000002, 5, 3, 0) + append_frame(0, 0x01000003, 7, 2, 200) +
               b''.join(segment(0, 3, 1460) for _ in range(3)) +
               segment(0, 0, 1460, mode_arg=u16(100)))
    write('agent-path', 'one-connection-wraps', config + session)
    write('agent-path', 'dscp-only', u8(0) + u8(2) + rng(4, 1, 16) + session)
    write('agent-path', 'small-mtu', u8(1) + u8(0) + rng(600, 68, 2000) + rng(4, 1, 16) + session)
    # Options already present: record route (odd length), a TaLB option, VLAN tags, padding.
    rr = rng(2, 0, 4) + u8(3) + rng(7, 2, 12) + rng(7, 2, 255) + bytes(5) + u8(1)
    talb_opt = rng(1, 0, 4) + u8(2) + u32(0x05000001) + u8(2) + u8(1) + u8(1)
    mixed = (syn(1, 7, tags=2) + append_frame(1, 0x02000001, 1, 1, 4000) +
             segment(1, 3, 1000, ip_options=rr, padding=6, tags=1) +
             segment(1, 3, 1000, ip_options=talb_opt) +
             segment(1, 3, 1000, tcp_words=3, headroom=4) +
             segment(1, 1, 500, mode_arg=rng(300, 1, 3000)))
    write('agent-path', 'options-vlan-gaps', config + mixed)
    # Several connections in a 1-flow table: evictions.
    many = b''.join(syn(f, 1000 * f) + append_frame(f, 0x03000000 + f, f % 8, 1, 100) +
                    segment(f, 3, 116) for f in range(6))
    write('agent-path', 'evictions', u8(1) + u8(2) + rng(1, 1, 16) + many)
    write('agent-path', 'fin', config + syn(2, 5) + append_frame(2, 9, 4, 3, 50) +
          segment(2, 3, 66, fin=True) + segment(2, 0, 66, mode_arg=u16(0)))
    write('agent-path', 'raw-frames', config + u8(7) + u8(0) + rng(60, 0, 120) + bytes(60) +
          u8(1))


def cdf_seeds():
    write('flow-size-cdf', 'websearch-like', b'# size percent\n0 0\n10000 15\n'
          b'20000 20\n1000000 80\n30000000 100\n')
    write('flow-size-cdf', 'one-point', b'1000 100\n')
    write('flow-size-cdf', 'crlf-and-blank', b'0 0\r\n\r\n100 50\r\n200 100\r\n')
    write('flow-size-cdf', 'exponents', b'1e2 0\n1.5e3 50.5\n2e4 100\n')
    write('flow-size-cdf', 'bad-last', b'0 0\n100 99.99\n')
    write('flow-size-cdf', 'decreasing', b'100 0\n50 100\n')


MODEL_HEADER = b'# talb-model-file v1\n'


def model_file_seeds():
    full = b'model,tensor,kind,shape,params,fwd_flops_per_sample,layer_group,fwd_ns,bwd_ns\n'
    write('model-file', 'tiny', MODEL_HEADER +
          b'model,tensor,kind,shape,params,fwd_flops_per_sample,layer_group\n'
          b'tiny,l0.weight,fc,64x64,4096,8192,l0\ntiny,l0.bias,fc_bias,64,64,0,l0\n'
          b'tiny,l1.weight,fc,10x64,640,1280,l1\n')
    write('model-file', 'two-models-times', MODEL_HEADER + full +
          b'a,w0,conv,3x3,9,18,g0,100,200\na,w1,fc,,5,,g1,50,\n'
          b'# a comment\n\nb,w0,fc,2x2,4,8,g0,,\n')
    write('model-file', 'columns-reordered-crlf', MODEL_HEADER.replace(b'\n', b'\r\n') +
          b'layer_group,params,tensor,model,fwd_ns\r\ng,7,t,m,12\r\n')
    write('model-file', 'bad-params', MODEL_HEADER +
          b'model,tensor,params,fwd_flops_per_sample,layer_group\nm,t,ten,1,g\n')
    write('model-file', 'not-consecutive', MODEL_HEADER +
          b'model,tensor,params,fwd_ns,layer_group\na,t,1,1,g\nb,t,1,1,g\na,u,1,1,g\n')
    write('model-file', 'version2', b'# talb-model-file v2\nmodel\n')


def astra_line(name, fwd, ig, wg, size):
    return (name + ' -1 %d NONE 0 %d NONE 0 %d ALLREDUCE %d 0\n' % (fwd, ig, wg, size)).encode()


def astra_sim_seeds():
    # First byte: bits 0-1 bytes per element (1 << v), bits 2-3 the cycle (1ns 3ns 1us 1ms).
    write('astra-sim', 'two-layers', u8(2) + b'DATA\n2\n' + astra_line('conv1', 10, 20, 30, 4096) +
          astra_line('fc1', 5, 0, 7, 400))
    write('astra-sim', 'fp16-us-cycle', u8(1 | 8) + b'DATA\n1\n\n' +
          astra_line('l0', 1, 2, 3, 2))
    write('astra-sim', 'model-parallel', u8(2) + b'MODEL\n1\n' + astra_line('l0', 1, 1, 1, 4))
    write('astra-sim', 'count-mismatch', u8(2) + b'DATA\n3\n' + astra_line('l0', 1, 1, 1, 4))
    write('astra-sim', 'odd-size', u8(2) + b'DATA\n1\n' + astra_line('l0', 1, 1, 1, 6))
    write('astra-sim', 'large-times', u8(3 | 12) + b'DATA\n1\n' +
          astra_line('l0', 9000000000000, 1, 1, 8))


AICB_HEADER = (b'HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 2 pp: 1 vpp: 4 '
               b'ga: 1 all_gpus: 8 checkpoints: 0 checkpoint_initiates: 0 pp_comm: 0\n')


def aicb_seeds():
    # First byte: bits 0-3 ranks (0: all_gpus), 4-5 first layers (0: all), 6 two iterations.
    write('aicb', 'tp2-ep2', u8(0x40) + AICB_HEADER + b'3\n'
          b'embedding\t-1\t1000\tALLREDUCE\t4096\t2000\tNONE\t0\t3000\tNONE\t0\t100\n'
          b'moe\t-1\t4000\tALLTOALL_EP\t8192\t5000\tALLGATHER\t8192\t6000\tALLREDUCE_DP_EP\t512\t100\n'
          b'grad_norm\t-1\t1\tNONE\t0\t1\tBROADCAST\t64\t1\tREDUCESCATTER\t32768\t0\n')
    write('aicb', 'old-header-workers', u8(4) + b'HYBRID_TRANSFORMER_FWD_IN_BCKWD\t'
          b'model_parallel_NPU_group: 2 checkpoints: 0 checkpoint_initiates: 0\n2\n'
          b'attention_layer\t-1\t539986\tALLREDUCE\t16777216\t592000\tALLREDUCE\t16777216\t'
          b'592000\tNONE\t0\t100\n'
          b'Llama_layer1\t-1\t 14356000\tNONE\t0   4756000\tALLGATHER\t357468\t 1\t'
          b'REDUCESCATTER\t1889785610\t100\n')
    write('aicb', 'micro', u8(8 | 0x10) + b'MICRO\n2\n'
          b'micro_test\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tALLREDUCE\t4096\t1\n'
          b'micro_test\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tALLTOALL\t8192\t1\n')
    write('aicb', 'data', u8(3) + b'DATA\n1\nconv1 -1 5 NONE 0 6 NONE 0 7 ALLREDUCE 1000 0\n')
    write('aicb', 'pp2-refused', u8(0) + AICB_HEADER.replace(b'pp: 1', b'pp: 2') +
          b'1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 64 0\n')
    write('aicb', 'count-mismatch', u8(0) + AICB_HEADER + b'3\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 0\n')
    write('aicb', 'time-overflow', u8(2) + b'DATA\n2\n'
          b'a -1 9223372036854775807 NONE 0 0 NONE 0 0 NONE 0 0\n'
          b'b -1 1 NONE 0 0 NONE 0 0 NONE 0 0\n')


def pb_varint(v):
    out = b''
    while v >= 0x80:
        out += bytes([(v & 0x7F) | 0x80])
        v >>= 7
    return out + bytes([v])


def pb_int(field, v):
    return pb_varint(field << 3) + pb_varint(v & 0xFFFFFFFFFFFFFFFF)


def pb_len(field, body):
    return pb_varint(field << 3 | 2) + pb_varint(len(body)) + body


def et_attr(name, value):
    """A Chakra AttributeProto: int64_val for integers, string_val for text."""
    if isinstance(value, str):
        return pb_len(10, pb_len(1, name.encode()) + pb_len(29, value.encode()))
    return pb_len(10, pb_len(1, name.encode()) + pb_int(9, value))


def et_node(node_id, node_type, data_deps=(), ctrl_deps=(), micros=0, **attrs):
    """A Chakra Node (types: 1 metadata, 2 mem load, 4 comp, 5 send, 6 recv, 7 collective)."""
    body = pb_int(1, node_id) + pb_len(2, b'n%d' % node_id) + pb_int(3, node_type)
    body += b''.join(pb_int(4, d) for d in ctrl_deps) + b''.join(pb_int(5, d) for d in data_deps)
    body += pb_int(7, micros) + b''.join(et_attr(k, v) for k, v in attrs.items())
    return pb_varint(len(body)) + body


def et_file(*nodes):
    meta = pb_len(1, b'0.0.4')
    return pb_varint(len(meta)) + meta + b''.join(nodes)


CHAKRA_SEP = b'\xffRNK'


def chakra_seeds():
    # First byte: bits 0-1 ranks - 1, bit 2 two iterations, bit 3 a group file first, bit 4 the
    # nodes wait for their ctrl_deps.
    import gzip
    ar = et_file(et_node(0, 7, comm_type=0, comm_size=1 << 20))
    write('chakra', 'all-reduce-4', u8(3) + CHAKRA_SEP.join([ar] * 4))
    rank = et_file(et_node(1, 1), et_node(2, 2, ctrl_deps=[1], micros=3),
                   et_node(3, 4, data_deps=[2], micros=10),
                   et_node(4, 7, data_deps=[3], comm_type=2, comm_size=4096, comm_priority=1),
                   et_node(5, 7, data_deps=[4], comm_type=5, comm_size=64, comm_src=1))
    write('chakra', 'deps-metadata-two-iterations', u8(1 | 4 | 16) + CHAKRA_SEP.join([rank] * 2))
    groups = b'{"0": [0, 1], "odd": [1]}'
    r0 = et_file(et_node(1, 7, comm_type=6, comm_size=800, pg_name='0'),
                 et_node(2, 5, comm_dst=1, comm_size=100, comm_tag=3))
    r1 = et_file(et_node(1, 7, comm_type=6, comm_size=900, pg_name='0'),
                 et_node(2, 6, comm_src=0, comm_size=100, comm_tag=3),
                 et_node(3, 7, comm_type=9, pg_name='odd'))
    write('chakra', 'groups-p2p', u8(1 | 8) + CHAKRA_SEP.join([groups, r0, r1]))
    write('chakra', 'gzip', u8(1) + CHAKRA_SEP.join([gzip.compress(ar, mtime=0)] * 2))
    write('chakra', 'cycle', u8(0) + et_file(et_node(1, 4, data_deps=[2]),
                                             et_node(2, 4, data_deps=[1])))
    write('chakra', 'dangling', u8(0) + et_file(et_node(1, 4, ctrl_deps=[9])))
    write('chakra', 'truncated', u8(0) + ar[:-3])
    write('chakra', 'invalid-type', u8(0) + et_file(et_node(1, 0)))
    write('chakra', 'priority-8', u8(1) + CHAKRA_SEP.join(
        [et_file(et_node(1, 7, comm_type=0, comm_size=8, comm_priority=8))] * 2))
    write('chakra', 'all-gather-overflow', u8(1) + CHAKRA_SEP.join(
        [et_file(et_node(1, 7, comm_type=2, comm_size=1 << 63))] * 2))
    write('chakra', 'bad-group-file', u8(8) + b'{"0": [0, 0]}' + CHAKRA_SEP + ar)


def scenario_config_seeds():
    write('scenario-config', 'defaults', b'# the defaults\n')
    write('scenario-config', 'fabric', b'leaves = 4\nspines = 2\nhostsPerLeaf = 4\n'
          b'hostRate = 10Gbps\nlinkRates = 0:0=2.5Gbps;1:1=5Gbps\nfailLink = 1:0@350ms\n'
          b'lb = ecmp,talb,drill\nlbAttributes = Margin=2\nbgLoad = 0.1\nbgCdf = websearch\n')
    write('scenario-config', 'jobs', b'jobs = model=resnet50,workers=8,scheduler=bytescheduler,'
          b'sched.PartitionSize=4000000;model=alexnet,workers=4,collective=ps,start=1ms\n'
          b'iterations = 2\n')
    write('scenario-config', 'rdma', b'transport = rdma\nbgLoad = 0\n'
          b'jobs = model=vgg19,workers=4,precision=fp16,device=a100\n')
    write('scenario-config', 'errors', b'leaves = many\nnoSuchParameter = 1\n')
    write('scenario-config', 'no-jobs', b'jobs =\nduration = 0s\n')


def main():
    for folder, _, files in os.walk(os.path.join(HERE, 'corpus')):
        for name in files:
            if name.startswith('seed-'):
                os.remove(os.path.join(folder, name))
    wire_seeds()
    frame_stream_seeds()
    plugin_rx_seeds()
    agent_path_seeds()
    cdf_seeds()
    model_file_seeds()
    astra_sim_seeds()
    aicb_seeds()
    chakra_seeds()
    scenario_config_seeds()


if __name__ == '__main__':
    main()
