#include "talb-lb-core.h"

#include <cassert>

namespace talb
{
namespace lb
{

void
Events::Rerouted(const PacketInfo& /* packet */, uint32_t /* from */, uint32_t /* to */)
{
}

void
Events::Evicted(uint32_t /* flowHash */, uint32_t /* tensorId */)
{
}

Policy::Policy()
    : m_ports(nullptr),
      m_random(nullptr),
      m_events(nullptr)
{
}

Policy::~Policy() = default;

void
Policy::Bind(const PortView* ports, Random* random, Events* events)
{
    m_ports = ports;
    m_random = random;
    m_events = events;
}

uint32_t
Policy::Select(const PacketInfo& packet, const Candidates& candidates)
{
    assert(candidates.count >= 1 && "Select without candidates");
    if (candidates.count == 1)
    {
        return candidates.ports[0];
    }
    uint32_t port = DoSelect(packet, candidates);
    assert(candidates.Contains(port) && "a policy chose a port outside its candidates");
    return port;
}

void
Policy::Follow(const PacketInfo& packet, const Candidates& candidates, uint32_t port)
{
    assert(candidates.Contains(port) && "a followed port outside the candidates");
    if (candidates.count >= 2)
    {
        DoFollow(packet, candidates, port);
    }
}

void
Policy::DoFollow(const PacketInfo& /* packet */,
                 const Candidates& /* candidates */,
                 uint32_t /* port */)
{
}

uint32_t
Policy::Target(const PacketInfo& packet, const Candidates& candidates)
{
    assert(candidates.count >= 1 && "Target without candidates");
    if (candidates.count == 1)
    {
        return candidates.ports[0];
    }
    uint32_t port = DoTarget(packet, candidates);
    assert(candidates.Contains(port) && "a policy's target outside its candidates");
    return port;
}

uint32_t
Policy::DoTarget(const PacketInfo& /* packet */, const Candidates& candidates)
{
    return candidates.ports[m_random ? Draw(0, candidates.count - 1) : 0];
}

} // namespace lb
} // namespace talb
