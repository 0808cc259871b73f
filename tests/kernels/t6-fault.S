/*
 * t6-fault.S - a kernel that faults (tests/t6001-vxdump.py): a misaligned
 * 4-byte load at 0x10002 by lane 0 after two instructions.
 */
    .section .init
    .globl _start
    .type _start, @function
_start:
    lui   a0, 0x10
    addi  a0, a0, 2
    lw    a1, 0(a0)
    .insn r 0x0b, 0, 0, x0, zero, x0
    .size _start, . - _start
