#!/bin/sh
# Bad command lines exit 2 with a usage message; --help exits 0.
set -u
harness=$1
fail=0
expect() {
    want=$1
    shift
    "$harness" "$@" >/dev/null 2>&1
    got=$?
    if [ $got -ne "$want" ]; then
        echo "FAIL: '$*' exited $got, expected $want"
        fail=1
    fi
}
expect 0 --help
expect 0 loopback --help
expect 2
expect 2 bogus
expect 2 loopback --messages=abc
expect 2 loopback --messages=-1
expect 2 loopback --inflight=0
expect 2 loopback --inflight=33
expect 2 loopback --handle-file=x
expect 2 recv
expect 2 send --handle-file=
expect 2 recv --handle-file=f --log=x
expect 2 send --handle-file=f --timeout=0
"$harness" --help | grep -q "usage: talb-nccl-harness loopback" || { echo "FAIL: help text"; fail=1; }
[ $fail -eq 0 ] && echo PASS
exit $fail
