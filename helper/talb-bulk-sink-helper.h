#ifndef TALB_BULK_SINK_HELPER_H
#define TALB_BULK_SINK_HELPER_H

#include "ns3/application-container.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"

namespace ns3
{

/**
 * \ingroup talb-traffic
 * \brief Installs TalbBulkSink applications (TCP sinks that read in bounded chunks), as
 * PacketSinkHelper installs PacketSink.
 */
class TalbBulkSinkHelper
{
  public:
    /// \param local the address (InetSocketAddress) each sink accepts connections on
    explicit TalbBulkSinkHelper(const Address& local);

    /// Sets an attribute of every sink installed after.
    void SetAttribute(const std::string& name, const AttributeValue& value);

    /// \return one sink per node of \p nodes
    ApplicationContainer Install(NodeContainer nodes) const;
    /// \return the sink installed on \p node
    ApplicationContainer Install(Ptr<Node> node) const;

  private:
    ObjectFactory m_factory;
};

} // namespace ns3

#endif /* TALB_BULK_SINK_HELPER_H */
