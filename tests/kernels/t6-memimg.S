/*
 * t6-memimg.S - a kernel for the vxdiff --memory tests (tests/t6004-vxdiff-memory.py)
 * whose two builds differ only in their code's layout: -DT6_PAD jumps over 64 nops
 * first, so that every instruction after them moves by 260 bytes, while the run
 * writes the same memory: out[lane] = 7 * lane + 1 at 0x30000 (4 lanes), exit code 0.
 * No runtime, no stack: nothing the run writes depends on where the code is.
 */
    .section .init
    .globl _start
    .type _start, @function
_start:
#ifdef T6_PAD
    j     1f
    .rept 64
    nop
    .endr
1:
#endif
    addi  t0, zero, -1
    .insn r 0x0b, 0, 0, x0, t0, x0  /* vx_tmc t0: all lanes on */
    csrr  a0, 0xcc0                 /* a0 = lane */
    slli  a1, a0, 3
    sub   a1, a1, a0                /* a1 = 7 * lane */
    addi  a1, a1, 1
    slli  a2, a0, 2
    lui   a3, 0x30
    add   a3, a3, a2
    sw    a1, 0(a3)                 /* out[lane] = 7 * lane + 1 */
    addi  t0, zero, 1
    .insn r 0x0b, 0, 0, x0, t0, x0  /* vx_tmc t0: lane 0 only */
    addi  t3, zero, 0x88
    sw    zero, 0(t3)               /* exit code 0 */
    .insn r 0x0b, 0, 0, x0, zero, x0 /* vx_tmc zero: the warp ends */
    .size _start, . - _start
