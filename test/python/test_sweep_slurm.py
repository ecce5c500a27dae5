"""scripts/talb-sweep.py --backend=slurm against a one-node SLURM cluster on localhost
(scripts/slurm-local-cluster.sh: munged, slurmctld and slurmd from Debian's packages, all state in
a temporary folder, stopped at the end).

The whole module is skipped, with the reason, where the packages are missing or the daemons cannot
start here; ctest then reports the entry as skipped (its log has the reason). TALB_SCENARIO names
the real scenario runner (set by ctest): the first test runs a 4-point sweep of it through SLURM
and through the local backend and compares the outputs byte for byte."""
import filecmp
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import FAKE_RUNNER, ROOT, SWEEP

CLUSTER = os.path.join(ROOT, 'scripts', 'slurm-local-cluster.sh')
RUNNER = os.path.abspath(os.environ.get('TALB_SCENARIO', os.path.join(ROOT, 'build', 'bin',
                                                                      'talb-scenario')))
UNAVAILABLE = 'SLURM cluster unavailable'  # ctest's SKIP_REGULAR_EXPRESSION for this file
OUTPUTS = ('flows.csv', 'tensors.csv', 'iterations.csv')
GRID = ['--param', 'lb=ecmp,talb', '--param', 'load=0.3,0.7']
POLL = '--poll=0.2'
# Four tiny tensors: a 2x2 fabric runs two iterations of four workers in ~0.1 s.
TINY_MODEL = """# talb-model-file v1
model,tensor,params,fwd_flops_per_sample,layer_group
tiny,conv1.weight,1728,20000000,conv1
tiny,conv2.weight,36864,200000000,conv2
tiny,fc.weight,25600,51200,fc
tiny,fc.bias,100,0,fc
"""


@pytest.fixture(scope='module')
def cluster(tmp_path_factory):
    """The environment (SLURM_CONF) of a running one-node cluster; stopped after the module."""
    path = os.environ.get('PATH', '') + ':/usr/sbin:/sbin'  # where Debian puts the daemons
    missing = [p for p in ('munged', 'mungekey', 'slurmctld', 'slurmd', 'sbatch', 'squeue',
                           'scancel') if not shutil.which(p, path=path)]
    if missing:
        pytest.skip('%s: %s not installed (scripts/install-deps.sh installs slurm-wlm and '
                    'munge)' % (UNAVAILABLE, ', '.join(missing)))
    folder = tmp_path_factory.mktemp('cluster')
    start = subprocess.run(['bash', CLUSTER, 'start', str(folder)], capture_output=True,
                           text=True, timeout=120)
    if start.returncode == 3:
        pytest.skip('%s: %s' % (UNAVAILABLE, start.stderr.strip().replace('\n', ' | ')))
    assert start.returncode == 0, start.stderr
    try:
        yield dict(os.environ, SLURM_CONF=str(folder / 'slurm.conf'))
    finally:
        stop = subprocess.run(['bash', CLUSTER, 'stop', str(folder)], capture_output=True,
                              text=True, timeout=120)
        assert stop.returncode == 0, stop.stderr


def sweep(out, *extra, env, runner=FAKE_RUNNER, timeout=120):
    return subprocess.run([sys.executable, SWEEP, '--runner=' + runner, '--out=%s' % out]
                          + list(extra), capture_output=True, text=True, env=env,
                          timeout=timeout)


def points(out):
    return sorted(p.name for p in out.iterdir() if (p / 'DONE').is_file())


def started(log):
    """The point options of every fake runner start logged in ``log``."""
    if not log.exists():
        return []
    return [line.split()[3] for line in log.read_text().splitlines()
            if line.startswith('start ')]


def queued(env):
    r = subprocess.run(['squeue', '--noheader', '--array', '--format=%F_%K %T'],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    return dict(line.split() for line in r.stdout.splitlines())


def test_real_scenario_sweep_through_slurm_gives_the_local_backend_s_csvs(cluster, tmp_path):
    if not os.access(RUNNER, os.X_OK):
        pytest.skip('%s not built (set TALB_SCENARIO or build talb-scenario)' % RUNNER)
    model = tmp_path / 'tiny.csv'
    model.write_text(TINY_MODEL)
    grid = tmp_path / 'grid.ini'
    grid.write_text('[grid]\nlb = ecmp, talb\n[fixed]\nleaves = 2\nspines = 2\nhostsPerLeaf = 2\n'
                    'jobs = workers=4\nmodel = %s\niterations = 2\nbgLoad = 0.3\n'
                    'progress = false\n[sweep]\nseeds = 1-2\n' % model)
    local = sweep(tmp_path / 'local', '--grid=%s' % grid, '--parallel=2', runner=RUNNER,
                  env=cluster)
    assert local.returncode == 0, local.stdout + local.stderr
    on_slurm = sweep(tmp_path / 'slurm', '--grid=%s' % grid, '--backend=slurm', POLL,
                     runner=RUNNER, env=cluster)
    assert on_slurm.returncode == 0, on_slurm.stdout + on_slurm.stderr
    assert 'submitted 4 points as SLURM array job' in on_slurm.stdout
    assert '[4/4] ok' in on_slurm.stdout and '4 ran ok, 0 failed' in on_slurm.stdout

    names = points(tmp_path / 'local')
    assert names == ['lb=ecmp,seed=1', 'lb=ecmp,seed=2', 'lb=talb,seed=1', 'lb=talb,seed=2']
    assert points(tmp_path / 'slurm') == names
    for name in names:
        a, b = tmp_path / 'local' / name, tmp_path / 'slurm' / name
        assert sorted(os.listdir(a)) == sorted(os.listdir(b))
        for csv in OUTPUTS:
            assert (a / csv).stat().st_size > 0
            assert filecmp.cmp(a / csv, b / csv, shallow=False), '%s/%s differs' % (name, csv)
        run_a, run_b = (json.loads((f / 'run.json').read_text()) for f in (a, b))
        assert run_a['parameters'].pop('out') != run_b['parameters'].pop('out')
        assert run_a['parameters'] == run_b['parameters'] and run_a['seed'] == run_b['seed']
        assert (json.loads((a / 'point.json').read_text())['parameters']
                == json.loads((b / 'point.json').read_text())['parameters'])
    # the seeds differ in their background flows, so the comparison above can tell runs apart
    assert not filecmp.cmp(tmp_path / 'local' / names[0] / 'flows.csv',
                           tmp_path / 'local' / names[1] / 'flows.csv', shallow=False)
    assert (tmp_path / 'local' / 'sweep.json').read_text() == \
        (tmp_path / 'slurm' / 'sweep.json').read_text()
    jobs = json.loads((tmp_path / 'slurm' / '.slurm' / 'jobs.json').read_text())
    assert len(jobs) == 1
    logs = sorted(p.name for p in (tmp_path / 'slurm' / '.slurm').glob('*.log'))
    assert logs == ['%s_%d.log' % (jobs[0]['job'], i) for i in range(4)]

    # the report reads both sweeps alike
    for backend in ('local', 'slurm'):
        r = subprocess.run([sys.executable, os.path.join(ROOT, 'analysis', 'talb-report.py'),
                            str(tmp_path / backend), '--out=%s' % (tmp_path / ('r-' + backend)),
                            '--no-plots'], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
    for table in ('fct_summary.csv', 'iteration_time.csv', 'tensor_completion.csv'):
        assert filecmp.cmp(tmp_path / 'r-local' / table, tmp_path / 'r-slurm' / table,
                           shallow=False), table


def test_failed_task_is_reported_with_its_stderr_and_a_rerun_resubmits_only_it(cluster, tmp_path):
    out, log = tmp_path / 'out', tmp_path / 'log'
    env = dict(cluster, FAKE_FAIL='lb=talb,load=0.7', FAKE_LOG=str(log))
    r = sweep(out, *GRID, '--backend=slurm', POLL, '--sbatch-arg=--comment=talb-test', env=env)
    assert r.returncode == 1, r.stdout + r.stderr
    assert 'FAILED lb=talb,load=0.7,seed=1' in r.stdout and 'exit status 3' in r.stdout
    assert '| fake_talb_scenario: failing on purpose (FAKE_FAIL=lb=talb,load=0.7)' in r.stdout
    assert '3 ran ok, 1 failed' in r.stdout
    assert points(out) == ['lb=ecmp,load=0.3,seed=1', 'lb=ecmp,load=0.7,seed=1',
                           'lb=talb,load=0.3,seed=1']
    failed = json.loads((out / '.tmp' / 'lb=talb,load=0.7,seed=1' / 'FAILED').read_text())
    assert failed['why'] == 'exit status 3'

    del env['FAKE_FAIL']
    r = sweep(out, *GRID, '--backend=slurm', POLL, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert '3 done, 1 to run' in r.stdout and 'submitted 1 point as SLURM array job' in r.stdout
    assert sorted(started(log)) == ['lb=ecmp,load=0.3,seed=1', 'lb=ecmp,load=0.7,seed=1',
                                    'lb=talb,load=0.3,seed=1', 'lb=talb,load=0.7,seed=1',
                                    'lb=talb,load=0.7,seed=1']
    assert len(points(out)) == 4

    # a changed fixed parameter is refused before anything is submitted
    grid = tmp_path / 'fixed.ini'
    grid.write_text('[fixed]\nhosts = 16\n')
    r = sweep(out, *GRID, '--grid=%s' % grid, '--backend=slurm', POLL, env=env)
    assert r.returncode == 2
    assert 'finished with other parameters (hosts: (unset) -> 16)' in r.stderr
    assert len(json.loads((out / '.slurm' / 'jobs.json').read_text())) == 2


def test_detached_sweep_is_followed_by_a_rerun_and_ctrl_c_cancels_its_tasks(cluster, tmp_path):
    out, log = tmp_path / 'out', tmp_path / 'log'
    env = dict(cluster, FAKE_SLEEP='60', FAKE_LOG=str(log))
    r = sweep(out, *GRID, '--backend=slurm', '--parallel=2', '--detach', env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert 'detached; 4 points queued or running' in r.stdout
    job = json.loads((out / '.slurm' / 'jobs.json').read_text())[0]['job']
    deadline = time.monotonic() + 60
    while len(started(log)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(started(log)) == 2  # --parallel=2 throttles the array
    assert sorted(queued(env).values()) == ['PENDING', 'PENDING', 'RUNNING', 'RUNNING']

    # The same command without --detach follows the job's tasks instead of submitting again.
    follow = subprocess.Popen([sys.executable, SWEEP, '--runner=' + FAKE_RUNNER,
                               '--out=%s' % out, '--backend=slurm', POLL] + GRID,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        first = follow.stdout.readline() + follow.stdout.readline()
        assert 'following 4 points still queued or running in SLURM job %s' % job in first, first
        # A task that SLURM ends (scancel here; a time limit alike) is reported with SLURM's word.
        running = sorted(t for t, s in queued(env).items() if s == 'RUNNING')
        subprocess.run(['scancel', running[0]], check=True, env=env, timeout=60)
        tasks = json.loads(next((out / '.slurm').glob('tasks-*.json')).read_text())
        name = tasks['points'][int(running[0].split('_')[1])]
        report = follow.stdout.readline() + follow.stdout.readline()
        assert report.startswith('[1/4] FAILED %s' % name), report
        assert 'stopped by signal 15 (SLURM: state CANCELLED' in report, report
        follow.send_signal(signal.SIGINT)
        stdout, stderr = follow.communicate(timeout=60)
    finally:
        if follow.poll() is None:
            follow.kill()
            follow.wait()
    assert follow.returncode == 130, stdout + stderr
    assert 'stopped 3 running points' in stderr
    assert 'submitted' not in first + report + stdout
    deadline = time.monotonic() + 30
    while any(t.startswith(job + '_') for t in queued(env)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(t.startswith(job + '_') for t in queued(env))  # Ctrl-C cancelled them
    assert points(out) == []
