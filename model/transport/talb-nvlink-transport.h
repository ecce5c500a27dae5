#ifndef TALB_NVLINK_TRANSPORT_H
#define TALB_NVLINK_TRANSPORT_H

#include "talb-transport.h"

#include "ns3/node-container.h"

#include <string>

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief The intra-server decorator ("nvlink"): a channel between two GPUs of one server goes
 * over their NVLink (TalbNvlinkMessageChannel: no packets, never on the fabric); every other
 * channel is the wrapped transport's (TCP or RDMA).
 *
 * Two hosts are GPUs of one server when both carry a TalbNvlinkPort of the same server (the
 * leaf-spine helper aggregates them with GpusPerServer > 1). The wrapped transport is set with
 * SetInner() or, if none is, made from the Inner attribute's name; it is set up with this
 * transport's port and opens its channels for it, and this transport owns every channel
 * (GetChannel() lists both kinds). TalbTrainingJobHelper wraps a job's transport with Wrap()
 * when its hosts are GPUs of servers, so a job chooses tcp or rdma as before.
 */
class TalbNvlinkTransport : public TalbTransport
{
  public:
    static TypeId GetTypeId();
    TalbNvlinkTransport();
    ~TalbNvlinkTransport() override;

    /// Wrap \p inner (before Setup()): its channels are the ones between servers.
    void SetInner(Ptr<TalbTransport> inner);
    /// \return the wrapped transport (null before SetInner() or Setup())
    Ptr<TalbTransport> GetInner() const;

    /**
     * \return \p inner wrapped in a TalbNvlinkTransport when some of \p hosts carry a
     * TalbNvlinkPort (GPUs of servers) and \p inner is not one already; else \p inner
     */
    static Ptr<TalbTransport> Wrap(Ptr<TalbTransport> inner, const NodeContainer& hosts);

    /// \return whether \p a and \p b are GPUs of one server (both have a TalbNvlinkPort)
    static bool IsSameServer(Ptr<Node> a, Ptr<Node> b);

  protected:
    void DoDispose() override;

  private:
    bool CheckConfig() override;
    void DoSetup() override;
    Ptr<TalbMessageChannel> DoConnect(Ptr<Node> from, Ptr<Node> to) override;

    std::string m_innerName; //!< Inner attribute
    Ptr<TalbTransport> m_inner;
};

} // namespace ns3

#endif /* TALB_NVLINK_TRANSPORT_H */
