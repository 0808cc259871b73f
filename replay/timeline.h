/*
 * timeline.h - the replay engine's checkpoints: simulator snapshots at positions
 * of the trace, kept under a memory budget (research notes §1.4, rr's
 * ReplayTimeline).
 *
 * Kinds, from cheapest to keep to most precious:
 *   PERIODIC  taken every `interval` issues while replaying; thinned so that
 *             their density falls off with the distance from the current
 *             position (about `per_bucket` per doubling of the distance);
 *   STOP      the state at a recent stop (a ring of a few), so that undoing a
 *             forward step is a restore and nothing else;
 *   SHORT     a little before the current position, so that a run of
 *             reverse-steps replays a few hundred issues each;
 *   BASE      position 0, never evicted;
 *   USER      `monitor checkpoint`, never evicted.
 */
#ifndef VX_TIMELINE_H
#define VX_TIMELINE_H

#include "vx_sim.h"

typedef enum vx_ckpt_kind {
    VX_CKPT_PERIODIC = 1,
    VX_CKPT_STOP,
    VX_CKPT_SHORT,
    VX_CKPT_BASE,
    VX_CKPT_USER,
} vx_ckpt_kind;

typedef struct vx_ckpt {
    uint64_t pos;
    vx_sim_snap *snap;
    uint8_t kind;     /* vx_ckpt_kind */
    unsigned user_id; /* VX_CKPT_USER */
    uint64_t bytes;   /* its share when last measured (vx_tl_remeasure) */
    uint64_t stamp;   /* insertion order (to age STOP / SHORT ones) */
} vx_ckpt;

typedef struct vx_timeline {
    vx_ckpt *v; /* sorted by pos; a position holds at most one checkpoint */
    size_t n, cap;
    uint64_t budget;
    uint64_t bytes; /* sum of bytes: the checkpoints' memory beyond the live machine */
    unsigned adds;  /* checkpoints added since the last measurement */
    uint64_t stamp;
    unsigned max_stop, max_short;
    unsigned per_bucket;
    uint64_t interval;   /* PERIODIC spacing (for the thinning buckets) */
    uint64_t cow_mark;   /* vx_sim_cow_pages at the last measurement */
    uint64_t perm_bytes; /* the BASE and USER checkpoints' part of bytes (ditto) */
} vx_timeline;

void vx_tl_init(vx_timeline *tl, uint64_t budget, uint64_t interval);
void vx_tl_free(vx_timeline *tl);

/* Index of the checkpoint with the largest pos <= pos, or -1. */
long vx_tl_find(const vx_timeline *tl, uint64_t pos);

/* The checkpoint exactly at pos, or NULL. */
vx_ckpt *vx_tl_at(vx_timeline *tl, uint64_t pos);

/*
 * Save a snapshot of sim (at position pos) as a checkpoint of the given kind.  If
 * one exists at pos its kind is upgraded when the new kind is more precious.
 */
vx_err vx_tl_add(vx_timeline *tl, vx_sim *sim, uint64_t pos, vx_ckpt_kind kind, unsigned user_id);

/*
 * Keep the checkpoints within the budget: too many STOP/SHORT ones go first
 * (oldest); then, when the memory measured against the live machine sim exceeds
 * the budget, PERIODIC ones far from `now` where they are denser than the
 * log-scale policy allows, then the farthest, down to 3/4 of the budget (so that
 * the next checkpoints do not start it again at once).  BASE and USER stay; when
 * they take more than 3/4 of the budget, the limit is vx_tl_limit and the others
 * are thinned down to 3/4 of their quarter.
 * The memory is measured again (vx_tl_due) every VX_TL_MEASURE_EVERY additions, or
 * every n/8 with n checkpoints (a measurement visits them all: so its cost per
 * addition stays constant), and whenever the running sum says the budget is
 * exceeded: pages the live machine writes after a checkpoint become the
 * checkpoints' (copy-on-write), which no running sum sees; vx_tl_check_growth
 * catches them between additions.
 */
#define VX_TL_MEASURE_EVERY 16u
void vx_tl_thin(vx_timeline *tl, const vx_sim *sim, uint64_t now);

/*
 * What the checkpoints may take: the budget, or when the checkpoints that are never
 * evicted (BASE, USER) take more than 3/4 of it, what they take and a quarter of the
 * budget beyond, so that the evictable ones still have room (without it every
 * addition measured them all again, and evicted every evictable one).
 */
static inline uint64_t vx_tl_limit(const vx_timeline *tl)
{
    const uint64_t floor = tl->perm_bytes + tl->budget / 4;
    return floor > tl->budget ? floor : tl->budget;
}

/* Remove every USER checkpoint. */
void vx_tl_drop_user(vx_timeline *tl);

/* Is a measurement (vx_tl_thin) due? */
static inline bool vx_tl_due(const vx_timeline *tl)
{
    return tl->bytes > vx_tl_limit(tl) || tl->adds >= VX_TL_MEASURE_EVERY + tl->n / 8;
}

/* Measure every checkpoint's share of memory against the live machine (position
 * order: a page shared with the previous checkpoint counts once). */
void vx_tl_remeasure(vx_timeline *tl, const vx_sim *sim);

/*
 * Between checkpoints: the pages the live machine copied since the last measurement
 * went to the checkpoints.  When they could have taken the checkpoints past the
 * limit (vx_tl_limit) (and are at least a sixteenth of it, so that a budget the permanent
 * checkpoints exceed alone is not measured again at every call), measure and thin.
 */
void vx_tl_check_growth(vx_timeline *tl, const vx_sim *sim, uint64_t now);

#endif /* VX_TIMELINE_H */
