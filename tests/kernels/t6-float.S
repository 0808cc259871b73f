/*
 * t6-float.S - float register values as vxdump and vxdiff print them, and a CSR
 * without a name (tests/t6001-vxdump.py, tests/t6002-vxdiff.py).  One lane; no
 * runtime.  fa1 is the float at 0x20000 (a --load input): 16777216.0 and the float
 * after it, 16777218.0, both print as 1.67772e+07 with 6 digits; fa4..fa7 NaNs
 * (canonical, with a payload, signalling, negative).  The last
 * instruction reads CSR 0xc00 (cycle), which vxsim does not have: a fault that ends
 * the kernel.
 */
    .section .init
    .globl _start
    .type _start, @function
_start:
    lui      t0, 0x4b800        /* 16777216.0 */
    fmv.w.x  fa0, t0
    lui      t1, 0x20
    flw      fa1, 0(t1)         /* the input */
    li       t0, 0x3dcccccd     /* 0.1f */
    fmv.w.x  fa2, t0
    li       t0, 0x00800000     /* FLT_MIN, 1.17549435e-38 */
    fmv.w.x  fa3, t0
    li       t0, 0x7fc00000     /* the canonical NaN */
    fmv.w.x  fa4, t0
    li       t0, 0x7fc00001     /* a quiet NaN with a payload */
    fmv.w.x  fa5, t0
    li       t0, 0x7f800001     /* a signalling NaN */
    fmv.w.x  fa6, t0
    li       t0, 0xffc00000     /* the canonical NaN's sign flipped */
    fmv.w.x  fa7, t0
    csrr     a0, 0xc00
    .size _start, . - _start
