"""pushOut: switch ports that drop queued packets of lower bands for an arrival that finds them
full, through the runner.

A CNN job beside background at half the host rate on a 2:1 fabric over TCP, the background in
the lowest band (strict scheduling, untaggedBand 7): with drop-tail the full ports refuse tensor
packets of every band; with push-out the background queued below them makes room, so the tensor
bands above 7 lose far fewer packets, background is what the ports drop, and every pushed-out
packet is counted once, as a drop of its class, its hop and its priority. Lossless fabrics and
shared buffers refuse the option. TALB_SCENARIO names the binary."""
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.environ.get('TALB_SCENARIO', os.path.join(ROOT, 'build', 'bin', 'talb-scenario'))
SHARED = ['--leaves=2', '--spines=2', '--hostsPerLeaf=4', '--hostRate=10Gbps',
          '--oversubscription=2', '--jobs=workers=8', '--iterations=1', '--warmup=0',
          '--bgLoad=0.5', '--portScheduling=strict', '--untaggedBand=7', '--progress=false',
          '--lb=ecmp', '--transport=tcp']
ABOVE_BACKGROUND = [str(p) for p in range(7)]  # tensor bands the background's band is below


def run(out, *args):
    r = subprocess.run([RUNNER, *SHARED, *args, '--out=%s' % out], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads((out / 'run.json').read_text())


def tensor_drops_above_background(classes):
    return sum(hop[p] for hop in classes['device_drops_by_priority'].values()
               for p in ABOVE_BACKGROUND)


def test_urgent_packets_push_out_the_background(tmp_path):
    tail = run(tmp_path / 'tail')
    push = run(tmp_path / 'push', '--pushOut=true')
    assert tail['parameters']['pushOut'] is False and push['parameters']['pushOut'] is True
    assert tail['complete'] and push['complete']
    t, p = tail['switch_classes'], push['switch_classes']
    assert t['training']['pushed_out'] == 0 and t['best_effort']['pushed_out'] == 0
    assert p['best_effort']['pushed_out'] > 0
    assert tensor_drops_above_background(t) > 0
    assert tensor_drops_above_background(p) <= tensor_drops_above_background(t) / 2, (p, t)
    for c in (t, p):
        # A pushed-out packet is one drop, of its class and of its port's hop and priority.
        by_priority = sum(sum(hop.values()) for hop in c['device_drops_by_priority'].values())
        assert by_priority == c['device_drops']
        assert c['training']['dropped_packets'] + c['best_effort']['dropped_packets'] == \
            c['device_drops']


def test_refused_where_ports_do_not_drop_by_their_own_size(tmp_path):
    for args, message in (
            (['--transport=rdma'], 'pushOut: RoCEv2 fabrics hold their packets back by PFC'),
            (['--sharedBuffer=4MB'], 'pushOut: ports of a sharedBuffer are refused by its '
                                     'thresholds')):
        r = subprocess.run([RUNNER, *SHARED, *args, '--pushOut=true', '--out=%s' % tmp_path],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2, r.stderr
        assert message in r.stderr, r.stderr
        assert not (tmp_path / 'run.json').exists()
