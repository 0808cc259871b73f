/*
 * vx_softfloat.S - a branch-free float -> double conversion (__extendsfdf2).
 *
 * RV32 ilp32f has no double-precision hardware, so GCC converts a float to
 * double with libgcc's __extendsfdf2, which branches on the value (zero,
 * subnormal, NaN).  On Vortex a branch on which the lanes of a warp disagree is
 * a fault, and the conversion happens in every lane that passes a float to
 * vx_printf (variadic arguments are promoted to double).  This version computes
 * every case and selects the result with masks, so it is safe on any number of
 * lanes.  Linked from libvxrt.a ahead of libgcc.
 *
 * Results follow RISC-V fcvt.d.s: exact for every finite value (subnormals are
 * normalised), infinities keep their sign, every NaN becomes the canonical NaN
 * 0x7ff8000000000000.
 *
 * double __extendsfdf2(float x): x in fa0, result in a0 (low word), a1 (high).
 */
    .text
    .globl __extendsfdf2
    .type __extendsfdf2, @function
__extendsfdf2:
    fmv.x.w a2, fa0
    srli  a3, a2, 31            /* a3 = sign */
    srli  a4, a2, 23
    andi  a4, a4, 0xff          /* a4 = biased exponent e */
    slli  a5, a2, 9
    srli  a5, a5, 9             /* a5 = fraction m (23 bits) */

    /* clz(m) by binary search without branches: t6 = n, t5 = m << n */
    mv    t5, a5
    li    t6, 0
    li    t0, 0x10000
    sltu  t1, t5, t0
    slli  t1, t1, 4
    sll   t5, t5, t1
    add   t6, t6, t1
    li    t0, 0x1000000
    sltu  t1, t5, t0
    slli  t1, t1, 3
    sll   t5, t5, t1
    add   t6, t6, t1
    li    t0, 0x10000000
    sltu  t1, t5, t0
    slli  t1, t1, 2
    sll   t5, t5, t1
    add   t6, t6, t1
    li    t0, 0x40000000
    sltu  t1, t5, t0
    slli  t1, t1, 1
    sll   t5, t5, t1
    add   t6, t6, t1
    srli  t1, t5, 31
    xori  t1, t1, 1
    sll   t5, t5, t1
    add   t6, t6, t1

    /* case flags (0/1) and their all-ones masks */
    seqz  t0, a4                /* e == 0 */
    snez  t1, a5                /* m != 0 */
    and   t2, t0, t1            /* subnormal */
    xori  t3, t1, 1
    and   t3, t0, t3            /* zero */
    addi  t4, a4, -255
    seqz  t4, t4                /* e == 255: inf or NaN */
    and   a6, t4, t1            /* NaN */

    /* normal: exponent e + 896, fraction m */
    addi  a0, a4, 896           /* a0 = E */
    mv    a1, a5                /* a1 = 23-bit fraction */
    /* inf/NaN: E = 2047 */
    li    a7, 2047
    xor   a7, a7, a0
    neg   t0, t4
    and   a7, a7, t0
    xor   a0, a0, a7
    /* subnormal: E = 905 - n, fraction = ((m << n) >> 8) & 0x7fffff */
    li    a7, 905
    sub   a7, a7, t6
    xor   a7, a7, a0
    neg   t0, t2
    and   a7, a7, t0
    xor   a0, a0, a7
    srli  a7, t5, 8
    slli  a7, a7, 9
    srli  a7, a7, 9
    xor   a7, a7, a1
    and   a7, a7, t0
    xor   a1, a1, a7
    /* zero: E = 0 (the fraction is already 0) */
    addi  t0, t3, -1            /* all ones unless zero */
    and   a0, a0, t0

    /* assemble: hi = sign | E << 20 | frac >> 3, lo = frac << 29 */
    slli  a7, a3, 31
    slli  a0, a0, 20
    or    a7, a7, a0
    srli  t0, a1, 3
    or    a7, a7, t0            /* a7 = high word */
    slli  a0, a1, 29            /* a0 = low word */
    /* NaN: canonical 0x7ff80000_00000000 */
    neg   t0, a6
    li    t1, 0x7ff80000
    xor   t1, t1, a7
    and   t1, t1, t0
    xor   a1, a7, t1
    not   t0, t0
    and   a0, a0, t0
    ret
    .size __extendsfdf2, . - __extendsfdf2
