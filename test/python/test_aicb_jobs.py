"""AICB/SimAI workload files through the runner (--jobs='workload=FILE,...'): a small workload of
tensor parallelism 2 and data parallelism 4 on an idle non-blocking fabric of 8 hosts, over RDMA
and TCP. Each collective finishes within 2 % (RDMA) or 5 % (TCP) of its analytic bound, moves
exactly the bytes the file gives, on the groups and with the tensor ids and priorities of the LLM
rule; bad workload keys and files are refused with exit code 2 and a message naming them.
TALB_SCENARIO names the binary (ctest)."""
import csv
import json
import os
import subprocess
from collections import defaultdict

import pytest

RUNNER = os.environ.get('TALB_SCENARIO', 'build/bin/talb-scenario')
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RATE = 10e9
# Payload-only bounds; RDMA's headers add 82 bytes per 4096-byte packet (as test_llm_jobs.py).
WIRE = {'rdma': (4096 + 82) / 4096, 'tcp': 1.0}
IDLE = ['--leaves=1', '--spines=1', '--hostsPerLeaf=8', '--hostRate=10Gbps',
        '--fabricRate=10Gbps', '--oversubscription=1', '--bgLoad=0', '--lb=ecmp',
        '--warmup=0', '--progress=false']
TP_BYTES = 8000000
DP_BYTES = 20000000
# As AICB writes it: the header, the layer count, one tab-separated line per layer (times in
# ns). Only the first layer's weight gradient is all-reduced over the data-parallel group: it
# is the last operation of the backward pass, so no collective overlaps another on a host and
# each can be held to its bound.
WORKLOAD = (
    'HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 1 pp: 1 vpp: 2 ga: 1 '
    'all_gpus: 8 checkpoints: 0 checkpoint_initiates: 0 pp_comm: 0\n'
    '2\n'
    'embedding\t-1\t10000\tNONE\t0\t10000\tNONE\t0\t10000\tALLREDUCE\t%d\t100\n'
    'attention\t-1\t20000\tALLREDUCE\t%d\t20000\tALLGATHER\t%d\t20000\tNONE\t0\t100\n'
    % (DP_BYTES, TP_BYTES, TP_BYTES))
TP_GROUPS = {'tp0': [0, 1], 'tp1': [2, 3], 'tp2': [4, 5], 'tp3': [6, 7]}
DP_GROUPS = {'dp0': [0, 2, 4, 6], 'dp1': [1, 3, 5, 7]}


def run(*args):
    return subprocess.run([RUNNER, *args], capture_output=True, text=True, timeout=600)


def rows(folder, name):
    with open(os.path.join(folder, name)) as f:
        return list(csv.DictReader(f))


def bound_ns(kind, n, size):
    t = size * 8 / RATE * 1e9
    return {'all_reduce': 2 * (n - 1) / n * t, 'all_gather': (n - 1) / n * t}[kind]


@pytest.fixture(scope='module')
def workload(tmp_path_factory):
    path = tmp_path_factory.mktemp('aicb') / 'tp2-dp4.txt'
    path.write_text(WORKLOAD)
    return str(path)


@pytest.mark.parametrize('transport,slack', [('rdma', 1.02), ('tcp', 1.05)])
def test_workload_collectives_within_their_bounds_with_exact_bytes(tmp_path, workload,
                                                                   transport, slack):
    r = run(*IDLE, '--transport=' + transport, '--iterations=2',
            '--jobs=workload=' + workload, '--out=%s' % tmp_path)
    assert r.returncode == 0, r.stderr
    # A workload is an LLM job: over TCP TaLB's profile sprays its every tensor packet.
    profile = json.loads((tmp_path / 'run.json').read_text())['lb_profile']
    assert profile.endswith(';Spray=Always') == (transport == 'tcp'), profile
    done = rows(tmp_path, 'collectives.csv')
    by_group = defaultdict(int)
    for row in done:
        group = row['group']
        size = len(TP_GROUPS.get(group) or DP_GROUPS[group])
        expected_class = 'tensor' if group.startswith('tp') else 'data'
        assert row['class'] == expected_class, row
        # The LLM rule: tensor-parallel 0; data-parallel 2..7 by layer (the first layer: 2).
        assert int(row['priority']) == (0 if expected_class == 'tensor' else 2), row
        by_group[(int(row['iteration']), group)] += int(row['bytes'])
        ideal = int(row['ideal_ns'])
        assert abs(ideal - bound_ns(row['type'], size, int(row['bytes']) // size)) <= 1, row
        took = int(row['end_ns']) - int(row['start_ns'])
        assert ideal <= took <= slack * WIRE[transport] * ideal, \
            '%s on %s over %s: %d ns against %d ns (%.2f %%)' % (
                row['operation'], group, transport, took, ideal, 100.0 * (took / ideal - 1))
    for it in (0, 1):
        for name in TP_GROUPS:
            assert by_group[(it, name)] == 2 * 2 * TP_BYTES, (it, name)  # fwd + ig, 2 ranks
        for name in DP_GROUPS:
            assert by_group[(it, name)] == 4 * DP_BYTES, (it, name)
    assert len(done) == 2 * (2 * len(TP_GROUPS) + len(DP_GROUPS))
    assert len(rows(tmp_path, 'iterations.csv')) == 8 * 2
    flows = rows(tmp_path, 'flows.csv')
    assert flows and all(f['job'] == '0' for f in flows)
    job = json.loads((tmp_path / 'run.json').read_text())['jobs'][0]
    assert job['x_ideal'] >= 1.0
    assert json.loads((tmp_path / 'run.json').read_text())['complete']


def test_first_layers_only(tmp_path, workload):
    r = run(*IDLE, '--transport=rdma', '--iterations=1',
            '--jobs=workload=%s,layers=1' % workload, '--out=%s' % tmp_path)
    assert r.returncode == 0, r.stderr
    assert {row['group'] for row in rows(tmp_path, 'collectives.csv')} == set(DP_GROUPS)


def test_committed_aicb_sample_runs_at_reduced_scale(tmp_path):
    # AICB's Llama-7B Megatron workload (tensor parallel 2), its first 6 layer lines on 4 ranks.
    sample = os.path.join(ROOT, 'test', 'data', 'aicb',
                          'L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt')
    r = run(*IDLE, '--transport=rdma', '--iterations=1',
            '--jobs=workload=%s,workers=4,layers=6' % sample, '--out=%s' % tmp_path)
    assert r.returncode == 0, r.stderr
    done = rows(tmp_path, 'collectives.csv')
    assert {row['type'] for row in done} >= {'broadcast', 'all_gather', 'reduce_scatter',
                                             'all_reduce'}
    assert json.loads((tmp_path / 'run.json').read_text())['complete']


@pytest.mark.parametrize('jobs,message', [
    ('workload=/nonexistent/w.txt', 'bad value workload=/nonexistent/w.txt: '
                                    '/nonexistent/w.txt: cannot open the file'),
    ('workload=BAD', "BAD:1: first word 'GPT'"),
    ('workload=GOOD,tp=2', "key 'tp=2' does not apply to a workload job"),
    ('workload=GOOD,layers=0', 'bad value layers=0: must be at least 1'),
    ('workload=GOOD,layers=3', 'layers=3 but the file has 2 layer lines'),
    ('workload=GOOD,workers=4', "4 ranks asked for but the file's all_gpus is 8"),
    ('workload=GOOD,device=h100-sxm', "key 'device' does not apply to a workload job"),
    ('workload=OLD', 'the file does not say all_gpus: give the job\'s ranks (workers=N)'),
    ('workload=BIG', 'jobs need 16 workers but the fabric has 8 hosts'),
])
def test_bad_workload_keys_are_refused(tmp_path, workload, jobs, message):
    (tmp_path / 'bad.txt').write_text('GPT 3\n')
    (tmp_path / 'old.txt').write_text(
        'HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2\n1\n'
        'l\t-1\t1\tALLREDUCE\t64\t1\tNONE\t0\t1\tNONE\t0\t0\n')
    (tmp_path / 'big.txt').write_text(WORKLOAD.replace('all_gpus: 8', 'all_gpus: 16'))
    paths = {'GOOD': workload, 'BAD': str(tmp_path / 'bad.txt'),
             'OLD': str(tmp_path / 'old.txt'), 'BIG': str(tmp_path / 'big.txt')}
    for key, path in paths.items():
        jobs = jobs.replace('=' + key, '=' + path)
        message = message.replace(key + ':', path + ':')
    r = run(*IDLE, '--jobs=' + jobs, '--out=%s' % (tmp_path / 'out'))
    assert r.returncode == 2, r.stdout + r.stderr
    assert message in r.stderr, r.stderr


def test_help_lists_the_workload_key():
    r = run('--help')
    assert 'workload:' in r.stdout + r.stderr
