/*
 * gbar: barriers.  Global: in every round each core writes its slot, all cores
 * meet at the global barrier (bit 31 set, count = cores), every core checks
 * every slot, and they meet again before the next round.  Local: one block of
 * warps x threads per core (group mode) fills local memory, meets at
 * __syncthreads() and reads a neighbour's entry written by another warp.
 * Errors are summed with atomics and reported by core 0.
 */
#include "common.h"

#ifndef ROUNDS
#define ROUNDS 3
#endif
#define MAX_CORES 1024

static uint32_t slot[MAX_CORES];
static uint32_t errors_total;

static void local_cb(void *arg)
{
    (void)arg;
    uint32_t t = threadIdx.x, g = blockDim.x;
    uint32_t *lmem = __local_mem(g * sizeof(uint32_t));
    lmem[t] = (t + 1) * 3 + blockIdx.x;
    __syncthreads();
    uint32_t j = (t + 1) % g; /* in another warp for the last lane of a warp */
    uint32_t bad = lmem[j] != (j + 1) * 3 + blockIdx.x;
    __atomic_fetch_add(&errors_total, bad, __ATOMIC_RELAXED);
}

int main(void)
{
    uint32_t core = (uint32_t)vx_core_id(), nc = (uint32_t)vx_num_cores();
    uint32_t errors = 0;
    if (nc > MAX_CORES) return report("gbar", 1);
    if (core == 0) vx_printf("gbar: %u cores, %u rounds\n", (unsigned)nc, (unsigned)ROUNDS);
    for (uint32_t r = 1; r <= ROUNDS; r++) {
        slot[core] = r * 100000 + core;
        vx_fence();
        global_barrier();
        for (uint32_t c = 0; c < nc; c++)
            errors += slot[c] != r * 100000 + c;
        global_barrier();
    }
    __atomic_fetch_add(&errors_total, errors, __ATOMIC_RELAXED);

    /* One block per core, as large as the core. */
    uint32_t grid = nc, block = (uint32_t)(vx_num_warps() * vx_num_threads());
    if (vx_spawn_threads(1, &grid, &block, local_cb, 0) != 0) return 100;
    global_barrier();
    return report("gbar", core == 0 ? errors_total : 0);
}
