/* Groups: ordered sets of world ranks. */
#ifndef EMPI_GROUP_H
#define EMPI_GROUP_H

#include "core/object.h"
#include "mpi.h"

typedef struct empi_group {
    empi_object_t obj;
    int size;
    int rank;          /* this process's rank in the group, or MPI_UNDEFINED */
    int *world_ranks;  /* group rank -> world rank */
    MPI_Group handle;
    struct empi_session *session;  /* set by MPI_Group_from_session_pset; not inherited */
} empi_group_t;

extern empi_group_t empi_group_empty;

empi_group_t *empi_group_get(MPI_Group h);            /* NULL if invalid or MPI_GROUP_NULL */
empi_group_t *empi_group_new(int size, const int *world_ranks); /* refcount 1; NULL on ENOMEM */
void empi_group_retain(empi_group_t *g);
void empi_group_release(empi_group_t *g);
int empi_group_rank_of_world(const empi_group_t *g, int world_rank); /* MPI_UNDEFINED if absent */

/* ---- additions by the communicator layer ---- */

/* A group's members sorted by world rank: membership and rank lookups in O(log n). */
typedef struct empi_group_index {
    int n;
    int pairs[];       /* (world rank, group rank) pairs sorted by world rank */
} empi_group_index_t;

empi_group_index_t *empi_group_index_new(const empi_group_t *g);    /* NULL on ENOMEM */
int empi_group_index_lookup(const empi_group_index_t *ix, int world_rank); /* group rank or MPI_UNDEFINED */
void empi_group_index_free(empi_group_index_t *ix);

/* MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL. */
int empi_group_compare(const empi_group_t *a, const empi_group_t *b);

#endif
