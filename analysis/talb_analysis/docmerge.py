"""talb-merge-doc: a family's committed doc tables updated, cell by cell, from a new report.

A cell (one fabric, job, load and transport: a row of talb_vs_best.csv, a scheme's row of
cells_brief.csv) is summarised from its own runs only, so the cells a report of some of a family's
parts has can replace those rows of the committed tables while the other rows stay as committed:
a rerun part, added seeds or a new transport need not rerun the whole family. Figures are named by
their cell: a report's figure replaces the committed one, the others stay.

A scheme run beside the committed ones (with ECMP, which must reproduce its committed rows) is
added instead (:func:`add_schemes`): its rows join the committed cells, whose other rows stay.
"""
import argparse
import math
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
    committed = _with_transport(committed, keys, committed_path, transport)
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


def _with_transport(committed, keys, path, transport):
    """``committed`` and its row-naming columns, with the ``transport`` column that ``keys`` (the
    new report's) has and it lacks taken from the family's one transport (see :func:`merge`)."""
    old_keys = key_columns(committed, path)
    if 'transport' in keys and 'transport' not in old_keys:
        if transport is None:
            raise TalbDataError('%s: has no transport column and its family\'s talb_vs_best.csv '
                                'names no single transport to take it from' % path)
        committed = committed.copy()
        committed.insert(0, 'transport', transport)
        old_keys = ['transport'] + old_keys
    if sorted(keys) != sorted(old_keys):
        raise TalbDataError(
            '%s: its rows are named by %s, the new report\'s by %s: a merge needs the same '
            '(talb-evaluate.sh --merge-doc groups the report by the committed columns; or '
            'replace the table: --replace-doc)'
            % (path, ', '.join(old_keys), ', '.join(keys)))
    return committed


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


def _number(text):
    """A committed value as a float (NaN where the table left it empty)."""
    return float(text) if text not in ('', 'nan', 'NaN') else math.nan


def _text(value):
    return '%.10g' % value  # as talb-report.py writes its tables


def _lower(value, scheme, best, best_scheme):
    """Whether (``value``, ``scheme``) comes before the committed best: the lower value, on a tie
    the scheme first by name (the row a report's ``idxmin`` finds first)."""
    if math.isnan(value):
        return False
    if best_scheme == '' or math.isnan(best):
        return True
    return (value, scheme) < (best, best_scheme)


def add_rivals(row, rivals, talb='talb'):
    """``row`` (a committed talb_vs_best.csv row, as text) with ``rivals`` (the added schemes'
    full rows of a report's cells.csv, as floats) among the other schemes: where one of them
    is the new best of a column, that column's best, gap and verdict are rewritten as
    talb-report.py would write them; the other values keep their committed text. Schemes named
    ``talb`` or ``talb-*`` are never rivals. Returns the columns changed."""
    changed = set()

    def put(column, value):
        if column in row and row[column] != value:
            row[column] = value
            changed.add(column)

    rivals = [r for r in rivals if not str(r['scheme']).startswith(talb)]
    mine = _number(row['talb_iter_ms'])
    for r in sorted(rivals, key=lambda r: str(r['scheme'])):
        if _lower(r['iter_ms_mean'], r['scheme'], _number(row['best_iter_ms']),
                  row['best_scheme']):
            put('best_scheme', r['scheme'])
            put('best_iter_ms', _text(r['iter_ms_mean']))
            put('iter_gap_pct', _text(100.0 * (mine / r['iter_ms_mean'] - 1.0)))
        hiprio = _number(row.get('talb_hiprio_p99_us', ''))
        if not math.isnan(hiprio) and _lower(r.get('hiprio_fct_p99_us', math.nan), r['scheme'],
                                             _number(row.get('best_hiprio_p99_us', '')),
                                             row.get('best_hiprio_scheme', '')):
            put('best_hiprio_scheme', r['scheme'])
            put('best_hiprio_p99_us', _text(r['hiprio_fct_p99_us']))
            put('hiprio_best', str(bool(hiprio <= r['hiprio_fct_p99_us'])))
        own = _number(row.get('talb_hiprio_own_p99_us', ''))
        theirs = r.get('hiprio_own_p99_us', math.nan)
        best_own = _number(row.get('best_hiprio_own_p99_us', ''))
        if (not math.isnan(own) and not math.isnan(r.get('hiprio_fct_p99_us', math.nan))
                and not math.isnan(theirs) and (math.isnan(best_own) or theirs < best_own)):
            put('best_hiprio_own_p99_us', _text(theirs))
            put('hiprio_own_best', str(bool(own <= theirs)))
        jct = _number(row.get('talb_jct_ms', ''))
        if not math.isnan(jct) and _lower(
                r.get('jct_ms_mean', math.nan), r['scheme'], _number(row.get('best_jct_ms', '')),
                row.get('best_jct_scheme', '')):
            put('best_jct_scheme', r['scheme'])
            put('best_jct_ms', _text(r['jct_ms_mean']))
            put('jct_gap_pct', _text(100.0 * (jct / r['jct_ms_mean'] - 1.0)))
    if changed & {'iter_gap_pct', 'hiprio_best'} and 'loses' in row:
        put('loses', str(bool(_number(row['iter_gap_pct']) > 2.0 or row['hiprio_best'] == 'False')))
    return changed


def _cell_rows(table, cell):
    return {tuple(r[c] for c in cell): r for r in table.to_dict('records')}


def _schemes_report(doc, report, baseline, refuse, beside):
    """What :func:`add_schemes` and :func:`rerun_talb` read first: ``report``'s cells.csv, its
    cells' row-naming columns, its rows by (cell..., scheme), the schemes of each cell, and
    ``doc``'s one transport. ``refuse(scheme)`` names why a scheme may not be in the report (or
    None); each cell needs the ``baseline`` (run beside ``beside``)."""
    full_path = os.path.join(report, 'cells.csv')
    if not os.path.exists(full_path):
        raise TalbDataError('%s: the report did not write it' % full_path)
    full = read_table(full_path)
    cell = [k for k in key_columns(full, full_path) if k != 'scheme']
    reported = _cell_rows(full, cell + ['scheme'])
    by_cell = {}
    for key in reported:
        why = refuse(key[-1])
        if why:
            raise TalbDataError('%s: has %s in cell %s: %s'
                                % (full_path, key[-1], ','.join(key[:-1]), why))
        by_cell.setdefault(key[:-1], set()).add(key[-1])
    for key, schemes in sorted(by_cell.items()):
        if baseline not in schemes:
            raise TalbDataError('%s: cell %s has no %s row: run %s beside %s (it measures their '
                                'speedup and FCT reduction, and must reproduce the committed rows)'
                                % (full_path, ','.join(key), baseline, baseline, beside))
    return cell, reported, by_cell, _single_transport(doc)


def _update_tables(doc, names, cell, transport, update, figures):
    """Each of ``names`` in ``doc`` updated by ``update[name](committed table, path)``
    (cells_brief.csv first), which returns the new table and what it did; figures kept
    (``figures`` says why). Writes nothing unless every table could be updated."""
    written, lines = {}, []
    for name in sorted(names, key=lambda n: n != 'cells_brief.csv'):
        mine = os.path.join(doc, name)
        if not name.endswith('.csv'):
            lines.append('%s: kept (%s)' % (name, figures))
            continue
        if name not in update:
            raise TalbDataError('%s: only cells_brief.csv and talb_vs_best.csv can be updated '
                                'this way' % mine)
        if not os.path.exists(mine):
            raise TalbDataError('%s: nothing committed to update' % mine)
        keys = cell + (['scheme'] if name == 'cells_brief.csv' else [])
        written[name], what = update[name](
            _with_transport(read_table(mine), keys, mine, transport), mine)
        lines.append('%s: %s' % (name, what))
    os.makedirs(doc, exist_ok=True)
    for name, table in written.items():
        table.to_csv(os.path.join(doc, name), index=False)
    return lines


def add_schemes(doc, report, names, baseline='ecmp', talb='talb'):
    """Update ``doc`` (a family's committed folder) from ``report``, a report of schemes run
    beside the committed ones in cells the family has (a baseline of its paper's settings, a
    new balancer): their rows join cells_brief.csv, and talb_vs_best.csv takes them among the
    other schemes (:func:`add_rivals`) from the report's cells.csv. Every scheme the report has
    that the committed cell has too must reproduce its committed row, and each cell needs the
    ``baseline``'s (it measures the added rows' speedup and FCT reduction); TaLB itself cannot be
    added (its rows define the cell: merge the cell whole). Figures stay as committed (the
    report's would show the added schemes alone). Returns one line per file; raises
    TalbDataError naming what is wrong (nothing is written then)."""
    cell, reported, by_cell, transport = _schemes_report(
        doc, report, baseline, lambda scheme: (
            "a rerun of TaLB changes the cell, so merge it whole (--merge-doc)"
            if scheme == talb else None), 'the added schemes')
    added = None  # (cell, scheme) pairs cells_brief.csv lacked, once it is read

    def brief(committed, path):
        nonlocal added
        merged, added = _brief_rows(committed, report, cell, path, lambda scheme: False,
                                    'a rerun, not an addition (merge the cell whole: --merge-doc)')
        return merged, '%d rows added (%s), %d cells' % (
            len(added), ', '.join(sorted({s for _, s in added})), len({c for c, _ in added}))

    def vs_best(committed, path):
        rows = committed.to_dict('records')
        changed = cells = 0
        for row in rows:
            key = tuple(row[c] for c in cell)
            if key not in by_cell:
                continue
            cells += 1
            _check_baseline(row, reported[key + (baseline,)], baseline, key, path)
            schemes = by_cell[key] if added is None else {s for c, s in added if c == key}
            rivals = [_floats(reported[key + (s,)]) for s in sorted(schemes)]
            changed += bool(add_rivals(row, rivals, talb) & {'best_scheme', 'best_hiprio_scheme'})
        # A cell of cells_brief.csv without a TaLB row has no row here; without
        # cells_brief.csv to say so, a cell missing here may be a new one.
        missing = set(by_cell) - {tuple(r[c] for c in cell) for r in rows}
        if missing and added is None:
            raise TalbDataError('%s: has no cell %s: a new cell needs every scheme (merge it '
                                'whole: --merge-doc)' % (path, ','.join(sorted(missing)[0])))
        return (pd.DataFrame(rows, columns=committed.columns),
                '%d cells, a new best in %d' % (cells, changed))

    return _update_tables(doc, names, cell, transport,
                          {'cells_brief.csv': brief, 'talb_vs_best.csv': vs_best},
                          'a report of added schemes draws them alone')


def rerun_talb(doc, report, names, baseline='ecmp', talb='talb'):
    """Update ``doc`` from ``report``, a report of TaLB (and its ``talb-*`` variants) rerun with
    ``baseline`` beside it in cells the family has -- a TaLB default changed, say -- without
    rerunning the cells' other schemes: TaLB's rows of cells_brief.csv are replaced (variants
    replaced or added); in talb_vs_best.csv TaLB's columns come from the report's (measured
    against the rerun ``baseline``) and its gaps and verdicts are recomputed against the
    committed best of the other schemes, which stay. The ``baseline`` must reproduce its
    committed rows; other schemes are refused. Figures stay as committed. Returns one line per
    file; raises TalbDataError naming what is wrong (nothing is written then)."""
    vs_path = os.path.join(report, 'talb_vs_best.csv')
    cell, reported, _, transport = _schemes_report(
        doc, report, baseline, lambda scheme: (
            'a TaLB rerun holds TaLB, its variants and %s only (add other schemes with '
            '--add-schemes)' % baseline
            if scheme != baseline and not scheme.startswith(talb) else None), 'TaLB')
    if not os.path.exists(vs_path):
        raise TalbDataError('%s: the report did not write it' % vs_path)
    ours = _cell_rows(read_table(vs_path), cell)

    def brief(committed, path):
        merged, replaced = _brief_rows(committed, report, cell, path,
                                       lambda scheme: scheme != baseline,
                                       'not the same runs (another build or seeds)')
        return merged, '%d rows replaced or added (%s), %d cells' % (
            len(replaced), ', '.join(sorted({s for _, s in replaced})),
            len({c for c, _ in replaced}))

    def vs_best(committed, path):
        rows = committed.to_dict('records')
        for key in sorted(set(ours) - {tuple(r[c] for c in cell) for r in rows}):
            raise TalbDataError('%s: has no cell %s: TaLB\'s first row in a cell needs every '
                                'scheme (merge it whole: --merge-doc)' % (path, ','.join(key)))
        verdicts = 0
        for row in rows:
            key = tuple(row[c] for c in cell)
            if key not in ours:
                continue
            _check_baseline(row, reported[key + (baseline,)], baseline, key, path)
            before = row.get('loses')
            take_talb(row, ours[key], path, key)
            verdicts += row.get('loses') != before
        return (pd.DataFrame(rows, columns=committed.columns),
                '%d cells, the verdict changed in %d' % (len(ours), verdicts))

    return _update_tables(doc, names, cell, transport,
                          {'cells_brief.csv': brief, 'talb_vs_best.csv': vs_best},
                          'a report of TaLB and %s draws them alone' % baseline)


# A talb_vs_best.csv row's columns: TaLB's own, and those compared with the best other scheme's.
TALB_COLUMNS = ('talb_iter_ms', 'talb_speedup', 'talb_fct_reduction_pct', 'talb_hiprio_p99_us',
                'talb_hiprio_own_p99_us', 'talb_jct_ms')


def take_talb(row, new, path, key):
    """``row`` (committed talb_vs_best.csv text) with TaLB's columns from ``new`` (the rerun's
    row, measured against the baseline only) and its gaps and verdicts against the committed
    best other scheme recomputed, as talb-report.py computes them."""
    for column in TALB_COLUMNS:
        if column in row:
            row[column] = new[column]
    mine = _number(row['talb_iter_ms'])
    row['iter_gap_pct'] = _text(100.0 * (mine / _number(row['best_iter_ms']) - 1.0))
    hiprio = _number(row.get('talb_hiprio_p99_us', ''))
    if 'hiprio_best' in row and not math.isnan(hiprio):
        best = _number(row['best_hiprio_p99_us'])
        if math.isnan(best) and row['best_hiprio_scheme'] == '':
            raise TalbDataError('%s: cell %s has no other scheme\'s priority 0-1 p99 to compare '
                                'TaLB\'s with (merge it whole: --merge-doc)'
                                % (path, ','.join(key)))
        row['hiprio_best'] = str(bool(hiprio <= best))
    own = _number(row.get('talb_hiprio_own_p99_us', ''))
    best_own = _number(row.get('best_hiprio_own_p99_us', ''))
    if 'hiprio_own_best' in row and not math.isnan(own) and not math.isnan(best_own):
        row['hiprio_own_best'] = str(bool(own <= best_own))
    if 'loses' in row:
        row['loses'] = str(bool(_number(row['iter_gap_pct']) > 2.0 or
                                row.get('hiprio_best') == 'False'))
    jct = _number(row.get('talb_jct_ms', ''))
    if 'jct_gap_pct' in row and not math.isnan(jct) and row['best_jct_ms'] != '':
        row['jct_gap_pct'] = _text(100.0 * (jct / _number(row['best_jct_ms']) - 1.0))


def _floats(row):
    out = dict(row)
    for column, value in row.items():
        if column != 'scheme':
            try:
                out[column] = float(value) if value != '' else math.nan
            except ValueError:
                pass
    return out


def _check_baseline(row, base, baseline, key, path):
    """The rerun baseline reproduces the committed cell: its mean iteration time is TaLB's times
    TaLB's committed speedup over it."""
    expected = _number(row['talb_iter_ms']) * _number(row['talb_speedup'])
    got = float(base['iter_ms_mean'])
    if not abs(got - expected) <= 1e-8 * abs(expected):
        raise TalbDataError('%s: the report\'s %s takes %.10g ms in cell %s, the committed one '
                            '%.10g: not the same runs (another build or seeds), so the added '
                            'schemes cannot join the committed ones'
                            % (path, baseline, got, ','.join(key), expected))


def _brief_rows(committed, report, cell, path, replaceable, hint):
    """cells_brief.csv with the report's rows: a scheme the committed cell lacks joins it, one it
    has stays where the report's row equals the committed one and is replaced where it differs
    and ``replaceable(scheme)``; any other difference is an error (``hint`` says what to do), as
    is a cell the committed table lacks. Returns the table, sorted as :func:`merge` sorts, and
    the (cell, scheme) rows taken."""
    brief = read_table(os.path.join(report, 'cells_brief.csv'))
    keys = cell + ['scheme']
    old = _cell_rows(committed, keys)
    old_cells = {k[:-1] for k in old}
    taken, new_rows = [], []
    for row in brief.to_dict('records'):
        key = tuple(row[c] for c in keys)
        if key[:-1] not in old_cells:
            raise TalbDataError('%s: has no cell %s: a new cell needs every scheme (merge it '
                                'whole: --merge-doc)' % (path, ','.join(key[:-1])))
        if key in old:
            differ = [c for c in committed.columns if c in row and row[c] != old[key][c]]
            if not differ:
                continue
            if not replaceable(key[-1]):
                raise TalbDataError(
                    '%s: %s in cell %s: the report\'s %s is %s, the committed %s: %s'
                    % (path, key[-1], ','.join(key[:-1]), differ[0], row[differ[0]],
                       old[key][differ[0]], hint))
        taken.append(key)
        new_rows.append(row)
    gone = set(taken)
    kept = committed[[tuple(r) not in gone for r in committed[keys].itertuples(index=False)]]
    merged = pd.concat([kept, pd.DataFrame(new_rows, columns=brief.columns)],
                       ignore_index=True).reindex(columns=committed.columns).fillna('')
    order = sorted(range(len(merged)), key=lambda i: [
        _natural(merged.at[i, k]) for k in key_columns(brief, 'the report\'s cells_brief.csv')])
    return merged.iloc[order].reset_index(drop=True), [(k[:-1], k[-1]) for k in taken]


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
    p.add_argument('--add-schemes', action='store_true',
                   help='the report holds schemes run beside the committed ones in cells the '
                        'family has, with ecmp rerun beside them (its rows must reproduce the '
                        'committed ones): add their rows to cells_brief.csv and take them among '
                        'the other schemes of talb_vs_best.csv; the committed rows and figures '
                        'stay. Refused for TaLB\'s own rows and for new cells (merge those whole)')
    p.add_argument('--rerun-talb', action='store_true',
                   help='the report holds TaLB (and talb-* variants) rerun with ecmp beside it in '
                        'cells the family has: replace TaLB\'s rows, recompute its gaps and '
                        'verdicts against the committed best of the other schemes; ecmp must '
                        'reproduce its committed rows')
    p.add_argument('--group-by', action='store_true',
                   help='print the run parameters to group the report by (its --group-by) so '
                        'that its cells are named as the committed ones, and exit')
    p.add_argument('--missing', action='store_true',
                   help='print nothing where REPORT_DIR\'s talb_vs_best.csv has every cell the '
                        'committed one has; else "N ALL FIRST": how many of the committed ALL '
                        'cells it lacks, and the first of them (comma-separated); write nothing')
    args = p.parse_args(argv)
    if args.add_schemes and args.rerun_talb:
        p.error('--add-schemes or --rerun-talb, not both')
    for flag in ('add_schemes', 'rerun_talb'):
        if getattr(args, flag) and (args.report is None or args.missing):
            p.error('--%s needs REPORT_DIR, and not --missing' % flag.replace('_', '-'))
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
        merged = (add_schemes if args.add_schemes else rerun_talb if args.rerun_talb
                  else merge_family)
        for line in merged(args.doc, args.report, names):
            print('talb-merge-doc: %s/%s' % (os.path.basename(os.path.normpath(args.doc)), line))
    except TalbDataError as e:
        print('talb-merge-doc: error: %s' % e, file=sys.stderr)
        return 2
    return 0
