"""Completion time per collective type through the runner: under its table talb-scenario prints,
per graph job, a line per scheme and collective type (count, mean completion, mean analytic
bound, x ideal) and run.json lists the same per job ("collectives"); both are collectives.csv's
rows of the iterations from the warm-up on. TALB_SCENARIO names the binary (ctest)."""
import csv
import json
import os
import re
import subprocess
from collections import defaultdict

import pytest

RUNNER = os.environ.get('TALB_SCENARIO', 'build/bin/talb-scenario')
IDLE = ['--leaves=1', '--spines=1', '--hostsPerLeaf=8', '--hostRate=10Gbps',
        '--fabricRate=10Gbps', '--bgLoad=0', '--progress=false', '--transport=rdma']
SMALL_LLM = ('model=llama3-8b,tp=2,pp=2,dp=2,layers=2,hidden=512,ffn=1024,heads=8,kvHeads=4,'
             'seq=256,vocab=2048,microBatch=1')
SCHEMES = ('ecmp', 'drill')
LINE = re.compile(r'^  (\S+)\s+(\S+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+|-)$')


def expected(folder, warmup):
    """Per type from collectives.csv: count, summed completion and bound (ns)."""
    by_type = defaultdict(lambda: [0, 0, 0])
    with open(os.path.join(folder, 'collectives.csv')) as f:
        for row in csv.DictReader(f):
            if int(row['iteration']) >= warmup:
                t = by_type[row['type']]
                t[0] += 1
                t[1] += int(row['end_ns']) - int(row['start_ns'])
                t[2] += int(row['ideal_ns'])
    return by_type


@pytest.fixture(scope='module')
def table_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp('table')
    r = subprocess.run([RUNNER, *IDLE, '--iterations=3', '--warmup=1',
                        '--lb=' + ','.join(SCHEMES), '--jobs=' + SMALL_LLM,
                        '--out=%s' % folder], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return folder, r.stdout


def test_the_printed_block_is_collectives_csv_per_type(table_run):
    folder, stdout = table_run
    lines = stdout.splitlines()
    start = lines.index('collectives of job 0 (iterations from the warm-up on):')
    assert lines[start + 1].split() == ['scheme', 'type', 'count', 'mean', '(us)', 'ideal',
                                        '(us)', 'x', 'ideal']
    printed = defaultdict(dict)
    for line in lines[start + 2:]:
        m = LINE.match(line)
        if not m:
            break
        printed[m.group(1)][m.group(2)] = m.groups()[2:]
    assert set(printed) == set(SCHEMES)
    for scheme in SCHEMES:
        want = expected(folder / scheme, warmup=1)
        assert set(printed[scheme]) == set(want)
        for kind, (count, took, ideal) in want.items():
            got = printed[scheme][kind]
            assert int(got[0]) == count, kind
            assert float(got[1]) == pytest.approx(took / count / 1e3, abs=0.051), kind
            assert float(got[2]) == pytest.approx(ideal / count / 1e3, abs=0.051), kind
            assert float(got[3]) == pytest.approx(took / ideal, abs=0.0051), kind
    # The warm-up's iteration is left out: two of three iterations counted.
    assert sum(int(v[0]) for v in printed['ecmp'].values()) == \
        sum(v[0] for v in expected(folder / 'ecmp', warmup=0).values()) * 2 // 3


def test_run_json_lists_the_same_per_job(table_run):
    folder, _ = table_run
    for scheme in SCHEMES:
        job = json.loads((folder / scheme / 'run.json').read_text())['jobs'][0]
        want = expected(folder / scheme, warmup=1)
        listed = {c['type']: c for c in job['collectives']}
        assert set(listed) == set(want)
        for kind, (count, took, ideal) in want.items():
            c = listed[kind]
            assert c['count'] == count
            assert c['mean_us'] == pytest.approx(took / count / 1e3, rel=1e-12)
            assert c['ideal_us'] == pytest.approx(ideal / count / 1e3, rel=1e-12)
            assert c['x_ideal'] == pytest.approx(took / ideal, rel=1e-12)
            assert c['x_ideal'] >= 1.0, kind


def test_runs_without_graph_jobs_print_no_block(tmp_path):
    model = os.path.join(os.path.dirname(__file__), '..', 'data', 'talb-one-tensor-model.csv')
    r = subprocess.run([RUNNER, *IDLE, '--iterations=1', '--warmup=0', '--lb=ecmp',
                        '--model=' + model, '--jobs=workers=4', '--out=%s' % tmp_path],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert 'collectives of job' not in r.stdout
    assert 'collectives' not in json.loads((tmp_path / 'run.json').read_text())['jobs'][0]
