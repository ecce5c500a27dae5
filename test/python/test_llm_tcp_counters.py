"""run.json's TCP retransmission counters count graph jobs' senders too, as they count
data-parallel jobs': a collective benchmark over TCP across two leaves, one of whose uplinks
flaps, loses packets in flight and retransmits them; the same job under one switch (nothing
shared, nothing lost) retransmits nothing. With --rackTlp run.json records it and counts what it
did: the senders probe and find losses by time, and fewer wait for the timeout.
TALB_SCENARIO names the binary (ctest)."""
import json
import os
import subprocess

RUNNER = os.environ.get('TALB_SCENARIO', 'build/bin/talb-scenario')
ARGS = ['--spines=2', '--hostRate=10Gbps', '--fabricRate=10Gbps', '--bgLoad=0', '--lb=ecmp', '--warmup=0', '--progress=false', '--transport=tcp',
        '--iterations=1', '--jobs=coll=all_reduce,bytes=4MB,workers=8']
FLAP = ['--leaves=2', '--hostsPerLeaf=4', '--flapLink=0:0@1ms/1ms/1ms']


def counters(folder, *extra):
    r = subprocess.run([RUNNER, *ARGS, *extra, '--out=%s' % folder], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    meta = json.loads((folder / 'run.json').read_text())
    assert meta['complete']
    return meta


def test_graph_jobs_retransmissions_reach_run_json(tmp_path):
    alone = counters(tmp_path / 'alone', '--leaves=1', '--hostsPerLeaf=8')
    assert alone['tcp_retransmitted_segments'] == 0 and alone['tcp_timeouts'] == 0
    flap = counters(tmp_path / 'flap', *FLAP)
    assert flap['tcp_retransmitted_segments'] > 0
    assert flap['tcp_retransmitted_bytes'] >= flap['tcp_retransmitted_segments']


def test_rack_tlp_is_recorded_and_counted(tmp_path):
    off = counters(tmp_path / 'off', *FLAP)
    assert off['parameters']['rackTlp'] is False
    assert (off['tcp_loss_probes'], off['tcp_probe_losses'], off['tcp_rack_losses']) == (0, 0, 0)
    assert off['tcp_timeouts'] > 0
    on = counters(tmp_path / 'on', *FLAP, '--rackTlp=true', '--tlpDelay=1ms')
    assert on['parameters']['rackTlp'] is True
    assert on['parameters']['tlpDelay'] == '1ms'
    assert on['tcp_loss_probes'] > 0 and on['tcp_rack_losses'] > 0
    assert on['tcp_timeouts'] < off['tcp_timeouts']
