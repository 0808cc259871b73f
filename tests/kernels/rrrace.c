/*
 * rrrace - kernels for vxsim --races, each built correct and with one bug:
 *   (default)      a block sum in local memory with __syncthreads() between its steps,
 *                  and a counter lane 0 of every warp of the block adds to under a lock
 *                  (vx_print.c's: amoswap.w.aq to take it, a release store to give it
 *                  back; one lane a warp: lanes spinning side by side would diverge);
 *   -DRACE_NOSYNC  the block sum without the barrier after each thread's first store:
 *                  a thread reads its partner's slot, which another warp writes (local
 *                  memory, in block_cb);
 *   -DRACE_NOLOCK  the counter added to without the lock (global memory, `counter`).
 * One block of 16 threads, on core 0 (the other cores' main returns at once): the sum
 * of 1..16 = 136 goes to `sum`; the counter ends at the number of warps of the block
 * (4 at 4 threads a warp).  Exit status 0 when both are right.
 */
#include <stdint.h>

#include <vx_intrinsics.h>
#include <vx_spawn.h>

#define B 16u

uint32_t sum, counter;
static uint32_t lock;

static void take(void)
{
    while (__atomic_exchange_n(&lock, 1u, __ATOMIC_ACQUIRE) != 0) {
    }
}

static void give(void)
{
    __atomic_store_n(&lock, 0u, __ATOMIC_RELEASE);
}

static void block_cb(void *arg)
{
    (void)arg;
    const uint32_t tid = threadIdx.x;
    volatile uint32_t *buf = __local_mem(B * sizeof(uint32_t));
    buf[tid] = tid + 1;
#ifndef RACE_NOSYNC
    __syncthreads();
#endif
    for (uint32_t s = B / 2; s > 0; s >>= 1) {
        int tok = vx_split(tid < s);
        if (tid < s) buf[tid] += buf[tid + s];
        vx_join(tok);
        __syncthreads();
    }
    int tok = vx_split(tid == 0);
    if (tid == 0) sum = buf[0];
    vx_join(tok);

    const int lane0 = vx_thread_id() == 0;
    tok = vx_split(lane0);
    if (lane0) {
#ifndef RACE_NOLOCK
        take();
#endif
        counter = counter + 1;
#ifndef RACE_NOLOCK
        give();
#endif
    }
    vx_join(tok);
}

int main(void)
{
    if (vx_core_id() != 0) return 0;
    uint32_t one = 1, b = B, t = (uint32_t)vx_num_threads();
    if (vx_spawn_threads(1, &one, &b, block_cb, 0) != 0) return 100;
    return (sum != B * (B + 1) / 2) | (counter != (B + t - 1) / t) << 1;
}
