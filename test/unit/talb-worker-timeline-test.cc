// A data-parallel worker's compute timeline (model/training/talb-worker-timeline.h) on its own,
// without a simulator: step order, waits for synchronisation, iteration ends, and the iteration
// times of a small hand-computed run.
#include "ns3/talb-worker-timeline.h"

#include <cstdint>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <tuple>
#include <vector>

using ns3::TalbWorkerTimeline;
using Action = TalbWorkerTimeline::Action;

namespace
{

/// Expect \p a to be (\p kind, \p iteration, \p tensor).
void
ExpectAction(const Action& a, Action::Kind kind, uint32_t iteration, uint32_t tensor)
{
    EXPECT_EQ(a.kind, kind);
    if (kind != Action::WAIT)
    {
        EXPECT_EQ(a.iteration, iteration);
    }
    if (kind != Action::WAIT && kind != Action::ITERATION_END)
    {
        EXPECT_EQ(a.tensor, tensor);
    }
}

/// Run a step handed out by Next(): it must be \p kind of (\p iteration, \p tensor).
void
Step(TalbWorkerTimeline& t, Action::Kind kind, uint32_t iteration, uint32_t tensor)
{
    ExpectAction(t.Next(), kind, iteration, tensor);
    ExpectAction(t.Next(), Action::WAIT, 0, 0); // one compute step at a time
    t.StepDone();
}

TEST(TalbWorkerTimeline, OneTensorOneIteration)
{
    TalbWorkerTimeline t(1, 1);
    Step(t, Action::FORWARD, 0, 0);
    Step(t, Action::BACKWARD, 0, 0);
    ExpectAction(t.Next(), Action::GRADIENT_READY, 0, 0);
    // The last iteration ends only once its gradients are synchronised.
    ExpectAction(t.Next(), Action::WAIT, 0, 0);
    EXPECT_EQ(t.GetCompletedIterations(), 0u);
    EXPECT_TRUE(t.TensorSynced(0, 0));
    ExpectAction(t.Next(), Action::ITERATION_END, 0, 0);
    EXPECT_EQ(t.GetCompletedIterations(), 1u);
    EXPECT_TRUE(t.IsFinished());
    ExpectAction(t.Next(), Action::WAIT, 0, 0);
}

TEST(TalbWorkerTimeline, ForwardInOrderBackwardInReverseEachGradientAfterItsStep)
{
    TalbWorkerTimeline t(3, 1);
    for (uint32_t k = 0; k < 3; ++k)
    {
        Step(t, Action::FORWARD, 0, k);
    }
    for (uint32_t k = 3; k-- > 0;)
    {
        Step(t, Action::BACKWARD, 0, k);
        ExpectAction(t.Next(), Action::GRADIENT_READY, 0, k);
    }
    ExpectAction(t.Next(), Action::WAIT, 0, 0);
}

TEST(TalbWorkerTimeline, ForwardStepWaitsForItsTensorsPreviousSynchronisation)
{
    TalbWorkerTimeline t(2, 2);
    Step(t, Action::FORWARD, 0, 0);
    Step(t, Action::FORWARD, 0, 1);
    Step(t, Action::BACKWARD, 0, 1);
    ExpectAction(t.Next(), Action::GRADIENT_READY, 0, 1);
    Step(t, Action::BACKWARD, 0, 0);
    ExpectAction(t.Next(), Action::GRADIENT_READY, 0, 0);
    // Iteration 1's forward waits for tensor 0; tensor 1's synchronisation does not unblock it.
    ExpectAction(t.Next(), Action::WAIT, 0, 0);
    EXPECT_FALSE(t.TensorSynced(1, 0));
    ExpectAction(t.Next(), Action::WAIT, 0, 0);
    EXPECT_TRUE(t.TensorSynced(0, 0));
    // Iteration 0 ends where iteration 1's forward pass starts.
    ExpectAction(t.Next(), Action::ITERATION_END, 0, 0);
    Step(t, Action::FORWARD, 1, 0);
    Step(t, Action::FORWARD, 1, 1);
}

TEST(TalbWorkerTimeline, LaterForwardStepWaitsMidPass)
{
    TalbWorkerTimeline t(2, 2);
    Step(t, Action::FORWARD, 0, 0);
    Step(t, Action::FORWARD, 0, 1);
    Step(t, Action::BACKWARD, 0, 1);
    ExpectAction(t.Next(), Action::GRADIENT_READY, 0, 1);
    Step(t, Action::BACKWARD, 0, 0);
    ExpectAction(t.Next(), Action::GRADIENT_READY, 0, 0);
    EXPECT_FALSE(t.TensorSynced(0, 0)); // nothing waited for it yet: Next() is due anyway
    ExpectAction(t.Next(), Action::ITERATION_END, 0, 0);
    Step(t, Action::FORWARD, 1, 0);
    // Tensor 1 of iteration 0 is not synchronised yet.
    ExpectAction(t.Next(), Action::WAIT, 0, 0);
    EXPECT_TRUE(t.TensorSynced(1, 0));
    Step(t, Action::FORWARD, 1, 1);
}

TEST(TalbWorkerTimeline, LastIterationEndsWhenBackwardIsOverAndEveryTensorSynced)
{
    // Synchronisations that arrive during the backward pass (as when the collective finishes
    // while the job handles the gradient) end the iteration only after the pass.
    TalbWorkerTimeline t(2, 1);
    Step(t, Action::FORWARD, 0, 0);
    Step(t, Action::FORWARD, 0, 1);
    Step(t, Action::BACKWARD, 0, 1);
    ExpectAction(t.Next(), Action::GRADIENT_READY, 0, 1);
    EXPECT_FALSE(t.TensorSynced(1, 0));
    Step(t, Action::BACKWARD, 0, 0);
    ExpectAction(t.Next(), Action::GRADIENT_READY, 0, 0);
    EXPECT_FALSE(t.TensorSynced(0, 0)); // the pass is not over until Next() says so
    ExpectAction(t.Next(), Action::ITERATION_END, 0, 0);
    EXPECT_TRUE(t.IsFinished());
}

TEST(TalbWorkerTimeline, OnlyTheLastIterationsSynchronisationsEndIt)
{
    TalbWorkerTimeline t(1, 2);
    Step(t, Action::FORWARD, 0, 0);
    Step(t, Action::BACKWARD, 0, 0);
    ExpectAction(t.Next(), Action::GRADIENT_READY, 0, 0);
    ExpectAction(t.Next(), Action::WAIT, 0, 0);
    EXPECT_TRUE(t.TensorSynced(0, 0));
    ExpectAction(t.Next(), Action::ITERATION_END, 0, 0);
    Step(t, Action::FORWARD, 1, 0);
    Step(t, Action::BACKWARD, 1, 0);
    ExpectAction(t.Next(), Action::GRADIENT_READY, 1, 0);
    ExpectAction(t.Next(), Action::WAIT, 0, 0);
    EXPECT_FALSE(t.IsFinished());
    EXPECT_TRUE(t.TensorSynced(0, 1));
    ExpectAction(t.Next(), Action::ITERATION_END, 1, 0);
    EXPECT_TRUE(t.IsFinished());
    EXPECT_EQ(t.GetCompletedIterations(), 2u);
}

/**
 * A minimal event-driven driver, as TalbDnnWorker and TalbIdealIteration drive the timeline:
 * compute steps take their time, a tensor is synchronised a fixed time after its gradient is
 * ready (a network without contention). Returns each iteration's duration.
 */
std::vector<int64_t>
Drive(const std::vector<int64_t>& fwd,
      const std::vector<int64_t>& bwd,
      int64_t syncDelay,
      uint32_t iterations)
{
    TalbWorkerTimeline t(fwd.size(), iterations);
    // (time, order) -> event: order keeps events of one time in scheduling order.
    std::map<std::pair<int64_t, uint64_t>, std::function<void()>> events;
    uint64_t order = 0;
    int64_t now = 0;
    int64_t start = 0;
    std::vector<int64_t> durations;
    std::function<void()> run = [&]() {
        for (;;)
        {
            Action a = t.Next();
            switch (a.kind)
            {
            case Action::FORWARD:
            case Action::BACKWARD: {
                int64_t dt = a.kind == Action::FORWARD ? fwd[a.tensor] : bwd[a.tensor];
                if (dt > 0)
                {
                    events[{now + dt, order++}] = [&]() {
                        t.StepDone();
                        run();
                    };
                    return;
                }
                t.StepDone();
                break;
            }
            case Action::GRADIENT_READY:
                events[{now + syncDelay, order++}] = [&t, &run, a]() {
                    if (t.TensorSynced(a.tensor, a.iteration))
                    {
                        run();
                    }
                };
                break;
            case Action::ITERATION_END:
                EXPECT_EQ(a.iteration, durations.size());
                durations.push_back(now - start);
                start = now;
                break;
            case Action::WAIT:
                return;
            }
        }
    };
    run();
    while (!events.empty())
    {
        auto it = events.begin();
        now = it->first.first;
        std::function<void()> e = std::move(it->second);
        events.erase(it);
        e();
    }
    EXPECT_TRUE(t.IsFinished());
    return durations;
}

TEST(TalbWorkerTimeline, HandComputedIterationTimes)
{
    // Two tensors, forward 10, backward 20, synchronised 30 after ready. Iteration 0: forward
    // 0-20, backward of tensor 1 20-40 (synchronised at 70), of tensor 0 40-60 (synchronised at
    // 90); iteration 1's forward waits for tensor 0 until 90. Iteration 1: forward 90-110,
    // backward 110-150, last synchronisation at 180. Each iteration: 90.
    EXPECT_EQ(Drive({10, 10}, {20, 20}, 30, 2), (std::vector<int64_t>{90, 90}));
    // Tensor 0's gradient is the last ready, so the next forward pass always waits for its
    // synchronisation: compute (60) + 5.
    EXPECT_EQ(Drive({10, 10}, {20, 20}, 5, 3), (std::vector<int64_t>{65, 65, 65}));
    // Steps of zero length take no time and keep the order.
    EXPECT_EQ(Drive({0, 10}, {20, 0}, 0, 2), (std::vector<int64_t>{30, 30}));
}

} // namespace
