"""The report's per-collective-type table (collectives.csv of graph jobs), numbers by hand."""
import pandas as pd
import pytest

from talb_analysis import loading, stats
from talb_analysis.report import main as report_main

HEADER = ('job,iteration,operation,group,type,class,bytes,priority,start_ns,end_ns,ideal_ns,'
          'scheme,seed\n')


def write_collectives(folder, scheme, seed, rows):
    """collectives.csv of one run: rows of (iteration, type, start_ns, end_ns, ideal_ns)."""
    lines = [HEADER]
    for it, kind, start, end, ideal in rows:
        lines.append('0,%d,op,tp0,%s,tensor,1024,0,%d,%d,%d,%s,%d\n'
                     % (it, kind, start, end, ideal, scheme, seed))
    (folder / 'collectives.csv').write_text(''.join(lines))


def test_durations_and_x_ideal_per_type_skip_the_warm_up(fixture_copy):
    single = fixture_copy('single')
    write_collectives(single, 'ecmp', 7, [
        (0, 'all_reduce', 0, 99000, 1000),  # warm-up iteration: left out
        (1, 'all_reduce', 0, 3000, 1000),
        (1, 'all_reduce', 0, 5000, 2000),
        (1, 'all_to_all', 10, 4010, 2000),
        (1, 'barrier', 0, 500, 0),
    ])
    data = loading.load(str(single))
    table = stats.collective_table(data, ['scheme'], warmup=1).set_index('type')
    ar = table.loc['all_reduce']
    assert ar['count'] == 2
    assert ar['dur_avg_us'] == pytest.approx(4.0)
    assert ar['dur_p99_us'] == pytest.approx(3.0 + 0.99 * 2.0)
    assert ar['ideal_avg_us'] == pytest.approx(1.5)
    assert ar['x_ideal'] == pytest.approx(8000 / 3000)  # total time / total ideal
    assert table.loc['all_to_all', 'x_ideal'] == pytest.approx(2.0)
    assert pd.isna(table.loc['barrier', 'x_ideal'])  # no ideal to divide by
    # --warmup=0 counts the first iteration too.
    table0 = stats.collective_table(data, ['scheme'], warmup=0).set_index('type')
    assert table0.loc['all_reduce', 'count'] == 3


def test_runs_without_collectives_give_an_empty_table_and_no_printed_section(
        fixture_copy, tmp_path, capsys):
    single = fixture_copy('single')
    data = loading.load(str(single))
    assert data.collectives.empty
    assert stats.collective_table(data, ['scheme']).empty
    assert report_main([str(single), '--out=%s' % (tmp_path / 'r'), '--no-plots']) == 0
    assert 'Collective completion per type' not in capsys.readouterr().out
    saved = pd.read_csv(tmp_path / 'r' / 'collectives_by_type.csv')
    assert saved.empty and 'x_ideal' in saved.columns


def test_the_report_prints_and_saves_the_table_when_a_run_has_collectives(
        fixture_copy, tmp_path, capsys):
    single = fixture_copy('single')
    write_collectives(single, 'ecmp', 7, [(0, 'reduce_scatter', 0, 9000, 1000),
                                          (1, 'reduce_scatter', 0, 2000, 1000)])
    assert report_main([str(single), '--out=%s' % (tmp_path / 'r'), '--no-plots']) == 0
    assert 'Collective completion per type' in capsys.readouterr().out
    saved = pd.read_csv(tmp_path / 'r' / 'collectives_by_type.csv')
    assert list(saved['type']) == ['reduce_scatter']
    assert saved['x_ideal'].iloc[0] == pytest.approx(2.0)


def test_a_collectives_file_of_another_run_is_named(fixture_copy):
    single = fixture_copy('single')
    write_collectives(single, 'talb', 7, [(1, 'all_reduce', 0, 2000, 1000)])
    with pytest.raises(loading.TalbDataError, match=r'collectives\.csv:2: column scheme'):
        loading.load(str(single))
