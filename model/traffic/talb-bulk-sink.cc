#include "talb-bulk-sink.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/talb-socket-read.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/trace-source-accessor.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbBulkSink");
NS_OBJECT_ENSURE_REGISTERED(TalbBulkSink);

TypeId
TalbBulkSink::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbBulkSink")
            .SetParent<Application>()
            .SetGroupName("Talb")
            .AddConstructor<TalbBulkSink>()
            .AddAttribute("Local",
                          "The address (InetSocketAddress) to accept TCP connections on",
                          AddressValue(),
                          MakeAddressAccessor(&TalbBulkSink::m_local),
                          MakeAddressChecker())
            .AddTraceSource("Rx",
                            "A chunk of bytes read, with its sender's address",
                            MakeTraceSourceAccessor(&TalbBulkSink::m_rxTrace),
                            "ns3::Packet::AddressTracedCallback");
    return tid;
}

TalbBulkSink::TalbBulkSink() = default;

uint64_t
TalbBulkSink::GetTotalRx() const
{
    return m_totalRx;
}

void
TalbBulkSink::DoDispose()
{
    m_listener = nullptr;
    m_accepted.clear();
    Application::DoDispose();
}

void
TalbBulkSink::StartApplication()
{
    m_listener = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
    NS_ABORT_MSG_IF(m_listener->Bind(m_local) != 0, "TalbBulkSink: cannot bind Local");
    m_listener->Listen();
    m_listener->ShutdownSend(); // a sink sends nothing; accepted sockets inherit it
    m_listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                  MakeCallback(&TalbBulkSink::HandleAccept, this));
}

void
TalbBulkSink::StopApplication()
{
    for (auto& s : m_accepted)
    {
        s->Close();
        s->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
    }
    m_accepted.clear();
    if (m_listener)
    {
        m_listener->Close();
        m_listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                      MakeNullCallback<void, Ptr<Socket>, const Address&>());
    }
}

void
TalbBulkSink::HandleAccept(Ptr<Socket> socket, const Address&)
{
    socket->SetRecvCallback(MakeCallback(&TalbBulkSink::HandleRead, this));
    m_accepted.push_back(socket);
}

void
TalbBulkSink::HandleRead(Ptr<Socket> socket)
{
    Address from;
    socket->GetPeerName(from);
    Ptr<Packet> p;
    while ((p = TalbSocketRead(socket)) && p->GetSize() > 0)
    {
        m_totalRx += p->GetSize();
        m_rxTrace(p, from);
    }
}

} // namespace ns3
