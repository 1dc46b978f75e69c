/*
 * The receiver's choice between cached and streamed ring copies (pt2pt/stream_choice.c): both
 * ways measured first, the cheaper one kept with the other retried now and then, a change of
 * costs followed, one bad sample not believed, the choice for eager payloads taken from the
 * smallest class, and the off/on settings and the size floor obeyed.
 */
#include <stdlib.h>

#include "core/tunables.h"
#include "pt2pt/stream_choice.h"
#include "unit_check.h"

#define MB (1u << 20)

/* Run n messages of `bytes` whose ways cost cached/streamed seconds per byte; count streamed. */
static int run(int n, uint64_t bytes, double cached, double streamed)
{
    int chose_stream = 0;
    for (int i = 0; i < n; i++) {
        int s = empi_stream_choose(bytes);
        chose_stream += s;
        empi_stream_learn(s, bytes, (double)bytes * (s ? streamed : cached));
    }
    return chose_stream;
}

static void load(const char *mode)
{
    setenv("EMPI_SHM_STREAM", mode, 1);
    UCHECK(empi_tunables_load() == 0, "tunables");
    empi_stream_reset();
}

int main(void)
{
    load("auto");
    UCHECK(empi_stream_choose(1024) == 0, "below EMPI_SHM_STREAM_MIN");
    /* the first six alternate, the cached way first */
    for (int i = 0; i < 6; i++) {
        int s = empi_stream_choose(MB);
        UCHECK(s == (i & 1), "warm-up message %d chose %d", i, s);
        empi_stream_learn(s, MB, MB * (s ? 3e-10 : 1e-10));
    }
    /* cached is 3x cheaper: streamed only as the every-64th retry */
    int streamed = run(640, MB, 1e-10, 3e-10);
    UCHECK(streamed >= 8 && streamed <= 12, "streamed %d of 640 while 3x dearer", streamed);
    /* the cores drift apart: cached becomes 3x dearer, and the choice follows within a few dozen */
    run(64, MB, 9e-10, 3e-10);
    streamed = run(160, MB, 9e-10, 3e-10);
    UCHECK(streamed >= 150, "streamed %d of 160 after cached became 3x dearer", streamed);
    /* one terrible sample of the kept way does not flip the choice */
    empi_stream_learn(1, MB, MB * 30e-10);
    UCHECK(empi_stream_choose(MB) == 1, "one slow sample flipped the choice");
    /* close costs: the other way is retried every 16th */
    run(1500, MB, 3.3e-10, 3e-10);   /* the rarely tried way converges at explorations only */
    streamed = run(320, MB, 3.3e-10, 3e-10);
    UCHECK(streamed >= 290 && streamed <= 310, "streamed %d of 320 at close costs", streamed);
    /* size classes learn apart: a 64 KiB class starts its own warm-up */
    UCHECK(empi_stream_choose(64 * 1024) == 0, "new class starts cached");
    /* eager payloads follow the smallest class (EMPI_SHM_STREAM_MIN's), once both ways are known */
    UCHECK(empi_stream_small_choice() == 0, "small choice before the small class was measured");
    run(6, 20000, 2e-10, 1e-10);
    UCHECK(empi_stream_small_choice() == 1, "small class cheaper streamed, choice %d", empi_stream_small_choice());
    run(40, 20000, 1e-10, 2e-10);
    UCHECK(empi_stream_small_choice() == 0, "small class cheaper cached again, choice %d", empi_stream_small_choice());

    /* what reaches the senders: the small choice, or far cores (the beacon), in the line's word */
    load("auto");
    _Atomic uint64_t line[8] = {0};
    empi_stream_set_line(line);
    UCHECK(line[EMPI_STREAM_LINE_WORD] == 0, "nothing learnt, nothing asked");
    empi_stream_set_far(1);
    UCHECK(line[EMPI_STREAM_LINE_WORD] == 1, "far cores: eager payloads streamed");
    empi_stream_set_far(0);
    UCHECK(line[EMPI_STREAM_LINE_WORD] == 0, "close again: cached");
    run(6, 20000, 2e-10, 1e-10);
    empi_stream_publish();
    UCHECK(line[EMPI_STREAM_LINE_WORD] == 1, "small class cheaper streamed: published");
    empi_stream_set_line(NULL);

    load("off");
    UCHECK(run(50, MB, 9e-10, 1e-10) == 0 && !empi_stream_small_choice(), "off streams nothing");
    load("on");
    UCHECK(run(50, MB, 1e-10, 9e-10) == 50 && empi_stream_small_choice(), "on streams everything");
    UCHECK(empi_stream_choose(1024) == 0, "on, below the floor");
    puts("stream_choice_test: ok");
    return 0;
}
