/*
 * t6-ipdom.S - a vx_split that faults (tests/t6001-vxdump.py): on 2 threads, a
 * divergent split, every lane turned back on without a join, and the same split
 * again: the IPDOM stack (1 entry for 2 threads) is full, an ipdom-overflow fault.
 * Linked without the runtime (no crt0): _start is the whole kernel.
 */
    .section .init
    .globl _start
    .type _start, @function
_start:
    addi  t0, zero, -1              /* 0: t0 = -1 (lane 0)                   */
    .insn r 0x0b, 0, 0, x0, t0, x0  /* 1: vx_tmc t0: both lanes on           */
    addi  t0, zero, -1              /* 2: t0 = -1 (both lanes)               */
    csrr  a0, 0xcc0                 /* 3: a0 = lane (vx_thread_id)           */
    andi  t1, a0, 1                 /* 4: t1 = [0,1]                         */
    .insn r 0x0b, 2, 0, t2, t1, x0  /* 5: vx_split t2, t1: divergent, depth 1 */
    .insn r 0x0b, 0, 0, x0, t0, x0  /* 6: vx_tmc t0: both lanes on again     */
    .insn r 0x0b, 2, 0, t2, t1, x0  /* 7: vx_split t2, t1: ipdom-overflow    */
    .insn r 0x0b, 0, 0, x0, zero, x0 /* (not reached)                        */
    .size _start, . - _start
