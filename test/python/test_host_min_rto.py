"""minRto: the hosts' minimum TCP retransmission timeout, through the runner.

Leaf-spine links that lose packets (linkLoss) make some senders wait out a timeout. A flow
whose segment timed out took at least the minimum RTO (in a 10 Gb/s fabric srtt + 4 rttvar is
microseconds, so the RTO is the minimum), so with a minimum of 200 ms the slowest flow of a run
with timeouts takes that long, and with the default 5 ms none does. The value is recorded in
run.json; one at or below the delayed-ACK timeout, or above 1 s, is refused before anything
runs.
TALB_SCENARIO names the binary."""
import csv
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.environ.get('TALB_SCENARIO', os.path.join(ROOT, 'build', 'bin', 'talb-scenario'))
LOSSY = ['--leaves=2', '--spines=2', '--hostsPerLeaf=2', '--hostRate=10Gbps',
         '--fabricRate=10Gbps', '--jobs=workers=4,scheduler=fusion', '--iterations=2',
         '--warmup=0', '--bgLoad=0', '--progress=false', '--lb=ecmp', '--transport=tcp',
         '--linkLoss=0:0=0.002;0:1=0.002;1:0=0.002;1:1=0.002']


def run(out, *args):
    r = subprocess.run([RUNNER, *LOSSY, *args, '--out=%s' % out], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    meta = json.loads((out / 'run.json').read_text())
    with open(out / 'flows.csv', newline='') as f:
        slowest_ns = max(int(row['fct_ns']) for row in csv.DictReader(f))
    return meta, slowest_ns


def test_the_slowest_flow_waits_the_minimum_rto(tmp_path):
    long_meta, long_slowest = run(tmp_path / 'long', '--minRto=200ms')
    plain_meta, plain_slowest = run(tmp_path / 'plain')
    assert long_meta['parameters']['minRto'] == '200ms'
    assert plain_meta['parameters']['minRto'] == '5ms'
    assert long_meta['tcp_timeouts'] > 0 and plain_meta['tcp_timeouts'] > 0
    assert long_meta['complete'] and plain_meta['complete']
    # The largest message takes about 5 ms at 10 Gb/s: only a timeout makes a flow this slow.
    assert long_slowest >= 200e6, long_slowest
    assert plain_slowest < 200e6, plain_slowest


def test_default_is_five_milliseconds(tmp_path):
    r = subprocess.run([RUNNER, '--help'], capture_output=True, text=True, timeout=60)
    assert '--minRto:' in r.stdout and '[5ms]' in r.stdout.split('--minRto:')[1].split('\n')[0]


def test_at_or_below_the_delayed_ack_timeout_is_refused(tmp_path):
    for value in ('20us', '1us', '2s'):
        r = subprocess.run([RUNNER, *LOSSY, '--minRto=' + value, '--out=%s' % tmp_path],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2, r.stderr
        assert 'minRto: ' + value + ' must lie above' in r.stderr, r.stderr
        assert not (tmp_path / 'run.json').exists()
