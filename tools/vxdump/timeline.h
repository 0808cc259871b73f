/*
 * timeline.h - vxdump --timeline: warp activity over cycles as Chrome
 * trace-event JSON (the JSON Object Format: {"traceEvents": [...],
 * "displayTimeUnit": ...}), which Perfetto (ui.perfetto.dev) and
 * chrome://tracing load.
 *
 * One process per core (pid = global core id), one thread (track) per warp
 * (tid = warp index in the core), named by metadata events.  Time: one cycle
 * is shown as one microsecond.  On each track:
 *   - "X" slices for execution runs: consecutive issues of the warp in the same
 *     function are merged into one slice named after the function (or "pc
 *     0x..." without symbols), from the first issue's cycle to the last one's
 *     cycle + 1;
 *   - "X" slices for waits: "barrier N" (from the arrival to the release),
 *     "wspawn wait", and "halted (cause)" between a Debug Module halt and resume;
 *   - "i" instant events (thread scope) for divergent splits and faults, and for
 *     Debug Module steps and injections.
 * Slices on one track never overlap and are written in time order per track.
 */
#ifndef VXD_TIMELINE_H
#define VXD_TIMELINE_H

#include <stdio.h>

#include "symtab.h"
#include "vx_trace.h"

typedef struct vxd_timeline vxd_timeline;

/* Events are written to f as they are produced; f must stay open until _finish. */
vx_err vxd_timeline_new(vxd_timeline **out, FILE *f, const vx_trace_header *h,
                        const vxd_symtab *syms, const char *trace_name);
void vxd_timeline_event(vxd_timeline *t, const vx_event *ev);
/* Close the open slices at `cycle` (the end of the trace) and write the closing bracket. */
void vxd_timeline_finish(vxd_timeline *t, uint64_t cycle);
/* Slices and instants written so far. */
uint64_t vxd_timeline_count(const vxd_timeline *t);
void vxd_timeline_free(vxd_timeline *t);

#endif /* VXD_TIMELINE_H */
