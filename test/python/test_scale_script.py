"""bench/talb-scale.sh records a point cut by its timeout and goes on with the curve.

A stand-in runner (written here) completes the 16-host point and hangs on the 24-host one, as a
512-host run that outlasts --timeout does: the script must report the cut point with its figures
unknown (not crash, not print zeros as if measured), carry on, and plot the completed points.
"""
import csv
import os
import shutil
import stat
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, 'bench', 'talb-scale.sh')

RUNNER = r'''#!/usr/bin/python3
import json, os, sys, time
opts = dict(a[2:].split('=', 1) for a in sys.argv[1:])
out = opts['out']
os.makedirs(out, exist_ok=True)
run = {'complete': False, 'sim_seconds': 0, 'wall_seconds': 0, 'run_cpu_seconds': 0, 'events': 0,
       'packet_hops': 0, 'delivered_packets': 0}
json.dump(run, open(os.path.join(out, 'run.json'), 'w'))
if opts['leaves'] != '2':
    time.sleep(60)
run.update(complete=True, sim_seconds=0.09, wall_seconds=2.0, run_cpu_seconds=1.5, events=1000,
           packet_hops=400, delivered_packets=100)
json.dump(run, open(os.path.join(out, 'run.json'), 'w'))
'''


@pytest.mark.skipif(not os.access('/usr/bin/time', os.X_OK),
                    reason='needs GNU time (scripts/install-deps.sh installs it)')
def test_a_point_cut_by_the_timeout_is_recorded_and_the_curve_goes_on(tmp_path):
    runner = tmp_path / 'runner'
    runner.write_text(RUNNER)
    runner.chmod(runner.stat().st_mode | stat.S_IEXEC)
    out = tmp_path / 'out'
    result = subprocess.run(['bash', SCRIPT, '--bin=%s' % runner, '--hosts=16 24', '--timeout=2',
                             '--out=%s' % out], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = list(csv.DictReader(open(out / 'scale.csv')))
    assert [r['hosts'] for r in rows] == ['16', '24']
    done, cut = rows
    assert done['status'] == 'ok' and done['complete'] == 'true'
    assert float(done['wall_s']) == 2.0 and float(done['hops_per_s']) == 200.0
    assert cut['status'].startswith('failed(rc=124)') and cut['complete'] == 'false'
    # Unknown, not zero: no wall time, no rate, no peak RSS.
    assert cut['wall_s'] == '' and cut['hops_per_s'] == '' and cut['peak_rss_mib'] == ''
    lines = result.stdout.splitlines()
    assert any(line.split()[:1] == ['24'] and 'failed(rc=124)' in line and '(incomplete)' in line
               for line in lines), result.stdout
    assert (out / 'scale.png').stat().st_size > 0


@pytest.mark.skipif(not os.access('/usr/bin/time', os.X_OK),
                    reason='needs GNU time (scripts/install-deps.sh installs it)')
def test_the_table_names_the_repositorys_binary_relative_to_it(tmp_path):
    """A committed scale.csv must not name a folder of the machine that made it: the default
    binary (build/bin/talb-scenario of the script's repository) is recorded relative to it, one
    outside the repository as given."""
    repo = tmp_path / 'repo'
    (repo / 'bench').mkdir(parents=True)
    for name in ('talb-scale.sh', 'talb-scale-plot.py'):
        shutil.copy(os.path.join(ROOT, 'bench', name), repo / 'bench' / name)
    runner = repo / 'build' / 'bin' / 'talb-scenario'
    runner.parent.mkdir(parents=True)
    runner.write_text(RUNNER)
    runner.chmod(runner.stat().st_mode | stat.S_IEXEC)
    out = tmp_path / 'out'
    result = subprocess.run(['bash', str(repo / 'bench' / 'talb-scale.sh'), '--hosts=16',
                             '--out=%s' % out], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    outside = tmp_path / 'talb-scenario'
    shutil.copy(runner, outside)
    result = subprocess.run(['bash', str(repo / 'bench' / 'talb-scale.sh'), '--hosts=16',
                             '--bin=%s' % outside, '--out=%s' % out], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = list(csv.DictReader(open(out / 'scale.csv')))
    assert [r['binary'] for r in rows] == ['build/bin/talb-scenario', str(outside)]
