/*
 * vecadd: c[i] = a[i] + b[i] with one task per element (tasks mode).
 * Phase 1 initialises the inputs, phase 2 adds, phase 3 checks every element
 * against the closed-form inputs, again one task per element (so every phase
 * runs on all lanes), counting errors with an atomic add.
 * Build another size with -DN=...
 */
#include "common.h"

#ifndef N
#define N 200 /* not a multiple of the lanes, warps or cores of the test shapes */
#endif

static float a[N], b[N], c[N];

/* Exact in binary32: small multiples of 1/4. */
static inline float in_a(uint32_t i)
{
    return (float)(i % 97) * 0.5f;
}

static inline float in_b(uint32_t i)
{
    return (float)(i % 89) * 0.25f;
}

static void init_cb(void *arg)
{
    (void)arg;
    uint32_t i = blockIdx.x;
    a[i] = in_a(i);
    b[i] = in_b(i);
}

static void add_cb(void *arg)
{
    (void)arg;
    uint32_t i = blockIdx.x;
    c[i] = a[i] + b[i];
}

static uint32_t errors;

/* Branch-free: lanes of one warp may disagree about an element (no split/join). */
static void check_cb(void *arg)
{
    (void)arg;
    uint32_t i = blockIdx.x;
    uint32_t bad = c[i] != in_a(i) + in_b(i);
    __atomic_fetch_add(&errors, bad, __ATOMIC_RELAXED);
}

int main(void)
{
    uint32_t n = N;
    if (vx_core_id() == 0)
        vx_printf("vecadd: N=%u, %d cores x %d warps x %d threads\n", (unsigned)n, vx_num_cores(),
                  vx_num_warps(), vx_num_threads());
    if (vx_spawn_threads(1, &n, 0, init_cb, 0) != 0) return 100;
    global_barrier();
    if (vx_spawn_threads(1, &n, 0, add_cb, 0) != 0) return 100;
    global_barrier();
    if (vx_spawn_threads(1, &n, 0, check_cb, 0) != 0) return 100;
    global_barrier();
    return report("vecadd", errors);
}
