/*
 * The plugin's listen handle: what NCCL copies from the listening rank to the connecting one
 * (at most NCCL_NET_HANDLE_MAXSIZE = 128 bytes). Declared apart so that tests can act as a peer.
 */
#ifndef TALB_NET_HANDLE_H
#define TALB_NET_HANDLE_H

#include <netinet/in.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define TALB_HANDLE_MAGIC 0x54414C42u /* "TALB" */

    /*
     * The connect stage lives in the handle too: NCCL calls connect() again with the same
     * handle buffer until a comm comes back, and the stage is only meaningful in the connecting
     * process.
     */
    struct talb_handle
    {
        uint32_t magic;
        struct sockaddr_in addr; /* the listening socket */
        uint64_t conn_id;        /* random per listen: the connecting peer proves it holds it */
        int stage_fd;            /* connect in progress: its socket; -1 before the first call */
        int stage;               /* 0: not started, 1: connect() in progress, 2: handshake */
        uint32_t hello_sent;     /* handshake bytes written (stage 2) */
    };

#ifdef __cplusplus
}
#endif

#endif /* TALB_NET_HANDLE_H */
