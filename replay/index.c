/*
 * index.c - the chunk digests of a trace, for fast backward searches (index.h).
 *
 * Digests stored in the trace are read by vx_index_start.  Missing ones are
 * computed by a thread that owns its reader; it publishes each digest by a release
 * store of the segment's ready flag, which the server thread reads with acquire
 * order before it uses the digest: all the synchronisation needed.
 */
#include "index.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct seg {
    uint64_t lo, hi;   /* issues lo .. hi - 1 */
    size_t chunk;      /* its EVENTS chunk */
    _Atomic bool have; /* dg is valid */
    vx_trace_digest dg;
} seg;

struct vx_index {
    vx_trace_reader *r; /* the thread's: the file rd has open */
    seg *s;
    size_t n;
    _Atomic size_t ready;
    _Atomic bool stop;
    pthread_t th;
    bool started;
};

static void *compute(void *arg)
{
    vx_index *ix = arg;
    vx_trace_reader *r = ix->r;
    {
        /* newest first: a reverse search starts at the end of history */
        for (size_t i = ix->n; i-- > 0;) {
            if (atomic_load_explicit(&ix->stop, memory_order_relaxed)) break;
            seg *g = &ix->s[i];
            if (atomic_load_explicit(&g->have, memory_order_relaxed)) continue;
            /* after damage the segment stays without a digest: searched the slow way,
             * which reports the damage */
            if (vx_trace_reader_digest(r, g->chunk, VX_TRACE_DIGEST_COMPUTE, &g->dg) != VX_OK)
                continue;
            atomic_store_explicit(&g->have, true, memory_order_release);
            atomic_fetch_add_explicit(&ix->ready, 1, memory_order_relaxed);
        }
    }
    return NULL;
}

vx_index *vx_index_start(vx_trace_reader *rd, uint64_t nissues, char *why, size_t cap)
{
    if (cap) why[0] = 0;
    vx_index *ix = calloc(1, sizeof *ix);
    if (!ix) return NULL;
    size_t nc = vx_trace_reader_num_chunks(rd);
    ix->s = calloc(nc ? nc : 1, sizeof *ix->s);
    if (!ix->s) {
        vx_index_free(ix);
        return NULL;
    }
    atomic_init(&ix->ready, 0);
    atomic_init(&ix->stop, false);
    /* Segment boundaries from the chunk keys (a chunk's issues end where the next
     * chunk's begin); chunks without issues (Debug Module records only) have none. */
    size_t ready = 0;
    for (size_t i = 0; i < nc; i++) {
        vx_trace_digest d;
        vx_err e = vx_trace_reader_digest(rd, i, VX_TRACE_DIGEST_STORED, &d);
        if (e != VX_OK && e != VX_ERR_END && cap && !why[0]) /* damage: that chunk without */
            snprintf(why, cap, "%s", vx_trace_reader_errmsg(rd));
        uint64_t lo = vx_trace_reader_chunk_key(rd, i);
        if (ix->n && lo < ix->s[ix->n - 1].lo) break;
        if (ix->n) ix->s[ix->n - 1].hi = lo;
        seg *g = &ix->s[ix->n++];
        g->lo = lo;
        g->hi = nissues;
        g->chunk = i;
        atomic_init(&g->have, e == VX_OK);
        if (e == VX_OK) {
            g->dg = d;
            ready++;
        }
    }
    /* drop empty segments (their digests say nothing about any issue) */
    size_t k = 0;
    for (size_t i = 0; i < ix->n; i++) {
        if (ix->s[i].hi > nissues) ix->s[i].hi = nissues;
        if (ix->s[i].lo >= ix->s[i].hi) {
            if (atomic_load(&ix->s[i].have)) ready--;
            continue;
        }
        if (k != i) {
            ix->s[k].lo = ix->s[i].lo;
            ix->s[k].hi = ix->s[i].hi;
            ix->s[k].chunk = ix->s[i].chunk;
            atomic_store(&ix->s[k].have, atomic_load(&ix->s[i].have));
            ix->s[k].dg = ix->s[i].dg;
        }
        k++;
    }
    ix->n = k;
    atomic_store(&ix->ready, ready);
    /* the thread computes the missing digests with a reader of its own, on the file rd
     * has open (a trace replaced at its path since is not read in its place) */
    if (ready < ix->n && vx_trace_reader_new(&ix->r) == VX_OK &&
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

size_t vx_index_chunk(const vx_index *ix, size_t s)
{
    return ix->s[s].chunk;
}

const vx_trace_digest *vx_index_digest(const vx_index *ix, size_t s)
{
    const seg *g = &ix->s[s];
    return atomic_load_explicit(&((seg *)g)->have, memory_order_acquire) ? &g->dg : NULL;
}
