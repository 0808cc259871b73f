/*
 * compare.h - field-by-field comparison of trace headers and events for
 * vxdiff: every difference is listed (not only the first), as items with a
 * field name, a lane when it is about one lane, the two values when they are
 * numbers, and a sentence for people.
 */
#ifndef VXF_COMPARE_H
#define VXF_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "symtab.h"
#include "vx_isa.h"
#include "vx_trace.h"

/* --ignore fields */
#define VXF_IG_CYCLE    0x001u /* cycle numbers */
#define VXF_IG_SCHEDULE 0x002u /* the interleaving of warps: implies --per-warp */
#define VXF_IG_CONSOLE  0x004u /* console bytes */
#define VXF_IG_DM       0x008u /* Debug Module events and injected / stepped issues */
#define VXF_IG_HEADER   0x010u /* the trace headers (platform, image, loads, ...) */
#define VXF_IG_MEM      0x020u /* memory writes */
#define VXF_IG_REGS     0x040u /* register commits (all files) */
#define VXF_IG_CSR      0x080u /* CSR commits only */
#define VXF_IG_WCTL     0x100u /* warp-control effects */
#define VXF_IG_EXIT     0x200u /* the END record's exit code */

typedef struct vxf_item {
    char field[16]; /* "cycle", "schedule", "pc", "insn", "tmask", "flags", "commit", "mem", "wctl",
                       "console", "fault", "kind", "dm", "end", "exit", "platform", "image", "load", ... */
    int lane;       /* -1 when not about one lane */
    char subject[24]; /* what the lane is of (a register name), or "" */
    char what[8];     /* which quantity a, b (or text) are of, for the fields with several:
                         image "kind"/"offset", load "count"/"addr"/"byte"/"len", mem
                         "addr"/"value"/"only_a"/"only_b"; "" for the others */
    bool has_ab;
    uint64_t a, b; /* the two values, when has_ab */
    char text[240];
} vxf_item;

#define VXF_MAX_ITEMS 64 /* items kept per comparison; more are only counted */

typedef struct vxf_items {
    vxf_item v[VXF_MAX_ITEMS];
    size_t n;     /* kept */
    size_t total; /* found */
} vxf_items;

typedef struct vxf_ctx {
    unsigned ignore;
    bool per_warp;    /* events of one warp, not of one position: no schedule, cycle, wctl */
    uint32_t threads; /* lanes per warp (the same on both sides to compare events) */
    uint32_t warps_a, warps_b; /* warps per core, to name warps globally */
    vx_disasm_ctx *dis;        /* may be NULL */
} vxf_ctx;

/* Compare the headers; differences are added to out. */
void vxf_cmp_headers(const vx_trace_header *a, const vx_trace_header *b, const vxf_ctx *c,
                     vxf_items *out);

/* Compare two events (either may be NULL: that stream has ended); differences are added to out. */
void vxf_cmp_events(const vx_event *a, const vx_event *b, const vxf_ctx *c, vxf_items *out);

/*
 * Digest of what --per-warp compares in an issue (pc, insn, mask, flags,
 * commits, memory writes, console bytes, fault; minus ignored fields): equal
 * issues have equal digests.
 */
uint64_t vxf_digest(const vx_event *ev, const vxf_ctx *c);

/* Should this event take part in the comparison at all (--ignore dm drops DM work)? */
bool vxf_compared(const vx_event *ev, const vxf_ctx *c);

#endif /* VXF_COMPARE_H */
