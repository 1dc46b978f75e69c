/*
 * Loopback transport for a rank talking to itself: am_send copies the packet into a heap queue and
 * progress hands queued packets to deliver in order. Nodes are recycled through a free list, so a
 * steady stream of self-sends stops calling malloc.
 */
#include <stdlib.h>
#include <string.h>

#include "core/copy.h"
#include "transport/transport.h"

typedef struct self_packet {
    struct self_packet *next;
    size_t len, capacity;
    _Alignas(16) unsigned char data[];
} self_packet_t;

/* Free-list nodes below this size are kept at this capacity so most packets fit any recycled node. */
#define SELF_MIN_CAPACITY 256
#define SELF_FREE_MAX 64

static struct {
    empi_deliver_fn deliver;
    int rank;
    self_packet_t *head, **tail;
    long queued;
    self_packet_t *free_list;
    int free_count;
} self_q;

static int self_init(const empi_boot_info_t *boot, empi_deliver_fn deliver)
{
    self_q.deliver = deliver;
    self_q.rank = boot->rank;
    self_q.head = NULL;
    self_q.tail = &self_q.head;
    self_q.queued = 0;
    self_q.free_list = NULL;
    self_q.free_count = 0;
    return EMPI_OK;
}

static void free_list_put(self_packet_t *p)
{
    if (p->capacity == SELF_MIN_CAPACITY && self_q.free_count < SELF_FREE_MAX) {
        p->next = self_q.free_list;
        self_q.free_list = p;
        self_q.free_count++;
    } else {
        free(p);
    }
}

static int self_finalize(void)
{
    while (self_q.head) {
        self_packet_t *p = self_q.head;
        self_q.head = p->next;
        free(p);
    }
    self_q.tail = &self_q.head;
    self_q.queued = 0;
    while (self_q.free_list) {
        self_packet_t *p = self_q.free_list;
        self_q.free_list = p->next;
        free(p);
    }
    self_q.free_count = 0;
    return EMPI_OK;
}

static int self_reaches(int peer)
{
    return peer == self_q.rank;
}

static int self_am_send(int peer, const struct iovec *iov, int iovcnt)
{
    if (peer != self_q.rank)
        return EMPI_ERROR;
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    self_packet_t *p;
    if (len <= SELF_MIN_CAPACITY && self_q.free_list) {
        p = self_q.free_list;
        self_q.free_list = p->next;
        self_q.free_count--;
    } else {
        size_t capacity = len < SELF_MIN_CAPACITY ? SELF_MIN_CAPACITY : len;
        p = malloc(sizeof *p + capacity);
        if (!p)
            return EMPI_AGAIN;
        p->capacity = capacity;
    }
    unsigned char *dst = p->data;
    for (int i = 0; i < iovcnt; i++) {
        empi_copy(dst, iov[i].iov_base, iov[i].iov_len);
        dst += iov[i].iov_len;
    }
    p->len = len;
    p->next = NULL;
    *self_q.tail = p;
    self_q.tail = &p->next;
    self_q.queued++;
    return EMPI_OK;
}

/* Delivers only what was queued on entry: a deliver that sends to itself again cannot spin us forever. */
static int self_progress(void)
{
    long budget = self_q.queued;
    int delivered = 0;
    while (budget-- > 0 && self_q.head) {
        self_packet_t *p = self_q.head;
        self_q.head = p->next;
        if (!self_q.head)
            self_q.tail = &self_q.head;
        self_q.queued--;
        self_q.deliver(self_q.rank, p->data, p->len);
        free_list_put(p);
        delivered++;
    }
    return delivered;
}

static int self_get(int peer, void *local, const void *remote, size_t len)
{
    if (peer != self_q.rank)
        return EMPI_ERROR;
    empi_copy(local, remote, len);
    return EMPI_OK;
}

/* A process has no peers here: it only waits on itself. */
static void self_publish_wait(uint64_t start, uint64_t seen)
{
    (void)start, (void)seen;
}

static int self_peers_waiting(uint64_t now, uint64_t fresh, uint64_t *latest, uint64_t *fingerprint)
{
    (void)now, (void)fresh;
    *latest = 0;
    *fingerprint = 0;
    return 1;
}

static int self_wait_fd(void)
{
    return self_q.head ? EMPI_WAIT_POLL : EMPI_WAIT_NOTHING;
}

empi_transport_t empi_transport_self = {
    .name = "self",
    .max_packet = (size_t)1 << 30,
    .has_get = 1,
    .init = self_init,
    .finalize = self_finalize,
    .reaches = self_reaches,
    .progress = self_progress,
    .am_send = self_am_send,
    .get = self_get,
    .wait_fd = self_wait_fd,
    .publish_wait = self_publish_wait,
    .peers_waiting = self_peers_waiting,
};
