/*
 * t6-memdiff.c - a kernel for the vxdiff --memory tests (tests/t6004-vxdiff-memory.py):
 * out[i] = 3 * in[i] + i + 1 for the n elements of its input, one thread per element.
 * The argument (mscratch) points to the input: a word n, then n words in[]; the
 * output is at 0x30000, a buffer the host would have allocated (not part of the
 * image, so that it stays where it is when the code changes).
 *
 * -DMEMDIFF_BUG: the "buggy" build, an off-by-one that runs n + 1 threads (the extra
 * one writes out[n] from the word after the input), with code of another layout
 * (a check that the fixed build does not have moves every function after main).
 */
#include <stdint.h>

#include <vx_intrinsics.h>
#include <vx_spawn.h>

#define OUT ((volatile uint32_t *)0x30000)

typedef struct args {
    uint32_t n;
    uint32_t in[];
} args;

static void kernel_body(void *arg)
{
    const args *a = arg;
    uint32_t i = blockIdx.x;
    OUT[i] = 3 * a->in[i] + i + 1;
}

int main(void)
{
    const args *a = (const args *)csr_read(VX_CSR_MSCRATCH);
    uint32_t n = a->n;
#ifdef MEMDIFF_BUG
    if (n > 4096) return 3; /* (the fixed build has no such check) */
    n = n + 1;              /* the bug: one thread too many */
#endif
    if (vx_core_id() != 0) return 0;
    if (vx_spawn_threads(1, &n, 0, kernel_body, (void *)a) != 0) return 100;
    return 0;
}
