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


# A committed family of one cell, TaLB 10 % ahead of ECMP and of the best other scheme, CONGA.
ADD_BRIEF = ('transport,scheme,leaves,runs,iter_ms_mean\n'
             'rdma,conga,8,5,9.5\n'
             'rdma,ecmp,8,5,11\n'
             'rdma,talb,8,5,9\n')
ADD_VS = ('transport,leaves,talb_iter_ms,talb_speedup,best_scheme,best_iter_ms,iter_gap_pct,'
          'talb_hiprio_p99_us,best_hiprio_scheme,best_hiprio_p99_us,hiprio_best,'
          'talb_hiprio_own_p99_us,best_hiprio_own_p99_us,hiprio_own_best,loses,talb_jct_ms,'
          'best_jct_scheme,best_jct_ms,jct_gap_pct\n'
          'rdma,8,9,1.222222222,conga,9.5,-5.263157895,40,conga,50,True,30,35,True,False,27,'
          'conga,28.5,-5.263157895\n')
CELLS = ('scheme,transport,leaves,runs,iter_ms_mean,hiprio_fct_p99_us,hiprio_own_p99_us,'
         'jct_ms_mean\n')


def added(tmp_path, cells, brief):
    doc = tmp_path / 'doc' / 'llm'
    doc.mkdir(parents=True)
    (doc / 'cells_brief.csv').write_text(ADD_BRIEF)
    (doc / 'talb_vs_best.csv').write_text(ADD_VS)
    (doc / 'iteration.png').write_text('committed figure')
    out = tmp_path / 'report'
    out.mkdir()
    (out / 'cells.csv').write_text(CELLS + cells)
    (out / 'cells_brief.csv').write_text('transport,scheme,leaves,runs,iter_ms_mean\n' + brief)
    (out / 'iteration.png').write_text('the added schemes alone')
    return doc, out


def test_an_added_scheme_that_is_best_rewrites_the_columns_it_leads_and_keeps_the_others(tmp_path):
    # conweave: faster than TaLB (a loss now), a higher priority tail, a lower own tail.
    doc, out = added(tmp_path, 'conweave,rdma,8,5,8.5,55,20,29\necmp,rdma,8,5,11,60,50,33\n',
                     'rdma,conweave,8,5,8.5\nrdma,ecmp,8,5,11\n')
    lines = docmerge.add_schemes(str(doc), str(out), ['cells_brief.csv', 'talb_vs_best.csv',
                                                      'iteration.png'])
    assert lines == ['cells_brief.csv: 1 rows added (conweave), 1 cells',
                     'talb_vs_best.csv: 1 cells, a new best in 1',
                     'iteration.png: kept (a report of added schemes draws them alone)']
    assert (doc / 'cells_brief.csv').read_text() == (
        'transport,scheme,leaves,runs,iter_ms_mean\n'
        'rdma,conga,8,5,9.5\nrdma,conweave,8,5,8.5\nrdma,ecmp,8,5,11\nrdma,talb,8,5,9\n')
    row = pd.read_csv(doc / 'talb_vs_best.csv', dtype=str).iloc[0]
    assert (row['best_scheme'], row['best_iter_ms'], row['iter_gap_pct']) == (
        'conweave', '8.5', '5.882352941')
    assert (row['best_hiprio_scheme'], row['hiprio_best']) == ('conga', 'True')
    assert (row['best_hiprio_own_p99_us'], row['hiprio_own_best']) == ('20', 'False')
    assert (row['best_jct_scheme'], row['jct_gap_pct']) == ('conga', '-5.263157895')
    assert row['loses'] == 'True'
    assert (doc / 'iteration.png').read_text() == 'committed figure'


def test_an_added_scheme_behind_the_best_leaves_talb_vs_best_as_committed(tmp_path):
    doc, out = added(tmp_path, 'hermes,rdma,8,5,10,60,40,30\necmp,rdma,8,5,11,60,50,33\n',
                     'rdma,hermes,8,5,10\nrdma,ecmp,8,5,11\n')
    docmerge.add_schemes(str(doc), str(out), ['cells_brief.csv', 'talb_vs_best.csv'])
    assert (doc / 'talb_vs_best.csv').read_text() == ADD_VS


@pytest.mark.parametrize('cells, brief, error', [
    ('talb,rdma,8,5,8,40,30,27\necmp,rdma,8,5,11,60,50,33\n', 'rdma,talb,8,5,8\n',
     r'cells.csv: has talb in cell rdma,8: a rerun of TaLB changes the cell'),
    ('hermes,rdma,8,5,10,60,40,30\n', 'rdma,hermes,8,5,10\n',
     r'cell rdma,8 has no ecmp row: run ecmp beside the added schemes'),
    ('hermes,rdma,8,5,10,60,40,30\necmp,rdma,8,5,12,60,50,33\n',
     'rdma,hermes,8,5,10\nrdma,ecmp,8,5,12\n',
     r"cells_brief.csv: ecmp in cell rdma,8: the report's iter_ms_mean is 12, the committed 11: "
     r'a rerun, not an addition'),
    ('hermes,rdma,8,5,10,60,40,30\necmp,rdma,8,5,11.2,60,50,33\n',
     'rdma,hermes,8,5,10\nrdma,ecmp,8,5,11\n',
     r"talb_vs_best.csv: the report's ecmp takes 11.2 ms in cell rdma,8, the committed one 11: "
     r'not the same runs'),
    ('hermes,rdma,16,5,10,60,40,30\necmp,rdma,16,5,11,60,50,33\n',
     'rdma,hermes,16,5,10\nrdma,ecmp,16,5,11\n',
     r'cells_brief.csv: has no cell rdma,16: a new cell needs every scheme'),
])
def test_what_is_not_an_addition_is_refused_and_nothing_is_written(tmp_path, cells, brief, error):
    doc, out = added(tmp_path, cells, brief)
    with pytest.raises(TalbDataError, match=error):
        docmerge.add_schemes(str(doc), str(out), ['cells_brief.csv', 'talb_vs_best.csv'])
    assert (doc / 'cells_brief.csv').read_text() == ADD_BRIEF
    assert (doc / 'talb_vs_best.csv').read_text() == ADD_VS


def test_script_adds_schemes_and_names_its_options(tmp_path):
    doc, out = added(tmp_path, 'hermes,rdma,8,5,10,60,40,30\necmp,rdma,8,5,11,60,50,33\n',
                     'rdma,hermes,8,5,10\nrdma,ecmp,8,5,11\n')
    r = subprocess.run([sys.executable, SCRIPT, '--add-schemes', str(doc), str(out)],
                       capture_output=True, text=True)
    assert (r.returncode, r.stderr) == (0, '')
    assert r.stdout == ('talb-merge-doc: llm/cells_brief.csv: 1 rows added (hermes), 1 cells\n'
                        'talb-merge-doc: llm/talb_vs_best.csv: 1 cells, a new best in 0\n')
    r = subprocess.run([sys.executable, SCRIPT, '--add-schemes', str(doc)], capture_output=True,
                       text=True)
    assert r.returncode == 2 and '--add-schemes needs REPORT_DIR' in r.stderr


RERUN_VS = ('transport,leaves,talb_iter_ms,talb_speedup,best_scheme,best_iter_ms,iter_gap_pct,'
            'talb_hiprio_p99_us,best_hiprio_scheme,best_hiprio_p99_us,hiprio_best,'
            'talb_hiprio_own_p99_us,best_hiprio_own_p99_us,hiprio_own_best,loses,talb_jct_ms,'
            'best_jct_scheme,best_jct_ms,jct_gap_pct\n')


def rerun(tmp_path, cells, brief, vs):
    doc, out = added(tmp_path, cells, brief)
    (out / 'talb_vs_best.csv').write_text(RERUN_VS + vs)
    return doc, out


def test_a_talb_rerun_takes_its_columns_and_compares_them_with_the_committed_best(tmp_path):
    # TaLB now 10 ms (behind CONGA's 9.5), a lower tail than CONGA's, a higher own tail.
    doc, out = rerun(tmp_path, 'talb,rdma,8,5,10,45,36,30\necmp,rdma,8,5,11,60,50,33\n',
                     'rdma,talb,8,5,10\nrdma,ecmp,8,5,11\n',
                     'rdma,8,10,1.1,ecmp,11,-9.090909091,45,ecmp,60,True,36,50,True,False,30,'
                     'ecmp,33,-9.090909091\n')
    lines = docmerge.rerun_talb(str(doc), str(out), ['talb_vs_best.csv', 'cells_brief.csv',
                                                     'iteration.png'])
    assert lines == ['cells_brief.csv: 1 rows replaced or added (talb), 1 cells',
                     'talb_vs_best.csv: 1 cells, the verdict changed in 1',
                     'iteration.png: kept (a report of TaLB and ecmp draws them alone)']
    assert (doc / 'cells_brief.csv').read_text() == ADD_BRIEF.replace('talb,8,5,9', 'talb,8,5,10')
    assert (doc / 'talb_vs_best.csv').read_text() == RERUN_VS + (
        'rdma,8,10,1.1,conga,9.5,5.263157895,45,conga,50,True,36,35,False,True,30,conga,28.5,'
        '5.263157895\n')
    assert (doc / 'iteration.png').read_text() == 'committed figure'


@pytest.mark.parametrize('cells, brief, error', [
    ('talb,rdma,8,5,10,45,36,30\nconga,rdma,8,5,9,60,50,33\necmp,rdma,8,5,11,60,50,33\n',
     'rdma,talb,8,5,10\n', r'cells.csv: has conga in cell rdma,8: a TaLB rerun holds TaLB'),
    ('talb,rdma,8,5,10,45,36,30\n', 'rdma,talb,8,5,10\n',
     r'cell rdma,8 has no ecmp row: run ecmp beside TaLB'),
    ('talb,rdma,8,5,10,45,36,30\necmp,rdma,8,5,11.5,60,50,33\n',
     'rdma,talb,8,5,10\nrdma,ecmp,8,5,11.5\n',
     r"cells_brief.csv: ecmp in cell rdma,8: the report's iter_ms_mean is 11.5, the committed 11"),
    ('talb,rdma,16,5,10,45,36,30\necmp,rdma,16,5,11,60,50,33\n',
     'rdma,talb,16,5,10\nrdma,ecmp,16,5,11\n',
     r'cells_brief.csv: has no cell rdma,16: a new cell needs every scheme'),
])
def test_what_is_not_a_talb_rerun_is_refused_and_nothing_is_written(tmp_path, cells, brief,
                                                                    error):
    doc, out = rerun(tmp_path, cells, brief, 'rdma,8,10,1.1,ecmp,11,-9.09,45,ecmp,60,True,36,50,'
                     'True,False,30,ecmp,33,-9.09\n')
    with pytest.raises(TalbDataError, match=error):
        docmerge.rerun_talb(str(doc), str(out), ['cells_brief.csv', 'talb_vs_best.csv'])
    assert (doc / 'cells_brief.csv').read_text() == ADD_BRIEF
    assert (doc / 'talb_vs_best.csv').read_text() == ADD_VS
    r = subprocess.run([sys.executable, SCRIPT, '--rerun-talb', '--add-schemes', str(doc),
                        str(out)], capture_output=True, text=True)
    assert r.returncode == 2 and '--add-schemes or --rerun-talb, not both' in r.stderr
