"""talb_analysis.loading: finding run folders, the column contract, partial files."""
import json
import os
import re
import subprocess

import pytest

from conftest import FIXTURES, ROOT
from talb_analysis import loading
from talb_analysis.loading import TalbDataError, TalbDataWarning

SWEEP = os.path.join(FIXTURES, 'sweep')


def test_sweep_folder_finds_every_run_and_tags_rows_with_their_run():
    data = loading.load(SWEEP)
    assert len(data.runs) == 4
    assert sorted(zip(data.runs['scheme'], data.runs['seed'])) == [
        ('ecmp', 1), ('ecmp', 2), ('talb', 1), ('talb', 2)]
    assert len(data.flows) == 20 and len(data.tensors) == 24 and len(data.iterations) == 24
    for table in (data.flows, data.tensors, data.iterations):
        merged = table.join(data.runs[['scheme', 'seed']], on='run_id', rsuffix='_run')
        assert (merged['scheme'] == merged['scheme_run']).all()
        assert (merged['seed'] == merged['seed_run']).all()
    assert data.flows['fct_ns'].dtype == 'int64'
    assert data.flows['slowdown'].dtype == 'float64'
    assert data.runs['load'].tolist() == [0.5] * 4
    assert data.parameter_names() == ['lb', 'load', 'model', 'out']


def test_single_run_folder_is_one_run():
    data = loading.load(os.path.join(FIXTURES, 'single'))
    assert len(data.runs) == 1 and len(data.flows) == 10
    assert data.runs.loc[0, 'scheme'] == 'ecmp' and data.runs.loc[0, 'seed'] == 7


def test_hidden_folders_are_not_searched(fixture_copy):
    sweep = fixture_copy('sweep')
    os.rename(sweep / 'lb=talb,load=0.5,seed=2', sweep / '.tmp')
    assert len(loading.load(str(sweep)).runs) == 3


def test_linked_sweeps_are_followed_once(fixture_copy, tmp_path):
    sweep = fixture_copy('sweep')
    gathered = tmp_path / 'gathered'
    gathered.mkdir()
    (gathered / 'from-a').symlink_to(sweep, target_is_directory=True)
    (gathered / 'again').symlink_to(sweep, target_is_directory=True)
    (gathered / 'loop').symlink_to(gathered, target_is_directory=True)
    assert len(loading.load(str(gathered)).runs) == 4


def test_folder_without_runs_is_an_error(tmp_path):
    with pytest.raises(TalbDataError, match='no run folder'):
        loading.load(str(tmp_path))


def test_truncated_last_line_is_dropped_with_a_warning():
    with pytest.warns(TalbDataWarning, match=r'truncated/flows.csv:5: dropped a truncated last'):
        data = loading.load(os.path.join(FIXTURES, 'truncated'))
    assert data.flows['fct_ns'].tolist() == [100000, 200000, 300000]


def test_missing_column_names_file_and_column():
    with pytest.raises(TalbDataError, match=r'missing_column/flows.csv: missing column slowdown'):
        loading.load(os.path.join(FIXTURES, 'missing_column'))


def test_unexpected_column_names_file_and_column(fixture_copy):
    run = fixture_copy('single')
    text = (run / 'iterations.csv').read_text().splitlines()
    text[0] += ',gpu'
    (run / 'iterations.csv').write_text('\n'.join([text[0]] + [l + ',1' for l in text[1:]]) + '\n')
    with pytest.raises(TalbDataError, match=r'iterations.csv: unexpected column gpu'):
        loading.load(str(run))


def test_simulator_wire_bytes_column_is_accepted_and_ignored(fixture_copy):
    run = fixture_copy('single')
    text = (run / 'tensors.csv').read_text().splitlines()
    rows = [text[0] + ',wire_bytes'] + [l + ',123' for l in text[1:]]
    (run / 'tensors.csv').write_text('\n'.join(rows) + '\n')
    data = loading.load(str(run))
    assert len(data.tensors) == len(text) - 1
    assert 'wire_bytes' not in data.tensors.columns


@pytest.mark.parametrize('old,new,error', [
    (',300000,100000,3,', ',3e5x,100000,3,', r'flows.csv:4: column fct_ns: not a number'),
    (',300000,100000,3,', ',300000.5,100000,3,', r'flows.csv:4: column fct_ns: not an integer'),
    (',300000,100000,3,', ',,100000,3,', r'flows.csv:4: column fct_ns: missing value'),
    ('3,2,tensor,ecmp,7', '3,2,bulk,ecmp,7', r'flows.csv:4: column kind: expected one of'),
    ('3,2,tensor,ecmp,7', '3,2,tensor,talb,7', r'flows.csv:4: column scheme: disagrees with run'),
])
def test_bad_value_names_file_line_and_column(fixture_copy, old, new, error):
    run = fixture_copy('single')
    text = (run / 'flows.csv').read_text()
    assert text.count(old) == 1
    (run / 'flows.csv').write_text(text.replace(old, new))
    with pytest.raises(TalbDataError, match=error):
        loading.load(str(run))


def test_short_row_in_the_middle_is_an_error_not_a_silent_nan(fixture_copy):
    run = fixture_copy('single')
    lines = (run / 'flows.csv').read_text().splitlines()
    lines[3] = ','.join(lines[3].split(',')[:10])
    (run / 'flows.csv').write_text('\n'.join(lines) + '\n')
    with pytest.raises(TalbDataError, match=r'flows.csv:4: column iteration: missing value'):
        loading.load(str(run))


def test_empty_file_warns_and_gives_no_rows(fixture_copy):
    run = fixture_copy('single')
    (run / 'tensors.csv').write_text('')
    with pytest.warns(TalbDataWarning, match='tensors.csv: empty file'):
        data = loading.load(str(run))
    assert data.tensors.empty and len(data.flows) == 10


def test_missing_file_is_named(fixture_copy):
    run = fixture_copy('single')
    os.remove(run / 'tensors.csv')
    with pytest.raises(TalbDataError, match=r'tensors.csv: missing'):
        loading.load(str(run))


@pytest.mark.parametrize('meta,error', [
    ('{"scheme": "ecmp", "seed": 7}', 'missing key "parameters"'),
    ('{"scheme": "ecmp", "seed": "7", "parameters": {}}', '"seed" must be an integer'),
    ('{"scheme": "ecmp", "seed": 7, "parameters": {"seed": 8}}', 'parameters.seed=8 disagrees'),
    ('{"scheme": "ecmp", "seed": 7, ', 'not valid JSON'),
])
def test_bad_run_json_is_named(fixture_copy, meta, error):
    run = fixture_copy('single')
    (run / 'run.json').write_text(meta)
    with pytest.raises(TalbDataError, match='run.json: .*' + error):
        loading.load(str(run))


def test_nested_and_string_parameters_are_flattened_and_typed(fixture_copy):
    run = fixture_copy('single')
    (run / 'run.json').write_text(json.dumps({
        'scheme': 'ecmp', 'seed': 7,
        'parameters': {'load': '0.3', 'topo': {'leaves': 4}, 'models': ['a', 'b']}}))
    runs = loading.load(str(run)).runs
    assert runs.loc[0, 'load'] == 0.3
    assert runs.loc[0, 'topo.leaves'] == 4
    assert runs.loc[0, 'models'] == '["a", "b"]'


def test_header_only_file_gives_no_rows_without_a_warning(fixture_copy, recwarn):
    run = fixture_copy('single')
    header = (run / 'tensors.csv').read_text().splitlines()[0]
    (run / 'tensors.csv').write_text(header + '\n')
    data = loading.load(str(run))
    assert data.tensors.empty and list(data.tensors.columns)[1:] == list(
        loading.SCHEMAS['tensors.csv'])
    assert not [w for w in recwarn if issubclass(w.category, TalbDataWarning)]


def test_row_with_an_extra_field_is_an_error(fixture_copy):
    run = fixture_copy('single')
    lines = (run / 'flows.csv').read_text().splitlines()
    lines[5] += ',extra'
    (run / 'flows.csv').write_text('\n'.join(lines) + '\n')
    with pytest.raises(TalbDataError, match=r'flows.csv: .*Expected 16 fields in line 6, saw 17'):
        loading.load(str(run))


def test_parameters_of_mixed_type_become_text_and_missing_ones_stay_nan(fixture_copy):
    sweep = fixture_copy('sweep')
    for name, params in (('lb=ecmp,load=0.5,seed=1', {'load': 'high', 'hosts': 16}),
                         ('lb=ecmp,load=0.5,seed=2', {'load': 0.5})):
        meta = json.loads((sweep / name / 'run.json').read_text())
        meta['parameters'].update(params)
        (sweep / name / 'run.json').write_text(json.dumps(meta))
    runs = loading.load(str(sweep)).runs
    assert runs['load'].tolist() == ['high', '0.5', '0.5', '0.5']
    assert runs['hosts'].iloc[0] == 16 and runs['hosts'].iloc[1:].isna().all()


def test_talb_with_another_version_is_its_own_scheme_in_every_table(fixture_copy):
    sweep = fixture_copy('sweep')
    meta = sweep / 'lb=talb,load=0.5,seed=2' / 'run.json'
    meta.write_text(meta.read_text().replace('"lb": "talb",',
                                             '"lb": "talb", "lbAttributes": "Version=1",'))
    data = loading.load(str(sweep))
    assert sorted(data.runs['scheme'].unique()) == ['ecmp', 'talb', 'talb-v1']
    v1 = data.runs.index[data.runs['scheme'] == 'talb-v1']
    for table in (data.flows, data.tensors, data.iterations):
        assert set(table.loc[table['run_id'].isin(v1), 'scheme']) == {'talb-v1'}
    assert loading.scheme_label('talb', {'lbAttributes': 'Version=2'}) == 'talb'
    assert loading.scheme_label('ecmp', {'lbAttributes': 'Version=1'}) == 'ecmp'
    moves = 'Moves=Congestion;RemoteAwareness=true'
    assert loading.scheme_label('talb', {'lbAttributes': moves}) == 'talb-congestion'
    assert loading.scheme_label('talb', {'lbAttributes': 'Moves=Counts'}) == 'talb'


def test_talb_is_labelled_by_its_move_rule_against_what_the_runner_ships_per_transport():
    label = loading.scheme_label
    rdma = {'transport': 'rdma'}
    assert label('talb', dict(rdma, lbProfile='transport')) == 'talb'
    # The attribute defaults lack the go-back-N profile's LastEndsWindow (since 2026-12-06).
    assert label('talb', dict(rdma, lbProfile='none')) == 'talb-counts-nolastends'
    assert label('talb', rdma) == 'talb-counts'  # before lbProfile: no profile
    by_hand = 'Moves=Contended;RemoteAwareness=true;QueueMoves=true'
    assert label('talb', dict(rdma, lbAttributes=by_hand)) == 'talb'
    assert label('talb', dict(rdma, lbAttributes='Moves=Contended')) == 'talb-contended'
    assert label('talb', dict(rdma, lbProfile='transport', lbAttributes='QueueMoves=false')) == \
        'talb-contended'
    assert label('talb', dict(rdma, lbProfile='transport', lbAttributes='Moves=Counts')) == \
        'talb-counts'
    assert label('talb', dict(rdma, lbProfile='transport', lbAttributes='Moves=Congestion')) == \
        'talb-congestion-queue'
    assert label('talb', dict(rdma, lbAttributes='Moves=Congestion')) == 'talb-congestion'
    # QueueMoves is no part of the counts' rule.
    assert label('talb', dict(rdma, lbAttributes='Moves=Counts;QueueMoves=true')) == 'talb-counts'
    tcp = {'transport': 'tcp', 'lbProfile': 'transport'}
    assert label('talb', tcp) == 'talb'
    # Over TCP the profile sets RemoteSprayBytes (since 2026-11-27), turns the margin moves off
    # (since 2026-12-01), the shared spray queue and the stall moves (since the end of that day):
    # a run whose recorded profile lacks one is a variant.
    now = 'RemoteSprayBytes=30000;SprayPaths=Fastest;MarginMoves=false;SprayQueue=AtOrAbove;' \
        'StallTimeout=0'
    first = 'RemoteSprayBytes=30000;SprayPaths=Fastest'
    assert label('talb', dict(tcp, lb_profile=now)) == 'talb'
    assert label('talb', dict(tcp, lb_profile=first + ';MarginMoves=false')) == \
        'talb-sprayallwhenshared-stallmoves'
    assert label('talb', dict(tcp, lb_profile=first)) == \
        'talb-sprayallwhenshared-marginmoves-stallmoves'
    assert label('talb', dict(tcp, lb_profile='')) == \
        'talb-localspray-sprayallwhenshared-marginmoves-stallmoves'
    assert label('talb', dict(tcp, lbProfile='none')) == \
        'talb-localspray-sprayallwhenshared-marginmoves-stallmoves'
    assert label('talb', dict(tcp, lbAttributes='MarginMoves=true')) == 'talb-marginmoves'
    # StallTimeout: 0 in any unit is off; the attribute's 2 ms however written is 'stallmoves'.
    assert label('talb', dict(tcp, lbAttributes='StallTimeout=0ms')) == 'talb'
    assert label('talb', dict(tcp, lbAttributes='StallTimeout=2000us')) == 'talb-stallmoves'
    assert label('talb', dict(tcp, lbAttributes='StallTimeout=5ms')) == 'talb-stall5ms'
    assert label('talb', dict(rdma, lbProfile='transport', lbAttributes='StallTimeout=0s')) == \
        'talb-nostallmoves'
    assert label('talb', dict(rdma, lbProfile='transport', lbAttributes='StallTimeout=+2ms')) \
        == 'talb'
    assert label('talb', dict(rdma, lbProfile='transport', lbAttributes='MarginMoves=false')) == \
        'talb-nomarginmoves'
    # The ablation's runs name the defaults they were made under (what they pair with).
    assert label('talb', dict(tcp, lb_profile=now, lbRulesOff='margin-moves')) == \
        'talb-no-margin-moves'
    assert label('talb', dict(tcp, lb_profile=first, lbRulesOff='margin-moves')) == \
        'talb-sprayallwhenshared-marginmoves-stallmoves-no-margin-moves'
    assert label('talb', dict(rdma, lbProfile='transport', lbRulesOff='margin-moves')) == \
        'talb-no-margin-moves'
    assert label('talb', dict(tcp, lbAttributes='RemoteSprayBytes=0')) == 'talb-localspray'
    assert label('talb', dict(tcp, lbAttributes='RemoteSprayBytes=5e4')) == 'talb-remotespray50000'
    assert label('talb', dict(tcp, lbProfile='none', lbAttributes='Moves=Contended')) == \
        'talb-contended-localspray-sprayallwhenshared-marginmoves-stallmoves'
    assert label('talb', dict(rdma, lbProfile='transport', lbAttributes='RemoteSprayBytes=30000')) \
        == 'talb-remotespray30000'
    assert label('talb', dict(tcp, lbAttributes='QueueMoves=true')) == 'talb'
    # SprayQueue (since 2026-11-27): the profile's is no part of the name, the others are.
    assert label('talb', dict(tcp, lbAttributes='SprayQueue=AtOrAbove')) == 'talb'
    assert label('talb', dict(tcp, lbAttributes='SprayQueue=AllWhenShared')) == \
        'talb-sprayallwhenshared'
    assert label('talb', dict(rdma, lbProfile='transport', lbAttributes='SprayQueue=AtOrAbove')) \
        == 'talb-sprayatorabove'
    assert label('talb', dict(tcp, lbProfile='none', lbAttributes='SprayQueue=All')) == \
        'talb-localspray-sprayall-marginmoves-stallmoves'
    assert label('talb', dict(tcp, lbAttributes='SprayQueue=AtOrAboveWithRoom')) == \
        'talb-sprayatorabovewithroom'
    # SprayPaths (since 2026-11-30): named where given other than the transport's profile's
    # (Fastest over TCP, Rate on the spraying transport).
    spray = dict(transport='spray', lbProfile='transport')
    assert label('talb', dict(tcp, lbAttributes='SprayPaths=Fastest')) == 'talb'
    assert label('talb', dict(tcp, lbAttributes='SprayPaths=Rate')) == 'talb-pathsrate'
    assert label('talb', dict(spray, lbAttributes='SprayPaths=Rate')) == 'talb'
    assert label('talb', dict(spray, lbAttributes='SprayPaths=Fastest')) == 'talb-pathsfastest'
    assert label('talb', spray) == label('talb', dict(tcp, lb_profile=now)) == 'talb'
    # Spray (2026-12-04): named where given other than the transport's profile's (Always on the
    # spraying transport, Contended elsewhere), so that Spray=Always never pools with TaLB.
    assert label('talb', dict(tcp, lbAttributes='Spray=Always')) == 'talb-sprayalways'
    assert label('talb', dict(tcp, lbAttributes='Spray=Contended')) == 'talb'
    assert label('talb', dict(spray, lbAttributes='Spray=Always')) == 'talb'
    assert label('talb', dict(spray, lbAttributes='Spray=Never')) == 'talb-spraynever'
    assert label('talb', dict(tcp, lbAttributes='Spray=Crowded', lbRulesOff='spray')) == \
        'talb-spraycrowded-no-spray'
    # Over TCP with an LLM job the profile sprays always (2026-12-07) and records it: there
    # Always is TaLB and Contended the variant; the rule turned off by name is named so.
    llm = dict(tcp, lb_profile=now + ';Spray=Always')
    assert label('talb', llm) == 'talb'
    assert label('talb', dict(llm, lbAttributes='Spray=Always')) == 'talb'
    assert label('talb', dict(llm, lbAttributes='Spray=Contended')) == 'talb-spraycontended'
    assert label('talb', dict(llm, lbRulesOff='llm-spray')) == 'talb-no-llm-spray'
    assert label('talb', dict(llm, lbProfile='none')) == \
        'talb-localspray-sprayallwhenshared-marginmoves-stallmoves'
    assert label('talb', dict(tcp, lbAttributes='Moves=Contended')) == 'talb-contended'
    assert label('talb', dict(tcp, lbAttributes='Moves=Contended;QueueMoves=true')) == \
        'talb-contended-queue'
    assert label('talb', dict(rdma, lbAttributes='Moves=Contended;QueueMoves=1')) == 'talb'
    assert label('talb', dict(rdma, lbProfile='transport', lbAttributes='QueueMoves=0')) == \
        'talb-contended'
    assert label('talb', dict(rdma, lbProfile='none', lbAttributes='Version=1')) == \
        'talb-v1'
    # CongestionDelay (since 2026-11-30): 0 in any unit is the default, other values name it.
    assert label('talb', dict(rdma, lbProfile='transport', lbAttributes='CongestionDelay=0us')) \
        == 'talb'
    assert label('talb', dict(rdma, lbProfile='transport', lbAttributes='CongestionDelay=20us')) \
        == 'talb-cdelay20us'
    # CongestionWaitBelow (since 2026-12-01): 0 is the default, other values name it, so that a
    # sweep of it never pools with TaLB's defaults.
    assert label('talb', dict(rdma, lbProfile='transport', lbAttributes='CongestionWaitBelow=0')) \
        == 'talb'
    assert label('talb', dict(rdma, lbProfile='transport', lbAttributes='CongestionWaitBelow=00')) \
        == 'talb'
    assert label('talb', dict(rdma, lbProfile='transport', lbAttributes='CongestionWaitBelow=4')) \
        == 'talb-cwait4'


def test_conweave_with_its_papers_pausing_rule_is_a_scheme_of_its_own():
    label = loading.scheme_label
    assert label('conweave', {'transport': 'rdma'}) == 'conweave'
    assert label('conweave', {'lbAttributes': 'PathPauseTime=16us;PauseOn=LateReply'}) == \
        'conweave'
    assert label('conweave', {'lbAttributes': 'PathPauseTime=16us;PauseOn=Notify'}) == \
        'conweave-notify'
    assert label('ecmp', {'lbAttributes': 'PauseOn=Notify'}) == 'ecmp'


def test_talb_with_its_moves_hidden_is_named_for_it():
    label = loading.scheme_label
    rdma = {'transport': 'rdma', 'lbProfile': 'transport'}
    assert label('talb', dict(rdma, lbAttributes='ReorderMoves=true')) == 'talb-reorder'
    assert label('talb', dict(rdma, lbAttributes='ReorderMoves=false')) == 'talb'
    spray = 'ReorderMoves=true;RoceGoBackN=false;Spray=Always'
    assert label('talb', dict(rdma, lbAttributes=spray)) == 'talb-reorder-spray'
    assert label('talb', dict(rdma, lbAttributes='ReorderMoves=true;RoceGoBackN=false')) == \
        'talb-reorder-spraycontended'
    shared = 'ReorderMoves=true;RoceGoBackN=false;Spray=SharedDestination'
    assert label('talb', dict(rdma, lbAttributes=shared)) == 'talb-reorder-sprayshared'
    assert label('talb', dict(rdma, lbAttributes=spray + ';CongestionDelay=40us')) == \
        'talb-cdelay40us-reorder-spray'


def test_talb_with_conweave_moves_fallback_slots_or_last_ends_is_named_for_them():
    label = loading.scheme_label
    rdma = {'transport': 'rdma', 'lbProfile': 'transport'}
    assert label('talb', dict(rdma, lbAttributes='RttMoves=WithUntagged')) == 'talb-rttmoves'
    assert label('talb', dict(rdma, lbAttributes='RttMoves=Always')) == 'talb-rttmovesalways'
    assert label('talb', dict(rdma, lbAttributes='RttMoves=Never')) == 'talb'
    target = 'RttMoves=WithUntagged;RttMoveTarget=Talb'
    assert label('talb', dict(rdma, lbAttributes=target)) == 'talb-rttmovestalb'
    target = 'RttMoves=WithUntagged;RttMoveTarget=ConWeave'
    assert label('talb', dict(rdma, lbAttributes=target)) == 'talb-rttmoves'
    both = 'GoBackNFallback=conweave;RttMoves=WithUntagged'
    assert label('talb', dict(rdma, lbAttributes=both)) == 'talb-rttmoves-gbnconweave'
    assert label('talb', dict(rdma, lbAttributes='GoBackNFallback=letflow')) == 'talb'
    assert label('talb', dict(rdma, lbAttributes='FlowSlots=32')) == 'talb-slots32'
    assert label('talb', dict(rdma, lbAttributes='FlowSlots=8')) == 'talb'
    assert label('talb', dict(rdma, lbAttributes='ReorderMoves=true;FlowSlots=32')) == \
        'talb-reorder-slots32'
    # LastEndsWindow: the go-back-N profile's since 2026-12-06; named where it differs from
    # the transport's profile.
    assert label('talb', dict(rdma, lbAttributes='LastEndsWindow=true')) == 'talb'
    assert label('talb', dict(rdma, lbAttributes='LastEndsWindow=0')) == 'talb-nolastends'
    assert label('talb', dict(rdma, lbRulesOff='last-ends')) == 'talb-no-last-ends'
    assert label('talb', dict(rdma, lbAttributes='FlowSlots=32;LastEndsWindow=false')) == \
        'talb-slots32-nolastends'
    for other in ({'transport': 'spray'}, {'transport': 'rdma', 'rdmaRecovery': 'sr'},
                  {'transport': 'tcp'}):
        given = dict(other, lbProfile='transport')
        assert label('talb', dict(given, lbAttributes='LastEndsWindow=1;FlowSlots=32')) == \
            'talb-slots32-lastends'
        assert label('talb', dict(given, lbAttributes='LastEndsWindow=false')) == 'talb'
        # EndedTie acts with LastEndsWindow only: named beside it, against the attribute's Queue.
        assert label('talb', dict(given, lbAttributes='LastEndsWindow=1;EndedTie=Keep')) == \
            'talb-lastends-endedkeep'
        assert label('talb', dict(given, lbAttributes='EndedTie=Keep')) == 'talb'
    # EndedTie: Keep in the go-back-N profile since 2026-12-06 (later that day).
    assert label('talb', dict(rdma, lbAttributes='EndedTie=Keep')) == 'talb'
    assert label('talb', dict(rdma, lbAttributes='EndedTie=Queue')) == 'talb-endedqueue'
    assert label('talb', dict(rdma, lbAttributes='EndedTie=Spread')) == 'talb-endedspread'
    assert label('talb', dict(rdma, lbRulesOff='ended-tie')) == 'talb-no-ended-tie'
    assert label('talb', dict(rdma, lbAttributes='LastEndsWindow=false;EndedTie=Queue')) == \
        'talb-nolastends'


def test_what_a_run_records_of_its_profile_names_its_rule():
    label = loading.scheme_label
    rdma = {'transport': 'rdma', 'lbProfile': 'transport'}
    # A run of a runner whose profile was Contended without queue moves.
    earlier = 'Moves=Contended;RemoteAwareness=true;ActiveWindow=1ms'
    assert label('talb', dict(rdma, lb_profile=earlier)) == 'talb-contended-nolastends'
    queue = earlier + ';MinMoveInterval=200us;QueueMoves=true'
    assert label('talb', dict(rdma, lb_profile=queue)) == 'talb-nolastends'  # until 2026-12-05
    last_ends = queue + ';LastEndsWindow=true'
    assert label('talb', dict(rdma, lb_profile=last_ends)) == 'talb-endedqueue'  # 12-06, early
    assert label('talb', dict(rdma, lb_profile=last_ends + ';EndedTie=Keep')) == 'talb'
    assert label('talb', dict(rdma, lb_profile='')) == 'talb-counts-nolastends'
    assert label('talb', dict(rdma, lb_profile=None)) == 'talb'  # before the record


def test_a_recorded_profile_labels_the_run_and_must_be_text(fixture_copy):
    sweep = fixture_copy('sweep')
    meta = sweep / 'lb=talb,load=0.5,seed=2' / 'run.json'
    text = meta.read_text()
    meta.write_text(text.replace('"lb": "talb",', '"lb": "talb", "lbProfile": "transport",', 1)
                    .replace('"seed": 2,', '"seed": 2, "lb_profile": "Moves=Congestion",', 1))
    data = loading.load(str(sweep))
    # (a TCP run: its profile did not set the TCP profile's RemoteSprayBytes, MarginMoves,
    # SprayQueue and StallTimeout either)
    assert 'talb-congestion-localspray-sprayallwhenshared-marginmoves-stallmoves' in \
        set(data.runs['scheme'])
    assert 'lb_profile' not in data.parameter_names()
    meta.write_text(text.replace('"seed": 2,', '"seed": 2, "lb_profile": 7,', 1))
    with pytest.raises(loading.TalbDataError, match='"lb_profile" must be a string'):
        loading.load(str(sweep))


def test_the_shipped_move_rules_are_the_runners(tmp_path):
    runner = os.environ.get('TALB_SCENARIO', os.path.join(ROOT, 'build', 'bin', 'talb-scenario'))
    if not os.path.exists(runner):
        pytest.skip('%s is not built' % runner)
    text = subprocess.run([runner, '--help'], capture_output=True, text=True, timeout=60).stdout
    help_line = ' '.join(re.search(r'--lbProfile:(.*?)\n\s+--', text, re.S).group(1).split())
    for transport in ('rdma', 'spray', 'tcp'):
        rule = loading.PROFILE_RULES.get(transport)
        if rule:
            profile = re.search(r'%s: TaLB with (\S+?)\)?[;,.]?(\s|$)' % transport,
                                help_line).group(1)
            assert {k: v for k, v in loading._attributes(profile).items() if k in rule} == rule
        else:
            assert '%s: none' % transport in help_line


def test_a_counter_of_the_wrong_type_is_an_error(fixture_copy):
    sweep = fixture_copy('sweep')
    meta = sweep / 'lb=talb,load=0.5,seed=2' / 'run.json'
    meta.write_text(meta.read_text().replace('"seed": 2,', '"seed": 2, "reroutes": "many",', 1))
    with pytest.raises(loading.TalbDataError, match='"reroutes" must be a number'):
        loading.load(str(sweep))
