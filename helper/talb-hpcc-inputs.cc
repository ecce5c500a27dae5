#include "talb-hpcc-inputs.h"

#include "ns3/talb-parse.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace ns3
{

namespace
{

/// One whitespace-separated word of the file and the line it is on.
struct Word
{
    std::string text;
    uint32_t line{0};
};

std::vector<Word>
SplitWords(const std::string& text)
{
    std::vector<Word> words;
    std::istringstream in(text);
    std::string line;
    uint32_t n = 0;
    while (std::getline(in, line))
    {
        ++n;
        std::istringstream fields(line);
        std::string w;
        while (fields >> w)
        {
            words.push_back({w, n});
        }
    }
    return words;
}

/// A link as the file gives it.
struct Link
{
    uint32_t a{0};
    uint32_t b{0};
    DataRate rate;
    Time delay;
    double errorRate{0}; //!< each packet's loss probability, each direction (HPCC's)
    uint32_t line{0};
};

/// Reads the words of the file in order; each error names the file, the line and the field.
class Reader
{
  public:
    Reader(const std::string& path, std::vector<Word> words)
        : m_path(path),
          m_words(std::move(words))
    {
    }

    bool AtEnd() const
    {
        return m_next == m_words.size();
    }

    /// The next word as a count or node id in [min, max]; \p field names it in errors.
    bool Uint(const std::string& field, uint64_t min, uint64_t max, uint32_t* out)
    {
        const Word* w = Next(field);
        uint64_t v = 0;
        if (w && !TalbParse::ParseUint(w->text, &v, min, max))
        {
            Fail(*w,
                 field,
                 "'" + w->text + "' is not an integer in [" + std::to_string(min) + ", " +
                     std::to_string(max) + "]");
            return false;
        }
        *out = static_cast<uint32_t>(v);
        return w != nullptr;
    }

    const Word* Next(const std::string& field)
    {
        if (AtEnd())
        {
            uint32_t line = m_words.empty() ? 1 : m_words.back().line;
            m_error = TalbParse::ErrorAt(m_path, line, field, "the file ends here");
            return nullptr;
        }
        return &m_words[m_next++];
    }

    void Fail(const Word& at, const std::string& field, const std::string& message)
    {
        m_error = TalbParse::ErrorAt(m_path, at.line, field, message);
    }

    void Fail(uint32_t line, const std::string& message)
    {
        m_error = TalbParse::ErrorAt(m_path, line, "", message);
    }

    /// \return the line of the word read last
    uint32_t LastLine() const
    {
        return m_next == 0 ? 1 : m_words[m_next - 1].line;
    }

    const std::string& Error() const
    {
        return m_error;
    }

  private:
    std::string m_path;
    std::vector<Word> m_words;
    std::size_t m_next{0};
    std::string m_error;
};

/// Reads the LINKS link lines after the switch ids.
bool
ReadLinks(Reader& r, uint32_t nodes, uint32_t count, std::vector<Link>* links)
{
    for (uint32_t i = 0; i < count; ++i)
    {
        Link l;
        if (!r.Uint("src", 0, nodes - 1, &l.a) || !r.Uint("dst", 0, nodes - 1, &l.b))
        {
            return false;
        }
        const Word* rate = r.Next("rate");
        const Word* delay = rate ? r.Next("delay") : nullptr;
        const Word* error = delay ? r.Next("error rate") : nullptr;
        if (!error)
        {
            return false;
        }
        l.line = rate->line;
        if (!TalbParse::ParseDataRate(rate->text, &l.rate))
        {
            r.Fail(*rate, "rate", "'" + rate->text + "' is not a rate with its unit (100Gbps)");
        }
        else if (!TalbParse::ParseTime(delay->text, &l.delay))
        {
            r.Fail(*delay, "delay", "'" + delay->text + "' is not a time with its unit (0.001ms)");
        }
        else if (!TalbParse::ParseDouble(error->text, &l.errorRate) || !(l.errorRate >= 0) ||
                 !(l.errorRate < 1))
        {
            r.Fail(*error,
                   "error rate",
                   "'" + error->text + "' is not a probability from 0 to below 1");
        }
        else if (l.a == l.b)
        {
            r.Fail(l.line, "link from node " + std::to_string(l.a) + " to itself");
        }
        if (!r.Error().empty())
        {
            return false;
        }
        links->push_back(l);
    }
    return true;
}

/**
 * Recognises the leaf-spine fabric of a topology file's links, one step per method: hosts and
 * their leaves, leaves and spines, the leaf-spine pairs, rates and delay, host numbers. Each
 * step returns an error ("PATH:LINE: what"), or empty.
 */
class LeafSpineShape
{
  public:
    LeafSpineShape(const std::string& path, const std::vector<bool>& isSwitch)
        : m_path(path),
          m_isSwitch(isSwitch)
    {
    }

    /// Every host on one link to a switch (its leaf); switch-switch links kept for later.
    std::string SortLinks(const std::vector<Link>& links)
    {
        for (const Link& l : links)
        {
            if (!m_isSwitch[l.a] && !m_isSwitch[l.b])
            {
                return At(l, "link between two hosts (nodes not listed as switches)");
            }
            if (m_isSwitch[l.a] && m_isSwitch[l.b])
            {
                m_switchLinks.push_back(&l);
                continue;
            }
            uint32_t host = m_isSwitch[l.a] ? l.b : l.a;
            uint32_t leaf = m_isSwitch[l.a] ? l.a : l.b;
            if (l.errorRate != 0)
            {
                return At(l,
                          "non-zero error rate on a host link: talb loses packets at random "
                          "on leaf-spine links only (linkLoss)");
            }
            auto [it, fresh] = m_uplinkOf.emplace(host, &l);
            if (!fresh)
            {
                return At(l,
                          "host " + std::to_string(host) + " has a second link (line " +
                              std::to_string(it->second->line) +
                              "): talb's hosts have one NIC on one leaf");
            }
            m_hostsOf[leaf].push_back(host);
        }
        for (uint32_t n = 0; n < m_isSwitch.size(); ++n)
        {
            if (!m_isSwitch[n] && !m_uplinkOf.count(n))
            {
                return AtFile("host " + std::to_string(n) +
                              " has no link (every node not listed as a switch is a host)");
            }
        }
        return m_uplinkOf.empty() ? AtFile("no hosts: every node is a switch") : "";
    }

    /// Leaves are the switches with hosts (as many each), spines the others, in node-id order.
    std::string NumberSwitches(TalbHpccTopology* out)
    {
        for (uint32_t n = 0; n < m_isSwitch.size(); ++n)
        {
            if (m_isSwitch[n])
            {
                auto& index = m_hostsOf.count(n) ? m_leafIndex : m_spineIndex;
                index.emplace(n, static_cast<uint32_t>(index.size()));
            }
        }
        const auto& first = *m_hostsOf.begin();
        out->hostsPerLeaf = static_cast<uint32_t>(first.second.size());
        for (const auto& [leaf, hosts] : m_hostsOf)
        {
            if (hosts.size() != out->hostsPerLeaf)
            {
                return At(*m_uplinkOf[hosts.front()],
                          "switch " + std::to_string(leaf) + " has " +
                              std::to_string(hosts.size()) + " hosts, switch " +
                              std::to_string(first.first) + " has " +
                              std::to_string(out->hostsPerLeaf) +
                              ": talb's leaves have the same number of hosts");
            }
        }
        if (m_spineIndex.empty())
        {
            return AtFile("no spines: every switch has hosts");
        }
        out->leaves = static_cast<uint32_t>(m_leafIndex.size());
        out->spines = static_cast<uint32_t>(m_spineIndex.size());
        return "";
    }

    /// Every leaf-spine pair linked exactly once; the most common rate is the fabric's.
    std::string MatchPairs(TalbHpccTopology* out)
    {
        std::map<std::pair<uint32_t, uint32_t>, const Link*> pairs;
        std::map<uint64_t, uint32_t> rateCount;
        for (const Link* l : m_switchLinks)
        {
            bool aLeaf = m_leafIndex.count(l->a) != 0;
            if (aLeaf == (m_leafIndex.count(l->b) != 0))
            {
                return At(
                    *l,
                    std::string(aLeaf ? "link between two leaves" : "link between two spines") +
                        " (switches " + std::to_string(l->a) + ", " + std::to_string(l->b) +
                        "): talb builds two-tier leaf-spine fabrics only");
            }
            uint32_t leaf = aLeaf ? m_leafIndex[l->a] : m_leafIndex[l->b];
            uint32_t spine = aLeaf ? m_spineIndex[l->b] : m_spineIndex[l->a];
            auto [it, fresh] = pairs.emplace(std::make_pair(leaf, spine), l);
            if (!fresh)
            {
                return At(*l,
                          "a second link between switches " + std::to_string(l->a) + " and " +
                              std::to_string(l->b) + " (first on line " +
                              std::to_string(it->second->line) + "): talb has one link per pair");
            }
            ++rateCount[l->rate.GetBitRate()];
        }
        for (const auto& [leafNode, leaf] : m_leafIndex)
        {
            for (const auto& [spineNode, spine] : m_spineIndex)
            {
                if (!pairs.count({leaf, spine}))
                {
                    return AtFile("no link between leaf switch " + std::to_string(leafNode) +
                                  " and spine switch " + std::to_string(spineNode) +
                                  ": a leaf-spine fabric links every pair");
                }
            }
        }
        auto common =
            std::max_element(rateCount.begin(), rateCount.end(), [](const auto& x, const auto& y) {
                return x.second < y.second;
            });
        out->fabricRate = DataRate(common->first);
        for (const auto& [ends, l] : pairs)
        {
            if (l->rate.GetBitRate() != common->first)
            {
                out->linkRates.push_back({ends.first, ends.second, l->rate});
            }
            if (l->errorRate != 0)
            {
                out->linkLosses.push_back({ends.first, ends.second, l->errorRate});
            }
        }
        return "";
    }

    /// One delay for every link, one rate for every host link.
    std::string CheckHostRateAndDelay(const std::vector<Link>& links, TalbHpccTopology* out)
    {
        const Link& first = links.front();
        out->linkDelay = first.delay;
        out->hostRate = m_uplinkOf.begin()->second->rate;
        for (const Link& l : links)
        {
            if (l.delay != first.delay)
            {
                return At(l,
                          "delay " + std::to_string(l.delay.GetNanoSeconds()) + "ns differs from " +
                              std::to_string(first.delay.GetNanoSeconds()) + "ns on line " +
                              std::to_string(first.line) + ": talb's links share one delay");
            }
        }
        for (const auto& [host, l] : m_uplinkOf)
        {
            if (l->rate != out->hostRate)
            {
                return At(*l,
                          "host link at " + std::to_string(l->rate.GetBitRate()) +
                              " bit/s, another at " + std::to_string(out->hostRate.GetBitRate()) +
                              " bit/s: talb's host links share one rate");
            }
        }
        return "";
    }

    /// talb host i is the i-th host in node-id order under the leaves in node-id order.
    void NumberHosts(TalbHpccTopology* out)
    {
        for (const auto& [leafNode, leaf] : m_leafIndex)
        {
            std::vector<uint32_t> hosts = m_hostsOf[leafNode];
            std::sort(hosts.begin(), hosts.end());
            for (uint32_t k = 0; k < hosts.size(); ++k)
            {
                out->hostOfNode[hosts[k]] = leaf * out->hostsPerLeaf + k;
            }
        }
    }

  private:
    std::string At(const Link& l, const std::string& message) const
    {
        return TalbParse::ErrorAt(m_path, l.line, "", message);
    }

    /// An error of the file as a whole (the links that would be there are not).
    std::string AtFile(const std::string& message) const
    {
        return TalbParse::ErrorAt(m_path, 1, "", message);
    }

    std::string m_path;
    const std::vector<bool>& m_isSwitch;
    std::map<uint32_t, std::vector<uint32_t>> m_hostsOf; //!< leaf node -> host nodes
    std::map<uint32_t, const Link*> m_uplinkOf;          //!< host node -> its link
    std::vector<const Link*> m_switchLinks;
    std::map<uint32_t, uint32_t> m_leafIndex;  //!< leaf node -> leaf index
    std::map<uint32_t, uint32_t> m_spineIndex; //!< spine node -> spine index
};

/// Recognise the leaf-spine fabric of \p links into \p out. \return an error, or empty
std::string
ToLeafSpine(const std::string& path,
            const std::vector<bool>& isSwitch,
            const std::vector<Link>& links,
            TalbHpccTopology* out)
{
    LeafSpineShape shape(path, isSwitch);
    std::string error = shape.SortLinks(links);
    if (error.empty())
    {
        error = shape.NumberSwitches(out);
    }
    if (error.empty())
    {
        error = shape.MatchPairs(out);
    }
    if (error.empty())
    {
        error = shape.CheckHostRateAndDelay(links, out);
    }
    if (error.empty())
    {
        shape.NumberHosts(out);
    }
    return error;
}

/// Reads the whole file \p path into \p text. \return false if it cannot be opened
bool
Slurp(const std::string& path, std::string* text)
{
    std::ifstream in(path);
    if (!in)
    {
        return false;
    }
    std::ostringstream all;
    all << in.rdbuf();
    *text = all.str();
    return true;
}

} // namespace

std::string
TalbHpccTopology::Read(const std::string& path, TalbHpccTopology* out)
{
    std::string text;
    if (!Slurp(path, &text))
    {
        return path + ": cannot open the topology file";
    }
    return Parse(text, path, out);
}

std::string
TalbHpccTopology::Parse(const std::string& text, const std::string& path, TalbHpccTopology* out)
{
    Reader r(path, SplitWords(text));
    uint32_t nodes = 0;
    uint32_t switches = 0;
    uint32_t nLinks = 0;
    // Bounds keep every later allocation small whatever the file says.
    if (!r.Uint("nodes", 2, 1000000, &nodes) || !r.Uint("switches", 1, nodes - 1, &switches) ||
        !r.Uint("links", 1, 10000000, &nLinks))
    {
        return r.Error();
    }
    std::vector<bool> isSwitch(nodes, false);
    for (uint32_t i = 0; i < switches; ++i)
    {
        uint32_t id = 0;
        if (!r.Uint("switch id", 0, nodes - 1, &id))
        {
            return r.Error();
        }
        if (isSwitch[id])
        {
            return TalbParse::ErrorAt(path,
                                      r.LastLine(),
                                      "switch id",
                                      "switch " + std::to_string(id) + " is listed twice");
        }
        isSwitch[id] = true;
    }
    std::vector<Link> links;
    if (!ReadLinks(r, nodes, nLinks, &links))
    {
        return r.Error();
    }
    if (!r.AtEnd())
    {
        const Word* extra = r.Next("");
        return TalbParse::ErrorAt(path,
                                  extra->line,
                                  "",
                                  "'" + extra->text + "' after the " + std::to_string(nLinks) +
                                      " links the first line announced");
    }
    TalbHpccTopology t;
    std::string error = ToLeafSpine(path, isSwitch, links, &t);
    if (error.empty())
    {
        *out = t;
    }
    return error;
}

std::string
TalbHpccFlows::Read(const std::string& path,
                    const std::map<uint32_t, uint32_t>* hostOfNode,
                    uint32_t nHosts,
                    std::vector<TalbHpccFlow>* out)
{
    std::string text;
    if (!Slurp(path, &text))
    {
        return path + ": cannot open the flow file";
    }
    return Parse(text, path, hostOfNode, nHosts, out);
}

std::string
TalbHpccFlows::Parse(const std::string& text,
                     const std::string& path,
                     const std::map<uint32_t, uint32_t>* hostOfNode,
                     uint32_t nHosts,
                     std::vector<TalbHpccFlow>* out)
{
    Reader r(path, SplitWords(text));
    uint32_t count = 0;
    if (!r.Uint("flows", 1, 100000000, &count))
    {
        return r.Error();
    }
    // A node id is a host of the topology file, or a host index without one.
    auto host = [&](const std::string& field, uint32_t* h) {
        uint32_t node = 0;
        if (!r.Uint(field, 0, std::numeric_limits<uint32_t>::max(), &node))
        {
            return false;
        }
        std::string error;
        if (hostOfNode)
        {
            auto it = hostOfNode->find(node);
            if (it == hostOfNode->end())
            {
                error = "node " + std::to_string(node) + " is not a host of the topology file";
            }
            else
            {
                *h = it->second;
            }
        }
        else if (node >= nHosts)
        {
            error = "node " + std::to_string(node) + " is not a host (the fabric has " +
                    std::to_string(nHosts) + ": 0.." + std::to_string(nHosts - 1) + ")";
        }
        else
        {
            *h = node;
        }
        if (!error.empty())
        {
            r.Fail(r.LastLine(), field + " " + error);
        }
        return error.empty();
    };
    std::vector<TalbHpccFlow> flows;
    flows.reserve(std::min<uint32_t>(count, 1000000));
    for (uint32_t i = 0; i < count; ++i)
    {
        TalbHpccFlow f;
        if (!host("src", &f.src) || !host("dst", &f.dst) || !r.Uint("pg", 0, 7, &f.pg) ||
            !r.Uint("dport", 0, 65535, &f.dport))
        {
            return r.Error();
        }
        f.line = r.LastLine();
        const Word* sizeWord = r.Next("size");
        const Word* startWord = sizeWord ? r.Next("start") : nullptr;
        if (!startWord)
        {
            return r.Error();
        }
        uint64_t bytes = 0;
        double start = 0;
        if (!TalbParse::ParseUint(sizeWord->text, &bytes, 1, uint64_t(1) << 50))
        {
            return TalbParse::ErrorAt(path,
                                      sizeWord->line,
                                      "size",
                                      "'" + sizeWord->text + "' is not a byte count in [1, 2^50]");
        }
        // Seconds, as HPCC reads them; up to 10^6 s keeps Seconds() exact to the nanosecond.
        if (!TalbParse::ParseDouble(startWord->text, &start) || start < 0 || start > 1e6)
        {
            return TalbParse::ErrorAt(path,
                                      startWord->line,
                                      "start",
                                      "'" + startWord->text +
                                          "' is not a start time in seconds in [0, 1e6]");
        }
        if (f.src == f.dst)
        {
            return TalbParse::ErrorAt(path, f.line, "dst", "a flow from a host to itself");
        }
        f.sizeBytes = bytes;
        f.start = Seconds(start);
        flows.push_back(f);
    }
    if (!r.AtEnd())
    {
        const Word* extra = r.Next("");
        return TalbParse::ErrorAt(path,
                                  extra->line,
                                  "",
                                  "'" + extra->text + "' after the " + std::to_string(count) +
                                      " flows the first line announced");
    }
    *out = std::move(flows);
    return "";
}

} // namespace ns3
