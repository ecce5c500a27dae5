/*
 * NCCL net plugin ABI version 10 (loaded as the symbol ncclNetPlugin_v10). Field order and types
 * follow NCCL v2.28.x src/include/plugin/net/net_v10.h; the text is talb's. Only the
 * point-to-point net interface is declared: talb exports no collnet.
 */
#ifndef TALB_NCCL_NET_V10_H
#define TALB_NCCL_NET_V10_H

#include "common.h"

/* Frozen for this version: later releases share one constant across versions. */
#define NCCL_NET_MAX_DEVS_PER_NIC_V10 4

typedef struct
{
    int ndevs;
    int devs[NCCL_NET_MAX_DEVS_PER_NIC_V10];
} ncclNetVDeviceProps_v10_t;

typedef struct
{
    int trafficClass; /* plugin-specific traffic class, -1 when unset */
} ncclNetCommConfig_v10_t;

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
    ncclNetVDeviceProps_v10_t vProps;
    size_t maxP2pBytes;
    size_t maxCollBytes;
} ncclNetProperties_v10_t;

typedef struct
{
    const char* name;
    ncclResult_t (*init)(ncclDebugLogger_t logFunction, ncclProfilerCallback_t profFunction);
    ncclResult_t (*devices)(int* ndev);
    ncclResult_t (*getProperties)(int dev, ncclNetProperties_v10_t* props);
    ncclResult_t (*listen)(int dev, void* handle, void** listenComm);
    ncclResult_t (*connect)(int dev,
                            ncclNetCommConfig_v10_t* config,
                            void* handle,
                            void** sendComm,
                            ncclNetDeviceHandle_v10_t** sendDevComm);
    ncclResult_t (*accept)(void* listenComm,
                           void** recvComm,
                           ncclNetDeviceHandle_v10_t** recvDevComm);
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
    ncclResult_t (*makeVDevice)(int* d, ncclNetVDeviceProps_v10_t* props);
} ncclNet_v10_t;

#endif /* TALB_NCCL_NET_V10_H */
