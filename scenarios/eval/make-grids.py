#!/usr/bin/python3
"""Writes the evaluation's grid files, scenarios/eval/<family>/<part>.json (see README.md).

The grids are generated so that the two scales, the two transports and the families share one
list of schemes and fabrics, and so that the "random" degraded links are drawn reproducibly
(random.Random(13)). Edit this script and rerun it rather than editing the JSON files.
"""
import copy
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = '1-5'
TCP_SCHEMES = ['ecmp', 'letflow', 'drill', 'conga', 'hermes', 'presto', 'talb']
RDMA_SCHEMES = TCP_SCHEMES + ['conweave']
MODELS = ['resnet50', 'alexnet', 'vgg19']

# Scales: 16 hosts (4 leaves x 4, 2 spines, 10 Gb/s hosts) and 64 hosts (8 leaves x 8, 4 spines,
# 100 Gb/s hosts). The leaf-spine rate follows from the oversubscription axis (1:1 or 2:1). The
# link fails (or starts flapping) in the second iteration: about 350 ms in at 16 hosts, 120 ms
# at 64 hosts (iterations of about 90 ms there).
SCALES = {
    '16': {'fixed': {'leaves': 4, 'hostsPerLeaf': 4, 'spines': 2, 'hostRate': '10Gbps',
                     'iterations': 3},
           'workers': 8, 'degraded': '2.5Gbps', 'rates': ['2.5Gbps', '5Gbps', '7.5Gbps'],
           'fail': '1:0@350ms', 'flap': '1:0@350ms/20ms/80ms'},
    '64': {'fixed': {'leaves': 8, 'hostsPerLeaf': 8, 'spines': 4, 'hostRate': '100Gbps',
                     'iterations': 2},
           'workers': 32, 'degraded': '25Gbps', 'rates': ['25Gbps', '50Gbps', '75Gbps'],
           'fail': '1:0@120ms', 'flap': '1:0@120ms/5ms/20ms'},
}
OVERSUB = [1, 2]
# TaLB's move rules beside the one talb-scenario ships for the transport (its lbProfile; doc/
# talb-switch.rst, "Moves by congestion"): grid prefix -> (parts, grid axes). Congestion moves
# a slow flow off a path the feedback reports saturated; Contended does so only while another
# job's flow or background shares the candidate ports; both here without the queue-margin moves
# (QueueMoves, which TaLB's RDMA rule adds to Contended), given so that the profile does not add
# them; lbProfile=none is the attribute defaults (Counts: the flow counts move flows).
RULE = 'QueueMoves=false;RemoteAwareness=true;ActiveWindow=1ms;MinMoveInterval=200us'
VARIANTS = {
    'talbc-': (('rdma16', 'mixed/tcp16'), {'lbAttributes': ['Moves=Congestion;' + RULE]}),
    'talbx-': (('rdma16', 'tcp16'), {'lbAttributes': ['Moves=Contended;' + RULE]}),
    'talbn-': (('rdma16',), {'lbProfile': ['none']}),
}

# The family of the 16-host RDMA parts again under HPCC (family 'hpcc', doc/talb-transport.rst):
# source part -> the part's name there. rdmaCc is a one-valued axis (the report groups nothing by
# it; the point folders name it).
HPCC_PARTS = {'failure/fail-rdma16': 'fail-rdma16', 'failure/flap-rdma16': 'flap-rdma16',
              'incast/rdma16': 'incast-rdma16', 'mixed/rdma16': 'mixed-rdma16'}

# The same parts on the spraying transport (family 'spray', doc/talb-transport.rst, "Spraying
# transport"): every packet takes a path of its own entropy, selective repeat places packets in
# any order. The switches' schemes beside ECMP switches under the hosts' REPS (the transport's
# default, reported as ecmp) and under oblivious spraying (a part of its own: ecmp-oblivious).
# ConWeave stays: its reorder queues hold nothing here, its reroutes still act. Of the llm
# family the two parts on the one-leaf-per-server fabric whose traffic crosses the spines most
# (the dense job's pipeline and data-parallel flows, the MoE all-to-all).
SPRAY_PARTS = {'idle/rdma16': 'idle-spray16', 'background/rdma16': 'background-spray16',
               'asymmetric/rdma16': 'asymmetric-spray16',
               'failure/fail-rdma16': 'fail-spray16', 'failure/flap-rdma16': 'flap-spray16',
               'incast/rdma16': 'incast-spray16', 'mixed/rdma16': 'mixed-spray16',
               'llm/dense-tor-rdma128': 'dense-tor-spray128',
               'llm/moe-tor-rdma128': 'moe-tor-spray128'}
# Settings a source family's spray parts add. At 400 Gb/s and 2:1 sprayed packets arrive more
# than 16 PSNs out of order: selective repeat then resends about a tenth of them needlessly (no
# loss under PFC) and a run takes over ten times its CPU; 64 (the SACK bitmap's reach) sends
# none again (doc/talb-evaluation.rst, the spray family). 64 is the rate's default since
# 2026-11-30; kept here, the points stay those that were run.
SPRAY_FIXED = {'llm': {'ns3::TalbRdmaNic::ReorderThreshold': 64}}

# The host-side answers to low entropy (family 'qp', doc/talb-transport.rst, "Queue-pair
# scaling and PLB") on the mixed-job RDMA part, beside that part's schemes: four queue pairs per
# connection, each message split over them (NCCL_IB_QPS_PER_CONNECTION=4,
# NCCL_IB_SPLIT_DATA_ON_QPS=1), with per-queue-pair source ports or one per connection (the NIC
# Meta describes), under ECMP, E-ECMP and TaLB switches; and PLB under ECMP. Beside the mixed
# jobs, the same hosts beside web-search background, and on the llm family's dense job on its
# one-leaf-per-server fabric: a few large flows per NIC, where ECMP's collisions decide.
QP_PARTS = {'mixed/rdma16': 'mixed-rdma16', 'background/rdma16': 'background-rdma16',
            'llm/dense-tor-rdma128': 'dense-tor-rdma128'}

# The mixed-job RDMA part under the other settings clusters run, every scheme (issue: baselines
# that match their papers): TIMELY instead of DCQCN (family 'timely', its paper's defaults), and
# switches whose ports share one buffer under dynamic thresholds, with dynamic PFC thresholds
# (family 'sharedbuf': 4 MB, the default 600 KB per port of a leaf's six ports pooled;
# doc/talb-switch.rst, "Shared buffer"). The setting is a one-valued axis, as rdmaCc is in hpcc.
SETTING_FAMILIES = {'timely': {'rdmaCc': ['timely']}, 'sharedbuf': {'sharedBuffer': ['4MB']}}
SETTING_PARTS = {'mixed/rdma16': 'mixed-rdma16'}

# TCP hosts with Linux's adaptive reordering threshold (family 'linuxtcp', doc/talb.rst,
# "Host TCP"): the 16-host TCP parts of the idle, asymmetric and failure families, the mixed
# jobs, held-out mix4, and the llm family's dense and MoE jobs on the one-leaf-per-server
# fabric, every TCP scheme; beside each, TaLB spraying every tensor flow (Spray=Always, reported as
# talb-sprayalways): on these hosts sprayed packets' reordering raises the threshold instead of
# costing recoveries, which decides whether TCP's profile should spray with one job too.
LINUX_TCP = {'adaptiveReordering': ['true']}
LINUX_TCP_PARTS = {'idle/tcp16': 'idle-tcp16', 'asymmetric/tcp16': 'asymmetric-tcp16',
                   'failure/fail-tcp16': 'fail-tcp16', 'failure/flap-tcp16': 'flap-tcp16',
                   'mixed/tcp16': 'mixed-tcp16', 'heldout/mix4-tcp16': 'mix4-tcp16',
                   'llm/dense-tor-tcp128': 'dense-tor-tcp128',
                   'llm/moe-tor-tcp128': 'moe-tor-tcp128'}

# TCP hosts that detect loss by time (family 'racktcp', doc/talb.rst, "Host TCP", --rackTlp):
# the llm family's TCP parts, every TCP scheme. With ns-3's loss detection every retransmission
# lost again waits out a 5 ms timeout, which decided the llm family's TCP tables
# (doc/talb-evaluation.rst, "Hosts with RACK-TLP"). Beside each part TaLB's rule before
# llm-spray, as in linuxtcp: whether spraying every tensor packet still pays on these hosts.
RACK_TCP = {'rackTlp': ['true']}
RACK_TCP_PARTS = {'llm/%s-%s-tcp128' % (jobs, fabric): '%s-%s-tcp128' % (jobs, fabric)
                  for jobs in ('dense', 'moe', 'two', 'bg') for fabric in ('tor', 'rail')}

# ConWeave with its paper's rules and its simulator's settings (NOTIFY pauses a path, the first
# of two random draws not paused, control packets charged to no port; doc/talb-baselines.rst,
# "ConWeave's gain reproduced"), reported as conweave-notify, beside every part that runs
# ConWeave with talb's defaults: grid prefix 'conweave-paper-'.
CONWEAVE_PAPER = ('ExtraReplyDeadline=4us;PathPauseTime=16us;IdleTimeout=300us;'
                  'RandomPathChoice=true;PathSamples=2;PauseOn=Notify;ChargeControlPackets=false')

# The ablation (issue: each rule earning its place): TaLB with one rule of its defaults off
# (talb-scenario --lbRulesOff, whose --help lists the rules and the attributes that turn each
# off) beside every 16- and 64-host part, reported as talb-no-<rule>. Rules that act only on
# untagged traffic run where there is some (the background family). The margin moves are off
# over TCP since 2026-12-01, the shared spray queue and the stall moves since the end of that
# day (what the ablation found): not TCP defaults to turn off. The go-back-N profile's last-ends
# and ended-tie since 2026-12-06.
ABLATION = {'tcp': ['spray', 'remote-spray'],
            'rdma': ['contended-moves', 'queue-moves', 'margin-moves', 'safe-moves', 'last-ends',
                     'ended-tie']}
# The llm family's ablation: the rules of finished messages (its MoE cells found the first; the
# other rules were tuned on the CNN families and are ablated there), beside each RDMA part.
ABLATION_LLM = ['last-ends', 'ended-tie']
# Over TCP, the rule that an LLM job's tensor packets are all sprayed (since 2026-12-07), beside
# each TCP part of the LLM families (the rules of the CNN families stay ablated there).
ABLATION_LLM_TCP = ['llm-spray']
ABLATION_UNTAGGED = {'tcp': ['untagged-spray'], 'rdma': ['untagged-moves']}
# On the spraying transport (selective repeat): the sr profile's two rules, the RDMA rules
# that act there (safe-moves and untagged-moves act only on go-back-N flows) and the rules of
# sprayed flows TCP's profile turns off, beside every 16-host spray part.
ABLATION_SPRAY = ['sr-reorder', 'sr-spray-always', 'contended-moves', 'queue-moves',
                  'margin-moves', 'spray-shared-queue', 'stall-moves']
ABLATION_SPRAY_UNTAGGED = ['sr-untagged-entropy']


def random_links(scale, n):
    """n distinct leaf-spine links at rates drawn from the scale's list (fixed seed)."""
    f = SCALES[scale]['fixed']
    rng = random.Random(13)
    links = rng.sample([(l, s) for l in range(f['leaves']) for s in range(f['spines'])], n)
    return ';'.join('%d:%d=%s' % (l, s, rng.choice(SCALES[scale]['rates'])) for l, s in links)


def job(scale, **extra):
    spec = {'workers': SCALES[scale]['workers'], 'scheduler': 'fusion'}
    spec.update(extra)
    return ','.join('%s=%s' % kv for kv in spec.items())


def mixed_jobs(scale):
    """3-4 jobs of different models, ring and parameter server (colocated, as BytePS)."""
    if scale == '16':
        jobs = [('resnet50', 6, 'ring'), ('alexnet', 4, 'ring'), ('resnet50', 4, 'ps')]
    else:
        jobs = [('resnet50', 24, 'ring'), ('vgg19', 16, 'ring'), ('alexnet', 16, 'ps'),
                ('resnet50', 8, 'ps')]
    return ';'.join('model=%s,workers=%d,scheduler=fusion,collective=%s' % j for j in jobs)


def part(scale, transport, grid, fixed):
    schemes = RDMA_SCHEMES if transport == 'rdma' else TCP_SCHEMES
    g = {'lb': schemes}
    g.update(grid)
    f = dict(SCALES[scale]['fixed'])
    f.update({'transport': transport, 'bgLoad': 0, 'progress': 'false', 'model': 'resnet50',
              'jobs': job(scale)})
    f.update(fixed)
    for axis in g:
        f.pop(axis, None)
    return {'grid': g, 'fixed': f, 'seeds': SEEDS}


# The llm family: 16 GPU servers of 8 GPUs (128 ranks, one 400 Gb/s NIC each), wired in rails
# (NIC i of every server on rail leaf i: 8 leaves of 16) or one leaf per server (16 leaves of
# 8), 4 spines. Models are Llama-/Mixtral-like with fewer and narrower layers than the real
# ones (stated in doc/talb-evaluation.rst), so that a run takes seconds, not hours.
LLM_FABRICS = {
    'rail': {'leaves': 8, 'hostsPerLeaf': 16, 'railOptimized': 'true'},
    'tor': {'leaves': 16, 'hostsPerLeaf': 8, 'railOptimized': 'false'},
}
LLM_FIXED = {'spines': 4, 'gpusPerServer': 8, 'hostRate': '400Gbps', 'iterations': 3,
             'warmup': 1}
LLM_DIMS = 'layers=4,hidden=2048,ffn=7168,heads=16,kvHeads=8,seq=1024,vocab=16384'
MOE_DIMS = 'layers=2,hidden=2048,ffn=7168,moeFfn=7168,heads=16,kvHeads=8,seq=1024,vocab=16384'


def llm_jobs():
    """(a) dense: TP inside servers, PP and DP across; (b) MoE: EP all-to-all across servers;
    (c) the two at half size sharing the fabric."""
    dense = 'model=llama3-8b,tp=8,pp=2,dp=%d,' + LLM_DIMS
    moe = 'model=mixtral-8x7b,tp=2,pp=1,dp=%d,ep=8,' + MOE_DIMS
    return {'dense': dense % 8, 'moe': moe % 64,
            'two': '%s;%s' % (dense % 4, moe % 32)}


def llm_parts(out):
    """Per job set, fabric and transport a part (a job set in a folder name would be too long
    for the file system): dense, moe and two at 1:1 and 2:1, and bg, (d) the dense job next to
    web-search background at 30 % of the host rate."""
    jobs = llm_jobs()
    for name, fabric in LLM_FABRICS.items():
        for tr in ('rdma', 'tcp'):
            fixed = dict(LLM_FIXED, **fabric)
            fixed.update({'transport': tr, 'bgLoad': 0, 'progress': 'false'})
            grid = {'lb': RDMA_SCHEMES if tr == 'rdma' else TCP_SCHEMES,
                    'oversubscription': OVERSUB}
            for jobset in ('dense', 'moe', 'two', 'bg'):
                f = dict(fixed, jobs=jobs['dense' if jobset == 'bg' else jobset])
                if jobset == 'bg':
                    f.update(bgCdf='websearch', bgLoad=0.3)
                part_name = '%s-%s-%s128' % (jobset, name, tr)
                out[('llm', part_name)] = {'grid': copy.deepcopy(grid), 'fixed': f,
                                           'seeds': SEEDS}


# The held-out grid (family heldout): scenarios TaLB's rules were not tuned on, kept apart from
# the tuning grid above and run with its own seeds. Other job mixes at 16 hosts (three and four
# jobs of other models and collectives than the mixed family's), the three jobs beside background
# of another size distribution and load than the background family's (the rules that act only
# beside untagged traffic), and another fabric shape at 100 Gb/s (8 leaves x 4 hosts, 4 spines):
# 3:1, and 1:1 with two links degraded to 25 Gb/s.
HELDOUT_SEEDS = '6-10'
HELDOUT_MIXES = [
    [('alexnet', 6, 'ring'), ('vgg19', 4, 'ring'), ('resnet50', 6, 'ps')],
    [('resnet50', 5, 'ring'), ('alexnet', 3, 'ring'), ('vgg19', 4, 'ps'), ('resnet50', 4, 'ring')],
]
HELDOUT_BACKGROUND = {'bgCdf': 'datamining', 'bgLoad': 0.2}
HELDOUT_SHAPE = {'leaves': 8, 'hostsPerLeaf': 4, 'spines': 4, 'hostRate': '100Gbps',
                 'iterations': 2}


# The held-out LLM grid (family llmheldout): an MoE job the llm family's cells were not looked at
# for -- 16 experts (top-2) over expert-parallel groups of 16 ranks instead of 8 experts over 8,
# with expert popularity Zipf-skewed (exponent 1: the all-to-all's destinations uneven, where the
# llm family's routing is uniform) -- on the rail fabric at 1:1 and 2:1, seeds 6-10, every RDMA
# scheme (and, as every held-out part, its ablation: among the rules last-ends, which the llm
# family's MoE cells proposed for the RDMA profile and this job checked before it became one).
LLM_HELDOUT_MOE = ('model=mixtral-8x7b,tp=2,pp=1,dp=64,ep=16,experts=16,topK=2,routingSkew=1,' +
                   MOE_DIMS)


def llm_heldout_parts(out):
    """The job over RDMA, and over TCP (added 2026-12-07: the TCP profile's llm-spray rule was
    found on the llm family's TCP cells and is checked here)."""
    for tr, schemes in (('rdma', RDMA_SCHEMES), ('tcp', TCP_SCHEMES)):
        fixed = dict(LLM_FIXED, **LLM_FABRICS['rail'])
        fixed.update({'transport': tr, 'bgLoad': 0, 'progress': 'false',
                      'jobs': LLM_HELDOUT_MOE})
        out[('llmheldout', 'moe16-rail-%s128' % tr)] = {
            'grid': {'lb': schemes, 'oversubscription': OVERSUB}, 'fixed': fixed,
            'seeds': HELDOUT_SEEDS}


def has_background(grid):
    """Whether a part runs untagged background (the untagged rules' ablation acts there only)."""
    loads = grid['grid'].get('bgLoad', [grid['fixed'].get('bgLoad', 0)])
    return any(float(v) > 0 for v in loads)


def heldout_parts(out):
    for tr in ('tcp', 'rdma'):
        for mix in HELDOUT_MIXES:  # one part each: a job set is too long for a folder name
            jobs = ';'.join('model=%s,workers=%d,scheduler=fusion,collective=%s' % j for j in mix)
            g = part('16', tr, {'oversubscription': OVERSUB}, {'jobs': jobs})
            g['seeds'] = HELDOUT_SEEDS
            out[('heldout', 'mix%d-%s16' % (len(mix), tr))] = g
            if len(mix) == 3:
                bg = copy.deepcopy(g)
                bg['fixed'].update(HELDOUT_BACKGROUND)
                out[('heldout', 'bgmix3-%s16' % tr)] = bg
        for name, axes in (('shape3', {'oversubscription': [3]}),
                           ('degraded', {'oversubscription': [1],
                                         'linkRates': ['0:0=25Gbps;5:2=25Gbps']})):
            g = part('16', tr, axes, dict(HELDOUT_SHAPE, jobs=job('16', workers=24)))
            g['seeds'] = HELDOUT_SEEDS
            out[('heldout', '%s-%s32' % (name, tr))] = g


def families():
    out = {}
    for scale in SCALES:
        for tr in ('tcp', 'rdma'):
            key = '%s%s' % (tr, scale)
            out[('idle', key)] = part(scale, tr, {'model': MODELS, 'oversubscription': OVERSUB}, {})
            bgfix = {'bgCdf': 'websearch'}
            out[('background', key)] = part(scale, tr, {'bgLoad': [0.1, 0.3, 0.5],
                                                        'oversubscription': OVERSUB}, bgfix)
            deg = SCALES[scale]['degraded']
            out[('asymmetric', key)] = part(scale, tr, {
                'linkRates': ['0:0=%s' % deg, '0:0=%s;2:1=%s' % (deg, deg),
                              random_links(scale, 3 if scale == '16' else 4)],
                'oversubscription': [2]}, {})
            out[('failure', 'fail-' + key)] = part(scale, tr, {'oversubscription': OVERSUB},
                                                   {'failLink': SCALES[scale]['fail']})
            out[('failure', 'flap-' + key)] = part(scale, tr, {'oversubscription': OVERSUB},
                                                   {'flapLink': SCALES[scale]['flap']})
            out[('mixed', key)] = part(scale, tr, {'placement': ['spread', 'packed'],
                                                   'oversubscription': OVERSUB},
                                       {'jobs': mixed_jobs(scale)})
            n = SCALES[scale]['fixed']['leaves'] * SCALES[scale]['fixed']['hostsPerLeaf']
            out[('incast', key)] = part(scale, tr, {'oversubscription': [1]}, {
                'jobs': 'workers=%d,scheduler=fusion,collective=ps' % n})
        # TaLB v1 (the first selector) next to v2 in the idle family, TCP.
        v1 = part(scale, 'tcp', {'model': MODELS, 'oversubscription': OVERSUB,
                                 'lbAttributes': ['Version=1']}, {})
        v1['grid']['lb'] = ['talb']
        out[('idle', 'talbv1-tcp' + scale)] = v1
    llm_parts(out)
    heldout_parts(out)
    llm_heldout_parts(out)
    # TaLB's move variants (reported as talb-congestion, talb-contended, talb-counts) next to
    # the 16-host parts: a part matches by its name's ending or as family/name.
    for (family, name), grid in list(out.items()):
        if family == 'heldout':  # the rules' variants were compared on the tuning grid
            continue
        for prefix, (parts, axes) in VARIANTS.items():
            if not name.startswith('talb') and any(
                    name.endswith(p) or '%s/%s' % (family, name) == p for p in parts):
                c = copy.deepcopy(grid)
                c['grid']['lb'] = ['talb']
                c['grid'].update(copy.deepcopy(axes))
                out[(family, prefix + name)] = c
    for (family, name), grid in list(out.items()):
        transport = grid['fixed']['transport']
        if family in ('llm', 'llmheldout') and transport == 'tcp':
            rules = list(ABLATION_LLM_TCP)
        elif family == 'llm':
            rules = list(ABLATION_LLM)
        elif name.startswith('talb') or not (name.endswith(tuple(SCALES)) or
                                             family in ('heldout', 'llmheldout')):
            continue
        else:
            rules = ABLATION[transport] + (ABLATION_UNTAGGED[transport]
                                           if has_background(grid) else [])
        c = copy.deepcopy(grid)
        c['grid']['lb'] = ['talb']
        c['grid']['lbRulesOff'] = rules
        out[(family, 'ablate-' + name)] = c
    # After the variants and the ablation: the hpcc family has neither.
    for source, name in HPCC_PARTS.items():
        c = copy.deepcopy(out[tuple(source.split('/'))])
        c['grid']['rdmaCc'] = ['hpcc']
        out[('hpcc', name)] = c
    for source, name in SPRAY_PARTS.items():
        c = copy.deepcopy(out[tuple(source.split('/'))])
        c['fixed']['transport'] = 'spray'
        c['fixed'].update(SPRAY_FIXED.get(source.split('/')[0], {}))
        c['grid']['sprayPolicy'] = ['reps']
        out[('spray', name)] = c
        oblivious = copy.deepcopy(c)
        oblivious['grid']['lb'] = ['ecmp']
        oblivious['grid']['sprayPolicy'] = ['oblivious']
        out[('spray', name + '-oblivious')] = oblivious
        if name.endswith('16'):
            ablate = copy.deepcopy(c)
            ablate['grid']['lb'] = ['talb']
            ablate['grid']['lbRulesOff'] = ABLATION_SPRAY + (
                ABLATION_SPRAY_UNTAGGED if source.startswith('background/') else [])
            out[('spray', 'ablate-' + name)] = ablate
    for source, name in QP_PARTS.items():
        base = out[tuple(source.split('/'))]
        out[('qp', name)] = copy.deepcopy(base)
        scaled = copy.deepcopy(base)
        scaled['grid'].update(lb=['ecmp', 'eecmp', 'talb'], rdmaQpsPerConnection=[4],
                              rdmaSplitMessages=['true'], rdmaSharedSourcePort=['true', 'false'])
        out[('qp', name + '-qp4')] = scaled
        plb = copy.deepcopy(base)
        plb['grid'].update(lb=['ecmp'], plb=['true'])
        out[('qp', name + '-plb')] = plb
    for family, setting in SETTING_FAMILIES.items():
        for source, name in SETTING_PARTS.items():
            c = copy.deepcopy(out[tuple(source.split('/'))])
            c['grid'].update(setting)
            out[(family, name)] = c
    # TCP parts on other hosts: every scheme, the host setting as a one-valued axis, and TaLB
    # spraying every tensor packet beside each part; for the LLM jobs that is TaLB's default
    # since 2026-12-07, so there the rule before runs beside it.
    for family, setting, parts in (('linuxtcp', LINUX_TCP, LINUX_TCP_PARTS),
                                   ('racktcp', RACK_TCP, RACK_TCP_PARTS)):
        for source, name in parts.items():
            c = copy.deepcopy(out[tuple(source.split('/'))])
            c['grid'].update(copy.deepcopy(setting))
            out[(family, name)] = c
            beside = copy.deepcopy(c)
            if source.startswith('llm/'):
                beside['grid'].update(lb=['talb'], lbRulesOff=list(ABLATION_LLM_TCP))
                out[(family, name + '-nollmspray')] = beside
            else:
                beside['grid'].update(lb=['talb'], lbAttributes=['Spray=Always'])
                out[(family, name + '-sprayalways')] = beside
    for (family, name), grid in list(out.items()):
        if 'conweave' in grid['grid'].get('lb', []):
            c = copy.deepcopy(grid)
            c['grid']['lb'] = ['conweave']
            c['grid']['lbAttributes'] = [CONWEAVE_PAPER]
            out[(family, 'conweave-paper-' + name)] = c
    return out


def main(argv):
    """Writes the grids below argv[1] if given (tests compare), else beside this script."""
    top = argv[1] if len(argv) > 1 else HERE
    for (family, name), grid in sorted(families().items()):
        folder = os.path.join(top, family)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, name + '.json'), 'w') as f:
            json.dump(grid, f, indent=2)
            f.write('\n')


if __name__ == '__main__':
    main(sys.argv)
