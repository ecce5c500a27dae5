"""HPCC's and ConWeave's input files through the runner (topologyFile, flowFile).

A leaf-spine given as a topology file runs exactly as the same fabric given by parameters
(byte-identical outputs, a degraded link included); a flow file's flows run as background flows
between the hosts its node ids name, and the run ends once every one of them finished; a bad
file is refused before anything runs with an error naming the file and the line.
TALB_SCENARIO names the binary."""
import csv
import filecmp
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.environ.get('TALB_SCENARIO', os.path.join(ROOT, 'build', 'bin', 'talb-scenario'))
COMMON = ['--progress=false', '--lb=ecmp', '--seed=3']
# A ring all-reduce benchmark beside generated background: both depend on the fabric's shape.
JOB = ['--jobs=coll=all_reduce,bytes=2MB,workers=6', '--iterations=2', '--warmup=0',
       '--bgLoad=0.2']
LEAVES, SPINES, PER_LEAF = 3, 2, 4
# Switches first, as HPCC's generators number them here: node ids 0..4, hosts 5..16.
SWITCH_IDS = list(range(LEAVES + SPINES))
HOST0 = LEAVES + SPINES


def topology(fabric_rate='25Gbps', degraded=None, delay='0.001ms', extra=''):
    """A 3-leaf x 2-spine x 4-host fabric in HPCC's format; `degraded` = (leaf, spine, rate)."""
    links = []
    for leaf in range(LEAVES):
        for h in range(PER_LEAF):
            links.append('%d %d 10Gbps %s 0' % (HOST0 + leaf * PER_LEAF + h, leaf, delay))
    for leaf in range(LEAVES):
        for spine in range(SPINES):
            rate = fabric_rate
            if degraded and degraded[:2] == (leaf, spine):
                rate = degraded[2]
            links.append('%d %d %s %s 0' % (leaf, LEAVES + spine, rate, delay))
    nodes = HOST0 + LEAVES * PER_LEAF
    return '%d %d %d\n%s\n%s\n%s' % (nodes, len(SWITCH_IDS), len(links),
                                     ' '.join(map(str, SWITCH_IDS)), '\n'.join(links), extra)


PARAMS = ['--leaves=%d' % LEAVES, '--spines=%d' % SPINES, '--hostsPerLeaf=%d' % PER_LEAF,
          '--hostRate=10Gbps', '--fabricRate=25Gbps', '--linkDelay=1us']


def run(args, out, timeout=600):
    return subprocess.run([RUNNER, *COMMON, *args, '--out=%s' % out], capture_output=True,
                          text=True, timeout=timeout)


def same_outputs(a, b):
    for name in ('flows.csv', 'tensors.csv', 'iterations.csv'):
        assert filecmp.cmp(a / name, b / name, shallow=False), name


@pytest.mark.parametrize('transport', ['tcp', 'rdma'])
def test_topology_file_runs_as_the_parameters_do(tmp_path, transport):
    path = tmp_path / 'topology.txt'
    path.write_text(topology())
    by_file = run(['--topologyFile=%s' % path, '--transport=' + transport, *JOB],
                  tmp_path / 'file')
    assert by_file.returncode == 0, by_file.stderr
    by_params = run([*PARAMS, '--transport=' + transport, *JOB], tmp_path / 'params')
    assert by_params.returncode == 0, by_params.stderr
    same_outputs(tmp_path / 'file', tmp_path / 'params')


def test_a_degraded_link_becomes_a_link_rate(tmp_path):
    path = tmp_path / 'topology.txt'
    path.write_text(topology(degraded=(1, 0, '2.5Gbps')))
    by_file = run(['--topologyFile=%s' % path, *JOB], tmp_path / 'file')
    assert by_file.returncode == 0, by_file.stderr
    by_params = run([*PARAMS, '--linkRates=1:0=2.5Gbps', *JOB], tmp_path / 'params')
    assert by_params.returncode == 0, by_params.stderr
    same_outputs(tmp_path / 'file', tmp_path / 'params')


def test_a_leaf_spine_error_rate_becomes_a_link_loss(tmp_path):
    """HPCC's error rate on a leaf-spine link loses packets as linkLoss does, draw for draw."""
    text = topology().replace('%d %d 25Gbps 0.001ms 0' % (1, LEAVES),
                              '%d %d 25Gbps 0.001ms 0.002' % (1, LEAVES), 1)
    assert text != topology()
    path = tmp_path / 'topology.txt'
    path.write_text(text)
    by_file = run(['--topologyFile=%s' % path, *JOB], tmp_path / 'file')
    assert by_file.returncode == 0, by_file.stderr
    by_params = run([*PARAMS, '--linkLoss=1:0=0.002', *JOB], tmp_path / 'params')
    assert by_params.returncode == 0, by_params.stderr
    same_outputs(tmp_path / 'file', tmp_path / 'params')


def flows_file(flows):
    return '%d\n%s\n' % (len(flows), '\n'.join('%d %d 3 100 %d %.9f' % f for f in flows))


# (src node, dst node, bytes, start s): across leaves, inside one, and two at once to one host.
FLOWS = [(HOST0 + 0, HOST0 + 11, 200000, 0.0001), (HOST0 + 5, HOST0 + 6, 30000, 0.0002),
         (HOST0 + 1, HOST0 + 8, 1000000, 0.0003), (HOST0 + 2, HOST0 + 8, 1000000, 0.0003),
         (HOST0 + 9, HOST0 + 3, 1, 0.0005)]


@pytest.mark.parametrize('transport', ['tcp', 'rdma'])
def test_flow_file_flows_run_and_end_the_run(tmp_path, transport):
    topo = tmp_path / 'topology.txt'
    topo.write_text(topology())
    flows = tmp_path / 'flows.txt'
    flows.write_text(flows_file(FLOWS))
    result = run(['--topologyFile=%s' % topo, '--flowFile=%s' % flows, '--jobs=',
                  '--transport=' + transport, '--stopTime=1s'], tmp_path / 'out')
    assert result.returncode == 0, result.stderr
    with open(tmp_path / 'out' / 'flows.csv') as f:
        rows = list(csv.DictReader(f))
    assert all(r['kind'] == 'background' for r in rows)
    got = sorted((r['src_ip'], r['dst_ip'], int(r['size_bytes']), round(float(r['start_ns']) / 1e3))
                 for r in rows)
    # Node HOST0 + i is talb host i (hosts in node-id order under leaves in node-id order).
    want = sorted(('10.0.0.%d' % (s - HOST0 + 1), '10.0.0.%d' % (d - HOST0 + 1), size,
                   round(start * 1e6)) for s, d, size, start in FLOWS)
    assert got == want
    assert all(float(r['slowdown']) >= 0.9999 for r in rows)
    # The run ended when the last flow did, long before stopTime.
    end_ns = max(int(r['start_ns']) + int(r['fct_ns']) for r in rows)
    assert end_ns < 10e6


def test_flow_file_without_topology_takes_host_indices(tmp_path):
    flows = tmp_path / 'flows.txt'
    flows.write_text(flows_file([(0, 15, 50000, 0.0), (3, 4, 50000, 0.0)]))
    result = run(['--flowFile=%s' % flows, '--jobs=', '--stopTime=1s'], tmp_path / 'out')
    assert result.returncode == 0, result.stderr
    with open(tmp_path / 'out' / 'flows.csv') as f:
        pairs = sorted((r['src_ip'], r['dst_ip']) for r in csv.DictReader(f))
    assert pairs == [('10.0.0.1', '10.0.0.16'), ('10.0.0.4', '10.0.0.5')]


def test_unfinished_flow_file_run_exits_3(tmp_path):
    flows = tmp_path / 'flows.txt'
    flows.write_text(flows_file([(0, 15, 100000000, 0.0)]))
    result = run(['--flowFile=%s' % flows, '--jobs=', '--stopTime=1ms'], tmp_path / 'out')
    assert result.returncode == 3, result.stderr
    assert '0 of 1 flowFile flows' in result.stderr


BAD_TOPOLOGIES = {
    'header': ('5 9 3\n', ':1:', "field 'switches'"),
    'truncated': (topology().rsplit('\n', 3)[0], ':', 'the file ends here'),
    'unit-less rate': (topology(fabric_rate='25'), ':', "field 'rate'"),
    'error rate': (topology().replace('0.001ms 0\n', '0.001ms 1.5\n', 1), ':3:',
                   "field 'error rate'"),
    'host link error rate': (topology().replace('0.001ms 0\n', '0.001ms 0.01\n', 1), ':3:',
                             'leaf-spine links only'),
    'two delays': (topology().replace('0.001ms', '0.002ms', 1), ':4:', 'share one delay'),
    'three tiers': (topology().replace('%d %d 25Gbps' % (0, LEAVES), '%d %d 25Gbps' % (0, 1), 1),
                    ':', 'two leaves'),
    'trailing': (topology(extra='7 8 10Gbps 1us 0\n'), ':', 'after the'),
}


@pytest.mark.parametrize('case', sorted(BAD_TOPOLOGIES))
def test_bad_topology_file_names_file_and_line(tmp_path, case):
    text, line, what = BAD_TOPOLOGIES[case]
    path = tmp_path / 'topology.txt'
    path.write_text(text)
    result = run(['--topologyFile=%s' % path, '--jobs=', '--duration=1ms'], tmp_path / 'out',
                 timeout=60)
    assert result.returncode == 2
    assert 'error: topologyFile: %s%s' % (path, line) in result.stderr, result.stderr
    assert what in result.stderr, result.stderr


def test_topology_file_and_fabric_parameters_conflict(tmp_path):
    path = tmp_path / 'topology.txt'
    path.write_text(topology())
    result = run(['--topologyFile=%s' % path, '--leaves=4', '--jobs=', '--duration=1ms'],
                 tmp_path / 'out', timeout=60)
    assert result.returncode == 2
    assert 'error: leaves: the topology file' in result.stderr, result.stderr


BAD_FLOWS = {
    'not a host': ('1\n0 2 3 100 1000 0\n', ':2:', 'not a host of the topology file'),
    'to itself': ('1\n5 5 3 100 1000 0\n', ':2:', 'to itself'),
    'size': ('1\n5 6 3 100 0 0\n', ':2:', "field 'size'"),
    'start': ('1\n5 6 3 100 10 -1\n', ':2:', "field 'start'"),
    'count': ('2\n5 6 3 100 10 0\n', ':', 'the file ends here'),
}


@pytest.mark.parametrize('case', sorted(BAD_FLOWS))
def test_bad_flow_file_names_file_and_line(tmp_path, case):
    text, line, what = BAD_FLOWS[case]
    topo = tmp_path / 'topology.txt'
    topo.write_text(topology())
    path = tmp_path / 'flows.txt'
    path.write_text(text)
    result = run(['--topologyFile=%s' % topo, '--flowFile=%s' % path, '--jobs='],
                 tmp_path / 'out', timeout=60)
    assert result.returncode == 2
    assert 'error: flowFile: %s%s' % (path, line) in result.stderr, result.stderr
    assert what in result.stderr, result.stderr
