/*
 * verify.c - vxrec --verify TRACE: re-simulate a trace and check every event.
 *
 * The simulator is rebuilt from the trace alone (platform, image bytes, loads,
 * start PC, argument, cycle limit).  Then the recorded stream is followed:
 *   - a plain issue is replayed with vx_sim_issue(core, warp, cycle): the recorded
 *     schedule is the authority;
 *   - injected and stepped issues with vx_sim_inject / vx_sim_step_warp;
 *   - Debug Module events by applying their recorded effects (sim/vx_event.h: the
 *     Debug Module itself is never re-run);
 * and every event the simulator reports is compared, field by field, with the
 * recorded one.  Keyframes are checked where they were taken: the state encoding
 * must be identical and the pages written since the previous keyframe must be
 * exactly the recorded ones.  The first difference is reported with its event
 * index.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "vis.h"

/* A deep copy of an event (its buffers are reused from one copy to the next). */
typedef struct slot {
    vx_event ev;
    vx_commit *commits;
    uint32_t ncap;
    uint32_t *values;
    vx_memwrite *mem;
    uint32_t mcap;
    vx_wctl *wctl;
    uint32_t wcap;
    vx_console *con;
    uint32_t ccap;
    vx_fault fault;
} slot;

typedef struct kfpage {
    uint32_t space, addr;
    uint8_t *data;
    bool matched; /* the simulator has this page */
} kfpage;

typedef struct ver {
    const char *path;
    vx_sim *sim;
    vx_trace_reader *r;
    const vx_trace_header *h;
    uint32_t T, W;
    slot *q;
    size_t qn, qcap, qhead;
    bool have_end;
    bool ran_on; /* the scheduler was let run to find the recorded deadlock */
    slot end;
    bool nomem;
    /* keyframes */
    size_t nkf, next_kf;
    uint64_t kf_checked;
    bool diverged;
    bool unreadable; /* stopped by a part of the trace that cannot be read: an error */
    char why[1024];
    kfpage *pages;
    size_t npages, pcap;
    uint64_t page_bad, page_seen;
    bool kf_on_image; /* checking keyframe 0 of format 1.1 */
    vxr *race;        /* --races: the checker, fed every event the simulator reports */
} ver;

static bool grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap) return true;
    uint32_t n = *cap ? *cap : 4;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, (size_t)n * elem);
    if (!q) return false;
    *p = q;
    *cap = n;
    return true;
}

static bool copy_event(slot *s, const vx_event *ev, uint32_t T)
{
    s->ev = *ev;
    s->ev.nreads = 0;
    s->ev.reads = NULL;
    if (ev->ncommits) {
        uint32_t old = s->ncap;
        if (!grow((void **)&s->commits, &s->ncap, ev->ncommits, sizeof *s->commits)) return false;
        if (s->ncap != old) {
            uint32_t *v = realloc(s->values, (size_t)s->ncap * T * sizeof *v);
            if (!v) return false;
            s->values = v;
        }
        for (uint32_t i = 0; i < ev->ncommits; i++) {
            s->commits[i] = ev->commits[i];
            memcpy(s->values + (size_t)i * T, ev->commits[i].values, T * sizeof(uint32_t));
            s->commits[i].values = s->values + (size_t)i * T;
        }
        s->ev.commits = s->commits;
    }
    if (ev->nmem) {
        if (!grow((void **)&s->mem, &s->mcap, ev->nmem, sizeof *s->mem)) return false;
        memcpy(s->mem, ev->mem, ev->nmem * sizeof *s->mem);
        s->ev.mem = s->mem;
    }
    if (ev->nwctl) {
        if (!grow((void **)&s->wctl, &s->wcap, ev->nwctl, sizeof *s->wctl)) return false;
        memcpy(s->wctl, ev->wctl, ev->nwctl * sizeof *s->wctl);
        s->ev.wctl = s->wctl;
    }
    if (ev->nconsole) {
        if (!grow((void **)&s->con, &s->ccap, ev->nconsole, sizeof *s->con)) return false;
        memcpy(s->con, ev->console, ev->nconsole * sizeof *s->con);
        s->ev.console = s->con;
    }
    if (ev->fault) {
        s->fault = *ev->fault;
        s->ev.fault = &s->fault;
    }
    return true;
}

static void slot_free(slot *s)
{
    free(s->commits);
    free(s->values);
    free(s->mem);
    free(s->wctl);
    free(s->con);
}

static void diverge(ver *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void diverge(ver *v, const char *fmt, ...)
{
    if (v->diverged) return;
    v->diverged = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->why, sizeof v->why, fmt, ap);
    va_end(ap);
}

/* ---- keyframes ---------------------------------------------------------------------------- */

static vx_err collect_page(void *ctx, uint32_t space, uint32_t addr, const uint8_t *page)
{
    ver *v = ctx;
    if (v->npages == v->pcap) {
        size_t n = v->pcap ? 2 * v->pcap : 64;
        kfpage *q = realloc(v->pages, n * sizeof *q);
        if (!q) return VX_ERR_NOMEM;
        v->pages = q;
        v->pcap = n;
    }
    uint8_t *d = malloc(VX_TRACE_PAGE_SIZE);
    if (!d) return VX_ERR_NOMEM;
    memcpy(d, page, VX_TRACE_PAGE_SIZE);
    v->pages[v->npages++] = (kfpage){space, addr, d, false};
    return VX_OK;
}

/* kfpages by (space, addr): sim_page looks them up by binary search */
static int kfpage_cmp(const void *a, const void *b)
{
    const kfpage *x = a, *y = b;
    if (x->space != y->space) return x->space < y->space ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void sim_page(void *ctx, uint32_t space, uint32_t addr, const uint8_t *page)
{
    ver *v = ctx;
    v->page_seen++;
    const kfpage key = {space, addr, NULL, false};
    kfpage *q = v->npages ? bsearch(&key, v->pages, v->npages, sizeof *q, kfpage_cmp) : NULL;
    if (q) {
        if (memcmp(q->data, page, VX_TRACE_PAGE_SIZE)) {
            if (!v->page_bad++)
                diverge(v, "memory page 0x%08x (space %u) differs from the one recorded", addr,
                        space);
        }
        q->matched = true;
        return;
    }
    if (v->kf_on_image) return; /* as in the prologue */
    if (!v->page_bad++)
        diverge(v, "memory page 0x%08x (space %u) was written but the trace does not have it", addr,
                space);
}

/*
 * Length of the Debug Module section at the end of a state encoding (sim/STATE.md
 * §7: u32 L, then L bytes starting with the DM layout version 1 and the warp
 * count), or 0 when it cannot be recognised.
 */
static size_t dm_section(const uint8_t *b, size_t len, uint32_t nwarps)
{
    for (size_t l = 8; l + 4 <= len && l <= 65536 + 8 + nwarps / 8; l += 4) {
        const uint8_t *p = b + len - l - 4;
        if (vx_get_le32(p) == l && vx_get_le32(p + 4) == 1 && vx_get_le32(p + 8) == nwarps)
            return l + 4;
    }
    return 0;
}

/* Compare the machine with keyframe k (called where the recorder took it). */
static void check_keyframe(ver *v, size_t k)
{
    vx_trace_keyframe info;
    const uint8_t *st;
    size_t len;
    vx_err e = vx_trace_reader_keyframe(v->r, k, &info, &st, &len);
    if (e) {
        diverge(v, "keyframe %zu cannot be read: %s", k, vx_trace_reader_errmsg(v->r));
        v->unreadable = true;
        return;
    }
    /* Cycles that passed without events (the Debug Module server ticking the idle
     * machine) show only in the keyframe's cycle: let them pass here too. */
    vx_sim_dm_tick_to(v->sim, info.cycle);
    if (info.cycle != vx_sim_cycle(v->sim))
        diverge(v,
                "keyframe %zu: recorded at cycle %" PRIu64 ", the simulator is at cycle %" PRIu64,
                k, info.cycle, vx_sim_cycle(v->sim));
    uint8_t *mine = NULL;
    size_t mlen = 0;
    if (vx_sim_state_encode(v->sim, &mine, &mlen)) { /* out of memory: not checked, an error */
        diverge(v, "%s: keyframe %zu: out of memory encoding the machine state", v->path, k);
        v->unreadable = true;
        return;
    }
    /* The Debug Module's own registers (the last section, sim/STATE.md §7) are not
     * re-created: like replay, verification applies the recorded DM effects
     * without re-running the DM.  Everything before it must be identical. */
    size_t dm = dm_section(mine, mlen, vx_sim_num_warps(v->sim));
    size_t cmp = mlen - dm;
    if (mlen != len || memcmp(mine, st, cmp)) {
        size_t at = 0;
        while (at < mlen && at < len && mine[at] == st[at])
            at++;
        diverge(v,
                "keyframe %zu: the machine state (registers, warps, scheduler) differs from "
                "the recorded one "
                "(first difference at byte %zu of %zu, sim/STATE.md)",
                k, at, len);
    }
    free(mine);
    /* pages: exactly the recorded set, with the recorded contents */
    for (size_t i = 0; i < v->npages; i++)
        free(v->pages[i].data);
    v->npages = 0;
    e = vx_trace_reader_keyframe_pages(v->r, k, VX_TRACE_PAGES_DELTA, collect_page, v);
    if (e) {
        diverge(v, "the pages of keyframe %zu cannot be read: %s", k, vx_trace_reader_errmsg(v->r));
        v->unreadable = true;
        return;
    }
    const uint32_t ncores = v->h->clusters * v->h->cores;
    for (size_t i = 0; i < v->npages; i++)
        if (!vx_trace_page_in_space(v->pages[i].space, v->pages[i].addr, ncores)) {
            /* the file breaks a rule (damage, exit 2), not the run */
            diverge(v,
                    "%s: keyframe %zu has page 0x%08x in memory space %u, where no page can be "
                    "(FORMAT.md 9.1: space 0 is global memory below 0xFFFF0000, 1 + core that "
                    "core's local memory, %u cores)",
                    v->path, k, v->pages[i].addr, v->pages[i].space, ncores);
            v->unreadable = true;
            return;
        }
    v->page_bad = v->page_seen = 0;
    /* Format 1.1: keyframe 0 stores the pages that differ from the prologue's memory,
     * and the simulator was built from the prologue: pages it has that the keyframe
     * does not are the prologue's, and a stored page it does not have must be zeros. */
    v->kf_on_image = k == 0 && info.on_image;
    if (v->npages) qsort(v->pages, v->npages, sizeof *v->pages, kfpage_cmp);
    vx_sim_visit_pages(v->sim, k == 0, sim_page, v);
    vx_sim_clear_dirty(v->sim);
    static const uint8_t zeros[VX_TRACE_PAGE_SIZE];
    for (size_t i = 0; i < v->npages && !v->page_bad; i++)
        if (!v->pages[i].matched &&
            !(v->kf_on_image && !memcmp(v->pages[i].data, zeros, sizeof zeros))) {
            diverge(v, "keyframe %zu has page 0x%08x (space %u) that the simulator did not write",
                    k, v->pages[i].addr, v->pages[i].space);
            v->page_bad++;
        }
    v->kf_checked++;
}

static void observer(void *ctx, const vx_event *ev)
{
    ver *v = ctx;
    if (v->race && vxr_event(v->race, ev) != VX_OK) v->nomem = true;
    if (ev->kind == VX_EV_END) {
        if (!copy_event(&v->end, ev, v->T)) v->nomem = true;
        v->have_end = true;
        return;
    }
    if (v->qn == v->qcap) {
        size_t n = v->qcap ? 2 * v->qcap : 8;
        slot *q = realloc(v->q, n * sizeof *q);
        if (!q) {
            v->nomem = true;
            return;
        }
        memset(q + v->qcap, 0, (n - v->qcap) * sizeof *q);
        v->q = q;
        v->qcap = n;
    }
    if (!copy_event(&v->q[v->qn++], ev, v->T)) v->nomem = true;
}

/* Check the keyframes that sit at the current position of the stream. */
static void check_keyframes_here(ver *v)
{
    size_t k;
    if (!vx_trace_reader_keyframe_here(v->r, &k)) return;
    while (v->next_kf <= k && !v->diverged)
        check_keyframe(v, v->next_kf++);
}

/* ---- driving the simulator from recorded events ---------------------------------------------- */

static vx_err apply_dm(ver *v, const vx_event *ev)
{
    const vx_dm_event *d = &ev->dm;
    vx_sim_dm_tick_to(v->sim, ev->cycle);
    switch (d->op) {
    case VX_DM_READ:
    case VX_DM_INJECT_REJECT: return VX_OK;
    case VX_DM_WRITE:
        if (d->addr == VX_DM_DCONFIG) vx_sim_set_ebreak_halt(v->sim, d->value & 1);
        return VX_OK;
    case VX_DM_HALT: return vx_sim_halt(v->sim, d->gwarp, (uint8_t)d->arg);
    case VX_DM_RESUME: return vx_sim_resume(v->sim, d->gwarp);
    case VX_DM_RESET: /* the kernel starts again: an END it reported before is not the last */
        vx_sim_reset(v->sim);
        v->have_end = false;
        return VX_OK;
    case VX_DM_SET_PC: return vx_sim_set_pc(v->sim, d->gwarp, d->value);
    case VX_DM_SCRATCH:
        return vx_sim_reg_write(v->sim, d->gwarp, d->lane, VX_RF_CSR, VX_CSR_DSCRATCH0 + d->arg,
                                d->value);
    default: return VX_ERR_UNSUPP;
    }
}

static void describe(ver *v, const char *what, const vx_event *rec_ev, const vx_event *sim_ev)
{
    char a[200], b[200], as[800], bs[800]; /* (a fault reason from the trace: vis.h) */
    vx_trace_event_brief(rec_ev, a, sizeof a);
    if (sim_ev)
        vx_trace_event_brief(sim_ev, b, sizeof b);
    else
        snprintf(b, sizeof b, "nothing");
    vx_vis(a, strlen(a), as, sizeof as, 1);
    vx_vis(b, strlen(b), bs, sizeof bs, 1);
    diverge(v, "%s\n  recorded:  %s\n  simulated: %s", what, as, bs);
}

/* Process one recorded event; false when verification must stop. */
/* The simulator ran out of host memory replaying rec_ev: not checked, an error (exit 2),
 * not a divergence. */
static bool host_oom(ver *v, const vx_event *rec_ev)
{
    diverge(v, "%s: cannot verify event %" PRIu64 ": the host ran out of memory (%s)", v->path,
            rec_ev->index, vx_sim_errmsg(v->sim));
    v->unreadable = true;
    return false;
}

/*
 * The first code of ev that this vxrec does not know (FORMAT.md 15.1: a later minor
 * version may add codes to its tables, and the file stays valid): its name, with the
 * code in *code; NULL when ev has none.  Such an event cannot be verified (exit 2), it
 * is no difference (exit 1).
 */
static const char *unknown_code(const vx_event *ev, uint32_t *code)
{
    const vx_fault *f = NULL;
    switch (ev->kind) {
    case VX_EV_ISSUE:
        if (ev->flags & ~(VX_EVF_INJECTED | VX_EVF_STEP)) {
            *code = ev->flags;
            return "event flags";
        }
        for (uint32_t i = 0; i < ev->nwctl; i++)
            if (ev->wctl[i].kind < VX_WCTL_TMASK || ev->wctl[i].kind > VX_WCTL_UNSTALL) {
                *code = ev->wctl[i].kind;
                return "warp-control kind";
            }
        f = ev->fault;
        break;
    case VX_EV_DM:
        *code = ev->dm.op;
        if (ev->dm.op < VX_DM_READ || ev->dm.op > VX_DM_INJECT_REJECT) return "Debug Module op";
        if ((ev->dm.op == VX_DM_READ || ev->dm.op == VX_DM_WRITE) && ev->dm.addr > 0xC) {
            *code = ev->dm.addr;
            return "Debug Module register address";
        }
        if (ev->dm.op == VX_DM_HALT &&
            (ev->dm.arg < VX_HACAUSE_EBREAK || ev->dm.arg > VX_HACAUSE_RESETHALTREQ)) {
            *code = ev->dm.arg;
            return "halt cause";
        }
        if (ev->dm.op == VX_DM_INJECT_REJECT && (ev->dm.arg < 1 || ev->dm.arg > 7)) {
            *code = ev->dm.arg;
            return "inject-reject reason";
        }
        return NULL;
    case VX_EV_END:
        if (ev->end_status < VX_END_EXIT || ev->end_status > VX_END_ABORT) {
            *code = ev->end_status;
            return "END status";
        }
        f = ev->fault;
        break;
    default: return NULL;
    }
    if (f && f->kind > VX_FAULT_CONSOLE) {
        *code = f->kind;
        return "fault kind";
    }
    return NULL;
}

static bool step(ver *v, const vx_event *rec_ev)
{
    char msg[512];
    vx_stop stop;
    vx_err e = VX_OK;
    uint32_t code = 0;
    const char *unknown = unknown_code(rec_ev, &code);

    if (unknown) {
        diverge(v,
                "%s: cannot verify event %" PRIu64 ": %s %u is unknown to this vxrec (the trace "
                "is of format 1.%u)",
                v->path, rec_ev->index, unknown, code, v->h->minor);
        v->unreadable = true; /* not a difference: exit 2 */
        return false;
    }

    if (v->qhead == v->qn && rec_ev->kind != VX_EV_END) {
        /* nothing pending: make the simulator produce this event */
        v->qhead = v->qn = 0;
        uint32_t gw = rec_ev->core * v->W + rec_ev->warp;
        if (rec_ev->kind == VX_EV_DM) {
            e = apply_dm(v, rec_ev);
            if (e == VX_ERR_UNSUPP) { /* a code of a later minor version (FORMAT.md 15.1) */
                diverge(v,
                        "%s: cannot verify event %" PRIu64 ": Debug Module op %u is unknown to "
                        "this vxrec (the trace is of format 1.%u)",
                        v->path, rec_ev->index, rec_ev->dm.op, v->h->minor);
                v->unreadable = true; /* not a difference: exit 2 */
                return false;
            }
            if (e == VX_ERR_NOMEM) return host_oom(v, rec_ev);
            if (e) {
                snprintf(msg, sizeof msg, "the recorded Debug Module effect cannot be applied: %s",
                         vx_sim_errmsg(v->sim));
                describe(v, msg, rec_ev, NULL);
                return false;
            }
            return !v->diverged;
        }
        if (rec_ev->flags & VX_EVF_INJECTED) {
            vx_sim_dm_tick_to(v->sim, rec_ev->cycle);
            e = vx_sim_inject(v->sim, gw, vx_lanes_first(rec_ev->tmask), rec_ev->insn, &stop);
        } else if (rec_ev->flags & VX_EVF_STEP) {
            vx_sim_dm_tick_to(v->sim, rec_ev->cycle);
            e = vx_sim_step_warp(v->sim, gw, &stop);
        } else {
            e = vx_sim_issue(v->sim, rec_ev->core, rec_ev->warp, rec_ev->cycle, &stop);
        }
        if (e == VX_ERR_NOMEM) return host_oom(v, rec_ev);
        if (e) {
            snprintf(msg, sizeof msg, "the simulator cannot replay this issue: %s",
                     vx_sim_errmsg(v->sim));
            describe(v, msg, rec_ev, NULL);
            return false;
        }
        if (v->nomem) {
            diverge(v, "%s: cannot verify event %" PRIu64 ": the host ran out of memory", v->path,
                    rec_ev->index);
            v->unreadable = true; /* an error (exit 2), not a divergence */
            return false;
        }
    }
    if (rec_ev->kind == VX_EV_END) {
        if (v->qhead < v->qn) {
            describe(v, "the simulator reports more events than the trace has", rec_ev,
                     &v->q[v->qhead].ev);
            return false;
        }
        if (v->have_end) {
            vx_event mine = v->end.ev;
            mine.index = rec_ev->index; /* vxrec writes END last, after any late DM events */
            if (vx_trace_event_diff(rec_ev, &mine, v->T, msg, sizeof msg)) {
                describe(v, msg, rec_ev, &mine);
                return false;
            }
            return true;
        }
        if (rec_ev->end_status == VX_END_ABORT) return true; /* the recording was stopped */
        if (rec_ev->end_status == VX_END_LIMIT && v->h->max_cycles &&
            rec_ev->cycle >= v->h->max_cycles)
            return true;
        if (rec_ev->end_status == VX_END_FAULT && rec_ev->fault &&
            rec_ev->fault->kind == VX_FAULT_DEADLOCK && v->qhead == v->qn && !v->ran_on) {
            /* The scheduler finds a deadlock in a cycle in which nothing can issue, which
             * replaying recorded issues never reaches: let it schedule once.  Whatever
             * it does then (the END it reports, or an issue) is compared. */
            v->ran_on = true;
            e = vx_sim_run(v->sim, 1, &stop);
            if (e == VX_ERR_NOMEM) return host_oom(v, rec_ev);
            if (e == VX_OK && !v->nomem) return step(v, rec_ev);
        }
        describe(v, "the trace ends here but the simulated kernel does not", rec_ev, NULL);
        return false;
    }
    if (v->qhead == v->qn) {
        describe(v, "the simulator reports no event here", rec_ev, NULL);
        return false;
    }
    const vx_event *mine = &v->q[v->qhead++].ev;
    if (vx_trace_event_diff(rec_ev, mine, v->T, msg, sizeof msg)) {
        describe(v, msg, rec_ev, mine);
        return false;
    }
    return true;
}

int vxrec_verify(const char *trace, bool quiet, bool races)
{
    ver v;
    int rc = 2;
    vxd_symtab code, data;
    memset(&code, 0, sizeof code);
    memset(&data, 0, sizeof data);
    const vx_event *ev = NULL;
    uint64_t n = 0;
    memset(&v, 0, sizeof v);
    /* "-": standard input, copied to a file first (as vxdump and vxdiff do) */
    const char *file = vx_cli_trace_file(vxrec_prog, trace);
    if (!file) return 2;
    trace = vx_cli_trace_name(trace);
    v.path = trace;
    if (vx_trace_reader_new(&v.r)) {
        fprintf(stderr, "%s: out of memory\n", vxrec_prog);
        return 2;
    }
    if (vx_trace_reader_open_as(v.r, file, trace)) {
        fprintf(stderr, "%s: %s\n", vxrec_prog, vx_trace_reader_errmsg(v.r));
        goto out;
    }
    v.h = vx_trace_reader_header(v.r);
    if (!quiet) vx_cli_trace_version_note(vxrec_prog, trace, v.h->major, v.h->minor);
    /* First the file itself (FORMAT.md §11, as vxdump --check): every chunk's checksum
     * and place, the digests, the INDEX totals, an END record in a complete trace.  A
     * trace whose INDEX leaves out its last EVENTS chunk reads as a shorter one, and the
     * simulator would agree with every event it shows. */
    if (vx_trace_reader_check(v.r)) {
        fprintf(stderr, "%s: %s\n", vxrec_prog, vx_trace_reader_errmsg(v.r));
        goto out;
    }
    v.T = v.h->threads;
    v.W = v.h->warps;
    vx_sim_config cfg = VX_SIM_CONFIG_INIT;
    cfg.clusters = v.h->clusters;
    cfg.cores = v.h->cores;
    cfg.warps = v.h->warps;
    cfg.threads = v.h->threads;
    cfg.mem_limit = v.h->mem_limit;
    cfg.misaligned = (v.h->flags & VX_TRACE_HF_MISALIGNED) != 0;
    cfg.start_pc = v.h->start_pc;
    cfg.arg = v.h->arg;
    char cm[200];
    vx_err se = vx_sim_config_check(&cfg, cm, sizeof cm);
    if (!se && (se = vx_sim_new(&cfg, &v.sim))) snprintf(cm, sizeof cm, "%s", vx_strerror(se));
    if (se) {
        fprintf(stderr, "%s: %s: the trace's platform cannot be simulated: %s\n", vxrec_prog, trace,
                cm);
        goto out;
    }
    uint32_t entry = 0;
    if (vx_sim_load_image(v.sim, v.h->image_name, (vx_image_kind)v.h->image_kind, v.h->image,
                          v.h->image_len, &entry)) {
        fprintf(stderr, "%s: %s: the kernel image in the trace cannot be loaded: %s\n", vxrec_prog,
                trace, vx_sim_errmsg(v.sim));
        goto out;
    }
    if (vx_sim_get_config(v.sim)->start_pc != v.h->start_pc) {
        fprintf(stderr, "%s: %s: the trace starts at pc 0x%08x but its image's entry is 0x%08x\n",
                vxrec_prog, trace, v.h->start_pc, vx_sim_get_config(v.sim)->start_pc);
        goto out;
    }
    for (uint32_t i = 0; i < v.h->nloads; i++) {
        if (!vx_trace_load_in_global(&v.h->loads[i])) {
            fprintf(stderr,
                    "%s: %s: load %u (%zu bytes at 0x%08x) lies outside global memory "
                    "[0x80, 0xFFFF0000): the trace is damaged\n",
                    vxrec_prog, trace, i, v.h->loads[i].len, v.h->loads[i].addr);
            goto out;
        }
        if (vx_sim_mem_write(v.sim, 0, v.h->loads[i].addr, v.h->loads[i].bytes,
                             v.h->loads[i].len)) {
            fprintf(stderr, "%s: %s: load %u cannot be applied: %s\n", vxrec_prog, trace, i,
                    vx_sim_errmsg(v.sim));
            goto out;
        }
    }
    if (v.h->flags & VX_TRACE_HF_EBREAK_HALT) vx_sim_set_ebreak_halt(v.sim, true);
    if (v.h->max_cycles) vx_sim_set_max_cycles(v.sim, v.h->max_cycles);
    v.nkf = vx_trace_reader_num_keyframes(v.r);
    if (races) {
        char note[160];
        if (!(v.race = vx_cli_races_new(vxrec_prog, v.sim))) goto out;
        if (vxd_symtab_load(&code, v.h->image_kind, v.h->image, v.h->image_len, note,
                            sizeof note) ||
            vxd_symtab_load_data(&data, v.h->image_kind, v.h->image, v.h->image_len, note,
                                 sizeof note)) {
            fprintf(stderr, "%s: out of memory\n", vxrec_prog);
            goto out;
        }
    }
    vx_sim_set_observer(v.sim, observer, &v, races ? VX_OBS_READS : 0);

    vx_err e = VX_ERR_END;
    uint64_t at = 0; /* event index where a divergence shows */
    for (;;) {
        at = vx_trace_reader_tell(v.r);
        check_keyframes_here(&v); /* the state there must be the recorded one */
        if (v.diverged || (e = vx_trace_reader_next(v.r, &ev)) != VX_OK) break;
        at = ev->index;
        if (!step(&v, ev)) break;
        n++;
    }
    if (v.diverged && v.unreadable) { /* damage, as for the events: exit 2 */
        fprintf(stderr, "%s: %s\n", vxrec_prog, v.why);
        goto out;
    }
    if (v.diverged) {
        fprintf(stderr, "%s: %s: trace diverges at event %" PRIu64 ": %s\n", vxrec_prog, trace, at,
                v.why);
        rc = 1;
        goto out;
    }
    if (e != VX_ERR_END) {
        fprintf(stderr, "%s: %s\n", vxrec_prog, vx_trace_reader_errmsg(v.r));
        goto out;
    }
    /* events the simulator reported past the trace's last: a divergence, unless the
     * trace was cut off there (the cut took the records the run made after it: a halt
     * record that followed an ebreak issue, say) */
    if (v.qhead < v.qn && !vx_trace_reader_incomplete(v.r)) {
        char b[200];
        vx_trace_event_brief(&v.q[v.qhead].ev, b, sizeof b);
        fprintf(stderr,
                "%s: %s: trace diverges after its last event: the simulator also reports %s\n",
                vxrec_prog, trace, b);
        rc = 1;
        goto out;
    }
    if (v.next_kf < v.nkf) {
        fprintf(stderr, "%s: %s: trace diverges: keyframe %zu was never reached\n", vxrec_prog,
                trace, v.next_kf);
        rc = 1;
        goto out;
    }
    if (vx_trace_reader_incomplete(v.r))
        fprintf(stderr,
                "%s: %s: note: the trace is incomplete (cut off); its %" PRIu64 " events match\n",
                vxrec_prog, trace, n);
    else if (!quiet)
        fprintf(stderr,
                "%s: %s: verified: %" PRIu64 " event%s and %" PRIu64
                " keyframe%s match the simulator\n",
                vxrec_prog, trace, n, n == 1 ? "" : "s", v.kf_checked,
                v.kf_checked == 1 ? "" : "s");
    rc = 0;
    if (v.race && vx_cli_races_report(vxrec_prog, v.sim, v.race, &code, &data, true))
        rc = VX_EXIT_RACE;
out:
    vxr_free(v.race);
    vxd_symtab_release(&code);
    vxd_symtab_release(&data);
    for (size_t i = 0; i < v.qcap; i++)
        slot_free(&v.q[i]);
    free(v.q);
    slot_free(&v.end);
    for (size_t i = 0; i < v.npages; i++)
        free(v.pages[i].data);
    free(v.pages);
    vx_sim_free(v.sim);
    vx_trace_reader_free(v.r);
    return rc;
}
