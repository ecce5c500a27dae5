#ifndef TALB_RDMA_HELPER_H
#define TALB_RDMA_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/queue-size.h"
#include "ns3/talb-pfc-net-device.h"
#include "ns3/talb-pfc.h"
#include "ns3/talb-rdma-nic.h"

#include <string>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief Recipes for the RDMA parts of a fabric: host NICs, their rate control, switch PFC and
 * the switches' ECN profile. TalbLeafSpineHelper uses one when its Transport is "rdma"
 * (GetRdmaHelper() to configure it before Install).
 *
 * It stores factories and applies them; the defaults are DCQCN's (the rate control is
 * TalbRdmaNic's RateControl default, TalbDcqcn unless set otherwise; marking from EcnKmin to
 * EcnKmax with probability up to EcnPmax, the values of the DCQCN paper)
 * with PFC on every priority. Its queues take a packet's band (and PFC priority) from the DSCP
 * (BandFrom), as RoCE switches do: the DSCP is the sender's traffic class, the TaLB option the
 * tensor's label for the balancers.
 */
class TalbRdmaHelper : public Object
{
  public:
    static TypeId GetTypeId();
    TalbRdmaHelper();
    ~TalbRdmaHelper() override;

    /// Set an attribute of every NIC (TalbRdmaNic).
    void SetNicAttribute(const std::string& name, const AttributeValue& value);
    /// Set an attribute of every switch's PFC (TalbPfc).
    void SetPfcAttribute(const std::string& name, const AttributeValue& value);
    /**
     * Choose the queue pairs' rate control by TypeId name (a TalbRdmaRateControl), with
     * attribute name/value pairs.
     */
    template <typename... Ts>
    void SetRateControl(const std::string& type, Ts&&... args);
    /// Set an attribute of the rate control.
    void SetRateControlAttribute(const std::string& name, const AttributeValue& value);

    /**
     * A rate control that needs the fabric's unloaded round trip (an attribute BaseRtt left at
     * 0: HPCC's T) takes \p rtt; others, and one given a BaseRtt, are left as they are. The
     * leaf-spine helper offers its longest path's before it installs the NICs.
     */
    void OfferBaseRtt(Time rtt);

    /// \return true when the rate control reads in-band telemetry (the switches must stamp it)
    bool UsesTelemetry() const;
    /// \return the NICs' payload MTU (TalbRdmaNic's Mtu as configured here)
    uint32_t GetPayloadMtu() const;
    /// \return the device MTU an RDMA fabric needs: the payload MTU plus the RoCEv2 headers
    /// (and in-band telemetry's, for a rate control that uses it)
    uint32_t GetDeviceMtu() const;

    /// Give the queue of a switch or host port of rate \p rate the RED-like ECN profile and
    /// the BandFrom classification.
    void ConfigureQueue(Ptr<TalbPriorityQueue> queue, DataRate rate) const;
    /// Create, install and aggregate a NIC on \p node's \p device with \p address.
    Ptr<TalbRdmaNic> InstallNic(Ptr<Node> node,
                                Ptr<TalbPfcNetDevice> device,
                                Ipv4Address address) const;
    /// \return a PFC accounting for one switch, or null when Pfc is false
    Ptr<TalbPfc> CreatePfc() const;
    /// \return the Pfc attribute
    bool IsPfcEnabled() const;

  private:
    void DoSetRateControl(ObjectFactory factory);

    bool m_pfcEnabled;           //!< Pfc attribute
    DataRate m_ecnReferenceRate; //!< EcnReferenceRate attribute
    QueueSize m_kmin;            //!< EcnKmin attribute
    QueueSize m_kmax;            //!< EcnKmax attribute
    double m_pmax;               //!< EcnPmax attribute
    int m_bandFrom;              //!< BandFrom attribute (TalbPriorityQueue::BandSource)
    ObjectFactory m_nic;
    ObjectFactory m_rateControl;
    ObjectFactory m_pfc;
};

template <typename... Ts>
void
TalbRdmaHelper::SetRateControl(const std::string& type, Ts&&... args)
{
    DoSetRateControl(ObjectFactory(type, std::forward<Ts>(args)...));
}

} // namespace ns3

#endif /* TALB_RDMA_HELPER_H */
