#ifndef TALB_OBLIVIOUS_ENTROPY_H
#define TALB_OBLIVIOUS_ENTROPY_H

#include "talb-entropy-policy.h"

#include "ns3/random-variable-stream.h"

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief Oblivious packet spraying ("oblivious"): every data packet gets a fresh entropy,
 * whatever came back; the baseline REPS (TalbRepsEntropy) is measured against.
 *
 * Mode Random draws each packet's entropy uniformly from the policy range; RoundRobin cycles
 * through Entropies consecutive values from a random start, so a queue pair's packets spread
 * evenly over at most that many ECMP hashes. Acknowledgements and losses are ignored.
 */
class TalbObliviousEntropy : public TalbEntropyPolicy
{
  public:
    static TypeId GetTypeId();
    TalbObliviousEntropy();
    ~TalbObliviousEntropy() override;

    int64_t AssignStreams(int64_t stream) override;

    /// How the next entropy is chosen (Mode attribute).
    enum Mode
    {
        RANDOM,     //!< uniformly at random
        ROUND_ROBIN //!< the next of Entropies values
    };

  protected:
    void DoDispose() override;

  private:
    uint16_t DoNextEntropy(bool* recycled) override;
    void DoStart() override;
    Ptr<TalbEntropyPolicy> DoFork() const override;

    int m_mode;           //!< Mode attribute
    uint32_t m_entropies; //!< Entropies attribute
    Ptr<UniformRandomVariable> m_random;
    uint32_t m_first{0}; //!< RoundRobin: offset of the first value in the range
    uint32_t m_next{0};  //!< RoundRobin: index of the next value
};

} // namespace ns3

#endif /* TALB_OBLIVIOUS_ENTROPY_H */
