/*
 * t6-regs.S - a tiny kernel for the vxdump tests (tests/t6001-vxdump.py): one
 * warp whose every instruction writes known values, so that the test can check
 * the dump against expectations written by hand.  Run on 4 threads per warp.
 * Linked without the runtime (no crt0): _start is the whole kernel.
 * -DT6_ALT changes one constant (a3 = 6), -DT6_ALT_CONSOLE prints 'J' instead
 * of 'H', -DT6_ALT_SLOT stores that 'H' to console slot 1, -DT6_ALT_LANE goes on
 * with lane 1 instead of lane 0 from event 19: the "changed kernel" cases of
 * tests/t6002-vxdiff.py.
 */
    .section .init
    .globl _start
    .type _start, @function
_start:
    addi  t0, zero, -1          /*  0: t0 = -1 (lane 0)                      */
    .insn r 0x0b, 0, 0, x0, t0, x0  /* 1: vx_tmc t0: all lanes on            */
    csrr  a0, 0xcc0             /*  2: a0 = lane (vx_thread_id)              */
    slli  a1, a0, 2             /*  3: a1 = 4*lane                           */
    addi  a2, a1, 0x100         /*  4: a2 = 0x100 + 4*lane                   */
#ifdef T6_ALT
    addi  a3, zero, 6
#else
    addi  a3, zero, 5           /*  5: a3 = 5                                */
#endif
    mul   a4, a0, a0            /*  6: a4 = [0,1,4,9]                        */
    lui   a5, 0x10              /*  7: a5 = 0x10000                          */
    add   a5, a5, a1            /*  8: a5 = 0x10000 + 4*lane                 */
    sw    a4, 0(a5)             /*  9: mem[0x10000 + 4*lane] = [0,1,4,9]     */
    sw    a3, 16(a5)            /* 10: mem[0x10010 + 4*lane] = 5             */
    fcvt.s.w fa0, a0            /* 11: fa0 = [0.0,1.0,2.0,3.0]               */
    andi  t1, a0, 1             /* 12: t1 = [0,1,0,1]                        */
    .insn r 0x0b, 2, 0, t2, t1, x0  /* 13: vx_split t2, t1: divergent        */
    addi  s0, a0, 100           /* 14: lanes 1,3: s0 = 101, 103              */
    .insn r 0x0b, 3, 0, x0, t2, x0  /* 15: vx_join t2: else side (lanes 0,2) */
                                /* 16: addi s0 again, lanes 0,2: 100, 102    */
                                /* 17: vx_join t2: pop, all lanes            */
#ifdef T6_ALT_LANE
    addi  t0, zero, 2           /* lane 1 goes on instead */
#else
    addi  t0, zero, 1           /* 18 */
#endif
    .insn r 0x0b, 0, 0, x0, t0, x0  /* 19: vx_tmc t0: lane 0 only            */
    addi  t3, zero, 0x40        /* 20 */
#ifdef T6_ALT_CONSOLE
    addi  t4, zero, 'J'
#else
    addi  t4, zero, 'H'         /* 21 */
#endif
#ifdef T6_ALT_SLOT
    sb    t4, 1(t3)             /* console slot 1 'H' */
#else
    sb    t4, 0(t3)             /* 22: console slot 0 'H'                    */
#endif
    addi  t4, zero, 10          /* 23 */
    sb    t4, 0(t3)             /* 24: console slot 0 '\n'                   */
    addi  t3, zero, 0x88        /* 25 */
    addi  t4, zero, 7           /* 26 */
    sw    t4, 0(t3)             /* 27: exit code 7                           */
    .insn r 0x0b, 0, 0, x0, zero, x0 /* 28: vx_tmc zero: the warp ends       */
    .size _start, . - _start
