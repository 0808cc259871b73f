/*
 * diverge: control flow that differs between the lanes of a warp, written with
 * explicit vx_split / vx_join (nested, and a split that does not diverge) and
 * a loop with a per-lane trip count (vote + split/join), and vx_pred.  GCC emits plain branches,
 * which must be uniform across the active lanes; the split/join and pred
 * intrinsics make them so.  Core 0 recomputes every result with plain C on a
 * single lane (where no branch can diverge) and compares.
 */
#include "common.h"

#ifndef N
#define N 77
#endif

static int32_t out[N];
static uint8_t path[N];
static volatile uint8_t hits[N];

/* The reference: the same computation without intrinsics. */
static int32_t ref(uint32_t i, uint8_t *p)
{
    int32_t v = (int32_t)i;
    if (i % 3 == 0) {
        v = v * 2;
        if (i % 2 == 0) {
            *p = 1;
            v += 7;
        } else {
            *p = 2;
            v -= 5;
        }
    } else {
        *p = 3;
        v = -v;
    }
    for (uint32_t k = 0; k < i % 5; k++)
        v += (int32_t)k * 3 + 1;
    if (i < 1000000) v ^= 0x55;
    return v;
}

static void diverge_cb(void *arg)
{
    (void)arg;
    uint32_t i = blockIdx.x;
    volatile int32_t v = (int32_t)i; /* in memory: the stores keep the branches */

    int outer = vx_split(i % 3 == 0);
    if (i % 3 == 0) {
        v = v * 2;
        int inner = vx_split(i % 2 == 0);
        if (i % 2 == 0) {
            path[i] = 1;
            v = v + 7;
        } else {
            path[i] = 2;
            v = v - 5;
        }
        vx_join(inner);
    } else {
        path[i] = 3;
        v = -v;
    }
    vx_join(outer);

    /* Loop with a per-lane trip count: every lane iterates while any lane has
       work (a vote, the same in every lane, so the loop branch is uniform) and
       a split/join masks the body.  Works for any number of lanes. */
    uint32_t trip = i % 5;
    for (uint32_t k = 0; vx_vote_any(k < trip); k++) {
        int tok = vx_split(k < trip);
        if (k < trip) v = v + (int32_t)k * 3 + 1;
        vx_join(tok);
    }

    /* vx_pred: only the lanes whose condition holds stay active (the vote
       makes sure at least one does), then the saved mask comes back.  The mask
       travels through a 32-bit register, so this needs NT <= 32. */
    if (vx_num_threads() <= 32) {
        int saved = (int)vx_active_threads();
        int hit = i % 4 == 1;
        if (vx_vote_any(hit)) {
            vx_pred(hit, saved);
            hits[i] = hits[i] + 1;
            vx_tmc(saved);
        }
    }

    /* A split that does not diverge: the join is a no-op. */
    int same = vx_split(i < 1000000);
    if (i < 1000000) v = v ^ 0x55;
    vx_join(same);

    out[i] = v;
}

int main(void)
{
    uint32_t n = N;
    if (vx_spawn_threads(1, &n, 0, diverge_cb, 0) != 0) return 100;
    global_barrier();
    uint32_t errors = 0;
    if (vx_core_id() == 0) {
        for (uint32_t i = 0; i < n; i++) {
            uint8_t p = 0;
            int32_t want = ref(i, &p);
            uint32_t want_hits = (i % 4 == 1) * (vx_num_threads() <= 32);
            if (out[i] != want || path[i] != p || hits[i] != want_hits) {
                if (errors < 8)
                    vx_printf("diverge: task %u: got %d path %u hits %u, expected %d path %u "
                              "hits %u\n",
                              (unsigned)i, (int)out[i], path[i], hits[i], (int)want, p,
                              (unsigned)want_hits);
                errors++;
            }
        }
    }
    return report("diverge", errors);
}
