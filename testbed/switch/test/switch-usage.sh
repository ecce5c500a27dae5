#!/bin/bash
# talb-switch's own handling of bad input: usage errors and configuration errors exit 2 with a
# message naming the argument or the file and line; --help exits 0. No ports are opened.
set -euo pipefail
switch="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
eal=(--no-huge --no-pci --no-shconf -m 64 -l 0 --log-level=error --file-prefix="talb-usage-$$")
failed=0

expect() { # expect RC PATTERN ARGS...: exit status RC and PATTERN in the output
    local want=$1 pattern=$2
    shift 2
    local rc=0
    "$switch" "${eal[@]}" -- "$@" >"$dir/out" 2>&1 || rc=$?
    if [[ $rc -ne $want ]] || ! grep -qF -- "$pattern" "$dir/out"; then
        echo "FAIL: talb-switch $*: exit $rc (want $want), output:"
        sed 's/^/    /' "$dir/out"
        failed=1
    else
        echo "ok: talb-switch $* -> $rc: $(grep -F -- "$pattern" "$dir/out" | head -1)"
    fi
}

printf 'port 0 net_null0\nroute 10.0.0.0/24 0,1\n' >"$dir/bad.conf"
printf 'port 0 net_nothing0\nroute 10.0.0.0/24 0\n' >"$dir/nodev.conf"
expect 0 "--idle-sleep-us" --help
expect 0 "--push-out" --help
expect 2 "--push-out: takes no value ('--push-out=yes')" --config=x --push-out=yes
expect 2 "--config is required"
expect 2 "unknown argument '--bogus'" --config=x --bogus
expect 2 "--lb: 'conga' is not one of" --config=x --lb=conga
expect 2 "--gobackn-fallback: 'talb' is not one of none, ecmp" --config=x --gobackn-fallback=talb
expect 0 "talb-v1" --help
expect 2 "--talb-max-reorder: 'lots' is not a number in 0..1073741824" --config=x --lb=talb --talb-max-reorder=lots
expect 2 "--talb-safe-moves: 'sometimes' is not gobackn-unless-untagged, gobackn, always or never" --config=x --talb-safe-moves=sometimes
expect 2 "--talb-move-margin-rate: '1x' is not 0 or a rate such as 10Gbps" --config=x --talb-move-margin-rate=1x
expect 2 "--talb-table-size: 1000 is not a power of two" --config=x --talb-table-size=1000
expect 2 "--hermes-delay-low-us: 50 exceeds --hermes-delay-high-us 40" --config=x --lb=hermes --hermes-delay-low-us=50
expect 2 "$dir/missing.conf: cannot read" --config="$dir/missing.conf"
expect 2 "$dir/bad.conf:2: route 10.0.0.0/24: port 1 is not defined" --config="$dir/bad.conf"
expect 2 "$dir/nodev.conf:1: port 0: no device 'net_nothing0'" --config="$dir/nodev.conf"
exit $failed
