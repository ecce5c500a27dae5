"""Find and load talb run folders (flows.csv, tensors.csv, iterations.csv, run.json; and
collectives.csv where a run has one: graph jobs' collective instances, absent in older runs).

A run folder is any folder holding a run.json. A sweep folder is any folder with run folders below
it (hidden folders such as a sweep's .tmp are skipped). Every table gets a ``run_id`` column that
indexes ``Dataset.runs``, which holds each run's path, scheme, seed and parameters.

Files written by an interrupted run may end in a partial line: a last line without its newline is
dropped with a :class:`TalbDataWarning`. Anything else that does not match the column contract is a
:class:`TalbDataError` naming the file, the line and the column.
"""
import io
import json
import os
import re
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

INT = 'int'
FLOAT = 'float'
STR = 'str'

# The output contract of the simulator (and of the testbed's converters): column -> type.
SCHEMAS = {
    'flows.csv': {
        'src_ip': STR, 'dst_ip': STR, 'src_port': INT, 'dst_port': INT, 'size_bytes': INT,
        'start_ns': INT, 'fct_ns': INT, 'ideal_fct_ns': INT, 'slowdown': FLOAT, 'job': INT,
        'iteration': INT, 'tensor': INT, 'priority': INT, 'kind': STR, 'scheme': STR, 'seed': INT,
    },
    'tensors.csv': {
        'job': INT, 'iteration': INT, 'tensor': INT, 'name': STR, 'bytes': INT, 'priority': INT,
        'ready_ns': INT, 'done_ns': INT, 'comm_ns': INT, 'scheme': STR, 'seed': INT,
    },
    'iterations.csv': {
        'job': INT, 'worker': INT, 'iteration': INT, 'start_ns': INT, 'end_ns': INT,
        'compute_ns': INT, 'exposed_comm_ns': INT, 'scheme': STR, 'seed': INT,
    },
}
# Tables a run folder may lack (runs from before the runner wrote them): column -> type.
OPTIONAL_SCHEMAS = {
    'collectives.csv': {
        'job': INT, 'iteration': INT, 'operation': STR, 'group': STR, 'type': STR, 'class': STR,
        'bytes': INT, 'priority': INT, 'start_ns': INT, 'end_ns': INT, 'ideal_ns': INT,
        'scheme': STR, 'seed': INT,
    },
    'link_drops.csv': {
        'time_ns': INT, 'leaf': INT, 'spine': INT, 'direction': STR, 'cause': STR, 'src_ip': STR,
        'src_port': INT, 'dst_ip': STR, 'dst_port': INT, 'job': INT, 'tensor': INT,
        'priority': INT, 'scheme': STR, 'seed': INT,
    },
}
# Columns a writer may append after the contract's (ignored by the analysis): tensors.csv's
# wire_bytes, the bytes a scheduler actually sends for a tensor (sparse: compressed).
OPTIONAL_COLUMNS = ('wire_bytes',)
FLOW_KINDS = ('tensor', 'background', 'nvlink')
RUN_JSON = 'run.json'


class TalbDataError(Exception):
    """Input that does not follow the run folder contract (message names file, line, column)."""


class TalbDataWarning(UserWarning):
    """Input that was usable after dropping something (e.g. a truncated last line)."""


@dataclass
class Dataset:
    """All runs found under one path: ``runs`` (index run_id), the three tables, the graph
    jobs' collective instances and the packets leaf-spine links lost (each empty when no run
    has any).

    With ``flows_on_disk`` the flows table is left empty and :meth:`flows_of` reads the runs
    asked for from their folders: a family's flows (millions of rows a run with background
    traffic) need not fit in memory at once."""

    root: str
    runs: pd.DataFrame
    flows: pd.DataFrame
    tensors: pd.DataFrame
    iterations: pd.DataFrame
    collectives: pd.DataFrame = None
    link_drops: pd.DataFrame = None
    flows_on_disk: bool = False

    def __post_init__(self):
        for name, attr in (('collectives.csv', 'collectives'), ('link_drops.csv', 'link_drops')):
            if getattr(self, attr) is None:
                setattr(self, attr, _with_run_id(_empty(OPTIONAL_SCHEMAS[name])))

    def parameter_names(self):
        """Names of the run parameters (run.json "parameters"), in first-seen order."""
        return [c for c in self.runs.columns if c not in RUN_COLUMNS]

    def flows_of(self, run_ids):
        """The flows of the runs ``run_ids`` (in that order), as ``flows`` holds them: read from
        the run folders when the dataset keeps its flows on disk."""
        run_ids = list(run_ids)
        if not self.flows_on_disk:
            return self.flows[self.flows['run_id'].isin(run_ids)]
        parts = [_with_run_id(read_flows(self.runs.at[i, 'path'], self.runs.at[i, 'scheme']), i)
                 for i in run_ids]
        if not parts:
            return _with_run_id(_empty(SCHEMAS['flows.csv']))
        return pd.concat(parts, ignore_index=True)


# Per-run figures of run.json: the counters the simulator sums over the fabric, and the CPU time
# of the run (for the cost of a sweep); NaN where a run.json predates them or a testbed converter
# wrote it.
COUNTERS = ('reroutes', 'path_selections', 'tcp_retransmitted_segments', 'tcp_retransmitted_bytes',
            'tcp_timeouts',
            'rdma_retransmitted_packets', 'rdma_retransmitted_bytes', 'rdma_naks', 'rdma_timeouts',
            'rdma_out_of_order', 'run_cpu_seconds')
RUN_COLUMNS = ('path', 'scheme', 'seed', 'talb_version', 'lb_profile') + COUNTERS


# TaLB's rule: the attributes that name it and their defaults (QueueMoves and CongestionDelay
# matter only under the congestion rules; RemoteSprayBytes is how sprayed packets read the
# remote feedback, SprayQueue what queue they count).
RULE_DEFAULTS = {'Moves': 'Counts', 'QueueMoves': 'false', 'RemoteSprayBytes': '0',
                 'SprayQueue': 'AllWhenShared', 'SprayPaths': 'Rate', 'CongestionDelay': '0',
                 'MarginMoves': 'true', 'CongestionWaitBelow': '0', 'StallTimeout': '2ms',
                 'LastEndsWindow': 'false', 'EndedTie': 'Queue'}
# The rule talb-scenario's lbProfile=transport (its default) sets, by transport (none: the
# attribute defaults; test_analysis_loading checks this against the runner's --help). Runs
# record what their profile set (run.json "lb_profile"); this table stands in for runs made
# before that record (as the profile is now: the TCP one was empty until 2026-11-27, kept the
# margin moves until 2026-12-01 and the shared spray queue and stall moves until the end of
# that day, which the runs since 2026-11-27 record; the go-back-N one gained LastEndsWindow on
# 2026-12-06 and EndedTie=Keep later that day, selective repeat's, 'rdma-sr', neither). Runs
# from before lbProfile existed (no such parameter) had no profile.
PROFILE_RULES = {'rdma': {'Moves': 'Contended', 'QueueMoves': 'true', 'LastEndsWindow': 'true',
                          'EndedTie': 'Keep'},
                 'rdma-sr': {'Moves': 'Contended', 'QueueMoves': 'true'},
                 'spray': {'Moves': 'Contended', 'QueueMoves': 'true'},
                 'tcp': {'RemoteSprayBytes': '30000', 'SprayPaths': 'Fastest',
                         'MarginMoves': 'false', 'SprayQueue': 'AtOrAbove', 'StallTimeout': '0'}}


def _attributes(text):
    """{name: value} of an lbAttributes text, Name=Value;..."""
    pairs = (item.partition('=') for item in str(text or '').split(';'))
    return {name.strip(): value.strip() for name, _, value in pairs if name.strip()}


def _true(value):
    """True for an attribute value ns-3's BooleanValue reads as true ('true', '1', 't')."""
    return value.lower() in ('true', '1', 't')


def _rule_settings(text):
    """The move rule's attributes that an lbAttributes text sets (empty values set nothing)."""
    return {k: v for k, v in _attributes(text).items() if k in RULE_DEFAULTS and v}


def _rule_name(rule):
    """'contended-queue' for Moves=Contended with QueueMoves=true, 'counts' for Moves=Counts."""
    name = rule['Moves'].lower()
    if name != 'counts' and _true(rule['QueueMoves']):
        name += '-queue'
    return name


def _queue_name(rule):
    """'sprayatorabove' for SprayQueue=AtOrAbove, 'sprayall' for All, 'sprayallwhenshared'."""
    return 'spray' + rule['SprayQueue'].lower()


def _paths_name(given, shipped):
    """'pathsfastest' or 'pathsrate' where the lbAttributes given hold a SprayPaths other than
    the one the run's transport's profile ships (Rate on the spraying and selective-repeat
    transports, Fastest over TCP), else ''. Only a value given counts: runs record no SprayPaths
    of their own, and those from before it (2026-11-30) sprayed fastest-first whatever their
    profile."""
    value = given.get('SprayPaths', '')
    if not value or value.lower() == shipped['SprayPaths'].lower():
        return ''
    return 'paths' + value.lower()


def _spray_mode_name(given, transport, recorded=''):
    """'spray<mode>' (e.g. 'sprayalways') where the lbAttributes given hold a Spray mode other
    than the one the run's profile ships: the Spray its recorded profile holds (``recorded``:
    Always over TCP with an LLM job since 2026-12-07, and with selective repeat), else Always on
    the selective-repeat spraying transport and the attribute default Contended elsewhere; else
    ''. Only a value given counts, so TCP runs of LLM jobs from before 2026-12-07 (a profile
    without Spray, spraying only while shared) read as the defaults of their day, 'talb'; with
    ReorderMoves the reorder name carries the mode."""
    value = given.get('Spray', '')
    shipped = (_attributes(recorded).get('Spray', '').lower()
               or ('always' if transport == 'spray' else 'contended'))
    if not value or value.lower() == shipped or _reorder_name(given):
        return ''
    return 'spray' + value.lower()


def _spray_name(rule):
    """'localspray' for RemoteSprayBytes 0, else 'remotespray<bytes>'."""
    try:
        value = float(rule['RemoteSprayBytes'])
    except ValueError:
        return 'remotespray' + rule['RemoteSprayBytes']
    return 'localspray' if value == 0 else 'remotespray%g' % value


def _reorder_name(attributes):
    """'reorder' for ReorderMoves=true; 'reorder-spray' when RoCEv2 flows are also sprayed
    (RoceGoBackN=false, Spray=Always), 'reorder-sprayshared' with Spray=SharedDestination,
    'reorder-spray<mode>' for another Spray mode; '' without ReorderMoves."""
    if not _true(attributes.get('ReorderMoves', '')):
        return ''
    if attributes.get('RoceGoBackN', '').lower() not in ('false', '0', 'f'):
        return 'reorder'
    spray = attributes.get('Spray', '') or 'Contended'
    return 'reorder-spray' + {'Always': '', 'SharedDestination': 'shared'}.get(spray, spray.lower())


def _rtt_name(attributes):
    """'rttmoves' for RttMoves=WithUntagged, 'rttmovesalways' for Always, '' for Never or none;
    'rttmovestalb' / 'rttmovesalwaystalb' when TaLB chooses the target (RttMoveTarget=Talb)."""
    value = attributes.get('RttMoves', '').lower()
    name = {'withuntagged': 'rttmoves', 'always': 'rttmovesalways'}.get(value, '')
    target = attributes.get('RttMoveTarget', '').lower()
    return name + 'talb' if name and target == 'talb' else name


def _fallback_name(attributes):
    """'gbn<balancer>' (e.g. 'gbnconweave') for a GoBackNFallback other than letflow, the RDMA
    profile's; '' otherwise."""
    value = attributes.get('GoBackNFallback', '').lower()
    return '' if value in ('', 'letflow') else 'gbn' + value


def _slots_name(attributes):
    """'slots<N>' for a FlowSlots other than the attribute's 8 (as ns-3 reads it), else ''."""
    value = attributes.get('FlowSlots', '')
    try:
        return '' if not value or int(value) == 8 else 'slots%d' % int(value)
    except ValueError:
        return 'slots' + value


def _last_ends_name(rule):
    """'lastends' with LastEndsWindow true, else 'nolastends'."""
    return 'lastends' if _true(rule['LastEndsWindow']) else 'nolastends'


def _ended_tie_name(rule, shipped):
    """'ended<tie>' (e.g. 'endedqueue') for an EndedTie other than the shipped rule's where a
    LastEndsWindow makes it act (the attribute's Queue where the profile has no LastEndsWindow),
    else ''."""
    if not _true(rule['LastEndsWindow']):
        return ''
    tie = rule['EndedTie'].lower()
    reference = shipped['EndedTie'].lower() if _true(shipped['LastEndsWindow']) else 'queue'
    return '' if tie == reference else 'ended' + tie


# What names the rules lbRulesOff turns off, last in a label: 'talb-no-spray+stall-moves'.
RULES_OFF = 'no-'


def _margin_name(rule):
    """'marginmoves' for MarginMoves=true (the attribute's default), else 'nomarginmoves'."""
    return 'marginmoves' if _true(rule['MarginMoves']) else 'nomarginmoves'


def _delay_name(rule):
    """'cdelay20us' for CongestionDelay=20us, '' for 0 (in any unit)."""
    value = rule['CongestionDelay'].lower()
    return '' if re.fullmatch(r'0*\.?0*[a-z]*', value) else 'cdelay' + value


# ns-3's Time units, in nanoseconds; a bare number is seconds.
_TIME_UNITS = {'': 1e9, 's': 1e9, 'ms': 1e6, 'us': 1e3, 'ns': 1.0, 'ps': 1e-3, 'fs': 1e-6,
               'min': 60e9, 'h': 3600e9, 'd': 86400e9}


def _time_ns(text):
    """Nanoseconds of an ns-3 Time text ('2ms', '0', '+2000us'), None if it is not one."""
    found = re.fullmatch(r'\+?([0-9.]+(?:e[-+]?[0-9]+)?)([a-z]*)', text.strip().lower())
    if not found or found.group(2) not in _TIME_UNITS:
        return None
    return float(found.group(1)) * _TIME_UNITS[found.group(2)]


def _stall_name(rule):
    """'nostallmoves' for StallTimeout 0 (in any unit), 'stallmoves' for the attribute's 2 ms,
    'stall<value>' for another value (as given, e.g. 'stall5ms')."""
    value = rule['StallTimeout']
    ns = _time_ns(value)
    if ns == 0:
        return 'nostallmoves'
    if ns == _time_ns(RULE_DEFAULTS['StallTimeout']):
        return 'stallmoves'
    return 'stall' + value.lower()


def _wait_name(rule):
    """'cwait4' for CongestionWaitBelow=4, '' for 0 (however written: ns-3 reads '00' as 0)."""
    value = rule['CongestionWaitBelow']
    return '' if re.fullmatch(r'0*', value) else 'cwait' + value


def scheme_label(scheme, params):
    """The scheme's name in the tables: TaLB run with an lbAttributes Version other than the
    default 2 is 'talb-v<N>', and with a move rule other than the one talb-scenario ships for the
    run's transport (Contended with QueueMoves over RDMA, Counts over TCP) 'talb-<rule>' (e.g.
    'talb-congestion', or over RDMA 'talb-counts' and 'talb-contended' without QueueMoves), and
    with a RemoteSprayBytes other than the shipped one (30000 over TCP, 0 over RDMA) '-localspray'
    (0) or '-remotespray<bytes>' after that, and with a SprayQueue other than the shipped one
    (AtOrAbove over TCP since the end of 2026-12-01, AllWhenShared elsewhere) '-sprayatorabove',
    '-sprayall', '-sprayallwhenshared', '-sprayatorabovethenall' or '-sprayatorabovewithroom', and with an lbAttributes SprayPaths other than the
    transport's profile's '-pathsfastest' or '-pathsrate', and with a CongestionDelay other
    than 0 '-cdelay<value>' (as given, e.g. '-cdelay20us'), and with a CongestionWaitBelow
    other than 0 '-cwait<value>' (e.g. '-cwait4'), and with MarginMoves other than
    the profile's (false over TCP since 2026-12-01, true elsewhere) '-marginmoves' (TCP runs
    from before, which record a profile without it, are 'talb-marginmoves') or
    '-nomarginmoves', and with a Spray mode other than the transport's profile's
    ('-sprayalways', '-spraycrowded', ...), and with a StallTimeout other than the profile's
    (0 over TCP since the end of 2026-12-01, 2 ms elsewhere) '-stallmoves' (2 ms),
    '-stall<value>' or '-nostallmoves' (so TCP's defaults earlier on 2026-12-01 are
    'talb-sprayallwhenshared-stallmoves', and those before
    'talb-sprayallwhenshared-marginmoves-stallmoves'), and with ReorderMoves '-reorder'
    ('-reorder-spray' with RoceGoBackN=false and Spray=Always, '-reorder-sprayshared' with
    Spray=SharedDestination), with RttMoves '-rttmoves' (WithUntagged) or '-rttmovesalways' (and
    'talb' after either with RttMoveTarget=Talb: '-rttmovestalb'), with
    a GoBackNFallback other than letflow '-gbn<balancer>' (e.g. '-gbnconweave'), with a FlowSlots
    other than 8 '-slots<N>', with a LastEndsWindow other than the profile's (true over
    go-back-N RDMA since 2026-12-06, false with selective repeat, spraying and over TCP)
    '-lastends' or '-nolastends' (go-back-N runs from before, which record a profile without it,
    are 'talb-nolastends', and lbProfile=none there 'talb-counts-nolastends'), with a LastEndsWindow
    whose EndedTie differs from the profile's (Keep over go-back-N RDMA since 2026-12-06, later;
    Queue, the attribute's, elsewhere) '-ended<tie>' ('-endedqueue': go-back-N runs of 2026-12-06
    before it, 'talb-lastends-endedkeep' over TCP), so that the
    variants can be compared with TaLB in one sweep. (Runs
    from before lbProfile, as TCP's before SprayQueue, counted AtOrAbove; it differs from
    AllWhenShared only while two jobs share a leaf's uplinks.) Rules of the defaults that
    lbRulesOff turns off come last: 'talb-no-spray', 'talb-no-spray+stall-moves'. On the spraying
    transport, ECMP switches under the hosts' oblivious spraying are 'ecmp-oblivious' (under REPS,
    the transport's default, plain 'ecmp'). ConWeave with its paper's pausing rule (lbAttributes
    PauseOn=Notify; the evaluation's conweave-paper- parts run it with the rest of its simulator's
    settings) is 'conweave-notify'. Hosts' own answers to low entropy come last: N queue pairs per
    connection '-qp<N>' (messages split over them; '-qp<N>-rr' when whole messages go round-robin),
    one source port for all of them '-shared', PLB '-plb'."""
    return _switch_label(scheme, params) + _host_label(params)


def _flag(params, name):
    return str(params.get(name, '') or 'false').lower() in ('true', '1')


def _host_label(params):
    """The hosts' queue-pair scaling and PLB, as scheme_label appends them ('' for neither)."""
    label = ''
    qps = int(params.get('rdmaQpsPerConnection', 1) or 1)
    if qps > 1:
        label += '-qp%d' % qps + ('' if _flag(params, 'rdmaSplitMessages') else '-rr')
    if _flag(params, 'rdmaSharedSourcePort'):
        label += '-shared'
    if _flag(params, 'plb'):
        label += '-plb'
    return label


def _switch_label(scheme, params):
    if (scheme == 'ecmp' and str(params.get('transport', '')) == 'spray'
            and str(params.get('sprayPolicy', '')) == 'oblivious'):
        return 'ecmp-oblivious'
    given = _attributes(params.get('lbAttributes'))
    if scheme == 'conweave':
        pause = given.get('PauseOn', '')
        return 'conweave-notify' if pause.lower() == 'notify' else scheme
    if scheme != 'talb':
        return scheme
    transport = str(params.get('transport', '') or 'tcp')
    profile = transport
    if transport == 'rdma' and str(params.get('rdmaRecovery', '')) == 'sr':
        profile = 'rdma-sr'
    shipped = dict(RULE_DEFAULTS, **PROFILE_RULES.get(profile, {}))
    rule = dict(RULE_DEFAULTS)
    recorded = ''
    if params.get('lbProfile', 'none') == 'transport':
        recorded = params.get('lb_profile')
        if isinstance(recorded, str):
            rule.update(_rule_settings(recorded))
        else:
            rule, recorded = dict(shipped), ''
    version = given.get('Version', '')
    if version not in ('', '2'):  # v1 has no move rule
        return '%s-v%s' % (scheme, version)
    rule.update(_rule_settings(params.get('lbAttributes')))
    # Rules of the defaults turned off by name (the ablation): 'no-<rule>[+<rule>...]' last.
    off = [r.strip() for r in str(params.get('lbRulesOff', '') or '').split(',') if r.strip()]
    names = [_rule_name]
    # Runs from before lbProfile existed predate RemoteSprayBytes and MarginMoves too: named by
    # the move rule.
    if 'lbProfile' in params or 'RemoteSprayBytes' in given:
        names.append(_spray_name)
    # Before lbProfile TCP's spray queue was AtOrAbove, as TCP's profile is now.
    if 'lbProfile' in params or 'SprayQueue' in given:
        names.append(_queue_name)
    names.append(_delay_name)
    names.append(_wait_name)
    if 'lbProfile' in params or 'MarginMoves' in given:
        names.append(_margin_name)
    if 'lbProfile' in params or 'StallTimeout' in given:
        names.append(_stall_name)
    last_ends = 'lbProfile' in params or 'LastEndsWindow' in given
    parts = [name(rule) for name in names if name(rule) != name(shipped)]
    parts.append(_paths_name(given, shipped))
    parts.append(_spray_mode_name(given, transport, recorded))
    parts.append(_reorder_name(given))
    parts.append(_rtt_name(given))
    parts.append(_fallback_name(given))
    parts.append(_slots_name(given))
    # Named after the others (it was an lbAttributes variant before the go-back-N profile took
    # it): 'talb-slots32-lastends'.
    if last_ends and _last_ends_name(rule) != _last_ends_name(shipped):
        parts.append(_last_ends_name(rule))
    if last_ends:
        parts.append(_ended_tie_name(rule, shipped))
    parts = [part for part in parts if part]
    if off:
        parts.append(RULES_OFF + '+'.join(off))
    return '-'.join([scheme] + parts)


def find_run_folders(path):
    """Run folders at or below ``path``, sorted; hidden folders are not searched. Symbolic links
    to folders are followed (users gather runs from several sweeps by linking them), each real
    folder once, so a link cycle or two links to one sweep do not count its runs twice."""
    if not os.path.isdir(path):
        raise TalbDataError('%s: not a folder' % path)
    if os.path.isfile(os.path.join(path, RUN_JSON)):
        return [path]
    found = []
    seen = set()
    for top, dirs, files in os.walk(path, followlinks=True):
        real = os.path.realpath(top)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        if RUN_JSON in files:
            found.append(top)
            dirs[:] = []  # a run folder is a leaf
            continue
        dirs[:] = sorted(d for d in dirs if not d.startswith('.'))
    if not found:
        raise TalbDataError('%s: no run folder (a folder holding %s) found' % (path, RUN_JSON))
    return sorted(found)


def _flatten(params, prefix=''):
    flat = {}
    for key, value in params.items():
        name = prefix + str(key)
        if isinstance(value, dict):
            flat.update(_flatten(value, name + '.'))
        elif isinstance(value, list):
            flat[name] = json.dumps(value)  # hashable, so it can be grouped on
        else:
            flat[name] = value
    return flat


def read_run_json(folder, keep=()):
    """run.json of one folder as a flat dict: scheme, seed, talb_version and the parameters;
    the top-level objects named in ``keep`` (e.g. 'lb_counters') as they are (None if absent)."""
    path = os.path.join(folder, RUN_JSON)
    try:
        with open(path) as f:
            meta = json.load(f)
    except json.JSONDecodeError as e:
        raise TalbDataError('%s: not valid JSON (%s)' % (path, e)) from None
    if not isinstance(meta, dict):
        raise TalbDataError('%s: expected a JSON object' % path)
    for key in ('scheme', 'seed', 'parameters'):
        if key not in meta:
            raise TalbDataError('%s: missing key "%s"' % (path, key))
    if not isinstance(meta['parameters'], dict):
        raise TalbDataError('%s: "parameters" must be an object' % path)
    if isinstance(meta['seed'], bool) or not isinstance(meta['seed'], int):
        raise TalbDataError('%s: "seed" must be an integer, not %r' % (path, meta['seed']))
    params = _flatten(meta['parameters'])
    clash = sorted(set(params) & set(RUN_COLUMNS))
    # The run's own scheme and seed are authoritative; a parameter of the same name must agree.
    for name in clash:
        if name in ('scheme', 'seed') and str(params[name]) != str(meta[name]):
            raise TalbDataError('%s: parameters.%s=%r disagrees with %s=%r'
                                % (path, name, params[name], name, meta[name]))
    row = {k: v for k, v in params.items() if k not in RUN_COLUMNS}
    row.update(path=folder, scheme=str(meta['scheme']), seed=meta['seed'],
               talb_version=str(meta.get('talb_version', '')))
    # What lbProfile set (None: a run.json from before the record).
    profile = row['lb_profile'] = meta.get('lb_profile')
    if profile is not None and not isinstance(profile, str):
        raise TalbDataError('%s: "lb_profile" must be a string, not %r' % (path, profile))
    for name in COUNTERS:
        value = meta.get(name, np.nan)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TalbDataError('%s: "%s" must be a number, not %r' % (path, name, value))
        row[name] = value
    for name in keep:
        row[name] = meta.get(name)
    return row


def _complete_lines(path):
    """The file's bytes up to its last newline; warns when a partial last line is dropped."""
    with open(path, 'rb') as f:
        data = f.read()
    if data and not data.endswith(b'\n'):
        cut = data.rfind(b'\n') + 1
        if cut > 0:
            lineno = data.count(b'\n', 0, cut) + 1
            warnings.warn('%s:%d: dropped a truncated last line (%r) - interrupted run?'
                          % (path, lineno, data[cut:cut + 60].decode('utf-8', 'replace')),
                          TalbDataWarning, stacklevel=3)
            data = data[:cut]
        # else: a header without its newline is still a header: keep it.
    return data


def read_table(path, schema=None):
    """One CSV of the contract as a typed DataFrame (errors name the file, line and column)."""
    name = os.path.basename(path)
    schema = schema or SCHEMAS[name]
    if not os.path.isfile(path):
        raise TalbDataError('%s: missing (a run folder holds %s)' % (path, ', '.join(SCHEMAS)))
    data = _complete_lines(path)
    if not data.strip():
        warnings.warn('%s: empty file (no header) - interrupted run?' % path, TalbDataWarning,
                      stacklevel=2)
        return _empty(schema)
    header = data.split(b'\n', 1)[0].decode('utf-8', 'replace').strip().split(',')
    _check_columns(path, header, schema)
    fast = _read_typed(data, schema)
    if fast is not None:
        return fast
    # Something in the file is off: parse everything as text to find and name it.
    try:
        raw = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False, na_filter=False,
                          skip_blank_lines=False)
    except pd.errors.ParserError as e:
        raise TalbDataError('%s: %s' % (path, e)) from None
    _check_columns(path, list(raw.columns), schema)
    table = pd.DataFrame(index=raw.index)
    for column, kind in schema.items():
        table[column] = _convert(raw[column], kind, path, column)
    return table


PANDAS_TYPES = {INT: 'int64', FLOAT: 'float64', STR: 'object'}


def _read_typed(data, schema):
    """The table parsed with its types by pandas' C parser, or None if any row is not clean."""
    try:
        table = pd.read_csv(io.BytesIO(data), dtype={c: PANDAS_TYPES[k] for c, k in schema.items()},
                            skip_blank_lines=False)
    except (ValueError, OverflowError, pd.errors.ParserError):
        return None
    if table.isna().any().any():
        return None
    return table[list(schema)]


def _check_columns(path, columns, schema):
    missing = [c for c in schema if c not in columns]
    if missing:
        raise TalbDataError('%s: missing column%s %s' % (path, 's' if len(missing) > 1 else '',
                                                         ', '.join(missing)))
    unexpected = [c for c in columns if c not in schema and c not in OPTIONAL_COLUMNS]
    if unexpected:
        raise TalbDataError('%s: unexpected column%s %s (expected: %s)'
                            % (path, 's' if len(unexpected) > 1 else '', ', '.join(unexpected),
                               ','.join(schema)))


def _empty(schema):
    return pd.DataFrame({c: pd.Series(dtype=PANDAS_TYPES[k]) for c, k in schema.items()})


def _bad(values, mask, path, column, what):
    row = int(np.flatnonzero(mask.to_numpy())[0])
    # line 1 is the header; blank lines are kept as rows, so row i is on line i + 2.
    raise TalbDataError('%s:%d: column %s: %s %r' % (path, row + 2, column, what, values.iloc[row]))


def _convert(values, kind, path, column):
    empty = values.str.strip() == ''
    if empty.any():
        _bad(values, empty, path, column, 'missing value')
    if kind == STR:
        return values
    numbers = pd.to_numeric(values, errors='coerce')
    bad = numbers.isna()
    if bad.any():
        _bad(values, bad, path, column, 'not a number:')
    if kind == INT:
        fractional = numbers != np.floor(numbers)
        if fractional.any():
            _bad(values, fractional, path, column, 'not an integer:')
        return numbers.astype('int64')
    return numbers.astype('float64')


def _check_run_columns(table, path, run):
    """The scheme/seed columns must match run.json (a mismatch means mixed-up files)."""
    for column in ('scheme', 'seed'):
        wrong = table[column] != run[column]
        if wrong.any():
            _bad(table[column].astype(str), wrong, path, column,
                 'disagrees with run.json (%s=%r):' % (column, run[column]))


def _with_run_id(table, run_id=0):
    table.insert(0, 'run_id', run_id)
    return table


def _read_run_table(folder, name, run):
    """One table of a run folder, checked against its run.json (``run``, read_run_json's)."""
    path = os.path.join(folder, name)
    if name in OPTIONAL_SCHEMAS and not os.path.isfile(path):
        return _empty(OPTIONAL_SCHEMAS[name])
    table = read_table(path, SCHEMAS.get(name) or OPTIONAL_SCHEMAS[name])
    _check_run_columns(table, path, run)
    if name == 'flows.csv':
        bad = ~table['kind'].isin(FLOW_KINDS)
        if bad.any():
            _bad(table['kind'], bad, path, 'kind', 'expected one of %s, got' % (FLOW_KINDS,))
        # Messages between GPUs of one server never enter the fabric: not its FCTs.
        table = table[table['kind'] != 'nvlink'].reset_index(drop=True)
    return table


def read_flows(folder, label):
    """flows.csv of one run folder, checked as :func:`load_run` checks it, its scheme column
    set to ``label`` (the run's scheme as the tables name it)."""
    table = _read_run_table(folder, 'flows.csv', read_run_json(folder))
    table['scheme'] = label
    return table


def load_run(folder, flows=True):
    """(run dict, flows, tensors, iterations, collectives, link drops) of one run folder (the
    last two empty where the folder has no collectives.csv, link_drops.csv; flows empty and
    not read without ``flows``)."""
    run = read_run_json(folder)
    tables = [_read_run_table(folder, name, run) if flows or name != 'flows.csv'
              else _empty(SCHEMAS[name]) for name in list(SCHEMAS) + list(OPTIONAL_SCHEMAS)]
    # Checked against run.json's own scheme above; labelled (talb-v1) from here on.
    run['scheme'] = scheme_label(run['scheme'], run)
    for table in tables:
        table['scheme'] = run['scheme']
    return (run,) + tuple(tables)


def load(path, flows=True):
    """Every run at or below ``path`` as one :class:`Dataset`; without ``flows`` the flows stay
    on disk (:meth:`Dataset.flows_of` reads them run by run)."""
    rows, flows_, tensors, iterations, collectives, drops = [], [], [], [], [], []
    for run_id, folder in enumerate(find_run_folders(path)):
        run, f, t, i, c, d = load_run(folder, flows)
        rows.append(run)
        for table, out in ((f, flows_), (t, tensors), (i, iterations), (c, collectives),
                           (d, drops)):
            out.append(_with_run_id(table, run_id))
    runs = pd.DataFrame(rows)
    runs.index.name = 'run_id'
    for name in runs.columns:
        if name not in RUN_COLUMNS:
            runs[name] = _numbers_if_all(runs[name])
    order = list(RUN_COLUMNS) + [c for c in runs.columns if c not in RUN_COLUMNS]
    return Dataset(root=path, runs=runs[order], flows=pd.concat(flows_, ignore_index=True),
                   tensors=pd.concat(tensors, ignore_index=True),
                   iterations=pd.concat(iterations, ignore_index=True),
                   collectives=pd.concat(collectives, ignore_index=True),
                   link_drops=pd.concat(drops, ignore_index=True), flows_on_disk=not flows)


def _numbers_if_all(values):
    """A parameter column as numbers when every run's value is one (runners may write "0.5"),
    else as text, so that it sorts; runs without the parameter keep NaN."""
    given = values.notna()
    if not values.map(lambda v: isinstance(v, bool)).any():
        numbers = pd.to_numeric(values, errors='coerce')
        if (numbers.notna() == given).all():
            return numbers
    return values.where(~given, values.astype(str))


def read_sweep_axes(path):
    """The grid axes recorded by talb-sweep.py in ``path``/sweep.json, or None."""
    sweep = os.path.join(path, 'sweep.json')
    if not os.path.isfile(sweep):
        return None
    try:
        with open(sweep) as f:
            axes = json.load(f).get('axes')
    except (json.JSONDecodeError, AttributeError) as e:
        raise TalbDataError('%s: not a sweep description (%s)' % (sweep, e)) from None
    return list(axes) if isinstance(axes, list) else None
