/*
 * Learning which of two ways of moving data is cheaper, per power-of-two size class, from timings
 * of the way taken: both are tried alternately first (way 0 first), then the cheaper is kept and
 * the other retried every 16th time (every 64th once it has proved 1.5x worse), so that a change
 * is noticed. On this project's virtual machines the answer flips when the hypervisor moves the
 * cores apart or together (pt2pt/stream_choice.c, coll/shm's segment copies). Pure: unit-tested.
 */
#ifndef EMPI_WAY_CHOICE_H
#define EMPI_WAY_CHOICE_H

#include <stdint.h>

#define EMPI_WAY_CLASSES 48

typedef struct empi_way_choice {
    double bias;                        /* way 1 must cost under 1/bias of way 0 to be taken (0: 1) */
    double cost[EMPI_WAY_CLASSES][2];   /* seconds per byte: least of the first samples, then a moving average */
    unsigned samples[EMPI_WAY_CLASSES][2];
    unsigned seen[EMPI_WAY_CLASSES];
} empi_way_choice_t;

/* The way (0 or 1) to take for `bytes`; a zeroed empi_way_choice_t has learnt nothing. */
int empi_way_choose(empi_way_choice_t *w, uint64_t bytes);
/* The way taken for `bytes` cost `secs`. */
void empi_way_learn(empi_way_choice_t *w, int way, uint64_t bytes, double secs);
/* 1 once both ways of bytes' class are measured and way 1 has been the cheaper. */
int empi_way_second_cheaper(const empi_way_choice_t *w, uint64_t bytes);

#endif
