// The hosts' TCP (TalbHostConfig): an ECN window reduction must never leave a connection unable
// to send. ns-3's PRR can end a CWR episode with cwnd below one segment and nothing in flight;
// the next message then waits forever (TalbPrrRecovery).
#include "talb-test-fabric.h"

#include "ns3/core-module.h"
#include "ns3/talb-module.h"
#include "ns3/tcp-socket-state.h"
#include "ns3/test.h"

#include <string>
#include <utility>
#include <vector>

using namespace ns3;
using namespace ns3::talbtest;

namespace
{

/**
 * TalbPrrRecovery in CWR: the ACK that acknowledges everything in flight, delivering no new
 * data, leaves cwnd at one segment, not at PRR's zero send count over zero bytes in flight.
 */
class TalbPrrRecoveryFloorTestCase : public TestCase
{
  public:
    TalbPrrRecoveryFloorTestCase()
        : TestCase("TalbPrrRecovery: cwnd stays at least one segment in CWR")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TcpSocketState> tcb = CreateObject<TcpSocketState>();
        tcb->m_segmentSize = 8948;
        tcb->m_cWnd = 50 * tcb->m_segmentSize;
        tcb->m_ssThresh = 40 * tcb->m_segmentSize;
        tcb->m_bytesInFlight = 20 * tcb->m_segmentSize;
        tcb->m_congState = TcpSocketState::CA_CWR;
        Ptr<TalbPrrRecovery> prr = CreateObject<TalbPrrRecovery>();
        prr->EnterRecovery(tcb, 0, 20 * tcb->m_segmentSize, 0);
        prr->UpdateBytesSent(10 * tcb->m_segmentSize); // (spurious) retransmissions
        tcb->m_bytesInFlight = 0;
        prr->DoRecovery(tcb, 0);
        NS_TEST_ASSERT_MSG_EQ(tcb->m_cWnd.Get(), tcb->m_segmentSize, "cwnd floored at a segment");

        // Loss recovery is left as ns-3 has it.
        Ptr<TcpPrrRecovery> stock = CreateObject<TcpPrrRecovery>();
        tcb->m_congState = TcpSocketState::CA_RECOVERY;
        tcb->m_bytesInFlight = 20 * tcb->m_segmentSize;
        stock->EnterRecovery(tcb, 3, 20 * tcb->m_segmentSize, 0);
        prr->EnterRecovery(tcb, 3, 20 * tcb->m_segmentSize, 0);
        stock->UpdateBytesSent(10 * tcb->m_segmentSize);
        prr->UpdateBytesSent(10 * tcb->m_segmentSize);
        tcb->m_bytesInFlight = 0;
        stock->DoRecovery(tcb, 0);
        uint32_t expected = tcb->m_cWnd;
        prr->DoRecovery(tcb, 0);
        NS_TEST_ASSERT_MSG_EQ(tcb->m_cWnd.Get(), expected, "loss recovery unchanged");
    }
};

/**
 * The README main job with DCTCP (16 hosts, 4 leaves x 2 spines, DWRR ports, 10 % web-search
 * background, a ResNet50 ring job of 8 workers whose connections carry tensors of several
 * priorities, so segments overtake each other in the ports' bands and SACK retransmits
 * spuriously during CWR), two iterations. Before TalbPrrRecovery a ring connection stalled for
 * good in the second iteration (about 877 ms): 8 of 16 worker-iterations.
 */
class TalbDctcpRingCompletesTestCase : public SimulationTestCase
{
  public:
    TalbDctcpRingCompletesTestCase()
        : SimulationTestCase("TalbHostConfig: DCTCP ring job with DWRR and background finishes")
    {
    }

  private:
    void DoRun() override
    {
        std::string dir = CreateTempDirFilename("talb-tcp-host");
        SystemPath::MakeDirectories(dir);
        ScenarioParams params = {
            {"tcp", "dctcp"},
            {"portScheduling", "dwrr"},
            {"iterations", "2"},
            {"warmup", "0"},
            {"lb", "ecmp"},
            {"stopTime", "2s"},
            {"progress", "false"},
        };
        TalbScenario::Result r = RunScenario(params, "ecmp", dir);

        NS_TEST_ASSERT_MSG_EQ(r.iterationsExpected, 16, "eight workers, two iterations");
        NS_TEST_ASSERT_MSG_EQ(r.iterationsDone,
                              r.iterationsExpected,
                              "every worker finished its iterations before stopTime");
    }
};

} // namespace

/// The talb-tcp-host suite.
class TalbTcpHostTestSuite : public TestSuite
{
  public:
    TalbTcpHostTestSuite()
        : TestSuite("talb-tcp-host", UNIT)
    {
        AddTestCase(new TalbPrrRecoveryFloorTestCase(), TestCase::QUICK);
        AddTestCase(new TalbDctcpRingCompletesTestCase(), TestCase::QUICK);
    }
};

static TalbTcpHostTestSuite g_talbTcpHostTestSuite; //!< the suite's instance
