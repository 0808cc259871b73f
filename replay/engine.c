/*
 * engine.c - time travel over a trace (see engine.h).
 *
 * One live simulator holds the state at the current position.  Moving forward
 * executes the next recorded issue; moving backward restores a checkpoint and
 * moves forward again.  The recorded issues come from two places:
 *   - the trace reader `rd`, which verifies: each issue is compared with what the
 *     simulator does (`pend` is the issue at position rd_at, still valid in the
 *     reader's buffer, with every DM event before it applied);
 *   - a schedule cache of the issues already replayed (who issued, when, at which
 *     PC, and the Debug Module effects in between), used once an issue has been
 *     verified.  Re-replaying a stretch, which is what every reverse step does,
 *     then needs no decoding and no reader seek (a seek decodes part of a chunk,
 *     about a millisecond) and runs the simulator without an observer.
 * The reader is positioned lazily, only when the cache cannot serve.
 *
 * Backward searches with only breakpoints and write watchpoints never run the
 * simulator: the trace records every issue's PC and every memory write, so a
 * second reader (`sr`) scans windows of the recording, newest first, for the
 * last stop, and only the final position is rebuilt (DESIGN.md §4: the commits
 * "let tools answer questions without a simulator").  Read and access
 * watchpoints need the addresses of loads, which traces do not store; then each
 * window is re-executed from a checkpoint with VX_OBS_READS.
 */
#include "engine.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "timeline.h"
#include "vx_trace.h"

#define DEFAULT_BUDGET  (512ull << 20)
#define INTERVAL        32768u /* issues between periodic checkpoints (at least; see below) */
#define SHORT_GAP       2048u  /* a short checkpoint this far before a seek target */
#define SHORT_NEAR      256u   /* and one this far (runs of reverse steps replay less) */
#define POLL_EVERY      4096u  /* issues between interrupt polls */
#define SCAN_FIRST      4096u  /* first backward scan window */
#define SCAN_MAX        (1u << 22)
#define STOP_SNAP_LIMIT (4u << 20) /* no STOP checkpoints for machines bigger than this */
#define NO_ISSUE        UINT64_MAX
#define NO_PC           UINT32_MAX /* (PCs are 4-byte aligned) */
#define LPC_MEMO        16u        /* joins found by vx_engine_lane_pc, remembered */
#define NMARK           32u        /* stop positions remembered (snap_to_mark) */
#define SNAP_MAX        4096u      /* the furthest a stop moves to one */
#define CBLOCK_SHIFT    14u
#define CBLOCK          (1u << CBLOCK_SHIFT) /* issues per block of the schedule cache */
#define CACHE_SLOTS     64u                  /* blocks of CBLOCK issues: 1M issues, 16 MiB */

/* schedule cache entry: meta bits */
#define M_GWARP    0xFFFFu
#define M_FLAGS_SH 16u        /* VX_EVF_* (2 bits) */
#define M_ISSUE    (1u << 18) /* the issue is known */
#define M_DM       (1u << 19) /* the DM effects recorded just before it are known */
#define M_HASDM    (1u << 20) /* ... and there are some */
#define M_VERIFIED (1u << 21) /* executed once with verification */
#define M_LANE_SH  24u        /* injected lane */

typedef struct cent {
    uint64_t cycle;
    uint32_t word; /* pc; for an injected issue the instruction word */
    uint32_t meta;
} cent;

typedef struct cdm {
    uint64_t index;
    vx_dm_event dm;
} cdm;

typedef struct cblock {
    uint64_t base; /* first index; UINT64_MAX when unused */
    cent *v;       /* [CBLOCK] */
    cdm *dm;
    size_t ndm, capdm;
} cblock;

enum {
    OBS_NONE,
    OBS_VERIFY,
    OBS_READS
};

typedef struct bpoint {
    uint32_t pc, gwarp;
    uint32_t refs;
} bpoint;

typedef struct wpoint {
    uint8_t kind; /* vx_watch_kind */
    uint32_t addr, len, core;
    uint32_t refs;
} wpoint;

/* A stop found while searching (position and what it is). */
typedef struct cand {
    bool found;
    uint64_t pos;
    vx_engine_stop stop;
    uint64_t issue; /* the issue that caused it */
} cand;

struct vx_engine {
    char err[1024];
    char note[1024]; /* what the trace lacks that replay works around (a damaged keyframe) */
    uint64_t unreadable_below; /* a backward scan met an unreadable chunk ending here */
    char *path;
    vx_trace_reader *rd; /* main cursor: pend */
    vx_trace_reader *sr; /* scans */
    const vx_trace_header *hdr;
    vx_sim_config cfg;
    vx_sim *sim;
    uint32_t T, W, ngw;
    uint64_t regs_bytes; /* rough size of one snapshot's registers */
    bool verify;

    uint64_t now, end;
    const vx_event *pend; /* the reader's current issue (index rd_at); NULL at its end */
    uint64_t rd_at;       /* position the reader stands at, NO_ISSUE when unknown */
    struct cblock *cache; /* schedule cache, CACHE_SLOTS blocks */
    int obs_mode;         /* observer currently installed (OBS_*) */

    /* how the recording ended */
    uint8_t end_status;
    bool cut_off; /* no END record */
    uint32_t exit_code;
    uint64_t end_cycle; /* the END record's cycle (0 without one) */
    vx_fault end_fault;
    bool fault_at_end; /* the issue at `end` is the recorded fault */
    bool fault_after;  /* the END record's fault follows the last issue (a deadlock) */

    /* keyframes */
    size_t nkf;
    uint64_t *kf_pos;

    /* observer */
    const vx_event *expect;
    bool seen_issue, mismatch;
    char diff[512];
    bool read_hit;
    vx_watch_kind rh_kind;
    uint32_t rh_addr, rh_lane;

    /* breakpoints and watchpoints */
    bpoint *bps;
    size_t nbp, capbp;
    uint8_t bpfilter[512];      /* bit (pc >> 2) & 4095: a breakpoint may be there */
    uint8_t bpfilter_stop[512]; /* bpfilter when the last motion stopped */
    wpoint *wps;
    size_t nwp, capwp;
    uint32_t nwrite_wp, nread_wp;

    /*
     * The issue whose stop was reported last: what stopped there is not reported
     * again when resuming (it is what GDB steps over).  After a breakpoint only its
     * breakpoints are skipped (a watchpoint the same issue triggers is still to be
     * reported); after a forward watch stop both; after a backward one (the issue
     * just undone) only its watchpoints.
     */
    uint64_t rep_issue;
    bool rep_skip_bp, rep_skip_wp;

    /* and, for the next motion only, the breakpoints of the ranges the debugger
     * stepped warps over (vx_engine_seek_over): ngw of them at most */
    vx_engine_over *over;
    size_t nover;

    /*
     * Forward steps not yet undone: (from, to, warp).  A reverse step of that warp
     * from `to` goes back exactly to `from`, so stepping back retraces the very
     * states stepping forward showed (rr's lazy reverse singlestep).  Any other
     * motion forgets them.
     */
    struct undo {
        uint64_t from, to;
        uint32_t gwarp;
        uint32_t lane; /* a lane step's lane, or VX_ENGINE_ANY_WARP */
    } * undo;

    size_t nundo, capundo, undo0; /* undo0: the oldest's slot (a ring once at the cap) */
    size_t undo_max;              /* the cap: a power of two */

    /*
     * The last NMARK positions the debugger was shown (every stop and seek; a ring,
     * nmark in all).  A step or breakpoint stop of a warp may be anywhere between
     * that warp's issues: it moves to one of these when it can (snap_to_mark).
     */
    uint64_t mark[NMARK];
    unsigned nmark;
    vx_engine_why last_why; /* why the last motion stopped (0 after a seek) */

    vx_timeline tl;
    vx_index *ix; /* chunk digests for backward searches (large traces) */
    unsigned obs_flags;
    uint64_t short_at, short_near; /* positions for SHORT checkpoints during the current seek */
    unsigned next_user_id;

    vx_engine_poll_fn poll;
    void *poll_ctx;
    vx_engine_break_filter_fn bf; /* breakpoint conditions, or NULL */
    void *bf_ctx;
    uint64_t since_poll;
    bool interrupted;
    bool goto_polls; /* goto_pos polls (vx_engine_seek_polled) */

    vx_engine_stats st;

    /* vx_engine_lane_pc's finds of joins in the trace, at position `now` */
    struct lane_pc_memo {
        bool valid;
        uint64_t now;
        uint32_t gw, depth, pc;
    } lpc[LPC_MEMO];
};

static void seterr(vx_engine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void seterr(vx_engine *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->err, sizeof e->err, fmt, ap);
    va_end(ap);
}

const char *vx_engine_errmsg(const vx_engine *e)
{
    return e ? e->err : "";
}

const char *vx_engine_note(const vx_engine *e)
{
    return e ? e->note : "";
}

static uint32_t gwarp_of(const vx_engine *e, const vx_event *ev)
{
    return ev->core * e->W + ev->warp;
}

static vx_err trace_error(vx_engine *e, vx_err err)
{
    seterr(e, "%s", vx_trace_reader_errmsg(e->rd)); /* it names the file */
    return err;
}

/* ---- observer and verification -------------------------------------------------------------------- */

#define LMEM_END ((uint64_t)VX_LMEM_BASE_ADDR + (1u << VX_LMEM_LOG2_SIZE))

/* Does an access [addr, addr+size) by `core` touch watchpoint w? */
static bool wp_overlaps(const wpoint *w, uint32_t addr, uint32_t size, uint32_t core)
{
    uint64_t a0 = addr, a1 = (uint64_t)addr + size;
    uint64_t w0 = w->addr, w1 = (uint64_t)w->addr + w->len;
    if (a1 <= w0 || w1 <= a0) return false;
    /* Local memory is per core: the same address in another core is another byte.
     * The bytes both cover may lie partly outside it (a range that straddles its
     * edge): those are shared. */
    uint64_t o0 = a0 > w0 ? a0 : w0, o1 = a1 < w1 ? a1 : w1;
    bool all_local = o0 >= VX_LMEM_BASE_ADDR && o1 <= LMEM_END;
    return !all_local || w->core == core;
}

/*
 * Equality of a re-executed issue with the recorded one, field by field, without
 * formatting anything: the common case.  Only when this says "different" is
 * vx_trace_event_diff asked to describe the difference (it decides).
 */
static bool same_issue(const vx_event *a, const vx_event *b, uint32_t T)
{
    if (a->kind != b->kind || a->index != b->index || a->cycle != b->cycle || a->core != b->core ||
        a->warp != b->warp || a->flags != b->flags || a->pc != b->pc || a->insn != b->insn ||
        a->tmask != b->tmask || a->fault || b->fault || a->ncommits != b->ncommits ||
        a->nmem != b->nmem || a->nwctl != b->nwctl || a->nconsole != b->nconsole)
        return false;
    for (uint32_t i = 0; i < a->ncommits; i++) {
        const vx_commit *p = &a->commits[i], *q = &b->commits[i];
        if (p->file != q->file || p->reg != q->reg || p->lanes != q->lanes) return false;
        for (uint32_t l = 0; l < T; l++)
            if (vx_lanes_test(p->lanes, l) && p->values[l] != q->values[l]) return false;
    }
    for (uint32_t i = 0; i < a->nmem; i++) {
        const vx_memwrite *p = &a->mem[i], *q = &b->mem[i];
        uint32_t m = p->size >= 4 ? 0xFFFFFFFFu : (1u << (8 * p->size)) - 1;
        if (p->addr != q->addr || p->size != q->size || p->lane != q->lane ||
            ((p->value ^ q->value) & m))
            return false;
    }
    for (uint32_t i = 0; i < a->nwctl; i++) {
        const vx_wctl *p = &a->wctl[i], *q = &b->wctl[i];
        if (p->kind != q->kind || p->core != q->core || p->warp != q->warp || p->pc != q->pc ||
            p->arg != q->arg || p->arg2 != q->arg2 || p->mask != q->mask || p->mask2 != q->mask2)
            return false;
    }
    for (uint32_t i = 0; i < a->nconsole; i++)
        if (a->console[i].slot != b->console[i].slot || a->console[i].byte != b->console[i].byte)
            return false;
    return true;
}

static void observer(void *ctx, const vx_event *ev)
{
    vx_engine *e = ctx;
    if (ev->kind != VX_EV_ISSUE) return;
    e->seen_issue = true;
    if (e->expect && !e->mismatch) {
        const vx_event *want = e->expect;
        vx_event tmp;
        if (want->flags & (VX_EVF_INJECTED | VX_EVF_STEP)) {
            /* DM steps and injections happen at whatever cycle the debugger chose;
             * replay does not re-run idle DM cycles, so their cycle is not compared. */
            tmp = *want;
            tmp.cycle = ev->cycle;
            want = &tmp;
        }
        if (!same_issue(want, ev, e->T) &&
            vx_trace_event_diff(want, ev, e->T, e->diff, sizeof e->diff))
            e->mismatch = true;
    }
    if (e->nread_wp && !e->read_hit) {
        for (uint32_t i = 0; i < ev->nreads && !e->read_hit; i++) {
            const vx_memread *r = &ev->reads[i];
            for (size_t k = 0; k < e->nwp; k++) {
                const wpoint *w = &e->wps[k];
                if (w->kind == VX_WATCH_WRITE || !wp_overlaps(w, r->addr, r->size, ev->core))
                    continue;
                e->read_hit = true;
                e->rh_kind = (vx_watch_kind)w->kind;
                e->rh_addr = r->addr > w->addr ? r->addr : w->addr;
                e->rh_lane = r->lane;
                break;
            }
        }
    }
}

/* Install the observer the next issue needs: verification, loads only, or none (fastest). */
static void set_obs(vx_engine *e, int mode)
{
    if (mode == OBS_NONE && e->nread_wp) mode = OBS_READS;
    unsigned flags = e->nread_wp ? VX_OBS_READS : 0;
    if (mode == e->obs_mode && (mode == OBS_NONE || e->obs_flags == flags)) return;
    e->obs_mode = mode;
    e->obs_flags = flags;
    if (mode == OBS_NONE)
        vx_sim_set_observer(e->sim, NULL, NULL, 0);
    else
        vx_sim_set_observer(e->sim, observer, e, flags);
}

static void update_observer(vx_engine *e)
{
    e->obs_mode = -1; /* force the next set_obs */
    set_obs(e, OBS_VERIFY);
}

/* ---- the schedule cache ----------------------------------------------------------------------------- */

static cent *cache_get(const vx_engine *e, uint64_t i)
{
    if (!e->cache) return NULL;
    uint64_t base = i & ~(uint64_t)(CBLOCK - 1);
    cblock *b = &e->cache[(i >> CBLOCK_SHIFT) % CACHE_SLOTS];
    return b->base == base && b->v ? &b->v[i - base] : NULL;
}

/* The entry for i, taking over its slot if another block held it. */
static cent *cache_slot(vx_engine *e, uint64_t i, cblock **blk)
{
    if (!e->cache) return NULL;
    uint64_t base = i & ~(uint64_t)(CBLOCK - 1);
    cblock *b = &e->cache[(i >> CBLOCK_SHIFT) % CACHE_SLOTS];
    if (b->base != base || !b->v) {
        if (!b->v && !(b->v = malloc(CBLOCK * sizeof *b->v))) return NULL;
        memset(b->v, 0, CBLOCK * sizeof *b->v);
        b->base = base;
        b->ndm = 0;
    }
    if (blk) *blk = b;
    return &b->v[i - base];
}

/* Remember a recorded issue (and whether it has been verified). */
static void cache_issue(vx_engine *e, const vx_event *ev, uint32_t gw)
{
    cent *c = cache_slot(e, ev->index, NULL);
    if (!c) return;
    c->cycle = ev->cycle;
    c->word = (ev->flags & VX_EVF_INJECTED) ? ev->insn : ev->pc;
    unsigned lane = vx_lanes_first(ev->tmask);
    uint32_t keep = c->meta & (M_DM | M_HASDM);
    c->meta = keep | (gw & M_GWARP) | ((uint32_t)(ev->flags & 3) << M_FLAGS_SH) | M_ISSUE |
              ((lane < 128 ? lane : 0) << M_LANE_SH) | (e->verify ? M_VERIFIED : 0);
}

/* DM effects recorded with index i (only those that change the machine are kept). */
static void cache_dm(vx_engine *e, uint64_t i, const vx_dm_event *dm)
{
    cblock *b;
    cent *c = cache_slot(e, i, &b);
    if (!c) return;
    if (dm->op == VX_DM_READ || dm->op == VX_DM_INJECT_REJECT ||
        (dm->op == VX_DM_WRITE && dm->addr != VX_DM_DCONFIG))
        return;
    if (b->ndm == b->capdm) {
        size_t nc = b->capdm ? b->capdm * 2 : 16;
        cdm *nd = realloc(b->dm, nc * sizeof *nd);
        if (!nd) {
            c->meta |= M_HASDM; /* but M_DM will not be set: the entry stays unusable */
            c->meta &= ~M_DM;
            return;
        }
        b->dm = nd;
        b->capdm = nc;
    }
    b->dm[b->ndm].index = i;
    b->dm[b->ndm].dm = *dm;
    b->ndm++;
    c->meta |= M_HASDM;
}

static void cache_free(vx_engine *e)
{
    if (!e->cache) return;
    for (unsigned i = 0; i < CACHE_SLOTS; i++) {
        free(e->cache[i].v);
        free(e->cache[i].dm);
    }
    free(e->cache);
    e->cache = NULL;
}

/* ---- moving along the recorded stream ------------------------------------------------------------ */

static vx_err apply_dm_op(vx_engine *e, uint64_t index, const vx_dm_event *d)
{
    vx_err err = VX_OK;
    switch (d->op) {
    case VX_DM_WRITE:
        if (d->addr == VX_DM_DCONFIG) vx_sim_set_ebreak_halt(e->sim, d->value & 1);
        break;
    case VX_DM_HALT: err = vx_sim_halt(e->sim, d->gwarp, (uint8_t)d->arg); break;
    case VX_DM_RESUME: err = vx_sim_resume(e->sim, d->gwarp); break;
    case VX_DM_RESET: vx_sim_reset(e->sim); break;
    case VX_DM_SET_PC: err = vx_sim_set_pc(e->sim, d->gwarp, d->value); break;
    case VX_DM_SCRATCH:
        err = vx_sim_reg_write(e->sim, d->gwarp, d->lane, VX_RF_CSR, VX_CSR_DSCRATCH0 + d->arg,
                               d->value);
        break;
    default: break; /* READ, INJECT_REJECT: observations only */
    }
    if (err != VX_OK) {
        seterr(e,
               "replay diverged at event %" PRIu64
               ": recorded Debug Module event (op %u, warp %" PRIu32 ") cannot be applied: %s",
               index, d->op, d->gwarp, vx_sim_errmsg(e->sim));
        return VX_ERR_DIVERGED;
    }
    return VX_OK;
}

/* How read_to_issue treats the DM events before the next issue. */
enum {
    DM_SKIP,    /* already part of the restored state */
    DM_PARTIAL, /* apply (after a keyframe: some may be in the keyframe already) */
    DM_ALL,     /* apply and remember in the cache: all of them are seen */
};

/*
 * Read on from the main reader: apply DM events, stop at the next issue (pend,
 * which must be the issue at `now`) or at the end.
 */
static vx_err read_to_issue(vx_engine *e, int dm_mode)
{
    bool record = false;
    if (dm_mode == DM_ALL) {
        cent *c = cache_slot(e, e->now, NULL);
        record = c && !(c->meta & M_DM);
    }
    for (;;) {
        const vx_event *ev;
        vx_err err = vx_trace_reader_next(e->rd, &ev);
        if (err && err != VX_ERR_END) {
            e->pend = NULL;
            e->rd_at = NO_ISSUE;
            return trace_error(e, err);
        }
        if (err == VX_ERR_END || ev->kind == VX_EV_ISSUE || ev->kind == VX_EV_END) {
            if (err != VX_ERR_END && ev->kind == VX_EV_ISSUE && ev->index != e->now) {
                e->pend = NULL;
                e->rd_at = NO_ISSUE;
                seterr(e, "%s: issue record %" PRIu64 " found where issue %" PRIu64 " was expected",
                       e->path, ev->index, e->now);
                return VX_ERR_CORRUPT;
            }
            e->pend = err == VX_ERR_END || ev->kind == VX_EV_END ? NULL : ev;
            e->rd_at = e->now;
            if (record) {
                cent *c = cache_get(e, e->now);
                if (c) c->meta |= M_DM;
            }
            return VX_OK;
        }
        if (ev->kind == VX_EV_DM && dm_mode != DM_SKIP) {
            err = apply_dm_op(e, ev->index, &ev->dm);
            if (err) return err;
            if (record) cache_dm(e, e->now, &ev->dm);
        }
    }
}

static bool at_end(const vx_engine *e)
{
    return e->now >= e->end;
}

/* Put the reader at the current position (a seek: about a chunk's decoding). */
static vx_err ensure_reader(vx_engine *e)
{
    if (e->rd_at == e->now) return VX_OK;
    vx_err err = vx_trace_reader_seek(e->rd, e->now);
    if (err) return trace_error(e, err);
    e->st.reader_seeks++;
    return read_to_issue(e, DM_SKIP);
}

static vx_err diverged(vx_engine *e, const vx_event *ev, const char *what)
{
    char brief[256];
    vx_trace_event_brief(ev, brief, sizeof brief);
    seterr(e,
           "replay diverged at event %" PRIu64
           ": %s [recorded vs re-executed]; the recorded issue: %s",
           ev->index, what, brief);
    return VX_ERR_DIVERGED;
}

static vx_err goto_pos(vx_engine *e, uint64_t x);
static bool poll_tick(vx_engine *e, uint64_t work);

/*
 * After a divergence the live machine holds a state the recording never had:
 * rebuild the position before the offending issue (everything up to it verified).
 */
static void recover(vx_engine *e, uint64_t pos)
{
    char keep[sizeof e->err];
    memcpy(keep, e->err, sizeof keep);
    /* force a rebuild: the live state is not at any position */
    e->now = UINT64_MAX;
    e->rd_at = NO_ISSUE;
    if (goto_pos(e, pos) != VX_OK) {
        /* even that failed: fall back to the start */
        e->now = UINT64_MAX;
        goto_pos(e, 0);
    }
    memcpy(e->err, keep, sizeof keep);
}

/*
 * The simulator found the host out of memory replaying the issue at idx: no fault of
 * the trace (not a divergence), and the issue had no effect (vx_sim_issue): the
 * machine stays whole at idx (rebuilding it would need the memory that is missing).
 */
static vx_err host_oom(vx_engine *e, uint64_t idx)
{
    seterr(e, "replaying event %" PRIu64 ": %s", idx, vx_sim_errmsg(e->sim));
    return VX_ERR_NOMEM;
}

/* Execute the reader's pending issue (at now) as recorded, verifying it. */
static vx_err exec_pending(vx_engine *e)
{
    const vx_event *ev = e->pend;
    uint32_t gw = gwarp_of(e, ev);
    uint64_t idx = ev->index;
    vx_stop st;
    vx_err err;
    set_obs(e, e->verify ? OBS_VERIFY : OBS_NONE);
    e->expect = e->verify ? ev : NULL;
    e->seen_issue = false;
    e->mismatch = false;
    e->read_hit = false;
    if (ev->flags & VX_EVF_INJECTED)
        err = vx_sim_inject(e->sim, gw, vx_lanes_first(ev->tmask), ev->insn, &st);
    else if (ev->flags & VX_EVF_STEP)
        err = vx_sim_step_warp(e->sim, gw, &st);
    else
        err = vx_sim_issue(e->sim, ev->core, ev->warp, ev->cycle, &st);
    e->expect = NULL;
    e->st.replayed++;
    if (err == VX_ERR_NOMEM) return host_oom(e, idx);
    if (err != VX_OK) {
        char what[600];
        snprintf(what, sizeof what, "the simulator refused the recorded issue: %s",
                 vx_sim_errmsg(e->sim));
        diverged(e, ev, what);
        recover(e, idx);
        return VX_ERR_DIVERGED;
    }
    if ((e->verify && !e->seen_issue) || e->mismatch) {
        diverged(e, ev, e->seen_issue ? e->diff : "the simulator reported no issue");
        recover(e, idx);
        return VX_ERR_DIVERGED;
    }
    if (e->verify) e->st.verified++;
    cache_issue(e, ev, gw);
    e->now++;
    vx_err err2 = read_to_issue(e, DM_ALL);
    /* The issue ran; a damaged chunk after it is reported when its records are needed
     * (peek, step_once), not by this issue: a window ending here stays usable. */
    return vx_engine_unreadable(err2) ? VX_OK : err2;
}

/* Can the issue at now be replayed from the cache (known, verified, DM effects after it known)? */
static const cent *cached_step(const vx_engine *e)
{
    const cent *c = cache_get(e, e->now);
    if (!c || !(c->meta & M_ISSUE) || (e->verify && !(c->meta & M_VERIFIED))) return NULL;
    if (e->now + 1 >= e->end) return NULL; /* the last step goes through the reader (END) */
    const cent *n = cache_get(e, e->now + 1);
    if (!n || !(n->meta & M_DM)) return NULL;
    return c;
}

static vx_err exec_cached(vx_engine *e, const cent *c)
{
    uint32_t gw = c->meta & M_GWARP;
    uint8_t flags = (uint8_t)((c->meta >> M_FLAGS_SH) & 3);
    vx_stop st;
    vx_err err;
    set_obs(e, OBS_NONE);
    e->expect = NULL;
    e->seen_issue = false;
    e->read_hit = false;
    if (flags & VX_EVF_INJECTED)
        err = vx_sim_inject(e->sim, gw, c->meta >> M_LANE_SH, c->word, &st);
    else if (flags & VX_EVF_STEP)
        err = vx_sim_step_warp(e->sim, gw, &st);
    else
        err = vx_sim_issue(e->sim, gw / e->W, gw % e->W, c->cycle, &st);
    e->st.replayed++;
    e->st.cached++;
    if (err == VX_ERR_NOMEM) return host_oom(e, e->now);
    if (err != VX_OK) {
        /* cannot happen for a verified issue; say so rather than go on */
        seterr(e,
               "replay diverged at event %" PRIu64 ": the simulator refused a verified issue: %s",
               e->now, vx_sim_errmsg(e->sim));
        recover(e, e->now);
        return VX_ERR_DIVERGED;
    }
    e->now++;
    const cent *n = cache_get(e, e->now);
    if (n && (n->meta & M_HASDM)) {
        const cblock *b = &e->cache[(e->now >> CBLOCK_SHIFT) % CACHE_SLOTS];
        for (size_t i = 0; i < b->ndm; i++)
            if (b->dm[i].index == e->now) {
                err = apply_dm_op(e, e->now, &b->dm[i].dm);
                if (err) return err;
            }
    }
    return VX_OK;
}

/* Replay the issue at now, from the cache if possible. */
static vx_err step_once(vx_engine *e)
{
    const cent *c = cached_step(e);
    if (c) return exec_cached(e, c);
    vx_err err = ensure_reader(e);
    if (err) return err;
    if (!e->pend) {
        seterr(e,
               "%s: the trace ends at event %" PRIu64 " although %" PRIu64 " issues were announced",
               e->path, e->now, e->end);
        return VX_ERR_TRUNC;
    }
    return exec_pending(e);
}

/* The next issue (at now): who, where.  With need_ev the recorded event too (reader). */
typedef struct nexti {
    uint32_t gwarp, core, pc;
    uint8_t flags;
    const vx_event *ev;
} nexti;

static vx_err peek(vx_engine *e, bool need_ev, nexti *ni)
{
    memset(ni, 0, sizeof *ni);
    const cent *c = need_ev ? NULL : cache_get(e, e->now);
    if (c && (c->meta & M_ISSUE)) {
        ni->gwarp = c->meta & M_GWARP;
        ni->core = ni->gwarp / e->W;
        ni->flags = (uint8_t)((c->meta >> M_FLAGS_SH) & 3);
        ni->pc = (ni->flags & VX_EVF_INJECTED) ? 0 : c->word;
        return VX_OK;
    }
    vx_err err = ensure_reader(e);
    if (err) return err;
    if (!e->pend) {
        seterr(e, "%s: no issue record at event %" PRIu64, e->path, e->now);
        return VX_ERR_TRUNC;
    }
    ni->gwarp = gwarp_of(e, e->pend);
    ni->core = e->pend->core;
    ni->flags = e->pend->flags;
    ni->pc = e->pend->pc;
    ni->ev = e->pend;
    return VX_OK;
}

/* ---- checkpoints ------------------------------------------------------------------------------------ */

static void add_ckpt(vx_engine *e, vx_ckpt_kind kind)
{
    vx_tl_add(&e->tl, e->sim, e->now, kind, 0);
    if (vx_tl_due(&e->tl) || kind == VX_CKPT_STOP || kind == VX_CKPT_SHORT)
        vx_tl_thin(&e->tl, e->sim, e->now);
}

static void maybe_ckpt(vx_engine *e)
{
    /* the live machine's writes give the checkpoints their old pages: keep to the budget
     * between checkpoints too (a look every 256 issues) */
    if ((e->now & 255) == 0) vx_tl_check_growth(&e->tl, e->sim, e->now);
    if (e->now == e->short_at || e->now == e->short_near) {
        if (!vx_tl_at(&e->tl, e->now)) add_ckpt(e, VX_CKPT_SHORT);
    } else if (e->now % e->tl.interval == 0 && e->now && !vx_tl_at(&e->tl, e->now)) {
        add_ckpt(e, VX_CKPT_PERIODIC);
    }
}

/* Restore checkpoint i of the timeline (the reader stays where it is until needed). */
static vx_err restore_ckpt(vx_engine *e, size_t i)
{
    vx_ckpt *c = &e->tl.v[i];
    vx_err err = vx_sim_snap_restore(e->sim, c->snap);
    if (err) {
        seterr(e, "cannot restore the checkpoint at event %" PRIu64 ": %s", c->pos,
               vx_sim_errmsg(e->sim));
        return err;
    }
    e->st.restores++;
    e->now = c->pos;
    return VX_OK;
}

typedef struct page_ctx {
    vx_engine *e;
    vx_err err;
} page_ctx;

static vx_err put_page(void *ctx, uint32_t space, uint32_t addr, const uint8_t *page)
{
    page_ctx *pc = ctx;
    vx_err err = vx_sim_put_page(pc->e->sim, space, addr, page);
    if (err) {
        seterr(pc->e,
               "%s: keyframe page (space %" PRIu32 ", 0x%08" PRIx32 ") cannot be applied: %s",
               pc->e->path, space, addr, vx_sim_errmsg(pc->e->sim));
        pc->err = err;
    }
    return err;
}

/* Keyframe k is unreadable (why): it and those after it (which take their older pages
 * from it) are no longer used; positions past it are rebuilt from earlier bases. */
static void drop_keyframes(vx_engine *e, size_t k, const char *why)
{
    snprintf(e->note, sizeof e->note,
             "keyframe %zu of %zu is unreadable (%.700s): positions after it are rebuilt from "
             "earlier keyframes and checkpoints, more slowly",
             k, e->nkf, why);
    if (k < e->nkf) e->nkf = k;
}

/*
 * Restore keyframe k: memory = position 0 (the BASE checkpoint) plus the newest
 * copy of every page stored up to keyframe k; registers from its state encoding.
 */
static vx_err restore_keyframe(vx_engine *e, size_t k)
{
    long b = vx_tl_find(&e->tl, 0);
    if (b < 0) return VX_ERR_STATE;
    vx_err err = vx_sim_snap_restore(e->sim, e->tl.v[b].snap);
    if (err) return err;
    page_ctx pc = {e, VX_OK};
    err = vx_trace_reader_keyframe_pages(e->rd, k, VX_TRACE_PAGES_ALL, put_page, &pc);
    if (pc.err) return pc.err;
    if (err) return trace_error(e, err);
    vx_trace_keyframe info;
    const uint8_t *state;
    size_t len;
    err = vx_trace_reader_keyframe(e->rd, k, &info, &state, &len);
    if (err) return trace_error(e, err);
    err = vx_sim_state_decode(e->sim, state, len);
    if (err) {
        seterr(e, "%s: keyframe %zu (event %" PRIu64 ") cannot be decoded: %s", e->path, k,
               info.index, vx_sim_errmsg(e->sim));
        return err;
    }
    e->st.restores++;
    e->now = info.index; /* (the ebreak-halt mode is in the state, Debug Module included) */
    err = vx_trace_reader_seek_keyframe(e->rd, k);
    e->rd_at = NO_ISSUE;
    if (err) return trace_error(e, err);
    e->st.reader_seeks++;
    /* DM events recorded after the keyframe but before the issue are not in it. */
    return read_to_issue(e, DM_PARTIAL);
}

/*
 * Go to position x: from the live state if it is the closest base, else from
 * the nearest checkpoint or keyframe at or before x; replay forward.
 */
static vx_err goto_pos(vx_engine *e, uint64_t x)
{
    if (x > e->end) x = e->end;
    if (x == e->now) return VX_OK;
    const uint64_t from = e->now;
    long ci = vx_tl_find(&e->tl, x);
    uint64_t cpos = ci >= 0 ? e->tl.v[ci].pos : 0;
    size_t k = 0;
    bool have_kf = false;
    uint64_t kpos = 0;
    if (e->nkf) {
        /* last keyframe at or before x */
        size_t lo = 0, hi = e->nkf;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (e->kf_pos[mid] <= x)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo > 0) {
            k = lo - 1;
            kpos = e->kf_pos[k];
            have_kf = true;
        }
    }
    bool live =
        e->now != UINT64_MAX && e->now <= x && e->now >= cpos && (!have_kf || e->now >= kpos);
    vx_err err = VX_OK;
    if (!live) {
        if (ci >= 0 && (!have_kf || cpos >= kpos))
            err = restore_ckpt(e, (size_t)ci);
        else if (have_kf) {
            err = restore_keyframe(e, k);
            if (vx_engine_unreadable(err)) { /* the machine is half restored: start again */
                drop_keyframes(e, k, e->err);
                e->now = UINT64_MAX;
                return goto_pos(e, x);
            }
        } else
            err = VX_ERR_STATE;
        if (err) {
            /* The machine may be half restored (out of host memory, say): it is at no
             * position.  Rebuild the one it left (recover), else it stays at none (the
             * next move restores a base). */
            e->now = UINT64_MAX;
            e->rd_at = NO_ISSUE;
            if (from != UINT64_MAX) recover(e, from);
            return err;
        }
    }
    if (x > e->now + SHORT_GAP) e->short_at = x - SHORT_GAP;
    if (x > e->now + 2 * SHORT_NEAR) e->short_near = x - SHORT_NEAR;
    while (e->now < x) {
        if (e->goto_polls && poll_tick(e, 1)) break; /* (stays at a whole position) */
        maybe_ckpt(e);
        err = step_once(e);
        if (err) break;
    }
    e->short_at = e->short_near = NO_ISSUE;
    if (err) return err;
    return VX_OK;
}

/* ---- breakpoints and watchpoints -------------------------------------------------------------------- */

static bool bp_hit_at(const vx_engine *e, uint32_t pc, uint32_t gw, uint8_t flags)
{
    if (!e->nbp || (flags & VX_EVF_INJECTED)) return false;
    uint32_t h = (pc >> 2) & 4095;
    if (!(e->bpfilter[h >> 3] & (1u << (h & 7)))) return false;
    for (size_t i = 0; i < e->nbp; i++)
        if (e->bps[i].pc == pc && (e->bps[i].gwarp == VX_ENGINE_ANY_WARP || e->bps[i].gwarp == gw))
            return true;
    return false;
}

static bool bp_hit(const vx_engine *e, const vx_event *ev)
{
    return bp_hit_at(e, ev->pc, gwarp_of(e, ev), ev->flags);
}

static void rebuild_filter(vx_engine *e)
{
    memset(e->bpfilter, 0, sizeof e->bpfilter);
    for (size_t i = 0; i < e->nbp; i++) {
        uint32_t h = (e->bps[i].pc >> 2) & 4095;
        e->bpfilter[h >> 3] |= (uint8_t)(1u << (h & 7));
    }
}

/* A recorded memory write of ev that touches a write/access watchpoint. */
/* The write watchpoint of e that an access [addr, addr+size) by ev's core touches, or NULL. */
static const wpoint *written_wp(const vx_engine *e, const vx_event *ev, uint32_t addr,
                                uint32_t size)
{
    for (size_t k = 0; k < e->nwp; k++)
        if (e->wps[k].kind != VX_WATCH_READ && wp_overlaps(&e->wps[k], addr, size, ev->core))
            return &e->wps[k];
    return NULL;
}

static bool write_hit(const vx_engine *e, const vx_event *ev, vx_engine_stop *st)
{
    if (!e->nwrite_wp) return false;
    const wpoint *w = NULL;
    uint32_t at = 0;
    unsigned lane = 128;
    /* the last write that hits names the lane: lanes store in order, its value lands */
    for (uint32_t i = ev->nmem; i-- > 0 && !w;) {
        const vx_memwrite *m = &ev->mem[i];
        if ((w = written_wp(e, ev, m->addr, m->size))) {
            at = m->addr > w->addr ? m->addr : w->addr;
            lane = m->lane;
        }
    }
    /* a byte stored to the console window goes to the console, not to memory: watched
     * all the same (the lane is not recorded: the first that took part) */
    for (uint32_t i = ev->nconsole; i-- > 0 && !w;) {
        at = VX_IO_COUT_ADDR + ev->console[i].slot;
        if ((w = written_wp(e, ev, at, 1))) lane = vx_lanes_first(ev->tmask);
    }
    if (!w) return false;
    st->why = VX_WHY_WATCH;
    st->watch_kind = (vx_watch_kind)w->kind;
    st->watch_addr = at;
    st->gwarp = gwarp_of(e, ev);
    st->lane = lane < 128 ? lane : 0;
    st->has_lane = lane < 128;
    return true;
}

/* A breakpoint stop of gwarp; its first active lane (the issue's mask is the warp's mask). */
static void break_stop_at(const vx_engine *e, uint32_t gw, vx_lanes tmask, vx_engine_stop *st)
{
    memset(st, 0, sizeof *st);
    st->why = VX_WHY_BREAK;
    st->gwarp = gw;
    if (!tmask) {
        vx_warp_info wi;
        if (vx_sim_warp_info(e->sim, gw, &wi) == VX_OK) tmask = wi.tmask;
    }
    unsigned l = vx_lanes_first(tmask);
    st->lane = l < 128 ? l : 0;
    st->has_lane = l < 128;
}

static void break_stop(const vx_engine *e, const vx_event *ev, vx_engine_stop *st)
{
    break_stop_at(e, gwarp_of(e, ev), ev->tmask, st);
}

vx_err vx_engine_break_insert(vx_engine *e, uint32_t pc, uint32_t gwarp)
{
    for (size_t i = 0; i < e->nbp; i++)
        if (e->bps[i].pc == pc && e->bps[i].gwarp == gwarp) {
            e->bps[i].refs++;
            return VX_OK;
        }
    if (e->nbp == e->capbp) {
        size_t nc = e->capbp ? e->capbp * 2 : 16;
        bpoint *nb = realloc(e->bps, nc * sizeof *nb);
        if (!nb) return VX_ERR_NOMEM;
        e->bps = nb;
        e->capbp = nc;
    }
    e->bps[e->nbp++] = (bpoint){pc, gwarp, 1};
    rebuild_filter(e);
    return VX_OK;
}

vx_err vx_engine_break_remove(vx_engine *e, uint32_t pc, uint32_t gwarp)
{
    for (size_t i = 0; i < e->nbp; i++)
        if (e->bps[i].pc == pc && e->bps[i].gwarp == gwarp) {
            if (--e->bps[i].refs == 0) {
                e->bps[i] = e->bps[--e->nbp];
                rebuild_filter(e);
            }
            return VX_OK;
        }
    return VX_ERR_RANGE;
}

static void count_wps(vx_engine *e)
{
    e->nwrite_wp = e->nread_wp = 0;
    for (size_t i = 0; i < e->nwp; i++) {
        if (e->wps[i].kind != VX_WATCH_READ) e->nwrite_wp++;
        if (e->wps[i].kind != VX_WATCH_WRITE) e->nread_wp++;
    }
    update_observer(e);
}

/* The core a watchpoint on [addr, addr+len) is kept with: only local memory depends
 * on it (a range that reaches into local memory from below or above too). */
static uint32_t wp_core(uint32_t addr, uint32_t len, uint32_t core)
{
    uint64_t end = (uint64_t)addr + len;
    return addr < LMEM_END && end > VX_LMEM_BASE_ADDR ? core : 0;
}

vx_err vx_engine_watch_insert(vx_engine *e, vx_watch_kind kind, uint32_t addr, uint32_t len,
                              uint32_t core)
{
    if (len == 0 || (kind != VX_WATCH_WRITE && kind != VX_WATCH_READ && kind != VX_WATCH_ACCESS))
        return VX_ERR_INVAL;
    if ((uint64_t)addr + len > (uint64_t)UINT32_MAX + 1)
        len = (uint32_t)((uint64_t)UINT32_MAX + 1 - addr);
    core = wp_core(addr, len, core);
    for (size_t i = 0; i < e->nwp; i++) {
        wpoint *w = &e->wps[i];
        if (w->kind == kind && w->addr == addr && w->len == len && w->core == core) {
            w->refs++;
            return VX_OK;
        }
    }
    if (e->nwp == e->capwp) {
        size_t nc = e->capwp ? e->capwp * 2 : 16;
        wpoint *nw = realloc(e->wps, nc * sizeof *nw);
        if (!nw) return VX_ERR_NOMEM;
        e->wps = nw;
        e->capwp = nc;
    }
    e->wps[e->nwp++] = (wpoint){(uint8_t)kind, addr, len, core, 1};
    count_wps(e);
    return VX_OK;
}

vx_err vx_engine_watch_remove(vx_engine *e, vx_watch_kind kind, uint32_t addr, uint32_t len,
                              uint32_t core)
{
    if (len && (uint64_t)addr + len > (uint64_t)UINT32_MAX + 1)
        len = (uint32_t)((uint64_t)UINT32_MAX + 1 - addr);
    core = wp_core(addr, len, core);
    for (size_t i = 0; i < e->nwp; i++) {
        wpoint *w = &e->wps[i];
        if (w->kind == kind && w->addr == addr && w->len == len && w->core == core) {
            if (--w->refs == 0) {
                e->wps[i] = e->wps[--e->nwp];
                count_wps(e);
            }
            return VX_OK;
        }
    }
    return VX_ERR_RANGE;
}

void vx_engine_points_clear(vx_engine *e)
{
    e->nbp = 0;
    e->nwp = 0;
    rebuild_filter(e);
    count_wps(e);
}

/* ---- polling ---------------------------------------------------------------------------------------- */

void vx_engine_set_poll(vx_engine *e, vx_engine_poll_fn fn, void *ctx)
{
    e->poll = fn;
    e->poll_ctx = ctx;
}

void vx_engine_set_break_filter(vx_engine *e, vx_engine_break_filter_fn fn, void *ctx)
{
    e->bf = fn;
    e->bf_ctx = ctx;
}

/* A breakpoint matched gw at pc, the machine being there: do its conditions hold? */
static bool bp_cond(vx_engine *e, uint32_t gw, uint32_t pc)
{
    return !e->bf || e->bf(e->bf_ctx, gw, pc);
}

/* Count work; every POLL_EVERY units ask whether the user wants to stop. */
static bool poll_tick(vx_engine *e, uint64_t work)
{
    e->since_poll += work;
    if (e->since_poll < POLL_EVERY) return e->interrupted;
    e->since_poll = 0;
    if (!e->interrupted && e->poll && e->poll(e->poll_ctx)) e->interrupted = true;
    return e->interrupted;
}

/* Is a breakpoint hit at issue t (of warp gw) one reported or stepped over already (not
 * to report again)? */
static inline bool rep_bp(const vx_engine *e, uint64_t t, uint32_t gw)
{
    if (t == e->rep_issue && e->rep_skip_bp) return true;
    for (size_t i = 0; i < e->nover; i++)
        if (gw == e->over[i].gwarp && t >= e->over[i].lo && t < e->over[i].hi) return true;
    return false;
}

static inline bool rep_wp(const vx_engine *e, uint64_t t)
{
    return t == e->rep_issue && e->rep_skip_wp;
}

static void set_reported(vx_engine *e, uint64_t t, bool bp, bool wp)
{
    e->rep_issue = t;
    e->rep_skip_bp = bp;
    e->rep_skip_wp = wp;
    e->nover = 0;
}

/* ---- forward motion --------------------------------------------------------------------------------- */

static void fault_stop(const vx_engine *e, vx_engine_stop *st)
{
    memset(st, 0, sizeof *st);
    st->why = VX_WHY_FAULT;
    st->fault = e->end_fault;
    st->gwarp = e->end_fault.core * e->W + e->end_fault.warp;
    vx_lanes l = e->end_fault.lanes;
    vx_warp_info wi;
    if (!l && vx_sim_warp_info(e->sim, st->gwarp, &wi) == VX_OK) l = wi.tmask;
    unsigned lane = vx_lanes_first(l);
    st->lane = lane < 128 ? lane : 0;
    st->has_lane = lane < 128;
}

/*
 * Does a step end with an issue (flags) of the stepping warp that has thread mask
 * tmask?  Not when the Debug Module injected it: a recorded debugger's instruction is
 * not the program's, and leaves the PC where it is (GDB, stepping over a breakpoint
 * there, would take the same breakpoint again, once per injected instruction); it
 * runs (or is undone) on the way, as the other warps' issues do.  Else for a lane
 * step when that lane takes part.
 */
static bool step_ends_with(const vx_engine_motion *m, uint8_t flags, vx_lanes tmask)
{
    return !(flags & VX_EVF_INJECTED) && (!m->lane_step || vx_lanes_test(tmask, m->step_lane));
}

/* step_ends_with for warp gw's next issue (flags), its mask the warp's now. */
static bool lane_in_next(const vx_engine *e, const vx_engine_motion *m, uint32_t gw, uint8_t flags)
{
    vx_warp_info wi;
    if (m->lane_step && vx_sim_warp_info(e->sim, gw, &wi) != VX_OK) return false;
    return step_ends_with(m, flags, m->lane_step ? wi.tmask : 0);
}

static bool digest_may_stop(const vx_engine *e, const vx_trace_digest *d,
                            const vx_engine_motion *m);
static uint64_t base_before(const vx_engine *e, uint64_t hi);

/*
 * A continue forward jumps, as a backward search does, over the EVENTS chunks, from
 * the current one on, whose digests rule a stop out: to the first that may hold one
 * (the last chunk at most, which is replayed), by way of the closest base (keyframe or
 * checkpoint), when one lies past the current position (else replaying from here is
 * as short).  Not for steps, nor with read watchpoints (reads are known only once
 * executed); a chunk without a digest, or that fails its checksum, is not jumped over
 * (the replay meets it: a damaged chunk ends history there, as before).  *recheck:
 * where to look again (the end of the chunk the motion then runs in).
 */
static vx_err skip_ahead(vx_engine *e, const vx_engine_motion *m, uint64_t *recheck)
{
    *recheck = UINT64_MAX;
    size_t g;
    uint64_t lo, hi;
    if (m->step || e->nread_wp || !e->ix || !vx_index_find(e->ix, e->now, &g, &lo, &hi))
        return VX_OK;
    *recheck = hi;
    const size_t last = vx_index_nseg(e->ix) - 1;
    uint64_t target = e->now;
    /* from the chunk the motion is in: the rest of it is jumped over too */
    for (uint64_t t = lo;;) {
        size_t k;
        uint64_t klo, khi;
        if (!vx_index_find(e->ix, t, &k, &klo, &khi) || k >= last) break;
        const vx_trace_digest *d = vx_index_digest(e->ix, k);
        if (!d || digest_may_stop(e, d, m) || vx_index_check(e->ix, e->sr, k) != VX_OK) break;
        target = t = khi;
        if (poll_tick(e, 1024)) break;
    }
    if (target == e->now || base_before(e, target + 1) <= e->now) return VX_OK;
    e->st.skipped += target - e->now;
    vx_err err = goto_pos(e, target);
    if (err) return err;
    *recheck = vx_index_find(e->ix, e->now, &g, &lo, &hi) ? hi : UINT64_MAX;
    return VX_OK;
}

static bool lane_parked(const vx_engine *e, uint32_t gw, uint32_t lane);

static vx_err run_forward(vx_engine *e, const vx_engine_motion *m, vx_engine_stop *st)
{
    uint64_t start = e->now, recheck = 0;
    bool any_step = m->step && m->step_gwarp == VX_ENGINE_ANY_WARP;
    /* A lane step never ends with the lane parked by the instruction it ran (by tmc
     * or pred: it has no position of its own there): it goes on until the warp enables
     * the lane again, and ends right after that issue (or the warp's last one), the
     * lane at the warp's PC.  (From a lane already parked, the step ends after the
     * lane's first issue, as for any lane masked off.) */
    bool wake = false;
    for (;;) {
        if (e->now >= recheck) {
            vx_err err = skip_ahead(e, m, &recheck);
            if (err) return err;
        }
        if (at_end(e)) {
            if (e->now != start && (e->fault_at_end || e->fault_after)) {
                fault_stop(e, st);
            } else {
                memset(st, 0, sizeof *st);
                st->why = VX_WHY_END;
                st->gwarp = m->step_gwarp;
            }
            return VX_OK;
        }
        nexti ni;
        vx_err err = peek(e, e->nwrite_wp > 0, &ni);
        if (err) return err;
        uint32_t gw = ni.gwarp;
        /* a lane step: the warp's issues the lane sits out run as the other lanes' own
         * (their breakpoints and watchpoints stop the step) */
        bool warp_own = m->step && (any_step || gw == m->step_gwarp);
        bool own = warp_own && lane_in_next(e, m, gw, ni.flags);
        bool eligible = m->step ? (warp_own || m->others)
                                : (m->only_gwarp == VX_ENGINE_ANY_WARP || gw == m->only_gwarp);
        const bool skip_wp = rep_wp(e, e->now);
        /* A breakpoint on the stepping warp's own instruction is what GDB steps over
         * (when GDB sees the thread there). */
        const bool stepped_over = own && (!m->step_pc_known || ni.pc == m->step_pc);
        if (eligible && !stepped_over && !rep_bp(e, e->now, gw) &&
            bp_hit_at(e, ni.pc, gw, ni.flags) && bp_cond(e, gw, ni.pc)) {
            break_stop_at(e, gw, 0, st);
            return VX_OK;
        }
        /* Watchpoints stop any motion at any warp's access: a step or a locked continue
         * runs the other warps' issues too (one timeline), and must not cross one
         * silently (the server names the moving thread, the console the writer). */
        memset(st, 0, sizeof *st);
        if (!skip_wp && ni.ev && write_hit(e, ni.ev, st)) return VX_OK;
        maybe_ckpt(e);
        uint64_t t = e->now;
        err = ni.ev ? exec_pending(e) : step_once(e);
        if (err) return err;
        if (!skip_wp && e->read_hit) {
            /* Reads are known only once executed: go back before the load. */
            vx_engine_stop rs;
            memset(&rs, 0, sizeof rs);
            rs.why = VX_WHY_WATCH;
            rs.watch_kind = e->rh_kind;
            rs.watch_addr = e->rh_addr;
            rs.gwarp = gw;
            rs.lane = e->rh_lane;
            rs.has_lane = true;
            err = goto_pos(e, t);
            if (err) return err;
            *st = rs;
            return VX_OK;
        }
        if (own && m->lane_step && !any_step && lane_parked(e, gw, m->step_lane)) {
            own = false; /* parked by the instruction it ran: on to its wake */
            wake = true;
        } else if (wake && gw == m->step_gwarp && !lane_parked(e, gw, m->step_lane)) {
            own = true; /* enabled again, or its warp ended */
        }
        if (own) {
            memset(st, 0, sizeof *st);
            st->why = VX_WHY_STEP;
            st->gwarp = gw;
            return VX_OK;
        }
        if (poll_tick(e, 1)) {
            memset(st, 0, sizeof *st);
            st->why = VX_WHY_INTERRUPT;
            return VX_OK;
        }
    }
}

/* ---- backward motion -------------------------------------------------------------------------------- */

/* A step of warp gw that undoes issue t: the candidate stop is at t. */
static void cand_step(cand *c, uint64_t t, uint32_t gw)
{
    c->found = true;
    c->pos = t;
    c->issue = t;
    memset(&c->stop, 0, sizeof c->stop);
    c->stop.why = VX_WHY_STEP;
    c->stop.gwarp = gw;
}

/*
 * Scan recorded issues [lo, hi) with the scan reader and keep the last stop (a
 * breakpoint at issue t stops at t; a write watchpoint at issue t stops at t+1).
 * For a step (m->step) look for the last issue of the stepping warp instead.
 */
static vx_err scan_range(vx_engine *e, uint64_t lo, uint64_t hi, const vx_engine_motion *m, cand *c)
{
    vx_err err = vx_trace_reader_seek(e->sr, lo);
    if (err) {
        seterr(e, "%s", vx_trace_reader_errmsg(e->sr)); /* it names the file */
        return err;
    }
    for (;;) {
        const vx_event *ev;
        /* not a chunk further than needed: one that cannot be read may follow */
        if (vx_trace_reader_tell(e->sr) >= hi) return VX_OK;
        err = vx_trace_reader_next(e->sr, &ev);
        if (err == VX_ERR_END) return VX_OK;
        if (err) {
            seterr(e, "%s", vx_trace_reader_errmsg(e->sr)); /* it names the file */
            return err;
        }
        if (ev->kind == VX_EV_END) return VX_OK;
        if (ev->kind != VX_EV_ISSUE) continue;
        uint64_t t = ev->index;
        if (t >= hi) return VX_OK;
        if (t < lo) continue;
        e->st.scanned++;
        uint32_t gw = gwarp_of(e, ev);
        /* undoing issue t: a watched write there stops after it, whichever warp made it
         * (a step or a locked continue undoes the other warps' issues too) */
        vx_engine_stop ws;
        memset(&ws, 0, sizeof ws);
        const bool whit = !rep_wp(e, t) && write_hit(e, ev, &ws);
        if (m->step) {
            /* a lane step ends at an issue the lane takes part in; the warp's others are
             * undone on the way, as the other lanes' own, and so are the instructions the
             * Debug Module injected */
            if ((m->step_gwarp == VX_ENGINE_ANY_WARP || gw == m->step_gwarp) &&
                step_ends_with(m, ev->flags, ev->tmask))
                cand_step(c, t, gw);
            if (whit) {
                c->found = true;
                c->pos = t + 1;
                c->issue = t;
                c->stop = ws;
            }
            continue;
        }
        if (whit) {
            c->found = true;
            c->pos = t + 1;
            c->issue = t;
            c->stop = ws;
        } else if (m->only_gwarp == VX_ENGINE_ANY_WARP || gw == m->only_gwarp) {
            if (!rep_bp(e, t, gw) && bp_hit(e, ev)) {
                c->found = true;
                c->pos = t;
                c->issue = t;
                break_stop(e, ev, &c->stop);
            }
        }
        if (poll_tick(e, 1)) return VX_OK;
    }
}

/* Can a chunk with digest d hold a stop for m?  False only when the digest is sure. */
static bool digest_may_stop(const vx_engine *e, const vx_trace_digest *d, const vx_engine_motion *m)
{
    /* any warp's watched write stops any motion */
    for (size_t i = 0; i < e->nwp; i++) {
        const wpoint *w = &e->wps[i];
        if (w->kind == VX_WATCH_READ) continue;
        if (vx_trace_digest_may_write(d, w->addr, w->len) ||
            vx_trace_digest_may_console(d, w->addr, w->len))
            return true;
    }
    if (m->step)
        return m->step_gwarp == VX_ENGINE_ANY_WARP || vx_trace_digest_may_warp(d, m->step_gwarp);
    if (m->only_gwarp != VX_ENGINE_ANY_WARP && !vx_trace_digest_may_warp(d, m->only_gwarp))
        return false;
    for (size_t i = 0; i < e->nbp; i++)
        if (vx_trace_digest_may_pc(d, e->bps[i].pc)) return true;
    return false;
}

/* [s, t) holds an unreadable EVENTS chunk: the end of the newest such chunk (the
 * issues from there to t can be read), or t when it cannot be told. */
static uint64_t readable_from(vx_engine *e, uint64_t s, uint64_t t)
{
    const size_t n = vx_trace_reader_num_chunks(e->sr);
    for (size_t i = n; i-- > 0;) {
        const uint64_t key = vx_trace_reader_chunk_key(e->sr, i);
        const uint64_t end = i + 1 < n ? vx_trace_reader_chunk_key(e->sr, i + 1) : e->end;
        if (key >= t) continue;
        if (end <= s) break;
        /* (a seek to a chunk's first index may read the chunk before it, for DM records
         * that precede that issue: start one issue in) */
        vx_err err = vx_trace_reader_seek(e->sr, key + 1 < end ? key + 1 : key);
        const vx_event *ev;
        while (!err && !(err = vx_trace_reader_next(e->sr, &ev)) && ev->index < end)
            ;
        if (vx_engine_unreadable(err)) return end < t ? end : t;
    }
    return t;
}

/*
 * scan_range over [lo, hi), newest part first: one EVENTS chunk at a time when the
 * trace is indexed (skipping the chunks whose digest rules a stop out), else blocks
 * of CBLOCK issues.
 */
static vx_err scan_window(vx_engine *e, uint64_t lo, uint64_t hi, const vx_engine_motion *m,
                          cand *c)
{
    for (uint64_t t = hi; t > lo;) {
        uint64_t s = (t - 1) & ~(uint64_t)(CBLOCK - 1), shi;
        bool may = true;
        size_t g;
        if (e->ix && vx_index_find(e->ix, t - 1, &g, &s, &shi)) {
            const vx_trace_digest *d = vx_index_digest(e->ix, g);
            may = !d || digest_may_stop(e, d, m);
        }
        if (s < lo) s = lo;
        if (may) {
            vx_err err = scan_range(e, s, t, m, c);
            /* [t, hi) was searched whole: a damaged chunk in [s, t) ends the search */
            if (vx_engine_unreadable(err)) e->unreadable_below = readable_from(e, s, t);
            if (err || c->found || e->interrupted) return err;
        } else {
            e->st.skipped += t - s;
            if (poll_tick(e, 16)) return VX_OK;
        }
        t = s;
    }
    return VX_OK;
}

/*
 * Re-execute [lo, hi) from the closest base at or before lo (read watchpoints
 * need executed loads) and keep the last stop, as scan_window does.
 */
static vx_err sim_window(vx_engine *e, uint64_t lo, uint64_t hi, const vx_engine_motion *m, cand *c)
{
    vx_err err = goto_pos(e, lo);
    if (err) return err;
    while (e->now < hi && !at_end(e)) {
        nexti ni;
        err = peek(e, e->nwrite_wp > 0, &ni);
        if (err) return err;
        uint64_t t = e->now;
        uint32_t gw = ni.gwarp;
        bool mine = m->step ? (m->step_gwarp == VX_ENGINE_ANY_WARP || gw == m->step_gwarp)
                            : (m->only_gwarp == VX_ENGINE_ANY_WARP || gw == m->only_gwarp);
        const bool skip_wp = rep_wp(e, t);
        vx_engine_stop ws;
        memset(&ws, 0, sizeof ws);
        bool whit = !skip_wp && ni.ev && write_hit(e, ni.ev, &ws); /* any warp's */
        bool bhit = mine && !m->step && !rep_bp(e, t, gw) && bp_hit_at(e, ni.pc, gw, ni.flags) &&
                    bp_cond(e, gw, ni.pc);
        vx_engine_stop bs;
        if (bhit) break_stop_at(e, gw, 0, &bs);
        if (m->step && mine && lane_in_next(e, m, gw, ni.flags)) cand_step(c, t, gw);
        maybe_ckpt(e);
        err = ni.ev ? exec_pending(e) : step_once(e);
        if (err) return err;
        bool rhit = !skip_wp && e->read_hit;
        if (whit || rhit) {
            c->found = true;
            c->pos = t + 1;
            c->issue = t;
            if (whit) {
                c->stop = ws;
            } else {
                memset(&c->stop, 0, sizeof c->stop);
                c->stop.why = VX_WHY_WATCH;
                c->stop.watch_kind = e->rh_kind;
                c->stop.watch_addr = e->rh_addr;
                c->stop.gwarp = gw;
                c->stop.lane = e->rh_lane;
                c->stop.has_lane = true;
            }
        } else if (bhit) {
            c->found = true;
            c->pos = t;
            c->issue = t;
            c->stop = bs;
        }
        if (poll_tick(e, 1)) return VX_OK;
    }
    return VX_OK;
}

/* The closest restorable position strictly before hi (a checkpoint or keyframe). */
static uint64_t base_before(const vx_engine *e, uint64_t hi)
{
    uint64_t best = 0;
    long ci = vx_tl_find(&e->tl, hi - 1);
    if (ci >= 0) best = e->tl.v[ci].pos;
    for (size_t k = e->nkf; k-- > 0;)
        if (e->kf_pos[k] < hi) {
            if (e->kf_pos[k] > best) best = e->kf_pos[k];
            break;
        }
    return best;
}

/* The last issue of gw (or of any warp) before p, from the cache; false when the cache cannot tell. */
static bool cache_last_issue(const vx_engine *e, uint64_t p, uint32_t gw, uint64_t *t)
{
    for (uint64_t i = p; i-- > 0 && p - i <= 4u * CBLOCK;) {
        const cent *c = cache_get(e, i);
        if (!c || !(c->meta & M_ISSUE)) return false;
        if (gw == VX_ENGINE_ANY_WARP || (c->meta & M_GWARP) == gw) {
            *t = i;
            return true;
        }
    }
    return false;
}

/*
 * A backward search from p found no stop down to e->unreadable_below, where a chunk
 * it cannot read ends.  History that can be rebuilt goes back to the first
 * keyframe or checkpoint at or after that point (the issues before it cannot be
 * replayed): stop there, the beginning of the readable history, and return err
 * (the caller says the trace is unreadable before it).
 */
static vx_err backward_floor(vx_engine *e, uint64_t p, vx_err err, vx_engine_stop *st)
{
    const uint64_t t = e->unreadable_below;
    uint64_t b = p;
    for (size_t k = 0; k < e->nkf; k++)
        if (e->kf_pos[k] >= t) {
            if (e->kf_pos[k] < b) b = e->kf_pos[k];
            break;
        }
    const long ci = t ? vx_tl_find(&e->tl, t - 1) + 1 : 0;
    if (ci >= 0 && (size_t)ci < e->tl.n && e->tl.v[ci].pos < b) b = e->tl.v[ci].pos;
    if (b < p) {
        char keep[sizeof e->err];
        memcpy(keep, e->err, sizeof keep);
        if (goto_pos(e, b) != VX_OK) return err;
        memcpy(e->err, keep, sizeof keep); /* the damage is what is reported */
    }
    memset(st, 0, sizeof *st);
    st->why = VX_WHY_BEGIN;
    return err;
}

static vx_err run_backward(vx_engine *e, const vx_engine_motion *m, vx_engine_stop *st)
{
    const uint64_t p = e->now;
    /* read watchpoints and breakpoint conditions need the machine: re-execute windows */
    bool need_sim = e->nread_wp > 0 || (e->bf && !m->step);
    uint64_t t, hi = p;
    if (m->step && !need_sim && !e->nwrite_wp && cache_last_issue(e, p, m->step_gwarp, &t)) {
        /* A reverse step without watchpoints: the schedule cache knows where to go. */
        vx_err err = goto_pos(e, t);
        if (err) return err;
        memset(st, 0, sizeof *st);
        st->why = VX_WHY_STEP;
        st->gwarp = m->step_gwarp;
        nexti ni; /* the issue undone (at t): the lane's, or one it sat out or injected */
        err = peek(e, false, &ni);
        if (err) return err;
        if (lane_in_next(e, m, m->step_gwarp, ni.flags)) return VX_OK;
        hi = t; /* the lane sat that issue out, or the Debug Module injected it: search before */
    }
    uint64_t win = m->step ? 64 * (uint64_t)e->ngw + 64 : SCAN_FIRST;
    cand c;
    memset(&c, 0, sizeof c);
    while (hi > 0 && !c.found) {
        uint64_t lo;
        if (need_sim) {
            lo = base_before(e, hi);
            /* a base right before hi makes tiny windows: use an older one */
            while (hi - lo < SCAN_FIRST && lo > 0) {
                uint64_t older = base_before(e, lo);
                if (older == lo) break;
                lo = older;
            }
        } else {
            lo = hi > win ? hi - win : 0;
            if (win < SCAN_MAX) win *= 2;
        }
        e->unreadable_below = NO_ISSUE;
        vx_err err = need_sim ? sim_window(e, lo, hi, m, &c) : scan_window(e, lo, hi, m, &c);
        /* (a step stays where it is: the warp has no issue in the readable part) */
        if (vx_engine_unreadable(err) && e->unreadable_below != NO_ISSUE && !m->step)
            return backward_floor(e, p, err, st);
        if (err) return err;
        if (e->interrupted) {
            /* [hi, p) was searched whole and holds no stop: keep that progress (the
             * window being searched may have been cut short) */
            vx_err err2 = goto_pos(e, hi);
            if (err2) return err2;
            memset(st, 0, sizeof *st);
            st->why = VX_WHY_INTERRUPT;
            return VX_OK;
        }
        hi = lo;
    }
    if (!c.found) {
        /* Nothing before: a step of a warp with no earlier issue stays (its history starts here). */
        vx_err err = goto_pos(e, m->step ? p : 0);
        if (err) return err;
        memset(st, 0, sizeof *st);
        st->why = VX_WHY_BEGIN;
        st->gwarp = m->step_gwarp;
        return VX_OK;
    }
    vx_err err = goto_pos(e, c.pos);
    if (err) return err;
    *st = c.stop;
    return VX_OK;
}

/* ---- the public motion ----------------------------------------------------------------------------- */

static void undo_push(vx_engine *e, uint64_t from, uint64_t to, uint32_t gw, uint32_t lane)
{
    if (e->nundo == 0) e->undo0 = 0;
    if (e->nundo == e->capundo) {
        if (e->capundo >= e->undo_max) {
            /* a ring: the newest takes the oldest's slot */
            e->undo0 = (e->undo0 + 1) & (e->capundo - 1);
            e->nundo--;
        } else { /* (undo0 is 0 until the cap is reached) */
            size_t nc = e->capundo ? e->capundo * 2 : e->undo_max < 256 ? e->undo_max : 256;
            struct undo *nu = realloc(e->undo, nc * sizeof *nu);
            if (!nu) {
                e->nundo = 0;
                return;
            }
            e->undo = nu;
            e->capundo = nc;
        }
    }
    e->undo[(e->undo0 + e->nundo++) & (e->capundo - 1)] = (struct undo){from, to, gw, lane};
}

/* Do issues [lo, hi) read a read or access watchpoint?  Reads are not recorded: the
 * issues are executed again from lo (a forward step left a checkpoint there).  The
 * engine ends at hi, as it was; true when unsure. */
static bool undo_reads_watch(vx_engine *e, uint64_t lo, uint64_t hi)
{
    bool hit = goto_pos(e, lo) != VX_OK;
    while (!hit && e->now < hi && !at_end(e)) {
        const bool skip = rep_wp(e, e->now);
        nexti ni;
        hit = peek(e, false, &ni) || (ni.ev ? exec_pending(e) : step_once(e)) ||
              (!skip && e->read_hit);
    }
    if (e->now != hi && goto_pos(e, hi)) return true;
    return hit;
}

/* Would undoing issues [lo, hi) pass a watchpoint: a write one in their recorded
 * writes, a read one in the loads they execute?  A forward lane step can run several
 * issues: other lanes' and other warps' accesses among them count too (one timeline).
 * True when unsure. */
static bool undo_hits_watch(vx_engine *e, uint64_t lo, uint64_t hi)
{
    if (!e->nwp) return false;
    if (e->nwrite_wp) {
        const vx_event *ev;
        if (vx_trace_reader_seek(e->sr, lo)) return true;
        for (uint64_t t = lo; t < hi; t++) {
            do {
                if (vx_trace_reader_next(e->sr, &ev)) return true;
            } while (ev->kind != VX_EV_ISSUE);
            vx_engine_stop ws;
            memset(&ws, 0, sizeof ws);
            if (ev->index != t || write_hit(e, ev, &ws)) return true;
        }
    }
    return e->nread_wp && undo_reads_watch(e, lo, hi);
}

/* Remember a position the debugger was shown (a stop or a seek). */
static void mark_add(vx_engine *e, uint64_t pos)
{
    if (e->nmark && e->mark[(e->nmark - 1) % NMARK] == pos) return;
    e->mark[e->nmark++ % NMARK] = pos;
}

/* Forget the positions in [lo, hi] other than keep (the stops of a step over: GDB's
 * own, never shown to the user), oldest first as they were. */
static void mark_drop(vx_engine *e, uint64_t lo, uint64_t hi, uint64_t keep)
{
    const unsigned n = e->nmark < NMARK ? e->nmark : NMARK;
    uint64_t kept[NMARK];
    unsigned nk = 0;
    for (unsigned i = 0; i < n; i++) {
        const uint64_t p = e->mark[(e->nmark - n + i) % NMARK];
        if (p < lo || p > hi || p == keep) kept[nk++] = p;
    }
    e->nmark = 0;
    for (unsigned i = 0; i < nk; i++)
        e->mark[e->nmark++] = kept[i];
}

/*
 * Can the machine move across issues [lo, hi) (the engine being at `at`, one end)
 * without changing what a stop of warp gw shows, nor passing what would stop the next
 * motion: none of them is gw's or changes gw (its state stays), or hits a breakpoint
 * (any warp's) or a watchpoint or is at over_pc (a breakpoint GDB may have removed to
 * step over it), and with no_writes none writes memory.  The engine is left at `at`.
 */
static bool quiet_range(vx_engine *e, uint64_t lo, uint64_t hi, uint64_t at, uint32_t gw,
                        bool no_writes, uint32_t over_pc)
{
    if (vx_trace_reader_seek(e->sr, lo)) return false;
    for (uint64_t t = lo; t < hi;) {
        const vx_event *ev;
        if (vx_trace_reader_next(e->sr, &ev) || ev->kind != VX_EV_ISSUE || ev->index != t)
            return false;
        vx_engine_stop ws;
        memset(&ws, 0, sizeof ws);
        if (gwarp_of(e, ev) == gw || ev->fault || bp_hit(e, ev) || ev->pc == over_pc ||
            (no_writes && (ev->nmem || ev->nconsole)) || write_hit(e, ev, &ws))
            return false;
        /* nor one that changes gw (a WSPAWN starting it, a barrier releasing it) */
        for (uint32_t k = 0; k < ev->nwctl; k++)
            if (ev->wctl[k].core * e->W + ev->wctl[k].warp == gw) return false;
        t++;
    }
    /* nor a Debug Module event at either end (which side of one the ends are matters not) */
    const vx_event *ev;
    vx_err err = vx_trace_reader_next(e->sr, &ev);
    if (err == VX_OK ? ev->kind == VX_EV_DM : err != VX_ERR_END) return false;
    if (!e->nread_wp) return true;
    const bool hit = undo_reads_watch(e, lo, hi); /* (executes them: ends at hi) */
    return goto_pos(e, at) == VX_OK && !hit;
}

/*
 * A step or breakpoint stop of a warp may show it at any position between two of its
 * issues: a backward motion stops just before the issue it undoes (the other warps as
 * far on as that allows), a forward step just after the warp's issue.  When the
 * debugger was shown the warp in this same state at another position (mark[], the
 * most recent first), go there, so that moving back retraces what moving forward
 * showed and the other way round: reverse-next after a `next` over a call (GDB
 * continues to a breakpoint of its own) returns to where the `next` began, every warp
 * as it was, and `next` after a reverse-next to where that began.  Only across
 * SNAP_MAX issues of other warps at most, that no breakpoint or watchpoint would stop
 * at, with no Debug Module event among them (it may change any warp); a breakpoint
 * stop only across issues that write no memory (GDB may test a condition there, and
 * stopping earlier must not change its answer).
 */
static vx_err snap_to_mark(vx_engine *e, const vx_engine_stop *st, bool backward, uint32_t over_pc)
{
    if (!(st->why == VX_WHY_STEP || (backward && st->why == VX_WHY_BREAK))) return VX_OK;
    const uint64_t q = e->now;
    unsigned tries = 0;
    for (unsigned k = 0; k < NMARK && k < e->nmark && tries < 4; k++) {
        const uint64_t p = e->mark[(e->nmark - 1 - k) % NMARK];
        if (p == q) return VX_OK; /* shown more recently than any other: stay */
        const uint64_t lo = backward ? p : q, hi = backward ? q : p;
        if (lo >= hi || hi - lo > SNAP_MAX) continue;
        tries++;
        if (quiet_range(e, lo, hi, q, st->gwarp, st->why == VX_WHY_BREAK, over_pc))
            return goto_pos(e, p);
        if (e->now != q) return goto_pos(e, q); /* (a read watchpoint check that failed) */
    }
    return VX_OK;
}

vx_err vx_engine_resume(vx_engine *e, const vx_engine_motion *m, vx_engine_stop *st)
{
    memset(st, 0, sizeof *st);
    e->interrupted = false;
    e->since_poll = 0;
    vx_err err;
    uint64_t start = e->now;
    struct undo *top = e->nundo ? &e->undo[(e->undo0 + e->nundo - 1) & (e->capundo - 1)] : NULL;
    const uint32_t lane = m->lane_step ? m->step_lane : VX_ENGINE_ANY_WARP;
    if (m->backward && m->step && top && top->to == e->now && top->gwarp == m->step_gwarp &&
        top->lane == lane && !undo_hits_watch(e, top->from, top->to)) {
        /* Undo a forward step of this warp: back to exactly where it started. */
        uint64_t from = top->from;
        e->nundo--;
        err = goto_pos(e, from);
        if (err) return err;
        st->why = VX_WHY_STEP;
        st->gwarp = m->step_gwarp;
        set_reported(e, NO_ISSUE, false, false);
        if (e->regs_bytes < STOP_SNAP_LIMIT && !vx_tl_at(&e->tl, e->now)) add_ckpt(e, VX_CKPT_STOP);
        mark_add(e, e->now);
        e->last_why = VX_WHY_STEP;
        memcpy(e->bpfilter_stop, e->bpfilter, sizeof e->bpfilter);
        return VX_OK;
    }
    if (m->backward || !m->step) e->nundo = 0; /* only forward steps keep (and extend) them */
    uint64_t stop_at = NO_ISSUE; /* a breakpoint stop's issue (snap_to_mark may move) */
    /* A step is how GDB steps over a breakpoint at the warp's PC (one there when the
     * last motion stopped), or a watchpoint it stopped at, with that point removed for
     * the step: where the stop may move, another warp's hit of it would go unseen.  So
     * not across an issue at that PC, nor at all after a watchpoint (GDB may remove
     * them all). */
    bool may_snap = !(m->step && e->last_why == VX_WHY_WATCH);
    uint32_t over_pc = NO_PC;
    vx_warp_info wi;
    if (m->step) {
        if (m->step_gwarp == VX_ENGINE_ANY_WARP ||
            vx_sim_warp_info(e->sim, m->step_gwarp, &wi) != VX_OK) {
            may_snap = false;
        } else {
            const uint32_t h = (wi.pc >> 2) & 4095;
            if (e->bpfilter_stop[h >> 3] & (1u << (h & 7))) over_pc = wi.pc;
        }
    }
    e->last_why = 0;
    if (!m->backward) {
        err = run_forward(e, m, st);
        if (!err && m->step && st->why == VX_WHY_STEP && m->step_gwarp != VX_ENGINE_ANY_WARP) {
            if (may_snap) err = snap_to_mark(e, st, false, over_pc);
            if (!err) undo_push(e, start, e->now, m->step_gwarp, lane);
        } else if (!err && m->step && st->why == VX_WHY_END && e->now != start &&
                   m->step_gwarp != VX_ENGINE_ANY_WARP) {
            /* a step of a thread that never runs again ran to the end of history: the
             * reverse step comes back to where it began, as after any step */
            undo_push(e, start, e->now, m->step_gwarp, lane);
        }
    } else if (e->now == 0) {
        st->why = VX_WHY_BEGIN;
        st->gwarp = m->step ? m->step_gwarp : VX_ENGINE_ANY_WARP;
        err = VX_OK;
    } else {
        err = run_backward(e, m, st);
        stop_at = e->now;
        if (!err && may_snap && st->gwarp != VX_ENGINE_ANY_WARP)
            err = snap_to_mark(e, st, true, over_pc);
    }
    set_reported(e, NO_ISSUE, false, false);
    if (err) return err;
    if (st->why == VX_WHY_BREAK) set_reported(e, m->backward ? stop_at : e->now, true, false);
    if (st->why == VX_WHY_WATCH) {
        /* forward: the access is the next issue; backward: the one just undone */
        if (!m->backward)
            set_reported(e, e->now, true, true);
        else if (e->now > 0)
            set_reported(e, e->now - 1, false, true);
    }
    /* Remember where we stopped: undoing the next step is then a plain restore. */
    if (e->regs_bytes < STOP_SNAP_LIMIT && !vx_tl_at(&e->tl, e->now)) add_ckpt(e, VX_CKPT_STOP);
    mark_add(e, e->now);
    e->last_why = st->why;
    memcpy(e->bpfilter_stop, e->bpfilter, sizeof e->bpfilter);
    return VX_OK;
}

static vx_err seek_keep_marks(vx_engine *e, uint64_t pos)
{
    e->nundo = 0;
    e->last_why = 0;
    memcpy(e->bpfilter_stop, e->bpfilter, sizeof e->bpfilter);
    set_reported(e, NO_ISSUE, false, false);
    e->interrupted = false;
    return goto_pos(e, pos > e->end ? e->end : pos);
}

vx_err vx_engine_seek(vx_engine *e, uint64_t pos)
{
    e->nmark = 0;
    vx_err err = seek_keep_marks(e, pos);
    mark_add(e, e->now);
    return err;
}

vx_err vx_engine_seek_polled(vx_engine *e, uint64_t pos, bool *interrupted)
{
    e->goto_polls = true;
    vx_err err = vx_engine_seek(e, pos);
    e->goto_polls = false;
    *interrupted = e->interrupted;
    e->interrupted = false;
    return err;
}

vx_err vx_engine_seek_over(vx_engine *e, uint64_t pos, const vx_engine_over *r, size_t n)
{
    /* (part of one debugger command: the stops it showed stay remembered, but not those
     * of the steps over: a hit the continue finds inside a range would move to where
     * the debugger's step ended, which the user never saw, the other warps elsewhere) */
    vx_err err = seek_keep_marks(e, pos);
    if (err) return err;
    if (n > (e->ngw ? e->ngw : 1)) n = e->ngw ? e->ngw : 1;
    for (size_t i = 0; i < n; i++)
        mark_drop(e, r[i].lo, r[i].hi, pos);
    memcpy(e->over, r, n * sizeof *r);
    e->nover = n;
    return VX_OK;
}

/* ---- queries --------------------------------------------------------------------------------------- */

const vx_sim *vx_engine_sim(const vx_engine *e)
{
    return e->sim;
}

const vx_sim_config *vx_engine_config(const vx_engine *e)
{
    return &e->cfg;
}

const uint8_t *vx_engine_image(const vx_engine *e, size_t *len)
{
    *len = e->hdr->image_len;
    return e->hdr->image_kind == VX_IMAGE_ELF ? e->hdr->image : NULL;
}

const vx_trace_header *vx_engine_header(const vx_engine *e)
{
    return e->hdr;
}

uint64_t vx_engine_now(const vx_engine *e)
{
    return e->now;
}

uint64_t vx_engine_end(const vx_engine *e)
{
    return e->end;
}

bool vx_engine_cut_off(const vx_engine *e)
{
    return e->cut_off;
}

bool vx_engine_faults_at_end(const vx_engine *e)
{
    return e->fault_at_end;
}

uint64_t vx_engine_end_cycle(const vx_engine *e)
{
    return e->end_cycle;
}

uint8_t vx_engine_end_status(const vx_engine *e, uint32_t *exit_code, vx_fault *fault)
{
    if (exit_code) *exit_code = e->exit_code;
    if (fault) *fault = e->end_fault;
    return e->end_status;
}

bool vx_engine_next_issue(vx_engine *e, vx_engine_issue *out)
{
    memset(out, 0, sizeof *out);
    if (e->now > e->end || (e->now == e->end && !e->fault_at_end)) return false;
    const cent *c = cache_get(e, e->now);
    if (c && (c->meta & M_ISSUE)) {
        out->gwarp = c->meta & M_GWARP;
        out->flags = (uint8_t)((c->meta >> M_FLAGS_SH) & 3);
        out->cycle = c->cycle;
        vx_warp_info wi;
        if (vx_sim_warp_info(e->sim, out->gwarp, &wi) == VX_OK) out->tmask = wi.tmask;
        if (out->flags & VX_EVF_INJECTED) {
            out->insn = c->word;
            out->pc = wi.pc;
            out->tmask = vx_lanes_bit(c->meta >> M_LANE_SH);
        } else {
            out->pc = c->word;
            uint8_t b[4];
            if (vx_sim_mem_read(e->sim, out->gwarp / e->W, out->pc, b, 4) == VX_OK)
                out->insn = vx_get_le32(b);
        }
    } else {
        if (ensure_reader(e) != VX_OK || !e->pend) return false;
        const vx_event *ev = e->pend;
        out->gwarp = gwarp_of(e, ev);
        out->cycle = ev->cycle;
        out->pc = ev->pc;
        out->insn = ev->insn;
        out->tmask = ev->tmask;
        out->flags = ev->flags;
    }
    out->index = e->now;
    out->core = out->gwarp / e->W;
    out->warp = out->gwarp % e->W;
    out->faults = e->fault_at_end && e->now == e->end;
    return true;
}

/*
 * The PC after the join whose ipdom-else effect gave warp gw's IPDOM entry at depth
 * `depth` (1-based) its fallthrough, the last such effect before position p: read
 * back from p in windows that double.
 */
static bool join_after(vx_engine *e, uint64_t p, uint32_t gw, uint32_t depth, uint32_t *pc)
{
    for (uint64_t n = SCAN_FIRST, hi = p; hi > 0; n *= 2) {
        uint64_t lo = hi > n ? hi - n : 0;
        if (vx_trace_reader_seek(e->sr, lo) != VX_OK) return false;
        bool found = false;
        const vx_event *ev;
        while (vx_trace_reader_tell(e->sr) < hi && vx_trace_reader_next(e->sr, &ev) == VX_OK) {
            if (ev->kind == VX_EV_END) break;
            if (ev->kind != VX_EV_ISSUE || ev->index < lo) continue;
            if (ev->index >= hi) break;
            if (!ev->nwctl || gwarp_of(e, ev) != gw) continue;
            for (uint32_t i = 0; i < ev->nwctl; i++)
                if (ev->wctl[i].kind == VX_WCTL_IPDOM_ELSE && ev->wctl[i].arg == depth) {
                    *pc = ev->pc + 4;
                    found = true;
                }
        }
        if (found) return true;
        hi = lo;
    }
    return false;
}

/* Where a masked-off lane stands (vx_engine_lane_pc): */
enum lane_where {
    LW_NONE,   /* active, or its warp is not, or the IPDOM stack cannot be read */
    LW_PARKED, /* by tmc or pred, or never enabled: no position of its own */
    LW_SPLIT,  /* waiting for the other side of a split: at *pc */
    LW_JOINED  /* its side done, waiting after the join of IPDOM depth *depth */
};

static enum lane_where lane_where(const vx_engine *e, uint32_t gw, uint32_t lane, uint32_t *pc,
                                  uint32_t *depth)
{
    vx_warp_info wi;
    if (lane >= e->T || vx_sim_warp_info(e->sim, gw, &wi) != VX_OK || !wi.active ||
        vx_lanes_test(wi.tmask, lane))
        return LW_NONE;
    for (uint32_t k = wi.ipdom_depth; k-- > 0;) {
        vx_ipdom_entry ent;
        if (vx_sim_ipdom_get(e->sim, gw, k, &ent) != VX_OK) return LW_NONE;
        if (!vx_lanes_test(ent.orig_mask, lane)) continue; /* off before this split */
        bool on_else = vx_lanes_test(ent.else_mask, lane);
        if (on_else && !ent.fallthrough) {
            *pc = ent.pc;
            return LW_SPLIT;
        }
        if (on_else || !ent.fallthrough) return LW_PARKED; /* its side runs: parked in it */
        *depth = k + 1;
        return LW_JOINED;
    }
    return LW_PARKED;
}

/* Is lane parked (by tmc or pred, or not enabled yet) in warp gw, which is active? */
static bool lane_parked(const vx_engine *e, uint32_t gw, uint32_t lane)
{
    uint32_t pc, depth;
    return lane_where(e, gw, lane, &pc, &depth) == LW_PARKED;
}

bool vx_engine_lane_pc(vx_engine *e, uint32_t gw, uint32_t lane, uint32_t *pc)
{
    uint32_t depth = 0;
    switch (lane_where(e, gw, lane, pc, &depth)) {
    case LW_NONE: return false;
    case LW_PARKED:
        /* a lane parked by tmc or pred has no position of its own: the warp takes it
         * along, wherever it is, when it enables the lane again */
        *pc = 0;
        return true;
    case LW_SPLIT: return true;
    case LW_JOINED: break;
    }
    struct lane_pc_memo *m = &e->lpc[(gw * 31u + depth - 1) % LPC_MEMO];
    if (m->valid && m->now == e->now && m->gw == gw && m->depth == depth) {
        *pc = m->pc;
        return true;
    }
    if (!join_after(e, e->now, gw, depth, pc)) return false;
    *m = (struct lane_pc_memo){true, e->now, gw, depth, *pc};
    return true;
}

bool vx_engine_ebreak_halt(const vx_engine *e)
{
    return vx_sim_ebreak_halt(e->sim);
}

vx_err vx_engine_checkpoint(vx_engine *e, unsigned *id)
{
    vx_ckpt *c = vx_tl_at(&e->tl, e->now);
    if (c && c->kind == VX_CKPT_USER) {
        *id = c->user_id;
        return VX_OK;
    }
    unsigned nid = ++e->next_user_id;
    vx_err err = vx_tl_add(&e->tl, e->sim, e->now, VX_CKPT_USER, nid);
    if (err) return err;
    c = vx_tl_at(&e->tl, e->now);
    if (!c) return VX_ERR_STATE;
    c->kind = VX_CKPT_USER;
    c->user_id = nid;
    *id = nid;
    return VX_OK;
}

bool vx_engine_checkpoint_get(const vx_engine *e, unsigned id, uint64_t *pos)
{
    for (size_t i = 0; i < e->tl.n; i++)
        if (e->tl.v[i].kind == VX_CKPT_USER && e->tl.v[i].user_id == id) {
            *pos = e->tl.v[i].pos;
            return true;
        }
    return false;
}

unsigned vx_engine_checkpoint_last(const vx_engine *e)
{
    return e->next_user_id;
}

void vx_engine_checkpoints_drop(vx_engine *e)
{
    vx_tl_drop_user(&e->tl);
    e->next_user_id = 0;
}

vx_err vx_engine_restart(vx_engine *e, unsigned id)
{
    uint64_t pos;
    if (!vx_engine_checkpoint_get(e, id, &pos)) return VX_ERR_RANGE;
    return vx_engine_seek(e, pos);
}

void vx_engine_get_stats(const vx_engine *e, vx_engine_stats *out)
{
    *out = e->st;
    out->checkpoints = (uint32_t)e->tl.n;
    out->checkpoint_bytes = e->tl.bytes;
    out->budget = e->tl.budget;
    out->keyframes = (uint32_t)e->nkf;
    out->summary_blocks = vx_index_nseg(e->ix);
    out->summary_ready = vx_index_ready(e->ix);
    out->summary_damaged = vx_index_damaged(e->ix);
    out->summary_chunks = vx_index_nchunks(e->ix);
}

/* ---- opening ----------------------------------------------------------------------------------------- */

/* Find how the recording ended: the END record and whether the last issue faulted. */
static vx_err read_ending(vx_engine *e, const vx_trace_summary *sum)
{
    e->end = sum->issues;
    e->end_status = sum->has_end ? sum->end_status : VX_END_ABORT;
    e->cut_off = !sum->has_end;
    if (sum->issues == 0) return VX_OK;
    vx_err err = vx_trace_reader_seek(e->sr, sum->issues - 1);
    if (err) goto bad;
    for (;;) {
        const vx_event *ev;
        err = vx_trace_reader_next(e->sr, &ev);
        if (err == VX_ERR_END) return VX_OK;
        if (err) goto bad;
        if (ev->kind == VX_EV_ISSUE && ev->index == sum->issues - 1 && ev->fault &&
            !(ev->flags & VX_EVF_INJECTED) && sum->end_status == VX_END_FAULT) {
            e->fault_at_end = true;
            e->end = ev->index;
            e->end_fault = *ev->fault;
        }
        if (ev->kind == VX_EV_END) {
            e->exit_code = ev->exit_code;
            e->end_cycle = ev->cycle;
            if (ev->fault) e->end_fault = *ev->fault;
            e->fault_after = ev->fault && !e->fault_at_end && ev->end_status == VX_END_FAULT;
            return VX_OK;
        }
    }
bad:
    /* The last chunk is damaged: the end is not known, and history ends at the damage
     * (the motions say so when they reach it) */
    if (vx_engine_unreadable(err)) return VX_OK;
    seterr(e, "%s", vx_trace_reader_errmsg(e->sr)); /* it names the file */
    return err;
}

/* The prologue's memory: the recorded image loaded, the load regions written. */
static vx_err load_prologue(vx_engine *e)
{
    const vx_trace_header *h = e->hdr;
    vx_err err = vx_sim_load_image(e->sim, h->image_name ? h->image_name : e->path,
                                   (vx_image_kind)h->image_kind, h->image, h->image_len, NULL);
    if (err) {
        seterr(e, "%s: the recorded kernel image cannot be loaded: %s", e->path,
               vx_sim_errmsg(e->sim));
        return err;
    }
    for (uint32_t i = 0; i < h->nloads; i++) {
        if (!vx_trace_load_in_global(&h->loads[i])) {
            seterr(e,
                   "%s: recorded load region %" PRIu32 " at 0x%08" PRIx32
                   " lies outside global memory [0x80, 0xFFFF0000): the trace is damaged",
                   e->path, i, h->loads[i].addr);
            return VX_ERR_CORRUPT;
        }
        err = vx_sim_mem_write(e->sim, 0, h->loads[i].addr, h->loads[i].bytes, h->loads[i].len);
        if (err) {
            seterr(e,
                   "%s: recorded load region %" PRIu32 " at 0x%08" PRIx32 " cannot be written: %s",
                   e->path, i, h->loads[i].addr, vx_sim_errmsg(e->sim));
            return err;
        }
    }
    return VX_OK;
}

/*
 * Initial state: keyframe 0 (its pages over the prologue's memory for a format 1.1
 * trace, over zeros for 1.0; then its state), or the prologue if there is none.
 */
static vx_err load_initial(vx_engine *e)
{
    vx_err err;
    if (e->nkf && e->kf_pos[0] == 0) {
        vx_trace_keyframe k0;
        err = vx_trace_reader_keyframe(e->rd, 0, &k0, NULL, NULL);
        if (err) return trace_error(e, err);
        if (k0.on_image && (err = load_prologue(e))) return err;
        page_ctx pc = {e, VX_OK};
        err = vx_trace_reader_keyframe_pages(e->rd, 0, VX_TRACE_PAGES_ALL, put_page, &pc);
        if (pc.err) return pc.err;
        if (err) return trace_error(e, err);
        vx_trace_keyframe info;
        const uint8_t *state;
        size_t len;
        err = vx_trace_reader_keyframe(e->rd, 0, &info, &state, &len);
        if (err) return trace_error(e, err);
        err = vx_sim_state_decode(e->sim, state, len);
        if (err) {
            seterr(e, "%s: keyframe 0 cannot be decoded: %s", e->path, vx_sim_errmsg(e->sim));
            return err;
        }
        err = vx_trace_reader_seek_keyframe(e->rd, 0);
        if (err) return trace_error(e, err);
    } else {
        if ((err = load_prologue(e))) return err;
        err = vx_trace_reader_seek(e->rd, 0);
        if (err) return trace_error(e, err);
    }
    if (e->hdr->flags & VX_TRACE_HF_EBREAK_HALT) vx_sim_set_ebreak_halt(e->sim, true);
    e->now = 0;
    e->st.reader_seeks++;
    /* A damaged first chunk: history ends at 0, reported when the records are needed
     * (as after any issue, step_once) */
    err = read_to_issue(e, DM_ALL);
    return vx_engine_unreadable(err) ? VX_OK : err;
}

vx_err vx_engine_open(const char *path, const vx_engine_opts *opts, vx_engine **out, char *msg,
                      size_t cap)
{
    *out = NULL;
    vx_engine *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(msg, cap, "out of memory");
        return VX_ERR_NOMEM;
    }
    vx_err err;
    e->path = strdup(path);
    e->verify = !(opts && opts->no_verify);
    e->rep_issue = NO_ISSUE;
    e->short_at = e->short_near = NO_ISSUE;
    e->rd_at = NO_ISSUE;
    e->obs_mode = -1;
    e->cache = calloc(CACHE_SLOTS, sizeof *e->cache);
    if (e->cache)
        for (unsigned i = 0; i < CACHE_SLOTS; i++)
            e->cache[i].base = UINT64_MAX;
    uint64_t budget = opts && opts->mem_budget ? opts->mem_budget : DEFAULT_BUDGET;
    vx_tl_init(&e->tl, budget, INTERVAL);
    const uint32_t um = opts && opts->undo_max ? opts->undo_max : VX_ENGINE_UNDO_MAX;
    for (e->undo_max = 1; e->undo_max < um && e->undo_max < VX_ENGINE_UNDO_MAX;)
        e->undo_max *= 2;
    if (!e->path) {
        err = VX_ERR_NOMEM;
        goto fail_msg;
    }
    if ((err = vx_trace_reader_new(&e->rd)) != VX_OK ||
        (err = vx_trace_reader_new(&e->sr)) != VX_OK)
        goto fail_msg;
    err = vx_trace_reader_open(e->rd, path);
    if (err) {
        snprintf(msg, cap, "%s", vx_trace_reader_errmsg(e->rd));
        goto fail;
    }
    err = vx_trace_reader_open_same(e->sr, e->rd);
    if (err) {
        snprintf(msg, cap, "%s", vx_trace_reader_errmsg(e->sr));
        goto fail;
    }
    e->hdr = vx_trace_reader_header(e->rd);
    vx_sim_config cfg = VX_SIM_CONFIG_INIT;
    cfg.clusters = e->hdr->clusters;
    cfg.cores = e->hdr->cores;
    cfg.warps = e->hdr->warps;
    cfg.threads = e->hdr->threads;
    cfg.mem_limit = e->hdr->mem_limit;
    cfg.misaligned = (e->hdr->flags & VX_TRACE_HF_MISALIGNED) != 0;
    cfg.start_pc = e->hdr->start_pc;
    cfg.arg = e->hdr->arg;
    e->cfg = cfg;
    err = vx_sim_new(&cfg, &e->sim);
    if (err) {
        snprintf(msg, cap, "%s: the recorded platform cannot be simulated: %s", path,
                 vx_strerror(err));
        goto fail;
    }
    e->T = cfg.threads;
    e->W = cfg.warps;
    e->ngw = vx_sim_num_warps(e->sim);
    e->over = calloc(e->ngw ? e->ngw : 1, sizeof *e->over);
    if (!e->over) {
        err = VX_ERR_NOMEM;
        snprintf(msg, cap, "out of memory");
        goto fail;
    }
    e->regs_bytes = (uint64_t)e->ngw * e->T * (33 + 32 + 4 + 2) * 4;
    /* A checkpoint copies the registers: on large platforms (tens of MiB of them)
     * one every INTERVAL issues would cost more than the replay between them, so
     * the spacing grows with them (about 64 issues per register byte copied). */
    uint64_t spacing = e->regs_bytes / 64;
    if (spacing > INTERVAL) e->tl.interval = (spacing + INTERVAL - 1) / INTERVAL * INTERVAL;
    update_observer(e);

    vx_trace_summary sum;
    err = vx_trace_reader_summary(e->rd, &sum);
    if (err) {
        snprintf(msg, cap, "%s", vx_trace_reader_errmsg(e->rd));
        goto fail;
    }
    err = read_ending(e, &sum);
    if (err) goto fail_err;
    mark_add(e, 0);

    e->nkf = vx_trace_reader_num_keyframes(e->rd);
    if (e->nkf) {
        e->kf_pos = calloc(e->nkf, sizeof *e->kf_pos);
        if (!e->kf_pos) {
            err = VX_ERR_NOMEM;
            goto fail_msg;
        }
        for (size_t k = 0; k < e->nkf; k++) {
            vx_trace_keyframe info;
            err = vx_trace_reader_keyframe(e->rd, k, &info, NULL, NULL);
            if (vx_engine_unreadable(err)) {
                drop_keyframes(e, k, vx_trace_reader_errmsg(e->rd));
                err = VX_OK;
                break;
            }
            if (err) {
                snprintf(msg, cap, "%s", vx_trace_reader_errmsg(e->rd));
                goto fail;
            }
            e->kf_pos[k] = info.index;
        }
    }
    err = load_initial(e);
    if (err) goto fail_err;
    /* Big traces: the chunk digests for backward searches (stored in the trace, or
     * computed while we serve). */
    if (e->end >= 4 * (uint64_t)CBLOCK) {
        char why[700];
        e->ix = vx_index_start(e->rd, e->end, why, sizeof why);
        if (why[0] && !e->note[0])
            snprintf(e->note, sizeof e->note,
                     "%s: searches over that chunk's events read them all, more slowly", why);
    }
    /* Position 0 is the base every keyframe restore starts from: never evicted. */
    err = vx_tl_add(&e->tl, e->sim, 0, VX_CKPT_BASE, 0);
    if (err) {
        snprintf(msg, cap, "cannot snapshot the initial state: %s", vx_strerror(err));
        goto fail;
    }
    *out = e;
    return VX_OK;
fail_err:
    snprintf(msg, cap, "%s", e->err);
    goto fail;
fail_msg:
    snprintf(msg, cap, "%s: %s", path, vx_strerror(err));
fail:
    vx_engine_free(e);
    return err;
}

typedef struct console_scan {
    vx_engine_console_fn fn;
    void *ctx;
    uint32_t slot;
} console_scan;

static void console_line(void *ctx, const char *line, size_t len)
{
    const console_scan *cs = ctx;
    cs->fn(cs->ctx, cs->slot, line, len, true);
}

vx_err vx_engine_console(vx_engine *e, uint64_t upto, vx_engine_console_fn fn, void *ctx)
{
    vx_trace_reader *r;
    vx_err err = vx_trace_reader_new(&r);
    if (err) return err;
    vx_conline lines[VX_CONSOLE_SLOTS];
    memset(lines, 0, sizeof lines);
    console_scan cs = {fn, ctx, 0};
    err = vx_trace_reader_open_same(r, e->rd); /* the file served, not its path again */
    /* [t, stop): the issues to read next; with the digests, one EVENTS chunk at a time,
     * and the chunks that hold no console byte are not read at all */
    uint64_t t = 0;
    while (!err && t < upto) {
        size_t g;
        uint64_t lo, hi, stop = upto;
        if (e->ix && vx_index_find(e->ix, t, &g, &lo, &hi)) {
            const vx_trace_digest *d = vx_index_digest(e->ix, g);
            stop = hi < upto ? hi : upto;
            if (d && !(d->flags & VX_TRACE_DG_CONSOLE)) {
                t = stop;
                continue;
            }
            if (vx_trace_reader_tell(r) != t && (err = vx_trace_reader_seek(r, t))) break;
        }
        for (;;) {
            const vx_event *ev;
            err = vx_trace_reader_next(r, &ev);
            if (err || ev->kind == VX_EV_END) {
                t = upto; /* (an error ends the loop) */
                break;
            }
            if (ev->kind != VX_EV_ISSUE) continue;
            if (ev->index >= upto) {
                t = upto;
                break;
            }
            for (uint32_t i = 0; i < ev->nconsole; i++) {
                cs.slot = ev->console[i].slot % VX_CONSOLE_SLOTS;
                vx_conline_put(&lines[cs.slot], ev->console[i].byte, console_line, &cs);
            }
            if (ev->index + 1 >= stop) {
                t = stop;
                break;
            }
        }
    }
    if (err == VX_ERR_END) err = VX_OK;
    if (err) seterr(e, "%s", vx_trace_reader_errmsg(r));
    for (uint32_t slot = 0; slot < VX_CONSOLE_SLOTS; slot++) {
        if (lines[slot].len) fn(ctx, slot, lines[slot].data, lines[slot].len, false);
        vx_conline_free(&lines[slot]);
    }
    vx_trace_reader_free(r);
    return err;
}

void vx_engine_free(vx_engine *e)
{
    if (!e) return;
    vx_index_free(e->ix);
    cache_free(e);
    vx_tl_free(&e->tl);
    vx_sim_free(e->sim);
    vx_trace_reader_free(e->rd);
    vx_trace_reader_free(e->sr);
    free(e->kf_pos);
    free(e->over);
    free(e->undo);
    free(e->bps);
    free(e->wps);
    free(e->path);
    free(e);
}
