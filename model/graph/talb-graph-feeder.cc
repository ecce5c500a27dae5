#include "talb-graph-feeder.h"

#include <cstdio>
#include <cstdlib>

namespace talb
{
namespace graph
{

namespace
{

enum State : uint8_t
{
    kWaiting = 0,
    kReady = 1,
    kTaken = 2,
    kDone = 3,
};

/// Aborts unless \p ok: the engine misused the feeder (see the class comment).
void
Require(bool ok, const char* what, uint32_t node)
{
    if (!ok)
    {
        std::fprintf(stderr, "talb::graph::Feeder: %s (node %u)\n", what, node);
        std::abort();
    }
}

} // namespace

Feeder::Feeder(const std::vector<Node>& nodes)
    : m_nodes(nodes),
      m_succStart(nodes.size() + 1, 0),
      m_pending(nodes.size(), 0),
      m_state(nodes.size(), kWaiting)
{
    const uint32_t n = static_cast<uint32_t>(nodes.size());
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t d : nodes[i].deps)
        {
            Require(d < n && d != i, "dependency out of range or on itself", i);
            ++m_succStart[d + 1];
        }
        m_pending[i] = static_cast<uint32_t>(nodes[i].deps.size());
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        m_succStart[i + 1] += m_succStart[i];
    }
    m_succ.resize(m_succStart[n]);
    // m_ready serves as the fill cursors first: it needs n slots later anyway.
    m_ready.assign(m_succStart.begin(), m_succStart.end() - 1);
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t d : nodes[i].deps)
        {
            m_succ[m_ready[d]++] = i;
        }
    }
    m_ready.clear();
    m_ready.reserve(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        if (m_pending[i] == 0)
        {
            m_state[i] = kReady;
            m_ready.push_back(i);
        }
    }
}

bool
Feeder::HasReady() const
{
    return m_readyHead < m_ready.size();
}

uint32_t
Feeder::PopReady()
{
    Require(HasReady(), "PopReady() without a ready node", m_readyHead);
    uint32_t node = m_ready[m_readyHead++];
    m_state[node] = kTaken;
    return node;
}

void
Feeder::Complete(uint32_t node)
{
    Require(node < m_state.size() && m_state[node] == kTaken,
            "Complete() of a node not taken (or completed already)",
            node);
    m_state[node] = kDone;
    ++m_completed;
    for (uint32_t k = m_succStart[node]; k < m_succStart[node + 1]; ++k)
    {
        uint32_t next = m_succ[k];
        if (--m_pending[next] == 0)
        {
            m_state[next] = kReady;
            m_ready.push_back(next); // within the reserved n slots: every node enters once
        }
    }
}

bool
Feeder::Done() const
{
    return m_completed == m_nodes.size();
}

uint32_t
Feeder::Completed() const
{
    return m_completed;
}

} // namespace graph
} // namespace talb
