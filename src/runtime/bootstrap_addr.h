/* Addresses of the bootstrap server, shared by the client in the library and by mpiexec (its
 * proxies connect the same way): "unix:@NAME" (an abstract socket name) on one host, "tcp:IPV4:PORT" across hosts. */
#ifndef EMPI_RUNTIME_BOOTSTRAP_ADDR_H
#define EMPI_RUNTIME_BOOTSTRAP_ADDR_H

#include <stddef.h>

#define EMPI_BOOT_ADDR_TCP "tcp:"

/* Whole-buffer blocking I/O on a stream socket (EINTR retried, no SIGPIPE). 0, or -1 when the
 * peer is gone. */
int empi_boot_send_all(int fd, const void *buf, size_t len);
int empi_boot_recv_all(int fd, void *buf, size_t len);

/* A connected, blocking, close-on-exec stream socket, or -1 (errno set; EINVAL: malformed address). */
int empi_boot_addr_connect(const char *addr);

#endif
