"""talb-ablation: what each rule of TaLB's defaults buys, over the evaluation's families.

The evaluation runs TaLB with one rule of its defaults off (talb-scenario ``--lbRulesOff``,
reported as ``talb-no-<rule>``) beside default TaLB (``talb``) on the same cells and seeds. Runs
made under earlier defaults carry the variant's name before the rule
(``talb-marginmoves-no-spray``: TCP's profile before it turned the margin moves off) and pair
with that variant's runs (``talb-marginmoves``); the table's ``defaults`` column names the runs a
row compares with. For each pair (same family, defaults, cell and seed) the rule's gain is
``100 * (iteration without the rule / iteration with it - 1)``: > 0, the rule shortens the
iteration. Per family, transport and rule
the table gives the mean gain over the pairs with its 95 % CI (Student t over the pairs, which
pools cells and seeds), the least and the largest pair, and a verdict: ``no effect`` (every pair
identical), ``level`` (the CI within 0.05 % of 0, the goals table's tie), ``pays`` (the CI is above
0), ``costs`` (below 0), else ``within noise``; and the
decisions the rule can change, per run with and without it (run.json's ``lb_counters``: moves,
mid-tensor, at a boundary or after a stall; sprayed packets), so that a rule's effect, or its
absence, can be traced to what TaLB did. An ``all`` row per transport and rule pools the
families of the tuning grid (the held-out families, ``heldout`` and ``llmheldout``, have their own
rows and are not in it).
Each row names the parts its pairs come from (``parts``: FAMILY/SWEEP-FOLDER of the runs with the
rule off), so that an earlier table's row of other parts can be pooled with it (``--keep``).

The other way round, a candidate for the defaults: TaLB with one rule more than its defaults
(an lbAttributes setting named in :data:`CANDIDATES`, e.g. ``LastEndsWindow=true``, reported as
``talb-lastends``) pairs with default TaLB of the same cell and seed as a rule ``+<name>``
(``+lastends``), with the same sign: the gain is the iteration of default TaLB over the
candidate's, minus 1, so > 0 the rule shortens the iteration; ``talb_iter_ms`` and the
``*_with`` columns are then the candidate's, the ``parts`` its runs'.

Only run.json and iterations.csv are read, and only of TaLB's runs, so that a whole evaluation
folder loads in seconds.
"""
import argparse
import math
import os
import sys
import warnings

import pandas as pd

from . import loading, stats
from .loading import TalbDataError
from .goals import HELDOUT_FAMILIES
from .report import format_table

# TaLB variants that add one rule to the defaults, each a candidate for a default: the suffix of
# their label (loading.scheme_label) -> the rule's name in the table ('+': on over the defaults).
# LastEndsWindow is one over TCP and the spraying transports; the go-back-N profile has it since
# 2026-12-06 (there its ablation is the rule last-ends).
CANDIDATES = {'lastends': '+lastends'}
# A row's mean decisions per run, with the rule and without it.
DECISIONS = ('moves_with', 'moves_without', 'sprayed_with', 'sprayed_without')
COLUMNS = ['family', 'transport', 'rule', 'defaults', 'cells', 'pairs', 'talb_iter_ms',
           'rule_gain_pct', 'ci95_pct', 'min_pct', 'max_pct', 'verdict', *DECISIONS, 'parts']
# TaLB's decisions a rule can change, from run.json's lb_counters (summed over the switches):
# moves (a tensor's port changed: mid-tensor, at a boundary, after a stall) and sprayed packets.
MOVES = ('mid_tensor_moves', 'boundary_moves', 'stall_moves')
PAIR_COLUMNS = ['family', 'part', 'transport', 'rule', 'defaults', 'cell', 'seed', 'with_ms',
                'without_ms', 'gain_pct', *DECISIONS]
# Run parameters that are not the cell: the scheme's own, the output folder.
NOT_CELL = set(stats.NOT_FACTORS) | set(stats.SCHEME_PARAMS) | set(stats.LABEL_PARAMS)


def split_label(label):
    """(defaults, rule) of a TaLB label: ('talb', 'spray') for 'talb-no-spray',
    ('talb-marginmoves', 'spray') for 'talb-marginmoves-no-spray', ('talb', '+lastends') for a
    candidate, 'talb-lastends', (label, None) without a rule off or added."""
    defaults, sep, rule = label.partition('-' + loading.RULES_OFF)
    if sep and defaults.split('-')[0] == 'talb':
        return defaults, rule
    scheme, _, variant = label.partition('-')
    if scheme == 'talb' and variant in CANDIDATES:
        return 'talb', CANDIDATES[variant]
    return label, None


def _is_candidate(rule):
    return rule.startswith('+')


def _talb_runs(folder, warmup):
    """(runs, per-run iteration ms) of TaLB's ablated runs and of the defaults they pair with
    below ``folder``."""
    found = []
    for path in loading.find_run_folders(folder):
        run = loading.read_run_json(path, keep=('lb_counters',))
        run['scheme'] = loading.scheme_label(run['scheme'], run)
        # The part: the sweep folder below the family's that holds the run ('.' for none).
        below = os.path.relpath(path, folder).split(os.sep)
        run['part'] = below[0] if len(below) > 1 else '.'
        found.append((path, run, split_label(run['scheme'])))
    defaults = {base for _, _, (base, rule) in found if rule} | {'talb'}
    rows, iterations = [], []
    for path, run, (base, _) in found:
        if base not in defaults:
            continue
        run.update(_decisions(run.pop('lb_counters')))
        table = loading.read_table(os.path.join(path, 'iterations.csv'))
        table.insert(0, 'run_id', len(rows))
        rows.append(run)
        iterations.append(table)
    if not rows:
        return None
    runs = pd.DataFrame(rows)
    runs.index.name = 'run_id'
    empty = pd.DataFrame()
    data = loading.Dataset(root=folder, runs=runs, flows=empty, tensors=empty,
                           iterations=pd.concat(iterations, ignore_index=True))
    runs['iter_ms'] = stats.run_iteration_times(data, warmup)['iter_ms']
    return runs


def _decisions(counters):
    """{'moves': ..., 'sprayed': ...} of a run's lb_counters (NaN where run.json has none)."""
    if not isinstance(counters, dict):
        return {'moves': math.nan, 'sprayed': math.nan}
    number = lambda name: float(counters.get(name, 0) or 0)
    return {'moves': sum(number(n) for n in MOVES), 'sprayed': number('sprayed')}


def _cell_of(runs):
    """Each run's cell as text, name=value of the parameters that vary between the family's runs
    (other than the scheme's, the seed and the output; the others are the same for every run)."""
    names = [c for c in runs.columns if c not in loading.RUN_COLUMNS and c not in NOT_CELL
             and c not in ('iter_ms', 'moves', 'sprayed', 'part')
             and runs[c].astype(str).nunique() > 1]
    if not names:
        return pd.Series('', index=runs.index)
    return runs[names].astype(str).apply(
        lambda row: ', '.join('%s=%s' % kv for kv in row.items()), axis=1)


def pairs(runs, family):
    """One row per ablated (or candidate) run with its default twin: family, transport, rule,
    cell, seed, the two iteration times and the gain (%)."""
    runs = runs.assign(cell=_cell_of(runs))
    base = runs.set_index(['scheme', 'cell', 'seed'])
    base = base[~base.index.duplicated()]
    out = []
    for _, run in runs.iterrows():
        defaults, rule = split_label(run['scheme'])
        key = (defaults, run['cell'], run['seed'])
        if rule is None or key not in base.index or math.isnan(base.at[key, 'iter_ms']) or \
                math.isnan(run['iter_ms']):
            continue
        twin = base.loc[key]
        on, off = (run, twin) if _is_candidate(rule) else (twin, run)
        out.append({'family': family, 'part': run['part'],
                    'transport': str(run.get('transport', 'tcp')), 'rule': rule,
                    'defaults': defaults, 'cell': run['cell'],
                    'seed': run['seed'], 'with_ms': on['iter_ms'], 'without_ms': off['iter_ms'],
                    'gain_pct': 100.0 * (off['iter_ms'] / on['iter_ms'] - 1.0),
                    'moves_with': on['moves'], 'moves_without': off['moves'],
                    'sprayed_with': on['sprayed'], 'sprayed_without': off['sprayed']})
    return pd.DataFrame(out, columns=PAIR_COLUMNS)


# A gain whose whole CI lies within this many % of 0 is 'level': the rule changes decisions but
# not the iteration by what the goals table counts as a tie (goals.py's --tie); without it a rule
# that moves the iteration by nanoseconds in every seed was reported as paying.
LEVEL_PCT = 0.05


def _verdict(all_zero, mean, ci):
    if all_zero:
        return 'no effect'
    if math.isnan(ci):
        return 'one pair'
    if abs(mean) + ci < LEVEL_PCT:
        return 'level'
    if mean - ci > 0:
        return 'pays'
    if mean + ci < 0:
        return 'costs'
    return 'within noise'


def summarise(paired):
    """The table of the module's docstring from :func:`pairs` of every family."""
    rows = []

    def add(family, transport, rule, defaults, part):
        mean, ci, n = stats.mean_ci(part['gain_pct'])
        rows.append({'family': family, 'transport': transport, 'rule': rule,
                     'defaults': defaults, 'cells': part['cell'].nunique(), 'pairs': n,
                     'talb_iter_ms': float(part['with_ms'].mean()), 'rule_gain_pct': mean,
                     'ci95_pct': ci, 'min_pct': float(part['gain_pct'].min()),
                     'max_pct': float(part['gain_pct'].max()),
                     'verdict': _verdict((part['gain_pct'] == 0).all(), mean, ci),
                     **{c: float(part[c].mean()) for c in DECISIONS},
                     'parts': ';'.join(sorted(set(part['family'] + '/' + part['part'])))})

    for (transport, rule, defaults), part in paired.groupby(['transport', 'rule', 'defaults'],
                                                             sort=True):
        for family, fpart in part.groupby('family', sort=True):
            add(family, transport, rule, defaults, fpart)
        # Cells of different families are told apart by their family; the held-out grids are
        # reported beside the tuning grid, not in it.
        tuning = part[~part['family'].isin(HELDOUT_FAMILIES)]
        if len(tuning):
            add('all', transport, rule, defaults,
                tuning.assign(cell=tuning['family'] + '|' + tuning['cell']))
    return pd.DataFrame(rows, columns=COLUMNS)


def _parts(row):
    """The set of parts a table row names (empty where the table predates the column)."""
    parts = row.get('parts')
    return set(parts.split(';')) if isinstance(parts, str) and parts else set()


def pool_rows(a, b):
    """One row of two rows of the same family, transport, rule and defaults measured on other
    parts: the pairs of both, as :func:`summarise` would give them from all of those pairs (the
    mean, the CI from each row's spread, the extremes, counts and per-run decisions weighted by
    pairs), to the precision of the figures given."""
    n1, n2 = int(a['pairs']), int(b['pairs'])
    n = n1 + n2
    mean = (n1 * a['rule_gain_pct'] + n2 * b['rule_gain_pct']) / n

    def squares(row, k):  # the sum of squared deviations from the row's own mean
        if k < 2 or not row['ci95_pct'] == row['ci95_pct']:
            return 0.0
        return (row['ci95_pct'] * math.sqrt(k) / stats.t_critical(k - 1)) ** 2 * (k - 1)

    spread = squares(a, n1) + squares(b, n2) + \
        n1 * n2 / n * (a['rule_gain_pct'] - b['rule_gain_pct']) ** 2
    ci = stats.t_critical(n - 1) * math.sqrt(spread / (n - 1)) / math.sqrt(n)

    def weighted(column):
        known = [(row[column], k) for row, k in ((a, n1), (b, n2)) if row[column] == row[column]]
        return sum(v * k for v, k in known) / sum(k for _, k in known) if known else math.nan

    pooled = dict(a)
    pooled.update(cells=int(a['cells']) + int(b['cells']), pairs=n, rule_gain_pct=mean,
                  ci95_pct=ci, min_pct=min(a['min_pct'], b['min_pct']),
                  max_pct=max(a['max_pct'], b['max_pct']),
                  verdict=_verdict(a['verdict'] == b['verdict'] == 'no effect', mean, ci),
                  talb_iter_ms=weighted('talb_iter_ms'),
                  parts=';'.join(sorted(_parts(a) | _parts(b))),
                  **{c: weighted(c) for c in DECISIONS})
    return pooled


# Defaults' labels of a table from before the TCP profile turned the shared spray queue and the
# stall moves off (the end of 2026-12-01): what loading.scheme_label names those runs now.
RENAMED = {('tcp', 'talb-marginmoves'): 'talb-sprayallwhenshared-marginmoves-stallmoves'}


def keep_rows(table, path):
    """``table`` with the rows of an earlier table (CSV ``path``) that it lacks: a family's row
    for a rule this RESULTS has no pair of, and the ``all`` rows of the transports and rules it
    has none of (a results folder with some families only does not drop the others' rows). A
    row of both is pooled (:func:`pool_rows`) where the earlier one names its parts and none of
    them is here (a held-out part run after the others were cleared away adds to their row);
    else the row here replaces it. An ``all`` row recomputed here, not pooled, pools only the
    families here: a warning names those that also have kept rows."""
    if not os.path.exists(path):
        return table
    try:
        old = pd.read_csv(path)
    except (OSError, ValueError) as e:
        raise TalbDataError('%s: not an ablation table to keep rows of (%s)' % (path, e))
    if 'defaults' not in old.columns and {'rule', 'transport'} <= set(old.columns):
        # A table from before the column (2026-12-01), when TCP's defaults still had the margin
        # moves: its TCP rows compared with what was then talb-marginmoves.
        old.insert(list(old.columns).index('rule') + 1, 'defaults',
                   ['talb-marginmoves' if t == 'tcp' else 'talb' for t in old['transport']])
    if 'parts' not in old.columns:  # a table from before the column (2026-12-04)
        old['parts'] = ''
    missing = [c for c in COLUMNS if c not in old.columns]
    if missing:
        raise TalbDataError('%s: not an ablation table to keep rows of (no column %s)'
                            % (path, ', '.join(missing)))
    old['defaults'] = [RENAMED.get((t, d), d) for t, d in zip(old['transport'], old['defaults'])]
    key = ['family', 'transport', 'rule', 'defaults']
    earlier = {tuple(row[k] for k in key): row for _, row in old.iterrows()}
    rows, pooled = [], set()
    for _, row in table.iterrows():
        was = earlier.get(tuple(row[k] for k in key))
        if was is not None and _parts(was) and not _parts(was) & _parts(row):
            row = pd.Series(pool_rows(row, was))
            pooled.add(tuple(row[k] for k in key))
        elif was is not None and _parts(was) - _parts(row):
            warnings.warn('%s: %s %s %s: replaced by the row of this RESULTS, which has some of '
                          'its parts but not %s (their pairs are no longer in the table: rerun '
                          'with every part of the row)'
                          % (path, row['family'], row['transport'], row['rule'],
                             ', '.join(sorted(_parts(was) - _parts(row)))),
                          loading.TalbDataWarning)
        rows.append(row)
    table = pd.DataFrame(rows, columns=COLUMNS).reset_index(drop=True)
    here = set(zip(*(table[k] for k in key)))
    kept = old[[row not in here for row in zip(*(old[k] for k in key))]]
    if kept.empty:
        return table
    partial = sorted({'%s %s' % (t, r) for f, t, r, d in zip(*(kept[k] for k in key))
                      if f != 'all' and ('all', t, r, d) in here - pooled})
    if partial:
        warnings.warn('%s: the all rows of %s pool only the families in this RESULTS; the '
                      'table keeps other families\' rows from %s'
                      % (path, ', '.join(partial), path), loading.TalbDataWarning)
    # summarise()'s order: by transport and rule, the families, then their 'all' row.
    merged = pd.concat([table, kept[COLUMNS]], ignore_index=True)
    merged['_all'] = merged['family'] == 'all'
    merged = merged.sort_values(['transport', 'rule', 'defaults', '_all', 'family'],
                                kind='stable')
    return merged.drop(columns='_all').reset_index(drop=True)


def load(root, warmup=1):
    """:func:`pairs` of every family folder below ``root`` (one folder per family)."""
    if not os.path.isdir(root):
        raise TalbDataError('%s: not a folder (give the evaluation\'s results folder, which '
                            'holds one folder per family, e.g. results/eval)' % root)
    found = []
    for family in sorted(os.listdir(root)):
        folder = os.path.join(root, family)
        if family.startswith('.') or not os.path.isdir(folder):
            continue
        try:
            runs = _talb_runs(folder, warmup)
        except TalbDataError as e:
            if 'no run folder' in str(e):
                continue
            raise
        if runs is not None:
            found.append(pairs(runs, family))
    paired = pd.concat(found, ignore_index=True) if found else pd.DataFrame()
    if paired.empty:
        raise TalbDataError('%s: no TaLB run with a rule off (lbRulesOff) or a candidate rule '
                            'on (%s) has a default TaLB run of the same cell and seed beside it'
                            % (root, ', '.join('talb-' + c for c in sorted(CANDIDATES))))
    return paired


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog='talb-ablation.py',
        description='What each rule of TaLB\'s defaults buys: TaLB with the rule off '
                    '(talb-scenario --lbRulesOff, run as talb-no-<rule>) against default TaLB on '
                    'the same cells and seeds, per family, transport and rule (gain: iteration '
                    'time without the rule over with it, minus 1, in %%; > 0: the rule pays); '
                    'and what a candidate rule would buy, TaLB with it on (%s) against default '
                    'TaLB, as rule +<name>.' % ', '.join(
                        'talb-%s' % c for c in sorted(CANDIDATES)))
    p.add_argument('root', nargs='?', default='results/eval', metavar='RESULTS',
                   help='the evaluation\'s results, one folder per family (default: results/eval)')
    p.add_argument('--out', help='write the table here as CSV (default: print only)')
    p.add_argument('--keep', metavar='FILE',
                   help='an earlier --out table: its rows of a family and rule (and the all '
                   'rows of a transport and rule) this RESULTS has no pair of are kept, so '
                   'that a results folder with some families or rules only updates their rows; '
                   'a row of both is pooled with the one here where its parts column names '
                   'parts none of which is here, else replaced')
    p.add_argument('--pairs-out', help='write every pair (cell, seed, both iteration times) '
                   'here as CSV')
    p.add_argument('--warmup', type=int, default=1,
                   help='iterations per job left out of the iteration time (default: 1)')
    p.add_argument('--format', choices=('table', 'csv', 'markdown'), default='table',
                   help='how the table is printed (default: table)')
    args = p.parse_args(argv)
    if args.warmup < 0:
        p.error('--warmup must be >= 0, got %d' % args.warmup)
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    with warnings.catch_warnings():
        warnings.simplefilter('always', loading.TalbDataWarning)
        try:
            paired = load(args.root, args.warmup)
        except TalbDataError as e:
            print('talb-ablation: error: %s' % e, file=sys.stderr)
            return 2
    table = summarise(paired)
    if args.keep:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('always', loading.TalbDataWarning)
                table = keep_rows(table, args.keep)
        except TalbDataError as e:
            print('talb-ablation: error: %s' % e, file=sys.stderr)
            return 2
    print(format_table(table, args.format))
    if args.out:
        table.to_csv(args.out, index=False, float_format='%.4g')
    if args.pairs_out:
        paired.to_csv(args.pairs_out, index=False, float_format='%.10g')
    return 0
