#!/usr/bin/env bash
# A one-node SLURM cluster on localhost, for the SLURM sweep's test and for trying the sweep on a
# laptop: munged, slurmctld and slurmd from Debian's packages (munge, slurm-wlm), each with its own
# configuration, key, sockets, state and logs under DIR, on free TCP ports of 127.0.0.1. Nothing
# outside DIR is read or written (no /etc/slurm, no /etc/munge, no system services), so several
# clusters can run side by side and stopping one leaves nothing behind but DIR.
#
# usage:
#   scripts/slurm-local-cluster.sh start DIR   # prints `export SLURM_CONF=DIR/slurm.conf`
#   scripts/slurm-local-cluster.sh status DIR
#   scripts/slurm-local-cluster.sh stop DIR    # cancels its jobs, stops the daemons; keeps DIR/log
#
#   eval "$(scripts/slurm-local-cluster.sh start /tmp/talb-slurm)"
#   /usr/bin/python3 scripts/talb-sweep.py --backend=slurm --param lb=ecmp,talb --out=results/s
#   scripts/slurm-local-cluster.sh stop /tmp/talb-slurm
#
# The node offers every core of this machine (one array task per core at a time) and 90 % of its
# memory. Exit status: 0 done; 2 bad usage; 3 the cluster cannot start here (packages missing, a
# daemon refused to start or the node did not come up within TALB_SLURM_START_S seconds, 30 by
# default); the reason and the daemons' log tails are on stderr. A failed start stops whatever
# it had started.
set -euo pipefail

START_S=${TALB_SLURM_START_S:-30}
export PATH=$PATH:/usr/sbin:/sbin # the daemons live there; a user's PATH may lack them
STOP_S=10

usage() {
  echo "usage: scripts/slurm-local-cluster.sh start|status|stop DIR" >&2
  exit 2
}

say() { echo "slurm-local-cluster: $*" >&2; }

cannot_start() {
  say "cannot start: $*"
  exit 3
}

[ $# -eq 2 ] || usage
ACTION=$1
DIR=$2
case "$ACTION" in start | status | stop) ;; *) usage ;; esac
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
CONF=$DIR/slurm.conf
export SLURM_CONF=$CONF

alive() { # a zombie (exited, not yet reaped by a parent that never reaps) counts as stopped
  [ -r "/proc/$1/stat" ] && ! awk '{exit $3 == "Z" ? 0 : 1}' "/proc/$1/stat" 2>/dev/null
}

pid_of() { # the daemon's pid if it is running, else nothing
  local file=$DIR/run/$1.pid pid
  [ -s "$file" ] || return 0
  pid=$(cat "$file")
  if alive "$pid"; then echo "$pid"; fi
}

stop_daemons() { # SIGTERM to all of them at once, SIGKILL to those still there after STOP_S
  local pids=() d pid
  for d in "$@"; do
    pid=$(pid_of "$d")
    [ -z "$pid" ] || { kill -TERM "$pid" 2>/dev/null || true; pids+=("$d:$pid"); }
  done
  for _ in $(seq $((STOP_S * 20))); do
    local left=()
    for d in "${pids[@]}"; do alive "${d#*:}" && left+=("$d"); done
    [ ${#left[@]} -gt 0 ] || return 0
    pids=("${left[@]}")
    sleep 0.05
  done
  for d in "${pids[@]}"; do
    say "${d%%:*} (pid ${d#*:}) did not stop within $STOP_S s: killing it"
    kill -KILL "${d#*:}" 2>/dev/null || true
  done
}

stop_cluster() {
  if [ -n "$(pid_of slurmctld)" ]; then
    # Every job of this cluster is ours: cancel them so that no job step outlives slurmd.
    local jobs
    jobs=$(squeue -h -o %A 2>/dev/null | sort -u | tr '\n' ' ' || true)
    if [ -n "${jobs// /}" ]; then
      say "cancelling jobs $jobs"
      # shellcheck disable=SC2086
      scancel $jobs 2>/dev/null || true
      for _ in $(seq $((STOP_S * 10))); do
        [ -z "$(squeue -h -o %A 2>/dev/null || true)" ] && break
        sleep 0.1
      done
    fi
  fi
  stop_daemons slurmd slurmctld
  stop_daemons munged # last: slurmd and slurmctld talk to it until they exit
  if [ -s "$DIR/run/munge-socket-dir" ]; then
    local sockdir
    sockdir=$(cat "$DIR/run/munge-socket-dir")
    case "$sockdir" in /tmp/talb-munge.*) rm -rf "$sockdir" ;; esac
    rm -f "$DIR/run/munge-socket-dir"
  fi
}

log_tails() {
  for f in "$DIR"/log/*.log; do
    [ -s "$f" ] || continue
    echo "--- last lines of $f" >&2
    tail -n 15 "$f" >&2
  done
}

free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_cluster() {
  local missing=() p
  for p in munged mungekey slurmctld slurmd sbatch squeue sinfo scancel; do
    command -v "$p" >/dev/null || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] || cannot_start "${missing[*]} not found (install Debian's slurm-wlm and munge: scripts/install-deps.sh)"
  if [ -n "$(pid_of slurmctld)" ]; then
    say "already running in $DIR"
    echo "export SLURM_CONF=$CONF"
    return 0
  fi
  mkdir -p "$DIR/run" "$DIR/key" "$DIR/state" "$DIR/spool" "$DIR/log"
  chmod 700 "$DIR/key" "$DIR/state" "$DIR/spool"
  # munged insists on a socket folder that every user can reach (every folder above it
  # executable by all), which DIR need not be (pytest's temporary folders are 0700), and unix
  # socket paths are short: the socket gets a folder of its own in /tmp, named in DIR/run.
  local sockdir socket
  sockdir=$(mktemp -d /tmp/talb-munge.XXXXXX)
  chmod 755 "$sockdir"
  echo "$sockdir" >"$DIR/run/munge-socket-dir"
  socket=$sockdir/munge.socket
  [ -s "$DIR/key/munge.key" ] || mungekey --create --keyfile="$DIR/key/munge.key" ||
    cannot_start "mungekey failed"

  local node cpus mem_mb ctld_port slurmd_port
  node=$(hostname -s)
  cpus=$(nproc)
  mem_mb=$(awk '/^MemTotal:/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
  ctld_port=$(free_port)
  slurmd_port=$(free_port)
  cat >"$CONF" <<EOF
# Written by scripts/slurm-local-cluster.sh: a one-node cluster on 127.0.0.1, all state in $DIR.
ClusterName=talb-local
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
# No cgroups (containers and laptops often lack them) and no accounting database: sacct is
# unavailable, squeue and scontrol answer for finished jobs during MinJobAge.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

  if ! munged --key-file="$DIR/key/munge.key" --socket="$socket" --pid-file="$DIR/run/munged.pid" \
    --log-file="$DIR/log/munged.log" --seed-file="$DIR/key/munged.seed" 2>>"$DIR/log/munged.log"; then
    log_tails
    stop_cluster
    cannot_start "munged did not start"
  fi
  if ! slurmctld -f "$CONF" 2>>"$DIR/log/slurmctld.log" || ! slurmd -f "$CONF" -N "$node" 2>>"$DIR/log/slurmd.log"; then
    log_tails
    stop_cluster
    cannot_start "slurmctld or slurmd did not start"
  fi
  local state=""
  for _ in $(seq $((START_S * 5))); do
    state=$(sinfo -h -n "$node" -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.2
  done
  if [ "$state" != idle ]; then
    log_tails
    stop_cluster
    cannot_start "node $node is '${state:-unreachable}' after $START_S s (expected idle)"
  fi
  say "up: node $node ($cpus CPUs, $mem_mb MB), slurmctld on 127.0.0.1:$ctld_port, state in $DIR"
  echo "export SLURM_CONF=$CONF"
}

case "$ACTION" in
start) start_cluster ;;
stop)
  stop_cluster
  say "stopped (logs kept in $DIR/log)"
  ;;
status)
  if [ -z "$(pid_of slurmctld)" ]; then
    echo "not running ($DIR)"
    exit 1
  fi
  sinfo
  squeue
  ;;
esac
