/* Selectors for the one-sided cases (bench_case.op). */
#ifndef EMPI_BENCH_RMA_OPS_H
#define EMPI_BENCH_RMA_OPS_H
enum rma_op { RMA_PUT_LAT, RMA_GET_LAT, RMA_PUT_BW, RMA_GET_BW, RMA_ACC_LAT };
#endif
