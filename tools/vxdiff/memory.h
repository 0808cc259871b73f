/*
 * memory.h - vxdiff --memory: compare what two runs did to memory, whatever the
 * code layout: the contents of global memory and of each core's local memory at
 * the end of each trace, as differing address ranges with both sides' values and
 * the last write that produced each side's value.
 *
 * Which bytes are compared: those written during the run on either side.  Bytes
 * that neither run wrote hold the initial memory (the kernel image as loaded and
 * the --load regions); where they differ (the code of two builds, another input
 * file) they are only counted, in one closing note.
 *
 * How: each side's memory at its last keyframe (the pages of keyframes 0..k over
 * the prologue's memory, FORMAT.md 9.3), then the events after that keyframe
 * applied; the pages of keyframes after the first and the pages those events
 * write say which pages the run wrote.  Then, for the bytes of those pages that
 * differ, the last write of each byte on each side, found by reading the EVENTS
 * chunks from the end back, skipping every chunk whose digest says it writes none
 * of the bytes still looked for.  No event is kept in memory.
 *
 * With named objects (--object) only those are compared, each at its own address
 * on each side (from each side's data symbols): candidates then carry B's address
 * besides A's, and B's writes find them by it.
 */
#ifndef VXF_MEMORY_H
#define VXF_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include "symtab.h"
#include "vx_isa.h"
#include "vx_trace.h"

typedef struct vxf_mem_side {
    const char *path;         /* as messages name it */
    vx_trace_reader *r;       /* read from and sought: its position is not kept */
    const vx_trace_header *h; /* r's */
    const vxd_symtab *syms;   /* code symbols of the side's image (may be empty) */
    const vxd_symtab *dsyms;  /* its data symbols (may be empty) */
} vxf_mem_side;

typedef struct vxf_mem_opts {
    const char *prog; /* for messages */
    uint64_t max;     /* ranges listed (0: all) */
    bool json, quiet;
    vx_disasm_ctx *dis;         /* may be NULL */
    const char *const *objects; /* --object: compare only these data objects, each at its */
    size_t nobjects;            /* own address on each side (names as vxd_symtab_matches) */
} vxf_mem_opts;

typedef struct vxf_mem_result {
    uint64_t ranges;           /* differing ranges written during a run */
    uint64_t bytes;            /* their bytes */
    uint64_t shown;            /* ranges listed */
    uint64_t layout_ranges;    /* of them, in the area a change of code moves (listed last) */
    uint64_t image_bytes;      /* differing bytes neither run wrote (initial memory) */
    uint32_t cores_a, cores_b; /* local memories: those of min(cores_a, cores_b) compared */
} vxf_mem_result;

/*
 * Compare; prints the ranges (text or JSON Lines objects of type "memory") to
 * stdout, not the closing lines.  Returns 0, or -1 after an error (printed to
 * stderr: an unreadable or corrupt trace, no memory); *res is filled either way
 * with what was found.
 */
int vxf_mem_compare(const vxf_mem_side s[2], const vxf_mem_opts *o, vxf_mem_result *res);

#endif /* VXF_MEMORY_H */
