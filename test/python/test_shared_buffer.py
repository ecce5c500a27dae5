"""Switches with a shared buffer (sharedBuffer, bufferAlpha, pfcAlpha) through talb-scenario.

run.json reports the buffers (drops by the dynamic threshold, the fullest pool); the default
(sharedBuffer=0B, static per-port buffers) reports none and leaves every output as it was; over
RDMA the dynamic XOFF keeps the fabric lossless (no headroom drop, no lossy drop) while pausing
less than the static 100 KB threshold does on the same run. TALB_SCENARIO names the binary."""
import json
import os
import subprocess

RUNNER = os.environ.get('TALB_SCENARIO', 'build/bin/talb-scenario')
SMALL = ['--lb=ecmp', '--iterations=2', '--warmup=0', '--progress=false']


def run(tmp_path, name, *args):
    out = tmp_path / name
    r = subprocess.run([RUNNER, *SMALL, '--out=%s' % out, *args], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return json.loads((out / 'run.json').read_text()), out


def test_a_shared_buffer_is_reported_and_bounds_the_pool(tmp_path):
    shared, out = run(tmp_path, 'shared', '--sharedBuffer=2MB')
    static, out0 = run(tmp_path, 'static')
    b = shared['shared_buffer']
    assert 0 < b['peak_bytes'] <= 2000000
    assert b['threshold_drops'] > 0 and b['full_drops'] == 0
    assert b['over_committed_switches'] == 0  # lossy: the pool is never exceeded
    classes = shared['switch_classes']
    assert b['threshold_drops'] == sum(classes[c]['dropped_packets'] - classes[c]['cap_drops']
                                       for c in ('training', 'best_effort'))
    assert 'shared_buffer' not in static
    assert shared['parameters']['sharedBuffer'] == '2MB'
    assert (out / 'flows.csv').read_text() != (out0 / 'flows.csv').read_text()


def test_over_rdma_the_dynamic_xoff_stays_lossless_and_pauses_less(tmp_path):
    shared, _ = run(tmp_path, 'shared', '--transport=rdma', '--sharedBuffer=2MB')
    static, _ = run(tmp_path, 'static', '--transport=rdma')
    b = shared['shared_buffer']
    assert b['threshold_drops'] == 0 and b['full_drops'] == 0
    assert shared['pfc']['headroom_drops'] == 0 and shared['pfc']['within_headroom']
    assert sum(shared['switch_classes'][c]['dropped_packets']
               for c in ('training', 'best_effort')) == 0
    assert 0 < shared['pfc']['pause_starts'] < static['pfc']['pause_starts']


def test_bad_buffers_are_refused(tmp_path):
    for args, message in ((['--sharedBuffer=100p'], "sharedBuffer: '100p' is not a byte size"),
                          (['--sharedBuffer=1MB', '--stockRouting=true'],
                           'sharedBuffer: stockRouting'),
                          (['--bufferAlpha=0'], 'bufferAlpha')):
        r = subprocess.run([RUNNER, *args, '--out=%s' % tmp_path], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 2 and message in r.stderr, r.stderr


def test_a_lossless_bound_past_4_gib_caps_the_port_instead_of_aborting(tmp_path):
    # 100 MB of headroom per (port, lossless priority) over eight priorities: the worst case a
    # port must hold without a lossless drop passes a 32-bit queue size on every switch.
    for buffers in ([], ['--sharedBuffer=16MB']):
        result, _ = run(tmp_path, 'headroom%d' % len(buffers), '--transport=rdma',
                        '--ns3::TalbPfc::Headroom=100MB', *buffers)
        assert result['complete'] and result['pfc']['headroom_drops'] == 0
