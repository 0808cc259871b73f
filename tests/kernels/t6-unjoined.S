/*
 * t6-unjoined.S - a warp that finishes inside a divergent split (tests/t6001-vxdump.py
 * and t1001: vxdump --summary, vxsim and vxrec report it).  One warp of 4 lanes; no
 * runtime.  Lanes 1 and 3 (odd) take the then side first and join; lanes 0 and 2 then
 * run from after the split, branch to the else side and end the warp without a join,
 * so the odd lanes never run again.  Exit code 0.
 */
    .section .init
    .globl _start
    .type _start, @function
_start:
    addi  t0, zero, -1
    .insn r 0x0b, 0, 0, x0, t0, x0  /* vx_tmc t0: all lanes */
    csrr  a0, 0xcc0                 /* lane */
    andi  t1, a0, 1
    .globl SPLIT
SPLIT:
    .insn r 0x0b, 2, 0, t2, t1, x0  /* vx_split t2, t1 */
    beqz  t1, 1f
    addi  s0, zero, 1
    .insn r 0x0b, 3, 0, x0, t2, x0  /* vx_join t2: then side done, else side next */
1:  addi  s0, zero, 2
    sw    zero, 0x88(zero)          /* exit code 0 */
    .insn r 0x0b, 0, 0, x0, zero, x0 /* vx_tmc zero: the else side ends the warp, unjoined */
    .size _start, . - _start
