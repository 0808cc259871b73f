/*
 * t-engine.c - the replay engine (replay/engine.c) against an independent reference.
 *
 * The test records a kernel itself with libvxsim + libvxtrace, stepping the
 * simulator one issue at a time and hashing the architectural state (every
 * warp's PC, mask, IPDOM depth, x and f registers of every lane) before each
 * issue, plus full memory copies at a few positions, and logging every issue's
 * PC and every memory read and write.  The engine must then rebuild exactly
 * those states at any position, in any order, forward and backward, and find
 * the breakpoint and watchpoint stops that the logs predict.
 */
#include "../../replay/engine.h"
#include "tap.h"
#include "vx_trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NONE UINT64_MAX

typedef struct memacc {
    uint64_t idx;
    uint32_t addr, core;
    uint8_t size, lane;
    bool write;
} memacc;

typedef struct page {
    uint32_t space, addr;
    uint8_t data[VX_PAGE_SIZE];
} page;

typedef struct memsample {
    uint64_t pos;
    page *pages;
    size_t n;
} memsample;

typedef struct ref {
    uint32_t T, W, ngw;
    uint64_t n;        /* issues */
    uint64_t *hash;    /* [n + 1] state hash before each issue, and at the end */
    uint32_t *pc, *gw; /* [n] */
    memacc *acc;
    size_t nacc, capacc;
    memsample samples[8];
    int nsamples;
    uint64_t tamper_at; /* change the first commit at or after this event */
    uint64_t tampered;  /* the event actually changed (NONE: none) */
    vx_trace_writer *w;
    vx_err werr;
} ref;

static uint64_t fnv(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t hash_state(const vx_sim *sim)
{
    const vx_sim_config *c = vx_sim_get_config(sim);
    uint64_t h = 0xcbf29ce484222325ull;
    uint32_t ngw = vx_sim_num_warps(sim);
    for (uint32_t g = 0; g < ngw; g++) {
        vx_warp_info wi;
        if (vx_sim_warp_info(sim, g, &wi) != VX_OK) return 0;
        h = fnv(h, wi.active | (uint64_t)wi.halted << 1 | (uint64_t)wi.stalled << 2);
        h = fnv(h, wi.pc);
        h = fnv(h, (uint64_t)wi.tmask);
        h = fnv(h, (uint64_t)(wi.tmask >> 64));
        h = fnv(h, wi.ipdom_depth);
        for (uint32_t l = 0; l < c->threads; l++) {
            for (uint32_t r = 1; r < 32; r++) {
                uint32_t v = 0;
                vx_sim_reg_read(sim, g, l, VX_RF_X, r, &v);
                h = fnv(h, v);
                vx_sim_reg_read(sim, g, l, VX_RF_F, r, &v);
                h = fnv(h, v);
            }
        }
    }
    return h;
}

typedef struct pagevec {
    page *v;
    size_t n, cap;
} pagevec;

static void collect_page(void *ctx, uint32_t space, uint32_t addr, const uint8_t *data)
{
    pagevec *pv = ctx;
    static const uint8_t zero[VX_PAGE_SIZE];
    if (memcmp(data, zero, VX_PAGE_SIZE) == 0) return;
    if (pv->n == pv->cap) {
        pv->cap = pv->cap ? pv->cap * 2 : 16;
        pv->v = realloc(pv->v, pv->cap * sizeof *pv->v);
    }
    pv->v[pv->n].space = space;
    pv->v[pv->n].addr = addr;
    memcpy(pv->v[pv->n].data, data, VX_PAGE_SIZE);
    pv->n++;
}

static int page_cmp(const void *a, const void *b)
{
    const page *x = a, *y = b;
    if (x->space != y->space) return x->space < y->space ? -1 : 1;
    if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
    return 0;
}

static pagevec all_pages(const vx_sim *sim)
{
    pagevec pv = {0};
    vx_sim_visit_pages(sim, true, collect_page, &pv);
    if (pv.n) qsort(pv.v, pv.n, sizeof *pv.v, page_cmp);
    return pv;
}

static bool same_memory(const vx_sim *sim, const memsample *m)
{
    pagevec pv = all_pages(sim);
    bool same = pv.n == m->n;
    for (size_t i = 0; same && i < pv.n; i++)
        same = pv.v[i].space == m->pages[i].space && pv.v[i].addr == m->pages[i].addr &&
               memcmp(pv.v[i].data, m->pages[i].data, VX_PAGE_SIZE) == 0;
    free(pv.v);
    return same;
}

static void obs(void *ctx, const vx_event *ev)
{
    ref *r = ctx;
    if (r->werr) return;
    vx_event copy = *ev;
    vx_commit c0;
    uint32_t vals[VX_MAX_THREADS];
    if (ev->kind == VX_EV_ISSUE) {
        for (uint32_t i = 0; i < ev->nreads; i++) {
            if (r->nacc == r->capacc) {
                r->capacc = r->capacc ? r->capacc * 2 : 1024;
                r->acc = realloc(r->acc, r->capacc * sizeof *r->acc);
            }
            r->acc[r->nacc++] = (memacc){ev->index,         ev->reads[i].addr, ev->core,
                                         ev->reads[i].size, ev->reads[i].lane, false};
        }
        for (uint32_t i = 0; i < ev->nmem; i++) {
            if (r->nacc == r->capacc) {
                r->capacc = r->capacc ? r->capacc * 2 : 1024;
                r->acc = realloc(r->acc, r->capacc * sizeof *r->acc);
            }
            r->acc[r->nacc++] = (memacc){ev->index,       ev->mem[i].addr, ev->core,
                                         ev->mem[i].size, ev->mem[i].lane, true};
        }
        if (ev->index >= r->tamper_at && r->tampered == NONE && ev->ncommits) {
            r->tampered = ev->index;
            /* flip one recorded register value: replay must notice */
            c0 = ev->commits[0];
            memcpy(vals, c0.values, r->T * sizeof *vals);
            vals[vx_lanes_first(c0.lanes)] ^= 0x10;
            c0.values = vals;
            vx_commit cs[VX_TRACE_MAX_COMMITS];
            memcpy(cs, ev->commits, ev->ncommits * sizeof *cs);
            cs[0] = c0;
            copy.commits = cs;
            r->werr = vx_trace_writer_event(r->w, &copy);
            return;
        }
    }
    r->werr = vx_trace_writer_event(r->w, &copy);
}

static void kf_page(void *ctx, uint32_t space, uint32_t addr, const uint8_t *data)
{
    ref *r = ctx;
    if (!r->werr) r->werr = vx_trace_writer_keyframe_page(r->w, space, addr, data);
}

static bool keyframe(ref *r, vx_sim *sim, bool all)
{
    uint8_t *st;
    size_t len;
    if (vx_sim_state_encode(sim, &st, &len) != VX_OK) return false;
    r->werr = vx_trace_writer_keyframe_begin(r->w, vx_sim_cycle(sim), st, len);
    free(st);
    vx_sim_visit_pages(sim, all, kf_page, r);
    vx_sim_clear_dirty(sim);
    if (!r->werr) r->werr = vx_trace_writer_keyframe_end(r->w);
    return r->werr == VX_OK;
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n + 1);
    if (fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* Record image into out with the reference logs. */
static bool record(const uint8_t *img, size_t len, vx_image_kind kind, uint32_t cores,
                   uint32_t warps, uint32_t threads, uint64_t kf_interval, uint64_t tamper_at,
                   const char *out, ref *r)
{
    memset(r, 0, sizeof *r);
    r->tamper_at = tamper_at;
    r->tampered = NONE;
    vx_sim_config cfg = VX_SIM_CONFIG_INIT;
    cfg.cores = cores;
    cfg.warps = warps;
    cfg.threads = threads;
    vx_sim *sim;
    if (vx_sim_new(&cfg, &sim) != VX_OK) return false;
    uint32_t entry;
    if (vx_sim_load_image(sim, "kernel", kind, img, len, &entry) != VX_OK) {
        diag("load: %s", vx_sim_errmsg(sim));
        return false;
    }
    r->T = threads;
    r->W = warps;
    r->ngw = vx_sim_num_warps(sim);
    vx_trace_writer_new(&r->w);
    vx_trace_writer_opts wo = VX_TRACE_WRITER_OPTS_INIT;
    wo.flags = VX_TRACE_W_FORCE;
    if (vx_trace_writer_create(r->w, out, &wo) != VX_OK) return false;
    vx_trace_header h;
    memset(&h, 0, sizeof h);
    h.clusters = 1;
    h.cores = cores;
    h.warps = warps;
    h.threads = threads;
    h.start_pc = entry;
    h.keyframe_interval = kf_interval;
    h.image_kind = (uint8_t)kind;
    h.image_name = "kernel";
    h.image = img;
    h.image_len = len;
    h.sim_version = VX_VERSION_STRING;
    if (vx_trace_writer_header(r->w, &h) != VX_OK) {
        diag("header: %s", vx_trace_writer_errmsg(r->w));
        return false;
    }
    if (!keyframe(r, sim, true)) return false;
    vx_sim_set_observer(sim, obs, r, VX_OBS_READS);
    size_t cap = 1024;
    r->hash = malloc((cap + 1) * sizeof *r->hash);
    r->pc = malloc(cap * sizeof *r->pc);
    r->gw = malloc(cap * sizeof *r->gw);
    for (;;) {
        uint64_t p = vx_sim_index(sim);
        if (p >= cap) {
            cap *= 2;
            r->hash = realloc(r->hash, (cap + 1) * sizeof *r->hash);
            r->pc = realloc(r->pc, cap * sizeof *r->pc);
            r->gw = realloc(r->gw, cap * sizeof *r->gw);
        }
        r->hash[p] = hash_state(sim);
        if (p % 3000 == 1500 && r->nsamples < 8) {
            pagevec pv = all_pages(sim);
            r->samples[r->nsamples++] = (memsample){p, pv.v, pv.n};
        }
        vx_stop st;
        if (vx_sim_run(sim, 1, &st) != VX_OK) return false;
        if (st.issued) {
            /* the issue just done is p (its PC and warp are in the memacc log via obs) */
        }
        if (st.reason == VX_STOP_FAULT) {
            r->n = p; /* the faulting issue never executes in replay */
            break;
        }
        if (st.reason != VX_STOP_NONE) {
            r->n = vx_sim_index(sim);
            r->hash[r->n] = hash_state(sim);
            break;
        }
        if (kf_interval && vx_sim_index(sim) % kf_interval == 0 && !keyframe(r, sim, false))
            return false;
    }
    vx_sim_free(sim);
    if (r->werr) {
        diag("writer: %s", vx_trace_writer_errmsg(r->w));
        return false;
    }
    vx_err err = vx_trace_writer_finish(r->w);
    vx_trace_writer_free(r->w);
    r->w = NULL;
    return err == VX_OK;
}

/* PCs and warps of every issue, from the trace itself (an independent reader pass). */
static bool load_pcs(const char *path, ref *r)
{
    vx_trace_reader *rd;
    vx_trace_reader_new(&rd);
    if (vx_trace_reader_open(rd, path) != VX_OK) return false;
    const vx_event *ev;
    while (vx_trace_reader_next(rd, &ev) == VX_OK) {
        if (ev->kind != VX_EV_ISSUE || ev->index >= r->n) continue;
        r->pc[ev->index] = ev->pc;
        r->gw[ev->index] = ev->core * r->W + ev->warp;
    }
    vx_trace_reader_free(rd);
    return true;
}

static void ref_free(ref *r)
{
    free(r->hash);
    free(r->pc);
    free(r->gw);
    free(r->acc);
    for (int i = 0; i < r->nsamples; i++)
        free(r->samples[i].pages);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(uint64_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return n ? rng % n : 0;
}

static bool at_hash(vx_engine *e, const ref *r)
{
    return hash_state(vx_engine_sim(e)) == r->hash[vx_engine_now(e)];
}

static vx_err move(vx_engine *e, bool back, bool step, uint32_t gw, vx_engine_stop *st)
{
    vx_engine_motion m;
    memset(&m, 0, sizeof m);
    m.backward = back;
    m.step = step;
    m.step_gwarp = gw;
    m.only_gwarp = VX_ENGINE_ANY_WARP;
    return vx_engine_resume(e, &m, st);
}

static int polls_left = -1;

static bool poll_fn(void *ctx)
{
    (void)ctx;
    return polls_left >= 0 && polls_left-- == 0;
}

/* A breakpoint filter (conditions) that always holds: backward searches re-execute. */
static bool any_lane(void *ctx, uint32_t gwarp, uint32_t pc)
{
    (void)ctx;
    (void)gwarp;
    (void)pc;
    return true;
}

/* Seeks, steps and continues on a recorded kernel; mem_budget 0 = default. */
static void check_kernel(const char *name, uint32_t cores, uint32_t warps, uint32_t threads,
                         uint64_t kf, uint64_t budget)
{
    char kpath[256], tpath[256];
    snprintf(kpath, sizeof kpath, "build/kernels/%s.elf", name);
    snprintf(tpath, sizeof tpath, "/tmp/t-engine-%d-%s.vxt", (int)getpid(), name);
    size_t len;
    uint8_t *img = read_file(kpath, &len);
    if (!img) {
        skip(1, "kernel not built (make kernels)");
        return;
    }
    ref r;
    bool recorded = record(img, len, VX_IMAGE_ELF, cores, warps, threads, kf, NONE, tpath, &r);
    ok(recorded, "%s: recorded %" PRIu64 " issues (%ux%ux%u, keyframes every %" PRIu64 ")", name,
       r.n, cores, warps, threads, kf);
    free(img);
    if (!recorded || !load_pcs(tpath, &r)) return;
    vx_engine_opts eo = {.mem_budget = budget, .no_summary_file = true};
    vx_engine *e;
    char msg[512];
    vx_err err = vx_engine_open(tpath, &eo, &e, msg, sizeof msg);
    if (!ok(err == VX_OK, "%s: engine opens the trace", name)) diag("%s", msg);
    if (err) return;
    is_u64(vx_engine_end(e), r.n, "%s: end of history = number of issues", name);
    ok(at_hash(e, &r), "%s: state at event 0", name);

    /* random seeks */
    int bad = 0;
    for (int i = 0; i < 150; i++) {
        uint64_t p = rnd(r.n + 1);
        if (vx_engine_seek(e, p) != VX_OK || vx_engine_now(e) != p || !at_hash(e, &r)) {
            if (!bad)
                diag("seek %" PRIu64 ": now %" PRIu64 ", %s", p, vx_engine_now(e),
                     vx_engine_errmsg(e));
            bad++;
        }
    }
    is_int(bad, 0, "%s: 150 random seeks rebuild the recorded state", name);
    bad = 0;
    for (int i = 0; i < r.nsamples; i++) {
        vx_engine_seek(e, r.samples[i].pos);
        if (!same_memory(vx_engine_sim(e), &r.samples[i])) bad++;
    }
    ok(r.nsamples > 0 && bad == 0, "%s: memory identical at %d sampled positions", name,
       r.nsamples);

    /* step any warp forward 300 times, then back 300 times, then forward again */
    uint64_t start = r.n / 3;
    vx_engine_seek(e, start);
    vx_engine_stop st;
    bad = 0;
    for (int i = 0; i < 300 && start + (uint64_t)i < r.n; i++) {
        if (move(e, false, true, VX_ENGINE_ANY_WARP, &st) || st.why != VX_WHY_STEP ||
            vx_engine_now(e) != start + (uint64_t)i + 1 || !at_hash(e, &r))
            bad++;
    }
    is_int(bad, 0, "%s: 300 forward steps", name);
    uint64_t top = vx_engine_now(e);
    bad = 0;
    for (uint64_t p = top; p > start; p--) {
        if (move(e, true, true, VX_ENGINE_ANY_WARP, &st) || st.why != VX_WHY_STEP ||
            vx_engine_now(e) != p - 1 || !at_hash(e, &r))
            bad++;
    }
    is_int(bad, 0, "%s: 300 reverse steps retrace the same states", name);
    bad = 0;
    for (uint64_t p = start; p < top; p++) {
        if (move(e, false, true, VX_ENGINE_ANY_WARP, &st) || vx_engine_now(e) != p + 1 ||
            !at_hash(e, &r))
            bad++;
    }
    is_int(bad, 0, "%s: forward again gives the same states", name);

    /* per-warp steps: warp 1 (if it ever issues) */
    uint32_t w = r.ngw > 1 ? 1 : 0;
    uint64_t p0 = r.n / 2;
    vx_engine_seek(e, p0);
    uint64_t want = NONE;
    for (uint64_t t = p0; t < r.n; t++)
        if (r.gw[t] == w) {
            want = t + 1;
            break;
        }
    move(e, false, true, w, &st);
    if (want != NONE)
        ok(st.why == VX_WHY_STEP && vx_engine_now(e) == want && at_hash(e, &r),
           "%s: step of warp %u lands after its next issue (%" PRIu64 ")", name, w, want);
    else
        ok(st.why == VX_WHY_END && vx_engine_now(e) == r.n,
           "%s: step of a warp with no more issues ends", name);
    vx_engine_seek(e, p0);
    want = NONE;
    for (uint64_t t = p0; t-- > 0;)
        if (r.gw[t] == w) {
            want = t;
            break;
        }
    move(e, true, true, w, &st);
    if (want != NONE)
        ok(st.why == VX_WHY_STEP && vx_engine_now(e) == want && at_hash(e, &r),
           "%s: reverse step of warp %u lands before its previous issue (%" PRIu64 ")", name, w,
           want);
    else
        ok(st.why == VX_WHY_BEGIN, "%s: reverse step of a warp with no earlier issue", name);

    /* breakpoint on the PC of the issue at 2n/3, hit by whichever warps run it */
    uint32_t bp = r.pc[2 * r.n / 3];
    vx_engine_break_insert(e, bp, VX_ENGINE_ANY_WARP);
    uint64_t first = NONE, second = NONE, last = NONE, before_last = NONE;
    for (uint64_t t = 0; t < r.n; t++)
        if (r.pc[t] == bp) {
            if (first == NONE)
                first = t;
            else if (second == NONE)
                second = t;
            before_last = last;
            last = t;
        }
    vx_engine_seek(e, 0);
    move(e, false, false, 0, &st);
    ok(st.why == VX_WHY_BREAK && vx_engine_now(e) == first && st.gwarp == r.gw[first] &&
           at_hash(e, &r),
       "%s: continue stops at the first hit of 0x%08x (event %" PRIu64 ")", name, bp, first);
    move(e, false, false, 0, &st);
    if (second != NONE)
        ok(st.why == VX_WHY_BREAK && vx_engine_now(e) == second,
           "%s: continue again: next hit (%" PRIu64 ")", name, second);
    else
        ok(st.why == VX_WHY_END, "%s: continue again: end", name);
    vx_engine_seek(e, r.n);
    move(e, true, false, 0, &st);
    ok(st.why == VX_WHY_BREAK && vx_engine_now(e) == last && st.gwarp == r.gw[last] &&
           at_hash(e, &r),
       "%s: reverse-continue from the end stops at the last hit (%" PRIu64 ")", name, last);
    move(e, true, false, 0, &st);
    if (before_last != NONE)
        ok(st.why == VX_WHY_BREAK && vx_engine_now(e) == before_last,
           "%s: reverse-continue again: the hit before (%" PRIu64 ")", name, before_last);
    else
        ok(st.why == VX_WHY_BEGIN, "%s: reverse-continue again: start of history", name);
    vx_engine_break_remove(e, bp, VX_ENGINE_ANY_WARP);
    /* a breakpoint for one global warp (engine.h): the first hit of another warp at the
     * same pc does not stop; that warp's first hit does, both ways */
    uint64_t wfirst = NONE;
    for (uint64_t t = 0; t < r.n && wfirst == NONE; t++)
        if (r.pc[t] == bp && r.gw[t] != r.gw[first]) wfirst = t;
    if (wfirst != NONE) {
        vx_engine_break_insert(e, bp, r.gw[wfirst]);
        vx_engine_seek(e, 0);
        move(e, false, false, 0, &st);
        ok(st.why == VX_WHY_BREAK && vx_engine_now(e) == wfirst && st.gwarp == r.gw[wfirst],
           "%s: a breakpoint of warp %u stops at its first hit (%" PRIu64 "), not warp %u's", name,
           r.gw[wfirst], wfirst, r.gw[first]);
        uint64_t wl = NONE;
        for (uint64_t t = 0; t < r.n; t++)
            if (r.pc[t] == bp && r.gw[t] == r.gw[wfirst]) wl = t;
        vx_engine_seek(e, r.n);
        move(e, true, false, 0, &st);
        ok(st.why == VX_WHY_BREAK && vx_engine_now(e) == wl && st.gwarp == r.gw[wfirst],
           "%s: reverse-continue: its last hit (%" PRIu64 ")", name, wl);
        vx_engine_break_remove(e, bp, r.gw[wfirst]);
    } else {
        skip(2, "one warp only runs the breakpoint's pc");
    }
    /* inserting twice needs two removes (engine.h): one remove leaves it armed */
    vx_engine_break_insert(e, bp, VX_ENGINE_ANY_WARP);
    vx_engine_break_insert(e, bp, VX_ENGINE_ANY_WARP);
    vx_err rm1 = vx_engine_break_remove(e, bp, VX_ENGINE_ANY_WARP);
    vx_engine_seek(e, 0);
    move(e, false, false, 0, &st);
    ok(rm1 == VX_OK && st.why == VX_WHY_BREAK && vx_engine_now(e) == first,
       "%s: a breakpoint inserted twice and removed once still stops (%" PRIu64 ")", name, first);
    vx_err rm2 = vx_engine_break_remove(e, bp, VX_ENGINE_ANY_WARP);
    vx_engine_seek(e, 0);
    move(e, false, false, 0, &st);
    ok(rm2 == VX_OK && st.why == VX_WHY_END &&
           vx_engine_break_remove(e, bp, VX_ENGINE_ANY_WARP) == VX_ERR_RANGE,
       "%s: the second remove takes it out, a third finds none", name);
    /* after a step over (seek_over) warp w's hits in [lo, hi) were stepped over, the one
     * at hi is not (engine.h): from t1, w's next issue t2 is at the breakpoint */
    uint64_t t1 = NONE, t2 = NONE;
    for (uint64_t a = r.n / 4; a < r.n && t2 == NONE; a++) {
        uint64_t b = a + 1;
        while (b < r.n && r.gw[b] != r.gw[a])
            b++;
        bool before = b == r.n;
        for (uint64_t x = a; x < b && !before; x++)
            before = r.pc[x] == r.pc[b];
        if (!before) {
            t1 = a;
            t2 = b;
        }
    }
    if (t2 != NONE) {
        vx_engine_break_insert(e, r.pc[t2], VX_ENGINE_ANY_WARP);
        vx_engine_seek_over(e, t1, &(vx_engine_over){r.gw[t1], t1, t2}, 1);
        move(e, false, false, 0, &st);
        ok(st.why == VX_WHY_BREAK && vx_engine_now(e) == t2 && st.gwarp == r.gw[t2],
           "%s: after a step over [%" PRIu64 ", %" PRIu64 ") of warp %u the hit at its end stops",
           name, t1, t2, r.gw[t1]);
        vx_engine_break_remove(e, r.pc[t2], VX_ENGINE_ANY_WARP);
        /* backward (a reverse step over from t2 to t1): the hit at t1 was stepped over;
         * the search finds the one before, by scanning and (a breakpoint filter set) by
         * re-executing */
        const uint32_t b1 = r.pc[t1];
        uint64_t prev = NONE;
        for (uint64_t x = t2; x-- > 0 && prev == NONE;)
            if (r.pc[x] == b1 && !(r.gw[x] == r.gw[t1] && x >= t1)) prev = x;
        vx_engine_break_insert(e, b1, VX_ENGINE_ANY_WARP);
        for (int filtered = 0; filtered < 2; filtered++) {
            vx_engine_set_break_filter(e, filtered ? any_lane : NULL, NULL);
            vx_engine_seek_over(e, t2, &(vx_engine_over){r.gw[t1], t1, t2}, 1);
            move(e, true, false, 0, &st);
            if (prev != NONE)
                ok(st.why == VX_WHY_BREAK && vx_engine_now(e) == prev,
                   "%s: reverse-continue after a step over [%" PRIu64 ", %" PRIu64
                   ") stops at the hit before (%" PRIu64 ")%s",
                   name, t1, t2, prev, filtered ? ", with a filter" : "");
            else
                ok(st.why == VX_WHY_BEGIN,
                   "%s: reverse-continue after a step over [%" PRIu64 ", %" PRIu64
                   "): no hit before%s",
                   name, t1, t2, filtered ? ", with a filter" : "");
        }
        vx_engine_set_break_filter(e, NULL, NULL);
        vx_engine_break_remove(e, b1, VX_ENGINE_ANY_WARP);
    } else {
        skip(3, "no warp issues twice");
    }
    /* A backward breakpoint stop does not move to a position shown before across issues
     * that write memory (engine.h, vx_engine_resume): warp g's issue q at the breakpoint,
     * p just after g's issue before it, a store by another warp in [p, q).  Seek to p (a
     * shown position), step g over q, reverse-continue: the stop is at q. */
    uint64_t sq = NONE, sp = NONE;
    for (uint64_t q = r.n / 3; q < r.n && sq == NONE; q++) {
        uint64_t t0 = q;
        while (t0-- > 0 && r.gw[t0] != r.gw[q])
            ;
        if (t0 == NONE || q - (t0 + 1) > 256 || q - (t0 + 1) < 1) continue;
        bool other_hit = false, store = false;
        for (uint64_t x = t0 + 1; x < q; x++)
            other_hit |= r.pc[x] == r.pc[q];
        for (size_t j = 0; j < r.nacc && !store; j++)
            store = r.acc[j].write && r.acc[j].idx > t0 && r.acc[j].idx < q;
        if (!other_hit && store) {
            sq = q;
            sp = t0 + 1;
        }
    }
    if (sq != NONE) {
        vx_engine_break_insert(e, r.pc[sq], VX_ENGINE_ANY_WARP);
        vx_engine_seek(e, sp);
        move(e, false, true, r.gw[sq], &st);
        uint64_t stepped = vx_engine_now(e);
        move(e, true, false, 0, &st);
        ok(stepped == sq + 1 && st.why == VX_WHY_BREAK && vx_engine_now(e) == sq,
           "%s: a reverse-continue stops at the hit (%" PRIu64 "), not at the position shown "
           "before (%" PRIu64 ") across stores",
           name, sq, sp);
        vx_engine_break_remove(e, r.pc[sq], VX_ENGINE_ANY_WARP);
    } else {
        skip(1, "no store between two issues of a warp");
    }
    /* Where [p, q) is quiet (no store either) the stop does move to p (engine.h); the
     * hit it reported is at q all the same: a continue from p does not report it again,
     * it goes on to the next hit after q. */
    sq = NONE;
    for (uint64_t q = r.n / 3; q < r.n && sq == NONE; q++) {
        uint64_t t0 = q;
        while (t0-- > 0 && r.gw[t0] != r.gw[q])
            ;
        if (t0 == NONE || q - (t0 + 1) > 256 || q - (t0 + 1) < 1) continue;
        bool quiet = true;
        for (uint64_t x = t0 + 1; x < q; x++)
            quiet &= r.pc[x] != r.pc[q];
        for (size_t j = 0; j < r.nacc && quiet; j++)
            quiet = !(r.acc[j].write && r.acc[j].idx > t0 && r.acc[j].idx < q);
        if (quiet) {
            sq = q;
            sp = t0 + 1;
        }
    }
    if (sq != NONE) {
        uint64_t next = NONE;
        for (uint64_t t = sq + 1; t < r.n && next == NONE; t++)
            if (r.pc[t] == r.pc[sq]) next = t;
        vx_engine_break_insert(e, r.pc[sq], VX_ENGINE_ANY_WARP);
        /* (the second time sp is shown by the seek of a step over [sp, sq], which keeps
         * the position it goes to among those shown) */
        for (int over = 0; over < 2; over++) {
            vx_engine_seek(e, sp);
            if (over) vx_engine_seek_over(e, sp, &(vx_engine_over){r.gw[sq], sp, sq}, 1);
            move(e, false, true, r.gw[sq], &st);
            move(e, true, false, 0, &st);
            bool snapped = st.why == VX_WHY_BREAK && vx_engine_now(e) == sp;
            move(e, false, false, 0, &st);
            ok(snapped && (next == NONE ? st.why == VX_WHY_END
                                        : st.why == VX_WHY_BREAK && vx_engine_now(e) == next),
               "%s: reverse-continue to the hit at %" PRIu64 " shown at %" PRIu64
               "%s, then continue: the next hit (%" PRIu64 ")",
               name, sq, sp, over ? " (a step over's seek)" : "", next);
        }
        vx_engine_break_remove(e, r.pc[sq], VX_ENGINE_ANY_WARP);
    } else {
        skip(2, "no quiet issues between two issues of a warp");
    }
    /* Nor does a step that GDB makes over a breakpoint it took out (at the warp's pc when
     * the last motion stopped) move across another warp's issue at that pc, which the
     * restored breakpoint would stop: warp g's issue t, another warp's u at the same pc
     * before g's next issue.  Seek to u + 1 (shown), reverse-step g (to t) with the
     * breakpoint in, take it out, step g: the step ends at t + 1. */
    uint64_t ot = NONE, ou = NONE;
    for (uint64_t t = r.n / 3; t < r.n && ot == NONE; t++)
        for (uint64_t u = t + 1; u < r.n && u - t < 256 && r.gw[u] != r.gw[t]; u++)
            if (r.pc[u] == r.pc[t]) {
                ot = t;
                ou = u;
                break;
            }
    if (ot != NONE) {
        vx_engine_seek(e, ou + 1);
        vx_engine_break_insert(e, r.pc[ot], VX_ENGINE_ANY_WARP);
        move(e, true, true, r.gw[ot], &st);
        uint64_t back = vx_engine_now(e);
        vx_engine_break_remove(e, r.pc[ot], VX_ENGINE_ANY_WARP);
        move(e, false, true, r.gw[ot], &st);
        ok(back == ot && st.why == VX_WHY_STEP && vx_engine_now(e) == ot + 1,
           "%s: a step over a breakpoint taken out ends after the warp's issue (%" PRIu64
           "), not past another warp's at its pc (%" PRIu64 ")",
           name, ot + 1, ou);
    } else {
        skip(1, "no two warps run one pc close together");
    }
    vx_engine_seek(e, r.n / 2);
    move(e, true, false, 0, &st);
    ok(st.why == VX_WHY_BEGIN && vx_engine_now(e) == 0 && at_hash(e, &r),
       "%s: reverse-continue without breakpoints reaches the start", name);
    move(e, false, false, 0, &st);
    ok(st.why == VX_WHY_END && vx_engine_now(e) == r.n && at_hash(e, &r),
       "%s: continue without breakpoints reaches the end", name);

    /* watchpoints: an address written more than once (global memory) */
    const memacc *wa = NULL;
    for (size_t i = 0; i < r.nacc && !wa; i++) {
        const memacc *a = &r.acc[i];
        if (!a->write || a->addr >= 0xFF000000u || a->size != 4) continue;
        size_t nw = 0;
        for (size_t j = 0; j < r.nacc; j++)
            if (r.acc[j].write && r.acc[j].addr == a->addr) nw++;
        if (nw >= 2) wa = a;
    }
    if (wa) {
        uint32_t A = wa->addr;
        uint64_t fw = NONE, lw = NONE, fr = NONE, lr = NONE;
        for (size_t j = 0; j < r.nacc; j++) {
            const memacc *a = &r.acc[j];
            if (a->addr + a->size <= A || A + 4 <= a->addr || a->idx >= r.n) continue;
            if (a->write) {
                if (fw == NONE) fw = a->idx;
                lw = a->idx;
            } else {
                if (fr == NONE || a->idx < fr) fr = a->idx;
                if (lr == NONE || a->idx > lr) lr = a->idx;
            }
        }
        vx_engine_watch_insert(e, VX_WATCH_WRITE, A, 4, 0);
        vx_engine_seek(e, 0);
        move(e, false, false, 0, &st);
        ok(st.why == VX_WHY_WATCH && st.watch_kind == VX_WATCH_WRITE && vx_engine_now(e) == fw &&
               st.watch_addr >= A && st.watch_addr < A + 4 && at_hash(e, &r),
           "%s: write watchpoint 0x%08x forward: before the first store (%" PRIu64 ")", name, A,
           fw);
        /* a watchpoint on the upper half of the word: the store starts below it, the
         * address reported is inside the watched range (engine.h) */
        vx_engine_watch_remove(e, VX_WATCH_WRITE, A, 4, 0);
        vx_engine_watch_insert(e, VX_WATCH_WRITE, A + 2, 2, 0);
        uint64_t fw2 = NONE;
        for (size_t j = 0; j < r.nacc && fw2 == NONE; j++)
            if (r.acc[j].write && r.acc[j].addr < A + 4 && A + 2 < r.acc[j].addr + r.acc[j].size)
                fw2 = r.acc[j].idx;
        vx_engine_seek(e, 0);
        move(e, false, false, 0, &st);
        ok(st.why == VX_WHY_WATCH && vx_engine_now(e) == fw2 && st.watch_addr >= A + 2 &&
               st.watch_addr < A + 4,
           "%s: write watchpoint 0x%08x+2: the address reported is in the range (0x%08x)", name, A,
           st.watch_addr);
        vx_engine_watch_remove(e, VX_WATCH_WRITE, A + 2, 2, 0);
        vx_engine_watch_insert(e, VX_WATCH_WRITE, A, 4, 0);
        vx_engine_seek(e, r.n);
        move(e, true, false, 0, &st);
        ok(st.why == VX_WHY_WATCH && vx_engine_now(e) == lw + 1 && at_hash(e, &r),
           "%s: write watchpoint backward: just after the last store (%" PRIu64 ")", name, lw + 1);
        /* a reverse step from there undoes the store (what GDB does next) */
        vx_engine_watch_remove(e, VX_WATCH_WRITE, A, 4, 0);
        move(e, true, true, st.gwarp, &st);
        ok(vx_engine_now(e) == lw && at_hash(e, &r), "%s: the reverse step lands on the store",
           name);
        /* a forward step of the writer over the store, then the watchpoint: the reverse
         * step that would undo the step stops at the watched write, where it is */
        const uint32_t wgw = r.gw[lw];
        move(e, false, true, wgw, &st);
        uint64_t after = vx_engine_now(e);
        vx_engine_watch_insert(e, VX_WATCH_WRITE, A, 4, 0);
        move(e, true, true, wgw, &st);
        ok(after == lw + 1 && st.why == VX_WHY_WATCH && vx_engine_now(e) == lw + 1,
           "%s: undoing a forward step over a watched store stops at the store (%" PRIu64 ")", name,
           lw + 1);
        vx_engine_watch_remove(e, VX_WATCH_WRITE, A, 4, 0);
        if (fr != NONE) {
            vx_engine_watch_insert(e, VX_WATCH_READ, A, 4, 0);
            vx_engine_seek(e, 0);
            move(e, false, false, 0, &st);
            ok(st.why == VX_WHY_WATCH && st.watch_kind == VX_WATCH_READ && vx_engine_now(e) == fr &&
                   at_hash(e, &r),
               "%s: read watchpoint forward: before the first load (%" PRIu64 ")", name, fr);
            vx_engine_seek(e, r.n);
            move(e, true, false, 0, &st);
            ok(st.why == VX_WHY_WATCH && vx_engine_now(e) == lr + 1 && at_hash(e, &r),
               "%s: read watchpoint backward: just after the last load (%" PRIu64 ")", name,
               lr + 1);
            vx_engine_watch_remove(e, VX_WATCH_READ, A, 4, 0);
            vx_engine_watch_insert(e, VX_WATCH_ACCESS, A, 4, 0);
            vx_engine_seek(e, 0);
            move(e, false, false, 0, &st);
            uint64_t fa = fr < fw ? fr : fw;
            ok(st.why == VX_WHY_WATCH && st.watch_kind == VX_WATCH_ACCESS && vx_engine_now(e) == fa,
               "%s: memacc watchpoint forward: first memacc (%" PRIu64 ")", name, fa);
            vx_engine_watch_remove(e, VX_WATCH_ACCESS, A, 4, 0);
        } else {
            skip(3, "no load of the watched address");
        }
    } else {
        skip(8, "no address stored twice");
    }

    /* interrupt a long continue */
    vx_engine_seek(e, 0);
    polls_left = 0; /* interrupt at the first poll (after a few thousand issues) */
    vx_engine_set_poll(e, poll_fn, NULL);
    move(e, false, false, 0, &st);
    ok(st.why == VX_WHY_INTERRUPT && vx_engine_now(e) > 0 && vx_engine_now(e) < r.n &&
           at_hash(e, &r),
       "%s: poll interrupts a continue at a consistent position (%" PRIu64 ")", name,
       vx_engine_now(e));
    polls_left = -1;

    /* interrupt a long reverse-continue that re-executes windows (a read watchpoint
     * nothing triggers) at its second poll: it stops where the search got to, not where
     * it began (a short trace is searched whole before that poll) */
    vx_engine_seek(e, r.n);
    move(e, false, false, 0, &st); /* checkpoints all the way: windows to search */
    vx_engine_watch_insert(e, VX_WATCH_READ, 0x10, 4, 0);
    polls_left = 1;
    move(e, true, false, 0, &st);
    if (st.why == VX_WHY_INTERRUPT)
        ok(vx_engine_now(e) < r.n && at_hash(e, &r),
           "%s: an interrupted reverse-continue stops where its search got to (%" PRIu64
           " of %" PRIu64 ")",
           name, vx_engine_now(e), (uint64_t)r.n);
    else
        ok(st.why == VX_WHY_BEGIN && vx_engine_now(e) == 0,
           "%s: a reverse-continue searched whole before its second poll", name);
    polls_left = -1;
    vx_engine_watch_remove(e, VX_WATCH_READ, 0x10, 4, 0);

    /* user checkpoints */
    unsigned id;
    vx_engine_seek(e, r.n / 4);
    ok(vx_engine_checkpoint(e, &id) == VX_OK, "%s: checkpoint", name);
    vx_engine_seek(e, r.n);
    ok(vx_engine_restart(e, id) == VX_OK && vx_engine_now(e) == r.n / 4 && at_hash(e, &r),
       "%s: restart returns to it", name);
    ok(vx_engine_restart(e, id + 100) == VX_ERR_RANGE, "%s: restart of an unknown checkpoint fails",
       name);

    vx_engine_stats es;
    vx_engine_get_stats(e, &es);
    diag("%s: replayed %" PRIu64 ", scanned %" PRIu64 ", restores %" PRIu64
         ", %u checkpoints, %" PRIu64 " bytes (budget %" PRIu64 ")",
         name, es.replayed, es.scanned, es.restores, es.checkpoints, es.checkpoint_bytes,
         es.budget);
    vx_engine_free(e);
    ref_free(&r);
    unlink(tpath);
}

/*
 * Record build/kernels/KERNEL.elf at 1x1x4x4 into /tmp/t-engine-PID-TAG.vxt (its path
 * in tpath), the commit at tamper_at changed unless NONE: false (nskip tests skipped)
 * when the kernel is not built, false (a failed test) when recording fails.
 */
static bool record_example(const char *kernel, const char *tag, uint64_t tamper_at, int nskip,
                           char *tpath, size_t cap, ref *r)
{
    char kpath[256];
    snprintf(kpath, sizeof kpath, "build/kernels/%s.elf", kernel);
    size_t len;
    uint8_t *img = read_file(kpath, &len);
    if (!img) {
        skip(nskip, "kernel not built");
        return false;
    }
    snprintf(tpath, cap, "/tmp/t-engine-%d-%s.vxt", (int)getpid(), tag);
    bool recorded = record(img, len, VX_IMAGE_ELF, 1, 4, 4, 0, tamper_at, tpath, r);
    free(img);
    return ok(recorded, "%s recorded (%s)", kernel, tag);
}

/* Open the trace record_example wrote; NULL (a failed test, r freed) when it cannot. */
static vx_engine *open_recorded(const char *tpath, const vx_engine_opts *eo, ref *r)
{
    vx_engine *e;
    char msg[512];
    if (vx_engine_open(tpath, eo, &e, msg, sizeof msg) == VX_OK) return e;
    ok(0, "open: %s", msg);
    ref_free(r);
    return NULL;
}

/* A trace whose recorded commit at event N was changed must be reported at N. */
static void check_divergence(void)
{
    char tpath[256];
    ref r;
    uint64_t at = 5000;
    if (!record_example("vecadd", "tamper", at, 5, tpath, sizeof tpath, &r)) return;
    if (!ok(r.tampered != NONE, "tampered trace written")) return;
    at = r.tampered;
    vx_engine *e;
    char msg[512];
    vx_err err = vx_engine_open(tpath, NULL, &e, msg, sizeof msg);
    if (err) {
        ok(0, "open tampered trace: %s", msg);
        return;
    }
    ok(vx_engine_seek(e, at) == VX_OK && at_hash(e, &r), "history before the change replays");
    vx_engine_stop st;
    err = move(e, false, false, 0, &st);
    char want[64];
    snprintf(want, sizeof want, "replay diverged at event %" PRIu64 ":", at);
    if (!ok(err == VX_ERR_DIVERGED && strstr(vx_engine_errmsg(e), want) != NULL,
            "divergence reported at event %" PRIu64, at))
        diag("err %d: %s", err, vx_engine_errmsg(e));
    ok(vx_engine_now(e) == at && at_hash(e, &r), "the engine stays before the diverging issue");
    diag("%s", vx_engine_errmsg(e));
    vx_engine_free(e);
    ref_free(&r);
    unlink(tpath);
}

/*
 * Forward steps of one warp are undone exactly by reverse steps, the last undo_max of
 * them (engine.h); a reverse step past those is one as any other: just before the
 * warp's previous issue.  vecadd at 1x1x4x4: warp 1's steps each run the other warps'
 * issues too, so an exact undo and a plain reverse step land at different positions.
 */
static void check_undo_cap(void)
{
    char tpath[256];
    ref r;
    if (!record_example("vecadd", "undo", NONE, 4, tpath, sizeof tpath, &r)) return;
    if (!load_pcs(tpath, &r)) tap_bail("undo cap: cannot read %s", tpath);

    /* more than the 32 stop positions the engine remembers besides (snap_to_mark), and
     * not a multiple of CAP: a cap that dropped half its entries at once fails */
    enum {
        CAP = 64,
        STEPS = 97
    };

    const vx_engine_opts eo = {.undo_max = CAP};
    vx_engine *e = open_recorded(tpath, &eo, &r);
    if (!e) return;
    const uint32_t w = 1;
    uint64_t pos[STEPS + 1];
    vx_engine_stop st;
    vx_engine_seek(e, r.n / 4);
    pos[0] = vx_engine_now(e);
    int bad = 0;
    for (int i = 1; i <= STEPS; i++) {
        if (move(e, false, true, w, &st) || st.why != VX_WHY_STEP) bad++;
        pos[i] = vx_engine_now(e);
    }
    is_int(bad, 0, "undo cap: %d forward steps of warp %u", STEPS, w);
    bad = 0;
    for (int i = STEPS - 1; i >= STEPS - CAP; i--)
        if (move(e, true, true, w, &st) || st.why != VX_WHY_STEP || vx_engine_now(e) != pos[i] ||
            !at_hash(e, &r))
            bad++;
    is_int(bad, 0, "undo cap: the last %d are undone exactly, back to %" PRIu64, CAP,
           pos[STEPS - CAP]);
    /* the next one was forgotten: a plain reverse step, before the previous issue */
    uint64_t prev = NONE;
    for (uint64_t t = pos[STEPS - CAP]; t-- > 0;)
        if (r.gw[t] == w) {
            prev = t;
            break;
        }
    move(e, true, true, w, &st);
    ok(prev != NONE && prev != pos[STEPS - CAP - 1] && vx_engine_now(e) == prev && at_hash(e, &r),
       "undo cap: one more is a plain reverse step (to %" PRIu64 ", where an undo went to %" PRIu64
       ")",
       prev, pos[STEPS - CAP - 1]);
    vx_engine_free(e);
    ref_free(&r);
    unlink(tpath);
}

/*
 * User checkpoints are never evicted; when they alone take more than the budget, the
 * evictable ones (here the ring of recent stops) still get room: each stop added one
 * and measured and evicted all of them again.  monitor checkpoint's numbers restart
 * at 1 after vx_engine_checkpoints_drop (a new debugging session).
 */
static void check_user_ckpt_budget(void)
{
    char tpath[256];
    ref r;
    if (!record_example("vecadd", "ubudget", NONE, 4, tpath, sizeof tpath, &r)) return;
    const vx_engine_opts eo = {.mem_budget = 256 * 1024};
    vx_engine *e = open_recorded(tpath, &eo, &r);
    if (!e) return;

    enum {
        NUSER = 40
    };

    unsigned id = 0;
    for (unsigned i = 1; i <= NUSER; i++) {
        vx_engine_seek(e, r.n * i / (NUSER + 1));
        vx_engine_checkpoint(e, &id);
    }
    vx_engine_stats st;
    vx_engine_get_stats(e, &st);
    ok(id == NUSER && st.checkpoint_bytes > st.budget,
       "user checkpoints: %u of them take %" PRIu64 " bytes, over the budget of %" PRIu64, id,
       st.checkpoint_bytes, st.budget);
    vx_engine_stop mv;
    int bad = 0;
    vx_engine_seek(e, r.n / 3);
    for (int i = 0; i < 20; i++)
        if (move(e, false, true, 1, &mv) || mv.why != VX_WHY_STEP) bad++;
    vx_engine_get_stats(e, &st);
    /* the user ones, position 0's, and some of the 20 stops (32 KiB each here: the
     * quarter of the budget beyond the user ones holds 2) */
    ok(bad == 0 && st.checkpoints >= NUSER + 1 + 2 && st.checkpoints <= NUSER + 1 + 8,
       "user checkpoints: after 20 steps the stops' checkpoints are kept too (%" PRIu32
       " checkpoints)",
       st.checkpoints);
    uint64_t pos;
    vx_engine_checkpoints_drop(e);
    bool gone = true;
    for (unsigned i = 1; i <= NUSER; i++)
        if (vx_engine_checkpoint_get(e, i, &pos)) gone = false;
    vx_engine_checkpoint(e, &id);
    ok(gone && id == 1 && vx_engine_checkpoint_last(e) == 1,
       "user checkpoints: dropped, the next is number 1 again");
    vx_engine_free(e);
    ref_free(&r);
    unlink(tpath);
}

/*
 * A raw program of n words (at 0x80000000) on `cores` cores of one warp of one thread,
 * recorded into /tmp/t-engine-PID-TAG.vxt (its path in tpath) and opened; NULL (said)
 * when the engine cannot open it.  *recorded: whether the recording succeeded.
 */
static vx_engine *open_raw(const uint32_t *prog, size_t n, uint32_t cores, const char *tag,
                           char *tpath, size_t cap, ref *r, bool *recorded)
{
    uint8_t img[64];
    if (n * 4 > sizeof img) tap_bail("open_raw: program too long");
    for (size_t i = 0; i < n; i++)
        vx_put_le32(img + 4 * i, prog[i]);
    snprintf(tpath, cap, "/tmp/t-engine-%d-%s.vxt", (int)getpid(), tag);
    *recorded = record(img, n * 4, VX_IMAGE_BIN, cores, 1, 1, 0, NONE, tpath, r);
    vx_engine *e;
    char msg[512];
    if (vx_engine_open(tpath, NULL, &e, msg, sizeof msg) != VX_OK) {
        ok(0, "open: %s", msg);
        return NULL;
    }
    return e;
}

/* A raw program that faults at its third instruction. */
static void check_fault(void)
{
    static const uint32_t prog[] = {
        0x00500093, /* addi x1, x0, 5 */
        0x00108093, /* addi x1, x1, 1 */
        0x10202103, /* lw x2, 0x102(x0): misaligned */
    };
    char tpath[256];
    ref r;
    bool recorded;
    vx_engine *e =
        open_raw(prog, VX_ARRAY_SIZE(prog), 1, "fault", tpath, sizeof tpath, &r, &recorded);
    ok(recorded && r.n == 2, "faulting program recorded (fault at event 2)");
    if (!e) return;
    vx_engine_stop st;
    is_u64(vx_engine_end(e), 2, "end of history is the faulting issue");
    move(e, false, false, 0, &st);
    ok(st.why == VX_WHY_FAULT && vx_engine_now(e) == 2 && st.fault.pc == 0x80000008 &&
           st.fault.signal != 0,
       "continue stops at the fault (pc 0x80000008, signal %u)", st.fault.signal);
    move(e, false, false, 0, &st);
    ok(st.why == VX_WHY_END && vx_engine_now(e) == 2, "continuing from the fault: end of history");
    move(e, true, true, 0, &st);
    uint32_t x1 = 0;
    vx_sim_reg_read(vx_engine_sim(e), 0, 0, VX_RF_X, 1, &x1);
    ok(st.why == VX_WHY_STEP && vx_engine_now(e) == 1 && x1 == 5,
       "reverse step from the fault (x1 = 5)");
    vx_engine_free(e);
    ref_free(&r);
    unlink(tpath);
}

/* A raw program on two cores of which only core 1 faults: the stop names its global
 * warp (core * warps per core + warp = 1 with one warp per core), not core 0's. */
static void check_fault_core1(void)
{
    static const uint32_t prog[] = {
        0xcc2020f3, /* csrr x1, vx_core_id */
        0x00008463, /* beqz x1, +8 */
        0x10202103, /* lw x2, 0x102(x0): misaligned */
        0x0000000b, /* tmc x0 */
    };
    char tpath[256];
    ref r;
    bool recorded;
    vx_engine *e =
        open_raw(prog, VX_ARRAY_SIZE(prog), 2, "fault1", tpath, sizeof tpath, &r, &recorded);
    ok(recorded, "core 1 faulting program recorded (%" PRIu64 " issues)", r.n);
    if (!e) return;
    vx_engine_stop st;
    move(e, false, false, 0, &st);
    ok(st.why == VX_WHY_FAULT && st.fault.core == 1 && st.fault.warp == 0 && st.gwarp == 1 &&
           st.fault.pc == 0x80000008 && vx_engine_now(e) == r.n,
       "the fault of core 1 stops in global warp 1 (gwarp %u, core %u)", st.gwarp, st.fault.core);
    vx_engine_free(e);
    ref_free(&r);
    unlink(tpath);
}

/*
 * Helper mode for tests/t5001-gdb.py: write the tampered vecadd trace to OUT and
 * print the event index that was changed.
 */
static int write_tampered(const char *out)
{
    size_t len;
    uint8_t *img = read_file("build/kernels/vecadd.elf", &len);
    if (!img) {
        fprintf(stderr, "t-engine: build/kernels/vecadd.elf not built\n");
        return 2;
    }
    ref r;
    uint64_t at = 5000;
    bool done = record(img, len, VX_IMAGE_ELF, 1, 4, 4, 0, at, out, &r) && r.tampered != NONE;
    free(img);
    ref_free(&r);
    if (!done) return 1;
    at = r.tampered;
    printf("tampered: commit of event %" PRIu64 " changed\n", at);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-tampered") == 0) return write_tampered(argv[2]);
    check_kernel("vecadd", 1, 4, 4, 0, 0);
    check_kernel("diverge", 1, 4, 4, 2000, 0);
    check_kernel("gbar", 2, 4, 4, 0, 0);
    check_kernel("vecadd", 1, 4, 4, 3000, 64 * 1024); /* tiny budget: thinning */
    check_divergence();
    check_undo_cap();
    check_user_ckpt_budget();
    check_fault();
    check_fault_core1();
    return tap_exit();
}
