/*
 * NCCL net plugin ABI version 11 (symbol ncclNetPlugin_v11) as released in NCCL v2.28.x
 * (src/include/plugin/net/net_v11.h): init takes a per-communicator context, commId and the
 * comm config; listen/connect take that context; finalize and setNetAttr end the table.
 * An unreleased branch carried a different "v11"; this is the released one. Text is talb's.
 */
#ifndef TALB_NCCL_NET_V11_H
#define TALB_NCCL_NET_V11_H

#include "common.h"

#define NCCL_NET_MAX_DEVS_PER_NIC_V11 4

typedef struct
{
    int ndevs;
    int devs[NCCL_NET_MAX_DEVS_PER_NIC_V11];
} ncclNetVDeviceProps_v11_t;

typedef struct
{
    int trafficClass; /* plugin-specific traffic class, -1 when unset */
} ncclNetCommConfig_v11_t;

typedef struct
{
    char* name;
    char* pciPath;
    uint64_t guid;
    int ptrSupport;
    int regIsGlobal;
    int forceFlush;
    int speed; /* Mbit/s */
    int port;
    float latency; /* microseconds */
    int maxComms;
    int maxRecvs;
    ncclNetDeviceType netDeviceType;
    int netDeviceVersion;
    ncclNetVDeviceProps_v11_t vProps;
    size_t maxP2pBytes;
    size_t maxCollBytes;
    int maxMultiRequestSize; /* new in v11 */
} ncclNetProperties_v11_t;

typedef struct
{
    int32_t maxConcurrentPeers;
    int32_t minConcurrentPeers;
    int32_t maxFlowsPerPeer;
    int32_t minFlowsPerPeer;
} ncclNetCommAttr_v11_t;

typedef struct
{
    ncclNetCommAttr_v11_t sendCommAttr;
    ncclNetCommAttr_v11_t recvCommAttr;
    uint32_t op;
    uint32_t algo;
    uint32_t proto;
} ncclNetAttr_v11_t;

typedef struct
{
    const char* name;
    ncclResult_t (*init)(void** ctx,
                         uint64_t commId,
                         ncclNetCommConfig_v11_t* config,
                         ncclDebugLogger_t logFunction,
                         ncclProfilerCallback_t profFunction);
    ncclResult_t (*devices)(int* ndev);
    ncclResult_t (*getProperties)(int dev, ncclNetProperties_v11_t* props);
    ncclResult_t (*listen)(void* ctx, int dev, void* handle, void** listenComm);
    ncclResult_t (*connect)(void* ctx,
                            int dev,
                            void* handle,
                            void** sendComm,
                            ncclNetDeviceHandle_v11_t** sendDevComm);
    ncclResult_t (*accept)(void* listenComm,
                           void** recvComm,
                           ncclNetDeviceHandle_v11_t** recvDevComm);
    ncclResult_t (*regMr)(void* comm, void* data, size_t size, int type, void** mhandle);
    ncclResult_t (*regMrDmaBuf)(void* comm,
                                void* data,
                                size_t size,
                                int type,
                                uint64_t offset,
                                int fd,
                                void** mhandle);
    ncclResult_t (*deregMr)(void* comm, void* mhandle);
    ncclResult_t (*isend)(void* sendComm,
                          void* data,
                          size_t size,
                          int tag,
                          void* mhandle,
                          void* phandle,
                          void** request);
    ncclResult_t (*irecv)(void* recvComm,
                          int n,
                          void** data,
                          size_t* sizes,
                          int* tags,
                          void** mhandles,
                          void** phandles,
                          void** request);
    ncclResult_t (
        *iflush)(void* recvComm, int n, void** data, int* sizes, void** mhandles, void** request);
    ncclResult_t (*test)(void* request, int* done, int* sizes);
    ncclResult_t (*closeSend)(void* sendComm);
    ncclResult_t (*closeRecv)(void* recvComm);
    ncclResult_t (*closeListen)(void* listenComm);
    ncclResult_t (*getDeviceMr)(void* comm, void* mhandle, void** dptr_mhandle);
    ncclResult_t (*irecvConsumed)(void* recvComm, int n, void* request);
    ncclResult_t (*makeVDevice)(int* d, ncclNetVDeviceProps_v11_t* props);
    ncclResult_t (*finalize)(void* ctx);
    ncclResult_t (*setNetAttr)(void* ctx, ncclNetAttr_v11_t* netAttr);
} ncclNet_v11_t;

#endif /* TALB_NCCL_NET_V11_H */
