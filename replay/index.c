/*
 * index.c - the chunk digests of a trace, for fast backward searches (index.h).
 *
 * vx_index_start reads the stored digests of the newest segments itself, up to a
 * budget; a thread that owns its reader gets the others (stored, or computed from the
 * chunk's events), newest first.  It publishes each digest by a release store of the
 * segment's ready flag, which the server thread reads with acquire order before it
 * uses the digest: all the synchronisation needed.
 */
#include "index.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Stored digests vx_index_start reads before it returns (about 6 us each). */
#define SYNC_DIGESTS 8192u
/* At most this many segments (a digest is about 1.2 KB): beyond, consecutive chunks
 * share one, whose digest is the union of theirs. */
#define MAX_SEGS 65536u

typedef struct seg {
    uint64_t lo, hi;   /* issues lo .. hi - 1 */
    size_t ck, nck;    /* its EVENTS chunks: ix->ck[ck .. ck + nck - 1] */
    bool tried;        /* the thread, or start-up, has looked for its digest */
    _Atomic bool have; /* dg is valid */
    vx_trace_digest dg;
} seg;

struct vx_index {
    vx_trace_reader *r; /* the thread's: the file rd has open */
    seg *s;
    size_t n;
    size_t *ck; /* the chunks that hold issues, in order */
    size_t nck; /* of them */
    _Atomic size_t ready;
    _Atomic size_t damaged; /* segments whose digest cannot be had (damage): never ready */
    _Atomic bool stop;
    pthread_t th;
    bool started;
};

/* a |= b, for digests of consecutive chunks (a first) */
static void digest_union(vx_trace_digest *a, const vx_trace_digest *b)
{
    a->issues += b->issues;
    if (b->flags & VX_TRACE_DG_WRITES) {
        if (!(a->flags & VX_TRACE_DG_WRITES)) {
            a->wlo = b->wlo;
            a->whi = b->whi;
        }
        a->wlo = b->wlo < a->wlo ? b->wlo : a->wlo;
        a->whi = b->whi > a->whi ? b->whi : a->whi;
    }
    a->flags |= b->flags;
    for (size_t i = 0; i < sizeof a->pc / sizeof a->pc[0]; i++)
        a->pc[i] |= b->pc[i];
    for (size_t i = 0; i < sizeof a->page / sizeof a->page[0]; i++)
        a->page[i] |= b->page[i];
    for (size_t i = 0; i < sizeof a->warps / sizeof a->warps[0]; i++)
        a->warps[i] |= b->warps[i];
}

/* The digest of segment g (every one of its chunks'), read with r in mode; an error
 * (the reader's message says which chunk) when a chunk's is damaged or, with
 * VX_TRACE_DIGEST_STORED, missing (VX_ERR_END). */
static vx_err seg_digest(const vx_index *ix, vx_trace_reader *r, const seg *g, unsigned mode,
                         vx_trace_digest *out)
{
    vx_trace_digest d;
    for (size_t i = 0; i < g->nck; i++) {
        vx_err e = vx_trace_reader_digest(r, ix->ck[g->ck + i], mode, i ? &d : out);
        if (e) return e;
        if (i) digest_union(out, &d);
    }
    return VX_OK;
}

static void *compute(void *arg)
{
    vx_index *ix = arg;
    /* newest first: a reverse search starts at the end of history */
    for (size_t i = ix->n; i-- > 0;) {
        if (atomic_load_explicit(&ix->stop, memory_order_relaxed)) break;
        seg *g = &ix->s[i];
        /* a segment tried at start-up has its stored digest, or a damaged one: it
         * stays without, searched the slow way, which reports the damage */
        if (g->tried) continue;
        vx_trace_digest d;
        if (seg_digest(ix, ix->r, g, VX_TRACE_DIGEST_COMPUTE, &d) != VX_OK) {
            atomic_fetch_add_explicit(&ix->damaged, 1, memory_order_relaxed);
            continue;
        }
        g->dg = d;
        atomic_store_explicit(&g->have, true, memory_order_release);
        atomic_fetch_add_explicit(&ix->ready, 1, memory_order_relaxed);
    }
    return NULL;
}

/* The segments: one per chunk holding issues, or per run of `per` such chunks. */
static bool make_segments(vx_index *ix, vx_trace_reader *rd, uint64_t nissues)
{
    const size_t nc = vx_trace_reader_num_chunks(rd);
    ix->ck = malloc((nc ? nc : 1) * sizeof *ix->ck);
    if (!ix->ck) return false;
    /* Chunk i's issues end where the next chunk's begin; chunks without issues (Debug
     * Module records only) are left out: their digests say nothing about any issue. */
    size_t m = 0;
    for (size_t i = 0; i < nc; i++) {
        uint64_t lo = vx_trace_reader_chunk_key(rd, i);
        if (lo >= nissues) break;
        if (m && lo < vx_trace_reader_chunk_key(rd, ix->ck[m - 1])) break;
        if (m && lo == vx_trace_reader_chunk_key(rd, ix->ck[m - 1])) m--; /* that one was empty */
        ix->ck[m++] = i;
    }
    const size_t per = m <= MAX_SEGS ? 1 : (m + MAX_SEGS - 1) / MAX_SEGS;
    ix->nck = m;
    ix->s = calloc(m ? (m + per - 1) / per : 1, sizeof *ix->s);
    if (!ix->s) return false;
    for (size_t i = 0; i < m; i += per) {
        seg *g = &ix->s[ix->n++];
        g->ck = i;
        g->nck = m - i < per ? m - i : per;
        g->lo = vx_trace_reader_chunk_key(rd, ix->ck[i]);
        g->hi = i + per < m ? vx_trace_reader_chunk_key(rd, ix->ck[i + per]) : nissues;
        atomic_init(&g->have, false);
    }
    return true;
}

vx_index *vx_index_start(vx_trace_reader *rd, uint64_t nissues, char *why, size_t cap)
{
    if (cap) why[0] = 0;
    vx_index *ix = calloc(1, sizeof *ix);
    if (!ix) return NULL;
    atomic_init(&ix->ready, 0);
    atomic_init(&ix->damaged, 0);
    atomic_init(&ix->stop, false);
    if (!make_segments(ix, rd, nissues)) {
        vx_index_free(ix);
        return NULL;
    }
    /* The newest segments' stored digests now (usable at once: a search from the end
     * of history starts there), within a budget that keeps start-up short. */
    size_t budget = SYNC_DIGESTS, ready = 0;
    for (size_t i = ix->n; i-- > 0 && budget >= ix->s[i].nck;) {
        seg *g = &ix->s[i];
        budget -= g->nck;
        vx_err e = seg_digest(ix, rd, g, VX_TRACE_DIGEST_STORED, &g->dg);
        if (e == VX_ERR_END) continue; /* none stored: the thread computes it */
        g->tried = true;
        if (e == VX_OK) {
            atomic_store(&g->have, true);
            ready++;
        } else { /* damage: that segment without */
            atomic_fetch_add_explicit(&ix->damaged, 1, memory_order_relaxed);
            if (cap && !why[0]) snprintf(why, cap, "%s", vx_trace_reader_errmsg(rd));
        }
    }
    atomic_store(&ix->ready, ready);
    bool todo = false;
    for (size_t i = 0; i < ix->n && !todo; i++)
        todo = !ix->s[i].tried;
    /* the thread gets the others with a reader of its own, on the file rd has open (a
     * trace replaced at its path since is not read in its place) */
    if (todo && vx_trace_reader_new(&ix->r) == VX_OK &&
        vx_trace_reader_open_same(ix->r, rd) == VX_OK &&
        pthread_create(&ix->th, NULL, compute, ix) == 0)
        ix->started = true;
    return ix;
}

void vx_index_free(vx_index *ix)
{
    if (!ix) return;
    if (ix->started) {
        atomic_store(&ix->stop, true);
        pthread_join(ix->th, NULL);
    }
    vx_trace_reader_free(ix->r);
    free(ix->s);
    free(ix->ck);
    free(ix);
}

size_t vx_index_nseg(const vx_index *ix)
{
    return ix ? ix->n : 0;
}

size_t vx_index_ready(const vx_index *ix)
{
    return ix ? atomic_load_explicit(&((vx_index *)ix)->ready, memory_order_relaxed) : 0;
}

size_t vx_index_damaged(const vx_index *ix)
{
    return ix ? atomic_load_explicit(&((vx_index *)ix)->damaged, memory_order_relaxed) : 0;
}

size_t vx_index_nchunks(const vx_index *ix)
{
    return ix ? ix->nck : 0;
}

bool vx_index_find(const vx_index *ix, uint64_t t, size_t *s, uint64_t *lo, uint64_t *hi)
{
    size_t a = 0, b = ix->n; /* last segment with lo <= t */
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (ix->s[mid].lo <= t)
            a = mid + 1;
        else
            b = mid;
    }
    if (a == 0 || t >= ix->s[a - 1].hi) return false;
    *s = a - 1;
    *lo = ix->s[a - 1].lo;
    *hi = ix->s[a - 1].hi;
    return true;
}

vx_err vx_index_check(const vx_index *ix, vx_trace_reader *r, size_t s)
{
    const seg *g = &ix->s[s];
    for (size_t i = 0; i < g->nck; i++) {
        vx_err e = vx_trace_reader_chunk_check(r, ix->ck[g->ck + i]);
        if (e) return e;
    }
    return VX_OK;
}

const vx_trace_digest *vx_index_digest(const vx_index *ix, size_t s)
{
    const seg *g = &ix->s[s];
    return atomic_load_explicit(&((seg *)g)->have, memory_order_acquire) ? &g->dg : NULL;
}
