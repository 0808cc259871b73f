/*
 * t6-bar.S - two warps meet at a barrier (tests/t6001-vxdump.py: barrier waits,
 * the timeline).  Warp 0 spawns warp 1 at `body`; warp 1 loops 20 times more
 * than warp 0 before both arrive at barrier 0 (count 2), so warp 0 waits.
 * -DBAR_COUNT=3: a count the two warps never reach, a deadlock.
 */
#ifndef BAR_COUNT
#define BAR_COUNT 2
#endif
    .section .init
    .globl _start
    .type _start, @function
_start:
    addi  t1, zero, 2
    la    t2, body
    .insn r 0x0b, 1, 0, x0, t1, t2  /* vx_wspawn t1, t2 */
    .size _start, . - _start

    .text
    .globl body
    .type body, @function
body:
    addi  t0, zero, -1
    .insn r 0x0b, 0, 0, x0, t0, x0  /* vx_tmc t0 */
    csrr  s1, 0xcc1                 /* warp id */
    addi  s2, zero, 3               /* loop count: 3 + 20 * warp id */
    addi  t3, zero, 20
    mul   t3, t3, s1
    add   s2, s2, t3
    jal   spin
    addi  t5, zero, 0
    addi  t6, zero, BAR_COUNT
    .insn r 0x0b, 4, 0, x0, t5, t6  /* vx_bar t5 (id 0), t6 (count 2) */
    .insn r 0x0b, 0, 0, x0, zero, x0 /* vx_tmc zero */
    .size body, . - body

    .globl spin
    .type spin, @function
spin:
1:  addi  s2, s2, -1
    bnez  s2, 1b
    ret
    .size spin, . - spin
