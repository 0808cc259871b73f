/*
 * rrfault - a kernel that faults, for the reverse-debugging tests: every lane
 * computes an address, and the load through a misaligned pointer stops the
 * kernel with SIGBUS at the line marked FAULT.  Built with -O0 -g.
 */
#include <stdint.h>

#include <vx_intrinsics.h>
#include <vx_spawn.h>

/*
 * crt0.S's debug info claims a few bytes past the end of its code (its DWARF
 * range was not shrunk by linker relaxation), so GDB finds no line numbers for
 * the first function linked after it.  This one absorbs that; it comes first.
 */
__attribute__((noinline)) void rr_pad(void)
{
    __asm__ volatile(".rept 16\n nop\n .endr");
}

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
    rr_pad();
    uint32_t n = 16;
    vx_spawn_threads(1, &n, 0, body, 0);
    return 0;
}
