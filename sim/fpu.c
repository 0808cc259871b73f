/*
 * fpu.c - IEEE 754 binary32 arithmetic with RISC-V F semantics (see vx_fpu.h).
 *
 * The reference paths compute on bit patterns with exact integer arithmetic.
 * Faster paths on the host's binary64 take over only where they provably give
 * the same result and flags (see "fast paths", each with its proof); neither
 * depends on the host's rounding mode or other FPU state.  The RISC-V choices
 * that IEEE 754 leaves open:
 *   - every NaN result is the canonical NaN 0x7FC00000, payloads are dropped;
 *   - tininess is detected after rounding: a nonzero result is tiny when rounding
 *     the exact value to 24 bits with an unbounded exponent gives a magnitude
 *     below 2^-126; UF is raised only when the result is tiny and inexact;
 *   - fma raises NV for 0 * inf even when the addend is a quiet NaN;
 *   - conversions to integers saturate (NaN goes to the largest integer) and
 *     raise NV, never NX, when the rounded value does not fit.
 *
 * Internal form of a finite nonzero value: sign, exponent exp and significand
 * sig, with value = sig * 2^(exp - P) where the leading one of sig sits at bit P
 * (P is said at each use).  Bits that fell off the bottom during alignment are
 * kept as a "sticky" one in bit 0, which is enough for correct rounding as long
 * as the rounding point is at least two bits above bit 0 (it always is: every
 * core below keeps 8 or more spare bits under the rounding point).
 */
#include "vx_fpu.h"
#include "fpu_int.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define SIGN_BIT 0x80000000u
#define FRAC     0x007FFFFFu
#define HIDDEN   0x00800000u
#define QUIET    0x00400000u
#define INF      0x7F800000u
#define MAX_FIN  0x7F7FFFFFu
#define CNAN     VX_F32_CANONICAL_NAN

#define LIKELY(x) __builtin_expect(!!(x), 1)
/* The whole-warp loops below rely on the per-lane paths being inlined. */
#define ALWAYS_INLINE inline __attribute__((always_inline))
#define UNLIKELY(x)   __builtin_expect(!!(x), 0)

static inline int is_nan(uint32_t a)
{
    return (a & ~SIGN_BIT) > INF;
}

static inline int is_snan(uint32_t a)
{
    return is_nan(a) && !(a & QUIET);
}

static inline int is_zero(uint32_t a)
{
    return (a & ~SIGN_BIT) == 0;
}

static inline int is_inf(uint32_t a)
{
    return (a & ~SIGN_BIT) == INF;
}

static inline unsigned exp_field(uint32_t a)
{
    return (a >> 23) & 0xFFu;
}

static inline int clz64(uint64_t x)
{
    return __builtin_clzll(x);
}

/* x >> n, ORing every bit shifted out into bit 0 (n may exceed 63). */
static inline uint64_t shr_sticky(uint64_t x, unsigned n)
{
    if (n == 0) return x;
    if (n >= 64) return x != 0;
    return (x >> n) | ((x << (64 - n)) != 0);
}

/*
 * Whether rounding adds one unit to a magnitude whose kept part has lowest bit
 * lsb and whose discarded part is rb, half being the value of half a unit.
 * Modes outside RNE..RMM never reach here through the executor; they round to
 * nearest even.
 */
static inline uint64_t round_up(unsigned rm, uint32_t sign, uint64_t lsb, uint64_t rb,
                                uint64_t half)
{
    switch (rm) {
    case VX_RM_RTZ: return 0;
    case VX_RM_RDN: return sign && rb;
    case VX_RM_RUP: return !sign && rb;
    case VX_RM_RMM: return rb >= half;
    default: return rb > half || (rb == half && lsb);
    }
}

/* The result of an overflow: infinity, or the largest finite value when the
 * mode rounds towards zero for this sign. */
static uint32_t overflow(uint32_t sign, unsigned rm, uint32_t *flags)
{
    *flags |= VX_FFLAG_OF | VX_FFLAG_NX;
    int to_max = rm == VX_RM_RTZ || (rm == VX_RM_RDN && !sign) || (rm == VX_RM_RUP && sign);
    return (sign << 31) | (to_max ? MAX_FIN : INF);
}

/*
 * Round and pack a nonzero value: value = sig * 2^(exp - 62), bit 62 of sig
 * set, bit 0 sticky.  sign is 0 or 1.
 */
static uint32_t round_pack(uint32_t sign, int32_t exp, uint64_t sig, unsigned rm, uint32_t *flags)
{
    const uint64_t mask39 = (UINT64_C(1) << 39) - 1, half39 = UINT64_C(1) << 38;
    if (LIKELY(exp >= -126)) {
        /* Normal range: keep bits 62..39 (24 bits). */
        if (UNLIKELY(exp > 127)) return overflow(sign, rm, flags);
        uint64_t rb = sig & mask39, m = sig >> 39;
        m += round_up(rm, sign, m & 1, rb, half39);
        /* m includes the hidden bit, so a carry out of the significand
         * (m == 2^24) lands in the exponent field by itself. */
        uint32_t bits = ((uint32_t)(exp + 126) << 23) + (uint32_t)m;
        if (UNLIKELY(bits >= INF)) return overflow(sign, rm, flags);
        if (rb) *flags |= VX_FFLAG_NX;
        return (sign << 31) | bits;
    }
    /* Below 2^-126: the quantum is 2^-149, so the rounding point moves up by
     * -126 - exp bits.  Tininess is judged after rounding with an unbounded
     * exponent, which can reach 2^-126 only from exp == -127. */
    int tiny = 1;
    if (exp == -127) {
        uint64_t m0 = sig >> 39;
        if (m0 + round_up(rm, sign, m0 & 1, sig & mask39, half39) == (UINT64_C(1) << 24)) tiny = 0;
    }
    unsigned sh = 39u + (unsigned)(-126 - exp);
    uint64_t m, rb, half;
    if (sh >= 63) {
        /* sh == 63 still has its half point at bit 62; beyond that the whole
         * value is a nonzero amount under half a quantum. */
        m = 0;
        rb = sh == 63 ? sig : 1;
        half = sh == 63 ? UINT64_C(1) << 62 : 2;
    } else {
        m = sig >> sh;
        rb = sig & ((UINT64_C(1) << sh) - 1);
        half = UINT64_C(1) << (sh - 1);
    }
    m += round_up(rm, sign, m & 1, rb, half);
    if (rb) *flags |= tiny ? VX_FFLAG_NX | VX_FFLAG_UF : VX_FFLAG_NX;
    /* m == 2^23 is the smallest normal, which the encoding gives for free. */
    return (sign << 31) | (uint32_t)m;
}

/* Normalise a nonzero sig (value = sig * 2^(exp - pos)) and round it. */
static inline uint32_t norm_round_pack(uint32_t sign, int32_t exp, int pos, uint64_t sig,
                                       unsigned rm, uint32_t *flags)
{
    int lead = 63 - clz64(sig);
    return round_pack(sign, exp - pos + lead, sig << (62 - lead), rm, flags);
}

/* Significand of a finite nonzero value with its leading one at bit 23, and the
 * exponent: value = sig * 2^(*e - 23).  Subnormals are normalised. */
static inline uint32_t unpack(uint32_t a, int32_t *e)
{
    unsigned ef = exp_field(a);
    if (LIKELY(ef)) {
        *e = (int32_t)ef - 127;
        return (a & FRAC) | HIDDEN;
    }
    int sh = __builtin_clz(a & FRAC) - 8;
    *e = -126 - sh;
    return (a & FRAC) << sh;
}

/* NaN operands: NV for a signalling one; the result is the canonical NaN. */
static uint32_t nan2(uint32_t a, uint32_t b, uint32_t *flags)
{
    if (is_snan(a) || is_snan(b)) *flags |= VX_FFLAG_NV;
    return CNAN;
}

static uint32_t invalid(uint32_t *flags)
{
    *flags |= VX_FFLAG_NV;
    return CNAN;
}

/* ---------------------------------------------------------------- add/sub */

/*
 * Sum of two nonzero finite values, each given as value = S * 2^(e - 61) with
 * bit 61 of S set (S may carry a sticky bit 0).  Aligning with a sticky shift
 * is exact enough: when the smaller operand loses bits (distance >= 2) the
 * result still has its leading one at bit 59 or above, so the rounding point is
 * at bit 36 or above; with distance 0 or 1 nothing is lost since the inputs
 * have at least 13 zero bits at the bottom.
 */
static uint32_t add_core(uint32_t sa, int32_t ea, uint64_t Sa, uint32_t sb, int32_t eb, uint64_t Sb,
                         unsigned rm, uint32_t *flags)
{
    if (ea < eb || (ea == eb && Sa < Sb)) {
        uint32_t ts = sa;
        int32_t te = ea;
        uint64_t tS = Sa;
        sa = sb, ea = eb, Sa = Sb;
        sb = ts, eb = te, Sb = tS;
    }
    Sb = shr_sticky(Sb, (unsigned)(ea - eb));
    uint64_t S;
    if (sa == sb) {
        S = Sa + Sb;
    } else {
        S = Sa - Sb;
        /* Exact cancellation: +0, or -0 when rounding down (IEEE 754 6.3). */
        if (S == 0) return rm == VX_RM_RDN ? SIGN_BIT : 0;
    }
    return norm_round_pack(sa, ea, 61, S, rm, flags);
}

static uint32_t add_exact(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags)
{
    if (UNLIKELY(exp_field(a) == 0xFF || exp_field(b) == 0xFF)) {
        if (is_nan(a) || is_nan(b)) return nan2(a, b, flags);
        if (is_inf(a) && is_inf(b) && ((a ^ b) & SIGN_BIT)) return invalid(flags);
        return is_inf(a) ? a : b;
    }
    if (is_zero(a)) {
        /* (-0) + (-0) = -0; +0 + -0 = +0 except in RDN; 0 + x = x exactly. */
        if (is_zero(b) && a != b) return rm == VX_RM_RDN ? SIGN_BIT : 0;
        return b;
    }
    if (is_zero(b)) return a;
    int32_t ea, eb;
    uint64_t Sa = (uint64_t)unpack(a, &ea) << 38;
    uint64_t Sb = (uint64_t)unpack(b, &eb) << 38;
    return add_core(a >> 31, ea, Sa, b >> 31, eb, Sb, rm, flags);
}

/* ---------------------------------------------------------------- mul */

/* Product of two finite nonzero values (no special cases). */
static inline uint32_t mul_finite(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags)
{
    int32_t ea, eb;
    uint64_t P = (uint64_t)unpack(a, &ea) * unpack(b, &eb); /* exact, 47 or 48 bits */
    return norm_round_pack((a ^ b) >> 31, ea + eb, 46, P, rm, flags);
}

static uint32_t mul_exact(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags)
{
    uint32_t sign = (a ^ b) & SIGN_BIT;
    if (UNLIKELY(exp_field(a) == 0xFF || exp_field(b) == 0xFF)) {
        if (is_nan(a) || is_nan(b)) return nan2(a, b, flags);
        if (is_zero(a) || is_zero(b)) return invalid(flags); /* 0 * inf */
        return sign | INF;
    }
    if (is_zero(a) || is_zero(b)) return sign;
    return mul_finite(a, b, rm, flags);
}

/* ---------------------------------------------------------------- div */

static uint32_t div_exact(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags)
{
    uint32_t sign = (a ^ b) & SIGN_BIT;
    if (UNLIKELY(exp_field(a) == 0xFF || exp_field(b) == 0xFF)) {
        if (is_nan(a) || is_nan(b)) return nan2(a, b, flags);
        if (is_inf(a)) return is_inf(b) ? invalid(flags) : sign | INF;
        return sign; /* finite / inf */
    }
    if (is_zero(b)) {
        if (is_zero(a)) return invalid(flags);
        *flags |= VX_FFLAG_DZ;
        return sign | INF;
    }
    if (is_zero(a)) return sign;
    int32_t ea, eb;
    uint64_t na = (uint64_t)unpack(a, &ea) << 40;
    uint32_t db = unpack(b, &eb);
    /* na / db lies in (2^39, 2^41): 40 or 41 bits plus a sticky remainder. */
    uint64_t q = na / db;
    q |= (na % db) != 0;
    return norm_round_pack(sign >> 31, ea - eb, 40, q, rm, flags);
}

/* ---------------------------------------------------------------- sqrt */

/* floor(sqrt(n)) for n < 2^63.  The double estimate is within a few units and
 * the integer corrections make the result exact whatever the host does. */
static uint64_t isqrt64(uint64_t n)
{
    uint64_t r = (uint64_t)sqrt((double)n);
    while (r * r > n)
        r--;
    while ((r + 1) * (r + 1) <= n)
        r++;
    return r;
}

static uint32_t sqrt_exact(uint32_t a, unsigned rm, uint32_t *flags)
{
    if (UNLIKELY(is_nan(a))) return nan2(a, a, flags);
    if (is_zero(a)) return a; /* sqrt(-0) = -0 */
    if (a & SIGN_BIT) return invalid(flags);
    if (a == INF) return a;
    int32_t e;
    uint64_t sig = unpack(a, &e);
    /* value = sig * 2^(e-23).  Scale sig up to 62 or 63 bits so the exponent
     * left over is even; its square root then has 31 or 32 bits. */
    int s = (e & 1) ? 38 : 39;
    uint64_t n = sig << s;
    uint64_t r = isqrt64(n);
    r |= r * r != n;
    int32_t half_exp = (e - 23 - s) / 2; /* exact: e - 23 - s is even */
    return norm_round_pack(0, half_exp, 0, r, rm, flags);
}

/* ---------------------------------------------------------------- fma */

/* a * b + c with one rounding; the callers fold the negations into the signs. */
static uint32_t fma_exact(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t *flags)
{
    uint32_t psign = (a ^ b) & SIGN_BIT;
    if (UNLIKELY(exp_field(a) == 0xFF || exp_field(b) == 0xFF || exp_field(c) == 0xFF)) {
        if (is_snan(a) || is_snan(b) || is_snan(c)) *flags |= VX_FFLAG_NV;
        /* RISC-V: 0 * inf is invalid even when c is a quiet NaN. */
        if ((is_inf(a) && is_zero(b)) || (is_zero(a) && is_inf(b))) return invalid(flags);
        if (is_nan(a) || is_nan(b) || is_nan(c)) return CNAN;
        if (is_inf(a) || is_inf(b)) {
            if (is_inf(c) && ((c ^ psign) & SIGN_BIT)) return invalid(flags); /* inf - inf */
            return psign | INF;
        }
        return c; /* finite product + inf */
    }
    if (is_zero(a) || is_zero(b)) {
        /* Exact zero product: the sum is c, except for the sign of 0 + 0. */
        if (is_zero(c) && (c & SIGN_BIT) != psign) return rm == VX_RM_RDN ? SIGN_BIT : 0;
        return c;
    }
    if (is_zero(c)) return mul_finite(a, b, rm, flags);
    int32_t ea, eb, ec;
    uint64_t P = (uint64_t)unpack(a, &ea) * unpack(b, &eb);
    uint64_t Sc = (uint64_t)unpack(c, &ec) << 38;
    /* value(P) = P * 2^(ea+eb-46); move its leading one to bit 61. */
    int lead = 63 - clz64(P);
    return add_core(psign >> 31, ea + eb + lead - 46, P << (61 - lead), c >> 31, ec, Sc, rm, flags);
}

/* ---------------------------------------------------------------- fast paths */

/*
 * Fast paths on the host's binary64, used only where the result and every flag
 * provably match the exact paths above, in all five rounding modes and
 * whatever the host's own rounding mode, flush-to-zero or denormals-are-zero
 * settings are: every operand handed to the host is a normal float and no double
 * below is ever subnormal (isqrt64's estimate, on the exact paths, is corrected
 * in integers anyway).  Define VX_FPU_NO_FAST to
 * compile them out (tests/unit/t-fpu-exact.c does, to test the exact paths on
 * their own).  They need IEEE binary64 evaluated without extra precision.
 *
 * The common tool is round_double(): it rounds a normal double d to binary32
 * with round_pack, so it is the exact rounding of the value d itself.
 *
 * Lemma (one-ulp approximation).  Let x be the exact real result and d a normal
 * double with |x - d| < u, u = 2^(e-52) the spacing of doubles in d's binade
 * [2^e, 2^(e+1)).  Every point where some binary32 rounding of a value in that
 * binade can change (binary32 values and midpoints between neighbours, for the
 * normal, subnormal and overflow ranges alike; and the 25-bit grid used to judge
 * tininess after rounding) is a multiple of 2^28 u or lies outside (d-u, d+u):
 * for e >= -126 they are the multiples of 2^(e-24) = 2^28 u; for e < -126 they
 * are multiples of 2^-150, a multiple of 2^29 u, or the interval lies strictly
 * between 0 and 2^-150.  So if the low 28 fraction bits of d are not all zero,
 * d is at least u away from every such point and x lies strictly inside the
 * same cell as d: every mode rounds x and d to the same binary32 value, with the
 * same overflow and the same tininess, and x is not representable (NX, as
 * round_double reports for d, whose low bits are nonzero).  One correctly
 * rounded host operation gives |x - d| < u in any IEEE host rounding mode
 * (at most u/2 in round-to-nearest), which is what the host's +, / and sqrt
 * deliver.
 */
#if !defined(VX_FPU_NO_FAST) && FLT_RADIX == 2 && DBL_MANT_DIG == 53 && FLT_MANT_DIG == 24 && \
    defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#define FPU_FAST 1
#else
#define FPU_FAST 0
#endif

#if FPU_FAST
static inline float f32_of(uint32_t a)
{
    float f;
    memcpy(&f, &a, sizeof f);
    return f;
}

static inline uint64_t bits_of_double(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* Exponent of a normal double's leading bit. */
static inline int32_t double_exp(uint64_t u)
{
    return (int32_t)((u >> 52) & 0x7FF) - 1023;
}

/* Round the value of a normal nonzero double to binary32. */
static ALWAYS_INLINE uint32_t round_double(uint64_t u, unsigned rm, uint32_t *flags)
{
    uint32_t e11 = (uint32_t)(u >> 52) & 0x7FFu;
    if (LIKELY(e11 - (1023u - 126u) < 253u)) {
        /* 2^-126 <= |d| < 2^127: the result is normal and even a carry out of
         * the significand cannot overflow, so this is round_pack's normal case
         * done on the double's own fields: the top 23 fraction bits are kept,
         * the low 29 decide, and the exponent is rebiased from 1023 to 127. */
        uint32_t mag = (uint32_t)(((u >> 29) & UINT64_C(0x3FFFFFFFF)) - (UINT64_C(896) << 23));
        uint32_t rb = (uint32_t)u & 0x1FFFFFFFu, sign = (uint32_t)(u >> 32) & SIGN_BIT;
        if (rb) {
            *flags |= VX_FFLAG_NX;
            if (rm == VX_RM_RNE)
                mag += (rb + 0x0FFFFFFFu + (mag & 1)) >> 29; /* > half, or == half and odd */
            else
                mag += (uint32_t)round_up(rm, sign >> 31, mag & 1, rb, 0x10000000u);
        }
        return sign | mag;
    }
    uint64_t sig = ((u & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52)) << 10;
    return round_pack((uint32_t)(u >> 63), double_exp(u), sig, rm, flags);
}

/* The lemma's condition on d: its low 28 fraction bits are not all zero. */
static inline int far_from_grid(uint64_t u)
{
    return (u & 0x0FFFFFFFu) != 0;
}

/* Both exponent fields in 1..254: normal, nonzero, finite. */
static inline int both_normal(uint32_t a, uint32_t b)
{
    return exp_field(a) - 1u < 254u && exp_field(b) - 1u < 254u;
}

/*
 * add: for normal a, b with exponent fields Ea >= Eb, a + b is a multiple of
 * 2^(Eb-150) below 2^(Ea-125) in magnitude, so it has at most Ea - Eb + 25
 * significant bits: with Ea - Eb <= 28 that is <= 53, the double sum is exact
 * (in any host mode) and at least 2^-149, a normal double.  Zero is the exact
 * cancellation of nonzero operands: +0, or -0 in RDN.
 */
static ALWAYS_INLINE int add_fast(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags,
                                  uint32_t *res)
{
    /* |Ea - Eb| <= 28 as one unsigned range check (no data-dependent branch). */
    if (!both_normal(a, b) || exp_field(a) - exp_field(b) + 28u > 56u) return 0;
    double s = (double)f32_of(a) + (double)f32_of(b);
    if (s == 0)
        *res = rm == VX_RM_RDN ? SIGN_BIT : 0;
    else
        *res = round_double(bits_of_double(s), rm, flags);
    return 1;
}

/* mul: the product of two 24-bit significands has at most 48 bits and lies in
 * [2^-252, 2^256), so the double product of normal floats is exact. */
static ALWAYS_INLINE int mul_fast(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags,
                                  uint32_t *res)
{
    if (!both_normal(a, b)) return 0;
    *res = round_double(bits_of_double((double)f32_of(a) * (double)f32_of(b)), rm, flags);
    return 1;
}

/* div: a/b of normal floats is in (2^-254, 2^254), so the double quotient is
 * normal and within one ulp of the exact quotient: the lemma applies.  On the
 * grid (exact quotients among them) the exact path decides. */
static inline int div_fast(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags, uint32_t *res)
{
    if (!both_normal(a, b)) return 0;
    uint64_t q = bits_of_double((double)f32_of(a) / (double)f32_of(b));
    if (!far_from_grid(q)) return 0;
    *res = round_double(q, rm, flags);
    return 1;
}

/* sqrt: for a positive normal float the double square root is a correctly
 * rounded, normal double (>= 2^-63): the lemma applies. */
static inline int sqrt_fast(uint32_t a, unsigned rm, uint32_t *flags, uint32_t *res)
{
    if (exp_field(a) - 1u >= 254u || (a & SIGN_BIT)) return 0;
    uint64_t r = bits_of_double(sqrt((double)f32_of(a)));
    if (!far_from_grid(r)) return 0;
    *res = round_double(r, rm, flags);
    return 1;
}

/* Exponent of the lowest set bit of a normal nonzero double. */
static inline int32_t double_lsb(uint64_t u)
{
    uint64_t m = (u & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52);
    return double_exp(u) - 52 + __builtin_ctzll(m);
}

/*
 * fma, for normal a and b (exponent fields Ea, Eb in 1..254, significands A, B
 * of 24 bits, so a = A * 2^(Ea-150)):
 *   - the double product p = a*b = A*B * 2^(Ea+Eb-300) is exact: A*B has at most
 *     48 bits and |p| lies in [2^-252, 2^256) (see mul_fast);
 *   - c = +-0: x = a*b + c = p exactly (p != 0, so no sign-of-zero question);
 *   - c normal (field Ec, significand C, c = C * 2^(Ec-150)): s = p + c is one
 *     correctly rounded double operation, within one ulp of the exact x.  x is a
 *     multiple of 2^-298, so s is 0 exactly when x is (an exact result is never
 *     rounded) and otherwise normal.  Off the grid the lemma applies.
 *   On the grid, s is usable when x is provably exact (then x = s and
 *   round_double(s) is the exact rounding whatever the magnitude of s):
 *   (1) the exponent window.  With d = Ec - Ea - Eb + 150 (the distance between
 *       the quanta 2^(Ec-150) of c and 2^(Ea+Eb-300) of p), x = N * 2^k with
 *       k the smaller quantum and N = +-A*B*2^i +- C*2^j, min(i, j) = 0:
 *       d in [0, 28]:  i = 0, j = d:  |N| < 2^48 + 2^(24+28) <= 2^53;
 *       d in [-4, -1]: j = 0, i = -d: |N| < 2^(48+4) + 2^24 < 2^53;
 *       so N fits the 53-bit significand of a double: x is a double, x = s.
 *       This is two integer operations and covers the sums of small integers
 *       and dyadic values (dot products, counters) that land on the grid.  The
 *       upper edge is tight (d = 29 admits a 54-bit N whose double sum is on
 *       the grid); d = -5 would still be exact but is left to (2).
 *       tests/unit/t-fpu-fast.c builds such cases just past both edges.
 *   (2) otherwise the lowest set bits: p and c are multiples of 2^m, m = the
 *       lower of their lowest set bits, and |p + c| < 2^(max(ep, ec) + 2), so
 *       p + c fits in 53 bits when max(ep, ec) + 1 - m <= 52.
 *   Anything else goes to the exact path.
 * A zero a or b with finite operands is the exact zero product: the sum is c
 * (also a subnormal c, returned as it is), except 0 + 0, whose sign is that of
 * the operands when they agree and +0 (-0 in RDN) otherwise; no flags.
 */
static ALWAYS_INLINE int fma_fast(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t *flags,
                                  uint32_t *res)
{
    uint32_t ea = exp_field(a), eb = exp_field(b), ec = exp_field(c);
    if (UNLIKELY(ea - 1u >= 254u || eb - 1u >= 254u)) {
        /* An exact zero product (0 * finite) plus a finite c is c, except for
         * the sign of 0 + 0 (as fma_exact; NaN and inf operands go there). */
        if ((is_zero(a) || is_zero(b)) && ea != 0xFF && eb != 0xFF && ec != 0xFF) {
            uint32_t psign = (a ^ b) & SIGN_BIT;
            if (is_zero(c) && (c & SIGN_BIT) != psign)
                *res = rm == VX_RM_RDN ? SIGN_BIT : 0;
            else
                *res = c;
            return 1;
        }
        return 0;
    }
    double p = (double)f32_of(a) * (double)f32_of(b);
    if (UNLIKELY(ec - 1u >= 254u)) {
        /* A subnormal c would read as 0 under the host's denormals-are-zero. */
        if (!is_zero(c)) return 0;
        *res = round_double(bits_of_double(p), rm, flags);
        return 1;
    }
    double dc = (double)f32_of(c);
    double s = p + dc;
    uint64_t us = bits_of_double(s);
    if (LIKELY(far_from_grid(us))) {
        *res = round_double(us, rm, flags);
        return 1;
    }
    /* (1): d + 4 = Ec - Ea - Eb + 154 in [0, 32], as one unsigned range check */
    if (ec - ea - eb + 154u > 32u) {
        /* (2) */
        uint64_t up = bits_of_double(p), uc = bits_of_double(dc);
        int32_t ep = double_exp(up), ecd = double_exp(uc);
        int32_t lp = double_lsb(up), lc = double_lsb(uc);
        if ((ep > ecd ? ep : ecd) + 1 - (lp < lc ? lp : lc) > 52) return 0;
    }
    if (s == 0)
        *res = rm == VX_RM_RDN ? SIGN_BIT : 0; /* exact cancellation */
    else
        *res = round_double(us, rm, flags);
    return 1;
}

/* int -> float: a magnitude up to 2^24 is a binary32 value, so the host's
 * conversion is exact in any host mode and raises nothing (0 gives +0). */
static inline int from_i32_fast(uint32_t v, uint32_t *res)
{
    if (v + 0x01000000u > 0x02000000u) return 0; /* (int32_t)v outside [-2^24, 2^24] */
    float f = (float)(int32_t)v;
    memcpy(res, &f, sizeof *res);
    return 1;
}

static inline int from_u32_fast(uint32_t v, uint32_t *res)
{
    if (v > 0x01000000u) return 0;
    float f = (float)(int32_t)v;
    memcpy(res, &f, sizeof *res);
    return 1;
}
#endif /* FPU_FAST */

/* ---------------------------------------------------------------- public arithmetic */

static ALWAYS_INLINE uint32_t add_any(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags)
{
#if FPU_FAST
    uint32_t r = 0; /* (set when the fast path succeeds; -Og cannot tell) */
    if (LIKELY(add_fast(a, b, rm, flags, &r))) return r;
#endif
    return add_exact(a, b, rm, flags);
}

uint32_t vx_f32_add(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags)
{
    return add_any(a, b, rm, flags);
}

uint32_t vx_f32_sub(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags)
{
    /* Flipping the sign of a NaN is harmless: NaN results are canonical. */
    return vx_f32_add(a, b ^ SIGN_BIT, rm, flags);
}

static ALWAYS_INLINE uint32_t mul_any(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags)
{
#if FPU_FAST
    uint32_t r = 0; /* (set when the fast path succeeds; -Og cannot tell) */
    if (LIKELY(mul_fast(a, b, rm, flags, &r))) return r;
#endif
    return mul_exact(a, b, rm, flags);
}

uint32_t vx_f32_mul(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags)
{
    return mul_any(a, b, rm, flags);
}

uint32_t vx_f32_div(uint32_t a, uint32_t b, unsigned rm, uint32_t *flags)
{
#if FPU_FAST
    uint32_t r = 0; /* (set when the fast path succeeds; -Og cannot tell) */
    if (LIKELY(div_fast(a, b, rm, flags, &r))) return r;
#endif
    return div_exact(a, b, rm, flags);
}

uint32_t vx_f32_sqrt(uint32_t a, unsigned rm, uint32_t *flags)
{
#if FPU_FAST
    uint32_t r = 0; /* (set when the fast path succeeds; -Og cannot tell) */
    if (LIKELY(sqrt_fast(a, rm, flags, &r))) return r;
#endif
    return sqrt_exact(a, rm, flags);
}

static ALWAYS_INLINE uint32_t fma_any(uint32_t a, uint32_t b, uint32_t c, unsigned rm,
                                      uint32_t *flags)
{
#if FPU_FAST
    uint32_t r = 0; /* (set when the fast path succeeds; -Og cannot tell) */
    if (LIKELY(fma_fast(a, b, c, rm, flags, &r))) return r;
#endif
    return fma_exact(a, b, c, rm, flags);
}

/* The four forms fold their negations into the operand signs; a NaN's sign
 * does not matter since NaN results are canonical. */
uint32_t vx_f32_fmadd(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t *flags)
{
    return fma_any(a, b, c, rm, flags);
}

uint32_t vx_f32_fmsub(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t *flags)
{
    return fma_any(a, b, c ^ SIGN_BIT, rm, flags);
}

uint32_t vx_f32_fnmsub(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t *flags)
{
    return fma_any(a ^ SIGN_BIT, b, c, rm, flags);
}

uint32_t vx_f32_fnmadd(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t *flags)
{
    return fma_any(a ^ SIGN_BIT, b, c ^ SIGN_BIT, rm, flags);
}

/* ---------------------------------------------------------------- compare, min/max, class */

/* Map a non-NaN value to an unsigned key that orders like the numbers, with
 * -0 just below +0. */
static inline uint32_t order_key(uint32_t a)
{
    return (a & SIGN_BIT) ? ~a : a | SIGN_BIT;
}

uint32_t vx_f32_min(uint32_t a, uint32_t b, uint32_t *flags)
{
    if (UNLIKELY(is_nan(a) || is_nan(b))) {
        if (is_snan(a) || is_snan(b)) *flags |= VX_FFLAG_NV;
        if (is_nan(a) && is_nan(b)) return CNAN;
        return is_nan(a) ? b : a;
    }
    return order_key(a) <= order_key(b) ? a : b;
}

uint32_t vx_f32_max(uint32_t a, uint32_t b, uint32_t *flags)
{
    if (UNLIKELY(is_nan(a) || is_nan(b))) {
        if (is_snan(a) || is_snan(b)) *flags |= VX_FFLAG_NV;
        if (is_nan(a) && is_nan(b)) return CNAN;
        return is_nan(a) ? b : a;
    }
    return order_key(a) >= order_key(b) ? a : b;
}

uint32_t vx_f32_eq(uint32_t a, uint32_t b, uint32_t *flags)
{
    if (UNLIKELY(is_nan(a) || is_nan(b))) {
        if (is_snan(a) || is_snan(b)) *flags |= VX_FFLAG_NV;
        return 0;
    }
    return a == b || (is_zero(a) && is_zero(b));
}

uint32_t vx_f32_lt(uint32_t a, uint32_t b, uint32_t *flags)
{
    if (UNLIKELY(is_nan(a) || is_nan(b))) {
        *flags |= VX_FFLAG_NV;
        return 0;
    }
    if (is_zero(a) && is_zero(b)) return 0;
    return order_key(a) < order_key(b);
}

uint32_t vx_f32_le(uint32_t a, uint32_t b, uint32_t *flags)
{
    if (UNLIKELY(is_nan(a) || is_nan(b))) {
        *flags |= VX_FFLAG_NV;
        return 0;
    }
    if (is_zero(a) && is_zero(b)) return 1;
    return order_key(a) <= order_key(b);
}

uint32_t vx_f32_class(uint32_t a)
{
    /* Bits 0..7: -inf, -normal, -subnormal, -0, +0, +subnormal, +normal, +inf;
     * bit 8 signalling NaN, bit 9 quiet NaN. */
    unsigned ef = exp_field(a);
    int neg = (a & SIGN_BIT) != 0;
    if (ef == 0xFF) {
        if (a & FRAC) return (a & QUIET) ? 1u << 9 : 1u << 8;
        return neg ? 1u << 0 : 1u << 7;
    }
    if (ef == 0) {
        if (a & FRAC) return neg ? 1u << 2 : 1u << 5;
        return neg ? 1u << 3 : 1u << 4;
    }
    return neg ? 1u << 1 : 1u << 6;
}

/* ---------------------------------------------------------------- conversions */

static uint32_t to_int(uint32_t a, unsigned rm, uint32_t *flags, int is_signed)
{
    uint32_t sign = a >> 31;
    unsigned ef = exp_field(a);
    uint32_t sat_pos = is_signed ? 0x7FFFFFFFu : 0xFFFFFFFFu;
    uint32_t sat_neg = is_signed ? 0x80000000u : 0;
    if (UNLIKELY(ef == 0xFF)) {
        *flags |= VX_FFLAG_NV;
        if (a & FRAC) return sat_pos; /* NaN */
        return sign ? sat_neg : sat_pos;
    }
    if (is_zero(a)) return 0;
    uint32_t sig = ef ? (a & FRAC) | HIDDEN : a & FRAC;
    int32_t e = ef ? (int32_t)ef - 127 : -126; /* value = sig * 2^(e - 23) */
    uint64_t mag;
    int inexact = 0;
    if (e >= 32) {
        mag = UINT64_MAX; /* >= 2^32: out of range for both */
    } else if (e >= 23) {
        mag = (uint64_t)sig << (e - 23);
    } else {
        /* Shifting by 25 or more leaves a nonzero remainder below half. */
        unsigned sh = (unsigned)(23 - e) > 25 ? 25 : (unsigned)(23 - e);
        uint64_t rb = sig & ((UINT64_C(1) << sh) - 1);
        mag = sig >> sh;
        mag += round_up(rm, sign, mag & 1, rb, UINT64_C(1) << (sh - 1));
        inexact = rb != 0;
    }
    uint64_t limit = is_signed ? (sign ? UINT64_C(0x80000000) : UINT64_C(0x7FFFFFFF))
                               : (sign ? 0 : UINT64_C(0xFFFFFFFF));
    if (mag > limit) {
        *flags |= VX_FFLAG_NV;
        return sign ? sat_neg : sat_pos;
    }
    if (inexact) *flags |= VX_FFLAG_NX;
    return sign ? (uint32_t)(0u - (uint32_t)mag) : (uint32_t)mag;
}

uint32_t vx_f32_to_i32(uint32_t a, unsigned rm, uint32_t *flags)
{
    return to_int(a, rm, flags, 1);
}

uint32_t vx_f32_to_u32(uint32_t a, unsigned rm, uint32_t *flags)
{
    return to_int(a, rm, flags, 0);
}

static uint32_t from_int(uint32_t sign, uint32_t mag, unsigned rm, uint32_t *flags)
{
    if (mag == 0) return 0;
    return norm_round_pack(sign, 0, 0, mag, rm, flags);
}

static ALWAYS_INLINE uint32_t from_i32_any(uint32_t v, unsigned rm, uint32_t *flags)
{
#if FPU_FAST
    uint32_t r = 0; /* (set when the fast path succeeds; -Og cannot tell) */
    if (LIKELY(from_i32_fast(v, &r))) return r;
#endif
    uint32_t sign = v >> 31;
    return from_int(sign, sign ? 0u - v : v, rm, flags);
}

static ALWAYS_INLINE uint32_t from_u32_any(uint32_t v, unsigned rm, uint32_t *flags)
{
#if FPU_FAST
    uint32_t r = 0; /* (set when the fast path succeeds; -Og cannot tell) */
    if (LIKELY(from_u32_fast(v, &r))) return r;
#endif
    return from_int(0, v, rm, flags);
}

uint32_t vx_f32_from_i32(uint32_t v, unsigned rm, uint32_t *flags)
{
    return from_i32_any(v, rm, flags);
}

uint32_t vx_f32_from_u32(uint32_t v, unsigned rm, uint32_t *flags)
{
    return from_u32_any(v, rm, flags);
}

/* ---------------------------------------------------------------- whole warps (fpu_int.h) */

/* Run body for every lane t set in m0 (lanes 0-63) and m1 (64-127), in order. */
#define FOR_LANES(m0, m1, body)                                       \
    do {                                                              \
        for (unsigned w_ = 0; w_ < 2; w_++) {                         \
            uint64_t m_ = w_ ? (m1) : (m0);                           \
            while (m_) {                                              \
                unsigned t = w_ * 64 + (unsigned)__builtin_ctzll(m_); \
                m_ &= m_ - 1;                                         \
                body;                                                 \
            }                                                         \
        }                                                             \
    } while (0)

/*
 * The per-lane functions above, inlined into one loop per warp-instruction (one
 * call instead of one per lane).  Each lane reads its operands before writing
 * d[t], so d may be one of the sources.  Same results and flags as the per-lane
 * functions, lane by lane.
 */
uint32_t vx_f32_add_lanes(uint32_t *d, const uint32_t *a, const uint32_t *b, uint32_t negb,
                          uint64_t m0, uint64_t m1, unsigned rm)
{
    uint32_t fl = 0;
    FOR_LANES(m0, m1, d[t] = add_any(a[t], b[t] ^ negb, rm, &fl));
    return fl;
}

uint32_t vx_f32_mul_lanes(uint32_t *d, const uint32_t *a, const uint32_t *b, uint64_t m0,
                          uint64_t m1, unsigned rm)
{
    uint32_t fl = 0;
    FOR_LANES(m0, m1, d[t] = mul_any(a[t], b[t], rm, &fl));
    return fl;
}

uint32_t vx_f32_fma_lanes(uint32_t *d, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                          uint32_t nega, uint32_t negc, uint64_t m0, uint64_t m1, unsigned rm)
{
    uint32_t fl = 0;
    FOR_LANES(m0, m1, d[t] = fma_any(a[t] ^ nega, b[t], c[t] ^ negc, rm, &fl));
    return fl;
}

uint32_t vx_f32_from_int_lanes(uint32_t *d, const uint32_t *a, int is_signed, uint64_t m0,
                               uint64_t m1, unsigned rm)
{
    uint32_t fl = 0;
    if (is_signed)
        FOR_LANES(m0, m1, d[t] = from_i32_any(a[t], rm, &fl));
    else
        FOR_LANES(m0, m1, d[t] = from_u32_any(a[t], rm, &fl));
    return fl;
}
