/*
 * fpu_int.h - PRIVATE to sim/: whole-warp forms of the vx_fpu.h operations, for
 * the executor (exec.c).  One call per warp-instruction runs the operation on
 * every lane t set in (m0: lanes 0-63, m1: lanes 64-127), in ascending order,
 * with exactly the result and flags of the per-lane function (the fast paths
 * are inlined into the loop).  d[t] is written after a[t], b[t], c[t] are read,
 * so d may be one of the sources.  They return the OR of all lanes' flags.
 * nega / negb / negc are XORed into the operands' bits (0 or 0x80000000): they
 * select fsub and the four fused forms exactly as vx_fpu.h defines them.
 */
#ifndef VX_FPU_INT_H
#define VX_FPU_INT_H

#include <stdint.h>

/* a + (b ^ negb): fadd.s (negb = 0), fsub.s (negb = sign bit) */
uint32_t vx_f32_add_lanes(uint32_t *d, const uint32_t *a, const uint32_t *b, uint32_t negb,
                          uint64_t m0, uint64_t m1, unsigned rm);
uint32_t vx_f32_mul_lanes(uint32_t *d, const uint32_t *a, const uint32_t *b, uint64_t m0,
                          uint64_t m1, unsigned rm);
/* (a ^ nega) * b + (c ^ negc): fmadd (0, 0), fmsub (0, S), fnmsub (S, 0), fnmadd (S, S) */
uint32_t vx_f32_fma_lanes(uint32_t *d, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                          uint32_t nega, uint32_t negc, uint64_t m0, uint64_t m1, unsigned rm);
/* fcvt.s.w (is_signed) / fcvt.s.wu */
uint32_t vx_f32_from_int_lanes(uint32_t *d, const uint32_t *a, int is_signed, uint64_t m0,
                               uint64_t m1, unsigned rm);

#endif /* VX_FPU_INT_H */
