/*
 * event.c - helpers on vx_event shared by the tools: the raw commit-log size
 * (FORMAT.md §13), field-by-field comparison (vxrec --verify, vxdiff) and a
 * one-line description.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

bool vxt_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return true;
    size_t n = *cap ? *cap : 16;
    while (n < need) {
        if (n > SIZE_MAX / 2 / elem) return false;
        n *= 2;
    }
    void *q = realloc(*arr, n * elem);
    if (!q) return false;
    *arr = q;
    *cap = n;
    return true;
}

uint64_t vx_trace_event_raw_size(const vx_event *ev, uint32_t threads)
{
    uint64_t lb = (threads + 7) / 8, n;
    uint64_t fault = 118 + lb;
    switch (ev->kind) {
    case VX_EV_ISSUE:
        n = 25 + lb;
        for (uint32_t i = 0; i < ev->ncommits; i++)
            n += 3 + lb + 4ull * vx_lanes_count(ev->commits[i].lanes);
        n += 10ull * ev->nmem + (21 + 2 * lb) * ev->nwctl + 2ull * ev->nconsole;
        if (ev->fault) n += fault;
        return n;
    case VX_EV_DM: return 26;
    default: return 13 + (ev->fault ? fault : 0);
    }
}

static const char *kind_name(unsigned k)
{
    return k == VX_EV_ISSUE ? "issue"
           : k == VX_EV_DM  ? "DM event"
           : k == VX_EV_END ? "END"
                            : "event";
}

static void reg_name(const vx_commit *c, char *b, size_t cap)
{
    if (c->file == VX_RF_X)
        snprintf(b, cap, "x%u", c->reg);
    else if (c->file == VX_RF_F)
        snprintf(b, cap, "f%u", c->reg);
    else
        snprintf(b, cap, "csr 0x%03x", c->reg);
}

static void lanes_hex(vx_lanes m, char *b, size_t cap)
{
    uint64_t hi = (uint64_t)(m >> 64), lo = (uint64_t)m;
    if (hi)
        snprintf(b, cap, "0x%" PRIx64 "%016" PRIx64, hi, lo);
    else
        snprintf(b, cap, "0x%" PRIx64, lo);
}

static bool differ(char *msg, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool differ(char *msg, size_t cap, const char *fmt, ...)
{
    if (msg && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, cap, fmt, ap);
        va_end(ap);
    }
    return true;
}

static bool fault_diff(const vx_fault *a, const vx_fault *b, char *msg, size_t cap)
{
    if (!a != !b)
        return differ(msg, cap, "fault: %s != %s", a ? "yes" : "none", b ? "yes" : "none");
    if (!a) return false;
    if (a->kind != b->kind || a->signal != b->signal)
        return differ(msg, cap, "fault kind/signal %u/%u != %u/%u", a->kind, a->signal, b->kind,
                      b->signal);
    if (a->core != b->core || a->warp != b->warp || a->pc != b->pc || a->insn != b->insn ||
        a->addr != b->addr)
        return differ(msg, cap,
                      "fault at core %u warp %u pc 0x%08x insn 0x%08x addr 0x%08x != core %u "
                      "warp %u pc 0x%08x insn 0x%08x addr 0x%08x",
                      a->core, a->warp, a->pc, a->insn, a->addr, b->core, b->warp, b->pc, b->insn,
                      b->addr);
    if (a->lanes != b->lanes) {
        char x[48], y[48];
        lanes_hex(a->lanes, x, sizeof x);
        lanes_hex(b->lanes, y, sizeof y);
        return differ(msg, cap, "fault lanes %s != %s", x, y);
    }
    if (strncmp(a->reason, b->reason, sizeof a->reason))
        return differ(msg, cap, "fault reason \"%.96s\" != \"%.96s\"", a->reason, b->reason);
    return false;
}

bool vx_trace_event_diff(const vx_event *a, const vx_event *b, uint32_t threads, char *msg,
                         size_t cap)
{
    char x[48], y[48];
    if (a->kind != b->kind)
        return differ(msg, cap, "%s != %s", kind_name(a->kind), kind_name(b->kind));
    if (a->index != b->index)
        return differ(msg, cap, "event index %" PRIu64 " != %" PRIu64, a->index, b->index);
    if (a->cycle != b->cycle)
        return differ(msg, cap, "cycle %" PRIu64 " != %" PRIu64, a->cycle, b->cycle);
    if (a->kind == VX_EV_DM) {
        const vx_dm_event *p = &a->dm, *q = &b->dm;
        if (p->op != q->op || p->addr != q->addr || p->value != q->value || p->gwarp != q->gwarp ||
            p->lane != q->lane || p->arg != q->arg)
            return differ(msg, cap,
                          "DM op %u addr 0x%x value 0x%08x warp %u lane %u arg %u != op %u addr "
                          "0x%x value 0x%08x warp %u lane %u arg %u",
                          p->op, p->addr, p->value, p->gwarp, p->lane, p->arg, q->op, q->addr,
                          q->value, q->gwarp, q->lane, q->arg);
        return false;
    }
    if (a->kind == VX_EV_END) {
        if (a->end_status != b->end_status)
            return differ(msg, cap, "end status %u != %u", a->end_status, b->end_status);
        if (a->end_status == VX_END_EXIT && a->exit_code != b->exit_code)
            return differ(msg, cap, "exit code %u != %u", a->exit_code, b->exit_code);
        return fault_diff(a->fault, b->fault, msg, cap);
    }
    if (a->core != b->core || a->warp != b->warp)
        return differ(msg, cap, "scheduled core %u warp %u != core %u warp %u", a->core, a->warp,
                      b->core, b->warp);
    if (a->flags != b->flags) return differ(msg, cap, "flags 0x%x != 0x%x", a->flags, b->flags);
    if (a->pc != b->pc) return differ(msg, cap, "pc 0x%08x != 0x%08x", a->pc, b->pc);
    if (a->insn != b->insn) return differ(msg, cap, "insn 0x%08x != 0x%08x", a->insn, b->insn);
    if (a->tmask != b->tmask) {
        lanes_hex(a->tmask, x, sizeof x);
        lanes_hex(b->tmask, y, sizeof y);
        return differ(msg, cap, "thread mask %s != %s", x, y);
    }
    if (fault_diff(a->fault, b->fault, msg, cap)) return true;
    if (a->ncommits != b->ncommits)
        return differ(msg, cap, "%u register commits != %u", a->ncommits, b->ncommits);
    for (uint32_t i = 0; i < a->ncommits; i++) {
        const vx_commit *p = &a->commits[i], *q = &b->commits[i];
        reg_name(p, x, sizeof x);
        if (p->file != q->file || p->reg != q->reg) {
            reg_name(q, y, sizeof y);
            return differ(msg, cap, "commit %u: %s != %s", i, x, y);
        }
        if (p->lanes != q->lanes) {
            char u[48], w[48];
            lanes_hex(p->lanes, u, sizeof u);
            lanes_hex(q->lanes, w, sizeof w);
            return differ(msg, cap, "commit %u (%s): lanes %s != %s", i, x, u, w);
        }
        for (unsigned l = 0; l < threads && l < 128; l++)
            if (vx_lanes_test(p->lanes, l) && p->values[l] != q->values[l])
                return differ(msg, cap, "commit %u (%s) lane %u: 0x%08x != 0x%08x", i, x, l,
                              p->values[l], q->values[l]);
    }
    if (a->nmem != b->nmem) return differ(msg, cap, "%u memory writes != %u", a->nmem, b->nmem);
    for (uint32_t i = 0; i < a->nmem; i++) {
        const vx_memwrite *p = &a->mem[i], *q = &b->mem[i];
        uint32_t m = p->size >= 4 ? 0xFFFFFFFFu : (1u << (8 * p->size)) - 1;
        if (p->addr != q->addr || p->size != q->size || p->lane != q->lane ||
            (p->value & m) != (q->value & m))
            return differ(msg, cap,
                          "memory write %u: lane %u [0x%08x] size %u = 0x%x != lane %u [0x%08x] "
                          "size %u = 0x%x",
                          i, p->lane, p->addr, p->size, p->value & m, q->lane, q->addr, q->size,
                          q->value & m);
    }
    if (a->nwctl != b->nwctl)
        return differ(msg, cap, "%u warp-control effects != %u", a->nwctl, b->nwctl);
    for (uint32_t i = 0; i < a->nwctl; i++) {
        const vx_wctl *p = &a->wctl[i], *q = &b->wctl[i];
        if (p->kind != q->kind || p->core != q->core || p->warp != q->warp || p->pc != q->pc ||
            p->arg != q->arg || p->arg2 != q->arg2 || p->mask != q->mask || p->mask2 != q->mask2) {
            char pm[48], pm2[48], qm[48], qm2[48];
            lanes_hex(p->mask, pm, sizeof pm);
            lanes_hex(p->mask2, pm2, sizeof pm2);
            lanes_hex(q->mask, qm, sizeof qm);
            lanes_hex(q->mask2, qm2, sizeof qm2);
            return differ(msg, cap,
                          "warp-control effect %u: kind %u core %u warp %u pc 0x%08x arg %u arg2 "
                          "%u mask %s mask2 %s != kind %u core %u warp %u pc 0x%08x arg %u arg2 "
                          "%u mask %s mask2 %s",
                          i, p->kind, p->core, p->warp, p->pc, p->arg, p->arg2, pm, pm2, q->kind,
                          q->core, q->warp, q->pc, q->arg, q->arg2, qm, qm2);
        }
    }
    if (a->nconsole != b->nconsole)
        return differ(msg, cap, "%u console bytes != %u", a->nconsole, b->nconsole);
    for (uint32_t i = 0; i < a->nconsole; i++)
        if (a->console[i].slot != b->console[i].slot || a->console[i].byte != b->console[i].byte)
            return differ(msg, cap, "console byte %u: slot %u 0x%02x != slot %u 0x%02x", i,
                          a->console[i].slot, a->console[i].byte, b->console[i].slot,
                          b->console[i].byte);
    return false;
}

void vx_trace_event_brief(const vx_event *ev, char *buf, size_t cap)
{
    switch (ev->kind) {
    case VX_EV_ISSUE:
        snprintf(buf, cap,
                 "issue %" PRIu64 " cycle %" PRIu64 " core %u warp %u pc 0x%08x insn 0x%08x%s%s",
                 ev->index, ev->cycle, ev->core, ev->warp, ev->pc, ev->insn,
                 (ev->flags & VX_EVF_INJECTED) ? " (injected)" : "",
                 (ev->flags & VX_EVF_STEP) ? " (step)" : "");
        break;
    case VX_EV_DM:
        snprintf(buf, cap,
                 "DM event before issue %" PRIu64 " cycle %" PRIu64
                 " op %u addr 0x%x value 0x%08x warp %u",
                 ev->index, ev->cycle, ev->dm.op, ev->dm.addr, ev->dm.value, ev->dm.gwarp);
        break;
    case VX_EV_END:
        snprintf(buf, cap,
                 "END after %" PRIu64 " issues, cycle %" PRIu64 ", status %u, exit code %u",
                 ev->index, ev->cycle, ev->end_status, ev->exit_code);
        break;
    default: snprintf(buf, cap, "event of kind %u", ev->kind); break;
    }
}
