#!/usr/bin/env bash
# Proves the in-tree build: fetches ns-3 3.37's source from Debian's source packages, places this
# module at contrib/talb, builds only the modules talb needs (with examples and tests), and runs
# every talb suite through ns-3's own test.py. Not run in CI (it builds ns-3: ~15 min on 2 cores).
#
# usage: scripts/check-in-tree.sh [WORKDIR]     (default /tmp/talb-in-tree; reused if present)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-/tmp/talb-in-tree}
PROFILE=${TALB_NS3_PROFILE:-release}
start=$(date +%s)

# shellcheck source=ns3-source.sh
. "$TOP/scripts/ns3-source.sh"
talb_ns3_source "$WORK"

echo "check-in-tree: copying the module to $NS3/contrib/talb"
rm -rf "$NS3/contrib/talb"
mkdir -p "$NS3/contrib/talb"
(cd "$TOP" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) |
  tar -xf - -C "$NS3/contrib/talb"

cd "$NS3"
# A reused tree keeps the forwarding headers of an earlier copy (ns3/talb-*.h name the file's old
# path), which a moved file would leave pointing nowhere: configure writes them again.
rm -f build/include/ns3/talb-*.h
# csma: ns-3 3.37's src/test (linked into test-runner) uses CsmaHelper without declaring it.
./ns3 configure -d "$PROFILE" --enable-examples --enable-tests --enable-modules="talb;csma" \
  --disable-python-bindings --disable-werror -G Ninja >/dev/null
./ns3 build
runner=$(ls build/utils/ns3.37-test-runner* | head -n 1)
suites=$("$runner" --print-test-name-list | grep '^talb' || true)
[ -n "$suites" ] || { echo "check-in-tree: no talb suites registered in-tree" >&2; exit 1; }
failed=0
for s in $suites; do
  python3 test.py --no-build -s "$s" || failed=1
done
echo "check-in-tree: $(echo $suites | wc -w) suites, $([ $failed -eq 0 ] && echo all passed || echo FAILURES), wall time $(( $(date +%s) - start )) s"
exit $failed
