#!/usr/bin/python3
"""Prints talb-scenario's comparison table for run folders of the testbed (or the simulator).

Usage: talb-testbed-table.py RUN_DIR [RUN_DIR ...]

Each RUN_DIR holds a run.json and the simulator's CSVs (flows.csv, iterations.csv), as
talb-leafspine.sh writes them. The first run is the baseline of the 'speedup' and the reduction
line. The columns and their arithmetic are TalbScenarioReport::PrintTable's: FCTs in whole
microseconds (truncated), percentiles interpolated linearly between ranks, 'hi-prio' = tensor
messages of priority 0 or 1, iteration time = mean over (job, iteration) of the slowest worker,
iterations below the run's 'warmup' parameter left out; 'ideal' = run.json's per-job
ideal_iteration_ms averaged over the same (job, iteration) pairs ('-' when a job has none, as
for testbed runs), 'x ideal' = iteration time / ideal; 'iters done' counts worker iterations
(rows of iterations.csv) against run.json's iterations_expected, or against themselves when the
run is complete (the testbed measures no iterations: 0/0).
Plain stdlib: runs without pandas.
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
        us = float(int(row['fct_ns']) // 1000)
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
    ideals = {int(j['job']): j.get('ideal_iteration_ms') for j in run.get('jobs', [])}
    timed_ideals = [ideals.get(int(job)) for (job, iteration) in slowest
                    if int(iteration) >= warmup]
    ideal_ms = (sum(timed_ideals) / len(timed_ideals)
                if timed_ideals and all(i is not None for i in timed_ideals) else 0.0)
    expected = run.get('iterations_expected', len(iterations) if run.get('complete') else None)
    return {
        'scheme': run['scheme'],
        'tensor': len(tensor),
        'avg': mean(tensor),
        'p99': percentile(tensor, 99),
        'high': mean(high),
        'bg': len(background),
        'bg_avg': mean(background),
        'bg_p99': percentile(background, 99),
        'iter_ms': mean(timed),
        'ideal_ms': ideal_ms,
        'iters_done': len(iterations),
        'iters_expected': '?' if expected is None else str(expected),
    }


def table(results):
    base = results[0]
    lines = [
        '%-12s%9s%12s%12s%12s%9s%12s%12s%12s%10s%8s%10s%10s' % (
            'scheme', 'tensor', 'avg FCT', 'p99 FCT', 'hi-prio avg', 'bg', 'bg avg', 'bg p99',
            'iter time', 'ideal', 'x', 'speedup', 'iters'),
        '%-12s%9s%12s%12s%12s%9s%12s%12s%12s%10s%8s%10s%10s' % (
            '', 'msgs', '(us)', '(us)', 'FCT (us)', 'flows', 'FCT (us)', 'FCT (us)', '(ms)',
            '(ms)', 'ideal', 'vs ' + base['scheme'], 'done'),
    ]
    for r in results:
        speedup = base['iter_ms'] / r['iter_ms'] if r['iter_ms'] > 0 else 0.0
        if r['ideal_ms'] > 0:
            ideal = '%10.3f%8.2f' % (r['ideal_ms'], r['iter_ms'] / r['ideal_ms'])
        else:
            ideal = '%10s%8s' % ('-', '-')
        lines.append('%-12s%9d%12.1f%12.1f%12.1f%9d%12.1f%12.1f%12.3f%s%10.3f%10s' % (
            r['scheme'], r['tensor'], r['avg'], r['p99'], r['high'], r['bg'], r['bg_avg'],
            r['bg_p99'], r['iter_ms'], ideal, speedup,
            '%d/%s' % (r['iters_done'], r['iters_expected'])))
    reduction = 'avg FCT reduction vs %s:' % base['scheme']
    for r in results:
        red = 100.0 * (1 - r['avg'] / base['avg']) if base['avg'] > 0 else 0.0
        reduction += '  %s %.1f %%' % (r['scheme'], red)
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
