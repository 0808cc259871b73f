/*
 * t6-objdiff.c - a kernel for vxdiff --object (tests/t6004-vxdiff-memory.py): its
 * results are static objects, which a change of the code moves.  16 threads write
 * squares[i] = i * i; then thread 0 of core 0 fills hist[] (squares by their value
 * mod 8), st (count and sum of squares[]) and scratch[] (its index + 100).
 *
 * -DOBJDIFF_BUG: the "buggy" build writes squares[7] = 50; it also has an extra data
 * object (spare, only in this build), a longer scratch[] and more code, so that every
 * object sits at another address than in the fixed build.
 */
#include <stdint.h>

#include <vx_intrinsics.h>
#include <vx_spawn.h>

#ifdef OBJDIFF_BUG
uint32_t spare[5] = {1, 2, 3, 4, 5};
uint32_t scratch[4];
#else
uint32_t scratch[2];
#endif
uint32_t squares[16];
uint32_t hist[8];

struct stats {
    uint32_t count, sum;
} st;
#ifdef OBJDIFF_BUG
const uint32_t weights[4] = {1, 2, 3, 5}; /* .rodata, never written: the bug's last weight */
#else
const uint32_t weights[4] = {1, 2, 3, 4};
#endif
volatile uint32_t wsum;

static void kernel_body(void *arg)
{
    (void)arg;
    uint32_t i = blockIdx.x;
#ifdef OBJDIFF_BUG
    squares[i] = i * i + (i == 7); /* (no branch: lanes of a warp must not diverge) */
#else
    squares[i] = i * i;
#endif
}

int main(void)
{
    uint32_t n = 16;
    if (vx_core_id() != 0) return 0;
    if (vx_spawn_threads(1, &n, 0, kernel_body, 0) != 0) return 100;
    for (uint32_t i = 0; i < 16; i++) {
        hist[squares[i] % 8]++;
        st.count++;
        st.sum += squares[i];
    }
    for (uint32_t i = 0; i < sizeof scratch / sizeof scratch[0]; i++)
        scratch[i] = i + 100;
    for (uint32_t i = 0; i < 16; i++) /* (indexes from memory: the table stays) */
        wsum += weights[squares[i] & 3];
#ifdef OBJDIFF_BUG
    spare[0] = st.sum;
#endif
    return 0;
}
