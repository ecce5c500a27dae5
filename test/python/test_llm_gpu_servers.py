"""Graph (LLM) jobs on GPU servers through the runner (--gpusPerServer): ranks fill the servers'
GPUs in Megatron's order, so a job with tp = gpusPerServer keeps every tensor-parallel group in one
server. Its tensor-parallel collectives then move only over NVLink (flows.csv kind "nvlink",
never in the fabric), and the bytes that do enter the fabric are exactly the data- and
pipeline-parallel bytes of the analytic formula (run.json's analytic_bytes), one leaf per server
and rail-optimized alike. A ring all-reduce across servers stays within its bound: the flat ring
at the NIC rate (every ring step waits for its NIC hop), 2 % over RDMA, 5 % over TCP.
TALB_SCENARIO names the binary (ctest)."""
import csv
import json
import os
import subprocess
from collections import defaultdict

import pytest

RUNNER = os.environ.get('TALB_SCENARIO', 'build/bin/talb-scenario')
GPUS = 4
RATE = 10e9
HEADER = 16  # TALB_FRAME_LEN: every message's frame header, counted in size_bytes
# One leaf per server: 4 servers of 4 GPUs, two under each leaf.
ONE_LEAF = ['--leaves=2', '--hostsPerLeaf=8']
# Rail-optimized: one rail group of 4 leaves, GPU i of each of the 4 servers on leaf i.
RAILS = ['--leaves=4', '--hostsPerLeaf=4', '--railOptimized=true']
COMMON = ['--spines=2', '--gpusPerServer=%d' % GPUS, '--hostRate=10Gbps', '--fabricRate=10Gbps',
          '--bgLoad=0', '--lb=ecmp', '--warmup=0', '--progress=false', '--placement=packed']
TP, PP, DP = GPUS, 2, 2
LLM = ('model=llama3-8b,tp=%d,pp=%d,dp=%d,layers=2,hidden=512,ffn=1024,heads=8,kvHeads=4,'
       'seq=256,vocab=2048,microBatch=1' % (TP, PP, DP))
# The ring's payload per byte of a member's buffer: each member sends (N-1)/N of it (twice for
# all-reduce); a message carries its bytes.
RING_SHARE = {'reduce_scatter': 1, 'all_gather': 1, 'all_reduce': 2}


def run(*args):
    return subprocess.run([RUNNER, *args], capture_output=True, text=True, timeout=600)


def rows(folder, name):
    with open(os.path.join(folder, name)) as f:
        return list(csv.DictReader(f))


def host(address):
    return int(address.split('.')[-1]) - 1


@pytest.fixture(scope='module', params=['one_leaf', 'rails'])
def llm_run(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(request.param)
    layout = ONE_LEAF if request.param == 'one_leaf' else RAILS
    r = run(*layout, *COMMON, '--transport=rdma', '--iterations=2', '--jobs=' + LLM,
            '--out=%s' % folder)
    assert r.returncode == 0, r.stderr
    return folder


def test_tensor_parallel_traffic_stays_in_the_servers(llm_run):
    flows = rows(llm_run, 'flows.csv')
    assert {f['kind'] for f in flows} == {'tensor', 'nvlink'}
    for f in flows:
        same_server = host(f['src_ip']) // GPUS == host(f['dst_ip']) // GPUS
        assert (f['kind'] == 'nvlink') == same_server, f
        # Tensor-parallel messages (priority 0 by the LLM rule) never enter the fabric.
        if f['priority'] == '0':
            assert f['kind'] == 'nvlink', f
    # With tp = GPUs per server every data- and pipeline-parallel peer is on another server.
    assert all(f['kind'] == 'tensor' for f in flows if f['priority'] != '0')


def test_fabric_bytes_are_the_analytic_data_and_pipeline_bytes(llm_run):
    job = json.loads((llm_run / 'run.json').read_text())['jobs'][0]
    analytic = job['analytic_bytes']
    fabric = defaultdict(int)  # payload bytes of fabric messages per iteration
    nvlink = defaultdict(int)
    for f in rows(llm_run, 'flows.csv'):
        payload = int(f['size_bytes']) - HEADER
        (fabric if f['kind'] == 'tensor' else nvlink)[int(f['iteration'])] += payload
    done = rows(llm_run, 'collectives.csv')
    by_class = defaultdict(int)
    for row in done:
        by_class[(int(row['iteration']), row['class'])] += int(row['bytes'])
        # Data-parallel collectives all run the ring (distributed optimizer: reduce-scatter and
        # all-gather), tensor-parallel ones too; a pipeline message is one send/recv.
        assert row['type'] in ('send_recv', *RING_SHARE), row
    for it in (0, 1):
        for cls in ('tensor', 'pipeline', 'data'):
            assert by_class[(it, cls)] == sum(analytic[cls]), (it, cls)
        # A ring of N members moves (N-1)/N of each member's buffer per pass.
        data_wire = sum(RING_SHARE[row['type']] * int(row['bytes']) * (DP - 1) // DP
                        for row in done if int(row['iteration']) == it and row['class'] == 'data')
        assert fabric[it] == sum(analytic['pipeline']) + data_wire, it
        tensor_wire = sum(RING_SHARE[row['type']] * int(row['bytes']) * (TP - 1) // TP
                          for row in done if int(row['iteration']) == it
                          and row['class'] == 'tensor')
        assert nvlink[it] == tensor_wire, it
    assert sum(analytic['data']) > 0 and sum(analytic['pipeline']) > 0
    assert sum(analytic['tensor']) > 0


def test_the_ideal_counts_nvlink_inside_the_servers(llm_run):
    meta = json.loads((llm_run / 'run.json').read_text())
    assert meta['complete']
    job = meta['jobs'][0]
    assert 0 < job['ideal_iteration_ms'] <= job['iteration_ms']
    for row in rows(llm_run, 'collectives.csv'):
        if row['class'] == 'tensor' and int(row['bytes']) > 0:
            # Inside a server the ring runs at nvlinkRate (3600 Gb/s by default): each member
            # moves (N-1)/N of its buffer (bytes / N) once per pass, in N-1 steps that each
            # take their chunk at that rate plus nvlinkLatency (1 us by default).
            member = int(row['bytes']) / TP
            steps = RING_SHARE[row['type']] * (TP - 1)
            bound = steps * (member / TP * 8 / 3600e9 * 1e9 + 1000)
            assert abs(int(row['ideal_ns']) - bound) <= 1, (row, bound)


@pytest.mark.parametrize('transport,slack', [('rdma', 1.02), ('tcp', 1.05)])
def test_ring_all_reduce_across_servers_within_its_bound(tmp_path, transport, slack):
    """16 ranks on 4 servers: 12 ring hops over NVLink, 4 through the fabric; each step waits
    for its NIC hop, so the bound is the flat ring at the NIC rate, 2 (N-1)/N x S / B."""
    size, n = 25000000, 16
    r = run(*ONE_LEAF, *COMMON, '--transport=' + transport, '--iterations=1',
            '--jobs=coll=all_reduce,bytes=%d,workers=%d' % (size, n), '--out=%s' % tmp_path)
    assert r.returncode == 0, r.stderr
    (row,) = rows(tmp_path, 'collectives.csv')
    bound = 2 * (n - 1) / n * size * 8 / RATE * 1e9
    ideal = int(row['ideal_ns'])
    assert abs(ideal - bound) <= 1, (ideal, bound)
    # RDMA: 82 header bytes per 4096-byte packet (test_llm_jobs.py's WIRE).
    wire = (4096 + 82) / 4096 if transport == 'rdma' else 1.0
    took = int(row['end_ns']) - int(row['start_ns'])
    assert ideal <= took <= slack * wire * ideal, \
        '%s: %d ns against %d ns (%.2f %%)' % (transport, took, ideal, 100.0 * (took / ideal - 1))
    flows = rows(tmp_path, 'flows.csv')
    fabric = {(host(f['src_ip']), host(f['dst_ip'])) for f in flows if f['kind'] == 'tensor'}
    assert fabric == {(w, (w + 1) % n) for w in range(GPUS - 1, n, GPUS)}
