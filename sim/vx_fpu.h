/*
 * vx_fpu.h - IEEE-754 binary32 arithmetic for the F extension, bit-exact and
 * host-independent.
 *
 * Values are raw bit patterns.  rm is a resolved rounding mode (VX_RM_RNE..RMM;
 * the executor replaces the dynamic mode 7 with frm before calling, and rejects
 * invalid modes).  Every operation ORs the exception flags it raises into *flags
 * (VX_FFLAG_*), as RISC-V accumulates them in fflags.  NaN results are the
 * canonical NaN 0x7FC00000 (RISC-V unprivileged spec, "NaN Generation and
 * Propagation").
 */
#ifndef VX_FPU_H
#define VX_FPU_H

#include <stdint.h>

enum {
    VX_RM_RNE = 0, /* round to nearest, ties to even */
    VX_RM_RTZ = 1, /* towards zero */
    VX_RM_RDN = 2, /* down (towards -inf) */
    VX_RM_RUP = 3, /* up (towards +inf) */
    VX_RM_RMM = 4, /* to nearest, ties to max magnitude */
    VX_RM_DYN = 7, /* dynamic: use frm (resolved by the caller) */
};

#define VX_FFLAG_NX 0x01u /* inexact */
#define VX_FFLAG_UF 0x02u /* underflow */
#define VX_FFLAG_OF 0x04u /* overflow */
#define VX_FFLAG_DZ 0x08u /* divide by zero */
#define VX_FFLAG_NV 0x10u /* invalid */

#define VX_F32_CANONICAL_NAN 0x7FC00000u

uint32_t vx_f32_add(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags);
uint32_t vx_f32_sub(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags);
uint32_t vx_f32_mul(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags);
uint32_t vx_f32_div(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags);
uint32_t vx_f32_sqrt(uint32_t a, unsigned rm, uint32_t *flags);

/* Fused a*b+c with one rounding.  The four RISC-V forms:
 * fmadd = a*b+c, fmsub = a*b-c, fnmsub = -(a*b)+c, fnmadd = -(a*b)-c. */
uint32_t vx_f32_fmadd(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t *flags);
uint32_t vx_f32_fmsub(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t *flags);
uint32_t vx_f32_fnmsub(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t *flags);
uint32_t vx_f32_fnmadd(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t *flags);

/* fmin.s / fmax.s (IEEE 754-2019 minimumNumber/maximumNumber, -0 < +0). */
uint32_t vx_f32_min(uint32_t a, uint32_t b, uint32_t *flags);
uint32_t vx_f32_max(uint32_t a, uint32_t b, uint32_t *flags);

/* feq.s (quiet), flt.s / fle.s (signaling): 1 or 0. */
uint32_t vx_f32_eq(uint32_t a, uint32_t b, uint32_t *flags);
uint32_t vx_f32_lt(uint32_t a, uint32_t b, uint32_t *flags);
uint32_t vx_f32_le(uint32_t a, uint32_t b, uint32_t *flags);

/* fclass.s: the 10-bit one-hot class mask. */
uint32_t vx_f32_class(uint32_t a);

/* fcvt.w.s / fcvt.wu.s: saturating conversions (NaN -> max positive), NV on out of range. */
uint32_t vx_f32_to_i32(uint32_t a, unsigned rm, uint32_t *flags);
uint32_t vx_f32_to_u32(uint32_t a, unsigned rm, uint32_t *flags);
/* fcvt.s.w / fcvt.s.wu */
uint32_t vx_f32_from_i32(uint32_t v, unsigned rm, uint32_t *flags);
uint32_t vx_f32_from_u32(uint32_t v, unsigned rm, uint32_t *flags);

#endif /* VX_FPU_H */
