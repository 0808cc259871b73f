/*
 * digest.c - chunk digests (FORMAT.md §10.3): what an EVENTS chunk contains, in a
 * few bits, so that backward searches skip chunks without decoding them.
 *
 * The writer accumulates a chunk's digest while it encodes (codec.c: a PC bit on
 * each insn-cache miss, the span of each memory write group) and adds the warps
 * and the counts when it closes the chunk; the reader computes the same digest
 * from decoded events (vxt_dg_add) when a trace has none stored.  Both are exact
 * for the sets they describe, so a stored digest and a computed one are equal
 * (vx_trace_reader_check compares them).
 */
#include <string.h>

#include "trace_int.h"
#include "vx_sim.h"

void vxt_dg_init(vx_trace_digest *d, uint64_t first)
{
    memset(d, 0, sizeof *d);
    d->first = first;
    d->wlo = UINT32_MAX;
    d->whi = 0;
}

void vxt_dg_add(vx_trace_digest *d, const vx_event *ev, uint32_t warps_per_core)
{
    switch (ev->kind) {
    case VX_EV_DM: d->flags |= VX_TRACE_DG_DM; return;
    case VX_EV_END: d->flags |= VX_TRACE_DG_END; return;
    case VX_EV_ISSUE: break;
    default: return;
    }
    d->issues++;
    uint32_t g = ev->core * warps_per_core + ev->warp;
    vxt_dg_set(d->warps, g & (VX_TRACE_DG_WARP_BITS - 1));
    if (!(ev->flags & VX_EVF_INJECTED)) vxt_dg_pc(d, ev->pc);
    if (ev->flags & (VX_EVF_INJECTED | VX_EVF_STEP)) d->flags |= VX_TRACE_DG_FLAGGED;
    if (ev->fault) d->flags |= VX_TRACE_DG_FAULT;
    if (ev->nwctl) d->flags |= VX_TRACE_DG_WCTL;
    if (ev->nconsole) d->flags |= VX_TRACE_DG_CONSOLE;
    if (ev->nmem) d->flags |= VX_TRACE_DG_WRITES;
    for (uint32_t i = 0; i < ev->nmem; i++) {
        uint32_t a = ev->mem[i].addr;
        vxt_dg_span(d, a, vxt_dg_last(a, ev->mem[i].size));
    }
}

size_t vxt_dg_bound(uint32_t nwarps)
{
    return 10 + 10 + 5 + 5 + 1 + VX_TRACE_DG_PC_BITS / 8 + 1 + VX_TRACE_DG_PAGE_BITS / 8 +
           (nwarps + 7) / 8;
}

static uint8_t *put_bits(uint8_t *p, const uint64_t *bits, unsigned nbits)
{
    for (unsigned i = 0; i < nbits / 8; i++)
        *p++ = (uint8_t)(bits[i / 8] >> (8 * (i % 8)));
    return p;
}

uint8_t *vxt_dg_encode(uint8_t *p, const vx_trace_digest *d, const uint8_t *warps, uint32_t nwarps)
{
    p = vxt_put_varint(p, d->issues);
    p = vxt_put_varint(p, d->flags);
    if (d->flags & VX_TRACE_DG_WRITES) {
        p = vxt_put_varint(p, d->wlo);
        p = vxt_put_varint(p, d->whi);
    }
    *p++ = VXT_DG_PC_LOG2;
    p = put_bits(p, d->pc, VX_TRACE_DG_PC_BITS);
    *p++ = VXT_DG_PAGE_LOG2;
    p = put_bits(p, d->page, VX_TRACE_DG_PAGE_BITS);
    size_t wb = (nwarps + 7) / 8;
    memcpy(p, warps, wb);
    return p + wb;
}

static bool get_bits(vxt_cur *c, uint64_t *bits, unsigned nbits)
{
    if (vxt_cur_left(c) < nbits / 8) return vxt_fail(c, "digest bit set runs past the end");
    for (unsigned i = 0; i < nbits / 8; i++)
        bits[i / 8] |= (uint64_t)c->p[i] << (8 * (i % 8));
    c->p += nbits / 8;
    return true;
}

/* A bit-set size other than ours (FORMAT.md §10.3 allows 3..24 bits of index): the
 * digest is well-formed but this reader does not use it. */
static bool other_layout(vx_trace_digest *d, uint64_t first, uint8_t log2, bool *known)
{
    vxt_dg_init(d, first);
    *known = false;
    return log2 >= 3 && log2 <= 24;
}

bool vxt_dg_decode(const uint8_t *p, size_t n, uint32_t nwarps, vx_trace_digest *d, bool *known)
{
    vxt_cur c;
    uint64_t flags;
    uint8_t lp, lg;
    uint64_t first = d->first;
    vxt_dg_init(d, first);
    *known = true;
    vxt_cur_init(&c, p, n);
    if (!vxt_get_varint(&c, &d->issues) || !vxt_get_varint(&c, &flags)) return false;
    d->flags = (uint32_t)flags & 0x7Fu; /* bits 7..: a later minor version's, ignored */
    if (flags & VX_TRACE_DG_WRITES) {
        if (!vxt_get_v32(&c, &d->wlo) || !vxt_get_v32(&c, &d->whi) || d->wlo > d->whi) return false;
    }
    if (!vxt_get_u8(&c, &lp)) return false;
    if (lp != VXT_DG_PC_LOG2) return other_layout(d, first, lp, known);
    if (!get_bits(&c, d->pc, VX_TRACE_DG_PC_BITS) || !vxt_get_u8(&c, &lg)) return false;
    if (lg != VXT_DG_PAGE_LOG2) return other_layout(d, first, lg, known);
    if (!get_bits(&c, d->page, VX_TRACE_DG_PAGE_BITS)) return false;
    size_t wb = (nwarps + 7) / 8;
    if (vxt_cur_left(&c) < wb) return false;
    for (uint32_t g = 0; g < nwarps; g++)
        if ((c.p[g / 8] >> (g % 8)) & 1) vxt_dg_set(d->warps, g & (VX_TRACE_DG_WARP_BITS - 1));
    if (nwarps % 8 && (c.p[wb - 1] >> (nwarps % 8))) return false; /* bits beyond the warps */
    /* bytes after the known fields: a later minor version's additions, ignored */
    if (!(flags & VX_TRACE_DG_WRITES)) {
        for (unsigned i = 0; i < VX_TRACE_DG_PAGE_BITS / 64; i++)
            if (d->page[i]) return false; /* pages without writes */
    }
    return true;
}

bool vx_trace_digest_may_pc(const vx_trace_digest *d, uint32_t pc)
{
    uint32_t i = (pc >> 2) & (VX_TRACE_DG_PC_BITS - 1);
    return (d->pc[i >> 6] >> (i & 63)) & 1;
}

bool vx_trace_digest_may_write(const vx_trace_digest *d, uint32_t addr, uint32_t len)
{
    if (!(d->flags & VX_TRACE_DG_WRITES) || len == 0) return false;
    uint64_t end = (uint64_t)addr + len - 1;
    if (end < d->wlo || addr > d->whi) return false;
    if (end > d->whi) end = d->whi;
    if (addr < d->wlo) addr = d->wlo;
    uint64_t p0 = addr >> 12, p1 = end >> 12;
    if (p1 - p0 >= VX_TRACE_DG_PAGE_BITS) return true;
    for (uint64_t p = p0; p <= p1; p++) {
        uint32_t b = vxt_dg_page_bit((uint32_t)p);
        if ((d->page[b >> 6] >> (b & 63)) & 1) return true;
    }
    return false;
}

bool vx_trace_digest_may_warp(const vx_trace_digest *d, uint32_t gwarp)
{
    uint32_t i = gwarp & (VX_TRACE_DG_WARP_BITS - 1);
    return (d->warps[i >> 6] >> (i & 63)) & 1;
}

bool vx_trace_digest_may_console(const vx_trace_digest *d, uint32_t addr, uint32_t len)
{
    return (d->flags & VX_TRACE_DG_CONSOLE) && len && addr < VX_IO_COUT_ADDR + VX_IO_COUT_SIZE &&
           (uint64_t)addr + len > VX_IO_COUT_ADDR;
}
