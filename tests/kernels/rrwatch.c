/*
 * rrwatch - three warps each add to one watched global while lanes 1-3 of warp 0
 * wait parked (tmc), for the tests of watchpoints met while GDB steps a lane that
 * does not move (tests/t5001-gdb.py).  Warp 0's lane 0 spawns warps 1-3 (WORKER,
 * assembly: they have no stack), waits a while, then turns its other lanes on.
 * Built with -O0 -g.
 */
#include <stdint.h>

#include <vx_intrinsics.h>

/* absorbs crt0's over-long line range (see rrtest.c) */
__attribute__((noinline)) void rr_pad(void)
{
    __asm__ volatile(".rept 16\n nop\n .endr");
}

uint32_t counter;

void worker(void);
__asm__(".text\n"
        ".globl worker\n"
        "worker:\n"
        "    la    t0, counter\n"
        "    li    t1, 1\n"
        "    amoadd.w zero, t1, (t0)\n"        /* BUMP: counter += 1 */
        "    .insn r 0x0b, 0, 0, x0, x0, x0\n" /* vx_tmc zero: the warp ends */
);

int main(void)
{
    rr_pad();
    if (vx_core_id() != 0) return 0;
    vx_wspawn(4, worker); /* SPAWN */
    for (volatile int i = 0; i < 100; i++)
        ;       /* WAIT */
    vx_tmc(-1); /* WAKE: lanes 1-3 of warp 0 move again */
    vx_tmc_one();
    return 0;
}
