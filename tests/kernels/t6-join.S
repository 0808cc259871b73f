/*
 * t6-join.S - a divergent split whose two sides end at different vx_join
 * instructions (tests/t6001-vxdump.py: vxdump --summary reports it).  One warp of 4
 * lanes; no runtime.  Lanes 1 and 3 (odd) take the then side first and join at
 * JOIN_A; lanes 0 and 2 then run from after the split, branch to the else side and
 * join at JOIN_B, after which the whole warp goes on.  Exit code 0.
 */
    .section .init
    .globl _start
    .type _start, @function
_start:
    addi  t0, zero, -1
    .insn r 0x0b, 0, 0, x0, t0, x0  /* vx_tmc t0: all lanes */
    csrr  a0, 0xcc0                 /* lane */
    andi  t1, a0, 1
    .insn r 0x0b, 2, 0, t2, t1, x0  /* vx_split t2, t1 */
    beqz  t1, 1f                    /* uniform on each side */
    addi  s0, zero, 1
    .globl JOIN_A
JOIN_A:
    .insn r 0x0b, 3, 0, x0, t2, x0  /* vx_join t2: then side done, else side next */
    j     2f
1:  addi  s0, zero, 2
    .globl JOIN_B
JOIN_B:
    .insn r 0x0b, 3, 0, x0, t2, x0  /* vx_join t2: the warp reconverges, goes on */
2:  addi  t0, zero, 1
    .insn r 0x0b, 0, 0, x0, t0, x0  /* lane 0 only */
    sw    zero, 0x88(zero)          /* exit code 0 */
    .insn r 0x0b, 0, 0, x0, zero, x0
    .size _start, . - _start
