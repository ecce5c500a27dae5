# -*- Mode: python; py-indent-offset: 4; indent-tabs-mode: nil; coding: utf-8; -*-
# ns-3 <= 3.35 (waf) build of the talb module. Sources, headers, test suites and examples come
# from talb-files.txt, the same list CMakeLists.txt reads, so the two builds cannot drift.
# Debian 12 has no waf-based ns-3: test/python/test_file_list.py checks what this declares
# against a fake waf context and CMakeLists.txt; it has not been built by a real waf.
import os

LIST_FILE = 'talb-files.txt'
KINDS = ('source', 'header', 'test', 'example')
# Chakra traces are protobuf messages: protoc compiles their schema at build time into the
# module's build folder, as ns3/talb-chakra-et.pb.{cc,h} (the name the reader includes).
PROTO = 'model/graph/talb-chakra-et.proto'
PROTO_OUTPUTS = ['ns3/talb-chakra-et.pb.cc', 'ns3/talb-chakra-et.pb.h']
PROTOC_RULE = ('${PROTOC} --proto_path=${SRC[0].parent.abspath()} '
               '--cpp_out=${TGT[0].parent.abspath()} ${SRC[0].abspath()}')


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
    # Debian: protobuf-compiler, libprotobuf-dev, zlib1g-dev (scripts/install-deps.sh).
    conf.find_program('protoc', var='PROTOC')
    conf.check_cfg(package='protobuf-lite', args=['--cflags', '--libs'], uselib_store='PROTOBUF')
    conf.check_cfg(package='zlib', args=['--cflags', '--libs'], uselib_store='ZLIB')


def build(bld):
    top = bld.path.abspath()
    files = read_file_list(top)
    bld(rule=PROTOC_RULE, source=PROTO, target=PROTO_OUTPUTS)
    module = bld.create_ns3_module('talb', ['core', 'network', 'internet', 'point-to-point',
                                            'traffic-control', 'applications'])
    module.source = files['source'] + PROTO_OUTPUTS[:1]
    module.includes = '.'  # the build folder's ns3/talb-chakra-et.pb.h
    module.use.extend(['PROTOBUF', 'ZLIB'])
    with open(os.path.join(top, 'VERSION')) as f:
        version = f.read().strip()
    # As CMakeLists.txt's in-tree branch: the shipped data's folder and the version run.json records.
    module.defines = ['TALB_DATA_DIR="%s"' % os.path.join(top, 'data'),
                      'TALB_VERSION="%s"' % version]

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
