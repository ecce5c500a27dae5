#include "talb-background-traffic-helper.h"

#include "ns3/abort.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/string.h"
#include "ns3/system-path.h"
#include "ns3/talb-background-traffic.h"

#include <cstdlib>
#include <sys/stat.h>

#ifndef TALB_DATA_DIR
#define TALB_DATA_DIR "data"
#endif

namespace ns3
{

TalbBackgroundTrafficHelper::TalbBackgroundTrafficHelper(const std::string& cdfFile,
                                                         double load,
                                                         const std::string& linkRate)
    : m_start(Seconds(0)),
      m_stop(Seconds(1))
{
    m_factory.SetTypeId(TalbBackgroundTraffic::GetTypeId());
    m_factory.Set("FlowSizeCdf", StringValue(cdfFile));
    m_factory.Set("Load", DoubleValue(load));
    m_factory.Set("LinkRate", DataRateValue(DataRate(linkRate)));
}

TalbBackgroundTrafficHelper::TalbBackgroundTrafficHelper(const TalbFlowSizeCdf& cdf,
                                                         double load,
                                                         DataRate linkRate)
    : m_cdf(cdf),
      m_start(Seconds(0)),
      m_stop(Seconds(1))
{
    m_factory.SetTypeId(TalbBackgroundTraffic::GetTypeId());
    m_factory.Set("Load", DoubleValue(load));
    m_factory.Set("LinkRate", DataRateValue(linkRate));
}

bool
TalbBackgroundTrafficHelper::LoadCdf(const std::string& name,
                                     TalbFlowSizeCdf* cdf,
                                     std::string* error)
{
    // The data directory: $TALB_DATA_DIR, else the source tree's data/ known at build time.
    const char* env = std::getenv("TALB_DATA_DIR");
    std::string dataDir = env ? env : TALB_DATA_DIR;
    std::string path = name == "websearch"    ? SystemPath::Append(dataDir, "websearch-cdf.txt")
                       : name == "datamining" ? SystemPath::Append(dataDir, "fbhadoop-cdf.txt")
                                              : name;
    struct stat st;
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    {
        *error = "no such file '" + path +
                 "' (websearch, datamining or a path; set TALB_DATA_DIR to find the shipped "
                 "ones)";
        return false;
    }
    return TalbFlowSizeCdf::TryLoad(path, cdf, error);
}

void
TalbBackgroundTrafficHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

void
TalbBackgroundTrafficHelper::SetStartStop(Time start, Time stop)
{
    NS_ABORT_MSG_IF(stop < start, "TalbBackgroundTrafficHelper: stop before start");
    m_start = start;
    m_stop = stop;
}

ApplicationContainer
TalbBackgroundTrafficHelper::Install(const NodeContainer& hosts) const
{
    NS_ABORT_MSG_IF(hosts.GetN() < 2, "TalbBackgroundTrafficHelper: needs at least two hosts");
    std::vector<Ptr<TalbBackgroundTraffic>> apps;
    ApplicationContainer container;
    for (uint32_t i = 0; i < hosts.GetN(); ++i)
    {
        Ptr<TalbBackgroundTraffic> app = m_factory.Create<TalbBackgroundTraffic>();
        if (!m_cdf.IsEmpty())
        {
            app->SetFlowSizeCdf(m_cdf);
        }
        app->SetStartTime(m_start);
        app->SetStopTime(m_stop);
        hosts.Get(i)->AddApplication(app);
        apps.push_back(app);
        container.Add(app);
    }
    for (uint32_t i = 0; i < apps.size(); ++i)
    {
        std::vector<Ptr<TalbBackgroundTraffic>> peers;
        for (uint32_t j = 0; j < apps.size(); ++j)
        {
            if (j != i)
            {
                peers.push_back(apps[j]);
            }
        }
        apps[i]->SetPeers(peers);
    }
    return container;
}

int64_t
TalbBackgroundTrafficHelper::AssignStreams(const ApplicationContainer& apps, int64_t stream)
{
    int64_t used = 0;
    for (auto it = apps.Begin(); it != apps.End(); ++it)
    {
        Ptr<TalbBackgroundTraffic> app = DynamicCast<TalbBackgroundTraffic>(*it);
        NS_ABORT_MSG_IF(!app, "TalbBackgroundTrafficHelper::AssignStreams: not background traffic");
        used += app->AssignStreams(stream + used);
    }
    return used;
}

} // namespace ns3
