"""GPU servers through the runner: a ring all-reduce job on 2 servers of 8 GPUs sends only its
inter-server messages over the fabric (the other 14 ring hops are NVLink, flows.csv kind
"nvlink"), and its iteration time is what the hierarchy predicts: every ring step waits for its
slowest hop, the NIC hop between the servers, so the iteration takes about the flat ring's
analytic time at the NIC rate (the runner's ideal). On rails too only the inter-server hops enter
the fabric. TALB_SCENARIO names the binary."""
import csv
import json
import os
import subprocess

import pytest

from talb_analysis import loading

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.environ.get('TALB_SCENARIO', os.path.join(ROOT, 'build', 'bin', 'talb-scenario'))
MODEL = os.path.join(ROOT, 'test', 'data', 'talb-one-tensor-model.csv')
GPUS = 8
# 2 leaves x 8 NICs: server 0 under leaf 0, server 1 under leaf 1; one 16-GPU ring, GPU w = rank w.
ARGS = ['--leaves=2', '--spines=2', '--hostsPerLeaf=8', '--gpusPerServer=%d' % GPUS,
        '--hostRate=100Gbps', '--fabricRate=100Gbps', '--model=' + MODEL,
        '--jobs=workers=16,collective=ring,scheduler=wfbp', '--placement=packed',
        '--iterations=2', '--warmup=0', '--bgLoad=0', '--progress=false', '--lb=ecmp']


def address(host):
    return '10.0.0.%d' % (host + 1)


@pytest.fixture(scope='module', params=['tcp', 'rdma'])
def run(request, tmp_path_factory):
    out = tmp_path_factory.mktemp(request.param)
    result = subprocess.run([RUNNER, *ARGS, '--transport=' + request.param, '--out=%s' % out],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    with open(out / 'flows.csv') as f:
        flows = list(csv.DictReader(f))
    meta = json.loads((out / 'run.json').read_text())
    return flows, meta, out


def test_only_inter_server_messages_enter_the_fabric(run):
    flows, _, _ = run
    fabric = {(r['src_ip'], r['dst_ip']) for r in flows if r['kind'] == 'tensor'}
    nvlink = {(r['src_ip'], r['dst_ip']) for r in flows if r['kind'] == 'nvlink'}
    # The ring's two hops between the servers: GPU 7 -> GPU 8 and GPU 15 -> GPU 0.
    assert fabric == {(address(7), address(8)), (address(15), address(0))}
    assert nvlink == {(address(w), address(w + 1)) for w in range(16) if (w + 1) % GPUS != 0}
    for r in flows:
        if r['kind'] == 'nvlink':
            assert float(r['slowdown']) >= 1.0


def test_iteration_time_is_the_slowest_hop_bound(run):
    _, meta, _ = run
    assert meta['complete']
    job = meta['jobs'][0]
    ideal = job['ideal_iteration_ms']
    measured = job['iteration_ms']
    # The NIC hop bounds every ring step; NVLink hops are 36x faster and hide behind it.
    assert ideal <= measured * 1.02, (ideal, measured)
    assert measured <= ideal * 1.10, (ideal, measured)


def test_the_analysis_reads_the_run_without_its_nvlink_rows(run):
    flows, _, out = run
    _, table, _, _, _, _ = loading.load_run(str(out))
    assert sorted(table['kind'].unique()) == ['tensor']
    assert len(table) == sum(1 for r in flows if r['kind'] == 'tensor')


def test_rails_carry_only_the_inter_server_hops_too(tmp_path):
    """The same ring on rails (8 leaves, NIC i of both servers on leaf i): GPU 7 -> GPU 8 and
    GPU 15 -> GPU 0 go from rail 7 to rail 0 through a spine; every other hop is NVLink."""
    args = [a for a in ARGS if not a.startswith(('--leaves', '--hostsPerLeaf'))]
    result = subprocess.run([RUNNER, *args, '--leaves=8', '--hostsPerLeaf=2',
                             '--railOptimized=true', '--transport=rdma',
                             '--out=%s' % tmp_path], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    with open(tmp_path / 'flows.csv') as f:
        flows = list(csv.DictReader(f))
    fabric = {(r['src_ip'], r['dst_ip']) for r in flows if r['kind'] == 'tensor'}
    assert fabric == {(address(7), address(8)), (address(15), address(0))}
    assert json.loads((tmp_path / 'run.json').read_text())['complete']
