/**
 * \file
 * \ingroup talb-wire
 * talb wire format: the one definition shared by the ns-3 model (model/) and the host testbed
 * (testbed/). Plain C99, header-only, no allocation, no ns-3 or DPDK dependency.
 *
 * Four things live here:
 *  - the TaLB IPv4 option (8 bytes) a tagged data packet carries;
 *  - the priority <-> DSCP table, for switches that do not parse options;
 *  - the frame header (16 bytes) that precedes each message's payload on a byte stream: the NCCL
 *    plugin's isends and the simulator's collective messages;
 *  - the labelling rules of a model's gradients: a tensor's priority from its layer group and
 *    the bytes of its gradient, used by the simulator's schedulers and the CUDA trainer alike;
 *    and an LLM job's transfer priority from the parallelism it serves (talb_llm_priority).
 *
 * Every decoder takes the number of bytes it may read and never reads past it; every malformed
 * input returns a negative talb_wire_status instead of a value. Callers fail open: they count the
 * error and forward the packet untagged.
 */
#ifndef TALB_WIRE_H
#define TALB_WIRE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* ---- TaLB IPv4 option ------------------------------------------------------------------------ */

/* copied flag 1, class 0, number 30 (RFC 4727 experimental): 0b1_00_11110 */
#define TALB_OPT_TYPE 0x9E
#define TALB_OPT_LEN 8
#define TALB_WIRE_VERSION 1

#define TALB_FLAG_FIRST 0x1 /* packet carries the first byte of its tensor */
#define TALB_FLAG_LAST 0x2  /* packet carries the last byte of its tensor */
#define TALB_FLAGS_MASK 0x3

#define TALB_NUM_PRIORITIES 8 /* 0 = most urgent, 7 = least */
#define TALB_PRIO_MASK 0x7

/* A tensor id's top 8 bits are the job id, the low 24 bits the tensor within the job. */
#define TALB_JOB_BITS 8
#define TALB_TENSOR_INDEX_MASK 0x00FFFFFFu
#define TALB_MAX_JOBS (1u << TALB_JOB_BITS)

    enum talb_wire_status
    {
        TALB_WIRE_OK = 0,
        TALB_WIRE_TRUNCATED = -1,   /* fewer bytes than the structure needs */
        TALB_WIRE_BAD_TYPE = -2,    /* not a TaLB option / frame */
        TALB_WIRE_BAD_LENGTH = -3,  /* option length field is not TALB_OPT_LEN */
        TALB_WIRE_BAD_VERSION = -4, /* version this build does not understand */
        TALB_WIRE_BAD_FIELD = -5,   /* a field out of range (priority, flags, reserved bits) */
        TALB_WIRE_NOT_FOUND = -6,   /* well-formed options, but none is TaLB's */
        TALB_WIRE_BAD_OPTIONS = -7  /* the IPv4 options list itself is malformed */
    };

    /* What a switch needs to know about a packet's tensor. */
    struct talb_label
    {
        uint32_t tensor_id; /* job id in the top 8 bits */
        uint8_t priority;   /* 0..7, 0 = most urgent */
        uint8_t flags;      /* TALB_FLAG_* */
    };

    static inline uint32_t talb_make_tensor_id(uint32_t job, uint32_t index)
    {
        return (job << (32 - TALB_JOB_BITS)) | (index & TALB_TENSOR_INDEX_MASK);
    }

    static inline uint32_t talb_job_of(uint32_t tensor_id)
    {
        return tensor_id >> (32 - TALB_JOB_BITS);
    }

    /*
     * The tensor priority rule: a model's layer groups, in forward (input-to-output) order,
     * quantised to TALB_NUM_PRIORITIES classes; the input side is most urgent (0) because the
     * next forward pass needs it first. layer < n_layers; every tensor of a layer group shares
     * its priority.
     */
    static inline uint8_t talb_layer_priority(uint32_t layer, uint32_t n_layers)
    {
        return (uint8_t)((uint64_t)layer * TALB_NUM_PRIORITIES / (n_layers ? n_layers : 1));
    }

/*
 * Communication classes of an LLM job (the parallelism a transfer serves), for
 * talb_llm_priority(). The execution graph's CommClass has these values.
 */
#define TALB_CLASS_TENSOR 0   /* tensor (and sequence) parallelism */
#define TALB_CLASS_EXPERT 1   /* expert parallelism (MoE all-to-all) */
#define TALB_CLASS_PIPELINE 2 /* pipeline activations and their gradients */
#define TALB_CLASS_DATA 3     /* data-parallel gradient or parameter synchronisation */
#define TALB_CLASS_OTHER 4    /* anything else */

    /*
     * The LLM priority rule: a transfer's priority from the parallelism it serves.
     *   tensor, expert  0  the layer's compute waits on these collectives: every microsecond
     *                      they spend queued is a microsecond of idle GPUs on the critical path
     *   pipeline        1  the next stage idles until the activation (or its gradient) arrives,
     *                      but micro-batching gives it some slack (the schedule's bubbles)
     *   data            2 + layer * 6 / n_layers  (2..7): gradient synchronisation overlaps the
     *                      backward pass and is only needed by the next iteration's optimizer
     *                      step; among it TaLB's data-parallel rule is kept (the input side most
     *                      urgent, as the next forward pass needs it first), squeezed into the six
     *                      classes below the blocking ones
     *   other           7  unknown purpose: never ahead of classified traffic
     * layer < n_layers (a larger layer counts as the last; n_layers 0 as 1); layer and n_layers
     * only matter for TALB_CLASS_DATA. An unknown class counts as TALB_CLASS_OTHER.
     */
    static inline uint8_t talb_llm_priority(uint32_t cls, uint32_t layer, uint32_t n_layers)
    {
        uint64_t layers = n_layers ? n_layers : 1;
        switch (cls)
        {
        case TALB_CLASS_TENSOR:
        case TALB_CLASS_EXPERT:
            return 0;
        case TALB_CLASS_PIPELINE:
            return 1;
        case TALB_CLASS_DATA:
            return (uint8_t)(layer >= layers ? TALB_NUM_PRIORITIES - 1
                                             : 2 + (uint64_t)layer * 6 / layers);
        default:
            return TALB_NUM_PRIORITIES - 1;
        }
    }

    /* The gradient-size rule: a tensor's gradient is one element per parameter. */
    static inline uint64_t talb_gradient_bytes(uint64_t params, uint32_t bytes_per_element)
    {
        return params * bytes_per_element;
    }

    static inline const char* talb_wire_strerror(int status)
    {
        switch (status)
        {
        case TALB_WIRE_OK:
            return "ok";
        case TALB_WIRE_TRUNCATED:
            return "truncated";
        case TALB_WIRE_BAD_TYPE:
            return "bad type or magic";
        case TALB_WIRE_BAD_LENGTH:
            return "bad length";
        case TALB_WIRE_BAD_VERSION:
            return "unknown version";
        case TALB_WIRE_BAD_FIELD:
            return "field out of range";
        case TALB_WIRE_NOT_FOUND:
            return "no TaLB option";
        case TALB_WIRE_BAD_OPTIONS:
            return "malformed IPv4 options";
        default:
            return "unknown status";
        }
    }

    static inline void talb_put_be32(uint8_t* p, uint32_t v)
    {
        p[0] = (uint8_t)(v >> 24);
        p[1] = (uint8_t)(v >> 16);
        p[2] = (uint8_t)(v >> 8);
        p[3] = (uint8_t)v;
    }

    static inline uint32_t talb_get_be32(const uint8_t* p)
    {
        return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) |
               (uint32_t)p[3];
    }

    static inline int talb_label_valid(const struct talb_label* l)
    {
        return l->priority < TALB_NUM_PRIORITIES && (l->flags & ~TALB_FLAGS_MASK) == 0;
    }

    /*
     * Option layout:
     *   byte 0   type 0x9E
     *   byte 1   length 8
     *   byte 2   version (high nibble) | flags (low nibble)
     *   byte 3   priority in the low 3 bits; the other bits are reserved: sent as 0, ignored
     *   byte 4-7 tensor id, big-endian
     * Returns TALB_OPT_LEN or a negative talb_wire_status.
     */
    static inline int talb_option_encode(const struct talb_label* l, uint8_t* buf, size_t len)
    {
        if (len < TALB_OPT_LEN)
        {
            return TALB_WIRE_TRUNCATED;
        }
        if (!talb_label_valid(l))
        {
            return TALB_WIRE_BAD_FIELD;
        }
        buf[0] = TALB_OPT_TYPE;
        buf[1] = TALB_OPT_LEN;
        buf[2] = (uint8_t)((TALB_WIRE_VERSION << 4) | l->flags);
        buf[3] = l->priority;
        talb_put_be32(buf + 4, l->tensor_id);
        return TALB_OPT_LEN;
    }

    static inline int talb_option_decode(const uint8_t* buf, size_t len, struct talb_label* out)
    {
        if (len < 2)
        {
            return TALB_WIRE_TRUNCATED;
        }
        if (buf[0] != TALB_OPT_TYPE)
        {
            return TALB_WIRE_BAD_TYPE;
        }
        if (buf[1] != TALB_OPT_LEN)
        {
            return TALB_WIRE_BAD_LENGTH;
        }
        if (len < TALB_OPT_LEN)
        {
            return TALB_WIRE_TRUNCATED;
        }
        if ((buf[2] >> 4) != TALB_WIRE_VERSION)
        {
            return TALB_WIRE_BAD_VERSION;
        }
        if ((buf[2] & 0x0F & ~TALB_FLAGS_MASK) != 0)
        {
            return TALB_WIRE_BAD_FIELD;
        }
        out->flags = buf[2] & TALB_FLAGS_MASK;
        out->priority = buf[3] & TALB_PRIO_MASK;
        out->tensor_id = talb_get_be32(buf + 4);
        return TALB_OPT_LEN;
    }

    /*
     * Walks an IPv4 options area (the bytes after the 20-byte fixed header) and reports the offset
     * of the TaLB option in *offset. EOL (0) ends the list, NOP (1) is one byte, every other
     * option has a length byte >= 2 that must fit inside the area.
     * On TALB_WIRE_NOT_FOUND, *offset is where the list ends: the EOL byte, or len. That is where
     * an added option must go -- receivers ignore whatever follows an EOL.
     */
    static inline int talb_ipv4_options_find(const uint8_t* opts, size_t len, size_t* offset)
    {
        size_t i = 0;
        while (i < len)
        {
            uint8_t type = opts[i];
            if (type == 0)
            {
                *offset = i;
                return TALB_WIRE_NOT_FOUND;
            }
            if (type == 1)
            {
                ++i;
                continue;
            }
            if (i + 1 >= len)
            {
                return TALB_WIRE_BAD_OPTIONS;
            }
            uint8_t olen = opts[i + 1];
            if (olen < 2 || olen > len - i)
            {
                return TALB_WIRE_BAD_OPTIONS;
            }
            if (type == TALB_OPT_TYPE)
            {
                *offset = i;
                return TALB_WIRE_OK;
            }
            i += olen;
        }
        *offset = len;
        return TALB_WIRE_NOT_FOUND;
    }

    /* ---- DSCP ----------------------------------------------------------------------------------
     */

    /*
     * Priority -> DSCP, the single table of the project. Monotone: a more urgent priority gets a
     * higher code point. DSCP 0 (default forwarding) is left to untagged traffic.
     *   0 EF(46)  1 CS5(40)  2 CS4(32)  3 CS3(24)  4 CS2(16)  5 AF12(12)  6 AF11(10)  7 CS1(8)
     */
    static inline uint8_t talb_dscp_from_priority(uint8_t priority)
    {
        static const uint8_t table[TALB_NUM_PRIORITIES] = {46, 40, 32, 24, 16, 12, 10, 8};
        return table[priority & TALB_PRIO_MASK];
    }

    /* Returns the priority of a DSCP from the table above, or -1 when it is not in the table. */
    static inline int talb_priority_from_dscp(uint8_t dscp)
    {
        uint8_t p;
        for (p = 0; p < TALB_NUM_PRIORITIES; ++p)
        {
            if (talb_dscp_from_priority(p) == dscp)
            {
                return p;
            }
        }
        return -1;
    }

    /* ---- NCCL plugin frame header
     * ---------------------------------------------------------------- */

    /*
     * 16 bytes before each isend's payload on the plugin's TCP stream:
     *   bytes 0-3   magic "TALB"
     *   byte 4      version (TALB_WIRE_VERSION)
     *   byte 5      priority 0..7
     *   byte 6      flags (TALB_FLAG_*)
     *   byte 7      reserved, must be 0 (a stream decoder treats anything else as desync)
     *   bytes 8-11  tensor id, big-endian
     *   bytes 12-15 payload length in bytes, big-endian
     */
#define TALB_FRAME_LEN 16
#define TALB_FRAME_MAGIC "TALB"

    struct talb_frame
    {
        struct talb_label label;
        uint32_t payload_len;
    };

    static inline int talb_frame_encode(const struct talb_frame* f, uint8_t* buf, size_t len)
    {
        if (len < TALB_FRAME_LEN)
        {
            return TALB_WIRE_TRUNCATED;
        }
        if (!talb_label_valid(&f->label))
        {
            return TALB_WIRE_BAD_FIELD;
        }
        buf[0] = 'T';
        buf[1] = 'A';
        buf[2] = 'L';
        buf[3] = 'B';
        buf[4] = TALB_WIRE_VERSION;
        buf[5] = f->label.priority;
        buf[6] = f->label.flags;
        buf[7] = 0;
        talb_put_be32(buf + 8, f->label.tensor_id);
        talb_put_be32(buf + 12, f->payload_len);
        return TALB_FRAME_LEN;
    }

    static inline int talb_frame_decode(const uint8_t* buf, size_t len, struct talb_frame* out)
    {
        if (len < TALB_FRAME_LEN)
        {
            return TALB_WIRE_TRUNCATED;
        }
        if (buf[0] != 'T' || buf[1] != 'A' || buf[2] != 'L' || buf[3] != 'B')
        {
            return TALB_WIRE_BAD_TYPE;
        }
        if (buf[4] != TALB_WIRE_VERSION)
        {
            return TALB_WIRE_BAD_VERSION;
        }
        if (buf[5] >= TALB_NUM_PRIORITIES || (buf[6] & ~TALB_FLAGS_MASK) != 0 || buf[7] != 0)
        {
            return TALB_WIRE_BAD_FIELD;
        }
        out->label.priority = buf[5];
        out->label.flags = buf[6];
        out->label.tensor_id = talb_get_be32(buf + 8);
        out->payload_len = talb_get_be32(buf + 12);
        return TALB_FRAME_LEN;
    }

#ifdef __cplusplus
}
#endif

#endif /* TALB_WIRE_H */
