/*
 * Under MPI_THREAD_MULTIPLE a blocking call blocks its own thread only (MPI 4.1 11.6.2), also when
 * it is made from a callback the library runs: an attribute delete function, an attribute copy
 * function and a communicator error handler each wait in MPI_Recv for a message that another
 * thread sends only after the callback has started. The library's lock was held once more by the
 * call running the callback, and a wait gave up only one level of it: the sender never got in.
 */
#include <pthread.h>
#include <unistd.h>

#include "empi_test.h"

#define TAG 77

static MPI_Comm comm;        /* a duplicate of MPI_COMM_SELF: each process talks to itself */
static int in_callback;      /* set by the callback before it blocks */
static int received;

static void wait_in_recv(void)
{
    __atomic_store_n(&in_callback, 1, __ATOMIC_RELEASE);
    int v = 0;
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, TAG, comm, MPI_STATUS_IGNORE));
    received = v;
}

static void *late_sender(void *arg)
{
    int v = *(int *)arg;
    while (!__atomic_load_n(&in_callback, __ATOMIC_ACQUIRE))
        usleep(1000);
    usleep(20000); /* the callback is inside MPI_Recv by now (or soon: either order must work) */
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, TAG, comm));
    return NULL;
}

static int delete_fn(MPI_Comm c, int keyval, void *value, void *extra)
{
    (void)c, (void)keyval, (void)value, (void)extra;
    wait_in_recv();
    return MPI_SUCCESS;
}

static int copy_fn(MPI_Comm c, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)keyval, (void)extra;
    wait_in_recv();
    *(void **)out = in;
    *flag = 0;
    return MPI_SUCCESS;
}

static void handler(MPI_Comm *c, int *code, ...)
{
    (void)c, (void)code;
    wait_in_recv();
}

/* Runs `body` while a second thread sends `value` once the callback has started. */
static void with_late_sender(int value, void (*body)(void), const char *what)
{
    pthread_t t;
    in_callback = 0;
    received = 0;
    CHECK(pthread_create(&t, NULL, late_sender, &value) == 0, "pthread_create");
    body();
    pthread_join(t, NULL);
    CHECK(received == value, "%s: the callback received %d, not %d", what, received, value);
}

static int keyval;

static void delete_attr(void)
{
    CHECK_MPI(MPI_Comm_set_attr(comm, keyval, NULL));
    CHECK_MPI(MPI_Comm_delete_attr(comm, keyval));
}

static void dup_with_attr(void)
{
    MPI_Comm copy;
    CHECK_MPI(MPI_Comm_dup(comm, &copy));
    CHECK_MPI(MPI_Comm_free(&copy));
}

static void raise_error(void)
{
    int v = 0;
    int rc = MPI_Send(&v, 1, MPI_INT, 5, TAG, comm); /* rank 5 of a one-rank communicator */
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "the error handler's call returned class %d", cls);
}

int main(int argc, char **argv)
{
    int provided;
    CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &comm));

    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &keyval, NULL));
    with_late_sender(4242, delete_attr, "delete function");
    CHECK_MPI(MPI_Comm_free_keyval(&keyval));

    CHECK_MPI(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &keyval, NULL));
    CHECK_MPI(MPI_Comm_set_attr(comm, keyval, NULL));
    with_late_sender(4343, dup_with_attr, "copy function");
    CHECK_MPI(MPI_Comm_delete_attr(comm, keyval));
    CHECK_MPI(MPI_Comm_free_keyval(&keyval));

    MPI_Errhandler eh;
    CHECK_MPI(MPI_Comm_create_errhandler(handler, &eh));
    CHECK_MPI(MPI_Comm_set_errhandler(comm, eh));
    CHECK_MPI(MPI_Errhandler_free(&eh));
    with_late_sender(4444, raise_error, "error handler");

    CHECK_MPI(MPI_Comm_free(&comm));
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
