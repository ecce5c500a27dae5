/*
 * libtalb-tensor: the per-process label registry shared by a training program and the talb NCCL
 * net plugin. NCCL dlopens the plugin privately, so the trainer cannot call into the plugin; both
 * link this small library instead (DT_NEEDED) and therefore see one registry per process.
 *
 * Labelling contract (see testbed/README.md, "Labelling guarantee"):
 *  - The registry holds one *current* label. Every isend the plugin starts carries the current
 *    label at the moment isend is called, on every connection of the process.
 *  - talb_set_tensor() makes a label current immediately: exact for a caller that orders its
 *    calls and its sends itself (the harness, a synchronous loop).
 *  - talb_enqueue_tensor() appends a label to a FIFO without touching the current label, and
 *    talb_activate_next() pops the FIFO head into the current label. A CUDA program enqueues at
 *    launch time and activates from a host function placed on the communication stream just
 *    before the collective (cudaLaunchHostFunc), so the label switches when the stream reaches
 *    the collective, not when the host queued it.
 *  - Labels carry a 0-based sequence number: the n-th label set or enqueued gets n.
 * All functions are thread-safe.
 */
#ifndef TALB_TENSOR_H
#define TALB_TENSOR_H

#include "talb-wire.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* The label isends carry before any label was set: tensor 0 of job 0, least urgent. */
#define TALB_UNLABELLED_TENSOR 0u
#define TALB_UNLABELLED_PRIORITY (TALB_NUM_PRIORITIES - 1)

/* Capacity of the enqueue FIFO. */
#define TALB_TENSOR_QUEUE_CAPACITY 4096

#if defined(__GNUC__)
#define TALB_TENSOR_API __attribute__((visibility("default")))
#else
#define TALB_TENSOR_API
#endif

    /*
     * Makes (tensor_id, priority) the current label. Returns its sequence number, or -1 when
     * priority >= TALB_NUM_PRIORITIES (the current label is then unchanged).
     */
    TALB_TENSOR_API int64_t talb_set_tensor(uint32_t tensor_id, uint8_t priority);

    /*
     * Appends (tensor_id, priority) to the FIFO. Returns its sequence number, or -1 when the
     * priority is out of range or the FIFO holds TALB_TENSOR_QUEUE_CAPACITY labels.
     */
    TALB_TENSOR_API int64_t talb_enqueue_tensor(uint32_t tensor_id, uint8_t priority);

    /*
     * Pops the FIFO head into the current label. Returns its sequence number, or -1 (current
     * label unchanged) when the FIFO is empty.
     */
    TALB_TENSOR_API int64_t talb_activate_next(void);

    /* Same as talb_activate_next, with the void(void*) signature of cudaHostFn_t. */
    TALB_TENSOR_API void talb_activate_next_host_fn(void* unused);

    /*
     * Writes the current label (flags 0) to *out and returns its sequence number, or -1 when no
     * label was ever made current (then *out is the unlabelled default).
     */
    TALB_TENSOR_API int64_t talb_current_tensor(struct talb_label* out);

    /* Number of labels waiting in the FIFO. */
    TALB_TENSOR_API uint32_t talb_tensor_queue_length(void);

    /* Forgets the current label and empties the FIFO; sequence numbers restart at 0. */
    TALB_TENSOR_API void talb_tensor_reset(void);

    /*
     * Receive-side observation: the plugin reports every frame it strips. A program (the
     * harness, a test) may install one hook; hook == NULL removes it. The hook runs on the
     * thread that completed the receive (NCCL's proxy thread) and must not block.
     */
    typedef void (*talb_rx_hook_t)(void* arg, const struct talb_label* label, uint32_t bytes);
    TALB_TENSOR_API void talb_set_rx_hook(talb_rx_hook_t hook, void* arg);
    TALB_TENSOR_API void talb_notify_rx(const struct talb_label* label, uint32_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* TALB_TENSOR_H */
