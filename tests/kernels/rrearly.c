/*
 * rrearly - a warp that returns before the barrier the others wait at (t5001
 * EarlyWarpTests): 16 tasks on 4 warps of 4 lanes; the warp whose four tasks are all
 * past nvalid (12) leaves early, so the barrier for the block's 4 warps never
 * completes and the simulator ends the run with a deadlock fault.  The early warp is
 * finished by then and GDB never listed it.
 */
#include <stdint.h>
#include <vx_intrinsics.h>
#include <vx_spawn.h>

#define B 16
int32_t out[B];

static void body(void *arg)
{
    const uint32_t *nvalid = arg;
    uint32_t t = threadIdx.x;
    int32_t *buf = __local_mem(B * sizeof(int32_t));
    if (vx_vote_all(t >= *nvalid)) return; /* EARLY_RETURN */
    buf[t] = (int32_t)t * 7;
    __syncthreads(); /* EARLY_BAR */
    out[t] = buf[(t + 4) % B];
}

int main(void)
{
    uint32_t grid = 1, block = B, nvalid = 12;
    vx_spawn_threads(1, &grid, &block, body, &nvalid);
    return 0;
}
