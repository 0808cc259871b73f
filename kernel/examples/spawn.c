/*
 * spawn: checks vx_spawn_threads' distribution for a grid (and optional
 * block) shape given at compile time: every (block, thread) runs exactly once,
 * the indices and dimensions it sees are right, all threads of a block run on
 * one core, blocks spanning several warps share their local memory slice and
 * meet at __syncthreads(), and __local_group_id / __warps_per_group match the
 * warp.  Also checks that invalid arguments are refused and that mscratch is
 * restored.
 *
 *   -DDIM=1..3 -DGX= -DGY= -DGZ=   grid (default 1-D, 37 blocks)
 *   -DBX= -DBY= -DBZ=              block (default: none, tasks mode)
 *   -DOLDAPI=1                     launch a 1-D grid with the older API instead
 *                                  (vx_spawn_tasks, or vx_spawn_task_groups when
 *                                  BX is set) and check its callback arguments
 */
#include "common.h"

#ifndef DIM
#define DIM 1
#endif
#ifndef GX
#define GX 37
#endif
#ifndef GY
#define GY 1
#endif
#ifndef GZ
#define GZ 1
#endif
#ifndef BX
#define BX 0 /* 0: no block_dim (tasks mode) */
#endif
#ifndef BY
#define BY 1
#endif
#ifndef BZ
#define BZ 1
#endif

#define NBLOCKS  ((GX) * (GY) * (GZ))
#define BSIZE    ((BX) ? (BX) * (BY) * (BZ) : 1)
#define NTHREADS (NBLOCKS * BSIZE)

static uint32_t seen[NTHREADS];
static uint32_t where[NTHREADS];
static uint32_t bad;

#ifndef OLDAPI
#define OLDAPI 0
#endif
#if OLDAPI && (DIM != 1 || GY != 1 || GZ != 1 || BY != 1 || BZ != 1)
#error "OLDAPI launches 1-D grids and blocks only"
#endif

/* The checks of one thread: block blk, thread t in the block (both linear). */
static void check_thread(uint32_t blk, uint32_t t, uint32_t e);

static void spawn_cb(void *arg)
{
    (void)arg;
    uint32_t bx = BX ? BX : 1;
    check_thread(blockIdx.x + GX * (blockIdx.y + GY * blockIdx.z),
                 threadIdx.x + bx * (threadIdx.y + BY * threadIdx.z), 0);
}

#if OLDAPI
/* The older API's callbacks: their arguments against what the warp and lane say. */
static void task_cb(int task_id, void *arg)
{
    check_thread((uint32_t)task_id, 0, (arg != &seen) + (blockIdx.x != (uint32_t)task_id));
}

static void group_cb(int local_task_id, int group_id, int local_group_id, int warps_per_group,
                     void *arg)
{
    uint32_t nt = (uint32_t)vx_num_threads();
    uint32_t wpg = (BSIZE + nt - 1) / nt;
    uint32_t e = (arg != &seen) + ((uint32_t)warps_per_group != wpg);
    /* the warp's slot, and the thread's place in the warps of its block (as in
     * Vortex v2.1, a block of one thread takes a warp of its own) */
    uint32_t w = (uint32_t)vx_warp_id();
    e += (uint32_t)local_group_id != w / wpg;
    e += (uint32_t)local_task_id != (w % wpg) * nt + (uint32_t)vx_thread_id();
    check_thread((uint32_t)group_id, (uint32_t)local_task_id, e);
}
#endif

static void check_thread(uint32_t blk, uint32_t t, uint32_t e)
{
    uint32_t bs = BSIZE;
    uint32_t bx = BX ? BX : 1;
    uint32_t g = blk * bs + t;

    e += (blockIdx.x >= GX) + (blockIdx.y >= GY) + (blockIdx.z >= GZ);
    e += (threadIdx.x >= bx) + (threadIdx.y >= BY) + (threadIdx.z >= BZ);
    e +=
        (gridDim.x != GX) + (gridDim.y != (DIM >= 2 ? GY : 1)) + (gridDim.z != (DIM >= 3 ? GZ : 1));
    e += (blockDim.x != bx) + (blockDim.y != (BX && DIM >= 2 ? BY : 1)) +
         (blockDim.z != (BX && DIM >= 3 ? BZ : 1));
    uint32_t nt = (uint32_t)vx_num_threads();
    uint32_t wpg = (bs + nt - 1) / nt;
    e += (bs > 1) *
         ((__warps_per_group != wpg) + (__local_group_id != (uint32_t)vx_warp_id() / wpg));

    /* g is out of range only if the indices were wrong: keep the stores inside */
    g = g * (g < NTHREADS);
    __atomic_fetch_add(&seen[g], 1, __ATOMIC_RELAXED);
    where[g] = (uint32_t)vx_core_id();

    if (BX && (BSIZE > 1 || OLDAPI)) { /* (OLDAPI: also a block's own slice of one) */
        uint32_t *lm = __local_mem(bs * sizeof(uint32_t));
        lm[t] = g + 1;
        __syncthreads();
        uint32_t n = (t + 1) % bs;
        e += lm[n] != blk * bs + n + 1;
        __syncthreads();
    }
    __atomic_fetch_add(&bad, e, __ATOMIC_RELAXED);
}

int main(void)
{
    uint32_t grid[3] = {GX, GY, GZ};
    uint32_t block[3] = {BX, BY, BZ};
    uint32_t errors = 0;
    size_t arg = csr_read(VX_CSR_MSCRATCH);
    uint32_t cap = (uint32_t)(vx_num_warps() * vx_num_threads());

    if (vx_core_id() == 0)
        vx_printf("spawn: dim %d, grid %ux%ux%u, block %ux%ux%u\n", DIM, GX, GY, GZ, BX, BY, BZ);
    /* invalid launches are refused without running anything */
    uint32_t big[3] = {cap + 1, 1, 1}, zero[3] = {0, 1, 1};
    errors += vx_spawn_threads(0, grid, 0, spawn_cb, 0) != -1;
    errors += vx_spawn_threads(4, grid, 0, spawn_cb, 0) != -1;
    errors += vx_spawn_threads(1, grid, big, spawn_cb, 0) != -1;
    errors += vx_spawn_threads(1, grid, zero, spawn_cb, 0) != -1;

#if OLDAPI
    /* (no result: a launch the older API cannot run runs nothing) */
    int r = BSIZE > cap ? -1 : 0;
    if (BX)
        vx_spawn_task_groups(GX, BX, group_cb, seen);
    else
        vx_spawn_tasks(GX, task_cb, seen);
    (void)block;
#else
    int r = vx_spawn_threads(DIM, grid, BX ? block : 0, spawn_cb, 0);
#endif
    errors += csr_read(VX_CSR_MSCRATCH) != arg;
    if (BSIZE > cap) {
        errors += r != -1; /* a block larger than a core cannot run */
        return report("spawn", errors);
    }
    errors += r != 0;
    global_barrier();
    if (vx_core_id() == 0) {
        uint32_t missing = 0, twice = 0, split = 0;
        for (uint32_t g = 0; g < NTHREADS; g++) {
            missing += seen[g] == 0;
            twice += seen[g] > 1;
            split += where[g] != where[g - g % BSIZE];
        }
        if (missing + twice + split + bad)
            vx_printf("spawn: %u missing, %u more than once, %u off their block's core, %u bad "
                      "indices\n",
                      (unsigned)missing, (unsigned)twice, (unsigned)split, (unsigned)bad);
        errors += missing + twice + split + bad;
    }
    return report("spawn", errors);
}
