#include "talb-balancer-spec.h"

#include "talb-balancer-rules.h"

#include "ns3/string.h"
#include "ns3/talb-load-balancer.h"
#include "ns3/talb-switch.h"

namespace ns3
{

TalbBalancerSpec::HostTransport
TalbBalancerSpec::HostTransport::Tcp()
{
    return HostTransport();
}

TalbBalancerSpec::HostTransport
TalbBalancerSpec::HostTransport::GoBackN()
{
    HostTransport hosts;
    hosts.rdma = true;
    return hosts;
}

TalbBalancerSpec::HostTransport
TalbBalancerSpec::HostTransport::SelectiveRepeat()
{
    HostTransport hosts = GoBackN();
    hosts.selectiveRepeat = true;
    return hosts;
}

TalbBalancerSpec::HostTransport
TalbBalancerSpec::HostTransport::Spray()
{
    HostTransport hosts = SelectiveRepeat();
    hosts.hostsSpray = true;
    return hosts;
}

TalbAttributeList::Pairs
TalbBalancerSpec::TransportProfile(const HostTransport& hosts, const Jobs& jobs)
{
    // RoCEv2: TaLB's congestion moves while the ports are shared, with the queue moves that
    // follow a local burst. TCP: sprayed packets count a path the leaf-to-leaf feedback reports
    // saturated as this many bytes more queue while another job shares the ports.
    // TCP keeps sprayed packets on the fastest paths: split over paths of different rates (and
    // delays) they arrive out of order and the senders' loss recovery collapses (2.6x the
    // iteration beside 30 % background with a 2.5 Gb/s link; doc/talb-switch.rst, "Paths of
    // different rates"). Nor do TCP flows move mid-tensor by the queue margins: each move
    // reorders the flow, and the margins cost 9.3 % on the held-out 3:1 fabric while buying
    // nothing beyond noise on the tuning grid (doc/talb-evaluation.rst, "Ablation"). Sprayed
    // packets count the queue at or above their band, and a tensor resuming after a
    // retransmission timeout keeps its port: every band's queue and the stall moves bought
    // nothing beyond noise on either grid.
    if (!hosts.rdma)
    {
        TalbAttributeList::Pairs tcp = {{"RemoteSprayBytes", "30000"},
                                        {"SprayPaths", "Fastest"},
                                        {"MarginMoves", "false"},
                                        {"SprayQueue", "AtOrAbove"},
                                        {"StallTimeout", "0"}};
        // An LLM job alone on the fabric still overflows the uplinks with whole flows: an
        // expert all-to-all starts 32 flows a leaf at once, and data-parallel rings carry a few
        // large flows per NIC. Spraying every tensor packet took the MoE job at 2:1 from 46.3 to
        // 23.2 ms (DRILL 26.1) and the dense one from 21.1 to 18.0; the CNN rings, which it
        // costs up to 2.4 %, keep spraying only while shared (doc/talb-evaluation.rst, "LLM
        // jobs over TCP spray every tensor packet").
        if (jobs.llm)
        {
            tcp.push_back({"Spray", "Always"});
        }
        return tcp;
    }
    TalbAttributeList::Pairs profile = {{"Moves", "Contended"},
                                        {"RemoteAwareness", "true"},
                                        {"ActiveWindow", "1ms"},
                                        {"MinMoveInterval", "200us"},
                                        {"QueueMoves", "true"}};
    // Selective repeat takes reordered packets without a retransmission window: every tensor
    // packet then goes to the least queued path, as DRILL's do (doc/talb-transport.rst,
    // "TaLB on selective-repeat NICs").
    if (hosts.selectiveRepeat)
    {
        profile.push_back({"RoceGoBackN", "false"});
        profile.push_back({"Spray", "Always"});
    }
    // Go-back-N flows are placed whole: a message that has ended no longer counts on its port,
    // or the short data-parallel ring steps and all-to-all messages of LLM jobs fill the flow
    // slots and simultaneous new flows are placed by the queue alone (+20 % on the held-out
    // MoE job; the CNN families -0.3 % pooled, within noise, at most -5 % on a flapping link;
    // doc/talb-evaluation.rst, "A finished message leaves the count"). Spraying transports place
    // packets, not flows: unmeasured there. Between its messages a flow then counts nowhere, so
    // its next message is placed on counts that miss the other flows between theirs too: it
    // keeps its port unless another flow's message ended there (a flapping uplink at 2:1 cost
    // 5.3 % without; doc/talb-evaluation.rst, "A flow's next message").
    else
    {
        profile.push_back({"LastEndsWindow", "true"});
        profile.push_back({"EndedTie", "Keep"});
    }
    // Hosts that spray (REPS) already spread the background's packets over the paths and keep
    // those that come back unmarked; the DRILL fallback re-spraying them to the least queued
    // port undid that: 11.6 % of the iteration at 50 % background and 2:1 (doc/talb-evaluation.rst,
    // the spray family's ablation). Untagged packets follow their hosts' entropy.
    if (hosts.hostsSpray)
    {
        profile.push_back({"Fallback", "ecmp"});
    }
    // A queue pair with a source port of its own carries a share of its connection: judged
    // alone it looks slow and is moved, a retransmission window each time, every
    // MinMoveInterval (doc/talb-evaluation.rst, family qp).
    if (hosts.qpPorts)
    {
        profile.push_back({"RateKey", "HostPair"});
    }
    return profile;
}

std::vector<TalbBalancerSpec>
TalbBalancerSpec::ParseList(const TalbScenarioConfig& c,
                            const TalbFabricSpec& fabric,
                            TalbAttributeList::Pairs* profile,
                            std::vector<std::string>* errors,
                            const Jobs& jobs)
{
    TalbAttributeList::Pairs attributes;
    std::string err = TalbAttributeList::Parse(c.GetString("lbAttributes"), &attributes);
    if (!err.empty())
    {
        errors->push_back("lbAttributes: " + err);
    }
    HostTransport hosts;
    hosts.rdma = fabric.rdmaHosts;
    hosts.selectiveRepeat = fabric.rdmaSelectiveRepeat;
    hosts.qpPorts = fabric.rdmaHosts && c.GetUint("rdmaQpsPerConnection") > 1 &&
                    !c.GetBool("rdmaSharedSourcePort");
    hosts.hostsSpray = fabric.hostsSpray;
    *profile = c.GetString("lbProfile") == "transport" ? TransportProfile(hosts, jobs)
                                                       : TalbAttributeList::Pairs();
    std::vector<TalbBalancerSpec> balancers;
    for (const auto& name : c.GetNames("lb"))
    {
        TypeId tid = TalbLoadBalancer::GetRegistry().Get(name);
        balancers.push_back({name, ObjectFactory(tid.GetName())});
    }
    for (auto& b : balancers)
    {
        for (const auto& kv : *profile)
        {
            TypeId::AttributeInformation info;
            if (b.factory.GetTypeId().LookupAttributeByName(kv.first, &info))
            {
                b.factory.Set(kv.first, StringValue(kv.second));
            }
        }
    }
    // lbRulesOff turns rules of the defaults off: over the profile, under what lbAttributes
    // says, which may not set the same attributes (which of the two would win is a guess).
    TalbAttributeList::Pairs rulesOff;
    TalbBalancerRule::Parse(c.GetString("lbRulesOff"), &rulesOff, errors);
    for (const auto& kv : rulesOff)
    {
        bool someoneHasIt = false;
        for (auto& b : balancers)
        {
            TypeId::AttributeInformation info;
            if (b.factory.GetTypeId().LookupAttributeByName(kv.first, &info))
            {
                someoneHasIt = true;
                b.factory.Set(kv.first, StringValue(kv.second));
            }
        }
        if (!someoneHasIt)
        {
            errors->push_back("lbRulesOff: no load balancer of lb has the attribute '" + kv.first +
                              "' (the rules are TaLB's: lb=talb)");
        }
        for (const auto& given : attributes)
        {
            if (given.first == kv.first)
            {
                errors->push_back("lbRulesOff: a rule it names sets " + kv.first +
                                  ", which lbAttributes sets too");
            }
        }
    }
    for (const auto& kv : attributes)
    {
        bool someoneHasIt = false;
        for (auto& b : balancers)
        {
            std::string error;
            if (TalbAttributeList::Check(b.factory.GetTypeId(), kv.first, kv.second, &error))
            {
                someoneHasIt = true;
                if (error.empty())
                {
                    b.factory.Set(kv.first, StringValue(kv.second));
                }
                else
                {
                    errors->push_back("lbAttributes: " + error);
                }
            }
        }
        if (!someoneHasIt)
        {
            errors->push_back("lbAttributes: no load balancer of lb has an attribute '" + kv.first +
                              "'");
        }
    }
    if (!errors->empty())
    {
        return balancers;
    }
    // Values each attribute accepts can still clash (a fallback that cannot be one): ask each
    // balancer as its leaves will, before anything is built.
    TalbSwitchInfo leaf;
    leaf.nLeaves = fabric.leaves;
    leaf.nSpines = fabric.spines;
    for (const auto& b : balancers)
    {
        std::string error = b.factory.Create<TalbLoadBalancer>()->CheckConfiguration(leaf);
        if (!error.empty())
        {
            std::string text = TalbAttributeList::ToText(*profile);
            errors->push_back("lbAttributes: lb " + b.name + ": " + error +
                              (text.empty() ? ""
                                            : " (lbProfile=transport sets " + text +
                                                  " first; lbProfile=none does not)"));
        }
    }
    return balancers;
}

} // namespace ns3
