#!/bin/bash
# Stops the DPDK processes of a namespace testbed -- agents and switches, every <name>.pid in the
# run directory (SIGTERM: they print their final counters to their logs) -- and deletes its
# namespaces (talb-mid-ID, talb-hK-ID; the leaf-spine's talb-aK-ID, talb-lL-ID, talb-sS-ID).
# Safe to run more than once and after a failed set-up. Used by talb-netns-up.sh's and
# talb-leafspine-up.sh's testbeds alike.
set -euo pipefail

usage() {
    cat <<USAGE
usage: $(basename "$0") --id=ID [--run-dir=DIR]
  --id=ID        the testbed's id (as given to talb-netns-up.sh)
  --run-dir=DIR  its run directory, for the processes' pid files
USAGE
}

die() {
    echo "$(basename "$0"): $*" >&2
    exit 2
}

id=""
run_dir=""
for arg in "$@"; do
    case "$arg" in
    --id=*) id="${arg#*=}" ;;
    --run-dir=*) run_dir="${arg#*=}" ;;
    -h | --help)
        usage
        exit 0
        ;;
    *)
        usage >&2
        die "unknown argument '$arg'"
        ;;
    esac
done
[[ "$id" =~ ^[A-Za-z0-9]{1,8}$ ]] || die "--id: '$id' must be 1-8 letters or digits"

if [[ -n "$run_dir" && -d "$run_dir" ]]; then
    for pidfile in "$run_dir"/*.pid; do
        [[ -e "$pidfile" ]] || continue
        pid=$(cat "$pidfile")
        if kill -TERM "$pid" 2>/dev/null; then
            for _ in $(seq 1 100); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
            done
            if kill -0 "$pid" 2>/dev/null; then
                echo "$(basename "$0"): $(basename "$pidfile" .pid) ($pid) ignored SIGTERM for 10 s: killing it" >&2
                kill -KILL "$pid" 2>/dev/null || true
            fi
        fi
        rm -f "$pidfile"
    done
fi

for ns in $(ip netns list | awk '{print $1}' | grep -E "^talb-(mid|[hals][0-9]+)-$id\$" || true); do
    ip netns del "$ns"
done
echo "talb testbed $id down"
