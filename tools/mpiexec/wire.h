/* The link between mpiexec and its proxies on remote hosts: message types (framed like the
 * bootstrap protocol, empi_boot_hdr_t + payload, on the same listener), their encoding, and the
 * TCP helpers both sides need.
 *
 *   proxy -> mpiexec                          mpiexec -> proxy
 *   PROXY_HELLO  cookie[32] u32 host, name    PROXY_SETUP  see remote.c (what to start)
 *   PROXY_OUTPUT u32 rank u32 fd, bytes       PROXY_KILL   u32 signal
 *               (no bytes: that stream ended) PROXY_STDIN  bytes for rank 0 (none: EOF)
 *   PROXY_EXIT   u32 rank i32 pid i32 status   PROXY_STDIN_ACK u32 0 u32 bytes of stdin done with
 */
#ifndef EMPI_MPIEXEC_WIRE_H
#define EMPI_MPIEXEC_WIRE_H

#include <stddef.h>
#include <stdint.h>

enum {
    PROXY_HELLO = 100,
    PROXY_SETUP,
    PROXY_OUTPUT,
    PROXY_EXIT,
    PROXY_KILL,
    PROXY_STDIN,
    PROXY_STDIN_ACK,
};

/* Longest host name a proxy reports. */
#define PROXY_NAME_MAX 255

typedef struct wbuf {
    unsigned char *data;
    size_t len, cap;
} wbuf_t;

void wbuf_bytes(wbuf_t *b, const void *p, size_t n);
void wbuf_u32(wbuf_t *b, uint32_t v);
void wbuf_str(wbuf_t *b, const char *s);   /* u32 length, then the bytes */
void wbuf_strs(wbuf_t *b, char *const *s, int n);  /* u32 n, then n strings */
void wbuf_free(wbuf_t *b);

typedef struct rbuf {
    const unsigned char *p;
    size_t left;
    int bad;     /* set by a read past the end; results are then zero / empty */
} rbuf_t;

uint32_t rbuf_u32(rbuf_t *r);
char *rbuf_str(rbuf_t *r);   /* malloc'd, NUL-terminated */
/* What wbuf_strs wrote: a malloc'd NULL-terminated array of *n strings (NULL and r->bad set
 * when the count cannot be right). */
char **rbuf_strs(rbuf_t *r, int *n);

/* Blocking whole-message I/O. 0 on success. */
int wire_send(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen);
int wire_recv(int fd, uint32_t *type, unsigned char **payload, uint32_t *len);

/* TCP listener on ip (port 0: any). Writes "tcp:IP:PORT" to addr. Returns the fd or -1. */
int wire_listen_tcp(const char *ip, int port, char *addr, size_t addrlen);
/* The local IPv4 address the kernel would use to reach `host` (a name or an address). 0 on success. */
int wire_route_to(const char *host, char *ip, size_t iplen);

#endif
