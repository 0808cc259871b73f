/*
 * index.h - the digests of the trace's EVENTS chunks, for backward searches that
 * skip the parts of history where no breakpoint or watchpoint can stop.
 *
 * History is cut into segments, one per EVENTS chunk that holds issues.  Each
 * segment has the chunk's digest (vx_trace_digest: PCs issued, warps that issued,
 * bytes and pages written); a segment whose digest says "no" for every breakpoint
 * and write watchpoint cannot contain a stop and is skipped without decoding it; a
 * "maybe" is checked by reading its events (digests give false positives, never
 * false negatives).
 *
 * A trace of format 1.1 stores the digests: they are read at start-up and usable at
 * once.  For the others (format 1.0, a chunk cut off before its digest) a thread
 * computes the missing ones with its own reader while the server already runs;
 * each becomes usable as soon as it is computed.
 */
#ifndef VX_INDEX_H
#define VX_INDEX_H

#include "vx_base.h"
#include "vx_err.h"
#include "vx_trace.h"

typedef struct vx_index vx_index;

/*
 * Index the trace open in rd (used only during this call), whose history
 * has nissues issues.  NULL when out of memory or when the trace cannot be read.
 * A stored digest that is damaged leaves its segment without one (searched by its
 * events), and the reader's message for the first is put in why (cap bytes; "" when
 * none).
 */
vx_index *vx_index_start(vx_trace_reader *rd, uint64_t nissues, char *why, size_t cap);
void vx_index_free(vx_index *ix); /* stops the thread */

/* Segments, and how many have their digest so far. */
size_t vx_index_nseg(const vx_index *ix);
size_t vx_index_ready(const vx_index *ix);

/* The segment holding issue t: true and *s, *lo, *hi (issues lo .. hi - 1), or false. */
bool vx_index_find(const vx_index *ix, uint64_t t, size_t *s, uint64_t *lo, uint64_t *hi);

/* The digest of segment s, or NULL while it is not known. */
const vx_trace_digest *vx_index_digest(const vx_index *ix, size_t s);

/* The trace's EVENTS chunk of segment s. */
size_t vx_index_chunk(const vx_index *ix, size_t s);

#endif /* VX_INDEX_H */
