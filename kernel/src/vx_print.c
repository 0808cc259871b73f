/*
 * vx_print.c - device console output: vx_putchar, vx_printf, vx_putint,
 * vx_putfloat.
 *
 * Console model (DESIGN.md §1): a byte stored to IO_COUT_ADDR + (mhartid & 63)
 * goes to that hart's console slot, and the simulator prints a slot's line when
 * it receives '\n'.  Lines of different harts therefore never mix, with two
 * exceptions this file takes care of:
 *   - the lanes of one warp store in the same instruction, so a multi-lane
 *     printf would print every lane's text in lockstep: vx_printf runs the
 *     formatting once per active lane in turn with vx_serial (split/join);
 *   - harts h and h + 64 share a slot: a small per-slot spin lock (an AMO
 *     swap) keeps one whole printf of one hart together.  Only one lane of a
 *     warp is active inside vx_serial's callback, so the spin loop's branch is
 *     uniform, and the holder never waits on anything, so the lock always
 *     becomes free.
 *
 * The formatter is our own small printf: flags - 0 + space #, width and
 * precision (also *), length hh h l ll z j t, conversions d i u o x X c s p f F
 * e E g G a A %.  Floating point is exact and rounded to nearest, ties to even, as
 * in glibc (precision capped at 40).
 */
#include <stdarg.h>
#include <stdint.h>

#include <vx_intrinsics.h>
#include <vx_print.h>
#include <vx_spawn.h>

void vx_putchar(int c)
{
    uint32_t slot = (uint32_t)csr_read(VX_CSR_MHARTID) & (IO_COUT_SIZE - 1);
    *(volatile uint8_t *)(uintptr_t)(IO_COUT_ADDR + slot) = (uint8_t)c;
}

/* ---- per-slot lock ---- */

static uint32_t slot_lock[IO_COUT_SIZE];

static uint32_t *lock_slot(void)
{
    uint32_t *l = &slot_lock[(uint32_t)csr_read(VX_CSR_MHARTID) & (IO_COUT_SIZE - 1)];
    while (__atomic_exchange_n(l, 1u, __ATOMIC_ACQUIRE) != 0)
        ;
    return l;
}

static void unlock_slot(uint32_t *l)
{
    __atomic_store_n(l, 0u, __ATOMIC_RELEASE);
}

/* ---- formatter ---- */

typedef struct out {
    int n; /* characters written */
} out;

static void put(out *o, int c)
{
    vx_putchar(c);
    o->n++;
}

static void pad(out *o, int c, int count)
{
    while (count-- > 0)
        put(o, c);
}

enum {
    F_LEFT = 1,
    F_ZERO = 2,
    F_PLUS = 4,
    F_SPACE = 8,
    F_ALT = 16,
};

typedef struct spec {
    int flags;
    int width;
    int prec; /* -1: none */
} spec;

/* Emit sign/prefix, zero or space padding, digits (already reversed in buf). */
static void emit_number(out *o, const spec *s, const char *prefix, const char *digits, int ndig)
{
    int plen = 0;
    while (prefix[plen])
        plen++;
    int zeros = s->prec > ndig ? s->prec - ndig : 0;
    int len = plen + zeros + ndig;
    int fill = s->width > len ? s->width - len : 0;
    if ((s->flags & F_ZERO) && !(s->flags & F_LEFT) && s->prec < 0) {
        zeros += fill;
        fill = 0;
    }
    if (!(s->flags & F_LEFT)) pad(o, ' ', fill);
    for (int i = 0; i < plen; i++)
        put(o, prefix[i]);
    pad(o, '0', zeros);
    while (ndig > 0)
        put(o, digits[--ndig]);
    if (s->flags & F_LEFT) pad(o, ' ', fill);
}

static int to_digits(char *buf, uint64_t v, unsigned base, int upper)
{
    const char *dig = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    int n = 0;
    if (v >> 32 == 0) { /* 32-bit division is much cheaper */
        uint32_t w = (uint32_t)v;
        do {
            buf[n++] = dig[w % base];
            w /= base;
        } while (w);
    } else {
        do {
            buf[n++] = dig[v % base];
            v /= base;
        } while (v);
    }
    return n;
}

static void fmt_int(out *o, const spec *s, uint64_t mag, int neg, unsigned base, int upper,
                    int is_signed, int is_ptr)
{
    char buf[24];
    char prefix[4];
    int pl = 0;
    int n = 0;
    if (!(mag == 0 && s->prec == 0)) n = to_digits(buf, mag, base, upper);
    if (is_signed) {
        if (neg)
            prefix[pl++] = '-';
        else if (s->flags & F_PLUS)
            prefix[pl++] = '+';
        else if (s->flags & F_SPACE)
            prefix[pl++] = ' ';
    }
    if ((s->flags & F_ALT) || is_ptr) {
        if (base == 16 && (mag != 0 || is_ptr)) {
            prefix[pl++] = '0';
            prefix[pl++] = upper ? 'X' : 'x';
        } else if (base == 8 && (n == 0 || buf[n - 1] != '0')) {
            buf[n++] = '0';
        }
    }
    prefix[pl] = 0;
    emit_number(o, s, prefix, buf, n);
}

static void fmt_str(out *o, const spec *s, const char *str)
{
    if (!str) str = "(null)";
    int len = 0;
    while (str[len] && (s->prec < 0 || len < s->prec))
        len++;
    int fill = s->width > len ? s->width - len : 0;
    if (!(s->flags & F_LEFT)) pad(o, ' ', fill);
    for (int i = 0; i < len; i++)
        put(o, str[i]);
    if (s->flags & F_LEFT) pad(o, ' ', fill);
}

/*
 * Floating point, exactly: a finite double is m * 2^e, so its decimal expansion is
 * finite; we compute the digits we need with a small big-number (an integer part
 * of up to 1024 bits, a binary fraction of up to 1074 bits) and round the decimal
 * digit string to nearest, ties to even, as C libraries do.  Precision is capped
 * at 40.  Digits are numbered from the first significant one: the value is
 * 0.D0 D1 D2 ... x 10^dexp.
 */
#define PREC_MAX 40
#define NDIG     (309 + PREC_MAX + 2) /* %f of the largest double, its rounding digit */
#define BN_WORDS 36                   /* 1152 bits */

typedef struct bn {
    uint32_t w[BN_WORDS]; /* little-endian words */
    int n;                /* words in use; w[n-1] != 0 unless n == 0 */
} bn;

static void bn_trim(bn *a)
{
    while (a->n > 0 && a->w[a->n - 1] == 0)
        a->n--;
}

/* a /= d; returns the remainder. */
static uint32_t bn_div_small(bn *a, uint32_t d)
{
    uint64_t r = 0;
    for (int i = a->n - 1; i >= 0; i--) {
        uint64_t cur = r << 32 | a->w[i];
        a->w[i] = (uint32_t)(cur / d);
        r = cur % d;
    }
    bn_trim(a);
    return (uint32_t)r;
}

/* a *= 10 (a < 2^(32 * (BN_WORDS - 1)) here: no overflow). */
static void bn_mul10(bn *a)
{
    uint32_t carry = 0;
    for (int i = 0; i < a->n; i++) {
        uint64_t cur = (uint64_t)a->w[i] * 10u + carry;
        a->w[i] = (uint32_t)cur;
        carry = (uint32_t)(cur >> 32);
    }
    if (carry) a->w[a->n++] = carry;
}

/* a = m << sh */
static void bn_set_shifted(bn *a, uint64_t m, int sh)
{
    for (int i = 0; i < BN_WORDS; i++)
        a->w[i] = 0;
    int q = sh / 32, r = sh % 32;
    uint32_t lo = (uint32_t)m, hi = (uint32_t)(m >> 32);
    a->w[q] |= lo << r;
    a->w[q + 1] |= (r ? lo >> (32 - r) : 0) | hi << r;
    a->w[q + 2] |= r ? hi >> (32 - r) : 0;
    a->n = q + 3;
    bn_trim(a);
}

/* The top digit of a fraction f of k bits times 10: f = f * 10, returns f >> k and
 * keeps the low k bits. */
static int bn_frac_digit(bn *f, int k)
{
    bn_mul10(f);
    int q = k / 32, r = k % 32;
    uint32_t d = q < f->n ? f->w[q] >> r : 0;
    if (r && q + 1 < f->n) d |= f->w[q + 1] << (32 - r);
    if (q < f->n) f->w[q] &= r ? (1u << r) - 1 : 0;
    for (int i = q + 1; i < f->n; i++)
        f->w[i] = 0;
    bn_trim(f);
    return (int)d;
}

enum {
    R_FIXED, /* prec digits after the decimal point */
    R_SIG    /* prec + 1 significant digits */
};

/*
 * The digits of v > 0 (finite) rounded as mode and prec say: dig[0 .. *nd) ('0' to
 * '9'), the first one significant (or none when the value rounds to 0 in R_FIXED),
 * and *dexp.  *nd is the number of digits that rounding kept.
 */
static void exact_digits(double v, int mode, int prec, char *dig, int *nd, int *dexp)
{
    union {
        double d;
        uint64_t u;
    } bits = {v};

    int be = (int)(bits.u >> 52 & 0x7ff);
    uint64_t m = bits.u & ((1ull << 52) - 1);
    int e2 = be ? be - 1075 : -1074;
    if (be) m |= 1ull << 52;
    while (!(m & 1)) { /* (m != 0: v > 0) */
        m >>= 1;
        e2++;
    }

    bn x; /* the integer part, then the fraction */
    int n = 0, k = e2 < 0 ? -e2 : 0;
    if (e2 >= 0)
        bn_set_shifted(&x, m, e2);
    else
        bn_set_shifted(&x, k < 64 ? m >> k : 0, 0);
    /* integer digits, 9 at a time, least significant first, then turned around */
    while (x.n > 0) {
        uint32_t chunk = bn_div_small(&x, 1000000000u);
        for (int i = 0; i < 9; i++, chunk /= 10)
            dig[n++] = (char)('0' + chunk % 10);
    }
    while (n > 0 && dig[n - 1] == '0')
        n--;
    for (int i = 0, j = n - 1; i < j; i++, j--) {
        char t = dig[i];
        dig[i] = dig[j];
        dig[j] = t;
    }
    *dexp = n;

    /* the digits to keep (want) and one more, for rounding; sticky: anything after */
    int want = mode == R_FIXED ? *dexp + prec : prec + 1;
    int sticky = 0;
    if (n > want + 1) {
        for (int i = want + 1; i < n; i++)
            sticky |= dig[i] != '0';
        n = want + 1;
    }
    if (k) { /* the fraction: m mod 2^k */
        bn_set_shifted(&x, k < 64 ? m & ((1ull << k) - 1) : m, 0);
        while (x.n > 0 && n < want + 1) {
            int d = bn_frac_digit(&x, k);
            if (n == 0 && d == 0) { /* a leading zero of a value below 1 */
                (*dexp)--;
                if (mode == R_FIXED) {
                    want--;
                    if (want < -1) break; /* rounds to 0: nothing more matters */
                }
                continue;
            }
            dig[n++] = (char)('0' + d);
        }
        sticky |= x.n > 0;
    }
    if (want < 0) { /* below half of the last place */
        *nd = 0;
        return;
    }
    while (n < want + 1)
        dig[n++] = '0';
    /* round dig[0 .. want) by dig[want], ties to even */
    int d = dig[want] - '0';
    int odd = want > 0 && ((dig[want - 1] - '0') & 1);
    n = want;
    if (d > 5 || (d == 5 && (sticky || odd))) {
        int i = n - 1;
        while (i >= 0 && dig[i] == '9')
            dig[i--] = '0';
        if (i >= 0) {
            dig[i]++;
        } else { /* 9...9 -> 10...0: one more digit before the point */
            for (int j = n; j > 0; j--)
                dig[j] = dig[j - 1];
            dig[0] = '1';
            (*dexp)++;
            if (mode == R_FIXED) n++;
        }
    }
    *nd = n;
}

/* Digit i of the rounded value (0 past the kept ones). */
static char digit_at(const char *dig, int nd, int i)
{
    return i >= 0 && i < nd ? dig[i] : '0';
}

/*
 * A formatted floating-point number, produced character by character (twice: once
 * to measure it for the padding, once to print it), so that no text buffer is
 * needed on the lanes' small stacks.
 */
enum {
    N_SPECIAL,
    N_FIXED,
    N_EXP,
    N_HEX
};

typedef struct fnum {
    int form;
    const char *special; /* N_SPECIAL: "inf", "NAN", ... */
    const char *dig;     /* N_FIXED, N_EXP: the digits (digit_at) */
    int nd, dexp;        /* N_FIXED: dexp digits before the point */
    int x;               /* N_EXP, N_HEX: the exponent */
    int prec, dot, upper;
    uint64_t hex; /* N_HEX: the leading digit, then hp digits, 4 bits each */
    int hp;       /* N_HEX: digits in hex (at most 15); zeros after them */
} fnum;

static const char *hexdig(int upper)
{
    return upper ? "0123456789ABCDEF" : "0123456789abcdef";
}

/* Character i of f, or 0 past its end. */
static char fnum_at(const fnum *f, int i)
{
    if (f->form == N_SPECIAL) return f->special[i];
    int k = i;
    if (f->form == N_HEX) {
        if (k < 2) return k ? (f->upper ? 'X' : 'x') : '0';
        k -= 2;
    }
    /* the mantissa: lead digits, the point, prec digits */
    int lead = f->form == N_FIXED ? (f->dexp > 0 ? f->dexp : 1) : 1;
    if (k < lead) {
        if (f->form == N_HEX) return hexdig(f->upper)[(f->hex >> (4 * f->hp)) & 15];
        if (f->form == N_FIXED && f->dexp <= 0) return '0';
        return digit_at(f->dig, f->nd, k);
    }
    k -= lead;
    if (f->dot && k-- == 0) return '.';
    if (k < f->prec) {
        if (f->form == N_HEX)
            return k < f->hp ? hexdig(f->upper)[(f->hex >> (4 * (f->hp - 1 - k))) & 15] : '0';
        return digit_at(f->dig, f->nd, (f->form == N_FIXED ? f->dexp : 1) + k);
    }
    k -= f->prec;
    if (f->form == N_FIXED) return 0;
    /* the exponent: e+05 (at least two digits), p+5 (decimal, at least one) */
    int x = f->x < 0 ? -f->x : f->x, ndig = f->form == N_HEX ? 1 : 2;
    for (int t = x / (f->form == N_HEX ? 10 : 100); t; t /= 10)
        ndig++;
    if (k == 0) return f->form == N_HEX ? (f->upper ? 'P' : 'p') : (f->upper ? 'E' : 'e');
    if (k == 1) return f->x < 0 ? '-' : '+';
    k -= 2;
    if (k >= ndig) return 0;
    for (int t = ndig - 1 - k; t > 0; t--)
        x /= 10;
    return (char)('0' + x % 10);
}

static int fnum_len(const fnum *f)
{
    int n = 0;
    while (fnum_at(f, n))
        n++;
    return n;
}

/* The number of significant digits among the first p (trailing zeros dropped). */
static int sig_digits(const char *dig, int nd, int p)
{
    while (p > 0 && digit_at(dig, nd, p - 1) == '0')
        p--;
    return p;
}

/* %a: v >= 0 finite as 0x1.hhhp+e (normal) or 0x0.hhhp-1022 (subnormal); prec < 0:
 * as many hex digits as needed, else rounded to prec digits, ties to even. */
static void hex_float(fnum *f, double v, int prec, int alt)
{
    union {
        double d;
        uint64_t u;
    } bits = {v};

    int be = (int)(bits.u >> 52 & 0x7ff);
    uint64_t m = bits.u & ((1ull << 52) - 1); /* 13 hex digits */
    uint64_t lead = be != 0;
    f->form = N_HEX;
    f->x = v == 0.0 ? 0 : be ? be - 1023 : -1022;
    if (prec < 0) { /* exact: drop trailing zero digits */
        prec = 13;
        while (prec > 0 && !(m & 15)) {
            m >>= 4;
            prec--;
        }
    } else if (prec < 13) {
        int drop = 4 * (13 - prec);
        uint64_t rest = m & ((1ull << drop) - 1), half = 1ull << (drop - 1);
        m >>= drop;
        uint64_t last = prec ? m : lead; /* the last digit kept: ties go to even */
        if (rest > half || (rest == half && (last & 1))) m++;
        if (m >> (4 * prec)) { /* carried into the leading digit */
            m &= (1ull << (4 * prec)) - 1;
            lead++;
        }
    }
    int hp = prec < 13 ? prec : 13; /* (more digits than a double has: zeros) */
    f->hex = lead << (4 * hp) | m;
    f->hp = hp;
    f->prec = prec;
    f->dot = prec > 0 || alt;
}

static void fmt_float(out *o, const spec *s, double v, char conv)
{
    char dig[NDIG];
    fnum f = {0};
    int nd = 0, dexp = 0;
    int lower = conv | 0x20;
    f.upper = conv != lower;
    int alt = s->flags & F_ALT;
    int prec = s->prec < 0 ? 6 : (s->prec > PREC_MAX ? PREC_MAX : s->prec);
    int neg = 0;

    /* sign from the bit pattern, so -0.0 and -nan print their sign */
    union {
        double d;
        uint64_t u;
    } bits = {v};

    if (bits.u >> 63) {
        neg = 1;
        v = -v;
    }
    f.dig = dig;
    if (v != v || v > 1.7976931348623157e308) {
        f.form = N_SPECIAL;
        f.special = v != v ? (f.upper ? "NAN" : "nan") : (f.upper ? "INF" : "inf");
    } else if (lower == 'a') {
        hex_float(&f, v, s->prec < 0 ? -1 : prec, alt);
    } else if (lower == 'e') {
        if (v != 0.0) exact_digits(v, R_SIG, prec, dig, &nd, &dexp);
        f.form = N_EXP;
        f.x = v != 0.0 ? dexp - 1 : 0;
        f.prec = prec;
    } else if (lower == 'g') {
        /* P significant digits; the exponent X is that of the rounded value; without
         * '#' trailing zeros go */
        int P = prec == 0 ? 1 : prec, x = 0;
        if (v != 0.0) {
            exact_digits(v, R_SIG, P - 1, dig, &nd, &dexp);
            x = dexp - 1;
        }
        int sig = alt ? P : sig_digits(dig, nd, P);
        if (x < -4 || x >= P) {
            f.form = N_EXP;
            f.x = x;
            f.prec = sig > 1 ? sig - 1 : 0;
        } else { /* the same rounding, shown with P - 1 - X decimals at the most */
            f.form = N_FIXED;
            dexp = v != 0.0 ? dexp : 1;
            f.prec = sig - 1 - x > 0 ? sig - 1 - x : 0;
        }
    } else {
        if (v != 0.0) exact_digits(v, R_FIXED, prec, dig, &nd, &dexp);
        f.form = N_FIXED;
        f.prec = prec;
    }
    f.nd = nd;
    f.dexp = dexp;
    if (f.form != N_SPECIAL && f.form != N_HEX) f.dot = f.prec > 0 || alt;

    /* sign, padding (zeros after the sign and 0x), the number */
    int len = fnum_len(&f), pre = neg || (s->flags & (F_PLUS | F_SPACE)) ? 1 : 0;
    int fill = s->width > pre + len ? s->width - pre - len : 0, zeros = 0, skip = 0;
    if ((s->flags & F_ZERO) && !(s->flags & F_LEFT) && f.form != N_SPECIAL) {
        zeros = fill;
        fill = 0;
    }
    if (!(s->flags & F_LEFT)) pad(o, ' ', fill);
    if (pre) put(o, neg ? '-' : (s->flags & F_PLUS) ? '+' : ' ');
    if (f.form == N_HEX && zeros) { /* 0x000001p+0: the zeros after 0x */
        put(o, '0');
        put(o, f.upper ? 'X' : 'x');
        skip = 2;
    }
    pad(o, '0', zeros);
    for (int i = skip; i < len; i++)
        put(o, fnum_at(&f, i));
    if (s->flags & F_LEFT) pad(o, ' ', fill);
}

enum {
    L_NONE,
    L_HH,
    L_H,
    L_L,
    L_LL,
    L_Z
};

static int format(const char *fmt, va_list ap)
{
    out o = {0};
    for (; *fmt; fmt++) {
        if (*fmt != '%') {
            put(&o, *fmt);
            continue;
        }
        fmt++;
        spec s = {0, 0, -1};
        for (;; fmt++) {
            if (*fmt == '-')
                s.flags |= F_LEFT;
            else if (*fmt == '0')
                s.flags |= F_ZERO;
            else if (*fmt == '+')
                s.flags |= F_PLUS;
            else if (*fmt == ' ')
                s.flags |= F_SPACE;
            else if (*fmt == '#')
                s.flags |= F_ALT;
            else
                break;
        }
        if (*fmt == '*') {
            s.width = va_arg(ap, int);
            if (s.width < 0) {
                s.flags |= F_LEFT;
                s.width = -s.width;
            }
            fmt++;
        } else {
            while (*fmt >= '0' && *fmt <= '9')
                s.width = s.width * 10 + (*fmt++ - '0');
        }
        if (*fmt == '.') {
            fmt++;
            s.prec = 0;
            if (*fmt == '*') {
                s.prec = va_arg(ap, int);
                if (s.prec < 0) s.prec = -1;
                fmt++;
            } else {
                while (*fmt >= '0' && *fmt <= '9')
                    s.prec = s.prec * 10 + (*fmt++ - '0');
            }
        }
        int len = L_NONE;
        if (*fmt == 'h') {
            len = L_H;
            if (*++fmt == 'h') {
                len = L_HH;
                fmt++;
            }
        } else if (*fmt == 'l') {
            len = L_L;
            if (*++fmt == 'l') {
                len = L_LL;
                fmt++;
            }
        } else if (*fmt == 'z' || *fmt == 'j' || *fmt == 't' || *fmt == 'L') {
            len = *fmt == 'j' ? L_LL : L_Z;
            fmt++;
        }
        char c = *fmt;
        if (c == 0) break;
        switch (c) {
        case 'd':
        case 'i': {
            int64_t v;
            if (len == L_LL)
                v = va_arg(ap, long long);
            else if (len == L_L || len == L_Z)
                v = va_arg(ap, long);
            else
                v = va_arg(ap, int);
            if (len == L_H)
                v = (short)v;
            else if (len == L_HH)
                v = (signed char)v;
            uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
            fmt_int(&o, &s, mag, v < 0, 10, 0, 1, 0);
            break;
        }
        case 'u':
        case 'o':
        case 'x':
        case 'X': {
            uint64_t v;
            if (len == L_LL)
                v = va_arg(ap, unsigned long long);
            else if (len == L_L || len == L_Z)
                v = va_arg(ap, unsigned long);
            else
                v = va_arg(ap, unsigned int);
            if (len == L_H)
                v = (unsigned short)v;
            else if (len == L_HH)
                v = (unsigned char)v;
            unsigned base = c == 'u' ? 10 : c == 'o' ? 8 : 16;
            fmt_int(&o, &s, v, 0, base, c == 'X', 0, 0);
            break;
        }
        case 'p': {
            uintptr_t v = (uintptr_t)va_arg(ap, void *);
            fmt_int(&o, &s, v, 0, 16, 0, 0, 1);
            break;
        }
        case 'c': {
            char ch[2] = {(char)va_arg(ap, int), 0};
            spec s2 = s;
            s2.prec = 1;
            if (ch[0] == 0) { /* print the NUL itself */
                int fill = s.width > 1 ? s.width - 1 : 0;
                if (!(s.flags & F_LEFT)) pad(&o, ' ', fill);
                put(&o, 0);
                if (s.flags & F_LEFT) pad(&o, ' ', fill);
            } else {
                fmt_str(&o, &s2, ch);
            }
            break;
        }
        case 's': fmt_str(&o, &s, va_arg(ap, const char *)); break;
        case 'f':
        case 'F':
        case 'e':
        case 'E':
        case 'g':
        case 'G':
        case 'a':
        case 'A': fmt_float(&o, &s, va_arg(ap, double), c); break;
        case '%': put(&o, '%'); break;
        default: /* unknown conversion: print it as written */
            put(&o, '%');
            put(&o, c);
            break;
        }
    }
    return o.n;
}

/* ---- serialised entry points ---- */

typedef struct print_job {
    const char *fmt;
    va_list ap;
    int ret;
} print_job;

static void print_lane(void *arg)
{
    print_job *j = arg;
    va_list ap;
    va_copy(ap, j->ap);
    uint32_t *l = lock_slot();
    j->ret = format(j->fmt, ap);
    unlock_slot(l);
    va_end(ap);
}

int vx_vprintf(const char *format_str, va_list va)
{
    print_job j;
    j.fmt = format_str;
    va_copy(j.ap, va);
    j.ret = 0;
    vx_serial(print_lane, &j);
    va_end(j.ap);
    return j.ret;
}

int vx_printf(const char *format_str, ...)
{
    va_list va;
    va_start(va, format_str);
    int ret = vx_vprintf(format_str, va);
    va_end(va);
    return ret;
}

typedef struct num_job {
    int ivalue;
    int base;
    float fvalue;
    int precision;
} num_job;

static void putint_lane(void *arg)
{
    num_job *j = arg;
    spec s = {0, 0, -1};
    unsigned base = j->base >= 2 && j->base <= 16 ? (unsigned)j->base : 10;
    int neg = base == 10 && j->ivalue < 0;
    uint64_t mag = neg ? 0 - (uint64_t)(int64_t)j->ivalue : (uint32_t)j->ivalue;
    out o = {0};
    uint32_t *l = lock_slot();
    fmt_int(&o, &s, mag, neg, base, 0, 1, 0);
    unlock_slot(l);
}

/* Print value in base (2..16; negative values in base 10 get a '-'). */
void vx_putint(int value, int base)
{
    num_job j = {value, base, 0.0f, 0};
    vx_serial(putint_lane, &j);
}

static void putfloat_lane(void *arg)
{
    num_job *j = arg;
    spec s = {0, 0, j->precision < 0 ? 6 : j->precision};
    out o = {0};
    uint32_t *l = lock_slot();
    fmt_float(&o, &s, (double)j->fvalue, 'f');
    unlock_slot(l);
}

/* Print value with `precision` digits after the point. */
void vx_putfloat(float value, int precision)
{
    num_job j = {0, 0, value, precision};
    vx_serial(putfloat_lane, &j);
}
