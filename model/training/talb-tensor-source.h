#ifndef TALB_TENSOR_SOURCE_H
#define TALB_TENSOR_SOURCE_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/socket.h"
#include "ns3/traced-callback.h"

#include <deque>

namespace ns3
{

/**
 * \ingroup talb-training
 * \brief Sends tensors over one TCP connection, each tensor's bytes tagged with a
 * TalbTensorByteTag (TalbTensorByteTag::TagMessage), in the order they were added.
 *
 * A minimal tensor traffic source for examples and tests of the switch model; the training
 * traffic generator has its own workers. A tensor is written to the socket once its start time
 * has passed and every earlier tensor has been written, in chunks of at most SendSize bytes as
 * the socket's send buffer frees up.
 */
class TalbTensorSource : public Application
{
  public:
    static TypeId GetTypeId();
    TalbTensorSource();
    ~TalbTensorSource() override;

    /**
     * Queue a tensor.
     * \param tensorId tensor id (job id in the top 8 bits)
     * \param priority 0 (most urgent) .. 7
     * \param bytes size (> 0)
     * \param start earliest time (absolute) to start sending it
     */
    void AddTensor(uint32_t tensorId, uint8_t priority, uint32_t bytes, Time start);

    /**
     * TracedCallback signature for a tensor fully handed to the socket.
     * \param tensorId the tensor
     */
    typedef void (*TensorSentTracedCallback)(uint32_t tensorId);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void Connected(Ptr<Socket> socket);
    void Pump();
    void SendReady(Ptr<Socket> socket, uint32_t available);

    /// One queued tensor.
    struct Tensor
    {
        uint32_t id;
        uint8_t priority;
        uint32_t bytes;
        uint32_t sent;
        Time start;
    };

    Address m_remote;    //!< Remote attribute
    uint32_t m_sendSize; //!< SendSize attribute
    Ptr<Socket> m_socket;
    bool m_connected;
    std::deque<Tensor> m_tensors;
    TracedCallback<uint32_t> m_tensorSentTrace;
};

} // namespace ns3

#endif /* TALB_TENSOR_SOURCE_H */
