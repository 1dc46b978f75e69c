/* process_vm_readv wrapper with per-peer permission detection. */
#include "transport/shm/cma.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/uio.h>

int empi_cma_mode(const char *setting)
{
    if (setting && (strcasecmp(setting, "off") == 0 || strcmp(setting, "0") == 0 ||
                    strcasecmp(setting, "no") == 0 || strcasecmp(setting, "false") == 0))
        return 0;
    if (setting && (strcasecmp(setting, "on") == 0 || strcmp(setting, "1") == 0 ||
                    strcasecmp(setting, "yes") == 0 || strcasecmp(setting, "true") == 0))
        return 2;
    return 1;
}

int empi_cma_read(empi_cma_peer_t *peer, int mode, void *local, const void *remote, size_t len)
{
    if (!peer->usable)
        return -1;
    char *to = local;
    const char *from = remote;
    while (len > 0) {
        struct iovec liov = {to, len}, riov = {(void *)from, len};
        ssize_t n = process_vm_readv(peer->pid, &liov, 1, &riov, 1, 0);
        if (n > 0) {
            to += n;
            from += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EFAULT)
            return -1;  /* a bad address is the caller's bug, not a reason to give up on the peer */
        int err = n < 0 ? errno : EIO;
        peer->usable = 0;
        if (mode == 2)
            fprintf(stderr, "EtherMPI: process_vm_readv from pid %d refused (%s); copying through "
                            "shared memory instead\n", (int)peer->pid, strerror(err));
        return -1;
    }
    return 0;
}
