#!/usr/bin/python3
"""A stand-in for talb-scenario in the sweep tests: same command line, same output files.

``fake_talb_scenario.py --name=value ... --out=DIR`` writes run.json (every option but --out as a
parameter; scheme = lb, default ecmp) and small flows/tensors/iterations CSVs whose numbers follow
from lb, load and seed. The environment steers it:
  FAKE_FAIL=k=v[,k=v...]  exit 3 with a message on stderr when every k=v matches the options;
  FAKE_SLEEP=seconds      sleep before writing the outputs;
  FAKE_LOG=file           append "start|end <pid> <time> <options>" lines (start and end);
  FAKE_TALB_SPEED=factor  talb's iteration time against ECMP's (default 0.5).
"""
import json
import os
import sys
import time


def log(what, params):
    path = os.environ.get('FAKE_LOG')
    if path:
        with open(path, 'a') as f:
            f.write('%s %d %.6f %s\n' % (what, os.getpid(), time.time(),
                                         ','.join('%s=%s' % kv for kv in sorted(params.items()))))


def main(argv):
    params = {}
    for arg in argv:
        if not arg.startswith('--') or '=' not in arg:
            print('fake_talb_scenario: bad argument %r' % arg, file=sys.stderr)
            return 2
        name, value = arg[2:].split('=', 1)
        params[name] = value
    out = params.pop('out', None)
    if not out:
        print('fake_talb_scenario: --out=DIR is required', file=sys.stderr)
        return 2
    log('start', params)
    time.sleep(float(os.environ.get('FAKE_SLEEP', '0')))
    fail = os.environ.get('FAKE_FAIL')
    if fail and all(params.get(k) == v for k, v in (c.split('=', 1) for c in fail.split(','))):
        for i in range(30):
            print('fake_talb_scenario: progress line %d' % i, file=sys.stderr)
        print('fake_talb_scenario: failing on purpose (FAKE_FAIL=%s)' % fail, file=sys.stderr)
        return 3
    scheme = params.get('lb', 'ecmp')
    seed = int(params.get('seed', '1'))
    load = float(params.get('load', '0.5'))
    os.makedirs(out, exist_ok=True)
    # Iteration time grows with load; talb halves it, drill a little more; seeds add a little
    # noise.
    speed = {'talb': float(os.environ.get('FAKE_TALB_SPEED', '0.5')),
             'drill': 0.45}.get(scheme, 1.0)
    iter_ns = int(10e6 * (1 + load) * speed + seed * 100e3)
    fct_ns = iter_ns // 100
    with open(os.path.join(out, 'flows.csv'), 'w') as f:
        f.write('src_ip,dst_ip,src_port,dst_port,size_bytes,start_ns,fct_ns,ideal_fct_ns,slowdown,'
                'job,iteration,tensor,priority,kind,scheme,seed\n')
        for i in range(4):
            fct = fct_ns * (i + 1)
            f.write('10.0.0.1,10.0.0.2,%d,5000,%d,%d,%d,10000,%g,0,1,%d,%d,tensor,%s,%d\n'
                    % (40000 + i, 1000 * 10 ** i, i * 1000, fct, fct / 10000, i, i, scheme, seed))
        f.write('10.0.0.3,10.0.0.4,41000,5001,20000000,0,%d,10000,%g,-1,-1,-1,-1,background,%s,%d\n'
                % (fct_ns * 10, fct_ns * 10 / 10000, scheme, seed))
    with open(os.path.join(out, 'tensors.csv'), 'w') as f:
        f.write('job,iteration,tensor,name,bytes,priority,ready_ns,done_ns,comm_ns,scheme,seed\n')
        for it in range(3):
            for t in range(2):
                ready = it * iter_ns + t * 1000
                f.write('0,%d,%d,layer%d.weight,%d,%d,%d,%d,%d,%s,%d\n'
                        % (it, t, t, 4000 * (t + 1), t, ready, ready + fct_ns, fct_ns, scheme,
                           seed))
    with open(os.path.join(out, 'iterations.csv'), 'w') as f:
        f.write('job,worker,iteration,start_ns,end_ns,compute_ns,exposed_comm_ns,scheme,seed\n')
        for it in range(3):
            for w in range(2):
                start = it * iter_ns
                compute = iter_ns // 2
                f.write('0,%d,%d,%d,%d,%d,%d,%s,%d\n' % (w, it, start, start + iter_ns, compute,
                                                         iter_ns - compute, scheme, seed))
    with open(os.path.join(out, 'run.json'), 'w') as f:
        json.dump({'talb_version': 'fake', 'scheme': scheme, 'seed': seed,
                   'parameters': dict(params, out=out)}, f)
    log('end', params)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
