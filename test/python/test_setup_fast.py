"""scripts/setup-fast.sh decides its work folder and build variant before it installs anything.

--print-config stops right there, so these run in CI without apt or a 15-minute ns-3 build. They
guard the script's option handling under `set -e`: a plain run (no --mpi) once ended silently at
the variant's line, before building anything, because a failing test inside `$(...)` of an
assignment ends such a script.
"""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, 'scripts', 'setup-fast.sh')


def run(*args):
    return subprocess.run(['bash', SCRIPT] + list(args), capture_output=True, text=True, timeout=30)


def config(*args):
    result = run('--print-config', *args)
    assert result.returncode == 0, result.stderr
    return dict(line.split('=', 1) for line in result.stdout.splitlines())


def test_plain_run_reaches_the_build_with_its_defaults():
    assert config() == {'workdir': '/tmp/talb-fast', 'profile': 'optimized',
                        'variant': 'talb-fast-profile=optimized', 'modules': 'talb'}


def test_mpi_run_has_its_own_folder_and_modules():
    got = config('--mpi')
    assert got['workdir'] == '/tmp/talb-fast-mpi'
    assert got['variant'] == 'talb-fast-profile=optimized mpi'
    assert got['modules'] == 'talb;mpi;nix-vector-routing'


def test_workdir_and_profile_are_taken():
    env = dict(os.environ, TALB_NS3_PROFILE='release')
    result = subprocess.run(['bash', SCRIPT, '--print-config', '/srv/ns3-fast'], capture_output=True,
                            text=True, timeout=30, env=env)
    assert result.returncode == 0, result.stderr
    assert 'workdir=/srv/ns3-fast\n' in result.stdout
    assert 'variant=talb-fast-profile=release\n' in result.stdout


def test_bad_arguments_are_refused_by_name():
    result = run('--bogus')
    assert result.returncode == 2
    assert "unknown option '--bogus'" in result.stderr
    result = run('--print-config', 'one', 'two')
    assert result.returncode == 2
    assert 'one WORKDIR at most' in result.stderr
