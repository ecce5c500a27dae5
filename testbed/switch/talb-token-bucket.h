/*
 * A token bucket that shapes a port's egress to a rate (bytes per ns, refilled lazily from the
 * time the caller passes in). Rate 0 means unshaped. A packet may leave when the bucket holds
 * its size; the depth bounds the burst after an idle period.
 */
#ifndef TALB_TOKEN_BUCKET_H
#define TALB_TOKEN_BUCKET_H

#include <algorithm>
#include <cstdint>

namespace talb
{

class TokenBucket
{
  public:
    /**
     * \param rateBps rate in bit/s, 0 = unlimited
     * \param depthBytes bucket depth, at least one full frame
     */
    void Configure(uint64_t rateBps, uint64_t depthBytes)
    {
        m_bytesPerNs = rateBps / 8e9;
        m_depth = static_cast<double>(depthBytes);
        m_tokens = m_depth;
        m_lastNs = 0;
    }

    bool Unlimited() const
    {
        return m_bytesPerNs == 0;
    }

    /// Takes \p bytes when the bucket holds them at \p nowNs. \return whether it did
    bool TryConsume(uint32_t bytes, int64_t nowNs)
    {
        if (Unlimited())
        {
            return true;
        }
        Refill(nowNs);
        if (m_tokens < bytes)
        {
            return false;
        }
        m_tokens -= bytes;
        return true;
    }

    /// \return ns from \p nowNs until \p bytes are available (0: now)
    int64_t WaitNs(uint32_t bytes, int64_t nowNs)
    {
        if (Unlimited())
        {
            return 0;
        }
        Refill(nowNs);
        return m_tokens >= bytes ? 0 : static_cast<int64_t>((bytes - m_tokens) / m_bytesPerNs) + 1;
    }

  private:
    void Refill(int64_t nowNs)
    {
        if (nowNs > m_lastNs)
        {
            m_tokens = std::min(m_depth, m_tokens + (nowNs - m_lastNs) * m_bytesPerNs);
            m_lastNs = nowNs;
        }
    }

    double m_bytesPerNs{0};
    double m_depth{0};
    double m_tokens{0};
    int64_t m_lastNs{0};
};

} // namespace talb

#endif /* TALB_TOKEN_BUCKET_H */
