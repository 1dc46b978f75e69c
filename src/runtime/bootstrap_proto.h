/* Wire protocol between the bootstrap client (a rank) and mpiexec.
 * Shared by src/runtime/bootstrap_launcher.c and tools/mpiexec/.
 *
 * Every message is a header followed by `len` payload bytes. Integers are in host
 * byte order: across hosts (tcp: addresses) every host must share one byte order,
 * as the MPI packets themselves require.
 *
 *   client -> server                         server -> client
 *   HELLO    cookie[32 hex] u32 rank         HELLO_OK  u32 size, u32 node_of[size]
 *                                            REJECT    text (then the server closes)
 *   FENCE    puts since last fence           FENCE_DONE  all ranks' puts of this round
 *   ABORT    u32 code, text                  (no reply: the launcher kills the job)
 *   FINALIZE (empty)                         FINALIZE_OK (empty)
 *
 * A "puts" payload is a sequence of entries: u32 keylen, u32 vallen, key, value.
 * FENCE_DONE is a sequence of sections: u32 rank, u32 bytes, that rank's puts. */
#ifndef EMPI_RUNTIME_BOOTSTRAP_PROTO_H
#define EMPI_RUNTIME_BOOTSTRAP_PROTO_H

#include <stdint.h>

enum empi_boot_msg_type {
    EMPI_BOOT_HELLO = 1,
    EMPI_BOOT_HELLO_OK,
    EMPI_BOOT_REJECT,
    EMPI_BOOT_FENCE,
    EMPI_BOOT_FENCE_DONE,
    EMPI_BOOT_ABORT,
    EMPI_BOOT_FINALIZE,
    EMPI_BOOT_FINALIZE_OK,
};

typedef struct empi_boot_hdr {
    uint32_t type;
    uint32_t len;
} empi_boot_hdr_t;

#define EMPI_BOOT_COOKIE_HEX 32
/* Upper bound on any message: protects both ends from a corrupt length field. */
#define EMPI_BOOT_MAX_MSG (512u * 1024u * 1024u)
#define EMPI_BOOT_ADDR_UNIX "unix:"

#endif
