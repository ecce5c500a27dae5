"""analysis/talb-ablation.py: TaLB with a rule off paired with default TaLB, per family and rule."""
import json
import math
import os
import subprocess

import pytest

from conftest import ROOT
from talb_analysis import ablation, loading

SCRIPT = os.path.join(ROOT, 'analysis', 'talb-ablation.py')


def write_run(folder, scheme, seed, iteration_ms, counters=None, **params):
    """A run folder with run.json (with ``counters`` as its lb_counters) and an iterations.csv
    of two iterations (the first a warm-up) of two workers; ``iteration_ms`` is the second
    iteration's longest worker."""
    os.makedirs(folder)
    params = dict({'lb': scheme, 'transport': 'tcp', 'lbProfile': 'transport',
                   'out': str(folder)}, **params)
    profile = params.pop('lb_profile', None)
    meta = {'scheme': scheme, 'seed': seed, 'parameters': params}
    if profile is not None:
        meta['lb_profile'] = profile
    if counters is not None:
        meta['lb_counters'] = counters
    with open(os.path.join(folder, 'run.json'), 'w') as f:
        json.dump(meta, f)
    end = int(iteration_ms * 1e6)
    with open(os.path.join(folder, 'iterations.csv'), 'w') as f:
        f.write('job,worker,iteration,start_ns,end_ns,compute_ns,exposed_comm_ns,scheme,seed\n')
        f.write('0,0,0,0,999999999,0,0,%s,%d\n' % (scheme, seed))
        f.write('0,0,1,0,%d,0,0,%s,%d\n' % (end, scheme, seed))
        f.write('0,1,1,0,%d,0,0,%s,%d\n' % (end // 2, scheme, seed))


def evaluation(tmp_path):
    """Two families; in 'idle' the spray rule pays 10 % in both cells and seeds and stall-moves
    changes nothing; in 'mixed' spray costs 5 % on one seed and pays 5 % on the other."""
    root = tmp_path / 'eval'
    for oversub in (1, 2):
        for seed in (1, 2):
            cell = dict(oversubscription=oversub)
            write_run(root / 'idle' / 'tcp16' / ('o%d-s%d' % (oversub, seed)), 'talb', seed, 100.0,
                      lbRulesOff='', **cell)
            write_run(root / 'idle' / 'tcp16' / ('ecmp-o%d-s%d' % (oversub, seed)), 'ecmp', seed,
                      50.0, **cell)
            for rule, ms in (('spray', 110.0), ('stall-moves', 100.0)):
                write_run(root / 'idle' / 'ablate-tcp16' / ('%s-o%d-s%d' % (rule, oversub, seed)),
                          'talb', seed, ms, lbRulesOff=rule, **cell)
    for seed, ms in ((1, 210.0), (2, 190.0)):
        write_run(root / 'mixed' / 'tcp16' / ('s%d' % seed), 'talb', seed, 200.0,
                  counters={'mid_tensor_moves': 3, 'stall_moves': 1, 'sprayed': 1000,
                            'fallback': 7})
        write_run(root / 'mixed' / 'ablate-tcp16' / ('s%d' % seed), 'talb', seed, ms,
                  counters={'mid_tensor_moves': 5, 'boundary_moves': seed, 'sprayed': 0},
                  lbRulesOff='spray')
    # An ablated run without a default twin (seed 3) is left out.
    write_run(root / 'mixed' / 'ablate-tcp16' / 's3', 'talb', 3, 500.0, lbRulesOff='spray')
    return root


def row(table, family, rule):
    found = table[(table['family'] == family) & (table['rule'] == rule)]
    assert len(found) == 1, table
    return found.iloc[0]


def test_rules_off_are_labelled_after_the_other_parts():
    tcp = {'transport': 'tcp', 'lbProfile': 'transport'}
    assert loading.scheme_label('talb', dict(tcp, lbRulesOff='spray')) == 'talb-no-spray'
    assert loading.scheme_label('talb', dict(tcp, lbRulesOff='spray,stall-moves')) == \
        'talb-no-spray+stall-moves'
    assert loading.scheme_label('talb', dict(tcp, lbRulesOff='')) == 'talb'
    assert loading.scheme_label('talb', dict(tcp, lbProfile='none', lbRulesOff='spray')) == \
        'talb-localspray-sprayallwhenshared-marginmoves-stallmoves-no-spray'
    assert loading.scheme_label('ecmp', dict(tcp, lbRulesOff='spray')) == 'ecmp'


def test_pairs_by_family_cell_and_seed(tmp_path):
    paired = ablation.load(str(evaluation(tmp_path)))
    assert len(paired) == 2 * 4 + 2  # seed 3 has no twin
    table = ablation.summarise(paired)
    spray = row(table, 'idle', 'spray')
    assert (spray['cells'], spray['pairs']) == (2, 4)
    assert spray['rule_gain_pct'] == pytest.approx(10.0)
    assert spray['talb_iter_ms'] == pytest.approx(100.0)
    assert spray['verdict'] == 'pays'
    assert row(table, 'idle', 'stall-moves')['verdict'] == 'no effect'
    mixed = row(table, 'mixed', 'spray')
    assert mixed['rule_gain_pct'] == pytest.approx(0.0)
    assert (mixed['min_pct'], mixed['max_pct']) == (pytest.approx(-5.0), pytest.approx(5.0))
    assert mixed['verdict'] == 'within noise'
    assert (mixed['moves_with'], mixed['moves_without']) == (4.0, 6.5)  # mid + boundary + stall
    assert (mixed['sprayed_with'], mixed['sprayed_without']) == (1000.0, 0.0)
    assert math.isnan(spray['moves_with'])  # runs without lb_counters
    pooled = table[(table['family'] == 'all') & (table['rule'] == 'spray')].iloc[0]
    assert (pooled['cells'], pooled['pairs']) == (3, 6)
    assert pooled['rule_gain_pct'] == pytest.approx(40.0 / 6)
    assert set(table['transport']) == {'tcp'}


def test_a_rule_that_moves_the_iteration_by_nanoseconds_is_level_not_paying(tmp_path):
    """Every seed 1-4 us longer without the rule (of 500 ms): the CI is above 0, but the whole
    interval is within the goals table's 0.05 % tie, so the verdict is level; 0.1 ms a seed,
    0.02 %, stays level, and 1 ms a seed, 0.2 %, pays."""
    for extra_ms, verdict in ((0.001, 'level'), (0.1, 'level'), (1.0, 'pays')):
        root = tmp_path / str(extra_ms) / 'eval'
        for seed in (1, 2, 3, 4):
            write_run(root / 'idle' / 'rdma16' / ('s%d' % seed), 'talb', seed, 500.0)
            write_run(root / 'idle' / 'ablate-rdma16' / ('s%d' % seed), 'talb', seed,
                      500.0 + extra_ms * (1 + seed / 4), lbRulesOff='spray')
        spray = row(ablation.summarise(ablation.load(str(root))), 'idle', 'spray')
        assert spray['rule_gain_pct'] - spray['ci95_pct'] > 0
        assert spray['verdict'] == verdict, (extra_ms, spray)


def test_the_held_out_family_has_its_own_rows_and_is_not_in_all(tmp_path):
    root = evaluation(tmp_path)
    write_run(root / 'heldout' / 'mix3-tcp16' / 's6', 'talb', 6, 100.0)
    write_run(root / 'heldout' / 'ablate-mix3-tcp16' / 's6', 'talb', 6, 150.0, lbRulesOff='spray')
    table = ablation.summarise(ablation.load(str(root)))
    assert row(table, 'heldout', 'spray')['rule_gain_pct'] == pytest.approx(50.0)
    assert row(table, 'all', 'spray')['pairs'] == 6


def test_a_candidate_rule_pairs_with_default_talb_with_the_same_sign(tmp_path):
    """TaLB with a rule more than its defaults (talb-lastends over TCP, whose profile lacks
    LastEndsWindow) is the rule +lastends: its gain is default TaLB's iteration over the
    candidate's, minus 1, so > 0 the rule pays; the held-out LLM family has its own rows, not in
    all. Over go-back-N RDMA the rule is a default (since 2026-12-06): its ablation is last-ends."""
    root = tmp_path / 'eval'
    tcp = dict(transport='tcp', oversubscription=2)
    for family, seeds in (('llm', (1, 2)), ('llmheldout', (6, 7))):
        for seed in seeds:
            write_run(root / family / 'moe-tcp128' / ('s%d' % seed), 'talb', seed, 110.0,
                      counters={'mid_tensor_moves': 4}, **tcp)
            write_run(root / family / 'lastends-moe-tcp128' / ('s%d' % seed), 'talb', seed,
                      100.0 if family == 'llm' else 110.0 + seed,
                      counters={'mid_tensor_moves': 2},
                      lbAttributes='LastEndsWindow=true', **tcp)
    # Not a candidate alone: a variant with the rule is not paired with default TaLB.
    write_run(root / 'llm' / 'slots-moe-tcp128' / 's1', 'talb', 1, 50.0,
              lbAttributes='LastEndsWindow=true;FlowSlots=32', **tcp)
    paired = ablation.load(str(root))
    assert set(paired['rule']) == {'+lastends'} and len(paired) == 4
    table = ablation.summarise(paired)
    llm = row(table, 'llm', '+lastends')
    assert llm['rule_gain_pct'] == pytest.approx(10.0)
    assert (llm['talb_iter_ms'], llm['verdict'], llm['defaults']) == (100.0, 'pays', 'talb')
    assert (llm['moves_with'], llm['moves_without']) == (2.0, 4.0)
    assert llm['parts'] == 'llm/lastends-moe-tcp128'
    assert row(table, 'llmheldout', '+lastends')['verdict'] == 'costs'
    assert row(table, 'all', '+lastends')['pairs'] == 2
    assert ablation.split_label('talb-slots32-lastends') == ('talb-slots32-lastends', None)
    assert ablation.split_label('talb-no-last-ends') == ('talb', 'last-ends')


def test_a_rule_that_costs_is_called_so(tmp_path):
    root = tmp_path / 'eval'
    for seed, ms in ((1, 90.0), (2, 91.0), (3, 89.0)):
        write_run(root / 'idle' / 'a' / str(seed), 'talb', seed, 100.0, transport='rdma')
        write_run(root / 'idle' / 'b' / str(seed), 'talb', seed, ms, transport='rdma',
                  lbRulesOff='queue-moves')
    r = row(ablation.summarise(ablation.load(str(root))), 'idle', 'queue-moves')
    assert r['transport'] == 'rdma' and r['verdict'] == 'costs'
    assert r['rule_gain_pct'] == pytest.approx(-10.0)


def test_script_writes_the_table_and_the_pairs(tmp_path):
    out, pairs = tmp_path / 'ablation.csv', tmp_path / 'pairs.csv'
    result = subprocess.run(['/usr/bin/python3', SCRIPT, str(evaluation(tmp_path)),
                             '--out=%s' % out, '--pairs-out=%s' % pairs, '--format=markdown'],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert '| idle | tcp | spray |' in result.stdout
    assert out.read_text().splitlines()[0] == ','.join(ablation.COLUMNS)
    assert len(pairs.read_text().splitlines()) == 1 + 10
    assert 'idle,ablate-tcp16,tcp,spray,talb,oversubscription=2,2,100,110,' in pairs.read_text()


def test_runs_under_earlier_defaults_pair_with_those_defaults(tmp_path):
    """TCP runs recorded under the profile before it turned the margin moves off (2026-12-01)
    are talb-sprayallwhenshared-marginmoves-stallmoves and that with -no-<rule>: they pair with
    each other, not with today's defaults, and the table names the defaults each row compares
    with."""
    root = tmp_path / 'eval'
    before = 'RemoteSprayBytes=30000;SprayPaths=Fastest'
    now = before + ';MarginMoves=false;SprayQueue=AtOrAbove;StallTimeout=0'
    old = 'talb-sprayallwhenshared-marginmoves-stallmoves'
    for seed in (1, 2):
        for profile, default_ms, off_ms in ((before, 100.0, 110.0), (now, 90.0, 90.0)):
            tag = 'old' if profile == before else 'new'
            write_run(root / 'idle' / 'tcp16' / ('%s-%d' % (tag, seed)), 'talb', seed,
                      default_ms, lb_profile=profile)
            write_run(root / 'idle' / 'ablate-tcp16' / ('%s-%d' % (tag, seed)), 'talb', seed,
                      off_ms, lbRulesOff='spray', lb_profile=profile)
    table = ablation.summarise(ablation.load(str(root)))
    table = table[table['family'] == 'idle'].set_index('defaults')
    assert sorted(table.index) == ['talb', old]
    assert table.at[old, 'rule_gain_pct'] == pytest.approx(10.0)
    assert table.at['talb', 'verdict'] == 'no effect' and table.at['talb', 'pairs'] == 2
    assert ablation.split_label('talb-marginmoves-no-spray+stall-moves') == \
        ('talb-marginmoves', 'spray+stall-moves')
    assert ablation.split_label('talb-nomarginmoves') == ('talb-nomarginmoves', None)


def test_keep_updates_what_is_here_and_keeps_the_rest(tmp_path):
    """--keep: a results folder with idle's spray rule only replaces that row of the earlier
    table and keeps the others (idle's stall-moves, mixed's, rdma's all row); tcp's spray 'all'
    row is recomputed from what is here, with a warning that it pools idle alone."""
    import pandas as pd
    full = tmp_path / 'full.csv'
    table = ablation.summarise(ablation.load(str(evaluation(tmp_path))))
    rdma = dict({c: 0 for c in ablation.COLUMNS}, family='all', transport='rdma',
                rule='queue-moves', verdict='no effect')
    pd.concat([table, pd.DataFrame([rdma])]).to_csv(full, index=False)
    only_idle = tmp_path / 'only-idle'
    for seed in (1, 2):
        write_run(only_idle / 'idle' / 'tcp16' / str(seed), 'talb', seed, 100.0)
        write_run(only_idle / 'idle' / 'ablate-tcp16' / str(seed), 'talb', seed, 120.0,
                  lbRulesOff='spray')
    out = tmp_path / 'new.csv'
    result = subprocess.run(['/usr/bin/python3', SCRIPT, str(only_idle), '--out=%s' % out,
                             '--keep=%s' % full], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert 'the all rows of tcp spray pool only the families in this RESULTS' in result.stderr
    new = pd.read_csv(out)
    assert row(new, 'idle', 'spray')['rule_gain_pct'] == pytest.approx(20.0)
    assert row(new, 'idle', 'stall-moves')['verdict'] == 'no effect'
    assert row(new, 'mixed', 'spray')['pairs'] == 2
    assert row(new, 'all', 'spray')['pairs'] == 2
    assert row(new, 'all', 'queue-moves')['transport'] == 'rdma'
    assert list(new['family'][new['rule'] == 'spray']) == ['idle', 'mixed', 'all']
    bad = tmp_path / 'bad.csv'
    bad.write_text('a,b\n1,2\n')
    result = subprocess.run(['/usr/bin/python3', SCRIPT, str(only_idle), '--keep=%s' % bad],
                            capture_output=True, text=True)
    assert result.returncode == 2 and 'bad.csv: not an ablation table' in result.stderr


@pytest.mark.parametrize('make,message', [
    (lambda root: None, 'not a folder'),
    (lambda root: write_run(root / 'idle' / 'x', 'talb', 1, 100.0),
     'no TaLB run with a rule off (lbRulesOff) or a candidate rule on (talb-lastends) has a '
     'default TaLB run'),
])
def test_nothing_to_pair_is_an_error(tmp_path, make, message):
    root = tmp_path / 'eval'
    make(root)
    result = subprocess.run(['/usr/bin/python3', SCRIPT, str(root)], capture_output=True,
                            text=True)
    assert result.returncode == 2
    assert message in result.stderr and str(root) in result.stderr


def test_kept_rows_of_a_table_from_before_the_defaults_column_name_their_defaults(tmp_path):
    """A table written before the defaults column (before 2026-12-01) measured TCP's rules
    against TCP's defaults of the time, margin moves on: kept, its TCP rows say so."""
    import pandas as pd
    table = ablation.summarise(ablation.load(str(evaluation(tmp_path))))
    rdma = dict({c: 0 for c in ablation.COLUMNS}, family='mixed', transport='rdma',
                rule='queue-moves', defaults='talb', verdict='no effect')
    earlier = pd.concat([table, pd.DataFrame([rdma])]).drop(columns='defaults')
    path = tmp_path / 'earlier.csv'
    earlier.to_csv(path, index=False)
    kept = ablation.keep_rows(table.iloc[0:0], str(path))
    assert set(kept['defaults'][kept['transport'] == 'tcp']) == \
        {'talb-sprayallwhenshared-marginmoves-stallmoves'}
    assert list(kept['defaults'][kept['transport'] == 'rdma']) == ['talb']


def test_kept_rows_named_talb_marginmoves_are_renamed_as_those_runs_are_labelled_now(tmp_path):
    """A table written while TCP's defaults kept the shared spray queue and the stall moves names
    its TCP defaults 'talb-marginmoves'; those runs are now
    'talb-sprayallwhenshared-marginmoves-stallmoves', and a row recomputed from them replaces the
    kept one rather than standing beside it."""
    import pandas as pd
    table = ablation.summarise(ablation.load(str(evaluation(tmp_path))))
    earlier = table.copy()
    earlier['defaults'] = ['talb-marginmoves' if t == 'tcp' else d
                           for t, d in zip(earlier['transport'], earlier['defaults'])]
    earlier['rule_gain_pct'] = 99.0
    path = tmp_path / 'earlier.csv'
    earlier.to_csv(path, index=False)
    tcp = table[table['transport'] == 'tcp'].assign(
        defaults='talb-sprayallwhenshared-marginmoves-stallmoves')
    kept = ablation.keep_rows(tcp, str(path))
    assert len(kept) == len(tcp)
    assert (kept['rule_gain_pct'] != 99.0).all()


def test_keep_pools_a_row_of_other_parts_as_if_all_pairs_were_here(tmp_path):
    """A held-out part run after an earlier part's runs were cleared away: --keep pools its pairs
    with the earlier row (parts named apart) and gives what one table of both parts' pairs
    gives, to the CSV's four digits; the row names both parts."""
    import pandas as pd
    both, first, second = (tmp_path / name for name in ('both', 'first', 'second'))
    gains = {'mix3': (10.0, 25.0, 3.0), 'mix4': (-4.0, 6.0)}
    for part, part_gains in gains.items():
        for seed, gain in enumerate(part_gains, start=6):
            for root in (both, first if part == 'mix3' else second):
                heldout = root / 'heldout'
                write_run(heldout / (part + '-tcp16') / str(seed), 'talb', seed, 100.0 + seed,
                          counters={'sprayed': 100 * seed}, jobs=part)
                write_run(heldout / ('ablate-%s-tcp16' % part) / str(seed), 'talb', seed,
                          (100.0 + seed) * (1 + gain / 100), counters={'sprayed': seed},
                          lbRulesOff='spray', jobs=part)
    whole = row(ablation.summarise(ablation.load(str(both))), 'heldout', 'spray')
    earlier = tmp_path / 'earlier.csv'
    assert subprocess.run(['/usr/bin/python3', SCRIPT, str(first), '--out=%s' % earlier],
                          capture_output=True).returncode == 0
    assert row(pd.read_csv(earlier), 'heldout', 'spray')['parts'] == 'heldout/ablate-mix3-tcp16'
    out = tmp_path / 'pooled.csv'
    result = subprocess.run(['/usr/bin/python3', SCRIPT, str(second), '--out=%s' % out,
                             '--keep=%s' % earlier], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    pooled = row(pd.read_csv(out), 'heldout', 'spray')
    for column in ('cells', 'pairs', 'talb_iter_ms', 'rule_gain_pct', 'ci95_pct', 'min_pct',
                   'max_pct', 'sprayed_with', 'sprayed_without'):
        assert pooled[column] == pytest.approx(whole[column], rel=1e-3), column
    assert pooled['verdict'] == whole['verdict'] == 'within noise'
    assert pooled['parts'] == whole['parts'] == \
        'heldout/ablate-mix3-tcp16;heldout/ablate-mix4-tcp16'
    # The same part again replaces the row rather than counting its pairs twice, and says
    # which part's pairs that drops.
    again = tmp_path / 'again.csv'
    result = subprocess.run(['/usr/bin/python3', SCRIPT, str(second), '--out=%s' % again,
                             '--keep=%s' % out], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert row(pd.read_csv(again), 'heldout', 'spray')['pairs'] == 2
    assert 'heldout tcp spray: replaced' in result.stderr
    assert 'heldout/ablate-mix3-tcp16' in result.stderr
