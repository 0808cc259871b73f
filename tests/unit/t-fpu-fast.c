/*
 * t-fpu-fast.c - the binary64 fast paths of sim/fpu.c against its exact integer
 * paths, and the whole-warp functions of sim/fpu_int.h against the per-lane ones.
 *
 * This test compiles a second copy of fpu.c with VX_FPU_NO_FAST and every public
 * name renamed (vx_f32_* -> ref_f32_*): the reference is the exact integer
 * arithmetic alone.  The library's fpu.o (fast paths first) is linked as usual.
 * Both must agree bit for bit, flags included, in all five rounding modes.  The
 * operands aim at what decides the fast paths: sums on the binary32 grid (small
 * integers and dyadic values, as in dot products), the fma exponent window of
 * fpu.c (c's quantum 4 below to 28 above the product's) and just outside it,
 * exact cancellation, zero, subnormal, infinite and NaN operands, results near
 * overflow and underflow, and integers around 2^24.  t-fpu.c checks both paths
 * against the host FPU; this one pins them to each other on the inputs where a
 * wrong shortcut would show.
 */
#define VX_FPU_NO_FAST        1
#define vx_f32_add            ref_f32_add
#define vx_f32_sub            ref_f32_sub
#define vx_f32_mul            ref_f32_mul
#define vx_f32_div            ref_f32_div
#define vx_f32_sqrt           ref_f32_sqrt
#define vx_f32_fmadd          ref_f32_fmadd
#define vx_f32_fmsub          ref_f32_fmsub
#define vx_f32_fnmsub         ref_f32_fnmsub
#define vx_f32_fnmadd         ref_f32_fnmadd
#define vx_f32_min            ref_f32_min
#define vx_f32_max            ref_f32_max
#define vx_f32_eq             ref_f32_eq
#define vx_f32_lt             ref_f32_lt
#define vx_f32_le             ref_f32_le
#define vx_f32_class          ref_f32_class
#define vx_f32_to_i32         ref_f32_to_i32
#define vx_f32_to_u32         ref_f32_to_u32
#define vx_f32_from_i32       ref_f32_from_i32
#define vx_f32_from_u32       ref_f32_from_u32
#define vx_f32_add_lanes      ref_f32_add_lanes
#define vx_f32_mul_lanes      ref_f32_mul_lanes
#define vx_f32_fma_lanes      ref_f32_fma_lanes
#define vx_f32_from_int_lanes ref_f32_from_int_lanes
#include "../../sim/fpu.c"
#undef vx_f32_add
#undef vx_f32_sub
#undef vx_f32_mul
#undef vx_f32_div
#undef vx_f32_sqrt
#undef vx_f32_fmadd
#undef vx_f32_fmsub
#undef vx_f32_fnmsub
#undef vx_f32_fnmadd
#undef vx_f32_min
#undef vx_f32_max
#undef vx_f32_eq
#undef vx_f32_lt
#undef vx_f32_le
#undef vx_f32_class
#undef vx_f32_to_i32
#undef vx_f32_to_u32
#undef vx_f32_from_i32
#undef vx_f32_from_u32
#undef vx_f32_add_lanes
#undef vx_f32_mul_lanes
#undef vx_f32_fma_lanes
#undef vx_f32_from_int_lanes

#include <stdio.h>
#include "tap.h"

/* The library's versions (vx_fpu.h and fpu_int.h were included above under the
 * reference names). */
uint32_t vx_f32_add(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags);
uint32_t vx_f32_sub(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags);
uint32_t vx_f32_mul(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags);
uint32_t vx_f32_div(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags);
uint32_t vx_f32_sqrt(uint32_t a, unsigned rm, uint32_t *flags);
uint32_t vx_f32_fmadd(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t *flags);
uint32_t vx_f32_fmsub(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t *flags);
uint32_t vx_f32_fnmsub(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t *flags);
uint32_t vx_f32_fnmadd(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t *flags);
uint32_t vx_f32_from_i32(uint32_t v, unsigned rm, uint32_t *flags);
uint32_t vx_f32_from_u32(uint32_t v, unsigned rm, uint32_t *flags);
uint32_t vx_f32_add_lanes(uint32_t *d, const uint32_t *a, const uint32_t *b, uint32_t negb,
                          uint64_t m0, uint64_t m1, unsigned rm);
uint32_t vx_f32_mul_lanes(uint32_t *d, const uint32_t *a, const uint32_t *b, uint64_t m0,
                          uint64_t m1, unsigned rm);
uint32_t vx_f32_fma_lanes(uint32_t *d, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                          uint32_t nega, uint32_t negc, uint64_t m0, uint64_t m1, unsigned rm);
uint32_t vx_f32_from_int_lanes(uint32_t *d, const uint32_t *a, int is_signed, uint64_t m0,
                               uint64_t m1, unsigned rm);

static uint64_t rng = 0x243F6A8885A308D3u;

static uint32_t rnd32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* k * 2^e as binary32 bits (k a small signed integer, e small): on the grid. */
static uint32_t dyadic(int k, int e)
{
    return fbits(ldexpf((float)k, e));
}

/* Any float, biased to the interesting classes. */
static uint32_t any_float(void)
{
    uint32_t r = rnd32();
    switch (r % 16) {
    case 0: return r & 0x807FFFFFu;                                         /* subnormal or zero */
    case 1: return (r & 0x80000000u) | 0x7F800000u;                         /* inf */
    case 2: return (r & 0x80000000u) | 0x7F800000u | (rnd32() | 1u) >> 9;   /* NaN */
    case 3: return (r & 0x80000000u) | (rnd32() & 0x7FFFFFu) | 0x7F000000u; /* huge */
    case 4: return (r & 0x80000000u) | (rnd32() & 0x7FFFFFu) | 0x00800000u; /* tiny normal */
    case 5:
    case 6:
    case 7: return dyadic((int)(rnd32() % 2001) - 1000, (int)(rnd32() % 21) - 10);
    default: return rnd32();
    }
}

/* An addend for a*b: on the grid with p, at the window edges, or cancelling it. */
static uint32_t addend(uint32_t a, uint32_t b)
{
    uint32_t r = rnd32();
    int ea = (int)((a >> 23) & 0xFF), eb = (int)((b >> 23) & 0xFF);
    int d, ec;
    switch (r % 8) {
    case 0: {
        /* -(a*b) when it is a float: exact cancellation */
        uint32_t fl = 0, m = ref_f32_mul(a, b, VX_RM_RNE, &fl);
        return fl ? any_float() : m ^ 0x80000000u;
    }
    case 1:
    case 2:
    case 3:
        /* c's quantum d = Ec - Ea - Eb + 150 around the window [-4, 28] */
        d = (int)(rnd32() % 40) - 8;
        ec = d + ea + eb - 150;
        if (ec < 1 || ec > 254) return any_float();
        return (r & 0x80000000u) | (uint32_t)ec << 23 | (rnd32() & 0x7FFFFFu);
    case 4: return r & 0x80000000u; /* +-0 */
    default: return any_float();
    }
}

struct tally {
    long n, bad;
};

static void check(struct tally *t, const char *what, unsigned rm, uint32_t a, uint32_t b,
                  uint32_t c, uint32_t got, uint32_t gfl, uint32_t want, uint32_t wfl)
{
    t->n++;
    if (got == want && gfl == wfl) return;
    if (t->bad++ < 5)
        diag("%s rm %u (%08x, %08x, %08x): fast %08x/%02x, exact %08x/%02x", what, rm, a, b, c, got,
             gfl, want, wfl);
}

#define N_FMA 400000
#define N_BIN 200000
#define N_INT 100000

static void fma_vs_exact(void)
{
    struct tally t[4] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
    static const char *const names[4] = {"fmadd", "fmsub", "fnmsub", "fnmadd"};
    for (long i = 0; i < N_FMA; i++) {
        uint32_t a, b;
        if (i & 1) { /* dot-product-like: small integers and dyadic values */
            a = dyadic((int)(rnd32() % 33) - 16, (int)(rnd32() % 9) - 4);
            b = dyadic((int)(rnd32() % 33) - 16, (int)(rnd32() % 9) - 4);
        } else {
            a = any_float();
            b = any_float();
        }
        uint32_t c = (i % 3) ? addend(a, b) : any_float();
        for (unsigned rm = 0; rm < 5; rm++) {
            uint32_t gf, wf, g, w;
            gf = wf = 0, g = vx_f32_fmadd(a, b, c, rm, &gf), w = ref_f32_fmadd(a, b, c, rm, &wf);
            check(&t[0], names[0], rm, a, b, c, g, gf, w, wf);
            gf = wf = 0, g = vx_f32_fmsub(a, b, c, rm, &gf), w = ref_f32_fmsub(a, b, c, rm, &wf);
            check(&t[1], names[1], rm, a, b, c, g, gf, w, wf);
            gf = wf = 0, g = vx_f32_fnmsub(a, b, c, rm, &gf), w = ref_f32_fnmsub(a, b, c, rm, &wf);
            check(&t[2], names[2], rm, a, b, c, g, gf, w, wf);
            gf = wf = 0, g = vx_f32_fnmadd(a, b, c, rm, &gf), w = ref_f32_fnmadd(a, b, c, rm, &wf);
            check(&t[3], names[3], rm, a, b, c, g, gf, w, wf);
        }
    }
    for (int k = 0; k < 4; k++)
        ok(t[k].bad == 0, "%s: fast path = exact path on %ld cases (%ld differ)", names[k], t[k].n,
           t[k].bad);
}

/* The window's edges one by one: d = -5 .. 29 with full 24-bit significands, where
 * a 53-bit sum is exact inside and may not be outside. */
static void fma_window_edges(void)
{
    struct tally t = {0, 0};
    for (int d = -6; d <= 30; d++)
        for (int i = 0; i < 4000; i++) {
            uint32_t ea = 100 + rnd32() % 60, eb = 100 + rnd32() % 60;
            int ec = d + (int)ea + (int)eb - 150;
            if (ec < 1 || ec > 254) continue;
            uint32_t a = (rnd32() & 0x80000000u) | ea << 23 | (rnd32() & 0x7FFFFFu);
            uint32_t b = (rnd32() & 0x80000000u) | eb << 23 | (rnd32() & 0x7FFFFFu);
            uint32_t c = (rnd32() & 0x80000000u) | (uint32_t)ec << 23 | (rnd32() & 0x7FFFFFu);
            if (i & 1) { /* few significant bits: sums land on the grid */
                a &= 0xFFF80000u;
                b &= 0xFFF80000u;
                c &= (i & 2) ? 0xFFFFFFFFu : 0xFFF00000u;
            }
            for (unsigned rm = 0; rm < 5; rm++) {
                uint32_t gf = 0, wf = 0;
                uint32_t g = vx_f32_fmadd(a, b, c, rm, &gf), w = ref_f32_fmadd(a, b, c, rm, &wf);
                check(&t, "fmadd window", rm, a, b, c, g, gf, w, wf);
            }
        }
    ok(t.bad == 0, "fmadd around the exponent window: fast = exact on %ld cases (%ld differ)", t.n,
       t.bad);
}

/* The inverse of odd b modulo 2^32 (Newton's iteration doubles the bits each step). */
static uint32_t inv_odd(uint32_t b)
{
    uint32_t x = b;
    for (int i = 0; i < 5; i++)
        x *= 2u - b * x;
    return x;
}

static uint32_t pack_sig(uint32_t e, uint32_t sig24)
{
    return e << 23 | (sig24 & 0x7FFFFFu);
}

/*
 * Just outside the window, cases built so that x = a*b + c is NOT a double while
 * the double sum s lands on the grid (so only the exactness argument separates
 * them): a window one step too wide would return s's rounding with wrong flags.
 *   d = 29, 30: A*B = 1 (mod 2^31) and C near 2^24: N = C*2^d + A*B has 54 or 55
 *               bits ending in ...0001, s drops the 1 and is on the grid.
 *   d = -6:     N = A*B*64 + C = 1 (mod 2^29) with 54 bits: same shape.
 * (d = -5 cannot be built: A*B*32 + C < 2^53 always; the window stops at -4 for a
 * simpler bound.)
 */
static void fma_window_adversarial(void)
{
    struct tally t = {0, 0};
    for (int i = 0; i < 3000; i++) {
        int d = i % 3 == 0 ? 29 : i % 3 == 1 ? 30 : -6;
        uint32_t A, B, C;
        for (;;) {
            B = (1u << 23) | rnd32() | 1u;
            B &= 0xFFFFFFu;
            if (d > 0) {
                A = inv_odd(B) & 0x7FFFFFFFu; /* A*B = 1 mod 2^31 */
                if (A >> 23 != 1) continue;   /* needs 24 bits exactly */
                C = 0xFFFFFFu - (rnd32() & 0xFFFFu);
            } else {
                A = (1u << 23) | (rnd32() & 0x7FFFFFu);
                uint64_t ab = (uint64_t)A * B;
                if (ab < (UINT64_C(1) << 47)) continue;
                C = (uint32_t)((1u - (uint32_t)(ab * 64)) & 0x1FFFFFFFu); /* N = 1 mod 2^29 */
                if (C >> 23 != 1) continue;
            }
            break;
        }
        uint32_t ea = 110 + rnd32() % 40, eb = 110 + rnd32() % 40;
        uint32_t ec = (uint32_t)(d + (int)ea + (int)eb - 150);
        uint32_t a = pack_sig(ea, A), b = pack_sig(eb, B), c = pack_sig(ec, C);
        for (unsigned rm = 0; rm < 5; rm++) {
            uint32_t gf = 0, wf = 0;
            uint32_t g = vx_f32_fmadd(a, b, c, rm, &gf), w = ref_f32_fmadd(a, b, c, rm, &wf);
            check(&t, "fmadd past the window", rm, a, b, c, g, gf, w, wf);
        }
    }
    ok(t.bad == 0,
       "fmadd just past the window (d = 29, 30, -6): fast = exact on %ld cases "
       "(%ld differ)",
       t.n, t.bad);
}

static void binary_vs_exact(void)
{
    struct tally ta = {0, 0}, ts = {0, 0}, tm = {0, 0}, td = {0, 0}, tq = {0, 0};
    for (long i = 0; i < N_BIN; i++) {
        uint32_t a = any_float(), b = (i & 1) ? any_float() : dyadic((int)(rnd32() % 99) - 49, 0);
        for (unsigned rm = 0; rm < 5; rm++) {
            uint32_t gf = 0, wf = 0;
            check(&ta, "add", rm, a, b, 0, vx_f32_add(a, b, rm, &gf), gf,
                  ref_f32_add(a, b, rm, &wf), wf);
            gf = wf = 0;
            check(&ts, "sub", rm, a, b, 0, vx_f32_sub(a, b, rm, &gf), gf,
                  ref_f32_sub(a, b, rm, &wf), wf);
            gf = wf = 0;
            check(&tm, "mul", rm, a, b, 0, vx_f32_mul(a, b, rm, &gf), gf,
                  ref_f32_mul(a, b, rm, &wf), wf);
            gf = wf = 0;
            check(&td, "div", rm, a, b, 0, vx_f32_div(a, b, rm, &gf), gf,
                  ref_f32_div(a, b, rm, &wf), wf);
            gf = wf = 0;
            check(&tq, "sqrt", rm, a, 0, 0, vx_f32_sqrt(a, rm, &gf), gf, ref_f32_sqrt(a, rm, &wf),
                  wf);
        }
    }
    ok(ta.bad + ts.bad + tm.bad + td.bad + tq.bad == 0,
       "add/sub/mul/div/sqrt: fast = exact on %ld cases (%ld differ)",
       ta.n + ts.n + tm.n + td.n + tq.n, ta.bad + ts.bad + tm.bad + td.bad + tq.bad);
}

static uint32_t any_int(void)
{
    uint32_t r = rnd32();
    switch (r % 6) {
    case 0: return (1u << 24) + (rnd32() % 9) - 4; /* around 2^24 */
    case 1: return (uint32_t) - (int32_t)((1u << 24) + (rnd32() % 9) - 4);
    case 2: return rnd32() % 2001 - 1000;           /* small, both signs */
    case 3: return 0x80000000u + (rnd32() % 5) - 2; /* around INT_MIN / 2^31 */
    case 4: return 0xFFFFFFFFu - (rnd32() % 5);     /* UINT_MAX, -1 .. */
    default: return rnd32() >> (rnd32() % 32);
    }
}

static void int_to_float_vs_exact(void)
{
    struct tally t = {0, 0};
    for (long i = 0; i < N_INT; i++) {
        uint32_t v = any_int();
        for (unsigned rm = 0; rm < 5; rm++) {
            uint32_t gf = 0, wf = 0;
            check(&t, "fcvt.s.w", rm, v, 0, 0, vx_f32_from_i32(v, rm, &gf), gf,
                  ref_f32_from_i32(v, rm, &wf), wf);
            gf = wf = 0;
            check(&t, "fcvt.s.wu", rm, v, 0, 0, vx_f32_from_u32(v, rm, &gf), gf,
                  ref_f32_from_u32(v, rm, &wf), wf);
        }
    }
    ok(t.bad == 0, "fcvt.s.w/wu: fast = exact on %ld cases (%ld differ)", t.n, t.bad);
}

/*
 * Whole-warp functions: random masks over 128 lanes, the destination aliasing a
 * source half of the time; every active lane must hold the per-lane (reference)
 * result, inactive lanes must keep their value, and the flags must be the OR of
 * the active lanes' flags.
 */
static void lanes_vs_per_lane(void)
{
    long n = 0, bad = 0;
    uint32_t A[128], B[128], C[128], D[128], W[128];
    for (int it = 0; it < 3000; it++) {
        uint64_t m0 = (uint64_t)rnd32() << 32 | rnd32(), m1 = (uint64_t)rnd32() << 32 | rnd32();
        if (it % 4 == 0) m0 = ~0ull, m1 = it % 8 ? 0 : ~0ull; /* full 64 / 128 lanes */
        if (it % 4 == 1) m0 = 0xF, m1 = 0;                    /* 4 lanes */
        for (int t = 0; t < 128; t++) {
            A[t] = (it & 1) ? any_float() : dyadic((int)(rnd32() % 33) - 16, 0);
            B[t] = (it & 1) ? any_float() : dyadic((int)(rnd32() % 33) - 16, 0);
            C[t] = (t & 1) ? addend(A[t], B[t]) : any_float();
            D[t] = rnd32();
        }
        unsigned rm = (unsigned)it % 5;
        int op = it % 6, alias = (it / 6) & 1;
        uint32_t negx = (it / 12) & 1 ? 0x80000000u : 0, negy = (it / 24) & 1 ? 0x80000000u : 0;
        /* expected, lane by lane with the reference */
        uint32_t wfl = 0;
        for (int t = 0; t < 128; t++) {
            int on = (int)(((t < 64 ? m0 : m1) >> (t & 63)) & 1);
            uint32_t a = A[t], b = B[t], c = C[t];
            W[t] = alias ? A[t] : D[t];
            if (!on) continue;
            switch (op) {
            case 0: W[t] = ref_f32_add(a, b ^ negy, rm, &wfl); break;
            case 1: W[t] = ref_f32_mul(a, b, rm, &wfl); break;
            case 2: W[t] = ref_f32_fmadd(a ^ negx, b, c ^ negy, rm, &wfl); break;
            case 3: W[t] = ref_f32_from_i32(a, rm, &wfl); break;
            case 4: W[t] = ref_f32_from_u32(a, rm, &wfl); break;
            default: W[t] = ref_f32_fmadd(a, b, c, rm, &wfl); break;
            }
        }
        uint32_t gfl = 0, *d = alias ? A : D;
        switch (op) {
        case 0: gfl = vx_f32_add_lanes(d, A, B, negy, m0, m1, rm); break;
        case 1: gfl = vx_f32_mul_lanes(d, A, B, m0, m1, rm); break;
        case 2: gfl = vx_f32_fma_lanes(d, A, B, C, negx, negy, m0, m1, rm); break;
        case 3: gfl = vx_f32_from_int_lanes(d, A, 1, m0, m1, rm); break;
        case 4: gfl = vx_f32_from_int_lanes(d, A, 0, m0, m1, rm); break;
        default: gfl = vx_f32_fma_lanes(d, A, B, C, 0, 0, m0, m1, rm); break;
        }
        n++;
        if (memcmp(d, W, sizeof W) != 0 || gfl != wfl) {
            if (bad++ < 5) diag("lanes op %d rm %u alias %d: mismatch", op, rm, alias);
        }
    }
    ok(bad == 0,
       "whole-warp add/sub/mul/fma/fcvt.s.w(u) = per-lane reference on %ld warps (%ld "
       "differ)",
       n, bad);
}

int main(void)
{
    fma_vs_exact();
    fma_window_edges();
    fma_window_adversarial();
    binary_vs_exact();
    int_to_float_vs_exact();
    lanes_vs_per_lane();
    return tap_exit();
}
