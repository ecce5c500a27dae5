/* libtalb-tensor: see talb-tensor.h for the contract. */
#include "talb-tensor.h"

#include <pthread.h>

/* The registry is process-wide by design: it is the one point where the trainer and the plugin
 * (loaded privately by NCCL) meet. One mutex guards it; isend takes it once per call. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct talb_label g_current = {TALB_UNLABELLED_TENSOR, TALB_UNLABELLED_PRIORITY, 0};
static int64_t g_current_seq = -1;
static int64_t g_next_seq = 0;

static struct
{
    struct talb_label label;
    int64_t seq;
} g_queue[TALB_TENSOR_QUEUE_CAPACITY];

static uint32_t g_queue_head = 0; /* index of the oldest entry */
static uint32_t g_queue_len = 0;
static talb_rx_hook_t g_rx_hook = NULL;
static void* g_rx_arg = NULL;

int64_t
talb_set_tensor(uint32_t tensor_id, uint8_t priority)
{
    if (priority >= TALB_NUM_PRIORITIES)
    {
        return -1;
    }
    pthread_mutex_lock(&g_lock);
    g_current.tensor_id = tensor_id;
    g_current.priority = priority;
    g_current_seq = g_next_seq++;
    int64_t seq = g_current_seq;
    pthread_mutex_unlock(&g_lock);
    return seq;
}

int64_t
talb_enqueue_tensor(uint32_t tensor_id, uint8_t priority)
{
    if (priority >= TALB_NUM_PRIORITIES)
    {
        return -1;
    }
    int64_t seq = -1;
    pthread_mutex_lock(&g_lock);
    if (g_queue_len < TALB_TENSOR_QUEUE_CAPACITY)
    {
        uint32_t slot = (g_queue_head + g_queue_len) % TALB_TENSOR_QUEUE_CAPACITY;
        g_queue[slot].label.tensor_id = tensor_id;
        g_queue[slot].label.priority = priority;
        g_queue[slot].label.flags = 0;
        g_queue[slot].seq = seq = g_next_seq++;
        ++g_queue_len;
    }
    pthread_mutex_unlock(&g_lock);
    return seq;
}

int64_t
talb_activate_next(void)
{
    int64_t seq = -1;
    pthread_mutex_lock(&g_lock);
    if (g_queue_len > 0)
    {
        g_current = g_queue[g_queue_head].label;
        g_current_seq = seq = g_queue[g_queue_head].seq;
        g_queue_head = (g_queue_head + 1) % TALB_TENSOR_QUEUE_CAPACITY;
        --g_queue_len;
    }
    pthread_mutex_unlock(&g_lock);
    return seq;
}

void
talb_activate_next_host_fn(void* unused)
{
    (void)unused;
    talb_activate_next();
}

int64_t
talb_current_tensor(struct talb_label* out)
{
    pthread_mutex_lock(&g_lock);
    *out = g_current;
    int64_t seq = g_current_seq;
    pthread_mutex_unlock(&g_lock);
    return seq;
}

uint32_t
talb_tensor_queue_length(void)
{
    pthread_mutex_lock(&g_lock);
    uint32_t n = g_queue_len;
    pthread_mutex_unlock(&g_lock);
    return n;
}

void
talb_tensor_reset(void)
{
    pthread_mutex_lock(&g_lock);
    g_current.tensor_id = TALB_UNLABELLED_TENSOR;
    g_current.priority = TALB_UNLABELLED_PRIORITY;
    g_current.flags = 0;
    g_current_seq = -1;
    g_next_seq = 0;
    g_queue_head = 0;
    g_queue_len = 0;
    pthread_mutex_unlock(&g_lock);
}

void
talb_set_rx_hook(talb_rx_hook_t hook, void* arg)
{
    pthread_mutex_lock(&g_lock);
    g_rx_hook = hook;
    g_rx_arg = arg;
    pthread_mutex_unlock(&g_lock);
}

void
talb_notify_rx(const struct talb_label* label, uint32_t bytes)
{
    pthread_mutex_lock(&g_lock);
    talb_rx_hook_t hook = g_rx_hook;
    void* arg = g_rx_arg;
    pthread_mutex_unlock(&g_lock);
    if (hook != NULL)
    {
        hook(arg, label, bytes);
    }
}
