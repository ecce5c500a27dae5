#include "talb-balancer-rules.h"

#include <map>
#include <set>
#include <sstream>

namespace ns3
{

const std::vector<TalbBalancerRule>&
TalbBalancerRule::All()
{
    // Over RoCEv2 (go-back-N) TaLB never sprays and its stall rule skips safe-move flows, so
    // those rules act over TCP and selective-repeat NICs only; the move rule's profile is
    // RoCEv2's only, and TCP's profile turns the margin moves, the shared spray queue and the
    // stall moves off. The rdma rules are on over selective-repeat NICs too, but safe-moves and
    // untagged-moves act only where RoCEv2 flows are go-back-N's, and last-ends and ended-tie
    // are in the go-back-N profile only. llm-spray acts over TCP where a job is an LLM job
    // ('tcp-llm'), which the CNN parts' ablation leaves out.
    static const std::vector<TalbBalancerRule> kRules = {
        {"spray",
         "Spray=Never",
         "tcp",
         "tensor flows spread their packets over the ports while another job's or untagged "
         "traffic shares them"},
        {"spray-shared-queue",
         "SprayQueue=AtOrAbove",
         "rdma-sr",
         "a sprayed packet counts every band's queued bytes while another job shares the ports"},
        {"llm-spray",
         "Spray=Contended",
         "tcp-llm",
         "with an LLM job (the generator's, an AICB workload or a Chakra trace) every tensor "
         "packet goes to the least queued port, not only while another job's or untagged "
         "traffic shares the ports (TCP's lbProfile)"},
        {"remote-spray",
         "RemoteSprayBytes=0",
         "tcp",
         "sprayed packets avoid paths the leaf-to-leaf feedback reports saturated (TCP's "
         "lbProfile)"},
        {"stall-moves",
         "StallTimeout=0",
         "rdma-sr",
         "a tensor that resumes after a retransmission timeout leaves its port on ties"},
        {"untagged-spray",
         "Fallback=ecmp",
         "tcp",
         "untagged (background) packets go per packet as DRILL sends them, not hashed"},
        {"margin-moves",
         "MarginMoves=false",
         "rdma",
         "a mid-tensor flow leaves a port whose queue exceeds an equally shared one's by the "
         "move margin"},
        {"contended-moves",
         "Moves=Counts",
         "rdma",
         "while another job or untagged traffic shares the ports, only congestion moves a flow "
         "(RoCEv2's lbProfile)"},
        {"queue-moves",
         "QueueMoves=false",
         "rdma",
         "under the congestion rule a local burst still moves a flow by the margin (RoCEv2's "
         "lbProfile)"},
        {"safe-moves",
         "SafeMoves=Never",
         "rdma",
         "RoCEv2 flows move only once their old path has drained"},
        {"untagged-moves",
         "SafeMoves=GoBackN",
         "rdma",
         "while untagged traffic is active on a candidate port, RoCEv2 flows move as others do"},
        {"last-ends",
         "LastEndsWindow=false",
         "rdma",
         "a go-back-N flow stops counting on its port once its message's LAST packet passes "
         "there, not an active window later (RoCEv2's lbProfile; not with selective repeat)"},
        {"ended-tie",
         "EndedTie=Queue",
         "rdma",
         "a go-back-N flow whose message ended keeps its port for its next message where the "
         "flow counts tie, unless another flow's message ended there (RoCEv2's lbProfile; not "
         "with selective repeat)"},
        {"sr-reorder",
         "RoceGoBackN=true",
         "rdma-sr",
         "with selective-repeat NICs (rdmaRecovery=sr, transport spray) RoCEv2 flows are moved "
         "and sprayed as TCP's, not kept in order for go-back-N (the sr lbProfile)"},
        {"sr-untagged-entropy",
         "Fallback=drill",
         "spray",
         "untagged (background) packets take the paths their hosts' entropy hashes to (the hosts "
         "spray them, REPS), not DRILL's least queued port (the spray lbProfile)"},
        {"sr-spray-always",
         "Spray=Contended",
         "rdma-sr",
         "every tensor packet goes to the least queued port, not only while another job or "
         "untagged traffic shares the ports (the sr lbProfile)"},
    };
    return kRules;
}

const TalbBalancerRule*
TalbBalancerRule::Find(const std::string& name)
{
    for (const auto& rule : All())
    {
        if (name == rule.name)
        {
            return &rule;
        }
    }
    return nullptr;
}

std::string
TalbBalancerRule::Describe()
{
    std::ostringstream text;
    const char* sep = "";
    for (const auto& rule : All())
    {
        text << sep << rule.name << " (" << rule.transports << "): " << rule.what
             << "; off: " << rule.off;
        sep = "; ";
    }
    return text.str();
}

void
TalbBalancerRule::Parse(const std::string& text,
                        TalbAttributeList::Pairs* off,
                        std::vector<std::string>* errors)
{
    if (text.empty())
    {
        return;
    }
    std::set<std::string> seen;
    std::map<std::string, std::string> setBy; // attribute -> the rule that sets it
    std::istringstream items(text);
    std::string name;
    while (std::getline(items, name, ','))
    {
        const TalbBalancerRule* rule = Find(name);
        if (!rule)
        {
            std::string names;
            for (const auto& r : All())
            {
                names += std::string(names.empty() ? "" : ", ") + r.name;
            }
            errors->push_back("lbRulesOff: unknown rule '" + name + "' (rules: " + names + ")");
        }
        else if (!seen.insert(name).second)
        {
            errors->push_back("lbRulesOff: rule '" + name + "' is named twice");
        }
        else
        {
            TalbAttributeList::Pairs attributes;
            std::string err = TalbAttributeList::Parse(rule->off, &attributes);
            if (!err.empty()) // the table above is ours: a bad entry is a bug
            {
                errors->push_back("lbRulesOff: rule '" + name + "': " + err);
            }
            // Two rules that set one attribute (spray and llm-spray both set Spray): the later
            // would silently undo the earlier.
            for (const auto& kv : attributes)
            {
                auto [other, isNew] = setBy.emplace(kv.first, name);
                if (!isNew)
                {
                    errors->push_back("lbRulesOff: rules '" + other->second + "' and '" + name +
                                      "' both set " + kv.first + ": name one of them");
                }
            }
            off->insert(off->end(), attributes.begin(), attributes.end());
        }
    }
    if (text.back() == ',')
    {
        errors->push_back("lbRulesOff: '" + text + "' ends with a comma");
    }
}

} // namespace ns3
