"""talb-testbed-table.py prints talb-scenario's comparison table: the same text as the scenario
runner for simulator runs, and the documented figures for a testbed run folder, which the
analysis (analysis/talb-report.py) also reads unchanged. TALB_SCENARIO names the runner."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TABLE = os.path.join(HERE, 'talb-testbed-table.py')
RUNNER = os.environ.get('TALB_SCENARIO', os.path.join(ROOT, 'build', 'bin', 'talb-scenario'))
FLOW_COLUMNS = ('src_ip,dst_ip,src_port,dst_port,size_bytes,start_ns,fct_ns,ideal_fct_ns,slowdown,'
                'job,iteration,tensor,priority,kind,scheme,seed')


def table(*folders):
    r = subprocess.run([sys.executable, TABLE, *map(str, folders)], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.skipif(not os.access(RUNNER, os.X_OK), reason='talb-scenario not built')
def test_same_table_as_the_scenario_runner(tmp_path):
    # 2 leaves x 2 hosts, one 4-worker iteration beside background flows, two schemes.
    r = subprocess.run([RUNNER, '--leaves=2', '--spines=2', '--hostsPerLeaf=2',
                        '--hostRate=100Gbps', '--fabricRate=100Gbps',
                        '--jobs=workers=4,scheduler=fusion', '--iterations=2', '--warmup=1',
                        '--bgLoad=0.05', '--progress=false', '--lb=ecmp,drill',
                        '--out=%s' % tmp_path], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('scheme'))
    theirs = lines[start:start + 6]
    assert theirs[-1].startswith('avg FCT reduction'), r.stdout
    ours = table(tmp_path / 'ecmp', tmp_path / 'drill').splitlines()
    assert ours == theirs


def write_testbed_run(folder, scheme, fcts_us):
    """A run folder as talb-leafspine.sh writes it: message i has priority i % 8."""
    folder.mkdir()
    rows = [FLOW_COLUMNS]
    for i, us in enumerate(fcts_us):
        rows.append('10.250.0.1,10.250.0.3,0,40000,100000,%d,%d,21000000,%.6f,1,%d,%d,%d,tensor,'
                    '%s,1' % (1000000 * i, us * 1000 + 999, us / 21000.0, i // 8, i, i % 8,
                              scheme))
    (folder / 'flows.csv').write_text('\n'.join(rows) + '\n')
    (folder / 'tensors.csv').write_text(
        'job,iteration,tensor,name,bytes,priority,ready_ns,done_ns,comm_ns,scheme,seed\n')
    (folder / 'iterations.csv').write_text(
        'job,worker,iteration,start_ns,end_ns,compute_ns,exposed_comm_ns,scheme,seed\n')
    (folder / 'run.json').write_text(json.dumps({
        'talb_version': 'testbed', 'scheme': scheme, 'seed': 1, 'complete': True,
        'iterations_expected': 0, 'parameters': {'testbed': 'namespace leaf-spine', 'lb': scheme}}))


def test_testbed_runs_give_the_documented_figures(tmp_path):
    write_testbed_run(tmp_path / 'ecmp', 'ecmp', [1000, 2000, 3000, 4000])
    write_testbed_run(tmp_path / 'talb', 'talb', [500, 1000, 1500, 2000])
    lines = table(tmp_path / 'ecmp', tmp_path / 'talb').splitlines()
    # avg 2500 us + 999 ns (exact, not truncated to whole us); p99 = 3000 + 0.97 x 1000 (linear
    # between ranks); priorities 0, 1: 1500; no iterations, so no iteration time, ideal or
    # speedup, and no background ('-').
    assert lines[2].split() == ['ecmp', '4', '2501.0', '3971.0', '1501.0', '-', '-', '-',
                                '-', '-', '-', '-', '0/0']
    assert lines[3].split()[:5] == ['talb', '4', '1251.0', '1986.0', '751.0']
    assert lines[4] == 'avg FCT reduction vs ecmp, tensor messages:  ecmp 0.0 %  talb 50.0 %'
    assert lines[5] == ('avg FCT reduction vs ecmp, all flows (tensor and background):  '
                        'ecmp 0.0 %  talb 50.0 %')


def test_testbed_runs_load_in_the_analysis(tmp_path):
    pytest.importorskip('pandas')
    write_testbed_run(tmp_path / 'ecmp', 'ecmp', [1000, 2000, 3000, 4000])
    write_testbed_run(tmp_path / 'talb', 'talb', [500, 1000, 1500, 2000])
    r = subprocess.run([sys.executable, os.path.join(ROOT, 'analysis', 'talb-report.py'),
                        str(tmp_path), '--no-plots'], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert '2 runs under' in r.stdout
    assert 'talb' in r.stdout and 'fct_reduction_pct' in r.stdout


def test_bad_folder_is_a_usage_error(tmp_path):
    r = subprocess.run([sys.executable, TABLE, str(tmp_path / 'nope')], capture_output=True,
                       text=True)
    assert r.returncode == 2
    assert 'talb-testbed-table:' in r.stderr
