/*
 * t-sim-log.c - the simulator's compact log (vx_sim_set_log).
 *
 * A kernel runs twice, identically (same slices, same idle cycles between them from
 * vx_sim_dm_tick, 0 to 70 at a time): once with the observer only, once with the
 * log and the observer.  The second run's stream (the log's records, with the
 * observer's events marked in between) is rebuilt into events and must be the first
 * run's, event by event: same index order, cycle, core, warp, pc, instruction, mask
 * and commit (affine and uniform commits come as two numbers from 8 lanes up, stores
 * as store records, their addresses as two numbers from 8 lanes up).  Shapes: 4, 8 and 32 lanes (logged), 64 lanes (never logged); a log that
 * refuses to grow (every issue goes to the observer) and one refilled in small
 * pieces.
 */
#include <stdlib.h>
#include <string.h>

#include "rvenc.h"
#include "simtest.h"
#include "tap.h"
#include "trace-gen.h"
#include "vx_sim.h"

#define MAXEV   200000
#define MARKER  0x01u /* a stream item standing for an observer event (its digest follows) */
#define LOGSIZE (8u << 20)

typedef struct run {
    uint32_t T;
    uint64_t digests[MAXEV]; /* observer-only run: every event; logged run: observer events */
    uint32_t n;
    vx_log log;
    uint8_t *buf, *seg; /* the stream; the segment the log writes into (refill copies out) */
    size_t len, seglen;
    unsigned mode; /* 0: one big log; 1: refilled in 256-byte pieces; 2: refill refuses */
    uint32_t refills, refused;
} run;

static void obs_only(void *ctx, const vx_event *ev)
{
    run *r = ctx;
    if (ev->kind == VX_EV_ISSUE && r->n < MAXEV) r->digests[r->n++] = tg_digest(ev, r->T);
}

/* Move what the log wrote in the segment to the stream. */
static void drain(run *r)
{
    size_t n = (size_t)(r->log.pos - r->seg);
    memcpy(r->buf + r->len, r->seg, n);
    r->len += n;
    r->log.pos = r->seg;
}

static bool refill(vx_log *lg, size_t need)
{
    run *r = lg->ctx;
    if (r->mode == 2) {
        r->refused++;
        return false;
    }
    drain(r);
    if (need > r->seglen || r->len + r->seglen > LOGSIZE) return false;
    r->refills++;
    return true;
}

static void obs_logged(void *ctx, const vx_event *ev)
{
    run *r = ctx;
    if (ev->kind != VX_EV_ISSUE || r->n >= MAXEV) return;
    drain(r);
    r->buf[r->len] = MARKER; /* the observer's event, in order with the log's records */
    memcpy(r->buf + r->len + 8, &ev->cycle, 8);
    r->len += 16;
    r->digests[r->n++] = tg_digest(ev, r->T);
    r->log.cycle = ev->cycle;
}

/* The kernel: every warp (wspawn) runs a loop with uniform, lane-dependent, float,
 * CSR and memory-writing instructions, after a float op whose new flag commits fcsr
 * as well (mutation review: a logged record of such an op lost the fcsr commit). */
static vx_sim *make(uint32_t cores, uint32_t warps, uint32_t T)
{
    vx_sim *s = st_new(1, cores, warps, T);
    const uint32_t body = ST_CODE + 4 * 5;
    ST_CODE_ARR(s, ADDI(5, 0, (int32_t)warps), LUI(6, (int32_t)(body >> 12)),
                ADDI(6, 6, (int32_t)(body & 0xFFF)), VX_WSPAWN(5, 6), ADDI(0, 0, 0),
                /* body: odd warps turn every lane on (whole-warp commits), even
                 * warps keep lane 0 alone */
                CSRRS(16, 0xCC1, 0),    /* a6 = warp id */
                ANDI(16, 16, 1),        /* a6 &= 1 */
                SUB(17, 0, 16),         /* a7 = -a6: -1 or 0 */
                ORI(17, 17, 1),         /* a7 |= 1: -1 or 1 */
                VX_TMC(17),             /* thread mask = a7 */
                CSRRS(10, 0xCC0, 0),    /* a0 = thread id */
                ADDI(11, 0, 100),       /* a1 = 100 */
                SLLI(14, 10, 2),        /* a4 = tid * 4 */
                LUI(15, ST_DATA >> 12), /* a5 = data */
                ADD(14, 14, 15),        /* a4 += data */
                FDIV_S(2, 2, 2, 0),     /* f2 = 0 / 0: raises NV, so fcsr is committed too */
                ADDI(12, 12, 3),        /* loop: a2 += 3 (uniform) */
                ADD(13, 12, 10),        /* a3 = a2 + tid (affine) */
                FCVT_S_W(1, 13, 0),     /* f1 = (float)a3 */
                SW(13, 0, 14),          /* stores: store records */
                SH(13, 512, 14), SB(13, 1024, 14), ADDI(11, 11, -1), BNE(11, 0, -28));
    return s;
}

static void run_kernel(run *r, uint32_t cores, uint32_t warps, uint32_t T, bool logged)
{
    vx_sim *s = make(cores, warps, T);
    r->T = T;
    if (logged) {
        vx_sim_set_observer(s, obs_logged, r, 0);
        r->seglen = r->mode == 1 ? 256 : LOGSIZE / 2;
        r->seg = malloc(r->seglen);
        r->log = (vx_log){r->seg,      r->seg + (r->mode == 2 ? 0 : r->seglen), 0, refill, r,
                          r->mode != 1}; /* affine records, but not in 256-byte pieces */
        vx_sim_set_log(s, &r->log);
    } else {
        vx_sim_set_observer(s, obs_only, r, 0);
    }
    static const unsigned gaps[] = {0, 1, 0, 2, 5, 63, 0, 64, 1, 70, 30, 0};
    vx_stop st;
    for (unsigned k = 0; k < 5000; k++) {
        if (vx_sim_run(s, 7, &st)) tap_bail("vx_sim_run: %s", vx_sim_errmsg(s));
        if (st.reason != VX_STOP_NONE) break;
        for (unsigned g = 0; g < gaps[k % (sizeof gaps / sizeof gaps[0])]; g++)
            vx_sim_dm_tick(s);
    }
    if (st.reason != VX_STOP_EXIT) diag("stopped with reason %d", (int)st.reason);
    if (logged) {
        drain(r);
        vx_sim_set_log(s, NULL);
        free(r->seg);
    }
    vx_sim_free(s);
}

/* Rebuild the logged run's events and compare them with the observer-only run's. */
static void check(const char *name, uint32_t cores, uint32_t warps, uint32_t T, unsigned mode,
                  bool expect_logged)
{
    run *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    b->buf = calloc(1, LOGSIZE);
    b->mode = mode;
    run_kernel(a, cores, warps, T, false);
    run_kernel(b, cores, warps, T, true);
    uint32_t n = 0, nlog = 0, nobs = 0, nstore = 0, naff = 0, naffst = 0, bad = 0;
    /* a store record fits in the log's segment (else stores go to the observer) */
    const bool stores_fit = VX_LOGREC_SIZE(VX_LOG_MEM | 4, T) <= b->seglen;
    uint64_t prev = 0; /* the previous event's cycle */
    size_t off = 0;
    while (off < b->len && n < a->n) {
        const uint8_t *p = b->buf + off;
        uint64_t d;
        if (p[0] == MARKER) {
            d = b->digests[nobs++];
            memcpy(&prev, p + 8, 8);
            off += 16;
        } else {
            const vx_logrec *q = (const vx_logrec *)(const void *)p;
            vx_event ev;
            vx_commit cm;
            vx_memwrite mem[32];
            uint32_t vals[32];
            memset(&ev, 0, sizeof ev);
            if ((q->kind & 0xC0u) != VX_LOG_ISSUE && bad++ < 3) diag("%s: bad record kind", name);
            vx_logrec_event(q, T, n, prev + (q->kind & 63u), &ev, &cm, mem, vals);
            naff +=
                (q->commit & (VX_LOG_COMMIT | VX_LOG_AFFINE)) == (VX_LOG_COMMIT | VX_LOG_AFFINE);
            nstore += ev.nmem != 0;
            naffst += (q->commit & (VX_LOG_COMMIT | VX_LOG_MEM | VX_LOG_MEMAFF)) ==
                      (VX_LOG_MEM | VX_LOG_MEMAFF);
            off += VX_LOGREC_SIZE(q->commit, T);
            d = tg_digest(&ev, T);
            prev = ev.cycle;
            nlog++;
        }
        if (d != a->digests[n] && bad++ < 3) diag("%s: event %u differs", name, n);
        n++;
    }
    ok(!bad && n == a->n && off == b->len && a->n > 1000 &&
           (expect_logged ? nlog > a->n / 2 && (nstore > a->n / 20 || !stores_fit) &&
                                (T >= 8 && mode != 1 ? naff > a->n / 20 && naffst > a->n / 20
                                                     : !naff && !naffst)
                          : !nlog),
       "%s: the log and the observer give the observer's %u events (%u from the log, %u "
       "of them stores, %u with affine addresses, %u affine commits, %u refills, %u refused)",
       name, a->n, nlog, nstore, naffst, naff, b->refills, b->refused);
    free(a);
    free(b->buf);
    free(b);
}

int main(void)
{
    tap_plan(7);
    check("1x4x4", 1, 4, 4, 0, true);
    check("1x3x8", 1, 3, 8, 0, true);
    check("2x3x32", 2, 3, 32, 0, true);
    check("1x2x64 (never logged)", 1, 2, 64, 0, false);
    check("1x4x4, refilled in 256-byte pieces", 1, 4, 4, 1, true);
    check("2x3x32, refilled in 256-byte pieces", 2, 3, 32, 1, true);
    check("1x4x4, refill refuses", 1, 4, 4, 2, false);
    return tap_exit();
}
