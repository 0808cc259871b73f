/*
 * memory.c - vxdiff --memory (see memory.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evfmt.h"
#include "memory.h"
#include "vis.h"
#include "vx_sim.h"

#define PAGE      VX_TRACE_PAGE_SIZE
#define GMEM_BASE 0x80u /* global memory starts there (FORMAT.md 7.3) */

/* ---- sets of pages: (space << 32) | page address, sorted ------------------------------------------ */

typedef struct keys {
    uint64_t *v;
    size_t n, cap;
    bool oom;
} keys;

static uint64_t key_of(uint32_t space, uint32_t addr)
{
    return (uint64_t)space << 32 | (addr & ~(PAGE - 1));
}

static void keys_add(keys *k, uint64_t x)
{
    if (k->n && k->v[k->n - 1] == x) return; /* (consecutive writes to one page) */
    if (k->n == k->cap) {
        size_t ncap = k->cap ? k->cap * 2 : 64;
        uint64_t *p = realloc(k->v, ncap * sizeof *p);
        if (!p) {
            k->oom = true;
            return;
        }
        k->v = p;
        k->cap = ncap;
    }
    k->v[k->n++] = x;
}

static int u64_cmp(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

static void keys_sort(keys *k)
{
    if (!k->n) return;
    qsort(k->v, k->n, sizeof *k->v, u64_cmp);
    size_t j = 1;
    for (size_t i = 1; i < k->n; i++)
        if (k->v[i] != k->v[j - 1]) k->v[j++] = k->v[i];
    k->n = j;
}

static bool keys_has(const keys *k, uint64_t x)
{
    size_t lo = 0, hi = k->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < k->n && k->v[lo] == x;
}

/* ---- one side's memory at the end of its trace ------------------------------------------------------ */

typedef struct mside {
    const vxf_mem_side *in;
    vx_sim *sim;
    uint32_t cores;
    keys dirty;   /* pages written during the run */
    keys present; /* pages the simulator holds at the end */
} mside;

static void fail(const vxf_mem_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(const vxf_mem_opts *o, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "%s: ", o->prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

typedef struct putctx {
    mside *m;
    bool dirty; /* the pages were written during the run */
    bool simerr;
} putctx;

static vx_err put_page(void *ctx, uint32_t space, uint32_t addr, const uint8_t *page)
{
    putctx *p = ctx;
    vx_err e = vx_sim_put_page(p->m->sim, space, addr, page);
    if (e) {
        p->simerr = true;
        return e;
    }
    if (p->dirty) keys_add(&p->m->dirty, key_of(space, addr));
    return p->m->dirty.oom ? VX_ERR_NOMEM : VX_OK;
}

static void present_page(void *ctx, uint32_t space, uint32_t addr, const uint8_t *page)
{
    (void)page;
    keys_add(ctx, key_of(space, addr));
}

static void dirty_page(void *ctx, uint32_t space, uint32_t addr, const uint8_t *page)
{
    (void)page;
    keys_add(ctx, key_of(space, addr));
}

/* The prologue's memory (FORMAT.md 5.3): the image loaded, the load regions written. */
static int load_prologue(mside *m, const vxf_mem_opts *o)
{
    const vx_trace_header *h = m->in->h;
    if (vx_sim_load_image(m->sim, h->image_name ? h->image_name : m->in->path,
                          (vx_image_kind)h->image_kind, h->image, h->image_len, NULL)) {
        fail(o, "%s: the recorded kernel image cannot be loaded: %s", m->in->path,
             vx_sim_errmsg(m->sim));
        return -1;
    }
    for (uint32_t i = 0; i < h->nloads; i++) {
        const vx_trace_load *l = &h->loads[i];
        if (!vx_trace_load_in_global(l) || vx_sim_mem_write(m->sim, 0, l->addr, l->bytes, l->len)) {
            fail(o, "%s: recorded load region %" PRIu32 " at 0x%08" PRIx32 " cannot be written%s",
                 m->in->path, i, l->addr,
                 vx_trace_load_in_global(l) ? "" : ": it lies outside global memory");
            return -1;
        }
    }
    return 0;
}

static int trace_fail(const mside *m, const vxf_mem_opts *o)
{
    fail(o, "%s", vx_trace_reader_errmsg(m->in->r));
    return -1;
}

/*
 * The memory at the end of side m's trace: the pages of its keyframes over the base
 * memory, then the writes of the events after the last keyframe.  A keyframe at
 * event 0 holds the initial memory; the pages of later ones were written during the
 * run, and so were the pages the events after the last keyframe write.
 */
static int build(mside *m, const vxf_mem_opts *o)
{
    const vx_trace_header *h = m->in->h;
    vx_trace_reader *r = m->in->r;
    vx_sim_config cfg = VX_SIM_CONFIG_INIT;
    cfg.clusters = h->clusters;
    cfg.cores = h->cores;
    cfg.warps = h->warps;
    cfg.threads = h->threads;
    cfg.mem_limit = h->mem_limit;
    char msg[200];
    if (vx_sim_config_check(&cfg, msg, sizeof msg)) {
        fail(o, "%s: the platform of the trace cannot be simulated: %s", m->in->path, msg);
        return -1;
    }
    if (vx_sim_new(&cfg, &m->sim)) {
        fail(o, "out of memory");
        return -1;
    }
    m->cores = vx_sim_num_cores(m->sim);
    size_t nk = vx_trace_reader_num_keyframes(r);
    vx_trace_keyframe info;
    if (nk) {
        if (vx_trace_reader_keyframe(r, 0, &info, NULL, NULL)) return trace_fail(m, o);
        if (info.on_image && load_prologue(m, o)) return -1;
        for (size_t k = 0; k < nk; k++) {
            if (k && vx_trace_reader_keyframe(r, k, &info, NULL, NULL)) return trace_fail(m, o);
            putctx pc = {m, k > 0 || info.index > 0, false};
            vx_err e = vx_trace_reader_keyframe_pages(r, k, VX_TRACE_PAGES_DELTA, put_page, &pc);
            if (pc.simerr) {
                fail(o, "%s: keyframe %zu holds a page that cannot be applied: %s", m->in->path, k,
                     vx_sim_errmsg(m->sim));
                return -1;
            }
            if (m->dirty.oom) {
                fail(o, "out of memory");
                return -1;
            }
            if (e) return trace_fail(m, o);
        }
        if (vx_trace_reader_seek_keyframe(r, nk - 1)) return trace_fail(m, o);
    } else {
        if (load_prologue(m, o)) return -1;
        if (vx_trace_reader_seek(r, 0)) return trace_fail(m, o);
    }
    vx_sim_clear_dirty(m->sim);
    for (;;) {
        const vx_event *e;
        vx_err err = vx_trace_reader_next(r, &e);
        if (err == VX_ERR_END) break;
        if (err) return trace_fail(m, o);
        if (e->kind != VX_EV_ISSUE) continue;
        for (uint32_t i = 0; i < e->nmem; i++) {
            const vx_memwrite *w = &e->mem[i];
            const uint8_t b[4] = {(uint8_t)w->value, (uint8_t)(w->value >> 8),
                                  (uint8_t)(w->value >> 16), (uint8_t)(w->value >> 24)};
            if (w->size > 4 || vx_sim_mem_write(m->sim, e->core, w->addr, b, w->size)) {
                fail(o,
                     "%s: event %" PRIu64 " writes %u bytes at 0x%08" PRIx32
                     " where the platform has no memory: %s",
                     m->in->path, e->index, w->size, w->addr, vx_sim_errmsg(m->sim));
                return -1;
            }
        }
    }
    vx_sim_visit_pages(m->sim, false, dirty_page, &m->dirty);
    vx_sim_visit_pages(m->sim, true, present_page, &m->present);
    if (m->dirty.oom || m->present.oom) {
        fail(o, "out of memory");
        return -1;
    }
    keys_sort(&m->dirty);
    keys_sort(&m->present);
    return 0;
}

/* Page `key` of side m (zeros where it holds none); false when it has no such space. */
static bool read_page(const mside *m, uint64_t key, uint8_t *buf)
{
    uint32_t space = (uint32_t)(key >> 32), addr = (uint32_t)key;
    memset(buf, 0, PAGE);
    if (space > m->cores) return false;
    uint32_t core = space ? space - 1 : 0;
    /* page 0: the null guard and the console window read as nothing, zeros */
    uint32_t skip = space == 0 && addr < GMEM_BASE ? GMEM_BASE - addr : 0;
    if (skip >= PAGE) return true;
    return vx_sim_mem_read(m->sim, core, addr + skip, buf + skip, PAGE - skip) == VX_OK;
}

/* ---- the bytes that differ and their last writers ------------------------------------------------ */

/* A run of differing bytes in pages written during a run (on either side): a candidate. */
typedef struct cand {
    uint32_t space, lo, len;
    uint32_t blo; /* B's address of its first byte: lo, but with --object */
    size_t off;   /* of its first byte in the per-byte arrays */
} cand;

/* The last write of a byte on one side. */
typedef struct mwrite {
    uint64_t index, cycle;
    uint32_t core, warp, pc, insn, addr, value;
    uint8_t size, lane, flags;
    size_t chunk; /* the EVENTS chunk it was found in */
    uint32_t refs;
} mwrite;

typedef struct found {
    uint32_t *w;     /* per candidate byte: 1 + index in v, 0 when not found (yet) */
    mwrite *v;       /* v[0] unused */
    size_t n, cap;   /* entries of v in use (from 1), allocated */
    uint32_t *freel; /* entries no byte refers to any more */
    size_t nfree, capfree;
    uint32_t *left; /* per candidate: bytes not yet found */
    bool oom;
} found;

/* A range to report: bytes [from, from + len) of candidate ci. */
typedef struct outr {
    size_t ci, from, len;
    bool layout; /* in the area a change of code moves (layout_area) */
} outr;

typedef struct cmp {
    const vxf_mem_opts *o;
    mside m[2];
    cand *c;
    size_t nc, capc;
    bool objects;        /* --object: B's bytes are at their own addresses (cand.blo) */
    size_t *byb;         /* then the candidates in the order of B's addresses */
    size_t nbytes, capb; /* candidate bytes, allocated */
    uint8_t *va, *vb;    /* per candidate byte: the two values */
    found f[2];
    outr *out; /* the ranges found */
    size_t nout, capout;
    vxd_sb line;
    bool header_printed;
} cmp;

/* Side k's address of byte i of candidate c. */
static uint32_t side_addr(const cand *c, int k, size_t i)
{
    return (k ? c->blo : c->lo) + (uint32_t)i;
}

static bool cand_add(cmp *x, uint32_t space, uint32_t addr, uint32_t baddr, uint8_t a, uint8_t b)
{
    cand *last = x->nc ? &x->c[x->nc - 1] : NULL;
    if (!last || last->space != space || last->lo + last->len != addr ||
        last->blo + last->len != baddr) {
        if (x->nc == x->capc) {
            size_t ncap = x->capc ? x->capc * 2 : 64;
            cand *p = realloc(x->c, ncap * sizeof *p);
            if (!p) return false;
            x->c = p;
            x->capc = ncap;
        }
        last = &x->c[x->nc++];
        *last = (cand){space, addr, 0, baddr, x->nbytes};
    }
    if (x->nbytes == x->capb) {
        size_t ncap = x->capb ? x->capb * 2 : 4096;
        uint8_t *p = realloc(x->va, ncap), *q = p ? realloc(x->vb, ncap) : NULL;
        if (p) x->va = p;
        if (!q) return false;
        x->vb = q;
        x->capb = ncap;
    }
    x->va[x->nbytes] = a;
    x->vb[x->nbytes] = b;
    x->nbytes++;
    last->len++;
    return true;
}

/* The candidate holding side k's byte (space, addr), or SIZE_MAX. */
static size_t cand_find(const cmp *x, int k, uint32_t space, uint32_t addr)
{
    size_t lo = 0, hi = x->nc;
    if (k && x->objects) { /* (global memory only) */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (x->c[x->byb[mid]].blo <= addr)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (!lo || space) return SIZE_MAX;
        const cand *c = &x->c[x->byb[lo - 1]];
        return addr - c->blo < c->len ? x->byb[lo - 1] : SIZE_MAX;
    }
    while (lo < hi) { /* the first candidate after (space, addr) */
        size_t mid = lo + (hi - lo) / 2;
        const cand *c = &x->c[mid];
        if (c->space < space || (c->space == space && c->lo <= addr))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo) return SIZE_MAX;
    const cand *c = &x->c[lo - 1];
    return c->space == space && addr - c->lo < c->len ? lo - 1 : SIZE_MAX;
}

static uint32_t found_new(found *f)
{
    if (f->nfree) return f->freel[--f->nfree];
    if (f->n + 1 >= f->cap) {
        size_t ncap = f->cap ? f->cap * 2 : 256;
        mwrite *p = realloc(f->v, ncap * sizeof *p);
        if (!p) {
            f->oom = true;
            return 0;
        }
        f->v = p;
        f->cap = ncap;
    }
    if (!f->n) f->n = 1; /* entry 0: none */
    return (uint32_t)f->n++;
}

static void found_unref(found *f, uint32_t i)
{
    if (--f->v[i].refs) return;
    if (f->nfree == f->capfree) {
        size_t ncap = f->capfree ? f->capfree * 2 : 64;
        uint32_t *p = realloc(f->freel, ncap * sizeof *p);
        if (!p) return; /* (the entry stays unused) */
        f->freel = p;
        f->capfree = ncap;
    }
    f->freel[f->nfree++] = i;
}

/* Write w of issue e, found in chunk ci (read forward): the last write so far of the
 * candidate bytes it covers that no later chunk wrote. */
static void note_write(cmp *x, int side, const vx_event *e, const vx_memwrite *w, size_t ci)
{
    found *f = &x->f[side];
    uint32_t entry = 0;
    for (uint32_t i = 0; i < w->size && i < 4; i++) {
        uint32_t a = w->addr + i;
        uint32_t space = vx_addr_in_lmem(a) ? 1 + e->core : 0;
        size_t k = cand_find(x, side, space, a);
        if (k == SIZE_MAX) continue;
        size_t at = x->c[k].off + (a - side_addr(&x->c[k], side, 0));
        uint32_t old = f->w[at];
        if (old && f->v[old].chunk != ci) continue; /* a later chunk wrote it last */
        if (!entry) {
            entry = found_new(f);
            if (!entry) return;
            mwrite *m = &f->v[entry];
            *m = (mwrite){e->index, e->cycle, e->core, e->warp,  e->pc, e->insn, w->addr,
                          w->value, w->size,  w->lane, e->flags, ci,    0};
        }
        f->v[entry].refs++;
        f->w[at] = entry;
        if (old)
            found_unref(f, old);
        else
            f->left[k]--;
    }
}

/*
 * The last write of every candidate byte on side k: the EVENTS chunks from the last
 * back, each read only when its digest says it may write a byte still looked for.
 */
static int find_writers(cmp *x, int k)
{
    const mside *m = &x->m[k];
    vx_trace_reader *r = m->in->r;
    found *f = &x->f[k];
    f->w = calloc(x->nbytes ? x->nbytes : 1, sizeof *f->w);
    f->left = calloc(x->nc ? x->nc : 1, sizeof *f->left);
    if (!f->w || !f->left) {
        fail(x->o, "out of memory");
        return -1;
    }
    size_t todo = 0; /* candidates with bytes not found */
    for (size_t i = 0; i < x->nc; i++) {
        f->left[i] = x->c[i].len;
        todo++;
    }
    size_t n = vx_trace_reader_num_chunks(r);
    for (size_t ci = n; ci-- > 0 && todo;) {
        vx_trace_digest d;
        if (vx_trace_reader_digest(r, ci, VX_TRACE_DIGEST_COMPUTE, &d)) {
            fail(x->o, "%s", vx_trace_reader_errmsg(r));
            return -1;
        }
        if (!(d.flags & VX_TRACE_DG_WRITES)) continue;
        bool may = false;
        for (size_t i = 0; i < x->nc && !may; i++)
            may =
                f->left[i] && vx_trace_digest_may_write(&d, side_addr(&x->c[i], k, 0), x->c[i].len);
        if (!may) continue;
        if (vx_trace_reader_seek_chunk(r, ci)) {
            fail(x->o, "%s", vx_trace_reader_errmsg(r));
            return -1;
        }
        const uint64_t next = ci + 1 < n ? vx_trace_reader_chunk_key(r, ci + 1) : UINT64_MAX;
        for (;;) {
            const vx_event *e;
            vx_err err = vx_trace_reader_next(r, &e);
            if (err == VX_ERR_END) break;
            if (err) {
                fail(x->o, "%s", vx_trace_reader_errmsg(r));
                return -1;
            }
            if (e->kind != VX_EV_ISSUE) continue;
            if (e->index >= next) break; /* the next chunk's */
            for (uint32_t i = 0; i < e->nmem; i++)
                note_write(x, k, e, &e->mem[i], ci);
            if (f->oom) {
                fail(x->o, "out of memory");
                return -1;
            }
        }
        todo = 0;
        for (size_t i = 0; i < x->nc; i++)
            todo += f->left[i] != 0;
    }
    return 0;
}

/* ---- output ------------------------------------------------------------------------------------------ */

/* Range [at, at + len) of candidate c on side k: "0x00030028" or
 * "0x00030028..0x0003002b", with the core for local memory. */
static void where_text(const cand *c, int k, size_t from, size_t len, char *buf, size_t cap)
{
    uint32_t lo = side_addr(c, k, from), hi = lo + (uint32_t)len - 1;
    char core[32] = "";
    if (c->space) snprintf(core, sizeof core, "core %" PRIu32 " local ", c->space - 1);
    if (len == 1)
        snprintf(buf, cap, "%s0x%08" PRIx32, core, lo);
    else
        snprintf(buf, cap, "%s0x%08" PRIx32 "..0x%08" PRIx32, core, lo, hi);
}

/* The bytes v[0..n) at address addr: little-endian words when aligned, else bytes. */
static void values_text(vxd_sb *b, uint32_t addr, const uint8_t *v, size_t n)
{
    const size_t shown = n > 16 ? 16 : n;
    if (addr % 4 == 0 && shown % 4 == 0) {
        for (size_t i = 0; i < shown; i += 4) {
            uint32_t w = (uint32_t)v[i] | (uint32_t)v[i + 1] << 8 | (uint32_t)v[i + 2] << 16 |
                         (uint32_t)v[i + 3] << 24;
            vxd_sb_printf(b, "%s0x%08" PRIx32, i ? " " : "", w);
            if (n == 4 && (int32_t)w >= -65536 && (int32_t)w <= 65536 && w != 0)
                vxd_sb_printf(b, " (%" PRId32 ")", (int32_t)w);
        }
    } else {
        for (size_t i = 0; i < shown; i++)
            vxd_sb_printf(b, "%s%02x", i ? " " : "", v[i]);
    }
    if (n > shown) vxd_sb_printf(b, " ... (%zu bytes)", n);
}

static void writer_text(const cmp *x, int k, const mwrite *w, vxd_sb *b)
{
    char where[600], dis[96];
    vxd_symtab_where(x->m[k].in->syms, w->pc, where, sizeof where);
    if (x->o->dis)
        vx_disasm_ctx_insn(x->o->dis, w->pc, w->insn, dis, sizeof dis);
    else
        vx_disasm(w->pc, w->insn, dis, sizeof dis);
    vxd_sb_printf(b,
                  "written at event %" PRIu64 " (cycle %" PRIu64 ") by warp %" PRIu32 ":%" PRIu32
                  " lane %u, pc 0x%08" PRIx32 "%s: %s",
                  w->index, w->cycle, w->core, w->warp, w->lane, w->pc, where, dis);
    if (w->flags & VX_EVF_INJECTED) vxd_sb_puts(b, " (injected by the Debug Module)");
}

#define MAX_SEGMENTS 8 /* writes listed per side and range */

/* Side k's bytes of run [from, from + len) of candidate ci, in segments of one writer. */
static void side_text(cmp *x, int k, size_t ci, size_t from, size_t len)
{
    const cand *c = &x->c[ci];
    const found *f = &x->f[k];
    const uint8_t *v = k ? x->vb : x->va;
    size_t shown = 0, segs = 0;
    for (size_t i = from; i < from + len;) {
        size_t j = i + 1;
        uint32_t wi = f->w[c->off + i];
        while (j < from + len && f->w[c->off + j] == wi)
            j++;
        segs++;
        if (shown < MAX_SEGMENTS) {
            shown++;
            vxd_sb *b = &x->line;
            vxd_sb_clear(b);
            char at[64];
            where_text(c, k, i, j - i, at, sizeof at);
            char dsym[256] = "";
            if (!c->space) /* global memory: the side's own static object there, if any */
                vxd_symtab_format(x->m[k].in->dsyms, side_addr(c, k, i), dsym, sizeof dsym);
            vxd_sb_printf(b, "%c %s%s%s = ", k ? '+' : '-', at, dsym[0] ? " " : "", dsym);
            values_text(b, side_addr(c, k, i), v + c->off + i, j - i);
            vxd_sb_puts(b, "  ");
            if (wi)
                writer_text(x, k, &f->v[wi], b);
            else
                vxd_sb_puts(b, "never written (initial image)");
            printf("%s\n", b->s ? b->s : "");
        }
        i = j;
    }
    if (segs > shown)
        printf("%c ... and %zu more parts written by other writes\n", k ? '+' : '-', segs - shown);
}

static void json_side(cmp *x, int k, size_t ci, size_t from, size_t len, vxd_sb *b)
{
    const cand *c = &x->c[ci];
    const found *f = &x->f[k];
    const uint8_t *v = k ? x->vb : x->va;
    vxd_sb_puts(b, "{\"bytes\":\"");
    for (size_t i = from; i < from + len; i++)
        vxd_sb_printf(b, "%02x", v[c->off + i]);
    vxd_sb_puts(b, "\",\"writes\":[");
    bool first = true;
    for (size_t i = from; i < from + len;) {
        size_t j = i + 1;
        uint32_t wi = f->w[c->off + i];
        while (j < from + len && f->w[c->off + j] == wi)
            j++;
        vxd_sb_printf(b, "%s{\"addr\":%" PRIu32 ",\"len\":%zu,", first ? "" : ",",
                      side_addr(c, k, i), j - i);
        first = false;
        uint32_t doff;
        const vxd_sym *ds =
            c->space ? NULL : vxd_symtab_lookup(x->m[k].in->dsyms, side_addr(c, k, i), &doff);
        vxd_sb_puts(b, "\"object\":");
        if (ds) {
            vxd_sb_json_str(b, ds->name, strlen(ds->name));
            vxd_sb_printf(b, ",\"object_offset\":%" PRIu32 ",", doff);
        } else {
            vxd_sb_puts(b, "null,\"object_offset\":null,");
        }
        if (!wi) {
            vxd_sb_puts(b, "\"event\":null}");
        } else {
            const mwrite *w = &f->v[wi];
            uint32_t off;
            const vxd_sym *s = vxd_symtab_lookup(x->m[k].in->syms, w->pc, &off);
            vxd_sb_printf(b,
                          "\"event\":%" PRIu64 ",\"cycle\":%" PRIu64 ",\"core\":%" PRIu32
                          ",\"warp\":%" PRIu32 ",\"lane\":%u,\"pc\":%" PRIu32 ",\"insn\":%" PRIu32
                          ",\"write_addr\":%" PRIu32 ",\"size\":%u,\"value\":%" PRIu32
                          ",\"injected\":%s,\"symbol\":",
                          w->index, w->cycle, w->core, w->warp, w->lane, w->pc, w->insn, w->addr,
                          w->size, w->size >= 4 ? w->value : w->value & ((1u << (8 * w->size)) - 1),
                          w->flags & VX_EVF_INJECTED ? "true" : "false");
            if (s) {
                vxd_sb_json_str(b, s->name, strlen(s->name));
                vxd_sb_printf(b, ",\"offset\":%" PRIu32, off);
            } else {
                vxd_sb_puts(b, "null,\"offset\":null");
            }
            vxd_sb_puts(b, ",\"source\":");
            vxd_sb_json_source(b, x->m[k].in->syms, w->pc);
            vxd_sb_puts(b, "}");
        }
        i = j;
    }
    vxd_sb_puts(b, "]}");
}

static bool outr_add(cmp *x, size_t ci, size_t from, size_t len, bool layout)
{
    if (x->nout == x->capout) {
        size_t ncap = x->capout ? x->capout * 2 : 64;
        outr *p = realloc(x->out, ncap * sizeof *p);
        if (!p) return false;
        x->out = p;
        x->capout = ncap;
    }
    x->out[x->nout++] = (outr){ci, from, len, layout};
    return true;
}

/* Did a run write a byte of the candidate word at byte `at` (either side)? */
static bool word_written(const cmp *x, size_t at, size_t n)
{
    for (size_t b = at; b < at + n; b++)
        if (x->f[0].w[b] || x->f[1].w[b]) return true;
    return false;
}

/*
 * Is global address addr in the area that a change of the kernel's code moves: from
 * the page of the start pc up (the image, its static data, then the per-hart TLS blocks
 * and the heap, and the stacks below local memory: kernel/link32.ld, crt0), except the
 * loaded files (--load regions stay where they were put)?  Local memory is not.
 */
static bool layout_area(const vxf_mem_side s[2], uint32_t lo, uint32_t space, uint32_t addr)
{
    if (space || addr < lo) return false;
    for (int k = 0; k < 2; k++)
        for (uint32_t i = 0; i < s[k].h->nloads; i++) {
            const vx_trace_load *l = &s[k].h->loads[i];
            if (addr >= l->addr && addr - l->addr < l->len) return false;
        }
    return true;
}

/* Report run [from, from + len) of candidate ci. */
static void report_range(cmp *x, size_t ci, size_t from, size_t len, bool layout)
{
    const cand *c = &x->c[ci];
    if (x->o->json) {
        vxd_sb b = {0};
        vxd_sb_printf(
            &b, "{\"type\":\"memory\",\"space\":\"%s\",\"core\":", c->space ? "local" : "global");
        if (c->space)
            vxd_sb_printf(&b, "%" PRIu32, c->space - 1);
        else
            vxd_sb_puts(&b, "null");
        vxd_sb_printf(
            &b, ",\"addr\":%" PRIu32 ",\"addr_b\":%" PRIu32 ",\"len\":%zu,\"layout\":%s,\"a\":",
            side_addr(c, 0, from), side_addr(c, 1, from), len, layout ? "true" : "false");
        json_side(x, 0, ci, from, len, &b);
        vxd_sb_puts(&b, ",\"b\":");
        json_side(x, 1, ci, from, len, &b);
        vxd_sb_putc(&b, '}');
        if (b.s) puts(b.s);
        vxd_sb_release(&b);
        return;
    }
    char at[64], atb[80] = "";
    where_text(c, 0, from, len, at, sizeof at);
    if (c->blo != c->lo) {
        char t[64];
        where_text(c, 1, from, len, t, sizeof t);
        snprintf(atb, sizeof atb, " (in B %s)", t);
    }
    if (!x->header_printed) {
        x->header_printed = true;
        printf("--- A %s\n+++ B %s\n", x->m[0].in->path, x->m[1].in->path);
    }
    printf("@@ memory %s%s differs (%zu bytes%s) @@\n", at, atb, len,
           layout ? ", where the code's layout places things" : "");
    side_text(x, 0, ci, from, len);
    side_text(x, 1, ci, from, len);
}

/* ---- --object: named data objects, each at its own address on each side ---------------------------- */

typedef struct objspan {
    uint32_t a, b, len; /* A's address, B's, the bytes compared */
} objspan;

typedef struct bpos {
    uint32_t blo;
    size_t ci;
} bpos;

static int span_cmp(const void *pa, const void *pb)
{
    const objspan *a = pa, *b = pb;
    return a->a < b->a ? -1 : a->a > b->a;
}

static int bpos_cmp(const void *pa, const void *pb)
{
    const bpos *a = pa, *b = pb;
    return a->blo < b->blo ? -1 : a->blo > b->blo;
}

/* The data object called name in side m's kernel (vxd_symtab_matches), or NULL after
 * saying why. */
static const vxd_sym *object_of(const mside *m, const char *name, const vxf_mem_opts *o)
{
    const vxd_sym *sym = NULL;
    size_t n = vxd_symtab_match_count(m->in->dsyms, name, &sym);
    if (!n)
        fail(o,
             "%s: its kernel has no data object '%s' (a sized symbol of .data, .bss or "
             ".rodata in its ELF, as nm lists them)",
             m->in->path, name);
    else if (n > 1)
        fail(o, "%s: '%s' names %zu data objects of its kernel: give one's ELF name", m->in->path,
             name, n);
    return n == 1 ? sym : NULL;
}

/* Byte addr of side m's memory, through the page cached in buf (page key *key). */
static uint8_t side_byte(const mside *m, uint32_t addr, uint8_t *buf, uint64_t *key)
{
    if (key_of(0, addr) != *key) {
        *key = key_of(0, addr);
        read_page(m, *key, buf);
    }
    return buf[addr & (PAGE - 1)];
}

/* The candidates of --object: the differing words of each object, compared at each
 * side's own address of the object, whether a run wrote them or not (a constant table
 * in .rodata: both sides then "never written"). */
static int compare_objects(cmp *x, uint8_t *pa, uint8_t *pb)
{
    const vxf_mem_opts *o = x->o;
    objspan *sp = calloc(o->nobjects, sizeof *sp);
    bpos *bp = NULL;
    int rc = -1;
    if (!sp) goto oom;
    for (size_t i = 0; i < o->nobjects; i++) {
        const vxd_sym *sa = object_of(&x->m[0], o->objects[i], o);
        const vxd_sym *sb = sa ? object_of(&x->m[1], o->objects[i], o) : NULL;
        if (!sb) goto out;
        sp[i] = (objspan){sa->addr, sb->addr, sa->size < sb->size ? sa->size : sb->size};
        if (sa->size != sb->size && !o->quiet) {
            fflush(stdout);
            fprintf(stderr,
                    "%s: '%s' has %" PRIu32 " bytes in A and %" PRIu32 " in B: the first %" PRIu32
                    " are compared\n",
                    o->prog, o->objects[i], sa->size, sb->size, sp[i].len);
        }
    }
    /* in A's order; one object named twice counts once; two that overlap on one side
     * (and not as the same object on both) cannot be told apart */
    qsort(sp, o->nobjects, sizeof *sp, span_cmp);
    size_t n = 0;
    for (size_t i = 0; i < o->nobjects; i++) {
        if (n && sp[i].a == sp[n - 1].a && sp[i].b == sp[n - 1].b) continue;
        if (n && sp[i].a < sp[n - 1].a + sp[n - 1].len) {
            fail(o, "%s: two of the objects named overlap: compare them one at a time",
                 x->m[0].in->path);
            goto out;
        }
        sp[n++] = sp[i];
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (sp[i].b < sp[j].b + sp[j].len && sp[j].b < sp[i].b + sp[i].len) {
                fail(o, "%s: two of the objects named overlap: compare them one at a time",
                     x->m[1].in->path);
                goto out;
            }
    uint64_t ka = UINT64_MAX, kb = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        const objspan *q = &sp[i];
        for (uint32_t j = 0; j < q->len; j++) {
            uint8_t va = side_byte(&x->m[0], q->a + j, pa, &ka);
            uint8_t vb = side_byte(&x->m[1], q->b + j, pb, &kb);
            if (va == vb) continue; /* (written or not: a constant table differs too) */
            /* the aligned word of the object around the byte, from where the last ended */
            const cand *last = x->nc ? &x->c[x->nc - 1] : NULL;
            uint32_t from = j & ~3u, to = (j | 3u) + 1 < q->len ? (j | 3u) + 1 : q->len;
            if (last && last->lo <= q->a + from && last->lo + last->len > q->a + from)
                from = last->lo + last->len - q->a;
            for (uint32_t b = from; b < to; b++)
                if (!cand_add(x, 0, q->a + b, q->b + b, side_byte(&x->m[0], q->a + b, pa, &ka),
                              side_byte(&x->m[1], q->b + b, pb, &kb)))
                    goto oom;
        }
    }
    /* B's writes find their candidates by B's addresses */
    bp = malloc((x->nc ? x->nc : 1) * sizeof *bp);
    x->byb = malloc((x->nc ? x->nc : 1) * sizeof *x->byb);
    if (!bp || !x->byb) goto oom;
    for (size_t i = 0; i < x->nc; i++)
        bp[i] = (bpos){x->c[i].blo, i};
    qsort(bp, x->nc, sizeof *bp, bpos_cmp);
    for (size_t i = 0; i < x->nc; i++)
        x->byb[i] = bp[i].ci;
    rc = 0;
    goto out;
oom:
    fail(o, "out of memory");
out:
    free(sp);
    free(bp);
    return rc;
}

/* ---- the comparison ---------------------------------------------------------------------------------- */

int vxf_mem_compare(const vxf_mem_side s[2], const vxf_mem_opts *o, vxf_mem_result *res)
{
    cmp x = {0};
    keys all = {0};
    int rc = -1;
    uint8_t *pa = malloc(PAGE), *pb = malloc(PAGE);
    memset(res, 0, sizeof *res);
    x.o = o;
    if (!pa || !pb) {
        fail(o, "out of memory");
        goto out;
    }
    for (int k = 0; k < 2; k++) {
        x.m[k].in = &s[k];
        if (build(&x.m[k], o)) goto out;
    }
    res->cores_a = x.m[0].cores;
    res->cores_b = x.m[1].cores;
    x.objects = o->nobjects > 0;
    if (x.objects && compare_objects(&x, pa, pb)) goto out;
    /* every page either side holds, in order; local memory of the cores both have */
    for (int k = 0; k < 2 && !x.objects; k++)
        for (size_t i = 0; i < x.m[k].present.n; i++)
            keys_add(&all, x.m[k].present.v[i]);
    if (all.oom) {
        fail(o, "out of memory");
        goto out;
    }
    keys_sort(&all);
    for (size_t i = 0; i < all.n; i++) {
        uint64_t key = all.v[i];
        uint32_t space = (uint32_t)(key >> 32), addr = (uint32_t)key;
        if (!read_page(&x.m[0], key, pa) || !read_page(&x.m[1], key, pb)) continue;
        if (!memcmp(pa, pb, PAGE)) continue;
        bool written = keys_has(&x.m[0].dirty, key) || keys_has(&x.m[1].dirty, key);
        for (uint32_t j = 0; j < PAGE; j++) {
            if (pa[j] == pb[j]) continue;
            if (!written) {
                res->image_bytes++;
                continue;
            }
            /* the aligned word around the byte, from where the last one ended */
            const cand *last = x.nc ? &x.c[x.nc - 1] : NULL;
            uint32_t from = j & ~3u;
            if (last && last->space == space && last->lo + last->len > addr + from)
                from = last->lo + last->len - addr;
            for (uint32_t b = from; b < (j | 3u) + 1; b++)
                if (!cand_add(&x, space, addr + b, addr + b, pa[b], pb[b])) {
                    fail(o, "out of memory");
                    goto out;
                }
        }
    }
    for (int k = 0; k < 2; k++)
        if (find_writers(&x, k)) goto out;
    /* the ranges: runs of candidate words that a run wrote (on either side), of one area */
    uint32_t layout_lo = UINT32_MAX;
    for (int k = 0; k < 2; k++)
        if ((s[k].h->start_pc & ~(PAGE - 1)) < layout_lo)
            layout_lo = s[k].h->start_pc & ~(PAGE - 1);
    for (size_t ci = 0; ci < x.nc; ci++) {
        const cand *c = &x.c[ci];
        /* (words of 4 bytes, but for the last of an --object's candidate, which ends
         * where the object does) */
        for (size_t i = 0; i < c->len;) {
            size_t j = i + 4 < c->len ? i + 4 : c->len;
            bool w = word_written(&x, c->off + i, j - i);
            bool lay = !x.objects && layout_area(s, layout_lo, c->space, c->lo + (uint32_t)i);
            while (j < c->len &&
                   word_written(&x, c->off + j, j + 4 < c->len ? 4 : c->len - j) == w &&
                   (!x.objects && layout_area(s, layout_lo, c->space, c->lo + (uint32_t)j)) == lay)
                j = j + 4 < c->len ? j + 4 : c->len;
            if (!w && !x.objects) { /* (a named object is compared whole) */
                for (size_t b = i; b < j; b++)
                    res->image_bytes += x.va[c->off + b] != x.vb[c->off + b];
            } else if (!outr_add(&x, ci, i, j - i, lay)) {
                fail(o, "out of memory");
                goto out;
            }
            i = j;
        }
    }
    /* the fixed addresses first, then the area that a change of code moves */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < x.nout; i++) {
            const outr *r = &x.out[i];
            if (r->layout != (pass == 1)) continue;
            res->ranges++;
            res->bytes += r->len;
            if (pass) res->layout_ranges++;
            if (!o->quiet && (!o->max || res->shown < o->max)) {
                res->shown++;
                report_range(&x, r->ci, r->from, r->len, r->layout);
            }
        }
    rc = 0;
out:
    for (int k = 0; k < 2; k++) {
        vx_sim_free(x.m[k].sim);
        free(x.m[k].dirty.v);
        free(x.m[k].present.v);
        free(x.f[k].w);
        free(x.f[k].v);
        free(x.f[k].freel);
        free(x.f[k].left);
    }
    free(all.v);
    free(x.byb);
    free(x.c);
    free(x.out);
    free(x.va);
    free(x.vb);
    vxd_sb_release(&x.line);
    free(pa);
    free(pb);
    return rc;
}
