"""Every parameter of every program, given a bad value, exits 2 with a message naming it.

The parameters come from each program's --help, so an option added without a case here fails
the test (and a case for an option that is gone fails too). A bad value must be refused before
anything runs: the runs are bounded by a timeout, and a program that starts simulating or
forwarding instead of refusing fails it. The message must name the parameter in an error
line of the program (not only in a usage text printed after it).

Programs are found in TALB_BIN_DIR (ctest sets it); one not built there (the trainer without
CUDA) is skipped with the reason.
"""
import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get('TALB_BIN_DIR', os.path.join(ROOT, 'build', 'bin'))
TIMEOUT = 60
# EAL without hugepages, PCI or shared files (as the testbed's tests run it).
EAL = ['--no-huge', '--no-pci', '--no-shconf', '-m', '64', '-l', '0', '--']

# The scenario parameters (talb-scenario).
SCENARIO = {
    'config': '/nonexistent/talb.cfg',
    'leaves': '0',
    'spines': 'x',
    'hostsPerLeaf': '2000',
    'hostRate': '10 Gbps',
    'fabricRate': '0bps',
    'oversubscription': '-1',
    'linkDelay': '5',
    'mtu': '100',
    'topologyFile': '/nonexistent/topology.txt',
    'gpusPerServer': '0',
    'railOptimized': 'maybe',
    'nvlinkRate': '0bps',
    'nvlinkLatency': '-1us',
    'queueSize': '1 MB',
    'hostQueueSize': 'big',
    'sharedBuffer': '16 MB',
    'bufferAlpha': '0',
    'pfcAlpha': '2000',
    'untaggedBand': '8',
    'portScheduling': 'fifo',
    'bandScheduling': 'wrr',
    'strictBands': '9',
    'bandWeights': '1,1,1,1,1,1,1,0',
    'trainingWeight': '0',
    'bestEffortWeight': '-1',
    'bestEffortBuffer': '100p',
    'ecnThreshold': 'x',
    'pushOut': 'maybe',
    'linkRates': '0:0=fast',
    'failLink': '0:0',
    'failDetect': '-1ms',
    'flapLink': '0:0@1ms/0ms/1ms',
    'linkLoss': '0:0=1',
    'stockRouting': 'maybe',
    'lb': 'nope',
    'lbAttributes': 'NoSuchAttribute=1',
    'lbProfile': 'best',
    'lbRulesOff': 'bogus',
    'tcp': 'cubic',
    'sndBuf': '0',
    'rcvBuf': 'x',
    'minRto': '20us',
    'hostQdisc': 'fq_codel',
    'transport': 'nope',
    'rdmaQueuePairs': 'many',
    'rdmaTrafficClass': '8',
    'rdmaRecovery': 'selective',
    'rdmaCc': 'swift',
    'sprayPolicy': 'nope',
    'rdmaPfc': 'maybe',
    'rdmaQpsPerConnection': '0',
    'rdmaSharedSourcePort': 'maybe',
    'rdmaSplitMessages': 'maybe',
    'plb': 'maybe',
    'plbRounds': '0',
    'plbForceRounds': '0',
    'plbMarkFraction': '1',
    'plbRound': '0s',
    'slowStartAfterIdle': 'maybe',
    'adaptiveReordering': 'maybe',
    'maxReordering': '0',
    'rackTlp': 'maybe',
    'tlpDelay': '2',
    'jobs': 'model=resnet50,workers=1',
    'model': 'nope',
    'placement': 'diagonal',
    'iterations': '0',
    'warmup': '-1',
    'controlDelay': '-1us',
    'batch': '0',
    'device': 'H100',
    'precision': 'fp8',
    'bgLoad': '1',
    'bgCdf': 'nosuch',
    'bgArrivals': '-1ms',
    'bgWarmup': 'soon',
    'flowFile': '/nonexistent/flows.txt',
    'seed': 'x',
    'duration': 'forever',
    'stopTime': '-1s',
    'progress': 'maybe',
    'fctTxt': 'maybe',
    'pathsCsv': 'maybe',
    'out': '',
    'eventScheduler': 'ns3::NoSuchScheduler',
}

# The groups of scenario parameters the other programs share with talb-scenario (one
# declaration, TalbScenarioParameters): the same names take the same bad values.
FABRIC = ['leaves', 'spines', 'hostsPerLeaf', 'hostRate', 'fabricRate', 'oversubscription',
          'linkDelay', 'mtu', 'topologyFile', 'gpusPerServer', 'railOptimized', 'nvlinkRate',
          'nvlinkLatency', 'queueSize', 'sharedBuffer', 'bufferAlpha', 'pfcAlpha',
          'hostQueueSize', 'portScheduling', 'bandScheduling', 'strictBands', 'bandWeights',
          'trainingWeight',
          'bestEffortWeight', 'untaggedBand', 'bestEffortBuffer', 'ecnThreshold', 'pushOut',
          'linkRates',
          'failLink', 'failDetect', 'flapLink', 'linkLoss', 'stockRouting']
BALANCERS = ['lb', 'lbAttributes', 'lbProfile', 'lbRulesOff']
HOSTS = ['tcp', 'sndBuf', 'rcvBuf', 'minRto', 'hostQdisc']


def shared(names, own):
    """Bad values of talb-scenario's parameters `names`, with a program's own cases winning."""
    cases = {name: SCENARIO[name] for name in names}
    cases.update(own)
    return cases


# talb-sim-bench forwards the parameters that define neither the fabric, the job nor the variant.
SIM_BENCH = shared(
    ['config', 'linkDelay', 'mtu', 'queueSize', 'hostQueueSize', 'portScheduling',
     'bandScheduling', 'strictBands', 'bandWeights', 'trainingWeight', 'bestEffortWeight', 'untaggedBand', 'bestEffortBuffer', 'ecnThreshold',
     'pushOut', 'lbAttributes', 'lbProfile', 'lbRulesOff'] + HOSTS +
    ['rdmaQueuePairs', 'rdmaTrafficClass', 'bgLoad', 'bgCdf', 'seed', 'out', 'eventScheduler'],
    {
        'fabrics': '4x4',
        'rates': 'fast',
        'durations': '1',
        'variants': 'nope',
        'job': 'model=nope',
        'repeat': '0',
        'csv': '/nonexistent/bench.csv',
    })

LEAF_SPINE = shared(['config'] + FABRIC + BALANCERS + HOSTS + ['seed', 'duration', 'stopTime'], {
    'lb': 'nope',
    'leaves': '1',
    'spines': '0',
    'hostsPerLeaf': 'x',
    'hostRate': 'fast',
    'fabricRate': '0bps',
    'oversubscription': '-2',
    'linkDelay': '1',
    'flows': '-1',
    'flowSize': 'x',
    'tensors': '2000000',
    'duration': '50',
    'failLink': '9:0@1ms',
    'linkRates': '0:9=1Gbps',
    'tcp': 'cubic',
    'seed': 'x',
    'stockRouting': 'maybe',
})

TRAINING = shared(
    ['config'] + FABRIC + BALANCERS + HOSTS +
    ['transport', 'model', 'placement', 'iterations', 'batch', 'device', 'precision', 'bgLoad',
     'bgCdf', 'seed', 'stopTime', 'out'],
    {
        'model': 'nope',
        'models': 'resnet50,resnet50',
        'astra': '/nonexistent/workload.txt',
        'astraCycle': '1',
        'astraBytes': '0',
        'workers': '0',
        'jobCount': '256',
        'placement': 'diagonal',
        'iterations': '0',
        'scheduler': 'nope',
        'collective': 'nope',
        'transport': 'nope',
        'psHosts': '2',
        'batch': 'x',
        'device': 'H100',
        'deviceRate': '-1',
        'precision': 'fp8',
        'bucketSize': '0',
        'partitionSize': 'x',
        'credit': '0',
        'sparseRatio': '2',
        'hostRate': 'fast',
        'linkDelay': '1',
        'mtu': '100',
        'bgCdf': '/nonexistent/cdf.txt',
        'bgLoad': '1.5',
        'out': '/proc/talb/out',
        'stopTime': '0s',
    })

AGENT = {
    'host-port': '',
    'wire-port': 'no_such_port',
    'dscp-map': '1,2',
    'dscp-only': ['--dscp-only=yes'],
    'mtu': '5',
    'max-flows': '0',
    'stats-interval': 'x',
    'idle-sleep-us': '99999',
}

SWITCH = {
    'config': '/nonexistent/switch.conf',
    'lb': 'nope',
    'labels': 'x',
    'fallback': 'nope',
    'gobackn-fallback': 'nope',
    'seed': 'x',
    'switch-id': 'x',
    'flowlet-timeout-us': '0',
    'flowlet-pick': 'sideways',
    'drill-samples': '0',
    'drill-memory': '9',
    'talb-high-threshold': '9',
    'talb-move-margin': 'x',
    'talb-idle-timeout-us': 'x',
    'talb-table-size': '1000',
    'talb-probe-limit': '65',
    'talb-flow-slots': '0',
    'talb-crowd-flows-per-port': '-1',
    'talb-low-move-margin': '-1',
    'talb-move-margin-rate': '-1Gbps',
    'talb-max-reorder': 'x',
    'talb-safe-moves': 'sometimes',
    'talb-spray': 'sometimes',
    'talb-roce-gobackn': 'maybe',
    'talb-margin-moves': 'maybe',
    'talb-spread-retransmits': 'often',
    'talb-spray-queue': 'some',
    'talb-spray-paths': 'slowest',
    'talb-safe-move-slack-us': 'x',
    'talb-stall-timeout-us': '-1',
    'talb-min-move-interval-us': '99999999',
    'talb-active-window-us': '0',
    'talb-last-ends-window': 'sometimes',
    'talb-ended-tie': 'random',
    'talb-active-window-mode': 'adaptive',
    'talb-pace-factor': '0.5',
    'talb-max-active-window-us': '0',
    'presto-flowcell-bytes': '0',
    'presto-idle-timeout-us': 'x',
    'hermes-idle-timeout-us': '0',
    'hermes-ecn-threshold': '1.5',
    'hermes-delay-low-us': '50',
    'hermes-delay-high-us': 'x',
    'hermes-delta-ecn': '-0.1',
    'hermes-delta-delay-us': 'x',
    'hermes-size-threshold': 'x',
    'hermes-rate-threshold': 'nan',
    'hermes-rate-window-us': '0',
    'ecn-threshold': 'x',
    'no-ecn': ['--no-ecn=1'],
    'push-out': ['--push-out=1'],
    'buffer': 'x',
    'band-scheduling': 'wrr',
    'strict-bands': '9',
    'band-weights': '1,2',
    'line-rate': 'fast',
    'burst-us': '0',
    'mtu': '5',
    'stats-interval': 'x',
    'idle-sleep-us': '99999',
}

TRAINER = {
    'id-file': '',
    'model': 'nope',
    'zoo': '/nonexistent/zoo.csv',
    'iterations': 'x',
    'batch': '0',
    'compute-scale': '0',
    'bucket-bytes': '-1',
    'job': '300',
    'scheme': 'a,b',
    'seed': 'x',
    'device': '-1',
    'no-tag': ['--no-tag=1'],
    'id-timeout': 'x',
    'tensor-csv': '/nonexistent/t.csv',
    'iteration-csv': '/nonexistent/i.csv',
}

HARNESS = {
    'messages': ['loopback', '--messages=x'],
    'bytes': ['loopback', '--bytes=-1'],
    'inflight': ['loopback', '--inflight=33'],
    'seed': ['loopback', '--seed=x'],
    'handle-file': ['recv', '--handle-file='],
    'timeout': ['recv', '--handle-file=HANDLE', '--timeout=x'],
    'idle-sleep-us': ['recv', '--handle-file=HANDLE', '--idle-sleep-us=x'],
    'flows': ['recv', '--handle-file=HANDLE', '--flows=/nonexistent/flows.csv'],
    'scheme': ['recv', '--handle-file=HANDLE', '--flows=FLOWS', '--scheme=a,b'],
    'ideal-mbps': ['recv', '--handle-file=HANDLE', '--ideal-mbps=x'],
    'base-rtt-us': ['recv', '--handle-file=HANDLE', '--base-rtt-us=x'],
    'log': ['send', '--handle-file=HANDLE', '--log=/nonexistent/log.csv'],
    'interval-us': ['send', '--handle-file=HANDLE', '--interval-us=x'],
    'stamp': ['send', '--handle-file=HANDLE', '--stamp', '--bytes=8'],
}

# program: (cases, how --help is asked, arguments before each case, environment)
PROGRAMS = {
    'talb-scenario': (SCENARIO, ['--help'], [], {}),
    'talb-sim-bench': (SIM_BENCH, ['--help'], [], {}),
    'talb-leaf-spine': (LEAF_SPINE, ['--help'], [], {}),
    'talb-training': (TRAINING, ['--help'], [], {}),
    'talb-agent': (AGENT, EAL + ['--help'],
                   EAL + ['--host-port=net_null0', '--wire-port=net_null1'], {}),
    'talb-switch': (SWITCH, EAL + ['--help'], EAL + ['--config=SWITCH_CONF'], {}),
    'talb-trainer': (TRAINER, ['--help'],
                     ['--id-file=ID_FILE', '--zoo=' + os.path.join(ROOT, 'data', 'model-zoo-tensors.csv')],
                     {'TALB_RANK': '0', 'TALB_WORLD': '1'}),
    'talb-nccl-harness': (HARNESS, ['--help'], [], {}),
}


def run(program, args, env, cwd):
    full_env = dict(os.environ, **env)
    return subprocess.run([os.path.join(BIN, program)] + args, cwd=cwd, env=full_env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors='replace', timeout=TIMEOUT)


def help_options(program, text):
    """The options --help lists (ns-3 programs: the Program Options section only)."""
    if '[Program Options]' in text:
        section = text.split('Program Options:', 1)[1].split('General Arguments:', 1)[0]
        return set(re.findall(r'^\s+--(\w+):', section, re.M))
    lines = [l for l in text.splitlines() if not l.startswith(('EAL:', 'TELEMETRY:'))]
    names = set(re.findall(r'(?<![\w-])--([a-zA-Z][\w-]*)', '\n'.join(lines)))
    return names - {'help'}


def substitute(args, tmp_path):
    files = {'SWITCH_CONF': str(tmp_path / 'switch.conf'), 'ID_FILE': str(tmp_path / 'id'),
             'HANDLE': str(tmp_path / 'handle'), 'FLOWS': str(tmp_path / 'flows.csv')}
    out = []
    for a in args:
        for key, path in files.items():
            a = a.replace(key, path)
        out.append(a)
    return out


def names_parameter(program, output, name):
    """True when an error line of the program names the parameter as a whole word."""
    word = re.compile(r'(?<![\w-])-{0,2}' + re.escape(name) + r'(?![\w-])')
    errors = [l for l in output.splitlines() if program + ':' in l]
    return any(word.search(l) for l in errors)


@pytest.mark.parametrize('program', sorted(PROGRAMS))
def test_every_parameter_refuses_a_bad_value(program, tmp_path):
    path = os.path.join(BIN, program)
    if not os.path.exists(path):
        pytest.skip('%s is not built here (%s)' % (program, BIN))
    cases, help_args, base, env = PROGRAMS[program]
    (tmp_path / 'switch.conf').write_text('port 0 net_null0\nroute 10.0.0.0/8 0\n')
    shown = run(program, help_args, env, ROOT)
    assert shown.returncode == 0, shown.stdout[-2000:]
    listed = help_options(program, shown.stdout)
    assert listed, 'no options found in %s --help' % program
    missing = sorted(listed - set(cases))
    stale = sorted(set(cases) - listed)
    assert not missing, '%s: options in --help without a bad-value case here: %s' % (
        program, missing)
    assert not stale, '%s: cases for options --help no longer lists: %s' % (program, stale)

    failures = []
    for name in sorted(cases):
        case = cases[name]
        case_args = case if isinstance(case, list) else ['--%s=%s' % (name, case)]
        args = substitute(base + case_args, tmp_path)
        try:
            r = run(program, args, env, str(tmp_path))  # what a run writes stays there
        except subprocess.TimeoutExpired:
            failures.append('%s: still running after %d s (the value was not refused)' % (
                ' '.join(case_args), TIMEOUT))
            continue
        if r.returncode != 2 or not names_parameter(program, r.stdout, name):
            tail = [l for l in r.stdout.splitlines() if program + ':' in l][:3]
            failures.append('%s: exit %d, error lines %s' % (' '.join(case_args),
                                                             r.returncode, tail))
    assert not failures, '%s:\n  ' % program + '\n  '.join(failures)


# The programs that take the shared rate declarations (TalbScenarioParameters' FABRIC group).
RATE_PROGRAMS = {'talb-scenario': 'fabricRate', 'talb-leaf-spine': 'fabricRate',
                 'talb-training': 'hostRate'}


@pytest.mark.parametrize('program', sorted(RATE_PROGRAMS))
def test_a_rate_without_a_unit_is_refused(program, tmp_path):
    """ns-3 reads a bare number as bit/s: --fabricRate=40 once ran a 40 bit/s fabric that
    completed nothing and exited 0. Every program sharing the declaration refuses it."""
    path = os.path.join(BIN, program)
    if not os.path.exists(path):
        pytest.skip('%s is not built here (%s)' % (program, BIN))
    name = RATE_PROGRAMS[program]
    r = run(program, ['--%s=40' % name], {}, str(tmp_path))
    assert r.returncode == 2, r.stdout[-2000:]
    assert names_parameter(program, r.stdout, name), r.stdout[-2000:]
    assert 'unit' in r.stdout, r.stdout[-2000:]


# Programs that hand --ns3::Type::Name=Value to ns-3's own attribute parser.
NS3_ATTRIBUTE_PROGRAMS = ('talb-scenario', 'talb-leaf-spine', 'talb-training', 'talb-rdma-incast')


@pytest.mark.parametrize('program', NS3_ATTRIBUTE_PROGRAMS)
def test_an_ns3_attribute_out_of_range_is_refused_with_its_range(program, tmp_path):
    """ns-3's parser answers a value outside an attribute's checker with "Invalid command-line
    argument" and nothing else (and aborts on some malformed numbers): each program checks
    --ns3:: options first and names the option, the value and the range, exit 2."""
    path = os.path.join(BIN, program)
    if not os.path.exists(path):
        pytest.skip('%s is not built here (%s)' % (program, BIN))
    for arg, expected in (
            ('--ns3::TalbHpcc::TargetUtilization=2', "(a real number from 0.01 to 1)"),
            ('--ns3::TalbHpcc::TargetUtilization=abc', "(a real number from 0.01 to 1)"),
            ('--ns3::TalbTensorAwareLb::FlowSlots=65', '(uint32_t 1:64)'),
            ('--ns3::TalbLetFlowLb::FlowletPick=Sideways', '(one of Random|LeastQueued)')):
        r = run(program, [arg], {}, str(tmp_path))
        assert r.returncode == 2, (arg, r.stdout[-2000:])
        assert '%s: error: %s:' % (program, arg.split('=')[0]) in r.stdout, r.stdout[-2000:]
        assert expected in r.stdout and "='%s'" % arg.split('=')[1] in r.stdout
    # A valid value passes on to ns-3 (here with --help: nothing runs).
    r = run(program, ['--ns3::TalbHpcc::TargetUtilization=0.9', '--help'], {}, str(tmp_path))
    assert r.returncode == 0, r.stdout[-2000:]
