/*
 * rrlocal - every core writes the same local-memory word with values of its own,
 * for the reverse-debugging tests of watchpoints on local memory (each core has
 * its own at 0xFFFF0000): core c writes (c + 1) * 1000 + r in rounds r = 1..3.
 * main runs once per core, and the cores run in lock step, so the writes of the
 * cores to that address alternate.  Built with -O0 -g.
 */
#include <stdint.h>

#include <vx_intrinsics.h>

/* crt0.S's debug info claims a few bytes past its code (see rrfault.c). */
__attribute__((noinline)) void rr_pad(void)
{
    __asm__ volatile(".rept 16\n nop\n .endr");
}

#define SHARED_WORD ((volatile uint32_t *)0xFFFF0100)

int main(void)
{
    uint32_t core = (uint32_t)vx_core_id();
    for (uint32_t r = 1; r <= 3; r++)
        *SHARED_WORD = (core + 1) * 1000 + r; /* LOCAL_WRITE */
    return 0;
}
