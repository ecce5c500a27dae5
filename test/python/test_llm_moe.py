"""An MoE LLM job through the runner: its expert-parallel all-to-all bytes per iteration equal
the analytic formula of model/graph (talb::graph::LlmAnalyticBytes, run.json's analytic_bytes)
exactly, per expert group in collectives.csv and on the wire in flows.csv.

An all-to-all's node bytes count what each member sends, the part it keeps included (dispatch:
its tokens for every expert; combine: every peer's tokens for its own experts). Every member of a
group routes alike (the same per-expert counts), so the parts kept add up to 1/ep of an
instance's bytes, and the messages of an instance carry exactly (ep-1)/ep of its bytes. With
tp = pp = 1 the only priority-0 messages are the all-to-all's (the LLM rule puts expert traffic
at 0, data-parallel at 2..7). TALB_SCENARIO names the binary (ctest)."""
import csv
import json
import os
import subprocess
from collections import defaultdict

import pytest

RUNNER = os.environ.get('TALB_SCENARIO', 'build/bin/talb-scenario')
HEADER = 16  # TALB_FRAME_LEN: every message's frame header, counted in size_bytes
DP, EP = 8, 4
IDLE = ['--leaves=1', '--spines=1', '--hostsPerLeaf=8', '--hostRate=10Gbps',
        '--fabricRate=10Gbps', '--bgLoad=0', '--lb=ecmp', '--warmup=0', '--progress=false']
# A small Mixtral-like job: 8 experts, top 2, skewed routing, 2 MoE layers; 8 ranks in 2 expert
# groups of 4.
MOE = ('model=mixtral-8x7b,dp=%d,ep=%d,layers=2,hidden=256,ffn=512,moeFfn=512,heads=8,kvHeads=4,'
       'seq=128,vocab=1024,microBatch=1,routingSkew=1.2' % (DP, EP))


def rows(folder, name):
    with open(os.path.join(folder, name)) as f:
        return list(csv.DictReader(f))


def expert_groups():
    """ep<k> in Megatron's default order (tp-cp-ep-dp-pp): ep fastest inside dp."""
    return {'ep%d' % k: list(range(k * EP, (k + 1) * EP)) for k in range(DP // EP)}


@pytest.fixture(scope='module', params=['rdma', 'tcp'])
def moe_run(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(request.param)
    r = subprocess.run([RUNNER, *IDLE, '--transport=' + request.param, '--iterations=2',
                        '--jobs=' + MOE, '--out=%s' % folder],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return folder


def test_expert_bytes_per_group_equal_the_analytic_formula(moe_run):
    job = json.loads((moe_run / 'run.json').read_text())['jobs'][0]
    expert = job['analytic_bytes']['expert']
    assert len(expert) == DP and all(b > 0 for b in expert)
    by_group = defaultdict(int)
    for row in rows(moe_run, 'collectives.csv'):
        if row['class'] == 'expert':
            assert row['type'] == 'all_to_all' and row['priority'] == '0', row
            by_group[(int(row['iteration']), row['group'])] += int(row['bytes'])
    for it in (0, 1):
        for name, members in expert_groups().items():
            assert by_group[(it, name)] == sum(expert[r] for r in members), (it, name)
        assert sum(b for (i, _), b in by_group.items() if i == it) == sum(expert)


def test_expert_messages_carry_the_analytic_bytes_less_the_kept_part(moe_run):
    expert = json.loads((moe_run / 'run.json').read_text())['jobs'][0]['analytic_bytes']['expert']
    wire = defaultdict(int)
    for f in rows(moe_run, 'flows.csv'):
        if f['priority'] == '0':
            wire[int(f['iteration'])] += int(f['size_bytes']) - HEADER
    for it in (0, 1):
        assert sum(expert) % EP == 0
        assert wire[it] == sum(expert) * (EP - 1) // EP, it
    # Skewed routing: the popular experts' ranks send more back in the combine.
    assert len(set(expert)) > 1
