#ifndef TALB_PARAMETER_SERVER_H
#define TALB_PARAMETER_SERVER_H

#include "talb-collective.h"

#include "ns3/node-container.h"

#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-training
 * \brief Parameter server: every worker pushes its gradients to the servers, each server
 * answers with a pull once it holds all N pushes.
 *
 * An operation of S bytes is sharded over the P servers in contiguous shards (sizes differ by
 * at most one byte); worker w pushes shard p to server p (step 0), server p sends the
 * aggregated shard back to every worker (step 1), and the operation is done at w when all its
 * pulls arrived. Servers are the hosts given to SetServers(); without them every worker is
 * also a server (colocated, as in BytePS), and a push or pull between a worker and the server
 * on its own host is local (no traffic, no time). Each worker/server pair has a persistent
 * connection per direction. Aggregation takes no simulated time.
 *
 * Payload bytes on the wire per operation: with P dedicated servers N x S pushed and N x S
 * pulled; colocated (P = N) (N - 1) x S each way. Every message adds a 16-byte header.
 */
class TalbParameterServer : public TalbCollective
{
  public:
    static TypeId GetTypeId();
    TalbParameterServer();
    ~TalbParameterServer() override;

    /// Use these hosts as servers (before the job starts); empty: colocated with the workers.
    void SetServers(const NodeContainer& servers);

  protected:
    void DoDispose() override;

  private:
    void DoSetup() override;
    void DoStart(const TalbCommOp& op) override;
    void DoDelivered(Ptr<TalbMessageChannel> channel, const TalbMessage& message) override;
    /**
     * Push phase, then pull phase, each at its busiest NIC. Colocated (P = N): every host
     * sends (N-1)/N x S per phase, 2(N-1)/N x S / rate in all. P dedicated servers: a worker
     * sends (receives) S, a server receives (sends) N x S / P, so 2 max(S, N x S / P) / rate.
     */
    Time DoGetIdealOpTime(uint64_t bytes, uint32_t nWorkers, DataRate rate) const override;

    struct OpState
    {
        TalbCommOp op;
        std::vector<uint64_t> starts;
        std::vector<uint32_t> pushes; //!< per server: pushes received
        std::vector<uint32_t> pulls;  //!< per worker: pulls received
        uint32_t shards{0};           //!< non-empty shards
        uint32_t done{0};
    };

    std::pair<uint64_t, uint64_t> Shard(const OpState& st, uint32_t p) const;
    TalbMessage MakeMessage(const OpState& st, uint32_t p, uint16_t step) const;
    void PushArrived(uint32_t opId, uint32_t server);
    void PullArrived(uint32_t opId, uint32_t worker);

    std::vector<Ptr<Node>> m_servers;
    std::vector<Ptr<TalbMessageChannel>> m_push; //!< [w * P + p], null when local
    std::vector<Ptr<TalbMessageChannel>> m_pull; //!< [p * N + w], null when local
    std::unordered_map<uint32_t, OpState> m_ops;
};

} // namespace ns3

#endif /* TALB_PARAMETER_SERVER_H */
