/*
 * reduce: dot product of two vectors with a block-wise tree reduction in local
 * memory (group mode, like Vortex's dotproduct test).  Each block of B threads
 * multiplies B element pairs into its __local_mem slice, halves the active
 * range with __syncthreads() between steps (a divergent `if (tid < s)` written
 * with vx_split / vx_join), and thread 0 stores the block's partial sum.  Core
 * 0 adds the partial sums and checks them against an integer reference.
 *
 * B is BLOCK (default 64) or, on small platforms, the largest power of two not
 * above warps x threads, so a block may span several warps.  -DN=... -DBLOCK=...
 */
#include "common.h"

#ifndef N
#define N 1000
#endif
#ifndef BLOCK
#define BLOCK 64 /* a power of two */
#endif
#define NPAD (((N) + (BLOCK)-1) / (BLOCK) * (BLOCK))

/* Padded with zeros (BSS) so no thread needs a bounds check. */
static float x[NPAD], y[NPAD];
static float partial[NPAD];

typedef struct {
    uint32_t bsize;
} red_args;

static inline int32_t in_x(uint32_t i)
{
    return (int32_t)(i % 13) - 6;
}

static inline int32_t in_y(uint32_t i)
{
    return (int32_t)(i % 7) - 3;
}

static void init_cb(void *arg)
{
    (void)arg;
    uint32_t i = blockIdx.x;
    x[i] = (float)in_x(i);
    y[i] = (float)in_y(i);
}

static void dot_cb(void *arg)
{
    const red_args *a = arg;
    uint32_t tid = threadIdx.x;
    uint32_t i = blockIdx.x * a->bsize + tid;
    float *buf = __local_mem(a->bsize * sizeof(float));

    buf[tid] = x[i] * y[i];
    __syncthreads();
    for (uint32_t s = a->bsize / 2; s > 0; s >>= 1) {
        int tok = vx_split(tid < s);
        if (tid < s) buf[tid] += buf[tid + s];
        vx_join(tok);
        __syncthreads();
    }
    int tok = vx_split(tid == 0);
    if (tid == 0) partial[blockIdx.x] = buf[0];
    vx_join(tok);
    __syncthreads(); /* buf is reused by this slot's next block */
}

int main(void)
{
    uint32_t cap = (uint32_t)(vx_num_warps() * vx_num_threads());
    red_args args;
    args.bsize = BLOCK;
    while (args.bsize > cap)
        args.bsize /= 2;
    uint32_t n = N, npad = NPAD;
    uint32_t blocks = (n + args.bsize - 1) / args.bsize;
    if (vx_core_id() == 0)
        vx_printf("reduce: N=%u, %u blocks of %u threads\n", (unsigned)n, (unsigned)blocks,
                  (unsigned)args.bsize);

    /* Inputs for the real elements only; the padding stays zero. */
    if (vx_spawn_threads(1, &n, 0, init_cb, 0) != 0) return 100;
    (void)npad;
    global_barrier();
    if (vx_spawn_threads(1, &blocks, &args.bsize, dot_cb, &args) != 0) return 101;
    global_barrier();

    uint32_t errors = 0;
    if (vx_core_id() == 0) {
        int32_t want = 0;
        for (uint32_t i = 0; i < n; i++)
            want += in_x(i) * in_y(i);
        float got = 0.0f;
        for (uint32_t b = 0; b < blocks; b++)
            got += partial[b];
        vx_printf("reduce: dot = %d (expected %d)\n", (int)got, (int)want);
        errors = (int32_t)got != want;
    }
    return report("reduce", errors);
}
