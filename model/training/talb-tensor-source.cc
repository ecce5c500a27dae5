#include "talb-tensor-source.h"

#include "ns3/talb-tensor-byte-tag.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbTensorSource");

NS_OBJECT_ENSURE_REGISTERED(TalbTensorSource);

TypeId
TalbTensorSource::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbTensorSource")
            .SetParent<Application>()
            .SetGroupName("Talb")
            .AddConstructor<TalbTensorSource>()
            .AddAttribute("Remote",
                          "Address of the receiving socket",
                          AddressValue(),
                          MakeAddressAccessor(&TalbTensorSource::m_remote),
                          MakeAddressChecker())
            .AddAttribute("SendSize",
                          "Largest chunk handed to the socket at once (bytes)",
                          UintegerValue(65536),
                          MakeUintegerAccessor(&TalbTensorSource::m_sendSize),
                          MakeUintegerChecker<uint32_t>(1))
            .AddTraceSource("TensorSent",
                            "A tensor's last byte was handed to the socket",
                            MakeTraceSourceAccessor(&TalbTensorSource::m_tensorSentTrace),
                            "ns3::TalbTensorSource::TensorSentTracedCallback");
    return tid;
}

TalbTensorSource::TalbTensorSource()
    : m_sendSize(65536),
      m_connected(false)
{
    NS_LOG_FUNCTION(this);
}

TalbTensorSource::~TalbTensorSource()
{
    NS_LOG_FUNCTION(this);
}

void
TalbTensorSource::DoDispose()
{
    m_socket = nullptr;
    m_tensors.clear();
    Application::DoDispose();
}

void
TalbTensorSource::AddTensor(uint32_t tensorId, uint8_t priority, uint32_t bytes, Time start)
{
    NS_ABORT_MSG_IF(bytes == 0, "TalbTensorSource::AddTensor: empty tensor " << tensorId);
    NS_ABORT_MSG_IF(priority >= TALB_NUM_PRIORITIES,
                    "TalbTensorSource::AddTensor: priority " << +priority << " out of range");
    m_tensors.push_back({tensorId, priority, bytes, 0, start});
    if (m_connected)
    {
        Simulator::Schedule(std::max(Time(0), start - Simulator::Now()),
                            &TalbTensorSource::Pump,
                            this);
    }
}

void
TalbTensorSource::StartApplication()
{
    NS_LOG_FUNCTION(this);
    m_socket = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
    NS_ABORT_MSG_IF(m_socket->Bind() != 0, "TalbTensorSource: bind failed");
    NS_ABORT_MSG_IF(m_socket->Connect(m_remote) != 0, "TalbTensorSource: connect failed");
    m_socket->SetConnectCallback(MakeCallback(&TalbTensorSource::Connected, this),
                                 MakeNullCallback<void, Ptr<Socket>>());
    m_socket->SetSendCallback(MakeCallback(&TalbTensorSource::SendReady, this));
}

void
TalbTensorSource::Connected(Ptr<Socket> /* socket */)
{
    m_connected = true;
    for (const auto& t : m_tensors)
    {
        Simulator::Schedule(std::max(Time(0), t.start - Simulator::Now()),
                            &TalbTensorSource::Pump,
                            this);
    }
}

void
TalbTensorSource::StopApplication()
{
    NS_LOG_FUNCTION(this);
    if (m_socket)
    {
        m_socket->Close();
    }
}

void
TalbTensorSource::SendReady(Ptr<Socket> /* socket */, uint32_t /* available */)
{
    Pump();
}

void
TalbTensorSource::Pump()
{
    while (m_connected && !m_tensors.empty() && m_tensors.front().start <= Simulator::Now())
    {
        Tensor& t = m_tensors.front();
        uint32_t chunk = std::min({m_sendSize, t.bytes - t.sent, m_socket->GetTxAvailable()});
        if (chunk == 0)
        {
            return;
        }
        Ptr<Packet> p = Create<Packet>(chunk);
        TalbTensorByteTag::TagMessage(p, t.id, t.priority, t.sent == 0, t.sent + chunk == t.bytes);
        int sent = m_socket->Send(p);
        NS_ABORT_MSG_IF(sent != static_cast<int>(chunk), "TalbTensorSource: socket refused data");
        t.sent += chunk;
        if (t.sent == t.bytes)
        {
            m_tensorSentTrace(t.id);
            m_tensors.pop_front();
        }
    }
}

} // namespace ns3
