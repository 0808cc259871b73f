/*
 * index.h - the digests of the trace's EVENTS chunks, for backward searches that
 * skip the parts of history where no breakpoint or watchpoint can stop.
 *
 * History is cut into segments, one per EVENTS chunk that holds issues (or, in a
 * trace of more than 65536 such chunks, one per run of consecutive ones, so that the
 * digests take at most about 80 MB).  Each segment has a digest (vx_trace_digest: PCs
 * issued, warps that issued, bytes and pages written; for a run, the union of its
 * chunks'); a segment whose digest says "no" for every breakpoint and write
 * watchpoint cannot contain a stop and is skipped without decoding it; a "maybe" is
 * checked by reading its events (digests give false positives, never false
 * negatives).
 *
 * A trace of format 1.1 or later stores the digests: those of the newest segments
 * (8192 chunks) are read at start-up and usable at once.  A thread with its own
 * reader gets the others while the server already runs, newest first: stored ones
 * read, missing ones (format 1.0, a chunk cut off before its digest) computed from
 * the chunk's events; each becomes usable as soon as it is known.
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
 * events); for the first met at start-up the reader's message is put in why (cap
 * bytes; "" when none).
 */
vx_index *vx_index_start(vx_trace_reader *rd, uint64_t nissues, char *why, size_t cap);
void vx_index_free(vx_index *ix); /* stops the thread */

/* Segments, how many have their digest so far, how many never will (damage: searched
 * by their events), and the EVENTS chunks with issues they cover. */
size_t vx_index_nseg(const vx_index *ix);
size_t vx_index_ready(const vx_index *ix);
size_t vx_index_damaged(const vx_index *ix);
size_t vx_index_nchunks(const vx_index *ix);

/* The segment holding issue t: true and *s, *lo, *hi (issues lo .. hi - 1), or false. */
bool vx_index_find(const vx_index *ix, uint64_t t, size_t *s, uint64_t *lo, uint64_t *hi);

/* The digest of segment s, or NULL while it is not known. */
const vx_trace_digest *vx_index_digest(const vx_index *ix, size_t s);

/* Are segment s's EVENTS chunks whole (vx_trace_reader_chunk_check with r, which
 * names a damaged one)? */
vx_err vx_index_check(const vx_index *ix, vx_trace_reader *r, size_t s);

#endif /* VX_INDEX_H */
