/*
 * codec.c - the record encoding of EVENTS chunks (FORMAT.md §6 - §8): predictors,
 * encoder and decoder.  The encoder runs once per simulated warp-instruction, so it
 * never allocates (except the first time a warp's register shadow is needed) and
 * makes at most a few passes over the lanes.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

const uint8_t vxt_magic[8] = {0x89, 'V', 'X', 'T', '\r', '\n', 0x1A, '\n'};
const uint8_t vxt_end_magic[4] = {'V', 'X', 'T', 'E'};

/* 0, 1, ..., 127: the lane list of a full mask. */
static const uint8_t vxt_all_lanes[VX_MAX_THREADS] = {
    0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   10,  11,  12,  13,  14,  15,  16,  17,  18,
    19,  20,  21,  22,  23,  24,  25,  26,  27,  28,  29,  30,  31,  32,  33,  34,  35,  36,  37,
    38,  39,  40,  41,  42,  43,  44,  45,  46,  47,  48,  49,  50,  51,  52,  53,  54,  55,  56,
    57,  58,  59,  60,  61,  62,  63,  64,  65,  66,  67,  68,  69,  70,  71,  72,  73,  74,  75,
    76,  77,  78,  79,  80,  81,  82,  83,  84,  85,  86,  87,  88,  89,  90,  91,  92,  93,  94,
    95,  96,  97,  98,  99,  100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113,
    114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127};

/* ---- predictor state ------------------------------------------------------------------- */

vx_err vxt_pred_init(vxt_pred *ps, uint32_t cores, uint32_t warps, uint32_t threads)
{
    memset(ps, 0, sizeof *ps);
    ps->C = cores;
    ps->W = warps;
    ps->T = threads;
    ps->LB = (threads + 7) / 8;
    ps->nwarps = cores * warps;
    ps->all = vx_lanes_all(threads);
    ps->next_core = malloc(sizeof(uint32_t) * (2 * (size_t)cores + ps->nwarps));
    ps->warps = aligned_alloc(_Alignof(vxt_warp), sizeof(vxt_warp) * ps->nwarps);
    ps->icache = calloc(VXT_ICACHE_SIZE, sizeof(vxt_icache_ent));
    if (!ps->next_core || !ps->warps || !ps->icache) {
        free(ps->warps); /* (vxt_pred_free reads warps[].regs) */
        ps->warps = NULL;
        vxt_pred_free(ps);
        return VX_ERR_NOMEM;
    }
    ps->last_warp = ps->next_core + cores;
    ps->next_warp = ps->last_warp + cores;
    memset(ps->warps, 0, sizeof(vxt_warp) * ps->nwarps);
    vxt_pred_reset(ps);
    return VX_OK;
}

void vxt_pred_free(vxt_pred *ps)
{
    if (ps->warps)
        for (uint32_t g = 0; g < ps->nwarps; g++)
            free(ps->warps[g].regs);
    free(ps->next_core); /* (and last_warp, next_warp) */
    free(ps->warps);
    free(ps->icache);
    memset(ps, 0, sizeof *ps);
}

/* The predicted schedule of the next issue (FORMAT.md §6.1), from the tables. */
static inline void pred_next(vxt_pred *ps)
{
    const uint32_t lc = ps->last_core, pc = ps->next_core[lc];
    ps->pred_core = pc;
    ps->pred_warp = ps->next_warp[(size_t)pc * ps->W + ps->last_warp[pc]];
    ps->pred_bump = pc <= lc;
}

void vxt_pred_reset(vxt_pred *ps)
{
    /* Warp states and insn cache entries are invalidated by the epoch (no memset of
     * megabytes per chunk); 0 is never a valid epoch. */
    if (++ps->epoch == 0) {
        for (uint32_t g = 0; g < ps->nwarps; g++)
            ps->warps[g].epoch = 0;
        for (uint32_t i = 0; i < VXT_ICACHE_SIZE; i++)
            ps->icache[i].epoch = 0;
        ps->epoch = 1;
    }
    ps->cur_cycle = 0;
    ps->last_core = ps->C - 1;
    for (uint32_t c = 0; c < ps->C; c++) {
        ps->next_core[c] = c + 1 == ps->C ? 0 : c + 1;
        ps->last_warp[c] = ps->W - 1;
        uint32_t *nw = ps->next_warp + (size_t)c * ps->W;
        for (uint32_t w = 0; w + 1 < ps->W; w++)
            nw[w] = w + 1;
        nw[ps->W - 1] = 0;
    }
    pred_next(ps);
}

vxt_warp *vxt_pred_warp_slow(vxt_pred *ps, uint32_t g)
{
    vxt_warp *ws = &ps->warps[g];
    if (!ws->regs) {
        ws->regs = malloc(sizeof(uint32_t) * VXT_NREGS * ps->T);
        if (!ws->regs) return NULL;
    }
    ws->rvalid = 0; /* every row reads as zeros (vxt_warp_row) */
    ws->epoch = ps->epoch;
    ws->next_pc = 0;
    ws->have_last = false;
    ws->mem_base = 0;
    ws->mem_stride = 0;
    ws->mask = ps->all;
    return ws;
}

static inline void pred_schedule(const vxt_pred *ps, uint32_t *core, uint32_t *warp,
                                 uint64_t *cycle)
{
    *core = ps->pred_core;
    *warp = ps->pred_warp;
    *cycle = ps->cur_cycle + ps->pred_bump;
}

/* Branch target of a BRANCH or JAL instruction word (FORMAT.md §6.1): target[g]. */
static inline bool branch_target(uint32_t pc, uint32_t insn, uint32_t *t)
{
    uint32_t imm;
    switch (insn & 0x7F) {
    case 0x63:
        imm = ((insn >> 31) & 1) << 12 | ((insn >> 7) & 1) << 11 | ((insn >> 25) & 0x3F) << 5 |
              ((insn >> 8) & 0xF) << 1;
        if (imm & 0x1000) imm |= 0xFFFFE000u;
        break;
    case 0x6F:
        imm = ((insn >> 31) & 1) << 20 | ((insn >> 12) & 0xFF) << 12 | ((insn >> 20) & 1) << 11 |
              ((insn >> 21) & 0x3FF) << 1;
        if (imm & 0x100000) imm |= 0xFFE00000u;
        break;
    default: return false;
    }
    *t = pc + imm;
    return true;
}

/*
 * Predictor updates after an issue record (FORMAT.md §7.1).  sched / cached: the
 * schedule was the predicted one (the successor tables already say so) and the insn
 * cache holds this very entry (nothing to store): both sides know it from H.S, H.I.
 */
static inline void pred_after_issue(vxt_pred *ps, vxt_warp *ws, const vx_event *ev, bool sched,
                                    bool cached)
{
    ps->cur_cycle = ev->cycle;
    if (!(ev->flags & (VX_EVF_INJECTED | VX_EVF_STEP))) {
        if (!sched) {
            ps->next_core[ps->last_core] = ev->core;
            ps->next_warp[(size_t)ev->core * ps->W + ps->last_warp[ev->core]] = ev->warp;
        }
        ps->last_core = ev->core;
        ps->last_warp[ev->core] = ev->warp;
        pred_next(ps);
    }
    if (!(ev->flags & VX_EVF_INJECTED)) {
        ws->next_pc = ev->pc + 4;
        ws->last_pc = ev->pc; /* target[g] is derived from these only when needed */
        ws->last_insn = ev->insn;
        ws->have_last = true;
        ws->mask = ev->tmask;
        if (!cached) {
            vxt_icache_ent *ic = &ps->icache[(ev->pc >> 2) & (VXT_ICACHE_SIZE - 1)];
            ic->pc = ev->pc;
            ic->insn = ev->insn;
            ic->epoch = ps->epoch;
        }
    }
}

/* ---- sizes ------------------------------------------------------------------------------ */

size_t vxt_event_bound(const vx_event *ev, uint32_t threads)
{
    size_t lb = (threads + 7) / 8;
    size_t fault = 2 + 5 * 5 + lb + 5 + VXT_MAX_REASON;
    if (ev->kind != VX_EV_ISSUE) return 16 + 2 + 5 * 4 + 10 + 1 + fault;
    size_t n = 4 + 30 + 5 + 4 + lb + 10;
    n += (size_t)ev->ncommits * (1 + 5 + lb + 5 * threads);
    n += 32 + (size_t)ev->nmem * (1 + 1 + 5 + 4);
    n += 5 + (size_t)ev->nwctl * (2 + 5 * 5 + 2 * lb);
    n += 5 + (size_t)ev->nconsole * 2;
    if (ev->fault) n += fault;
    return n;
}

/* ---- encoder ------------------------------------------------------------------------------- */

uint8_t *vxt_enc_fault(uint8_t *p, const vx_fault *f, unsigned lb)
{
    *p++ = f->kind;
    *p++ = f->signal;
    p = vxt_put_varint(p, f->core);
    p = vxt_put_varint(p, f->warp);
    p = vxt_put_varint(p, f->pc);
    p = vxt_put_varint(p, f->insn);
    p = vxt_put_varint(p, f->addr);
    p = vxt_put_lanes(p, f->lanes, lb);
    size_t n = strnlen(f->reason, sizeof f->reason);
    if (n > VXT_MAX_REASON) n = VXT_MAX_REASON;
    return vxt_put_string(p, f->reason, n);
}

/*
 * Find (base, stride) with value(l) = base + l * stride for every listed lane
 * (L[0..n-1], ascending, n >= 2), or return false.  The stride comes from the first
 * two lanes; every lane is then verified, so any (base, stride) returned is exact.
 */
static bool fit_affine_lanes(const uint8_t *L, unsigned n, const uint32_t *v, uint32_t *base,
                             uint32_t *stride)
{
    unsigned l0 = L[0], l1 = L[1];
    uint32_t d = l1 - l0, dv = v[l1] - v[l0], s;
    if (d == 1)
        s = dv;
    else if ((int32_t)dv % (int32_t)d == 0)
        s = (uint32_t)((int32_t)dv / (int32_t)d);
    else
        return false;
    uint32_t b = v[l0] - l0 * s;
    for (unsigned k = 2; k < n; k++)
        if (v[L[k]] != b + L[k] * s) return false;
    *base = b;
    *stride = s;
    return true;
}

#define VXT_ALWAYS_INLINE static inline __attribute__((always_inline))

/* The length of the varint of a 32-bit value (1..5), without a loop or a branch; the
 * comparisons vectorise in loops over lanes. */
VXT_ALWAYS_INLINE unsigned v32_len(uint32_t z)
{
    return 1u + (z > 0x7Fu) + (z > 0x3FFFu) + (z > 0x1FFFFFu) + (z > 0xFFFFFFFu);
}

/*
 * The varint of z, whose length n (v32_len) is known: eight bytes are stored (the
 * fast path keeps far more than that free past any record), n of them count.
 */
VXT_ALWAYS_INLINE uint8_t *put_v32n(uint8_t *p, uint32_t z, unsigned n)
{
    uint64_t w = (z & 0x7Fu) | ((z << 1) & 0x7F00u) | ((z << 2) & 0x7F0000u) |
                 ((z << 3) & 0x7F000000u) | (uint64_t)(z >> 28) << 32;
    w |= 0x8080808080ull >> (40 - 8 * (n - 1)); /* the continuation bits of bytes 0..n-2 */
    memcpy(p, &w, 8); /* little-endian: vx_put_le32 is the portable form */
    return p + n;
}

/* The same when the length is not known yet: from the highest set bit. */
VXT_ALWAYS_INLINE uint8_t *put_v32(uint8_t *p, uint32_t z)
{
    if (z < 0x80) { /* most uniform values and strides: one byte */
        *p = (uint8_t)z;
        return p + 1;
    }
    return put_v32n(p, z, ((31u - (unsigned)__builtin_clz(z | 1)) * 9u + 73u) >> 6);
}

/* Four lanes at a time (GCC/Clang vector extensions: SSE2 on x86-64, NEON on arm64). */
typedef uint32_t vxt_u32x4 __attribute__((vector_size(16)));
typedef int32_t vxt_i32x4 __attribute__((vector_size(16)));

VXT_ALWAYS_INLINE vxt_u32x4 ld4(const uint32_t *p)
{
    vxt_u32x4 x;
    memcpy(&x, p, 16);
    return x;
}

VXT_ALWAYS_INLINE uint32_t or4(vxt_u32x4 x)
{
    /* by halves in the vector (two shuffles), not four lane extractions */
    x |= __builtin_shufflevector(x, x, 2, 3, 0, 1);
    x |= __builtin_shufflevector(x, x, 1, 0, 3, 2);
    return x[0];
}

/*
 * The total length of the varints of the zigzag deltas v[k] - sh[k] of T lanes (T a
 * multiple of 4), four lanes at a time: whether the deltas are shorter than the raw
 * values (often they are not: then nothing more is needed of them).
 */
VXT_ALWAYS_INLINE unsigned delta_len4(const uint32_t *v, const uint32_t *sh, const unsigned T)
{
    vxt_u32x4 len = {0, 0, 0, 0};
    for (unsigned k = 0; k < T; k += 4) {
        const vxt_u32x4 d = ld4(v + k) - ld4(sh + k);
        const vxt_u32x4 z = (d << 1) ^ (vxt_u32x4)((vxt_i32x4)d >> 31);
        len += (vxt_u32x4)(z > 0x7Fu) + (vxt_u32x4)(z > 0x3FFFu) + (vxt_u32x4)(z > 0x1FFFFFu) +
               (vxt_u32x4)(z > 0xFFFFFFFu); /* (a true comparison is all ones) */
    }
    return T - (len[0] + len[1] + len[2] + len[3]);
}

/*
 * The varints of the zigzag deltas v[k] - sh[k] of T lanes (T a multiple of 4),
 * computed four lanes at a time: their first four bytes w[k] (continuation bits
 * included), fifth bytes b4[k] (when the length is 5) and lengths nb[k].
 */
VXT_ALWAYS_INLINE void delta_varints4(const uint32_t *v, const uint32_t *sh, uint32_t *w,
                                      uint32_t *b4, uint32_t *nb, const unsigned T)
{
    for (unsigned k = 0; k < T; k += 4) {
        const vxt_u32x4 d = ld4(v + k) - ld4(sh + k);
        const vxt_u32x4 z = (d << 1) ^ (vxt_u32x4)((vxt_i32x4)d >> 31);
        const vxt_u32x4 c1 = (vxt_u32x4)(z > 0x7Fu), c2 = (vxt_u32x4)(z > 0x3FFFu),
                        c3 = (vxt_u32x4)(z > 0x1FFFFFu), c4 = (vxt_u32x4)(z > 0xFFFFFFFu);
        const vxt_u32x4 x = (z & 0x7Fu) | ((z << 1) & 0x7F00u) | ((z << 2) & 0x7F0000u) |
                            ((z << 3) & 0x7F000000u) | (c1 & 0x80u) | (c2 & 0x8000u) |
                            (c3 & 0x800000u) | (c4 & 0x80000000u);
        const vxt_u32x4 n = 1u - c1 - c2 - c3 - c4; /* (a true comparison is all ones) */
        const vxt_u32x4 hi = z >> 28;
        memcpy(w + k, &x, 16);
        memcpy(b4 + k, &hi, 16);
        memcpy(nb + k, &n, 16);
    }
}

/*
 * The values of a commit to every lane (T lanes, L[k] == k) of a register whose
 * shadow is sh: the mode in *kp (whose low bits are set), the values at p, the
 * shadow updated.  Same choices and bytes as the general path of enc_commit:
 * uniform, else affine, else the deltas when they are shorter than raw values.
 * Inlined with a constant T, the lane loops are unrolled and, four lanes at a time,
 * vectorised.
 */
VXT_ALWAYS_INLINE uint8_t *enc_full_t(uint8_t *p, uint8_t *kp, uint32_t *sh, const uint32_t *v,
                                      const unsigned T)
{
    const uint32_t v0 = v[0], s1 = T > 1 ? v[1] - v0 : 0;
    uint32_t dif_u = 0, dif_a = 0;
    if (T >= 8 && ((v[2] ^ (v0 + 2 * s1)) | (v[3] ^ (v0 + 3 * s1)))) {
        /* lanes 0..3 are not affine (uniform is affine with stride 0): neither are
         * all T, no need to look at the others */
        dif_u = dif_a = 1;
    } else if (T % 4 == 0) {
        const vxt_u32x4 u = {v0, v0, v0, v0}, st = {4 * s1, 4 * s1, 4 * s1, 4 * s1};
        vxt_u32x4 e = {v0, v0 + s1, v0 + 2 * s1, v0 + 3 * s1}, du = {0, 0, 0, 0}, da = du;
        for (unsigned k = 0; k < T; k += 4, e += st) {
            const vxt_u32x4 x = ld4(v + k);
            du |= x ^ u;
            da |= x ^ e;
        }
        dif_u = or4(du);
        dif_a = or4(da);
    } else {
        for (unsigned k = 1; k < T; k++) {
            dif_u |= v[k] ^ v0;
            dif_a |= v[k] ^ (v0 + k * s1);
        }
    }
    unsigned mode;
    if (!dif_u) {
        mode = 0;
        p = put_v32(p, vxt_zz32(v0 - sh[0]));
    } else if (!dif_a) {
        mode = 1;
        p = put_v32(p, vxt_zz32(v0 - sh[0]));
        p = put_v32(p, vxt_zz32(s1 - (sh[1] - sh[0])));
    } else {
        /* the deltas, only when shorter than the raw values */
        uint32_t w[VX_MAX_THREADS], b4[VX_MAX_THREADS], nb[VX_MAX_THREADS];
        unsigned len = 0;
        if (T % 4 == 0) {
            len = delta_len4(v, sh, T);
        } else {
            for (unsigned k = 0; k < T; k++) {
                const uint32_t z = vxt_zz32(v[k] - sh[k]);
                nb[k] = v32_len(z);
                len += nb[k];
            }
        }
        if (len < 4u * T) {
            mode = 2;
            if (T % 4 == 0) {
                delta_varints4(v, sh, w, b4, nb, T);
                for (unsigned k = 0; k < T; k++) {
                    vx_put_le32(p, w[k]);
                    p[4] = (uint8_t)b4[k];
                    p += nb[k];
                }
            } else {
                for (unsigned k = 0; k < T; k++)
                    p = put_v32n(p, vxt_zz32(v[k] - sh[k]), nb[k]);
            }
        } else { /* raw is no longer: raw (raw on a tie) */
            mode = 3;
            for (unsigned k = 0; k < T; k++)
                vx_put_le32(p + 4 * k, v[k]);
            p += 4 * T;
        }
    }
    memcpy(sh, v, sizeof(uint32_t) * T);
    *kp |= (uint8_t)(mode << 3);
    return p;
}

static uint8_t *enc_full_any(uint8_t *p, uint8_t *kp, uint32_t *sh, const uint32_t *v, unsigned T)
{
    return enc_full_t(p, kp, sh, v, T);
}

/* One register commit (FORMAT.md §7.2). */
static inline uint8_t *enc_commit(vxt_pred *ps, vxt_warp *ws, uint8_t *p, const vx_commit *cm,
                                  uint32_t insn, vx_lanes tmask)
{
    const uint32_t T = ps->T;
    uint32_t rd = (insn >> 7) & 31;
    uint8_t *kp = p++;
    unsigned K;
    uint32_t *sh;

    if (cm->file == VX_RF_X) {
        sh = vxt_warp_row(ws, cm->reg, T);
        K = cm->reg == rd ? 0 : 2;
        if (K == 2) p = vxt_put_varint(p, cm->reg);
    } else if (cm->file == VX_RF_F) {
        sh = vxt_warp_row(ws, 32u + cm->reg, T);
        K = cm->reg == rd ? 1 : 2;
        if (K == 2) p = vxt_put_varint(p, 32u + cm->reg);
    } else {
        sh = NULL;
        K = 2;
        p = vxt_put_varint(p, 64u + cm->reg);
    }
    const uint8_t *L;
    unsigned n;
    uint8_t tmp[VX_MAX_THREADS];
    if (cm->lanes == tmask) {
        K |= 4;
        if (tmask == ps->all) { /* every lane: the list is 0..T-1, not needed below */
            L = NULL;
            n = T;
        } else {
            L = vxt_warp_lanes(ws, tmask, &n);
        }
    } else {
        p = vxt_put_lanes(p, cm->lanes, ps->LB);
        n = vxt_lane_list(cm->lanes, tmp);
        L = tmp;
    }
    ps->raw += 3 + ps->LB + 4u * n;
    if (!n) {
        *kp = (uint8_t)K;
        return p;
    }

    const uint32_t *v = cm->values;
    if (n == T && sh) { /* (a lane set of T lanes is every lane) */
        *kp = (uint8_t)K;
        return enc_full_any(p, kp, sh, v, T);
    }
    if (!L) L = vxt_all_lanes;
    uint32_t v0 = v[L[0]];
    unsigned k = 1, mode;
    while (k < n && v[L[k]] == v0)
        k++;
    uint32_t base, stride;
    if (k == n) {
        mode = 0;
        p = vxt_put_s32(p, v0 - (sh ? sh[L[0]] : 0));
    } else if (fit_affine_lanes(L, n, v, &base, &stride)) {
        mode = 1;
        uint32_t pb = sh ? sh[0] : 0, ps_ = (sh && T > 1) ? sh[1] - sh[0] : 0;
        p = vxt_put_s32(p, base - pb);
        p = vxt_put_s32(p, stride - ps_);
    } else {
        unsigned dlen = 0;
        for (k = 0; k < n; k++)
            dlen += vxt_varint_len(vxt_zz32(v[L[k]] - (sh ? sh[L[k]] : 0)));
        if (dlen < 4 * n) {
            mode = 2;
            for (k = 0; k < n; k++)
                p = vxt_put_s32(p, v[L[k]] - (sh ? sh[L[k]] : 0));
        } else {
            mode = 3;
            for (k = 0; k < n; k++) {
                vx_put_le32(p, v[L[k]]);
                p += 4;
            }
        }
    }
    if (sh)
        for (k = 0; k < n; k++)
            sh[L[k]] = v[L[k]];
    *kp = (uint8_t)(K | mode << 3);
    return p;
}

static inline uint32_t size_mask(unsigned size)
{
    return size >= 4 ? 0xFFFFFFFFu : (1u << (8 * size)) - 1;
}

/* Affine fit over a list of (lane, value) pairs (values compared after masking). */
static bool fit_affine_list(const vx_memwrite *m, uint32_t n, bool values, uint32_t dflt_stride,
                            uint32_t *base, uint32_t *stride)
{
    uint32_t s = dflt_stride;
    uint32_t a0 = values ? (m[0].value & size_mask(m[0].size)) : m[0].addr;
    for (uint32_t i = 1; i < n; i++) {
        if (m[i].lane == m[0].lane) continue;
        int32_t d = (int32_t)m[i].lane - (int32_t)m[0].lane;
        uint32_t ai = values ? (m[i].value & size_mask(m[i].size)) : m[i].addr;
        int32_t dv = (int32_t)(ai - a0);
        if (d == 1)
            s = (uint32_t)dv;
        else if (d == -1)
            s = (uint32_t)0 - (uint32_t)dv;
        else if (dv % d == 0)
            s = (uint32_t)(dv / d);
        else
            return false;
        break;
    }
    uint32_t b = a0 - m[0].lane * s;
    for (uint32_t i = 1; i < n; i++) {
        uint32_t want = b + m[i].lane * s;
        if (values ? ((want & size_mask(m[i].size)) != (m[i].value & size_mask(m[i].size)))
                   : want != m[i].addr)
            return false;
    }
    *base = b;
    *stride = s;
    return true;
}

static uint8_t *enc_mem(vxt_pred *ps, vxt_warp *ws, uint8_t *p, const vx_event *ev,
                        const uint8_t *tl, unsigned tn)
{
    const vx_memwrite *m = ev->mem;
    uint32_t n = ev->nmem;
    uint8_t *gp = p++;
    unsigned G, sz = m[0].size;
    bool same_size = true, lanes_mask = n == tn;
    ps->raw += 10ull * n;
    for (uint32_t i = 0; i < n; i++) {
        if (m[i].size != sz) same_size = false;
        if (lanes_mask && m[i].lane != tl[i]) lanes_mask = false;
    }
    /* the chunk digest: bytes [lo, hi] written; when they span at most two pages,
     * those two are exactly the pages written, else every write names its own */
    {
        uint32_t lo = UINT32_MAX, hi = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t a = m[i].addr, e = vxt_dg_last(a, m[i].size);
            lo = a < lo ? a : lo;
            hi = e > hi ? e : hi;
        }
        vx_trace_digest *dg = ps->dg;
        dg->flags |= VX_TRACE_DG_WRITES;
        if ((hi >> 12) - (lo >> 12) <= 1) {
            vxt_dg_span(dg, lo, hi);
        } else {
            for (uint32_t i = 0; i < n; i++)
                vxt_dg_span(dg, m[i].addr, vxt_dg_last(m[i].addr, m[i].size));
        }
    }
    G = same_size ? (sz == 1 ? 0 : sz == 2 ? 1 : 2) : 3;
    if (lanes_mask) {
        G |= 4;
    } else {
        p = vxt_put_varint(p, n);
        for (uint32_t i = 0; i < n; i++)
            *p++ = m[i].lane;
    }
    if (!same_size)
        for (uint32_t i = 0; i < n; i++)
            *p++ = m[i].size;

    uint32_t b, s;
    if (fit_affine_list(m, n, false, ws->mem_stride, &b, &s)) {
        p = vxt_put_s32(p, b - ws->mem_base);
        p = vxt_put_s32(p, s - ws->mem_stride);
        ws->mem_base = b;
        ws->mem_stride = s;
    } else {
        G |= 8;
        p = vxt_put_s32(p, m[0].addr - ws->mem_base);
        for (uint32_t i = 1; i < n; i++)
            p = vxt_put_s32(p, m[i].addr - m[i - 1].addr);
        ws->mem_base = m[0].addr;
    }

    uint32_t v0 = m[0].value & size_mask(m[0].size);
    bool uniform = true;
    for (uint32_t i = 1; i < n && uniform; i++)
        uniform = (m[i].value & size_mask(m[i].size)) == (v0 & size_mask(m[i].size));
    if (uniform) {
        p = vxt_put_varint(p, v0);
    } else if (n >= 2 && fit_affine_list(m, n, true, 0, &b, &s)) {
        G |= 1 << 4;
        p = vxt_put_varint(p, b);
        p = vxt_put_s32(p, s);
    } else {
        G |= 2 << 4;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t v = m[i].value;
            for (unsigned k = 0; k < m[i].size; k++)
                *p++ = (uint8_t)(v >> (8 * k));
        }
    }
    *gp = (uint8_t)G;
    return p;
}

static uint8_t *enc_wctl(const vxt_pred *ps, uint8_t *p, const vx_event *ev)
{
    p = vxt_put_varint(p, ev->nwctl);
    for (uint32_t i = 0; i < ev->nwctl; i++) {
        const vx_wctl *c = &ev->wctl[i];
        unsigned P = (c->core != ev->core ? 1u : 0) | (c->warp != ev->warp ? 2u : 0) |
                     (c->pc ? 4u : 0) | (c->arg ? 8u : 0) | (c->arg2 ? 16u : 0) |
                     (c->mask ? 32u : 0) | (c->mask2 ? 64u : 0);
        *p++ = c->kind;
        *p++ = (uint8_t)P;
        if (P & 1) p = vxt_put_varint(p, c->core);
        if (P & 2) p = vxt_put_varint(p, c->warp);
        if (P & 4) p = vxt_put_varint(p, c->pc);
        if (P & 8) p = vxt_put_varint(p, c->arg);
        if (P & 16) p = vxt_put_varint(p, c->arg2);
        if (P & 32) p = vxt_put_lanes(p, c->mask, ps->LB);
        if (P & 64) p = vxt_put_lanes(p, c->mask2, ps->LB);
    }
    return p;
}

static uint8_t *enc_issue(vxt_pred *ps, uint8_t *p, const vx_event *ev)
{
    uint32_t g = ev->core * ps->W + ev->warp;
    vxt_warp *ws = vxt_pred_warp(ps, g);
    if (!ws) return NULL;

    uint32_t pcore, pwarp;
    uint64_t pcycle;
    pred_schedule(ps, &pcore, &pwarp, &pcycle);
    bool S = ev->core == pcore && ev->warp == pwarp && ev->cycle == pcycle;
    const vxt_icache_ent *ic = &ps->icache[(ev->pc >> 2) & (VXT_ICACHE_SIZE - 1)];
    bool I = ic->epoch == ps->epoch && ic->pc == ev->pc && ic->insn == ev->insn;
    /* The chunk digest's PC set: a hit means this pc was inserted (and its bit set)
     * earlier in this chunk, so only misses need the bit. */
    if (!I && !(ev->flags & VX_EVF_INJECTED)) vxt_dg_pc(ps->dg, ev->pc);
    bool M = ev->tmask == ws->mask;
    unsigned pcmode = 0;
    if (ev->pc != ws->next_pc) {
        uint32_t t = 0;
        pcmode =
            ws->have_last && branch_target(ws->last_pc, ws->last_insn, &t) && t == ev->pc ? 1 : 2;
    }

    bool extras = (ev->flags | ev->nwctl | ev->nconsole) != 0 || ev->fault;
    unsigned form, X = 0;
    if (!extras && !ev->nmem && ev->ncommits <= 1)
        form = ev->ncommits;
    else if (!extras && ev->nmem && !ev->ncommits)
        form = 2;
    else
        form = 3;

    *p++ = (uint8_t)((S ? VXT_H_S : 0) | (I ? VXT_H_I : 0) | (M ? VXT_H_M : 0) |
                     pcmode << VXT_H_PC_SHIFT | form << VXT_H_FORM_SHIFT);
    if (form == 3) {
        X = (ev->nmem ? VXT_X_MEM : 0) | (ev->nwctl ? VXT_X_WCTL : 0) |
            (ev->nconsole ? VXT_X_CONSOLE : 0) | (ev->fault ? VXT_X_FAULT : 0) |
            (ev->flags ? VXT_X_FLAGS : 0);
        *p++ = (uint8_t)X;
        if (ev->flags) *p++ = ev->flags;
        p = vxt_put_varint(p, ev->ncommits);
    }
    if (!S) {
        p = vxt_put_varint(p, ev->core);
        p = vxt_put_varint(p, ev->warp);
        p = vxt_put_varint(p, vxt_zz64(ev->cycle - ps->cur_cycle));
    }
    if (pcmode == 2) p = vxt_put_s32(p, ev->pc - ws->next_pc);
    if (!I) {
        vx_put_le32(p, ev->insn);
        p += 4;
    }
    if (!M) p = vxt_put_lanes(p, ev->tmask, ps->LB);
    ps->raw += 25 + ps->LB;
    for (uint32_t i = 0; i < ev->ncommits; i++)
        p = enc_commit(ps, ws, p, &ev->commits[i], ev->insn, ev->tmask);
    if (ev->nmem) {
        unsigned tn;
        const uint8_t *tl = vxt_warp_lanes(ws, ev->tmask, &tn);
        p = enc_mem(ps, ws, p, ev, tl, tn);
    }
    if (ev->nwctl) p = enc_wctl(ps, p, ev);
    if (ev->nconsole) {
        p = vxt_put_varint(p, ev->nconsole);
        for (uint32_t i = 0; i < ev->nconsole; i++) {
            *p++ = ev->console[i].slot;
            *p++ = ev->console[i].byte;
        }
    }
    if (ev->fault) p = vxt_enc_fault(p, ev->fault, ps->LB);
    if (VX_UNLIKELY(ev->nwctl || ev->nconsole || ev->fault))
        ps->raw +=
            (21ull + 2 * ps->LB) * ev->nwctl + 2ull * ev->nconsole + (ev->fault ? 118 + ps->LB : 0);
    pred_after_issue(ps, ws, ev, S, I);
    return p;
}

/* The u32 at p (host order, any alignment). */
VXT_ALWAYS_INLINE uint32_t ld_u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/*
 * One pass over the T memory writes of a store to every lane: bad is not 0 unless
 * they are one per lane in lane order (m[i].lane == i), all of one valid size (the
 * groups enc_mem_full_t encodes); the other fields are what enc_mem_full_t needs
 * of the addresses (dif: 0 when affine with the stride of lanes 0 and 1, lo, hi)
 * and of the values masked to the size (dif_u: 0 when uniform, dif_a: 0 when
 * affine).
 */
typedef struct mem_scan {
    uint32_t bad, dif, lo, hi, dif_u, dif_a;
} mem_scan;

/* The scans' work for a write of address a and value v: the expected address ea and
 * value ev (unmasked). */
VXT_ALWAYS_INLINE void mem_scan_av(mem_scan *r, uint32_t a, uint32_t v, uint32_t v0, uint32_t ea,
                                   uint32_t ev)
{
    r->dif |= a ^ ea;
    r->lo = a < r->lo ? a : r->lo;
    r->hi = a > r->hi ? a : r->hi;
    r->dif_u |= v ^ v0; /* the value bits past the size are masked once, at the end */
    r->dif_a |= v ^ ev;
}

/* mem_full_scan's work for lane i (mem_scan_av, and the size and lane checks). */
VXT_ALWAYS_INLINE void mem_scan_lane(mem_scan *r, const vx_memwrite *w, unsigned i, unsigned sz,
                                     uint32_t v0, uint32_t ea, uint32_t ev)
{
    uint16_t sl; /* size and lane, adjacent bytes */
    memcpy(&sl, &w->size, 2);
    r->bad |= sl ^ (sz | i << 8);
    mem_scan_av(r, w->addr, w->value, v0, ea, ev);
}

VXT_ALWAYS_INLINE mem_scan mem_full_scan(const vx_memwrite *m, const unsigned T)
{
    _Static_assert(offsetof(vx_memwrite, lane) == offsetof(vx_memwrite, size) + 1,
                   "vx_memwrite: lane right after size");
    const unsigned sz = m[0].size;
    const uint32_t mask = size_mask(sz), a0 = m[0].addr, s = T > 1 ? m[1].addr - a0 : 0,
                   v0 = m[0].value & mask, vs = T > 1 ? (m[1].value & mask) - v0 : 0;
    mem_scan r = {(sz > 4) | !((0x16u >> (sz & 7)) & 1), 0, a0, a0, 0, 0};
    if (T % 4 == 0) { /* four lanes per iteration: less loop overhead */
        for (unsigned i = 0; i < T; i += 4) {
            const uint32_t ea = a0 + i * s, ev = v0 + i * vs;
            mem_scan_lane(&r, &m[i], i, sz, v0, ea, ev);
            mem_scan_lane(&r, &m[i + 1], i + 1, sz, v0, ea + s, ev + vs);
            mem_scan_lane(&r, &m[i + 2], i + 2, sz, v0, ea + 2 * s, ev + 2 * vs);
            mem_scan_lane(&r, &m[i + 3], i + 3, sz, v0, ea + 3 * s, ev + 3 * vs);
        }
    } else {
        for (unsigned i = 0; i < T; i++)
            mem_scan_lane(&r, &m[i], i, sz, v0, a0 + i * s, v0 + i * vs);
    }
    r.dif_u &= mask;
    r.dif_a &= mask;
    return r;
}

/* Out of line (with a constant T inside): inlined, its registers cost the common
 * path of enc_fast_t spills. */
static __attribute__((noinline)) void mem_full_scan_any(mem_scan *r, const vx_memwrite *m,
                                                        unsigned T)
{
    switch (T) {
    case 4: *r = mem_full_scan(m, 4); break;
    case 8: *r = mem_full_scan(m, 8); break;
    case 16: *r = mem_full_scan(m, 16); break;
    case 32: *r = mem_full_scan(m, 32); break;
    default: *r = mem_full_scan(m, T); break;
    }
}

/* mem_full_scan of a store record of the simulator's log: addresses a[0..T) and values
 * v[0..T) of one size sz (valid: the writer checked the record). */
VXT_ALWAYS_INLINE mem_scan mem_log_scan(const uint32_t *a, const uint32_t *v, unsigned sz,
                                        const unsigned T)
{
    const uint32_t mask = size_mask(sz), a0 = a[0], s = T > 1 ? a[1] - a0 : 0, v0 = v[0] & mask,
                   vs = T > 1 ? (v[1] & mask) - v0 : 0;
    mem_scan r = {0, 0, a0, a0, 0, 0};
    for (unsigned i = 0; i < T; i++)
        mem_scan_av(&r, a[i], v[i], v0, a0 + i * s, v0 + i * vs);
    r.dif_u &= mask;
    r.dif_a &= mask;
    return r;
}

/*
 * The memory writes of a store to every lane, one write per lane in lane order, all
 * of one size (mem_full_scan, whose results are sc): the group of enc_mem with G.L
 * set, with constant T.  Same choices and bytes as enc_mem.  The address and the value
 * of write i are the u32 at A + i * step and V + i * step (host order).
 */
VXT_ALWAYS_INLINE uint8_t *enc_mem_full_t(vxt_pred *ps, vxt_warp *ws, uint8_t *p, unsigned sz,
                                          const uint8_t *A, const uint8_t *V, const size_t step,
                                          const mem_scan *sc, const unsigned T)
{
    uint8_t *gp = p++;
    unsigned G = (sz == 1 ? 0 : sz == 2 ? 1 : 2) | 4;
    ps->raw += 10ull * T;

    /* addresses: affine (the stride from lanes 0 and 1), else deltas */
    const uint32_t a0 = ld_u32(A), s = T > 1 ? ld_u32(A + step) - a0 : ws->mem_stride;
    const uint32_t lo = sc->lo, hi = sc->hi;
    if (!sc->dif) {
        uint32_t z0 = vxt_zz32(a0 - ws->mem_base), z1 = vxt_zz32(s - ws->mem_stride);
        p = put_v32(p, z0);
        p = put_v32(p, z1);
        ws->mem_stride = s;
    } else {
        G |= 8;
        uint32_t z = vxt_zz32(a0 - ws->mem_base);
        p = put_v32(p, z);
        for (unsigned i = 1; i < T; i++) {
            z = vxt_zz32(ld_u32(A + i * step) - ld_u32(A + (i - 1) * step));
            p = put_v32(p, z);
        }
    }
    ws->mem_base = a0;

    /* the chunk digest (as enc_mem: every write has the same size) */
    {
        vx_trace_digest *dg = ps->dg;
        uint32_t last = vxt_dg_last(hi, sz);
        dg->flags |= VX_TRACE_DG_WRITES;
        if ((last >> 12) - (lo >> 12) <= 1) {
            vxt_dg_span(dg, lo, last);
        } else {
            for (unsigned i = 0; i < T; i++)
                vxt_dg_span(dg, ld_u32(A + i * step), vxt_dg_last(ld_u32(A + i * step), sz));
        }
    }

    /* values, compared after masking to the size: uniform, affine or raw */
    const uint32_t mask = size_mask(sz), v0 = ld_u32(V) & mask,
                   vs = T > 1 ? (ld_u32(V + step) & mask) - v0 : 0;
    if (!sc->dif_u) {
        p = put_v32(p, v0);
    } else if (!sc->dif_a) {
        uint32_t z = vxt_zz32(vs);
        G |= 1 << 4;
        p = put_v32(p, v0);
        p = put_v32(p, z);
    } else {
        G |= 2 << 4;
        for (unsigned i = 0; i < T; i++) {
            vx_put_le32(p, ld_u32(V + i * step)); /* sz of the 4 bytes count */
            p += sz;
        }
    }
    *gp = (uint8_t)G;
    return p;
}

static __attribute__((noinline)) uint8_t *enc_commit_any(vxt_pred *ps, vxt_warp *ws, uint8_t *p,
                                                         const vx_commit *cm, uint32_t insn,
                                                         vx_lanes tmask)
{
    return enc_commit(ps, ws, p, cm, insn, tmask);
}

static __attribute__((noinline)) uint8_t *enc_mem_any(vxt_pred *ps, vxt_warp *ws, uint8_t *p,
                                                      const vx_event *ev)
{
    unsigned tn;
    const uint8_t *tl = vxt_warp_lanes(ws, ev->tmask, &tn);
    return enc_mem(ps, ws, p, ev, tl, tn);
}

/*
 * A lane set read as two 64-bit halves, never as one 16-byte load: the simulator
 * has just stored the event's mask as two halves, and a load spanning two stores
 * cannot be forwarded from them (it waits for them to reach the cache).
 */
VXT_ALWAYS_INLINE vx_lanes ld_lanes(const vx_lanes *m)
{
    uint64_t lo, hi;
    memcpy(&lo, m, 8);
    memcpy(&hi, (const char *)m + 8, 8);
    __asm__("" : "+r"(lo), "+r"(hi));
    return (vx_lanes)hi << 64 | lo;
}

/*
 * The optional fields of an issue header H that vxt_enc_fast rarely writes (an
 * unpredicted schedule, a PC delta, an instruction word, a thread mask), with the
 * predictor updates that go with them (FORMAT.md §7.1).  Out of line: the common
 * path keeps its registers.
 */
/* The fields of an issue the header H predicts. */
typedef struct ihead {
    uint64_t cycle;
    uint32_t core, warp, pc, insn;
    uint64_t tlo, thi; /* the thread mask, as two halves: a 16-byte load of the struct
                          right after it was written in halves would wait for the stores */
} ihead;

VXT_ALWAYS_INLINE vx_lanes ih_mask(const ihead *h)
{
    return (vx_lanes)h->thi << 64 | h->tlo;
}

static __attribute__((noinline)) uint8_t *enc_head_rare(vxt_pred *ps, vxt_warp *ws, uint8_t *p,
                                                        const ihead *ev, unsigned H, unsigned LB)
{
    if (!(H & VXT_H_S)) {
        const uint32_t lc = ps->last_core;
        p = vxt_put_varint(p, ev->core);
        p = vxt_put_varint(p, ev->warp);
        p = vxt_put_varint(p, vxt_zz64(ev->cycle - ps->cur_cycle));
        ps->next_core[lc] = ev->core;
        ps->next_warp[(size_t)ev->core * ps->W + ps->last_warp[ev->core]] = ev->warp;
    }
    if (((H >> VXT_H_PC_SHIFT) & 3) == 2) p = vxt_put_s32(p, ev->pc - ws->next_pc);
    if (!(H & VXT_H_I)) {
        vxt_icache_ent *ic = &ps->icache[(ev->pc >> 2) & (VXT_ICACHE_SIZE - 1)];
        vx_put_le32(p, ev->insn);
        p += 4;
        vxt_dg_pc(ps->dg, ev->pc); /* the digest's PC set (see enc_issue) */
        ic->pc = ev->pc;
        ic->insn = ev->insn;
        ic->epoch = ps->epoch;
    }
    if (!(H & VXT_H_M)) p = vxt_put_lanes(p, ih_mask(ev), LB);
    return p;
}

/* H and the header fields of a plain issue (no flags) of warp ws, with commit form
 * `form` (FORMAT.md §7). */
VXT_ALWAYS_INLINE uint8_t *enc_head_t(vxt_pred *ps, vxt_warp *ws, uint8_t *p, const ihead *h,
                                      unsigned form, unsigned LB)
{
    const uint32_t pc = h->pc;
    const bool S = (h->core == ps->pred_core) & (h->warp == ps->pred_warp) &
                   (h->cycle == ps->cur_cycle + ps->pred_bump);
    vxt_icache_ent *ic = &ps->icache[(pc >> 2) & (VXT_ICACHE_SIZE - 1)];
    const bool I = (ic->epoch == ps->epoch) & (ic->pc == pc) & (ic->insn == h->insn);
    const bool M = (h->tlo == (uint64_t)ws->mask) & (h->thi == (uint64_t)(ws->mask >> 64));
    unsigned pcmode = 0;
    if (VX_UNLIKELY(pc != ws->next_pc)) {
        uint32_t t = 0;
        pcmode = ws->have_last && branch_target(ws->last_pc, ws->last_insn, &t) && t == pc ? 1 : 2;
    }
    const unsigned H = (S ? VXT_H_S : 0) | (I ? VXT_H_I : 0) | (M ? VXT_H_M : 0) |
                       pcmode << VXT_H_PC_SHIFT | form << VXT_H_FORM_SHIFT;
    *p++ = (uint8_t)H;
    if (VX_UNLIKELY(((H & 7) != 7) | (pcmode == 2))) {
        /* a copy made here: the caller's fields stay in registers on the common path
         * (9 instructions an issue fewer at 4 lanes) */
        const ihead c = *h;
        p = enc_head_rare(ps, ws, p, &c, H, LB);
    }
    ps->raw += 25 + LB;
    return p;
}

/* A commit to every lane of x or f register `reg` (f: the float file): the values v,
 * or with aff, the values aff[0] + lane * aff[1]. */
VXT_ALWAYS_INLINE uint8_t *enc_reg_full_t(vxt_pred *ps, vxt_warp *ws, uint8_t *p, unsigned f,
                                          unsigned reg, uint32_t insn, const uint32_t *v,
                                          const uint32_t *aff, const unsigned T, unsigned LB)
{
    uint8_t *kp = p++;
    if (reg == ((insn >> 7) & 31)) {
        *kp = (uint8_t)(f | 4);
    } else {
        *kp = 2 | 4;
        *p++ = (uint8_t)(32 * f + reg);
    }
    ps->raw += 3 + LB + 4u * T;
    uint32_t *sh = vxt_warp_row(ws, 32 * f + reg, T);
    if (!aff) return enc_full_t(p, kp, sh, v, T);
    /* enc_full_t's choice for these values: uniform when the stride is 0, else affine */
    const uint32_t b = aff[0], st = T > 1 ? aff[1] : 0;
    p = put_v32(p, vxt_zz32(b - sh[0]));
    if (st) {
        p = put_v32(p, vxt_zz32(st - (sh[1] - sh[0])));
        *kp |= 1 << 3;
    }
    if (T % 4 == 0) { /* four lanes at a time, by addition (SSE2 has no 32-bit multiply) */
        const vxt_u32x4 step = {4 * st, 4 * st, 4 * st, 4 * st};
        vxt_u32x4 e = {b, b + st, b + 2 * st, b + 3 * st};
        for (unsigned l = 0; l < T; l += 4, e += step)
            memcpy(sh + l, &e, sizeof e);
    } else {
        for (unsigned l = 0; l < T; l++)
            sh[l] = b + l * st;
    }
    return p;
}

/* Predictor updates after a plain issue (FORMAT.md §7.1; the tables and the insn
 * cache were updated with the header). */
VXT_ALWAYS_INLINE void pred_after_t(vxt_pred *ps, vxt_warp *ws, const ihead *h)
{
    ps->cur_cycle = h->cycle;
    ps->last_core = h->core;
    ps->last_warp[h->core] = h->warp;
    pred_next(ps);
    ws->next_pc = h->pc + 4;
    ws->last_pc = h->pc;
    ws->last_insn = h->insn;
    ws->have_last = true;
    ws->mask = ih_mask(h);
}

/*
 * The most common records, encoded with fewer tests: a plain issue (no flags,
 * warp-control effect, console byte or fault) with at most one commit (of an x or f
 * register), or with memory writes and no commit.  The event is checked first (the
 * writer's rules for such events): NULL, with nothing written or changed, when it
 * is not one of these or not valid; the general path then deals with it.  Inlined
 * with a constant T.  Same bytes as enc_issue.
 */
VXT_ALWAYS_INLINE uint8_t *enc_fast_t(vxt_pred *ps, uint8_t *p, const vx_event *ev,
                                      const uint32_t T)
{
    const uint32_t core = ev->core, warp = ev->warp, W = ps->W, pc = ev->pc, insn = ev->insn;
    const unsigned LB = (T + 7) / 8, nc = ev->ncommits, nm = ev->nmem;
    const vx_lanes tmask = ld_lanes(&ev->tmask), all = vx_lanes_all(T);
    const vx_commit *cm = ev->commits;
    const vx_memwrite *m = ev->mem;
    bool full = false;
    mem_scan sc;

    /* checks: everything the general path would check for such an event */
    if (VX_UNLIKELY((ev->flags | ev->nwctl | ev->nconsole) != 0) ||
        VX_UNLIKELY(ev->fault != NULL) || VX_UNLIKELY(core >= ps->C) || VX_UNLIKELY(warp >= W) ||
        VX_UNLIKELY((tmask & ~all) != 0) || VX_UNLIKELY(nc > 1) || VX_UNLIKELY(nm > VX_MAX_THREADS))
        return NULL;
    if (nc) {
        if (VX_UNLIKELY(nm != 0) || VX_UNLIKELY(cm == NULL) ||
            VX_UNLIKELY((unsigned)cm->file - 1u > 1u) || VX_UNLIKELY(cm->reg >= 32) ||
            VX_UNLIKELY(cm->values == NULL) ||
            VX_UNLIKELY((cm->lanes != tmask) && ((cm->lanes & ~all) != 0)))
            return NULL;
        full = (cm->lanes == tmask) & (tmask == all);
    } else if (nm) {
        if (VX_UNLIKELY(m == NULL)) return NULL;
        if (nm == T && tmask == all) {
            mem_full_scan_any(&sc, m, T);
            full = !sc.bad;
        }
        /* (addresses outside what a store reaches: the general path refuses them) */
        if (full) {
            if (VX_UNLIKELY(!vxt_write_reachable(sc.lo, m[0].size)) |
                VX_UNLIKELY(!vxt_write_reachable(sc.hi, m[0].size)))
                return NULL;
        } else {
            for (uint32_t i = 0; i < nm; i++)
                if (VX_UNLIKELY((m[i].size > 4) | !((0x16u >> (m[i].size & 7)) & 1) |
                                (m[i].lane >= T) | !vxt_write_reachable(m[i].addr, m[i].size)))
                    return NULL;
        }
    }

    vxt_warp *ws = vxt_pred_warp(ps, core * W + warp);
    if (VX_UNLIKELY(!ws)) return NULL;
    const ihead h = {ev->cycle, core, warp, pc, insn, (uint64_t)tmask, (uint64_t)(tmask >> 64)};
    p = enc_head_t(ps, ws, p, &h, nm ? 2 : nc, LB);
    if (nc) {
        if (VX_LIKELY(full)) /* every lane of an x or f register */
            p = enc_reg_full_t(ps, ws, p, cm->file == VX_RF_F, cm->reg, insn, cm->values, NULL, T,
                               LB);
        else
            p = enc_commit_any(ps, ws, p, cm, insn, tmask);
    } else if (nm) {
        const uint8_t *mb = (const uint8_t *)m;
        p = VX_LIKELY(full) ? enc_mem_full_t(ps, ws, p, m[0].size, mb + offsetof(vx_memwrite, addr),
                                             mb + offsetof(vx_memwrite, value), sizeof *m, &sc, T)
                            : enc_mem_any(ps, ws, p, ev);
    }
    pred_after_t(ps, ws, &h);
    return p;
}

static uint8_t *enc_fast_any(vxt_pred *ps, uint8_t *p, const vx_event *ev)
{
    return enc_fast_t(ps, p, ev, ps->T);
}

uint8_t *vxt_enc_fast(vxt_pred *ps, uint8_t *p, const vx_event *ev)
{
    switch (ps->T) {
    case 4: return enc_fast_t(ps, p, ev, 4);
    case 8: return enc_fast_t(ps, p, ev, 8);
    case 16: return enc_fast_t(ps, p, ev, 16);
    case 32: return enc_fast_t(ps, p, ev, 32);
    default: return enc_fast_any(ps, p, ev);
    }
}

_Static_assert(VX_LOG_AFFINE == VX_LOG_MEM, "enc_log_t tests one bit for both");

/* The memory write group of a store record of the simulator's log (to every lane). */
VXT_ALWAYS_INLINE uint8_t *enc_log_store_t(vxt_pred *ps, vxt_warp *ws, uint8_t *p,
                                           const vx_logrec *q, const unsigned T)
{
    const uint32_t *v = (const uint32_t *)(const void *)(q + 1), *ad = v, *val = v + T;
    uint32_t a[32];
    if (q->commit & VX_LOG_MEMAFF) {
        /* all 32: with T not a constant (the general case), GCC 14 cannot see that only
         * the first T are read (-Wmaybe-uninitialized) */
        vx_logrec_affine(v[0], v[1], 32, a);
        ad = a;
        val = v + 4;
    }
    const unsigned sz = q->commit & 7u;
    const mem_scan sc = mem_log_scan(ad, val, sz, T);
    return enc_mem_full_t(ps, ws, p, sz, (const uint8_t *)ad, (const uint8_t *)val, 4, &sc, T);
}

/* Out of line, as the other rare parts of enc_log_t (with a constant T inside). */
static __attribute__((noinline)) uint8_t *enc_log_store(vxt_pred *ps, vxt_warp *ws, uint8_t *p,
                                                        const vx_logrec *q)
{
    switch (ps->T) {
    case 4: return enc_log_store_t(ps, ws, p, q, 4);
    case 8: return enc_log_store_t(ps, ws, p, q, 8);
    case 16: return enc_log_store_t(ps, ws, p, q, 16);
    case 32: return enc_log_store_t(ps, ws, p, q, 32);
    default: return enc_log_store_t(ps, ws, p, q, ps->T);
    }
}

/*
 * A record of the simulator's compact log (vx_logrec, vx_event.h) at `cycle`: the
 * same bytes as vxt_enc_fast for the event it stands for, without building one.
 * NULL (nothing written or changed) when the record names a core, warp or lane
 * outside the platform (the general path explains), or is an affine commit or a
 * store to some of the lanes only (the general path encodes them).  The writer
 * checked the commit byte.
 */
VXT_ALWAYS_INLINE uint8_t *enc_log_t(vxt_pred *ps, uint8_t *p, const vx_logrec *q, uint64_t cycle,
                                     const uint32_t T)
{
    const unsigned LB = (T + 7) / 8, c = q->commit;
    const ihead h = {cycle, q->core, q->warp, q->pc, q->insn, q->tmask, 0};
    const vx_lanes tmask = q->tmask, all = vx_lanes_all(T);
    const uint32_t *v = (const uint32_t *)(const void *)(q + 1);
    const bool commit = (c & VX_LOG_COMMIT) != 0, store = c && !commit;
    if (VX_UNLIKELY(h.core >= ps->C) | VX_UNLIKELY(h.warp >= ps->W) |
        VX_UNLIKELY((tmask & ~all) != 0) | VX_UNLIKELY((c & VX_LOG_MEM) && tmask != all))
        return NULL; /* VX_LOG_MEM: a store, or with a commit, VX_LOG_AFFINE (the same bit) */
    vxt_warp *ws = vxt_pred_warp(ps, h.core * ps->W + h.warp);
    if (VX_UNLIKELY(!ws)) return NULL;
    p = enc_head_t(ps, ws, p, &h, store ? 2 : commit, LB);
    if (commit) {
        const unsigned f = (c & VX_LOG_F) != 0;
        if (VX_LIKELY(tmask == all)) {
            p = enc_reg_full_t(ps, ws, p, f, c & 31u, h.insn, v, (c & VX_LOG_AFFINE) ? v : NULL, T,
                               LB);
        } else {
            vx_commit cm = {
                .file = f ? VX_RF_F : VX_RF_X, .reg = c & 31u, .lanes = tmask, .values = v};
            p = enc_commit_any(ps, ws, p, &cm, h.insn, tmask);
        }
    } else if (store) {
        p = enc_log_store(ps, ws, p, q);
    }
    pred_after_t(ps, ws, &h);
    return p;
}

/* The commit bytes of the compact log's records at T threads per warp (vx_event.h). */
VXT_ALWAYS_INLINE bool log_commit_ok(unsigned c, uint32_t T)
{
    if (!c || (c & VX_LOG_COMMIT)) return !(c & VX_LOG_AFFINE) || T <= 32;
    const unsigned size = c & ~(VX_LOG_MEM | VX_LOG_MEMAFF);
    return (c & VX_LOG_MEM) && (size == 1 || size == 2 || size == 4) && T <= 32;
}

bool vxt_log_commit_ok(unsigned commit, uint32_t T)
{
    return log_commit_ok(commit, T);
}

/*
 * The run loop of vxt_enc_logs with a constant T: records while each is whole, has a
 * valid commit byte and takes enc_log_t's path, and the output has not reached stop.
 */
VXT_ALWAYS_INLINE size_t enc_logs_t(vxt_pred *ps, uint8_t **pp, const uint8_t *stop,
                                    const uint8_t *buf, size_t len, uint64_t *cycle, uint64_t *nrec,
                                    const uint32_t T)
{
    uint8_t *p = *pp;
    uint64_t cyc = *cycle, n = 0;
    size_t off = 0;
    while (off < len && p < stop && buf[off] >= VX_LOG_ISSUE && len - off >= 16) {
        const vx_logrec *q = (const vx_logrec *)(const void *)(buf + off);
        const size_t size = VX_LOGREC_SIZE(q->commit, T);
        if (VX_UNLIKELY(size > len - off) || VX_UNLIKELY(!log_commit_ok(q->commit, T))) break;
        /* The records were written by another core: at up to 8 lanes (16 to 48 bytes a
         * record, little work each) the reads wait for them unless asked for ahead:
         * vecadd and sgemm at 1x1x4x4, writer thread -8 to -10% (2 to 8 KiB ahead
         * alike).  Wider records: no gain (the simulator is the slower thread there,
         * and vecadd at 32 lanes lost 4%). */
        if (T <= 8) __builtin_prefetch((const void *)((uintptr_t)(buf + off) + 2048));
        const uint64_t c = cyc + (q->kind & 63u);
        uint8_t *e = enc_log_t(ps, p, q, c, T);
        if (VX_UNLIKELY(e == NULL)) break;
        p = e;
        cyc = c;
        off += size;
        n++;
    }
    *pp = p;
    *cycle = cyc;
    *nrec = n;
    return off;
}

static size_t enc_logs_any(vxt_pred *ps, uint8_t **pp, const uint8_t *stop, const uint8_t *buf,
                           size_t len, uint64_t *cycle, uint64_t *nrec)
{
    return enc_logs_t(ps, pp, stop, buf, len, cycle, nrec, ps->T);
}

size_t vxt_enc_logs(vxt_pred *ps, uint8_t **pp, const uint8_t *stop, const uint8_t *buf, size_t len,
                    uint64_t *cycle, uint64_t *nrec)
{
    switch (ps->T) {
    case 4: return enc_logs_t(ps, pp, stop, buf, len, cycle, nrec, 4);
    case 8: return enc_logs_t(ps, pp, stop, buf, len, cycle, nrec, 8);
    case 16: return enc_logs_t(ps, pp, stop, buf, len, cycle, nrec, 16);
    case 32: return enc_logs_t(ps, pp, stop, buf, len, cycle, nrec, 32);
    default: return enc_logs_any(ps, pp, stop, buf, len, cycle, nrec);
    }
}

bool vxt_only_unknown_records(vxt_cur c)
{
    while (vxt_cur_left(&c)) {
        uint8_t k;
        uint64_t len;
        if (!vxt_get_u8(&c, &k) || k <= VXT_REC_END || !vxt_get_varint(&c, &len) ||
            len > vxt_cur_left(&c))
            return false;
        c.p += len;
    }
    return true;
}

/* A length-delimited record: kind, varint len, body (built in a bounded scratch buffer). */
static uint8_t *put_delimited(uint8_t *p, uint8_t kind, const uint8_t *body, size_t n)
{
    *p++ = kind;
    p = vxt_put_varint(p, n);
    memcpy(p, body, n);
    return p + n;
}

uint8_t *vxt_enc_event(vxt_pred *ps, uint8_t *p, const vx_event *ev)
{
    uint8_t body[256];
    uint8_t *b = body;
    switch (ev->kind) {
    case VX_EV_ISSUE: return enc_issue(ps, p, ev);
    case VX_EV_DM:
        *b++ = ev->dm.op;
        *b++ = ev->dm.addr;
        b = vxt_put_varint(b, ev->dm.value);
        b = vxt_put_varint(b, ev->dm.gwarp);
        b = vxt_put_varint(b, ev->dm.lane);
        b = vxt_put_varint(b, ev->dm.arg);
        b = vxt_put_varint(b, vxt_zz64(ev->cycle - ps->cur_cycle));
        ps->cur_cycle = ev->cycle;
        ps->raw += 26;
        return put_delimited(p, VXT_REC_DM, body, (size_t)(b - body));
    default: /* VX_EV_END */
        *b++ = ev->end_status;
        b = vxt_put_varint(b, ev->exit_code);
        b = vxt_put_varint(b, vxt_zz64(ev->cycle - ps->cur_cycle));
        *b++ = ev->fault ? 1 : 0;
        if (ev->fault) b = vxt_enc_fault(b, ev->fault, ps->LB);
        ps->cur_cycle = ev->cycle;
        ps->raw += 13 + (ev->fault ? 118 + ps->LB : 0);
        return put_delimited(p, VXT_REC_END, body, (size_t)(b - body));
    }
}

/* ---- decoder ------------------------------------------------------------------------------- */

void vxt_evbuf_free(vxt_evbuf *eb)
{
    free(eb->commits);
    free(eb->values);
    free(eb->mem);
    free(eb->wctl);
    free(eb->console);
    memset(eb, 0, sizeof *eb);
}

bool vxt_dec_fault(vxt_cur *c, vx_fault *f, unsigned lb, vx_lanes all)
{
    uint64_t n;
    memset(f, 0, sizeof *f);
    if (!vxt_get_u8(c, &f->kind) || !vxt_get_u8(c, &f->signal) || !vxt_get_v32(c, &f->core) ||
        !vxt_get_v32(c, &f->warp) || !vxt_get_v32(c, &f->pc) || !vxt_get_v32(c, &f->insn) ||
        !vxt_get_v32(c, &f->addr) || !vxt_get_lanes(c, lb, all, &f->lanes) ||
        !vxt_get_varint(c, &n))
        return false;
    if (n > VXT_MAX_REASON) return vxt_fail(c, "fault reason longer than 95 bytes");
    if (vxt_cur_left(c) < n) return vxt_fail(c, "fault reason runs past the end of its data");
    if (memchr(c->p, 0, n)) return vxt_fail(c, "fault reason contains a NUL byte");
    if (memchr(c->p, '\n', n)) return vxt_fail(c, "fault reason contains a newline");
    memcpy(f->reason, c->p, n);
    f->reason[n] = 0;
    c->p += n;
    return true;
}

static vx_err dec_commit(vxt_pred *ps, vxt_warp *ws, vxt_cur *c, vx_commit *cm, uint32_t *vals,
                         uint32_t insn, vx_lanes tmask)
{
    const uint32_t T = ps->T;
    uint8_t K;
    uint32_t *sh = NULL;
    if (!vxt_get_u8(c, &K)) return VX_ERR_CORRUPT;
    if (K & 0xE0) return vxt_fail(c, "commit header has reserved bits set"), VX_ERR_CORRUPT;
    switch (K & 3) {
    case 0:
    case 1:
        cm->file = (K & 3) == 0 ? VX_RF_X : VX_RF_F;
        cm->reg = (uint16_t)((insn >> 7) & 31);
        break;
    case 2: {
        uint32_t d;
        if (!vxt_get_v32(c, &d)) return VX_ERR_CORRUPT;
        if (d >= 64 + 4096) return vxt_fail(c, "commit destination out of range"), VX_ERR_CORRUPT;
        cm->file = d < 32 ? VX_RF_X : d < 64 ? VX_RF_F : VX_RF_CSR;
        cm->reg = (uint16_t)(d < 64 ? d & 31 : d - 64);
        break;
    }
    default: return vxt_fail(c, "commit destination mode 3 is invalid"), VX_ERR_CORRUPT;
    }
    if (cm->file == VX_RF_X)
        sh = vxt_warp_row(ws, cm->reg, T);
    else if (cm->file == VX_RF_F)
        sh = vxt_warp_row(ws, 32u + cm->reg, T);
    if (K & 4)
        cm->lanes = tmask;
    else if (!vxt_get_lanes(c, ps->LB, ps->all, &cm->lanes))
        return VX_ERR_CORRUPT;
    memset(vals, 0, sizeof(uint32_t) * T);
    cm->values = vals;
    unsigned mode = (K >> 3) & 3, n, k;
    uint8_t tmp[VX_MAX_THREADS];
    const uint8_t *L = cm->lanes == tmask ? vxt_warp_lanes(ws, tmask, &n) : tmp;
    if (L == tmp) n = vxt_lane_list(cm->lanes, tmp);
    if (!n) {
        if (mode) return vxt_fail(c, "commit without lanes has a value mode"), VX_ERR_CORRUPT;
        return VX_OK;
    }
    switch (mode) {
    case 0: {
        uint32_t d;
        if (!vxt_get_s32(c, &d)) return VX_ERR_CORRUPT;
        uint32_t v = (sh ? sh[L[0]] : 0) + d;
        for (k = 0; k < n; k++)
            vals[L[k]] = v;
        break;
    }
    case 1: {
        uint32_t db, ds;
        if (!vxt_get_s32(c, &db) || !vxt_get_s32(c, &ds)) return VX_ERR_CORRUPT;
        uint32_t pb = sh ? sh[0] : 0, ps_ = (sh && T > 1) ? sh[1] - sh[0] : 0;
        uint32_t b = pb + db, s = ps_ + ds;
        for (k = 0; k < n; k++)
            vals[L[k]] = b + L[k] * s;
        break;
    }
    case 2:
        for (k = 0; k < n; k++) {
            uint32_t d;
            if (!vxt_get_s32(c, &d)) return VX_ERR_CORRUPT;
            vals[L[k]] = (sh ? sh[L[k]] : 0) + d;
        }
        break;
    default:
        for (k = 0; k < n; k++)
            if (!vxt_get_u32le(c, &vals[L[k]])) return VX_ERR_CORRUPT;
        break;
    }
    if (sh)
        for (k = 0; k < n; k++)
            sh[L[k]] = vals[L[k]];
    return VX_OK;
}

static vx_err dec_mem(vxt_pred *ps, vxt_warp *ws, vxt_cur *c, vxt_evbuf *eb, vx_lanes tmask)
{
    uint8_t G = 0; /* (vxt_get_u8 sets it when it succeeds; -Og cannot tell) */
    uint32_t n;
    if (!vxt_get_u8(c, &G)) return VX_ERR_CORRUPT;
    if (G & 0xC0) return vxt_fail(c, "memory group header has reserved bits set"), VX_ERR_CORRUPT;
    if (((G >> 4) & 3) == 3) return vxt_fail(c, "memory value mode 3 is invalid"), VX_ERR_CORRUPT;
    unsigned tn;
    const uint8_t *tl = vxt_warp_lanes(ws, tmask, &tn);
    if (G & 4) {
        n = tn;
        if (!n) return vxt_fail(c, "memory writes on the lanes of an empty mask"), VX_ERR_CORRUPT;
    } else {
        if (!vxt_get_v32(c, &n)) return VX_ERR_CORRUPT;
        if (n == 0 || n > VX_TRACE_MAX_MEM || n > vxt_cur_left(c))
            return vxt_fail(c, "bad memory write count"), VX_ERR_CORRUPT;
    }
    if (!vxt_grow((void **)&eb->mem, &eb->mem_cap, n, sizeof(vx_memwrite))) return VX_ERR_NOMEM;
    vx_memwrite *m = eb->mem;
    memset(m, 0, sizeof *m * n);
    if (G & 4) {
        for (uint32_t i = 0; i < n; i++)
            m[i].lane = tl[i];
    } else {
        for (uint32_t i = 0; i < n; i++) {
            if (!vxt_get_u8(c, &m[i].lane)) return VX_ERR_CORRUPT;
            if (m[i].lane >= ps->T)
                return vxt_fail(c, "memory write lane out of range"), VX_ERR_CORRUPT;
        }
    }
    if ((G & 3) == 3) {
        for (uint32_t i = 0; i < n; i++) {
            if (!vxt_get_u8(c, &m[i].size)) return VX_ERR_CORRUPT;
            if (m[i].size != 1 && m[i].size != 2 && m[i].size != 4)
                return vxt_fail(c, "memory write size is not 1, 2 or 4"), VX_ERR_CORRUPT;
        }
    } else {
        uint8_t sz = (uint8_t)(1u << (G & 3));
        for (uint32_t i = 0; i < n; i++)
            m[i].size = sz;
    }
    if (!(G & 8)) {
        uint32_t db, ds;
        if (!vxt_get_s32(c, &db) || !vxt_get_s32(c, &ds)) return VX_ERR_CORRUPT;
        uint32_t b = ws->mem_base + db, s = ws->mem_stride + ds;
        for (uint32_t i = 0; i < n; i++)
            m[i].addr = b + m[i].lane * s;
        ws->mem_base = b;
        ws->mem_stride = s;
    } else {
        uint32_t a = ws->mem_base, d;
        for (uint32_t i = 0; i < n; i++) {
            if (!vxt_get_s32(c, &d)) return VX_ERR_CORRUPT;
            a += d;
            m[i].addr = a;
        }
        ws->mem_base = m[0].addr;
    }
    switch ((G >> 4) & 3) {
    case 0: {
        uint32_t v;
        if (!vxt_get_v32(c, &v)) return VX_ERR_CORRUPT;
        for (uint32_t i = 0; i < n; i++)
            m[i].value = v & size_mask(m[i].size);
        break;
    }
    case 1: {
        uint32_t b, s;
        if (!vxt_get_v32(c, &b) || !vxt_get_s32(c, &s)) return VX_ERR_CORRUPT;
        for (uint32_t i = 0; i < n; i++)
            m[i].value = (b + m[i].lane * s) & size_mask(m[i].size);
        break;
    }
    default:
        for (uint32_t i = 0; i < n; i++) {
            if (vxt_cur_left(c) < m[i].size)
                return vxt_fail(c, "memory value runs past the end of its data"), VX_ERR_CORRUPT;
            uint32_t v = 0;
            for (unsigned k = 0; k < m[i].size; k++)
                v |= (uint32_t)c->p[k] << (8 * k);
            c->p += m[i].size;
            m[i].value = v;
        }
        break;
    }
    eb->ev.nmem = n;
    eb->ev.mem = m;
    return VX_OK;
}

static vx_err dec_wctl(vxt_pred *ps, vxt_cur *c, vxt_evbuf *eb)
{
    uint32_t n;
    if (!vxt_get_v32(c, &n)) return VX_ERR_CORRUPT;
    if (n == 0 || n > VX_TRACE_MAX_WCTL || n > vxt_cur_left(c) / 2)
        return vxt_fail(c, "bad warp-control effect count"), VX_ERR_CORRUPT;
    if (!vxt_grow((void **)&eb->wctl, &eb->wctl_cap, n, sizeof(vx_wctl))) return VX_ERR_NOMEM;
    for (uint32_t i = 0; i < n; i++) {
        vx_wctl *w = &eb->wctl[i];
        uint8_t P = 0; /* (as G in dec_mem) */
        memset(w, 0, sizeof *w);
        w->core = eb->ev.core;
        w->warp = eb->ev.warp;
        if (!vxt_get_u8(c, &w->kind) || !vxt_get_u8(c, &P)) return VX_ERR_CORRUPT;
        if (P & 0x80) return vxt_fail(c, "warp-control field mask has bit 7 set"), VX_ERR_CORRUPT;
        if (((P & 1) && !vxt_get_v32(c, &w->core)) || ((P & 2) && !vxt_get_v32(c, &w->warp)) ||
            ((P & 4) && !vxt_get_v32(c, &w->pc)) || ((P & 8) && !vxt_get_v32(c, &w->arg)) ||
            ((P & 16) && !vxt_get_v32(c, &w->arg2)) ||
            ((P & 32) && !vxt_get_lanes(c, ps->LB, ps->all, &w->mask)) ||
            ((P & 64) && !vxt_get_lanes(c, ps->LB, ps->all, &w->mask2)))
            return VX_ERR_CORRUPT;
    }
    eb->ev.nwctl = n;
    eb->ev.wctl = eb->wctl;
    return VX_OK;
}

static vx_err dec_issue(vxt_pred *ps, vxt_cur *c, vxt_evbuf *eb, uint8_t H)
{
    vx_event *ev = &eb->ev;
    unsigned form = (H >> VXT_H_FORM_SHIFT) & 3, pcmode = (H >> VXT_H_PC_SHIFT) & 3;
    uint8_t X = 0;
    uint32_t ncommits = form == 1 ? 1 : 0;
    vx_err e;

    if (form == 2) X = VXT_X_MEM;
    if (form == 3) {
        if (!vxt_get_u8(c, &X)) return VX_ERR_CORRUPT;
        if (X & VXT_X_RESERVED)
            return vxt_fail(c, "issue extension byte has reserved bits set"), VX_ERR_CORRUPT;
        if ((X & VXT_X_FLAGS) && !vxt_get_u8(c, &ev->flags)) return VX_ERR_CORRUPT;
        if (!vxt_get_v32(c, &ncommits)) return VX_ERR_CORRUPT;
        if (ncommits > VX_TRACE_MAX_COMMITS || ncommits > vxt_cur_left(c))
            return vxt_fail(c, "bad commit count"), VX_ERR_CORRUPT;
    }
    if (H & VXT_H_S) {
        pred_schedule(ps, &ev->core, &ev->warp, &ev->cycle);
    } else {
        uint64_t d;
        if (!vxt_get_v32(c, &ev->core) || !vxt_get_v32(c, &ev->warp) || !vxt_get_s64(c, &d))
            return VX_ERR_CORRUPT;
        if (ev->core >= ps->C) return vxt_fail(c, "core out of range"), VX_ERR_CORRUPT;
        if (ev->warp >= ps->W) return vxt_fail(c, "warp out of range"), VX_ERR_CORRUPT;
        ev->cycle = ps->cur_cycle + d;
    }
    vxt_warp *ws = vxt_pred_warp(ps, ev->core * ps->W + ev->warp);
    if (!ws) return VX_ERR_NOMEM;
    switch (pcmode) {
    case 0: ev->pc = ws->next_pc; break;
    case 1:
        if (!ws->have_last || !branch_target(ws->last_pc, ws->last_insn, &ev->pc))
            return vxt_fail(c, "branch-target PC without a preceding branch"), VX_ERR_CORRUPT;
        break;
    case 2: {
        uint32_t d;
        if (!vxt_get_s32(c, &d)) return VX_ERR_CORRUPT;
        ev->pc = ws->next_pc + d;
        break;
    }
    default: return vxt_fail(c, "PC mode 3 is invalid"), VX_ERR_CORRUPT;
    }
    if (H & VXT_H_I) {
        const vxt_icache_ent *ic = &ps->icache[(ev->pc >> 2) & (VXT_ICACHE_SIZE - 1)];
        if (ic->epoch != ps->epoch || ic->pc != ev->pc)
            return vxt_fail(c, "cached instruction word that was never recorded"), VX_ERR_CORRUPT;
        ev->insn = ic->insn;
    } else if (!vxt_get_u32le(c, &ev->insn)) {
        return VX_ERR_CORRUPT;
    }
    if (H & VXT_H_M)
        ev->tmask = ws->mask;
    else if (!vxt_get_lanes(c, ps->LB, ps->all, &ev->tmask))
        return VX_ERR_CORRUPT;

    if (ncommits) {
        if (!vxt_grow((void **)&eb->commits, &eb->commits_cap, ncommits, sizeof(vx_commit)))
            return VX_ERR_NOMEM;
        /* values keeps commits_cap * T entries */
        if (eb->values_cap < eb->commits_cap) {
            uint32_t *nv = realloc(eb->values, (size_t)eb->commits_cap * ps->T * sizeof(uint32_t));
            if (!nv) return VX_ERR_NOMEM;
            eb->values = nv;
            eb->values_cap = eb->commits_cap;
        }
        for (uint32_t i = 0; i < ncommits; i++) {
            memset(&eb->commits[i], 0, sizeof eb->commits[i]);
            e = dec_commit(ps, ws, c, &eb->commits[i], eb->values + (size_t)i * ps->T, ev->insn,
                           ev->tmask);
            if (e) return e;
        }
        ev->ncommits = ncommits;
        ev->commits = eb->commits;
    }
    if ((X & VXT_X_MEM) && (e = dec_mem(ps, ws, c, eb, ev->tmask))) return e;
    if ((X & VXT_X_WCTL) && (e = dec_wctl(ps, c, eb))) return e;
    if (X & VXT_X_CONSOLE) {
        uint32_t n;
        if (!vxt_get_v32(c, &n)) return VX_ERR_CORRUPT;
        if (n == 0 || n > VX_TRACE_MAX_CONSOLE || n > vxt_cur_left(c) / 2)
            return vxt_fail(c, "bad console byte count"), VX_ERR_CORRUPT;
        if (!vxt_grow((void **)&eb->console, &eb->console_cap, n, sizeof(vx_console)))
            return VX_ERR_NOMEM;
        for (uint32_t i = 0; i < n; i++) {
            eb->console[i].slot = c->p[0];
            eb->console[i].byte = c->p[1];
            c->p += 2;
            if (eb->console[i].slot >= 64)
                return vxt_fail(c, "console slot out of range"), VX_ERR_CORRUPT;
        }
        ev->nconsole = n;
        ev->console = eb->console;
    }
    if (X & VXT_X_FAULT) {
        if (!vxt_dec_fault(c, &eb->fault, ps->LB, ps->all)) return VX_ERR_CORRUPT;
        ev->fault = &eb->fault;
    }
    if (X & VXT_X_EXT) {
        uint64_t n;
        if (!vxt_get_varint(c, &n)) return VX_ERR_CORRUPT;
        if (n > vxt_cur_left(c))
            return vxt_fail(c, "extension block runs past the end of its data"), VX_ERR_CORRUPT;
        c->p += n;
    }
    pred_after_issue(ps, ws, ev, (H & VXT_H_S) != 0, (H & VXT_H_I) != 0);
    return VX_OK;
}

vx_err vxt_dec_record(vxt_pred *ps, vxt_cur *c, vxt_evbuf *eb, uint64_t index, bool *skipped)
{
    vx_event *ev = &eb->ev;
    uint8_t k;
    uint64_t len;

    vx_event_clear(ev, index);
    *skipped = false;
    if (!vxt_get_u8(c, &k)) return VX_ERR_CORRUPT;
    if (k < 0x80) {
        ev->kind = VX_EV_ISSUE;
        return dec_issue(ps, c, eb, k);
    }
    if (!vxt_get_varint(c, &len)) return VX_ERR_CORRUPT;
    if (len > vxt_cur_left(c))
        return vxt_fail(c, "record length runs past the end of the chunk"), VX_ERR_CORRUPT;
    vxt_cur body;
    vxt_cur_init(&body, c->p, (size_t)len);
    body.base = c->base; /* offsets in messages stay relative to the chunk */
    c->p += len;
    uint64_t d;
    switch (k) {
    case VXT_REC_DM:
        ev->kind = VX_EV_DM;
        if (!vxt_get_u8(&body, &ev->dm.op) || !vxt_get_u8(&body, &ev->dm.addr) ||
            !vxt_get_v32(&body, &ev->dm.value) || !vxt_get_v32(&body, &ev->dm.gwarp) ||
            !vxt_get_v32(&body, &ev->dm.lane) || !vxt_get_v32(&body, &ev->dm.arg) ||
            !vxt_get_s64(&body, &d))
            break;
        ev->cycle = ps->cur_cycle + d;
        ps->cur_cycle = ev->cycle;
        return VX_OK;
    case VXT_REC_END: {
        uint8_t hf;
        ev->kind = VX_EV_END;
        if (!vxt_get_u8(&body, &ev->end_status) || !vxt_get_v32(&body, &ev->exit_code) ||
            !vxt_get_s64(&body, &d) || !vxt_get_u8(&body, &hf))
            break;
        if (hf > 1) {
            vxt_fail(&body, "END record fault flag is not 0 or 1");
            break;
        }
        if (hf) {
            if (!vxt_dec_fault(&body, &eb->fault, ps->LB, ps->all)) break;
            ev->fault = &eb->fault;
        }
        ev->cycle = ps->cur_cycle + d;
        ps->cur_cycle = ev->cycle;
        return VX_OK;
    }
    default: *skipped = true; return VX_OK;
    }
    c->err = body.err;
    c->p = body.p; /* point at the failing field */
    return VX_ERR_CORRUPT;
}
