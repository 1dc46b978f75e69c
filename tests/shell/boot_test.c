/* Test program for mpiexec and the bootstrap client, used by the shell tests.
 * Usage: boot_test MODE [args...]; see the table at the bottom. Every mode prints
 * "jobid <id>" from rank 0 first, so scripts can check /dev/shm cleanup. */
#include "runtime/bootstrap.h"
#include "runtime/bootstrap_addr.h"
#include "runtime/bootstrap_proto.h"

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static empi_boot_info_t info;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "rank %d: check failed: %s: ", info.rank, #cond); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
            exit(2);                                                       \
        }                                                                  \
    } while (0)

static void start(void)
{
    CHECK(empi_boot_init(&info) == 0, "init");
    if (info.rank == 0) {
        printf("jobid %s\n", info.jobid);
        fflush(stdout);
    }
}

static void finish(void)
{
    CHECK(empi_boot_finalize() == 0, "finalize");
}

/* A segment in /dev/shm named like the MPI library's, which mpiexec must remove. */
static void make_shm(void)
{
    char name[64];
    snprintf(name, sizeof name, "/empi-%s-test%d", info.jobid, info.rank);
    int fd = shm_open(name, O_CREAT | O_RDWR, 0600);
    CHECK(fd >= 0, "shm_open %s", name);
    close(fd);
}

static void sleep_forever(void)
{
    for (;;)
        pause();
}

/* Deterministic value of `len` bytes for (rank, key index, round), zeros included. */
static void fill(unsigned char *buf, size_t len, int rank, int k, int round)
{
    uint32_t x = (uint32_t)(rank * 7919 + k * 104729 + round * 15485863 + 1);
    for (size_t i = 0; i < len; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (unsigned char)(x >> 16);
    }
}

static size_t value_len(int rank, int k)
{
    if (k == 0 && rank < 8)
        return EMPI_BOOT_MAX_VALUE; /* maximal values, from a few ranks to keep it quick */
    return (size_t)((rank * 31 + k * 17) % 300);
}

static int mode_kv(int argc, char **argv)
{
    int nkeys = argc > 2 ? atoi(argv[2]) : 4;
    static unsigned char want[EMPI_BOOT_MAX_VALUE], got[EMPI_BOOT_MAX_VALUE];
    char key[32];
    start();
    CHECK(!info.is_singleton && info.size >= 1 && info.local_size == info.size, "layout");
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k < nkeys; k++) {
            snprintf(key, sizeof key, "key%d", k);
            fill(want, value_len(info.rank, k), info.rank, k, round);
            CHECK(empi_boot_put(key, want, value_len(info.rank, k)) == 0, "put");
        }
        CHECK(empi_boot_fence() == 0, "fence");
        for (int r = 0; r < info.size; r++) {
            CHECK(empi_boot_node_of(r) == 0, "node_of(%d)", r);
            for (int k = 0; k < nkeys; k++) {
                size_t len = 0, expect = value_len(r, k);
                snprintf(key, sizeof key, "key%d", k);
                fill(want, expect, r, k, round);
                CHECK(empi_boot_get(r, key, got, sizeof got, &len) == 0, "get %d %s", r, key);
                CHECK(len == expect && memcmp(got, want, len) == 0,
                      "value of rank %d %s round %d (len %zu, expected %zu)", r, key, round,
                      len, expect);
            }
            size_t len;
            CHECK(empi_boot_get(r, "absent", got, sizeof got, &len) != 0, "absent key");
            /* Too small a buffer fails but reports the size. */
            len = 0;
            CHECK(empi_boot_get(r, "key0", NULL, 0, &len) == (value_len(r, 0) ? -1 : 0) &&
                      len == value_len(r, 0), "size query of rank %d key0", r);
        }
    }
    finish();
    printf("kv ok rank %d of %d\n", info.rank, info.size);
    return 0;
}

/* Send a HELLO by hand with the given cookie and our rank; 1 if the launcher refuses. */
static int hello_is_refused(const char *fake_cookie)
{
    const char *addr = getenv("EMPI_LAUNCHER_ADDR");
    CHECK(addr && !strncmp(addr, "unix:@", 6), "address");
    int fd = empi_boot_addr_connect(addr);
    CHECK(fd >= 0, "connect");
    unsigned char msg[sizeof(empi_boot_hdr_t) + EMPI_BOOT_COOKIE_HEX + 4];
    empi_boot_hdr_t hdr = { EMPI_BOOT_HELLO, EMPI_BOOT_COOKIE_HEX + 4 };
    uint32_t rank = (uint32_t)info.rank;
    memcpy(msg, &hdr, sizeof hdr);
    memset(msg + sizeof hdr, '0', EMPI_BOOT_COOKIE_HEX);
    memcpy(msg + sizeof hdr, fake_cookie, strlen(fake_cookie));
    memcpy(msg + sizeof hdr + EMPI_BOOT_COOKIE_HEX, &rank, 4);
    CHECK(write(fd, msg, sizeof msg) == (ssize_t)sizeof msg, "send hello");
    empi_boot_hdr_t reply = { 0, 0 };
    ssize_t n = read(fd, &reply, sizeof reply);
    close(fd);
    /* Refused means: an explicit REJECT, or the connection closed. */
    return n <= 0 || reply.type == EMPI_BOOT_REJECT;
}

static int mode_cookie(void)
{
    const char *real = getenv("EMPI_COOKIE");
    char wrong[EMPI_BOOT_COOKIE_HEX + 1];
    CHECK(real && strlen(real) == EMPI_BOOT_COOKIE_HEX, "cookie env");
    memcpy(wrong, real, sizeof wrong);
    wrong[5] = wrong[5] == 'a' ? 'b' : 'a'; /* one wrong digit */
    info.rank = atoi(getenv("EMPI_RANK"));
    int refused_wrong = hello_is_refused(wrong);
    int refused_empty = hello_is_refused("");
    start(); /* the real client still gets in afterwards */
    CHECK(refused_wrong && refused_empty, "wrong cookie was accepted");
    /* The right cookie cannot claim a rank that is already connected. */
    CHECK(hello_is_refused(real), "a second connection for rank %d was accepted", info.rank);
    CHECK(empi_boot_fence() == 0, "fence");
    finish();
    printf("cookie refused rank %d\n", info.rank);
    return 0;
}

static int mode_crash(void)
{
    start();
    make_shm();
    CHECK(empi_boot_fence() == 0, "fence");
    if (info.rank == info.size - 1) {
        if (fork() == 0) /* a descendant that must die with the job */
            sleep_forever();
        signal(SIGSEGV, SIG_DFL); /* sanitizers install their own handler */
        printf("rank %d crashes now\n", info.rank); /* no fflush: stdout is line-buffered */
        raise(SIGSEGV);
    }
    sleep_forever();
    return 0;
}

static int mode_noexit(int code)
{
    start();
    make_shm();
    CHECK(empi_boot_fence() == 0, "fence");
    if (info.rank == info.size - 1)
        exit(code);
    sleep_forever();
    return 0;
}

static int mode_abort(int code)
{
    start();
    CHECK(empi_boot_fence() == 0, "fence");
    if (info.rank == info.size - 1)
        empi_boot_abort(code, "test abort");
    sleep_forever();
    return 0;
}

static int mode_sleep(void);

/* Ignores SIGTERM, so only the launcher's SIGKILL can end it. */
static int mode_stubborn(void)
{
    signal(SIGTERM, SIG_IGN);
    return mode_sleep();
}

static int mode_sleep(void)
{
    start();
    make_shm();
    CHECK(empi_boot_fence() == 0, "fence");
    printf("ready %d\n", info.rank);
    fflush(stdout);
    sleep_forever();
    return 0;
}

/* Lines forever (a job whose output goes to `head -1`). */
static int mode_chatter(void)
{
    start();
    for (unsigned long i = 0; printf("line %lu of rank %d\n", i, info.rank) > 0; i++)
        ;
    return 0;
}

static volatile sig_atomic_t got_signal;
static void note_signal(int sig)
{
    got_signal = sig;
}

/* Waits for SIGUSR1 or SIGUSR2 from the launcher, says which, and finishes normally. */
static int mode_usr(void)
{
    signal(SIGUSR1, note_signal);
    signal(SIGUSR2, note_signal);
    start();
    CHECK(empi_boot_fence() == 0, "fence");
    printf("ready %d\n", info.rank);
    fflush(stdout);
    while (!got_signal)
        pause();
    printf("rank %d got signal %d\n", info.rank, (int)got_signal);
    fflush(stdout);
    finish();
    return 0;
}

/* Rank `who` exits 0 without contacting the launcher; the others start and wait in a fence. */
static int mode_preinit(int who)
{
    const char *r = getenv("EMPI_RANK");
    if (r && atoi(r) == who)
        return 0;
    start();
    CHECK(empi_boot_fence() == 0, "fence");
    finish();
    return 0;
}

/* Many long lines through a fully buffered stdout, so writes cut lines anywhere. */
static int mode_lines(int nlines, int len)
{
    static char buf[1 << 16];
    start();
    setvbuf(stdout, buf, _IOFBF, sizeof buf);
    for (int i = 0; i < nlines; i++) {
        printf("<%d:%d:", info.rank, i);
        for (int j = 0; j < len; j++)
            putchar('a' + (info.rank + i + j) % 26);
        printf(">\n");
        if (i % 3 == 0)
            fprintf(stderr, "<err %d:%d>\n", info.rank, i);
    }
    printf("tail-without-newline-%d", info.rank);
    fflush(stdout);
    finish();
    return 0;
}

static int mode_stdin(void)
{
    char buf[4096];
    size_t total = 0, lines = 0;
    ssize_t n;
    start();
    while ((n = read(0, buf, sizeof buf)) > 0) {
        total += (size_t)n;
        for (ssize_t i = 0; i < n; i++)
            lines += buf[i] == '\n';
    }
    printf("rank %d stdin bytes %zu lines %zu\n", info.rank, total, lines);
    finish();
    return 0;
}

static int mode_env(int argc, char **argv)
{
    start();
    for (int i = 2; i < argc; i++) {
        const char *v = getenv(argv[i]);
        printf("rank %d %s=%s\n", info.rank, argv[i], v ? v : "(unset)");
    }
    finish();
    return 0;
}

static int mode_cwd(void)
{
    start();
    char dir[4096];
    printf("rank %d cwd %s\n", info.rank, getcwd(dir, sizeof dir) ? dir : "(unknown)");
    finish();
    return 0;
}

/* Rank `who` exits with `code` after a clean finalize. */
static int mode_exitcode(int who, int code)
{
    start();
    CHECK(empi_boot_fence() == 0, "fence");
    finish();
    return info.rank == who ? code : 0;
}

static int mode_singleton(void)
{
    unsigned char v[3] = { 1, 0, 2 }, got[8];
    size_t len;
    CHECK(empi_boot_init(&info) == 0, "init");
    CHECK(info.is_singleton && info.rank == 0 && info.size == 1, "singleton layout");
    CHECK(strlen(info.jobid) > 0 && strspn(info.jobid, "0123456789abcdef") ==
                                        strlen(info.jobid), "jobid %s", info.jobid);
    CHECK(empi_boot_put("k", v, 3) == 0 && empi_boot_fence() == 0, "put/fence");
    CHECK(empi_boot_get(0, "k", got, sizeof got, &len) == 0 && len == 3 &&
              !memcmp(got, v, 3), "get");
    CHECK(empi_boot_node_of(0) == 0, "node_of");
    finish();
    printf("singleton ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int a = argc > 2 ? atoi(argv[2]) : 0, b = argc > 3 ? atoi(argv[3]) : 0;
    if (!strcmp(mode, "kv"))        return mode_kv(argc, argv);
    if (!strcmp(mode, "cookie"))    return mode_cookie();
    if (!strcmp(mode, "crash"))     return mode_crash();
    if (!strcmp(mode, "noexit"))    return mode_noexit(a);
    if (!strcmp(mode, "abort"))     return mode_abort(a);
    if (!strcmp(mode, "sleep"))     return mode_sleep();
    if (!strcmp(mode, "stubborn"))  return mode_stubborn();
    if (!strcmp(mode, "lines"))     return mode_lines(a, b);
    if (!strcmp(mode, "stdin"))     return mode_stdin();
    if (!strcmp(mode, "env"))       return mode_env(argc, argv);
    if (!strcmp(mode, "cwd"))       return mode_cwd();
    if (!strcmp(mode, "exitcode"))  return mode_exitcode(a, b);
    if (!strcmp(mode, "singleton")) return mode_singleton();
    if (!strcmp(mode, "chatter"))   return mode_chatter();
    if (!strcmp(mode, "usr"))       return mode_usr();
    if (!strcmp(mode, "preinit"))   return mode_preinit(a);
    fprintf(stderr, "usage: boot_test kv [nkeys] | cookie | crash | noexit CODE | abort CODE |"
                    " sleep | stubborn | lines N LEN | stdin | env NAME... | exitcode RANK CODE |"
                    " singleton | chatter | usr | preinit RANK\n");
    return 64;
}
