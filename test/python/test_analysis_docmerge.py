"""analysis/talb-merge-doc.py: a family's committed tables updated cell by cell from a report."""
import os
import subprocess
import sys

import pandas as pd
import pytest

from conftest import ROOT
from talb_analysis import docmerge
from talb_analysis.loading import TalbDataError

SCRIPT = os.path.join(ROOT, 'analysis', 'talb-merge-doc.py')
JOBS = '"model=llama3-8b,tp=8,pp=2,dp=8"'

# A committed llm-like family over RDMA: its cells_brief.csv predates the transport column.
BRIEF = ('scheme,leaves,oversubscription,jobs,runs,iter_ms_mean\n'
         'ecmp,8,1,%(j)s,5,4.5\n'
         'ecmp,16,1,%(j)s,5,8.8\n'
         'talb,8,1,%(j)s,5,4.5\n'
         'talb,16,1,%(j)s,5,4.51\n') % {'j': JOBS}
VS_BEST = ('transport,leaves,oversubscription,jobs,talb_iter_ms,best_scheme,iter_gap_pct\n'
           'rdma,8,1,%(j)s,4.454021,ecmp,0\n'
           'rdma,16,1,%(j)s,4.5085,ecmp,-48.8\n') % {'j': JOBS}


def committed(tmp_path):
    doc = tmp_path / 'doc' / 'llm'
    doc.mkdir(parents=True)
    (doc / 'cells_brief.csv').write_text(BRIEF)
    (doc / 'talb_vs_best.csv').write_text(VS_BEST)
    (doc / 'iteration_time_leaves=16.png').write_text('committed figure')
    (doc / 'iteration_time_leaves=8.png').write_text('committed figure')
    return doc


def report(tmp_path, brief, vs_best, figures=()):
    out = tmp_path / 'report'
    out.mkdir()
    (out / 'cells_brief.csv').write_text(brief)
    (out / 'talb_vs_best.csv').write_text(vs_best)
    for name in figures:
        (out / name).write_text('new figure')
    return out


def test_a_new_transport_joins_the_committed_rows_which_stay_as_they_were(tmp_path):
    doc = committed(tmp_path)
    new = report(tmp_path,
                 'transport,scheme,leaves,oversubscription,jobs,runs,iter_ms_mean\n'
                 'tcp,ecmp,16,1,%(j)s,3,17.7\n'
                 'tcp,talb,16,1,%(j)s,3,4.47\n' % {'j': JOBS},
                 'transport,leaves,oversubscription,jobs,talb_iter_ms,best_scheme,iter_gap_pct\n'
                 'tcp,16,1,%(j)s,4.473,drill,0.1\n' % {'j': JOBS},
                 figures=['iteration_time_leaves=16.png'])
    lines = docmerge.merge_family(str(doc), str(new), [
        'cells_brief.csv', 'talb_vs_best.csv', 'iteration_time_leaves=16.png',
        'iteration_time_leaves=8.png'])
    assert lines == ['cells_brief.csv: 0 cells replaced, 1 added, 2 kept',
                     'talb_vs_best.csv: 0 cells replaced, 1 added, 2 kept',
                     "iteration_time_leaves=16.png: the report's",
                     'iteration_time_leaves=8.png: kept (the report has no such figure)']
    # The committed rows, named rdma (their talb_vs_best's one transport), text unchanged; the
    # rows sorted by their keys, 8 before 16.
    assert (doc / 'cells_brief.csv').read_text() == (
        'transport,scheme,leaves,oversubscription,jobs,runs,iter_ms_mean\n'
        'rdma,ecmp,8,1,%(j)s,5,4.5\n'
        'rdma,ecmp,16,1,%(j)s,5,8.8\n'
        'rdma,talb,8,1,%(j)s,5,4.5\n'
        'rdma,talb,16,1,%(j)s,5,4.51\n'
        'tcp,ecmp,16,1,%(j)s,3,17.7\n'
        'tcp,talb,16,1,%(j)s,3,4.47\n') % {'j': JOBS}
    assert (doc / 'talb_vs_best.csv').read_text() == VS_BEST + (
        'tcp,16,1,%(j)s,4.473,drill,0.1\n' % {'j': JOBS})
    assert (doc / 'iteration_time_leaves=16.png').read_text() == 'new figure'
    assert (doc / 'iteration_time_leaves=8.png').read_text() == 'committed figure'


def test_the_cells_a_report_has_replace_every_row_of_theirs(tmp_path):
    doc = committed(tmp_path)
    # Seeds added to the 16-leaf cell, whose only schemes are now ECMP and TaLB: any row of
    # another scheme in that cell (none here) would go too, not only the schemes rerun.
    new = report(tmp_path,
                 'transport,scheme,leaves,oversubscription,jobs,runs,iter_ms_mean\n'
                 'rdma,talb,16,1,%(j)s,7,4.6\n' % {'j': JOBS},
                 'transport,leaves,oversubscription,jobs,talb_iter_ms,best_scheme,iter_gap_pct\n'
                 'rdma,16,1,%(j)s,4.6,talb,-1\n' % {'j': JOBS})
    docmerge.merge_family(str(doc), str(new), ['cells_brief.csv', 'talb_vs_best.csv'])
    brief = pd.read_csv(doc / 'cells_brief.csv')
    assert list(zip(brief['scheme'], brief['leaves'], brief['runs'])) == [
        ('ecmp', 8, 5), ('talb', 8, 5), ('talb', 16, 7)]
    vs = pd.read_csv(doc / 'talb_vs_best.csv')
    assert list(zip(vs['leaves'], vs['talb_iter_ms'])) == [(8, 4.454021), (16, 4.6)]


def test_tables_named_by_other_columns_are_not_merged_and_nothing_is_written(tmp_path):
    doc = committed(tmp_path)
    new = report(tmp_path,
                 'transport,scheme,oversubscription,runs,iter_ms_mean\nrdma,talb,1,3,4.6\n',
                 'transport,oversubscription,talb_iter_ms,best_scheme,iter_gap_pct\n'
                 'rdma,1,4.6,talb,-1\n', figures=['iteration_time_leaves=16.png'])
    with pytest.raises(TalbDataError, match=r'cells_brief.csv: its rows are named by transport, '
                       r'scheme, leaves, oversubscription, jobs, the new report.s by transport, '
                       r'scheme, oversubscription.*--replace-doc'):
        docmerge.merge_family(str(doc), str(new), ['iteration_time_leaves=16.png',
                                                   'cells_brief.csv', 'talb_vs_best.csv'])
    assert (doc / 'cells_brief.csv').read_text() == BRIEF
    assert (doc / 'iteration_time_leaves=16.png').read_text() == 'committed figure'


def test_a_table_without_a_value_column_or_a_transport_to_take_is_named(tmp_path):
    with pytest.raises(TalbDataError, match='x.csv: not a per-cell table'):
        docmerge.key_columns(pd.DataFrame({'a': [1]}), 'x.csv')
    old = pd.read_csv(pd.io.common.StringIO(BRIEF), dtype=str)
    new = old.assign(transport='tcp')[['transport'] + list(old.columns)]
    with pytest.raises(TalbDataError, match='c.csv: has no transport column'):
        docmerge.merge(old, new, 'c.csv', transport=None)


def test_group_by_names_the_committed_cells_transport_first(tmp_path):
    doc = committed(tmp_path)
    assert docmerge.group_by(str(doc)) == ['transport', 'leaves', 'oversubscription', 'jobs']
    assert docmerge.group_by(str(tmp_path / 'nothing')) is None


def test_script_prints_what_it_did_and_errors_name_the_file(tmp_path):
    doc = committed(tmp_path)
    r = subprocess.run([sys.executable, SCRIPT, '--group-by', str(doc)], capture_output=True,
                       text=True)
    assert (r.returncode, r.stdout) == (0, 'transport,leaves,oversubscription,jobs\n')
    new = report(tmp_path, BRIEF, VS_BEST)
    r = subprocess.run([sys.executable, SCRIPT, str(doc), str(new)], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ('talb-merge-doc: llm/cells_brief.csv: 2 cells replaced, 0 added, 0 kept\n'
                        'talb-merge-doc: llm/talb_vs_best.csv: 2 cells replaced, 0 added, '
                        '0 kept\n')
    r = subprocess.run([sys.executable, SCRIPT, str(doc), str(new), 'no_such.csv'],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr == 'talb-merge-doc: error: %s: the report did not write it\n' % (
        new / 'no_such.csv')
    r = subprocess.run([sys.executable, SCRIPT, str(doc)], capture_output=True, text=True)
    assert r.returncode == 2 and 'give REPORT_DIR, or --group-by alone' in r.stderr
    # A family with nothing committed and no file named: nothing to merge.
    r = subprocess.run([sys.executable, SCRIPT, str(tmp_path / 'none'), str(new)],
                       capture_output=True, text=True)
    assert (r.returncode, r.stdout, r.stderr) == (0, '', '')


def test_missing_names_the_committed_cells_a_report_lacks(tmp_path):
    doc = committed(tmp_path)
    # The report names its cells by one column more (bgLoad): compared by the common ones.
    new = report(tmp_path, BRIEF,
                 'transport,leaves,oversubscription,jobs,bgLoad,talb_iter_ms\n'
                 'rdma,16,1,%(j)s,0,4.5\n' % {'j': JOBS})
    gone, everything = docmerge.missing_cells(str(doc), str(new))
    assert (gone, everything) == ([('rdma', '8', '1', JOBS.strip('"'))], 2)
    r = subprocess.run([sys.executable, SCRIPT, '--missing', str(doc), str(new)],
                       capture_output=True, text=True)
    assert (r.returncode, r.stdout) == (0, '1 2 rdma,8,1,%s\n' % JOBS.strip('"'))
    # Every cell there, or nothing committed: nothing printed.
    (new / 'talb_vs_best.csv').write_text(VS_BEST)
    assert docmerge.missing_cells(str(doc), str(new)) == ([], 2)
    assert docmerge.missing_cells(str(tmp_path / 'none'), str(new)) == ([], 0)
    r = subprocess.run([sys.executable, SCRIPT, '--missing', str(doc)], capture_output=True,
                       text=True)
    assert r.returncode == 2 and '--missing needs REPORT_DIR, and not --group-by' in r.stderr
    (new / 'talb_vs_best.csv').write_text('a,b\n1,2\n')
    r = subprocess.run([sys.executable, SCRIPT, '--missing', str(doc), str(new)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and 'talb_vs_best.csv: not a per-cell table' in r.stderr
