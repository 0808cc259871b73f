/*
 * warpops: the warp-level intrinsics on every run of a spawn (full warps and
 * the partial last one): identity CSRs against mhartid, vote all / any / uni /
 * ballot, shuffle up / down / bfly / idx, and thread-local storage (.tdata
 * initial values and per-thread blocks).  Each lane computes the expected
 * results with arithmetic only (no lane-dependent branch) and adds its error
 * count to a global counter.  Also float -> double conversion of special
 * values in every lane (the runtime's branch-free __extendsfdf2, which
 * vx_printf("%f") relies on).
 *
 * Relies on vx_spawn_threads' tasks-mode layout: in a run, lane j handles task
 * (task of lane 0) + j.  Ballot and shuffle checks need NT <= 32.
 */
#include "common.h"

#ifndef N
#define N 43
#endif

static uint32_t errors_total;
static uint32_t ran[N];
static __thread volatile uint32_t tls_init = 1234; /* .tdata (volatile: really read) */
static __thread volatile uint32_t tls_mine;        /* .tbss */

/* float bit patterns and the double each must convert to (hand-computed). */
static const uint32_t conv_in[16] = {
    0x00000000u, 0x80000000u, 0x3fc00000u, 0xbf800000u, /* 0, -0, 1.5, -1 */
    0x00000001u, 0x007fffffu, 0x80400000u, 0x00800000u, /* subnormals, FLT_MIN */
    0x7f7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u, /* FLT_MAX, +inf, -inf, qNaN */
    0xffa00001u, 0x40490fdbu, 0x3dcccccdu, 0x4b800001u, /* sNaN, pi, 0.1, 2^24+2 */
};
static const uint64_t conv_out[16] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x3ff8000000000000ull, 0xbff0000000000000ull,
    0x36a0000000000000ull, 0x380fffffc0000000ull, 0xb800000000000000ull, 0x3810000000000000ull,
    0x47efffffe0000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
    0x7ff8000000000000ull, 0x400921fb60000000ull, 0x3fb99999a0000000ull, 0x4170000020000000ull,
};

static inline uint32_t pred_of(uint32_t task)
{
    return (task * 7) % 3 == 0;
}

static inline uint32_t val_of(uint32_t task)
{
    return task * 10 + 1;
}

static void warpops_cb(void *arg)
{
    (void)arg;
    uint32_t i = blockIdx.x;
    uint32_t lane = (uint32_t)vx_thread_id(), nt = (uint32_t)vx_num_threads();
    uint32_t base = i - lane;
    uint32_t mask = (uint32_t)vx_active_threads();
    uint32_t bad = 0;

    __atomic_fetch_add(&ran[i], 1, __ATOMIC_RELAXED);

    /* identity */
    uint32_t hart =
        ((uint32_t)vx_core_id() * (uint32_t)vx_num_warps() + (uint32_t)vx_warp_id()) * nt + lane;
    bad += hart != (uint32_t)vx_hart_id();
    bad += ((mask >> lane) & 1) != 1;

    /* TLS: the initial value, and a per-thread slot no other lane overwrites */
    bad += tls_init != 1234;
    tls_mine = i;

    /* votes */
    uint32_t p = pred_of(i);
    uint32_t all = 1, any = 0, ballot = 0;
    for (uint32_t j = 0; j < nt && j < 32; j++) {
        uint32_t on = (mask >> j) & 1, pj = pred_of(base + j);
        all &= (1 - on) | pj;
        any |= on & pj;
        ballot |= (on & pj) << j;
    }
    uint32_t uni = all | (1 - any);
    bad += vx_vote_all((int)p) != all;
    bad += vx_vote_any((int)p) != any;
    bad += vx_vote_uni((int)p) != uni;
    bad += vx_vote_ballot((int)p) != ballot;

    /* shuffles: an inactive source lane reads 0 */
    uint32_t v = val_of(i);
    uint32_t c = nt - 1;
    uint32_t up_src = lane - (lane > 0);      /* lane 0 keeps its own */
    uint32_t dn_src = lane + (lane < nt - 1); /* the last lane keeps its own */
    uint32_t bf_src = (lane ^ 1) * (nt > 1) + lane * (nt == 1);
    uint32_t want_up = val_of(base + up_src) * ((mask >> up_src) & 1);
    uint32_t want_dn = val_of(base + dn_src) * ((mask >> dn_src) & 1);
    uint32_t want_bf = val_of(base + bf_src) * ((mask >> bf_src) & 1);
    uint32_t want_ix = val_of(base); /* lane 0 is always active */
    bad += vx_shfl_up(v, 1, 0, 0) != want_up;
    bad += vx_shfl_down(v, 1, (int)c, 0) != want_dn;
    bad += vx_shfl_bfly(v, 1, (int)c, 0) != want_bf;
    bad += vx_shfl_idx(v, 0, (int)c, 0) != want_ix;

    /* float -> double in every lane, each on a different value */
    union {
        uint32_t u;
        float f;
    } fin = {conv_in[i % 16]};

    union {
        double d;
        uint64_t u;
    } dout;

    dout.d = (double)*(volatile float *)&fin.f;
    bad += dout.u != conv_out[i % 16];

    bad += tls_mine != i;
    __atomic_fetch_add(&errors_total, bad, __ATOMIC_RELAXED);
}

int main(void)
{
    uint32_t n = N;
    if (vx_num_threads() > 32) return report("warpops", 0); /* the masks above are 32-bit */
    if (vx_spawn_threads(1, &n, 0, warpops_cb, 0) != 0) return 100;
    global_barrier();
    uint32_t errors = 0;
    if (vx_core_id() == 0) {
        for (uint32_t i = 0; i < n; i++)
            errors += ran[i] != 1;
        errors += errors_total;
    }
    return report("warpops", errors);
}
