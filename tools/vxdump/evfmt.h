/*
 * evfmt.h - rendering trace events for people (aligned text lines) and for
 * scripts (JSON Lines), shared by vxdump and vxdiff.
 *
 * Text line of an issue (columns are padded to the widths of the trace):
 *
 *   INDEX  CYCLE  C:W  PC        <SYMBOL+OFF>     MASK  INSTRUCTION              EFFECTS
 *      42     17  0:1  80000054  <main+0x14>      f     addi a0, a0, 4           a0=0x100+4*lane
 *
 * (vxd_fmt_show_lines: a SOURCE column, vecadd.c:31, after the symbol.)
 *
 * Effects, in this order: register commits, memory writes, warp-control effects,
 * console bytes, fault.  A commit whose lanes all got the same value is shown
 * once (a0=5); one whose values are b + s*lane over three or more lanes as
 * a0=0x100+4*lane; otherwise per lane, a0=[1,2,-,4] ('-': lane not written).
 * Memory writes collapse the same way (mem32[0x10000+4*lane]=7).  Values
 * 0..9 and -1..-9 are decimal, others hex; float registers are shown as
 * floats.  The JSON form (tools/vxdump/SCHEMA.md) keeps every value exact.
 */
#ifndef VXD_EVFMT_H
#define VXD_EVFMT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "symtab.h"
#include "vx_event.h"
#include "vx_isa.h"
#include "vx_trace.h"

/* ---- a growable string --------------------------------------------------------------------- */

typedef struct vxd_sb {
    char *s;
    size_t len, cap;
    bool oom; /* an allocation failed: the text is cut short */
} vxd_sb;

void vxd_sb_release(vxd_sb *b);
void vxd_sb_clear(vxd_sb *b);
void vxd_sb_putc(vxd_sb *b, char c);
void vxd_sb_puts(vxd_sb *b, const char *s);
void vxd_sb_printf(vxd_sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Pad with spaces up to column col (counted from the start of the string). */
void vxd_sb_pad(vxd_sb *b, size_t col);
/* A JSON string literal (quotes included) of n bytes of s, always valid UTF-8: valid
 * UTF-8 sequences as they are, each byte that is not part of one as U+FFFD, '"', '\\'
 * and control characters (and DEL) escaped. */
void vxd_sb_json_str(vxd_sb *b, const char *s, size_t n);
/* The JSON source of pc: {"file": ..., "line": N} from the kernel's line tables, or null. */
void vxd_sb_json_source(vxd_sb *b, const vxd_symtab *syms, uint32_t pc);
/* A lane mask as a JSON string "0x..." (lowest hex digits, at least one). */
void vxd_sb_json_lanes(vxd_sb *b, vx_lanes m);

/* ---- the formatter ------------------------------------------------------------------------- */

typedef struct vxd_fmt {
    uint32_t cores, warps, threads; /* platform: total cores, warps per core, threads per warp */
    const vxd_symtab *syms;
    vx_disasm_ctx *dis; /* may be NULL: vx_disasm() per call */
    int lane;           /* >= 0: show only this lane's values and writes */
    int w_index, w_cycle, w_cw, w_sym, w_src, w_mask, w_dis; /* w_src 0: no SOURCE column */
} vxd_fmt;

/*
 * Set up a formatter for a trace with this header; max_index and max_cycle size
 * the columns (the summary's issues and cycle).
 */
void vxd_fmt_init(vxd_fmt *f, const vx_trace_header *h, const vxd_symtab *syms, vx_disasm_ctx *dis,
                  uint64_t max_index, uint64_t max_cycle);

/* Show a SOURCE column (FILE:LINE, from syms->lines) after the symbol (vxdump --lines). */
void vxd_fmt_show_lines(vxd_fmt *f);

/* The column header line ("#" first), without a newline. */
void vxd_fmt_columns(const vxd_fmt *f, vxd_sb *b);

/* One event as a text line, without a newline. */
void vxd_fmt_event(const vxd_fmt *f, const vx_event *ev, vxd_sb *b);

/* Only the effects part of an issue line (commits, writes, ...). */
void vxd_fmt_effects(const vxd_fmt *f, const vx_event *ev, vxd_sb *b);

/* One event as a JSON object (SCHEMA.md), without a newline. */
void vxd_fmt_event_json(const vxd_fmt *f, const vx_event *ev, vxd_sb *b);

/* ---- names and small renderings --------------------------------------------------------------- */

/* A float's value in the fewest digits that read back as the same float ("0.1",
 * "16777218.0", "inf", "nan" for the canonical NaN, any other NaN with its bits:
 * "nan(0x7fc00001)", signalling "snan(0x7f800001)"); snprintf conventions. */
size_t vxd_float_text(uint32_t bits, char *buf, size_t cap);

const char *vxd_wctl_name(unsigned kind);    /* "tmask", "ipdom-push", ... */
const char *vxd_fault_name(unsigned kind);   /* "illegal", "misaligned", ... */
const char *vxd_signal_name(unsigned sig);   /* "SIGBUS" */
const char *vxd_dm_op_name(unsigned op);     /* "halt", ... */
const char *vxd_dm_reg_name(unsigned addr);  /* "dctrl", ... */
const char *vxd_end_name(unsigned status);   /* "exit", "fault", "limit", "abort" */
const char *vxd_hacause_name(unsigned c);    /* "ebreak", "haltreq", ... */
const char *vxd_image_kind_name(unsigned k); /* "ELF", "vxbin", "raw" */

/* Register name of a commit: "a0", "fa1", "mscratch", "csr0x7c0". */
void vxd_reg_name(unsigned file, unsigned reg, char *buf, size_t cap);

/* A 32-bit value the way the text output shows it (0..9 and -1..-9 decimal, else hex). */
void vxd_fmt_value(vxd_sb *b, uint32_t v);

/* The values of one commit (after "name="), collapsed when uniform or affine. */
void vxd_fmt_commit_values(const vxd_fmt *f, const vx_commit *c, vxd_sb *b);

/* Is instruction word insn a vx_split / vx_split.n? */
bool vxd_is_split(uint32_t insn);

#endif /* VXD_EVFMT_H */
