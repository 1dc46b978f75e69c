/* Addresses of the bootstrap server, shared by the client in the library and by mpiexec (its
 * proxies connect the same way): "unix:PATH" on one host, "tcp:IPV4:PORT" across hosts. */
#ifndef EMPI_RUNTIME_BOOTSTRAP_ADDR_H
#define EMPI_RUNTIME_BOOTSTRAP_ADDR_H

#define EMPI_BOOT_ADDR_TCP "tcp:"

/* A connected, blocking, close-on-exec stream socket, or -1 (errno set; EINVAL: malformed address). */
int empi_boot_addr_connect(const char *addr);

#endif
