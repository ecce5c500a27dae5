#!/usr/bin/python3
"""Run a grid of talb scenarios (selectors x loads x models x seeds ...) in parallel, resumably.

Each point of the grid runs ``RUNNER --name=value ... --seed=N --out=DIR`` once and gets its own
folder OUT/<name>, named from the grid axes in alphabetical order with the seed last, e.g.
``OUT/lb=talb,load=0.5,model=vgg19,seed=2``. A point runs in OUT/.tmp/<name>; only after the runner
exits 0 (and wrote run.json) does it get a DONE marker and move to OUT/<name>, so a folder with DONE
is a finished point. Rerunning the same command skips finished points and redoes the others.
doc/talb-analysis.rst describes the grid file formats.
"""
import argparse
import collections
import configparser
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_RUNNER = os.path.join(REPO, 'build', 'bin', 'talb-scenario')
DONE = 'DONE'
POINT_JSON = 'point.json'
SWEEP_JSON = 'sweep.json'
TMP = '.tmp'
RESERVED = ('out', 'seed')  # the sweep sets these itself
NAME_RE = re.compile(r'^[A-Za-z_][A-Za-z0-9_.:-]*$')
TAIL_LINES = 10
POLL_S = 0.05
STOP_GRACE_S = 5.0
EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 1, 2, 130


class SweepError(Exception):
    """A bad grid, option or output folder; the message says which and why."""


Point = collections.namedtuple('Point', 'name params')


def value_text(value, where):
    """The command-line text of a grid value (JSON numbers and booleans as JSON writes them)."""
    if isinstance(value, str):
        text = value.strip()
    elif isinstance(value, (bool, int, float)):
        text = json.dumps(value)
    else:
        raise SweepError('%s: values must be strings, numbers or booleans, not %r' % (where, value))
    if not text:
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
        fixed[name] = value_text(value, '%s: fixed: %s' % (path, name))
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
            fixed[check_name(name, path + ': [fixed]')] = value_text(value, path + ': ' + name)
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
    """Folder name of a point: axis=value pairs sorted by name, then seed (filesystem-safe)."""
    parts = ['%s=%s' % (k, urllib.parse.quote(v, safe='.+-_')) for k, v in sorted(axes_values)]
    return ','.join(parts + ['seed=%d' % seed])


def expand(axes, fixed, seeds):
    """Every point of the grid: axes in name order, values in the given order, seeds last."""
    names = sorted(axes)
    points = []
    for values in itertools.product(*(axes[n] for n in names)):
        for seed in seeds:
            params = dict(fixed)
            params.update(zip(names, values))
            params['seed'] = str(seed)
            name = point_name(zip(names, values), seed)
            if len(name.encode()) > 255:
                raise SweepError('point folder name longer than 255 bytes: %s...' % name[:60])
            points.append(Point(name, params))
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


class Sweep:
    """Runs points with at most ``jobs`` runner processes at a time (each in its own session)."""

    def __init__(self, runner, out, jobs, total, done_before):
        self.runner, self.out, self.jobs = runner, out, jobs
        self.total, self.finished = total, done_before
        self.running = {}  # Popen -> (point, start time, tmp folder)
        self.failed = []
        self.t0 = time.monotonic()
        self.interrupted = False  # set by the SIGINT/SIGTERM handler, checked between steps

    def interrupt(self, signum, frame):
        self.interrupted = True

    def start(self, point):
        tmp = os.path.join(self.out, TMP, point.name)
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        cmd = command(self.runner, point.params, tmp)
        with open(os.path.join(tmp, POINT_JSON), 'w') as f:
            json.dump({'name': point.name, 'parameters': point.params, 'command': cmd}, f,
                      indent=1)
            f.write('\n')
        with open(os.path.join(tmp, 'runner.out'), 'wb') as out, \
                open(os.path.join(tmp, 'runner.err'), 'wb') as err:
            # Own session: the terminal's Ctrl-C reaches only the sweep, which stops the runners.
            proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                    start_new_session=True)
        self.running[proc] = (point, time.monotonic(), tmp)

    def reap(self):
        for proc in [p for p in self.running if p.poll() is not None]:
            point, t0, tmp = self.running.pop(proc)
            self.complete(point, proc.returncode, time.monotonic() - t0, tmp)

    def complete(self, point, code, seconds, tmp):
        self.finished += 1
        why = None
        if code < 0:
            why = 'killed by signal %d' % -code
        elif code != 0:
            why = 'exit status %d' % code
        elif not os.path.isfile(os.path.join(tmp, 'run.json')):
            why = 'exit status 0 but no run.json in its --out folder'
        if why is None:
            with open(os.path.join(tmp, DONE), 'w') as f:
                json.dump({'exit': 0, 'seconds': round(seconds, 3),
                           'finished': time.strftime('%Y-%m-%dT%H:%M:%S%z')}, f)
                f.write('\n')
            final = os.path.join(self.out, point.name)
            shutil.rmtree(final, ignore_errors=True)  # an unfinished copy from an older sweep
            os.rename(tmp, final)
        self.progress('ok' if why is None else 'FAILED', point, seconds)
        if why is not None:
            err = os.path.join(tmp, 'runner.err')
            self.failed.append(point.name)
            print('  %s after %.1f s; last lines of %s:' % (why, seconds, err), flush=True)
            for line in tail(err) or ['(empty)']:
                print('  | ' + line, flush=True)

    def progress(self, what, point, seconds):
        print('[%d/%d] %-6s %s (%.1f s; elapsed %s)'
              % (self.finished, self.total, what, point.name, seconds,
                 clock(time.monotonic() - self.t0)), flush=True)

    def run(self, points):
        """Runs ``points``; False if interrupted (the runners still going are left to stop())."""
        queue = collections.deque(points)
        while (queue or self.running) and not self.interrupted:
            while queue and len(self.running) < self.jobs and not self.interrupted:
                self.start(queue.popleft())
            time.sleep(POLL_S)
            self.reap()
        return not self.interrupted

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


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog='talb-sweep.py',
        description='Run a grid of talb scenarios in parallel; rerunning skips finished points.')
    p.add_argument('--runner', default=DEFAULT_RUNNER,
                   help='scenario program (default: build/bin/talb-scenario of this repository)')
    p.add_argument('--grid', metavar='FILE', help='JSON or INI grid file (axes, fixed, seeds)')
    p.add_argument('--param', action='append', default=[], metavar='NAME=V1,V2,...',
                   help='a grid axis (repeatable; overrides the grid file)')
    p.add_argument('--seeds', help='seeds: 1,2,3 or 1-5 (default: the grid file\'s, else 1)')
    p.add_argument('--jobs', type=int, default=os.cpu_count() or 1,
                   help='runners at a time (default: number of cores, %(default)s here)')
    p.add_argument('--out', required=True, help='sweep folder (one subfolder per point)')
    p.add_argument('--dry-run', action='store_true',
                   help='list the points, their status and command lines; run nothing')
    args = p.parse_args(argv)
    if args.jobs < 1:
        p.error('--jobs must be >= 1, got %d' % args.jobs)
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
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
    print('sweep: %d point%s (%s x seeds %s), %d done, %d to run with %d job%s in %s'
          % (len(points), '' if len(points) == 1 else 's',
             ' x '.join('%s[%d]' % (k, len(v)) for k, v in sorted(axes.items())) or 'no axes',
             ','.join(map(str, seeds)), len(done), len(todo), args.jobs,
             '' if args.jobs == 1 else 's', out), flush=True)
    if args.dry_run:
        for p in points:
            status = 'done' if p.name in done else 'to run'
            print('%-6s %s\n       %s' % (status, p.name,
                                          ' '.join(command(runner, p.params,
                                                           os.path.join(out, TMP, p.name)))))
        return 0
    if todo and not (os.path.isfile(runner) and os.access(runner, os.X_OK)):
        print('talb-sweep: error: --runner %s: not an executable file (build it first, or give '
              '--runner=PATH)' % runner, file=sys.stderr)
        return EXIT_USAGE
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, SWEEP_JSON), 'w') as f:
        json.dump({'axes': sorted(axes), 'fixed': fixed, 'seeds': seeds, 'runner': runner}, f,
                  indent=1)
        f.write('\n')
    sweep = Sweep(runner, out, args.jobs, len(points), len(done))
    # Signals only set a flag: the sweep never stops half-way through starting or finishing a point.
    previous = {sig: signal.signal(sig, sweep.interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        finished = sweep.run(todo)
        stopped = [] if finished else sweep.stop()  # a second Ctrl-C does not cut this short
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if not finished:
        print('talb-sweep: interrupted after %s: stopped %d running point%s (%s); their partial '
              'output is in %s; rerun the same command to resume'
              % (clock(time.monotonic() - sweep.t0), len(stopped),
                 '' if len(stopped) == 1 else 's', ', '.join(stopped) or 'none',
                 os.path.join(out, TMP)), file=sys.stderr)
        return EXIT_INTERRUPTED
    ok = len(todo) - len(sweep.failed)
    print('sweep: %d ran ok, %d failed, %d were done before; elapsed %s'
          % (ok, len(sweep.failed), len(done), clock(time.monotonic() - sweep.t0)))
    if sweep.failed:
        print('talb-sweep: failed points (output kept in %s; rerun to retry them):\n  %s'
              % (os.path.join(out, TMP), '\n  '.join(sweep.failed)), file=sys.stderr)
        return EXIT_FAILED
    return 0


if __name__ == '__main__':
    sys.exit(main())
