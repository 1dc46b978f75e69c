/* The self transport: in-order delivery, gather of iov pieces, bounded progress, get as memcpy. */
#include <string.h>

#include "transport/transport.h"
#include "unit_check.h"

static long expected_seq, delivered;
static int resend_remaining;

static void on_packet(int src, const void *pkt, size_t len)
{
    long seq;
    UCHECK(src == 3, "src %d", src);
    UCHECK(len >= sizeof seq, "len %zu", len);
    memcpy(&seq, pkt, sizeof seq);
    UCHECK(seq == expected_seq, "seq %ld, want %ld", seq, expected_seq);
    const unsigned char *b = pkt;
    for (size_t i = sizeof seq; i < len; i++)
        UCHECK(b[i] == (unsigned char)(seq + (long)i), "byte %zu of %ld", i, seq);
    expected_seq++;
    delivered++;
    if (resend_remaining > 0) {  /* a deliver that sends to itself again */
        resend_remaining--;
        long next = seq + 1;
        struct iovec iov = {&next, sizeof next};
        UCHECK(empi_transport_self.am_send(3, &iov, 1) == EMPI_OK, "resend");
    }
}

static void send_seq(long seq, size_t len)
{
    unsigned char body[5000];
    for (size_t i = sizeof seq; i < len; i++)
        body[i - sizeof seq] = (unsigned char)(seq + (long)i);
    struct iovec iov[2] = {{&seq, sizeof seq}, {body, len - sizeof seq}};
    UCHECK(empi_transport_self.am_send(3, iov, 2) == EMPI_OK, "am_send");
}

int main(void)
{
    empi_boot_info_t boot = {0};
    boot.rank = 3;
    boot.size = 8;
    UCHECK(empi_transport_self.init(&boot, on_packet) == EMPI_OK, "init");
    UCHECK(empi_transport_self.reaches(3) && !empi_transport_self.reaches(2), "reaches");
    UCHECK(empi_transport_self.am_send(2, NULL, 0) == EMPI_ERROR, "send to another rank");
    UCHECK(empi_transport_self.progress() == 0, "empty progress");

    long seq = 0;
    for (int round = 0; round < 1000; round++) {
        for (int i = 0; i < round % 17; i++, seq++)
            send_seq(seq, sizeof(long) + (size_t)(seq * 37 % 4000));
        empi_transport_self.progress();
    }
    while (empi_transport_self.progress() > 0)
        ;
    UCHECK(delivered == seq, "delivered %ld of %ld", delivered, seq);

    /* Each progress delivers only what was queued on entry, even when deliver keeps sending. */
    resend_remaining = 5;
    send_seq(seq, sizeof seq);
    for (int i = 0; i < 6; i++)
        UCHECK(empi_transport_self.progress() == 1, "pass %d", i);
    UCHECK(empi_transport_self.progress() == 0, "drained");

    char a[100], b[100];
    memset(a, 'q', sizeof a);
    UCHECK(empi_transport_self.get(3, b, a, sizeof a) == EMPI_OK && memcmp(a, b, sizeof a) == 0, "get");
    UCHECK(empi_transport_self.finalize() == EMPI_OK, "finalize");
    puts("self_test: ok");
    return 0;
}
