/*
 * exec.c - fetch, decode (through a per-PC cache) and execute one
 * warp-instruction, and report it to the observer.
 *
 * Shape (style-anchors §4.4): one switch over vx_op with a case per row of
 * vx_isa.def and no default, so the compiler's -Wswitch warns about a row
 * without semantics.  The body is written once (issue_impl) and instantiated
 * twice through always_inline with traced = 0 / 1: without an observer no
 * event work is done at all.
 *
 * Lanes: registers are [reg][lane]; with a full thread mask an ALU op is a
 * plain loop over lanes (vectorisable), otherwise the loop tests each lane.
 *
 * Faults are precise: every lane is checked before anything is written.  A
 * memory instruction first checks every lane (pass 1: address alignment,
 * mapping, console rules, and for stores the pages it would allocate against the
 * memory limit, without touching a page), then resolves the host pointers (page
 * allocation / copy-on-write, which mark the pages written: only an instruction
 * that cannot fault gets there) and performs the accesses in ascending lane
 * order (pass 2), so a store or AMO of lane t is visible to lane t+1.
 *
 * Vortex semantics (spec/vortex-isa-research.md §1.5, v2.x-master): scalar
 * operands of warp-control ops come from the last active lane, predicates from
 * bit 0 of each lane; SPLIT runs the larger side first (then wins ties); the
 * IPDOM stack holds at most NT-1 entries; plain branches and JALR must be warp
 * uniform (else fault DIVERGENT).  Masks read from a register (TMC, PRED's
 * restore mask) are 32-bit values sign-extended to the lane count, so
 * `tmc -1` enables every lane even with more than 32 threads.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim_int.h"
#include "fpu_int.h"
#include "vx_fpu.h"

#define ALWAYS_INLINE inline __attribute__((always_inline))

static inline uint32_t ld32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline void st32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static inline uint32_t ld16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

static inline void st16(uint8_t *p, uint32_t v)
{
    uint16_t h = (uint16_t)v;
    memcpy(p, &h, 2);
}

static inline vx_lanes mask_from_reg(const vx_sim *s, uint32_t v)
{
    return (vx_lanes)(__int128)(int32_t)v & s->allmask;
}

/* Population count without a libgcc call (the baseline x86-64 target has no popcnt). */
static inline unsigned popc64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

static inline unsigned popc128(vx_lanes m)
{
    return popc64((uint64_t)m) + popc64((uint64_t)(m >> 64));
}

/*
 * 0 when v[l] == base + l * stride for every lane l < nt (nt a multiple of 4), else
 * not 0; four lanes at a time (the compact log's test for an affine commit, or for
 * affine store addresses).  Unrolled: at 32 lanes GCC -O2 keeps the loop, and the
 * simulator's thread runs 23 instructions an issue more (vecadd at 1x4x8x32, most
 * of whose commits are affine and so tested in full).
 */
static inline uint32_t log_affine_dif(const uint32_t *v, uint32_t base, uint32_t stride,
                                      uint32_t nt)
{
    typedef uint32_t u32x4 __attribute__((vector_size(16)));
    const u32x4 step = {4 * stride, 4 * stride, 4 * stride, 4 * stride};
    u32x4 e = {base, base + stride, base + 2 * stride, base + 3 * stride}, d = {0, 0, 0, 0};
#pragma GCC unroll 8
    for (uint32_t l = 0; l < nt; l += 4, e += step) {
        u32x4 x;
        memcpy(&x, v + l, sizeof x);
        d |= x ^ e;
    }
    return d[0] | d[1] | d[2] | d[3];
}

/* ---- faults -------------------------------------------------------------------------------- */

uint8_t vx_fault_signal(vx_fault_kind kind)
{
    switch (kind) {
    case VX_FAULT_ILLEGAL:
    case VX_FAULT_CSR: return 4; /* SIGILL */
    case VX_FAULT_MISALIGNED:
    case VX_FAULT_CONSOLE: return 7;   /* SIGBUS */
    case VX_FAULT_UNMAPPED: return 11; /* SIGSEGV */
    case VX_FAULT_EBREAK: return 5;    /* SIGTRAP */
    case VX_FAULT_ECALL: return 12;    /* SIGSYS (GDB numbering) */
    case VX_FAULT_DIVERGENT:
    case VX_FAULT_IPDOM_OVERFLOW:
    case VX_FAULT_IPDOM_UNDERFLOW:
    case VX_FAULT_BARRIER:
    case VX_FAULT_WSPAWN:
    case VX_FAULT_DEADLOCK: return 6; /* SIGABRT */
    case VX_FAULT_NONE: return 0;
    }
    return 6;
}

void vx_fault_set(vx_sim *s, vx_fault_kind kind, uint32_t gw, uint32_t pc, uint32_t insn,
                  vx_lanes lanes, uint32_t addr, const char *fmt, ...)
{
    vx_fault *f = &s->fault;
    memset(f, 0, sizeof *f);
    f->kind = (uint8_t)kind;
    f->signal = vx_fault_signal(kind);
    f->core = gw / s->nw;
    f->warp = gw % s->nw;
    f->pc = pc;
    f->insn = insn;
    f->addr = addr;
    f->lanes = lanes;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->reason, sizeof f->reason, fmt, ap);
    va_end(ap);
}

/* ---- event scratch ---------------------------------------------------------------------------- */

static inline void commit(vx_sim *s, uint8_t file, uint16_t reg, vx_lanes lanes,
                          const uint32_t *values)
{
    vx_commit *c = &s->ev_commits[s->iev.ncommits++];
    c->file = file;
    c->reg = reg;
    c->lanes = lanes;
    c->values = values;
}

static inline void memw(vx_sim *s, uint32_t addr, uint32_t value, uint8_t size, uint32_t lane)
{
    vx_memwrite *m = &s->ev_mem[s->iev.nmem++];
    m->addr = addr;
    m->value = size == 4 ? value : value & ((1u << (size * 8)) - 1);
    m->size = size;
    m->lane = (uint8_t)lane;
}

static inline void memr(vx_sim *s, uint32_t addr, uint8_t size, uint32_t lane)
{
    if (!(s->obs_flags & VX_OBS_READS)) return;
    vx_memread *m = &s->ev_reads[s->iev.nreads++];
    m->addr = addr;
    m->size = size;
    m->lane = (uint8_t)lane;
}

void vx_wctl_push(vx_sim *s, uint8_t kind, uint32_t gw, uint32_t pc, uint32_t arg, uint32_t arg2,
                  vx_lanes mask, vx_lanes mask2)
{
    if (!s->obs) return;
    vx_wctl_vec *v = &s->ev_wctl;
    if (s->iev.nwctl == v->cap) {
        uint32_t ncap = v->cap ? v->cap * 2 : 16;
        vx_wctl *nv = realloc(v->v, ncap * sizeof *nv);
        if (!nv) return; /* the event loses an effect rather than the run crashing */
        v->v = nv;
        v->cap = ncap;
        s->iev.wctl = nv;
    }
    vx_wctl *w = &v->v[s->iev.nwctl++];
    memset(w, 0, sizeof *w);
    w->kind = kind;
    w->core = gw / s->nw;
    w->warp = gw % s->nw;
    w->pc = pc;
    w->arg = arg;
    w->arg2 = arg2;
    w->mask = mask;
    w->mask2 = mask2;
}

/* ---- reservations (LR/SC) --------------------------------------------------------------------- */

/* Any write to a reserved word clears every reservation of that word. */
void vx_resv_kill(vx_sim *s, uint32_t addr)
{
    size_t n = (size_t)s->ngw * s->nt;
    for (size_t i = 0; i < n && s->nresv; i++)
        if (s->resv_ok[i] && s->resv[i] == (addr & ~3u)) {
            s->resv_ok[i] = 0;
            s->nresv--;
        }
}

/* ---- memory pointer resolution ---------------------------------------------------------------- */

enum {
    MEM_OK = 0,
    MEM_CONSOLE = -1
};

/* Pointer for a read of size bytes at addr by core; returns MEM_OK or a vx_fault_kind. */
/*
 * The lanes of one memory instruction mostly touch the same page, so the
 * resolvers below remember the last global page (pc: page number, or ~0, and
 * its pointer) for the duration of one instruction.
 */
typedef struct pcache {
    uint32_t pn;
    uint8_t *pg;
} pcache;

static inline int rptr(const vx_sim *s, uint32_t core, uint32_t addr, uint32_t size,
                       const uint8_t **out, pcache *pc)
{
    if (VX_UNLIKELY(addr & (size - 1))) return VX_FAULT_MISALIGNED;
    if (VX_LIKELY(addr - VX_GMEM_BASE < VX_GMEM_END - VX_GMEM_BASE)) {
        uint32_t pn = addr >> VX_PAGE_SHIFT;
        if (pn != pc->pn) {
            pc->pn = pn;
            pc->pg = (uint8_t *)vx_gmem_rpage(s, pn); /* only read through */
        }
        *out = pc->pg + (addr & (VX_PAGE_SIZE - 1));
        return MEM_OK;
    }
    if (addr - VX_LMEM_BASE_ADDR < VX_LMEM_SIZE) {
        uint32_t off = addr - VX_LMEM_BASE_ADDR;
        *out = vx_lmem_rpage(s, core, off >> VX_PAGE_SHIFT) + (off & (VX_PAGE_SIZE - 1));
        return MEM_OK;
    }
    if (addr - VX_IO_COUT_ADDR < VX_IO_COUT_SIZE) {
        *out = vx_zero_page; /* console loads read 0 */
        return MEM_OK;
    }
    return VX_FAULT_UNMAPPED;
}

/* Pointer for a write; MEM_CONSOLE for a console byte (out = NULL); or a fault kind.
 * *limit is set when the fault is the guest memory limit. */
static inline int wptr(vx_sim *s, uint32_t core, uint32_t addr, uint32_t size, uint8_t **out,
                       bool *limit, pcache *pc)
{
    if (VX_UNLIKELY(addr & (size - 1))) return VX_FAULT_MISALIGNED;
    if (VX_LIKELY(addr - VX_GMEM_BASE < VX_GMEM_END - VX_GMEM_BASE)) {
        uint32_t pn = addr >> VX_PAGE_SHIFT;
        if (pn != pc->pn) {
            uint8_t *pg = vx_gmem_wpage(s, pn);
            if (VX_UNLIKELY(!pg)) {
                *limit = true;
                return VX_FAULT_UNMAPPED;
            }
            pc->pn = pn;
            pc->pg = pg;
        }
        *out = pc->pg + (addr & (VX_PAGE_SIZE - 1));
        return MEM_OK;
    }
    if (addr - VX_LMEM_BASE_ADDR < VX_LMEM_SIZE) {
        uint32_t off = addr - VX_LMEM_BASE_ADDR;
        uint8_t *pg = vx_lmem_wpage(s, core, off >> VX_PAGE_SHIFT);
        if (!pg) {
            *limit = true;
            return VX_FAULT_UNMAPPED;
        }
        *out = pg + (off & (VX_PAGE_SIZE - 1));
        return MEM_OK;
    }
    if (addr - VX_IO_COUT_ADDR < VX_IO_COUT_SIZE) {
        if (size != 1) return VX_FAULT_CONSOLE;
        *out = NULL;
        return MEM_CONSOLE;
    }
    return VX_FAULT_UNMAPPED;
}

/* The fault a store of `size` bytes at addr would take (0 if none, MEM_CONSOLE for a
 * console byte), as wptr, without making the page writable. */
static int store_check(uint32_t addr, uint32_t size)
{
    if (addr & (size - 1)) return VX_FAULT_MISALIGNED;
    if (addr - VX_GMEM_BASE < VX_GMEM_END - VX_GMEM_BASE || addr - VX_LMEM_BASE_ADDR < VX_LMEM_SIZE)
        return MEM_OK;
    if (addr - VX_IO_COUT_ADDR < VX_IO_COUT_SIZE) return size != 1 ? VX_FAULT_CONSOLE : MEM_CONSOLE;
    return VX_FAULT_UNMAPPED;
}

/* Whether lane slot r (gw * nt + lane) holds a reservation a sc.w at addr can use
 * (reservations exist for global memory only). */
static inline bool sc_may_succeed(const vx_sim *s, size_t r, uint32_t addr)
{
    return s->resv_ok[r] && s->resv[r] == addr && addr - VX_GMEM_BASE < VX_GMEM_END - VX_GMEM_BASE;
}

/*
 * Pass 1 of a store or AMO without side effects: the global pages an instruction
 * would allocate, counted against the memory limit before any page is made writable,
 * so that an instruction that faults (in any lane) leaves every page as it was: not
 * dirty (keyframes store the pages written since the previous one, FORMAT.md 9.3),
 * not allocated (the memory limit).  A debugger's injected store that faults, and a
 * kernel restarted by ndmreset after a fault, go on from there.
 */
typedef struct {
    uint32_t n;
    uint32_t pn[2 * VX_MAX_THREADS]; /* pages to allocate (a misaligned access: 2) */
} fresh_pages;

/* MEM_OK, or VX_FAULT_UNMAPPED with *limit when the page of global address addr is
 * absent and one more page would exceed the limit. */
static int fresh_check(const vx_sim *s, uint32_t addr, fresh_pages *fp, bool *limit)
{
    if (addr - VX_GMEM_BASE >= VX_GMEM_END - VX_GMEM_BASE) return MEM_OK;
    const uint32_t pn = addr >> VX_PAGE_SHIFT;
    if (vx_gmem_rpage(s, pn) != vx_zero_page) return MEM_OK; /* present */
    for (uint32_t i = 0; i < fp->n; i++)
        if (fp->pn[i] == pn) return MEM_OK;
    if ((s->npages + fp->n + 1) * (uint64_t)VX_PAGE_SIZE > s->mem_limit) {
        *limit = true;
        return VX_FAULT_UNMAPPED;
    }
    fp->pn[fp->n++] = pn;
    return MEM_OK;
}

/* store_check plus fresh_check (size-aligned: one page). */
static int store_plan(const vx_sim *s, uint32_t addr, uint32_t size, fresh_pages *fp, bool *limit)
{
    int k = store_check(addr, size);
    return k ? k : fresh_check(s, addr, fp, limit);
}

/* A misaligned store carried out byte by byte: the fault of the first byte that cannot
 * be written (*bad as split_check has it), checked without making any page writable. */
static int split_plan(const vx_sim *s, uint32_t addr, uint32_t size, fresh_pages *fp, bool *limit,
                      uint32_t *bad)
{
    for (uint32_t i = 0; i < size; i++) {
        int k = store_check(addr + i, 1);
        if (k == MEM_CONSOLE) k = VX_FAULT_CONSOLE;
        if (!k) k = fresh_check(s, addr + i, fp, limit);
        if (k) {
            *bad = k == VX_FAULT_CONSOLE ? addr : addr + i;
            return k;
        }
    }
    return 0;
}

/*
 * A misaligned access of `size` bytes at addr, carried out byte by byte (the
 * simulator's misaligned mode): 0 when every byte is readable (loads) or writable
 * (stores: the pages are made writable; console bytes are refused, as for any wider
 * store there), else the fault kind of the first byte that is not, whose address
 * goes to *bad (an unmapped fault names the byte that is unmapped).
 */
static int split_check(vx_sim *s, uint32_t core, uint32_t addr, uint32_t size, bool write,
                       bool *limit, pcache *pc, uint32_t *bad)
{
    for (uint32_t i = 0; i < size; i++) {
        const uint8_t *rp;
        uint8_t *wp;
        int k = write ? wptr(s, core, addr + i, 1, &wp, limit, pc)
                      : rptr(s, core, addr + i, 1, &rp, pc);
        if (k == MEM_CONSOLE) k = VX_FAULT_CONSOLE;
        if (k) {
            *bad = k == VX_FAULT_CONSOLE ? addr : addr + i;
            return k;
        }
    }
    return 0;
}

/* The little-endian value of a misaligned load that split_check accepted. */
static uint32_t split_load(const vx_sim *s, uint32_t core, uint32_t addr, uint32_t size, pcache *pc)
{
    uint32_t v = 0;
    for (uint32_t i = 0; i < size; i++) {
        const uint8_t *p = NULL;
        (void)rptr(s, core, addr + i, 1, &p, pc);
        v |= (uint32_t)*p << (8 * i);
    }
    return v;
}

/* Store a misaligned value that split_check accepted, byte by byte. */
static void split_store(vx_sim *s, uint32_t core, uint32_t addr, uint32_t size, uint32_t v,
                        pcache *pc)
{
    for (uint32_t i = 0; i < size; i++) {
        uint8_t *p = NULL;
        bool lim = false;
        (void)wptr(s, core, addr + i, 1, &p, &lim, pc);
        *p = (uint8_t)(v >> (8 * i));
    }
}

static const char *region_name(uint32_t addr)
{
    if (addr < VX_IO_COUT_ADDR) return " (null guard)";
    if (addr >= VX_LMEM_BASE_ADDR + VX_LMEM_SIZE) return " (above local memory)";
    return "";
}

/* Fill s->fault for a memory fault of lane `lane` (the lowest faulting one). */
static void mem_fault(vx_sim *s, int kind, bool limit, uint32_t gw, uint32_t pc, uint32_t raw,
                      vx_lanes lanes, uint32_t addr, uint32_t size, const char *what)
{
    switch (kind) {
    case VX_FAULT_MISALIGNED:
        vx_fault_set(s, VX_FAULT_MISALIGNED, gw, pc, raw, lanes, addr,
                     "misaligned %u-byte %s at 0x%08x", size, what, addr);
        break;
    case VX_FAULT_CONSOLE:
        vx_fault_set(s, VX_FAULT_CONSOLE, gw, pc, raw, lanes, addr,
                     "%u-byte %s to the console window at 0x%08x (byte stores only)", size, what,
                     addr);
        break;
    default:
        if (limit)
            vx_fault_set(s, VX_FAULT_UNMAPPED, gw, pc, raw, lanes, addr,
                         "%s at 0x%08x exceeds the guest memory limit of %llu bytes", what, addr,
                         (unsigned long long)s->mem_limit);
        else
            vx_fault_set(s, VX_FAULT_UNMAPPED, gw, pc, raw, lanes, addr,
                         "%s at unmapped address 0x%08x%s", what, addr, region_name(addr));
        break;
    }
}

/* ---- warp control helpers ---------------------------------------------------------------------- */

static void spawn_resolve(vx_sim *s, uint32_t core)
{
    vx_core *c = &s->cores[core];
    uint32_t base = core * s->nw;
    for (uint32_t i = 0; i < c->spawn_n; i++) {
        if (i == c->spawn_caller) continue;
        vx_warp *w = &s->warps[base + i];
        if (w->active) continue;
        w->active = 1;
        w->pc = c->spawn_pc;
        vx_warp_set_mask(w, 1);
        c->nactive++;
        s->nactive++;
        vx_sched_update(s, base + i);
        vx_wctl_push(s, VX_WCTL_ACTIVATE, base + i, c->spawn_pc, 0, 0, 1, 0);
    }
    vx_warp *cw = &s->warps[base + c->spawn_caller];
    cw->spawn_wait = 0;
    c->spawn_pending = 0;
    vx_sched_update(s, base + c->spawn_caller);
    vx_wctl_push(s, VX_WCTL_UNSTALL, base + c->spawn_caller, cw->pc, 0, 0, 0, 0);
}

static void bar_release_core(vx_sim *s, uint32_t core, uint32_t id)
{
    uint32_t base = core * s->nw;
    for (uint32_t i = 0; i < s->nw; i++) {
        vx_warp *w = &s->warps[base + i];
        if (!w->bar_wait || w->bar_id != id) continue;
        w->bar_wait = 0;
        vx_sched_update(s, base + i);
        vx_wctl_push(s, VX_WCTL_BAR_RELEASE, base + i, w->pc, id, 0, 0, 0);
    }
}

/* A core reports to global barrier idx once every active warp of it arrived there. */
static void gbar_check(vx_sim *s, uint32_t core, uint32_t idx)
{
    uint32_t *cnt = &s->bar_count[(size_t)core * 2 * s->nb + s->nb + idx];
    uint8_t *rep = &s->gbar_rep[(size_t)core * s->nb + idx];
    if (*rep || *cnt == 0 || *cnt != s->cores[core].nactive) return;
    *rep = 1;
    if (++s->gbar_count[idx] < s->gbar_need[idx]) return;
    uint32_t id = 0x80000000u | idx;
    for (uint32_t c = 0; c < s->nc; c++) {
        uint8_t *r = &s->gbar_rep[(size_t)c * s->nb + idx];
        if (!*r) continue;
        *r = 0;
        s->bar_count[(size_t)c * 2 * s->nb + s->nb + idx] = 0;
        bar_release_core(s, c, id);
    }
    s->gbar_count[idx] = 0;
}

void vx_warp_deactivated(vx_sim *s, uint32_t gw, bool traced)
{
    (void)traced;
    uint32_t core = gw / s->nw;
    vx_core *c = &s->cores[core];
    c->nactive--;
    s->nactive--;
    vx_sched_update(s, gw);
    if (c->spawn_pending && c->nactive == 1 && s->warps[core * s->nw + c->spawn_caller].active)
        spawn_resolve(s, core);
    for (uint32_t i = 0; i < s->nb; i++)
        gbar_check(s, core, i);
}

/* Set a warp's thread mask from a warp-control op; an empty mask ends the warp. */
static void set_tmask(vx_sim *s, uint32_t gw, vx_lanes m, uint32_t pc, bool traced)
{
    vx_warp *w = &s->warps[gw];
    vx_warp_set_mask(w, m);
    if (traced) vx_wctl_push(s, VX_WCTL_TMASK, gw, pc, 0, 0, m, 0);
    if (!m && w->active) {
        w->active = 0;
        if (traced) vx_wctl_push(s, VX_WCTL_DEACTIVATE, gw, pc, 0, 0, 0, 0);
        vx_warp_deactivated(s, gw, traced);
    }
}

/* ---- the executor ---------------------------------------------------------------------------------- */

#define LANE_ON(t) ((unsigned)(((t) < 64 ? tm0 >> ((t)&63) : tm1 >> ((t)&63))) & 1u)
/*
 * Run the body for every active lane t in ascending order: a plain loop with a
 * full mask (vectorisable), otherwise over the set bits of the mask, so a warp
 * running one lane of 32 costs one iteration.  The body may `continue`.
 */
#define LANES_IMPL(pragma, ...)                                             \
    do {                                                                    \
        if (full) {                                                         \
            pragma for (uint32_t t = 0; t < nt; t++)                        \
            {                                                               \
                __VA_ARGS__;                                                \
            }                                                               \
        } else {                                                            \
            for (uint32_t lw_ = 0; lw_ < 2; lw_++) {                        \
                uint64_t lm_ = lw_ ? tm1 : tm0;                             \
                while (lm_) {                                               \
                    uint32_t t = lw_ * 64 + (uint32_t)__builtin_ctzll(lm_); \
                    lm_ &= lm_ - 1;                                         \
                    __VA_ARGS__;                                            \
                }                                                           \
            }                                                               \
        }                                                                   \
    } while (0)
#define LANES(...) LANES_IMPL(, __VA_ARGS__)
/*
 * For purely elementwise bodies (lane t reads row[t] of some rows and writes
 * row[t] of one row): rows are distinct or identical, never partly overlapping,
 * so there is no loop-carried dependence and the compiler may vectorise even
 * when rd == rs1.  Never for bodies with side effects across lanes.  GCC's ivdep
 * says so; clang has no such pragma (an unknown pragma is an error under -Werror),
 * so there the loop is left to clang's own analysis.
 */
#if defined(__clang__)
#define VX_IVDEP
#else
#define VX_IVDEP _Pragma("GCC ivdep")
#endif
#define LANES_EW(...) LANES_IMPL(VX_IVDEP, __VA_ARGS__)

/*
 * The observer's per-lane reads (only with VX_OBS_READS: tested once) and writes
 * of a load or store at pa[t] + imm of fsize bytes, value pb[t], written through a
 * local pointer (one count update per instruction).
 */
#define MEMR_LANES()                                                                           \
    do {                                                                                       \
        if (s->obs_flags & VX_OBS_READS) {                                                     \
            vx_memread *mr_ = s->ev_reads + s->iev.nreads;                                     \
            LANES(mr_->addr = pa[t] + imm; mr_->size = (uint8_t)fsize; mr_->lane = (uint8_t)t; \
                  mr_++);                                                                      \
            s->iev.nreads = (uint32_t)(mr_ - s->ev_reads);                                     \
        }                                                                                      \
    } while (0)
#define MEMW_LANES()                                                                         \
    do {                                                                                     \
        vx_memwrite *mw_ = s->ev_mem + s->iev.nmem;                                          \
        const uint32_t vm_ = fsize == 4 ? ~0u : (1u << (fsize * 8)) - 1;                     \
        LANES(mw_->addr = pa[t] + imm; mw_->value = pb[t] & vm_; mw_->size = (uint8_t)fsize; \
              mw_->lane = (uint8_t)t; mw_++);                                                \
        s->iev.nmem = (uint32_t)(mw_ - s->ev_mem);                                           \
    } while (0)

/* integer rd <- f(rs1, rs2) */
#define OP_RR(expr)                                                      \
    do {                                                                 \
        uint32_t *d = XR(in->wrd);                                       \
        const uint32_t *pa = XR(in->rs1), *pb = XR(in->rs2);             \
        LANES_EW(uint32_t A = pa[t]; uint32_t B = pb[t]; d[t] = (expr)); \
        goto commit_x;                                                   \
    } while (0)

/* integer rd <- f(rs1, imm) */
#define OP_RI(expr)                                  \
    do {                                             \
        uint32_t *d = XR(in->wrd);                   \
        const uint32_t *pa = XR(in->rs1);            \
        const uint32_t B = (uint32_t)in->imm;        \
        LANES_EW(uint32_t A = pa[t]; d[t] = (expr)); \
        goto commit_x;                               \
    } while (0)

static inline uint32_t op_div(uint32_t a, uint32_t b)
{
    if (b == 0) return 0xffffffffu;
    if (a == 0x80000000u && b == 0xffffffffu) return a;
    return (uint32_t)((int32_t)a / (int32_t)b);
}

static inline uint32_t op_rem(uint32_t a, uint32_t b)
{
    if (b == 0) return a;
    if (a == 0x80000000u && b == 0xffffffffu) return 0;
    return (uint32_t)((int32_t)a % (int32_t)b);
}

static inline uint32_t amo_op(unsigned op, uint32_t old, uint32_t v)
{
    switch (op) {
    case VX_OP_AMOSWAP_W: return v;
    case VX_OP_AMOADD_W: return old + v;
    case VX_OP_AMOXOR_W: return old ^ v;
    case VX_OP_AMOAND_W: return old & v;
    case VX_OP_AMOOR_W: return old | v;
    case VX_OP_AMOMIN_W: return (int32_t)old < (int32_t)v ? old : v;
    case VX_OP_AMOMAX_W: return (int32_t)old > (int32_t)v ? old : v;
    case VX_OP_AMOMINU_W: return old < v ? old : v;
    case VX_OP_AMOMAXU_W: return old > v ? old : v;
    default: return v;
    }
}

static inline uint32_t fsgnj(unsigned op, uint32_t a, uint32_t b)
{
    const uint32_t S = 0x80000000u;
    switch (op) {
    case VX_OP_FSGNJ_S: return (a & ~S) | (b & S);
    case VX_OP_FSGNJN_S: return (a & ~S) | (~b & S);
    default: return a ^ (b & S);
    }
}

static inline uint32_t branch_cond(unsigned op, uint32_t a, uint32_t b)
{
    switch (op) {
    case VX_OP_BEQ: return a == b;
    case VX_OP_BNE: return a != b;
    case VX_OP_BLT: return (int32_t)a < (int32_t)b;
    case VX_OP_BGE: return (int32_t)a >= (int32_t)b;
    case VX_OP_BLTU: return a < b;
    default: return a >= b;
    }
}

static int execute_cold(vx_sim *s, uint32_t core, uint32_t gw, const vx_insn *in, uint64_t tm0,
                        uint64_t tm1, uint32_t pc, unsigned mode, int traced);

/*
 * The executor: one switch with every op.  It is instantiated twice:
 *   hot = 0: execute_cold(), out of line, generic (any warp width, traced or
 *            not at run time): the complete semantics;
 *   hot = 1: inlined into the specialised issue loops, where only the frequent
 *            ops and the common case of memory ops are compiled (COLD hands
 *            everything else to execute_cold, before any effect).  Keeping the
 *            inlined copy small keeps the loop's registers out of the stack and
 *            the compile time down.
 * With ntc (a constant warp width, 0 = any) <= 64 the caller passes tm1 = 0.
 */
/*
 * A store record with affine addresses (VX_LOG_MEMAFF; vx_event.h) of need bytes at
 * the log's cursor (room made): header, base and stride; returns where the T values
 * go.
 */
static inline uint32_t *log_memaff(vx_log *lg, size_t need, uint64_t dc, uint32_t fsize,
                                   uint32_t core, uint32_t wi, uint32_t pc, uint32_t insn,
                                   uint64_t tm0, uint32_t base, uint32_t stride)
{
    vx_logrec *q = (vx_logrec *)(void *)lg->pos;
    uint32_t *o = (uint32_t *)(void *)(q + 1);
    o[0] = base;
    o[1] = stride;
    o[2] = o[3] = 0;
    vx_logrec_head(q, (uint32_t)dc, (uint8_t)(VX_LOG_MEM | VX_LOG_MEMAFF | fsize), core, wi, pc,
                   insn, (uint32_t)tm0);
    lg->pos += need;
    return o + 4;
}

/*
 * The compact log record of a store (vx_event.h) written straight from the store's
 * operands, instead of its per-lane memory writes (which the log would copy): lane
 * t writes the low fsize bytes of pb[t] at pa[t] + imm, for the lanes of tm0.  For
 * the scheduler's issues (mode 0) at most 32 lanes wide; false when the log does
 * not take it (the issue then reports its writes as usual).
 */
static ALWAYS_INLINE bool log_store(vx_sim *s, uint32_t core, uint32_t gw, const vx_insn *in,
                                    uint64_t tm0, uint32_t pc, uint32_t nt, bool full,
                                    const uint32_t *pa, const uint32_t *pb, uint32_t imm,
                                    uint32_t fsize)
{
    vx_log *const lg = s->log;
    const uint32_t wi = gw - core * s->nw;
    const uint64_t dc = s->cycle - lg->cycle;
    if (nt > 32 || dc >= 64 || (core | wi) >= 256) return false;
    const uint32_t vm = fsize == 4 ? ~0u : (1u << (fsize * 8)) - 1;
    if (full && nt >= 8 && lg->affine) { /* addresses base + lane * stride? */
        const uint32_t stride = pa[1] - pa[0], off = log_affine_dif(pa, pa[0], stride, nt);
        const size_t need = VX_LOGREC_SIZE(VX_LOG_MEM | VX_LOG_MEMAFF | fsize, nt);
        if (!off && ((size_t)(lg->end - lg->pos) >= need || lg->refill(lg, need))) {
            uint32_t *v =
                log_memaff(lg, need, dc, fsize, core, wi, pc, in->raw, tm0, pa[0] + imm, stride);
            for (uint32_t t = 0; t < nt; t++)
                v[t] = pb[t] & vm;
            return true;
        }
        if (!off) return false;
    }
    const size_t need = VX_LOGREC_SIZE(VX_LOG_MEM | fsize, nt);
    if ((size_t)(lg->end - lg->pos) < need && !lg->refill(lg, need)) return false;
    vx_logrec *q = (vx_logrec *)(void *)lg->pos;
    uint32_t *a = (uint32_t *)(void *)(q + 1), *v = a + nt;
    const uint64_t tm1 = 0;
    LANES(a[t] = pa[t] + imm; v[t] = pb[t] & vm);
    vx_logrec_head(q, (uint32_t)dc, (uint8_t)(VX_LOG_MEM | fsize), core, wi, pc, in->raw,
                   (uint32_t)tm0);
    lg->pos += need;
    return true;
}

/*
 * The compact log record (vx_event.h) of an issue at the log's cursor: with commit
 * (VX_LOG_COMMIT | VX_LOG_F for the float file | the register), its commit of the
 * values v of lanes 0..nt-1; with commit 0, of an issue without effects.  Values of
 * the form base + lane * stride (uniform ones too) go as the two numbers from 8
 * lanes up (4 lanes would take as many bytes), when the log's client takes them.
 * false when the log has no room.
 */
static ALWAYS_INLINE bool log_put(vx_log *lg, uint64_t dc, uint32_t core, uint32_t wi, uint32_t pc,
                                  uint32_t insn, uint64_t tm0, unsigned commit, const uint32_t *v,
                                  uint32_t nt)
{
    uint32_t base = 0, stride = 0, off = 1;
    if (commit && nt >= 8 && lg->affine) {
        base = v[0];
        stride = v[1] - v[0];
        off = log_affine_dif(v, base, stride, nt);
    }
    const uint8_t k = (uint8_t)(commit | (off ? 0 : VX_LOG_AFFINE));
    const size_t need = VX_LOGREC_SIZE(k, nt);
    if (!(VX_LIKELY((size_t)(lg->end - lg->pos) >= need) || lg->refill(lg, need))) return false;
    vx_logrec *q = (vx_logrec *)(void *)lg->pos;
    vx_logrec_head(q, (uint32_t)dc, k, core, wi, pc, insn, (uint32_t)tm0);
    uint32_t *o = (uint32_t *)(void *)(q + 1);
    if (!off) {
        o[0] = base;
        o[1] = stride;
        o[2] = o[3] = 0;
    } else if (commit) {
        memcpy(o, v, 4 * (size_t)nt);
    }
    lg->pos += need;
    return true;
}

/*
 * The compact log record of an issue whose one effect is a commit of register reg
 * of the x (f = 0) or f file (f = VX_LOG_F) to the lanes of its mask, written
 * straight from the register file v when the commit happens, as log_store does for
 * stores: the record issue_impl would otherwise write after reading the commit back
 * from the event and testing it (vecadd at 1x1x4x4: the simulator's thread -32
 * instructions an issue).  For the scheduler's issues (mode 0); false when the log
 * does not take it (the issue then reports its commit as usual).
 */
static ALWAYS_INLINE bool log_commit(vx_sim *s, uint32_t core, uint32_t gw, const vx_insn *in,
                                     uint64_t tm0, uint64_t tm1, uint32_t pc, uint32_t nt,
                                     unsigned f, unsigned reg, const uint32_t *v)
{
    vx_log *const lg = s->log;
    const vx_event *const ev = &s->iev;
    const uint32_t wi = gw - core * s->nw;
    const uint64_t dc = s->cycle - lg->cycle;
    if (nt > 32 || tm1 || (ev->ncommits | ev->nmem | ev->nwctl | ev->nconsole | ev->nreads) ||
        dc >= 64 || (core | wi) >= 256)
        return false;
    return log_put(lg, dc, core, wi, pc, in->raw, tm0, VX_LOG_COMMIT | f | reg, v, nt);
}

static ALWAYS_INLINE int execute(vx_sim *s, uint32_t core, uint32_t gw, const vx_insn *in,
                                 uint64_t tm0, uint64_t tm1, uint32_t pc, unsigned mode,
                                 const int traced, const uint32_t ntc, const int hot)
{
#define COLD \
    if (hot) return execute_cold(s, core, gw, in, tm0, tm1, pc, mode, traced)
    vx_warp *w = &s->warps[gw];
    const uint32_t nt = ntc ? ntc : s->nt; /* a constant in the specialised loops */
    const bool full = ntc && ntc < 64 ? tm0 == (1ull << ntc) - 1
                      : ntc == 64     ? tm0 == ~0ull
                                      : tm0 == s->all0 && tm1 == s->all1;
    uint32_t *const xbase = s->xregs + (size_t)gw * VX_XROWS * nt;
#define XR(r) (xbase + (size_t)(r)*nt)
    /* computed where used, so integer ops do not pay for it */
#define FR(r) (s->fregs + ((size_t)gw * 32u + (r)) * nt)
    uint32_t npc = pc + 4;
    const uint32_t raw = in->raw;
    /* Computed where used: the mask as one value, and the last active lane. */
#define TM ((vx_lanes)tm1 << 64 | tm0)
    /* The issue's one commit, of register r of file F (VX_RF_X or VX_RF_F) to the lanes
     * of the mask: into the compact log when it takes it (log_commit), else into the
     * event. */
#define COMMIT1(F, r, v)                                                                    \
    do {                                                                                    \
        if (traced && !(s->log && !mode &&                                                  \
                        (s->logged = log_commit(s, core, gw, in, tm0, tm1, pc, nt,          \
                                                (F) == VX_RF_F ? VX_LOG_F : 0, (r), (v))))) \
            commit(s, (F), (r), TM, (v));                                                   \
    } while (0)
    /* The same for a float operation's commit: when its flags add none to fcsr (which
     * fp_flags then commits too), else into the event. */
#define COMMIT1_FP(F, r, v)                 \
    do {                                    \
        if (!(fflags & ~(uint32_t)w->fcsr)) \
            COMMIT1(F, r, v);               \
        else if (traced)                    \
            commit(s, (F), (r), TM, (v));   \
    } while (0)
#define LAST  (tm1 ? 127u - (unsigned)__builtin_clzll(tm1) : 63u - (unsigned)__builtin_clzll(tm0))
#define FIRST (tm0 ? (unsigned)__builtin_ctzll(tm0) : 64u + (unsigned)__builtin_ctzll(tm1))
    int status = VX_X_OK;
    uint32_t fflags = 0;
    uint32_t fsize = 4;
    const char *what = "load";

    switch ((vx_op)in->op) {
    case VX_OP_INVALID:
    case VX_OP_COUNT:
        COLD;
        vx_fault_set(s, VX_FAULT_ILLEGAL, gw, pc, raw, TM, 0, "illegal instruction 0x%08x", raw);
        return VX_X_FAULT;

    /* ---- integer ALU ---- */
    case VX_OP_LUI: OP_RI(B + 0 * A);
    case VX_OP_AUIPC: OP_RI(pc + B + 0 * A);
    case VX_OP_ADDI: OP_RI(A + B);
    case VX_OP_SLTI: OP_RI((int32_t)A < (int32_t)B);
    case VX_OP_SLTIU: OP_RI(A < B);
    case VX_OP_XORI: OP_RI(A ^ B);
    case VX_OP_ORI: OP_RI(A | B);
    case VX_OP_ANDI: OP_RI(A & B);
    case VX_OP_SLLI: OP_RI(A << B);
    case VX_OP_SRLI: OP_RI(A >> B);
    case VX_OP_SRAI: OP_RI((uint32_t)((int32_t)A >> B));
    case VX_OP_ADD: OP_RR(A + B);
    case VX_OP_SUB: OP_RR(A - B);
    case VX_OP_SLL: OP_RR(A << (B & 31));
    case VX_OP_SLT: OP_RR((int32_t)A < (int32_t)B);
    case VX_OP_SLTU: OP_RR(A < B);
    case VX_OP_XOR: OP_RR(A ^ B);
    case VX_OP_SRL: OP_RR(A >> (B & 31));
    case VX_OP_SRA: OP_RR((uint32_t)((int32_t)A >> (B & 31)));
    case VX_OP_OR: OP_RR(A | B);
    case VX_OP_AND: OP_RR(A & B);
    case VX_OP_MUL: OP_RR(A * B);
    case VX_OP_MULH: OP_RR((uint32_t)(((int64_t)(int32_t)A * (int64_t)(int32_t)B) >> 32));
    case VX_OP_MULHSU: OP_RR((uint32_t)(((int64_t)(int32_t)A * (int64_t)(uint64_t)B) >> 32));
    case VX_OP_MULHU: OP_RR((uint32_t)(((uint64_t)A * (uint64_t)B) >> 32));
    case VX_OP_DIV: OP_RR(op_div(A, B));
    case VX_OP_DIVU:
    case VX_OP_REMU: {
        uint32_t *d = XR(in->wrd);
        const uint32_t *pa = XR(in->rs1), *pb = XR(in->rs2);
        const bool isdiv = in->op == VX_OP_DIVU;
        /*
         * A divisor b >= 2 shared by a full warp of 8 lanes or more (a grid
         * dimension, typically): one reciprocal M = floor((2^64 - 1) / b) + 1 =
         * ceil(2^64 / b) (exactly 2^64 / b for a power of two), then
         * q = floor(M * a / 2^64) per lane.  q = floor(a / b) for every 32-bit a:
         * M * a / 2^64 = a / b + e with 0 <= e < a / 2^64 < 2^-32 <= 1 / b, and
         * the fraction of a / b is at most 1 - 1 / b, so the floor is the same.
         */
        if (full && nt >= 8) {
            const uint32_t b0 = pb[0];
            uint32_t same = 0;
            for (uint32_t t = 0; t < nt; t++)
                same |= pb[t] ^ b0;
            if (!same && b0 >= 2) {
                const uint64_t M = UINT64_MAX / b0 + 1;
                if (isdiv)
                    for (uint32_t t = 0; t < nt; t++)
                        d[t] = (uint32_t)(((unsigned __int128)M * pa[t]) >> 64);
                else
                    for (uint32_t t = 0; t < nt; t++) {
                        const uint32_t a_ = pa[t];
                        d[t] = a_ - (uint32_t)(((unsigned __int128)M * a_) >> 64) * b0;
                    }
                goto commit_x;
            }
        }
        if (isdiv)
            LANES_EW(uint32_t A = pa[t]; uint32_t B = pb[t]; d[t] = B ? A / B : 0xffffffffu);
        else
            LANES_EW(uint32_t A = pa[t]; uint32_t B = pb[t]; d[t] = B ? A % B : A);
        goto commit_x;
    }
    case VX_OP_REM: OP_RR(op_rem(A, B));
    case VX_OP_CZERO_EQZ: OP_RR(B == 0 ? 0 : A);
    case VX_OP_CZERO_NEZ: OP_RR(B != 0 ? 0 : A);
    case VX_OP_FENCE:
    case VX_OP_FENCE_I: break;

    /* ---- control transfer ---- */
    case VX_OP_BEQ:
    case VX_OP_BNE:
    case VX_OP_BLT:
    case VX_OP_BGE:
    case VX_OP_BLTU:
    case VX_OP_BGEU: {
        const uint32_t *pa = XR(in->rs1), *pb = XR(in->rs2);
        const unsigned op = in->op;
        uint32_t any = 0, all = 1;
        /* one loop per condition, so that the lane loop has no switch inside */
#define BR(expr) \
    LANES(uint32_t A = pa[t]; uint32_t B = pb[t]; uint32_t c_ = (expr); any |= c_; all &= c_)
        switch (op) {
        case VX_OP_BEQ: BR(A == B); break;
        case VX_OP_BNE: BR(A != B); break;
        case VX_OP_BLT: BR((int32_t)A < (int32_t)B); break;
        case VX_OP_BGE: BR((int32_t)A >= (int32_t)B); break;
        case VX_OP_BLTU: BR(A < B); break;
        default: BR(A >= B); break;
        }
#undef BR
        if (VX_UNLIKELY(any != all)) {
            vx_lanes taken = 0;
            for (uint32_t t = 0; t < nt; t++)
                if (LANE_ON(t) && branch_cond(op, pa[t], pb[t])) taken |= vx_lanes_bit(t);
            vx_fault_set(s, VX_FAULT_DIVERGENT, gw, pc, raw, TM, 0,
                         "divergent branch: taken by lanes 0x%llx, not by 0x%llx",
                         (unsigned long long)taken, (unsigned long long)(TM & ~taken));
            return VX_X_FAULT;
        }
        if (all) {
            uint32_t target = pc + (uint32_t)in->imm;
            if (target & 3) {
                vx_fault_set(s, VX_FAULT_MISALIGNED, gw, pc, raw, TM, target,
                             "branch target 0x%08x is misaligned", target);
                return VX_X_FAULT;
            }
            npc = target;
        }
        break;
    }
    case VX_OP_JAL: {
        uint32_t target = pc + (uint32_t)in->imm;
        if (target & 3) {
            vx_fault_set(s, VX_FAULT_MISALIGNED, gw, pc, raw, TM, target,
                         "jump target 0x%08x is misaligned", target);
            return VX_X_FAULT;
        }
        uint32_t *d = XR(in->wrd);
        const uint32_t link = pc + 4;
        LANES(d[t] = link);
        npc = target;
        goto commit_x;
    }
    case VX_OP_JALR: {
        const uint32_t *pa = XR(in->rs1);
        const uint32_t target = (pa[LAST] + (uint32_t)in->imm) & ~1u;
        uint32_t differ = 0;
        LANES(differ |= ((pa[t] + (uint32_t)in->imm) & ~1u) ^ target);
        if (VX_UNLIKELY(differ)) {
            vx_lanes bad = 0;
            for (uint32_t t = 0; t < nt; t++)
                if (LANE_ON(t) && (((pa[t] + (uint32_t)in->imm) & ~1u) != target))
                    bad |= vx_lanes_bit(t);
            vx_fault_set(s, VX_FAULT_DIVERGENT, gw, pc, raw, bad, target,
                         "divergent jalr: lanes 0x%llx jump elsewhere than 0x%08x (lane %u)",
                         (unsigned long long)bad, target, LAST);
            return VX_X_FAULT;
        }
        if (target & 3) {
            vx_fault_set(s, VX_FAULT_MISALIGNED, gw, pc, raw, TM, target,
                         "jump target 0x%08x is misaligned", target);
            return VX_X_FAULT;
        }
        uint32_t *d = XR(in->wrd);
        const uint32_t link = pc + 4;
        LANES(d[t] = link);
        npc = target;
        goto commit_x;
    }
    case VX_OP_MRET: {
        COLD;
        uint32_t target = vx_pcsr_of(s, gw)[VX_PCSR_MEPC];
        if (target & 3) {
            vx_fault_set(s, VX_FAULT_MISALIGNED, gw, pc, raw, TM, target,
                         "mret target (mepc) 0x%08x is misaligned", target);
            return VX_X_FAULT;
        }
        npc = target;
        break;
    }
    case VX_OP_ECALL: {
        COLD;
        uint32_t a7 = XR(17)[LAST], a0 = XR(10)[LAST];
        if (a7 != 93) {
            vx_fault_set(s, VX_FAULT_ECALL, gw, pc, raw, TM, a7,
                         "ecall with a7 = %u (lane %u) is not exit (93)", a7, LAST);
            return VX_X_FAULT;
        }
        s->exit_code = a0;
        status = VX_X_EXIT;
        break;
    }
    case VX_OP_EBREAK:
        COLD;
        if (s->ebreak_halt && !(mode & VX_XM_INJECT)) {
            w->halted = 1;
            w->hacause = VX_HACAUSE_EBREAK;
            vx_sched_update(s, gw);
            return VX_X_HALT; /* PC stays at the ebreak */
        }
        vx_fault_set(s, VX_FAULT_EBREAK, gw, pc, raw, TM, 0, "ebreak (breakpoint trap)");
        return VX_X_FAULT;

    /* ---- loads ---- */
    case VX_OP_LB:
    case VX_OP_LBU: fsize = 1; goto do_load;
    case VX_OP_LH:
    case VX_OP_LHU: fsize = 2; goto do_load;
    case VX_OP_LW:
    case VX_OP_FLW:
    do_load : {
        const uint8_t *ptr[VX_MAX_THREADS];
        pcache pcc = {~0u, NULL};
        const uint32_t *pa = XR(in->rs1);
        const uint32_t imm = (uint32_t)in->imm;
        {
            /* Fast path: every lane aligned and inside one page of global memory
             * (pages 1 .. 0xFFFEF lie wholly in it).  The same pass notes whether a
             * full warp reads one address (a uniform load: one read, broadcast) or
             * consecutive words (one copy). */
            /* ox: the bits in which some lane's address differs from the first
             * active lane's (page bits: another page; any: not uniform). */
            const uint32_t a0 = pa[FIRST] + imm;
            const uint32_t pn0 = a0 >> VX_PAGE_SHIFT;
            uint32_t ox = 0, mis = 0, ustride = 0;
            LANES(uint32_t a_ = pa[t] + imm; ox |= a_ ^ a0; mis |= a_;
                  ustride |= a_ ^ (a0 + 4 * t));
            const uint32_t diff = ox >> VX_PAGE_SHIFT, bcast = ox;
            if (VX_LIKELY(!diff && !(mis & (fsize - 1)) && pn0 - 1u < 0xFFFEFu)) {
                const uint8_t *pg = vx_gmem_rpage(s, pn0);
#define PG(t) (pg + ((pa[t] + imm) & (VX_PAGE_SIZE - 1)))
                if (traced) MEMR_LANES();
                const bool isf = in->op == VX_OP_FLW;
                uint32_t *d = isf ? FR(in->rd) : XR(in->wrd);
                const uint8_t *p0 = pg + (a0 & (VX_PAGE_SIZE - 1)); /* the first lane's */
                if (full && !bcast) {
                    uint32_t v;
                    switch (in->op) {
                    case VX_OP_LB: v = (uint32_t)(int32_t)(int8_t)*p0; break;
                    case VX_OP_LBU: v = *p0; break;
                    case VX_OP_LH: v = (uint32_t)(int32_t)(int16_t)ld16(p0); break;
                    case VX_OP_LHU: v = ld16(p0); break;
                    default: v = ld32(p0); break;
                    }
                    for (uint32_t t = 0; t < nt; t++)
                        d[t] = v;
                } else if (full && !ustride && fsize == 4) {
                    memcpy(d, p0, 4 * (size_t)nt); /* d is a register row, p0 guest memory */
                } else {
                    switch (in->op) {
                    case VX_OP_LB: LANES_EW(d[t] = (uint32_t)(int32_t)(int8_t)*PG(t)); break;
                    case VX_OP_LBU: LANES_EW(d[t] = *PG(t)); break;
                    case VX_OP_LH: LANES_EW(d[t] = (uint32_t)(int32_t)(int16_t)ld16(PG(t))); break;
                    case VX_OP_LHU: LANES_EW(d[t] = ld16(PG(t))); break;
                    default: LANES_EW(d[t] = ld32(PG(t))); break;
                    }
                }
#undef PG
                if (isf) {
                    COMMIT1(VX_RF_F, in->rd, d);
                    break;
                }
                goto commit_x;
            }
            /* Medium path: every lane aligned and in global memory, on several pages
             * (per-thread stacks lie 8 KiB apart): one page lookup per lane. */
            uint32_t out = 0;
            if (!(mis & (fsize - 1)))
                LANES(out |= ((pa[t] + imm) >> VX_PAGE_SHIFT) - 1u >= 0xFFFEFu);
            if (VX_LIKELY(!(mis & (fsize - 1)) && !out)) {
                LANES(uint32_t a_ = pa[t] + imm;
                      ptr[t] = vx_gmem_rpage(s, a_ >> VX_PAGE_SHIFT) + (a_ & (VX_PAGE_SIZE - 1)));
                if (traced) MEMR_LANES();
                const bool isf = in->op == VX_OP_FLW;
                uint32_t *d = isf ? FR(in->rd) : XR(in->wrd);
                switch (in->op) {
                case VX_OP_LB: LANES(d[t] = (uint32_t)(int32_t)(int8_t)*ptr[t]); break;
                case VX_OP_LBU: LANES(d[t] = *ptr[t]); break;
                case VX_OP_LH: LANES(d[t] = (uint32_t)(int32_t)(int16_t)ld16(ptr[t])); break;
                case VX_OP_LHU: LANES(d[t] = ld16(ptr[t])); break;
                default: LANES(d[t] = ld32(ptr[t])); break;
                }
                if (isf) {
                    COMMIT1(VX_RF_F, in->rd, d);
                    break;
                }
                goto commit_x;
            }
        }
        COLD;
        int fk = 0;
        vx_lanes bad = 0, split = 0;
        uint32_t baddr = 0;
        LANES({
            uint32_t at = pa[t] + imm;
            int k = rptr(s, core, at, fsize, &ptr[t], &pcc);
            if (k == VX_FAULT_MISALIGNED && s->cfg.misaligned) {
                bool lim_ = false;
                k = split_check(s, core, pa[t] + imm, fsize, false, &lim_, &pcc, &at);
                if (!k) split |= vx_lanes_bit(t);
            }
            if (VX_UNLIKELY(k)) {
                if (!bad) fk = k, baddr = at;
                bad |= vx_lanes_bit(t);
            }
        });
        if (VX_UNLIKELY(bad)) {
            mem_fault(s, fk, false, gw, pc, raw, bad, baddr, fsize, "load");
            return VX_X_FAULT;
        }
        if (traced) MEMR_LANES();
        if (VX_UNLIKELY(split)) { /* misaligned lanes, byte by byte */
            const bool isf = in->op == VX_OP_FLW;
            uint32_t *d = isf ? FR(in->rd) : XR(in->wrd);
            LANES({
                uint32_t v;
                if (split & vx_lanes_bit(t))
                    v = split_load(s, core, pa[t] + imm, fsize, &pcc);
                else
                    v = fsize == 4 ? ld32(ptr[t]) : fsize == 2 ? ld16(ptr[t]) : *ptr[t];
                switch (in->op) {
                case VX_OP_LB: v = (uint32_t)(int32_t)(int8_t)v; break;
                case VX_OP_LH: v = (uint32_t)(int32_t)(int16_t)v; break;
                default: break;
                }
                d[t] = v;
            });
            if (isf) {
                COMMIT1(VX_RF_F, in->rd, d);
                break;
            }
            goto commit_x;
        }
        if (in->op == VX_OP_FLW) {
            uint32_t *d = FR(in->rd);
            LANES(d[t] = ld32(ptr[t]));
            COMMIT1(VX_RF_F, in->rd, d);
            break;
        }
        uint32_t *d = XR(in->wrd);
        switch (in->op) {
        case VX_OP_LB: LANES(d[t] = (uint32_t)(int32_t)(int8_t)*ptr[t]); break;
        case VX_OP_LBU: LANES(d[t] = *ptr[t]); break;
        case VX_OP_LH: LANES(d[t] = (uint32_t)(int32_t)(int16_t)ld16(ptr[t])); break;
        case VX_OP_LHU: LANES(d[t] = ld16(ptr[t])); break;
        default: LANES(d[t] = ld32(ptr[t])); break;
        }
        goto commit_x;
    }

    /* ---- stores ---- */
    case VX_OP_SB: fsize = 1; goto do_store;
    case VX_OP_SH: fsize = 2; goto do_store;
    case VX_OP_SW:
    case VX_OP_FSW:
    do_store : {
        uint8_t *ptr[VX_MAX_THREADS];
        pcache pcc = {~0u, NULL};
        const uint32_t *pa = XR(in->rs1);
        const uint32_t *pb = in->op == VX_OP_FSW ? FR(in->rs2) : XR(in->rs2);
        const uint32_t imm = (uint32_t)in->imm;
        if (VX_LIKELY(!s->nresv)) {
            /* Fast path as for loads; the page is made writable once (a memory-limit
             * failure falls through to the slow path, which reports it). */
            const uint32_t a0 = pa[FIRST] + imm;
            const uint32_t pn0 = a0 >> VX_PAGE_SHIFT;
            uint32_t ox = 0, mis = 0, ustride = 0;
            LANES(uint32_t a_ = pa[t] + imm; ox |= a_ ^ a0; mis |= a_;
                  ustride |= a_ ^ (a0 + 4 * t));
            const uint32_t diff = ox >> VX_PAGE_SHIFT;
            uint8_t *pg;
            if (VX_LIKELY(!diff && !(mis & (fsize - 1)) && pn0 - 1u < 0xFFFEFu &&
                          (pg = vx_gmem_wpage(s, pn0)) != NULL)) {
#define PG(t) (pg + ((pa[t] + imm) & (VX_PAGE_SIZE - 1)))
                if (full && !ustride && fsize == 4) /* consecutive words: one copy */
                    memcpy(pg + (a0 & (VX_PAGE_SIZE - 1)), pb, 4 * (size_t)nt);
                else if (fsize == 4)
                    LANES(st32(PG(t), pb[t]));
                else if (fsize == 2)
                    LANES(st16(PG(t), pb[t]));
                else
                    LANES(*PG(t) = (uint8_t)pb[t]);
#undef PG
                if (traced) {
                    if (s->log && !mode &&
                        log_store(s, core, gw, in, tm0, pc, nt, full, pa, pb, imm, fsize))
                        s->logged = true; /* no per-lane writes to report */
                    else
                        MEMW_LANES();
                }
                break;
            }
            /* Medium path as for loads: pages resolved (made writable) for every lane
             * first, then the stores in lane order; any trouble goes to the slow path,
             * before any store. */
            uint32_t out = 0;
            if (!(mis & (fsize - 1)))
                LANES(out |= ((pa[t] + imm) >> VX_PAGE_SHIFT) - 1u >= 0xFFFEFu);
            /* (every lane could allocate a page: then none fails half-way) */
            if (VX_LIKELY(!(mis & (fsize - 1)) && !out &&
                          (s->npages + nt) * (uint64_t)VX_PAGE_SIZE <= s->mem_limit)) {
                LANES({
                    uint32_t a_ = pa[t] + imm;
                    uint8_t *pg_ = vx_gmem_wpage(s, a_ >> VX_PAGE_SHIFT);
                    out |= pg_ == NULL;
                    ptr[t] = pg_ ? pg_ + (a_ & (VX_PAGE_SIZE - 1)) : NULL;
                });
                if (VX_LIKELY(!out)) {
                    if (fsize == 4)
                        LANES(st32(ptr[t], pb[t]));
                    else if (fsize == 2)
                        LANES(st16(ptr[t], pb[t]));
                    else
                        LANES(*ptr[t] = (uint8_t)pb[t]);
                    if (traced) MEMW_LANES();
                    break;
                }
            }
        }
        COLD;
        int fk = 0;
        bool limit = false, con = false;
        vx_lanes bad = 0;
        uint32_t baddr = 0;
        vx_lanes split = 0;
        fresh_pages fp;
        fp.n = 0;
        vx_lanes conl = 0;
        LANES({
            bool lim = false;
            uint32_t at = pa[t] + imm;
            int k = store_plan(s, at, fsize, &fp, &lim);
            if (k == VX_FAULT_MISALIGNED && s->cfg.misaligned) {
                k = split_plan(s, pa[t] + imm, fsize, &fp, &lim, &at);
                if (!k) split |= vx_lanes_bit(t);
            }
            if (VX_UNLIKELY(k)) {
                if (k == MEM_CONSOLE) {
                    con = true;
                    conl |= vx_lanes_bit(t);
                } else {
                    if (!bad) fk = k, baddr = at, limit = lim;
                    bad |= vx_lanes_bit(t);
                }
            }
        });
        if (VX_UNLIKELY(bad)) {
            mem_fault(s, fk, limit, gw, pc, raw, bad, baddr, fsize, "store");
            return VX_X_FAULT;
        }
        /* every lane can store: now make the pages writable (split lanes byte by
         * byte, for split_store; only the host running out of memory fails here) */
        LANES({
            ptr[t] = NULL;
            if (conl & vx_lanes_bit(t)) continue;
            bool lim = false;
            uint32_t at = pa[t] + imm;
            int k = split & vx_lanes_bit(t)
                        ? split_check(s, core, at, fsize, true, &lim, &pcc, &at) /* split_store's */
                        : wptr(s, core, at, fsize, &ptr[t], &lim, &pcc);
            if (VX_UNLIKELY(k)) {
                mem_fault(s, k, lim, gw, pc, raw, vx_lanes_bit(t), at, fsize, "store");
                return VX_X_FAULT;
            }
        });
        if (VX_UNLIKELY(con || s->nresv || split)) {
            LANES({
                uint32_t addr = pa[t] + imm;
                if (split & vx_lanes_bit(t)) { /* misaligned: byte by byte */
                    split_store(s, core, addr, fsize, pb[t], &pcc);
                    if (s->nresv && addr < VX_GMEM_END) {
                        vx_resv_kill(s, addr);
                        vx_resv_kill(s, addr + fsize - 1); /* the next word too */
                    }
                    if (traced) memw(s, addr, pb[t], (uint8_t)fsize, t);
                    continue;
                }
                if (!ptr[t]) {
                    vx_console_put(s, addr - VX_IO_COUT_ADDR, (uint8_t)pb[t]);
                    if (traced) {
                        vx_console *c = &s->ev_con[s->iev.nconsole++];
                        c->slot = (uint8_t)(addr - VX_IO_COUT_ADDR);
                        c->byte = (uint8_t)pb[t];
                    }
                    continue;
                }
                if (fsize == 4)
                    st32(ptr[t], pb[t]);
                else if (fsize == 2)
                    st16(ptr[t], pb[t]);
                else
                    *ptr[t] = (uint8_t)pb[t];
                if (s->nresv && addr < VX_GMEM_END) vx_resv_kill(s, addr);
                if (traced) memw(s, addr, pb[t], (uint8_t)fsize, t);
            });
            break;
        }
        if (fsize == 4)
            LANES(st32(ptr[t], pb[t]));
        else if (fsize == 2)
            LANES(st16(ptr[t], pb[t]));
        else
            LANES(*ptr[t] = (uint8_t)pb[t]);
        if (traced) MEMW_LANES();
        break;
    }

    /* ---- atomics ---- */
    case VX_OP_LR_W: {
        COLD;
        const uint8_t *ptr[VX_MAX_THREADS];
        pcache pcc = {~0u, NULL};
        const uint32_t *pa = XR(in->rs1);
        int fk = 0;
        vx_lanes bad = 0;
        uint32_t baddr = 0;
        LANES({
            int k = rptr(s, core, pa[t], 4, &ptr[t], &pcc);
            if (k) {
                if (!bad) fk = k, baddr = pa[t];
                bad |= vx_lanes_bit(t);
            }
        });
        if (bad) {
            mem_fault(s, fk, false, gw, pc, raw, bad, baddr, 4, "lr.w");
            return VX_X_FAULT;
        }
        uint32_t *d = XR(in->wrd);
        size_t rbase = (size_t)gw * nt;
        LANES({
            uint32_t addr = pa[t];
            if (traced) memr(s, addr, 4, t);
            d[t] = ld32(ptr[t]);
            /* Reservations exist for global memory only: SC to local memory fails.  An
             * LR there still replaces the lane's earlier reservation (an SC succeeds
             * only at the most recent LR's address), so it ends that one. */
            if (addr - VX_GMEM_BASE < VX_GMEM_END - VX_GMEM_BASE) {
                if (!s->resv_ok[rbase + t]) s->nresv++;
                s->resv_ok[rbase + t] = 1;
                s->resv[rbase + t] = addr;
            } else if (s->resv_ok[rbase + t]) {
                s->resv_ok[rbase + t] = 0;
                s->nresv--;
            }
        });
        goto commit_x;
    }
    case VX_OP_SC_W: what = "sc.w"; goto do_amo;
    case VX_OP_AMOSWAP_W:
    case VX_OP_AMOADD_W:
    case VX_OP_AMOXOR_W:
    case VX_OP_AMOAND_W:
    case VX_OP_AMOOR_W:
    case VX_OP_AMOMIN_W:
    case VX_OP_AMOMAX_W:
    case VX_OP_AMOMINU_W:
    case VX_OP_AMOMAXU_W:
        what = "amo";
    do_amo : {
        COLD;
        uint8_t *ptr[VX_MAX_THREADS];
        pcache pcc = {~0u, NULL};
        const uint32_t *pa = XR(in->rs1), *pb = XR(in->rs2);
        int fk = 0;
        bool limit = false;
        vx_lanes bad = 0;
        uint32_t baddr = 0;
        const size_t rbase = (size_t)gw * nt;
        fresh_pages fp;
        fp.n = 0;
        vx_lanes wr = 0;
        LANES({
            bool lim = false;
            /* a sc.w that will fail writes nothing: its page is checked, not made
             * writable (dirty, or new); one lane's success may still fail a later
             * lane's sc here, whose page that lane's store made dirty anyway */
            const bool wl = in->op != VX_OP_SC_W || sc_may_succeed(s, rbase + t, pa[t]);
            int k = wl ? store_plan(s, pa[t], 4, &fp, &lim) : store_check(pa[t], 4);
            if (!k && wl) wr |= vx_lanes_bit(t);
            if (k) {
                if (!bad) fk = k, baddr = pa[t], limit = lim;
                bad |= vx_lanes_bit(t);
            }
        });
        if (bad) {
            mem_fault(s, fk, limit, gw, pc, raw, bad, baddr, 4, what);
            return VX_X_FAULT;
        }
        LANES({
            if (!(wr & vx_lanes_bit(t))) continue;
            bool lim = false;
            int k = wptr(s, core, pa[t], 4, &ptr[t], &lim, &pcc);
            if (VX_UNLIKELY(k)) {
                mem_fault(s, k, lim, gw, pc, raw, vx_lanes_bit(t), pa[t], 4, what);
                return VX_X_FAULT;
            }
        });
        uint32_t *d = XR(in->wrd);
        const unsigned op = in->op;
        LANES({
            uint32_t addr = pa[t], v = pb[t];
            if (op == VX_OP_SC_W) {
                bool okr = sc_may_succeed(s, rbase + t, addr);
                if (s->resv_ok[rbase + t]) {
                    s->resv_ok[rbase + t] = 0;
                    s->nresv--;
                }
                if (okr) {
                    st32(ptr[t], v);
                    if (s->nresv) vx_resv_kill(s, addr);
                    if (traced) memw(s, addr, v, 4, t);
                }
                d[t] = okr ? 0 : 1;
            } else {
                uint32_t old = ld32(ptr[t]);
                uint32_t nv = amo_op(op, old, v);
                if (traced) memr(s, addr, 4, t);
                st32(ptr[t], nv);
                if (s->nresv && addr < VX_GMEM_END) vx_resv_kill(s, addr);
                if (traced) memw(s, addr, nv, 4, t);
                d[t] = old;
            }
        });
        goto commit_x;
    }

    /* ---- CSRs ---- */
    case VX_OP_CSRRW:
    case VX_OP_CSRRS:
    case VX_OP_CSRRC:
    case VX_OP_CSRRWI:
    case VX_OP_CSRRSI:
    case VX_OP_CSRRCI: {
        COLD;
        const uint32_t csr = (uint32_t)in->imm & 0xfff;
        const unsigned op = in->op;
        const bool imm_form = op >= VX_OP_CSRRWI;
        const bool is_w = op == VX_OP_CSRRW || op == VX_OP_CSRRWI;
        const bool writes = is_w || in->rs1 != 0;
        int acc = vx_csr_access(csr);
        if (acc < 0) {
            vx_fault_set(s, VX_FAULT_CSR, gw, pc, raw, TM, csr, "unknown CSR 0x%03x", csr);
            return VX_X_FAULT;
        }
        if (writes && acc == 0) {
            const char *nm = vx_isa_csr_name(csr);
            vx_fault_set(s, VX_FAULT_CSR, gw, pc, raw, TM, csr,
                         "write to read-only CSR 0x%03x (%s)", csr, nm ? nm : "?");
            return VX_X_FAULT;
        }
        const uint32_t *pa = XR(in->rs1);
        uint32_t *d = XR(in->wrd);
        uint32_t *nvals = s->ev_csrvals;
        LANES({
            uint32_t src = imm_form ? in->rs1 : pa[t];
            uint32_t old = vx_csr_read(s, gw, t, csr);
            if (writes) {
                uint32_t nv = is_w                                        ? src
                              : (op == VX_OP_CSRRS || op == VX_OP_CSRRSI) ? old | src
                                                                          : old & ~src;
                vx_csr_write(s, gw, t, csr, nv);
                if (traced) nvals[t] = vx_csr_read(s, gw, t, csr);
            }
            d[t] = old;
        });
        if (traced) {
            if (in->rd) commit(s, VX_RF_X, in->rd, TM, d);
            if (writes) {
                if (vx_csr_scope(csr) == 0) {
                    commit(s, VX_RF_CSR, (uint16_t)csr, TM, nvals);
                } else {
                    nvals[0] = vx_csr_read(s, gw, 0, csr);
                    commit(s, VX_RF_CSR, (uint16_t)csr, 1, nvals);
                }
            }
        }
        break;
    }

    /* ---- F ---- */
    case VX_OP_FMADD_S:
    case VX_OP_FMSUB_S:
    case VX_OP_FNMSUB_S:
    case VX_OP_FNMADD_S:
    case VX_OP_FADD_S:
    case VX_OP_FSUB_S:
    case VX_OP_FMUL_S:
    case VX_OP_FDIV_S:
    case VX_OP_FSQRT_S:
    case VX_OP_FCVT_W_S:
    case VX_OP_FCVT_WU_S:
    case VX_OP_FCVT_S_W:
    case VX_OP_FCVT_S_WU: {
        unsigned rm = in->rm;
        if (rm == VX_RM_DYN) rm = (w->fcsr >> 5) & 7;
        if (rm > VX_RM_RMM) {
            vx_fault_set(s, VX_FAULT_ILLEGAL, gw, pc, raw, TM, rm,
                         in->rm == VX_RM_DYN ? "dynamic rounding mode with invalid frm %u"
                                             : "invalid rounding mode %u",
                         rm);
            return VX_X_FAULT;
        }
        const uint32_t *fa = FR(in->rs1), *fb = FR(in->rs2), *fc = FR(in->rs3);
        const uint32_t *xa = XR(in->rs1);
        uint32_t *fd = FR(in->rd), *xd = XR(in->wrd);
        /* Whole-warp calls (fpu_int.h) for the frequent ones: one call per issue. */
        const uint32_t S = 0x80000000u;
        switch (in->op) {
        case VX_OP_FMADD_S: fflags = vx_f32_fma_lanes(fd, fa, fb, fc, 0, 0, tm0, tm1, rm); break;
        case VX_OP_FMSUB_S: fflags = vx_f32_fma_lanes(fd, fa, fb, fc, 0, S, tm0, tm1, rm); break;
        case VX_OP_FNMSUB_S: fflags = vx_f32_fma_lanes(fd, fa, fb, fc, S, 0, tm0, tm1, rm); break;
        case VX_OP_FNMADD_S: fflags = vx_f32_fma_lanes(fd, fa, fb, fc, S, S, tm0, tm1, rm); break;
        case VX_OP_FADD_S: fflags = vx_f32_add_lanes(fd, fa, fb, 0, tm0, tm1, rm); break;
        case VX_OP_FSUB_S: fflags = vx_f32_add_lanes(fd, fa, fb, S, tm0, tm1, rm); break;
        case VX_OP_FMUL_S: fflags = vx_f32_mul_lanes(fd, fa, fb, tm0, tm1, rm); break;
        case VX_OP_FDIV_S:
            COLD;
            LANES(fd[t] = vx_f32_div(fa[t], fb[t], rm, &fflags));
            break;
        case VX_OP_FSQRT_S:
            COLD;
            LANES(fd[t] = vx_f32_sqrt(fa[t], rm, &fflags));
            break;
        case VX_OP_FCVT_S_W: fflags = vx_f32_from_int_lanes(fd, xa, 1, tm0, tm1, rm); break;
        case VX_OP_FCVT_S_WU: fflags = vx_f32_from_int_lanes(fd, xa, 0, tm0, tm1, rm); break;
        case VX_OP_FCVT_W_S:
            COLD;
            LANES(xd[t] = vx_f32_to_i32(fa[t], rm, &fflags));
            goto commit_xf;
        default: /* FCVT_WU_S */
            COLD;
            LANES(xd[t] = vx_f32_to_u32(fa[t], rm, &fflags));
            goto commit_xf;
        }
        COMMIT1_FP(VX_RF_F, in->rd, fd);
        goto fp_flags;
    }
    case VX_OP_FSGNJ_S:
    case VX_OP_FSGNJN_S:
    case VX_OP_FSGNJX_S: {
        const uint32_t *fa = FR(in->rs1), *fb = FR(in->rs2);
        uint32_t *fd = FR(in->rd);
        const unsigned op = in->op;
        LANES_EW(fd[t] = fsgnj(op, fa[t], fb[t]));
        COMMIT1(VX_RF_F, in->rd, fd);
        break;
    }
    case VX_OP_FMIN_S:
    case VX_OP_FMAX_S: {
        COLD;
        const uint32_t *fa = FR(in->rs1), *fb = FR(in->rs2);
        uint32_t *fd = FR(in->rd);
        if (in->op == VX_OP_FMIN_S)
            LANES(fd[t] = vx_f32_min(fa[t], fb[t], &fflags));
        else
            LANES(fd[t] = vx_f32_max(fa[t], fb[t], &fflags));
        COMMIT1_FP(VX_RF_F, in->rd, fd);
        goto fp_flags;
    }
    case VX_OP_FEQ_S:
    case VX_OP_FLT_S:
    case VX_OP_FLE_S: {
        COLD;
        const uint32_t *fa = FR(in->rs1), *fb = FR(in->rs2);
        uint32_t *xd = XR(in->wrd);
        if (in->op == VX_OP_FEQ_S)
            LANES(xd[t] = vx_f32_eq(fa[t], fb[t], &fflags));
        else if (in->op == VX_OP_FLT_S)
            LANES(xd[t] = vx_f32_lt(fa[t], fb[t], &fflags));
        else
            LANES(xd[t] = vx_f32_le(fa[t], fb[t], &fflags));
        goto commit_xf;
    }
    case VX_OP_FCLASS_S: {
        COLD;
        const uint32_t *fa = FR(in->rs1);
        uint32_t *d = XR(in->wrd);
        LANES(d[t] = vx_f32_class(fa[t]));
        goto commit_x;
    }
    case VX_OP_FMV_X_W: {
        const uint32_t *fa = FR(in->rs1);
        uint32_t *d = XR(in->wrd);
        LANES_EW(d[t] = fa[t]);
        goto commit_x;
    }
    case VX_OP_FMV_W_X: {
        const uint32_t *xa = XR(in->rs1);
        uint32_t *fd = FR(in->rd);
        LANES_EW(fd[t] = xa[t]);
        COMMIT1(VX_RF_F, in->rd, fd);
        break;
    }

    /* ---- Vortex warp control ---- */
    case VX_OP_VX_TMC: {
        COLD;
        vx_lanes m = mask_from_reg(s, XR(in->rs1)[LAST]);
        if (mode & VX_XM_INJECT) break; /* never reached: injection rejects custom-0 */
        w->pc = npc;
        set_tmask(s, gw, m, npc, traced);
        return s->nactive ? VX_X_OK : VX_X_DONE;
    }
    case VX_OP_VX_WSPAWN: {
        COLD;
        uint32_t n = XR(in->rs1)[LAST], entry = XR(in->rs2)[LAST];
        vx_core *c = &s->cores[core];
        if (n > s->nw) n = s->nw;
        const bool noop = n < 2 && c->nactive == 1; /* nothing to wait for, nothing to start */
        /* the entry of a spawn that starts a warp (some i < n but the caller, see
         * spawn_resolve); one that starts none never uses it */
        if ((entry & 3) && !noop && (n >= 2 || (n == 1 && gw % s->nw != 0))) {
            vx_fault_set(s, VX_FAULT_WSPAWN, gw, pc, raw, TM, entry,
                         "wspawn entry point 0x%08x is misaligned", entry);
            return VX_X_FAULT;
        }
        if (c->spawn_pending) {
            vx_fault_set(s, VX_FAULT_WSPAWN, gw, pc, raw, TM, entry,
                         "wspawn while warp %u's wspawn is still pending in core %u",
                         c->spawn_caller, core);
            return VX_X_FAULT;
        }
        s->stats.spawns++;
        if (noop) break;
        c->spawn_pending = 1;
        c->spawn_n = n;
        c->spawn_pc = entry;
        c->spawn_caller = gw % s->nw;
        w->spawn_wait = 1;
        w->pc = npc;
        vx_sched_update(s, gw);
        if (traced) vx_wctl_push(s, VX_WCTL_SPAWN_WAIT, gw, entry, n, 0, 0, 0);
        if (c->nactive == 1) spawn_resolve(s, core);
        return VX_X_OK;
    }
    case VX_OP_VX_SPLIT:
    case VX_OP_VX_SPLIT_N: {
        COLD;
        const uint32_t *pa = XR(in->rs1);
        const uint32_t neg = in->op == VX_OP_VX_SPLIT_N;
        vx_lanes then = 0;
        LANES(if ((pa[t] & 1) ^ neg) then |= vx_lanes_bit(t));
        vx_lanes els = TM & ~then;
        const uint32_t depth = w->depth;
        bool divergent = then && els;
        if (divergent && depth >= nt - 1) {
            vx_fault_set(s, VX_FAULT_IPDOM_OVERFLOW, gw, pc, raw, TM, depth,
                         "IPDOM stack overflow: divergent split at depth %u (limit %u)", depth,
                         nt - 1);
            return VX_X_FAULT;
        }
        uint32_t *d = XR(in->wrd);
        LANES(d[t] = depth);
        if (traced && in->rd) commit(s, VX_RF_X, in->rd, TM, d);
        s->stats.splits++;
        if (divergent) {
            s->stats.divergent_splits++;
            vx_lanes first = popc128(then) >= popc128(els) ? then : els;
            vx_ipdom *e = &vx_ipdom_of(s, gw)[depth];
            e->orig = TM;
            e->els = TM & ~first;
            e->pc = npc;
            e->fallthrough = 0;
            w->depth = depth + 1;
            vx_warp_set_mask(w, first);
            if (traced) {
                vx_wctl_push(s, VX_WCTL_IPDOM_PUSH, gw, npc, depth + 1, 0, TM, e->els);
                vx_wctl_push(s, VX_WCTL_TMASK, gw, npc, 0, 0, first, 0);
            }
        }
        break;
    }
    case VX_OP_VX_JOIN: {
        COLD;
        uint32_t token = XR(in->rs1)[LAST];
        s->stats.joins++;
        if (token == w->depth) break; /* the matching split was not divergent */
        if (w->depth == 0) {
            vx_fault_set(s, VX_FAULT_IPDOM_UNDERFLOW, gw, pc, raw, TM, token,
                         "join (token %u) with an empty IPDOM stack", token);
            return VX_X_FAULT;
        }
        vx_ipdom *e = &vx_ipdom_of(s, gw)[w->depth - 1];
        if (!e->fallthrough) {
            e->fallthrough = 1;
            vx_warp_set_mask(w, e->els);
            npc = e->pc;
            if (traced) {
                vx_wctl_push(s, VX_WCTL_IPDOM_ELSE, gw, npc, w->depth, 0, e->els, 0);
                vx_wctl_push(s, VX_WCTL_TMASK, gw, npc, 0, 0, e->els, 0);
            }
        } else {
            vx_warp_set_mask(w, e->orig);
            w->depth--;
            if (traced) {
                vx_wctl_push(s, VX_WCTL_IPDOM_POP, gw, npc, w->depth, 0, e->orig, 0);
                vx_wctl_push(s, VX_WCTL_TMASK, gw, npc, 0, 0, e->orig, 0);
            }
        }
        break;
    }
    case VX_OP_VX_BAR: {
        COLD;
        uint32_t id = XR(in->rs1)[LAST], count = XR(in->rs2)[LAST];
        if (count < 2) break;
        uint32_t idx = id & 0x7fffffffu;
        if (idx >= s->nb) {
            vx_fault_set(s, VX_FAULT_BARRIER, gw, pc, raw, TM, id,
                         "barrier id %u out of range (%u barriers per core)", idx, s->nb);
            return VX_X_FAULT;
        }
        s->stats.barriers++;
        bool global = id >> 31;
        w->pc = npc;
        w->bar_wait = 1;
        w->bar_id = id;
        vx_sched_update(s, gw);
        if (traced) vx_wctl_push(s, VX_WCTL_BAR_ARRIVE, gw, npc, id, count, 0, 0);
        uint32_t *cnt = &s->bar_count[(size_t)core * 2 * s->nb + (global ? s->nb : 0) + idx];
        ++*cnt;
        if (!global) {
            if (*cnt == count) {
                *cnt = 0;
                bar_release_core(s, core, id);
            }
        } else {
            s->gbar_need[idx] = count;
            gbar_check(s, core, idx);
        }
        return VX_X_OK;
    }
    case VX_OP_VX_PRED:
    case VX_OP_VX_PRED_N: {
        COLD;
        const uint32_t *pa = XR(in->rs1);
        const uint32_t neg = in->op == VX_OP_VX_PRED_N;
        vx_lanes p = 0;
        LANES(if ((pa[t] & 1) ^ neg) p |= vx_lanes_bit(t));
        s->stats.preds++;
        if (!p) p = mask_from_reg(s, XR(in->rs2)[LAST]);
        w->pc = npc;
        set_tmask(s, gw, p, npc, traced);
        return s->nactive ? VX_X_OK : VX_X_DONE;
    }

    /* ---- vote and shuffle ---- */
    case VX_OP_VX_VOTE_ALL:
    case VX_OP_VX_VOTE_ANY:
    case VX_OP_VX_VOTE_UNI:
    case VX_OP_VX_VOTE_BAL: {
        COLD;
        const uint32_t *pa = XR(in->rs1);
        uint32_t has1 = 0, has0 = 0, ballot = 0;
        LANES({
            if (pa[t] & 1) {
                has1 = 1;
                if (t < 32) ballot |= 1u << t;
            } else {
                has0 = 1;
            }
        });
        uint32_t v = in->op == VX_OP_VX_VOTE_ALL   ? !has0
                     : in->op == VX_OP_VX_VOTE_ANY ? has1
                     : in->op == VX_OP_VX_VOTE_UNI ? (!has1 || !has0)
                                                   : ballot;
        uint32_t *d = XR(in->wrd);
        LANES(d[t] = v);
        goto commit_x;
    }
    case VX_OP_VX_SHFL_UP:
    case VX_OP_VX_SHFL_DOWN:
    case VX_OP_VX_SHFL_BFLY:
    case VX_OP_VX_SHFL_IDX: {
        COLD;
        const uint32_t *pa = XR(in->rs1), *pb = XR(in->rs2);
        uint32_t tmp[VX_MAX_THREADS];
        const unsigned op = in->op;
        LANES({
            uint32_t ctl = pb[t];
            int b = (int)(ctl & 0x3f), c = (int)((ctl >> 6) & 0x3f), m = (int)((ctl >> 12) & 0x3f);
            int ti = (int)t;
            int maxl = (ti & m) | (c & ~m), minl = ti & m, src;
            bool okl;
            if (op == VX_OP_VX_SHFL_UP) {
                src = ti - b;
                okl = src >= minl;
            } else if (op == VX_OP_VX_SHFL_DOWN) {
                src = ti + b;
                okl = src <= maxl;
            } else if (op == VX_OP_VX_SHFL_BFLY) {
                src = ti ^ b;
                okl = src <= maxl;
            } else {
                src = minl | (b & ~m);
                okl = src <= maxl;
            }
            if (!okl) src = ti;
            /* An inactive source lane reads 0, as in SimX; one past the warp's lanes
             * (a clamp beyond them) leaves the lane its own value. */
            if (src >= 0 && (uint32_t)src < nt)
                tmp[t] = LANE_ON((uint32_t)src) ? pa[src] : 0;
            else
                tmp[t] = pa[t];
        });
        uint32_t *d = XR(in->wrd);
        LANES(d[t] = tmp[t]);
        goto commit_x;
    }
    }
    goto done;

commit_x:
    if (in->rd) COMMIT1(VX_RF_X, in->rd, XR(in->rd));
    goto done;
commit_xf:
    if (in->rd) COMMIT1_FP(VX_RF_X, in->rd, XR(in->rd));
fp_flags:
    if (fflags) {
        uint8_t old = w->fcsr;
        w->fcsr = (uint8_t)(old | fflags);
        if (traced && w->fcsr != old) {
            s->ev_fvals[0] = w->fcsr & 0x1f;
            commit(s, VX_RF_CSR, 0x001, 1, s->ev_fvals);
        }
    }
done:
    if (!(mode & VX_XM_INJECT)) w->pc = npc;
    return status;
#undef XR
#undef FR
#undef TM
#undef LAST
#undef FIRST
#undef COLD
}

static __attribute__((noinline)) int execute_cold(vx_sim *s, uint32_t core, uint32_t gw,
                                                  const vx_insn *in, uint64_t tm0, uint64_t tm1,
                                                  uint32_t pc, unsigned mode, int traced)
{
    return execute(s, core, gw, in, tm0, tm1, pc, mode, traced, 0, 0);
}

/* ---- issue: fetch, decode, execute, report ---------------------------------------------------------- */

static ALWAYS_INLINE int fetch(vx_sim *s, uint32_t gw, uint32_t pc, uint32_t *raw)
{
    if (pc & 3) {
        vx_fault_set(s, VX_FAULT_MISALIGNED, gw, pc, 0, vx_warp_mask(&s->warps[gw]), pc,
                     "instruction fetch from misaligned PC 0x%08x", pc);
        return -1;
    }
    if (VX_LIKELY(pc - VX_GMEM_BASE < VX_GMEM_END - VX_GMEM_BASE)) {
        uint32_t pn = pc >> VX_PAGE_SHIFT;
        if (VX_UNLIKELY(pn != s->fetch_pn)) {
            s->fetch_page = vx_gmem_rpage(s, pn);
            s->fetch_pn = pn;
        }
        *raw = ld32(s->fetch_page + (pc & (VX_PAGE_SIZE - 1)));
        return 0;
    }
    if (pc - VX_LMEM_BASE_ADDR < VX_LMEM_SIZE) {
        uint32_t off = pc - VX_LMEM_BASE_ADDR;
        *raw =
            ld32(vx_lmem_rpage(s, gw / s->nw, off >> VX_PAGE_SHIFT) + (off & (VX_PAGE_SIZE - 1)));
        return 0;
    }
    vx_fault_set(s, VX_FAULT_UNMAPPED, gw, pc, 0, vx_warp_mask(&s->warps[gw]), pc,
                 "instruction fetch from unmapped address 0x%08x%s", pc, region_name(pc));
    return -1;
}

static ALWAYS_INLINE int issue_impl(vx_sim *s, uint32_t core, uint32_t wi, uint32_t gw,
                                    unsigned mode, uint32_t word, uint32_t lane, const int traced,
                                    const uint32_t ntc, const int hot)
{
    vx_warp *w = &s->warps[gw];
    const uint32_t pc = w->pc;
    const vx_insn *in;
    vx_insn tmp;
    uint64_t tm0, tm1;
    int r;
    const uint64_t index = s->index++;
    vx_event *const ev = &s->iev;

    if (traced) ev->ncommits = ev->nmem = ev->nreads = ev->nwctl = ev->nconsole = 0;
    if (mode & VX_XM_INJECT) {
        tm0 = lane < 64 ? 1ull << lane : 0;
        tm1 = lane < 64 ? 0 : 1ull << (lane - 64);
        vx_isa_decode(word, &tmp);
        in = &tmp;
    } else {
        uint32_t raw = 0; /* (fetch sets it unless it fails; -Og cannot tell) */
        tm0 = w->tm[0];   /* never empty: an active warp has lanes */
        tm1 = ntc && ntc <= 64 ? 0 : w->tm[1];
        /*
         * Decoded-instruction cache, keyed by PC; holds only code in global memory,
         * so a hit means the PC is aligned and mapped.  The word is re-read on every
         * fetch and compared, so code patched in memory (a debugger's ebreak) is seen.
         */
        uint32_t slot = (pc >> 2) & (VX_ICACHE_SIZE - 1);
        uint32_t pn = pc >> VX_PAGE_SHIFT;
        if (VX_LIKELY(s->icache[slot].pc == pc)) {
            if (VX_UNLIKELY(pn != s->fetch_pn)) {
                s->fetch_page = vx_gmem_rpage(s, pn);
                s->fetch_pn = pn;
            }
            raw = ld32(s->fetch_page + (pc & (VX_PAGE_SIZE - 1)));
            if (VX_LIKELY(raw == s->icache[slot].raw)) {
                in = &s->icache[slot].insn;
                goto decoded;
            }
        }
        if (VX_UNLIKELY(fetch(s, gw, pc, &raw))) {
            r = VX_X_FAULT;
            in = NULL;
            goto report;
        }
        if (pc - VX_GMEM_BASE < VX_GMEM_END - VX_GMEM_BASE) {
            vx_isa_decode(raw, &s->icache[slot].insn);
            s->icache[slot].pc = pc;
            s->icache[slot].raw = raw;
            in = &s->icache[slot].insn;
        } else {
            vx_isa_decode(raw, &tmp); /* local-memory code is not cached (per core) */
            in = &tmp;
        }
    }
    /* the null statement: a declaration right after a label is C23, not C11 */
decoded:;
    const uint32_t nlanes = w->nlanes; /* at issue (tmc/split/join change it) */
    r = execute(s, core, gw, in, tm0, tm1, pc, mode, traced, ntc, hot);
    /* no page for a store because the host is out of memory: not the kernel's fault */
    if (VX_UNLIKELY(r == VX_X_FAULT) && VX_UNLIKELY(s->host_oom)) return VX_X_HOSTERR;
    if (!(mode & VX_XM_INJECT)) {
        /* Counted after execution: a CSR read of minstret sees the instructions before it. */
        w->issued++;
        s->stats.issues++;
        s->stats.lane_ops += nlanes;
    }

report:
    if (traced) {
        vx_log *const lg = s->log;
        if (lg && VX_LIKELY(!mode && r != VX_X_FAULT)) {
            /* the compact log (vx_sim.h), for the common issues */
            if (s->logged) { /* an issue that wrote its own record (log_store, log_commit) */
                s->logged = false;
                lg->cycle = s->cycle;
                return r;
            }
            const uint32_t nt = ntc ? ntc : s->nt;
            const uint64_t dc = s->cycle - lg->cycle;
            const uint32_t ncm = ev->ncommits;
            const vx_commit *c = s->ev_commits;
            if (VX_LIKELY(nt <= 32 && !(ev->nmem | ev->nwctl | ev->nconsole | ev->nreads) &&
                          ncm <= 1 && dc < 64 && (core | wi) < 256 &&
                          (!ncm || (c->lanes == (vx_lanes)tm0 && c->reg < 32 &&
                                    (c->file == VX_RF_X || c->file == VX_RF_F))))) {
                const unsigned k =
                    ncm ? VX_LOG_COMMIT | (c->file == VX_RF_F ? VX_LOG_F : 0) | c->reg : 0;
                if (log_put(lg, dc, core, wi, pc, in->raw, tm0, k, ncm ? c->values : NULL, nt)) {
                    lg->cycle = s->cycle;
                    return r;
                }
            } else if (nt <= 32 && !(ncm | ev->nwctl | ev->nconsole | ev->nreads) && dc < 64 &&
                       (core | wi) < 256 && ev->nmem && ev->nmem == popc64(tm0)) {
                /* a store: one write per lane of the mask, ascending, of one size; from 8
                 * lanes up, with every lane active and addresses base + lane * stride, the
                 * addresses go as those two numbers (when the log's client takes them) */
                const vx_memwrite *m = s->ev_mem;
                const uint32_t n = ev->nmem, size = m[0].size;
                if (n == nt && nt >= 8 && lg->affine) {
                    const uint32_t base = m[0].addr, stride = m[1].addr - base;
                    uint32_t off = 0;
                    for (uint32_t l = 0; l < n; l++)
                        off |= (m[l].addr ^ (base + l * stride)) | (m[l].lane ^ l) |
                               (m[l].size ^ size);
                    const size_t need = VX_LOGREC_SIZE(VX_LOG_MEM | VX_LOG_MEMAFF | size, nt);
                    if (!off &&
                        (VX_LIKELY((size_t)(lg->end - lg->pos) >= need) || lg->refill(lg, need))) {
                        uint32_t *v = log_memaff(lg, need, dc, size, core, wi, pc, in->raw, tm0,
                                                 base, stride);
                        for (uint32_t l = 0; l < n; l++)
                            v[l] = m[l].value;
                        lg->cycle = s->cycle;
                        return r;
                    }
                }
                const size_t need = VX_LOGREC_SIZE(VX_LOG_MEM | size, nt);
                if (VX_LIKELY((size_t)(lg->end - lg->pos) >= need) || lg->refill(lg, need)) {
                    vx_logrec *q = (vx_logrec *)(void *)lg->pos;
                    uint32_t *a = (uint32_t *)(void *)(q + 1), *v = a + nt;
                    uint32_t i = 0, next = 0; /* the lowest lane the next write may have */
                    for (; i < n && m[i].size == size && m[i].lane >= next &&
                           ((tm0 >> m[i].lane) & 1);
                         i++) {
                        a[m[i].lane] = m[i].addr;
                        v[m[i].lane] = m[i].value;
                        next = m[i].lane + 1u;
                    }
                    if (VX_LIKELY(i == n)) {
                        vx_logrec_head(q, (uint32_t)dc, (uint8_t)(VX_LOG_MEM | size), core, wi, pc,
                                       in->raw, (uint32_t)tm0);
                        lg->pos += need;
                        lg->cycle = s->cycle;
                        return r;
                    }
                }
            }
        }
        /* Only what changes per issue: vx_sim_new set the rest of s->iev once.
         * flags and fault are left 0 / NULL between events, so the scheduler's
         * issues (mode 0, no fault) do not write them. */
        if (mode)
            ev->flags = (uint8_t)(((mode & VX_XM_INJECT) ? VX_EVF_INJECTED : 0) |
                                  ((mode & VX_XM_STEP) ? VX_EVF_STEP : 0));
        ev->index = index;
        ev->cycle = s->cycle;
        ev->core = core;
        ev->warp = wi;
        ev->pc = pc;
        ev->insn = in ? in->raw : 0;
        ev->tmask = (vx_lanes)tm1 << 64 | tm0;
        if (VX_UNLIKELY(r == VX_X_FAULT)) {
            /* a faulting issue has no other effect */
            ev->fault = &s->fault;
            ev->ncommits = ev->nmem = ev->nreads = ev->nwctl = ev->nconsole = 0;
        }
        if (s->obs) s->obs(s->obs_ctx, ev);
        if (mode) ev->flags = 0;
        if (VX_UNLIKELY(r == VX_X_FAULT)) ev->fault = NULL;
    }
    return r;
}

/* Debug steps, injections and vx_sim_issue (replay): generic, out of line. */
static __attribute__((noinline)) int issue_any(vx_sim *s, uint32_t core, uint32_t gw, unsigned mode,
                                               uint32_t word, uint32_t lane, int traced)
{
    return issue_impl(s, core, gw - core * s->nw, gw, mode, word, lane, traced, 0, 1);
}

int vx_exec_issue(vx_sim *s, uint32_t gw, unsigned mode, uint32_t insn, uint32_t lane)
{
    return issue_any(s, gw / s->nw, gw, mode, insn, lane, s->obs != NULL);
}

static ALWAYS_INLINE int loop_impl(vx_sim *s, uint64_t max_issues, uint64_t *issued_out,
                                   uint32_t *gw_out, int *r_out, const int traced,
                                   const uint32_t ntc, const int one)
{
    /* Invariants in locals: the compiler cannot keep fields of *s across the
     * register-file stores of an issue (they might alias).  one: a single core
     * with at most 64 warps (the default platform), known at compile time. */
    const uint32_t nc = one ? 1 : s->nc, nw = s->nw, nww = one ? 1 : s->nww, ncw = s->ncw;
    const uint64_t *const core_ready = s->core_ready;
    const uint64_t *const ready = s->ready;
    vx_core *const cores = s->cores;
    uint64_t issued = 0;
    /* core_pos and cycle_issued live in locals, written back before leaving
     * (nothing reads them during an issue). */
    uint32_t pos = s->core_pos;
    uint8_t cycle_issued = s->cycle_issued;
    const uint64_t max_cycles = s->max_cycles ? s->max_cycles : ~0ull;
    int why;
    /* An ndmreset written between two runs in the middle of a cycle (the Debug Module
     * server's slices end anywhere): the reset hold has begun, so the cores after pos
     * issue nothing either; the cycle ends here (vx_dm_cycle then holds the next ones). */
    if (VX_UNLIKELY(pos != 0) && VX_UNLIKELY(vx_dm_busy(s->dm)) && vx_dm_in_reset(s->dm)) {
        pos = 0;
        s->cycle++;
        why = VX_LOOP_RESET;
        goto out;
    }
    for (;;) {
        if (pos == 0) {
            if (VX_UNLIKELY(s->cycle >= max_cycles)) {
                why = VX_LOOP_LIMIT;
                break;
            }
            cycle_issued = 0;
            /* The machine can only finish inside this loop through the DM (an issue
             * that ends the run leaves the loop), so finished is checked after it. */
            if (VX_UNLIKELY(vx_dm_busy(s->dm))) {
                if (vx_dm_cycle(s->dm)) {
                    s->cycle++;
                    why = VX_LOOP_RESET;
                    break;
                }
                if (s->finished) {
                    why = VX_LOOP_FINISHED;
                    break;
                }
            }
        }
        /* Visit the cores >= pos that have a ready warp, in order (core_ready is
         * re-read after each issue: an issue can wake later cores). */
        while (pos < nc) {
            uint32_t c;
            if (one) {
                if (!ready[0]) break;
                c = 0;
            } else if (VX_LIKELY(ncw == 1)) {
                uint64_t m = core_ready[0] & (~0ull << pos); /* pos < nc <= 64 */
                if (!m) break;
                c = (uint32_t)__builtin_ctzll(m);
            } else {
                c = vx_next_ready_core(s, pos);
                if (c >= nc) break;
            }
            pos = c + 1;
            /* round-robin: the first ready warp after the last one that issued */
            uint32_t wi;
            vx_core *const cc = &cores[c];
            if (VX_LIKELY(nww == 1)) {
                uint64_t m = ready[c];
                uint32_t start = cc->last + 1; /* <= 64: a shift by 64 is avoided below */
                uint64_t hi = start < 64 ? m & (~0ull << start) : 0;
                wi = (uint32_t)__builtin_ctzll(hi ? hi : m); /* m != 0: core c is ready */
            } else {
                wi = (uint32_t)vx_sched_pick(s, c);
            }
            cc->last = wi;
            uint32_t gw = c * nw + wi;
            cycle_issued = 1;
            int r = issue_impl(s, c, wi, gw, 0, 0, 0, traced, ntc, 1);
            issued++;
            if (VX_UNLIKELY(r != VX_X_OK)) {
                *gw_out = gw;
                *r_out = r;
                why = VX_LOOP_ISSUE;
                goto out;
            }
            if (VX_UNLIKELY(issued == max_issues)) {
                why = VX_LOOP_MAX;
                goto out;
            }
        }
        pos = 0;
        s->cycle++;
        if (VX_UNLIKELY(!cycle_issued)) {
            why = VX_LOOP_NOTHING;
            break;
        }
    }
out:
    s->core_pos = pos;
    s->cycle_issued = cycle_issued;
    *issued_out = issued;
    return why;
}

/*
 * One instance per common warp width (lane loops with a constant trip count unroll and
 * vectorise), one for the default platform (4 lanes, one core), one for any other
 * width, without and with the observer.  The debug build (ASan + UBSan, where each
 * inlined copy costs about 9 s to compile) keeps one of each kind: the generic loops,
 * the default platform's and one wide multi-core loop; the others differ from these
 * only by constants and run in the release tests.
 */
#if defined(VX_DEBUG) && VX_DEBUG
#define ALL_LOOPS 0
#else
#define ALL_LOOPS 1
#endif
#define LOOP_VARIANT(name, traced, ntc, one)                                         \
    static int name(vx_sim *s, uint64_t max, uint64_t *issued, uint32_t *gw, int *r) \
    {                                                                                \
        return loop_impl(s, max, issued, gw, r, traced, ntc, one);                   \
    }
LOOP_VARIANT(loop_any, 0, 0, 0)
LOOP_VARIANT(loop_nt4_one, 0, 4, 1)
LOOP_VARIANT(loop_nt32, 0, 32, 0)
LOOP_VARIANT(loop_traced_any, 1, 0, 0)
LOOP_VARIANT(loop_traced_nt4_one, 1, 4, 1)
#if ALL_LOOPS
LOOP_VARIANT(loop_nt4, 0, 4, 0)
LOOP_VARIANT(loop_nt8, 0, 8, 0)
LOOP_VARIANT(loop_nt16, 0, 16, 0)
LOOP_VARIANT(loop_traced_nt4, 1, 4, 0)
LOOP_VARIANT(loop_traced_nt32, 1, 32, 0)
#else
#define loop_nt4         loop_any
#define loop_nt8         loop_any
#define loop_nt16        loop_any
#define loop_traced_nt4  loop_traced_any
#define loop_traced_nt32 loop_traced_any
#endif

int vx_exec_loop(vx_sim *s, uint64_t max_issues, uint64_t *issued, uint32_t *gw, int *r)
{
    const bool one = s->nc == 1 && s->nww == 1;
    if (s->obs) {
        switch (s->nt) {
        case 4:
            if (one) return loop_traced_nt4_one(s, max_issues, issued, gw, r);
            return loop_traced_nt4(s, max_issues, issued, gw, r);
        case 32: return loop_traced_nt32(s, max_issues, issued, gw, r);
        default: return loop_traced_any(s, max_issues, issued, gw, r);
        }
    }
    switch (s->nt) {
    case 4:
        if (one) return loop_nt4_one(s, max_issues, issued, gw, r);
        return loop_nt4(s, max_issues, issued, gw, r);
    case 8: return loop_nt8(s, max_issues, issued, gw, r);
    case 16: return loop_nt16(s, max_issues, issued, gw, r);
    case 32: return loop_nt32(s, max_issues, issued, gw, r);
    default: return loop_any(s, max_issues, issued, gw, r);
    }
}
