/*
 * rrdiverge - a divergent region whose two sides call functions, for the tests of
 * lanes that divergence masks off (tests/t5001-gdb.py).
 *
 * Odd tasks take the `then` side (twice), even ones the `else` side (negate), in
 * one split/join.  The marker comments name lines the tests look up; keep one
 * marker per line.  Built with -O0 -g.
 */
#include <stdint.h>

#include <vx_intrinsics.h>
#include <vx_spawn.h>

/* absorbs crt0's over-long line range (see rrtest.c) */
__attribute__((noinline)) void rr_pad(void)
{
    __asm__ volatile(".rept 16\n nop\n .endr");
}

int results[16];

__attribute__((noinline)) int twice(int x)
{
    return 2 * x; /* TWICE */
}

__attribute__((noinline)) int negate(int x)
{
    return -x; /* NEGATE */
}

static void body(void *arg)
{
    (void)arg;
    int tid = (int)blockIdx.x;
    int odd = tid & 1;
    int acc = 100 + tid;
    int tok = vx_split(odd); /* SPLIT */
    if (odd) {
        acc += twice(tid); /* THEN */
    } else {
        acc += negate(tid); /* ELSE */
    }
    vx_join(tok);
    results[tid] = acc; /* AFTER */
}

int main(void)
{
    rr_pad();
    uint32_t n = 8;
    if (vx_core_id() == 0) vx_spawn_threads(1, &n, 0, body, 0);
    return 0;
}
