#ifndef TALB_OUTPUT_WRITER_H
#define TALB_OUTPUT_WRITER_H

#include "ns3/application-container.h"
#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/talb-graph-job.h"
#include "ns3/talb-graph-records.h"
#include "ns3/talb-link-drop-record.h"
#include "ns3/talb-path-recorder.h"
#include "ns3/talb-training-job.h"
#include "ns3/talb-training-records.h"
#include "ns3/talb-wire.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief Writes the generator's three CSV files into an output folder, one row per record.
 * Rows reach the files in whole lines at least every FlushInterval of wall-clock time, when
 * the writer closes and when an error ends the process through std::terminate (NS_ABORT_MSG):
 * a run that is interrupted or stops on an error keeps what it measured, one killed outright
 * (SIGKILL, out of memory) all but its last FlushInterval.
 *
 * - flows.csv: src_ip,dst_ip,src_port,dst_port,size_bytes,start_ns,fct_ns,ideal_fct_ns,
 *   slowdown,job,iteration,tensor,priority,kind,scheme,seed
 * - tensors.csv: job,iteration,tensor,name,bytes,priority,ready_ns,done_ns,comm_ns,scheme,seed,
 *   wire_bytes
 * - iterations.csv: job,worker,iteration,start_ns,end_ns,compute_ns,exposed_comm_ns,scheme,seed
 * - link_drops.csv: time_ns,leaf,spine,direction,cause,src_ip,src_port,dst_ip,dst_port,job,
 *   tensor,priority,scheme,seed: each packet a leaf-spine link lost (failed or lossy links;
 *   only the header when none did)
 * - paths.csv (PathsCsv): node,port,next_hop,src_ip,src_port,dst_ip,dst_port,job,tensor,
 *   priority,start_ns,end_ns,packets,bytes,scheme,seed: each stay of a flow on a switch port
 *   (TalbPathRecorder), written when it ends
 *
 * - run.json (WriteRunJson): the run's identity, timings, counters and every parameter; the
 *   scenario writes it when the run starts (complete: false) and replaces it when it ends.
 *
 * Times are integer nanoseconds of simulated time. Column meanings: doc/talb-generator.rst.
 */
class TalbOutputWriter : public Object
{
  public:
    /// What run.json says about one run.
    /// Go-back-N counters summed over the hosts' RDMA queue pairs (zero with TCP).
    struct RdmaCounters
    {
        uint64_t retransmittedPackets{0}; //!< data packets sent again
        uint64_t retransmittedBytes{0};   //!< their payload bytes
        uint64_t naks{0};                 //!< NAKs (PSN sequence errors) received
        uint64_t timeouts{0};             //!< retransmission timeouts
        uint64_t outOfOrder{0};           //!< packets responders dropped as out of order
        uint64_t placed{0};               //!< ... kept out of order (selective repeat)
        uint64_t plbRepaths{0};           //!< PLB's repaths (new UDP source ports)
    };

    /// Retransmissions summed over the jobs' TCP senders (zero with RDMA).
    struct TcpCounters
    {
        uint64_t retransmittedSegments{0}; //!< data segments sent again (fast retransmit, RTO)
        uint64_t retransmittedBytes{0};    //!< their payload bytes
        uint64_t timeouts{0};              //!< RTO episodes (backed-off RTOs count once)
        uint64_t plbRepaths{0};            //!< PLB's repaths (new flow labels)
        uint64_t idleRestarts{0};          //!< windows restarted after idle (slowStartAfterIdle)
        uint64_t reorderingRaises{0};      //!< duplicate-ACK threshold raises (adaptiveReordering)
        uint64_t lossProbes{0};            //!< tail loss probes sent (rackTlp)
        uint64_t probeLosses{0};           //!< losses their ACKs revealed
        uint64_t rackLosses{0};            //!< first unacknowledged segments RACK found lost
    };

    /// Path selections and reroutes summed over the switches' load balancers.
    struct LbCounters
    {
        uint64_t selections{0}; //!< SelectPath() decisions
        uint64_t reroutes{0};   //!< a flow, flowlet, flowcell or tensor changed port
        /// The policy's own counters (TalbLoadBalancer::GetPolicyCounters()), in its order.
        std::vector<std::pair<std::string, uint64_t>> policy;
    };

    /// One traffic class of the switches' port queues (TalbPriorityQueue::ClassStats), summed
    /// over every switch port; peakBytes is the largest of one port.
    struct ClassCounters
    {
        uint64_t enqueuedPackets{0};
        uint64_t enqueuedBytes{0};
        uint64_t dequeuedPackets{0};
        uint64_t dequeuedBytes{0};
        uint64_t droppedPackets{0}; //!< refused (buffer, class cap) or pushed out
        uint64_t droppedBytes{0};
        uint64_t capDrops{0};  //!< ... of which by the best-effort cap
        uint64_t pushedOut{0}; //!< ... of which queued packets pushed out (PushOut)
        uint64_t markedPackets{0};
        uint64_t peakBytes{0};
        uint64_t otherBytesAtDrops{0}; //!< summed: the other class's bytes at each drop
    };

    /// PFC over every switch (rdma transport), read when the run ends.
    struct PfcCounters
    {
        bool installed{false};
        uint64_t pauseStarts{0};       //!< XOFF that started a pause
        uint64_t pausesSent{0};        //!< XOFF frames, refreshes included
        uint64_t resumes{0};           //!< XON
        uint64_t pausingAtEnd{0};      //!< (ingress port, priority) pairs still pausing
        uint64_t headroomDrops{0};     //!< lossless packets dropped past XOFF + headroom
        uint64_t chargedBytesAtEnd{0}; //!< ingress charges left, lossless priorities
        uint64_t queuedBytesAtEnd{0};  //!< bytes in switch egress queues, lossless priorities
        uint64_t maxChargeBytes{0};    //!< largest charge of one (ingress port, priority)
        bool withinHeadroom{true};     //!< every charge stayed within XOFF + headroom
    };

    /// The switches' shared buffers (sharedBuffer), read when the run ends.
    struct SharedBufferCounters
    {
        bool installed{false};
        uint64_t thresholdDrops{0}; //!< lossy packets refused by a dynamic threshold
        uint64_t fullDrops{0};      //!< ... because a pool was full
        uint64_t droppedBytes{0};   //!< their bytes
        uint64_t peakBytes{0};      //!< the fullest any switch's pool was
        uint64_t overCommitted{0};  //!< switches whose pool went past its size (PFC headroom)
    };

    /// What the switches counted.
    struct SwitchCounters
    {
        ClassCounters training;
        ClassCounters bestEffort;
        uint64_t deviceDrops{0}; //!< packets an egress device refused (TalbSwitch nDropDevice)
        /// ... by where the port sits (a leaf's towards a spine, a spine's towards a leaf, a
        /// leaf's towards a host) and by the packet's TaLB priority; the last: no label
        std::array<std::array<uint64_t, TALB_NUM_PRIORITIES + 1>, 3> hopDropsByPriority{};
        uint64_t linkLossDrops{0};   //!< packets lossy links (linkLoss) lost at random
        uint64_t failedLinkDrops{0}; //!< packets sent onto failed links (failLink, flapLink)
        PfcCounters pfc;
        SharedBufferCounters sharedBuffer;
    };

    struct RunInfo
    {
        std::string scheme;           //!< the scheme column: the load balancer, or stock-ecmp
        std::string lb;               //!< the load balancer's name as given
        uint64_t seed{1};             //!< ns-3 RngRun
        bool complete{false};         //!< every job finished its iterations
        double simSeconds{0};         //!< simulated time at the end
        double wallSeconds{0};        //!< the whole run: build, simulate, tear down
        double runWallSeconds{0};     //!< Simulator::Run() alone
        double runCpuSeconds{0};      //!< CPU time during Simulator::Run()
        uint64_t events{0};           //!< simulator events executed
        uint64_t packetHops{0};       //!< link transmissions started
        uint64_t deliveredPackets{0}; //!< packets received by host NICs
        RdmaCounters rdma;            //!< go-back-N counters
        TcpCounters tcp;              //!< TCP retransmissions
        LbCounters paths;             //!< path selections and reroutes
        SwitchCounters switches;      //!< per-class queue counters and PFC
        uint32_t ranks{1};            //!< processes of a distributed run (MPI)
        uint64_t remotePacketHops{0}; //!< distributed: link transmissions to another rank
        std::string parametersJson;   //!< every scenario parameter, a JSON object
        std::string lbProfile;        //!< what lbProfile set under lbAttributes, Name=Value;...
        std::string jobsJson;         //!< per-job figures, a JSON array (empty: left out)
        std::string slowdownJson;     //!< background slowdown by size, a JSON array (or empty)
    };

    /// Write \p info as \p folder/run.json, replacing it atomically (temporary file, rename).
    /// \return false, with \p error naming the file and why, when it cannot be written (e.g. the
    /// folder was removed while the run went on); the previous run.json, if any, stays
    static bool WriteRunJson(const std::string& folder, const RunInfo& info, std::string* error);

    /// The file name of the shared object whose malloc this process uses ("libc.so.6",
    /// "libtcmalloc_minimal.so.4"; cmake/talb-allocator.cmake chooses it), as run.json's
    /// "allocator" records it: CPU times compare only between runs of one allocator.
    static std::string AllocatorName();

    /**
     * Merge the CSVs of \p parts (folders written by Open(), e.g. one per rank of a
     * distributed run) into \p folder: one header, then every part's rows in order. The parts
     * are removed afterwards.
     */
    static void MergeFolders(const std::vector<std::string>& parts, const std::string& folder);

    static TypeId GetTypeId();
    TalbOutputWriter();
    ~TalbOutputWriter() override;

    /// Ideal FCT of a flow: what it would take alone on an idle fabric.
    typedef Callback<Time, const TalbFlowRecord&> IdealFctCallback;

    static const char* const FLOW_COLUMNS;
    /// The file FctTxt writes: the flows in HPCC's fct.txt format.
    static const char* const FCT_TXT;
    static const char* const TENSOR_COLUMNS;
    static const char* const ITERATION_COLUMNS;
    static const char* const COLLECTIVE_COLUMNS;
    static const char* const LINK_DROP_COLUMNS;
    static const char* const PATH_COLUMNS;

    /// Create \p folder (and parents) and the four files with their headers.
    void Open(const std::string& folder);
    /// The scheme column (the scenario's load-balancer name) and the seed column (RNG run).
    void SetScheme(const std::string& scheme);
    void SetSeed(uint64_t seed);
    /**
     * Ideal FCT = baseRtt + wire bytes x 8 / bottleneck, wire bytes = size + ceil(size / mss)
     * x headerBytes (per-packet IP/TCP/link overhead), as in HPCC's analysis.
     */
    void SetIdealFct(DataRate bottleneck, Time baseRtt, uint32_t mss, uint32_t headerBytes);
    /// Or any callback the scenario supplies (e.g. per-path rates).
    void SetIdealFctCallback(IdealFctCallback cb);

    /// Write every record of \p job.
    void ConnectJob(Ptr<TalbTrainingJob> job);
    /// Write every record of graph job \p job (flows, iterations, collectives).
    void ConnectGraphJob(Ptr<TalbGraphJob> job);
    /// Write every flow of TalbBackgroundTraffic applications.
    void ConnectBackground(const ApplicationContainer& apps);

    void WriteFlow(const TalbFlowRecord& r);
    void WriteTensor(const TalbTensorRecord& r);
    void WriteIteration(const TalbIterationRecord& r);
    void WriteCollective(const TalbCollectiveRecord& r);
    void WritePath(const TalbPathRecord& r);
    /// Write a link's lost packet (connect to TalbLeafSpineHelper's LinkDrop trace source).
    void WriteLinkDrop(const TalbLinkDropRecord& r);

    /// \return whether the PathsCsv attribute asks for paths.csv
    bool WritesPaths() const;
    /**
     * Write \p recorder's stays into paths.csv (PathsCsv); the writer finishes the recorder
     * (its open stays become rows) when it closes.
     */
    void ConnectPaths(Ptr<TalbPathRecorder> recorder);

    /// Write every pending row now.
    void FlushRows();

    uint64_t GetFlowRows() const;
    uint64_t GetTensorRows() const;
    uint64_t GetIterationRows() const;
    uint64_t GetCollectiveRows() const;

  protected:
    void DoDispose() override;

  private:
    /// One CSV file and the rows not yet written to it (whole lines only).
    struct CsvFile
    {
        std::FILE* file{nullptr};
        std::string pending;
    };

    Time IdealFromModel(const TalbFlowRecord& r) const;
    void Close();
    /// Write \p f's pending rows when FlushInterval has passed or the buffer is large.
    void RowAdded(CsvFile& f);
    void Flush(CsvFile& f);
    /// \return every file (those not open have no FILE)
    std::array<CsvFile*, 7> Files();

    CsvFile m_flows;
    CsvFile m_tensors;
    CsvFile m_iterations;
    CsvFile m_collectives;
    CsvFile m_linkDrops;
    CsvFile m_fctTxt;                     //!< HPCC's fct.txt (FctTxt): the flows again, no header
    bool m_writeFctTxt{false};            //!< FctTxt attribute
    CsvFile m_paths;                      //!< paths.csv (PathsCsv)
    bool m_writePaths{false};             //!< PathsCsv attribute
    Ptr<TalbPathRecorder> m_pathRecorder; //!< finished when the writer closes
    Time m_flushInterval;                 //!< wall-clock time between writes
    std::chrono::steady_clock::time_point m_nextFlush; //!< wall-clock time of the next write
    std::string m_scheme{"none"};
    uint64_t m_seed{1};
    IdealFctCallback m_ideal;
    DataRate m_bottleneck;
    Time m_baseRtt;
    uint32_t m_mss{1448};
    uint32_t m_headerBytes{54};
    uint64_t m_flowRows{0};
    uint64_t m_tensorRows{0};
    uint64_t m_iterationRows{0};
    uint64_t m_collectiveRows{0};
};

} // namespace ns3

#endif /* TALB_OUTPUT_WRITER_H */
