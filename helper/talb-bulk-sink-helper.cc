#include "talb-bulk-sink-helper.h"

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/node.h"

namespace ns3
{

TalbBulkSinkHelper::TalbBulkSinkHelper(const Address& local)
{
    m_factory.SetTypeId("ns3::TalbBulkSink");
    m_factory.Set("Local", AddressValue(local));
}

void
TalbBulkSinkHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

ApplicationContainer
TalbBulkSinkHelper::Install(NodeContainer nodes) const
{
    ApplicationContainer apps;
    for (auto i = nodes.Begin(); i != nodes.End(); ++i)
    {
        apps.Add(Install(*i));
    }
    return apps;
}

ApplicationContainer
TalbBulkSinkHelper::Install(Ptr<Node> node) const
{
    Ptr<Application> app = m_factory.Create<Application>();
    node->AddApplication(app);
    return ApplicationContainer(app);
}

} // namespace ns3
