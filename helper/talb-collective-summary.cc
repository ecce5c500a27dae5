#include "talb-collective-summary.h"

#include "ns3/abort.h"
#include "ns3/talb-exec-graph.h"

#include <algorithm>
#include <iomanip>
#include <set>
#include <sstream>

namespace ns3
{

namespace
{

/// Every type a record names, for Gather()'s numbers: CollTypeName()'s, then send_recv.
std::vector<std::string>
TypeNames()
{
    std::vector<std::string> names;
    for (uint8_t t = 0; t <= static_cast<uint8_t>(talb::graph::CollType::kBarrier); ++t)
    {
        names.emplace_back(talb::graph::CollTypeName(static_cast<talb::graph::CollType>(t)));
    }
    names.emplace_back("send_recv");
    return names;
}

} // namespace

double
TalbCollectiveSummary::Stats::GetMeanUs() const
{
    return count ? completionNs / double(count) * 1e-3 : 0;
}

double
TalbCollectiveSummary::Stats::GetMeanIdealUs() const
{
    return count ? idealNs / double(count) * 1e-3 : 0;
}

double
TalbCollectiveSummary::Stats::GetXIdeal() const
{
    return idealNs > 0 ? completionNs / idealNs : 0;
}

void
TalbCollectiveSummary::SetWarmup(uint32_t warmup)
{
    m_warmup = warmup;
}

void
TalbCollectiveSummary::Add(const TalbCollectiveRecord& record)
{
    if (record.iteration < m_warmup)
    {
        return;
    }
    Stats& s = m_stats[{record.job, record.type}];
    ++s.count;
    s.completionNs += double((record.end - record.start).GetNanoSeconds());
    s.idealNs += double(record.ideal.GetNanoSeconds());
}

bool
TalbCollectiveSummary::IsEmpty() const
{
    return m_stats.empty();
}

const std::map<std::pair<uint32_t, std::string>, TalbCollectiveSummary::Stats>&
TalbCollectiveSummary::Get() const
{
    return m_stats;
}

void
TalbCollectiveSummary::Gather(const std::function<void(std::vector<double>*)>& gather)
{
    const std::vector<std::string> names = TypeNames();
    std::vector<double> numbers; // (job, type index, count, completion, ideal) per entry
    for (const auto& [key, s] : m_stats)
    {
        auto it = std::find(names.begin(), names.end(), key.second);
        NS_ABORT_MSG_IF(it == names.end(), "TalbCollectiveSummary: unknown type " << key.second);
        numbers.insert(numbers.end(),
                       {double(key.first),
                        double(it - names.begin()),
                        double(s.count),
                        s.completionNs,
                        s.idealNs});
    }
    gather(&numbers);
    m_stats.clear();
    for (std::size_t i = 0; i + 4 < numbers.size(); i += 5)
    {
        Stats& s = m_stats[{uint32_t(numbers[i]), names.at(std::size_t(numbers[i + 1]))}];
        s.count += uint64_t(numbers[i + 2]);
        s.completionNs += numbers[i + 3];
        s.idealNs += numbers[i + 4];
    }
}

void
TalbCollectiveSummary::Print(std::ostream& os,
                             const std::vector<std::string>& schemes,
                             const std::vector<const TalbCollectiveSummary*>& summaries)
{
    std::set<uint32_t> jobs;
    std::size_t width = 6; // "scheme"
    for (std::size_t k = 0; k < summaries.size(); ++k)
    {
        for (const auto& entry : summaries[k]->m_stats)
        {
            jobs.insert(entry.first.first);
        }
        width = std::max(width, schemes[k].size());
    }
    for (uint32_t job : jobs)
    {
        os << "collectives of job " << job << " (iterations from the warm-up on):\n"
           << "  " << std::left << std::setw(width + 2) << "scheme" << std::setw(16) << "type"
           << std::right << std::setw(8) << "count" << std::setw(14) << "mean (us)" << std::setw(14)
           << "ideal (us)" << std::setw(10) << "x ideal"
           << "\n";
        for (std::size_t k = 0; k < summaries.size(); ++k)
        {
            for (const auto& [key, s] : summaries[k]->m_stats)
            {
                if (key.first != job)
                {
                    continue;
                }
                os << "  " << std::left << std::setw(width + 2) << schemes[k] << std::setw(16)
                   << key.second << std::right << std::setw(8) << s.count << std::fixed
                   << std::setprecision(1) << std::setw(14) << s.GetMeanUs() << std::setw(14)
                   << s.GetMeanIdealUs() << std::setprecision(2) << std::setw(10);
                if (s.idealNs > 0)
                {
                    os << s.GetXIdeal();
                }
                else
                {
                    os << "-";
                }
                os << "\n";
            }
        }
    }
}

std::string
TalbCollectiveSummary::JobJson(uint32_t job) const
{
    std::ostringstream os;
    os << std::setprecision(15) << "[";
    bool first = true;
    for (const auto& [key, s] : m_stats)
    {
        if (key.first != job)
        {
            continue;
        }
        os << (first ? "" : ", ") << "{\"type\": \"" << key.second << "\", \"count\": " << s.count
           << ", \"mean_us\": " << s.GetMeanUs() << ", \"ideal_us\": " << s.GetMeanIdealUs()
           << ", \"x_ideal\": ";
        if (s.idealNs > 0)
        {
            os << s.GetXIdeal();
        }
        else
        {
            os << "null";
        }
        os << "}";
        first = false;
    }
    os << "]";
    return os.str();
}

} // namespace ns3
