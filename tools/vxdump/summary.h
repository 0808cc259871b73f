/*
 * summary.h - vxdump --summary: what a trace holds and what the kernel did,
 * computed in one pass over the events.
 */
#ifndef VXD_SUMMARY_H
#define VXD_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "symtab.h"
#include "vx_trace.h"

typedef struct vxd_summary vxd_summary;

vx_err vxd_summary_new(vxd_summary **out, const vx_trace_header *h, const vxd_symtab *syms);
void vxd_summary_free(vxd_summary *s);
void vxd_summary_event(vxd_summary *s, const vx_event *ev);

/* What the reader knows about the file (printed in the header part). */
typedef struct vxd_summary_file {
    const char *path;
    const vx_trace_summary *ts;
    bool range; /* --from/--to restricted the events */
    uint64_t from, to;
} vxd_summary_file;

/* Print as text or as one JSON object (SCHEMA.md). */
void vxd_summary_print(const vxd_summary *s, const vx_trace_header *h, const vxd_summary_file *f,
                       bool json, FILE *out);

#endif /* VXD_SUMMARY_H */
