#!/usr/bin/python3
"""Prints talb-scenario's comparison table for run folders of the testbed (or the simulator).

Usage: talb-testbed-table.py RUN_DIR [RUN_DIR ...]

Each RUN_DIR holds a run.json and the simulator's CSVs (flows.csv, iterations.csv), as
talb-leafspine.sh writes them. The first run is the baseline of the 'speedup' and the reduction
line. The columns and their arithmetic are TalbScenarioReport::PrintTable's: FCTs in microseconds
(exact), percentiles interpolated linearly between ranks, 'hi-prio' = tensor
messages of priority 0 or 1, iteration time = mean over (job, iteration) of the slowest worker,
iterations below the run's 'warmup' parameter left out; 'ideal' = run.json's per-job
ideal_iteration_ms averaged over the same (job, iteration) pairs ('-' when a job has none, as
for testbed runs), 'x ideal' = iteration time / ideal; with several jobs the scheme's line
leaves ideal and x ideal out and a line per job follows (its iteration time, ideal, x ideal and
speedup over the first run's same job); 'worker-iters done' counts worker iterations (rows of
iterations.csv) against run.json's iterations_expected, or against themselves when the run is
complete (the testbed measures no iterations: 0/0). A figure of nothing (no flows of a kind, no
iteration past the warm-up) is '-', as is the background count of a run without background
load. Plain stdlib: runs without pandas.
"""
import csv
import json
import math
import os
import sys


def percentile(values, p):
    if not values:
        return 0.0
    v = sorted(values)
    rank = p / 100.0 * (len(v) - 1)
    lo = int(math.floor(rank))
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (rank - lo)


def mean(values):
    return sum(values) / len(values) if values else 0.0


def read_rows(path):
    if not os.path.isfile(path):
        return []
    with open(path, newline='') as f:
        return list(csv.DictReader(f))


def summarise(folder):
    """One result row of the table, from a run folder."""
    with open(os.path.join(folder, 'run.json')) as f:
        run = json.load(f)
    tensor, high, background = [], [], []
    for row in read_rows(os.path.join(folder, 'flows.csv')):
        us = int(row['fct_ns']) / 1000.0
        if row['kind'] == 'background':
            background.append(us)
        else:
            tensor.append(us)
            if 0 <= int(row['priority']) <= 1:
                high.append(us)
    slowest = {}
    iterations = read_rows(os.path.join(folder, 'iterations.csv'))
    warmup = int(run.get('parameters', {}).get('warmup', 0))
    for row in iterations:
        key = (row['job'], row['iteration'])
        ms = (int(row['end_ns']) - int(row['start_ns'])) / 1e6
        slowest[key] = max(slowest.get(key, 0.0), ms)
    timed = [ms for (job, iteration), ms in slowest.items() if int(iteration) >= warmup]
    jobs = run.get('jobs', [])
    ideals = {int(j['job']): j.get('ideal_iteration_ms') for j in jobs}
    per_job = []
    for j in sorted(ideals):
        mine = [ms for (job, iteration), ms in slowest.items()
                if int(job) == j and int(iteration) >= warmup]
        per_job.append({'iter_ms': mean(mine), 'ideal_ms': ideals[j] or 0.0})
    timed_ideals = [ideals.get(int(job)) for (job, iteration) in slowest
                    if int(iteration) >= warmup]
    ideal_ms = (sum(timed_ideals) / len(timed_ideals)
                if timed_ideals and all(i is not None for i in timed_ideals) else 0.0)
    expected = run.get('iterations_expected', len(iterations) if run.get('complete') else None)
    bg_load = float(run.get('parameters', {}).get('bgLoad', 0) or 0)
    return {
        'scheme': run['scheme'],
        'tensor': len(tensor),
        'avg': mean(tensor),
        'all': len(tensor) + len(background),
        'all_avg': mean(tensor + background),
        'p99': percentile(tensor, 99),
        'high': mean(high),
        'high_count': len(high),
        'bg': len(background),
        'bg_asked': bg_load > 0 or len(background) > 0,
        'bg_avg': mean(background),
        'bg_p99': percentile(background, 99),
        'iter_ms': mean(timed),
        'ideal_ms': ideal_ms,
        'jobs': per_job,
        'iters_done': len(iterations),
        'iters_expected': '?' if expected is None else str(expected),
    }


def cell(width, known, value, precision):
    """``value`` in ``width`` columns, or '-' when there is nothing to show."""
    return '%*.*f' % (width, precision, value) if known else '%*s' % (width, '-')


def iteration_cells(measured, ideal, base_measured):
    """Iteration time, ideal, x ideal and speedup, as TalbScenarioReport prints them."""
    return (cell(12, measured > 0, measured, 3) + cell(10, ideal > 0, ideal, 3)
            + cell(8, measured > 0 and ideal > 0, measured / ideal if ideal else 0.0, 2)
            + cell(10, measured > 0 and base_measured > 0,
                   base_measured / measured if measured else 0.0, 3))


def table(results):
    base = results[0]
    per_job = len(base['jobs']) > 1
    lines = [
        '%-12s%9s%12s%12s%12s%9s%12s%12s%12s%10s%8s%10s%14s' % (
            'scheme', 'tensor', 'avg FCT', 'p99 FCT', 'hi-prio avg', 'bg', 'bg avg', 'bg p99',
            'iter time', 'ideal', 'x', 'speedup', 'worker-iters'),
        '%-12s%9s%12s%12s%12s%9s%12s%12s%12s%10s%8s%10s%14s' % (
            '', 'msgs', '(us)', '(us)', 'FCT (us)', 'flows', 'FCT (us)', 'FCT (us)', '(ms)',
            '(ms)', 'ideal', 'vs ' + base['scheme'], 'done'),
    ]
    for r in results:
        tensors, bg = r['tensor'] > 0, r['bg'] > 0
        line = '%-12s%9d' % (r['scheme'], r['tensor'])
        line += cell(12, tensors, r['avg'], 1) + cell(12, tensors, r['p99'], 1)
        line += cell(12, r['high_count'] > 0, r['high'], 1)
        line += '%9s' % (r['bg'] if r['bg_asked'] else '-')
        line += cell(12, bg, r['bg_avg'], 1) + cell(12, bg, r['bg_p99'], 1)
        line += iteration_cells(r['iter_ms'], 0.0 if per_job else r['ideal_ms'],
                                base['iter_ms'])
        line += '%14s' % ('%d/%s' % (r['iters_done'], r['iters_expected']))
        lines.append(line)
        for j, job in enumerate(r['jobs'] if per_job else []):
            theirs = base['jobs'][j]['iter_ms'] if j < len(base['jobs']) else 0.0
            lines.append('%-12s%78s' % ('  job %d' % j, '')
                         + iteration_cells(job['iter_ms'], job['ideal_ms'], theirs))
    for name, key, count in (('tensor messages', 'avg', 'tensor'),
                             ('all flows (tensor and background)', 'all_avg', 'all')):
        reduction = 'avg FCT reduction vs %s, %s:' % (base['scheme'], name)
        for r in results:
            known = base[count] > 0 and r[count] > 0
            reduction += '  %s %s' % (r['scheme'], '%.1f %%' % (100.0 * (1 - r[key] / base[key]))
                                      if known else '-')
        lines.append(reduction)
    return '\n'.join(lines)


def main(argv):
    if len(argv) < 2 or argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    try:
        results = [summarise(folder) for folder in argv[1:]]
    except (OSError, KeyError, ValueError) as e:
        print('talb-testbed-table: %s' % e, file=sys.stderr)
        return 2
    print(table(results))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
