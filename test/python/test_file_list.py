"""talb-files.txt is the one list of module files: check it against the tree and the wscript."""
import os
import re
import types

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_wscript():
    module = types.ModuleType('wscript')
    with open(os.path.join(ROOT, 'wscript')) as f:
        exec(compile(f.read(), 'wscript', 'exec'), module.__dict__)
    return module


class FakeTarget(types.SimpleNamespace):
    pass


class FakeBld:
    """Just enough of waf's build context to record what wscript's build() declares."""

    def __init__(self, examples):
        self.path = types.SimpleNamespace(abspath=lambda: ROOT)
        self.env = types.SimpleNamespace(ENABLE_EXAMPLES=examples)
        self.module = self.test = self.headers = None
        self.programs = {}
        self.rules = []

    def create_ns3_module(self, name, deps):
        self.module = FakeTarget(name=name, deps=deps, use=[])
        return self.module

    def create_ns3_module_test_library(self, name):
        self.test = FakeTarget(name=name)
        return self.test

    def __call__(self, features=None, **rule):
        if features is None:  # a rule task generator: bld(rule=..., source=..., target=...)
            self.rules.append(rule)
            return FakeTarget(**rule)
        self.headers = FakeTarget(features=features)
        return self.headers

    def create_ns3_program(self, name, deps):
        self.programs[name] = FakeTarget(deps=deps)
        return self.programs[name]


def listed():
    return load_wscript().read_file_list(ROOT)


def test_every_listed_file_exists_and_kinds_are_sorted():
    files = listed()
    assert files['source'], 'the module has no sources'
    for kind, paths in files.items():
        assert paths == sorted(paths), '%s entries are not sorted' % kind
        assert len(paths) == len(set(paths)), '%s entries repeat' % kind


def test_every_module_file_on_disk_is_listed():
    files = listed()
    known = set(p for paths in files.values() for p in paths)
    wanted = {
        'model': ('.cc', '.h'), 'helper': ('.cc', '.h'), 'examples': ('.cc',),
    }
    missing = []
    for folder, exts in wanted.items():
        # model/ is grouped in subfolders by concern: walk them all.
        for top, _, names in os.walk(os.path.join(ROOT, folder)):
            for name in sorted(names):
                rel = os.path.relpath(os.path.join(top, name), ROOT)
                if name.endswith(exts) and rel not in known:
                    missing.append(rel)
    suites = [f for f in os.listdir(os.path.join(ROOT, 'test')) if f.endswith('-test-suite.cc')]
    missing += ['test/' + f for f in suites if 'test/' + f not in known]
    assert not missing, 'files not in talb-files.txt: %s' % missing


def test_wscript_declares_exactly_the_list():
    files = listed()
    bld = FakeBld(examples=True)
    load_wscript().build(bld)
    # The module's sources, and the code protoc generates from the Chakra schema.
    assert bld.module.source == files['source'] + ['ns3/talb-chakra-et.pb.cc']
    assert bld.test.source == files['test']
    assert bld.headers.source == files['header']
    assert sorted(bld.programs) == sorted(
        os.path.splitext(os.path.basename(p))[0] for p in files['example'])


class FakeConf:
    def __init__(self):
        self.programs, self.packages = {}, {}

    def find_program(self, name, var):
        self.programs[var] = name

    def check_cfg(self, package, args, uselib_store):
        self.packages[uselib_store] = package


def test_wscript_compiles_the_chakra_schema_as_cmake_does():
    """The waf build (ns-3 <= 3.35) cannot run here (Debian has no such ns-3): check what it
    declares against CMakeLists.txt's in-tree branch."""
    conf = FakeConf()
    load_wscript().configure(conf)
    assert conf.programs == {'PROTOC': 'protoc'}
    assert conf.packages == {'PROTOBUF': 'protobuf-lite', 'ZLIB': 'zlib'}
    bld = FakeBld(examples=False)
    load_wscript().build(bld)
    [rule] = bld.rules
    assert rule['source'] == 'model/graph/talb-chakra-et.proto'
    assert rule['target'] == ['ns3/talb-chakra-et.pb.cc', 'ns3/talb-chakra-et.pb.h']
    assert rule['rule'].startswith('${PROTOC} ') and '--cpp_out=' in rule['rule']
    assert bld.module.use == ['PROTOBUF', 'ZLIB']
    with open(os.path.join(ROOT, 'CMakeLists.txt')) as f:
        cmake = f.read()
    assert 'model/graph/talb-chakra-et.proto' in cmake
    assert '${Protobuf_LITE_LIBRARIES}' in cmake and '${ZLIB_LIBRARIES}' in cmake
    with open(os.path.join(ROOT, 'VERSION')) as f:
        version = f.read().strip()
    # CMake reads the same file: one place for the version.
    assert 'file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/VERSION TALB_VERSION_STRING' in cmake
    assert 'TALB_VERSION="%s"' % version in bld.module.defines
    assert 'TALB_DATA_DIR="%s"' % os.path.join(ROOT, 'data') in bld.module.defines


def test_cmake_reads_the_same_list():
    with open(os.path.join(ROOT, 'CMakeLists.txt')) as f:
        cmake = f.read()
    assert 'talb_read_file_list(${CMAKE_CURRENT_LIST_DIR}/talb-files.txt)' in cmake
    for var in ('talb_sources', 'talb_headers', 'talb_test_sources'):
        assert '${%s}' % var in cmake
    # ns-3's in-tree dependency scan reads literal ${lib...} names; the waf module must agree.
    # The mpi module is linked only by an MPI-enabled ns-3 (as ns-3's point-to-point does); the
    # waf build has no MPI variant.
    cmake = re.sub(r'if\(\$\{ENABLE_MPI\}\).*?endif\(\)', '', cmake, flags=re.S)
    cmake_deps = re.findall(r'\$\{lib([a-z0-9-]+)\}', cmake)
    bld = FakeBld(examples=False)
    load_wscript().build(bld)
    assert sorted(cmake_deps) == sorted(bld.module.deps)


def test_malformed_list_line_is_reported_with_its_line(tmp_path):
    (tmp_path / 'talb-files.txt').write_text('# c\nsource\n')
    with pytest.raises(ValueError, match=r'talb-files.txt:2'):
        load_wscript().read_file_list(str(tmp_path))
