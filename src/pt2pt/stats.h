/*
 * Counters of the point-to-point layer, read by the MPI_T performance variables (src/mpit/).
 * Plain integers bumped once per event: pt2pt runs on one thread at a time (under the big lock
 * with MPI_THREAD_MULTIPLE), and readers take that lock too. They are never reset, so a tool can
 * still read them after MPI_Finalize.
 */
#ifndef EMPI_PT2PT_STATS_H
#define EMPI_PT2PT_STATS_H

#include <stdint.h>

typedef struct empi_pt2pt_stats {
    uint64_t sends;              /* messages sent to a real peer (not MPI_PROC_NULL) */
    uint64_t bytes_sent;
    uint64_t eager_sends;        /* ... of which went eagerly */
    uint64_t rndv_sends;         /* ... of which went by rendezvous */
    uint64_t deferred_sends;     /* times a send had to queue behind others or for transport room */
    uint64_t receives;           /* messages matched to a receive */
    uint64_t bytes_received;     /* bytes delivered into receive buffers */
    uint64_t unexpected;         /* arrivals that found no posted receive */
    uint64_t unexpected_hwm;     /* longest the unexpected queue has been */
    uint64_t single_copy_recvs;  /* rendezvous receives read from the sender's buffer (any way) */
    uint64_t coop_recvs;         /* rendezvous receives copied cooperatively (pt2pt/coop.c) */
    uint64_t coop_chunks_helped; /* chunks this process wrote into a receiver's buffer as sender */
    uint64_t runs_recvs;         /* rendezvous receives that read a noncontiguous sender's runs in place */
    uint64_t bulk_recvs;         /* rendezvous receives whose data came on the transport's bulk channel */
} empi_pt2pt_stats_t;

extern empi_pt2pt_stats_t empi_pt2pt_stats;

/* Current lengths of the matching queues (0 outside MPI_Init..MPI_Finalize). */
uint64_t empi_pt2pt_posted_length(void);
uint64_t empi_pt2pt_unexpected_length(void);

#endif
