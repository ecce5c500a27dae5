"""scripts/talb-sweep.py with the fake runner (test/python/fake_talb_scenario.py): grid expansion,
parallel runs, resume, failures, Ctrl-C."""
import json
import os
import re
import signal
import subprocess
import sys
import time
import types

import pytest

from conftest import FAKE_RUNNER, SWEEP, load_script

sweep = load_script(SWEEP, 'talb_sweep')


def args(**kw):
    base = dict(grid=None, param=[], seeds=None)
    base.update(kw)
    return types.SimpleNamespace(**base)


def run_sweep(out, *extra, env=None, timeout=60):
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([sys.executable, SWEEP, '--runner=' + FAKE_RUNNER, '--out=%s' % out]
                          + list(extra), capture_output=True, text=True, env=full_env,
                          timeout=timeout)


def log_lines(path, what):
    if not os.path.exists(path):
        return []
    return [line.split() for line in open(path) if line.startswith(what + ' ')]


GRID = ['--param', 'lb=ecmp,talb', '--param', 'load=0.3,0.7']


# ---- grid expansion (in process) ----

def test_point_names_are_sorted_axes_then_seed_and_filesystem_safe():
    points = sweep.expand({'model': ['vgg19'], 'lb': ['talb'], 'load': ['0.5']}, {}, [2])
    assert [p.name for p in points] == ['lb=talb,load=0.5,model=vgg19,seed=2']
    name = sweep.expand({'topo': ['a/b c,d=e']}, {}, [1])[0].name
    assert name == 'topo=a%2Fb%20c%2Cd%3De,seed=1'
    assert '/' not in name


def test_long_point_names_are_cut_with_a_digest_and_stay_distinct(tmp_path):
    """Job lists as an axis give names past a file name's 255 bytes: cut, a digest of the whole,
    the seed; two values that differ only past the cut still get two folders, and they run."""
    jobs = ';'.join('model=vgg19,workers=%d,scheduler=fusion,collective=ring' % w
                    for w in range(2, 8))
    other = jobs[:-4] + 'ps'
    points = sweep.expand({'jobs': [jobs, other], 'lb': ['ecmp']}, {}, [1, 2])
    names = [p.name for p in points]
    assert len(set(names)) == 4
    for p in points:
        assert len(p.name.encode()) == 255, p.name
        assert re.search(r',~[0-9a-f]{16},seed=%s$' % p.params['seed'], p.name), p.name
        assert p.name.startswith('jobs=model%3Dvgg19')
    assert names == [p.name for p in sweep.expand({'jobs': [jobs, other], 'lb': ['ecmp']}, {},
                                                  [1, 2])]
    grid = tmp_path / 'grid.json'
    grid.write_text(json.dumps({'grid': {'jobs': [jobs, other]}, 'seeds': '1'}))
    r = run_sweep(tmp_path / 'out', '--grid=%s' % grid)
    assert r.returncode == 0, r.stdout + r.stderr
    assert sorted(n for n in os.listdir(tmp_path / 'out') if n.startswith('jobs=')) == sorted(
        sweep.point_name([('jobs', j)], 1) for j in (jobs, other))
    assert run_sweep(tmp_path / 'out', '--grid=%s' % grid).returncode == 0  # nothing left to run


def test_expansion_is_the_full_product_with_fixed_parameters_and_seeds_innermost():
    points = sweep.expand({'lb': ['ecmp', 'talb'], 'load': ['0.3', '0.5', '0.7']},
                          {'hosts': '16'}, [1, 2, 3])
    assert len(points) == 18
    assert len(set(p.name for p in points)) == 18
    assert [p.params['seed'] for p in points[:3]] == ['1', '2', '3']
    assert points[0].params == {'hosts': '16', 'lb': 'ecmp', 'load': '0.3', 'seed': '1'}
    assert points[-1].name == 'lb=talb,load=0.7,seed=3'


def test_runner_command_line_puts_config_first_and_out_last():
    cmd = sweep.command('/r', {'lb': 'talb', 'config': 'a.ini', 'seed': '2'}, '/o')
    assert cmd == ['/r', '--config=a.ini', '--lb=talb', '--seed=2', '--out=/o']


@pytest.mark.parametrize('text,seeds', [
    ('1,2,3', [1, 2, 3]), ('1-3', [1, 2, 3]), ('1..3,7', [1, 2, 3, 7]), ('5', [5]),
    ([4, 2], [4, 2]), (3, [3]),
])
def test_seeds(text, seeds):
    assert sweep.parse_seeds(text) == seeds


@pytest.mark.parametrize('text,error', [
    ('3-1', 'empty seed range'), ('1,1', 'repeated seed'), ('a', 'bad seed'), ('', 'bad seed'),
])
def test_bad_seeds(text, error):
    with pytest.raises(sweep.SweepError, match=error):
        sweep.parse_seeds(text)


def test_json_and_ini_grids_are_equivalent_and_options_override_them(tmp_path):
    (tmp_path / 'g.json').write_text(json.dumps({
        'grid': {'lb': ['ecmp', 'talb'], 'load': [0.3, 0.5]}, 'fixed': {'hosts': 16,
                                                                      'Pfc': True},
        'seeds': '1-2'}))
    (tmp_path / 'g.ini').write_text('[grid]\nlb = ecmp, talb\nload = 0.3, 0.5\n'
                                    '[fixed]\nhosts = 16\nPfc = true\n[sweep]\nseeds = 1,2\n')
    j = sweep.build_grid(args(grid=str(tmp_path / 'g.json')))
    i = sweep.build_grid(args(grid=str(tmp_path / 'g.ini')))
    assert j == i == ({'lb': ['ecmp', 'talb'], 'load': ['0.3', '0.5']},
                      {'hosts': '16', 'Pfc': 'true'}, [1, 2])
    axes, fixed, seeds = sweep.build_grid(args(grid=str(tmp_path / 'g.ini'),
                                               param=['load=0.9', 'hosts=8,16'], seeds='3'))
    assert axes == {'lb': ['ecmp', 'talb'], 'load': ['0.9'], 'hosts': ['8', '16']}
    assert fixed == {'Pfc': 'true'} and seeds == [3]
    assert sweep.build_grid(args(param=['lb=ecmp']))[2] == [1]  # default seed


def test_an_empty_fixed_value_is_passed_on_so_a_grid_can_ask_for_no_job(tmp_path):
    (tmp_path / 'g.json').write_text(json.dumps({'grid': {'lb': ['ecmp']},
                                                 'fixed': {'jobs': '', 'bgLoad': 0.5}}))
    (tmp_path / 'g.ini').write_text('[grid]\nlb = ecmp\n[fixed]\njobs =\nbgLoad = 0.5\n')
    for name in ('g.json', 'g.ini'):
        axes, fixed, seeds = sweep.build_grid(args(grid=str(tmp_path / name)))
        assert fixed == {'jobs': '', 'bgLoad': '0.5'}
        point = sweep.expand(axes, fixed, seeds)[0]
        assert '--jobs=' in sweep.command('/r', point.params, '/o')
    (tmp_path / 'a.json').write_text('{"grid": {"lb": ["ecmp", ""]}}')
    with pytest.raises(sweep.SweepError, match='empty value'):
        sweep.build_grid(args(grid=str(tmp_path / 'a.json')))


@pytest.mark.parametrize('kw,error', [
    (dict(param=['out=/x']), "'out' is set by the sweep"),
    (dict(param=['seed=1,2']), 'use --seeds'),
    (dict(param=['lb']), 'expected name=v1,v2'),
    (dict(param=['lb=ecmp,ecmp']), 'repeats a value'),
    (dict(param=['lb=ecmp,']), 'empty value'),
    (dict(param=['l b=1']), 'bad parameter name'),
])
def test_bad_parameters_are_named(kw, error):
    with pytest.raises(sweep.SweepError, match=error):
        sweep.build_grid(args(**kw))


@pytest.mark.parametrize('name,text,error', [
    ('g.json', '{"grid": {"lb": ["ecmp"]}, "fixd": {}}', 'unknown key fixd'),
    ('g.json', '{"grid": {"lb": [[1]]}}', 'values must be strings, numbers or booleans'),
    ('g.json', '{"grid": ', 'not valid JSON'),
    ('g.ini', '[grids]\nlb = ecmp\n', r'unknown section \[grids\]'),
    ('g.ini', 'lb = ecmp\n', 'not a JSON or INI grid file'),
    ('g.ini', '[grid]\nlb = a\n[fixed]\nlb = b\n', 'lb: both a grid axis and fixed'),
])
def test_bad_grid_files_are_named(tmp_path, name, text, error):
    (tmp_path / name).write_text(text)
    with pytest.raises(sweep.SweepError, match=error):
        sweep.build_grid(args(grid=str(tmp_path / name)))


# ---- end to end with the fake runner ----

def test_dry_run_lists_points_and_runs_nothing(tmp_path):
    log = tmp_path / 'log'
    r = run_sweep(tmp_path / 'out', *GRID, '--seeds=1-2', '--dry-run', env={'FAKE_LOG': str(log)})
    assert r.returncode == 0, r.stderr
    assert sum(line.startswith('to run ') for line in r.stdout.splitlines()) == 8
    assert 'to run lb=talb,load=0.7,seed=2' in r.stdout
    assert '--lb=talb --load=0.7 --seed=2 --out=' in r.stdout
    assert not log.exists() and not (tmp_path / 'out').exists()


def test_dry_run_piped_to_a_reader_that_stops_early_ends_quietly(tmp_path):
    # scripts/talb-sweep.py --dry-run | head -1: the listing's rest goes nowhere, no traceback.
    cmd = [sys.executable, SWEEP, '--runner=' + FAKE_RUNNER, '--out=%s' % (tmp_path / 'out'),
           '--param', 'lb=' + ','.join('s%d' % i for i in range(400)), '--seeds=1-50', '--dry-run']
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()  # the reader is gone before the sweep has written its 20,000 points
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, err
    assert first.startswith(b'sweep: 20000 points')
    assert err == ''


def test_points_run_in_parallel_and_finished_points_are_not_rerun(tmp_path):
    out, log = tmp_path / 'out', tmp_path / 'log'
    env = {'FAKE_LOG': str(log), 'FAKE_SLEEP': '0.4'}
    r = run_sweep(out, *GRID, '--parallel=2', env=env)
    assert r.returncode == 0, r.stderr
    assert '[4/4] ok' in r.stdout and 'elapsed' in r.stdout
    names = sorted(p.name for p in out.iterdir() if not p.name.startswith('.'))
    assert names == ['lb=ecmp,load=0.3,seed=1', 'lb=ecmp,load=0.7,seed=1',
                     'lb=talb,load=0.3,seed=1', 'lb=talb,load=0.7,seed=1', 'sweep.json']
    for name in names[:-1]:
        assert sorted(os.listdir(out / name)) == [
            'DONE', 'flows.csv', 'iterations.csv', 'point.json', 'run.json', 'runner.err',
            'runner.out', 'tensors.csv']
    assert json.load(open(out / 'sweep.json'))['axes'] == ['lb', 'load']
    # at most two runners at any time, and two did overlap
    events = sorted([(float(t), +1) for _, _, t, _ in log_lines(log, 'start')]
                    + [(float(t), -1) for _, _, t, _ in log_lines(log, 'end')])
    level = peak = 0
    for _, step in events:
        level += step
        peak = max(peak, level)
    assert peak == 2

    r = run_sweep(out, *GRID, '--parallel=2', env=env)
    assert r.returncode == 0, r.stderr
    assert '4 done, 0 to run' in r.stdout
    assert len(log_lines(log, 'start')) == 4

    os.remove(out / 'lb=talb,load=0.3,seed=1' / 'DONE')  # unfinished: redone
    r = run_sweep(out, *GRID, '--seeds=1', env=env)
    assert r.returncode == 0, r.stderr
    assert '3 done, 1 to run' in r.stdout
    starts = log_lines(log, 'start')
    assert len(starts) == 5 and starts[-1][3] == 'lb=talb,load=0.3,seed=1'
    assert (out / 'lb=talb,load=0.3,seed=1' / 'DONE').is_file()


def test_failing_point_is_reported_others_finish_and_a_rerun_retries_it(tmp_path):
    out = tmp_path / 'out'
    r = run_sweep(out, *GRID, '--seeds=1,2', '--parallel=2', env={'FAKE_FAIL': 'lb=talb,seed=2'})
    assert r.returncode == 1
    assert 'FAILED lb=talb,load=0.3,seed=2' in r.stdout
    assert 'exit status 3' in r.stdout
    assert '| fake_talb_scenario: failing on purpose (FAKE_FAIL=lb=talb,seed=2)' in r.stdout
    assert 'progress line 19' not in r.stdout  # only the tail
    assert '6 ran ok, 2 failed' in r.stdout
    assert 'lb=talb,load=0.7,seed=2' in r.stderr
    done = sorted(p.name for p in out.iterdir() if (p / 'DONE').is_file())
    assert len(done) == 6 and not any('talb' in n and 'seed=2' in n for n in done)
    assert (out / '.tmp' / 'lb=talb,load=0.3,seed=2' / 'runner.err').is_file()
    log = tmp_path / 'log'
    r = run_sweep(out, *GRID, '--seeds=1,2', env={'FAKE_LOG': str(log)})
    assert r.returncode == 0, r.stderr
    assert sorted(s[3] for s in log_lines(log, 'start')) == [
        'lb=talb,load=0.3,seed=2', 'lb=talb,load=0.7,seed=2']


def test_runner_exiting_0_without_output_is_a_failure(tmp_path):
    runner = tmp_path / 'quiet'
    runner.write_text('#!/bin/sh\necho nothing to do >&2\nexit 0\n')
    runner.chmod(0o755)
    r = subprocess.run([sys.executable, SWEEP, '--runner=%s' % runner,
                        '--out=%s' % (tmp_path / 'o'), '--param', 'lb=ecmp'],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert 'no run.json' in r.stdout and '| nothing to do' in r.stdout
    assert not (tmp_path / 'o' / 'lb=ecmp,seed=1').exists()


def test_changed_fixed_parameter_is_not_mistaken_for_a_finished_point(tmp_path):
    out = tmp_path / 'out'
    (tmp_path / 'a.ini').write_text('[grid]\nlb = ecmp\n[fixed]\nhosts = 16\n')
    (tmp_path / 'b.ini').write_text('[grid]\nlb = ecmp\n[fixed]\nhosts = 32\n')
    assert run_sweep(out, '--grid=%s' % (tmp_path / 'a.ini')).returncode == 0
    r = run_sweep(out, '--grid=%s' % (tmp_path / 'b.ini'))
    assert r.returncode == 2
    assert 'finished with other parameters (hosts: 16 -> 32)' in r.stderr


def test_missing_runner_is_an_error(tmp_path):
    r = subprocess.run([sys.executable, SWEEP, '--runner=%s' % (tmp_path / 'nope'),
                        '--out=%s' % tmp_path, '--param', 'lb=ecmp'], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and 'not an executable file' in r.stderr


@pytest.mark.parametrize('sig', [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_stops_runners_and_keeps_finished_points(tmp_path, sig):
    out, log = tmp_path / 'out', tmp_path / 'log'
    env = dict(os.environ, FAKE_LOG=str(log), FAKE_SLEEP='30')
    proc = subprocess.Popen([sys.executable, SWEEP, '--runner=' + FAKE_RUNNER, '--out=%s' % out,
                             '--parallel=2'] + GRID, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    deadline = time.monotonic() + 20
    while len(log_lines(log, 'start')) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(log_lines(log, 'start')) == 2
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=20)
    assert proc.returncode == 130, stderr
    assert 'interrupted' in stderr and 'stopped 2 running points' in stderr
    assert 'rerun the same command to resume' in stderr
    for _, pid, _, _ in log_lines(log, 'start'):
        with pytest.raises(ProcessLookupError):
            os.kill(int(pid), 0)
    assert not log_lines(log, 'end')
    assert not [p for p in out.iterdir() if (p / 'DONE').exists()]


def test_report_on_a_sweep_groups_by_its_axes(tmp_path, capsys):
    from talb_analysis.report import main as report_main
    out = tmp_path / 'out'
    assert run_sweep(out, *GRID, '--seeds=1,2').returncode == 0
    assert report_main([str(out), '--out=%s' % (tmp_path / 'report'), '--no-plots']) == 0
    assert 'grouped by: scheme, load' in capsys.readouterr().out
    import pandas as pd
    it = pd.read_csv(tmp_path / 'report' / 'iteration_time.csv').set_index(['scheme', 'load'])
    # the fake runner: iteration = 10 ms * (1 + load) (talb: half) + seed * 0.1 ms
    assert it.loc[('ecmp', 0.3), 'iter_ms_mean'] == pytest.approx(13.15)
    assert it.loc[('talb', 0.3), 'speedup'] == pytest.approx(13.15 / 6.65)
    assert it.loc[('talb', 0.7), 'speedup'] == pytest.approx(17.15 / 8.65)
    assert it['paired_seeds'].all()


# ---- the slurm backend's command line (no cluster needed; test_sweep_slurm.py runs one) ----

def test_slurm_dry_run_prints_the_sbatch_array_command_with_resources(tmp_path):
    r = run_sweep(tmp_path / 'out', *GRID, '--backend=slurm', '--dry-run', '--parallel=3',
                  '--partition=short', '--time=30:00', '--mem=2G', '--cpus-per-task=2',
                  '--sbatch-arg=--qos=low', '--sbatch-arg=--account=lab')
    assert r.returncode == 0, r.stderr
    assert 'to run as SLURM array job tasks (at most 3 at a time)' in r.stdout
    sbatch = [line for line in r.stdout.splitlines() if line.startswith('sbatch: ')]
    assert sbatch == ['sbatch: sbatch --parsable --array=0-3%%3 --job-name=talb-sweep:out '
                      '--output=%s/out/.slurm/JOB_%%a.log --partition=short --time=30:00 '
                      '--mem=2G --cpus-per-task=2 --qos=low --account=lab '
                      '%s/out/.slurm/array-STAMP.sh' % (tmp_path, tmp_path)]
    assert not (tmp_path / 'out').exists()


@pytest.mark.parametrize('option', ['--partition=p', '--time=5', '--mem=1G', '--cpus-per-task=2',
                                    '--sbatch-arg=--qos=x', '--detach'])
def test_slurm_options_are_refused_with_the_local_backend(tmp_path, option):
    r = run_sweep(tmp_path / 'out', *GRID, option)
    assert r.returncode == 2
    assert '%s only with --backend=slurm' % option.split('=')[0] in r.stderr


@pytest.mark.parametrize('option', ['--jobs=2', '--jobs'])
def test_the_sweeps_old_jobs_option_is_refused_naming_parallel(tmp_path, option):
    """--jobs was the sweep's runners at a time, a name the runner's --jobs (job specs) shares."""
    r = run_sweep(tmp_path / 'out', *GRID, option)
    assert r.returncode == 2
    assert '--jobs is now --parallel=N (runners at a time)' in r.stderr
    assert '--param "jobs=SPEC"' in r.stderr
    assert not (tmp_path / 'out').exists()


def test_parallel_must_be_positive(tmp_path):
    r = run_sweep(tmp_path / 'out', *GRID, '--parallel=0')
    assert r.returncode == 2 and '--parallel must be >= 1, got 0' in r.stderr


def test_slurm_backend_without_slurm_commands_says_so(tmp_path):
    r = run_sweep(tmp_path / 'out', *GRID, '--backend=slurm', env={'PATH': '/nonexistent'})
    assert r.returncode == 2
    assert 'sbatch: not found (is this a SLURM submit host?' in r.stderr
    assert not (tmp_path / 'out' / '.tmp').exists()  # nothing prepared
