"""The baselines' paper checks (scenarios/baselines/*.json, doc/talb-baselines.rst): each grid
reads with talb-sweep.py, asks talb-scenario only for parameters it has, and its first point runs
through the real runner when its arrivals are cut to 1 ms (TALB_SCENARIO names the binary)."""
import glob
import json
import os
import re
import subprocess

import pytest

from conftest import ROOT, SWEEP, load_script

GRIDS = sorted(glob.glob(os.path.join(ROOT, 'scenarios', 'baselines', '*.json')))
RUNNER = os.environ.get('TALB_SCENARIO', os.path.join(ROOT, 'build', 'bin', 'talb-scenario'))
sweep = load_script(SWEEP, 'talb_sweep')


def test_every_check_of_the_doc_has_its_grid():
    doc = open(os.path.join(ROOT, 'doc', 'talb-baselines.rst')).read()
    names = {os.path.basename(p) for p in GRIDS}
    assert names == set(re.findall(r'scenarios/baselines/([\w-]+\.json)', doc)) - {'NAME.json'}


@pytest.mark.parametrize('path', GRIDS, ids=os.path.basename)
def test_grid_runs_background_only_through_the_runner(path, tmp_path):
    if not os.path.exists(RUNNER):
        pytest.skip('%s is not built' % RUNNER)
    axes, fixed, seeds = sweep.read_grid(path)
    assert fixed['jobs'] == '' and len(seeds) >= 2 and len(axes['lb']) >= 3
    text = subprocess.run([RUNNER, '--help'], capture_output=True, text=True, timeout=60).stdout
    # ns3::Type::Attribute defaults (the artifact's switch and settings) are not runner options;
    # the run below refuses a wrong one.
    named = {k for k in set(axes) | set(fixed) if not k.startswith('ns3::')}
    unknown = named - set(re.findall(r'^\s+--(\w+):', text, re.M))
    assert not unknown, 'not talb-scenario parameters: %s' % sorted(unknown)
    point = sweep.expand(axes, dict(fixed, bgArrivals='1ms', bgWarmup='0s'), seeds)[0]
    r = subprocess.run(sweep.command(RUNNER, point.params, str(tmp_path)), capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    run = json.loads((tmp_path / 'run.json').read_text())
    assert run['complete'] and sum(b['flows'] for b in run['background_slowdown']) > 0
