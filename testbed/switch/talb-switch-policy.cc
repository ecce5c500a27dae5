#include "talb-switch-policy.h"

#include "ns3/talb-lb-core-ecmp.h"
#include "ns3/talb-lb-core-rps.h"

namespace talb
{

const char* const kPolicyNames = "ecmp, rps, letflow, drill, talb";

std::unique_ptr<lb::Policy>
PolicySet::Make(const std::string& name,
                const PolicyOptions& o,
                uint32_t nPorts,
                std::string* error)
{
    if (name == "ecmp")
    {
        auto p = std::make_unique<lb::Ecmp>();
        p->Configure({o.ecmpSalt, o.switchId});
        return p;
    }
    if (name == "rps")
    {
        return std::make_unique<lb::Rps>();
    }
    if (name == "letflow")
    {
        auto p = std::make_unique<lb::LetFlow>();
        if (!p->Configure(o.letflow))
        {
            *error = std::string("letflow: ") + lb::LetFlow::Check(o.letflow);
            return nullptr;
        }
        return p;
    }
    if (name == "drill")
    {
        auto p = std::make_unique<lb::Drill>();
        if (!p->Configure(o.drill))
        {
            *error = std::string("drill: ") + lb::Drill::Check(o.drill);
            return nullptr;
        }
        return p;
    }
    if (name == "talb")
    {
        auto p = std::make_unique<lb::TensorAwareV1>();
        if (!p->Configure(o.talb, nPorts))
        {
            *error = std::string("talb: ") + lb::TensorAwareV1::Check(o.talb);
            return nullptr;
        }
        return p;
    }
    *error = "unknown load balancer '" + name + "' (" + kPolicyNames + ")";
    return nullptr;
}

bool
PolicySet::Build(const PolicyOptions& options,
                 uint32_t nPorts,
                 const lb::PortView* ports,
                 lb::Events* events,
                 std::string* error)
{
    m_random = std::make_unique<lb::SplitMixRandom>(options.seed);
    m_fallbackRandom = std::make_unique<lb::SplitMixRandom>(options.seed + 1);
    m_main = Make(options.name, options, nPorts, error);
    if (!m_main)
    {
        return false;
    }
    m_main->Bind(ports, m_random.get(), events);
    m_tensorAware = dynamic_cast<lb::TensorAwareV1*>(m_main.get());
    if (m_tensorAware)
    {
        if (options.fallback == "talb")
        {
            *error = "talb's fallback must be one of ecmp, rps, letflow, drill";
            return false;
        }
        m_fallback = Make(options.fallback, options, nPorts, error);
        if (!m_fallback)
        {
            *error = "fallback: " + *error;
            return false;
        }
        m_fallback->Bind(ports, m_fallbackRandom.get(), events);
        m_tensorAware->SetFallback(m_fallback.get());
    }
    return true;
}

} // namespace talb
