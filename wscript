# -*- Mode: python; py-indent-offset: 4; indent-tabs-mode: nil; coding: utf-8; -*-
# ns-3 <= 3.35 (waf) build of the talb module. Sources, headers, test suites and examples come
# from talb-files.txt, the same list CMakeLists.txt reads, so the two builds cannot drift.
import os

LIST_FILE = 'talb-files.txt'
KINDS = ('source', 'header', 'test', 'example')


def read_file_list(top):
    """Return {kind: [path, ...]} from talb-files.txt, failing on malformed lines."""
    files = dict((kind, []) for kind in KINDS)
    path = os.path.join(top, LIST_FILE)
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            fields = line.split()
            if len(fields) != 2 or fields[0] not in files:
                raise ValueError('%s:%d: expected "<kind> <path>" with kind in %s, got %r'
                                 % (path, lineno, KINDS, line))
            if not os.path.exists(os.path.join(top, fields[1])):
                raise ValueError('%s:%d: %s does not exist' % (path, lineno, fields[1]))
            files[fields[0]].append(fields[1])
    return files


def configure(conf):
    pass


def build(bld):
    files = read_file_list(bld.path.abspath())
    module = bld.create_ns3_module('talb', ['core', 'network', 'internet', 'point-to-point',
                                            'traffic-control', 'applications'])
    module.source = files['source']

    module_test = bld.create_ns3_module_test_library('talb')
    module_test.source = files['test']

    headers = bld(features='ns3header')
    headers.module = 'talb'
    headers.source = files['header']

    if bld.env.ENABLE_EXAMPLES:
        for example in files['example']:
            name = os.path.splitext(os.path.basename(example))[0]
            obj = bld.create_ns3_program(name, ['talb'])
            obj.source = example
