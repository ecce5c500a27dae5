#!/usr/bin/python3
"""Run a grid of talb scenarios (selectors x loads x models x seeds ...) in parallel, resumably,
on this machine or as SLURM array jobs.

Each point of the grid runs ``RUNNER --name=value ... --seed=N --out=DIR`` once and gets its own
folder OUT/<name>, named from the grid axes in alphabetical order with the seed last, e.g.
``OUT/lb=talb,load=0.5,model=vgg19,seed=2``. A point runs in OUT/.tmp/<name>; only after the runner
exits 0 (and wrote run.json) does it get a DONE marker and move to OUT/<name>, so a folder with DONE
is a finished point. Rerunning the same command skips finished points and redoes the others.
The backend (--backend=local|slurm) only decides where the runners run: both prepare and finish
points with the same functions, so the folders and markers are the same.
doc/talb-analysis.rst describes the grid file formats and the SLURM backend.
"""
import argparse
import collections
import configparser
import hashlib
import itertools
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_RUNNER = os.path.join(REPO, 'build', 'bin', 'talb-scenario')
NAME_MAX = 255  # bytes in a file name (Linux)
DONE = 'DONE'
FAILED = 'FAILED'
POINT_JSON = 'point.json'
SWEEP_JSON = 'sweep.json'
TMP = '.tmp'
SLURM_DIR = '.slurm'  # job scripts, task lists, SLURM logs and jobs.json of the slurm backend
JOBS_JSON = 'jobs.json'
SLURM_CMD_TIMEOUT_S = 120
SLURM_GRACE_POLLS = 2  # polls to wait for a finished task's files on a shared file system
RESERVED = ('out', 'seed')  # the sweep sets these itself
NAME_RE = re.compile(r'^[A-Za-z_][A-Za-z0-9_.:-]*$')
TAIL_LINES = 10
POLL_S = 0.05
STOP_GRACE_S = 5.0
EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 1, 2, 130


class SweepError(Exception):
    """A bad grid, option or output folder; the message says which and why."""


Point = collections.namedtuple('Point', 'name params')


def value_text(value, where, allow_empty=False):
    """The command-line text of a grid value (JSON numbers and booleans as JSON writes them).
    Only a fixed value may be empty (``"jobs": ""``: a run with no job); an empty axis value is
    almost always a stray comma."""
    if isinstance(value, str):
        text = value.strip()
    elif isinstance(value, (bool, int, float)):
        text = json.dumps(value)
    else:
        raise SweepError('%s: values must be strings, numbers or booleans, not %r' % (where, value))
    if not text and not allow_empty:
        raise SweepError('%s: empty value' % where)
    return text


def check_name(name, where):
    if not NAME_RE.match(name):
        raise SweepError('%s: bad parameter name %r (letters, digits, _ . : -)' % (where, name))
    if name in RESERVED:
        raise SweepError('%s: %r is set by the sweep (use --seeds for seeds, --out for the folder)'
                         % (where, name))
    return name


def parse_seeds(text, where='--seeds'):
    """'1,2,5' / '1-3' / '1..3' / mixtures, or a list of ints: the seeds in order, no repeats."""
    if isinstance(text, list):
        items = [value_text(v, where) for v in text]
    elif isinstance(text, int) and not isinstance(text, bool):
        items = [str(text)]
    elif isinstance(text, str):
        items = [s.strip() for s in text.split(',')]
    else:
        raise SweepError('%s: expected seeds like 1,2,3 or 1-5, got %r' % (where, text))
    seeds = []
    for item in items:
        m = re.fullmatch(r'(\d+)(?:(?:-|\.\.)(\d+))?', item)
        if not m:
            raise SweepError('%s: bad seed %r (expected N or N-M)' % (where, item))
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if hi < lo:
            raise SweepError('%s: empty seed range %r' % (where, item))
        seeds.extend(range(lo, hi + 1))
    if not seeds:
        raise SweepError('%s: no seeds' % where)
    if len(set(seeds)) != len(seeds):
        raise SweepError('%s: repeated seed in %r' % (where, text))
    return seeds


def _axis(name, values, where):
    check_name(name, where)
    texts = [value_text(v, '%s: %s' % (where, name)) for v in values]
    if not texts:
        raise SweepError('%s: %s has no values' % (where, name))
    if len(set(texts)) != len(texts):
        raise SweepError('%s: %s repeats a value: %s' % (where, name, ','.join(texts)))
    return texts


def read_grid(path):
    """(axes, fixed, seeds or None) from a JSON or INI grid file."""
    if not os.path.isfile(path):
        raise SweepError('--grid: %s: no such file' % path)
    with open(path) as f:
        text = f.read()
    if path.endswith('.json') or text.lstrip().startswith('{'):
        return _read_json_grid(path, text)
    return _read_ini_grid(path, text)


def _read_json_grid(path, text):
    try:
        grid = json.loads(text)
    except json.JSONDecodeError as e:
        raise SweepError('%s: not valid JSON (%s)' % (path, e)) from None
    if not isinstance(grid, dict):
        raise SweepError('%s: expected an object with "grid", "fixed", "seeds"' % path)
    unknown = sorted(set(grid) - {'grid', 'fixed', 'seeds'})
    if unknown:
        raise SweepError('%s: unknown key%s %s (expected "grid", "fixed", "seeds")'
                         % (path, 's' if len(unknown) > 1 else '', ', '.join(unknown)))
    axes, fixed = {}, {}
    for name, values in grid.get('grid', {}).items():
        if not isinstance(values, list):
            values = [values]
        axes[name] = _axis(name, values, path + ': grid')
    for name, value in grid.get('fixed', {}).items():
        check_name(name, path + ': fixed')
        fixed[name] = value_text(value, '%s: fixed: %s' % (path, name), allow_empty=True)
    seeds = parse_seeds(grid['seeds'], path + ': seeds') if 'seeds' in grid else None
    return axes, fixed, seeds


def _read_ini_grid(path, text):
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # parameter names are case-sensitive
    try:
        parser.read_string(text, source=path)
    except configparser.Error as e:
        raise SweepError('%s: not a JSON or INI grid file (%s)' % (path, e)) from None
    unknown = sorted(set(parser.sections()) - {'grid', 'fixed', 'sweep'})
    if unknown:
        raise SweepError('%s: unknown section%s [%s] (expected [grid], [fixed], [sweep])'
                         % (path, 's' if len(unknown) > 1 else '', '], ['.join(unknown)))
    axes, fixed, seeds = {}, {}, None
    if parser.has_section('grid'):
        for name, values in parser.items('grid'):
            axes[name] = _axis(name, values.split(','), path + ': [grid]')
    if parser.has_section('fixed'):
        for name, value in parser.items('fixed'):
            fixed[check_name(name, path + ': [fixed]')] = value_text(value, path + ': ' + name,
                                                                    allow_empty=True)
    if parser.has_section('sweep'):
        for name, value in parser.items('sweep'):
            if name != 'seeds':
                raise SweepError('%s: [sweep] knows only "seeds", not %r' % (path, name))
            seeds = parse_seeds(value, path + ': seeds')
    return axes, fixed, seeds


def build_grid(args):
    """(axes, fixed, seeds): the grid file, then --param and --seeds on top of it."""
    axes, fixed, seeds = read_grid(args.grid) if args.grid else ({}, {}, None)
    for spec in args.param:
        name, sep, values = spec.partition('=')
        if not sep:
            raise SweepError('--param %s: expected name=v1,v2,...' % spec)
        name = name.strip()
        axes[name] = _axis(name, values.split(','), '--param')
        fixed.pop(name, None)
    both = sorted(set(axes) & set(fixed))
    if both:
        raise SweepError('%s: both a grid axis and fixed' % ', '.join(both))
    if args.seeds is not None:
        seeds = parse_seeds(args.seeds)
    return axes, fixed, seeds or [1]


def point_name(axes_values, seed):
    """Folder name of a point: axis=value pairs sorted by name, then seed (filesystem-safe).
    A name past a file name's 255 bytes (long job lists as an axis) keeps its first bytes and
    ends with a digest of the whole, then the seed: still one folder per point."""
    parts = ['%s=%s' % (k, urllib.parse.quote(v, safe='.+-_')) for k, v in sorted(axes_values)]
    name = ','.join(parts + ['seed=%d' % seed])
    if len(name) <= NAME_MAX:  # quoted: ASCII, a byte per character
        return name
    tail = ',~%s,seed=%d' % (hashlib.sha1(name.encode()).hexdigest()[:16], seed)
    return name[:NAME_MAX - len(tail)] + tail


def expand(axes, fixed, seeds):
    """Every point of the grid: axes in name order, values in the given order, seeds last."""
    names = sorted(axes)
    points = []
    for values in itertools.product(*(axes[n] for n in names)):
        for seed in seeds:
            params = dict(fixed)
            params.update(zip(names, values))
            params['seed'] = str(seed)
            points.append(Point(point_name(zip(names, values), seed), params))
    return points


def command(runner, params, out):
    """The runner's command line; a config file comes first so the other options override it."""
    order = sorted(params, key=lambda k: k != 'config')
    return [runner] + ['--%s=%s' % (k, params[k]) for k in order] + ['--out=' + out]


def is_done(out, point):
    """True if ``point`` finished in ``out`` with the same parameters (a mismatch is an error)."""
    folder = os.path.join(out, point.name)
    if not os.path.isfile(os.path.join(folder, DONE)):
        return False
    try:
        with open(os.path.join(folder, POINT_JSON)) as f:
            before = json.load(f)['parameters']
    except (OSError, ValueError, KeyError, TypeError):
        raise SweepError('%s: finished point without a readable %s: move it away or delete it'
                         % (folder, POINT_JSON)) from None
    if before != point.params:
        changed = sorted(k for k in set(before) | set(point.params)
                         if before.get(k) != point.params.get(k))
        raise SweepError('%s: finished with other parameters (%s); use another --out or delete it'
                         % (folder, ', '.join('%s: %s -> %s' % (k, before.get(k, '(unset)'),
                                                                  point.params.get(k, '(unset)'))
                                              for k in changed)))
    return True


def tail(path, lines=TAIL_LINES):
    try:
        with open(path, 'rb') as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 8192))
            text = f.read().decode('utf-8', 'replace')
    except OSError:
        return []
    return text.splitlines()[-lines:]


def clock(seconds):
    seconds = int(seconds)
    return '%d:%02d:%02d' % (seconds // 3600, seconds // 60 % 60, seconds % 60)


def read_json(path):
    """The JSON object in ``path``, or None if it is missing or unreadable."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def write_json(path, obj):
    with open(path, 'w') as f:
        json.dump(obj, f, indent=1)
        f.write('\n')


# ---- one point's life, the same under every backend ----

def prepare(runner, out, point):
    """Empty OUT/.tmp/NAME with its point.json; returns (command line, that folder)."""
    tmp = os.path.join(out, TMP, point.name)
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    cmd = command(runner, point.params, tmp)
    write_json(os.path.join(tmp, POINT_JSON),
               {'name': point.name, 'parameters': point.params, 'command': cmd})
    return cmd, tmp


def launch(cmd, tmp):
    """Starts a prepared point's runner, output to runner.out and runner.err in its folder."""
    with open(os.path.join(tmp, 'runner.out'), 'wb') as out, \
            open(os.path.join(tmp, 'runner.err'), 'wb') as err:
        # Own session: the terminal's Ctrl-C reaches only the sweep, which stops the runners.
        return subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                start_new_session=True)


def finish(out, point, code, seconds, tmp, signalled=None):
    """Records how a point's runner ended. Success (exit 0 and a run.json) writes DONE and moves
    the folder to OUT/NAME; anything else writes FAILED (why) and leaves it in OUT/.tmp. Returns
    why it failed, or None. ``signalled``: the signal that told the caller to stop the runner."""
    why = None
    if signalled is not None:
        why = 'stopped by signal %d' % signalled
    elif code < 0:
        why = 'killed by signal %d' % -code
    elif code != 0:
        why = 'exit status %d' % code
    elif not os.path.isfile(os.path.join(tmp, 'run.json')):
        why = 'exit status 0 but no run.json in its --out folder'
    if why is not None:
        write_json(os.path.join(tmp, FAILED), {'why': why, 'seconds': round(seconds, 3),
                                               'signal': signalled})
        return why
    write_json(os.path.join(tmp, DONE), {'exit': 0, 'seconds': round(seconds, 3),
                                         'finished': time.strftime('%Y-%m-%dT%H:%M:%S%z')})
    final = os.path.join(out, point.name)
    shutil.rmtree(final, ignore_errors=True)  # an unfinished copy from an older sweep
    os.rename(tmp, final)
    return None


# ---- backends: where the runners run ----

class Backend:
    """Runs the points of a sweep somewhere and reports each one as it finishes.

    ``run(points)`` returns True when every point has finished (or, detached, was handed over)
    and False when a signal interrupted it; ``stop()`` then ends what is still running and returns
    those points' names. Both go through prepare() and finish(), so the folders, markers and
    resume rules do not depend on the backend."""

    def __init__(self, runner, out, total, done_before):
        self.runner, self.out = runner, out
        self.total, self.finished = total, done_before
        self.failed = []
        self.t0 = time.monotonic()
        self.interrupted = False  # set by the SIGINT/SIGTERM handler, checked between steps

    def interrupt(self, signum, frame):
        self.interrupted = True

    def describe(self):
        """How the points will run, for the sweep's first line."""
        raise NotImplementedError

    def run(self, points):
        raise NotImplementedError

    def stop(self):
        raise NotImplementedError

    def report(self, point, why, seconds, logs=()):
        """The progress line of a finished point; for a failure, the tails of ``logs``."""
        self.finished += 1
        print('[%d/%d] %-6s %s (%.1f s; elapsed %s)'
              % (self.finished, self.total, 'ok' if why is None else 'FAILED', point.name,
                 seconds, clock(time.monotonic() - self.t0)), flush=True)
        if why is None:
            return
        self.failed.append(point.name)
        print('  %s after %.1f s' % (why, seconds), flush=True)
        for path in (p for p in logs if os.path.exists(p)):
            print('  last lines of %s:' % path, flush=True)
            for line in tail(path) or ['(empty)']:
                print('  | ' + line, flush=True)


class LocalBackend(Backend):
    """Runs points on this machine, at most ``parallel`` runner processes at a time."""

    def __init__(self, runner, out, total, done_before, parallel):
        super().__init__(runner, out, total, done_before)
        self.parallel = parallel
        self.running = {}  # Popen -> (point, start time, tmp folder)

    def describe(self):
        return 'with %d runner%s at a time' % (self.parallel, '' if self.parallel == 1 else 's')

    def run(self, points):
        queue = collections.deque(points)
        while (queue or self.running) and not self.interrupted:
            while queue and len(self.running) < self.parallel and not self.interrupted:
                point = queue.popleft()
                cmd, tmp = prepare(self.runner, self.out, point)
                self.running[launch(cmd, tmp)] = (point, time.monotonic(), tmp)
            time.sleep(POLL_S)
            self.reap()
        return not self.interrupted

    def reap(self):
        for proc in [p for p in self.running if p.poll() is not None]:
            point, t0, tmp = self.running.pop(proc)
            seconds = time.monotonic() - t0
            why = finish(self.out, point, proc.returncode, seconds, tmp)
            self.report(point, why, seconds, [os.path.join(tmp, 'runner.err')])

    def stop(self):
        """Terminate every running runner (its process group), then kill what is left."""
        self.reap()  # a runner that finished just now keeps its result
        for proc in self.running:
            _signal_group(proc, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        for proc in self.running:
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGKILL)
                proc.wait()
        stopped = [point.name for point, _, _ in self.running.values()]
        self.running.clear()
        return stopped


def _signal_group(proc, sig):
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass


class SlurmError(SweepError):
    """A SLURM command failed; the message has its command line and output."""


def slurm(*cmd, check=True):
    """Runs a SLURM client command; its stdout, or SlurmError naming it and its stderr."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=SLURM_CMD_TIMEOUT_S)
    except FileNotFoundError:
        raise SlurmError('%s: not found' % cmd[0]) from None
    except subprocess.TimeoutExpired:
        raise SlurmError('%s: no answer within %d s' % (' '.join(cmd), SLURM_CMD_TIMEOUT_S)) \
            from None
    if check and r.returncode != 0:
        raise SlurmError('%s: exit status %d: %s' % (' '.join(cmd), r.returncode,
                                                     r.stderr.strip() or r.stdout.strip()))
    return r.stdout if check else r


class SlurmBackend(Backend):
    """Runs points as the tasks of SLURM array jobs and follows them with squeue.

    Each task runs ``talb-sweep.py --run-task=LIST`` on a compute node, which runs one prepared
    point and finishes it there (DONE and the move, or FAILED), so results land even if this
    process is gone. This process submits, polls squeue, and reports each task that leaves the
    queue from its folder; a task that left no DONE or FAILED behind (time limit, memory,
    scancel, node failure) is reported with the state sacct (or scontrol) gives and the tail of
    its SLURM log. Submitted jobs are recorded in OUT/.slurm/jobs.json: a rerun follows the
    tasks still queued or running instead of submitting their points again."""

    def __init__(self, runner, out, total, done_before, sbatch_args, throttle, poll_s, detach):
        super().__init__(runner, out, total, done_before)
        self.sbatch_args, self.throttle = sbatch_args, throttle
        self.poll_s, self.detach = poll_s, detach
        self.dir = os.path.join(out, SLURM_DIR)
        self.tracked = {}  # (array job id, task index) -> (point, SLURM log)
        self.gone = {}  # tasks out of the queue with no DONE or FAILED yet -> polls since
        self.submitted = []  # job ids submitted by this run

    def describe(self):
        return 'as SLURM array job tasks%s' % (
            ' (at most %d at a time)' % self.throttle if self.throttle else '')

    # -- submitting --

    def sbatch_command(self, script, count, job_hint='%A'):
        array = '0-%d' % (count - 1) + ('%%%d' % self.throttle if self.throttle else '')
        return (['sbatch', '--parsable', '--array=' + array,
                 '--job-name=talb-sweep:' + os.path.basename(self.out),
                 '--output=' + os.path.join(self.dir, job_hint + '_%a.log')]
                + self.sbatch_args + [script])

    def submit(self, points):
        """Prepares ``points`` and submits them as one array job per MaxArraySize tasks."""
        os.makedirs(self.dir, exist_ok=True)
        size = max_array_size()
        for first in range(0, len(points), size):
            chunk = points[first:first + size]
            for point in chunk:
                prepare(self.runner, self.out, point)
            stamp = '%s-%d' % (time.strftime('%Y%m%dT%H%M%S'), first)
            tasks = os.path.join(self.dir, 'tasks-%s.json' % stamp)
            write_json(tasks, {'out': self.out, 'points': [p.name for p in chunk]})
            script = os.path.join(self.dir, 'array-%s.sh' % stamp)
            with open(script, 'w') as f:
                f.write('#!/bin/sh\n# talb-sweep: array task i runs point i of %s\nexec %s %s '
                        '--run-task=%s\n' % (tasks, shlex.quote(sys.executable),
                                             shlex.quote(os.path.abspath(__file__)),
                                             shlex.quote(tasks)))
            os.chmod(script, 0o755)
            job = slurm(*self.sbatch_command(script, len(chunk))).strip().split(';')[0]
            if not job.isdigit():
                raise SlurmError('sbatch printed %r, expected a job id' % job)
            self.record(job, tasks)
            self.submitted.append(job)
            print('sweep: submitted %d point%s as SLURM array job %s'
                  % (len(chunk), '' if len(chunk) == 1 else 's', job), flush=True)
            for index, point in enumerate(chunk):
                self.tracked[(job, str(index))] = (point, self.log(job, index))

    def log(self, job, index):
        return os.path.join(self.dir, '%s_%s.log' % (job, index))

    def record(self, job, tasks):
        jobs = self.jobs()
        jobs.append({'job': job, 'tasks': tasks,
                     'submitted': time.strftime('%Y-%m-%dT%H:%M:%S%z')})
        write_json(os.path.join(self.dir, JOBS_JSON), jobs)

    def jobs(self):
        jobs = read_json(os.path.join(self.dir, JOBS_JSON))
        return jobs if isinstance(jobs, list) else []

    # -- following --

    def queue(self):
        """{(array job id, task index): state} of this user's queued and running array tasks,
        or None when squeue did not answer."""
        r = slurm('squeue', '--noheader', '--array', '--user=%d' % os.getuid(),
                  '--format=%F %K %T', check=False)
        if r.returncode != 0:
            print('talb-sweep: warning: squeue failed (%s); trying again'
                  % (r.stderr.strip() or 'exit status %d' % r.returncode), file=sys.stderr,
                  flush=True)
            return None
        tasks = {}
        for line in r.stdout.splitlines():
            parts = line.split()
            if len(parts) == 3:
                tasks[(parts[0], parts[1])] = parts[2]
        return tasks

    def attach(self, points):
        """Follows the tasks of earlier submissions that still run one of ``points``; returns
        the points left to submit."""
        wanted = {p.name: p for p in points}
        records = self.jobs()
        queue = self.queue() if records else {}
        if queue is None:
            raise SlurmError('squeue failed: cannot tell which earlier tasks still run')
        for record in records:
            spec = read_json(record.get('tasks', '')) or {}
            for index, name in enumerate(spec.get('points', [])):
                key = (record['job'], str(index))
                if key not in queue or name not in wanted:
                    continue
                point = wanted.pop(name)
                before = read_json(os.path.join(self.out, TMP, name, POINT_JSON)) or {}
                if before.get('parameters') != point.params:
                    raise SweepError('%s is still %s in SLURM job %s_%s with other parameters; '
                                     'scancel %s or use another --out'
                                     % (name, queue[key].lower(), key[0], key[1], key[0]))
                self.tracked[key] = (point, self.log(*key))
        if self.tracked:
            jobs = sorted(set(job for job, _ in self.tracked))
            print('sweep: following %d point%s still queued or running in SLURM job%s %s'
                  % (len(self.tracked), '' if len(self.tracked) == 1 else 's',
                     '' if len(jobs) == 1 else 's', ', '.join(jobs)), flush=True)
        return [p for p in points if p.name in wanted]

    def run(self, points):
        for tool in ('sbatch', 'squeue', 'scancel'):
            if not shutil.which(tool):
                raise SlurmError('%s: not found (is this a SLURM submit host? '
                                 'scripts/slurm-local-cluster.sh starts a one-node cluster)'
                                 % tool)
        todo = self.attach(points)
        if todo:
            self.submit(todo)
        if self.detach:
            return True
        while self.tracked and not self.interrupted:
            self.sleep()
            queue = self.queue()
            if queue is not None:
                self.collect(queue)
        return not self.interrupted

    def sleep(self):
        deadline = time.monotonic() + self.poll_s
        while time.monotonic() < deadline and not self.interrupted:
            time.sleep(min(POLL_S * 4, self.poll_s))

    def collect(self, queue):
        """Reports the tracked tasks that have left the queue."""
        for key in [k for k in self.tracked if k not in queue]:
            point, log = self.tracked[key]
            final = os.path.join(self.out, point.name)
            tmp = os.path.join(self.out, TMP, point.name)
            done = read_json(os.path.join(final, DONE))
            failed = read_json(os.path.join(tmp, FAILED))
            if done is None and failed is None:
                # On a shared file system the task's last writes may show up a little later.
                self.gone[key] = self.gone.get(key, 0) + 1
                if self.gone[key] <= SLURM_GRACE_POLLS:
                    continue
                why = 'ended without finishing (SLURM: %s)' % slurm_state(*key)
                self.report(point, why, 0.0, [os.path.join(tmp, 'runner.err'), log])
            elif done is not None:
                self.report(point, None, float(done.get('seconds', 0)))
            else:
                why = failed.get('why', 'failed')
                if failed.get('signal'):  # SLURM ended it: say why
                    why += ' (SLURM: %s)' % slurm_state(*key)
                self.report(point, why, float(failed.get('seconds', 0)),
                            [os.path.join(tmp, 'runner.err'), log])
            del self.tracked[key]
            self.gone.pop(key, None)

    def stop(self):
        """Cancels the tasks still queued or running (scancel); returns their points."""
        queue = self.queue()
        if queue is not None:
            self.collect(queue)
        stopped = [point.name for point, _ in self.tracked.values()]
        if self.tracked:
            slurm('scancel', *sorted('%s_%s' % k for k in self.tracked), check=False)
        self.tracked.clear()
        return stopped


def max_array_size():
    """The cluster's MaxArraySize (tasks per array job), 1001 where scontrol does not say."""
    try:
        text = slurm('scontrol', 'show', 'config')
    except SlurmError:
        return 1001
    m = re.search(r'^MaxArraySize\s*=\s*(\d+)', text, re.M)
    return max(1, int(m.group(1))) if m else 1001


def slurm_state(job, index):
    """How SLURM says an array task ended: sacct's state and exit code, else scontrol's."""
    task = '%s_%s' % (job, index)
    r = slurm('sacct', '--noheader', '--parsable2', '--allocations', '--jobs=' + task,
              '--format=State,ExitCode,Elapsed', check=False)
    lines = r.stdout.splitlines() if r.returncode == 0 else []
    if lines:
        state, code, elapsed = (lines[0].split('|') + ['', '', ''])[:3]
        return 'state %s, exit code %s, elapsed %s' % (state, code, elapsed)
    r = slurm('scontrol', '--oneliner', 'show', 'job', task, check=False)
    fields = {}
    if r.returncode == 0:
        fields = dict(f.split('=', 1) for f in r.stdout.split() if '=' in f)
    if 'JobState' in fields:
        return 'state %s, reason %s, exit code %s' % (
            fields['JobState'], fields.get('Reason', '?'), fields.get('ExitCode', '?'))
    return 'no record in sacct or scontrol'


def run_task(task_file):
    """An array task (on a compute node): runs point SLURM_ARRAY_TASK_ID of ``task_file``."""
    spec = read_json(task_file)
    index = os.environ.get('SLURM_ARRAY_TASK_ID', '')
    if not spec or not index.isdigit() or int(index) >= len(spec.get('points', [])):
        print('talb-sweep: --run-task=%s: no point for SLURM_ARRAY_TASK_ID=%r'
              % (task_file, index), file=sys.stderr)
        return EXIT_USAGE
    out, name = spec['out'], spec['points'][int(index)]
    tmp = os.path.join(out, TMP, name)
    about = read_json(os.path.join(tmp, POINT_JSON))
    if not about:
        print('talb-sweep: %s: no readable %s' % (tmp, POINT_JSON), file=sys.stderr)
        return EXIT_USAGE
    print('talb-sweep: task %s on %s runs %s' % (index, os.uname().nodename, name), flush=True)
    t0 = time.monotonic()
    proc = launch(about['command'], tmp)
    signalled = []

    def stop(signum, frame):
        # SLURM ends a cancelled, timed-out or preempted task with SIGTERM: pass it on to the
        # runner's session (outside the task's process group) and record it.
        signalled.append(signum)
        _signal_group(proc, signum)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, stop)
    code = proc.wait()
    seconds = time.monotonic() - t0
    why = finish(out, Point(name, about['parameters']), code, seconds, tmp,
                 signalled[0] if signalled else None)
    print('talb-sweep: %s %s after %.1f s' % (name, why or 'ok', seconds), flush=True)
    return 0 if why is None else EXIT_FAILED


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog='talb-sweep.py',
        description='Run a grid of talb scenarios, here (in parallel) or as SLURM array jobs; '
                    'rerunning skips finished points.')
    p.add_argument('--runner', default=DEFAULT_RUNNER,
                   help='scenario program (default: build/bin/talb-scenario of this repository)')
    p.add_argument('--grid', metavar='FILE', help='JSON or INI grid file (axes, fixed, seeds)')
    p.add_argument('--param', action='append', default=[], metavar='NAME=V1,V2,...',
                   help='a grid axis (repeatable; overrides the grid file)')
    p.add_argument('--seeds', help='seeds: 1,2,3 or 1-5 (default: the grid file\'s, else 1)')
    p.add_argument('--parallel', type=int, metavar='N',
                   help='runners at a time (local default: number of cores, %d here; slurm: '
                        'array throttle, default no limit)' % (os.cpu_count() or 1))
    # The runner's --jobs is its job specs: the sweep's old name for --parallel is refused.
    p.add_argument('--jobs', dest='renamed_jobs', nargs='?', const='', help=argparse.SUPPRESS)
    p.add_argument('--out', help='sweep folder (one subfolder per point; required)')
    p.add_argument('--dry-run', action='store_true',
                   help='list the points, their status and command lines (and the sbatch '
                        'command); run nothing')
    p.add_argument('--backend', choices=('local', 'slurm'), default='local',
                   help='local: runner processes on this machine (default); slurm: one sbatch '
                        '--array job, followed with squeue (results land in the same folders)')
    s = p.add_argument_group('slurm backend (only with --backend=slurm)')
    s.add_argument('--partition', help='sbatch --partition (default: the cluster\'s default)')
    s.add_argument('--time', help='sbatch --time: limit per point, e.g. 30 or 2:00:00')
    s.add_argument('--mem', help='sbatch --mem: memory per point, e.g. 4G')
    s.add_argument('--cpus-per-task', type=int,
                   help='sbatch --cpus-per-task (default: the cluster\'s, usually 1)')
    s.add_argument('--sbatch-arg', action='append', default=[], metavar='ARG',
                   help='any other sbatch option, repeatable: --sbatch-arg=--account=lab '
                        '--sbatch-arg=--qos=short')
    s.add_argument('--poll', type=float, default=10.0, metavar='SECONDS',
                   help='seconds between squeue polls (default %(default)s)')
    s.add_argument('--detach', action='store_true',
                   help='submit and exit; rerun the same command (without --detach) to follow '
                        'the tasks still running and collect their results')
    p.add_argument('--run-task', metavar='LIST', help=argparse.SUPPRESS)  # an array task
    args = p.parse_args(argv)
    if args.run_task:
        return args
    if not args.out:
        p.error('the following arguments are required: --out')
    if args.renamed_jobs is not None:
        p.error('--jobs is now --parallel=N (runners at a time); the runner\'s --jobs (its job '
                'specs) is a grid parameter: --param "jobs=SPEC" or "jobs" in the grid file')
    if args.parallel is not None and args.parallel < 1:
        p.error('--parallel must be >= 1, got %d' % args.parallel)
    if args.backend == 'local':
        given = [o for o, v in (('--partition', args.partition), ('--time', args.time),
                                ('--mem', args.mem), ('--cpus-per-task', args.cpus_per_task),
                                ('--sbatch-arg', args.sbatch_arg), ('--detach', args.detach))
                 if v]
        if given:
            p.error('%s only with --backend=slurm' % ', '.join(given))
        args.parallel = args.parallel or os.cpu_count() or 1
    if args.cpus_per_task is not None and args.cpus_per_task < 1:
        p.error('--cpus-per-task must be >= 1, got %d' % args.cpus_per_task)
    if not args.poll > 0:
        p.error('--poll must be > 0, got %s' % args.poll)
    return args


def sbatch_args(args):
    """The resource options for sbatch, in the order given."""
    named = [('--partition', args.partition), ('--time', args.time), ('--mem', args.mem),
             ('--cpus-per-task', args.cpus_per_task)]
    return ['%s=%s' % (o, v) for o, v in named if v is not None] + list(args.sbatch_arg)


def make_backend(args, runner, out, total, done):
    if args.backend == 'slurm':
        return SlurmBackend(runner, out, total, done, sbatch_args(args), args.parallel, args.poll,
                            args.detach)
    return LocalBackend(runner, out, total, done, args.parallel)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.run_task:
        return run_task(args.run_task)
    out = os.path.abspath(args.out)
    runner = os.path.abspath(args.runner)
    try:
        axes, fixed, seeds = build_grid(args)
        points = expand(axes, fixed, seeds)
        done = set(p.name for p in points if is_done(out, p))
    except SweepError as e:
        print('talb-sweep: error: %s' % e, file=sys.stderr)
        return EXIT_USAGE
    todo = [p for p in points if p.name not in done]
    backend = make_backend(args, runner, out, len(points), len(done))
    print('sweep: %d point%s (%s x seeds %s), %d done, %d to run %s in %s'
          % (len(points), '' if len(points) == 1 else 's',
             ' x '.join('%s[%d]' % (k, len(v)) for k, v in sorted(axes.items())) or 'no axes',
             ','.join(map(str, seeds)), len(done), len(todo), backend.describe(), out),
          flush=True)
    if args.dry_run:
        try:
            for p in points:
                status = 'done' if p.name in done else 'to run'
                print('%-6s %s\n       %s' % (status, p.name,
                                              ' '.join(command(runner, p.params,
                                                               os.path.join(out, TMP, p.name)))))
            if args.backend == 'slurm' and todo:
                print('sbatch: %s' % ' '.join(backend.sbatch_command(
                    os.path.join(out, SLURM_DIR, 'array-STAMP.sh'), len(todo), job_hint='JOB')))
            sys.stdout.flush()
        except BrokenPipeError:
            # The reader stopped early (| head): it has what it asked for. Python would
            # otherwise fail again flushing stdout at exit.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    if todo and not (os.path.isfile(runner) and os.access(runner, os.X_OK)):
        print('talb-sweep: error: --runner %s: not an executable file (build it first, or give '
              '--runner=PATH)' % runner, file=sys.stderr)
        return EXIT_USAGE
    os.makedirs(out, exist_ok=True)
    write_json(os.path.join(out, SWEEP_JSON),
               {'axes': sorted(axes), 'fixed': fixed, 'seeds': seeds, 'runner': runner})
    # Signals only set a flag: the sweep never stops half-way through starting or finishing a point.
    previous = {sig: signal.signal(sig, backend.interrupt)
                for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        finished = backend.run(todo)
        stopped = [] if finished else backend.stop()  # a second Ctrl-C does not cut this short
    except SweepError as e:
        print('talb-sweep: error: %s' % e, file=sys.stderr)
        return EXIT_USAGE
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if not finished:
        print('talb-sweep: interrupted after %s: stopped %d running point%s (%s); their partial '
              'output is in %s; rerun the same command to resume'
              % (clock(time.monotonic() - backend.t0), len(stopped),
                 '' if len(stopped) == 1 else 's', ', '.join(stopped) or 'none',
                 os.path.join(out, TMP)), file=sys.stderr)
        return EXIT_INTERRUPTED
    if args.backend == 'slurm' and args.detach:
        print('sweep: detached; %d point%s queued or running; rerun the same command without '
              '--detach to follow them' % (len(backend.tracked),
                                            '' if len(backend.tracked) == 1 else 's'))
        return 0
    ok = len(todo) - len(backend.failed)
    print('sweep: %d ran ok, %d failed, %d were done before; elapsed %s'
          % (ok, len(backend.failed), len(done), clock(time.monotonic() - backend.t0)))
    if backend.failed:
        print('talb-sweep: failed points (output kept in %s; rerun to retry them):\n  %s'
              % (os.path.join(out, TMP), '\n  '.join(backend.failed)), file=sys.stderr)
        return EXIT_FAILED
    return 0


if __name__ == '__main__':
    sys.exit(main())
