"""No committed file names a folder of the machine that wrote it (under its work, root or home
folders): tables, reports and figures that scripts generate name their paths relative to their
results folder or to the repository, so the repository reads the same on every machine. The
check is `git grep -I` over the tracked files; outside a git checkout (a copy in an ns-3 tree's
contrib/) it is skipped."""
import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT

# An absolute path at the start of a line or after a space, quote, '=', ':', '(' or ','.
MACHINE_PATH = re.compile(rb'''(?:^|[\s"'=:(,])/(?:work|root|home)/''', re.M)


def tracked_files():
    if shutil.which('git') is None:
        pytest.skip('git is not installed')
    top = subprocess.run(['git', '-C', ROOT, 'rev-parse', '--show-toplevel'],
                         capture_output=True, text=True)
    if top.returncode != 0 or os.path.realpath(top.stdout.strip()) != os.path.realpath(ROOT):
        pytest.skip('%s is not a git checkout of its own' % ROOT)
    listed = subprocess.run(['git', '-C', ROOT, 'ls-files', '-z'], capture_output=True,
                            check=True).stdout
    return [name.decode() for name in listed.split(b'\0') if name]


def machine_paths(data):
    """Line numbers of the absolute machine paths in a file's bytes (none in a binary file)."""
    if b'\0' in data:
        return []
    return [data.count(b'\n', 0, m.start()) + 1 for m in MACHINE_PATH.finditer(data)]


def test_the_pattern_finds_machine_paths_and_passes_relative_ones():
    home = '/' + 'home'  # spelt in two parts so that this file passes its own check
    assert machine_paths(('x\n0,"%s/alice/results/eval/idle",ecmp\n' % home).encode()) == [2]
    assert machine_paths(('runs under %s/alice/r\n' % home).encode()) == [1]
    assert machine_paths(('%s/alice/r\n' % home).encode()) == [1]
    assert machine_paths(b'0,"tcp16/lb=ecmp,seed=1",ecmp\nbuild/bin/talb-scenario\n') == []
    assert machine_paths(b'/tmp/talb-fast/bin/talb-scenario, /usr/bin/python3\n') == []
    assert machine_paths(('\0%s/alice/r' % home).encode()) == []


def test_no_committed_file_holds_an_absolute_path_of_a_machine():
    found = []
    for name in tracked_files():
        path = os.path.join(ROOT, name)
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        with open(path, 'rb') as f:
            found += ['%s:%d' % (name, line) for line in machine_paths(f.read())]
    assert not found, ('absolute paths of a machine (write them relative to the results folder '
                       'or the repository, and fix what generated them): %s' % ', '.join(found))
