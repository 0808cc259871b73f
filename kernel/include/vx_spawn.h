/*
 * vx_spawn.h - launch a grid of blocks over the cores, warps and lanes of the
 * Vortex GPGPU (source compatible with Vortex v2.x kernel/include/vx_spawn.h).
 *
 * vx_spawn_threads(dim, grid_dim, block_dim, cb, arg) is called by main() on
 * every core (main runs once per core) and returns when this core's share of the
 * grid is done.  Each core takes a contiguous range of blocks; inside the core:
 *
 *   tasks mode (block_dim NULL or a block of 1 thread): every lane runs one
 *     block at a time; warps take contiguous runs of NT blocks, batched when
 *     there are more blocks than lanes; the last partial run is done by warp 0
 *     with a partial thread mask.
 *   group (CTA) mode: a block of G threads occupies ceil(G/NT) consecutive warps
 *     (the last one with a partial mask); NW / ceil(G/NT) blocks run at a time
 *     on a core, each with its own local-memory slice and barrier id
 *     (__local_group_id); more blocks are batched.
 *
 * The callback runs with blockIdx, threadIdx (per thread) and gridDim, blockDim
 * set.  GCC emits plain branches, which must be uniform across a warp: use
 * vx_split/vx_join around lane-dependent control flow in the callback.
 *
 * Returns 0, or -1 when the arguments are invalid (dimension not 1..3, a zero
 * block dimension, or a block larger than one core: G > NW * NT).
 * vx_spawn_threads uses mscratch (per core) while it runs and restores it
 * afterwards; it is not reentrant.
 */
#ifndef VX_SPAWN_H
#define VX_SPAWN_H

#include <stdint.h>

#include <vx_intrinsics.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef union {
    struct {
        uint32_t x;
        uint32_t y;
        uint32_t z;
    };

    uint32_t m[3];
} dim3_t;

extern __thread dim3_t blockIdx;
extern __thread dim3_t threadIdx;
/*
 * Unlike Vortex, gridDim, blockDim and __warps_per_group are thread-local too:
 * with several cores, one core may start its next vx_spawn_threads while
 * another still runs callbacks of the previous launch.  Code that only reads
 * them is unaffected.
 */
extern __thread dim3_t gridDim;
extern __thread dim3_t blockDim;

extern __thread uint32_t __local_group_id;
extern __thread uint32_t __warps_per_group;

typedef void (*vx_kernel_func_cb)(void *arg);
typedef void (*vx_serial_cb)(void *arg);

/* This block's slice of the core's local memory, `size` bytes per block. */
#define __local_mem(size) \
    ((void *)((int8_t *)csr_read(VX_CSR_LOCAL_MEM_BASE) + __local_group_id * (size)))

/* Barrier over the warps of this block. */
#define __syncthreads() vx_barrier(__local_group_id, __warps_per_group)

int vx_spawn_threads(uint32_t dimension, const uint32_t *grid_dim, const uint32_t *block_dim,
                     vx_kernel_func_cb kernel_func, const void *arg);

/*
 * The launch API of Vortex up to v2.1, kept so that older kernels build unchanged.
 * Both run on vx_spawn_threads with a 1-D grid (same distribution):
 *   vx_spawn_tasks(n, cb, arg): cb(task_id, arg) for task_id 0 .. n-1 (tasks mode);
 *   vx_spawn_task_groups(g, size, cb, arg): blocks of `size` threads, g of them;
 *     cb(local_task_id, group_id, local_group_id, warps_per_group, arg), the
 *     thread's index in its block, the block's index, its slot on the core (the
 *     barrier id and local-memory slice of __local_group_id) and the warps per
 *     block (a group barrier is vx_barrier(local_group_id, warps_per_group)).
 *     As in v2.1, a block of one thread takes a warp of its own (its own slot).
 * A launch vx_spawn_threads refuses (a block larger than a core) runs nothing.
 */
typedef void (*vx_spawn_tasks_cb)(int task_id, void *arg);
typedef void (*vx_spawn_task_groups_cb)(int local_task_id, int group_id, int local_group_id,
                                        int warps_per_group, void *arg);
void vx_spawn_tasks(int num_tasks, vx_spawn_tasks_cb callback, void *arg);
void vx_spawn_task_groups(int num_groups, int group_size, vx_spawn_task_groups_cb callback,
                          void *arg);

/* Run callback(arg) on each active lane of the calling warp in turn (lane order). */
void vx_serial(vx_serial_cb callback, const void *arg);

#ifdef __cplusplus
}
#endif

#endif /* VX_SPAWN_H */
