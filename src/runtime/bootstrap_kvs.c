/* Chained hash table keyed by (rank, key). The table doubles whenever it holds as
 * many records as buckets, so lookups stay O(1) with thousands of ranks x keys. */
#include "runtime/bootstrap_kvs.h"

#include "core/fnv.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct kvs_record {
    struct kvs_record *next;
    uint64_t hash;
    int rank;
    size_t keylen, vallen;
    char *key;        /* NUL-terminated, in the same allocation as the record */
    unsigned char *val;
} kvs_record_t;

static kvs_record_t **buckets;
static size_t nbuckets, nrecords;

static uint64_t hash_of(int rank, const char *key, size_t keylen)
{
    return empi_fnv1a64(EMPI_FNV64_BASIS ^ (uint64_t)(unsigned)rank, key, keylen);
}

static int grow(void)
{
    size_t n = nbuckets ? nbuckets * 2 : 256;
    kvs_record_t **fresh = calloc(n, sizeof *fresh);
    if (!fresh)
        return -1;
    for (size_t b = 0; b < nbuckets; b++) {
        kvs_record_t *r = buckets[b];
        while (r) {
            kvs_record_t *next = r->next;
            r->next = fresh[r->hash & (n - 1)];
            fresh[r->hash & (n - 1)] = r;
            r = next;
        }
    }
    free(buckets);
    buckets = fresh;
    nbuckets = n;
    return 0;
}

static kvs_record_t **find_slot(int rank, const char *key, size_t keylen, uint64_t h)
{
    kvs_record_t **p = &buckets[h & (nbuckets - 1)];
    for (; *p; p = &(*p)->next) {
        kvs_record_t *r = *p;
        if (r->hash == h && r->rank == rank && r->keylen == keylen &&
            memcmp(r->key, key, keylen) == 0)
            break;
    }
    return p;
}

int empi_kvs_store(int rank, const char *key, size_t keylen, const void *val, size_t len)
{
    if (nrecords >= nbuckets && grow() != 0)
        return -1;
    uint64_t h = hash_of(rank, key, keylen);
    kvs_record_t *r = malloc(sizeof *r + keylen + 1 + len);
    if (!r)
        return -1;
    r->hash = h;
    r->rank = rank;
    r->keylen = keylen;
    r->vallen = len;
    r->key = (char *)(r + 1);
    memcpy(r->key, key, keylen);
    r->key[keylen] = '\0';
    r->val = (unsigned char *)r->key + keylen + 1;
    if (len)
        memcpy(r->val, val, len);

    kvs_record_t **slot = find_slot(rank, key, keylen, h);
    if (*slot) { /* replace: a later put of the same key wins */
        r->next = (*slot)->next;
        free(*slot);
    } else {
        r->next = NULL;
        nrecords++;
    }
    *slot = r;
    return 0;
}

const void *empi_kvs_lookup(int rank, const char *key, size_t *len)
{
    if (!nbuckets)
        return NULL;
    size_t keylen = strlen(key);
    kvs_record_t *r = *find_slot(rank, key, keylen, hash_of(rank, key, keylen));
    if (!r)
        return NULL;
    *len = r->vallen;
    return r->val;
}

void empi_kvs_clear(void)
{
    for (size_t b = 0; b < nbuckets; b++) {
        kvs_record_t *r = buckets[b];
        while (r) {
            kvs_record_t *next = r->next;
            free(r);
            r = next;
        }
    }
    free(buckets);
    buckets = NULL;
    nbuckets = nrecords = 0;
}
