#include "talb-job-spec.h"

#include "ns3/object-factory.h"
#include "ns3/string.h"
#include "ns3/talb-collective.h"
#include "ns3/talb-comm-scheduler.h"
#include "ns3/talb-llm-model.h"
#include "ns3/talb-model-zoo.h"
#include "ns3/talb-parse.h"
#include "ns3/talb-transport.h"
#include "ns3/talb-wire.h"
#include "ns3/uinteger.h"

namespace ns3
{

std::string
TalbJobSpec::SetKey(const std::string& key, const std::string& value)
{
    uint64_t n = 0;
    bool ok = true;
    if (TalbGraphJobSpec::IsKey(key))
    {
        return graph.SetKey(key, value);
    }
    if (key == "model")
    {
        modelName = value;
    }
    else if (key == "workers")
    {
        ok = TalbParse::ParseUint(value, &n, 2, TALB_TENSOR_INDEX_MASK);
        workers = n;
        workersSet = true;
    }
    else if (key == "scheduler")
    {
        scheduler = value;
    }
    else if (key == "collective")
    {
        collective = value;
    }
    else if (key == "transport")
    {
        transport = value;
    }
    else if (key == "iterations" || key == "batch")
    {
        ok = TalbParse::ParseUint(value, &n, 1, 1000000);
        (key == "batch" ? batch : iterations) = n;
    }
    else if (key == "device")
    {
        device = value;
        deviceSet = true;
    }
    else if (key == "precision")
    {
        precision = value;
        precisionSet = true;
        // fp32 and fp16 for data-parallel jobs, bf16 and fp8 for LLM jobs (Check()).
        ok = value == "fp32" || value == "fp16" || value == "bf16" || value == "fp8";
    }
    else if (key == "start")
    {
        ok = TalbParse::ParseTime(value, &start);
    }
    else if (key.rfind("sched.", 0) == 0 && key.size() > 6)
    {
        schedulerAttributes.emplace_back(key.substr(6), value);
    }
    else if (key.rfind("coll.", 0) == 0 && key.size() > 5)
    {
        collectiveAttributes.emplace_back(key.substr(5), value);
    }
    else if (key.rfind("trans.", 0) == 0 && key.size() > 6)
    {
        transportAttributes.emplace_back(key.substr(6), value);
    }
    else
    {
        return "unknown key '" + key +
               "' (model, workers, scheduler, collective, transport, iterations, batch, "
               "device, precision, start, sched.<Attribute>, coll.<Attribute>, "
               "trans.<Attribute>; LLM and benchmark jobs: " +
               [] {
                   std::string names;
                   for (const auto& k : TalbParse::Split(TalbGraphJobSpec::KeysHelp(), ';'))
                   {
                       names += (names.empty() ? "" : ", ") + k.substr(0, k.find(':'));
                   }
                   return names;
               }() +
               ")";
    }
    return ok ? "" : "bad value " + key + "=" + value;
}

std::string
TalbJobSpec::ParseList(const std::string& text,
                       const TalbJobSpec& defaults,
                       std::vector<TalbJobSpec>* jobs)
{
    jobs->clear();
    for (const auto& jobText : TalbParse::Split(text, ';'))
    {
        TalbJobSpec job = defaults;
        std::string where = "job " + std::to_string(jobs->size() + 1);
        for (const auto& kv : TalbParse::Split(jobText, ','))
        {
            size_t eq = kv.find('=');
            if (eq == std::string::npos)
            {
                return where + ": expected key=value, got '" + kv + "'";
            }
            std::string error =
                job.SetKey(TalbParse::Trim(kv.substr(0, eq)), TalbParse::Trim(kv.substr(eq + 1)));
            if (!error.empty())
            {
                return where + ": " + error;
            }
        }
        jobs->push_back(job);
    }
    return "";
}

bool
TalbJobSpec::IsGraphJob() const
{
    return graph.kind != TalbGraphJobSpec::NONE;
}

bool
TalbJobSpec::IsLlmJob() const
{
    return graph.kind == TalbGraphJobSpec::LLM || graph.kind == TalbGraphJobSpec::WORKLOAD ||
           graph.kind == TalbGraphJobSpec::TRACE;
}

void
TalbJobSpec::Check(const std::string& where, std::vector<std::string>* errors)
{
    std::string error;
    graph.Check(where,
                modelName,
                deviceSet ? device : "",
                precisionSet ? precision : "",
                iterations,
                workersSet ? workers : 0,
                workers,
                errors);
    if (IsGraphJob())
    {
        workers = graph.GetRanks();
        TalbAttributeList::CheckPlugin(TalbTransport::GetRegistry(),
                                       transport,
                                       transportAttributes,
                                       where,
                                       errors);
        return;
    }
    if (!TalbModelZoo::TryResolve(modelName, &model, &error))
    {
        errors->push_back(where + error + " (LLM jobs: a preset of " + [] {
            std::string names;
            for (const auto& n : talb::graph::LlmModelPresetNames())
            {
                names += (names.empty() ? "" : ", ") + n;
            }
            return names;
        }() + ")");
    }
    if (precision != "fp32" && precision != "fp16")
    {
        errors->push_back(where + "bad value precision=" + precision +
                          ": fp32 or fp16 for data-parallel jobs (bf16, fp8: LLM jobs)");
    }
    size_t before = errors->size();
    TalbAttributeList::CheckPlugin(TalbCommScheduler::GetRegistry(),
                                   scheduler,
                                   schedulerAttributes,
                                   where,
                                   errors);
    // Attribute combinations the scheduler refuses (Credit below PartitionSize, ...), once each
    // value is valid on its own.
    TypeId schedulerTid;
    if (before == errors->size() &&
        TalbCommScheduler::GetRegistry().Lookup(scheduler, &schedulerTid, &error))
    {
        ObjectFactory factory(schedulerTid.GetName());
        for (const auto& kv : schedulerAttributes)
        {
            factory.Set(kv.first, StringValue(kv.second));
        }
        if (!factory.Create<TalbCommScheduler>()->CheckAttributes(&error))
        {
            errors->push_back(where + error);
        }
    }
    TalbAttributeList::CheckPlugin(TalbCollective::GetRegistry(),
                                   collective,
                                   collectiveAttributes,
                                   where,
                                   errors);
    TalbAttributeList::CheckPlugin(TalbTransport::GetRegistry(),
                                   transport,
                                   transportAttributes,
                                   where,
                                   errors);
    if (!TalbComputeModel::HasPreset(device))
    {
        errors->push_back(where + "unknown device '" + device +
                          "' (valid: " + TalbComputeModel::PresetNames() + ")");
    }
}

TalbTrainingJobHelper
TalbJobSpec::MakeHelper(uint32_t jobId) const
{
    TalbTrainingJobHelper helper;
    helper.SetModel(model);
    helper.SetJobAttribute("JobId", UintegerValue(jobId));
    helper.SetJobAttribute("Iterations", UintegerValue(iterations));
    helper.SetJobAttribute("BatchSize", UintegerValue(batch));
    helper.SetJobAttribute("Device", StringValue(device));
    helper.SetJobAttribute("Precision", StringValue(precision));
    helper.SetScheduler(scheduler);
    for (const auto& kv : schedulerAttributes)
    {
        helper.SetSchedulerAttribute(kv.first, StringValue(kv.second));
    }
    helper.SetCollective(collective);
    for (const auto& kv : collectiveAttributes)
    {
        helper.SetCollectiveAttribute(kv.first, StringValue(kv.second));
    }
    helper.SetTransport(transport);
    for (const auto& kv : transportAttributes)
    {
        helper.SetTransportAttribute(kv.first, StringValue(kv.second));
    }
    helper.SetStartTime(start);
    return helper;
}

TalbGraphJobHelper
TalbJobSpec::MakeGraphHelper(uint32_t jobId) const
{
    TalbGraphJobHelper helper;
    helper.SetGraph(graph.graph);
    helper.SetJobAttribute("JobId", UintegerValue(jobId));
    helper.SetTransport(transport);
    for (const auto& kv : transportAttributes)
    {
        helper.SetTransportAttribute(kv.first, StringValue(kv.second));
    }
    helper.SetStartTime(start);
    return helper;
}

} // namespace ns3
