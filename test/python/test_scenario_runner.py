"""The scenario runner end to end: bad scenarios are refused before simulating, and a run is
reproducible byte for byte from its seed. TALB_SCENARIO names the binary (set by ctest)."""
import csv
import filecmp
import re
import json
import os
import signal
import sys
import time
import subprocess

import pytest

from conftest import REPORT
from talb_analysis import loading, stats
from talb_analysis.loading import TalbDataWarning

RUNNER = os.environ.get('TALB_SCENARIO', 'build/bin/talb-scenario')
# 2 leaves x 2 hosts, one 4-worker ResNet50 iteration next to web-search background flows.
TINY = ['--leaves=2', '--spines=2', '--hostsPerLeaf=2', '--hostRate=100Gbps',
        '--fabricRate=100Gbps', '--jobs=workers=4,scheduler=fusion', '--iterations=1',
        '--bgLoad=0.2', '--progress=false', '--lb=talb']
OUTPUTS = ('flows.csv', 'tensors.csv', 'iterations.csv')
# What lbProfile=transport gives TaLB over RoCEv2 NICs (its --help says the same): the move
# rule, and over go-back-N NICs the rules that a finished message leaves its port's count and
# that the flow's next message keeps the port where the counts tie.
RDMA_RULE = ('Moves=Contended;RemoteAwareness=true;ActiveWindow=1ms;MinMoveInterval=200us;'
             'QueueMoves=true')
RDMA_PROFILE = RDMA_RULE + ';LastEndsWindow=true;EndedTie=Keep'
SR_PROFILE = RDMA_RULE + ';RoceGoBackN=false;Spray=Always'
# Over TCP: the leaf-to-leaf feedback for sprayed packets, no margin or stall moves.
TCP_PROFILE = ('RemoteSprayBytes=30000;SprayPaths=Fastest;MarginMoves=false;SprayQueue=AtOrAbove;'
               'StallTimeout=0')


def run(*args):
    return subprocess.run([RUNNER, *args], capture_output=True, text=True, timeout=600)


def run_variants(tmp_path, variants, *common, stderr=None):
    """Runs TINY with ``common`` and each variant's arguments into tmp_path/NAME (each must
    succeed); returns {NAME: folder}, and puts each run's stderr in ``stderr`` when given."""
    outs = {}
    for name, args in variants:
        outs[name] = tmp_path / name
        result = run(*TINY, *common, *args, '--out=%s' % outs[name])
        assert result.returncode == 0, result.stderr
        if stderr is not None:
            stderr[name] = result.stderr
    return outs


def same_flows(a, b):
    """True when the runs in folders ``a`` and ``b`` wrote byte-identical flows.csv files."""
    return filecmp.cmp(a / 'flows.csv', b / 'flows.csv', shallow=False)


@pytest.fixture(scope='module')
def runs(tmp_path_factory):
    out = {}
    for name, seed in (('a', 1), ('b', 1), ('c', 2)):
        folder = tmp_path_factory.mktemp(name)
        result = run(*TINY, '--seed=%d' % seed, '--out=%s' % folder)
        assert result.returncode == 0, result.stderr
        out[name] = folder
    return out


def test_same_seed_gives_byte_identical_outputs(runs):
    for name in OUTPUTS:
        assert filecmp.cmp(runs['a'] / name, runs['b'] / name, shallow=False), name


def test_another_seed_changes_the_background_traffic(runs):
    assert not same_flows(runs['a'], runs['c'])


def test_run_writes_rows_and_run_json(runs):
    tensors = (runs['a'] / 'tensors.csv').read_text().splitlines()
    assert len(tensors) == 1 + 161  # ResNet50's gradient tensors, one iteration
    assert (runs['a'] / 'iterations.csv').read_text().count('\n') == 1 + 4
    run_json = (runs['a'] / 'run.json').read_text()
    assert '"scheme": "talb"' in run_json and '"complete": true' in run_json


def test_run_json_counts_path_selections_reroutes_and_retransmissions(runs):
    meta = json.loads((runs['a'] / 'run.json').read_text())
    # Two leaves, two spines: every packet between the racks is a selection at its leaf.
    assert meta['path_selections'] > 0
    for key in ('reroutes', 'tcp_retransmitted_segments', 'tcp_retransmitted_bytes',
                'tcp_timeouts', 'rdma_naks', 'rdma_retransmitted_bytes', 'rdma_out_of_order'):
        assert isinstance(meta[key], int) and meta[key] >= 0, key
    assert meta['rdma_naks'] == 0  # a TCP run


def test_run_json_names_the_allocator_the_build_linked(runs):
    """The build links the simulation programs with tcmalloc where it is installed
    (cmake/talb-allocator.cmake): run.json says which malloc served the run, and it is the one
    the build chose (a linker that drops the library as unneeded would show here)."""
    allocator = json.loads((runs['a'] / 'run.json').read_text())['allocator']
    expected = os.environ.get('TALB_ALLOCATOR_IN_USE')
    if expected is None:
        pytest.skip('TALB_ALLOCATOR_IN_USE unset: run under ctest to know what the build chose')
    assert {'tcmalloc': 'libtcmalloc' in allocator,
            'glibc': allocator.startswith('libc.so'),
            'asan': 'libasan' in allocator}[expected], (expected, allocator)


def test_a_flapping_link_changes_the_run_and_the_job_completes(tmp_path):
    """--flapLink reaches the fabric (the link's behaviour is tested in the talb-switch suite:
    TalbSwitchLinkFlap): the job still completes, and its flows differ from the steady run's."""
    args = [a for a in TINY if not a.startswith(('--bgLoad', '--lb'))] + ['--bgLoad=0', '--lb=ecmp']
    steady = run(*args, '--out=%s' % (tmp_path / 'steady'))
    flap = run(*args, '--flapLink=0:0@1ms/1ms/1ms', '--out=%s' % (tmp_path / 'flap'))
    assert steady.returncode == 0 and flap.returncode == 0, flap.stderr
    meta = json.loads((tmp_path / 'flap' / 'run.json').read_text())
    assert meta['complete'] and meta['parameters']['flapLink'] == '0:0@1ms/1ms/1ms'
    assert not same_flows(tmp_path / 'steady', tmp_path / 'flap')


def test_a_failure_detected_late_is_a_blackhole_meanwhile(tmp_path):
    """--failDetect reaches the fabric (the routes' timing is tested in the talb-switch suite:
    TalbSwitchLinkFailureDetection): until the switches withdraw the failed link they keep
    sending into it, run.json counts what it lost, and the job still completes. link_drops.csv
    holds a row per lost packet: on the failed link, between the failure and the withdrawal
    (and the drain of what was queued for the link by then)."""
    args = [a for a in TINY if not a.startswith('--lb')] + ['--lb=ecmp']
    drops = {}
    for detect in ('0s', '2ms'):
        out = tmp_path / detect
        result = run(*args, '--failLink=0:0@1ms', '--failDetect=%s' % detect, '--out=%s' % out)
        assert result.returncode == 0, result.stderr
        meta = json.loads((out / 'run.json').read_text())
        assert meta['complete'] and meta['parameters']['failDetect'] == detect
        drops[detect] = meta['switch_classes']['failed_link_drops']
        with open(out / 'link_drops.csv', newline='') as f:
            rows = list(csv.DictReader(f))
        assert len(rows) == drops[detect]
        assert {(r['leaf'], r['spine'], r['cause']) for r in rows} <= {('0', '0', 'failed')}
        times = [int(r['time_ns']) for r in rows]
        assert not times or 1_000_000 <= min(times) and max(times) < 3_500_000, times
        assert all(r['direction'] in ('up', 'down') and int(r['dst_port']) > 0 for r in rows)
    assert drops['2ms'] > drops['0s'] + 10, drops


def test_lb_profile_gives_talb_its_settings_per_transport(tmp_path):
    """lbProfile=transport (the default) runs TaLB over RDMA exactly as the profile's attributes
    given by hand, which differs from the attribute defaults; over TCP (RemoteSprayBytes,
    SprayPaths and SprayQueue, which act only while another job shares the uplinks, no margin
    moves and no stall moves) as MarginMoves=false;StallTimeout=0 given by hand for one job.
    run.json records what it set."""
    outs = run_variants(tmp_path, (('rdma', ['--transport=rdma']),
                                   ('rdma-none', ['--transport=rdma', '--lbProfile=none']),
                                   ('rdma-hand', ['--transport=rdma', '--lbProfile=none',
                                                  '--lbAttributes=' + RDMA_PROFILE]),
                                   ('tcp', []), ('tcp-none', ['--lbProfile=none']),
                                   ('tcp-hand', ['--lbProfile=none',
                                                 '--lbAttributes=MarginMoves=false;'
                                                 'StallTimeout=0'])))
    same = lambda a, b: same_flows(outs[a], outs[b])
    assert same('rdma', 'rdma-hand') and not same('rdma', 'rdma-none')
    assert same('tcp', 'tcp-hand')
    meta = json.loads((outs['rdma'] / 'run.json').read_text())
    assert meta['parameters']['lbProfile'] == 'transport' and meta['lb_profile'] == RDMA_PROFILE
    assert json.loads((outs['rdma-none'] / 'run.json').read_text())['lb_profile'] == ''
    assert json.loads((outs['tcp'] / 'run.json').read_text())['lb_profile'] == TCP_PROFILE
    assert json.loads((outs['tcp-none'] / 'run.json').read_text())['lb_profile'] == ''


# A small Llama-like job of 8 ranks (tp 2, pp 2, dp 2) over two leaves.
SMALL_LLM = ('model=llama3-8b,tp=2,pp=2,dp=2,layers=2,hidden=512,ffn=1024,heads=8,kvHeads=4,'
             'seq=256,vocab=2048,microBatch=1')


def test_llm_jobs_over_tcp_spray_every_tensor_packet(tmp_path):
    """Over TCP, lbProfile=transport adds Spray=Always where a job is an LLM job: alone on the
    fabric TaLB sprays its tensor packets (a CNN job alone it does not), byte for byte as the
    profile given by hand; lbRulesOff=llm-spray is the rule before (nothing sprayed), and the
    report labels the runs talb and talb-no-llm-spray."""
    llm = ['--jobs=' + SMALL_LLM, '--bgLoad=0', '--warmup=0']
    outs = run_variants(tmp_path, (('llm', llm),
                                   ('llm-off', llm + ['--lbRulesOff=llm-spray']),
                                   ('llm-hand', llm + ['--lbProfile=none', '--lbAttributes=' +
                                                       TCP_PROFILE + ';Spray=Always']),
                                   ('cnn', ['--bgLoad=0'])),
                        '--transport=tcp', '--hostsPerLeaf=4')
    meta = {n: json.loads((o / 'run.json').read_text()) for n, o in outs.items()}
    sprayed = {n: m['lb_counters']['sprayed'] for n, m in meta.items()}
    assert meta['llm']['lb_profile'] == meta['llm-off']['lb_profile'] == \
        TCP_PROFILE + ';Spray=Always'
    assert meta['cnn']['lb_profile'] == TCP_PROFILE
    assert sprayed['llm'] > 0 and sprayed['llm-off'] == sprayed['cnn'] == 0, sprayed
    assert same_flows(outs['llm'], outs['llm-hand']) and not same_flows(outs['llm'],
                                                                          outs['llm-off'])
    assert loading.load_run(str(outs['llm']))[0]['scheme'] == 'talb'
    assert loading.load_run(str(outs['llm-off']))[0]['scheme'] == 'talb-no-llm-spray'


@pytest.mark.parametrize('rule,attributes', [('queue-moves', 'QueueMoves=false'),
                                              ('last-ends', 'LastEndsWindow=false'),
                                              ('ended-tie', 'EndedTie=Queue')])
def test_a_rule_turned_off_by_name_is_its_attributes(tmp_path, rule, attributes):
    """lbRulesOff=RULE runs TaLB over RDMA as the attributes given by hand that --help says turn
    it off, which the background traffic makes differ from the default; run.json records the
    rule, and the report labels the run talb-no-RULE."""
    outs = run_variants(tmp_path, (('default', []), ('off', ['--lbRulesOff=' + rule]),
                                   ('hand', ['--lbAttributes=' + attributes])),
                        '--transport=rdma', '--bgLoad=0.5')
    same = lambda a, b: same_flows(outs[a], outs[b])
    assert same('off', 'hand') and not same('off', 'default')
    meta = json.loads((outs['off'] / 'run.json').read_text())
    assert meta['parameters']['lbRulesOff'] == rule
    assert loading.load_run(str(outs['off']))[0]['scheme'] == 'talb-no-' + rule


def test_selective_repeat_nics_get_talbs_spraying_profile(tmp_path):
    """Over RoCEv2 NICs with selective repeat (rdmaRecovery=sr) lbProfile=transport adds
    RoceGoBackN=false and Spray=Always to the RDMA profile: TaLB sprays the RoCEv2 tensor
    packets, which over go-back-N NICs it never does. lbRulesOff=sr-reorder is the go-back-N
    behaviour: the RDMA profile given by hand, byte for byte, no packet sprayed."""
    outs = run_variants(tmp_path, (('sr', ['--rdmaRecovery=sr']),
                                   ('sr-off', ['--rdmaRecovery=sr', '--lbRulesOff=sr-reorder']),
                                   ('sr-hand', ['--rdmaRecovery=sr', '--lbProfile=none',
                                                '--lbAttributes=' + RDMA_RULE]),
                                   ('gbn', [])),
                        '--transport=rdma')
    meta = {n: json.loads((o / 'run.json').read_text()) for n, o in outs.items()}
    sprayed = {n: m['lb_counters']['sprayed'] for n, m in meta.items()}
    assert meta['sr']['lb_profile'] == SR_PROFILE
    assert meta['gbn']['lb_profile'] == RDMA_PROFILE
    assert sprayed['sr'] > 0 and sprayed['sr-off'] == sprayed['gbn'] == 0
    same = lambda a, b: same_flows(outs[a], outs[b])
    assert same('sr-off', 'sr-hand') and not same('sr', 'sr-off')
    assert loading.load_run(str(outs['sr-off']))[0]['scheme'] == 'talb-no-sr-reorder'


def test_on_the_spraying_transport_untagged_packets_keep_their_hosts_entropy(tmp_path):
    """transport=spray: the profile adds Fallback=ecmp to the selective-repeat one (the hosts'
    REPS spreads the background; the switch hashes what they chose). lbRulesOff=
    sr-untagged-entropy is the DRILL fallback before: the profile given by hand with
    Fallback=drill, byte for byte, and with the background TINY carries not the default."""
    sr = SR_PROFILE
    outs = run_variants(tmp_path, (('default', []),
                                   ('off', ['--lbRulesOff=sr-untagged-entropy']),
                                   ('hand', ['--lbProfile=none',
                                             '--lbAttributes=' + sr + ';Fallback=drill'])),
                        '--transport=spray')
    meta = json.loads((outs['default'] / 'run.json').read_text())
    assert meta['lb_profile'] == sr + ';Fallback=ecmp'
    same = lambda a, b: same_flows(outs[a], outs[b])
    assert same('off', 'hand') and not same('off', 'default')
    assert loading.load_run(str(outs['off']))[0]['scheme'] == 'talb-no-sr-untagged-entropy'


def test_queue_pairs_with_ports_of_their_own_are_judged_per_host_pair(tmp_path):
    """Over RoCEv2 hosts that spread a connection over queue pairs with their own source ports,
    lbProfile=transport adds RateKey=HostPair (a queue pair alone carries a share of its
    connection and would look slow to the congestion rule); with one source port for all of
    them, or one queue pair, the profile stays the RDMA one. The profile is the attributes
    given by hand, byte for byte."""
    qp4 = ['--rdmaQpsPerConnection=4', '--rdmaSplitMessages=true']
    outs = run_variants(tmp_path, (('own', qp4),
                                   ('own-hand', qp4 + ['--lbProfile=none', '--lbAttributes=' +
                                                       RDMA_PROFILE + ';RateKey=HostPair']),
                                   ('shared', qp4 + ['--rdmaSharedSourcePort=true']),
                                   ('one', [])),
                        '--transport=rdma')
    meta = {n: json.loads((o / 'run.json').read_text()) for n, o in outs.items()}
    assert meta['own']['lb_profile'] == RDMA_PROFILE + ';RateKey=HostPair'
    assert meta['shared']['lb_profile'] == meta['one']['lb_profile'] == RDMA_PROFILE
    assert same_flows(outs['own'], outs['own-hand'])


@pytest.mark.parametrize('args,message', [
    (['--lb=ecmp,bogus'], "unknown load balancer 'bogus'"),
    (['--lbRulesOff=spray,bogus'], "lbRulesOff: unknown rule 'bogus' (rules: spray, "),
    (['--lbRulesOff=spray,spray'], "lbRulesOff: rule 'spray' is named twice"),
    (['--lbRulesOff=spray,llm-spray'],
     "lbRulesOff: rules 'spray' and 'llm-spray' both set Spray: name one of them"),
    (['--lb=ecmp', '--lbRulesOff=spray'],
     "lbRulesOff: no load balancer of lb has the attribute 'Spray' (the rules are TaLB's"),
    (['--lbRulesOff=stall-moves', '--lbAttributes=StallTimeout=5ms'],
     'lbRulesOff: a rule it names sets StallTimeout, which lbAttributes sets too'),
    (['--model=nope'], "model 'nope' is neither a zoo model"),
    (['--jobs=workers=64'], 'jobs need 64 workers but the fabric has 16 hosts'),
    (['--jobs=workers=4,colour=red'], "unknown key 'colour'"),
    (['--failLink=9:0@1ms'], 'failLink: link 9:0 is outside the fabric (4 leaves x 2 spines)'),
    (['--failLink=0:1@soon'], "failLink: '0:1@soon' is not leaf:spine@time"),
    (['--failDetect=-1ms'], "failDetect='-1ms' is not a time with a unit"),
    (['--linkRates=0:7=1Gbps'], 'linkRates: link 0:7 is outside the fabric'),
    (['--flapLink=9:0@1ms/1ms/1ms'], 'flapLink: link 9:0 is outside the fabric'),
    (['--flapLink=0:1@1ms/1ms'], "flapLink: '0:1@1ms/1ms' is not leaf:spine@start/down/up"),
    (['--flapLink=0:1@1ms/0ms/1ms'], "flapLink: '0:1@1ms/0ms/1ms': down and up times must be > 0"),
    (['--failLink=0:1@1ms', '--flapLink=0:1@2ms/1ms/1ms'],
     'flapLink: link 0:1 also fails in failLink'),
    (['--leaves=four'], "leaves='four' is not a non-negative integer"),
    (['--leaves=0'], "leaves='0' is not in [1, 256]"),
    (['--bgLoad=1.5'], "bgLoad='1.5' is not in [0, 1)"),
    # Every plug-in family answers a bad name with its valid names, before simulating.
    (['--jobs=workers=4,scheduler=byte'],
     "unknown scheduler 'byte': valid names are ascwfbp, bytescheduler, fusion, sparse, usbyte, wfbp"),
    (['--jobs=workers=4,scheduler=ns3::TalbRingAllReduce'],
     "unknown scheduler 'ns3::TalbRingAllReduce' (a ns3::TalbCollective, not a "
     "ns3::TalbCommScheduler): valid names are ascwfbp"),
    (['--jobs=workers=4,collective=allreduce'],
     "unknown collective 'allreduce': valid names are ps, ring"),
    (['--jobs=workers=4,transport=udp'],
     "unknown transport 'udp': valid names are nvlink, rdma, spray, tcp"),
    (['--transport=rdma', '--bgLoad=0', '--jobs=workers=4,transport=tcp'],
     "transport 'tcp' does not run on the hosts of transport 'rdma'"),
    (['--transport=spray', '--bgLoad=0', '--jobs=workers=4,transport=rdma'],
     "transport 'rdma' does not run on the hosts of transport 'spray'"),
    (['--transport=spray', '--rdmaRecovery=gbn'],
     'rdmaRecovery: transport spray needs sr (selective repeat)'),
    (['--transport=rdma', '--sprayPolicy=oblivious'], 'sprayPolicy: applies to transport spray only'),
    (['--transport=spray', '--sprayPolicy=ecmp'],
     "unknown entropy policy 'ecmp': valid names are oblivious, reps"),
    (['--lb=ns3::TalbWfbpScheduler'], 'not a ns3::TalbLoadBalancer'),
    (['--lbAttributes=Fallback=bogus'], "Fallback='bogus' is not a valid value"),
    (['--lbAttributes=FlowSlots=65'],
     "FlowSlots='65' is not a valid value for ns3::TalbTensorAwareLb (uint32_t 1:64)"),
    (['--lb=hermes', '--lbAttributes=EwmaGain=2'],
     "EwmaGain='2' is not a valid value for ns3::TalbHermesLb (a real number from 0.001 to 1)"),
    (['--lbAttributes=MoveMargin=-1'],
     "MoveMargin='-1' is not a valid value for ns3::TalbTensorAwareLb (a real number from 0 to"),
    (['--lbAttributes=GoBackNFallback=bogus'], "GoBackNFallback='bogus' is not a valid value"),
    (['--lb=letflow', '--lbAttributes=FlowletPick=Herd'],
     "FlowletPick='Herd' is not a valid value for ns3::TalbLetFlowLb (one of Random|LeastQueued)"),
    # Values each attribute accepts but the balancer cannot use: refused before building it.
    (['--lb=ecmp,talb', '--lbAttributes=Fallback=talb'],
     "lbAttributes: lb talb: Fallback 'talb' cannot choose for another balancer"),
    (['--lb=talb', '--lbAttributes=GoBackNFallback=hermes'],
     "lb talb: GoBackNFallback 'hermes' cannot choose for another balancer"),
    # ConWeave as the go-back-N fallback is checked with its own attributes.
    (['--lb=talb', '--lbAttributes=GoBackNFallback=conweave',
      '--ns3::TalbConWeaveLb::PathSamples=2'],
     'lb talb: GoBackNFallback: the ns3::TalbConWeaveLb attributes: PathSamples 2 needs '
     'RandomPathChoice=true'),
    (['--lb=talb', '--lbAttributes=RttMoves=Sometimes'],
     "RttMoves='Sometimes' is not a valid value for ns3::TalbTensorAwareLb (one of "
     "Never|Always|WithUntagged)"),
    (['--lb=talb', '--lbAttributes=RttMoves=Always;Version=1'],
     'lb talb: RttMoves needs Version=2'),
    (['--lb=talb', '--lbAttributes=RttMoveTarget=Talb'],
     'lb talb: RttMoveTarget=Talb needs RttMoves=Always or WithUntagged'),
    (['--lb=talb', '--lbAttributes=RttMoves=Always;RttMoveTarget=Best'],
     "RttMoveTarget='Best' is not a valid value for ns3::TalbTensorAwareLb (one of "
     "ConWeave|Talb)"),
    (['--lbAttributes=Colour=red'], "no load balancer of lb has an attribute 'Colour'"),
    # Over RDMA the profile sets TaLB's move rule first: a clash names it.
    (['--transport=rdma', '--bgLoad=0', '--lb=talb', '--lbAttributes=RemoteAwareness=false'],
     'need RemoteAwareness=true (the remote feedback is what tells a congested path) '
     '(lbProfile=transport sets Moves=Contended;'),
    (['--lbProfile=best'], "lbProfile='best' is not one of: transport none"),
    (['--jobs=workers=4,sched.Colour=1'], "ns3::TalbFusionScheduler has no attribute 'Colour'"),
    (['--jobs=workers=4,scheduler=bytescheduler,sched.Credit=lots'],
     "Credit='lots' is not a valid value"),
    (['--jobs=workers=4,scheduler=bytescheduler,sched.Credit=100,sched.PartitionSize=1000'],
     'ns3::TalbByteScheduler: Credit 100 is below PartitionSize 1000'),
    # GPU servers: the wiring must fit the leaves (rails) or one leaf (no rails).
    (['--gpusPerServer=8', '--railOptimized=true', '--leaves=4'],
     'railOptimized: leaves (4) is not a multiple of gpusPerServer (8)'),
    (['--gpusPerServer=3'], 'gpusPerServer (3) does not divide hostsPerLeaf (4)'),
    (['--config=/nonexistent.cfg'], '/nonexistent.cfg: cannot open config file'),
    (['--eventScheduler=ns3::Node'], "eventScheduler: 'ns3::Node' is no ns3::Scheduler type"),
])
def test_bad_scenarios_are_refused_before_simulating(tmp_path, args, message):
    result = run(*args, '--out=%s' % (tmp_path / 'out'))
    assert result.returncode == 2
    assert message in result.stderr
    assert 'nothing was simulated' in result.stderr
    assert not (tmp_path / 'out').exists()


def test_every_load_balancer_runs_through_the_runner(tmp_path):
    """Each registered balancer, with its defaults, passes the runner's checks before anything
    is built (each is asked as a switch would attach it) and runs a job over RDMA, where every
    one of them (ConWeave only there) can run."""
    names = ['ecmp', 'rps', 'letflow', 'drill', 'conga', 'hermes', 'presto', 'talb', 'conweave']
    result = run(*TINY, '--transport=rdma', '--bgLoad=0', '--lb=' + ','.join(names),
                 '--out=%s' % tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    for name in names:
        assert (tmp_path / name / 'flows.csv').stat().st_size > 0, name
    # run.json's lb_counters: each policy's own counters summed over the switches, by name.
    counters = {name: json.loads((tmp_path / name / 'run.json').read_text())['lb_counters']
                for name in names}
    assert counters['ecmp'] == {}  # a policy without counters of its own
    talb = counters['talb']
    assert talb['inserted'] > 0 and talb['fallback'] > 0  # tensors, and the hosts' ACKs
    assert talb['inserted'] == (talb['freed_on_last'] + talb['aged_out'] + talb['evicted'] +
                                talb['held'])
    assert talb['sprayed'] == 0  # go-back-N flows are never sprayed
    weave = counters['conweave']
    assert weave['rtt_requests'] > 0
    assert weave['reorder_held'] == (weave['released_by_tail'] + weave['released_by_timeout'] +
                                     weave['released_by_overflow'] + weave['reorder_held_now'])


def test_slot_overflows_say_when_flow_slots_are_too_few(runs, tmp_path):
    """run.json's slot_overflows counts flows that found every slot of their port held by
    other live flows (the port's flow count saturated): with one slot a port the job and the
    background overflow it. A run without overflows keeps every decision with more slots
    (what the slots hold past the first FlowSlots stays empty), so the counter tells whether
    raising FlowSlots can change a result; the runner says so after such a run."""
    stderr = {}
    outs = run_variants(tmp_path, [('one', ['--lbAttributes=FlowSlots=1']),
                                   ('many', ['--lbAttributes=FlowSlots=64'])], '--seed=1',
                        stderr=stderr)
    outs['default'] = runs['a']  # TINY, seed 1, FlowSlots 8
    overflows = {name: json.loads((folder / 'run.json').read_text())['lb_counters']
                 ['slot_overflows'] for name, folder in outs.items()}
    assert overflows['one'] > 0
    assert overflows['default'] == 0 and overflows['many'] == 0
    assert same_flows(outs['default'], outs['many'])
    assert not same_flows(outs['one'], outs['many'])
    warning = ('talb-scenario: warning: talb: %d times a flow found every flow slot of its port'
               % overflows['one'])
    assert warning in stderr['one'] and '--lbAttributes=FlowSlots=32' in stderr['one']
    assert 'flow slot' not in stderr['many']


@pytest.mark.parametrize('fabric, hop', [
    # 2 hosts of 100 Gbit/s behind 2 uplinks of 25: the leaves' uplinks overflow.
    (['--leaves=2', '--spines=2', '--hostsPerLeaf=2', '--fabricRate=25Gbps',
      '--jobs=workers=4,scheduler=fusion', '--bgLoad=0'], 'leaf_up'),
    # The same behind 2 uplinks of 400, web-search background: the hosts' ports overflow.
    (['--leaves=2', '--spines=2', '--hostsPerLeaf=2', '--fabricRate=400Gbps',
      '--jobs=workers=4,scheduler=fusion', '--bgLoad=0.2'], 'leaf_down'),
    # One host per leaf, one spine: background flows from two leaves meet at the spine's port
    # towards a third (3 hosts: an address plan that used to abort).
    (['--leaves=3', '--spines=1', '--hostsPerLeaf=1', '--fabricRate=100Gbps',
      '--jobs=coll=all_to_all,bytes=4MB,workers=3', '--bgLoad=0.5'], 'spine_down')])
def test_device_drops_by_hop_say_which_ports_overflowed(tmp_path, fabric, hop):
    """run.json's device_drops_by_hop splits the egress drops by where their port sits: a
    leaf's uplink, a spine's downlink, a leaf's port to a host; device_drops_by_priority splits
    each hop's by the packets' TaLB priority (untagged: no label)."""
    result = run('--hostRate=100Gbps', '--queueSize=100KB', '--iterations=1', '--warmup=0',
                 '--progress=false', '--lb=ecmp', *fabric, '--out=%s' % tmp_path)
    assert result.returncode == 0, result.stderr
    switches = json.loads((tmp_path / 'run.json').read_text())['switch_classes']
    by_hop = switches['device_drops_by_hop']
    assert sum(by_hop.values()) == switches['device_drops']
    assert by_hop[hop] > 0 and by_hop[hop] == switches['device_drops'], by_hop
    by_priority = switches['device_drops_by_priority']
    assert sorted(by_priority) == sorted(by_hop)
    for name, drops in by_priority.items():
        assert list(drops) == [str(k) for k in range(8)] + ['untagged']
        assert sum(drops.values()) == by_hop[name], (name, drops)
    tagged = sum(v for k, v in by_priority[hop].items() if k != 'untagged')
    if '--bgLoad=0' in fabric:  # the training job's packets alone overflow the uplinks
        assert tagged > 0 and tagged >= by_priority[hop]['untagged'], by_priority[hop]
    else:  # the background overflows the ports: its packets carry no label
        assert by_priority[hop]['untagged'] > 0, by_priority[hop]


def test_spread_retransmits_sends_resent_segments_off_the_flows_port(tmp_path):
    """SpreadRetransmits (off in every profile): on a fabric whose uplinks overflow, TaLB sends
    the TCP segments that resend bytes to the least queued uplink and counts them; off, it
    counts none and the run is the default's."""
    fabric = ['--leaves=2', '--spines=2', '--hostsPerLeaf=2', '--hostRate=100Gbps',
              '--fabricRate=25Gbps', '--queueSize=100KB', '--jobs=workers=4,scheduler=fusion',
              '--iterations=1', '--warmup=0', '--bgLoad=0', '--progress=false', '--lb=talb']
    counters = {}
    for name, extra in (('default', []), ('off', ['--lbAttributes=SpreadRetransmits=false']),
                        ('on', ['--lbAttributes=SpreadRetransmits=true'])):
        result = run(*fabric, *extra, '--out=%s' % (tmp_path / name))
        assert result.returncode == 0, result.stderr
        meta = json.loads((tmp_path / name / 'run.json').read_text())
        assert meta['complete'] and meta['tcp_retransmitted_segments'] > 0
        counters[name] = meta['lb_counters']['retransmits_spread']
    assert counters['default'] == 0 and counters['off'] == 0 and counters['on'] > 0
    assert same_flows(tmp_path / 'default', tmp_path / 'off')
    assert not same_flows(tmp_path / 'default', tmp_path / 'on')


def test_spray_crowded_sprays_one_jobs_crowd_and_leaves_its_ring_whole(tmp_path):
    """Spray=Crowded: one job's all-to-all puts 16 flows a leaf on 2 uplinks, which the default
    (Contended: one job keeps whole flows) never sprays and Crowded does, counting them as
    crowd_sprayed; with room for every flow (CrowdFlowsPerPort=8, the 8 flow slots of a port)
    or a ring's one flow a leaf it sprays nothing and the run is the default's."""
    fabric = ['--leaves=2', '--spines=2', '--hostsPerLeaf=4', '--hostRate=100Gbps',
              '--fabricRate=100Gbps', '--iterations=1', '--warmup=0', '--bgLoad=0',
              '--progress=false', '--lb=talb']
    jobs = {'a2a': '--jobs=coll=all_to_all,bytes=2MB,workers=8',
            'ring': '--jobs=workers=4,scheduler=fusion'}
    variants = (('default', []), ('crowded', ['--lbAttributes=Spray=Crowded']),
                ('roomy', ['--lbAttributes=Spray=Crowded;CrowdFlowsPerPort=8']))
    counters = {}
    for job, job_arg in jobs.items():
        for name, extra in variants:
            out = tmp_path / job / name
            result = run(*fabric, job_arg, *extra, '--out=%s' % out)
            assert result.returncode == 0, result.stderr
            meta = json.loads((out / 'run.json').read_text())
            assert meta['complete']
            counters[job, name] = (meta['lb_counters']['sprayed'],
                                   meta['lb_counters']['crowd_sprayed'])
    assert counters['a2a', 'default'] == (0, 0)
    sprayed, crowd = counters['a2a', 'crowded']
    assert crowd > 0 and crowd == sprayed  # one job: never contended, every spray the crowd's
    assert not same_flows(tmp_path / 'a2a' / 'default', tmp_path / 'a2a' / 'crowded')
    for job, name in (('a2a', 'roomy'), ('ring', 'crowded'), ('ring', 'roomy')):
        assert counters[job, name] == (0, 0), (job, name)
        assert same_flows(tmp_path / job / 'default', tmp_path / job / name), (job, name)


def test_every_event_scheduler_gives_the_same_outputs(runs, tmp_path):
    """--eventScheduler changes CPU time only: ns-3's schedulers all serve events by
    (timestamp, uid), so ns-3's default (a std::map) gives the outputs of talb's default."""
    for scheduler in ('ns3::MapScheduler', 'ns3::CalendarScheduler'):
        folder = tmp_path / scheduler.split('::')[1]
        result = run(*TINY, '--seed=1', '--eventScheduler=' + scheduler, '--out=%s' % folder)
        assert result.returncode == 0, result.stderr
        for name in OUTPUTS:
            assert filecmp.cmp(runs['a'] / name, folder / name, shallow=False), (scheduler, name)


def test_rdma_transport_runs_job_and_background_with_the_same_outputs(runs, tmp_path):
    """--transport=rdma: RoCEv2 hosts and PFC switches carry the job and the background flows
    (one queue pair per flow); same output files and columns as over TCP. Default port queues
    (DWRR: background in the best-effort class, sharing its PFC priority with a tensor band)."""
    result = run(*TINY, '--transport=rdma', '--out=%s' % tmp_path)
    assert result.returncode == 0, result.stderr
    for name in OUTPUTS:
        with open(runs['a'] / name) as tcp, open(tmp_path / name) as rdma:
            assert tcp.readline() == rdma.readline(), name
            assert rdma.readline(), name + ' has rows'
    with open(tmp_path / 'flows.csv') as f:
        rows = f.read().splitlines()
    assert all(',4791,' in r for r in rows[1:]), 'every message went over RoCEv2 (UDP 4791)'
    background = [r.split(',') for r in rows[1:] if ',background,' in r]
    assert background, 'background flows over rdma'
    for r in background:
        assert r[9:13] == ['-1'] * 4 and int(r[4]) > 0 and int(r[6]) > 0, r
    text = (tmp_path / 'run.json').read_text()
    assert '"complete": true' in text


def test_a_malformed_cdf_file_is_refused_before_simulating(tmp_path):
    cdf = tmp_path / 'bad.cdf'
    cdf.write_text('0 0\n100 abc\n')
    result = run('--bgLoad=0.1', '--bgCdf=%s' % cdf, '--out=%s' % (tmp_path / 'out'))
    assert result.returncode == 2, result.stderr
    assert "bgCdf: %s:2: field 'cumulative_percent'" % cdf in result.stderr
    assert not (tmp_path / 'out').exists()


def test_config_file_lines_are_named_in_errors(tmp_path):
    cfg = tmp_path / 'bad.cfg'
    cfg.write_text('leaves = 2\nspines = two\n')
    result = run('--config=%s' % cfg, '--out=%s' % (tmp_path / 'out'))
    assert result.returncode == 2
    assert "bad.cfg:2: spines='two'" in result.stderr


def test_interrupt_ends_the_run_cleanly_keeping_what_was_measured(tmp_path):
    out = tmp_path / 'out'
    proc = subprocess.Popen([RUNNER, *TINY[:-1], '--lb=ecmp', '--iterations=50',
                             '--out=%s' % out], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.time() + 120
    while time.time() < deadline and (not (out / 'iterations.csv').exists()
                                      or (out / 'iterations.csv').read_text().count('\n') < 3):
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert 'interrupted' in stderr
    assert '"complete": false' in (out / 'run.json').read_text()
    rows = (out / 'iterations.csv').read_text().splitlines()
    assert len(rows) >= 3 and all(r.count(',') == 8 for r in rows)


def test_a_killed_run_leaves_data_the_report_reads(tmp_path):
    """SIGKILL cannot be handled: what survives is run.json (written first, complete: false) and
    every row flushed so far. A row cut short (here: appended by hand, as a write interrupted
    by a full disk or a crash would leave it) is dropped with a warning naming the file."""
    out = tmp_path / 'out'
    proc = subprocess.Popen([RUNNER, *TINY[:-1], '--lb=ecmp', '--iterations=50',
                             '--out=%s' % out], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 120
    while time.time() < deadline and (not (out / 'iterations.csv').exists()
                                      or (out / 'iterations.csv').read_text().count('\n') < 3):
        time.sleep(0.2)
    proc.kill()
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    run_json = json.loads((out / 'run.json').read_text())
    assert run_json['complete'] is False and run_json['scheme'] == 'ecmp'
    assert not (out / 'run.json.tmp').exists()
    rows = {name: (out / name).read_text().count('\n') - 1
            for name in ('flows.csv', 'tensors.csv', 'iterations.csv')}
    assert rows['iterations.csv'] >= 2
    with open(out / 'flows.csv', 'a') as f:
        f.write('10.0.0.1,10.0.1.1,49153,50')

    with pytest.warns(TalbDataWarning, match=r'flows.csv:%d: dropped a truncated last line'
                      % (rows['flows.csv'] + 2)):
        data = loading.load(str(out))
    assert len(data.flows) == rows['flows.csv']
    assert len(data.tensors) == rows['tensors.csv']
    assert len(data.iterations) == rows['iterations.csv']

    report = subprocess.run([sys.executable, REPORT, str(out)], capture_output=True, text=True,
                            timeout=300)
    assert report.returncode == 0, report.stderr
    assert 'flows.csv:%d: dropped a truncated last line' % (rows['flows.csv'] + 2) in report.stderr


def table_rows(stdout):
    """The comparison table's lines from the header on, split into fields."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('scheme'))
    return [line.split() for line in lines[start:]]


def test_iterations_all_in_the_warmup_are_said_not_printed_as_zeros(tmp_path):
    """--iterations=1 with the default --warmup=1 measures no iteration: a warning before the
    run, and '-' (not 0.000) for iteration time, ideal, x ideal and speedup."""
    args = [a for a in TINY if not a.startswith('--bgLoad')] + ['--bgLoad=0']
    result = run(*args, '--out=%s' % tmp_path)
    assert result.returncode == 0, result.stderr
    assert 'warning: job 0 runs 1 iteration, all within warmup=1' in result.stderr
    row = table_rows(result.stdout)[2]
    assert row[0] == 'talb' and row[-5:] == ['-', '-', '-', '-', '4/4'], row
    # No background asked for: count, average and p99 are '-', not 0 and 0.0.
    assert row[5:8] == ['-', '-', '-'], row


def test_several_jobs_get_an_ideal_line_each(tmp_path):
    """Two jobs: one averaged ideal would hide that they differ, so the scheme's line leaves
    ideal and x ideal out and each job gets its own line, agreeing with run.json."""
    args = [a for a in TINY if not a.startswith(('--jobs', '--bgLoad', '--iterations'))]
    result = run(*args, '--jobs=workers=2,scheduler=fusion;workers=2,model=alexnet',
                 '--iterations=2', '--bgLoad=0', '--out=%s' % tmp_path)
    assert result.returncode == 0, result.stderr
    rows = table_rows(result.stdout)
    assert rows[2][0] == 'talb' and rows[2][-4:-2] == ['-', '-'], rows[2]
    jobs = json.loads((tmp_path / 'run.json').read_text())['jobs']
    for j in (0, 1):
        line = rows[3 + j]
        assert line[:2] == ['job', str(j)], line
        assert float(line[3]) == pytest.approx(jobs[j]['ideal_iteration_ms'], abs=5e-4)
        assert float(line[4]) == pytest.approx(jobs[j]['x_ideal'], abs=5e-3)


def test_a_run_cut_short_by_stop_time_fails(tmp_path):
    """stopTime is a safety limit: a run it ends before the jobs finished exits 3 (outputs
    kept, run.json incomplete); a shorter duration the user asked for only warns."""
    result = run(*TINY, '--stopTime=1ms', '--out=%s' % (tmp_path / 'stop'))
    assert result.returncode == 3, result.stderr
    assert 'before stopTime' in result.stderr
    assert '"complete": false' in (tmp_path / 'stop' / 'run.json').read_text()
    result = run(*TINY, '--duration=1ms', '--out=%s' % (tmp_path / 'duration'))
    assert result.returncode == 0, result.stderr
    assert 'within duration' in result.stderr


def test_a_run_json_that_cannot_be_written_is_an_error_not_a_crash(tmp_path):
    # talb's run.json taken by a folder: ecmp's run is kept and printed, talb's is refused
    # before it simulates anything, and the exit status says an output was not written.
    (tmp_path / 'talb' / 'run.json').mkdir(parents=True)
    r = run(*TINY, '--lb=ecmp,talb', '--out=%s' % tmp_path)
    assert r.returncode == 4, r.stderr
    assert re.search(r'error: cannot write .*talb/run\.json: Is a directory \(exit status 4',
                     r.stderr), r.stderr
    assert 'Aborted' not in r.stderr and 'NS_ABORT' not in r.stderr
    assert json.loads((tmp_path / 'ecmp' / 'run.json').read_text())['complete']
    assert re.search(r'^ecmp\s+\d+', r.stdout, re.M)
    assert not list((tmp_path / 'talb').glob('run.json.tmp'))


def test_table_and_report_headline_count_the_same_flows(tmp_path):
    """The runner names its two FCT reductions (tensor messages; all flows); talb-report.py's
    headline is the all-flows one, and on the same runs the two programs agree."""
    args = [a for a in TINY if not a.startswith('--lb')] + ['--lb=ecmp,talb']
    result = run(*args, '--out=%s' % tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    tensor = next(l for l in lines if l.startswith('avg FCT reduction vs ecmp, tensor messages:'))
    every = next(l for l in lines
                 if l.startswith('avg FCT reduction vs ecmp, all flows (tensor and background):'))
    runner = float(every.split('talb ')[1].split(' %')[0])
    report = subprocess.run([sys.executable, REPORT, str(tmp_path), '--no-plots',
                             '--out=%s' % (tmp_path / 'report')], capture_output=True, text=True,
                            timeout=300)
    assert report.returncode == 0, report.stderr
    assert 'lower average FCT of all flows than ecmp' in report.stdout
    import pandas as pd
    head = pd.read_csv(tmp_path / 'report' / 'headline.csv').set_index('scheme')
    assert head.loc['talb', 'max_fct_reduction_pct'] == pytest.approx(runner, abs=0.05)
    assert 'talb' in tensor


def read_flows(folder):
    import csv
    with open(folder / 'flows.csv', newline='') as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize('transport', ['tcp', 'rdma'])
def test_slowdown_is_at_least_one_fct_and_ideal_between_the_same_events(transport, tmp_path):
    """FCT and ideal FCT both run from the first byte handed to the sender's transport to the
    last byte acknowledged at the sender (HPCC's sender-side completion); the ideal is a lower
    bound, so no flow is faster than it, up to the nanosecond rounding of each. Every message
    of the job has its row: the run ends only once the last one is acknowledged."""
    result = run(*TINY, '--transport=%s' % transport, '--out=%s' % tmp_path)
    assert result.returncode == 0, result.stderr
    rows = read_flows(tmp_path)
    tensors = [r for r in rows if r['kind'] == 'tensor']
    background = [r for r in rows if r['kind'] == 'background']
    assert tensors and background
    for r in rows:
        fct, ideal = int(r['fct_ns']), int(r['ideal_fct_ns'])
        assert fct >= ideal - 1, r
        assert float(r['slowdown']) >= 1 - 2e-6, r
    # A 4-worker ring moves each fusion bucket in 2 x 3 steps of 4 messages: none lost.
    assert len(tensors) % 24 == 0, len(tensors)
    table = table_rows(result.stdout)
    assert table[2][1] == str(len(tensors)), table[2]


# HPCC's writer (simulation/scratch/third.cc, qp_finish):
#   fprintf(fout, "%08x %08x %u %u %lu %lu %lu %lu\n", sip, dip, sport, dport, m_size,
#           startTime, fct, standalone_fct)  -- times in ns, no header.
HPCC_FCT_LINE = re.compile(r'^[0-9a-f]{8} [0-9a-f]{8} \d+ \d+ \d+ \d+ \d+ \d+$')


def check_hpcc_fct_txt(path):
    """The format check of HPCC's fct.txt, written from its writer: every line eight
    space-separated fields, IPs as 8 lower-case hexadecimal digits, the rest unsigned decimal
    integers that fit the writer's types (ports and size: %u / %lu). \\return the lines' fields."""
    lines = path.read_text().split('\n')
    assert lines[-1] == '', 'the file ends with a newline'
    fields = []
    for number, line in enumerate(lines[:-1], 1):
        assert HPCC_FCT_LINE.match(line), '%s:%d: %r' % (path, number, line)
        f = line.split(' ')
        assert int(f[2]) < 65536 and int(f[3]) < 65536, line
        fields.append(f)
    return fields


@pytest.mark.parametrize('transport', ['tcp', 'rdma'])
def test_fct_txt_is_hpccs_format_with_the_flows_rows(transport, tmp_path):
    result = run(*TINY, '--transport=%s' % transport, '--fctTxt=true', '--out=%s' % tmp_path)
    assert result.returncode == 0, result.stderr
    lines = check_hpcc_fct_txt(tmp_path / 'fct.txt')
    rows = read_flows(tmp_path)
    assert len(lines) == len(rows) > 0

    def hexip(dotted):
        return '%08x' % int.from_bytes(bytes(int(b) for b in dotted.split('.')), 'big')

    for f, r in zip(lines, rows):
        assert f == [hexip(r['src_ip']), hexip(r['dst_ip']), r['src_port'], r['dst_port'],
                     r['size_bytes'], r['start_ns'], r['fct_ns'], r['ideal_fct_ns']]
    # What HPCC's fct_analysis.py computes from it: slowdown = fct / standalone_fct >= 1.
    assert min(int(f[6]) / int(f[7]) for f in lines) >= 1 - 2e-6
    plain = run(*TINY, '--transport=%s' % transport, '--out=%s' % (tmp_path / 'plain'))
    assert plain.returncode == 0 and not (tmp_path / 'plain' / 'fct.txt').exists()


@pytest.mark.parametrize('lb', ['ecmp', 'talb'])
def test_paths_csv_records_every_stay_of_the_flows_it_balanced(lb, tmp_path):
    """--pathsCsv=true: each fabric flow's packets appear at its source leaf's uplinks, their
    IPv4 bytes between the payload and the payload plus headers, in stays that follow each
    other in time; ECMP keeps a flow on one uplink; no file, and the same flows, without it."""
    import csv
    common = [*TINY, '--transport=rdma', '--bgLoad=0', '--lb=%s' % lb]
    result = run(*common, '--pathsCsv=true', '--out=%s' % tmp_path)
    assert result.returncode == 0, result.stderr
    with open(tmp_path / 'paths.csv', newline='') as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == ['node', 'port', 'next_hop', 'src_ip', 'src_port', 'dst_ip',
                                     'dst_port', 'job', 'tensor', 'priority', 'start_ns',
                                     'end_ns', 'packets', 'bytes', 'scheme', 'seed']
        stays = list(reader)
    leaf_of = {'10.0.0.%d' % (h + 1): 'leaf%d' % (h // 2) for h in range(4)}
    payload, jobs = {}, {}
    for r in read_flows(tmp_path):
        if leaf_of[r['src_ip']] != leaf_of[r['dst_ip']]:
            key = (r['src_ip'], r['src_port'], r['dst_ip'], r['dst_port'])
            payload[key] = payload.get(key, 0) + int(r['size_bytes'])
            jobs.setdefault(key, set()).add(r['job'])
    assert payload, 'the ring crosses the leaves'
    at_source = {}
    for s in stays:
        assert s['scheme'] == lb and s['seed'] == '1'
        assert int(s['start_ns']) <= int(s['end_ns']) and int(s['packets']) >= 1
        key = (s['src_ip'], s['src_port'], s['dst_ip'], s['dst_port'])
        if key in payload and s['node'] == leaf_of[s['src_ip']]:
            assert s['next_hop'] in ('spine0', 'spine1')
            assert s['job'] in jobs[key] and int(s['tensor']) >= 0 and 0 <= int(s['priority']) < 8
            at_source.setdefault(key, []).append(s)
    assert set(at_source) == set(payload)
    for key, mine in at_source.items():
        packets = sum(int(s['packets']) for s in mine)
        sent = sum(int(s['bytes']) for s in mine)
        assert payload[key] < sent <= payload[key] + packets * 100, key
        mine.sort(key=lambda s: int(s['start_ns']))
        for a, b in zip(mine, mine[1:]):
            assert int(a['end_ns']) < int(b['start_ns']), (a, b)
        if lb == 'ecmp':
            assert len({s['next_hop'] for s in mine}) == 1, key
    plain = run(*common, '--out=%s' % (tmp_path / 'plain'))
    assert plain.returncode == 0 and not (tmp_path / 'plain' / 'paths.csv').exists()
    assert read_flows(tmp_path / 'plain') == read_flows(tmp_path)
    stock = run(*TINY, '--lb=ecmp', '--stockRouting=true', '--pathsCsv=true',
                '--out=%s' % (tmp_path / 'stock'))
    assert stock.returncode != 0 and 'pathsCsv' in stock.stderr


def test_talb_training_folders_are_reportable(tmp_path):
    """talb-training runs its jobs through the named balancer on talb-scenario's fabric and
    writes run.json, so talb-report.py reads its folders as it reads the runner's."""
    training = os.path.join(os.path.dirname(RUNNER), 'talb-training')
    result = subprocess.run(
        [training, '--leaves=2', '--spines=2', '--hostsPerLeaf=2', '--hostRate=100Gbps',
         '--fabricRate=100Gbps', '--workers=4', '--iterations=2', '--scheduler=fusion',
         '--bgLoad=0', '--lb=ecmp,talb', '--out=%s' % tmp_path], capture_output=True, text=True,
        timeout=600)
    assert result.returncode == 0, result.stderr
    for scheme in ('ecmp', 'talb'):
        meta = json.loads((tmp_path / scheme / 'run.json').read_text())
        assert meta['scheme'] == scheme and meta['complete'] is True
        assert meta['parameters']['workers'] == 4
    report = subprocess.run([sys.executable, REPORT, str(tmp_path), '--no-plots'],
                            capture_output=True, text=True, timeout=300)
    assert report.returncode == 0, report.stderr
    assert '2 runs under' in report.stdout and 'schemes: ecmp, talb' in report.stdout


def test_band_scheduling_reaches_every_switch_queue(tmp_path):
    """--bandScheduling=dwrr changes what the bands send (strict, the default, does not), and
    run.json records the choice."""
    outs = run_variants(tmp_path, [('default', []), ('strict', ['--bandScheduling=strict']),
                                   ('dwrr', ['--bandScheduling=dwrr', '--strictBands=1',
                                             '--bandWeights=1,1,1,1,1,1,1,8'])])
    assert same_flows(outs['default'], outs['strict'])
    assert not same_flows(outs['default'], outs['dwrr'])
    params = json.loads((outs['dwrr'] / 'run.json').read_text())['parameters']
    assert (params['bandScheduling'], params['strictBands'], params['bandWeights']) == \
        ('dwrr', 1, '1,1,1,1,1,1,1,8')


def test_ns3_attributes_given_are_run_parameters_that_group_the_report(tmp_path):
    """--ns3::Type::Name=Value (and NS_ATTRIBUTE_DEFAULT, which the command line overrides)
    land in run.json's parameters under their full names, so a sweep over an attribute gives
    one group per value in the report instead of mixing them."""
    name = 'ns3::TalbRdmaNic::AckInterval'
    base = [a for a in TINY if not a.startswith('--bgLoad')] + ['--bgLoad=0', '--transport=spray']
    for value in ('1', '16'):
        result = run(*base, '--%s=%s' % (name, value), '--out=%s' % (tmp_path / value))
        assert result.returncode == 0, result.stderr
    env = dict(os.environ, NS_ATTRIBUTE_DEFAULT='%s=4;ns3::TalbRdmaNic::SprayAcks=false' % name)
    result = subprocess.run([RUNNER, *base, '--%s=2' % name, '--out=%s' % (tmp_path / 'env')],
                            capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stderr
    params = json.loads((tmp_path / 'env' / 'run.json').read_text())['parameters']
    assert params[name] == '2' and params['ns3::TalbRdmaNic::SprayAcks'] == 'false'
    data = loading.load(str(tmp_path))
    assert sorted(data.runs[name]) == [1, 2, 16]
    assert name in stats.group_keys(data)


def test_sprayed_packets_share_paths_of_different_rates_by_their_rates(tmp_path):
    """SprayPaths=Rate (TaLB's default): on the spraying transport, leaf 0's uplink to spine 0
    runs at 2.5 Gb/s beside a 10 Gb/s one, and the ring's hop out of leaf 0 is sprayed over
    both by their rates (a fifth on the slow path), where the rule before (Fastest) left the
    slow path idle; the iteration is shorter for it."""
    base = ['--leaves=2', '--spines=2', '--hostsPerLeaf=2', '--hostRate=10Gbps',
            '--fabricRate=10Gbps', '--linkRates=0:0=2.5Gbps', '--transport=spray', '--bgLoad=0',
            '--jobs=workers=4,scheduler=fusion', '--iterations=1', '--progress=false',
            '--lb=talb', '--pathsCsv=true']
    shares, iteration = {}, {}
    for name, extra in (('rate', []), ('fastest', ['--lbAttributes=SprayPaths=Fastest'])):
        out = tmp_path / name
        result = run(*base, *extra, '--out=%s' % out)
        assert result.returncode == 0, result.stderr
        sent = {'spine0': 0, 'spine1': 0}
        with open(out / 'paths.csv') as f:
            for row in csv.DictReader(f):
                if row['node'] == 'leaf0' and row['next_hop'] in sent:
                    sent[row['next_hop']] += int(row['bytes'])
        shares[name] = sent['spine0'] / (sent['spine0'] + sent['spine1'])
        with open(out / 'iterations.csv') as f:
            iteration[name] = max(int(r['end_ns']) - int(r['start_ns']) for r in csv.DictReader(f))
    assert 0.15 <= shares['rate'] <= 0.25, shares
    assert shares['fastest'] < 0.01, shares
    assert iteration['rate'] < 0.95 * iteration['fastest'], iteration
