/*
 * t6-shape.S - a kernel whose warps compute the same thing on 1 core x 2 warps
 * and on 2 cores x 1 warp (tests/t6002-vxdiff.py, --per-warp): each warp's work
 * depends only on mhartid (= global warp * threads + lane).  Global thread 0
 * spawns 2 warps of its core at _start; with one warp per core that is a no-op
 * and core 1 starts by itself.  Each thread stores its id squared at
 * 0x10000 + 4*id, plus word id of the array at the kernel argument (mscratch)
 * when that is not 0, so that an input file (--load, --arg) changes the results.
 */
    .section .init
    .globl _start
    .type _start, @function
_start:
    csrr  t0, mhartid
    bnez  t0, 1f
    addi  t1, zero, 2
    la    t2, _start
    .insn r 0x0b, 1, 0, x0, t1, t2  /* vx_wspawn t1, t2 */
1:  addi  t0, zero, -1
    .insn r 0x0b, 0, 0, x0, t0, x0  /* vx_tmc t0 */
    csrr  a0, mhartid
    lui   a1, 0x10
    slli  a2, a0, 2
    add   a1, a1, a2
    mul   a3, a0, a0
    csrr  a4, mscratch
    beqz  a4, 2f
    add   a4, a4, a2
    lw    a5, 0(a4)
    add   a3, a3, a5
2:  sw    a3, 0(a1)
    .insn r 0x0b, 0, 0, x0, zero, x0 /* vx_tmc zero */
    .size _start, . - _start
