"""Statistics of talb runs: FCT and slowdown, tensor completion, iteration time, speedup.

Definitions (doc/talb-analysis.rst repeats them):

- Percentiles use numpy's 'linear' method (Hyndman-Fan type 7, also pandas' default): the p-th
  percentile of n sorted values x[0..n-1] sits at position (n-1)*p/100, interpolated linearly.
- Size bins use decimal units (1 KB = 1000 bytes), closed on the left: <10KB, 10KB-100KB,
  100KB-1MB, 1MB-10MB, >=10MB.
- FCT statistics pool every flow of every run (every seed) in a group.
- Iteration time of a run: for each (job, iteration) after the warm-up, the longest worker
  iteration (max over workers of end_ns - start_ns); the run's value is the mean of those.
- Confidence intervals: 95 %, two-sided Student t over the per-run values in a group (one run per
  seed), mean +- t(0.975, n-1) * s / sqrt(n).
- Speedup of a scheme = baseline mean iteration time / scheme mean iteration time (ratio of
  means). Its CI comes from the per-seed ratios baseline/scheme when both have the same seeds.
- FCT reduction = 100 * (1 - avg FCT of the scheme / avg FCT of the baseline), per group.
"""
import math

import numpy as np
import pandas as pd

from .loading import TalbDataError

PERCENTILE_METHOD = 'linear'
CONFIDENCE = 0.95

# Two-sided 95 % Student t critical values t(0.975, df). Degrees of freedom between two entries use
# the smaller one, which widens the interval slightly (conservative); beyond 120 the normal value.
T95 = {
    1: 12.7062, 2: 4.3027, 3: 3.1824, 4: 2.7764, 5: 2.5706, 6: 2.4469, 7: 2.3646, 8: 2.3060,
    9: 2.2622, 10: 2.2281, 11: 2.2010, 12: 2.1788, 13: 2.1604, 14: 2.1448, 15: 2.1314,
    16: 2.1199, 17: 2.1098, 18: 2.1009, 19: 2.0930, 20: 2.0860, 21: 2.0796, 22: 2.0739,
    23: 2.0687, 24: 2.0639, 25: 2.0595, 26: 2.0555, 27: 2.0518, 28: 2.0484, 29: 2.0452,
    30: 2.0423, 40: 2.0211, 60: 2.0003, 120: 1.9799,
}
Z975 = 1.9600

SIZE_BIN_EDGES = [0, 10_000, 100_000, 1_000_000, 10_000_000, np.inf]
SIZE_BIN_LABELS = ['<10KB', '10KB-100KB', '100KB-1MB', '1MB-10MB', '>=10MB']
BACKGROUND_PRIORITY = -1


def percentile(values, q):
    """The q-th percentile (0..100) of ``values`` by :data:`PERCENTILE_METHOD`; NaN if empty."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return math.nan
    return float(np.percentile(values, q, method=PERCENTILE_METHOD))


def t_critical(df):
    """t(0.975, df) from :data:`T95` (largest tabulated df <= df; 1.96 beyond 120)."""
    if df < 1:
        raise ValueError('degrees of freedom must be >= 1, got %r' % df)
    if df > 120:
        return Z975
    return T95[max(d for d in T95 if d <= df)]


def mean_ci(values):
    """(mean, half width of the 95 % CI, n); the half width is NaN for fewer than two values."""
    values = np.asarray(values, dtype=float)
    n = values.size
    if n == 0:
        return math.nan, math.nan, 0
    mean = float(values.mean())
    if n < 2:
        return mean, math.nan, n
    return mean, t_critical(n - 1) * float(values.std(ddof=1)) / math.sqrt(n), n


def size_bin(sizes):
    """Size bin label of each flow size (categorical, ordered as :data:`SIZE_BIN_LABELS`)."""
    return pd.cut(sizes, SIZE_BIN_EDGES, right=False, labels=SIZE_BIN_LABELS)


# Run parameters that differ between runs without being an experiment factor.
NOT_FACTORS = {'seed', 'out', 'config', 'rngrun', 'rngseed'}
# Parameters the scheme column is made of (lb names the balancer; talb-v1 is lb=talb with
# lbAttributes Version=1): never a grouping key of their own, which would split the cells.
SCHEME_PARAMS = {'seed', 'lb'}
# What loading.scheme_label reads besides lb.
LABEL_PARAMS = ('lbAttributes', 'lbProfile', 'lbRulesOff', 'sprayPolicy', 'rdmaQpsPerConnection',
                'rdmaSplitMessages', 'rdmaSharedSourcePort', 'plb')


def group_keys(data, requested=None, axes=None):
    """The grouping keys: 'scheme' first, then run parameters.

    ``requested`` (--group-by) names them; otherwise a sweep's grid ``axes`` that take more than
    one value; otherwise every parameter that varies between the runs, except
    :data:`NOT_FACTORS`. The seed never groups (runs
    of a group are the seeds), and a parameter that maps one-to-one onto the scheme (such as the
    ``lb`` that selects it) is left out, so that groups of different schemes line up.
    """
    runs = data.runs
    if requested is not None:
        unknown = [k for k in requested if k not in runs.columns]
        if unknown:
            raise TalbDataError('--group-by: no run parameter named %s (parameters: %s)'
                                % (', '.join(unknown), ', '.join(data.parameter_names())))
        names = requested
    elif axes is not None:
        # An axis the sweep gave one value splits nothing: no column, no file name part.
        names = [a for a in axes if a in runs.columns and runs[a].astype(str).nunique() > 1]
    else:
        names = [p for p in data.parameter_names()
                 if p.lower() not in NOT_FACTORS and runs[p].astype(str).nunique() > 1
                 and not _predated(runs[p])]
    keys = ['scheme']
    for name in names:
        if name in keys or name in SCHEME_PARAMS or _same_as_scheme(runs, name):
            continue
        keys.append(name)
    # The balancer settings the scheme label reads group nothing the label and the other keys
    # do not already (TaLB over RDMA with its move rule given by hand, over TCP without).
    for name in LABEL_PARAMS:
        if name in keys:
            others = [k for k in keys if k != name]
            values = runs[name].fillna('').astype(str)
            if values.groupby([runs[k].astype(str) for k in others]).nunique().max() <= 1:
                keys.remove(name)
    return keys


def _predated(values):
    """True when ``values`` differ only in being absent: runs made before the runner had the
    parameter lack it, the others all give one value (its default then), so it splits no cell."""
    present = values.dropna()
    return len(present) < len(values) and present.astype(str).nunique() <= 1


def _same_as_scheme(runs, name):
    """True when ``name`` maps one-to-one onto the scheme, or is set (not empty) only in runs of
    schemes it maps one-to-one onto (e.g. lbAttributes=Version=1 of the talb-v1 runs)."""
    if _one_to_one(runs[name].astype(str), runs['scheme']):
        return True
    given = runs[name].notna() & (runs[name].astype(str) != '')
    if given.all() or not given.any():
        return False
    some = runs[given]
    return (_one_to_one(some[name].astype(str), some['scheme'])
            and not runs.loc[~given, 'scheme'].isin(set(some['scheme'])).any())


def _one_to_one(values, schemes):
    return (values.groupby(schemes).nunique().max() == 1
            and schemes.groupby(values).nunique().max() == 1)


def attach(table, runs, keys):
    """``table`` with the run columns in ``keys`` that it lacks, joined on run_id."""
    extra = [k for k in keys if k not in table.columns]
    if not extra:
        return table
    return table.join(runs[extra], on='run_id')


def _grouped(table, keys):
    return table.groupby(list(keys), sort=True, dropna=False, observed=True)


def groups(table, keys):
    """(tuple of key values, sub-table) per group of ``keys``; one group of all when empty."""
    keys = list(keys)
    if not keys:
        return [((), table)]
    # A one-key list would make pandas 1.5 warn about a future change of the key's type.
    by = keys[0] if len(keys) == 1 else keys
    return [(k if isinstance(k, tuple) else (k,), part)
            for k, part in table.groupby(by, sort=True, dropna=False, observed=True)]


def _pct(q):
    return lambda v: percentile(v, q)


def fct_summary(flows, keys):
    """count, avg/p50/p95/p99 FCT (us) and avg/p99 slowdown per group of ``keys``."""
    fct_us = flows['fct_ns'] / 1e3
    frame = flows[list(keys)].assign(fct_us=fct_us, slowdown=flows['slowdown'])
    g = _grouped(frame, keys)
    out = g['fct_us'].agg(count='size', fct_avg_us='mean', fct_p50_us=_pct(50),
                          fct_p95_us=_pct(95), fct_p99_us=_pct(99))
    out = out.join(g['slowdown'].agg(slowdown_avg='mean', slowdown_p99=_pct(99)))
    return out.reset_index()


FLOW_TABLES = ('fct', 'fct_priority', 'fct_size', 'hiprio_p99', 'bg_p99')


def flow_tables(data, keys, each_cell=None):
    """Every table the report draws from the flows, by name (:data:`FLOW_TABLES`): the three FCT
    tables (by group, by group and priority, by group and size bin) and the high-priority and
    background tails of :func:`cell_table`.

    The flows are taken one cell (group of ``keys``) at a time, so that a dataset that keeps
    its flows on disk never holds more than one cell's; each figure pools the cell's runs, so
    the tables are those of the whole table at once. ``each_cell(values, flows)``, when given,
    sees every cell's flows (e.g. to draw them)."""
    keys = list(keys)
    parts = {name: [] for name in FLOW_TABLES}
    for values, runs in groups(data.runs, keys):
        flows = attach(data.flows_of(runs.index), data.runs, keys)
        if flows.empty:
            continue
        for name, table in _cell_flow_tables(flows, keys).items():
            if not table.empty:
                parts[name].append(table)
        if each_cell is not None:
            each_cell(values, flows)
    # The columns of a table no cell has rows for, from an empty table.
    empty = (_cell_flow_tables(attach(data.flows_of([]), data.runs, keys), keys)
             if not all(parts.values()) else {})
    return {name: pd.concat(tables, ignore_index=name in FLOW_TABLES[:3]) if tables
            else empty[name] for name, tables in parts.items()}


def _cell_flow_tables(flows, keys):
    tables = {'fct': fct_summary(flows, keys),
              'fct_priority': fct_summary(flows, keys + ['priority'])}
    by_size = fct_summary(flows.assign(size_bin=size_bin(flows['size_bytes'])),
                          keys + ['size_bin'])
    by_size['size_bin'] = by_size['size_bin'].astype(str)
    tables['fct_size'] = by_size
    tables.update(_tails(flows, keys))
    return tables


def fct_tables(data, keys):
    """The three FCT tables: by group, by group and priority, by group and size bin."""
    tables = flow_tables(data, keys)
    return tables['fct'], tables['fct_priority'], tables['fct_size']


def tensor_tables(data, keys):
    """Tensor completion (comm_ns = done - ready): per group and priority, and per tensor."""
    tensors = attach(data.tensors, data.runs, keys)
    frame = tensors.assign(comm_us=tensors['comm_ns'] / 1e3)

    def summary(by):
        return _grouped(frame, by)['comm_us'].agg(
            count='size', comm_avg_us='mean', comm_p50_us=_pct(50), comm_p99_us=_pct(99),
            comm_max_us='max').reset_index()

    per_priority = summary(list(keys) + ['priority'])
    per_tensor = summary(list(keys) + ['job', 'tensor', 'name', 'priority', 'bytes'])
    return per_priority, per_tensor


def collective_table(data, keys, warmup=1):
    """Graph jobs' collective instances per group of ``keys`` and collective type (iterations
    from each job's ``warmup`` on, as for iteration time): count, mean and p99 duration (us),
    mean ideal (the instance's analytic bound on an idle fabric) and x ideal = total duration /
    total ideal (NaN where every ideal is 0, e.g. barriers)."""
    columns = list(keys) + ['type', 'count', 'dur_avg_us', 'dur_p99_us', 'ideal_avg_us',
                            'x_ideal']
    coll = data.collectives
    if coll.empty:
        return pd.DataFrame(columns=columns)
    first = coll.groupby(['run_id', 'job'])['iteration'].transform('min')
    coll = attach(coll[coll['iteration'] >= first + warmup], data.runs, keys)
    frame = coll[list(keys) + ['type']].assign(dur_us=(coll['end_ns'] - coll['start_ns']) / 1e3,
                                               ideal_us=coll['ideal_ns'] / 1e3)
    g = _grouped(frame, list(keys) + ['type'])
    out = g['dur_us'].agg(count='size', dur_avg_us='mean', dur_p99_us=_pct(99))
    out = out.join(g['ideal_us'].agg(ideal_avg_us='mean'))
    total = g[['dur_us', 'ideal_us']].sum()
    out['x_ideal'] = (total['dur_us'] / total['ideal_us']).where(total['ideal_us'] > 0)
    return out.reset_index()[columns]


# Losses of one connection with less than this between them are one episode: the connection
# kept sending into the link that whole time (a sender that moved off it and came back later,
# e.g. REPS exploring, starts another).
EPISODE_GAP_NS = 1_000_000


def loss_episodes(drops, gap_ns=EPISODE_GAP_NS):
    """link_drops.csv's data packets (tagged: job >= 0) as episodes, one row per run, cause,
    connection (addresses and destination port: a sprayed queue pair's source port varies) and
    episode: the losses in it and how long it lasted (first to last loss, us)."""
    columns = ['run_id', 'cause', 'src_ip', 'dst_ip', 'dst_port', 'losses', 'duration_us']
    data = drops[drops['job'] >= 0]
    if data.empty:
        return pd.DataFrame(columns=columns)
    conn = ['run_id', 'cause', 'src_ip', 'dst_ip', 'dst_port']
    data = data.sort_values(conn + ['time_ns'])
    gap = data.groupby(conn, sort=False)['time_ns'].diff()
    episode = (gap.isna() | (gap >= gap_ns)).cumsum().rename('episode')
    g = data.groupby(conn + [episode], sort=False)['time_ns']
    out = g.agg(losses='size', first='min', last='max').reset_index()
    out['duration_us'] = (out['last'] - out['first']) / 1e3
    return out[columns]


def link_loss_table(data, keys, gap_ns=EPISODE_GAP_NS):
    """Packets leaf-spine links lost, per group of ``keys`` and cause (failed: the link was
    down; loss: at random): per run all of them and the data packets, then the data packets'
    loss episodes (loss_episodes) per run, their mean losses and their duration (us: median,
    p90, max) -- how long a connection went on sending into a dead link once it lost a packet
    there: a spraying transport's re-route time. Runs of a group that lost nothing count."""
    columns = list(keys) + ['cause', 'runs', 'losses_per_run', 'data_losses_per_run',
                            'episodes_per_run', 'losses_per_episode', 'episode_p50_us',
                            'episode_p90_us', 'episode_max_us']
    if data.link_drops.empty:
        return pd.DataFrame(columns=columns)
    by = list(keys) or ['_all']
    runs = data.runs.assign(_all=0).reset_index()
    n_runs = runs.groupby(by, dropna=False)['run_id'].size().rename('runs')
    drops = attach(data.link_drops, data.runs, keys).assign(_all=0)
    lost = drops.groupby(by + ['cause'], dropna=False).agg(
        losses=('time_ns', 'size'), data_losses=('job', lambda j: int((j >= 0).sum())))
    episodes = attach(loss_episodes(data.link_drops, gap_ns), data.runs, keys).assign(_all=0)
    ep = episodes.groupby(by + ['cause'], dropna=False).agg(
        episodes=('losses', 'size'), losses_per_episode=('losses', 'mean'),
        episode_p50_us=('duration_us', _pct(50)), episode_p90_us=('duration_us', _pct(90)),
        episode_max_us=('duration_us', 'max'))
    out = lost.join(ep, how='left').reset_index().join(n_runs, on=by)
    out['losses_per_run'] = out['losses'] / out['runs']
    out['data_losses_per_run'] = out['data_losses'] / out['runs']
    out['episodes_per_run'] = out['episodes'].fillna(0) / out['runs']
    return out[columns]


def run_iteration_times(data, warmup=1):
    """Per run: mean iteration time (ms) after ``warmup`` iterations, how many were counted, and
    the mean job completion time (ms).

    An iteration's time is its longest worker (max over workers of end_ns - start_ns); each job
    skips its first ``warmup`` iteration numbers. Runs without counted iterations get NaN.
    A job's completion time (``jct_ms``) runs from its first iteration's start to its last
    iteration's end, warm-up included, averaged over the run's jobs: where jobs share a fabric
    and end at different times, the mean iteration after the warm-up can favour a scheme that
    starves a job during its warm-up (its later iterations then run alone); the completion time
    counts that wait.
    """
    it = data.iterations
    span = it.groupby(['run_id', 'job']).agg(first=('start_ns', 'min'), last=('end_ns', 'max'))
    jct = (span['last'] - span['first']).groupby(level='run_id').mean()
    first = it.groupby(['run_id', 'job'])['iteration'].transform('min')
    it = it[it['iteration'] >= first + warmup]
    per_iteration = (it.assign(duration=it['end_ns'] - it['start_ns'])
                     .groupby(['run_id', 'job', 'iteration'])['duration'].max())
    per_run = per_iteration.groupby(level='run_id').agg(['mean', 'size'])
    out = pd.DataFrame(index=data.runs.index)
    out['iter_ms'] = per_run['mean'] / 1e6
    # Not 'iterations': that name is also a scenario parameter in run.json.
    out['iterations_measured'] = per_run['size'].fillna(0).astype('int64')
    out['jct_ms'] = jct / 1e6
    return out


def iteration_table(data, keys, baseline, warmup=1):
    """Mean iteration time with 95 % CI per group, and speedup over ``baseline`` per group."""
    per_run = data.runs[list(dict.fromkeys(list(keys) + ['seed']))].join(
        run_iteration_times(data, warmup)).dropna(subset=['iter_ms'])
    rows = []
    # The count of measured iterations; named apart when the scenario parameter is a key.
    counted = 'iterations_measured' if 'iterations' in keys else 'iterations'
    for group, runs in groups(per_run, keys):
        mean, half, n = mean_ci(runs['iter_ms'])
        row = dict(zip(keys, group))
        row.update({'runs': n, counted: int(runs['iterations_measured'].sum())})
        row.update(iter_ms_mean=mean,
                   iter_ms_ci95=half, iter_ms_lo=mean - half, iter_ms_hi=mean + half,
                   jct_ms_mean=runs['jct_ms'].mean())
        rows.append(row)
    table = pd.DataFrame(rows, columns=list(keys) + [
        'runs', counted, 'iter_ms_mean', 'iter_ms_ci95', 'iter_ms_lo', 'iter_ms_hi',
        'jct_ms_mean'])
    return _add_speedup(table, per_run, keys, baseline)


def _others(keys):
    return [k for k in keys if k != 'scheme']


def _baseline_rows(table, keys, baseline, columns):
    """For each row of ``table``, the ``columns`` of the baseline scheme's row in the same group."""
    others = _others(keys)
    base = table.loc[table['scheme'] == baseline, others + columns]
    base = base.rename(columns={c: 'base_' + c for c in columns})
    if others:
        return table[others].merge(base, on=others, how='left').drop(columns=others)
    if base.empty:
        return pd.DataFrame({'base_' + c: [math.nan] * len(table) for c in columns})
    return pd.DataFrame({'base_' + c: [base.iloc[0]['base_' + c]] * len(table)
                         for c in columns})


def _add_speedup(table, per_run, keys, baseline):
    base = _baseline_rows(table, keys, baseline, ['iter_ms_mean']).set_index(table.index)
    table['speedup'] = base['base_iter_ms_mean'] / table['iter_ms_mean']
    lo, hi, paired = [], [], []
    for _, row in table.iterrows():
        mine = _select(per_run, keys, row)
        theirs = _select(per_run, keys, dict(row, scheme=baseline))
        ratios = _paired_ratios(theirs, mine)
        if ratios is None or len(ratios) < 2:
            lo.append(math.nan)
            hi.append(math.nan)
            paired.append(ratios is not None)
            continue
        mean, half, _ = mean_ci(ratios)
        lo.append(mean - half)
        hi.append(mean + half)
        paired.append(True)
    table['speedup_lo'] = lo
    table['speedup_hi'] = hi
    table['paired_seeds'] = paired
    return table


def _select(per_run, keys, row):
    mask = np.ones(len(per_run), dtype=bool)
    for k in keys:
        value = row[k]
        column = per_run[k]
        mask &= (column.isna().to_numpy() if _isnan(value) else (column == value).to_numpy())
    return per_run[mask]


def _isnan(value):
    return isinstance(value, float) and math.isnan(value)


def _paired_ratios(base, mine):
    """base/mine iteration time per seed when both have the same seeds once each, else None."""
    if base.empty or mine.empty:
        return None
    if base['seed'].duplicated().any() or mine['seed'].duplicated().any():
        return None
    if set(base['seed']) != set(mine['seed']):
        return None
    b = base.set_index('seed')['iter_ms']
    m = mine.set_index('seed')['iter_ms']
    return (b / m.reindex(b.index)).to_numpy()


def add_fct_reduction(fct, keys, baseline):
    """``fct`` (a per-group FCT table) with the baseline's avg FCT and the reduction in %."""
    base = _baseline_rows(fct, keys, baseline, ['fct_avg_us']).set_index(fct.index)
    fct = fct.copy()
    fct['baseline_fct_avg_us'] = base['base_fct_avg_us']
    fct['fct_reduction_pct'] = 100.0 * (1.0 - fct['fct_avg_us'] / fct['baseline_fct_avg_us'])
    return fct


def headline(fct, iterations, keys, baseline):
    """Per scheme: the best FCT reduction and the best speedup over the groups, and where.

    These are the two figures the TaLB paper reports ("up to 55 % lower average FCT", "up to
    2.37x" training speedup), measured the same way over this run or sweep.
    """
    others = _others(keys)

    def where(row):
        return ','.join('%s=%s' % (k, row[k]) for k in others) or 'all'

    rows = []
    for scheme in sorted(set(fct['scheme']) | set(iterations['scheme'])):
        row = {'scheme': scheme}
        f = fct[(fct['scheme'] == scheme) & fct['fct_reduction_pct'].notna()]
        if scheme != baseline and not f.empty:
            best = f.loc[f['fct_reduction_pct'].idxmax()]
            row.update(max_fct_reduction_pct=best['fct_reduction_pct'],
                       fct_reduction_at=where(best))
        i = iterations[(iterations['scheme'] == scheme) & iterations['speedup'].notna()]
        if scheme != baseline and not i.empty:
            best = i.loc[i['speedup'].idxmax()]
            row.update(max_speedup=best['speedup'], speedup_lo=best['speedup_lo'],
                       speedup_hi=best['speedup_hi'], speedup_at=where(best))
        rows.append(row)
    return pd.DataFrame(rows, columns=['scheme', 'max_fct_reduction_pct', 'fct_reduction_at',
                                       'max_speedup', 'speedup_lo', 'speedup_hi', 'speedup_at'])


HIGH_PRIORITIES = (0, 1)  # "high priority" in the evaluation: tensor priorities 0 and 1
# Per-run counters averaged per cell (run.json; NaN when the runs predate them).
CELL_COUNTERS = {
    'reroutes': 'reroutes', 'tcp_retx_segments': 'tcp_retransmitted_segments',
    'tcp_retx_bytes': 'tcp_retransmitted_bytes', 'tcp_timeouts': 'tcp_timeouts',
    'rdma_naks': 'rdma_naks',
    'rdma_retx_bytes': 'rdma_retransmitted_bytes', 'rdma_out_of_order': 'rdma_out_of_order',
}


CONNECTION = ['run_id', 'src_ip', 'dst_ip', 'src_port', 'dst_port']


def connection_wait_ns(flows):
    """Per message: how long after it was posted it still waited for earlier messages of its
    connection (same run and address/port 4-tuple: a TCP connection, an RDMA queue pair) to
    complete -- ``max(0, latest end of the messages posted before it - its start)``; 0 for a
    connection's first message. A connection delivers its messages in order, so that much of a
    message's FCT is the host's ordering, not the fabric's."""
    order = flows[CONNECTION + ['start_ns', 'fct_ns']].sort_values(CONNECTION + ['start_ns'],
                                                                     kind='stable')
    end = order['start_ns'] + order['fct_ns']
    groups = [order[c] for c in CONNECTION]
    latest_before = end.groupby(groups).cummax().groupby(groups).shift(1)
    wait = (latest_before - order['start_ns']).clip(lower=0).fillna(0)
    return wait.reindex(flows.index)


def _tails(flows, keys):
    """p99 FCT of the high-priority tensor flows (and the same less each message's wait for
    earlier messages of its connection) and of the background flows, indexed by ``keys``."""
    fct_us = flows['fct_ns'] / 1e3
    hi = flows[(flows['kind'] == 'tensor') & flows['priority'].isin(HIGH_PRIORITIES)]
    bg = flows[flows['kind'] == 'background']
    # pandas' agg of an empty selection can return a row with a NaN key: leave those out.
    hi_p99 = pd.DataFrame(columns=['hiprio_flows', 'hiprio_fct_p99_us', 'hiprio_own_p99_us'])
    if not hi.empty:
        own_us = (flows['fct_ns'] - connection_wait_ns(flows)) / 1e3
        hi_p99 = _grouped(hi.assign(fct_us=fct_us, own_us=own_us), keys).agg(
            hiprio_flows=('fct_us', 'size'), hiprio_fct_p99_us=('fct_us', _pct(99)),
            hiprio_own_p99_us=('own_us', _pct(99)))
    bg_p99 = pd.DataFrame(columns=['bg_fct_p99_us'])
    if not bg.empty:
        bg_p99 = _grouped(bg.assign(fct_us=fct_us), keys)['fct_us'].agg(bg_fct_p99_us=_pct(99))
    return {'hiprio_p99': hi_p99, 'bg_p99': bg_p99}


def cell_table(data, keys, iterations, fct, flows=None):
    """One row per scheme and cell (group of ``keys``): the evaluation's figures side by side.

    Mean iteration time with its 95 % CI and the speedup over the baseline (from ``iterations``,
    :func:`iteration_table`); average and p99 FCT of all flows and the FCT reduction (from ``fct``,
    :func:`add_fct_reduction`); p99 FCT of the high-priority tensor flows (priority 0-1), the same
    less each message's wait for earlier messages of its connection (:func:`connection_wait_ns`),
    and p99 FCT of the background flows; and the run.json counters averaged over the cell's runs:
    reroutes, TCP retransmitted segments and bytes, RDMA NAKs, go-back-N retransmitted bytes and
    packets the responders dropped as out of order. ``flows``: :func:`flow_tables` of the same
    keys, when already computed.
    """
    keys = list(keys)
    flows = flows or flow_tables(data, keys)
    hi_p99, bg_p99 = flows['hiprio_p99'], flows['bg_p99']
    counters = data.runs[keys + list(CELL_COUNTERS.values())]
    counters = _grouped(counters, keys)[list(CELL_COUNTERS.values())].mean()
    counters = counters.rename(columns={v: k for k, v in CELL_COUNTERS.items()})
    table = iterations[keys + ['runs', 'iter_ms_mean', 'iter_ms_ci95', 'speedup', 'speedup_lo',
                               'speedup_hi'] + (['jct_ms_mean'] if 'jct_ms_mean' in iterations
                                                else [])]
    table = _merge(table, fct[keys + ['fct_avg_us', 'fct_p99_us', 'fct_reduction_pct']], keys,
                   'outer')
    for extra in (hi_p99, bg_p99, counters):
        table = _merge(table, extra if extra.empty else extra.reset_index(), keys, 'left')
    return table.sort_values(keys, kind='stable').reset_index(drop=True)


def _merge(left, right, keys, how):
    """left.merge(right) on ``keys``; an empty side (a run without rows, no background flows)
    takes the other side's key types, which pandas would otherwise refuse to merge on."""
    if right.empty:
        return left.assign(**{c: math.nan for c in right.columns if c not in keys})
    if left.empty:
        left = left.astype({k: right[k].dtype for k in keys})
    return left.merge(right, on=keys, how=how)


def talb_vs_best(cells, keys, talb='talb', baseline='ecmp'):
    """Per cell: TaLB against the best other scheme (TaLB variants such as talb-v1 excluded).

    ``iter_gap_pct`` = 100 * (TaLB / best baseline - 1) in mean iteration time (> 0: TaLB is
    slower); ``loses`` marks cells where it is > 2 % or where another scheme has a lower
    high-priority p99 FCT (the evaluation's goals); ``hiprio_own_best`` compares the same tail
    less the waits for earlier messages of a connection; ``jct_gap_pct`` compares the mean job
    completion time with the best other scheme's (the second view of cells with several jobs;
    ``loses`` does not read it). Cells without a TaLB row are left out.
    """
    others = _others(keys)
    rows = []
    for group, part in groups(cells, others):
        mine = part[part['scheme'] == talb]
        rivals = part[~part['scheme'].str.startswith(talb) & part['iter_ms_mean'].notna()]
        if mine.empty or rivals.empty:
            continue
        mine = mine.iloc[0]
        best = rivals.loc[rivals['iter_ms_mean'].idxmin()]
        row = dict(zip(others, group))
        row.update(talb_iter_ms=mine['iter_ms_mean'], talb_speedup=mine['speedup'],
                   best_scheme=best['scheme'], best_iter_ms=best['iter_ms_mean'],
                   iter_gap_pct=100.0 * (mine['iter_ms_mean'] / best['iter_ms_mean'] - 1.0),
                   talb_fct_reduction_pct=mine['fct_reduction_pct'],
                   talb_hiprio_p99_us=mine['hiprio_fct_p99_us'])
        hp = part[part['scheme'] != talb].dropna(subset=['hiprio_fct_p99_us'])
        hp = hp[~hp['scheme'].str.startswith(talb)]
        if hp.empty or _isnan(mine['hiprio_fct_p99_us']):
            row.update(best_hiprio_scheme=None, best_hiprio_p99_us=math.nan, hiprio_best=None)
        else:
            b = hp.loc[hp['hiprio_fct_p99_us'].idxmin()]
            row.update(best_hiprio_scheme=b['scheme'], best_hiprio_p99_us=b['hiprio_fct_p99_us'],
                       hiprio_best=bool(mine['hiprio_fct_p99_us'] <= b['hiprio_fct_p99_us']))
        row.update(_own_tail(mine, hp))
        row['loses'] = bool(row['iter_gap_pct'] > 2.0 or row['hiprio_best'] is False)
        row.update(_completion(mine, rivals))
        rows.append(row)
    return pd.DataFrame(rows, columns=others + [
        'talb_iter_ms', 'talb_speedup', 'best_scheme', 'best_iter_ms', 'iter_gap_pct',
        'talb_fct_reduction_pct', 'talb_hiprio_p99_us', 'best_hiprio_scheme',
        'best_hiprio_p99_us', 'hiprio_best', 'talb_hiprio_own_p99_us', 'best_hiprio_own_p99_us',
        'hiprio_own_best', 'loses', 'talb_jct_ms', 'best_jct_scheme', 'best_jct_ms',
        'jct_gap_pct'])


def _completion(mine, rivals):
    """TaLB's mean job completion time, the best other scheme's, and the gap in per cent (NaN
    where the cells lack the column)."""
    others = rivals.dropna(subset=['jct_ms_mean']) if 'jct_ms_mean' in rivals else rivals[:0]
    if others.empty or _isnan(mine.get('jct_ms_mean')):
        return dict(talb_jct_ms=math.nan, best_jct_scheme=None, best_jct_ms=math.nan,
                    jct_gap_pct=math.nan)
    best = others.loc[others['jct_ms_mean'].idxmin()]
    return dict(talb_jct_ms=mine['jct_ms_mean'], best_jct_scheme=best['scheme'],
                best_jct_ms=best['jct_ms_mean'],
                jct_gap_pct=100.0 * (mine['jct_ms_mean'] / best['jct_ms_mean'] - 1.0))


def _own_tail(mine, rivals):
    """TaLB's priority 0-1 p99 less the waits for earlier messages of a connection, the lowest
    other scheme's, and whether TaLB's is the lowest (None where a cell lacks the column)."""
    if 'hiprio_own_p99_us' not in rivals.columns or _isnan(mine.get('hiprio_own_p99_us')):
        return dict(talb_hiprio_own_p99_us=math.nan, best_hiprio_own_p99_us=math.nan,
                    hiprio_own_best=None)
    others = rivals['hiprio_own_p99_us'].dropna()
    best = others.min() if not others.empty else math.nan
    return dict(talb_hiprio_own_p99_us=mine['hiprio_own_p99_us'], best_hiprio_own_p99_us=best,
                hiprio_own_best=None if _isnan(best) else
                bool(mine['hiprio_own_p99_us'] <= best))
