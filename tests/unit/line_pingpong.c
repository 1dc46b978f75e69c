/*
 * Microbenchmark, not a test: how long one cache line takes to go between CPU 0 and CPU 1 and
 * back (two threads, one pinned to each, bouncing a counter). On a virtual machine it tells the
 * good minutes (~110 ns here) from the bad ones (~500 ns), in which every shared-memory copy
 * between the two cores slows down (docs/PERFORMANCE.md, run I). Usage: line_pingpong [rounds]
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static _Alignas(64) _Atomic long counter;
static long rounds = 200000;

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

/* Answers every odd value with the next even one. */
static void *responder(void *arg)
{
    (void)arg;
    pin(1);
    for (long i = 0; i < rounds; i++) {
        while (atomic_load_explicit(&counter, memory_order_acquire) != 2 * i + 1)
            ;
        atomic_store_explicit(&counter, 2 * i + 2, memory_order_release);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        rounds = atol(argv[1]);
    pthread_t t;
    pin(0);
    if (pthread_create(&t, NULL, responder, NULL) != 0)
        return 1;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < rounds; i++) {
        atomic_store_explicit(&counter, 2 * i + 1, memory_order_release);
        while (atomic_load_explicit(&counter, memory_order_acquire) != 2 * i + 2)
            ;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    pthread_join(t, NULL);
    double ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)rounds;
    printf("cache line round trip between CPU 0 and 1: %.0f ns\n", ns);
    return 0;
}
