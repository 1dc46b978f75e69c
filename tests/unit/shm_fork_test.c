/*
 * The shm transport end to end in forked processes (fake bootstrap): segment creation and early
 * unlink, all-to-all packets of varied sizes checked for content and per-source FIFO order, EMPI_AGAIN
 * handled by progressing, CMA reads of every peer's buffer, and the creator's node flags reaching
 * every rank. Usage: shm_fork_test [nprocs] [packets]
 */
#include <dirent.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/tunables.h"
#include "fake_bootstrap.h"
#include "transport/shm/segment.h"
#include "transport/transport.h"
#include "unit_check.h"

#define MAXP 16

static int nprocs, my_rank;
static long packets_per_peer;
static long next_seq_from[MAXP];
static long delivered_total;
static unsigned char cma_buffer[1 << 20]; /* same address in every forked process */

static size_t packet_len(int src, int dst, long seq, size_t max)
{
    uint64_t x = (uint64_t)seq * 2654435761u + (uint64_t)src * 97 + (uint64_t)dst;
    size_t len = x % 5 == 0 ? (size_t)(x >> 3) % max : 16 + (size_t)(x >> 3) % 48;
    return len < 16 ? 16 : len > max ? max : len;
}

static unsigned char payload_byte(int src, long seq, size_t i)
{
    return (unsigned char)(src * 31 + seq * 7 + (long)i);
}

static void on_packet(int src, const void *pkt, size_t len)
{
    int32_t hdr[4];
    memcpy(hdr, pkt, sizeof hdr);
    UCHECK(hdr[0] == src && hdr[1] == my_rank, "packet from %d claims %d->%d", src, hdr[0], hdr[1]);
    long seq = next_seq_from[src]++;
    UCHECK(hdr[2] == (int32_t)seq, "from %d: seq %d, want %ld (FIFO broken)", src, hdr[2], seq);
    UCHECK(len == packet_len(src, my_rank, seq, empi_transport_shm.max_packet), "length");
    const unsigned char *b = pkt;
    for (size_t i = 16; i < len; i++)
        UCHECK(b[i] == payload_byte(src, seq, i), "from %d seq %ld byte %zu", src, seq, i);
    delivered_total++;
}

/* The test runs more processes than cores: give the CPU away when there was nothing to do. */
static void progress_or_yield(void)
{
    if (empi_transport_shm.progress() == 0)
        sched_yield();
}

static void send_one(int dst, long seq, unsigned char *scratch)
{
    size_t len = packet_len(my_rank, dst, seq, empi_transport_shm.max_packet);
    int32_t hdr[4] = {my_rank, dst, (int32_t)seq, 0};
    for (size_t i = 16; i < len; i++)
        scratch[i - 16] = payload_byte(my_rank, seq, i);
    struct iovec iov[2] = {{hdr, 16}, {scratch, len - 16}};
    int rc;
    while ((rc = empi_transport_shm.am_send(dst, iov, 2)) == EMPI_AGAIN)
        progress_or_yield();
    UCHECK(rc == EMPI_OK, "am_send to %d: %d", dst, rc);
}

static int segment_still_named(const char *jobid)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "empi-%s", jobid);
    DIR *d = opendir("/dev/shm");
    if (!d)
        return 0;
    int found = 0;
    for (struct dirent *e; (e = readdir(d));)
        found |= strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return found;
}

/* This process as one rank of a single-node job named jobid + suffix. */
static empi_boot_info_t boot_info(const char *jobid, const char *suffix)
{
    empi_boot_info_t boot = {0};
    boot.rank = boot.local_rank = my_rank;
    boot.size = boot.local_size = nprocs;
    boot.num_nodes = 1;
    snprintf(boot.jobid, sizeof boot.jobid, "%.24s%s", jobid, suffix);
    return boot;
}

/* What the creator measured decides for the node: every rank offers its own flags, and every rank
   must find local rank 0's. */
static void check_node_flags(const char *jobid)
{
    empi_boot_info_t boot = boot_info(jobid, "f");
    empi_shm_segment_t seg;
    UCHECK(empi_shm_segment_attach(&seg, &boot, 8192, 0, 0, 0, 0x100u + (uint32_t)my_rank) == 0, "attach");
    UCHECK(seg.node_flags == 0x100u, "rank %d sees node flags %#x, creator gave 0x100", my_rank,
           seg.node_flags);
    empi_shm_segment_detach(&seg);
}

static void run_rank(const char *jobid)
{
    empi_boot_info_t boot = boot_info(jobid, "");
    UCHECK(empi_transport_shm.init(&boot, on_packet) == EMPI_OK, "init");
    empi_boot_fence();  /* local rank 0 unlinks on its way out of init */
    UCHECK(!segment_still_named(jobid), "segment not unlinked after init");
    for (int p = 0; p < nprocs; p++)
        UCHECK(empi_transport_shm.reaches(p) == (p != my_rank), "reaches(%d)", p);

    unsigned char *scratch = malloc(empi_transport_shm.max_packet);
    for (long seq = 0; seq < packets_per_peer; seq++)
        for (int k = 1; k < nprocs; k++)
            send_one((my_rank + k) % nprocs, seq, scratch);
    while (delivered_total < packets_per_peer * (nprocs - 1))
        progress_or_yield();
    free(scratch);

    for (size_t i = 0; i < sizeof cma_buffer; i++)
        cma_buffer[i] = (unsigned char)(my_rank * 13 + i);
    empi_boot_fence();
    if (empi_transport_shm.has_get) {
        unsigned char *copy = malloc(sizeof cma_buffer);
        for (int p = 0; p < nprocs; p++) {
            if (p == my_rank)
                continue;
            int rc = empi_transport_shm.get(p, copy, cma_buffer, sizeof cma_buffer);
            if (rc != EMPI_OK) {
                fprintf(stderr, "rank %d: CMA get from %d refused; fallback path\n", my_rank, p);
                continue;
            }
            for (size_t i = 0; i < sizeof cma_buffer; i++)
                UCHECK(copy[i] == (unsigned char)(p * 13 + i), "CMA byte %zu from %d", i, p);
        }
        free(copy);
    }
    empi_boot_fence();
    UCHECK(empi_transport_shm.finalize() == EMPI_OK, "finalize");
    if (nprocs >= 2)
        check_node_flags(jobid);
}

int main(int argc, char **argv)
{
    nprocs = argc > 1 ? atoi(argv[1]) : 4;
    packets_per_peer = argc > 2 ? atol(argv[2]) : 200000;
    UCHECK(nprocs >= 1 && nprocs <= MAXP, "1..%d processes", MAXP);
    UCHECK(empi_tunables_load() == 0, "tunables");
    UCHECK(fake_boot_setup(nprocs) == 0, "fake bootstrap");
    char jobid[32];
    snprintf(jobid, sizeof jobid, "unit%x", (unsigned)getpid());
    pid_t pids[MAXP];
    for (int r = 0; r < nprocs; r++) {
        pids[r] = fork();
        UCHECK(pids[r] >= 0, "fork");
        if (pids[r] == 0) {
            my_rank = r;
            alarm(120);  /* a rank stuck waiting for a dead peer must not hang the test run */
            run_rank(jobid);
            _exit(0);
        }
    }
    int failures = 0;
    for (int r = 0; r < nprocs; r++) {
        int status;
        waitpid(pids[r], &status, 0);
        failures += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    UCHECK(failures == 0, "%d of %d processes failed", failures, nprocs);
    UCHECK(!segment_still_named(jobid), "segment left in /dev/shm");
    printf("shm_fork_test: ok (%d processes, %ld packets per pair)\n", nprocs, packets_per_peer);
    return 0;
}
