/*
 * rrfault - a kernel that faults, for the reverse-debugging tests: every lane
 * computes an address, and the load through a misaligned pointer stops the
 * kernel with SIGBUS at the line marked FAULT.  Built with -O1 -g.
 */
#include <stdint.h>

#include <vx_intrinsics.h>
#include <vx_spawn.h>

int table[16];
volatile uintptr_t offset = 2; /* makes the pointer misaligned */

__attribute__((noinline)) int fetch(int i)
{
    const int *p = (const int *)((uintptr_t)&table[i & 15] + offset); /* ADDR */
    return *p;                                                        /* FAULT */
}

static void body(void *arg)
{
    (void)arg;
    int i = (int)blockIdx.x;
    table[i & 15] = i; /* FILL */
    vx_barrier(0, vx_num_warps());
    table[0] = fetch(i); /* CALL */
}

int main(void)
{
    uint32_t n = 16;
    vx_spawn_threads(1, &n, 0, body, 0);
    return 0;
}
