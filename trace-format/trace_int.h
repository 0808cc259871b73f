/*
 * trace_int.h - libvxtrace internals shared by the writer, the reader and the
 * record codec.  Not installed; FORMAT.md is the reference for every constant.
 */
#ifndef VX_TRACE_INT_H
#define VX_TRACE_INT_H

#include <string.h>

#include "vx_trace.h"

/* ---- file structure (FORMAT.md §3, §4, §10) ----------------------------------------- */

#define VXT_SIG_LEN     16u
#define VXT_CHDR_LEN    28u
#define VXT_TRAILER_LEN 16u

enum {
    VXT_CH_HEADER = 1,
    VXT_CH_IMAGE = 2,
    VXT_CH_LOAD = 3,
    VXT_CH_EVENTS = 4,
    VXT_CH_PAGES = 5,
    VXT_CH_KEYFRAME = 6,
    VXT_CH_INDEX = 7,
    /* format 1.1 (a 1.0 reader skips them) */
    VXT_CH_DIGEST = 8,     /* digest of the EVENTS chunk right before it */
    VXT_CH_PAGES2 = 9,     /* PAGES of a keyframe whose base is the prologue's memory */
    VXT_CH_KEYFRAME2 = 10, /* KEYFRAME of such a keyframe */
};

#define VXT_CH_LAST_KNOWN VXT_CH_KEYFRAME2

/* DIGEST payload sizes (FORMAT.md §10.3) */
#define VXT_DG_PC_LOG2   13u
#define VXT_DG_PAGE_LOG2 10u

/* CRC-32C by the tables, whatever the CPU: what vx_trace_crc32c computes where the
 * host has no crc32 instruction (crc32c.c; the tests compare both paths) */
uint32_t vxt_crc32c_sw(uint32_t crc, const void *buf, size_t len);

#define VXT_CHF_LZ4 0x01u
#define VXT_MAX_RAW 0x7E000000u /* LZ4_MAX_INPUT_SIZE */

/* HEADER tags (FORMAT.md §5.1) */
enum {
    VXT_TAG_PLATFORM = 1,
    VXT_TAG_MEM_LIMIT = 2,
    VXT_TAG_START_PC = 3,
    VXT_TAG_ARG = 4,
    VXT_TAG_MAX_CYCLES = 5,
    VXT_TAG_KEYFRAME_INTERVAL = 6,
    VXT_TAG_IMAGE = 7,
    VXT_TAG_LOAD = 8,
    VXT_TAG_SIM_VERSION = 9,
    VXT_TAG_FLAGS = 10,
};

#define VXT_MAX_NAME   4096u
#define VXT_MAX_REASON 95u

/* Records (FORMAT.md §6) */
#define VXT_REC_DM  0x80u
#define VXT_REC_END 0x81u

/* Issue header H and extension byte X (FORMAT.md §7) */
#define VXT_H_S          0x01u
#define VXT_H_I          0x02u
#define VXT_H_M          0x04u
#define VXT_H_PC_SHIFT   3
#define VXT_H_FORM_SHIFT 5
#define VXT_X_MEM        0x01u
#define VXT_X_WCTL       0x02u
#define VXT_X_CONSOLE    0x04u
#define VXT_X_FAULT      0x08u
#define VXT_X_FLAGS      0x10u
#define VXT_X_RESERVED   0x60u
#define VXT_X_EXT        0x80u

#define VXT_ICACHE_SIZE 8192u
#define VXT_NREGS       64u /* x0..x31, f0..f31 */

extern const uint8_t vxt_magic[8];
extern const uint8_t vxt_end_magic[4];

/* ---- varints (FORMAT.md §2) ---------------------------------------------------------- */

#define VXT_VARINT_MAX 10u /* bytes of the longest varint, a 64-bit value's */

/* FORMAT.md 7.3: the bytes a memory write may change, [VXT_MEM_LO, VXT_MEM_HI) (below:
 * the null guard and the console window; above: past local memory) */
#define VXT_MEM_LO 0x80u
#define VXT_MEM_HI 0xFFFF4000u

/* Does a write of size bytes (1, 2 or 4) at addr stay in [VXT_MEM_LO, VXT_MEM_HI)? */
static inline bool vxt_write_reachable(uint32_t addr, uint32_t size)
{
    return addr >= VXT_MEM_LO && addr <= VXT_MEM_HI - size;
}

static inline uint8_t *vxt_put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static inline unsigned vxt_varint_len(uint64_t v)
{
    unsigned n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static inline uint32_t vxt_zz32(uint32_t d)
{
    return (d << 1) ^ (uint32_t) - (int32_t)(d >> 31);
}

static inline uint32_t vxt_unzz32(uint32_t z)
{
    return (z >> 1) ^ (0u - (z & 1u));
}

static inline uint64_t vxt_zz64(uint64_t d)
{
    return (d << 1) ^ (uint64_t) - (int64_t)(d >> 63);
}

static inline uint64_t vxt_unzz64(uint64_t z)
{
    return (z >> 1) ^ (0ull - (z & 1ull));
}

/*
 * varint of a 32-bit value without a loop: all five bytes are stored (the encoder's
 * buffers have room: event bounds count 5 bytes per 32-bit varint), the length is
 * counted, and the last byte's continuation bit cleared.  Same bytes as vxt_put_varint.
 */
static inline uint8_t *vxt_put_v32(uint8_t *p, uint32_t v)
{
    unsigned bits = 32 - (unsigned)__builtin_clz(v | 1), n = (bits + 6) / 7;
    uint32_t w = (v & 0x7Fu) | ((v << 1) & 0x7F00u) | ((v << 2) & 0x7F0000u) |
                 ((v << 3) & 0x7F000000u) | 0x80808080u;
    vx_put_le32(p, w);
    p[4] = (uint8_t)(v >> 28);
    p[n - 1] &= 0x7F;
    return p + n;
}

static inline uint8_t *vxt_put_s32(uint8_t *p, uint32_t d)
{
    return vxt_put_v32(p, vxt_zz32(d));
}

static inline uint8_t *vxt_put_lanes(uint8_t *p, vx_lanes m, unsigned lb)
{
    for (unsigned i = 0; i < lb; i++)
        p[i] = (uint8_t)(m >> (8 * i));
    return p + lb;
}

static inline uint8_t *vxt_put_string(uint8_t *p, const char *s, size_t n)
{
    p = vxt_put_varint(p, n);
    memcpy(p, s, n);
    return p + n;
}

/* ---- decoding cursor: every read is bounded by end ------------------------------------- */

typedef struct vxt_cur {
    const uint8_t *p, *end, *base;
    const char *err; /* what was wrong, when a read failed */
} vxt_cur;

static inline void vxt_cur_init(vxt_cur *c, const uint8_t *p, size_t len)
{
    c->p = c->base = p;
    c->end = p + len;
    c->err = NULL;
}

static inline size_t vxt_cur_left(const vxt_cur *c)
{
    return (size_t)(c->end - c->p);
}

static inline bool vxt_fail(vxt_cur *c, const char *why)
{
    if (!c->err) c->err = why;
    return false;
}

static inline bool vxt_get_u8(vxt_cur *c, uint8_t *v)
{
    if (VX_UNLIKELY(c->p >= c->end)) return vxt_fail(c, "record runs past the end of its data");
    *v = *c->p++;
    return true;
}

static inline bool vxt_get_u32le(vxt_cur *c, uint32_t *v)
{
    if (VX_UNLIKELY(vxt_cur_left(c) < 4))
        return vxt_fail(c, "record runs past the end of its data");
    *v = vx_get_le32(c->p);
    c->p += 4;
    return true;
}

static inline bool vxt_get_varint(vxt_cur *c, uint64_t *out)
{
    uint64_t v = 0;
    const uint8_t *p = c->p;
    for (unsigned i = 0; i < 10; i++) {
        if (VX_UNLIKELY(p >= c->end)) return vxt_fail(c, "varint runs past the end of its data");
        uint8_t b = *p++;
        if (i == 9 && (b & 0x7F) > 1) return vxt_fail(c, "varint exceeds 64 bits");
        v |= (uint64_t)(b & 0x7F) << (7 * i);
        if (!(b & 0x80)) {
            c->p = p;
            *out = v;
            return true;
        }
    }
    return vxt_fail(c, "varint longer than 10 bytes");
}

static inline bool vxt_get_v32(vxt_cur *c, uint32_t *out)
{
    uint64_t v;
    if (!vxt_get_varint(c, &v)) return false;
    if (VX_UNLIKELY(v > 0xFFFFFFFFu)) return vxt_fail(c, "32-bit field out of range");
    *out = (uint32_t)v;
    return true;
}

static inline bool vxt_get_s32(vxt_cur *c, uint32_t *d)
{
    uint32_t z;
    if (!vxt_get_v32(c, &z)) return false;
    *d = vxt_unzz32(z);
    return true;
}

static inline bool vxt_get_s64(vxt_cur *c, uint64_t *d)
{
    uint64_t z;
    if (!vxt_get_varint(c, &z)) return false;
    *d = vxt_unzz64(z);
    return true;
}

static inline bool vxt_get_lanes(vxt_cur *c, unsigned lb, vx_lanes all, vx_lanes *out)
{
    if (VX_UNLIKELY(vxt_cur_left(c) < lb))
        return vxt_fail(c, "lane set runs past the end of its data");
    vx_lanes m = 0;
    for (unsigned i = 0; i < lb; i++)
        m |= (vx_lanes)c->p[i] << (8 * i);
    c->p += lb;
    if (VX_UNLIKELY(m & ~all)) return vxt_fail(c, "lane set names a lane beyond the thread count");
    *out = m;
    return true;
}

/* ---- predictor state (FORMAT.md §6.1), identical in writer and reader --------------------- */

typedef struct vxt_warp {
    /* What every issue reads and updates, in the first 64 bytes (the array is
     * 64-byte aligned and the struct a multiple of 64 bytes). */
    _Alignas(64) uint32_t epoch; /* == pred.epoch when valid in the current chunk */
    uint32_t next_pc;
    uint32_t last_pc, last_insn; /* previous non-injected issue: target[g] is computed from it */
    uint32_t mem_base, mem_stride;
    /* Register shadow [VXT_NREGS][T], allocated on first use.  Row r holds the
     * predictor's values only when bit r of rvalid is set; the others are zeros in
     * the format and are cleared when first used in a chunk (vxt_warp_row), so a
     * chunk start does not clear 64 rows of every warp. */
    uint64_t rvalid;
    vx_lanes mask;
    uint32_t *regs;
    bool have_last;
    uint8_t nlist;
    /* Not predictor state: a cache of the lanes of list_mask in ascending order, so
     * that per-lane loops walk a small array instead of a 128-bit mask. */
    vx_lanes list_mask;
    uint8_t list[VX_MAX_THREADS];
} vxt_warp;

typedef struct vxt_icache_ent {
    uint32_t pc, insn, epoch;
} vxt_icache_ent;

/* ---- chunk digests (FORMAT.md §10.3) ------------------------------------------------------ */

static inline uint32_t vxt_dg_page_bit(uint32_t page)
{
    return (page * 0x9E3779B1u) >> (32 - VXT_DG_PAGE_LOG2);
}

static inline void vxt_dg_set(uint64_t *bits, uint32_t i)
{
    bits[i >> 6] |= 1ull << (i & 63);
}

static inline void vxt_dg_pc(vx_trace_digest *d, uint32_t pc)
{
    vxt_dg_set(d->pc, (pc >> 2) & (VX_TRACE_DG_PC_BITS - 1));
}

/* The bytes [lo, hi] written by one issue, all of them in the page of lo or of hi. */
static inline void vxt_dg_span(vx_trace_digest *d, uint32_t lo, uint32_t hi)
{
    if (lo < d->wlo) d->wlo = lo;
    if (hi > d->whi) d->whi = hi;
    vxt_dg_set(d->page, vxt_dg_page_bit(lo >> 12));
    vxt_dg_set(d->page, vxt_dg_page_bit(hi >> 12));
}

/* One write of size bytes at a: its last byte, without wrapping past 0xFFFFFFFF. */
static inline uint32_t vxt_dg_last(uint32_t a, unsigned size)
{
    uint32_t e = a + (size ? size - 1u : 0u);
    return e < a ? 0xFFFFFFFFu : e;
}

/* An empty digest for a chunk starting at event first. */
void vxt_dg_init(vx_trace_digest *d, uint64_t first);
/* Add a decoded event (reader side; the writer accumulates as it encodes). */
void vxt_dg_add(vx_trace_digest *d, const vx_event *ev, uint32_t warps_per_core);
/* DIGEST payload: encode (at most vxt_dg_bound bytes) and decode (false: malformed;
 * *known false: well-formed but of a layout this reader does not use). */
size_t vxt_dg_bound(uint32_t nwarps);
uint8_t *vxt_dg_encode(uint8_t *p, const vx_trace_digest *d, const uint8_t *warps, uint32_t nwarps);
bool vxt_dg_decode(const uint8_t *p, size_t n, uint32_t nwarps, vx_trace_digest *d, bool *known);

typedef struct vxt_pred {
    uint32_t C, W, T, LB, nwarps;
    vx_lanes all;
    uint32_t epoch;
    uint64_t cur_cycle;
    uint32_t last_core;
    /* The schedule predicted for the next issue (pred_core, pred_warp, cycle
     * cur_cycle + pred_bump), derived from the tables below after every change. */
    uint32_t pred_core, pred_warp, pred_bump;
    uint32_t *next_core; /* [C]; the three tables are one allocation */
    uint32_t *last_warp; /* [C] */
    uint32_t *next_warp; /* [C * W] */
    vxt_warp *warps;     /* [C * W] */
    vxt_icache_ent *icache;
    uint64_t raw;        /* encoder: raw commit-log size of the events encoded (FORMAT.md §13) */
    vx_trace_digest *dg; /* encoder: digest of the chunk being encoded (PCs, writes) */
} vxt_pred;

vx_err vxt_pred_init(vxt_pred *ps, uint32_t cores, uint32_t warps, uint32_t threads);
void vxt_pred_free(vxt_pred *ps);
/* Start of an EVENTS chunk. */
void vxt_pred_reset(vxt_pred *ps);
/* The state of warp g in the current chunk (reset lazily); NULL when out of memory. */
vxt_warp *vxt_pred_warp_slow(vxt_pred *ps, uint32_t g);

static inline vxt_warp *vxt_pred_warp(vxt_pred *ps, uint32_t g)
{
    vxt_warp *ws = &ps->warps[g];
    return VX_LIKELY(ws->epoch == ps->epoch) ? ws : vxt_pred_warp_slow(ps, g);
}

/* Row r (x0..x31, f0..f31 as 32..63) of the warp's register shadow, T lanes. */
static inline uint32_t *vxt_warp_row(vxt_warp *ws, unsigned r, uint32_t T)
{
    uint32_t *sh = ws->regs + (size_t)r * T;
    if (VX_UNLIKELY(!((ws->rvalid >> r) & 1))) {
        memset(sh, 0, sizeof(uint32_t) * T);
        ws->rvalid |= 1ull << r;
    }
    return sh;
}

/* Population count without relying on a POPCNT instruction (no -mpopcnt). */
static inline unsigned vxt_popc64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

/* The lanes of m in ascending order into out[]; returns how many. */
static inline unsigned vxt_lane_list(vx_lanes m, uint8_t *out)
{
    unsigned n = 0;
    uint64_t lo = (uint64_t)m, hi = (uint64_t)(m >> 64);
    while (lo) {
        out[n++] = (uint8_t)__builtin_ctzll(lo);
        lo &= lo - 1;
    }
    while (hi) {
        out[n++] = (uint8_t)(64 + __builtin_ctzll(hi));
        hi &= hi - 1;
    }
    return n;
}

/* The lanes of m, through the warp's cache (m is usually the warp's mask). */
static inline const uint8_t *vxt_warp_lanes(vxt_warp *ws, vx_lanes m, unsigned *n)
{
    if (VX_UNLIKELY(ws->list_mask != m || (!ws->nlist && m))) {
        ws->nlist = (uint8_t)vxt_lane_list(m, ws->list);
        ws->list_mask = m;
    }
    *n = ws->nlist;
    return ws->list;
}

/* ---- records --------------------------------------------------------------------------- */

/* Upper bound of the encoded size of an event (validated). */
size_t vxt_event_bound(const vx_event *ev, uint32_t threads);

/* Encode a validated event at p; returns the end, or NULL when out of memory. */
uint8_t *vxt_enc_event(vxt_pred *ps, uint8_t *p, const vx_event *ev);
/* The same for the common issues (no flags, warp-control effects, console bytes or
 * fault; at most one commit, of an x or f register, or memory writes and no commit),
 * checked here: NULL, nothing written or changed, for any other or invalid event. */
uint8_t *vxt_enc_fast(vxt_pred *ps, uint8_t *p, const vx_event *ev);
/* The same for a run of the simulator's compact log records (vx_event.h) in
 * buf[0..len), the first *cycle cycles after the event before: encodes at *pp while
 * each record is whole, has a valid commit byte (vxt_log_commit_ok) and is one of the
 * common issues, and *pp is below stop (the output may pass stop by one record).
 * Returns the bytes of buf taken; *pp, *cycle (the last record's) and *nrec (records
 * encoded) are updated.  0 when the first record is not taken: nothing changed. */
size_t vxt_enc_logs(vxt_pred *ps, uint8_t **pp, const uint8_t *stop, const uint8_t *buf, size_t len,
                    uint64_t *cycle, uint64_t *nrec);
/* A commit byte some compact log record has at T threads per warp. */
bool vxt_log_commit_ok(unsigned commit, uint32_t T);

/* Decoded event storage (reader side); grows to the largest event seen. */
typedef struct vxt_evbuf {
    vx_event ev;
    vx_commit *commits;
    size_t commits_cap;
    uint32_t *values; /* values_cap * T */
    size_t values_cap;
    vx_memwrite *mem;
    size_t mem_cap;
    vx_wctl *wctl;
    size_t wctl_cap;
    vx_console *console;
    size_t console_cap;
    vx_fault fault;
} vxt_evbuf;

void vxt_evbuf_free(vxt_evbuf *eb);

/* Make *arr hold at least `need` items of `elem` bytes, doubling its capacity *cap
 * (from 16).  False, with *arr as it was, when out of memory. */
bool vxt_grow(void **arr, size_t *cap, size_t need, size_t elem);

/* vxt_grow for a byte buffer. */
static inline bool vxt_reserve(uint8_t **b, size_t *cap, size_t need)
{
    return vxt_grow((void **)b, cap, need, 1);
}

/*
 * Decode one record at c into eb->ev (index = event index of this record).
 * Returns VX_OK (with *skipped set for an unknown record kind that was skipped),
 * VX_ERR_CORRUPT (c->err says why) or VX_ERR_NOMEM.
 */
vx_err vxt_dec_record(vxt_pred *ps, vxt_cur *c, vxt_evbuf *eb, uint64_t index, bool *skipped);

/* Whether the records left at c are all of unknown kinds (none, or 0x82..0xFF: FORMAT.md
 * §8.3), so that no event follows in this payload.  False at the first other record,
 * or at one that is malformed (the decoder reports it when it gets there).  c is not
 * moved. */
bool vxt_only_unknown_records(vxt_cur c);

/* Fault body (FORMAT.md §7.6), shared by issue and END records. */
uint8_t *vxt_enc_fault(uint8_t *p, const vx_fault *f, unsigned lb);
bool vxt_dec_fault(vxt_cur *c, vx_fault *f, unsigned lb, vx_lanes all);

#endif /* VX_TRACE_INT_H */
