/*
 * compare.c - header and event comparison for vxdiff (see compare.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "vx_sim.h"
#include "evfmt.h"
#include "vis.h"

static void add(vxf_items *out, const char *field, int lane, bool has_ab, uint64_t a, uint64_t b,
                const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* field: "image", or "image/offset" for the field and which of its quantities the item
 * holds (vxf_item.what) */
static void add(vxf_items *out, const char *field, int lane, bool has_ab, uint64_t a, uint64_t b,
                const char *fmt, ...)
{
    out->total++;
    if (out->n >= VXF_MAX_ITEMS) return;
    vxf_item *it = &out->v[out->n++];
    const char *slash = strchr(field, '/');
    snprintf(it->field, sizeof it->field, "%.*s", (int)(slash ? slash - field : (int)strlen(field)),
             field);
    snprintf(it->what, sizeof it->what, "%s", slash ? slash + 1 : "");
    it->lane = lane;
    it->subject[0] = 0;
    it->has_ab = has_ab;
    it->a = a;
    it->b = b;
    va_list ap;
    char text[sizeof it->text];
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    vx_vis(text, strlen(text), it->text, sizeof it->text, 0); /* names, reasons: the traces' */
}

static void lanes_text(vx_lanes m, char *buf, size_t cap)
{
    uint64_t hi = (uint64_t)(m >> 64), lo = (uint64_t)m;
    if (hi)
        snprintf(buf, cap, "0x%" PRIx64 "%016" PRIx64, hi, lo);
    else
        snprintf(buf, cap, "0x%" PRIx64, lo);
}

static void disasm(const vxf_ctx *c, uint32_t pc, uint32_t insn, char *buf, size_t cap)
{
    if (c->dis)
        vx_disasm_ctx_insn(c->dis, pc, insn, buf, cap);
    else
        vx_disasm(pc, insn, buf, cap);
}

/* ---- headers ------------------------------------------------------------------------------------ */

/* First differing byte of two buffers, or the shorter length when one is a prefix. */
static size_t first_diff(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
    size_t n = na < nb ? na : nb;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return i;
    return n;
}

static const char *nm(const char *s)
{
    return s && *s ? s : "(unnamed)";
}

void vxf_cmp_headers(const vx_trace_header *a, const vx_trace_header *b, const vxf_ctx *c,
                     vxf_items *out)
{
    if (a->threads != b->threads ||
        (!c->per_warp &&
         (a->clusters != b->clusters || a->cores != b->cores || a->warps != b->warps)))
        add(out, "platform", -1, false, 0, 0,
            "platform %ux%ux%ux%u != %ux%ux%ux%u (clusters x cores x warps x threads)", a->clusters,
            a->cores, a->warps, a->threads, b->clusters, b->cores, b->warps, b->threads);
    if (a->image_kind != b->image_kind)
        add(out, "image/kind", -1, true, a->image_kind, b->image_kind, "kernel image kind %s != %s",
            vxd_image_kind_name(a->image_kind), vxd_image_kind_name(b->image_kind));
    if (a->image_len != b->image_len ||
        (a->image_len && memcmp(a->image, b->image, a->image_len))) {
        size_t at = first_diff(a->image, a->image_len, b->image, b->image_len);
        add(out, "image/offset", -1, true, at, at,
            "kernel image differs: %s (%zu bytes) vs %s (%zu bytes), first difference at byte %zu",
            nm(a->image_name), a->image_len, nm(b->image_name), b->image_len, at);
    }
    if (a->nloads != b->nloads)
        add(out, "load/count", -1, true, a->nloads, b->nloads, "%u loaded regions != %u", a->nloads,
            b->nloads);
    for (uint32_t i = 0; i < a->nloads && i < b->nloads; i++) {
        const vx_trace_load *p = &a->loads[i], *q = &b->loads[i];
        if (p->addr != q->addr)
            add(out, "load/addr", -1, true, p->addr, q->addr,
                "load %u (%s): address 0x%08" PRIx32 " != 0x%08" PRIx32, i, nm(p->name), p->addr,
                q->addr);
        if (p->len != q->len || (p->len && memcmp(p->bytes, q->bytes, p->len))) {
            size_t at = first_diff(p->bytes, p->len, q->bytes, q->len);
            if (at < p->len && at < q->len)
                add(out, "load/byte", -1, true, p->bytes[at], q->bytes[at],
                    "load %u (%s @0x%08" PRIx32 ", %zu bytes vs %s, %zu bytes): first difference "
                    "at byte %zu (address 0x%08" PRIx32 "): 0x%02x != 0x%02x",
                    i, nm(p->name), p->addr, p->len, nm(q->name), q->len, at,
                    p->addr + (uint32_t)at, p->bytes[at], q->bytes[at]);
            else
                add(out, "load/len", -1, true, p->len, q->len,
                    "load %u (%s @0x%08" PRIx32 "): %zu bytes != %zu bytes", i, nm(p->name),
                    p->addr, p->len, q->len);
        }
    }
    if (a->start_pc != b->start_pc)
        add(out, "start_pc", -1, true, a->start_pc, b->start_pc,
            "start pc 0x%08" PRIx32 " != 0x%08" PRIx32, a->start_pc, b->start_pc);
    if (a->arg != b->arg)
        add(out, "arg", -1, true, a->arg, b->arg,
            "kernel argument (mscratch) 0x%08" PRIx32 " != 0x%08" PRIx32, a->arg, b->arg);
    if (a->max_cycles != b->max_cycles)
        add(out, "max_cycles", -1, true, a->max_cycles, b->max_cycles,
            "cycle limit %" PRIu64 " != %" PRIu64, a->max_cycles, b->max_cycles);
    /* 0 is the default limit (FORMAT.md section 5.1): the same as writing it out */
    const uint64_t ma = a->mem_limit ? a->mem_limit : VX_SIM_DEFAULT_MEM_LIMIT,
                   mb = b->mem_limit ? b->mem_limit : VX_SIM_DEFAULT_MEM_LIMIT;
    if (ma != mb)
        add(out, "mem_limit", -1, true, ma, mb, "memory limit %" PRIu64 " != %" PRIu64, ma, mb);
    if ((a->flags ^ b->flags) & VX_TRACE_HF_EBREAK_HALT)
        add(out, "flags", -1, true, a->flags, b->flags, "ebreak-halts-warp flag %u != %u",
            a->flags & VX_TRACE_HF_EBREAK_HALT, b->flags & VX_TRACE_HF_EBREAK_HALT);
    if ((a->flags ^ b->flags) & VX_TRACE_HF_MISALIGNED)
        add(out, "flags", -1, true, a->flags, b->flags,
            "misaligned loads/stores carried out (--allow-misaligned) %u != %u",
            !!(a->flags & VX_TRACE_HF_MISALIGNED), !!(b->flags & VX_TRACE_HF_MISALIGNED));
}

/* ---- events --------------------------------------------------------------------------------------- */

static const char *kind_name(const vx_event *e)
{
    if (!e) return "the end of the stream";
    return e->kind == VX_EV_ISSUE ? "an issue"
           : e->kind == VX_EV_DM  ? "a DM event"
           : e->kind == VX_EV_END ? "the END record"
                                  : "an unknown event";
}

static bool commit_compared(const vx_commit *k, const vxf_ctx *c)
{
    if (c->ignore & VXF_IG_REGS) return false;
    if ((c->ignore & VXF_IG_CSR) && k->file == VX_RF_CSR) return false;
    return true;
}

static void value_text(unsigned file, uint32_t v, char *buf, size_t cap)
{
    if (file == VX_RF_F) {
        char t[20]; /* the longest: "-1.17549435e-38" */
        vxd_float_text(v, t, sizeof t);
        snprintf(buf, cap, "0x%08" PRIx32 " (%s)", v, t);
    } else if ((int32_t)v >= -65536 && (int32_t)v <= 65536 && ((int32_t)v < 0 || v > 9)) {
        snprintf(buf, cap, "0x%08" PRIx32 " (%" PRId32 ")", v, (int32_t)v);
    } else {
        snprintf(buf, cap, "0x%08" PRIx32, v);
    }
}

static void cmp_commits(const vx_event *a, const vx_event *b, const vxf_ctx *c, vxf_items *out)
{
    const vx_commit *ca[VX_TRACE_MAX_COMMITS], *cb[VX_TRACE_MAX_COMMITS];
    size_t na = 0, nb = 0;
    for (uint32_t i = 0; i < a->ncommits && na < VX_TRACE_MAX_COMMITS; i++)
        if (commit_compared(&a->commits[i], c)) ca[na++] = &a->commits[i];
    for (uint32_t i = 0; i < b->ncommits && nb < VX_TRACE_MAX_COMMITS; i++)
        if (commit_compared(&b->commits[i], c)) cb[nb++] = &b->commits[i];
    for (size_t i = 0; i < na || i < nb; i++) {
        char ra[24], rb[24], la[48], lb[48];
        if (i >= na || i >= nb) {
            const vx_commit *k = i < na ? ca[i] : cb[i];
            vxd_reg_name(k->file, k->reg, ra, sizeof ra);
            lanes_text(k->lanes, la, sizeof la);
            add(out, "commit", -1, false, 0, 0, "only %s writes %s (lanes %s)", i < na ? "A" : "B",
                ra, la);
            continue;
        }
        const vx_commit *p = ca[i], *q = cb[i];
        vxd_reg_name(p->file, p->reg, ra, sizeof ra);
        vxd_reg_name(q->file, q->reg, rb, sizeof rb);
        if (p->file != q->file || p->reg != q->reg) {
            add(out, "commit", -1, false, 0, 0, "A writes %s, B writes %s", ra, rb);
            continue;
        }
        vx_lanes all = p->lanes | q->lanes;
        for (unsigned l = 0; l < c->threads && l < VX_MAX_THREADS; l++) {
            if (!vx_lanes_test(all, l)) continue;
            bool ia = vx_lanes_test(p->lanes, l), ib = vx_lanes_test(q->lanes, l);
            if (ia != ib) {
                add(out, "commit", (int)l, false, 0, 0, "%s lane %u: written only in %s", ra, l,
                    ia ? "A" : "B");
            } else if (p->values[l] != q->values[l]) {
                value_text(p->file, p->values[l], la, sizeof la);
                value_text(q->file, q->values[l], lb, sizeof lb);
                add(out, "commit", (int)l, true, p->values[l], q->values[l], "%s lane %u: %s != %s",
                    ra, l, la, lb);
                if (out->n && out->v[out->n - 1].lane == (int)l)
                    snprintf(out->v[out->n - 1].subject, sizeof out->v[0].subject, "%s", ra);
            }
        }
    }
}

static uint32_t size_mask(unsigned size)
{
    return size >= 4 ? 0xFFFFFFFFu : (1u << (8 * size)) - 1;
}

static void cmp_mem(const vx_event *a, const vx_event *b, vxf_items *out)
{
    for (uint32_t i = 0; i < a->nmem || i < b->nmem; i++) {
        if (i >= a->nmem || i >= b->nmem) {
            const vx_memwrite *m = i < a->nmem ? &a->mem[i] : &b->mem[i];
            add(out, i < a->nmem ? "mem/only_a" : "mem/only_b", m->lane, false, 0, 0,
                "only %s writes mem%u[0x%08" PRIx32 "]=0x%" PRIx32 " (lane %u)",
                i < a->nmem ? "A" : "B", 8u * m->size, m->addr, m->value & size_mask(m->size),
                m->lane);
            continue;
        }
        const vx_memwrite *p = &a->mem[i], *q = &b->mem[i];
        uint32_t vp = p->value & size_mask(p->size), vq = q->value & size_mask(q->size);
        if (p->lane != q->lane || p->addr != q->addr || p->size != q->size)
            add(out, "mem/addr", p->lane, true, p->addr, q->addr,
                "memory write %u: lane %u mem%u[0x%08" PRIx32 "] != lane %u mem%u[0x%08" PRIx32 "]",
                i, p->lane, 8u * p->size, p->addr, q->lane, 8u * q->size, q->addr);
        else if (vp != vq)
            add(out, "mem/value", p->lane, true, vp, vq,
                "memory write lane %u mem%u[0x%08" PRIx32 "]: 0x%" PRIx32 " != 0x%" PRIx32, p->lane,
                8u * p->size, p->addr, vp, vq);
    }
}

static void wctl_text(const vx_wctl *w, char *buf, size_t cap)
{
    char m[48], m2[48];
    lanes_text(w->mask, m, sizeof m);
    lanes_text(w->mask2, m2, sizeof m2);
    snprintf(buf, cap,
             "%s [%" PRIu32 ":%" PRIu32 "] pc 0x%08" PRIx32 " arg %" PRIu32 " arg2 %" PRIu32
             " mask %s mask2 %s",
             vxd_wctl_name(w->kind), w->core, w->warp, w->pc, w->arg, w->arg2, m, m2);
}

static void cmp_wctl(const vx_event *a, const vx_event *b, vxf_items *out)
{
    char ta[160], tb[160];
    for (uint32_t i = 0; i < a->nwctl || i < b->nwctl; i++) {
        if (i >= a->nwctl || i >= b->nwctl) {
            wctl_text(i < a->nwctl ? &a->wctl[i] : &b->wctl[i], ta, sizeof ta);
            add(out, "wctl", -1, false, 0, 0, "only %s has warp-control effect %s",
                i < a->nwctl ? "A" : "B", ta);
            continue;
        }
        const vx_wctl *p = &a->wctl[i], *q = &b->wctl[i];
        if (p->kind != q->kind || p->core != q->core || p->warp != q->warp || p->pc != q->pc ||
            p->arg != q->arg || p->arg2 != q->arg2 || p->mask != q->mask || p->mask2 != q->mask2) {
            wctl_text(p, ta, sizeof ta);
            wctl_text(q, tb, sizeof tb);
            add(out, "wctl", -1, false, 0, 0, "warp-control effect %u: %s != %s", i, ta, tb);
        }
    }
}

static void console_text(const vx_event *e, char *buf, size_t cap)
{
    size_t n = 0;
    if (cap) buf[0] = 0;
    for (uint32_t i = 0; i < e->nconsole && n + 8 < cap; i++) {
        uint8_t ch = e->console[i].byte;
        int k;
        if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\')
            k = snprintf(buf + n, cap - n, "%c", ch);
        else if (ch == '\n')
            k = snprintf(buf + n, cap - n, "\\n");
        else
            k = snprintf(buf + n, cap - n, "\\x%02x", ch);
        if (k < 0) break;
        n += (size_t)k;
    }
}

static void cmp_console(const vx_event *a, const vx_event *b, vxf_items *out)
{
    bool same = a->nconsole == b->nconsole;
    for (uint32_t i = 0; same && i < a->nconsole; i++)
        if (a->console[i].slot != b->console[i].slot || a->console[i].byte != b->console[i].byte)
            same = false;
    if (same) return;
    char ta[100], tb[100];
    console_text(a, ta, sizeof ta);
    console_text(b, tb, sizeof tb);
    add(out, "console", -1, false, 0, 0, "console output \"%s\" (slot %d) != \"%s\" (slot %d)", ta,
        a->nconsole ? a->console[0].slot : -1, tb, b->nconsole ? b->console[0].slot : -1);
}

static void cmp_fault(const vx_fault *p, const vx_fault *q, const vxf_ctx *c, vxf_items *out)
{
    if (!p && !q) return;
    if (!p || !q) {
        const vx_fault *f = p ? p : q;
        add(out, "fault", -1, false, 0, 0, "only %s faults: %s: %.96s", p ? "A" : "B",
            vxd_fault_name(f->kind), f->reason);
        return;
    }
    uint64_t ga = (uint64_t)p->core * c->warps_a + p->warp,
             gb = (uint64_t)q->core * c->warps_b + q->warp;
    bool where = c->per_warp ? ga != gb : (p->core != q->core || p->warp != q->warp);
    if (p->kind != q->kind || p->signal != q->signal || p->pc != q->pc || p->insn != q->insn ||
        p->addr != q->addr || p->lanes != q->lanes || where ||
        strncmp(p->reason, q->reason, sizeof p->reason)) {
        add(out, "fault", -1, false, 0, 0,
            "fault %s at pc 0x%08" PRIx32 " (core %" PRIu32 " warp %" PRIu32
            "): %.96s != %s at pc 0x%08" PRIx32 " (core %" PRIu32 " warp %" PRIu32 "): %.96s",
            vxd_fault_name(p->kind), p->pc, p->core, p->warp, p->reason, vxd_fault_name(q->kind),
            q->pc, q->core, q->warp, q->reason);
    }
}

bool vxf_compared(const vx_event *ev, const vxf_ctx *c)
{
    if (!(c->ignore & VXF_IG_DM)) return true;
    if (ev->kind == VX_EV_DM) return false;
    if (ev->kind == VX_EV_ISSUE && (ev->flags & VX_EVF_INJECTED)) return false;
    return true;
}

void vxf_cmp_events(const vx_event *a, const vx_event *b, const vxf_ctx *c, vxf_items *out)
{
    if (!a || !b || a->kind != b->kind) {
        if (a && b && a->kind == VX_EV_END)
            add(out, "length", -1, true, a->index, b->index,
                "A ends here (after %" PRIu64 " issues) while B continues with %s", a->index,
                kind_name(b));
        else if (a && b && b->kind == VX_EV_END)
            add(out, "length", -1, true, a->index, b->index,
                "B ends here (after %" PRIu64 " issues) while A continues with %s", b->index,
                kind_name(a));
        else
            add(out, "kind", -1, false, 0, 0, "A has %s, B has %s", kind_name(a), kind_name(b));
        return;
    }
    bool cyc = !(c->ignore & VXF_IG_CYCLE) && !c->per_warp;
    if (cyc && a->cycle != b->cycle)
        add(out, "cycle", -1, true, a->cycle, b->cycle, "cycle %" PRIu64 " != %" PRIu64, a->cycle,
            b->cycle);
    if (a->kind == VX_EV_DM) {
        const vx_dm_event *p = &a->dm, *q = &b->dm;
        if (p->op != q->op || p->addr != q->addr || p->value != q->value || p->gwarp != q->gwarp ||
            p->lane != q->lane || p->arg != q->arg)
            add(out, "dm", -1, false, 0, 0,
                "DM %s reg %s value 0x%08" PRIx32 " warp %" PRIu32 " lane %" PRIu32 " arg %" PRIu32
                " != %s reg %s value 0x%08" PRIx32 " warp %" PRIu32 " lane %" PRIu32
                " arg %" PRIu32,
                vxd_dm_op_name(p->op), vxd_dm_reg_name(p->addr), p->value, p->gwarp, p->lane,
                p->arg, vxd_dm_op_name(q->op), vxd_dm_reg_name(q->addr), q->value, q->gwarp,
                q->lane, q->arg);
        return;
    }
    if (a->kind == VX_EV_END) {
        if (a->end_status != b->end_status)
            add(out, "end", -1, true, a->end_status, b->end_status, "the run ended with %s != %s",
                vxd_end_name(a->end_status), vxd_end_name(b->end_status));
        else if (a->end_status == VX_END_EXIT && a->exit_code != b->exit_code &&
                 !(c->ignore & VXF_IG_EXIT))
            add(out, "exit", -1, true, a->exit_code, b->exit_code,
                "exit code %" PRIu32 " != %" PRIu32, a->exit_code, b->exit_code);
        cmp_fault(a->fault, b->fault, c, out);
        return;
    }
    if (a->kind != VX_EV_ISSUE) return;
    if (!c->per_warp && (a->core != b->core || a->warp != b->warp))
        add(out, "schedule", -1, false, 0, 0,
            "scheduled warp %" PRIu32 ":%" PRIu32 " != %" PRIu32 ":%" PRIu32 " (core:warp)",
            a->core, a->warp, b->core, b->warp);
    if (a->flags != b->flags &&
        !((c->ignore & VXF_IG_DM) && !((a->flags ^ b->flags) & ~VX_EVF_STEP)))
        add(out, "flags", -1, true, a->flags, b->flags,
            "event flags 0x%x != 0x%x (1 injected, 2 step)", a->flags, b->flags);
    if (a->pc != b->pc) {
        char da[96], db[96];
        disasm(c, a->pc, a->insn, da, sizeof da);
        disasm(c, b->pc, b->insn, db, sizeof db);
        add(out, "pc", -1, true, a->pc, b->pc, "pc 0x%08" PRIx32 " [%s] != 0x%08" PRIx32 " [%s]",
            a->pc, da, b->pc, db);
    } else if (a->insn != b->insn) {
        char da[96], db[96];
        disasm(c, a->pc, a->insn, da, sizeof da);
        disasm(c, b->pc, b->insn, db, sizeof db);
        add(out, "insn", -1, true, a->insn, b->insn,
            "instruction 0x%08" PRIx32 " [%s] != 0x%08" PRIx32 " [%s]", a->insn, da, b->insn, db);
    }
    if (a->tmask != b->tmask) {
        char ma[48], mb[48];
        lanes_text(a->tmask, ma, sizeof ma);
        lanes_text(b->tmask, mb, sizeof mb);
        add(out, "tmask", -1, false, 0, 0, "thread mask %s != %s", ma, mb);
    }
    cmp_fault(a->fault, b->fault, c, out);
    cmp_commits(a, b, c, out);
    if (!(c->ignore & VXF_IG_MEM)) cmp_mem(a, b, out);
    if (!(c->ignore & VXF_IG_WCTL) && !c->per_warp) cmp_wctl(a, b, out);
    if (!(c->ignore & VXF_IG_CONSOLE)) cmp_console(a, b, out);
}

/* ---- digest (FNV-1a, 64 bits) --------------------------------------------------------------------- */

static uint64_t h8(uint64_t h, uint8_t v)
{
    return (h ^ v) * 0x100000001b3ull;
}

static uint64_t h32(uint64_t h, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        h = h8(h, (uint8_t)(v >> (8 * i)));
    return h;
}

static uint64_t hlanes(uint64_t h, vx_lanes m)
{
    for (int i = 0; i < 4; i++)
        h = h32(h, (uint32_t)(m >> (32 * i)));
    return h;
}

uint64_t vxf_digest(const vx_event *ev, const vxf_ctx *c)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = h8(h, ev->kind);
    h = h8(h, (c->ignore & VXF_IG_DM) ? (ev->flags & ~VX_EVF_STEP) : ev->flags);
    h = h32(h, ev->pc);
    h = h32(h, ev->insn);
    h = hlanes(h, ev->tmask);
    if (ev->fault) {
        const vx_fault *f = ev->fault;
        h = h8(h, 0xFA);
        h = h8(h, f->kind);
        h = h8(h, f->signal);
        h = h32(h, f->pc);
        h = h32(h, f->insn);
        h = h32(h, f->addr);
        h = hlanes(h, f->lanes);
        for (size_t i = 0; i < sizeof f->reason && f->reason[i]; i++)
            h = h8(h, (uint8_t)f->reason[i]);
    }
    for (uint32_t i = 0; i < ev->ncommits; i++) {
        const vx_commit *k = &ev->commits[i];
        if (!commit_compared(k, c)) continue;
        h = h8(h, 0xC0);
        h = h8(h, k->file);
        h = h32(h, k->reg);
        h = hlanes(h, k->lanes);
        for (unsigned l = 0; l < c->threads && l < VX_MAX_THREADS; l++)
            if (vx_lanes_test(k->lanes, l)) h = h32(h, k->values[l]);
    }
    if (!(c->ignore & VXF_IG_MEM))
        for (uint32_t i = 0; i < ev->nmem; i++) {
            const vx_memwrite *m = &ev->mem[i];
            h = h8(h, 0x3E);
            h = h8(h, m->lane);
            h = h8(h, m->size);
            h = h32(h, m->addr);
            h = h32(h, m->value & size_mask(m->size));
        }
    if (!(c->ignore & VXF_IG_CONSOLE))
        for (uint32_t i = 0; i < ev->nconsole; i++) {
            h = h8(h, ev->console[i].slot);
            h = h8(h, ev->console[i].byte);
        }
    return h;
}
