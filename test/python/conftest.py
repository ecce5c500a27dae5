"""Shared paths for the analysis and sweep tests (run with /usr/bin/python3 -m pytest)."""
import importlib.util
import os
import shutil
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, 'test', 'python', 'fixtures')
FAKE_RUNNER = os.path.join(ROOT, 'test', 'python', 'fake_talb_scenario.py')
REPORT = os.path.join(ROOT, 'analysis', 'talb-report.py')
SWEEP = os.path.join(ROOT, 'scripts', 'talb-sweep.py')
sys.path.insert(0, os.path.join(ROOT, 'analysis'))


def load_script(path, name):
    """A script with a dash in its name, imported as a module."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def fixture_copy(tmp_path):
    """Copy a fixture folder into tmp_path (so tests can edit it) and return the copy's path."""
    def copy(name):
        dst = tmp_path / name
        shutil.copytree(os.path.join(FIXTURES, name), dst)
        return dst
    return copy
