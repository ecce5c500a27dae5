"""Graph jobs through the runner: LLM training jobs and collective benchmarks on the simulated
fabric. Each collective type alone on an idle non-blocking fabric finishes within 2 % (RDMA) or
5 % (TCP) of its analytic bound; an LLM job's bytes per group and class in collectives.csv equal
the analytic formula (talb::graph::LlmAnalyticBytes, in run.json) exactly; bad LLM keys are
refused with exit code 2 and a message naming them. TALB_SCENARIO names the binary (ctest)."""
import csv
import json
import os
import subprocess
from collections import defaultdict

import pytest

RUNNER = os.environ.get('TALB_SCENARIO', 'build/bin/talb-scenario')
RATE = 10e9
# The bounds count payload only. An RDMA packet of the NIC's 4096-byte MTU carries 82 bytes of
# Ethernet, RoCE (IP, UDP, BTH), ICRC and framing (20 + 8 + 12 + 4 + 14 + 24, as the RDMA ring
# test counts them): +2.0 %, on top of which the 2 % is taken; TCP's jumbo frames add 0.7 %,
# inside its 5 %.
WIRE = {'rdma': (4096 + 82) / 4096, 'tcp': 1.0}
# One switch: an idle non-blocking fabric (no background, no oversubscription).
IDLE = ['--leaves=1', '--spines=1', '--hostsPerLeaf=8', '--hostRate=10Gbps',
        '--fabricRate=10Gbps', '--oversubscription=1', '--bgLoad=0', '--lb=ecmp',
        '--warmup=0', '--progress=false']
# A small Llama-like job: 8 ranks, 2 layers, a short sequence (a few CPU seconds).
SMALL_LLM = ('model=llama3-8b,tp=2,pp=2,dp=2,layers=2,hidden=512,ffn=1024,heads=8,kvHeads=4,'
             'seq=256,vocab=2048,microBatch=1')


def run(*args):
    return subprocess.run([RUNNER, *args], capture_output=True, text=True, timeout=600)


def rows(folder, name):
    with open(os.path.join(folder, name)) as f:
        return list(csv.DictReader(f))


S = 25000000
N = 8


def bound_ns(kind):
    """The analytic bounds of talb-collective-bounds.h for one rank per server, written out."""
    t = S * 8 / RATE * 1e9
    return {'reduce_scatter': (N - 1) / N * t, 'all_gather': (N - 1) / N * t,
            'all_reduce': 2 * (N - 1) / N * t, 'all_to_all': (N - 1) / N * t,
            'broadcast': t, 'reduce': t, 'gather': (N - 1) / N * t,
            'scatter': (N - 1) / N * t, 'send_recv': t}[kind]


@pytest.mark.parametrize('transport,slack', [('rdma', 1.02), ('tcp', 1.05)])
@pytest.mark.parametrize('kind', ['reduce_scatter', 'all_gather', 'all_reduce', 'all_to_all',
                                  'broadcast', 'reduce', 'gather', 'scatter', 'send_recv'])
def test_collective_within_its_bound(tmp_path, kind, transport, slack):
    root = ',root=3' if kind in ('broadcast', 'reduce', 'gather', 'scatter') else ''
    r = run(*IDLE, '--transport=' + transport, '--iterations=1',
            '--jobs=coll=%s,bytes=%d,workers=%d%s' % (kind, S, N, root), '--out=%s' % tmp_path)
    assert r.returncode == 0, r.stderr
    done = rows(tmp_path, 'collectives.csv')
    expected = N if kind == 'send_recv' else 1
    assert len(done) == expected
    for row in done:
        assert row['type'] == kind and row['group'] == ('p2p' if kind == 'send_recv' else 'all')
        ideal = int(row['ideal_ns'])
        assert abs(ideal - bound_ns(kind)) <= 1, 'the ideal column is the bound'
        took = int(row['end_ns']) - int(row['start_ns'])
        assert ideal <= took <= slack * WIRE[transport] * ideal, \
            '%s over %s: %d ns against %d ns (%.2f %%)' % (kind, transport, took, ideal,
                                                        100.0 * (took / ideal - 1))
    meta = json.loads((tmp_path / 'run.json').read_text())
    assert meta['complete']
    # A collective benchmark is not an LLM job: TCP's profile keeps spraying only while shared.
    assert 'Spray=' not in meta['lb_profile']


def test_barrier_completes(tmp_path):
    r = run(*IDLE, '--transport=rdma', '--iterations=2', '--jobs=coll=barrier,workers=8',
            '--out=%s' % tmp_path)
    assert r.returncode == 0, r.stderr
    done = rows(tmp_path, 'collectives.csv')
    assert [row['type'] for row in done] == ['barrier', 'barrier']
    assert all(int(row['bytes']) == 0 and int(row['ideal_ns']) == 0 for row in done)


def megatron_groups(tp, dp, pp):
    """tp<k> and dp<k> of Megatron's default order (tp fastest, then dp, then pp)."""
    rank = lambda t, d, p: t + tp * (d + dp * p)
    tp_groups = [[rank(t, d, p) for t in range(tp)] for p in range(pp) for d in range(dp)]
    dp_groups = sorted([[rank(t, d, p) for d in range(dp)] for p in range(pp) for t in range(tp)])
    return ({'tp%d' % k: g for k, g in enumerate(tp_groups)},
            {'dp%d' % k: g for k, g in enumerate(dp_groups)})


@pytest.fixture(scope='module')
def llm_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp('llm')
    r = run(*IDLE, '--transport=rdma', '--iterations=2', '--jobs=' + SMALL_LLM,
            '--out=%s' % folder)
    assert r.returncode == 0, r.stderr
    return folder, r.stdout


def test_llm_bytes_per_group_and_class_equal_the_analytic_formula(llm_run):
    folder, _ = llm_run
    job = json.loads((folder / 'run.json').read_text())['jobs'][0]
    analytic = job['analytic_bytes']
    done = rows(folder, 'collectives.csv')
    by_group = defaultdict(int)
    by_class = defaultdict(int)
    for row in done:
        by_group[(int(row['iteration']), row['group'])] += int(row['bytes'])
        by_class[(int(row['iteration']), row['class'])] += int(row['bytes'])
    tp_groups, dp_groups = megatron_groups(2, 2, 2)
    for it in (0, 1):
        for cls in ('tensor', 'expert', 'pipeline', 'data'):
            assert by_class[(it, cls)] == sum(analytic[cls]), (it, cls)
        # Each rank is in one tensor and one data-parallel group (dense, untied embeddings).
        for name, members in tp_groups.items():
            assert by_group[(it, name)] == sum(analytic['tensor'][r] for r in members), name
        for name, members in dp_groups.items():
            assert by_group[(it, name)] == sum(analytic['data'][r] for r in members), name
    assert sum(analytic['pipeline']) > 0 and sum(analytic['data']) > 0


def test_llm_iterations_and_x_ideal(llm_run):
    folder, stdout = llm_run
    iterations = rows(folder, 'iterations.csv')
    assert len(iterations) == 8 * 2  # one row per rank and iteration
    job = json.loads((folder / 'run.json').read_text())['jobs'][0]
    assert job['ideal_iteration_ms'] > 0 and job['x_ideal'] >= 1.0
    assert 'ideal iteration of job 0' in stdout
    flows = rows(folder, 'flows.csv')
    assert flows and all(f['kind'] == 'tensor' and f['job'] == '0' for f in flows)
    # Graph jobs' records end at the sender's last acknowledgement, as the ideal does.
    assert min(float(f['slowdown']) for f in flows) >= 0.9999
    # Priorities by the LLM rule: tensor 0, pipeline 1, data 2..7.
    prio = {row['class']: set() for row in rows(folder, 'collectives.csv')}
    for row in rows(folder, 'collectives.csv'):
        prio[row['class']].add(int(row['priority']))
    assert prio['tensor'] == {0} and prio['pipeline'] == {1}
    assert all(2 <= p <= 7 for p in prio['data'])


def test_cnn_and_llm_jobs_share_the_fabric(tmp_path):
    r = run('--leaves=2', '--spines=2', '--hostsPerLeaf=6', '--hostRate=10Gbps', '--bgLoad=0',
            '--lb=ecmp', '--progress=false', '--iterations=1', '--transport=tcp',
            '--jobs=model=alexnet,workers=4;' + SMALL_LLM, '--out=%s' % tmp_path)
    assert r.returncode == 0, r.stderr
    jobs = {row['job'] for row in rows(tmp_path, 'iterations.csv')}
    assert jobs == {'0', '1'}
    assert len(rows(tmp_path, 'tensors.csv')) == 16  # AlexNet's tensors
    assert {row['job'] for row in rows(tmp_path, 'collectives.csv')} == {'1'}


@pytest.mark.parametrize('jobs,message', [
    ('model=llama3-9b,tp=2', 'bad value model=llama3-9b'),
    ('model=llama3-9b,tp=2', 'llama3-8b'),  # the valid presets are listed
    ('model=llama3-8b,tp=x', 'bad value tp=x'),
    ('model=llama3-8b,tp=0', 'bad value tp=0'),
    ('model=llama3-8b,tp=3,layers=2', "field 'heads' (32) must be divisible by tp (3)"),
    ('model=llama3-8b,layers=2,device=h900', 'bad value device=h900'),
    ('model=llama3-8b,layers=2,precision=fp32', 'bad value precision=fp32'),
    ('model=llama3-8b,layers=2,tp=2,workers=4', 'workers=4 but tp x pp x dp = 2'),
    ('model=llama3-8b,sp=maybe', 'bad value sp=maybe'),
    ('model=resnet50,precision=bf16', 'bad value precision=bf16'),
    ('coll=allreduce,bytes=1MB', 'bad value coll=allreduce'),
    ('coll=allreduce,bytes=1MB', 'all_reduce'),
    ('coll=all_reduce,bytes=1XB', 'bad value bytes=1XB'),
    ('coll=broadcast,bytes=1MB,root=9,workers=4', "'root' (9)"),
    ('coll=all_reduce,bytes=1MB,tp=2', "key 'tp' is an LLM key"),
])
def test_bad_llm_keys_are_refused(tmp_path, jobs, message):
    r = run('--jobs=' + jobs, '--progress=false', '--out=%s' % tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert message in r.stderr, r.stderr


def test_help_lists_the_llm_keys():
    r = run('--help')
    text = r.stdout + r.stderr
    for key in ('tp', 'pp', 'dp', 'ep', 'microBatch', 'globalBatch', 'seq', 'layers', 'coll',
                'bytes', 'llama3-8b', 'h100-sxm'):
        assert key in text, key
