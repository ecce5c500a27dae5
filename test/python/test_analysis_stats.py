"""talb_analysis.stats against numbers worked out by hand from the fixtures.

fixtures/sweep holds ecmp and talb at load 0.5, seeds 1 and 2; per run 4 tensor flows (sizes 9999,
10000, 999999, 1000000 B; priorities 0, 0, 1, 1) and one 10 MB background flow (priority -1):
  FCT (us)  ecmp s1: 100 200 300 400 | 1000     talb s1:  50 100 250 400 |  900
            ecmp s2: 200 300 400 500 | 1200     talb s2: 100 150 300 450 | 1100
ideal FCT 50 us, so slowdown = FCT / 50. Iteration times (ms; slowest worker; iteration 0 is the
warm-up): ecmp s1 10, 12 (mean 11); s2 13, 13 (13); talb s1 5, 6 (5.5); s2 5.0, 5.4 (5.2).
"""
import math
import os

import numpy as np
import pytest

from conftest import FIXTURES
from talb_analysis import loading, stats

SWEEP = os.path.join(FIXTURES, 'sweep')


@pytest.fixture(scope='module')
def data():
    return loading.load(SWEEP)


def row(table, **where):
    mask = np.ones(len(table), dtype=bool)
    for k, v in where.items():
        mask &= (table[k] == v).to_numpy()
    assert mask.sum() == 1, 'expected one row for %s' % where
    return table[mask].iloc[0]


def test_percentile_is_linear_interpolation_between_order_statistics():
    # position (n-1)*p/100: for 1..100, p99 sits at 98.01 -> 99 + 0.01 * (100 - 99)
    assert stats.percentile(range(1, 101), 99) == pytest.approx(99.01)
    # 100..1000 step 100: p99 at 8.91 -> 900 + 0.91 * 100; p50 at 4.5 -> 550; p95 at 8.55 -> 955
    values = [100 * i for i in range(10, 0, -1)]  # order must not matter
    assert stats.percentile(values, 99) == pytest.approx(991.0)
    assert stats.percentile(values, 50) == pytest.approx(550.0)
    assert stats.percentile(values, 95) == pytest.approx(955.0)
    assert stats.percentile([42], 99) == 42.0
    assert math.isnan(stats.percentile([], 99))


def test_t_table_values_and_conservative_lookup():
    assert stats.t_critical(1) == 12.7062
    assert stats.t_critical(4) == 2.7764
    assert stats.t_critical(35) == stats.T95[30]  # between 30 and 40: the wider one
    assert stats.t_critical(1000) == 1.96
    with pytest.raises(ValueError):
        stats.t_critical(0)


def test_t_table_matches_scipy_where_available():
    scipy_stats = pytest.importorskip('scipy.stats')
    for df, t in stats.T95.items():
        assert t == pytest.approx(scipy_stats.t.ppf(0.975, df), abs=6e-5)


def test_mean_ci_by_hand():
    # [11, 13]: s = sqrt(2), s/sqrt(2) = 1, half width = t(1) = 12.7062
    mean, half, n = stats.mean_ci([11, 13])
    assert (mean, n) == (12, 2) and half == pytest.approx(12.7062)
    # [2, 4, 6]: s = 2, half = 4.3027 * 2 / sqrt(3)
    assert stats.mean_ci([2, 4, 6])[1] == pytest.approx(4.3027 * 2 / math.sqrt(3))
    mean, half, n = stats.mean_ci([5.0])
    assert mean == 5.0 and math.isnan(half) and n == 1


def test_size_bins_are_decimal_and_closed_on_the_left():
    bins = stats.size_bin(np.array([0, 9999, 10000, 99999, 100000, 999999, 1000000, 9999999,
                                    10000000, 10 ** 9]))
    assert list(bins) == ['<10KB', '<10KB', '10KB-100KB', '10KB-100KB', '100KB-1MB', '100KB-1MB',
                          '1MB-10MB', '1MB-10MB', '>=10MB', '>=10MB']


def test_fct_per_scheme(data):
    fct, _, _ = stats.fct_tables(data, ['scheme'])
    ecmp = row(fct, scheme='ecmp')
    # sorted ecmp FCTs: 100 200 200 300 300 400 400 500 1000 1200
    assert ecmp['count'] == 10
    assert ecmp['fct_avg_us'] == pytest.approx(460.0)
    assert ecmp['fct_p50_us'] == pytest.approx(350.0)    # 300 + 0.5 * 100
    assert ecmp['fct_p95_us'] == pytest.approx(1110.0)   # 1000 + 0.55 * 200
    assert ecmp['fct_p99_us'] == pytest.approx(1182.0)   # 1000 + 0.91 * 200
    assert ecmp['slowdown_avg'] == pytest.approx(9.2)
    assert ecmp['slowdown_p99'] == pytest.approx(23.64)  # 20 + 0.91 * 4
    talb = row(fct, scheme='talb')
    assert talb['fct_avg_us'] == pytest.approx(380.0)
    assert talb['fct_p99_us'] == pytest.approx(1082.0)   # 900 + 0.91 * 200


def test_fct_per_priority_and_size_bin(data):
    _, by_priority, by_size = stats.fct_tables(data, ['scheme'])
    p0 = row(by_priority, scheme='ecmp', priority=0)     # 100 200 200 300
    assert (p0['count'], p0['fct_avg_us']) == (4, 200.0)
    assert p0['fct_p99_us'] == pytest.approx(297.0)      # 200 + 0.97 * 100
    bg = row(by_priority, scheme='ecmp', priority=-1)    # 1000 1200
    assert bg['fct_p99_us'] == pytest.approx(1198.0)
    assert sorted(by_priority['priority'].unique()) == [-1, 0, 1]
    # 10000 B is 10KB-100KB, 1000000 B is 1MB-10MB, 10 MB is >=10MB
    assert row(by_size, scheme='ecmp', size_bin='<10KB')['fct_avg_us'] == pytest.approx(150.0)
    assert row(by_size, scheme='ecmp', size_bin='10KB-100KB')['fct_avg_us'] == pytest.approx(250.0)
    assert row(by_size, scheme='talb', size_bin='1MB-10MB')['fct_avg_us'] == pytest.approx(425.0)
    assert row(by_size, scheme='talb', size_bin='>=10MB')['count'] == 2


def test_fct_reduction_vs_baseline(data):
    fct = stats.add_fct_reduction(stats.fct_tables(data, ['scheme'])[0], ['scheme'], 'ecmp')
    assert row(fct, scheme='talb')['fct_reduction_pct'] == pytest.approx(100 * (1 - 380 / 460))
    assert row(fct, scheme='ecmp')['fct_reduction_pct'] == 0.0


def test_tensor_completion_per_priority(data):
    per_priority, per_tensor = stats.tensor_tables(data, ['scheme'])
    p0 = row(per_priority, scheme='ecmp', priority=0)    # 10 20 30 20 30 40 us
    assert p0['count'] == 6 and p0['comm_avg_us'] == pytest.approx(25.0)
    assert p0['comm_p99_us'] == pytest.approx(39.5)      # 30 + 0.95 * 10
    assert row(per_priority, scheme='talb', priority=1)['comm_avg_us'] == pytest.approx(175.0)
    fc = row(per_tensor, scheme='ecmp', name='fc.weight')
    assert fc['bytes'] == 8192000 and fc['comm_max_us'] == 400.0


def test_iteration_time_per_run_skips_warmup_and_takes_slowest_worker(data):
    per_run = data.runs[['scheme', 'seed']].join(stats.run_iteration_times(data, warmup=1))
    got = {(r.scheme, r.seed): r.iter_ms for r in per_run.itertuples()}
    assert got == pytest.approx({('ecmp', 1): 11.0, ('ecmp', 2): 13.0, ('talb', 1): 5.5,
                                 ('talb', 2): 5.2})
    assert (per_run['iterations_measured'] == 2).all()
    no_warmup = data.runs[['scheme', 'seed']].join(stats.run_iteration_times(data, warmup=0))
    # ecmp seed 1 with its 100 ms warm-up iteration: (100 + 10 + 12) / 3
    assert no_warmup.iloc[0]['iter_ms'] == pytest.approx(122 / 3)


def test_job_completion_time_spans_every_iteration_warm_up_included(data):
    # last iteration's end - first's start (ms): ecmp 412, 413; talb 406, 405.4
    per_run = data.runs[['scheme', 'seed']].join(stats.run_iteration_times(data, warmup=1))
    jct = {(r.scheme, r.seed): r.jct_ms for r in per_run.itertuples()}
    assert jct == pytest.approx({('ecmp', 1): 412.0, ('ecmp', 2): 413.0, ('talb', 1): 406.0,
                                 ('talb', 2): 405.4})
    table = stats.iteration_table(data, ['scheme'], 'ecmp')
    assert row(table, scheme='talb')['jct_ms_mean'] == pytest.approx(405.7)


def test_mean_job_completion_counts_a_job_starved_in_its_warm_up(tmp_path):
    """Two jobs of two iterations: scheme A starves job 1 during its warm-up (its measured
    iteration then runs alone and fast), scheme B shares fairly. The mean iteration after the
    warm-up prefers A; the mean completion time prefers B, and talb_vs_best reports both."""
    import json
    ms = 1000000
    plans = {'a': [(0, 0, 100), (0, 100, 200), (1, 0, 300), (1, 300, 350)],
             'b': [(0, 0, 150), (0, 150, 250), (1, 0, 150), (1, 150, 250)]}
    for scheme, plan in plans.items():
        folder = tmp_path / ('lb=%s,seed=1' % ('talb' if scheme == 'b' else 'ecmp'))
        folder.mkdir()
        lb = 'talb' if scheme == 'b' else 'ecmp'
        rows = ['job,worker,iteration,start_ns,end_ns,compute_ns,exposed_comm_ns,scheme,seed']
        for n, (job, start, end) in enumerate(plan):
            rows.append('%d,0,%d,%d,%d,0,%d,%s,1' % (job, n % 2, start * ms, end * ms,
                                                     (end - start) * ms, lb))
        (folder / 'iterations.csv').write_text('\n'.join(rows) + '\n')
        (folder / 'flows.csv').write_text(
            'src_ip,dst_ip,src_port,dst_port,size_bytes,start_ns,fct_ns,ideal_fct_ns,slowdown,'
            'job,iteration,tensor,priority,kind,scheme,seed\n'
            '10.0.0.1,10.0.0.2,1,2,1000,0,100,50,2,0,0,0,0,tensor,%s,1\n' % lb)
        (folder / 'tensors.csv').write_text(
            'job,iteration,tensor,name,bytes,priority,ready_ns,done_ns,comm_ns,scheme,seed,'
            'wire_bytes\n')
        (folder / 'run.json').write_text(json.dumps(
            {'scheme': lb, 'seed': 1, 'lb': lb, 'complete': True,
             'parameters': {'lb': lb, 'seed': '1'}}))
    data = loading.load(str(tmp_path))
    it = stats.iteration_table(data, ['scheme'], 'ecmp')
    # A: (100 + 50) / 2 = 75 per iteration, jobs end at 200 and 350: 275; B: 100 and 250
    assert row(it, scheme='ecmp')['iter_ms_mean'] == pytest.approx(75.0)
    assert row(it, scheme='talb')['iter_ms_mean'] == pytest.approx(100.0)
    fct = stats.add_fct_reduction(stats.fct_tables(data, ['scheme'])[0], ['scheme'], 'ecmp')
    cells = stats.cell_table(data, ['scheme'], it, fct)
    table = stats.talb_vs_best(cells, ['scheme'])
    assert len(table) == 1
    t = table.iloc[0]
    assert t['iter_gap_pct'] == pytest.approx(100 * (100 / 75 - 1)) and t['loses']
    assert t['talb_jct_ms'] == pytest.approx(250.0) and t['best_jct_ms'] == pytest.approx(275.0)
    assert t['best_jct_scheme'] == 'ecmp'
    assert t['jct_gap_pct'] == pytest.approx(100 * (250 / 275 - 1))


def test_iteration_table_ci_and_speedup(data):
    table = stats.iteration_table(data, ['scheme'], 'ecmp', warmup=1)
    ecmp = row(table, scheme='ecmp')
    assert ecmp['iter_ms_mean'] == pytest.approx(12.0)
    assert ecmp['iter_ms_ci95'] == pytest.approx(12.7062)
    talb = row(table, scheme='talb')
    assert talb['runs'] == 2 and talb['iterations'] == 4
    assert talb['iter_ms_mean'] == pytest.approx(5.35)
    # values 5.5, 5.2: s = 0.3 / sqrt(2), s / sqrt(2) = 0.15
    assert talb['iter_ms_ci95'] == pytest.approx(12.7062 * 0.15)
    assert talb['speedup'] == pytest.approx(12 / 5.35)
    # paired ratios 11/5.5 = 2.0 and 13/5.2 = 2.5: mean 2.25, s/sqrt(2) = 0.25
    assert talb['paired_seeds']
    assert talb['speedup_lo'] == pytest.approx(2.25 - 12.7062 * 0.25)
    assert talb['speedup_hi'] == pytest.approx(2.25 + 12.7062 * 0.25)
    assert ecmp['speedup'] == 1.0


def test_speedup_without_matching_seeds_has_no_ci(fixture_copy):
    sweep = fixture_copy('sweep')
    os.rename(sweep / 'lb=talb,load=0.5,seed=2', sweep / '.moved')
    data = loading.load(str(sweep))
    talb = row(stats.iteration_table(data, ['scheme'], 'ecmp'), scheme='talb')
    assert talb['speedup'] == pytest.approx(12 / 5.5)
    assert not talb['paired_seeds'] and math.isnan(talb['speedup_lo'])


def test_missing_baseline_gives_nan_not_an_error(data):
    table = stats.iteration_table(data, ['scheme'], 'conga')
    assert table['speedup'].isna().all()
    fct = stats.add_fct_reduction(stats.fct_tables(data, ['scheme'])[0], ['scheme'], 'conga')
    assert fct['fct_reduction_pct'].isna().all()


def test_headline_reports_the_best_group(data):
    keys = ['scheme', 'load']
    fct = stats.add_fct_reduction(stats.fct_tables(data, keys)[0], keys, 'ecmp')
    it = stats.iteration_table(data, keys, 'ecmp')
    head = stats.headline(fct, it, keys, 'ecmp')
    talb = row(head, scheme='talb')
    assert talb['max_fct_reduction_pct'] == pytest.approx(100 * (1 - 380 / 460))
    assert talb['max_speedup'] == pytest.approx(12 / 5.35)
    assert talb['speedup_at'] == 'load=0.5'
    assert math.isnan(row(head, scheme='ecmp')['max_speedup'])


def test_group_keys(data):
    # varying parameters: lb (one-to-one with the scheme: dropped), out (not a factor), seed
    assert stats.group_keys(data) == ['scheme']
    assert stats.group_keys(data, requested=['load', 'lb', 'seed']) == ['scheme', 'load']
    # Axes of one value (the fixture's load and model) split nothing: not keys.
    assert stats.group_keys(data, axes=['lb', 'load', 'model']) == ['scheme']
    with pytest.raises(loading.TalbDataError, match='no run parameter named hosts'):
        stats.group_keys(data, requested=['hosts'])


def test_groups_by_load_line_up_schemes_per_load(fixture_copy):
    sweep = fixture_copy('sweep')
    # Move ecmp seed 2 to load 0.8: the load 0.8 group has ecmp but no talb.
    meta = sweep / 'lb=ecmp,load=0.5,seed=2' / 'run.json'
    meta.write_text(meta.read_text().replace('"load": 0.5', '"load": 0.8'))
    data = loading.load(str(sweep))
    keys = stats.group_keys(data)
    assert keys == ['scheme', 'load']
    table = stats.iteration_table(data, keys, 'ecmp')
    assert row(table, scheme='talb', load=0.5)['speedup'] == pytest.approx(11 / 5.35)
    assert row(table, scheme='ecmp', load=0.8)['iter_ms_mean'] == pytest.approx(13.0)
    assert not row(table, scheme='talb', load=0.5)['paired_seeds']


def test_cell_table_puts_iteration_fct_high_priority_tail_and_counters_side_by_side(
        fixture_copy):
    sweep = fixture_copy('sweep')
    for seed, reroutes, retx in ((1, 10, 4), (2, 20, 0)):
        meta = sweep / ('lb=talb,load=0.5,seed=%d' % seed) / 'run.json'
        meta.write_text(meta.read_text().replace(
            '"seed": %d,' % seed,
            '"seed": %d, "reroutes": %d, "tcp_retransmitted_segments": %d,' % (seed, reroutes, retx),
            1))
    data = loading.load(str(sweep))
    keys = ['scheme']
    it = stats.iteration_table(data, keys, 'ecmp')
    fct = stats.add_fct_reduction(stats.fct_tables(data, keys)[0], keys, 'ecmp')
    cells = stats.cell_table(data, keys, it, fct)
    talb = row(cells, scheme='talb')
    assert talb['iter_ms_mean'] == pytest.approx(5.35)
    assert talb['speedup'] == pytest.approx(12 / 5.35)
    assert talb['fct_avg_us'] == pytest.approx(380.0)
    assert talb['fct_reduction_pct'] == pytest.approx(100 * (1 - 380 / 460))
    # priority 0-1 tensor flows pooled over both seeds: 50 100 100 150 250 300 400 450
    assert talb['hiprio_flows'] == 8
    assert talb['hiprio_fct_p99_us'] == pytest.approx(400 + 0.93 * 50)
    # less the waits for earlier messages of a connection: never above the FCT's tail
    assert 0 < talb['hiprio_own_p99_us'] <= talb['hiprio_fct_p99_us']
    assert row(cells, scheme='ecmp')['hiprio_fct_p99_us'] == pytest.approx(400 + 0.93 * 100)
    assert talb['bg_fct_p99_us'] == pytest.approx(900 + 0.99 * 200)
    assert talb['reroutes'] == pytest.approx(15.0)
    assert talb['tcp_retx_segments'] == pytest.approx(2.0)
    # run.json files without the counters (older runs) give NaN, not zero
    assert math.isnan(row(cells, scheme='ecmp')['reroutes'])
    assert math.isnan(talb['rdma_naks'])


def test_connection_wait_is_the_time_a_message_waits_for_earlier_ones_of_its_connection():
    import pandas as pd
    conn = dict(src_ip='10.0.0.1', dst_ip='10.0.0.2', dst_port=20001)
    flows = pd.DataFrame([
        dict(run_id=0, src_port=1, start_ns=10, fct_ns=150, **conn),   # behind the next one
        dict(run_id=0, src_port=1, start_ns=0, fct_ns=100, **conn),    # first: no wait
        dict(run_id=0, src_port=1, start_ns=200, fct_ns=10, **conn),   # after both ended
        dict(run_id=0, src_port=1, start_ns=120, fct_ns=60, **conn),   # the first ended at 100,
                                                                       # the second ends at 160
        dict(run_id=0, src_port=2, start_ns=5, fct_ns=10, **conn),     # another connection
        dict(run_id=1, src_port=1, start_ns=20, fct_ns=5, **conn),     # another run
    ], index=[7, 3, 9, 4, 1, 8])
    wait = stats.connection_wait_ns(flows)
    assert list(wait.index) == [7, 3, 9, 4, 1, 8]
    assert list(wait) == [90, 0, 0, 40, 0, 0]


def test_talb_vs_best_flags_cells_where_talb_is_over_2_percent_slower_or_not_best_in_tail():
    import pandas as pd
    cells = pd.DataFrame({
        'scheme': ['ecmp', 'drill', 'talb', 'talb-v1'] * 2,
        'model': ['a'] * 4 + ['b'] * 4,
        'iter_ms_mean': [10.0, 9.9, 10.3, 9.0, 10.0, 9.9, 10.0, 9.0],
        'speedup': [1.0, 10 / 9.9, 10 / 10.3, 10 / 9.0, 1.0, 10 / 9.9, 1.0, 10 / 9.0],
        'fct_reduction_pct': [0.0, 5.0, 3.0, 9.0, 0.0, 5.0, 3.0, 9.0],
        'hiprio_fct_p99_us': [100.0, 90.0, 95.0, 50.0, 100.0, 90.0, 80.0, 50.0],
    })
    table = stats.talb_vs_best(cells, ['scheme', 'model'])
    a = row(table, model='a')
    assert a['best_scheme'] == 'drill'  # talb-v1 is a TaLB variant, not a rival
    assert a['iter_gap_pct'] == pytest.approx(100 * (10.3 / 9.9 - 1))
    assert a['best_hiprio_scheme'] == 'drill' and not a['hiprio_best']
    assert a['loses']
    b = row(table, model='b')
    assert b['iter_gap_pct'] == pytest.approx(100 * (10.0 / 9.9 - 1))  # within 2 %
    assert b['hiprio_best'] and not b['loses']
    # Without the own-tail column (cells built elsewhere) its comparison is left empty.
    assert a['hiprio_own_best'] is None
    cells['hiprio_own_p99_us'] = [100.0, 60.0, 70.0, 10.0, 100.0, 60.0, 50.0, 10.0]
    table = stats.talb_vs_best(cells, ['scheme', 'model'])
    a, b = row(table, model='a'), row(table, model='b')
    assert a['best_hiprio_own_p99_us'] == 60.0 and not a['hiprio_own_best']
    assert b['talb_hiprio_own_p99_us'] == 50.0 and b['hiprio_own_best']


def test_oblivious_spraying_runs_line_up_with_the_other_schemes_cells(fixture_copy):
    """The spray family: ECMP switches under the hosts' oblivious spraying are ecmp-oblivious,
    in the same cell as ecmp (under REPS) and talb; sprayPolicy groups nothing."""
    import json
    import shutil
    sweep = fixture_copy('sweep')
    for folder in sweep.iterdir():
        meta = json.loads((folder / 'run.json').read_text())
        meta['parameters'].update(transport='spray', sprayPolicy='reps', lbProfile='transport')
        (folder / 'run.json').write_text(json.dumps(meta))
    for seed in (1, 2):
        dst = sweep / ('lb=ecmp,load=0.5,seed=%d,sprayPolicy=oblivious' % seed)
        shutil.copytree(sweep / ('lb=ecmp,load=0.5,seed=%d' % seed), dst)
        meta = json.loads((dst / 'run.json').read_text())
        meta['parameters']['sprayPolicy'] = 'oblivious'
        (dst / 'run.json').write_text(json.dumps(meta))
    data = loading.load(str(sweep))
    assert sorted(data.runs['scheme'].unique()) == ['ecmp', 'ecmp-oblivious', 'talb']
    assert stats.group_keys(data) == ['scheme']
    table = stats.iteration_table(data, ['scheme'], 'ecmp')
    assert row(table, scheme='ecmp-oblivious')['iter_ms_mean'] == pytest.approx(12.0)


def test_queue_pair_and_plb_runs_line_up_with_the_other_schemes_cells(fixture_copy):
    """The qp family: hosts with four queue pairs per connection or PLB are their own schemes
    (ecmp-qp4-shared, ecmp-plb) in the same cells as ecmp and talb; their parameters group
    nothing."""
    import json
    import shutil
    sweep = fixture_copy('sweep')
    extra = {'qp4-shared': dict(rdmaQpsPerConnection='4', rdmaSplitMessages='true',
                                rdmaSharedSourcePort='true'),
             'plb': dict(plb='true')}
    for name, params in extra.items():
        for seed in (1, 2):
            dst = sweep / ('lb=ecmp,load=0.5,seed=%d,%s' % (seed, name))
            shutil.copytree(sweep / ('lb=ecmp,load=0.5,seed=%d' % seed), dst)
            meta = json.loads((dst / 'run.json').read_text())
            meta['parameters'].update(params)
            (dst / 'run.json').write_text(json.dumps(meta))
    data = loading.load(str(sweep))
    assert sorted(data.runs['scheme'].unique()) == ['ecmp', 'ecmp-plb', 'ecmp-qp4-shared', 'talb']
    assert stats.group_keys(data) == ['scheme']
    table = stats.iteration_table(data, ['scheme'], 'ecmp')
    assert row(table, scheme='ecmp-plb')['iter_ms_mean'] == pytest.approx(12.0)


def test_talb_v1_runs_line_up_with_the_other_schemes_cells(fixture_copy):
    sweep = fixture_copy('sweep')
    for seed in (1, 2):
        src = sweep / ('lb=talb,load=0.5,seed=%d' % seed)
        dst = sweep / ('lbAttributes=Version=1,lb=talb,load=0.5,seed=%d' % seed)
        import shutil
        shutil.copytree(src, dst)
        meta = dst / 'run.json'
        meta.write_text(meta.read_text().replace('"lb": "talb",',
                                                 '"lb": "talb", "lbAttributes": "Version=1",'))
    data = loading.load(str(sweep))
    # lbAttributes is set only in the talb-v1 runs: not a factor, so talb-v1 has ecmp's cell
    assert stats.group_keys(data) == ['scheme']
    table = stats.iteration_table(data, ['scheme'], 'ecmp')
    assert row(table, scheme='talb-v1')['speedup'] == pytest.approx(12 / 5.35)


def test_a_balancer_setting_given_in_some_cells_of_a_scheme_only_splits_no_cell(fixture_copy):
    """As TaLB's move rule given by hand over RDMA and not over TCP: lbAttributes differs
    between the talb runs of different cells only, so it is no key; within a cell it is one."""
    import shutil
    sweep = fixture_copy('sweep')
    for lb in ('ecmp', 'talb'):
        for seed in (1, 2):
            src = sweep / ('lb=%s,load=0.5,seed=%d' % (lb, seed))
            dst = sweep / ('lb=%s,load=0.7,seed=%d' % (lb, seed))
            shutil.copytree(src, dst)
            meta = dst / 'run.json'
            text = meta.read_text().replace('"load": 0.5,', '"load": 0.7,')
            if lb == 'talb':
                text = text.replace('"lb": "talb",', '"lb": "talb", "lbAttributes": "Moves=Counts",')
            meta.write_text(text)
    for seed in (1, 2):
        meta = sweep / ('lb=talb,load=0.5,seed=%d' % seed) / 'run.json'
        meta.write_text(meta.read_text().replace('"lb": "talb",',
                                                 '"lb": "talb", "lbAttributes": "Version=2",'))
    data = loading.load(str(sweep))
    assert stats.group_keys(data) == ['scheme', 'load']
    meta = sweep / 'lb=talb,load=0.5,seed=2' / 'run.json'
    meta.write_text(meta.read_text().replace('"Version=2"', '"Version=2;MoveMargin=1"'))
    assert stats.group_keys(loading.load(str(sweep))) == ['scheme', 'load', 'lbAttributes']


def test_the_iterations_parameter_can_be_a_key_beside_the_count(fixture_copy):
    sweep = fixture_copy('sweep')
    for meta in sweep.glob('*/run.json'):
        meta.write_text(meta.read_text().replace('"lb":', '"iterations": 3, "lb":', 1))
    data = loading.load(str(sweep))
    table = stats.iteration_table(data, ['scheme', 'iterations'], 'ecmp')
    talb = row(table, scheme='talb')
    assert talb['iterations'] == 3 and talb['iterations_measured'] == 4
    assert talb['speedup'] == pytest.approx(12 / 5.35)


def test_a_parameter_older_runs_predate_is_not_a_factor(fixture_copy):
    sweep = fixture_copy('sweep')
    # Runs of seed 2 were made after the runner gained controlDelay: they give its default.
    for lb in ('ecmp', 'talb'):
        meta = sweep / ('lb=%s,load=0.5,seed=2' % lb) / 'run.json'
        meta.write_text(meta.read_text().replace('"load": 0.5,', '"load": 0.5, "controlDelay": "0s",'))
    data = loading.load(str(sweep))
    assert 'controlDelay' in data.parameter_names()
    assert stats.group_keys(data) == ['scheme']
    # Two values given: a factor again.
    meta = sweep / 'lb=ecmp,load=0.5,seed=1' / 'run.json'
    meta.write_text(meta.read_text().replace('"load": 0.5,', '"load": 0.5, "controlDelay": "5us",'))
    assert stats.group_keys(loading.load(str(sweep))) == ['scheme', 'controlDelay']


def test_flows_read_a_cell_at_a_time_give_the_tables_of_all_flows_at_once(monkeypatch):
    """The report keeps a family's flows on disk (they can outgrow memory) and reads one cell's
    runs at a time: every flow table must be what the whole table at once gives, and no read
    may take more than one cell's runs."""
    keys = ['scheme', 'load']
    eager = stats.flow_tables(loading.load(SWEEP), keys)
    lazy_data = loading.load(SWEEP, flows=False)
    assert lazy_data.flows.empty and lazy_data.flows_on_disk
    asked = []
    flows_of = loading.Dataset.flows_of
    monkeypatch.setattr(loading.Dataset, 'flows_of',
                        lambda self, ids: asked.append(list(ids)) or flows_of(self, ids))
    seen = []
    lazy = stats.flow_tables(lazy_data, keys, lambda values, flows: seen.append(values))
    for name in stats.FLOW_TABLES:
        assert eager[name].equals(lazy[name]), name
    cells = [sorted(part.index) for _, part in stats.groups(lazy_data.runs, keys)]
    assert [ids for ids in asked if ids] == cells and len(cells) == 2  # two seeds a cell
    assert seen == [('ecmp', 0.5), ('talb', 0.5)]


def test_flows_read_from_disk_are_checked_like_loaded_ones(fixture_copy):
    run = fixture_copy('single')
    text = (run / 'flows.csv').read_text()
    (run / 'flows.csv').write_text(text.replace('3,2,tensor,ecmp,7', '3,2,bulk,ecmp,7'))
    data = loading.load(str(run), flows=False)  # the flows are not read yet
    with pytest.raises(loading.TalbDataError, match=r'flows.csv:4: column kind: expected one of'):
        data.flows_of([0])
