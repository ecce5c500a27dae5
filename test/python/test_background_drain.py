"""Background-only experiments as HPCC's and ConWeave's papers run them, through talb-scenario.

bgArrivals stops the arrivals and the run drains: every background flow that started finishes
before the run ends (flows.csv holds them all, run.json says complete), and stopTime cutting
the drain is an incomplete run (exit 3). bgWarmup leaves the early flows out of the table and of
the slowdown table by flow size, which a run with no job prints and run.json keeps
(background_slowdown). One seed gives every balancer the same background flows. TALB_SCENARIO
names the binary."""
import csv
import json
import os
import re
import subprocess

RUNNER = os.environ.get('TALB_SCENARIO', 'build/bin/talb-scenario')
FABRIC = ['--transport=rdma', '--jobs=', '--leaves=2', '--spines=2', '--hostsPerLeaf=4',
          '--hostRate=100Gbps', '--mtu=1000', '--bgCdf=data/alistorage2019-cdf.txt',
          '--lb=ecmp', '--progress=false']


def run(tmp_path, *args):
    return subprocess.run([RUNNER, *FABRIC, '--out=%s' % tmp_path, *args], capture_output=True,
                          text=True, timeout=600)


def background_rows(folder):
    with open(os.path.join(folder, 'flows.csv')) as f:
        return [r for r in csv.DictReader(f) if r['kind'] == 'background']


def test_arrivals_stop_and_every_started_flow_finishes(tmp_path):
    r = run(tmp_path, '--bgLoad=0.5', '--bgArrivals=1ms', '--bgWarmup=200us')
    assert r.returncode == 0, r.stderr
    meta = json.loads((tmp_path / 'run.json').read_text())
    assert meta['complete'] and meta['sim_seconds'] > 0.001
    rows = background_rows(tmp_path)
    assert rows and max(int(x['start_ns']) for x in rows) < 1000000
    counted = [x for x in rows if int(x['start_ns']) >= 200000]
    assert 0 < len(counted) < len(rows)
    # The table counts the flows past the warm-up, and so do the slowdown buckets.
    line = next(l for l in r.stdout.splitlines() if l.startswith('ecmp '))
    assert int(line.split()[5]) == len(counted)
    buckets = meta['background_slowdown']
    assert sum(b['flows'] for b in buckets) == len(counted)
    assert [b['max_bytes'] for b in buckets] == [10000, 100000, 1000000, 10000000, None]
    assert all(b['p50'] >= 1 for b in buckets if b['flows'])
    assert 'background slowdown (FCT / ideal FCT, at least 1) by flow size' in r.stdout
    table = re.findall(r'^(<= 10KB|10KB-100KB|100KB-1MB|1MB-10MB|> 10MB)\s+ecmp\s+(\d+)',
                       r.stdout, re.M)
    assert [int(n) for _, n in table] == [b['flows'] for b in buckets]


def test_a_drain_cut_by_stop_time_is_incomplete(tmp_path):
    r = run(tmp_path, '--bgLoad=0.9', '--bgCdf=websearch', '--bgArrivals=1ms',
            '--stopTime=1100us')
    assert r.returncode == 3, r.stderr
    assert 'started background flows (drain)' in r.stderr
    assert not json.loads((tmp_path / 'run.json').read_text())['complete']


def test_bad_drains_are_refused(tmp_path):
    for args, message in ((['--bgLoad=0', '--bgArrivals=1ms'], 'bgArrivals: needs bgLoad > 0'),
                          (['--bgLoad=0.3', '--bgArrivals=1ms', '--bgWarmup=1ms'],
                           'bgWarmup: must end before bgArrivals'),
                          (['--bgLoad=0.3', '--bgArrivals=2s', '--stopTime=1s'],
                           'bgArrivals: must end before stopTime'),
                          (['--bgLoad=0.3'], 'with no jobs, set duration, bgArrivals')):
        r = run(tmp_path, *args)
        assert r.returncode == 2 and message in r.stderr, r.stderr


def test_one_seed_gives_every_balancer_the_same_background(tmp_path):
    # Balancers draw different numbers of random streams (ECMP one per switch, TaLB, CONGA and
    # DRILL more); the background's flows must not depend on it, or schemes are compared on
    # different traffic.
    lbs = ['ecmp', 'talb', 'conga', 'drill']
    r = subprocess.run([RUNNER, *FABRIC, '--lb=' + ','.join(lbs), '--out=%s' % tmp_path,
                        '--bgLoad=0.3', '--bgArrivals=1ms'],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    flows = {lb: sorted((x['src_ip'], x['dst_ip'], x['size_bytes'], x['start_ns'])
                        for x in background_rows(tmp_path / lb)) for lb in lbs}
    assert len(flows['ecmp']) > 50
    for lb in lbs[1:]:
        assert flows[lb] == flows['ecmp'], lb
