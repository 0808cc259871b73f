/*
 * timeline.c - vxdump --timeline: Chrome trace-event JSON (see timeline.h).
 *
 * Each warp has one track and at most one open slice: a run of issues in one
 * function, a wait (barrier, wspawn) or a halt.  A slice is written when it is
 * closed; instant events that fall inside an open slice are kept until then, so
 * that the events of a track appear in the file in time order.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "evfmt.h"
#include "timeline.h"

enum {
    ST_NONE,
    ST_RUN,
    ST_BAR,
    ST_SPAWN,
    ST_HALT
};

typedef struct instant {
    uint64_t ts;
    char *json; /* the whole event object */
} instant;

typedef struct track {
    uint8_t state;
    bool named;
    uint8_t hacause;
    uint8_t waiting; /* HALT: ST_BAR or ST_SPAWN when the warp also waits (else 0) */
    uint32_t bar;
    size_t fn;    /* RUN: symbol index (syms->n: none) */
    uint32_t pc0; /* RUN: first pc (names runs without symbols) */
    uint64_t start, end, last_end;
    uint64_t issues, index0, index1, lane_ops;
    instant *inst;
    size_t ninst, capinst;
} track;

struct vxd_timeline {
    FILE *f;
    const vxd_symtab *syms;
    uint32_t ncores, nw, nt;
    track *t;
    size_t ngw;
    bool *core_named;
    bool first;
    bool fault_marked; /* a fault instant was written: the END record's fault is the same */
    uint64_t count;
    vx_disasm_ctx *dis;
};

static void emit(vxd_timeline *tl, const char *json)
{
    fputs(tl->first ? "\n" : ",\n", tl->f);
    fputs(json, tl->f);
    tl->first = false;
}

vx_err vxd_timeline_new(vxd_timeline **out, FILE *f, const vx_trace_header *h,
                        const vxd_symtab *syms, const char *trace_name)
{
    vxd_timeline *tl = calloc(1, sizeof *tl);
    if (!tl) return VX_ERR_NOMEM;
    tl->f = f;
    tl->syms = syms;
    tl->ncores = h->clusters * h->cores;
    tl->nw = h->warps;
    tl->nt = h->threads;
    tl->ngw = (size_t)tl->ncores * tl->nw;
    tl->t = calloc(tl->ngw ? tl->ngw : 1, sizeof *tl->t);
    tl->core_named = calloc(tl->ncores ? tl->ncores : 1, 1);
    if (!tl->t || !tl->core_named) {
        vxd_timeline_free(tl);
        return VX_ERR_NOMEM;
    }
    if (vx_disasm_new(&tl->dis)) tl->dis = NULL;
    tl->first = true;
    vxd_sb b = {0};
    vxd_sb_puts(&b, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"trace\":");
    vxd_sb_json_str(&b, trace_name, strlen(trace_name));
    vxd_sb_printf(&b,
                  ",\"platform\":\"%ux%ux%ux%u\",\"time_unit\":\"1 cycle is shown as 1 us\","
                  "\"generator\":\"vxdump %s\"},\"traceEvents\":[",
                  h->clusters, h->cores, h->warps, h->threads, VX_VERSION_STRING);
    fputs(b.s ? b.s : "{\"traceEvents\":[", f);
    vxd_sb_release(&b);
    *out = tl;
    return VX_OK;
}

void vxd_timeline_free(vxd_timeline *tl)
{
    if (!tl) return;
    for (size_t g = 0; tl->t && g < tl->ngw; g++) {
        for (size_t i = 0; i < tl->t[g].ninst; i++)
            free(tl->t[g].inst[i].json);
        free(tl->t[g].inst);
    }
    free(tl->t);
    free(tl->core_named);
    vx_disasm_free(tl->dis);
    free(tl);
}

uint64_t vxd_timeline_count(const vxd_timeline *tl)
{
    return tl->count;
}

/* Metadata naming the process of a core and the thread of a warp, the first time they are used. */
static void name_track(vxd_timeline *tl, size_t g)
{
    uint32_t core = (uint32_t)(g / tl->nw), warp = (uint32_t)(g % tl->nw);
    char buf[256];
    if (!tl->core_named[core]) {
        tl->core_named[core] = true;
        snprintf(buf, sizeof buf,
                 "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"args\":{\"name\":"
                 "\"core %u\"}}",
                 core, core);
        emit(tl, buf);
        snprintf(buf, sizeof buf,
                 "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"args\":{"
                 "\"sort_index\":%u}}",
                 core, core);
        emit(tl, buf);
    }
    snprintf(buf, sizeof buf,
             "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":"
             "\"warp %u (global %zu)\"}}",
             core, warp, warp, g);
    emit(tl, buf);
    snprintf(buf, sizeof buf,
             "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"sort_"
             "index\":%u}}",
             core, warp, warp);
    emit(tl, buf);
    tl->t[g].named = true;
}

static void flush_instants(vxd_timeline *tl, track *t)
{
    for (size_t i = 0; i < t->ninst; i++) {
        emit(tl, t->inst[i].json);
        free(t->inst[i].json);
    }
    t->ninst = 0;
}

/* Write slice [start, end) of the track's current state, then its pending instants. */
static void close_slice(vxd_timeline *tl, size_t g, uint64_t end)
{
    track *t = &tl->t[g];
    if (t->state == ST_NONE) {
        flush_instants(tl, t);
        return;
    }
    if (t->state == ST_RUN) end = t->end;
    if (end < t->start) end = t->start;
    uint32_t core = (uint32_t)(g / tl->nw), warp = (uint32_t)(g % tl->nw);
    vxd_sb b = {0};
    vxd_sb_puts(&b, "{\"name\":");
    char nm[64];
    switch (t->state) {
    case ST_RUN:
        if (t->fn < tl->syms->n) {
            const char *n = tl->syms->syms[t->fn].shown;
            vxd_sb_json_str(&b, n, strlen(n));
        } else {
            snprintf(nm, sizeof nm, "code without symbols (from pc 0x%08" PRIx32 ")", t->pc0);
            vxd_sb_json_str(&b, nm, strlen(nm));
        }
        vxd_sb_puts(&b, ",\"cat\":\"exec\"");
        break;
    case ST_BAR:
        snprintf(nm, sizeof nm, "barrier %s%" PRIu32, (t->bar >> 31) ? "global " : "",
                 t->bar & 0x7fffffffu);
        vxd_sb_json_str(&b, nm, strlen(nm));
        vxd_sb_puts(&b, ",\"cat\":\"wait\"");
        break;
    case ST_SPAWN: vxd_sb_puts(&b, "\"wspawn wait\",\"cat\":\"wait\""); break;
    default:
        snprintf(nm, sizeof nm, "halted (%s)", vxd_hacause_name(t->hacause));
        vxd_sb_json_str(&b, nm, strlen(nm));
        vxd_sb_puts(&b, ",\"cat\":\"halt\"");
        break;
    }
    vxd_sb_printf(&b, ",\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"ts\":%" PRIu64 ",\"dur\":%" PRIu64,
                  core, warp, t->start, end - t->start);
    if (t->state == ST_RUN)
        vxd_sb_printf(&b,
                      ",\"args\":{\"issues\":%" PRIu64 ",\"first_event\":%" PRIu64
                      ",\"last_event\":%" PRIu64 ",\"avg_active_lanes\":%.2f}",
                      t->issues, t->index0, t->index1,
                      t->issues ? (double)t->lane_ops / (double)t->issues : 0.0);
    vxd_sb_putc(&b, '}');
    if (end > t->start && b.s) { /* empty waits are left out */
        emit(tl, b.s);
        tl->count++;
        t->last_end = end;
    }
    vxd_sb_release(&b);
    t->state = ST_NONE;
    flush_instants(tl, t);
}

static void open_slice(vxd_timeline *tl, size_t g, uint8_t state, uint64_t start)
{
    track *t = &tl->t[g];
    if (!t->named) name_track(tl, g);
    t->state = state;
    t->start = start < t->last_end ? t->last_end : start;
    t->end = t->start;
}

static void add_instant(vxd_timeline *tl, size_t g, uint64_t ts, const char *name, const char *cat,
                        const char *args_json)
{
    track *t = &tl->t[g];
    if (!t->named) name_track(tl, g);
    vxd_sb b = {0};
    vxd_sb_puts(&b, "{\"name\":");
    vxd_sb_json_str(&b, name, strlen(name));
    vxd_sb_printf(
        &b, ",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%zu,\"tid\":%zu,\"ts\":%" PRIu64, cat,
        g / tl->nw, g % tl->nw, ts < t->last_end ? t->last_end : ts);
    if (args_json) vxd_sb_printf(&b, ",\"args\":%s", args_json);
    vxd_sb_putc(&b, '}');
    if (!b.s) return;
    tl->count++;
    if (t->state == ST_NONE) {
        emit(tl, b.s);
        vxd_sb_release(&b);
        return;
    }
    if (t->ninst == t->capinst) {
        size_t ncap = t->capinst ? t->capinst * 2 : 4;
        instant *p = realloc(t->inst, ncap * sizeof *p);
        if (!p) {
            vxd_sb_release(&b);
            return;
        }
        t->inst = p;
        t->capinst = ncap;
    }
    t->inst[t->ninst++] = (instant){ts, b.s}; /* takes the string */
}

static size_t gw_of(const vxd_timeline *tl, uint32_t core, uint32_t warp)
{
    if (core >= tl->ncores || warp >= tl->nw) return tl->ngw;
    return (size_t)core * tl->nw + warp;
}

/* A fault marker; refused: a Debug Module injection the warp refused (no fault of
 * the warp's: "injection refused: KIND", cat debug). */
static void fault_instant(vxd_timeline *tl, const vx_fault *ft, uint64_t cycle, bool refused)
{
    size_t g = gw_of(tl, ft->core, ft->warp);
    if (g == tl->ngw) return;
    vxd_sb a = {0};
    vxd_sb_printf(&a, "{\"pc\":\"0x%08" PRIx32 "\",\"signal\":\"%s\",\"reason\":", ft->pc,
                  vxd_signal_name(ft->signal));
    vxd_sb_json_str(&a, ft->reason, strnlen(ft->reason, sizeof ft->reason));
    vxd_sb_putc(&a, '}');
    char nm[64];
    snprintf(nm, sizeof nm, "%s: %s", refused ? "injection refused" : "fault",
             vxd_fault_name(ft->kind));
    add_instant(tl, g, cycle, nm, refused ? "debug" : "fault", a.s);
    vxd_sb_release(&a);
}

/* The warp-control effects of an issue: divergent-split markers, waits that start and
 * end, warps that finish.  A single-stepped issue (a marker inside its warp's halt
 * slice) has them too; a halted warp keeps its halt slice, and a wait it starts or is
 * in shows once it resumes, unless the wait ended meanwhile. */
static void wctl_effects(vxd_timeline *tl, const vx_event *ev)
{
    for (uint32_t i = 0; i < ev->nwctl; i++) {
        const vx_wctl *w = &ev->wctl[i];
        size_t h = gw_of(tl, w->core, w->warp);
        if (h == tl->ngw) continue;
        track *u = &tl->t[h];
        switch (w->kind) {
        case VX_WCTL_IPDOM_PUSH: {
            vxd_sb a = {0};
            vxd_sb_printf(&a,
                          "{\"event\":%" PRIu64 ",\"pc\":\"0x%08" PRIx32 "\",\"depth\":%" PRIu32
                          ",\"mask\":",
                          ev->index, ev->pc, w->arg);
            vxd_sb_json_lanes(&a, w->mask);
            vxd_sb_puts(&a, ",\"else\":");
            vxd_sb_json_lanes(&a, w->mask2);
            vxd_sb_putc(&a, '}');
            add_instant(tl, h, ev->cycle, "divergent split", "divergence", a.s);
            vxd_sb_release(&a);
            break;
        }
        case VX_WCTL_BAR_ARRIVE:
        case VX_WCTL_SPAWN_WAIT: {
            if (u->state == ST_HALT) {
                u->waiting = w->kind == VX_WCTL_BAR_ARRIVE ? ST_BAR : ST_SPAWN;
                u->bar = w->arg;
                break;
            }
            uint64_t from = u->state == ST_RUN ? u->end : ev->cycle + 1;
            close_slice(tl, h, ev->cycle + 1);
            open_slice(tl, h, w->kind == VX_WCTL_BAR_ARRIVE ? ST_BAR : ST_SPAWN, from);
            u->bar = w->arg;
            break;
        }
        case VX_WCTL_BAR_RELEASE:
        case VX_WCTL_UNSTALL:
            u->waiting = 0;
            if (u->state == ST_BAR || u->state == ST_SPAWN) close_slice(tl, h, ev->cycle);
            break;
        case VX_WCTL_DEACTIVATE:
            if (u->state == ST_RUN) close_slice(tl, h, 0);
            break;
        default: break;
        }
    }
}

static void on_issue(vxd_timeline *tl, const vx_event *ev)
{
    size_t g = gw_of(tl, ev->core, ev->warp);
    if (g == tl->ngw) return;
    track *t = &tl->t[g];
    if (ev->flags & (VX_EVF_INJECTED | VX_EVF_STEP)) {
        /* Debug Module work on a halted warp: a marker inside the halt slice. */
        char dis[96], args[160];
        if (tl->dis)
            vx_disasm_ctx_insn(tl->dis, ev->pc, ev->insn, dis, sizeof dis);
        else
            vx_disasm(ev->pc, ev->insn, dis, sizeof dis);
        vxd_sb a = {0};
        vxd_sb_printf(&a, "{\"event\":%" PRIu64 ",\"pc\":\"0x%08" PRIx32 "\",\"insn\":", ev->index,
                      ev->pc);
        vxd_sb_json_str(&a, dis, strlen(dis));
        vxd_sb_putc(&a, '}');
        snprintf(args, sizeof args, "%s", (ev->flags & VX_EVF_INJECTED) ? "inject" : "step");
        add_instant(tl, g, ev->cycle, args, "debug", a.s);
        vxd_sb_release(&a);
        if (ev->fault) fault_instant(tl, ev->fault, ev->cycle, (ev->flags & VX_EVF_INJECTED) != 0);
        if (!(ev->flags & VX_EVF_INJECTED)) wctl_effects(tl, ev);
        return;
    }
    size_t fn = vxd_symtab_index(tl->syms, ev->pc);
    if (t->state == ST_RUN && fn != t->fn) /* code without symbols is one "function" */
        close_slice(tl, g, 0);
    else if (t->state != ST_RUN && t->state != ST_NONE)
        close_slice(tl, g, ev->cycle); /* a wait we did not see end */
    if (t->state == ST_NONE) {
        open_slice(tl, g, ST_RUN, ev->cycle);
        t->fn = fn;
        t->pc0 = ev->pc;
        t->issues = t->lane_ops = 0;
        t->index0 = ev->index;
    }
    t->issues++;
    t->lane_ops += vx_lanes_count(ev->tmask);
    t->index1 = ev->index;
    if (ev->cycle + 1 > t->end) t->end = ev->cycle + 1;
    if (ev->fault) {
        fault_instant(tl, ev->fault, ev->cycle, false);
        tl->fault_marked = true; /* the run stops here: the END record repeats this fault */
    }
    wctl_effects(tl, ev);
}

static void on_dm(vxd_timeline *tl, const vx_event *ev)
{
    const vx_dm_event *d = &ev->dm;
    if (d->op == VX_DM_RESET) {
        for (size_t g = 0; g < tl->ngw; g++) {
            close_slice(tl, g, ev->cycle);
            tl->t[g].waiting = 0;
        }
        return;
    }
    if (d->gwarp >= tl->ngw) return;
    track *t = &tl->t[d->gwarp];
    if (d->op == VX_DM_HALT) {
        uint64_t from = t->state == ST_RUN ? t->end : ev->cycle;
        uint8_t waiting = t->state == ST_BAR || t->state == ST_SPAWN ? t->state : 0;
        if (t->state == ST_HALT) waiting = t->waiting;
        close_slice(tl, d->gwarp, ev->cycle);
        t->waiting = waiting;
        open_slice(tl, d->gwarp, ST_HALT, from);
        t->hacause = (uint8_t)d->arg;
    } else if (d->op == VX_DM_RESUME && t->state == ST_HALT) {
        close_slice(tl, d->gwarp, ev->cycle);
        if (t->waiting) open_slice(tl, d->gwarp, t->waiting, ev->cycle);
        t->waiting = 0;
    }
}

void vxd_timeline_event(vxd_timeline *tl, const vx_event *ev)
{
    switch (ev->kind) {
    case VX_EV_ISSUE: on_issue(tl, ev); break;
    case VX_EV_DM: on_dm(tl, ev); break;
    case VX_EV_END:
        /* a fault of an issue already has its marker; a deadlock has none yet */
        if (ev->fault && ev->fault->kind && !tl->fault_marked)
            fault_instant(tl, ev->fault, ev->cycle, false);
        break;
    default: break;
    }
}

void vxd_timeline_finish(vxd_timeline *tl, uint64_t cycle)
{
    for (size_t g = 0; g < tl->ngw; g++) {
        track *t = &tl->t[g];
        uint64_t end = cycle;
        if (t->state == ST_RUN) end = t->end;
        if (end < t->start) end = t->start;
        close_slice(tl, g, end);
    }
    fputs("\n]}\n", tl->f);
}
