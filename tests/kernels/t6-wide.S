/*
 * t6-wide.S - a kernel for the vxdump tests (tests/t6001-vxdump.py), run on 128
 * threads per warp: lane 0 prints four bytes that the listing escapes ('"', '\\',
 * tab, 0x01), then every lane is turned on and writes values that fall in a
 * lane (negative slopes), then all 128 lanes fault at an ecall (SIGSYS).
 */
    .section .init
    .globl _start
    .type _start, @function
_start:
    addi  t0, zero, '"'         /*  0 */
    sb    t0, 0x40(zero)        /*  1: console[0] = '"'                      */
    addi  t0, zero, '\\'        /*  2 */
    sb    t0, 0x40(zero)        /*  3: console[0] = '\\'                     */
    addi  t0, zero, 9           /*  4 */
    sb    t0, 0x40(zero)        /*  5: console[0] = tab                      */
    addi  t0, zero, 1           /*  6 */
    sb    t0, 0x40(zero)        /*  7: console[0] = 0x01                     */
    addi  t0, zero, -1          /*  8 */
    .insn r 0x0b, 0, 0, x0, t0, x0  /* 9: vx_tmc t0: all 128 lanes on        */
    csrr  a0, 0xcc0             /* 10: a0 = lane                             */
    sub   a1, zero, a0          /* 11: a1 = -lane                            */
    addi  t1, zero, -3          /* 12 */
    mul   a2, a0, t1            /* 13: a2 = -3*lane                          */
    slli  a3, a0, 1             /* 14: a3 = 2*lane                           */
    addi  t2, zero, 5           /* 15 */
    sub   a3, t2, a3            /* 16: a3 = 5-2*lane                         */
    ecall                       /* 17: every lane faults: SIGSYS             */
    .size _start, . - _start
