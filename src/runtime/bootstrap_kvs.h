/* Process-local cache of (rank, key) -> value records, used by both bootstrap
 * implementations: the launcher client fills it from fence results, the singleton
 * from its own puts. */
#ifndef EMPI_RUNTIME_BOOTSTRAP_KVS_H
#define EMPI_RUNTIME_BOOTSTRAP_KVS_H

#include <stddef.h>

/* Insert or replace. 0 on success, -1 when out of memory. */
int empi_kvs_store(int rank, const char *key, size_t keylen, const void *val, size_t len);
/* Pointer to the stored bytes, or NULL when absent. */
const void *empi_kvs_lookup(int rank, const char *key, size_t *len);
void empi_kvs_clear(void);

#endif
