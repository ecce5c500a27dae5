/*
 * Types the NCCL net plugin ABI shares across versions, declared here because NCCL installs
 * neither its plugin headers nor a CUDA-free nccl.h. Values and layouts follow NCCL release
 * v2.28.x (src/include/nccl_common.h, src/include/plugin/nccl_net.h,
 * src/include/nccl_device/net_device.h); ncclResult_t is checked against the installed
 * /usr/local/cuda/include/nccl.h (2.28.9) by the plugin's tests.
 */
#ifndef TALB_NCCL_COMMON_H
#define TALB_NCCL_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifndef NCCL_H_ /* nccl.h defines the same enum; never declare it twice */
typedef enum
{
    ncclSuccess = 0,
    ncclUnhandledCudaError = 1,
    ncclSystemError = 2,
    ncclInternalError = 3,
    ncclInvalidArgument = 4,
    ncclInvalidUsage = 5,
    ncclRemoteError = 6,
    ncclInProgress = 7,
    ncclNumResults = 8
} ncclResult_t;
#endif

typedef enum
{
    NCCL_LOG_NONE = 0,
    NCCL_LOG_VERSION = 1,
    NCCL_LOG_WARN = 2,
    NCCL_LOG_INFO = 3,
    NCCL_LOG_ABORT = 4,
    NCCL_LOG_TRACE = 5
} ncclDebugLogLevel;

/*
 * Subsystem flags of the logger. The plugin logs information as NCCL_NET and warnings as
 * NCCL_ALL, as NCCL's own WARN() does, so that NCCL_DEBUG=WARN shows them whatever
 * NCCL_DEBUG_SUBSYS says (its default mask leaves NET out).
 */
#define NCCL_INIT 0x1
#define NCCL_NET 0x10
#define NCCL_ALL (~0UL)

typedef void (*ncclDebugLogger_t)(ncclDebugLogLevel level,
                                  unsigned long flags,
                                  const char* file,
                                  int line,
                                  const char* fmt,
                                  ...);

typedef ncclResult_t (*ncclProfilerCallback_t)(void** eHandle,
                                               int type,
                                               void* pHandle,
                                               int64_t pluginId,
                                               void* extData);

typedef enum
{
    NCCL_NET_DEVICE_HOST = 0,
    NCCL_NET_DEVICE_UNPACK = 1
} ncclNetDeviceType;

/* Unchanged from v7 to v11. */
typedef struct
{
    ncclNetDeviceType netDeviceType;
    int netDeviceVersion;
    void* handle;
    size_t size;
    int needsProxyProgress;
} ncclNetDeviceHandle_v10_t;

typedef ncclNetDeviceHandle_v10_t ncclNetDeviceHandle_v11_t;

#define NCCL_NET_HANDLE_MAXSIZE 128
#define NCCL_PTR_HOST 0x1
#define NCCL_PTR_CUDA 0x2
#define NCCL_PTR_DMABUF 0x4
/* Most requests NCCL keeps outstanding on one comm. */
#define NCCL_NET_MAX_REQUESTS 32

#endif /* TALB_NCCL_COMMON_H */
