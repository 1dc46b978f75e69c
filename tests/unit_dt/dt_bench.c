/*
 * Pack throughput against memcpy of the same number of bytes.
 *   dt_bench [block_bytes [stride_bytes]]     (defaults: 256-byte blocks, 512-byte stride)
 * For each total size it times: memcpy of the packed size (contiguous source), MPI_Pack of a
 * vector of the blocks, the same pack in 64 KiB pieces through empi_dt_pack (as pt2pt pipelines
 * it), and unpack. Reported as GB/s of packed bytes and as a fraction of memcpy.
 * The "pipe" columns model pt2pt's pipeline: the whole message is produced in 64 KiB pieces into
 * one reused 64 KiB staging buffer, against memcpy doing the same from a contiguous source, and
 * against a hand loop of one memcpy per block from the same strided source ("blockwise"), which is
 * what the memory system allows for this layout once the data lives in DRAM.
 * Then an array of struct {int; double; char[4]} records (padding inside and at the end),
 * in ns per record.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "datatype/datatype.h"
#include "mpi.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int block = argc > 1 ? atoi(argv[1]) : 256;
    int stride = argc > 2 ? atoi(argv[2]) : 2 * block;
    size_t totals[] = {256 << 10, 4 << 20, 64 << 20};
    printf("vector of %d-byte blocks, stride %d bytes\n", block, stride);
    printf("%10s %12s %12s %8s %12s %8s %12s %8s %12s %12s %8s %12s %8s\n", "packed", "memcpy GB/s", "pack GB/s", "ratio",
           "pieces GB/s", "ratio", "unpack GB/s", "ratio", "pipe memcpy", "pipe pack", "ratio", "blockwise", "pack/blk");
    for (size_t k = 0; k < sizeof totals / sizeof totals[0]; k++) {
        size_t total = totals[k];
        int nblocks = (int)(total / (size_t)block);
        size_t span = (size_t)nblocks * (size_t)stride;
        char *src = aligned_alloc(64, span), *dst = aligned_alloc(64, total), *contig = aligned_alloc(64, total);
        memset(src, 1, span), memset(dst, 2, total), memset(contig, 3, total);
        MPI_Datatype t;
        MPI_Type_create_hvector(nblocks, block, stride, MPI_BYTE, &t);
        MPI_Type_commit(&t);
        empi_datatype_t *dt = empi_datatype_get(t);
        int reps = total >= (64u << 20) ? 10 : total >= (4u << 20) ? 50 : 500;
        /* interleaved, best of reps: the four candidates see the same machine noise */
        double tm = 1e30, tp = 1e30, tq = 1e30, tu = 1e30, tpm = 1e30, tpp = 1e30, tbw = 1e30, t0;
        static char stage[65536];
        for (int r = 0; r < reps; r++) {
            t0 = now();
            memcpy(dst, contig, total);
            tm = fmin(tm, now() - t0);
            t0 = now();
            empi_dt_pack(src, 1, dt, 0, dst, (MPI_Count)total);
            tp = fmin(tp, now() - t0);
            t0 = now();
            for (size_t off = 0; off < total; off += 65536)
                empi_dt_pack(src, 1, dt, (MPI_Count)off, dst + off, 65536);
            tq = fmin(tq, now() - t0);
            t0 = now();
            empi_dt_unpack(src, 1, dt, 0, dst, (MPI_Count)total);
            tu = fmin(tu, now() - t0);
            t0 = now();
            for (size_t off = 0; off < total; off += 65536)
                memcpy(stage, contig + off, 65536);
            tpm = fmin(tpm, now() - t0);
            t0 = now();
            for (size_t off = 0; off < total; off += 65536)
                empi_dt_pack(src, 1, dt, (MPI_Count)off, stage, 65536);
            tpp = fmin(tpp, now() - t0);
            t0 = now();
            for (int b = 0; b < nblocks; b++)
                memcpy(dst + (size_t)b * block, src + (size_t)b * stride, (size_t)block);
            tbw = fmin(tbw, now() - t0);
        }
        /* check the pack once */
        empi_dt_pack(src, 1, dt, 0, dst, (MPI_Count)total);
        if (memcmp(dst, src, (size_t)block) != 0)
            printf("pack produced wrong bytes\n");
        double g = 1e-9 * (double)total;
        printf("%9zuK %12.2f %12.2f %7.0f%% %12.2f %7.0f%% %12.2f %7.0f%% %12.2f %12.2f %7.0f%% %12.2f %7.0f%%\n",
               total >> 10, g / tm, g / tp, 100 * tm / tp, g / tq, 100 * tm / tq, g / tu, 100 * tm / tu, g / tpm,
               g / tpp, 100 * tpm / tpp, g / tbw, 100 * tbw / tp);
        MPI_Type_free(&t);
        free(src), free(dst), free(contig);
    }
    struct rec { int i; double d; char c[4]; };
    enum { NREC = 1000000 };
    struct rec *recs = calloc(NREC, sizeof *recs);
    char *out = malloc(NREC * 16);
    int bl[] = {1, 1, 4};
    MPI_Aint di[] = {offsetof(struct rec, i), offsetof(struct rec, d), offsetof(struct rec, c)};
    MPI_Datatype ty[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, st;
    MPI_Type_create_struct(3, bl, di, ty, &st);
    MPI_Type_commit(&st);
    empi_datatype_t *sdt = empi_datatype_get(st);
    for (int n = 1000; n <= NREC; n *= 100) {
        double best = 1e30;
        for (int r = 0; r < 20; r++) {
            double t0 = now();
            empi_dt_pack(recs, n, sdt, 0, out, n * sdt->size);
            best = fmin(best, now() - t0);
        }
        printf("struct{int;double;char[4]} x %7d: %6.2f GB/s packed, %5.2f ns/record\n", n,
               1e-9 * (double)(n * sdt->size) / best, best / n * 1e9);
    }
    MPI_Type_free(&st);
    free(recs), free(out);
    return 0;
}
