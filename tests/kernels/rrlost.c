/*
 * rrlost - lanes lost by a misplaced join (t5001 LostLaneTests): task t (blockIdx.x) on
 * warps of 4 lanes splits on t & 1, and the odd side joins inside its branch.  The odd
 * lanes run first; their join sends the warp to the even side, which never joins: the
 * even lanes store out[t] and the warp finishes with the odd lanes still masked off at
 * the store (they never run again).  The kernel exits normally (status 0).
 */
#include <stdint.h>
#include <vx_intrinsics.h>
#include <vx_spawn.h>

/* absorbs crt0's over-long line range (see rrtest.c) */
__attribute__((noinline)) void rr_pad(void)
{
    __asm__ volatile(".rept 16\n nop\n .endr");
}

int32_t out[8];

static void body(void *arg)
{
    (void)arg;
    uint32_t t = blockIdx.x;
    int tok = vx_split(t & 1);
    if (t & 1) {
        out[t] = -1;
        vx_join(tok); /* MISPLACED_JOIN */
    }
    out[t] = (int32_t)t; /* LOST_STORE */
}

int main(void)
{
    rr_pad();
    uint32_t n = 8;
    if (vx_core_id() == 0) vx_spawn_threads(1, &n, 0, body, 0);
    return 0;
}
