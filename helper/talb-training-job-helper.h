#ifndef TALB_TRAINING_JOB_HELPER_H
#define TALB_TRAINING_JOB_HELPER_H

#include "ns3/application-container.h"
#include "ns3/attribute.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/talb-dnn-model.h"
#include "ns3/talb-training-job.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief Installs a data-parallel training job (TalbTrainingJob + one TalbDnnWorker per host).
 *
 * It stores recipes only: the model, and ObjectFactory recipes for the job (attributes JobId,
 * Iterations, BatchSize, Device, DeviceRate, Precision, BackwardFactor, BasePort), the
 * scheduler, the collective and the transport, each chosen by a short name of its family's
 * registry (TalbCommScheduler::GetRegistry() etc.) or a TypeId name. Install() builds the
 * objects; each call makes a new job. A name that is not a member of its family aborts with the
 * valid names (callers that take names from users check them with the registry first).
 */
class TalbTrainingJobHelper
{
  public:
    TalbTrainingJobHelper();

    /// A zoo model name, or a model file "PATH" / "PATH#MODEL" (TalbModelZoo::Resolve).
    void SetModel(const std::string& spec);
    void SetModel(const TalbDnnModel& model);
    /// Set an attribute of ns3::TalbTrainingJob.
    void SetJobAttribute(const std::string& name, const AttributeValue& value);
    /// Choose the scheduler by short name (or full TypeId name); resets its attributes.
    void SetScheduler(const std::string& name);
    void SetSchedulerAttribute(const std::string& name, const AttributeValue& value);
    /// Choose the collective by short name (or full TypeId name); resets its attributes.
    void SetCollective(const std::string& name);
    void SetCollectiveAttribute(const std::string& name, const AttributeValue& value);
    /// Choose the transport by short name (or full TypeId name); resets its attributes.
    void SetTransport(const std::string& name);
    void SetTransportAttribute(const std::string& name, const AttributeValue& value);
    /// Parameter-server hosts for the "ps" collective (default: colocated with the workers).
    void SetParameterServers(const NodeContainer& servers);
    /// When the workers start (default 0).
    void SetStartTime(Time start);

    /**
     * Create a job whose workers run on \p hosts (worker i on hosts.Get(i)); the hosts need
     * IPv4 + TCP and an address on interface 1.
     * \return the workers' applications (TalbDnnWorker), started at the start time
     */
    ApplicationContainer Install(const NodeContainer& hosts) const;

    /// \return the job of applications made by Install()
    static Ptr<TalbTrainingJob> GetJob(const ApplicationContainer& apps);

    /**
     * Place jobs on hosts. Hosts are in rack order (rack r holds hosts r*hostsPerRack ..).
     * "packed": each job takes the next free hosts, filling a rack before the next;
     * "spread": each job takes its hosts round-robin over the racks (one per rack in turn).
     * \return one host list per job, in \p jobSizes order; aborts when hosts run out
     */
    static std::vector<NodeContainer> Place(const NodeContainer& hosts,
                                            uint32_t hostsPerRack,
                                            const std::vector<uint32_t>& jobSizes,
                                            const std::string& placement);
    /// Place() on host indices: \return one list of host indices per job
    static std::vector<std::vector<uint32_t>> PlaceIndices(uint32_t nHosts,
                                                           uint32_t hostsPerRack,
                                                           const std::vector<uint32_t>& jobSizes,
                                                           const std::string& placement);

  private:
    TalbDnnModel m_model;
    ObjectFactory m_job;
    ObjectFactory m_scheduler;
    ObjectFactory m_collective;
    ObjectFactory m_transport;
    NodeContainer m_servers;
    Time m_start;
};

} // namespace ns3

#endif /* TALB_TRAINING_JOB_HELPER_H */
