/*
 * rrpred - vx_pred parks the lanes whose condition is false, vx_tmc enables them
 * again: for the tests of stepping a lane across its park (tests/t5001-gdb.py).
 *
 * Tasks with tid % 4 == 1 take the predicated block; the others are parked in it.
 * The marker comments name lines the tests look up; keep one marker per line.
 * Built with -O0 -g.
 */
#include <stdint.h>

#include <vx_intrinsics.h>
#include <vx_spawn.h>

/* absorbs crt0's over-long line range (see rrtest.c) */
__attribute__((noinline)) void rr_pad(void)
{
    __asm__ volatile(".rept 16\n nop\n .endr");
}

int hits[16];

static void body(void *arg)
{
    (void)arg;
    int tid = (int)blockIdx.x;
    int saved = (int)vx_active_threads();
    int hit = (tid & 3) == 1;
    if (vx_vote_any(hit)) {
        vx_pred(hit, saved);       /* PRED */
        hits[tid] = hits[tid] + 1; /* IN */
        vx_tmc(saved);             /* TMC */
    }
    hits[tid] = hits[tid] + 10; /* AFTER */
}

int main(void)
{
    rr_pad();
    uint32_t n = 8;
    if (vx_core_id() == 0) vx_spawn_threads(1, &n, 0, body, 0);
    return 0;
}
