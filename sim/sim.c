/*
 * sim.c - the platform: lifecycle, reset, the scheduler, state access, the
 * debug primitives, console and observer plumbing.
 *
 * THE SCHEDULER (part of the trace format: changing it is a format version bump)
 *   Time advances in cycles, counted from 0.  At the start of each cycle the
 *   Debug Module gets vx_dm_cycle(); if it holds the platform in reset nothing
 *   issues in that cycle.  Then the cores are visited in global index order
 *   (core = cluster * cores_per_cluster + core_in_cluster).  Each core issues at
 *   most one warp-instruction: it picks, round-robin, the first warp after the
 *   one that issued last on that core (wrapping around) that is active, not
 *   stalled (barrier or WSPAWN join) and not halted by the Debug Module.  Every
 *   issue gets the next event index.  After the last core the cycle ends.
 *   A cycle in which nothing issued means: every active warp is halted (or the
 *   DM holds reset) -> VX_STOP_IDLE; otherwise every active warp waits at a
 *   barrier or a WSPAWN join that nothing can release -> fault DEADLOCK.
 *   The kernel ends (VX_STOP_EXIT, exit code = the word at 0x88) when no warp
 *   of any core is active, or at `ecall` with a7 = 93 (exit code = a0).
 *   Wake-ups are immediate: the issue that makes a barrier complete or leaves a
 *   WSPAWN caller as the only active warp of its core releases the waiting
 *   warps as one of its own effects, so they can issue in the next cycle.
 *
 * Debug steps (vx_sim_step_warp) and injections (vx_sim_inject) take an event
 * index but are not scheduler decisions: they do not move the round-robin
 * position, the cycle or the core position within the cycle.  Injections do not
 * count in minstret, the statistics or the warp's issue count.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim_int.h"

vx_err vx_sim_fail(vx_sim *s, vx_err err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->errmsg, sizeof s->errmsg, fmt, ap);
    va_end(ap);
    return err;
}

const char *vx_sim_errmsg(const vx_sim *s)
{
    return s->errmsg;
}

/* ---- configuration --------------------------------------------------------------------------- */

vx_err vx_sim_config_check(const vx_sim_config *cfg, char *msg, size_t cap)
{
    char dummy[1];
    if (!msg || !cap) msg = dummy, cap = sizeof dummy;
    msg[0] = 0;
    if (cfg->clusters < 1 || cfg->clusters > 127) {
        snprintf(msg, cap, "clusters must be 1..127 (got %u)", cfg->clusters);
        return VX_ERR_CONFIG;
    }
    if (cfg->cores < 1 || cfg->cores > 511) {
        snprintf(msg, cap, "cores per cluster must be 1..511 (got %u)", cfg->cores);
        return VX_ERR_CONFIG;
    }
    if (cfg->warps < 1 || cfg->warps > 511) {
        snprintf(msg, cap, "warps per core must be 1..511 (got %u)", cfg->warps);
        return VX_ERR_CONFIG;
    }
    if (cfg->threads < 1 || cfg->threads > VX_MAX_THREADS || (cfg->threads & (cfg->threads - 1))) {
        snprintf(msg, cap, "threads per warp must be a power of two in 1..128 (got %u)",
                 cfg->threads);
        return VX_ERR_CONFIG;
    }
    uint64_t tw = (uint64_t)cfg->clusters * cfg->cores * cfg->warps;
    if (tw > VX_MAX_WARPS) {
        snprintf(msg, cap, "%llu warps in total exceed the VxDebug limit of %u",
                 (unsigned long long)tw, VX_MAX_WARPS);
        return VX_ERR_CONFIG;
    }
    if (cfg->mem_limit && cfg->mem_limit < VX_PAGE_SIZE) {
        snprintf(msg, cap, "memory limit of %llu bytes is below one page",
                 (unsigned long long)cfg->mem_limit);
        return VX_ERR_CONFIG;
    }
    return VX_OK;
}

const vx_sim_config *vx_sim_get_config(const vx_sim *s)
{
    return &s->cfg;
}

uint32_t vx_sim_num_cores(const vx_sim *s)
{
    return s->nc;
}

uint32_t vx_sim_num_warps(const vx_sim *s)
{
    return s->ngw;
}

/* ---- lifecycle ------------------------------------------------------------------------------- */

vx_err vx_sim_new(const vx_sim_config *cfg, vx_sim **out)
{
    *out = NULL;
    if (vx_sim_config_check(cfg, NULL, 0)) return VX_ERR_CONFIG;
    vx_sim *s = calloc(1, sizeof *s);
    if (!s) return VX_ERR_NOMEM;
    s->cfg = *cfg;
    s->nc = cfg->clusters * cfg->cores;
    s->nw = cfg->warps;
    s->nt = cfg->threads;
    s->ngw = s->nc * s->nw;
    s->nb = s->nw / 2 ? s->nw / 2 : 1;
    s->nww = (s->nw + 63) / 64;
    s->ipcap = s->nt > 1 ? s->nt - 1 : 1;
    s->allmask = vx_lanes_all(s->nt);
    s->all0 = (uint64_t)s->allmask;
    s->all1 = (uint64_t)(s->allmask >> 64);
    s->mem_limit = cfg->mem_limit ? cfg->mem_limit : VX_SIM_DEFAULT_MEM_LIMIT;
    s->fetch_pn = ~0u;
    size_t ngw = s->ngw, nt = s->nt;
    s->cores = calloc(s->nc, sizeof *s->cores);
    s->warps = calloc(ngw, sizeof *s->warps);
    s->xregs = calloc(ngw * VX_XROWS * nt, sizeof *s->xregs);
    s->fregs = calloc(ngw * 32 * nt, sizeof *s->fregs);
    s->dscratch = calloc(ngw * 4 * nt, sizeof *s->dscratch);
    s->pcsr = calloc(ngw * VX_PCSR_COUNT, sizeof *s->pcsr);
    s->resv = calloc(ngw * nt, sizeof *s->resv);
    s->resv_ok = calloc(ngw * nt, 1);
    s->ipdom = calloc(ngw * s->ipcap, sizeof *s->ipdom);
    s->ready = calloc((size_t)s->nc * s->nww, sizeof *s->ready);
    s->ncw = (s->nc + 63) / 64;
    s->core_ready = calloc(s->ncw, sizeof *s->core_ready);
    s->bar_count = calloc((size_t)s->nc * 2 * s->nb, sizeof *s->bar_count);
    s->gbar_count = calloc(s->nb, sizeof *s->gbar_count);
    s->gbar_need = calloc(s->nb, sizeof *s->gbar_need);
    s->gbar_rep = calloc((size_t)s->nc * s->nb, 1);
    s->dirty = calloc(VX_NPAGES / 64, sizeof *s->dirty);
    s->icache = calloc(VX_ICACHE_SIZE, sizeof *s->icache);
    s->ev_csrvals = calloc(nt, sizeof *s->ev_csrvals);
    s->ev_fvals = calloc(nt, sizeof *s->ev_fvals);
    s->ev_mem = calloc(nt, sizeof *s->ev_mem);
    s->ev_reads = calloc(nt, sizeof *s->ev_reads);
    s->ev_con = calloc(nt, sizeof *s->ev_con);
    if (!s->cores || !s->warps || !s->xregs || !s->fregs || !s->dscratch || !s->pcsr || !s->resv ||
        !s->resv_ok || !s->ipdom || !s->ready || !s->core_ready || !s->bar_count ||
        !s->gbar_count || !s->gbar_need || !s->gbar_rep || !s->dirty || !s->icache ||
        !s->ev_csrvals || !s->ev_fvals || !s->ev_mem || !s->ev_reads || !s->ev_con)
        goto nomem;
    for (uint32_t i = 0; i < VX_ICACHE_SIZE; i++)
        s->icache[i].pc = 1; /* never a valid PC */
    /* The constant part of the issue event (exec.c fills the rest per issue). */
    s->iev.kind = VX_EV_ISSUE;
    s->iev.commits = s->ev_commits;
    s->iev.mem = s->ev_mem;
    s->iev.reads = s->ev_reads;
    s->iev.console = s->ev_con;
    vx_sim_reset(s);
    s->dm = vx_dm_new(s);
    if (!s->dm) goto nomem;
    *out = s;
    return VX_OK;
nomem:
    vx_sim_free(s);
    return VX_ERR_NOMEM;
}

void vx_sim_free(vx_sim *s)
{
    if (!s) return;
    if (s->dm) vx_dm_free(s->dm);
    vx_mem_free_all(s);
    for (uint32_t i = 0; i < VX_CONSOLE_SLOTS; i++)
        vx_conline_free(&s->console[i]);
    free(s->cores);
    free(s->warps);
    free(s->xregs);
    free(s->fregs);
    free(s->dscratch);
    free(s->pcsr);
    free(s->resv);
    free(s->resv_ok);
    free(s->ipdom);
    free(s->ready);
    free(s->core_ready);
    free(s->bar_count);
    free(s->gbar_count);
    free(s->gbar_need);
    free(s->gbar_rep);
    free(s->dirty);
    free(s->icache);
    free(s->ev_csrvals);
    free(s->ev_fvals);
    free(s->ev_mem);
    free(s->ev_reads);
    free(s->ev_con);
    free(s->ev_wctl.v);
    free(s);
}

void vx_sim_reset(vx_sim *s)
{
    size_t ngw = s->ngw, nt = s->nt;
    memset(s->warps, 0, ngw * sizeof *s->warps);
    memset(s->xregs, 0, ngw * VX_XROWS * nt * sizeof *s->xregs);
    memset(s->fregs, 0, ngw * 32 * nt * sizeof *s->fregs);
    memset(s->dscratch, 0, ngw * 4 * nt * sizeof *s->dscratch);
    memset(s->pcsr, 0, ngw * VX_PCSR_COUNT * sizeof *s->pcsr);
    memset(s->resv, 0, ngw * nt * sizeof *s->resv);
    memset(s->resv_ok, 0, ngw * nt);
    memset(s->ipdom, 0, ngw * s->ipcap * sizeof *s->ipdom);
    memset(s->bar_count, 0, (size_t)s->nc * 2 * s->nb * sizeof *s->bar_count);
    memset(s->gbar_count, 0, s->nb * sizeof *s->gbar_count);
    memset(s->gbar_need, 0, s->nb * sizeof *s->gbar_need);
    memset(s->gbar_rep, 0, (size_t)s->nc * s->nb);
    s->nresv = 0;
    for (uint32_t c = 0; c < s->nc; c++) {
        vx_core *core = &s->cores[c];
        core->last = s->nw - 1; /* so that warp 0 is considered first */
        core->mscratch = s->cfg.arg;
        core->nactive = 1;
        core->spawn_pending = 0;
        core->spawn_n = core->spawn_pc = core->spawn_caller = 0;
    }
    for (uint32_t g = 0; g < ngw; g++)
        s->warps[g].pc = s->cfg.start_pc;
    for (uint32_t c = 0; c < s->nc; c++) {
        vx_warp *w = &s->warps[c * s->nw];
        w->active = 1;
        vx_warp_set_mask(w, 1);
    }
    s->nactive = s->nc;
    memset(s->ready, 0, (size_t)s->nc * s->nww * sizeof *s->ready);
    memset(s->core_ready, 0, s->ncw * sizeof *s->core_ready);
    for (uint32_t g = 0; g < ngw; g++)
        vx_sched_update(s, g);
    s->finished = 0;
    s->end_kind = 0;
    s->exit_code = 0;
    memset(&s->fault, 0, sizeof s->fault);
    for (uint32_t i = 0; i < VX_CONSOLE_SLOTS; i++)
        s->console[i].len = 0;
}

/* ---- observer, console ---------------------------------------------------------------------------- */

void vx_sim_set_observer(vx_sim *s, vx_sim_observer_fn fn, void *ctx, unsigned flags)
{
    s->obs = fn;
    s->obs_ctx = ctx;
    s->obs_flags = flags;
}

void vx_sim_set_log(vx_sim *s, vx_log *log)
{
    s->log = log;
}

void vx_sim_emit_dm(vx_sim *s, const vx_dm_event *dm)
{
    if (!s->obs) return;
    vx_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = VX_EV_DM;
    ev.index = s->index;
    ev.cycle = s->cycle;
    ev.dm = *dm;
    s->obs(s->obs_ctx, &ev);
}

static void emit_end(vx_sim *s, uint8_t status)
{
    if (!s->obs) return;
    vx_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = VX_EV_END;
    ev.index = s->index;
    ev.cycle = s->cycle;
    ev.end_status = status;
    ev.exit_code = s->exit_code;
    if (status == VX_END_FAULT) ev.fault = &s->fault;
    s->obs(s->obs_ctx, &ev);
}

void vx_sim_set_console(vx_sim *s, vx_sim_console_fn fn, void *ctx)
{
    s->con_fn = fn;
    s->con_ctx = ctx;
}

void vx_conline_put(vx_conline *b, uint8_t byte, vx_conline_fn emit, void *ctx)
{
    if (byte == '\n') {
        emit(ctx, b->data ? b->data : "", b->len);
        b->len = 0;
        return;
    }
    if (b->len == b->cap) {
        if (b->cap >= VX_CONSOLE_MAXLINE) { /* pass a very long line on in pieces */
            emit(ctx, b->data, b->len);
            b->len = 0;
        } else {
            uint32_t ncap = b->cap ? b->cap * 2 : 64;
            char *nd = realloc(b->data, ncap);
            if (!nd) return;
            b->data = nd;
            b->cap = ncap;
        }
    }
    b->data[b->len++] = (char)byte;
}

void vx_conline_free(vx_conline *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

/* The simulator's console callback for one slot's line. */
typedef struct slot_emit {
    vx_sim *s;
    uint32_t slot;
} slot_emit;

static void emit_line(void *ctx, const char *line, size_t len)
{
    const slot_emit *e = ctx;
    if (e->s->con_fn) e->s->con_fn(e->s->con_ctx, e->slot, line, len);
}

void vx_console_put(vx_sim *s, uint32_t slot, uint8_t byte)
{
    slot_emit e = {s, slot & (VX_CONSOLE_SLOTS - 1)};
    vx_conline_put(&s->console[e.slot], byte, emit_line, &e);
}

void vx_sim_console_flush(vx_sim *s)
{
    for (uint32_t i = 0; i < VX_CONSOLE_SLOTS; i++) {
        if (!s->console[i].len) continue;
        slot_emit e = {s, i};
        emit_line(&e, s->console[i].data, s->console[i].len);
        s->console[i].len = 0;
    }
}

size_t vx_sim_console_pending(const vx_sim *s, uint32_t slot, char *buf, size_t cap)
{
    if (slot >= VX_CONSOLE_SLOTS) {
        if (cap) buf[0] = 0;
        return 0;
    }
    const vx_conline *b = &s->console[slot];
    if (cap) {
        size_t n = b->len < cap - 1 ? b->len : cap - 1;
        if (n) memcpy(buf, b->data, n);
        buf[n] = 0;
    }
    return b->len;
}

void vx_sim_get_stats(const vx_sim *s, vx_sim_stats *out)
{
    *out = s->stats;
    /* Cycles that began: the current one counts once the scheduler is inside it. */
    out->cycles = s->cycle + (s->core_pos != 0);
}

/* ---- running -------------------------------------------------------------------------------------- */

uint64_t vx_sim_index(const vx_sim *s)
{
    return s->index;
}

uint64_t vx_sim_cycle(const vx_sim *s)
{
    return s->cycle;
}

bool vx_sim_finished(const vx_sim *s)
{
    return s->finished;
}

void vx_sim_set_max_cycles(vx_sim *s, uint64_t max_cycles)
{
    s->max_cycles = max_cycles;
}

bool vx_sim_in_reset(const vx_sim *s)
{
    return vx_dm_in_reset(s->dm);
}

void vx_sim_dm_tick(vx_sim *s)
{
    if (s->core_pos == 0 && vx_dm_busy(s->dm)) vx_dm_cycle(s->dm);
    s->cycle++;
    s->core_pos = 0;
    s->cycle_issued = 0;
}

void vx_sim_dm_tick_to(vx_sim *s, uint64_t cycle)
{
    while (s->cycle < cycle) {
        if (s->core_pos == 0 && !vx_dm_busy(s->dm)) { /* each tick would only count */
            s->cycle = cycle;
            s->cycle_issued = 0;
            return;
        }
        vx_sim_dm_tick(s);
    }
}

static void finish_exit(vx_sim *s, vx_stop *stop, bool from_memory)
{
    if (from_memory) {
        uint8_t b[4];
        vx_sim_mem_read(s, 0, VX_IO_EXITCODE_ADDR, b, 4);
        s->exit_code = vx_get_le32(b);
    }
    s->finished = 1;
    s->end_kind = VX_END_EXIT;
    stop->reason = VX_STOP_EXIT;
    stop->exit_code = s->exit_code;
    emit_end(s, VX_END_EXIT);
}

static void finish_fault(vx_sim *s, vx_stop *stop)
{
    s->finished = 1;
    s->end_kind = VX_END_FAULT;
    stop->reason = VX_STOP_FAULT;
    stop->fault = s->fault;
    emit_end(s, VX_END_FAULT);
}

/* After an issue: returns true when the run must stop (stop filled). */
static bool after_issue(vx_sim *s, uint32_t gw, int r, vx_stop *stop)
{
    switch (r) {
    case VX_X_OK: break;
    case VX_X_FAULT: finish_fault(s, stop); return true;
    case VX_X_EXIT: finish_exit(s, stop, false); return true;
    case VX_X_HALT:
        vx_dm_on_halt(s->dm, gw, VX_HACAUSE_EBREAK);
        stop->reason = VX_STOP_HALT;
        stop->gwarp = gw;
        return true;
    default: break;
    }
    if (VX_UNLIKELY(s->nactive == 0)) {
        finish_exit(s, stop, true);
        return true;
    }
    return false;
}

static void fill_finished(const vx_sim *s, vx_stop *stop)
{
    if (s->end_kind == VX_END_FAULT) {
        stop->reason = VX_STOP_FAULT;
        stop->fault = s->fault;
    } else {
        stop->reason = VX_STOP_EXIT;
        stop->exit_code = s->exit_code;
    }
}

/* A cycle issued nothing: idle (halted warps / reset) or deadlock. */
static void nothing_issued(vx_sim *s, vx_stop *stop)
{
    uint32_t halted = 0, bars = 0, spawns = 0, first = ~0u;
    for (uint32_t g = 0; g < s->ngw; g++) {
        const vx_warp *w = &s->warps[g];
        if (!w->active) continue;
        if (w->halted) halted++;
        if (w->bar_wait) bars++;
        if (w->spawn_wait) spawns++;
        if (first == ~0u && !w->halted) first = g;
    }
    if (halted || vx_dm_in_reset(s->dm) || s->nactive == 0) {
        stop->reason = VX_STOP_IDLE;
        return;
    }
    const vx_warp *w = &s->warps[first];
    vx_fault_set(s, VX_FAULT_DEADLOCK, first, w->pc, 0, vx_warp_mask(w), 0,
                 "deadlock: %u active warps wait (%u at barriers, %u at wspawn joins), none can "
                 "be released",
                 s->nactive, bars, spawns);
    finish_fault(s, stop);
}

/* An issue found the host out of memory for a guest page (VX_X_HOSTERR): it had no
 * effect, and the machine can go on once memory is freed. */
static vx_err host_oom(vx_sim *s)
{
    s->host_oom = false;
    return vx_sim_fail(s, VX_ERR_NOMEM,
                       "out of host memory: no page for the write at 0x%08x (core %u warp %u, pc "
                       "0x%08x); the guest memory limit was not reached",
                       s->fault.addr, s->fault.core, s->fault.warp, s->fault.pc);
}

vx_err vx_sim_run(vx_sim *s, uint64_t max_issues, vx_stop *stop)
{
    memset(stop, 0, sizeof *stop);
    if (s->finished) {
        fill_finished(s, stop);
        return VX_OK;
    }
    uint64_t issued = 0;
    uint32_t gw = 0;
    int r = VX_X_OK;
    switch (vx_exec_loop(s, max_issues, &issued, &gw, &r)) {
    case VX_LOOP_LIMIT:
        stop->reason = VX_STOP_LIMIT;
        emit_end(s, VX_END_LIMIT);
        break;
    case VX_LOOP_RESET: stop->reason = VX_STOP_IDLE; break; /* held in reset */
    case VX_LOOP_FINISHED: fill_finished(s, stop); break;   /* the DM may have done anything */
    case VX_LOOP_ISSUE:
        if (r == VX_X_HOSTERR) return host_oom(s);
        if (!after_issue(s, gw, r, stop)) stop->reason = VX_STOP_NONE;
        break;
    case VX_LOOP_MAX: stop->reason = VX_STOP_NONE; break;
    case VX_LOOP_NOTHING: nothing_issued(s, stop); break;
    }
    stop->issued = issued;
    return VX_OK;
}

vx_err vx_sim_issue(vx_sim *s, uint32_t core, uint32_t warp, uint64_t cycle, vx_stop *stop)
{
    memset(stop, 0, sizeof *stop);
    if (core >= s->nc || warp >= s->nw)
        return vx_sim_fail(s, VX_ERR_RANGE, "no warp %u of core %u in a %ux%u platform", warp, core,
                           s->nc, s->nw);
    if (s->finished) return vx_sim_fail(s, VX_ERR_STATE, "the kernel has already ended");
    if (cycle < s->cycle || (cycle == s->cycle && s->core_pos > core))
        return vx_sim_fail(s, VX_ERR_STATE,
                           "schedule goes backwards: core %u at cycle %llu after cycle %llu "
                           "core position %u",
                           core, (unsigned long long)cycle, (unsigned long long)s->cycle,
                           s->core_pos);
    if (s->max_cycles && cycle >= s->max_cycles) /* vx_sim_run stops before such a cycle */
        return vx_sim_fail(s, VX_ERR_STATE,
                           "an issue at cycle %llu is past the cycle limit of %llu",
                           (unsigned long long)cycle, (unsigned long long)s->max_cycles);
    uint32_t gw = core * s->nw + warp;
    /* the clock as it is, to put back when the host has no memory for the issue */
    const bool dm_quiet = !vx_dm_busy(s->dm);
    const uint64_t cycle0 = s->cycle;
    const uint32_t pos0 = s->core_pos, last0 = s->cores[core].last;
    const uint8_t issued0 = s->cycle_issued;
    vx_sim_dm_tick_to(s, cycle); /* the cycles in between issue nothing */
    if (s->core_pos == 0 && vx_dm_busy(s->dm)) vx_dm_cycle(s->dm);
    if (vx_dm_busy(s->dm) && vx_dm_in_reset(s->dm)) /* (vx_sim_run issues nothing then) */
        return vx_sim_fail(s, VX_ERR_STATE,
                           "warp %u of core %u cannot issue at cycle %llu: the platform is held "
                           "in reset",
                           warp, core, (unsigned long long)cycle);
    const vx_warp *w = &s->warps[gw];
    if (!w->active || w->halted || w->spawn_wait || w->bar_wait)
        return vx_sim_fail(s, VX_ERR_STATE, "warp %u of core %u cannot issue at cycle %llu (%s)",
                           warp, core, (unsigned long long)cycle,
                           !w->active  ? "inactive"
                           : w->halted ? "halted"
                                       : "stalled");
    /* the scheduler's state after the cycles in between, before this issue's own */
    const uint32_t pos1 = s->core_pos, last1 = s->cores[core].last;
    const uint8_t issued1 = s->cycle_issued;
    s->core_pos = core + 1;
    s->cores[core].last = warp;
    s->cycle_issued = 1;
    int r = vx_exec_issue(s, gw, 0, 0, 0);
    stop->issued = 1;
    if (r == VX_X_HOSTERR) {
        /* no effect: the scheduler's state goes back, and the clock too, unless the Debug
         * Module ran cycles on the way (it acted on them: the issue can be made again at
         * the same cycle from there) */
        s->core_pos = dm_quiet ? pos0 : pos1;
        s->cores[core].last = dm_quiet ? last0 : last1;
        s->cycle_issued = dm_quiet ? issued0 : issued1;
        if (dm_quiet) s->cycle = cycle0;
        stop->issued = 0;
        return host_oom(s);
    }
    after_issue(s, gw, r, stop);
    return VX_OK;
}

/* ---- state access ---------------------------------------------------------------------------------- */

vx_err vx_sim_warp_info(const vx_sim *s, uint32_t gw, vx_warp_info *out)
{
    memset(out, 0, sizeof *out);
    if (gw >= s->ngw) return VX_ERR_RANGE;
    const vx_warp *w = &s->warps[gw];
    out->active = w->active;
    out->stalled = w->spawn_wait || w->bar_wait;
    out->halted = w->halted;
    out->hacause = w->hacause;
    out->pc = w->pc;
    out->tmask = vx_warp_mask(w);
    out->ipdom_depth = w->depth;
    out->at_barrier = w->bar_wait;
    out->barrier = w->bar_wait ? w->bar_id : 0;
    out->spawn_wait = w->spawn_wait;
    out->issued = w->issued;
    if (w->bar_wait) {
        const uint32_t core = gw / s->nw, idx = w->bar_id & 0x7fffffffu;
        const bool global = w->bar_id >> 31;
        if (idx < s->nb) {
            out->bar_arrived =
                global ? s->gbar_count[idx] : s->bar_count[(size_t)core * 2 * s->nb + idx];
            if (global) out->bar_need = s->gbar_need[idx];
        }
        /* a local barrier's count is the operand of the vx_bar the warp waits after (its
         * registers do not change while it waits), read in its last active lane as the
         * vx_bar did */
        uint32_t raw;
        vx_insn in;
        const vx_lanes m = vx_warp_mask(w);
        if (!global && m && vx_sim_mem_read(s, core, w->pc - 4, &raw, 4) == VX_OK &&
            vx_isa_op(raw) == VX_OP_VX_BAR) {
            vx_isa_decode(raw, &in);
            out->bar_need = s->xregs[((size_t)gw * VX_XROWS + in.rs2) * s->nt + vx_lanes_last(m)];
        }
    }
    return VX_OK;
}

vx_err vx_sim_ipdom_get(const vx_sim *s, uint32_t gw, uint32_t idx, vx_ipdom_entry *out)
{
    memset(out, 0, sizeof *out);
    if (gw >= s->ngw || idx >= s->warps[gw].depth) return VX_ERR_RANGE;
    const vx_ipdom *e = &vx_ipdom_of(s, gw)[idx];
    out->orig_mask = e->orig;
    out->else_mask = e->els;
    out->pc = e->pc;
    out->fallthrough = e->fallthrough;
    return VX_OK;
}

vx_err vx_sim_reg_read(const vx_sim *s, uint32_t gw, uint32_t lane, vx_regfile file, uint32_t reg,
                       uint32_t *val)
{
    *val = 0;
    if (gw >= s->ngw || lane >= s->nt) return VX_ERR_RANGE;
    switch (file) {
    case VX_RF_X:
        if (reg >= 32) return VX_ERR_RANGE;
        *val = vx_xrow(s, gw, reg)[lane];
        return VX_OK;
    case VX_RF_F:
        if (reg >= 32) return VX_ERR_RANGE;
        *val = vx_frow(s, gw, reg)[lane];
        return VX_OK;
    case VX_RF_CSR:
        if (vx_csr_access(reg) < 0) return VX_ERR_RANGE;
        *val = vx_csr_read(s, gw, lane, reg);
        return VX_OK;
    }
    return VX_ERR_RANGE;
}

vx_err vx_sim_reg_write(vx_sim *s, uint32_t gw, uint32_t lane, vx_regfile file, uint32_t reg,
                        uint32_t val)
{
    if (gw >= s->ngw || lane >= s->nt)
        return vx_sim_fail(s, VX_ERR_RANGE, "no lane %u of warp %u", lane, gw);
    switch (file) {
    case VX_RF_X:
        if (reg >= 32) return vx_sim_fail(s, VX_ERR_RANGE, "no register x%u", reg);
        if (reg) vx_xrow(s, gw, reg)[lane] = val;
        return VX_OK;
    case VX_RF_F:
        if (reg >= 32) return vx_sim_fail(s, VX_ERR_RANGE, "no register f%u", reg);
        vx_frow(s, gw, reg)[lane] = val;
        return VX_OK;
    case VX_RF_CSR: {
        int acc = vx_csr_access(reg);
        if (acc < 0) return vx_sim_fail(s, VX_ERR_RANGE, "no CSR 0x%03x", reg);
        if (acc == 0) return vx_sim_fail(s, VX_ERR_STATE, "CSR 0x%03x is read-only", reg);
        vx_csr_write(s, gw, lane, reg, val);
        return VX_OK;
    }
    }
    return vx_sim_fail(s, VX_ERR_RANGE, "no register file %d", (int)file);
}

vx_err vx_sim_set_pc(vx_sim *s, uint32_t gw, uint32_t pc)
{
    if (gw >= s->ngw) return vx_sim_fail(s, VX_ERR_RANGE, "no warp %u", gw);
    s->warps[gw].pc = pc;
    return VX_OK;
}

vx_err vx_sim_set_tmask(vx_sim *s, uint32_t gw, vx_lanes tmask)
{
    if (gw >= s->ngw) return vx_sim_fail(s, VX_ERR_RANGE, "no warp %u", gw);
    tmask &= s->allmask;
    if (!tmask) return vx_sim_fail(s, VX_ERR_INVAL, "a thread mask must have a lane");
    vx_warp_set_mask(&s->warps[gw], tmask);
    return VX_OK;
}

/* ---- debug primitives ------------------------------------------------------------------------------ */

vx_err vx_sim_halt(vx_sim *s, uint32_t gw, uint8_t hacause)
{
    if (gw >= s->ngw) return vx_sim_fail(s, VX_ERR_RANGE, "no warp %u", gw);
    s->warps[gw].halted = 1;
    s->warps[gw].hacause = hacause;
    vx_sched_update(s, gw);
    return VX_OK;
}

vx_err vx_sim_resume(vx_sim *s, uint32_t gw)
{
    if (gw >= s->ngw) return vx_sim_fail(s, VX_ERR_RANGE, "no warp %u", gw);
    s->warps[gw].halted = 0;
    vx_sched_update(s, gw);
    return VX_OK;
}

void vx_sim_set_ebreak_halt(vx_sim *s, bool on)
{
    s->ebreak_halt = on;
}

bool vx_sim_ebreak_halt(const vx_sim *s)
{
    return s->ebreak_halt;
}

vx_err vx_sim_step_warp(vx_sim *s, uint32_t gw, vx_stop *stop)
{
    memset(stop, 0, sizeof *stop);
    if (gw >= s->ngw) return vx_sim_fail(s, VX_ERR_RANGE, "no warp %u", gw);
    vx_warp *w = &s->warps[gw];
    if (s->finished) return vx_sim_fail(s, VX_ERR_STATE, "the kernel has already ended");
    if (!w->halted) return vx_sim_fail(s, VX_ERR_STATE, "warp %u is not halted", gw);
    if (!w->active) return vx_sim_fail(s, VX_ERR_STATE, "warp %u is not active", gw);
    if (w->spawn_wait || w->bar_wait)
        return vx_sim_fail(s, VX_ERR_STATE, "warp %u waits at a %s and cannot step", gw,
                           w->bar_wait ? "barrier" : "wspawn join");
    int r = vx_exec_issue(s, gw, VX_XM_STEP, 0, 0);
    stop->issued = 1;
    if (r == VX_X_HOSTERR) return host_oom(s);
    if (r == VX_X_FAULT) {
        finish_fault(s, stop);
        return VX_OK;
    }
    if (r != VX_X_HALT) {
        w->halted = 1;
        w->hacause = VX_HACAUSE_STEP;
        vx_sched_update(s, gw);
    }
    if (r == VX_X_EXIT || s->nactive == 0) {
        finish_exit(s, stop, r != VX_X_EXIT);
        return VX_OK;
    }
    stop->reason = VX_STOP_HALT;
    stop->gwarp = gw;
    return VX_OK;
}

vx_err vx_sim_inject(vx_sim *s, uint32_t gw, uint32_t lane, uint32_t insn, vx_stop *stop)
{
    memset(stop, 0, sizeof *stop);
    if (gw >= s->ngw) return vx_sim_fail(s, VX_ERR_RANGE, "no warp %u", gw);
    if (lane >= s->nt)
        return vx_sim_fail(s, VX_ERR_RANGE, "no lane %u (warps have %u)", lane, s->nt);
    vx_insn d;
    vx_isa_decode(insn, &d);
    const vx_isa_row *row = vx_isa_row_get(d.op);
    if (row) {
        const char *why = NULL;
        if (row->flags & VX_IF_CUSTOM)
            why = "Vortex custom-0 instructions change warp state";
        else if (row->flags & VX_IF_SYSTEM)
            why = "ecall, ebreak and mret are not allowed";
        else if (row->flags & VX_IF_BRANCH)
            why = "control transfers are not allowed";
        else if (row->flags & VX_IF_PCREL)
            why = "PC-relative instructions are not allowed";
        if (why)
            return vx_sim_fail(s, VX_ERR_REJECT, "cannot inject 0x%08x (%s): %s", insn,
                               row->mnemonic, why);
    }
    /* A fault of an injected instruction does not end the kernel: keep the machine's own. */
    vx_fault saved = s->fault;
    int r = vx_exec_issue(s, gw, VX_XM_INJECT, insn, lane);
    stop->issued = 1;
    if (r == VX_X_HOSTERR) {
        vx_err e = host_oom(s);
        s->fault = saved;
        return e;
    }
    if (r == VX_X_FAULT) {
        stop->reason = VX_STOP_FAULT;
        stop->fault = s->fault;
        s->fault = saved;
    } else {
        stop->reason = VX_STOP_NONE;
    }
    return VX_OK;
}
