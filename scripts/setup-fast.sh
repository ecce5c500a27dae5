#!/usr/bin/env bash
# Opt-in "fast" setup: builds ns-3 3.37 from Debian's source in the optimized profile (-O3
# -march=native, NS_LOG and NS_ASSERT compiled out) with talb at contrib/talb, and builds the
# scenario runner and the simulator benchmark against it as ns-3 scratch programs. Debian's
# libns3 keeps every NS_LOG check compiled in; this build runs the same scenarios ~1.5-2x faster
# (doc/talb-benchmarks.rst has the measured figures). The first run takes ~15 minutes on 2 cores;
# later runs only re-sync talb and rebuild what changed.
#
# usage: scripts/setup-fast.sh [--mpi] [--print-config] [WORKDIR]
#                      (WORKDIR default /tmp/talb-fast, with --mpi /tmp/talb-fast-mpi; reused
#                      if present)
#   --mpi              the distributed variant: installs Debian's Open MPI (libopenmpi-dev,
#                      openmpi-bin), configures ns-3 with --enable-mpi (ns-3's mpi module and
#                      PointToPointRemoteChannel) and also builds ns-3's own simple-distributed
#                      example as WORKDIR/bin/simple-distributed, the check that MPI works:
#                      mpirun -np 2 --allow-run-as-root --oversubscribe WORKDIR/bin/simple-distributed
#   --print-config     prints the work folder, profile, variant and modules it would build, and
#                      exits without installing or building anything
#   TALB_NS3_PROFILE   ns-3 build profile (default optimized; release = same without -march=native)
#   TALB_JOBS          parallel compile jobs (default 2)
# Afterwards (wrappers that preload tcmalloc when libtcmalloc-minimal4 is installed):
#   WORKDIR/bin/talb-scenario --help
#   WORKDIR/bin/talb-sim-bench --help
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
MPI=0
PRINT_CONFIG=0
while [ $# -gt 0 ]; do
  case "$1" in
  --mpi) MPI=1 ;;
  --print-config) PRINT_CONFIG=1 ;;
  -*)
    echo "setup-fast: unknown option '$1'; usage: scripts/setup-fast.sh [--mpi] [--print-config] [WORKDIR]" >&2
    exit 2
    ;;
  *) break ;;
  esac
  shift
done
if [ $# -gt 1 ]; then
  echo "setup-fast: one WORKDIR at most, got: $*" >&2
  exit 2
fi
# (Plain if-statements: under set -e, a failing test inside $(...) of an assignment ends the script.)
if [ $MPI -eq 1 ]; then
  WORK=${1:-/tmp/talb-fast-mpi}
else
  WORK=${1:-/tmp/talb-fast}
fi
PROFILE=${TALB_NS3_PROFILE:-optimized}
JOBS=${TALB_JOBS:-2}
# The scratch programs built against the tree: talb's user-facing programs that benefit from speed.
PROGRAMS=(examples/talb-scenario.cc bench/talb-sim-bench.cc)
MODULES="talb"
EXTRA_PACKAGES=(libtcmalloc-minimal4)
CONFIGURE_FLAGS=()
if [ $MPI -eq 1 ]; then
  # simple-distributed routes with nix-vector routing; its test fixtures print the per-rank result.
  MODULES="talb;mpi;nix-vector-routing"
  EXTRA_PACKAGES+=(libopenmpi-dev openmpi-bin)
  CONFIGURE_FLAGS+=(--enable-mpi)
fi
VARIANT="talb-fast-profile=$PROFILE"
if [ $MPI -eq 1 ]; then
  VARIANT="$VARIANT mpi"
fi
if [ $PRINT_CONFIG -eq 1 ]; then
  printf 'workdir=%s\nprofile=%s\nvariant=%s\nmodules=%s\n' "$WORK" "$PROFILE" "$VARIANT" "$MODULES"
  exit 0
fi
start=$(date +%s)

# shellcheck source=ns3-source.sh
. "$TOP/scripts/ns3-source.sh"
talb_ns3_source "$WORK" "${EXTRA_PACKAGES[@]}"
if [ $MPI -eq 1 ] && ! command -v mpirun >/dev/null; then
  # The tree may have been fetched by a run without --mpi.
  [ "$(id -u)" -eq 0 ] && sudo="" || sudo=sudo
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${EXTRA_PACKAGES[@]}" >/dev/null
fi

# Sync the module through a staging copy so that unchanged files keep their timestamps and the
# rebuild after an edit is incremental.
echo "setup-fast: syncing the module into $NS3/contrib/talb"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
(cd "$TOP" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) |
  tar -xf - -C "$stage"
mkdir -p "$NS3/contrib/talb"
(cd "$stage" && find . -type f -print0) | while IFS= read -r -d '' f; do
  if ! cmp -s "$stage/$f" "$NS3/contrib/talb/$f"; then
    mkdir -p "$(dirname "$NS3/contrib/talb/$f")"
    cp "$stage/$f" "$NS3/contrib/talb/$f"
  fi
done
(cd "$NS3/contrib/talb" && find . -type f -print0) | while IFS= read -r -d '' f; do
  [ -e "$stage/$f" ] || rm -f "$NS3/contrib/talb/$f"
done
for p in "${PROGRAMS[@]}"; do
  name=$(basename "$p")
  cmp -s "$TOP/$p" "$NS3/scratch/$name" || cp "$TOP/$p" "$NS3/scratch/$name"
done
if [ $MPI -eq 1 ]; then
  # ns-3's own distributed example, built as a scratch program (a scratch subfolder is one program)
  # so that the tree needs no --enable-examples.
  mkdir -p "$NS3/scratch/simple-distributed"
  for f in simple-distributed.cc mpi-test-fixtures.cc mpi-test-fixtures.h; do
    cmp -s "$NS3/src/mpi/examples/$f" "$NS3/scratch/simple-distributed/$f" ||
      cp "$NS3/src/mpi/examples/$f" "$NS3/scratch/simple-distributed/$f"
  done
fi

if [ $MPI -eq 1 ]; then
  # ns-3's mpi module receives every packet into a fixed 2000-byte buffer, and a larger one fails
  # the run (MPI_ERR_TRUNCATE, or a crash in Open MPI): talb's jumbo frames (mtu up to 9216) plus
  # their serialized tags need more. 64 KiB per pending receive, one per remote rank.
  # (Edited only while still 2000, so that a rerun rebuilds nothing.)
  for f in granted-time-window-mpi-interface.h null-message-mpi-interface.cc; do
    if grep -q 'MAX_MPI_MSG_SIZE = 2000;' "$NS3/src/mpi/model/$f"; then
      sed -i -e 's/\(MAX_MPI_MSG_SIZE = \)2000;/\165536;/' "$NS3/src/mpi/model/$f"
    fi
  done
fi

cd "$NS3"
if [ ! -f cmake-cache/build.ninja ] || ! grep -qxs "$VARIANT" cmake-cache/.talb-fast; then
  echo "setup-fast: configuring ns-3 ($VARIANT, modules: $MODULES and their dependencies)"
  ./ns3 configure -d "$PROFILE" --enable-modules="$MODULES" --disable-examples --disable-tests \
    --disable-python-bindings --disable-werror "${CONFIGURE_FLAGS[@]}" -G Ninja >/dev/null
  echo "$VARIANT" >cmake-cache/.talb-fast
fi
echo "setup-fast: building (-j$JOBS)"
cmake --build cmake-cache -j "$JOBS"

suffix="-$PROFILE"
[ "$PROFILE" = release ] && suffix=""
# tcmalloc: same results (the allocator does not change what is simulated), 15-35 % faster runs
# (doc/talb-benchmarks.rst). The wrappers preload it when it is installed.
tcmalloc=$(ldconfig -p | awk '/libtcmalloc_minimal\.so\.4 / && !found {print $NF; found = 1}')
[ -n "$tcmalloc" ] || echo "setup-fast: note: libtcmalloc-minimal4 is not installed; runs use glibc malloc"
mkdir -p "$WORK/bin"
BINARIES=()
for p in "${PROGRAMS[@]}"; do
  name=$(basename "$p" .cc)
  BINARIES+=("$name=$NS3/build/scratch/ns3.37-$name$suffix")
done
if [ $MPI -eq 1 ]; then
  BINARIES+=("simple-distributed=$NS3/build/scratch/simple-distributed/ns3.37-simple-distributed$suffix")
fi
for entry in "${BINARIES[@]}"; do
  name=${entry%%=*}
  bin=${entry#*=}
  [ -x "$bin" ] || { echo "setup-fast: $bin was not built" >&2; exit 1; }
  rm -f "$WORK/bin/$name"
  cat >"$WORK/bin/$name" <<WRAP
#!/bin/sh
# $name built against the $PROFILE ns-3 tree by scripts/setup-fast.sh
${tcmalloc:+export LD_PRELOAD="$tcmalloc\${LD_PRELOAD:+:\$LD_PRELOAD}"}
exec "$bin" "\$@"
WRAP
  chmod +x "$WORK/bin/$name"
  echo "setup-fast: $WORK/bin/$name"
done
if [ $MPI -eq 1 ]; then
  # ns-3's own check: packets cross from rank 0 to rank 1 and rank 0 counts every sink trace.
  as_root=()
  [ "$(id -u)" -ne 0 ] || as_root=(--allow-run-as-root)
  for sync in "" --nullmsg; do
    result=$(mpirun -np 2 "${as_root[@]}" --oversubscribe "$WORK/bin/simple-distributed" --test $sync)
    echo "setup-fast: mpirun -np 2 simple-distributed --test${sync:+ $sync}: $result"
    case "$result" in *PASSED*) ;; *) echo "setup-fast: the MPI check failed" >&2; exit 1 ;; esac
  done
fi
echo "setup-fast: done in $(($(date +%s) - start)) s"
