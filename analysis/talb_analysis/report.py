"""talb-report: tables, CSVs and plots of a talb run folder or sweep folder."""
import argparse
import math
import os
import sys
import warnings

import pandas as pd

from . import loading, plots, stats

SECTIONS = [
    # (key, CSV file, title)
    ('fct', 'fct_summary.csv',
     'FCT per scheme and group, all flows: tensor messages and background (FCT in us; '
     'slowdown = FCT / ideal FCT; reduction of the average vs baseline in %)'),
    ('fct_priority', 'fct_by_priority.csv',
     'FCT per priority class (us; priority -1 = background flows)'),
    ('fct_size', 'fct_by_size.csv',
     'FCT per size bin (us; 1 KB = 1000 B, bins closed on the left)'),
    ('tensor', 'tensor_completion.csv',
     'Tensor completion time comm_ns = done - ready, per priority (us)'),
    ('iteration', 'iteration_time.csv',
     'Iteration time (ms: mean over iterations of the slowest worker; 95 % CI across seeds) '
     'and speedup = baseline / scheme'),
    ('collectives', 'collectives_by_type.csv',
     'Collective completion per type, graph jobs (us: end - start of each instance; ideal = its '
     'analytic bound on an idle fabric; x ideal = total time / total ideal)'),
    ('link_losses', 'link_losses.csv',
     'Packets lost on failed or lossy leaf-spine links (link_drops.csv) per scheme, group and '
     'cause: per run, and in episodes (a connection\'s data losses less than 1 ms apart: how '
     'long it went on sending into the link; us)'),
    ('cells', 'cells.csv',
     'Per scheme and cell: mean iteration (ms, 95 % CI), speedup over the baseline, avg/p99 FCT '
     '(us, all flows), FCT reduction (%, all flows), p99 FCT of priority 0-1 tensor flows and of background '
     'flows (us), reroutes and retransmissions per run (TCP segments/bytes; RDMA NAKs, go-back-N '
     'bytes, out-of-order drops)'),
    ('talb_vs_best', 'talb_vs_best.csv',
     '{scheme} against the best other scheme per cell (columns talb_*: {scheme}\'s figures; '
     'iteration gap in %; loses = gap > 2 % or another scheme has the lower priority 0-1 p99 '
     'FCT)'),
    ('headline', 'headline.csv',
     'Best figures per scheme over the groups (avg FCT reduction of all flows, tensor and '
     'background, in %; training speedup)'),
]
EXTRA_CSVS = [('tensor_detail', 'tensor_per_tensor.csv'), ('runs', 'runs.csv'),
              ('cells_brief', 'cells_brief.csv')]
# cells_brief.csv: the per-cell columns a document shows (cells.csv has them all), rounded.
BRIEF_COLUMNS = {'runs': 0, 'iter_ms_mean': 1, 'iter_ms_ci95': 1, 'speedup': 2, 'fct_avg_us': 0,
                 'fct_reduction_pct': 1, 'fct_p99_us': 0, 'hiprio_fct_p99_us': 0,
                 'hiprio_own_p99_us': 0,
                 'bg_fct_p99_us': 0, 'reroutes': 0, 'tcp_retx_segments': 0, 'rdma_naks': 0}


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog='talb-report.py',
        description='Summarise a talb run folder or a sweep folder (searched recursively for '
                    'folders holding run.json): FCT, tensor completion, iteration time, speedup.')
    p.add_argument('path', metavar='RUN_OR_SWEEP_DIR')
    p.add_argument('--out', help='folder for the CSVs and PNGs (default: RUN_OR_SWEEP_DIR/report)')
    p.add_argument('--baseline', default='ecmp', help='scheme to compare against (default: ecmp)')
    p.add_argument('--group-by', help='comma-separated run parameters to group by besides the '
                   "scheme (default: the sweep's grid axes, else the parameters that vary); "
                   'an empty value groups by scheme only')
    p.add_argument('--warmup', type=int, default=1,
                   help='iterations per job skipped as warm-up for iteration time (default: 1)')
    p.add_argument('--plot-x', default='bgLoad',
                   help='run parameter on the x axis of the iteration-time plot, when it is a '
                        'grouping key (default: bgLoad)')
    p.add_argument('--scheme', default='talb',
                   help='scheme the against-the-best table compares with the best other scheme '
                        'of each cell; its variants (SCHEME-*) are left out of the others '
                        '(default: talb)')
    p.add_argument('--no-plots', action='store_true', help='do not draw PNG plots')
    p.add_argument('--format', choices=('table', 'csv', 'markdown'), default='table',
                   help='how tables are printed (default: table); CSV files are always saved')
    args = p.parse_args(argv)
    if args.warmup < 0:
        p.error('--warmup must be >= 0, got %d' % args.warmup)
    return args


def build(data, keys, baseline, warmup, scheme='talb', each_cell=None):
    """Every table of the report, by section key (``each_cell``: see stats.flow_tables)."""
    flows = stats.flow_tables(data, keys, each_cell)
    fct = stats.add_fct_reduction(flows['fct'], keys, baseline)
    by_priority, by_size = flows['fct_priority'], flows['fct_size']
    tensor, tensor_detail = stats.tensor_tables(data, keys)
    iteration = stats.iteration_table(data, keys, baseline, warmup)
    runs = runs_table(data).join(stats.run_iteration_times(data, warmup))
    cells = stats.cell_table(data, keys, iteration, fct, flows)
    return {
        'cells': cells,
        'talb_vs_best': _with_transport(
            stats.talb_vs_best(cells, keys, talb=scheme, baseline=baseline), data.runs),
        'fct': fct, 'fct_priority': by_priority, 'fct_size': by_size, 'tensor': tensor,
        'iteration': iteration, 'headline': stats.headline(fct, iteration, keys, baseline),
        'collectives': stats.collective_table(data, keys, warmup),
        'link_losses': stats.link_loss_table(data, keys),
        'tensor_detail': tensor_detail, 'runs': runs,
        # With the transport, so that a family's cells over TCP and over RDMA stay apart when
        # talb-evaluate.sh --merge-doc merges a report of some of its parts into the committed one.
        'cells_brief': _with_transport(
            cells[list(keys) + list(BRIEF_COLUMNS)].round(BRIEF_COLUMNS), data.runs),
    }


def _with_transport(table, runs):
    """``table`` with a ``transport`` column first where its keys lack one and every run used the
    same transport: talb-goals.py counts the goals per family and transport, and a merge keeps
    the cells of one transport apart from the other's."""
    if 'transport' in table.columns or 'transport' not in runs.columns:
        return table
    used = runs['transport'].dropna().unique()
    if len(used) != 1:
        return table
    table.insert(0, 'transport', used[0])
    return table


def runs_table(data):
    """The runs as runs.csv has them: each folder relative to the folder the report read, so the
    table means the same on any machine; without the runner's ``out`` parameter, which for a
    sweep names the temporary folder the sweep later moved the run from."""
    runs = data.runs.drop(columns=['out'], errors='ignore')
    return runs.assign(path=[os.path.relpath(p, data.root) for p in runs['path']])


def shown(path):
    """A folder as the report prints it: relative to the working folder when it lies below it."""
    relative = os.path.relpath(path)
    return path if relative == os.pardir or relative.startswith(os.pardir + os.sep) else relative


def _cell(value):
    if isinstance(value, float):
        return '-' if math.isnan(value) else '%.3f' % value
    return str(value)


def format_table(table, fmt):
    if fmt == 'csv':
        return table.to_csv(index=False, float_format='%.10g').rstrip('\n')
    if table.empty:
        return '(no rows)'
    if fmt == 'markdown':
        lines = ['| ' + ' | '.join(map(str, table.columns)) + ' |',
                 '|' + '|'.join('---:' if pd.api.types.is_numeric_dtype(table[c]) else '---'
                                for c in table.columns) + '|']
        for row in table.itertuples(index=False):
            lines.append('| ' + ' | '.join(_cell(v) for v in row) + ' |')
        return '\n'.join(lines)
    return table.to_string(index=False, na_rep='-', float_format=lambda v: '%.3f' % v)


def headline_sentences(headline, baseline):
    lines = []
    for row in headline.itertuples(index=False):
        parts = []
        if not _nan(row.max_fct_reduction_pct):
            parts.append('up to %.1f %% lower average FCT of all flows than %s (%s)'
                         % (row.max_fct_reduction_pct, baseline, row.fct_reduction_at))
        if not _nan(row.max_speedup):
            ci = ('' if _nan(row.speedup_lo) else
                  ', 95 %% CI [%.2f, %.2f]' % (row.speedup_lo, row.speedup_hi))
            parts.append('up to %.2fx training speedup over %s (%s%s)'
                         % (row.max_speedup, baseline, row.speedup_at, ci))
        if parts:
            lines.append('%s: %s' % (row.scheme, '; '.join(parts)))
    return lines


def _one_seed(iteration):
    """True when no group has two runs: every confidence interval would be empty."""
    return iteration.empty or iteration['runs'].max() < 2


def _warn_left_out(data, runs, warmup):
    """Says which runs the iteration tables leave out because every iteration they hold falls in
    the warm-up, rather than printing '(no rows)' alone."""
    if data.iterations.empty:
        return
    counted = set(data.iterations['run_id'])
    left_out = [str(p) for run_id, p in runs['path'].items()
                if run_id in counted and not runs.at[run_id, 'iterations_measured'] > 0]
    if left_out:
        warnings.warn(loading.TalbDataWarning(
            '%d run%s left out of iteration time and speedup: every iteration of %s falls '
            'within --warmup=%d (--warmup=0 counts them): %s'
            % (len(left_out), '' if len(left_out) == 1 else 's',
               'its jobs' if len(left_out) == 1 else 'their jobs', warmup,
               ', '.join(left_out))))


def _warn_unpaired_seeds(runs, keys):
    """Says which cells compare schemes over different seeds (a sweep stopped part-way): their
    means are not paired, so a difference between them may be the seeds'."""
    others = [k for k in keys if k != 'scheme']
    for cell, part in stats.groups(runs, others):
        seeds = part.groupby('scheme')['seed'].apply(lambda s: tuple(sorted(set(s))))
        if seeds.nunique() > 1:
            name = ', '.join('%s=%s' % kv for kv in zip(others, cell)) or 'the runs'
            warnings.warn(loading.TalbDataWarning(
                '%s: the schemes ran different seeds (%s): their means are not paired; '
                'finish the sweep (it resumes) before comparing them'
                % (name, '; '.join('%s: %s' % (scheme, ','.join(map(str, s)))
                                   for scheme, s in seeds.items()))))


def _nan(value):
    return value is None or (isinstance(value, float) and math.isnan(value))


def _show_warning(message, category, filename, lineno, file=None, line=None):
    print('talb-report: warning: %s' % message, file=sys.stderr)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    with warnings.catch_warnings():
        warnings.simplefilter('always', loading.TalbDataWarning)
        warnings.showwarning = _show_warning  # restored when the block ends
        return _report(args)


def _report(args):
    try:
        # A family's flows can outgrow memory (millions a run with background traffic): they
        # are read a cell at a time.
        data = loading.load(args.path, flows=False)
        requested = None
        if args.group_by is not None:
            requested = [k.strip() for k in args.group_by.split(',') if k.strip()]
        keys = stats.group_keys(data, requested, loading.read_sweep_axes(args.path))
        curves = None if args.no_plots else plots.FctCurves(data.runs, keys)
        tables = build(data, keys, args.baseline, args.warmup, args.scheme, curves)
    except loading.TalbDataError as e:
        print('talb-report: error: %s' % e, file=sys.stderr)
        return 2
    _warn_left_out(data, tables['runs'], args.warmup)
    _warn_unpaired_seeds(data.runs, keys)
    out = args.out or os.path.join(args.path, 'report')
    os.makedirs(out, exist_ok=True)

    schemes = sorted(data.runs['scheme'].unique())
    print('%d run%s under %s; schemes: %s; seeds: %s; grouped by: %s'
          % (len(data.runs), '' if len(data.runs) == 1 else 's', shown(args.path),
             ', '.join(schemes), ', '.join(map(str, sorted(data.runs['seed'].unique()))),
             ', '.join(keys)))
    if args.baseline not in schemes:
        print('baseline scheme %r is not among the runs: no FCT reduction or speedup'
              % args.baseline)
    one_seed = _one_seed(tables['iteration'])
    for key, filename, title in SECTIONS:
        if key in ('collectives', 'link_losses') and tables[key].empty:
            continue  # no graph job, no lost packet: the CSV alone (headers) says so
        print()
        title = title.format(scheme=args.scheme)
        if one_seed:
            title = title.replace('95 % CI across seeds', 'one seed: no CI').replace(
                '95 % CI', 'one seed: no CI')
        print(('# ' if args.format == 'csv' else '== ') + title)
        print(format_table(tables[key], args.format))
        if key == 'headline':
            for line in headline_sentences(tables[key], args.baseline):
                print(('# ' if args.format == 'csv' else '') + line)
    for key, filename in [(k, f) for k, f, _ in SECTIONS] + EXTRA_CSVS:
        tables[key].to_csv(os.path.join(out, filename), index=key == 'runs',
                           float_format='%.10g')
    if not args.no_plots:
        written = curves.draw(out)
        written += plots.iteration_time(tables['iteration'], keys, out, args.plot_x)
        written += plots.priority_tail(tables['fct_priority'], keys, out)
    else:
        written = []
    print()
    print('%d CSV tables and %d plots saved in %s'
          % (len(SECTIONS) + len(EXTRA_CSVS), len(written), shown(out)))
    return 0
