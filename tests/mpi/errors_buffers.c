/*
 * Missing arrays and buffers under MPI_ERRORS_RETURN: a NULL buffer where a call moves data is
 * MPI_ERR_BUFFER (collectives, pack, reduce_local, one-sided), a NULL displacement or type array is
 * MPI_ERR_ARG, not a crash; MPI_BOTTOM (NULL in this ABI) with absolute addresses stays legal.
 * Also: a handle freed with MPI_Request_free while its operation runs is no longer valid, a
 * persistent collective checks its info, MPI_Isendrecv needs a request, and a failing
 * MPI_Pready_list marks nothing.
 */
#include "empi_test.h"

#include <string.h>

static void collectives(MPI_Comm comm)
{
    int p = empi_size(), buf[64] = {0}, counts[64], displs[64];
    MPI_Datatype types[64];
    MPI_Request req;
    for (int i = 0; i < p; i++) {
        counts[i] = 1;
        displs[i] = i;
        types[i] = MPI_INT;
    }
    CHECK_ERR(MPI_Bcast(NULL, 4, MPI_INT, 0, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Reduce(NULL, buf, 4, MPI_INT, MPI_SUM, 0, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Allreduce(buf, NULL, 4, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Iallreduce(NULL, buf, 4, MPI_INT, MPI_SUM, comm, &req), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Allgather(buf, 1, MPI_INT, NULL, 1, MPI_INT, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Alltoall(NULL, 1, MPI_INT, buf, 1, MPI_INT, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Scan(buf, NULL, 1, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Reduce_scatter_block(NULL, buf, 1, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Gatherv(buf, 1, MPI_INT, buf, counts, NULL, MPI_INT, empi_rank(), comm), MPI_ERR_ARG);
    CHECK_ERR(MPI_Allgatherv(buf, 1, MPI_INT, buf, counts, NULL, MPI_INT, comm), MPI_ERR_ARG);
    CHECK_ERR(MPI_Iallgatherv(buf, 1, MPI_INT, NULL, counts, displs, MPI_INT, comm, &req), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Alltoallv(buf, counts, NULL, MPI_INT, buf, counts, displs, MPI_INT, comm), MPI_ERR_ARG);
    CHECK_ERR(MPI_Alltoallw(buf, counts, displs, NULL, buf, counts, displs, types, comm), MPI_ERR_ARG);
    CHECK_ERR(MPI_Alltoallw(buf, counts, displs, types, NULL, counts, displs, types, comm), MPI_ERR_BUFFER);
    /* MPI_IN_PLACE is (void *)1: where a call has no in-place form it must not pass for a buffer */
    CHECK_ERR(MPI_Bcast(MPI_IN_PLACE, 4, MPI_INT, 0, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Allreduce(buf, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Reduce(MPI_IN_PLACE, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, 0, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Alltoall(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Scatter(MPI_IN_PLACE, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Alltoallw(buf, counts, displs, types, MPI_IN_PLACE, counts, displs, types, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Scan(buf, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
    /* neighborhood collectives: NULL buffers with data, and no in-place form at all */
    MPI_Comm ring;
    int dims[1] = {p}, periods[1] = {1};
    CHECK_MPI(MPI_Cart_create(comm, 1, dims, periods, 0, &ring));
    CHECK_MPI(MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN));
    CHECK_ERR(MPI_Neighbor_allgather(buf, 1, MPI_INT, NULL, 1, MPI_INT, ring), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Neighbor_alltoall(NULL, 1, MPI_INT, buf, 1, MPI_INT, ring), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Neighbor_alltoallv(buf, counts, displs, MPI_INT, NULL, counts, displs, MPI_INT, ring),
              MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, buf, 1, MPI_INT, ring), MPI_ERR_BUFFER);
    CHECK_MPI(MPI_Comm_free(&ring));
    /* count 0 with a NULL buffer moves nothing: fine */
    CHECK_MPI(MPI_Bcast(NULL, 0, MPI_INT, 0, comm));
    /* MPI_BOTTOM with a type of absolute addresses: legal, and it must work */
    MPI_Aint where;
    int cell[3] = {0, 0, 0};
    if (empi_rank() == 0)
        cell[0] = 41, cell[1] = 42, cell[2] = 43;
    CHECK_MPI(MPI_Get_address(cell, &where));
    MPI_Datatype absolute;
    int len = 3;
    MPI_Datatype one = MPI_INT;
    CHECK_MPI(MPI_Type_create_struct(1, &len, &where, &one, &absolute));
    CHECK_MPI(MPI_Type_commit(&absolute));
    CHECK_MPI(MPI_Bcast(MPI_BOTTOM, 1, absolute, 0, comm));
    CHECK(cell[0] == 41 && cell[1] == 42 && cell[2] == 43, "bcast from MPI_BOTTOM gave %d %d %d", cell[0], cell[1],
          cell[2]);
    CHECK_MPI(MPI_Type_free(&absolute));
    /* a persistent collective's info must be an info */
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    MPI_Info stale = info;
    CHECK_MPI(MPI_Info_free(&info));
    CHECK_ERR(MPI_Bcast_init(buf, 1, MPI_INT, 0, comm, stale, &req), MPI_ERR_INFO);
}

static void local_calls(MPI_Comm comm)
{
    int in[4] = {1, 2, 3, 4}, pos = 0;
    char packed[64];
    CHECK_ERR(MPI_Pack(NULL, 4, MPI_INT, packed, sizeof packed, &pos, comm), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Pack(in, 4, MPI_INT, NULL, sizeof packed, &pos, comm), MPI_ERR_BUFFER);
    pos = 0;
    CHECK_ERR(MPI_Unpack(packed, sizeof packed, &pos, NULL, 4, MPI_INT, comm), MPI_ERR_BUFFER);
    pos = 0;
    CHECK_ERR(MPI_Pack_external("external32", NULL, 4, MPI_INT, packed, sizeof packed, &(MPI_Aint){0}),
              MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Pack_external(NULL, in, 4, MPI_INT, packed, sizeof packed, &(MPI_Aint){0}), MPI_ERR_ARG);
    CHECK_ERR(MPI_Reduce_local(NULL, in, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Reduce_local(in, NULL, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
}

/* Point-to-point: MPI_IN_PLACE is no buffer; MPI_Mrecv checks its buffer before taking the message. */
static void point_to_point(MPI_Comm comm)
{
    int v = 5, got = 0, rank = empi_rank();
    CHECK_ERR(MPI_Send(MPI_IN_PLACE, 1, MPI_INT, MPI_PROC_NULL, 0, comm), MPI_ERR_BUFFER);
    MPI_Request req;
    MPI_Message msg;
    CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, rank, 9, comm, &req));
    CHECK_MPI(MPI_Mprobe(rank, 9, comm, &msg, MPI_STATUS_IGNORE));
    CHECK_ERR(MPI_Mrecv(NULL, 1, MPI_INT, &msg, MPI_STATUS_IGNORE), MPI_ERR_BUFFER);
    CHECK_MPI(MPI_Mrecv(&got, 1, MPI_INT, &msg, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(got == 5, "the message taken after a refused MPI_Mrecv held %d", got);
}

static void one_sided(MPI_Comm comm)
{
    int *base, result = 0, value = 1;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &base, &win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Win_lock_all(0, win));
    CHECK_ERR(MPI_Put(NULL, 4, MPI_INT, 0, 0, 4, MPI_INT, win), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Get(NULL, 4, MPI_INT, 0, 0, 4, MPI_INT, win), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Compare_and_swap(&value, &value, NULL, MPI_INT, 0, 0, win), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Compare_and_swap(NULL, &value, &result, MPI_INT, 0, 0, win), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Fetch_and_op(&value, NULL, MPI_INT, 0, 0, MPI_SUM, win), MPI_ERR_BUFFER);
    CHECK_MPI(MPI_Fetch_and_op(NULL, &result, MPI_INT, 0, 0, MPI_NO_OP, win));   /* NO_OP reads no origin */
    CHECK_MPI(MPI_Win_unlock_all(win));
    CHECK_MPI(MPI_Win_free(&win));
}

static int comm_errors; /* calls of count_error */

static void count_error(MPI_Comm *c, int *code, ...)
{
    (void)c, (void)code;
    comm_errors++;
}

static void requests(MPI_Comm comm)
{
    int x = 0, y = 0, me = empi_rank();
    MPI_Request req, stale;
    CHECK_ERR(MPI_Isendrecv(&x, 1, MPI_INT, me, 0, &y, 1, MPI_INT, me, 0, comm, NULL), MPI_ERR_ARG);
    /* a persistent receive started, then freed: the operation goes on, the handle is gone */
    CHECK_MPI(MPI_Recv_init(&y, 1, MPI_INT, me, 9, comm, &req));
    CHECK_MPI(MPI_Start(&req));
    stale = req;
    CHECK_MPI(MPI_Request_free(&req));
    CHECK_ERR(MPI_Wait(&stale, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
    CHECK_MPI(MPI_Send(&x, 1, MPI_INT, me, 9, comm));   /* lets the freed receive finish */
    /* partitioned: a list with a bad entry marks none of the others */
    MPI_Request s, r;
    int sb[4] = {1, 2, 3, 4}, rb[4] = {0};
    CHECK_MPI(MPI_Psend_init(sb, 4, 1, MPI_INT, me, 3, comm, MPI_INFO_NULL, &s));
    CHECK_MPI(MPI_Precv_init(rb, 4, 1, MPI_INT, me, 3, comm, MPI_INFO_NULL, &r));
    MPI_Request both[2] = {s, r};
    CHECK_MPI(MPI_Startall(2, both));
    CHECK_ERR(MPI_Pready_list(2, (int[]){0, 7}, s), MPI_ERR_ARG);
    CHECK_ERR(MPI_Pready_list(2, (int[]){1, 1}, s), MPI_ERR_ARG);
    /* argument errors go to the request's communicator (they went to MPI_COMM_SELF's handler) */
    MPI_Errhandler counting;
    CHECK_MPI(MPI_Comm_create_errhandler(count_error, &counting));
    CHECK_MPI(MPI_Comm_set_errhandler(comm, counting));
    comm_errors = 0;
    CHECK_ERR(MPI_Pready_list(-1, NULL, s), MPI_ERR_ARG);
    CHECK_ERR(MPI_Pready_list(1, NULL, s), MPI_ERR_ARG);
    CHECK_ERR(MPI_Pready_range(3, 1, s), MPI_ERR_ARG);
    CHECK(comm_errors == 3, "%d of 3 partitioned argument errors reached the communicator's handler", comm_errors);
    /* a persistent buffered send started with no buffer attached: one error, raised once (twice before) */
    MPI_Request b;
    CHECK_MPI(MPI_Bsend_init(&x, 1, MPI_INT, me, 4, comm, &b));
    comm_errors = 0;
    CHECK_ERR(MPI_Start(&b), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Startall(1, &b), MPI_ERR_BUFFER);
    CHECK(comm_errors == 2, "2 failed starts called the handler %d times", comm_errors);
    CHECK_MPI(MPI_Request_free(&b));
    CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Errhandler_free(&counting));
    CHECK_MPI(MPI_Pready_range(0, 3, s));   /* all four are still free to mark */
    CHECK_MPI(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
    CHECK(memcmp(sb, rb, sizeof sb) == 0, "partitioned data differs");
    CHECK_MPI(MPI_Request_free(&both[0]));
    CHECK_MPI(MPI_Request_free(&both[1]));
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    collectives(comm);
    local_calls(comm);
    point_to_point(comm);
    one_sided(comm);
    requests(comm);
    CHECK_MPI(MPI_Comm_free(&comm));
    TEST_PASS();
    CHECK_MPI(MPI_Finalize());
    return 0;
}
