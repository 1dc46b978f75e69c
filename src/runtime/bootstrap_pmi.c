/*
 * Bootstrap through a PMI-2 server: ranks started by another launcher that speaks the PMI-2 wire
 * protocol (Slurm's srun --mpi=pmi2, MPICH's Hydra mpiexec) find it on the descriptor in PMI_FD.
 * The handshake is one PMI-1 style line ("cmd=init pmi_version=2 ..."), then commands and answers
 * are "cmd=NAME;key=value;...;" strings behind a 6-character decimal length.
 *
 * Our values are binary and up to 64 KiB, PMI's are text of about 1 KiB: a value goes as hex in
 * pieces under short keys of its own (the rank, the fences it had passed, a hash of our key), the
 * first piece saying how many there are. Gets ask the server on a miss, for the latest value put
 * before our last fence (a faster rank may already have put a newer one: after a fence everyone
 * sees the same values, as with mpiexec), and keep it until the next fence. Hosts come from the
 * job's PMI_process_mapping, or else from every rank's host name.
 */
#include "core/fnv.h"
#include "runtime/bootstrap_addr.h"
#include "runtime/bootstrap_impl.h"
#include "runtime/bootstrap_kvs.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMI_MSG_MAX 4096
#define PIECE_BYTES 400 /* 800 hex digits: well inside a PMI-2 value (1024) */

static int pmi_fd = -1;
static int my_rank, world_size;
static int fences; /* passed by this rank */
static char pmi_jobid[256];
static int *node_of_rank;

static int send_cmd(const char *cmd)
{
    char len[7];
    snprintf(len, sizeof len, "%-6d", (int)strlen(cmd));
    return empi_boot_send_all(pmi_fd, len, 6) == 0 && empi_boot_send_all(pmi_fd, cmd, strlen(cmd)) == 0 ? 0 : -1;
}

/* One command and its answer (NUL-terminated in `answer`); -1 if the link fails. */
static int call(const char *cmd, char *answer, size_t cap)
{
    char len[7] = {0};
    if (send_cmd(cmd) != 0 || empi_boot_recv_all(pmi_fd, len, 6) != 0)
        return -1;
    long n = strtol(len, NULL, 10);
    if (n <= 0 || (size_t)n >= cap || empi_boot_recv_all(pmi_fd, answer, (size_t)n) != 0)
        return -1;
    answer[n] = '\0';
    return 0;
}

/* The value of `key` in an answer "cmd=...;key=value;..." into out; -1 if absent. */
static int field(const char *answer, const char *key, char *out, size_t cap)
{
    size_t klen = strlen(key);
    for (const char *p = answer; p && *p; p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL) {
        if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
            const char *v = p + klen + 1;
            size_t n = strcspn(v, ";");
            if (n >= cap)
                return -1;
            memcpy(out, v, n);
            out[n] = '\0';
            return 0;
        }
    }
    return -1;
}

static int answer_ok(const char *answer)
{
    char rc[16];
    return field(answer, "rc", rc, sizeof rc) == 0 && strcmp(rc, "0") == 0;
}

static uint64_t fnv64(const char *s)
{
    return empi_fnv1a64(EMPI_FNV64_BASIS, s, strlen(s));
}

static void piece_key(char *out, size_t cap, int rank, int epoch, const char *key, int piece)
{
    snprintf(out, cap, "e%d-%d-%016llx-%d", rank, epoch, (unsigned long long)fnv64(key), piece);
}

static int kvs_put(const char *key, const char *value)
{
    char cmd[PMI_MSG_MAX], answer[PMI_MSG_MAX];
    snprintf(cmd, sizeof cmd, "cmd=kvs-put;key=%s;value=%s;", key, value);
    return call(cmd, answer, sizeof answer) == 0 && answer_ok(answer) ? 0 : -1;
}

/* 0 with the value, -1 if the key is not there (yet), -2 if the server cannot be reached. */
static int kvs_get(const char *key, char *value, size_t cap)
{
    char cmd[PMI_MSG_MAX], answer[PMI_MSG_MAX], found[16];
    snprintf(cmd, sizeof cmd, "cmd=kvs-get;jobid=%s;srcid=-1;key=%s;", pmi_jobid, key);
    if (call(cmd, answer, sizeof answer) != 0)
        return -2;
    if (!answer_ok(answer))
        return -1;
    if (field(answer, "found", found, sizeof found) == 0 && strcmp(found, "TRUE") != 0)
        return -1;
    return field(answer, "value", value, cap);
}

static int pmi_put(const char *key, const void *val, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *b = val;
    int pieces = len ? (int)((len + PIECE_BYTES - 1) / PIECE_BYTES) : 1;
    for (int i = 0; i < pieces; i++) {
        char k[96], v[2 * PIECE_BYTES + 32];
        size_t off = (size_t)i * PIECE_BYTES, n = len - off < PIECE_BYTES ? len - off : PIECE_BYTES;
        int w = i == 0 ? snprintf(v, sizeof v, "%d:", pieces) : 0;
        for (size_t j = 0; j < n; j++) {
            v[w++] = hex[b[off + j] >> 4];
            v[w++] = hex[b[off + j] & 15];
        }
        v[w] = '\0';
        piece_key(k, sizeof k, my_rank, fences, key, i);
        if (kvs_put(k, v) != 0)
            return -1;
    }
    return empi_kvs_store(my_rank, key, strlen(key), val, len);
}

static int unhex(const char *s, unsigned char *out, size_t cap, size_t *len)
{
    size_t n = strlen(s);
    if (n % 2 || n / 2 > cap)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (unsigned char)v;
    }
    *len = n / 2;
    return 0;
}

static int pmi_fetch(int rank, const char *key)
{
    char k[96], v[PMI_MSG_MAX];
    int epoch = fences - 1, got = -1;
    for (; epoch >= 0 && got == -1; epoch -= got != 0) {
        piece_key(k, sizeof k, rank, epoch, key, 0);
        got = kvs_get(k, v, sizeof v);
    }
    if (got != 0)
        return -1;
    char *colon = strchr(v, ':');
    int pieces = atoi(v);
    if (!colon || pieces < 1 || pieces > EMPI_BOOT_MAX_VALUE / PIECE_BYTES + 1)
        return -1;
    unsigned char *buf = malloc((size_t)pieces * PIECE_BYTES);
    size_t total = 0, n = 0;
    int rc = buf ? unhex(colon + 1, buf, PIECE_BYTES, &n) : -1;
    for (int i = 1; rc == 0 && i < pieces; i++) {
        total += n;
        piece_key(k, sizeof k, rank, epoch, key, i);
        rc = kvs_get(k, v, sizeof v) == 0 ? unhex(v, buf + total, PIECE_BYTES, &n) : -1;
    }
    total += n;
    if (rc == 0)
        rc = empi_kvs_store(rank, key, strlen(key), buf, total);
    free(buf);
    return rc;
}

/*
 * Our fence is a barrier, and PMI-2's kvs-fence need not be one: Slurm's waits for every rank and
 * only then shows their puts, Hydra's returns at once (puts are visible as soon as made). So each
 * rank also puts a key for this fence, and waits until it sees everyone's.
 */
static int pmi_fence(void)
{
    char answer[PMI_MSG_MAX], k[64], v[64];
    snprintf(k, sizeof k, "f%d-%d", fences, my_rank);
    if (kvs_put(k, "1") != 0 || call("cmd=kvs-fence;", answer, sizeof answer) != 0 || !answer_ok(answer))
        return -1;
    for (int r = 0; r < world_size; r++) {
        snprintf(k, sizeof k, "f%d-%d", fences, r);
        int got;
        while ((got = kvs_get(k, v, sizeof v)) == -1)
            usleep(100);
        if (got != 0)
            return -1;
    }
    fences++;
    empi_kvs_clear(); /* values may have changed: ask again */
    return 0;
}

/* "(vector,(first_node,nodes,ranks_per_node),...)" into node_of_rank; 0 if it covers every rank. */
static int parse_mapping(const char *m)
{
    if (strncmp(m, "(vector", 7) != 0)
        return -1;
    int rank = 0;
    for (const char *p = strchr(m + 1, '('); p && rank < world_size; p = strchr(p + 1, '(')) {
        int first, nodes, per;
        if (sscanf(p, "(%d,%d,%d)", &first, &nodes, &per) != 3 || nodes < 1 || per < 1)
            return -1;
        for (int n = 0; n < nodes && rank < world_size; n++)
            for (int k = 0; k < per && rank < world_size; k++)
                node_of_rank[rank++] = first + n;
    }
    return rank == world_size ? 0 : -1;
}

/* Without a mapping: every rank's host name, numbered in order of first appearance. */
static int hosts_by_name(void)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    if (pmi_put("host", host, strlen(host) + 1) != 0 || pmi_fence() != 0)
        return -1;
    char (*names)[256] = calloc((size_t)world_size, sizeof *names);
    if (!names)
        return -1;
    int nodes = 0, rc = 0;
    for (int r = 0; r < world_size && rc == 0; r++) {
        size_t len;
        const char *name = pmi_fetch(r, "host") == 0 ? empi_kvs_lookup(r, "host", &len) : NULL;
        if (!name || len == 0 || len > sizeof names[r] || name[len - 1] != '\0') {
            rc = -1;
            break;
        }
        memcpy(names[r], name, len);
        int n = 0;
        while (n < r && strcmp(names[n], names[r]) != 0)
            n++;
        node_of_rank[r] = n < r ? node_of_rank[n] : nodes++;
    }
    free(names);
    return rc;
}

static int env_int(const char *name, int fallback)
{
    const char *s = getenv(name);
    return s && *s ? atoi(s) : fallback;
}

static int pmi_init(empi_boot_info_t *info)
{
    pmi_fd = env_int("PMI_FD", -1);
    char line[256], answer[PMI_MSG_MAX], v[256];
    static const char init[] = "cmd=init pmi_version=2 pmi_subversion=0\n";
    size_t n = 0;
    if (pmi_fd < 0 || empi_boot_send_all(pmi_fd, init, sizeof init - 1) != 0)
        goto fail;
    while (n + 1 < sizeof line && empi_boot_recv_all(pmi_fd, line + n, 1) == 0 && line[n] != '\n')
        n++;
    line[n] = '\0';
    if (!strstr(line, "rc=0") || !strstr(line, "pmi_version=2"))
        goto fail;
    snprintf(line, sizeof line, "cmd=fullinit;pmirank=%d;", env_int("PMI_RANK", 0));
    if (call(line, answer, sizeof answer) != 0 || !answer_ok(answer) || field(answer, "rank", v, sizeof v) != 0)
        goto fail;
    my_rank = atoi(v);
    world_size = field(answer, "size", v, sizeof v) == 0 ? atoi(v) : 0;
    info->appnum = field(answer, "appnum", v, sizeof v) == 0 ? atoi(v) : 0;
    if (world_size < 1 || my_rank < 0 || my_rank >= world_size || call("cmd=job-getid;", answer, sizeof answer) != 0 ||
        field(answer, "jobid", pmi_jobid, sizeof pmi_jobid) != 0)
        goto fail;
    node_of_rank = calloc((size_t)world_size, sizeof *node_of_rank);
    if (!node_of_rank)
        goto fail;
    char mapping[PMI_MSG_MAX];
    if (call("cmd=info-getjobattr;key=PMI_process_mapping;", answer, sizeof answer) != 0 ||
        field(answer, "value", mapping, sizeof mapping) != 0 || parse_mapping(mapping) != 0) {
        if (hosts_by_name() != 0)
            goto fail;
    }
    info->rank = my_rank;
    info->size = info->universe_size = world_size;
    info->node_id = node_of_rank[my_rank];
    for (int r = 0; r < world_size; r++) {
        info->num_nodes = node_of_rank[r] + 1 > info->num_nodes ? node_of_rank[r] + 1 : info->num_nodes;
        if (node_of_rank[r] == info->node_id) {
            info->local_rank += r < my_rank;
            info->local_size++;
        }
    }
    /* /dev/shm names take [0-9a-f]: the server's job id, hashed */
    snprintf(info->jobid, sizeof info->jobid, "%016llx", (unsigned long long)fnv64(pmi_jobid));
    return 0;
fail:
    fprintf(stderr, "empi bootstrap: the PMI-2 server on PMI_FD=%s did not answer as expected\n",
            getenv("PMI_FD") ? getenv("PMI_FD") : "(unset)");
    return -1;
}

static void pmi_abort(int errorcode, const char *msg)
{
    char cmd[PMI_MSG_MAX], clean[1024];
    snprintf(clean, sizeof clean, "%s", msg);
    for (char *p = clean; *p; p++)
        if (*p == ';' || *p == '=' || *p == '\n')
            *p = ' ';
    fprintf(stderr, "MPI_Abort(%d) on rank %d: %s\n", errorcode, my_rank, msg);
    snprintf(cmd, sizeof cmd, "cmd=abort;isworldabort=TRUE;msg=%s;", clean);
    send_cmd(cmd);
    _exit(empi_boot_abort_status(errorcode));
}

static int pmi_finalize(void)
{
    char answer[PMI_MSG_MAX];
    int rc = call("cmd=finalize;", answer, sizeof answer) == 0 && answer_ok(answer) ? 0 : -1;
    close(pmi_fd);
    pmi_fd = -1;
    free(node_of_rank);
    node_of_rank = NULL;
    return rc;
}

static int pmi_node_of(int rank)
{
    return node_of_rank && rank < world_size ? node_of_rank[rank] : -1;
}

const empi_boot_ops_t empi_boot_pmi_ops = {
    pmi_init, pmi_put, pmi_fence, pmi_abort, pmi_finalize, pmi_node_of, pmi_fetch,
};
