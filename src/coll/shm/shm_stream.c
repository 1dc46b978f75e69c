/*
 * Cached or streamed copies of blocks into the node segment (alltoall, allgather). As for the rings
 * (pt2pt/stream_choice.c): where the hypervisor has put the cores far apart, every line of the
 * segment a writer takes back from the core that read it last crosses slowly, and non-temporal
 * stores skip that, leaving readers to read memory; where the cores are close, cached copies win.
 * 4 ranks on 2 cores, alltoall and allgather 64-256 KiB: streamed 2-4x faster in the very far
 * phase, level in far ones with the bias below (docs/PERFORMANCE.md run AG). Each rank times its
 * own copies of a piece, in and out (the readers' cost of a way is in the second), and learns per
 * size which way is cheaper; every rank sees the same calls and sizes, so all try the two ways at
 * the same calls, and each collective learns apart.
 */
#include "coll/shm/shm_stream.h"

#include "core/tunables.h"
#include "core/way_choice.h"

/* Way 1 is streamed. Where the cores are only far (not very far), the copies measured streamed
   1.05-1.4x cheaper while whole calls ran 1.1-1.3x slower; very far, cached ones measure 2-6x
   dearer: streamed is taken only once it measures 1.5x cheaper. */
static empi_way_choice_t ways[EMPI_SHM_STREAM_KINDS] = {{.bias = 1.5}, {.bias = 1.5}};
uint64_t empi_coll_shm_streamed_pieces;

static int mode(void)
{
    return empi_tunable_switch(empi_tunables.coll_shm_stream);   /* -1 auto, 0 off, 1 on */
}

int empi_shm_stream_choose(int kind, size_t block, size_t bytes)
{
    if (block < EMPI_SHM_STREAM_BLOCK_MIN)
        return 0;
    int m = mode();
    int streamed = m < 0 ? empi_way_choose(&ways[kind], bytes) : m;
    empi_coll_shm_streamed_pieces += (uint64_t)streamed;
    return streamed;
}

void empi_shm_stream_learn(int kind, int streamed, size_t block, size_t bytes, double secs)
{
    if (block >= EMPI_SHM_STREAM_BLOCK_MIN && mode() < 0)
        empi_way_learn(&ways[kind], streamed, bytes, secs);
}
