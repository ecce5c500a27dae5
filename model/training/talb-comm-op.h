#ifndef TALB_COMM_OP_H
#define TALB_COMM_OP_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-training
 * \brief A contiguous range of one tensor's wire bytes inside a collective operation.
 */
struct TalbCommSegment
{
    uint32_t tensor{0};   //!< tensor index within the job's model
    uint64_t offset{0};   //!< first byte, within the tensor's wire bytes
    uint64_t bytes{0};    //!< length (> 0)
    uint8_t priority{7};  //!< 0 (most urgent) .. 7, carried by the bytes' tags
    bool firstPart{true}; //!< holds the tensor's first wire byte of the iteration
    bool lastPart{true};  //!< holds the tensor's last wire byte of the iteration
};

/**
 * \ingroup talb-training
 * \brief One collective operation (all-reduce / push-pull) that a scheduler launches on every
 * worker of a job: the concatenation of its segments, possibly from several tensors (fusion).
 */
struct TalbCommOp
{
    uint32_t id{0};        //!< unique within the job
    uint32_t iteration{0}; //!< training iteration whose gradients it carries
    std::vector<TalbCommSegment> segments;

    /// \return the sum of the segments' bytes
    uint64_t GetBytes() const
    {
        uint64_t total = 0;
        for (const auto& s : segments)
        {
            total += s.bytes;
        }
        return total;
    }
};

} // namespace ns3

#endif /* TALB_COMM_OP_H */
