/*
 * timeline.c - checkpoints of the replay engine (see timeline.h).
 *
 * The thinning rule follows rr's ReplayTimeline: what makes a checkpoint worth
 * its memory is how much replay it saves, and operations land near the current
 * position far more often than far from it.  So checkpoints are grouped in
 * buckets of exponentially growing distance from the current position (bucket b
 * covers distances [2^b, 2^(b+1)) intervals) and each bucket keeps a bounded
 * number; the total is then O(log length).
 */
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

void vx_tl_init(vx_timeline *tl, uint64_t budget, uint64_t interval)
{
    memset(tl, 0, sizeof *tl);
    tl->budget = budget;
    tl->interval = interval ? interval : 1;
    tl->max_stop = 8;
    tl->max_short = 4;
    tl->per_bucket = 8;
}

void vx_tl_free(vx_timeline *tl)
{
    for (size_t i = 0; i < tl->n; i++)
        vx_sim_snap_free(tl->v[i].snap);
    free(tl->v);
    memset(tl, 0, sizeof *tl);
}

long vx_tl_find(const vx_timeline *tl, uint64_t pos)
{
    size_t lo = 0, hi = tl->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (tl->v[mid].pos <= pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (long)lo - 1;
}

vx_ckpt *vx_tl_at(vx_timeline *tl, uint64_t pos)
{
    long i = vx_tl_find(tl, pos);
    return i >= 0 && tl->v[i].pos == pos ? &tl->v[i] : NULL;
}

/* How much a kind is worth keeping (higher = more precious). */
static int rank(uint8_t kind)
{
    switch (kind) {
    case VX_CKPT_PERIODIC: return 1;
    case VX_CKPT_STOP: return 2;
    case VX_CKPT_SHORT: return 3;
    case VX_CKPT_BASE: return 4;
    case VX_CKPT_USER: return 5;
    }
    return 0;
}

static bool permanent(uint8_t kind)
{
    return kind == VX_CKPT_BASE || kind == VX_CKPT_USER;
}

vx_err vx_tl_add(vx_timeline *tl, vx_sim *sim, uint64_t pos, vx_ckpt_kind kind, unsigned user_id)
{
    vx_ckpt *have = vx_tl_at(tl, pos);
    if (have) {
        /* One snapshot per position: keep it, and remember the more precious role. */
        if (rank(kind) > rank(have->kind)) {
            if (permanent((uint8_t)kind) && !permanent(have->kind)) tl->perm_bytes += have->bytes;
            have->kind = (uint8_t)kind;
            have->user_id = user_id;
        }
        have->stamp = ++tl->stamp;
        return VX_OK;
    }
    if (tl->n == tl->cap) {
        size_t ncap = tl->cap ? tl->cap * 2 : 64;
        vx_ckpt *nv = realloc(tl->v, ncap * sizeof *nv);
        if (!nv) return VX_ERR_NOMEM;
        tl->v = nv;
        tl->cap = ncap;
    }
    vx_sim_snap *snap;
    vx_err err = vx_sim_snap_save(sim, &snap);
    if (err) return err;
    size_t at = (size_t)(vx_tl_find(tl, pos) + 1);
    memmove(&tl->v[at + 1], &tl->v[at], (tl->n - at) * sizeof *tl->v);
    tl->n++;
    vx_ckpt *c = &tl->v[at];
    memset(c, 0, sizeof *c);
    c->pos = pos;
    c->snap = snap;
    c->kind = (uint8_t)kind;
    c->user_id = user_id;
    c->bytes = vx_sim_snap_bytes(snap); /* (its pages are all the live machine's yet) */
    c->stamp = ++tl->stamp;
    tl->bytes += c->bytes;
    if (permanent(c->kind)) tl->perm_bytes += c->bytes;
    tl->adds++;
    return VX_OK;
}

static void remove_at(vx_timeline *tl, size_t i)
{
    vx_sim_snap_free(tl->v[i].snap);
    tl->bytes -= tl->v[i].bytes < tl->bytes ? tl->v[i].bytes : tl->bytes;
    if (permanent(tl->v[i].kind))
        tl->perm_bytes -= tl->v[i].bytes < tl->perm_bytes ? tl->v[i].bytes : tl->perm_bytes;
    memmove(&tl->v[i], &tl->v[i + 1], (tl->n - i - 1) * sizeof *tl->v);
    tl->n--;
}

void vx_tl_drop_user(vx_timeline *tl)
{
    for (size_t i = tl->n; i-- > 0;)
        if (tl->v[i].kind == VX_CKPT_USER) remove_at(tl, i);
}

void vx_tl_remeasure(vx_timeline *tl, const vx_sim *sim)
{
    uint64_t sum = 0, perm = 0;
    for (size_t i = 0; i < tl->n; i++) {
        tl->v[i].bytes = vx_sim_snap_bytes_beyond(sim, tl->v[i].snap, i ? tl->v[i - 1].snap : NULL);
        sum += tl->v[i].bytes;
        if (permanent(tl->v[i].kind)) perm += tl->v[i].bytes;
    }
    tl->bytes = sum;
    tl->perm_bytes = perm;
    tl->adds = 0;
    tl->cow_mark = vx_sim_cow_pages(sim);
}

void vx_tl_check_growth(vx_timeline *tl, const vx_sim *sim, uint64_t now)
{
    uint64_t grown = (vx_sim_cow_pages(sim) - tl->cow_mark) * VX_PAGE_SIZE;
    if (grown < tl->budget / 16 || tl->bytes + grown <= vx_tl_limit(tl)) return;
    tl->bytes += grown; /* at most: vx_tl_thin measures it */
    tl->cow_mark = vx_sim_cow_pages(sim);
    vx_tl_thin(tl, sim, now);
}

/* Keep at most `max` checkpoints of a kind: drop the oldest. */
static void cap_kind(vx_timeline *tl, uint8_t kind, unsigned max)
{
    for (;;) {
        unsigned count = 0;
        long oldest = -1;
        for (size_t i = 0; i < tl->n; i++) {
            if (tl->v[i].kind != kind) continue;
            count++;
            if (oldest < 0 || tl->v[i].stamp < tl->v[oldest].stamp) oldest = (long)i;
        }
        if (count <= max || oldest < 0) return;
        remove_at(tl, (size_t)oldest);
    }
}

static unsigned bucket_of(const vx_timeline *tl, uint64_t pos, uint64_t now)
{
    uint64_t d = (pos > now ? pos - now : now - pos) / tl->interval;
    unsigned b = 0;
    while (d) {
        b++;
        d >>= 1;
    }
    return b;
}

void vx_tl_thin(vx_timeline *tl, const vx_sim *sim, uint64_t now)
{
    cap_kind(tl, VX_CKPT_STOP, tl->max_stop);
    cap_kind(tl, VX_CKPT_SHORT, tl->max_short);
    if (!vx_tl_due(tl)) return;
    vx_tl_remeasure(tl, sim);
    if (tl->bytes <= vx_tl_limit(tl)) return;
    /* 3/4 of the budget, or of the evictable checkpoints' quarter beyond the others */
    const uint64_t target =
        vx_tl_limit(tl) == tl->budget ? tl->budget / 4 * 3 : tl->perm_bytes + tl->budget / 16 * 3;
    /* Log-scale thinning of periodic checkpoints, tighter and tighter. */
    for (unsigned per = tl->per_bucket; per >= 1 && tl->bytes > target; per /= 2) {
        for (unsigned b = 0; b < 64 && tl->bytes > target; b++) {
            /* Collect the bucket's periodic checkpoints, in position order. */
            unsigned count = 0;
            for (size_t i = 0; i < tl->n; i++)
                if (tl->v[i].kind == VX_CKPT_PERIODIC && bucket_of(tl, tl->v[i].pos, now) == b)
                    count++;
            if (count <= per) continue;
            /* Drop every other one until it fits (keeps them evenly spread). */
            unsigned seen = 0;
            for (size_t i = 0; i < tl->n && count > per;) {
                if (tl->v[i].kind == VX_CKPT_PERIODIC && bucket_of(tl, tl->v[i].pos, now) == b) {
                    if (seen++ % 2 == 1) {
                        remove_at(tl, i);
                        count--;
                        continue;
                    }
                }
                i++;
            }
        }
        if (per == 1) break;
    }
    /* Still too big: the farthest evictable checkpoints go.  A removal can leave
     * pages it shared with its neighbour behind (the running sum then undercounts):
     * measure again, a few rounds at most. */
    for (unsigned round = 0; round < 8; round++) {
        while (tl->bytes > target) {
            long far = -1;
            uint64_t fd = 0;
            for (size_t i = 0; i < tl->n; i++) {
                if (permanent(tl->v[i].kind)) continue;
                uint64_t d = tl->v[i].pos > now ? tl->v[i].pos - now : now - tl->v[i].pos;
                if (far < 0 || d > fd) {
                    far = (long)i;
                    fd = d;
                }
            }
            if (far < 0) break;
            remove_at(tl, (size_t)far);
        }
        vx_tl_remeasure(tl, sim);
        if (tl->bytes <= vx_tl_limit(tl)) break;
    }
}
