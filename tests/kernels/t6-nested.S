/*
 * t6-nested.S - a function with a smaller sized symbol nested inside it, for the
 * vxdump tests (tests/t6001-vxdump.py): outer is 6 instructions, inner its third
 * alone.  The PCs of outer past inner belong to outer (as objdump and GDB say).
 * One warp of one thread, linked without the runtime; exits with 7.
 */
    .section .init
    .globl _start
    .type _start, @function
_start:
    jal   ra, outer
    j     done
    .size _start, .-_start

    .text
    .type outer, @function
outer:
    addi  t1, zero, 1           /* outer+0x0  */
    addi  t1, t1, 1             /* outer+0x4  */
    .type inner, @function
inner:
    addi  t1, t1, 1             /* outer+0x8: inner */
    .size inner, .-inner
    addi  t1, t1, 1             /* outer+0xc  */
    addi  t1, t1, 1             /* outer+0x10 */
    ret                         /* outer+0x14 */
    .size outer, .-outer

done:
    addi  t3, zero, 7
    sw    t3, 0x88(zero)        /* the exit code */
    .insn r 0x0b, 0, 0, x0, x0, x0  /* vx_tmc 0: the warp ends */
