/*
 * Fuzz target: talb-scenario's configuration -- a --config file of "name = value" lines
 * (TalbScenarioConfig::LoadFile, every parameter's declaration and check) and the structured
 * values TalbScenarioSpec::Parse() reads from it: --jobs specs with plug-in attributes, linkRates,
 * failLink, lbAttributes, model and CDF names.
 *
 * The code under test is most of the module (the registries, TypeIds and attribute checkers
 * the scenario's validation consults), so this target is built with the project's compiler
 * and fed random mutations (fuzz-mutate:scenario-config), not linked with libFuzzer.
 *
 * Inputs whose text holds a '/' are skipped: a value is a file name for some parameters (model,
 * bgCdf), and the target must not read files outside its own empty working folder.
 *
 * Invariants:
 *  - nothing aborts: a bad line gives "PATH:LINE: ..." with LINE within the file; a bad
 *    combination of valid values gives errors from Parse(), each naming a parameter;
 *  - run.json's parameter object (ToJson) is valid JSON, numbers included;
 *  - in a scenario Parse() accepts, the jobs, link rates and failures
 *    written back as text parse again to the same values; every link rate is positive.
 */
#include "talb-fuzz.h"

#include "ns3/talb-leaf-spine-helper.h"
#include "ns3/talb-scenario-config.h"
#include "ns3/talb-scenario-parameters.h"
#include "ns3/talb-scenario-spec.h"

#include <cctype>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

namespace
{

/// A minimal RFC 8259 check of ToJson()'s output: an object of strings, numbers and booleans.
class Json
{
  public:
    explicit Json(const std::string& text)
        : m_text(text)
    {
    }

    /// \return true when the text is one such object; its keys go to \p keys
    bool Object(std::set<std::string>* keys)
    {
        Blank();
        if (!Eat('{'))
        {
            return false;
        }
        Blank();
        if (Eat('}'))
        {
            return AtEnd();
        }
        do
        {
            std::string key;
            Blank();
            if (!String(&key))
            {
                return false;
            }
            keys->insert(key);
            Blank();
            if (!Eat(':'))
            {
                return false;
            }
            Blank();
            std::string ignored;
            if (!(String(&ignored) || Number() || Word("true") || Word("false")))
            {
                return false;
            }
            Blank();
        } while (Eat(','));
        return Eat('}') && AtEnd();
    }

  private:
    bool AtEnd()
    {
        Blank();
        return m_pos == m_text.size();
    }

    void Blank()
    {
        while (m_pos < m_text.size() && std::strchr(" \t\r\n", m_text[m_pos]) && m_text[m_pos])
        {
            ++m_pos;
        }
    }

    bool Eat(char c)
    {
        if (m_pos < m_text.size() && m_text[m_pos] == c)
        {
            ++m_pos;
            return true;
        }
        return false;
    }

    bool Word(const char* w)
    {
        size_t n = std::strlen(w);
        if (m_text.compare(m_pos, n, w) == 0)
        {
            m_pos += n;
            return true;
        }
        return false;
    }

    bool Digits()
    {
        size_t start = m_pos;
        while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos])))
        {
            ++m_pos;
        }
        return m_pos > start;
    }

    bool Number()
    {
        size_t start = m_pos;
        Eat('-');
        if (Eat('0'))
        {
            // no leading zeros
        }
        else if (!Digits())
        {
            m_pos = start;
            return false;
        }
        if (Eat('.') && !Digits())
        {
            return false;
        }
        if (Eat('e') || Eat('E'))
        {
            Eat('+') || Eat('-');
            if (!Digits())
            {
                return false;
            }
        }
        return true;
    }

    bool String(std::string* out)
    {
        if (!Eat('"'))
        {
            return false;
        }
        while (m_pos < m_text.size())
        {
            unsigned char c = m_text[m_pos++];
            if (c == '"')
            {
                return true;
            }
            if (c < 0x20)
            {
                return false;
            }
            if (c == '\\')
            {
                if (m_pos >= m_text.size())
                {
                    return false;
                }
                char e = m_text[m_pos++];
                if (e == 'u')
                {
                    for (int i = 0; i < 4; ++i)
                    {
                        if (m_pos >= m_text.size() ||
                            !std::isxdigit(static_cast<unsigned char>(m_text[m_pos++])))
                        {
                            return false;
                        }
                    }
                }
                else if (!std::strchr("\"\\/bfnrt", e) || e == 0)
                {
                    return false;
                }
            }
            out->push_back(static_cast<char>(c));
        }
        return false;
    }

    const std::string& m_text;
    size_t m_pos = 0;
};

std::string
Attributes(const char* prefix, const std::vector<std::pair<std::string, std::string>>& list)
{
    std::string text;
    for (const auto& kv : list)
    {
        text += std::string(",") + prefix + kv.first + "=" + kv.second;
    }
    return text;
}

/// \p job as --jobs text that sets every field.
std::string
JobText(const ns3::TalbJobSpec& job)
{
    return "model=" + job.modelName + ",workers=" + std::to_string(job.workers) +
           ",scheduler=" + job.scheduler + ",collective=" + job.collective +
           ",transport=" + job.transport + ",iterations=" + std::to_string(job.iterations) +
           ",batch=" + std::to_string(job.batch) + ",device=" + job.device +
           ",precision=" + job.precision + ",start=" + std::to_string(job.start.GetNanoSeconds()) +
           "ns" + Attributes("sched.", job.schedulerAttributes) +
           Attributes("coll.", job.collectiveAttributes) +
           Attributes("trans.", job.transportAttributes);
}

bool
SameJob(const ns3::TalbJobSpec& a, const ns3::TalbJobSpec& b)
{
    return a.modelName == b.modelName && a.workers == b.workers && a.scheduler == b.scheduler &&
           a.collective == b.collective && a.transport == b.transport &&
           a.iterations == b.iterations && a.batch == b.batch && a.device == b.device &&
           a.precision == b.precision && a.start == b.start &&
           a.schedulerAttributes == b.schedulerAttributes &&
           a.collectiveAttributes == b.collectiveAttributes &&
           a.transportAttributes == b.transportAttributes;
}

/// Run in an empty folder of its own, with the shipped CDFs findable by name.
void
Sandbox()
{
    static bool done = false;
    if (done)
    {
        return;
    }
    done = true;
    setenv("TALB_DATA_DIR", TALB_FUZZ_DATA_DIR, 1);
    std::string dir = talb::fuzz::TempDir() + "/talb-fuzz-cwd-XXXXXX";
    std::vector<char> name(dir.begin(), dir.end());
    name.push_back('\0');
    TALB_FUZZ_CHECK(mkdtemp(name.data()) != nullptr);
    TALB_FUZZ_CHECK(chdir(name.data()) == 0);
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    Sandbox();
    static talb::fuzz::TempFile file(".cfg");
    std::string text(reinterpret_cast<const char*>(data), size);
    if (text.find('/') != std::string::npos)
    {
        return 0;
    }
    file.Write(data, size);

    ns3::TalbScenarioConfig config;
    ns3::TalbScenarioParameters::Declare(config);
    std::string error = config.LoadFile(file.Path());
    if (!error.empty())
    {
        talb::fuzz::CheckErrorAt(error, file.Path(), text);
        return 0;
    }
    std::set<std::string> names;
    TALB_FUZZ_CHECK(Json(config.ToJson()).Object(&names));
    TALB_FUZZ_CHECK(names.count("jobs") && names.count("lb"));

    ns3::TalbScenarioSpec spec;
    std::vector<std::string> errors;
    if (!spec.Parse(config, &errors))
    {
        TALB_FUZZ_CHECK(!errors.empty());
        for (const auto& e : errors)
        {
            bool named = false;
            for (const auto& n : names)
            {
                named = named || e.find(n) != std::string::npos;
            }
            if (!named)
            {
                std::fprintf(stderr, "error names no parameter: %s\n", e.c_str());
            }
            TALB_FUZZ_CHECK(named);
        }
        return 0;
    }
    TALB_FUZZ_CHECK(errors.empty());

    std::string jobsText;
    for (const auto& job : spec.jobs)
    {
        jobsText += (jobsText.empty() ? "" : ";") + JobText(job);
        TALB_FUZZ_CHECK(job.model.GetNTensors() > 0 && job.workers >= 2);
    }
    std::vector<ns3::TalbJobSpec> jobs;
    error = ns3::TalbJobSpec::ParseList(jobsText, ns3::TalbJobSpec(), &jobs);
    if (!error.empty())
    {
        std::fprintf(stderr,
                     "jobs text '%s' does not parse again: %s\n",
                     jobsText.c_str(),
                     error.c_str());
    }
    TALB_FUZZ_CHECK(error.empty() && jobs.size() == spec.jobs.size());
    for (size_t j = 0; j < jobs.size(); ++j)
    {
        TALB_FUZZ_CHECK(SameJob(jobs[j], spec.jobs[j]));
    }

    std::string rates;
    for (const auto& r : spec.fabric.linkRates)
    {
        TALB_FUZZ_CHECK(r.rate.GetBitRate() > 0);
        rates += std::to_string(r.leaf) + ":" + std::to_string(r.spine) + "=" +
                 std::to_string(r.rate.GetBitRate()) + "bps;";
    }
    std::vector<ns3::TalbLeafSpineHelper::LinkRate> rateCopy;
    TALB_FUZZ_CHECK(ns3::TalbLeafSpineHelper::ParseLinkRates(rates, &rateCopy).empty());
    TALB_FUZZ_CHECK(rateCopy.size() == spec.fabric.linkRates.size());
    for (size_t i = 0; i < rateCopy.size(); ++i)
    {
        TALB_FUZZ_CHECK(rateCopy[i].leaf == spec.fabric.linkRates[i].leaf &&
                        rateCopy[i].spine == spec.fabric.linkRates[i].spine &&
                        rateCopy[i].rate == spec.fabric.linkRates[i].rate);
    }
    std::string failures;
    for (const auto& f : spec.fabric.linkFailures)
    {
        failures += std::to_string(f.leaf) + ":" + std::to_string(f.spine) + "@" +
                    std::to_string(f.at.GetNanoSeconds()) + "ns;";
    }
    std::vector<ns3::TalbLeafSpineHelper::LinkFailure> failureCopy;
    TALB_FUZZ_CHECK(ns3::TalbLeafSpineHelper::ParseLinkFailures(failures, &failureCopy).empty());
    TALB_FUZZ_CHECK(failureCopy.size() == spec.fabric.linkFailures.size());
    for (size_t i = 0; i < failureCopy.size(); ++i)
    {
        TALB_FUZZ_CHECK(failureCopy[i].leaf == spec.fabric.linkFailures[i].leaf &&
                        failureCopy[i].spine == spec.fabric.linkFailures[i].spine &&
                        failureCopy[i].at == spec.fabric.linkFailures[i].at);
    }
    return 0;
}
