#!/usr/bin/env bash
# Installs everything talb needs on Debian 12 (bookworm) with apt: the ns-3 module, its tests and
# analysis tools, and the testbed's optional parts. Idempotent; prints what it installs.
#
# Traps handled here (see ENVIRONMENT.md): Debian's libns3-dev CMake targets name libgsl, sqlite3
# and libxml2 libraries and ns3's helper binaries (/usr/libexec/ns3, package ns3) without
# depending on them; pandas/matplotlib/pytest must be Debian's packages (no pip registry).
# slurm-wlm's own services stay down (no /etc/slurm/slurm.conf): the test starts private daemons.
# Open MPI is not here: only the opt-in distributed build (scripts/setup-fast.sh --mpi) needs it.
set -euo pipefail

PACKAGES=(
  # build
  build-essential cmake ninja-build pkg-config git ca-certificates
  # ns-3 3.37 and what its CMake package references
  libns3-dev ns3 libgsl-dev libsqlite3-dev libxml2-dev
  # Chakra execution traces: protoc compiles their schema at build time; zlib reads .et.gz
  protobuf-compiler libprotobuf-dev zlib1g-dev
  # the simulation programs' malloc (cmake/talb-allocator.cmake: TCP runs 0.75-0.8x the CPU time)
  libtcmalloc-minimal4
  # tests and benchmarks; clang's libFuzzer for the fuzz targets (test/fuzz)
  googletest libgtest-dev libbenchmark-dev clang-14 libclang-rt-14-dev
  # bench/talb-scale.sh measures peak RSS with GNU time
  time
  # analysis (Debian's /usr/bin/python3)
  python3 python3-pandas python3-numpy python3-matplotlib python3-pytest python3-docutils
  # testbed: DPDK agent, namespace end-to-end test
  dpdk libdpdk-dev iproute2 ethtool tcpdump
  # the SLURM sweep's test: a one-node cluster on localhost (scripts/slurm-local-cluster.sh)
  slurm-wlm munge
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "install-deps.sh: needs root (or sudo) to run apt-get" >&2
    exit 1
  fi
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

echo "install-deps.sh: apt-get update"
$SUDO apt-get update -qq
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps.sh: all ${#PACKAGES[@]} packages already installed"
else
  echo "install-deps.sh: installing ${#missing[@]} packages: ${missing[*]}"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"
fi

# CUDA and NCCL are not Debian packages: the testbed's GPU parts build only where they are found
# (/usr/local/cuda); say so instead of failing.
if [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "install-deps.sh: CUDA toolkit found at /usr/local/cuda (trainer and NCCL parts will build)"
else
  echo "install-deps.sh: CUDA toolkit not found at /usr/local/cuda: the trainer will be skipped"
fi
