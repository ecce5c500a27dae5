// Runs the talb TestSuites linked into this binary through ns-3's TestRunner, the same runner
// ns-3's test.py drives in a source tree: `talb-test-runner --list`, `--suite=talb-...`.
#include "ns3/test.h"

int
main(int argc, char** argv)
{
    return ns3::TestRunner::Run(argc, argv);
}
