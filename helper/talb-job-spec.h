#ifndef TALB_JOB_SPEC_H
#define TALB_JOB_SPEC_H

#include "talb-graph-job-helper.h"
#include "talb-graph-job-spec.h"

#include "ns3/nstime.h"
#include "ns3/talb-attribute-list.h"
#include "ns3/talb-dnn-model.h"
#include "ns3/talb-training-job-helper.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief One training job of the runner's "jobs" parameter, every default filled in.
 *
 * The text form: jobs separated by ';', each a ','-separated list of key=value (model, workers,
 * scheduler, collective, transport, iterations, batch, device, precision, start,
 * sched.<Attribute>, coll.<Attribute>, trans.<Attribute>), and the keys of graph jobs (an LLM
 * job or a collective benchmark: TalbGraphJobSpec), which share model, workers, transport,
 * iterations, device, precision, start and trans.<Attribute>.
 */
struct TalbJobSpec
{
    std::string modelName; //!< as written: a zoo name or PATH[#MODEL]
    TalbDnnModel model;    //!< the model, loaded by Check()
    uint32_t workers{8};
    std::string scheduler;  //!< a name of TalbCommScheduler::GetRegistry()
    std::string collective; //!< a name of TalbCollective::GetRegistry()
    std::string transport;  //!< a name of TalbTransport::GetRegistry()
    uint32_t iterations{0};
    uint32_t batch{0};
    std::string device;    //!< a TalbComputeModel preset
    std::string precision; //!< fp32 or fp16
    Time start;
    TalbAttributeList::Pairs schedulerAttributes;  //!< sched.X=v
    TalbAttributeList::Pairs collectiveAttributes; //!< coll.X=v
    TalbAttributeList::Pairs transportAttributes;  //!< trans.X=v
    TalbGraphJobSpec graph;   //!< an LLM job or a benchmark (graph.kind), decided by Check()
    bool workersSet{false};   //!< the job set workers
    bool deviceSet{false};    //!< the job set device
    bool precisionSet{false}; //!< the job set precision

    /// \return whether Check() found a graph job (LLM or benchmark)
    bool IsGraphJob() const;

    /// \return whether Check() found an LLM job: the generator's, a workload file's or a
    /// Chakra trace's (not a collective benchmark)
    bool IsLlmJob() const;

    /**
     * Parses the "jobs" text into \p jobs. Keys left out keep the values \p defaults has; names
     * and attributes are checked by Check().
     * \return an error message, or empty
     */
    static std::string ParseList(const std::string& text,
                                 const TalbJobSpec& defaults,
                                 std::vector<TalbJobSpec>* jobs);

    /**
     * Loads the model and checks the plug-in names, their attributes (also in combination, as
     * the scheduler does) and the device preset; for a graph job builds its graph
     * (TalbGraphJobSpec::Check()) and sets workers to its ranks. Each problem is one message in
     * \p errors, prefixed with \p where.
     */
    void Check(const std::string& where, std::vector<std::string>* errors);

    /// \return the helper that installs this job as job \p jobId
    TalbTrainingJobHelper MakeHelper(uint32_t jobId) const;
    /// \return the helper that installs this graph job as job \p jobId
    TalbGraphJobHelper MakeGraphHelper(uint32_t jobId) const;

  private:
    /// Sets one key=value. \return an error ("bad value ..."), or empty
    std::string SetKey(const std::string& key, const std::string& value);
};

} // namespace ns3

#endif /* TALB_JOB_SPEC_H */
