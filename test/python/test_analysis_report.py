"""analysis/talb-report.py end to end on the fixture sweep (numbers in test_analysis_stats.py)."""
import os
import shutil
import subprocess
import sys
import types

import pandas as pd
import pytest

from conftest import FIXTURES, REPORT
from talb_analysis.report import main as report_main

SWEEP = os.path.join(FIXTURES, 'sweep')
PNG_MAGIC = b'\x89PNG\r\n\x1a\n'


def run_script(*args):
    # sys.executable is the interpreter running the tests (ctest uses /usr/bin/python3).
    return subprocess.run([sys.executable, REPORT] + [str(a) for a in args], capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def report(capsys):
    """talb-report's main() in this process (a fresh interpreter per call would be slow)."""
    def run(*args):
        code = report_main([str(a) for a in args])
        out, err = capsys.readouterr()
        return types.SimpleNamespace(returncode=code, stdout=out, stderr=err)
    return run


def test_script_prints_tables_and_headline_and_saves_csvs_and_plots(tmp_path):
    r = run_script(SWEEP, '--out=%s' % tmp_path, '--group-by=load', '--plot-x=load')
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert '4 runs under' in out and 'grouped by: scheme, load' in out
    assert ('talb: up to 17.4 % lower average FCT of all flows than ecmp (load=0.5); up to '
            '2.24x training '
            'speedup over ecmp (load=0.5, 95 % CI [-0.93, 5.43])') in out
    for title in ('FCT per scheme', 'FCT per priority class', 'FCT per size bin',
                  'Tensor completion', 'Iteration time', 'Best figures'):
        assert title in out
    fct = pd.read_csv(tmp_path / 'fct_summary.csv')
    talb = fct[fct['scheme'] == 'talb'].iloc[0]
    assert talb['fct_p99_us'] == pytest.approx(1082.0)
    assert talb['fct_reduction_pct'] == pytest.approx(100 * (1 - 380 / 460))
    it = pd.read_csv(tmp_path / 'iteration_time.csv')
    assert it.set_index('scheme').loc['talb', 'speedup'] == pytest.approx(12 / 5.35)
    runs = pd.read_csv(tmp_path / 'runs.csv')
    assert sorted(runs['iter_ms']) == pytest.approx([5.2, 5.5, 11.0, 13.0])
    for name in ('fct_by_priority.csv', 'fct_by_size.csv', 'tensor_completion.csv',
                 'tensor_per_tensor.csv', 'headline.csv'):
        assert (tmp_path / name).stat().st_size > 0
    pngs = sorted(p.name for p in tmp_path.glob('*.png'))
    assert pngs == ['fct_cdf_load=0.5.png', 'fct_p99_by_priority_load=0.5.png',
                    'iteration_time_vs_load.png']
    for png in pngs:
        assert (tmp_path / png).read_bytes()[:8] == PNG_MAGIC


def test_runs_csv_and_the_printed_folders_are_relative_not_this_machines(tmp_path, report,
                                                                          monkeypatch):
    """runs.csv names each run's folder relative to the folder the report read, and leaves out
    the runner's --out (a sweep's temporary folder, absolute); the printed lines name the folders
    relative to the working folder when they lie below it, so a saved report.md holds no path
    of the machine that made it."""
    sweep = tmp_path / 'results' / 'sweep'
    shutil.copytree(SWEEP, sweep)
    monkeypatch.chdir(tmp_path)
    r = report(sweep.resolve(), '--out=%s' % (tmp_path / 'results' / 'report').resolve(),
               '--no-plots')
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith('4 runs under %s; ' % os.path.join('results', 'sweep'))
    assert r.stdout.rstrip().endswith('saved in %s' % os.path.join('results', 'report'))
    assert str(tmp_path) not in r.stdout
    runs = pd.read_csv(tmp_path / 'results' / 'report' / 'runs.csv')
    assert sorted(runs['path']) == sorted(os.listdir(SWEEP))
    assert 'out' not in runs.columns
    # A folder outside the working folder is printed as given.
    monkeypatch.chdir(FIXTURES)
    r = report(sweep, '--out=%s' % (tmp_path / 'elsewhere'), '--no-plots')
    assert r.returncode == 0 and r.stdout.startswith('4 runs under %s; ' % sweep)


def test_a_single_run_is_its_own_folder_in_runs_csv(fixture_copy, report):
    run = fixture_copy('single')
    assert report(run, '--no-plots').returncode == 0
    assert list(pd.read_csv(run / 'report' / 'runs.csv')['path']) == ['.']


def test_default_out_is_report_folder_inside_the_input(fixture_copy, report):
    run = fixture_copy('single')
    r = report(run, '--no-plots')
    assert r.returncode == 0, r.stderr
    assert (run / 'report' / 'fct_summary.csv').is_file()
    assert not list((run / 'report').glob('*.png'))
    # one seed: no confidence interval, and no baseline other than itself
    it = pd.read_csv(run / 'report' / 'iteration_time.csv')
    assert it.loc[0, 'iter_ms_mean'] == pytest.approx(3.0)  # iteration 1: workers 2 and 3 ms
    assert pd.isna(it.loc[0, 'iter_ms_ci95'])


def test_csv_and_markdown_formats(tmp_path, report):
    r = report(SWEEP, '--out=%s' % tmp_path, '--no-plots', '--format=csv')
    assert r.returncode == 0, r.stderr
    assert '\nscheme,count,fct_avg_us,fct_p50_us' in r.stdout
    assert '\ntalb,10,380,275,1010,1082,7.6,21.64,460,17.3913043' in r.stdout
    r = report(SWEEP, '--out=%s' % tmp_path, '--no-plots', '--format=markdown')
    assert r.returncode == 0, r.stderr
    assert '| scheme | count | fct_avg_us |' in r.stdout
    assert '| talb | 10 | 380.000 | 275.000 |' in r.stdout


def test_missing_baseline_is_said_not_fatal(tmp_path, report):
    r = report(SWEEP, '--out=%s' % tmp_path, '--no-plots', '--baseline=conga')
    assert r.returncode == 0, r.stderr
    assert "baseline scheme 'conga' is not among the runs" in r.stdout


def test_truncated_run_warns_and_reports(tmp_path, report):
    r = report(os.path.join(FIXTURES, 'truncated'), '--out=%s' % tmp_path, '--no-plots')
    assert r.returncode == 0, r.stderr
    assert 'warning:' in r.stderr and 'dropped a truncated last line' in r.stderr
    assert pd.read_csv(tmp_path / 'fct_summary.csv').loc[0, 'count'] == 3


def test_bad_input_exits_2_with_the_file_and_column(tmp_path, report):
    r = run_script(os.path.join(FIXTURES, 'missing_column'), '--out=%s' % tmp_path)
    assert r.returncode == 2
    assert 'missing_column/flows.csv: missing column slowdown' in r.stderr
    assert 'Traceback' not in r.stderr
    r = report(SWEEP, '--out=%s' % tmp_path, '--group-by=hosts')
    assert r.returncode == 2 and 'no run parameter named hosts' in r.stderr


def test_run_without_rows_reports_empty_tables_and_no_plots(fixture_copy, report):
    run = fixture_copy('single')
    for name in ('flows.csv', 'tensors.csv', 'iterations.csv'):
        header = (run / name).read_text().splitlines()[0]
        (run / name).write_text(header + '\n')
    r = report(run)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count('(no rows)') == 8  # every table but the headline's (one row per scheme)
    assert not list((run / 'report').glob('*.png'))


def test_one_seed_says_so_instead_of_a_confidence_interval(fixture_copy, report):
    run = fixture_copy('single')
    r = report(run, '--no-plots')
    assert r.returncode == 0, r.stderr
    assert '95 % CI' not in r.stdout and 'one seed: no CI' in r.stdout
    r = report(SWEEP, '--out=%s' % (run / 'sweep-report'), '--no-plots')
    assert '95 % CI across seeds' in r.stdout  # two seeds per cell: an interval


def test_runs_whose_iterations_all_fall_in_the_warmup_are_named(fixture_copy, report):
    """The fixture run holds iterations 0 and 1: --warmup=2 leaves nothing to time, which the
    report says (and names the run) besides its empty iteration tables."""
    run = fixture_copy('single')
    r = report(run, '--no-plots', '--warmup=2')
    assert r.returncode == 0, r.stderr
    assert ('warning: 1 run left out of iteration time and speedup: every iteration of its '
            'jobs falls within --warmup=2') in r.stderr
    assert report(run, '--no-plots').stderr == ''


def test_the_against_the_best_table_takes_its_scheme(tmp_path, report):
    r = report(SWEEP, '--out=%s' % tmp_path, '--no-plots', '--group-by=load', '--scheme=ecmp',
               '--baseline=talb')
    assert r.returncode == 0, r.stderr
    assert 'ecmp against the best other scheme per cell' in r.stdout
    table = pd.read_csv(tmp_path / 'talb_vs_best.csv')
    assert list(table['best_scheme']) == ['talb']


def test_plot_x_defaults_to_the_runners_background_load(tmp_path):
    sweep = tmp_path / 'sweep'
    shutil.copytree(SWEEP, sweep)
    for meta in sweep.glob('*/run.json'):
        meta.write_text(meta.read_text().replace('"load"', '"bgLoad"'))
    meta = sweep / 'lb=ecmp,load=0.5,seed=2' / 'run.json'
    meta.write_text(meta.read_text().replace('"bgLoad": 0.5', '"bgLoad": 0.8'))
    meta = sweep / 'lb=talb,load=0.5,seed=2' / 'run.json'
    meta.write_text(meta.read_text().replace('"bgLoad": 0.5', '"bgLoad": 0.8'))
    r = run_script(sweep, '--out=%s' % (tmp_path / 'out'))
    assert r.returncode == 0, r.stderr
    assert 'grouped by: scheme, bgLoad' in r.stdout
    assert (tmp_path / 'out' / 'iteration_time_vs_bgLoad.png').is_file()


def test_a_cell_too_long_for_a_file_name_is_cut_with_a_digest():
    """A cell with a job list (the held-out family's) names its figures within a file system's
    255 bytes, and two such cells that differ only past the cut still get two names."""
    from talb_analysis import plots
    jobs = ';'.join('model=resnet50,workers=%d,scheduler=fusion,collective=ring' % w
                    for w in range(4, 9))
    a = plots._suffix(['leaves', 'jobs'], [4, jobs])
    b = plots._suffix(['leaves', 'jobs'], [4, jobs + 'x'])
    assert len('fct_p99_by_priority%s.png' % a) < 255 and a != b
    assert a.startswith('_leaves=4,jobs=model=resnet50')
    assert plots._suffix(['load'], [0.5]) == '_load=0.5'  # short names are unchanged


def test_schemes_run_over_different_seeds_are_named_not_compared_silently(fixture_copy, report,
                                                                          tmp_path):
    """A sweep stopped part-way leaves a cell with seeds 1-2 for one scheme and seed 1 for
    another: the report still reports, and warns that the cell's means are not paired."""
    sweep = fixture_copy('sweep')
    r = report(sweep, '--out=%s' % (tmp_path / 'paired'), '--no-plots')
    assert r.returncode == 0 and 'not paired' not in r.stderr
    shutil.rmtree(sweep / 'lb=talb,load=0.5,seed=2')
    r = report(sweep, '--out=%s' % (tmp_path / 'part'), '--no-plots')
    assert r.returncode == 0, r.stderr
    # One cell (load 0.5 only: no grouping key but the scheme).
    assert 'the runs: the schemes ran different seeds (ecmp: 1,2; talb: 1)' in r.stderr
    assert 'their means are not paired' in r.stderr


def test_against_the_best_names_the_transport_even_when_every_run_used_one():
    """talb-goals.py counts goals per family and transport: a family whose runs all used one
    transport (no transport axis) still gets the column; with several it comes from the keys."""
    from talb_analysis.report import _with_transport
    table = pd.DataFrame({'oversubscription': [1, 2], 'talb_iter_ms': [4.5, 7.5]})
    runs = pd.DataFrame({'transport': ['rdma', 'rdma']})
    out = _with_transport(table.copy(), runs)
    assert list(out.columns) == ['transport', 'oversubscription', 'talb_iter_ms']
    assert list(out['transport']) == ['rdma', 'rdma']
    both = pd.DataFrame({'transport': ['rdma', 'tcp']})
    assert list(_with_transport(table.copy(), both).columns) == list(table.columns)
