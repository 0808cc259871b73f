/*
 * t6-unjoined2.S - one warp that finishes inside a divergent split twice
 * (tests/t6001-vxdump.py: vxdump --summary counts it once, as vxsim's note names it
 * once).  Warp 0 spawns warp 1 at `body` two times, waiting for it each time; body
 * divides its 4 lanes by parity as t6-unjoined does and ends the warp without a join.
 * Exit code 0.
 */
    .section .init
    .globl _start
    .type _start, @function
_start:
    la    t4, body
    li    t3, 2
    .insn r 0x0b, 1, 0, x0, t3, t4  /* vx_wspawn 2, body: warp 1 */
    li    t3, 1
    .insn r 0x0b, 1, 0, x0, t3, x0  /* vx_wspawn 1: wait until it has ended */
    li    t3, 2
    .insn r 0x0b, 1, 0, x0, t3, t4  /* again */
    li    t3, 1
    .insn r 0x0b, 1, 0, x0, t3, x0
    sw    zero, 0x88(zero)          /* exit code 0 */
    .insn r 0x0b, 0, 0, x0, zero, x0 /* vx_tmc zero */
    .size _start, . - _start

    .type body, @function
body:
    addi  t0, zero, -1
    .insn r 0x0b, 0, 0, x0, t0, x0  /* vx_tmc t0: all lanes */
    csrr  a0, 0xcc0                 /* lane */
    andi  t1, a0, 1
    .insn r 0x0b, 2, 0, t2, t1, x0  /* vx_split t2, t1 */
    beqz  t1, 1f
    addi  s0, zero, 1
    .insn r 0x0b, 3, 0, x0, t2, x0  /* vx_join t2: then side done, else side next */
1:  addi  s0, zero, 2
    .insn r 0x0b, 0, 0, x0, zero, x0 /* vx_tmc zero: the else side ends the warp, unjoined */
    .size body, . - body
