"""talb-merge-doc: a family's committed doc tables updated, cell by cell, from a new report.

A cell (one fabric, job, load and transport: a row of talb_vs_best.csv, a scheme's row of
cells_brief.csv) is summarised from its own runs only, so the cells a report of some of a family's
parts has can replace those rows of the committed tables while the other rows stay as committed:
a rerun part, added seeds or a new transport need not rerun the whole family. Figures are named by
their cell: a report's figure replaces the committed one, the others stay.
"""
import argparse
import os
import shutil
import sys

import pandas as pd

from .loading import TalbDataError

# The first value column of each per-cell table: the columns before it name the row.
FIRST_VALUE = ('runs', 'talb_iter_ms')


def read_table(path):
    """A CSV as text, so that the rows a merge keeps are written back as they were read."""
    try:
        return pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, ValueError) as e:
        raise TalbDataError('%s: not a CSV table (%s)' % (path, e))


def key_columns(table, path):
    """The columns that name a row: those before the table's first value column."""
    for name in FIRST_VALUE:
        if name in table.columns:
            return list(table.columns[:list(table.columns).index(name)])
    raise TalbDataError('%s: not a per-cell table (no column %s)'
                        % (path, ' or '.join(FIRST_VALUE)))


def _natural(value):
    try:
        return (0, float(value), '')
    except ValueError:
        return (1, 0.0, value)


def merge(committed, new, committed_path, transport=None):
    """``new``'s rows, and ``committed``'s rows of the cells ``new`` lacks, sorted by their keys.

    A committed table that lacks the ``transport`` key ``new`` has (one written before reports
    named it) takes ``transport``: the one transport of its family's committed talb_vs_best.csv.
    Returns the merged table and the cells (tuples of the cell columns) replaced, added and
    kept."""
    keys = key_columns(new, 'the new report\'s ' + os.path.basename(committed_path))
    old_keys = key_columns(committed, committed_path)
    if 'transport' in keys and 'transport' not in old_keys:
        if transport is None:
            raise TalbDataError('%s: has no transport column and its family\'s talb_vs_best.csv '
                                'names no single transport to take it from'
                                % committed_path)
        committed = committed.copy()
        committed.insert(0, 'transport', transport)
        old_keys = ['transport'] + old_keys
    if sorted(keys) != sorted(old_keys):
        raise TalbDataError(
            '%s: its rows are named by %s, the new report\'s by %s: a merge needs the same '
            '(talb-evaluate.sh --merge-doc groups the report by the committed columns; or '
            'replace the table: --replace-doc)'
            % (committed_path, ', '.join(old_keys), ', '.join(keys)))
    cell = [k for k in keys if k != 'scheme']

    def cells(table):
        return [tuple(row) for row in table[cell].itertuples(index=False)]

    new_cells, old_cells = set(cells(new)), cells(committed)
    kept = committed[[c not in new_cells for c in old_cells]]
    # The committed layout stays (a merge changes rows, not the look of a table).
    columns = list(committed.columns) + [c for c in new.columns if c not in committed.columns]
    merged = pd.concat([kept, new], ignore_index=True).reindex(columns=columns).fillna('')
    order = sorted(range(len(merged)),
                   key=lambda i: [_natural(merged.at[i, k]) for k in keys])
    merged = merged.iloc[order].reset_index(drop=True)
    old_set = set(old_cells)
    return merged, {'replaced': sorted(new_cells & old_set), 'added': sorted(new_cells - old_set),
                    'kept': sorted(set(cells(kept)))}


def _single_transport(doc):
    path = os.path.join(doc, 'talb_vs_best.csv')
    if not os.path.exists(path):
        return None
    table = read_table(path)
    if 'transport' not in table.columns:
        return None
    used = table['transport'].unique()
    return used[0] if len(used) == 1 else None


def merge_family(doc, report, names):
    """Update ``doc`` (a family's committed folder) from ``report`` (a new report's folder): each
    of ``names`` that is a CSV merged cell by cell, each figure the report wrote copied. Returns
    one line per file saying what happened; raises TalbDataError naming a file it cannot
    merge (nothing is written then)."""
    transport = _single_transport(doc)
    written, lines = {}, []
    for name in names:
        mine, theirs = os.path.join(doc, name), os.path.join(report, name)
        if not name.endswith('.csv'):
            if os.path.exists(theirs):
                written[name] = theirs
                lines.append('%s: the report\'s' % name)
            elif os.path.exists(mine):
                lines.append('%s: kept (the report has no such figure)' % name)
            else:
                raise TalbDataError('%s: neither the report (%s) nor the committed folder has it'
                                    % (name, report))
            continue
        if not os.path.exists(theirs):
            raise TalbDataError('%s: the report did not write it' % theirs)
        new = read_table(theirs)
        if not os.path.exists(mine):
            written[name] = new
            lines.append('%s: the report\'s (nothing committed)' % name)
            continue
        merged, how = merge(read_table(mine), new, mine, transport)
        written[name] = merged
        lines.append('%s: %d cells replaced, %d added, %d kept'
                     % (name, len(how['replaced']), len(how['added']), len(how['kept'])))
    os.makedirs(doc, exist_ok=True)
    for name, what in written.items():
        if isinstance(what, str):
            shutil.copyfile(what, os.path.join(doc, name))
        else:
            what.to_csv(os.path.join(doc, name), index=False)
    return lines


def group_by(doc):
    """The run parameters that name the cells of ``doc``'s committed talb_vs_best.csv (the
    report's --group-by for a merge), or None where nothing is committed."""
    path = os.path.join(doc, 'talb_vs_best.csv')
    if not os.path.exists(path):
        return None
    # Always by transport: a report of parts over both transports must not pool them, even
    # where the committed tables name one (a column the report would otherwise add itself).
    keys = key_columns(read_table(path), path)
    return ['transport'] + [k for k in keys if k != 'transport']


def missing_cells(doc, report):
    """The cells ``doc``'s committed talb_vs_best.csv has and ``report``'s lacks (compared by the
    columns the two name cells by), as tuples, and how many cells the committed table has.
    Nothing is missing where either table is absent: a first report replaces nothing."""
    mine, theirs = (os.path.join(d, 'talb_vs_best.csv') for d in (doc, report))
    if not (os.path.exists(mine) and os.path.exists(theirs)):
        return [], 0
    committed, new = read_table(mine), read_table(theirs)
    old_keys, new_keys = key_columns(committed, mine), key_columns(new, theirs)
    common = [k for k in old_keys if k in new_keys]

    def cells(table):
        return {tuple(row) for row in table[common].itertuples(index=False)}

    old = cells(committed)
    return sorted(old - cells(new)), len(old)


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog='talb-merge-doc.py',
        description='Update a family\'s committed tables (doc/evaluation/FAMILY) from a new '
                    'report of some of its parts, cell by cell: the rows of the cells the report '
                    'has are replaced or added, the others kept as committed; the figures the '
                    'report wrote replace the committed ones.')
    p.add_argument('doc', metavar='DOC_FAMILY_DIR', help='the committed folder, e.g. '
                   'doc/evaluation/llm')
    p.add_argument('report', nargs='?', metavar='REPORT_DIR',
                   help='the new report (talb-report.py --out); not with --group-by')
    p.add_argument('names', nargs='*', metavar='NAME',
                   help='the files to update (default: every CSV of the committed folder)')
    p.add_argument('--group-by', action='store_true',
                   help='print the run parameters to group the report by (its --group-by) so '
                        'that its cells are named as the committed ones, and exit')
    p.add_argument('--missing', action='store_true',
                   help='print nothing where REPORT_DIR\'s talb_vs_best.csv has every cell the '
                        'committed one has; else "N ALL FIRST": how many of the committed ALL '
                        'cells it lacks, and the first of them (comma-separated); write nothing')
    args = p.parse_args(argv)
    if args.missing and (args.report is None or args.group_by):
        p.error('--missing needs REPORT_DIR, and not --group-by')
    if (args.report is None) != args.group_by:
        p.error('give REPORT_DIR, or --group-by alone')
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        if args.group_by:
            keys = group_by(args.doc)
            if keys is not None:
                print(','.join(keys))
            return 0
        if args.missing:
            gone, everything = missing_cells(args.doc, args.report)
            if gone:
                print(len(gone), everything, ','.join(gone[0]))
            return 0
        names = args.names or sorted(n for n in (os.listdir(args.doc) if os.path.isdir(args.doc)
                                                 else []) if n.endswith('.csv'))
        for line in merge_family(args.doc, args.report, names):
            print('talb-merge-doc: %s/%s' % (os.path.basename(os.path.normpath(args.doc)), line))
    except TalbDataError as e:
        print('talb-merge-doc: error: %s' % e, file=sys.stderr)
        return 2
    return 0
