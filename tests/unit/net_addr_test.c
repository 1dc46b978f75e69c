/*
 * Which address a network transport uses to reach a peer (transport/net_addr.c): a peer in our own
 * network stack is reached on 127.0.0.1 even when the addresses it published include one that is
 * no longer ours (a bridge another job removed meanwhile: it then looks like a remote address and
 * led into the void); a peer in another stack gets a published address that is not ours; a process
 * in a new network namespace has another stack id (checked where namespaces can be made).
 */
#include <arpa/inet.h>
#include <sched.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/tunables.h"
#include "transport/net_addr.h"
#include "unit_check.h"

static uint32_t ip(const char *text)
{
    struct in_addr a;
    UCHECK(inet_pton(AF_INET, text, &a) == 1, "bad literal %s", text);
    return a.s_addr;
}

/* Our stack id as seen from a child in a network namespace of its own; 0 when none can be made. */
static uint64_t stack_in_new_namespace(void)
{
    int fds[2];
    UCHECK(pipe(fds) == 0, "pipe");
    pid_t pid = fork();
    if (pid == 0) {
        empi_net_card_t card;
        uint64_t id = unshare(CLONE_NEWNET) == 0 && empi_net_card_fill(&card) == 0 ? card.stack : 0;
        _exit(write(fds[1], &id, sizeof id) == (ssize_t)sizeof id ? 0 : 1);
    }
    uint64_t id = 0;
    UCHECK(read(fds[0], &id, sizeof id) == (ssize_t)sizeof id, "child's answer");
    waitpid(pid, NULL, 0);
    close(fds[0]);
    close(fds[1]);
    return id;
}

int main(void)
{
    UCHECK(empi_tunables_load() == 0, "tunables");
    empi_net_card_t mine;
    UCHECK(empi_net_card_fill(&mine) == 0, "fill");
    UCHECK(empi_net_card_valid(&mine), "our card has %u addresses", mine.naddrs);
    UCHECK(mine.stack != 0, "no network stack id");
    empi_net_card_t again;
    UCHECK(empi_net_card_fill(&again) == 0 && again.stack == mine.stack, "the stack id changed");

    /* Same stack, published while a bridge of 10.255.255.254 existed that is gone now. */
    empi_net_card_t fake_host = mine;
    fake_host.addrs[fake_host.naddrs > 1 ? 1 : 0] = ip("10.255.255.254");
    UCHECK(empi_net_card_pick(&fake_host) == htonl(INADDR_LOOPBACK), "a peer in our stack not reached on loopback");

    /* Another stack: the address that is not ours. */
    empi_net_card_t remote = mine;
    remote.stack = mine.stack + 1;
    remote.naddrs = 1;
    remote.addrs[0] = mine.addrs[0];
    remote.addrs[remote.naddrs++] = ip("203.0.113.7");
    UCHECK(empi_net_card_pick(&remote) == ip("203.0.113.7"), "a remote peer not reached on its own address");
    remote.stack = 0; /* unknown stack: the same choice */
    UCHECK(empi_net_card_pick(&remote) == ip("203.0.113.7"), "unknown stack");

    empi_net_card_t bad = mine;
    bad.naddrs = 0;
    UCHECK(!empi_net_card_valid(&bad), "a card without addresses passed");
    bad.naddrs = EMPI_NET_MAX_ADDRS + 1;
    UCHECK(!empi_net_card_valid(&bad), "a card with too many addresses passed");

    uint64_t other = stack_in_new_namespace();
    if (other)
        UCHECK(other != mine.stack, "a new network namespace has our stack id");
    else
        printf("no network namespace could be made: the namespace check is skipped\n");
    printf("net_addr: ok\n");
    return 0;
}
