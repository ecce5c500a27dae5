#ifndef TALB_BACKGROUND_TRAFFIC_HELPER_H
#define TALB_BACKGROUND_TRAFFIC_HELPER_H

#include "ns3/application-container.h"
#include "ns3/attribute.h"
#include "ns3/data-rate.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/talb-flow-size-cdf.h"

#include <string>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief Installs background traffic (TalbBackgroundTraffic) on a set of hosts: Poisson flows
 * between random pairs of them, sizes from a CDF file, at a target load of each host's link.
 */
class TalbBackgroundTrafficHelper
{
  public:
    /**
     * \param cdfFile flow-size CDF (e.g. data/websearch-cdf.txt, data/fbhadoop-cdf.txt)
     * \param load offered load per host, fraction of \p linkRate
     * \param linkRate the hosts' link rate, e.g. "100Gbps"
     */
    TalbBackgroundTrafficHelper(const std::string& cdfFile,
                                double load,
                                const std::string& linkRate);
    /**
     * \param cdf flow-size CDF, loaded once for every host (see LoadCdf)
     * \param load offered load per host, fraction of \p linkRate
     * \param linkRate the hosts' link rate
     */
    TalbBackgroundTrafficHelper(const TalbFlowSizeCdf& cdf, double load, DataRate linkRate);

    /**
     * Loads the flow-size CDF \p name: websearch or datamining (the shipped files, in
     * $TALB_DATA_DIR or the source tree's data/), or a file's path.
     * \return false, with \p error saying why (no such file, or where the file is malformed)
     */
    static bool LoadCdf(const std::string& name, TalbFlowSizeCdf* cdf, std::string* error);

    /// Set another attribute of ns3::TalbBackgroundTraffic (e.g. Port).
    void SetAttribute(const std::string& name, const AttributeValue& value);
    /// Flows start between \p start and \p stop (flows under way at stop finish).
    void SetStartStop(Time start, Time stop);

    /// Install on every host of \p hosts (at least two); each sends to all the others.
    ApplicationContainer Install(const NodeContainer& hosts) const;

    /// Assign fixed random variable streams to \p apps. \return the number of streams used
    static int64_t AssignStreams(const ApplicationContainer& apps, int64_t stream);

  private:
    ObjectFactory m_factory;
    TalbFlowSizeCdf m_cdf; //!< empty: each application reads its FlowSizeCdf file
    Time m_start;
    Time m_stop;
};

} // namespace ns3

#endif /* TALB_BACKGROUND_TRAFFIC_HELPER_H */
