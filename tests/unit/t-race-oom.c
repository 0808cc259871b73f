/*
 * t-race-oom.c - the data race checker (tools/common/race.c) when the host runs out
 * of memory: each of its allocations in turn fails, in vxr_new and in a short run
 * (word and byte accesses by two warps, read sets, an AMO, a barrier); the checker
 * must say VX_ERR_NOMEM (and keep saying it) and free what it holds, never crash.
 * This test compiles its own copy of race.c with counting allocators; the linker then
 * has no reason to pull race.o out of libvxcli.a.
 */
#include <stdlib.h>

static long fail_at = -1; /* the allocation (0, 1, ...) that fails; -1: none */
static long allocs;       /* allocations so far */

static int fails(void)
{
    return allocs++ == fail_at;
}

static void *t_malloc(size_t n)
{
    return fails() ? NULL : malloc(n);
}

static void *t_calloc(size_t n, size_t size)
{
    return fails() ? NULL : calloc(n, size);
}

static void *t_realloc(void *p, size_t n)
{
    return fails() ? NULL : realloc(p, n);
}

#define malloc  t_malloc
#define calloc  t_calloc
#define realloc t_realloc
#include "../../tools/common/race.c"
#undef malloc
#undef calloc
#undef realloc

#include "tap.h"

#define W_PER_CORE 4u
#define AMOSWAP_AQ 0x0C00202Fu /* amoswap.w.aq */

/* The run's events, one by one, until the first error: VX_OK or that error. */
static vx_err run(vxr *r)
{
    const vx_memwrite w4[2] = {{.addr = 0x80010000u, .size = 4, .lane = 0, .value = 1},
                               {.addr = 0x80010004u, .size = 4, .lane = 1, .value = 2}};
    const vx_memwrite w1 = {.addr = 0x80010001u, .size = 1, .lane = 0, .value = 3};
    const vx_memread r4[2] = {{.addr = 0x80010000u, .size = 4, .lane = 0},
                              {.addr = 0x80010004u, .size = 4, .lane = 1}};
    const vx_memread r2 = {.addr = 0x80010002u, .size = 2, .lane = 0};
    const vx_memread lock = {.addr = 0x80020000u, .size = 4, .lane = 0};
    const vx_memwrite lockw = {.addr = 0x80020000u, .size = 4, .lane = 0, .value = 1};
    vx_wctl bar[3];
    for (uint32_t g = 0; g < 2; g++)
        bar[1 + g] = (vx_wctl){.kind = VX_WCTL_BAR_RELEASE, .warp = g, .arg = 0};

    static const struct {
        uint32_t g, insn, what;
    } seq[] = {
        {0, 0x13, 0}, /* warp 0 writes two words */
        {1, 0x13, 1}, /* warp 1 reads them (races), warp 2 and 3 too: read sets */
        {2, 0x13, 1},       {3, 0x13, 1}, {1, 0x13, 2}, /* a halfword read: the word splits */
        {2, 0x13, 3},                                   /* a byte written: read-then-write races */
        {0, AMOSWAP_AQ, 4},                             /* an atomic word */
        {1, AMOSWAP_AQ, 4}, {0, 0x13, 5},               /* warp 0 arrives at barrier 0 */
        {1, 0x13, 6},                                   /* warp 1 arrives: both released */
        {0, 0x13, 0},
    };

    for (uint32_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        vx_event ev;
        vx_event_clear(&ev, i);
        ev.kind = VX_EV_ISSUE;
        ev.warp = seq[i].g;
        ev.pc = 0x80000000u + 4 * i;
        ev.insn = seq[i].insn;
        ev.tmask = 3;
        switch (seq[i].what) {
        case 0: ev.mem = w4, ev.nmem = 2; break;
        case 1: ev.reads = r4, ev.nreads = 2; break;
        case 2: ev.reads = &r2, ev.nreads = 1; break;
        case 3: ev.mem = &w1, ev.nmem = 1; break;
        case 4: ev.reads = &lock, ev.nreads = 1, ev.mem = &lockw, ev.nmem = 1; break;
        case 5:
        case 6:
            ev.insn = vx_isa_row_get(VX_OP_VX_BAR)->match;
            bar[0] = (vx_wctl){.kind = VX_WCTL_BAR_ARRIVE, .warp = seq[i].g, .arg = 0};
            ev.wctl = bar;
            ev.nwctl = seq[i].what == 5 ? 1 : 3;
            break;
        }
        vx_err e = vxr_event(r, &ev);
        if (e) return e;
    }
    return VX_OK;
}

int main(void)
{
    /* the allocations of a run without failures */
    vxr *r;
    allocs = 0;
    if (vxr_new(&r, 1, W_PER_CORE) != VX_OK || run(r) != VX_OK) tap_bail("a run without failures");
    size_t nr;
    (void)vxr_races(r, &nr);
    ok(nr > 0, "the run finds races (%zu) without failures", nr);
    vxr_free(r);
    const long total = allocs;
    ok(total > 10, "the run allocates %ld times", total);

    /* then with each of them failing */
    long new_fails = 0, run_fails = 0, bad = 0;
    for (fail_at = 0; fail_at < total; fail_at++) {
        allocs = 0;
        r = NULL;
        vx_err e = vxr_new(&r, 1, W_PER_CORE);
        if (e) {
            if (e != VX_ERR_NOMEM || r) bad++;
            new_fails++;
            continue;
        }
        e = run(r);
        if (e == VX_ERR_NOMEM) {
            run_fails++;
            vx_event end;
            vx_event_clear(&end, 99);
            end.kind = VX_EV_END;
            if (vxr_event(r, &end) != VX_ERR_NOMEM) bad++; /* the error stays */
        } else if (e != VX_OK) {
            bad++;
        }
        vxr_free(r);
    }
    ok(new_fails > 0, "vxr_new fails cleanly with each of its %ld allocations failing", new_fails);
    ok(run_fails > 0, "the run stops with VX_ERR_NOMEM at %ld allocations", run_fails);
    is_int(bad, 0, "no other error, and the error stays once it happened");
    tap_done();
    return tap_exit();
}
