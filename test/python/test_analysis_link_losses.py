"""The report's link-loss table (link_drops.csv): loss episodes and their duration, numbers by
hand; runs without the file or without losses print no section."""
import pandas as pd
import pytest

from talb_analysis import loading, stats
from talb_analysis.report import main as report_main

HEADER = ('time_ns,leaf,spine,direction,cause,src_ip,src_port,dst_ip,dst_port,job,tensor,'
          'priority,scheme,seed\n')


def write_drops(folder, rows, scheme='ecmp', seed=7):
    """link_drops.csv of one run: rows of (time_ns, cause, src_ip, src_port, dst_port, job)."""
    lines = [HEADER]
    for t, cause, src, sport, dport, job in rows:
        lines.append('%d,1,0,up,%s,%s,%d,10.0.0.9,%d,%d,%d,0,%s,%d\n'
                     % (t, cause, src, sport, dport, job, 0 if job >= 0 else -1, scheme, seed))
    (folder / 'link_drops.csv').write_text(''.join(lines))


ROWS = [
    # queue pair A (10.0.0.1 -> port 100), sprayed over source ports: an episode of three
    # losses over 40 us, then one lone loss 5 ms later (another episode)
    (1_000_000, 'failed', '10.0.0.1', 50001, 100, 0),
    (1_010_000, 'failed', '10.0.0.1', 50002, 100, 0),
    (1_040_000, 'failed', '10.0.0.1', 50003, 100, 0),
    (6_040_000, 'failed', '10.0.0.1', 50004, 100, 0),
    # queue pair B: one loss
    (1_500_000, 'failed', '10.0.0.2', 50001, 100, 0),
    # an acknowledgement (untagged): counted, in no episode
    (1_200_000, 'failed', '10.0.0.9', 50001, 200, -1),
    # a random loss of queue pair A: a cause of its own
    (9_000_000, 'loss', '10.0.0.1', 50009, 100, 0),
]


def test_episodes_split_a_connection_at_gaps_of_a_millisecond(fixture_copy):
    single = fixture_copy('single')
    write_drops(single, ROWS)
    data = loading.load(str(single))
    episodes = stats.loss_episodes(data.link_drops)
    failed = episodes[episodes['cause'] == 'failed'].sort_values(['src_ip', 'losses'])
    assert list(failed['losses']) == [1, 3, 1]
    assert list(failed['duration_us']) == pytest.approx([0.0, 40.0, 0.0])
    table = stats.link_loss_table(data, ['scheme']).set_index('cause')
    f = table.loc['failed']
    assert f['runs'] == 1 and f['losses_per_run'] == 6 and f['data_losses_per_run'] == 5
    assert f['episodes_per_run'] == 3 and f['losses_per_episode'] == pytest.approx(5 / 3)
    assert f['episode_p50_us'] == pytest.approx(0.0)
    assert f['episode_max_us'] == pytest.approx(40.0)
    assert table.loc['loss', 'episodes_per_run'] == 1
    # A wider gap joins A's lone loss to its first episode.
    wide = stats.loss_episodes(data.link_drops, gap_ns=10_000_000)
    assert sorted(wide[wide['cause'] == 'failed']['losses']) == [1, 4]


def test_the_report_prints_the_section_only_when_a_link_lost_packets(
        fixture_copy, tmp_path, capsys):
    single = fixture_copy('single')
    assert report_main([str(single), '--out=%s' % (tmp_path / 'a'), '--no-plots']) == 0
    assert 'Packets lost on failed or lossy' not in capsys.readouterr().out
    write_drops(single, [])
    assert loading.load(str(single)).link_drops.empty
    assert report_main([str(single), '--out=%s' % (tmp_path / 'b'), '--no-plots']) == 0
    assert 'Packets lost on failed or lossy' not in capsys.readouterr().out
    assert pd.read_csv(tmp_path / 'b' / 'link_losses.csv').empty
    write_drops(single, ROWS)
    assert report_main([str(single), '--out=%s' % (tmp_path / 'c'), '--no-plots']) == 0
    assert 'Packets lost on failed or lossy' in capsys.readouterr().out
    saved = pd.read_csv(tmp_path / 'c' / 'link_losses.csv')
    assert sorted(saved['cause']) == ['failed', 'loss']


def test_a_row_of_another_run_is_refused_by_name(fixture_copy):
    single = fixture_copy('single')
    write_drops(single, ROWS, scheme='talb')
    with pytest.raises(loading.TalbDataError, match='link_drops.csv'):
        loading.load(str(single))
