"""linkLoss: leaf-spine links that lose packets at random, through the runner.

A zero probability changes nothing; every packet that crosses a lossy link is lost with the
given probability (counted in run.json's link_loss_drops, against the leaf-uplink packets
paths.csv records; each one a link_drops.csv row); TCP, go-back-N and selective-repeat RDMA all recover and finish.
TALB_SCENARIO names the binary."""
import csv
import filecmp
import json
import math
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.environ.get('TALB_SCENARIO', os.path.join(ROOT, 'build', 'bin', 'talb-scenario'))
TINY = ['--leaves=2', '--spines=2', '--hostsPerLeaf=2', '--hostRate=10Gbps',
        '--fabricRate=10Gbps', '--jobs=workers=4,scheduler=fusion', '--iterations=2',
        '--warmup=0', '--bgLoad=0', '--progress=false', '--lb=ecmp']
EVERY_LINK = '0:0=P;0:1=P;1:0=P;1:1=P'


def run(out, *args):
    r = subprocess.run([RUNNER, *TINY, *args, '--out=%s' % out], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads((out / 'run.json').read_text())


@pytest.mark.parametrize('transport', ['tcp', 'rdma'])
def test_no_loss_changes_nothing(tmp_path, transport):
    plain = run(tmp_path / 'plain', '--transport=' + transport)
    zero = run(tmp_path / 'zero', '--transport=' + transport, '--linkLoss=0:0=0;1:1=0')
    assert zero['switch_classes']['link_loss_drops'] == 0
    for name in ('flows.csv', 'iterations.csv'):
        assert filecmp.cmp(tmp_path / 'plain' / name, tmp_path / 'zero' / name, shallow=False)
    assert plain['events'] == zero['events']


def test_each_crossing_packet_is_lost_with_the_probability(tmp_path):
    """Every packet between the leaves crosses one lossy uplink and one lossy downlink: the
    drops are a binomial draw over twice the packets the leaves sent to the spines."""
    p = 0.002
    meta = run(tmp_path, '--transport=tcp', '--pathsCsv=true',
               '--linkLoss=' + EVERY_LINK.replace('P', str(p)))
    with open(tmp_path / 'paths.csv', newline='') as f:
        up = sum(int(r['packets']) for r in csv.DictReader(f)
                 if r['node'].startswith('leaf') and r['next_hop'].startswith('spine'))
    drops = meta['switch_classes']['link_loss_drops']
    # Lost on the uplink: not on the downlink too (2n - drops crossings, about 2n).
    expected = 2 * up * p
    assert abs(drops - expected) < 5 * math.sqrt(expected), (drops, expected, up)
    assert meta['complete'] and meta['tcp_retransmitted_segments'] > 0
    # link_drops.csv: a row per lost packet, each of a flow flows.csv knows (data one way,
    # acknowledgements the other), in both directions of the links.
    with open(tmp_path / 'link_drops.csv', newline='') as f:
        rows = list(csv.DictReader(f))
    with open(tmp_path / 'flows.csv', newline='') as f:
        flows = {(r['src_ip'], r['src_port'], r['dst_ip'], r['dst_port'])
                 for r in csv.DictReader(f)}
    assert len(rows) == drops and {r['cause'] for r in rows} == {'loss'}
    assert {r['direction'] for r in rows} == {'up', 'down'}
    for r in rows:
        key = (r['src_ip'], r['src_port'], r['dst_ip'], r['dst_port'])
        assert key in flows or (key[2], key[3], key[0], key[1]) in flows, r
    assert any(r['job'] == '0' and r['tensor'] != '-1' for r in rows)


@pytest.mark.parametrize('recovery', ['gbn', 'sr'])
def test_rdma_recovers_random_loss(tmp_path, recovery):
    meta = run(tmp_path, '--transport=rdma', '--rdmaRecovery=' + recovery,
               '--linkLoss=' + EVERY_LINK.replace('P', '0.001'))
    assert meta['complete']
    assert meta['switch_classes']['link_loss_drops'] > 0
    assert meta['rdma_retransmitted_packets'] >= meta['switch_classes']['link_loss_drops'] // 2


def completion_ms(folder):
    with open(folder / 'iterations.csv', newline='') as f:
        return max(int(r['end_ns']) for r in csv.DictReader(f)) / 1e6


def test_window_edge_ack_and_irn_low_timeout_recover_random_loss(tmp_path):
    """Selective repeat under 0.1 % loss. A lost coalesced acknowledgement used to leave a
    window-limited queue pair waiting for RetransmitTimeout (4 ms): the responder acknowledges
    every AckInterval packets and the closed window sent no more. WindowEdgeAck (the packet
    that fills the window asks for an answer, on by default) brings the job to 1.03x its
    lossless time, against 1.10-1.18x without (seeds 1-3). A loss among a burst's last packets
    still waits for the timeout; IRN's RTO_low (RetransmitTimeoutLow while few packets are in
    flight) brings it to 1.00-1.01x."""
    sr = ['--transport=rdma', '--rdmaRecovery=sr']
    loss = '--linkLoss=' + EVERY_LINK.replace('P', '0.001')
    run(tmp_path / 'clean', *sr)
    stalled = run(tmp_path / 'stalled', *sr, loss, '--ns3::TalbRdmaNic::WindowEdgeAck=false')
    edge = run(tmp_path / 'edge', *sr, loss)
    fast = run(tmp_path / 'fast', *sr, loss, '--ns3::TalbRdmaNic::RetransmitTimeoutLow=200us')
    clean = completion_ms(tmp_path / 'clean')
    assert completion_ms(tmp_path / 'stalled') > 1.05 * clean
    assert completion_ms(tmp_path / 'edge') < 1.05 * clean
    assert edge['rdma_timeouts'] < stalled['rdma_timeouts']
    assert completion_ms(tmp_path / 'fast') < 1.03 * clean
    assert fast['complete']
