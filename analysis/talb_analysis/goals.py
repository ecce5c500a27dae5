"""talb-goals: the evaluation's goals counted over every family's ``talb_vs_best.csv``.

``talb-report.py`` writes one ``talb_vs_best.csv`` per family (TaLB against the best other scheme
in each cell); this sums them into one table per family and transport: cells, cells where TaLB's
mean iteration is within ``--within`` % of the best other scheme, cells where it is the fastest or
tied (``--tie`` %), and cells where its priority 0-1 p99 FCT is the lowest -- as measured, and
less each message's wait for earlier messages of its connection (``hiprio_own``, where the tables
have it). The misses are listed below the table, so a reader sees which cells the counts leave
out.
"""
import argparse
import glob
import os
import sys

import pandas as pd

from .loading import TalbDataError
from .report import format_table

TABLE = 'talb_vs_best.csv'
REQUIRED = ('transport', 'talb_iter_ms', 'best_scheme', 'iter_gap_pct', 'talb_hiprio_p99_us',
            'best_hiprio_scheme', 'best_hiprio_p99_us', 'hiprio_best')
# Columns of talb_vs_best.csv that are results, not the cell's parameters.
RESULT_COLUMNS = REQUIRED[1:] + ('talb_speedup', 'best_iter_ms', 'talb_fct_reduction_pct', 'loses',
                                 'talb_hiprio_own_p99_us', 'best_hiprio_own_p99_us',
                                 'hiprio_own_best', 'talb_jct_ms', 'best_jct_scheme',
                                 'best_jct_ms', 'jct_gap_pct')


def load(root):
    """Every ``<root>/<family>/talb_vs_best.csv``, concatenated, with a ``family`` column."""
    if not os.path.isdir(root):
        raise TalbDataError('%s: not a folder (give the folder that holds one folder per family, '
                            'e.g. doc/evaluation)' % root)
    files = sorted(glob.glob(os.path.join(root, '*', TABLE)))
    if not files:
        raise TalbDataError('%s: no <family>/%s below it (talb-report.py writes one per family)'
                            % (root, TABLE))
    parts = []
    for path in files:
        try:
            table = pd.read_csv(path)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
            raise TalbDataError('%s: not a CSV table: %s' % (path, e)) from None
        missing = [c for c in REQUIRED if c not in table.columns]
        if missing:
            raise TalbDataError('%s: missing column%s %s (not a talb-report.py %s?)'
                                % (path, '' if len(missing) == 1 else 's', ', '.join(missing),
                                   TABLE))
        gap = pd.to_numeric(table['iter_gap_pct'], errors='coerce')
        if gap.isna().any():
            line = int(gap.isna().idxmax()) + 2  # header is line 1
            raise TalbDataError('%s:%d: iter_gap_pct is not a number: %r'
                                % (path, line, table['iter_gap_pct'].iloc[line - 2]))
        table['iter_gap_pct'] = gap
        table.insert(0, 'family', os.path.basename(os.path.dirname(path)))
        parts.append(table)
    return pd.concat(parts, ignore_index=True)

# The held-out grids' families (scenarios/eval/README.md): reported beside the others, not in
# 'all': CNN jobs, and an MoE job.
HELDOUT = 'heldout'
HELDOUT_FAMILIES = (HELDOUT, 'llmheldout')
# Families outside the tuning grid, each counted in its own rows and not in 'all': the held-out
# grids (CNN jobs, and an MoE job), and the tuning grid's parts under other settings (HPCC
# instead of DCQCN, ...).
OUTSIDE_TUNING = {HELDOUT: 'held-out grid', 'hpcc': 'RDMA parts under HPCC',
                  'spray': 'RDMA parts on the spraying transport',
                  'qp': 'mixed RDMA part with queue-pair scaling and PLB',
                  'timely': 'mixed RDMA part under TIMELY',
                  'sharedbuf': 'mixed RDMA part over shared-buffer switches',
                  'linuxtcp': "TCP parts on hosts with Linux's reordering threshold",
                  'racktcp': 'LLM TCP parts on hosts with RACK-TLP',
                  HELDOUT_FAMILIES[1]: 'held-out LLM grid'}


def _hiprio_is(column, value):
    """Where talb_vs_best.csv's hiprio_best is ``value`` (it is empty in a cell without priority
    0-1 flows, which is then neither)."""
    return column.map(lambda v: str(v) == str(value))


def summarise(cells, within=2.0, tie=0.05, hiprio_within=5.0):
    """Goal counts per family and transport, with a final ``all`` row over the tuning grid:
    the families of :data:`OUTSIDE_TUNING` (the held-out scenarios the rules were not tuned on,
    the tuning grid's RDMA parts under HPCC) are counted beside it in their own rows, not in
    ``all``."""
    hiprio_ratio = cells['talb_hiprio_p99_us'] / cells['best_hiprio_p99_us']
    # Tables from before the own tail existed lack it: those cells count in neither column.
    own = cells['hiprio_own_best'] if 'hiprio_own_best' in cells else pd.Series(None, cells.index)
    # Likewise the job completion time (tables regenerated since 2026-11-29 have it).
    jct = (cells['jct_gap_pct'] if 'jct_gap_pct' in cells
           else pd.Series(float('nan'), cells.index)).astype(float)
    cells = cells.assign(within=cells['iter_gap_pct'] <= within,
                         fastest=cells['iter_gap_pct'] <= tie,
                         hiprio=_hiprio_is(cells['hiprio_best'], True),
                         hiprio_near=hiprio_ratio <= 1.0 + hiprio_within / 100.0,
                         own_cells=_hiprio_is(own, True) | _hiprio_is(own, False),
                         own_lowest=_hiprio_is(own, True),
                         jct_cells=jct.notna(), jct_within=jct <= within)

    def count(part):
        return pd.Series({
            'cells': len(part), 'iter_within': int(part['within'].sum()),
            'iter_fastest_or_tied': int(part['fastest'].sum()),
            'hiprio_p99_lowest': int(part['hiprio'].sum()),
            'hiprio_p99_within': int(part['hiprio_near'].sum()),
            'hiprio_own_cells': int(part['own_cells'].sum()),
            'hiprio_own_p99_lowest': int(part['own_lowest'].sum()),
            'jct_cells': int(part['jct_cells'].sum()),
            'jct_within': int(part['jct_within'].sum()),
            'worst_gap_pct': round(float(part['iter_gap_pct'].max()), 1),
            'best_gap_pct': round(float(part['iter_gap_pct'].min()), 1)})

    rows = [dict(family=f, transport=t, **count(p))
            for (f, t), p in cells.groupby(['family', 'transport'], sort=True)]
    tuning = cells[~cells['family'].isin(list(OUTSIDE_TUNING))]
    rows.append(dict(family='all', transport='all', **count(tuning)))
    table = pd.DataFrame(rows)
    for c in ('cells', 'iter_within', 'iter_fastest_or_tied', 'hiprio_p99_lowest',
              'hiprio_p99_within', 'hiprio_own_cells', 'hiprio_own_p99_lowest', 'jct_cells',
              'jct_within'):
        table[c] = table[c].astype(int)
    return table


def misses(cells, within=2.0):
    """The cells that miss a goal: iteration more than ``within`` % behind, or a higher
    priority 0-1 p99 than another scheme. ``cell`` names the parameters that vary within the
    cell's family."""
    bad = cells[(cells['iter_gap_pct'] > within) | _hiprio_is(cells['hiprio_best'], False)]
    params = [c for c in cells.columns if c not in RESULT_COLUMNS + ('family',)]
    varying = {f: [c for c in params if part[c].astype(str).nunique() > 1]
               for f, part in cells.groupby('family')}

    def name(row):
        return ', '.join('%s=%s' % (c, _value(row[c])) for c in varying[row['family']]
                         if pd.notna(row[c]) and str(row[c]) != '')

    return pd.DataFrame({
        'family': bad['family'], 'cell': bad.apply(name, axis=1) if len(bad) else [],
        'iter_gap_pct': bad['iter_gap_pct'].round(1), 'best_scheme': bad['best_scheme'],
        'talb_hiprio_p99_us': bad['talb_hiprio_p99_us'].round(1),
        'best_hiprio_p99_us': bad['best_hiprio_p99_us'].round(1),
        'best_hiprio_scheme': bad['best_hiprio_scheme']}).reset_index(drop=True)


def _value(v):
    """A parameter as the grid wrote it (concatenating families turns integers into floats)."""
    return int(v) if isinstance(v, float) and v.is_integer() else v


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog='talb-goals.py',
        description="Count the evaluation's goals over every family's talb_vs_best.csv (written "
                    'by talb-report.py): cells where TaLB is within --within %% of the best other '
                    'scheme, the fastest or tied (--tie %%), and has the lowest priority 0-1 p99 '
                    'FCT; then list the cells that miss one.')
    p.add_argument('root', nargs='?', default='doc/evaluation', metavar='EVAL_DIR',
                   help='folder holding one folder per family (default: doc/evaluation)')
    p.add_argument('--within', type=float, default=2.0,
                   help='iteration goal: TaLB at most this %% slower than the best (default: 2)')
    p.add_argument('--tie', type=float, default=0.05,
                   help='gap in %% still counted as fastest or tied (default: 0.05)')
    p.add_argument('--hiprio-within', type=float, default=5.0,
                   help='also count cells where TaLB\'s priority 0-1 p99 is at most this %% above '
                        'the lowest (default: 5)')
    p.add_argument('--out', help='write the counts here as CSV (default: EVAL_DIR/goals.csv) and '
                   'the misses beside it as goals_misses.csv')
    p.add_argument('--format', choices=('table', 'csv', 'markdown'), default='table',
                   help='how the tables are printed (default: table); the CSV files are always '
                        'written')
    args = p.parse_args(argv)
    for name in ('within', 'tie', 'hiprio_within'):
        value = getattr(args, name)
        if not 0 <= value < 100:
            p.error('--%s must be a percentage in [0, 100), got %g' % (name.replace('_', '-'), value))
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        cells = load(args.root)
    except TalbDataError as e:
        print('talb-goals: error: %s' % e, file=sys.stderr)
        return 2
    counts = summarise(cells, args.within, args.tie, args.hiprio_within)
    missed = misses(cells, args.within)
    out = args.out or os.path.join(args.root, 'goals.csv')
    counts.to_csv(out, index=False)
    missed.to_csv(os.path.splitext(out)[0] + '_misses.csv', index=False)
    total = counts.iloc[-1]
    print('%d cells in %d families: iteration within %g %% of the best other scheme in %d, '
          'fastest or tied (%g %%) in %d; priority 0-1 p99 FCT lowest in %d, within %g %% of '
          'the lowest in %d'
          % (total['cells'],
             cells.loc[~cells['family'].isin(list(OUTSIDE_TUNING)), 'family'].nunique(),
             args.within, total['iter_within'],
             args.tie, total['iter_fastest_or_tied'], total['hiprio_p99_lowest'],
             args.hiprio_within, total['hiprio_p99_within']))
    if total['hiprio_own_cells']:
        print('priority 0-1 p99 less the waits for earlier messages of a connection: lowest in %d '
              'of the %d cells whose tables have it' % (total['hiprio_own_p99_lowest'],
                                                         total['hiprio_own_cells']))
    if total['jct_cells']:
        print('mean job completion time within %g %% of the best other scheme in %d of the %d '
              'cells whose tables have it' % (args.within, total['jct_within'],
                                              total['jct_cells']))
    for family, what in OUTSIDE_TUNING.items():
        held = counts[counts['family'] == family]
        if len(held):
            jct = ('; job completion within %g %% in %d of %d' % (
                args.within, held['jct_within'].sum(), held['jct_cells'].sum())
                   if held['jct_cells'].sum() else '')
            print('%s (not in the counts above): %d cells, iteration within %g %% in %d, '
                  'fastest or tied in %d%s' % (what, held['cells'].sum(), args.within,
                                               held['iter_within'].sum(),
                                               held['iter_fastest_or_tied'].sum(), jct))
    print()
    print(format_table(counts, args.format))
    print()
    print('Cells that miss a goal (%d):' % len(missed))
    print(format_table(missed, args.format))
    return 0
