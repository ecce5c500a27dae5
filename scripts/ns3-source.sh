# Sourced by check-in-tree.sh and setup-fast.sh (not run on its own).
#
# talb_ns3_source WORKDIR [EXTRA_PACKAGE...]
#   Makes sure WORKDIR/ns3-3.37/ns-3.37 holds ns-3 3.37's source from Debian's source packages:
#   adds a deb-src entry for bookworm main if there is none, installs dpkg-dev (and the extra
#   packages), and runs `apt-get source ns3` in WORKDIR. Does nothing when the tree is there.
#   Sets NS3 to the tree's path.
talb_ns3_source() {
  local work=$1
  shift
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  NS3=$work/ns3-3.37/ns-3.37
  if [ ! -x "$NS3/ns3" ]; then
    if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ &&
      ! grep -qs '^deb-src .*bookworm' /etc/apt/sources.list; then
      echo "adding a deb-src entry for bookworm main"
      $sudo tee /etc/apt/sources.list.d/talb-deb-src.sources >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    fi
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dpkg-dev "$@" >/dev/null
    mkdir -p "$work"
    (cd "$work" && apt-get source ns3)
  fi
  [ -x "$NS3/ns3" ] || { echo "no ns-3 source tree at $NS3" >&2; return 1; }
}
