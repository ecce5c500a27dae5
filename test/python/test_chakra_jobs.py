"""Chakra execution traces through the runner (--jobs='trace=PREFIX,...'): ASTRA-sim's
microbenchmark traces (test/data/chakra, 1 MiB at 4, 8 and 16 ranks) run unchanged, and traces
this test writes itself (protobuf encoded by hand here, independently of talb's writer) run on an
idle non-blocking fabric over RDMA and TCP: each collective finishes within 2 % (RDMA) or 5 %
(TCP) of its analytic bound, moves the bytes the trace gives, with comm_priority as its priority
and the groups of the communicator-group file; bad traces and keys are refused with exit code 2
and a message naming them. TALB_SCENARIO names the binary (ctest)."""
import csv
import json
import os
import subprocess

import pytest

RUNNER = os.environ.get('TALB_SCENARIO', 'build/bin/talb-scenario')
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLES = os.path.join(ROOT, 'test', 'data', 'chakra', 'microbenchmarks')
RATE = 10e9
# Payload-only bounds; RDMA's headers add 82 bytes per 4096-byte packet (as test_llm_jobs.py).
WIRE = {'rdma': (4096 + 82) / 4096, 'tcp': 1.0}


def idle(hosts):
    """One switch: an idle non-blocking fabric of `hosts` hosts."""
    return ['--leaves=1', '--spines=1', '--hostsPerLeaf=%d' % hosts, '--hostRate=10Gbps',
            '--fabricRate=10Gbps', '--oversubscription=1', '--bgLoad=0', '--lb=ecmp',
            '--warmup=0', '--progress=false']


def run(*args):
    return subprocess.run([RUNNER, *args], capture_output=True, text=True, timeout=600)


def rows(folder, name):
    with open(os.path.join(folder, name)) as f:
        return list(csv.DictReader(f))


def bound_ns(kind, n, size):
    """The analytic bounds of talb-collective-bounds.h for one rank per host (size: Node::bytes;
    an all-to-all's is what each rank sends)."""
    t = size * 8 / RATE * 1e9
    return {'all_reduce': 2 * (n - 1) / n * t, 'all_gather': (n - 1) / n * t,
            'reduce_scatter': (n - 1) / n * t, 'all_to_all': (n - 1) / n * t,
            'broadcast': t, 'send_recv': t}[kind]


# ---- Chakra's encoding, by hand (schema/protobuf/et_def.proto; protoio's varint framing) ----

def varint(v):
    out = b''
    while v >= 0x80:
        out += bytes([(v & 0x7F) | 0x80])
        v >>= 7
    return out + bytes([v])


def int_field(field, v):
    return varint(field << 3) + varint(v & 0xFFFFFFFFFFFFFFFF)


def len_field(field, body):
    return varint(field << 3 | 2) + varint(len(body)) + body


def attr(name, value):
    """AttributeProto: string_val (29) for text, bool_val (27) for a bool, else int64_val (9),
    as Chakra's tools write them."""
    if isinstance(value, bool):
        return len_field(10, len_field(1, name.encode()) + int_field(27, int(value)))
    if isinstance(value, str):
        return len_field(10, len_field(1, name.encode()) + len_field(29, value.encode()))
    return len_field(10, len_field(1, name.encode()) + int_field(9, value))


COMP, SEND, RECV, COLL = 4, 5, 6, 7
ALL_REDUCE, ALL_GATHER, BROADCAST, ALL_TO_ALL, REDUCE_SCATTER = 0, 2, 5, 6, 7


def node(node_id, node_type, deps=(), micros=0, name=None, **attrs):
    body = int_field(1, node_id) + len_field(2, (name or 'n%d' % node_id).encode())
    body += int_field(3, node_type) + b''.join(int_field(5, d) for d in deps)
    body += int_field(7, micros) + b''.join(attr(k, v) for k, v in attrs.items())
    return varint(len(body)) + body


def write_trace(prefix, ranks):
    """ranks: one list of node() encodings per rank; writes PREFIX.<rank>.et."""
    meta = len_field(1, b'0.0.4')
    for r, nodes in enumerate(ranks):
        with open('%s.%d.et' % (prefix, r), 'wb') as f:
            f.write(varint(len(meta)) + meta + b''.join(nodes))


def check_bound(row, n, transport, slack):
    """n: the group's ranks (collectives.csv's bytes are every member's bytes together)."""
    ideal = int(row['ideal_ns'])
    assert abs(ideal - bound_ns(row['type'], n, int(row['bytes']) // n)) <= 1, row
    took = int(row['end_ns']) - int(row['start_ns'])
    assert ideal <= took <= slack * WIRE[transport] * ideal, \
        '%s over %s: %d ns against %d ns (%.2f %%)' % (row['operation'], transport, took, ideal,
                                                    100.0 * (took / ideal - 1))


SIZE = 25000000  # large enough that the fabric's latency stays inside the tolerances


KINDS = [('all_reduce', ALL_REDUCE), ('all_gather', ALL_GATHER),
         ('reduce_scatter', REDUCE_SCATTER), ('all_to_all', ALL_TO_ALL)]
# Every kind at 4, 8 and 16 ranks over RDMA; over TCP at 8 (TCP costs several times the CPU).
CASES = ([(n, kind, ct, 'rdma', 1.02) for n in (4, 8, 16) for kind, ct in KINDS] +
         [(8, kind, ct, 'tcp', 1.05) for kind, ct in KINDS])


@pytest.mark.parametrize('n,kind,comm_type,transport,slack', CASES)
def test_written_microbenchmark_within_its_bound(tmp_path, n, kind, comm_type, transport, slack):
    prefix = str(tmp_path / kind)
    # ASTRA-sim's microbenchmark shape: one COMM_COLL_NODE per rank, no pg_name (all ranks);
    # an all-gather's comm_size is each rank's part.
    size = SIZE // n if comm_type == ALL_GATHER else SIZE
    write_trace(prefix, [[node(0, COLL, is_cpu_op=0, comm_type=comm_type, comm_size=size)]] * n)
    r = run(*idle(n), '--transport=' + transport, '--iterations=1',
            '--jobs=trace=' + prefix, '--out=%s' % (tmp_path / 'out'))
    assert r.returncode == 0, r.stderr
    done = rows(tmp_path / 'out', 'collectives.csv')
    assert len(done) == 1 and done[0]['type'] == kind and done[0]['group'] == 'all'
    # Per rank: an all-gather's output buffer is comm_size x n; the others' is comm_size.
    assert int(done[0]['bytes']) == n * (size * n if comm_type == ALL_GATHER else size)
    check_bound(done[0], n, transport, slack)
    meta = json.loads((tmp_path / 'out' / 'run.json').read_text())
    assert meta['complete']
    # A trace is an LLM job: over TCP TaLB's profile sprays its every tensor packet.
    assert meta['lb_profile'].endswith(';Spray=Always') == (transport == 'tcp')


@pytest.mark.parametrize('kind', ['all_reduce', 'all_gather', 'reduce_scatter', 'all_to_all'])
@pytest.mark.parametrize('n', [4, 8, 16])
def test_astra_sim_microbenchmarks_run_unchanged(tmp_path, n, kind):
    prefix = os.path.join(SAMPLES, kind, '%dnpus_1MB' % n, kind)
    r = run(*idle(n), '--transport=rdma', '--iterations=1', '--jobs=trace=' + prefix,
            '--out=%s' % tmp_path)
    assert r.returncode == 0, r.stderr
    done = rows(tmp_path, 'collectives.csv')
    assert len(done) == 1 and done[0]['type'] == kind
    mib = 1 << 20
    assert int(done[0]['bytes']) == n * (mib * n if kind == 'all_gather' else mib)
    ideal = int(done[0]['ideal_ns'])
    assert abs(ideal - bound_ns(kind, n, int(done[0]['bytes']) // n)) <= 1
    took = int(done[0]['end_ns']) - int(done[0]['start_ns'])
    # 1 MiB is small: each ring step's fixed latency adds to the payload-only bound (at 16 ranks
    # 12.5 % over RDMA when measured); the bound's 2 % is checked at 25 MB above.
    assert ideal <= took <= 1.15 * ideal, (took, ideal)
    assert json.loads((tmp_path / 'run.json').read_text())['complete']


def test_groups_priorities_dependencies_and_messages(tmp_path):
    """Compute, then an all-reduce over each half (comm_priority 1 on the first) with the group
    file, then a broadcast over all from rank 2, and a message 0 -> 3."""
    prefix = str(tmp_path / 't')
    ranks = []
    for r in range(4):
        half = str(r // 2)
        nodes = [node(1, COMP, micros=50),
                 node(2, COLL, deps=[1], comm_type=ALL_REDUCE, comm_size=SIZE, pg_name=half,
                      **({'comm_priority': 1} if half == '0' else {})),
                 node(3, COLL, deps=[2], comm_type=BROADCAST, comm_size=SIZE, comm_src=2)]
        if r == 0:
            nodes.append(node(4, SEND, deps=[3], comm_dst=3, comm_size=SIZE, comm_tag=5))
        if r == 3:
            nodes.append(node(4, RECV, deps=[3], comm_src=0, comm_size=SIZE, comm_tag=5))
        ranks.append(nodes)
    write_trace(prefix, ranks)
    groups = tmp_path / 'groups.json'
    groups.write_text('{"0": [0, 1], "1": [2, 3]}')
    r = run(*idle(4), '--transport=rdma', '--iterations=2',
            '--jobs=trace=%s,commGroups=%s' % (prefix, groups), '--out=%s' % (tmp_path / 'out'))
    assert r.returncode == 0, r.stderr
    done = rows(tmp_path / 'out', 'collectives.csv')
    seen = {(row['iteration'], row['group'], row['type']): row for row in done}
    for it in ('0', '1'):
        assert int(seen[(it, '0', 'all_reduce')]['priority']) == 1
        assert int(seen[(it, '1', 'all_reduce')]['priority']) == 7  # the LLM rule of "other"
        assert seen[(it, 'all', 'broadcast')]['class'] == 'other'
        for row in (seen[(it, '0', 'all_reduce')], seen[(it, 'all', 'broadcast')]):
            check_bound(row, 2 if row['group'] == '0' else 4, 'rdma', 1.02)
        check_bound(seen[(it, 'p2p', 'send_recv')], 1, 'rdma', 1.02)
    # The broadcast waits for both all-reduces; the compute (50 us) comes first.
    first = seen[('0', '0', 'all_reduce')]
    assert int(first['start_ns']) >= 50000
    assert int(seen[('0', 'all', 'broadcast')]['start_ns']) >= max(
        int(seen[('0', g, 'all_reduce')]['end_ns']) for g in ('0', '1'))
    assert len(rows(tmp_path / 'out', 'iterations.csv')) == 4 * 2
    assert json.loads((tmp_path / 'out' / 'run.json').read_text())['complete']


FEEDER = os.path.join(ROOT, 'test', 'data', 'chakra', 'feeder', 'chakra')


def test_chakras_feeder_test_trace_runs_unchanged(tmp_path):
    """Chakra's own feeder test trace (one rank of a PyTorch run, an older converter's output):
    its ctrl_deps name calling operators, some not in the file (ignored by default, as Chakra's
    feeder ignores them); its 14 c10d calls are COMM_COLL_NODEs without comm_type on the host
    (host time); its 7 NCCL kernels are the collectives. Host and GPU streams overlap: the
    iteration is shorter than the sum of the durations."""
    out = tmp_path / 'out'
    r = run(*idle(2), '--transport=rdma', '--iterations=1', '--jobs=trace=' + FEEDER,
            '--out=%s' % out)
    assert r.returncode == 0, r.stderr
    done = rows(out, 'collectives.csv')
    assert sorted((row['type'], int(row['bytes'])) for row in done) == [
        ('all_reduce', 8196000), ('all_reduce', 9724160), ('all_reduce', 26255360),
        ('all_reduce', 26550272), ('all_reduce', 31502336), ('broadcast', 424),
        ('broadcast', 212480)]
    # Operation names with commas are quoted (RFC 4180), so CSV readers get the columns right.
    assert {row['operation'] for row in done} == {
        'ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)',
        'ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)'}
    assert ',"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",' \
        in (out / 'collectives.csv').read_text()
    [it] = rows(out, 'iterations.csv')
    took = int(it['end_ns']) - int(it['start_ns'])
    assert int(it['compute_ns']) == took  # one rank: its collectives move nothing
    assert 'compute 345.080 ms' in r.stdout  # every node's duration, summed
    assert took == 295545000  # host calls beside the kernels
    r = run(*idle(2), '--jobs=trace=%s,ctrlDeps=wait' % FEEDER, '--out=%s' % (tmp_path / 'w'))
    assert r.returncode == 2
    assert 'chakra.0.et.gz:rank 0:node 216: control dependency on node 3, which the file ' \
           'does not have' in r.stderr


@pytest.mark.parametrize('cpu_op', [True, False])
def test_cpu_operations_run_beside_the_gpus_compute(tmp_path, cpu_op):
    """Per rank a 300 us kernel and a 300 us operation, both ready, then an all-reduce after both:
    as a CPU operation (is_cpu_op) the second runs beside the kernel, on the host's stream, so
    the all-reduce starts at 300 us; as a kernel it waits for the first, and it starts at 600."""
    prefix = str(tmp_path / 't')
    write_trace(prefix, [[node(1, COMP, micros=300, is_cpu_op=False),
                          node(2, COMP, micros=300, is_cpu_op=cpu_op),
                          node(3, COLL, deps=[1, 2], is_cpu_op=False, comm_type=ALL_REDUCE,
                               comm_size=SIZE // 10)]] * 2)
    r = run(*idle(2), '--transport=rdma', '--iterations=1', '--jobs=trace=' + prefix,
            '--out=%s' % (tmp_path / 'out'))
    assert r.returncode == 0, r.stderr
    [row] = rows(tmp_path / 'out', 'collectives.csv')
    start = 300000 if cpu_op else 600000
    assert start <= int(row['start_ns']) < start + 1000
    check_bound(row, 2, 'rdma', 1.02)


@pytest.mark.parametrize('jobs,message', [
    ('trace=/nonexistent/t', 'bad value trace=/nonexistent/t: /nonexistent/t: no file '
                             '/nonexistent/t.0.et (or .et.gz)'),
    ('trace=GAP', "GAP: rank 1's file GAP.1.et is missing, but GAP.2.et exists"),
    ('trace=CUT', 'CUT.1.et: the message at byte 8 is 41 bytes long but the file has 38 left'),
    ('trace=DANGLING', 'DANGLING.0.et:rank 0:node 1: data dependency on node 9, which the file '
                       'does not have'),
    ('trace=GOOD,workers=2', 'workers=2 but the trace has 4 ranks'),
    ('trace=GOOD,tp=2', "key 'tp=2' does not apply to a trace job"),
    ('trace=GOOD,device=h100-sxm', "key 'device' does not apply to a trace job"),
    ('trace=GOOD,ctrlDeps=sometimes', 'bad value ctrlDeps=sometimes (ignore or wait)'),
    ('ctrlDeps=wait', 'ctrlDeps needs trace=PREFIX'),
    ('trace=GOOD,commGroups=/nonexistent/g.json',
     'bad value commGroups=/nonexistent/g.json: /nonexistent/g.json: cannot open the file'),
    ('trace=BIG', 'jobs need 16 workers but the fabric has 8 hosts'),
])
def test_bad_traces_are_refused(tmp_path, jobs, message):
    one = [node(1, COLL, comm_type=ALL_REDUCE, comm_size=1000)]
    paths = {}
    for name, ranks in (('GOOD', [one] * 4), ('BIG', [one] * 16), ('GAP', [one] * 3),
                        ('CUT', [one] * 2),
                        ('DANGLING', [[node(1, COMP, deps=[9], micros=1)]] * 2)):
        paths[name] = str(tmp_path / name.lower())
        write_trace(paths[name], ranks)
    os.remove(paths['GAP'] + '.1.et')
    with open(paths['CUT'] + '.1.et', 'rb+') as f:
        f.truncate(os.path.getsize(paths['CUT'] + '.1.et') - 3)
    for key, path in paths.items():
        jobs = jobs.replace('=' + key, '=' + path)
        message = message.replace(key, path)
    r = run(*idle(8), '--jobs=' + jobs, '--out=%s' % (tmp_path / 'out'))
    assert r.returncode == 2, r.stdout + r.stderr
    assert message in r.stderr, r.stderr


def test_help_lists_the_trace_keys():
    r = run('--help')
    assert 'trace:' in r.stdout + r.stderr and 'commGroups:' in r.stdout + r.stderr
