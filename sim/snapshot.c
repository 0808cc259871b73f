/*
 * snapshot.c - in-memory snapshots (replay checkpoints) and the portable state
 * encoding of trace keyframes (byte-exact spec: sim/STATE.md).
 *
 * A snapshot copies the register state and shares every memory page with the
 * live machine copy-on-write (the page reference counts go up; the next write
 * to a shared page copies it in vx_gmem_wpage_slow).  Saving costs the
 * register blocks plus the level-2 page tables; the pages written afterwards
 * are what a snapshot comes to own alone (vx_sim_snap_bytes).
 *
 * Restoring swaps page pointers back and marks every page whose pointer
 * changed as dirty, so keyframe tracking stays correct across a restore.
 */
#include <stdlib.h>
#include <string.h>
#include "sim_int.h"

struct vx_sim_snap {
    uint32_t nc, nw, nt;
    uint64_t index;
    size_t state_bytes;

    vx_core *cores;
    vx_warp *warps;
    uint32_t *xregs, *fregs, *dscratch, *pcsr, *resv;
    uint8_t *resv_ok;
    vx_ipdom *ipdom;
    uint64_t *ready;
    uint32_t *bar_count, *gbar_count, *gbar_need;
    uint8_t *gbar_rep;
    uint32_t nresv;
    uint64_t cycle;
    uint32_t core_pos;
    uint8_t cycle_issued;
    uint32_t nactive;
    uint8_t finished, end_kind, ebreak_halt;
    uint32_t exit_code;
    vx_fault fault;
    vx_sim_stats stats;
    uint32_t start_pc, arg;
    vx_conline console[VX_CONSOLE_SLOTS];
    vx_ptab mem;
    uint64_t npages;
    uint8_t *dm;
    size_t dm_len;
};

/* Sizes of the per-sim arrays, in one place for save, restore and free. */
typedef struct blocks {
    size_t cores, warps, xregs, fregs, dscratch, pcsr, resv, resv_ok, ipdom, ready, bar_count, gbar,
        gbar_rep;
} blocks;

static blocks sizes_of(const vx_sim *s)
{
    size_t ngw = s->ngw, nt = s->nt;
    blocks b;
    b.cores = s->nc * sizeof(vx_core);
    b.warps = ngw * sizeof(vx_warp);
    b.xregs = ngw * VX_XROWS * nt * sizeof(uint32_t);
    b.fregs = ngw * 32 * nt * sizeof(uint32_t);
    b.dscratch = ngw * 4 * nt * sizeof(uint32_t);
    b.pcsr = ngw * VX_PCSR_COUNT * sizeof(uint32_t);
    b.resv = ngw * nt * sizeof(uint32_t);
    b.resv_ok = ngw * nt;
    b.ipdom = ngw * s->ipcap * sizeof(vx_ipdom);
    b.ready = (size_t)s->nc * s->nww * sizeof(uint64_t);
    b.bar_count = (size_t)s->nc * 2 * s->nb * sizeof(uint32_t);
    b.gbar = s->nb * sizeof(uint32_t);
    b.gbar_rep = (size_t)s->nc * s->nb;
    return b;
}

static void *dup_mem(const void *p, size_t n)
{
    void *q = malloc(n ? n : 1);
    if (q && n) memcpy(q, p, n);
    return q;
}

void vx_sim_snap_free(vx_sim_snap *sn)
{
    if (!sn) return;
    for (uint32_t i = 0; i < VX_L1_SIZE; i++) {
        vx_page **l2 = sn->mem.l1[i];
        if (!l2) continue;
        for (uint32_t j = 0; j < VX_L2_SIZE; j++)
            vx_page_release(l2[j]);
        free(l2);
    }
    if (sn->cores)
        for (uint32_t c = 0; c < sn->nc; c++)
            for (uint32_t i = 0; i < VX_LMEM_PAGES; i++)
                vx_page_release(sn->cores[c].lmem[i]);
    for (uint32_t i = 0; i < VX_CONSOLE_SLOTS; i++)
        free(sn->console[i].data);
    free(sn->cores);
    free(sn->warps);
    free(sn->xregs);
    free(sn->fregs);
    free(sn->dscratch);
    free(sn->pcsr);
    free(sn->resv);
    free(sn->resv_ok);
    free(sn->ipdom);
    free(sn->ready);
    free(sn->bar_count);
    free(sn->gbar_count);
    free(sn->gbar_need);
    free(sn->gbar_rep);
    free(sn->dm);
    free(sn);
}

vx_err vx_sim_snap_save(vx_sim *s, vx_sim_snap **out)
{
    *out = NULL;
    vx_sim_snap *sn = calloc(1, sizeof *sn);
    if (!sn) return vx_sim_fail(s, VX_ERR_NOMEM, "out of memory saving a snapshot");
    blocks b = sizes_of(s);
    sn->nc = s->nc;
    sn->nw = s->nw;
    sn->nt = s->nt;
    sn->index = s->index;
    sn->cores = dup_mem(s->cores, b.cores);
    sn->warps = dup_mem(s->warps, b.warps);
    sn->xregs = dup_mem(s->xregs, b.xregs);
    sn->fregs = dup_mem(s->fregs, b.fregs);
    sn->dscratch = dup_mem(s->dscratch, b.dscratch);
    sn->pcsr = dup_mem(s->pcsr, b.pcsr);
    sn->resv = dup_mem(s->resv, b.resv);
    sn->resv_ok = dup_mem(s->resv_ok, b.resv_ok);
    sn->ipdom = dup_mem(s->ipdom, b.ipdom);
    sn->ready = dup_mem(s->ready, b.ready);
    sn->bar_count = dup_mem(s->bar_count, b.bar_count);
    sn->gbar_count = dup_mem(s->gbar_count, b.gbar);
    sn->gbar_need = dup_mem(s->gbar_need, b.gbar);
    sn->gbar_rep = dup_mem(s->gbar_rep, b.gbar_rep);
    sn->dm_len = vx_dm_state_size(s->dm);
    sn->dm = malloc(sn->dm_len ? sn->dm_len : 1);
    if (!sn->cores || !sn->warps || !sn->xregs || !sn->fregs || !sn->dscratch || !sn->pcsr ||
        !sn->resv || !sn->resv_ok || !sn->ipdom || !sn->ready || !sn->bar_count ||
        !sn->gbar_count || !sn->gbar_need || !sn->gbar_rep || !sn->dm) {
        if (sn->cores) memset(sn->cores, 0, b.cores); /* page refs not taken yet */
        vx_sim_snap_free(sn);
        return vx_sim_fail(s, VX_ERR_NOMEM, "out of memory saving a snapshot");
    }
    if (sn->dm_len) vx_dm_state_save(s->dm, sn->dm);
    for (uint32_t c = 0; c < s->nc; c++)
        for (uint32_t i = 0; i < VX_LMEM_PAGES; i++)
            if (sn->cores[c].lmem[i]) sn->cores[c].lmem[i]->refs++;
    for (uint32_t i = 0; i < VX_CONSOLE_SLOTS; i++) {
        const vx_conline *cb = &s->console[i];
        if (!cb->len) continue;
        sn->console[i].data = dup_mem(cb->data, cb->len);
        if (!sn->console[i].data) {
            vx_sim_snap_free(sn);
            return vx_sim_fail(s, VX_ERR_NOMEM, "out of memory saving a snapshot");
        }
        sn->console[i].len = sn->console[i].cap = cb->len;
    }
    for (uint32_t i = 0; i < VX_L1_SIZE; i++) {
        vx_page **l2 = s->mem.l1[i];
        if (!l2) continue;
        vx_page **c = malloc(VX_L2_SIZE * sizeof *c);
        if (!c) {
            vx_sim_snap_free(sn);
            return vx_sim_fail(s, VX_ERR_NOMEM, "out of memory saving a snapshot");
        }
        memcpy(c, l2, VX_L2_SIZE * sizeof *c);
        for (uint32_t j = 0; j < VX_L2_SIZE; j++)
            if (c[j]) c[j]->refs++;
        sn->mem.l1[i] = c;
    }
    sn->npages = s->npages;
    sn->nresv = s->nresv;
    sn->cycle = s->cycle;
    sn->core_pos = s->core_pos;
    sn->cycle_issued = s->cycle_issued;
    sn->nactive = s->nactive;
    sn->finished = s->finished;
    sn->end_kind = s->end_kind;
    sn->ebreak_halt = s->ebreak_halt;
    sn->exit_code = s->exit_code;
    sn->fault = s->fault;
    sn->stats = s->stats;
    sn->start_pc = s->cfg.start_pc;
    sn->arg = s->cfg.arg;
    sn->state_bytes = sizeof *sn + b.cores + b.warps + b.xregs + b.fregs + b.dscratch + b.pcsr +
                      b.resv + b.resv_ok + b.ipdom + b.ready + b.bar_count + 2 * b.gbar +
                      b.gbar_rep + sn->dm_len;
    for (uint32_t i = 0; i < VX_L1_SIZE; i++)
        if (sn->mem.l1[i]) sn->state_bytes += VX_L2_SIZE * sizeof(vx_page *);
    *out = sn;
    return VX_OK;
}

static void mark_dirty(vx_sim *s, uint32_t pn)
{
    s->dirty[pn >> 6] |= 1ull << (pn & 63);
}

vx_err vx_sim_snap_restore(vx_sim *s, const vx_sim_snap *sn)
{
    if (sn->nc != s->nc || sn->nw != s->nw || sn->nt != s->nt)
        return vx_sim_fail(s, VX_ERR_INVAL,
                           "snapshot of a %u-core %ux%u machine cannot restore into %u-core %ux%u",
                           sn->nc, sn->nw, sn->nt, s->nc, s->nw, s->nt);
    /* Memory: allocate every level-2 table first so nothing can fail half-way. */
    for (uint32_t i = 0; i < VX_L1_SIZE; i++)
        if (sn->mem.l1[i] && !s->mem.l1[i]) {
            s->mem.l1[i] = calloc(VX_L2_SIZE, sizeof(vx_page *));
            if (!s->mem.l1[i]) return vx_sim_fail(s, VX_ERR_NOMEM, "out of memory restoring");
        }
    for (uint32_t i = 0; i < VX_L1_SIZE; i++) {
        vx_page **l = s->mem.l1[i], **sl = sn->mem.l1[i];
        if (!l) continue;
        for (uint32_t j = 0; j < VX_L2_SIZE; j++) {
            vx_page *want = sl ? sl[j] : NULL;
            if (l[j] == want) continue;
            if (want) want->refs++;
            vx_page_release(l[j]);
            l[j] = want;
            mark_dirty(s, i * VX_L2_SIZE + j);
        }
        if (!sl) {
            free(l);
            s->mem.l1[i] = NULL;
        }
    }
    s->npages = sn->npages;
    s->fetch_pn = ~0u;
    blocks b = sizes_of(s);
    for (uint32_t c = 0; c < s->nc; c++) {
        vx_core *lc = &s->cores[c];
        uint8_t dirty = lc->lmem_dirty;
        for (uint32_t i = 0; i < VX_LMEM_PAGES; i++) {
            vx_page *want = sn->cores[c].lmem[i];
            if (lc->lmem[i] == want) continue;
            if (want) want->refs++;
            vx_page_release(lc->lmem[i]);
            lc->lmem[i] = want;
            dirty |= (uint8_t)(1u << i);
        }
        vx_page *keep[VX_LMEM_PAGES];
        memcpy(keep, lc->lmem, sizeof keep);
        *lc = sn->cores[c];
        memcpy(lc->lmem, keep, sizeof keep);
        lc->lmem_dirty = dirty;
    }
    memcpy(s->warps, sn->warps, b.warps);
    memcpy(s->xregs, sn->xregs, b.xregs);
    memcpy(s->fregs, sn->fregs, b.fregs);
    memcpy(s->dscratch, sn->dscratch, b.dscratch);
    memcpy(s->pcsr, sn->pcsr, b.pcsr);
    memcpy(s->resv, sn->resv, b.resv);
    memcpy(s->resv_ok, sn->resv_ok, b.resv_ok);
    memcpy(s->ipdom, sn->ipdom, b.ipdom);
    memcpy(s->ready, sn->ready, b.ready);
    for (uint32_t c = 0; c < s->nc; c++) {
        const uint64_t *rr = vx_ready_of(s, c);
        uint64_t any = 0, cb = 1ull << (c & 63);
        for (uint32_t i = 0; i < s->nww; i++)
            any |= rr[i];
        if (any)
            s->core_ready[c >> 6] |= cb;
        else
            s->core_ready[c >> 6] &= ~cb;
    }
    memcpy(s->bar_count, sn->bar_count, b.bar_count);
    memcpy(s->gbar_count, sn->gbar_count, b.gbar);
    memcpy(s->gbar_need, sn->gbar_need, b.gbar);
    memcpy(s->gbar_rep, sn->gbar_rep, b.gbar_rep);
    for (uint32_t i = 0; i < VX_CONSOLE_SLOTS; i++) {
        vx_conline *cb = &s->console[i];
        cb->len = 0;
        uint32_t n = sn->console[i].len;
        if (!n) continue;
        if (cb->cap < n) {
            char *nd = realloc(cb->data, n);
            if (!nd) continue; /* loses a partial console line, never the machine */
            cb->data = nd;
            cb->cap = n;
        }
        memcpy(cb->data, sn->console[i].data, n);
        cb->len = n;
    }
    s->nresv = sn->nresv;
    s->index = sn->index;
    s->cycle = sn->cycle;
    s->core_pos = sn->core_pos;
    s->cycle_issued = sn->cycle_issued;
    s->nactive = sn->nactive;
    s->finished = sn->finished;
    s->end_kind = sn->end_kind;
    s->ebreak_halt = sn->ebreak_halt;
    s->exit_code = sn->exit_code;
    s->fault = sn->fault;
    s->stats = sn->stats;
    s->cfg.start_pc = sn->start_pc;
    s->cfg.arg = sn->arg;
    if (sn->dm_len && sn->dm_len == vx_dm_state_size(s->dm)) vx_dm_state_restore(s->dm, sn->dm);
    return VX_OK;
}

uint64_t vx_sim_snap_index(const vx_sim_snap *sn)
{
    return sn->index;
}

uint64_t vx_sim_cow_pages(const vx_sim *s)
{
    return s->cow_pages;
}

size_t vx_sim_snap_bytes(const vx_sim_snap *sn)
{
    size_t n = sn->state_bytes;
    for (uint32_t i = 0; i < VX_L1_SIZE; i++) {
        vx_page **l2 = sn->mem.l1[i];
        if (!l2) continue;
        for (uint32_t j = 0; j < VX_L2_SIZE; j++)
            if (l2[j] && l2[j]->refs == 1) n += sizeof(vx_page);
    }
    for (uint32_t c = 0; c < sn->nc; c++)
        for (uint32_t i = 0; i < VX_LMEM_PAGES; i++)
            if (sn->cores[c].lmem[i] && sn->cores[c].lmem[i]->refs == 1) n += sizeof(vx_page);
    for (uint32_t i = 0; i < VX_CONSOLE_SLOTS; i++)
        n += sn->console[i].len;
    return n;
}

/* The page of table t at slot (i, j), or NULL. */
static const vx_page *pt_page(const vx_ptab *t, uint32_t i, uint32_t j)
{
    return t->l1[i] ? t->l1[i][j] : NULL;
}

size_t vx_sim_snap_bytes_beyond(const vx_sim *s, const vx_sim_snap *sn, const vx_sim_snap *prev)
{
    size_t n = sn->state_bytes;
    for (uint32_t i = 0; i < VX_L1_SIZE; i++) {
        vx_page **l2 = sn->mem.l1[i];
        if (!l2) continue;
        for (uint32_t j = 0; j < VX_L2_SIZE; j++) {
            const vx_page *p = l2[j];
            if (p && p != pt_page(&s->mem, i, j) && (!prev || p != pt_page(&prev->mem, i, j)))
                n += sizeof(vx_page);
        }
    }
    for (uint32_t c = 0; c < sn->nc; c++)
        for (uint32_t i = 0; i < VX_LMEM_PAGES; i++) {
            const vx_page *p = sn->cores[c].lmem[i];
            if (p && (c >= s->nc || p != s->cores[c].lmem[i]) &&
                (!prev || c >= prev->nc || p != prev->cores[c].lmem[i]))
                n += sizeof(vx_page);
        }
    for (uint32_t i = 0; i < VX_CONSOLE_SLOTS; i++)
        n += sn->console[i].len;
    return n;
}

/* ---- portable state encoding (sim/STATE.md) ---------------------------------------------------- */

#define STATE_MAGIC   "VXST"
#define STATE_VERSION 1u

typedef struct wbuf {
    uint8_t *p;
    size_t len, cap;
    bool oom;
} wbuf;

static void w_bytes(wbuf *w, const void *src, size_t n)
{
    if (w->oom) return;
    if (w->len + n > w->cap) {
        size_t nc = w->cap ? w->cap : 4096;
        while (nc < w->len + n)
            nc *= 2;
        uint8_t *np = realloc(w->p, nc);
        if (!np) {
            w->oom = true;
            return;
        }
        w->p = np;
        w->cap = nc;
    }
    if (n && src) memcpy(w->p + w->len, src, n); /* NULL: room only (w_u32s) */
    w->len += n;
}

static void w_u8(wbuf *w, uint32_t v)
{
    uint8_t b = (uint8_t)v;
    w_bytes(w, &b, 1);
}

static void w_u32(wbuf *w, uint32_t v)
{
    uint8_t b[4];
    vx_put_le32(b, v);
    w_bytes(w, b, 4);
}

/* n words, little-endian, with one capacity check (register rows) */
static void w_u32s(wbuf *w, const uint32_t *v, size_t n)
{
    size_t at = w->len;
    w_bytes(w, NULL, 4 * n);
    if (w->oom) return;
    for (size_t i = 0; i < n; i++)
        vx_put_le32(w->p + at + 4 * i, v[i]);
}

static void w_u64(wbuf *w, uint64_t v)
{
    uint8_t b[8];
    vx_put_le64(b, v);
    w_bytes(w, b, 8);
}

static void w_lanes(wbuf *w, vx_lanes m)
{
    w_u64(w, (uint64_t)m);
    w_u64(w, (uint64_t)(m >> 64));
}

typedef struct rbuf {
    const uint8_t *p;
    size_t len, pos;
    bool bad;
} rbuf;

static const uint8_t *r_take(rbuf *r, size_t n)
{
    if (r->bad || r->len - r->pos < n) {
        r->bad = true;
        return NULL;
    }
    const uint8_t *p = r->p + r->pos;
    r->pos += n;
    return p;
}

static uint32_t r_u8(rbuf *r)
{
    const uint8_t *p = r_take(r, 1);
    return p ? p[0] : 0;
}

static uint32_t r_u32(rbuf *r)
{
    const uint8_t *p = r_take(r, 4);
    return p ? vx_get_le32(p) : 0;
}

static uint64_t r_u64(rbuf *r)
{
    const uint8_t *p = r_take(r, 8);
    return p ? vx_get_le64(p) : 0;
}

static vx_lanes r_lanes(rbuf *r)
{
    uint64_t lo = r_u64(r), hi = r_u64(r);
    return (vx_lanes)lo | (vx_lanes)hi << 64;
}

vx_err vx_sim_state_encode(const vx_sim *s, uint8_t **buf, size_t *len)
{
    wbuf w = {0};
    *buf = NULL;
    *len = 0;
    uint32_t nt = s->nt;
    w_bytes(&w, STATE_MAGIC, 4);
    w_u32(&w, STATE_VERSION);
    w_u32(&w, s->cfg.clusters);
    w_u32(&w, s->cfg.cores);
    w_u32(&w, s->cfg.warps);
    w_u32(&w, s->cfg.threads);
    w_u32(&w, s->cfg.start_pc);
    w_u32(&w, s->cfg.arg);
    /* global */
    w_u64(&w, s->index);
    w_u64(&w, s->cycle);
    w_u32(&w, s->core_pos);
    w_u8(&w, s->cycle_issued);
    w_u8(&w, s->finished);
    w_u8(&w, s->end_kind);
    w_u8(&w, s->ebreak_halt);
    w_u32(&w, s->exit_code);
    const vx_fault *f = &s->fault;
    w_u8(&w, f->kind);
    w_u8(&w, f->signal);
    w_u32(&w, f->core);
    w_u32(&w, f->warp);
    w_u32(&w, f->pc);
    w_u32(&w, f->insn);
    w_u32(&w, f->addr);
    w_lanes(&w, f->lanes);
    size_t rl = strnlen(f->reason, sizeof f->reason - 1);
    w_u8(&w, (uint32_t)rl);
    w_bytes(&w, f->reason, rl);
    const vx_sim_stats *st = &s->stats;
    w_u64(&w, st->issues);
    w_u64(&w, st->lane_ops);
    w_u64(&w, st->splits);
    w_u64(&w, st->divergent_splits);
    w_u64(&w, st->joins);
    w_u64(&w, st->preds);
    w_u64(&w, st->barriers);
    w_u64(&w, st->spawns);
    /* cores */
    for (uint32_t c = 0; c < s->nc; c++) {
        const vx_core *k = &s->cores[c];
        w_u32(&w, k->last);
        w_u32(&w, k->mscratch);
        w_u64(&w, vx_core_minstret(s, c)); /* derived from the warps' counts */
        w_u8(&w, k->spawn_pending);
        w_u32(&w, k->spawn_n);
        w_u32(&w, k->spawn_pc);
        w_u32(&w, k->spawn_caller);
        for (uint32_t b = 0; b < 2 * s->nb; b++)
            w_u32(&w, s->bar_count[(size_t)c * 2 * s->nb + b]);
        for (uint32_t b = 0; b < s->nb; b++)
            w_u8(&w, s->gbar_rep[(size_t)c * s->nb + b]);
    }
    for (uint32_t b = 0; b < s->nb; b++) {
        w_u32(&w, s->gbar_count[b]);
        w_u32(&w, s->gbar_need[b]);
    }
    /* warps */
    for (uint32_t g = 0; g < s->ngw; g++) {
        const vx_warp *wp = &s->warps[g];
        w_u32(&w, wp->pc);
        w_lanes(&w, vx_warp_mask(wp));
        w_u8(&w,
             (uint32_t)(wp->active | wp->halted << 1 | wp->spawn_wait << 2 | wp->bar_wait << 3));
        w_u8(&w, wp->hacause);
        w_u32(&w, wp->bar_id);
        w_u8(&w, wp->fcsr);
        w_u64(&w, wp->issued);
        for (uint32_t i = 0; i < VX_PCSR_COUNT; i++)
            w_u32(&w, vx_pcsr_of(s, g)[i]);
        w_u32(&w, wp->depth);
        const vx_ipdom *e = vx_ipdom_of(s, g);
        for (uint32_t i = 0; i < wp->depth; i++) {
            w_lanes(&w, e[i].orig);
            w_lanes(&w, e[i].els);
            w_u32(&w, e[i].pc);
            w_u8(&w, e[i].fallthrough);
        }
        for (uint32_t r = 1; r < 32; r++)
            w_u32s(&w, vx_xrow(s, g, r), nt);
        for (uint32_t r = 0; r < 32; r++)
            w_u32s(&w, vx_frow(s, g, r), nt);
        w_u32s(&w, s->dscratch + (size_t)g * 4 * nt, 4 * (size_t)nt);
        for (uint32_t l = 0; l < nt; l++) {
            w_u8(&w, s->resv_ok[(size_t)g * nt + l]);
            w_u32(&w, s->resv[(size_t)g * nt + l]);
        }
    }
    /* console */
    for (uint32_t i = 0; i < VX_CONSOLE_SLOTS; i++) {
        w_u32(&w, s->console[i].len);
        w_bytes(&w, s->console[i].data, s->console[i].len);
    }
    /* Debug Module */
    size_t dl = vx_dm_state_size(s->dm);
    w_u32(&w, (uint32_t)dl);
    if (dl && !w.oom) {
        uint8_t *tmp = malloc(dl);
        if (!tmp) {
            w.oom = true;
        } else {
            vx_dm_state_save(s->dm, tmp);
            w_bytes(&w, tmp, dl);
            free(tmp);
        }
    }
    if (w.oom) {
        free(w.p);
        return VX_ERR_NOMEM;
    }
    *buf = w.p;
    *len = w.len;
    return VX_OK;
}

#define CORRUPT(...) vx_sim_fail(s, VX_ERR_CORRUPT, __VA_ARGS__)

vx_err vx_sim_state_decode(vx_sim *s, const uint8_t *buf, size_t len)
{
    rbuf r = {buf, len, 0, false};
    const uint8_t *m = r_take(&r, 4);
    if (!m || memcmp(m, STATE_MAGIC, 4))
        return vx_sim_fail(s, VX_ERR_FORMAT, "machine state does not start with '" STATE_MAGIC "'");
    uint32_t ver = r_u32(&r);
    if (ver != STATE_VERSION)
        return vx_sim_fail(s, VX_ERR_VERSION, "machine state version %u (this build reads %u)", ver,
                           STATE_VERSION);
    uint32_t cl = r_u32(&r), co = r_u32(&r), wa = r_u32(&r), th = r_u32(&r);
    if (r.bad) return CORRUPT("machine state truncated in its header (%zu bytes)", len);
    if (cl != s->cfg.clusters || co != s->cfg.cores || wa != s->cfg.warps || th != s->cfg.threads)
        return vx_sim_fail(s, VX_ERR_CONFIG,
                           "machine state is for a %ux%ux%ux%u platform, this one is %ux%ux%ux%u",
                           cl, co, wa, th, s->cfg.clusters, s->cfg.cores, s->cfg.warps,
                           s->cfg.threads);

    /* Decode into a scratch copy; apply only when everything was valid. */
    blocks b = sizes_of(s);
    vx_sim tmp = *s;
    tmp.cores = dup_mem(s->cores, b.cores);
    tmp.warps = calloc(1, b.warps ? b.warps : 1);
    tmp.xregs = calloc(1, b.xregs);
    tmp.fregs = calloc(1, b.fregs);
    tmp.dscratch = calloc(1, b.dscratch);
    tmp.pcsr = calloc(1, b.pcsr);
    tmp.resv = calloc(1, b.resv);
    tmp.resv_ok = calloc(1, b.resv_ok);
    tmp.ipdom = calloc(1, b.ipdom);
    tmp.ready = calloc(1, b.ready);
    tmp.bar_count = calloc(1, b.bar_count);
    tmp.gbar_count = calloc(1, b.gbar);
    tmp.gbar_need = calloc(1, b.gbar);
    tmp.gbar_rep = calloc(1, b.gbar_rep);
    vx_conline con[VX_CONSOLE_SLOTS];
    memset(con, 0, sizeof con);
    uint8_t *dmbuf = NULL;
    vx_err err = VX_OK;
    uint32_t nt = s->nt;
    if (!tmp.cores || !tmp.warps || !tmp.xregs || !tmp.fregs || !tmp.dscratch || !tmp.pcsr ||
        !tmp.resv || !tmp.resv_ok || !tmp.ipdom || !tmp.ready || !tmp.bar_count ||
        !tmp.gbar_count || !tmp.gbar_need || !tmp.gbar_rep) {
        err = vx_sim_fail(s, VX_ERR_NOMEM, "out of memory decoding machine state");
        goto out;
    }
    tmp.cfg.start_pc = r_u32(&r);
    tmp.cfg.arg = r_u32(&r);
    tmp.index = r_u64(&r);
    tmp.cycle = r_u64(&r);
    tmp.core_pos = r_u32(&r);
    tmp.cycle_issued = (uint8_t)r_u8(&r);
    tmp.finished = (uint8_t)r_u8(&r);
    tmp.end_kind = (uint8_t)r_u8(&r);
    tmp.ebreak_halt = (uint8_t)r_u8(&r);
    tmp.exit_code = r_u32(&r);
    vx_fault *f = &tmp.fault;
    memset(f, 0, sizeof *f);
    f->kind = (uint8_t)r_u8(&r);
    f->signal = (uint8_t)r_u8(&r);
    f->core = r_u32(&r);
    f->warp = r_u32(&r);
    f->pc = r_u32(&r);
    f->insn = r_u32(&r);
    f->addr = r_u32(&r);
    f->lanes = r_lanes(&r);
    uint32_t rl = r_u8(&r);
    const uint8_t *rs = r_take(&r, rl);
    bool long_reason = false;
    if (rs && rl < sizeof f->reason)
        memcpy(f->reason, rs, rl);
    else if (rs)
        long_reason = true;
    vx_sim_stats *st = &tmp.stats;
    memset(st, 0, sizeof *st);
    st->issues = r_u64(&r);
    st->lane_ops = r_u64(&r);
    st->splits = r_u64(&r);
    st->divergent_splits = r_u64(&r);
    st->joins = r_u64(&r);
    st->preds = r_u64(&r);
    st->barriers = r_u64(&r);
    st->spawns = r_u64(&r);
    if (r.bad) {
        err = CORRUPT("machine state truncated in its global part");
        goto out;
    }
    if (long_reason) {
        err = CORRUPT("machine state's fault reason has %u bytes (at most %zu)", (unsigned)rl,
                      sizeof f->reason - 1);
        goto out;
    }
    if (tmp.core_pos > s->nc || tmp.finished > 1 || tmp.end_kind > VX_END_ABORT ||
        f->kind > VX_FAULT_CONSOLE) {
        err = CORRUPT("machine state has an invalid global field (core position %u)", tmp.core_pos);
        goto out;
    }
    for (uint32_t c = 0; c < s->nc; c++) {
        vx_core *k = &tmp.cores[c];
        k->last = r_u32(&r);
        k->mscratch = r_u32(&r);
        (void)r_u64(&r); /* minstret: derived from the warps' issue counts */
        k->spawn_pending = (uint8_t)r_u8(&r);
        k->spawn_n = r_u32(&r);
        k->spawn_pc = r_u32(&r);
        k->spawn_caller = r_u32(&r);
        for (uint32_t i = 0; i < 2 * s->nb; i++)
            tmp.bar_count[(size_t)c * 2 * s->nb + i] = r_u32(&r);
        for (uint32_t i = 0; i < s->nb; i++)
            tmp.gbar_rep[(size_t)c * s->nb + i] = (uint8_t)r_u8(&r);
        if (!r.bad && (k->last >= s->nw || k->spawn_pending > 1 || k->spawn_caller >= s->nw ||
                       k->spawn_n > s->nw)) {
            err = CORRUPT("machine state: core %u has an invalid field", c);
            goto out;
        }
    }
    for (uint32_t i = 0; i < s->nb; i++) {
        tmp.gbar_count[i] = r_u32(&r);
        tmp.gbar_need[i] = r_u32(&r);
    }
    for (uint32_t g = 0; g < s->ngw && !r.bad; g++) {
        vx_warp *wp = &tmp.warps[g];
        wp->pc = r_u32(&r);
        vx_warp_set_mask(wp, r_lanes(&r));
        uint32_t fl = r_u8(&r);
        wp->active = fl & 1;
        wp->halted = (fl >> 1) & 1;
        wp->spawn_wait = (fl >> 2) & 1;
        wp->bar_wait = (fl >> 3) & 1;
        wp->hacause = (uint8_t)r_u8(&r);
        wp->bar_id = r_u32(&r);
        wp->fcsr = (uint8_t)r_u8(&r);
        wp->issued = r_u64(&r);
        for (uint32_t i = 0; i < VX_PCSR_COUNT; i++)
            vx_pcsr_of(&tmp, g)[i] = r_u32(&r);
        wp->depth = r_u32(&r);
        if (r.bad) break;
        if (fl > 15 || (vx_warp_mask(wp) & ~s->allmask) || wp->depth > s->ipcap ||
            (wp->active && !vx_warp_mask(wp))) {
            err = CORRUPT("machine state: warp %u has an invalid field", g);
            goto out;
        }
        vx_ipdom *e = vx_ipdom_of(&tmp, g);
        for (uint32_t i = 0; i < wp->depth; i++) {
            e[i].orig = r_lanes(&r);
            e[i].els = r_lanes(&r);
            e[i].pc = r_u32(&r);
            e[i].fallthrough = r_u8(&r);
        }
        for (uint32_t rr = 1; rr < 32; rr++) {
            uint32_t *row = vx_xrow(&tmp, g, rr);
            for (uint32_t l = 0; l < nt; l++)
                row[l] = r_u32(&r);
        }
        for (uint32_t rr = 0; rr < 32; rr++) {
            uint32_t *row = vx_frow(&tmp, g, rr);
            for (uint32_t l = 0; l < nt; l++)
                row[l] = r_u32(&r);
        }
        for (uint32_t i = 0; i < 4; i++)
            for (uint32_t l = 0; l < nt; l++)
                tmp.dscratch[((size_t)g * 4 + i) * nt + l] = r_u32(&r);
        for (uint32_t l = 0; l < nt; l++) {
            tmp.resv_ok[(size_t)g * nt + l] = (uint8_t)(r_u8(&r) != 0);
            tmp.resv[(size_t)g * nt + l] = r_u32(&r);
        }
    }
    for (uint32_t i = 0; i < VX_CONSOLE_SLOTS && !r.bad; i++) {
        uint32_t n = r_u32(&r);
        const uint8_t *p = r_take(&r, n);
        if (!p) break;
        if (n > VX_CONSOLE_MAXLINE) {
            err = CORRUPT("machine state: console slot %u holds %u bytes", i, n);
            goto out;
        }
        if (n) {
            con[i].data = dup_mem(p, n);
            if (!con[i].data) {
                err = vx_sim_fail(s, VX_ERR_NOMEM, "out of memory decoding machine state");
                goto out;
            }
            con[i].len = con[i].cap = n;
        }
    }
    uint32_t dl = r_u32(&r);
    const uint8_t *dp = r_take(&r, dl);
    if (r.bad) {
        err = CORRUPT("machine state truncated (%zu bytes)", len);
        goto out;
    }
    if (r.pos != len) {
        err = CORRUPT("machine state has %zu trailing bytes", len - r.pos);
        goto out;
    }
    if (dl && dl != vx_dm_state_size(s->dm)) {
        err = CORRUPT("machine state: Debug Module state of %u bytes, expected %zu", dl,
                      vx_dm_state_size(s->dm));
        goto out;
    }

    /* Valid: apply.  Derived state (active counts, ready bitmaps, reservations) is recomputed. */
    for (uint32_t c = 0; c < s->nc; c++) {
        vx_core *k = &s->cores[c];
        vx_page *keep[VX_LMEM_PAGES];
        uint8_t dirty = k->lmem_dirty;
        memcpy(keep, k->lmem, sizeof keep);
        *k = tmp.cores[c];
        memcpy(k->lmem, keep, sizeof keep);
        k->lmem_dirty = dirty;
        k->nactive = 0;
    }
    memcpy(s->warps, tmp.warps, b.warps);
    memcpy(s->xregs, tmp.xregs, b.xregs);
    memcpy(s->fregs, tmp.fregs, b.fregs);
    memcpy(s->dscratch, tmp.dscratch, b.dscratch);
    memcpy(s->pcsr, tmp.pcsr, b.pcsr);
    memcpy(s->resv, tmp.resv, b.resv);
    memcpy(s->resv_ok, tmp.resv_ok, b.resv_ok);
    memcpy(s->ipdom, tmp.ipdom, b.ipdom);
    memcpy(s->bar_count, tmp.bar_count, b.bar_count);
    memcpy(s->gbar_count, tmp.gbar_count, b.gbar);
    memcpy(s->gbar_need, tmp.gbar_need, b.gbar);
    memcpy(s->gbar_rep, tmp.gbar_rep, b.gbar_rep);
    s->cfg.start_pc = tmp.cfg.start_pc;
    s->cfg.arg = tmp.cfg.arg;
    s->index = tmp.index;
    s->cycle = tmp.cycle;
    s->core_pos = tmp.core_pos;
    s->cycle_issued = tmp.cycle_issued;
    s->finished = tmp.finished;
    s->end_kind = tmp.end_kind;
    s->ebreak_halt = tmp.ebreak_halt;
    s->exit_code = tmp.exit_code;
    s->fault = tmp.fault;
    s->stats = tmp.stats;
    s->nactive = 0;
    s->nresv = 0;
    memset(s->ready, 0, b.ready);
    for (uint32_t g = 0; g < s->ngw; g++) {
        if (s->warps[g].active) {
            s->cores[g / s->nw].nactive++;
            s->nactive++;
        }
        vx_sched_update(s, g);
    }
    for (size_t i = 0; i < (size_t)s->ngw * nt; i++)
        s->nresv += s->resv_ok[i];
    for (uint32_t i = 0; i < VX_CONSOLE_SLOTS; i++) {
        free(s->console[i].data);
        s->console[i] = con[i];
        con[i].data = NULL;
    }
    if (dl) {
        dmbuf = dup_mem(dp, dl);
        if (dmbuf) vx_dm_state_restore(s->dm, dmbuf);
    }
    s->fetch_pn = ~0u;
out:
    for (uint32_t i = 0; i < VX_CONSOLE_SLOTS; i++)
        free(con[i].data);
    free(dmbuf);
    free(tmp.cores);
    free(tmp.warps);
    free(tmp.xregs);
    free(tmp.fregs);
    free(tmp.dscratch);
    free(tmp.pcsr);
    free(tmp.resv);
    free(tmp.resv_ok);
    free(tmp.ipdom);
    free(tmp.ready);
    free(tmp.bar_count);
    free(tmp.gbar_count);
    free(tmp.gbar_need);
    free(tmp.gbar_rep);
    return err;
}
