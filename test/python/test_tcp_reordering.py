"""adaptiveReordering through talb-scenario: its maximum must reach the threshold it starts
from (ns3::TcpSocketBase::ReTxThreshold), or the run is refused before anything runs, naming
the parameter. What the estimator does is tested in the talb-tcp-host suite. TALB_SCENARIO
names the binary."""
import json
import os
import subprocess

RUNNER = os.environ.get('TALB_SCENARIO', 'build/bin/talb-scenario')
SMALL = ['--leaves=2', '--spines=2', '--hostsPerLeaf=1', '--bgLoad=0', '--iterations=1',
         '--warmup=0', '--jobs=model=resnet50,workers=2', '--lb=ecmp', '--progress=false']


def scenario(tmp_path, *args):
    return subprocess.run([RUNNER, *SMALL, '--out=%s' % tmp_path, *args], capture_output=True,
                          text=True, timeout=300)


def test_max_reordering_below_the_initial_threshold_is_refused(tmp_path):
    for args, message in (
            (['--adaptiveReordering=true', '--maxReordering=2'],
             'maxReordering: 2 is below ns3::TcpSocketBase::ReTxThreshold 3'),
            (['--adaptiveReordering=true', '--ns3::TcpSocketBase::ReTxThreshold=6',
              '--maxReordering=5'],
             'maxReordering: 5 is below ns3::TcpSocketBase::ReTxThreshold 6')):
        r = scenario(tmp_path, *args)
        assert r.returncode == 2, r.stderr
        assert message in r.stderr, r.stderr
        assert not (tmp_path / 'run.json').exists()


def test_off_by_default_and_recorded(tmp_path):
    r = scenario(tmp_path)
    assert r.returncode == 0, r.stderr
    meta = json.loads((tmp_path / 'run.json').read_text())
    assert meta['parameters']['adaptiveReordering'] is False
    assert meta['parameters']['maxReordering'] == 300
    assert meta['tcp_reordering_raises'] == 0
