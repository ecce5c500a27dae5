#ifndef TALB_EVENT_SCHEDULER_H
#define TALB_EVENT_SCHEDULER_H

#include "ns3/command-line.h"

#include <string>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief The event scheduler (ns-3's SchedulerType) of talb's programs, and its option.
 *
 * Every ns-3 scheduler serves events in the order of their (timestamp, uid) keys, so the choice
 * changes no result, only the CPU time of a run. ns-3's default, ns3::MapScheduler (a std::map:
 * one node allocated per event), was the largest single cost of a packet-level run; the binary
 * heap of ns3::PriorityQueueScheduler (a std::priority_queue in one vector) took less CPU on
 * every point measured, so it is talb's default; ns3::CalendarScheduler helped less and
 * ns3::HeapScheduler was slower (doc/talb-benchmarks.rst, "The 128-worker iteration over RDMA
 * and TCP").
 *
 * The scenario runner and the simulation benchmark take --eventScheduler=TYPE; without it,
 * a SchedulerType in NS_GLOBAL_VALUE is kept, else the default applies.
 */
class TalbEventScheduler
{
  public:
    /// talb's default event scheduler.
    static constexpr const char* DEFAULT = "ns3::PriorityQueueScheduler";

    /**
     * Declare --eventScheduler on \p cmd.
     * \param cmd the program's command line
     * \param name receives the option's value (empty: not given)
     */
    static void AddOption(CommandLine& cmd, std::string* name);

    /**
     * Make \p name the scheduler of the simulator created next (bind SchedulerType); with
     * \p name empty, DEFAULT unless NS_GLOBAL_VALUE sets SchedulerType. Call before anything is
     * scheduled.
     * \return an error message when \p name is no ns3::Scheduler, else empty
     */
    static std::string Select(const std::string& name);
};

} // namespace ns3

#endif /* TALB_EVENT_SCHEDULER_H */
