/*
 * Stream framing of the talb NCCL net plugin: each isend becomes [16-byte TaLB frame header |
 * payload] on a TCP stream (header format: model/wire/talb-wire.h). The sender and receiver state
 * machines here are pure: they move bytes through caller-supplied read/write functions, so tests
 * can split headers and payloads at every offset without sockets.
 */
#ifndef TALB_NET_FRAME_H
#define TALB_NET_FRAME_H

#include "talb-wire.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /* Results of one step. */
    enum talb_io_status
    {
        TALB_IO_DONE = 0,       /* the frame is complete */
        TALB_IO_AGAIN = 1,      /* the transport would block; call again later */
        TALB_IO_EOF = -1,       /* the peer closed the stream (receiver only) */
        TALB_IO_ERROR = -2,     /* the transport failed; errno tells why */
        TALB_IO_BAD_FRAME = -3, /* header rejected; wire_status says why */
        TALB_IO_TOO_LONG = -4   /* payload longer than the posted receive buffer */
    };

    /*
     * Transport functions: return bytes moved (> 0), 0 for end of stream (read only), or -1 with
     * errno set (EAGAIN/EWOULDBLOCK: would block; EINTR: retried by the caller).
     */
    typedef ssize_t (*talb_read_fn)(void* ctx, void* buf, size_t len);
    typedef ssize_t (*talb_writev_fn)(void* ctx, const struct iovec* iov, int iovcnt);

    /* One outgoing frame. */
    struct talb_tx_frame
    {
        uint8_t header[TALB_FRAME_LEN];
        const uint8_t* payload;
        uint32_t payload_len;
        uint64_t sent; /* header and payload bytes written so far */
    };

    /* Prepares a frame; returns TALB_WIRE_OK or the talb_frame_encode error (bad label). */
    int talb_tx_init(struct talb_tx_frame* tx,
                     const struct talb_label* label,
                     const void* payload,
                     uint32_t payload_len);

    /* Writes as much of the frame as the transport takes: TALB_IO_DONE, _AGAIN or _ERROR. */
    int talb_tx_step(struct talb_tx_frame* tx, talb_writev_fn wr, void* ctx);

    /* Receiver of consecutive frames on one stream. */
    struct talb_rx_parser
    {
        uint8_t header[TALB_FRAME_LEN];
        uint32_t header_have; /* header bytes read of the current frame */
        struct talb_frame frame;
        uint32_t payload_have; /* payload bytes read of the current frame */
        int wire_status;       /* decoder status after TALB_IO_BAD_FRAME */
        int failed;            /* TALB_IO_BAD_FRAME or TALB_IO_TOO_LONG once returned, else 0 */
    };

    void talb_rx_init(struct talb_rx_parser* rx);

    /*
     * Reads the next frame's header, then its payload into dst (capacity cap). Never reads past
     * the current frame, so the next frame stays in the stream. TALB_IO_DONE leaves the frame's
     * label and length in rx->frame and resets for the next frame; TALB_IO_EOF is returned for a
     * close at any point, mid-frame or between frames. After TALB_IO_BAD_FRAME or TALB_IO_TOO_LONG
     * the stream cannot be followed any more: every later step returns the same status without
     * reading or writing anything.
     */
    int talb_rx_step(struct talb_rx_parser* rx, talb_read_fn rd, void* ctx, void* dst, size_t cap);

    /* True when no byte of a next frame was read yet (a clean point for the peer to close). */
    int talb_rx_idle(const struct talb_rx_parser* rx);

    const char* talb_io_strerror(int status);

    /*
     * The connection handshake: the first thing a sender writes on a new connection, so that
     * accept() can tell the peer that holds its listen handle from a stray connection (a port
     * scan, a late peer of an earlier run, another program). It is a TaLB frame, so the agent
     * and the capture checker see a frame stream from the first byte: header {tensor 0, priority
     * 7, FIRST|LAST, 12 bytes}, payload "TLBH" and the handle's 64-bit connection id,
     * big-endian.
     */
#define TALB_HELLO_MAGIC "TLBH"
#define TALB_HELLO_PAYLOAD 12
#define TALB_HELLO_LEN (TALB_FRAME_LEN + TALB_HELLO_PAYLOAD)

    /* Writes the handshake for conn_id into out. */
    void talb_hello_encode(uint64_t conn_id, uint8_t out[TALB_HELLO_LEN]);

    /*
     * Reads a handshake: TALB_WIRE_OK with *conn_id, or TALB_WIRE_BAD_TYPE when the bytes are
     * not a talb handshake.
     */
    int talb_hello_decode(const uint8_t in[TALB_HELLO_LEN], uint64_t* conn_id);

#ifdef __cplusplus
}
#endif

#endif /* TALB_NET_FRAME_H */
