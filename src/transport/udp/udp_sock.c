/*
 * Socket set-up, transmission and path MTU for the UDP transport. Socket buffers are asked large
 * (SO_*BUFFORCE when privileged, else capped by the kernel's rmem_max/wmem_max): a full receive
 * buffer drops datagrams, which reliability recovers but at the cost of a timeout.
 */
#include "transport/udp/udp_sock.h"

#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define UDP_LOOPBACK_MTU 65536u
#define UDP_DEFAULT_MTU 1500u

static void set_buffer(int fd, int force_opt, int opt, size_t bytes)
{
    if (!bytes)
        return;
    int v = bytes > (size_t)1 << 30 ? 1 << 30 : (int)bytes;
    if (setsockopt(fd, SOL_SOCKET, force_opt, &v, sizeof v) != 0)
        setsockopt(fd, SOL_SOCKET, opt, &v, sizeof v);
}

int udp_sock_open(size_t sndbuf, size_t rcvbuf, uint16_t *port)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    set_buffer(fd, SO_SNDBUFFORCE, SO_SNDBUF, sndbuf);
    set_buffer(fd, SO_RCVBUFFORCE, SO_RCVBUF, rcvbuf);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY), .sin_port = 0};
    socklen_t len = sizeof sa;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
        close(fd);
        return -1;
    }
    *port = ntohs(sa.sin_port);
    return fd;
}

/* UDP GSO: one message carries up to this many datagrams and bytes (below UDP's 64 KiB limit);
   the kernel cuts it into datagrams of the first one's size (or, on a virtual link to a socket
   with UDP_GRO, hands it over whole). */
#define UDP_GSO_MAX_SEGS 64
#define UDP_GSO_MAX_BYTES 63000u

static int gso_on;

void udp_sock_use_gso(int on)
{
    gso_on = on;
}

static size_t dgram_size(const udp_dgram_t *d)
{
    return sizeof d->hdr + d->data.iov_len;
}

/* Datagrams from d[0] that go out as one message: a run of equal sizes, the last possibly shorter. */
static int run_length(const udp_dgram_t *d, int n)
{
    if (!gso_on)
        return 1;
    size_t size = dgram_size(&d[0]), total = size;
    int k = 1;
    while (k < n && k < UDP_GSO_MAX_SEGS && total + dgram_size(&d[k]) <= UDP_GSO_MAX_BYTES &&
           dgram_size(&d[k]) <= size) {
        total += dgram_size(&d[k]);
        if (dgram_size(&d[k++]) < size)
            break;
    }
    return k;
}

int udp_sock_sendv(int fd, const struct sockaddr_in *to, const udp_dgram_t *d, int n)
{
    struct mmsghdr msgs[UDP_BATCH];
    struct iovec iov[UDP_BATCH][2];
    union {
        char buf[CMSG_SPACE(sizeof(uint16_t))];
        struct cmsghdr align;
    } ctrl[UDP_BATCH];
    int per_msg[UDP_BATCH], nmsg = 0;
    if (n > UDP_BATCH)
        n = UDP_BATCH;
    for (int i = 0; i < n; i++) {
        iov[i][0] = (struct iovec){(void *)&d[i].hdr, sizeof d[i].hdr};
        iov[i][1] = d[i].data;
    }
    for (int i = 0; i < n; i += per_msg[nmsg++]) {
        int k = run_length(d + i, n - i);
        per_msg[nmsg] = k;
        /* iov[i..i+k) are consecutive pairs: one iovec array for the whole run. */
        msgs[nmsg].msg_hdr = (struct msghdr){.msg_name = (void *)to, .msg_namelen = sizeof *to,
                                             .msg_iov = iov[i], .msg_iovlen = (size_t)(2 * k)};
        if (k > 1) {
            struct msghdr *m = &msgs[nmsg].msg_hdr;
            m->msg_control = ctrl[nmsg].buf;
            m->msg_controllen = sizeof ctrl[nmsg].buf;
            struct cmsghdr *cm = CMSG_FIRSTHDR(m);
            cm->cmsg_level = SOL_UDP;
            cm->cmsg_type = UDP_SEGMENT;
            cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
            uint16_t seg = (uint16_t)dgram_size(&d[i]);
            memcpy(CMSG_DATA(cm), &seg, sizeof seg);
        }
    }
    int done = 0, sent = 0; /* messages, datagrams */
    while (done < nmsg) {
        /* One message (the latency case) costs less through sendmsg. */
        int r = nmsg - done == 1 ? (sendmsg(fd, &msgs[done].msg_hdr, 0) >= 0 ? 1 : -1)
                                 : sendmmsg(fd, msgs + done, (unsigned)(nmsg - done), 0);
        if (r > 0) {
            while (r-- > 0)
                sent += per_msg[done++];
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS))
            break;
        if (r < 0 && per_msg[done] > 1 && (errno == EIO || errno == EINVAL || errno == ENOPROTOOPT)) {
            gso_on = 0; /* the path cannot segment for us: datagram by datagram from now on */
            break;
        }
        /* Anything else (an ICMP error reported late, a route gone) is the network losing the
           datagrams: count them as sent and let retransmission deal with them. Too large for the
           path is a setting that will not heal by itself: say so once. */
        static int warned;
        if (r < 0 && errno == EMSGSIZE && !warned++)
            fprintf(stderr, "EtherMPI: udp datagram of %zu bytes too large for the path; lower EMPI_UDP_MTU\n",
                    dgram_size(&d[sent]));
        sent += per_msg[done++];
    }
    return sent;
}

int udp_sock_enable_gro(int fd)
{
    int one = 1;
    return setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof one) == 0;
}

static int is_own_address(const struct ifaddrs *list, uint32_t addr)
{
    for (const struct ifaddrs *ifa = list; ifa; ifa = ifa->ifa_next)
        if (ifa->ifa_addr && ifa->ifa_addr->sa_family == AF_INET &&
            ((const struct sockaddr_in *)(const void *)ifa->ifa_addr)->sin_addr.s_addr == addr)
            return 1;
    return 0;
}

static uint32_t interface_mtu(const char *name)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq req;
    memset(&req, 0, sizeof req);
    snprintf(req.ifr_name, sizeof req.ifr_name, "%s", name);
    uint32_t mtu = 0;
    if (fd >= 0 && ioctl(fd, SIOCGIFMTU, &req) == 0 && req.ifr_mtu > 0)
        mtu = (uint32_t)req.ifr_mtu;
    if (fd >= 0)
        close(fd);
    return mtu;
}

uint32_t udp_path_mtu(uint32_t addr)
{
    if ((ntohl(addr) >> 24) == 127)
        return UDP_LOOPBACK_MTU;
    struct ifaddrs *list;
    if (getifaddrs(&list) != 0)
        return UDP_DEFAULT_MTU;
    uint32_t mtu = 0;
    if (is_own_address(list, addr))
        mtu = UDP_LOOPBACK_MTU; /* the kernel delivers it through loopback */
    for (struct ifaddrs *ifa = list; ifa && !mtu; ifa = ifa->ifa_next) {
        if (!ifa->ifa_addr || ifa->ifa_addr->sa_family != AF_INET || !ifa->ifa_netmask ||
            !(ifa->ifa_flags & IFF_UP) || (ifa->ifa_flags & IFF_LOOPBACK))
            continue;
        uint32_t mask = ((const struct sockaddr_in *)(const void *)ifa->ifa_netmask)->sin_addr.s_addr;
        uint32_t own = ((const struct sockaddr_in *)(const void *)ifa->ifa_addr)->sin_addr.s_addr;
        if ((own & mask) == (addr & mask))
            mtu = interface_mtu(ifa->ifa_name);
    }
    freeifaddrs(list);
    return mtu ? mtu : UDP_DEFAULT_MTU;
}
