#include "talb-event-scheduler.h"

#include "ns3/global-value.h"
#include "ns3/scheduler.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <cstdlib>
#include <cstring>

namespace ns3
{

void
TalbEventScheduler::AddOption(CommandLine& cmd, std::string* name)
{
    cmd.AddValue("eventScheduler",
                 std::string("ns-3 event scheduler (an ns3::Scheduler type: ns3::MapScheduler, "
                             "ns3::HeapScheduler, ns3::CalendarScheduler, ...); every one runs "
                             "events in the same order, so only the CPU time differs; default ") +
                     DEFAULT + ", or a SchedulerType given in NS_GLOBAL_VALUE",
                 *name);
}

std::string
TalbEventScheduler::Select(const std::string& name)
{
    if (name.empty())
    {
        const char* env = std::getenv("NS_GLOBAL_VALUE");
        if (env && std::strstr(env, "SchedulerType="))
        {
            return ""; // ns-3 applied it when the global value was made
        }
    }
    std::string type = name.empty() ? DEFAULT : name;
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(type, &tid) || !tid.IsChildOf(Scheduler::GetTypeId()))
    {
        return "eventScheduler: '" + type + "' is no ns3::Scheduler type";
    }
    GlobalValue::Bind("SchedulerType", StringValue(type));
    return "";
}

} // namespace ns3
