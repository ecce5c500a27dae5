// An N-to-1 incast over RDMA (RoCEv2 NICs, PFC, a rate control: DCQCN, TIMELY, HPCC or none) on a
// leaf-spine, to study how the rate control reacts: completion time against the line-rate
// bound, CNPs, how far the rates were cut, the round-trip times the senders measured, pause
// frames; optionally a trace of every rate change and CNP.
//
//   talb-rdma-incast                                  (16 x 1 MB into one host at 100 Gb/s)
//   talb-rdma-incast --dcqcn=paper --trace=/tmp/incast.csv
//   talb-rdma-incast --cc=timely --rate=10Gbps --bytes=10000000
//   talb-rdma-incast --cc=hpcc --measureRtt=true
//   talb-rdma-incast --ns3::TalbDcqcn::AdditiveIncrease=100Mbps
//   --ns3::TalbRdmaHelper::EcnKmax=400KB
//
// Every DCQCN (ns3::TalbDcqcn::*), TIMELY (ns3::TalbTimely::*), HPCC (ns3::TalbHpcc::*), NIC
// (ns3::TalbRdmaNic::*), PFC (ns3::TalbPfc::*) and ECN profile (ns3::TalbRdmaHelper::*)
// attribute can be set as --TypeId::Attribute=value.
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{

/// What the run saw, per queue pair and in total.
struct Observer
{
    std::ofstream trace;
    std::vector<Ptr<TalbRdmaRateControl>> controls; //!< per queue pair: bound by index, since a
                                                    //!< Ptr bound into its own trace is a cycle
    std::vector<double> minRateBps;
    std::vector<uint64_t> cnps;
    std::vector<double> rttUs; //!< every RTT sample of every sender
    uint32_t done{0};
    Time lastDone;

    void Rate(uint32_t qp, DataRate, DataRate rate)
    {
        minRateBps[qp] = std::min(minRateBps[qp], double(rate.GetBitRate()));
        Write(qp, "rate", rate); // the traced value changes after its callbacks
    }

    void Rtt(Time rtt)
    {
        rttUs.push_back(rtt.GetSeconds() * 1e6);
    }

    void Cnp(uint32_t qp)
    {
        ++cnps[qp];
        Write(qp, "cnp", controls[qp]->GetRate());
    }

    void Write(uint32_t qp, const char* event, DataRate rate)
    {
        if (!trace.is_open())
        {
            return;
        }
        Ptr<TalbDcqcn> dcqcn = DynamicCast<TalbDcqcn>(controls[qp]);
        trace << Simulator::Now().GetNanoSeconds() << "," << qp << "," << event << ","
              << rate.GetBitRate() / 1e9 << ","
              << (dcqcn ? dcqcn->GetTargetRate().GetBitRate() / 1e9 : 0) << ","
              << (dcqcn ? dcqcn->GetAlpha() : 0) << "\n";
    }

    void Received(Ptr<TalbRdmaQueuePair>, uint64_t, uint64_t)
    {
        ++done;
        lastDone = Simulator::Now();
    }
};

void
OnCnp(Observer* o, uint32_t qp, Ptr<const TalbRdmaQueuePair>)
{
    o->Cnp(qp);
}

/// The example's options.
struct Options
{
    uint32_t senders = 16;
    uint64_t bytes = 1000000;
    std::string rate = "100Gbps";
    bool pfc = true;
    std::string dcqcn = "default";
    std::string cc = "dcqcn";
    bool measureRtt = false;
    std::string tracePath;
};

/// The incast fabric: 4 leaves x 5 hosts x 2 spines at one rate, RDMA hosts.
Ptr<TalbLeafSpineHelper>
BuildFabric(const Options& o)
{
    Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
    f->SetAttribute("Transport", StringValue("rdma"));
    f->SetAttribute("Leaves", UintegerValue(4));
    f->SetAttribute("HostsPerLeaf", UintegerValue(5));
    f->SetAttribute("HostRate", StringValue(o.rate));
    f->SetAttribute("FabricRate", StringValue(o.rate));
    f->GetRdmaHelper()->SetAttribute("Pfc", BooleanValue(o.pfc));
    f->GetRdmaHelper()->SetRateControl(TalbRdmaRateControl::GetRegistry().Get(o.cc).GetName());
    f->GetRdmaHelper()->SetNicAttribute("MeasureRtt", BooleanValue(o.measureRtt));
    if (o.dcqcn == "paper")
    {
        // The paper's absolute values at any rate (the defaults scale them from 40 Gb/s).
        f->GetRdmaHelper()->SetAttribute("EcnReferenceRate", DataRateValue(DataRate(0)));
        f->GetRdmaHelper()->SetRateControlAttribute("ReferenceRate", DataRateValue(DataRate(0)));
    }
    f->Install();
    f->AssignStreams(1);
    return f;
}

/// Hosts 1..senders each post one message to host 0, traced into \p obs.
/// \return the senders' queue pairs
std::vector<Ptr<TalbRdmaQueuePair>>
StartSenders(const Options& o, Ptr<TalbLeafSpineHelper> f, Observer* obs)
{
    std::vector<Ptr<TalbRdmaQueuePair>> requesters;
    obs->minRateBps.assign(o.senders, 1e18);
    obs->cnps.assign(o.senders, 0);
    for (uint32_t s = 0; s < o.senders; ++s)
    {
        auto qp = TalbRdmaNic::Connect(f->GetRdmaNic(s + 1), f->GetRdmaNic(0));
        obs->controls.push_back(qp.first->GetRateControl());
        obs->controls.back()->TraceConnectWithoutContext(
            "Rate",
            MakeCallback(&Observer::Rate, obs).Bind(s));
        obs->controls.back()->TraceConnectWithoutContext("Rtt", MakeCallback(&Observer::Rtt, obs));
        qp.second->SetReceiveCallback(MakeCallback(&Observer::Received, obs));
        qp.first->PostSend(o.bytes);
        requesters.push_back(qp.first);
    }
    for (uint32_t s = 0; s < o.senders; ++s)
    {
        f->GetRdmaNic(s + 1)->TraceConnectWithoutContext("CnpReceived",
                                                         MakeBoundCallback(&OnCnp, obs, s));
    }
    return requesters;
}

/// Prints the completion time against the line-rate bound, CNPs, rates, marks and pauses.
void
PrintReport(const Options& o, Ptr<TalbLeafSpineHelper> f, const Observer& obs)
{
    uint64_t pauses = 0;
    uint64_t marked = 0;
    for (uint32_t l = 0; l < 4; ++l)
    {
        Ptr<TalbSwitch> sw = f->GetLeafSwitch(l);
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            auto dev = DynamicCast<TalbPfcNetDevice>(sw->GetPort(p).device);
            pauses += dev->GetStats().pauseFramesTx;
            marked += dev->GetQueue()->GetMarkedCount();
        }
    }
    uint32_t mtu = f->GetRdmaNic(0)->GetMtu();
    uint64_t packets = (o.bytes + mtu - 1) / mtu;
    uint64_t wire =
        o.senders *
        (o.bytes + packets * (TalbRoceHeader::BASE_BYTES + TalbRoceHeader::TRAILER_BYTES +
                              TalbPfcNetDevice::ETHERNET_HEADER_BYTES + 24));
    double bound = DataRate(o.rate).CalculateBytesTxTime(wire).GetSeconds() * 1e3;
    uint64_t cnps = 0;
    double lowest = 1e18;
    double meanLowest = 0;
    for (uint32_t s = 0; s < o.senders; ++s)
    {
        cnps += obs.cnps[s];
        lowest = std::min(lowest, obs.minRateBps[s]);
        meanLowest +=
            std::min(obs.minRateBps[s], double(DataRate(o.rate).GetBitRate())) / o.senders;
    }
    double doneMs = obs.lastDone.GetSeconds() * 1e3;
    std::vector<double> rtt = obs.rttUs;
    std::sort(rtt.begin(), rtt.end());
    auto quantile = [&rtt](double q) {
        return rtt.empty() ? 0.0 : rtt[static_cast<size_t>(q * double(rtt.size() - 1))];
    };
    std::cout << std::fixed << std::setprecision(3) << "senders " << o.senders << " x " << o.bytes
              << " B at " << o.rate << ", cc " << o.cc
              << (o.cc == "dcqcn" ? " (" + o.dcqcn + ")" : "") << ", pfc " << (o.pfc ? "on" : "off")
              << "\n"
              << "messages done      " << obs.done << " of " << o.senders << "\n"
              << "completion (ms)    " << doneMs << "\n"
              << "line-rate bound    " << bound << "\n"
              << "ratio              " << doneMs / bound << "\n"
              << "CNPs received      " << cnps << " (" << double(cnps) / o.senders
              << " per queue pair)\n"
              << "lowest rate (Gb/s) " << (lowest > 1e17 ? 0 : lowest / 1e9) << " (mean of "
              << "the queue pairs' lowest: " << meanLowest / 1e9 << ")\n"
              << "RTT samples        " << rtt.size() << (rtt.empty() ? " (--measureRtt)" : "")
              << ": median " << quantile(0.5) << " us, p99 " << quantile(0.99) << " us, max "
              << quantile(1.0) << " us\n"
              << "CE-marked packets  " << marked << "\n"
              << "pause frames (leaves) " << pauses << "\n";
}

} // namespace

int
main(int argc, char* argv[])
{
    Options o;
    CommandLine cmd(__FILE__);
    cmd.Usage("N-to-1 incast over RDMA (PFC, a rate control) on 4 leaves x 5 hosts x 2 spines: "
              "prints the completion time against the line-rate bound, CNPs, the lowest rates "
              "the rate control set, the RTTs the senders measured, pause frames. Any "
              "attribute: --ns3::TalbDcqcn::Gain=0.0625, --ns3::TalbTimely::TLow=10us, "
              "--ns3::TalbHpcc::TargetUtilization=0.99 etc.");
    cmd.AddValue("senders", "senders (1-19), hosts 1.. sending to host 0", o.senders);
    cmd.AddValue("bytes", "bytes each sender sends (one message)", o.bytes);
    cmd.AddValue("rate", "host and fabric link rate", o.rate);
    cmd.AddValue("pfc", "PFC on the switches (lossless)", o.pfc);
    cmd.AddValue("cc",
                 "rate control: " + TalbRdmaRateControl::GetRegistry().GetNames() +
                     " (none: line rate, PFC alone)",
                 o.cc);
    cmd.AddValue("measureRtt",
                 "time one packet per round trip with any rate control (an immediate ACK each: "
                 "RTT samples to compare); TIMELY always does",
                 o.measureRtt);
    cmd.AddValue("dcqcn",
                 "DCQCN parameters: default (the attributes' defaults: the paper's, with ECN "
                 "thresholds and increase steps scaled from 40 Gb/s to the link rate) or paper "
                 "(the paper's absolute values, EcnReferenceRate and ReferenceRate 0)",
                 o.dcqcn);
    cmd.AddValue("trace", "CSV of every rate change and CNP (time_ns,qp,event,...)", o.tracePath);
    for (const auto& e : TalbAttributeList::CheckCommandLine(argc, argv))
    {
        std::cerr << "talb-rdma-incast: error: " << e << "\n";
        return 2;
    }
    cmd.Parse(argc, argv);
    if (o.senders < 1 || o.senders > 19 || o.bytes == 0 ||
        (o.dcqcn != "default" && o.dcqcn != "paper"))
    {
        std::cerr << "talb-rdma-incast: error: --senders must be 1-19, --bytes above 0, "
                     "--dcqcn default or paper\n";
        return 2;
    }
    std::string error;
    if (TypeId tid; !TalbRdmaRateControl::GetRegistry().Lookup(o.cc, &tid, &error))
    {
        std::cerr << "talb-rdma-incast: error: --cc: " << error << "\n";
        return 2;
    }
    Observer obs;
    if (!o.tracePath.empty())
    {
        obs.trace.open(o.tracePath);
        if (!obs.trace)
        {
            std::cerr << "talb-rdma-incast: error: cannot write --trace=" << o.tracePath << "\n";
            return 2;
        }
        obs.trace << "time_ns,qp,event,rate_gbps,target_gbps,alpha\n";
    }
    Ptr<TalbLeafSpineHelper> f = BuildFabric(o);
    std::vector<Ptr<TalbRdmaQueuePair>> requesters = StartSenders(o, f, &obs);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    PrintReport(o, f, obs);
    Simulator::Destroy();
    return obs.done == o.senders ? 0 : 1;
}
