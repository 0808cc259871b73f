/*
 * t-race.c - the data race checker (tools/common/race.c, vxsim --races) on hand-built
 * event sequences, each with the races worked out by hand: which accesses race, which
 * a barrier, a wspawn, a warp's end or an atomic orders.
 */
#include <string.h>

#include "race.h"
#include "tap.h"
#include "vx_isa.h"
#include "vx_sim.h"

#define W_PER_CORE 4u
#define GLOBAL_X   0x80010000u
#define GLOBAL_Y   0x80010100u
#define LOCK       0x80010200u
#define LOCAL_X    0xFFFF0010u

/* instruction words: any plain access; AMOs with their aq/rl bits; wspawn */
#define INSN_PLAIN 0x00000013u /* (a nop: the checker only decodes atomics and wspawn) */
#define AMOSWAP_AQ 0x0C00202Fu /* amoswap.w.aq */
#define AMOADD     0x0000202Fu /* amoadd.w (relaxed) */
#define AMOSWAP    0x0800202Fu /* amoswap.w (relaxed) */
#define FENCE_REL  0x0F50000Fu /* fence iorw,ow (GCC 12's release store: then amoswap) */
#define FENCE_ACQ  0x0230000Fu /* fence r,rw (an acquire load: lw or an AMO, then this) */
#define FENCE_RW_W 0x0310000Fu /* fence rw,w (LLVM's release store: this, then sw) */
#define AMOSWAP_RL 0x0A00202Fu /* amoswap.w.rl */
#define FENCE_W_W  0x0110000Fu /* fence w,w */
#define FENCE_R_R  0x0220000Fu /* fence r,r */
#define FENCE_W_RW 0x0130000Fu /* fence w,rw */
#define FENCE_RW_O 0x0340000Fu /* fence rw,o (device output only) */

typedef struct run {
    vxr *r;
    uint64_t index;
} run;

static uint32_t insn_of(vx_op op)
{
    return vx_isa_row_get(op)->match;
}

static void start(run *u, uint32_t cores)
{
    u->index = 0;
    if (vxr_new(&u->r, cores, W_PER_CORE) != VX_OK) tap_bail("vxr_new failed");
}

/* One issue of global warp g at pc with the given reads, writes and effects. */
static void issue(run *u, uint32_t g, uint32_t pc, uint32_t insn, const vx_memread *rd,
                  uint32_t nrd, const vx_memwrite *wr, uint32_t nwr, const vx_wctl *wc,
                  uint32_t nwc)
{
    vx_event ev;
    vx_event_clear(&ev, u->index++);
    ev.kind = VX_EV_ISSUE;
    ev.core = g / W_PER_CORE;
    ev.warp = g % W_PER_CORE;
    ev.pc = pc;
    ev.insn = insn;
    ev.tmask = 1;
    ev.reads = rd;
    ev.nreads = nrd;
    ev.mem = wr;
    ev.nmem = nwr;
    ev.wctl = wc;
    ev.nwctl = nwc;
    if (vxr_event(u->r, &ev) != VX_OK) tap_bail("vxr_event failed");
}

static void store(run *u, uint32_t g, uint32_t pc, uint32_t addr, uint32_t value)
{
    const vx_memwrite w = {.addr = addr, .size = 4, .lane = 0, .value = value};
    issue(u, g, pc, INSN_PLAIN, NULL, 0, &w, 1, NULL, 0);
}

static void load(run *u, uint32_t g, uint32_t pc, uint32_t addr, uint8_t lane)
{
    const vx_memread m = {.addr = addr, .size = 4, .lane = lane};
    issue(u, g, pc, INSN_PLAIN, &m, 1, NULL, 0, NULL, 0);
}

/* An AMO of lane 0 of warp g on addr: its read and its write. */
static void amo(run *u, uint32_t g, uint32_t pc, uint32_t insn, uint32_t addr, uint32_t value)
{
    const vx_memread m = {.addr = addr, .size = 4, .lane = 0};
    const vx_memwrite w = {.addr = addr, .size = 4, .lane = 0, .value = value};
    issue(u, g, pc, insn, &m, 1, &w, 1, NULL, 0);
}

static vx_wctl wc(uint8_t kind, uint32_t g, uint32_t arg)
{
    return (vx_wctl){.kind = kind, .core = g / W_PER_CORE, .warp = g % W_PER_CORE, .arg = arg};
}

/* Warps in gs (n of them) meet at local barrier id of their core: each arrives (the
 * last one's issue releases them all). */
static void barrier(run *u, const uint32_t *gs, uint32_t n, uint32_t id)
{
    for (uint32_t i = 0; i < n; i++) {
        vx_wctl w[1 + 8];
        uint32_t k = 0;
        w[k++] = wc(VX_WCTL_BAR_ARRIVE, gs[i], id);
        if (i == n - 1)
            for (uint32_t j = 0; j < n; j++)
                w[k++] = wc(VX_WCTL_BAR_RELEASE, gs[j], id);
        issue(u, gs[i], 0x80000900u, insn_of(VX_OP_VX_BAR), NULL, 0, NULL, 0, w, k);
    }
}

static size_t nraces(run *u)
{
    size_t n;
    (void)vxr_races(u->r, &n);
    return n;
}

static const vxr_race *race0(run *u)
{
    size_t n;
    const vxr_race *x = vxr_races(u->r, &n);
    return n ? x : NULL;
}

static void finish(run *u)
{
    vxr_free(u->r);
    u->r = NULL;
}

static void test_unordered(void)
{
    run u;
    start(&u, 1);
    store(&u, 0, 0x80000100, GLOBAL_X, 7); /* event 0 */
    load(&u, 1, 0x80000200, GLOBAL_X, 3);  /* event 1: warp 1 reads what warp 0 wrote */
    const vxr_race *x = race0(&u);
    ok(x != NULL, "a write, then a read by another warp with nothing between: a race");
    if (x) {
        is_int(x->kind, VXR_WR, "  write then read");
        is_u32(x->addr, GLOBAL_X, "  at the word's first byte");
        is_u32(x->len, 4, "  all 4 bytes");
        is_u64(x->count, 4, "  4 conflicting byte pairs");
        is_u32(x->space, 0, "  global memory");
        ok(x->prev.index == 0 && x->prev.gwarp == 0 && x->prev.pc == 0x80000100 &&
               x->prev.write == 1 && x->prev.lane == 0,
           "  the earlier access: event 0, warp 0, its pc, a write");
        ok(x->cur.index == 1 && x->cur.gwarp == 1 && x->cur.pc == 0x80000200 && x->cur.write == 0 &&
               x->cur.lane == 3,
           "  the later one: event 1, warp 1 lane 3, its pc, a read");
    }
    /* the same warp, another lane, later: ordered (lockstep) */
    store(&u, 2, 0x80000300, GLOBAL_Y, 1);
    load(&u, 2, 0x80000310, GLOBAL_Y, 1);
    is_int((long long)nraces(&u), 1, "a warp's own write, read by another of its lanes: no race");
    is_u64(vxr_total(u.r), 4, "conflicting byte pairs in all: 4");
    finish(&u);
}

static void test_barrier(void)
{
    run u;
    start(&u, 1);
    const uint32_t both[] = {0, 1};
    store(&u, 0, 0x80000100, GLOBAL_X, 7);
    barrier(&u, both, 2, 0);
    load(&u, 1, 0x80000200, GLOBAL_X, 0);
    is_int((long long)nraces(&u), 0, "a barrier of both warps between the write and the read");
    /* warp 2 was not at the barrier */
    load(&u, 2, 0x80000204, GLOBAL_X, 0);
    const vxr_race *x = race0(&u);
    ok(x && x->kind == VXR_WR && x->cur.gwarp == 2 && x->prev.gwarp == 0,
       "warp 2, which was not at the barrier, reading it: a race with warp 0's write");
    finish(&u);

    /* the barrier's next instance starts afresh: what warp 0 does after the first
     * release is not ordered before warp 1 by it */
    start(&u, 1);
    barrier(&u, both, 2, 1);
    store(&u, 0, 0x80000104, GLOBAL_Y, 1);
    load(&u, 1, 0x80000208, GLOBAL_Y, 0);
    x = race0(&u);
    ok(x && x->kind == VXR_WR, "a write after a barrier, read by another warp after the same "
                               "barrier, with no second barrier: a race");
    finish(&u);

    /* a write then a write; the second instance of the barrier orders them */
    start(&u, 1);
    barrier(&u, both, 2, 1);
    store(&u, 0, 0x80000104, GLOBAL_Y, 1);
    barrier(&u, both, 2, 1);
    store(&u, 1, 0x8000020c, GLOBAL_Y, 2);
    is_int((long long)nraces(&u), 0, "writes of two warps with a barrier between");
    store(&u, 2, 0x80000210, GLOBAL_Y, 3);
    x = race0(&u);
    ok(x && x->kind == VXR_WW && x->prev.gwarp == 1 && x->cur.gwarp == 2,
       "then warp 2's write: a write-write race with warp 1's (the last write)");
    finish(&u);
}

static void test_read_sets(void)
{
    run u;
    start(&u, 1);
    /* warps 0 and 1 read X (no race between reads); warp 2 meets warp 0 at a barrier,
     * then writes X: ordered after warp 0's read, not warp 1's */
    load(&u, 0, 0x80000100, GLOBAL_X, 0);
    load(&u, 1, 0x80000200, GLOBAL_X, 2);
    is_int((long long)nraces(&u), 0, "two warps reading the same word: no race");
    const uint32_t w02[] = {0, 2};
    barrier(&u, w02, 2, 0);
    store(&u, 2, 0x80000300, GLOBAL_X, 5);
    const vxr_race *x = race0(&u);
    ok(x && x->kind == VXR_RW && x->prev.gwarp == 1 && x->prev.lane == 2 && x->cur.gwarp == 2,
       "warp 2's write races with warp 1's read (both reads kept), not warp 0's");
    is_int((long long)nraces(&u), 1, "one race");
    finish(&u);

    /* two warps read (at two instructions), a third writes: both reads race with the
     * write, two pairs of instructions, two reports (a word, and a byte of a split one) */
    for (uint32_t split = 0; split < 2; split++) {
        start(&u, 1);
        if (split) { /* bytes of their own: a byte store before, ordered by the barrier */
            const vx_memwrite b1 = {.addr = GLOBAL_X + 1, .size = 1, .lane = 0, .value = 1};
            issue(&u, 0, 0x80000000, INSN_PLAIN, NULL, 0, &b1, 1, NULL, 0);
            const uint32_t all[] = {0, 1, 2, 3};
            barrier(&u, all, 4, 0);
        }
        load(&u, 1, 0x80000100, GLOBAL_X, 0);
        load(&u, 2, 0x80000200, GLOBAL_X, 1);
        store(&u, 0, 0x80000300, GLOBAL_X, 5);
        size_t n;
        x = vxr_races(u.r, &n);
        ok(n == 2 && x[0].kind == VXR_RW && x[1].kind == VXR_RW && x[0].prev.gwarp == 1 &&
               x[1].prev.gwarp == 2 && x[1].prev.pc == 0x80000200 && x[0].len == 4 &&
               x[1].len == 4 && vxr_total(u.r) == 8,
           "reads by warps 1 and 2, then warp 0's write: both read-then-write races reported "
           "(%s word)",
           split ? "a split" : "a whole");
        finish(&u);
    }
}

/* Warps 0 .. n - 1 (n <= 64) meet at global barrier gid: each arrives, the last one's
 * issue releases them all. */
static void all_meet(run *u, uint32_t n, uint32_t gid)
{
    vx_wctl w[1 + 64];
    for (uint32_t g = 0; g < n; g++) {
        uint32_t k = 0;
        w[k++] = wc(VX_WCTL_BAR_ARRIVE, g, gid);
        if (g == n - 1)
            for (uint32_t j = 0; j < n; j++)
                w[k++] = wc(VX_WCTL_BAR_RELEASE, j, gid);
        issue(u, g, 0x80000900u, insn_of(VX_OP_VX_BAR), NULL, 0, NULL, 0, w, k);
    }
}

/*
 * Many warps reading the same word keep a large read set, which a read looks through
 * only as far as its warp's last acquire (race.c, read_keep): the reports are those of
 * the whole set, in its order, with the first read of each pair of instructions.
 */
static void test_many_readers(void)
{
    const uint32_t G = 64; /* 16 cores of W_PER_CORE warps */
    run u;
    start(&u, G / W_PER_CORE);
    for (uint32_t g = 1; g < G; g++)
        load(&u, g, 0x80000100, GLOBAL_X, (uint8_t)(g % 4));
    store(&u, 0, 0x80000300, GLOBAL_X, 1);
    const vxr_race *x = race0(&u);
    ok(nraces(&u) == 1 && x && x->kind == VXR_RW && x->prev.gwarp == 1 && x->prev.index == 0 &&
           x->prev.lane == 1 && x->cur.gwarp == 0 && x->len == 4 && x->count == 63 * 4,
       "63 warps read a word, a 64th writes it: one report, the first read, 252 byte pairs");
    finish(&u);

    /* a warp's second read stands for its first (which comes to light in no report) */
    start(&u, G / W_PER_CORE);
    for (uint32_t g = 0; g < G; g++)
        load(&u, g, 0x80000100, GLOBAL_X, 0);
    load(&u, 5, 0x80000104, GLOBAL_X, 0);
    store(&u, 63, 0x80000300, GLOBAL_X, 1);
    size_t n;
    x = vxr_races(u.r, &n);
    ok(n == 2 && x[0].prev.pc == 0x80000100 && x[0].prev.gwarp == 0 && x[0].count == 62 * 4 &&
           x[1].prev.pc == 0x80000104 && x[1].prev.gwarp == 5 && x[1].count == 4,
       "64 warps read a word, one again: the write races with 62 first reads and the second");
    finish(&u);

    /* three rounds of reads by every warp, nothing between them: the last round's race */
    start(&u, G / W_PER_CORE);
    for (uint32_t round = 0; round < 3; round++)
        for (uint32_t g = 0; g < G; g++)
            load(&u, (g * 7 + round) % G, 0x80000100 + 4 * round, GLOBAL_X, 0);
    store(&u, 9, 0x80000300, GLOBAL_X, 1);
    x = vxr_races(u.r, &n);
    ok(n == 1 && x[0].prev.pc == 0x80000108 && x[0].prev.gwarp == 2 && x[0].count == 63 * 4,
       "three rounds of reads by 64 warps: the write races with the last round's only, the "
       "first of them");
    finish(&u);

    /* every warp reads; warps 0..47 meet at a global barrier, 11 of them read again (the
     * first of these drops the reads of the 48 before the barrier), and warp 50, which
     * was not at the barrier, writes: it races with the reads of warps 48..63 (not its
     * own) and the 11, not with those the 11 stand for */
    start(&u, G / W_PER_CORE);
    for (uint32_t g = 0; g < G; g++)
        load(&u, g, 0x80000100, GLOBAL_X, 0);
    all_meet(&u, 48, 0x80000000u);
    for (uint32_t g = 10; g < 20; g++)
        load(&u, g, 0x80000200, GLOBAL_X, 0);
    load(&u, 3, 0x80000204, GLOBAL_X, 0);
    store(&u, 50, 0x80000300, GLOBAL_X, 1);
    x = vxr_races(u.r, &n);
    ok(n == 3 && x[0].prev.pc == 0x80000100 && x[0].prev.gwarp == 48 && x[0].count == 15 * 4 &&
           x[1].prev.pc == 0x80000200 && x[1].prev.gwarp == 10 && x[1].count == 10 * 4 &&
           x[2].prev.pc == 0x80000204 && x[2].prev.gwarp == 3 && x[2].count == 4,
       "64 reads, a global barrier of 48 warps, 11 of them read again, another writes: "
       "races with 15 + 11 reads");
    finish(&u);

    /* every warp reads; core 1's warps (4..7) meet at a local barrier, warp 6 reads again
     * (dropping core 1's first reads, those between others' reads) and warp 0 writes */
    start(&u, G / W_PER_CORE);
    for (uint32_t g = 0; g < G; g++)
        load(&u, g, 0x80000100, GLOBAL_X, 0);
    const uint32_t core1[] = {4, 5, 6, 7};
    barrier(&u, core1, 4, 0);
    load(&u, 6, 0x80000200, GLOBAL_X, 0);
    store(&u, 0, 0x80000300, GLOBAL_X, 1);
    x = vxr_races(u.r, &n);
    ok(n == 2 && x[0].prev.pc == 0x80000100 && x[0].prev.gwarp == 1 && x[0].count == 59 * 4 &&
           x[1].prev.pc == 0x80000200 && x[1].prev.gwarp == 6 && x[1].count == 4,
       "64 reads, a barrier of core 1, a read by one of its warps, a write by a warp of core "
       "0: races with the 59 reads of other cores and that read");
    finish(&u);
}

static void test_lanes(void)
{
    run u;
    start(&u, 1);
    const vx_memwrite same[] = {{.addr = GLOBAL_X, .size = 4, .lane = 0, .value = 9},
                                {.addr = GLOBAL_X, .size = 4, .lane = 1, .value = 9}};
    issue(&u, 0, 0x80000100, INSN_PLAIN, NULL, 0, same, 2, NULL, 0);
    is_int((long long)nraces(&u), 0, "two lanes of one store writing the same value: no race");
    const vx_memwrite diff[] = {{.addr = GLOBAL_Y, .size = 1, .lane = 0, .value = 1},
                                {.addr = GLOBAL_Y, .size = 1, .lane = 3, .value = 2}};
    issue(&u, 0, 0x80000104, INSN_PLAIN, NULL, 0, diff, 2, NULL, 0);
    const vxr_race *x = race0(&u);
    ok(x && x->kind == VXR_LANES && x->prev.lane == 0 && x->cur.lane == 3 && x->len == 1 &&
           x->addr == GLOBAL_Y,
       "two lanes of one store writing different values to a byte: VXR_LANES, lanes 0 and 3");
    finish(&u);
}

static void test_atomics(void)
{
    run u;
    /* a lock: amoswap.w.aq to take it, a release store (fence rw,w; sw) to give it back */
    start(&u, 1);
    amo(&u, 0, 0x80000100, AMOSWAP_AQ, LOCK, 1);
    store(&u, 0, 0x80000104, GLOBAL_X, 7);
    issue(&u, 0, 0x80000106, FENCE_REL, NULL, 0, NULL, 0, NULL, 0);
    store(&u, 0, 0x80000108, LOCK, 0);
    amo(&u, 1, 0x80000200, AMOSWAP_AQ, LOCK, 1);
    load(&u, 1, 0x80000204, GLOBAL_X, 0);
    issue(&u, 1, 0x80000206, FENCE_REL, NULL, 0, NULL, 0, NULL, 0);
    store(&u, 1, 0x80000208, LOCK, 0);
    is_int((long long)nraces(&u), 0,
           "a lock taken with amoswap.aq and given back with a release store orders the "
           "critical sections; the lock word itself is never reported");
    /* a warp that does not take the lock */
    load(&u, 2, 0x80000300, GLOBAL_X, 0);
    const vxr_race *x = race0(&u);
    ok(x && x->kind == VXR_WR && x->prev.gwarp == 0 && x->cur.gwarp == 2,
       "a read without the lock races with the write made under it");
    finish(&u);

    /* given back with a plain sw and no fence: no release under RVWMO (the critical
     * section's stores may pass it) */
    start(&u, 1);
    amo(&u, 0, 0x80000100, AMOSWAP_AQ, LOCK, 1);
    store(&u, 0, 0x80000104, GLOBAL_X, 7);
    store(&u, 0, 0x80000108, LOCK, 0);
    amo(&u, 1, 0x80000200, AMOSWAP_AQ, LOCK, 1);
    load(&u, 1, 0x80000204, GLOBAL_X, 0);
    x = race0(&u);
    ok(x && x->kind == VXR_WR && x->prev.gwarp == 0 && x->cur.gwarp == 1,
       "a lock given back with a plain store and no fence orders nothing: a race");
    finish(&u);

    /* a flag polled with plain loads: they acquire only at an acquire fence after them */
    start(&u, 1);
    amo(&u, 0, 0x80000100, AMOSWAP_AQ, LOCK, 0); /* the word is atomic from now on */
    store(&u, 0, 0x80000104, GLOBAL_X, 7);
    issue(&u, 0, 0x80000106, FENCE_REL, NULL, 0, NULL, 0, NULL, 0);
    store(&u, 0, 0x80000108, LOCK, 1);
    load(&u, 1, 0x80000200, LOCK, 0);
    load(&u, 1, 0x80000204, GLOBAL_X, 0);
    x = race0(&u);
    ok(x && x->kind == VXR_WR && x->cur.pc == 0x80000204,
       "a plain load of the flag without an acquire fence orders nothing: a race");
    load(&u, 1, 0x80000300, LOCK, 0);
    issue(&u, 1, 0x80000304, FENCE_ACQ, NULL, 0, NULL, 0, NULL, 0);
    load(&u, 1, 0x80000308, GLOBAL_X, 0);
    is_int((long long)nraces(&u), 1, "lw; fence r,rw (an acquire load) then the read: ordered");
    finish(&u);

    /* GCC 12's __atomic_store_n(RELEASE): fence iorw,ow, then a relaxed amoswap; and an
     * acquire made of a relaxed amoswap and fence r,rw */
    start(&u, 1);
    amo(&u, 0, 0x80000100, AMOSWAP_AQ, LOCK, 1);
    store(&u, 0, 0x80000104, GLOBAL_X, 7);
    issue(&u, 0, 0x80000108, FENCE_REL, NULL, 0, NULL, 0, NULL, 0);
    amo(&u, 0, 0x8000010c, AMOSWAP, LOCK, 0);
    amo(&u, 1, 0x80000200, AMOSWAP, LOCK, 1);
    issue(&u, 1, 0x80000204, FENCE_ACQ, NULL, 0, NULL, 0, NULL, 0);
    load(&u, 1, 0x80000208, GLOBAL_X, 0);
    is_int((long long)nraces(&u), 0,
           "a release fence before a relaxed amoswap, and a relaxed "
           "amoswap before an acquire fence, order like aq/rl");
    finish(&u);
    /* the same without the fences */
    start(&u, 1);
    amo(&u, 0, 0x80000100, AMOSWAP_AQ, LOCK, 1);
    store(&u, 0, 0x80000104, GLOBAL_X, 7);
    amo(&u, 0, 0x8000010c, AMOSWAP, LOCK, 0);
    amo(&u, 1, 0x80000200, AMOSWAP, LOCK, 1);
    load(&u, 1, 0x80000208, GLOBAL_X, 0);
    x = race0(&u);
    ok(x && x->kind == VXR_WR, "without the fences, relaxed amoswaps order nothing: a race");
    finish(&u);

    /* a relaxed AMO orders nothing */
    start(&u, 1);
    store(&u, 0, 0x80000100, GLOBAL_X, 7);
    amo(&u, 0, 0x80000104, AMOADD, LOCK, 1);
    amo(&u, 1, 0x80000200, AMOADD, LOCK, 1);
    load(&u, 1, 0x80000204, GLOBAL_X, 0);
    x = race0(&u);
    ok(x && x->kind == VXR_WR && nraces(&u) == 1,
       "relaxed amoadd.w on a counter orders nothing: the read races; the counter does not");
    finish(&u);
}

/* The first atomic on a word that plain stores wrote: a histogram bin zeroed by one warp
 * and added to with amoadd by another with no barrier between is a race (the atomic is
 * checked against the plain writes before the word becomes a synchronisation variable). */
static void test_plain_then_atomic(void)
{
    run u;
    start(&u, 1);
    store(&u, 0, 0x80000100, GLOBAL_X, 0);
    amo(&u, 1, 0x80000200, AMOADD, GLOBAL_X, 1);
    const vxr_race *x = race0(&u);
    ok(x && x->kind == VXR_WW && x->prev.gwarp == 0 && x->cur.gwarp == 1 &&
           x->cur.pc == 0x80000200 && x->cur.write && x->addr == GLOBAL_X && x->len == 4,
       "a plain store, then an amoadd by another warp with nothing between: a race");
    amo(&u, 2, 0x80000300, AMOADD, GLOBAL_X, 1);
    is_int((long long)nraces(&u), 1, "  the word is a synchronisation variable from then on");
    /* the same with a barrier between: no race */
    store(&u, 0, 0x80000104, GLOBAL_Y, 0);
    const uint32_t all[] = {0, 1};
    barrier(&u, all, 2, 0);
    amo(&u, 1, 0x80000204, AMOADD, GLOBAL_Y, 1);
    is_int((long long)nraces(&u), 1, "a plain store, a barrier, then an amoadd: no race");
    /* a plain load before the first atomic is not reported (atomic loads are plain lw) */
    load(&u, 3, 0x80000400, GLOBAL_Y + 8, 0);
    amo(&u, 1, 0x80000208, AMOADD, GLOBAL_Y + 8, 1);
    is_int((long long)nraces(&u), 1, "a plain load, then an amoadd: not reported");
    finish(&u);
}

/* Message passing with the release store of RVWMO's mapping (table A.6, LLVM's, also
 * Vortex's toolchain): fence rw,w then a plain sw; the acquire load lw then fence r,rw.
 * No AMO ever touches the flag. */
static void test_release_store_mapping(void)
{
    run u;
    start(&u, 1);
    load(&u, 1, 0x80000200, LOCK, 0); /* the consumer polls: 0 */
    store(&u, 0, 0x80000100, GLOBAL_X, 7);
    issue(&u, 0, 0x80000104, FENCE_RW_W, NULL, 0, NULL, 0, NULL, 0);
    store(&u, 0, 0x80000108, LOCK, 1);
    load(&u, 1, 0x80000200, LOCK, 0); /* 1 */
    issue(&u, 1, 0x80000204, FENCE_ACQ, NULL, 0, NULL, 0, NULL, 0);
    load(&u, 1, 0x80000208, GLOBAL_X, 0);
    is_int((long long)nraces(&u), 0,
           "fence rw,w; sw flag, then lw flag; fence r,rw: the data is ordered, the flag is "
           "a synchronisation variable");
    finish(&u);
    /* the same without the fence: the flag and the data race */
    start(&u, 1);
    load(&u, 1, 0x80000200, LOCK, 0);
    store(&u, 0, 0x80000100, GLOBAL_X, 7);
    store(&u, 0, 0x80000108, LOCK, 1);
    load(&u, 1, 0x80000200, LOCK, 0);
    issue(&u, 1, 0x80000204, FENCE_ACQ, NULL, 0, NULL, 0, NULL, 0);
    load(&u, 1, 0x80000208, GLOBAL_X, 0);
    is_int((long long)nraces(&u), 3, "without the fence: the flag (both ways) and the data race");
    finish(&u);
    /* fence rw,o orders earlier accesses before later device output only, not before
     * the store to the flag in memory (RVWMO): no release, the same three races */
    start(&u, 1);
    load(&u, 1, 0x80000200, LOCK, 0);
    store(&u, 0, 0x80000100, GLOBAL_X, 7);
    issue(&u, 0, 0x80000104, FENCE_RW_O, NULL, 0, NULL, 0, NULL, 0);
    store(&u, 0, 0x80000108, LOCK, 1);
    load(&u, 1, 0x80000200, LOCK, 0);
    issue(&u, 1, 0x80000204, FENCE_ACQ, NULL, 0, NULL, 0, NULL, 0);
    load(&u, 1, 0x80000208, GLOBAL_X, 0);
    is_int((long long)nraces(&u), 3, "fence rw,o before the flag's store is no release fence");
    finish(&u);
    /* a fence, then a load, then a store: the store is a plain one */
    start(&u, 1);
    issue(&u, 0, 0x80000104, FENCE_RW_W, NULL, 0, NULL, 0, NULL, 0);
    load(&u, 0, 0x80000108, GLOBAL_Y, 0);
    store(&u, 0, 0x8000010c, GLOBAL_X, 1);
    load(&u, 1, 0x80000200, GLOBAL_X, 0);
    is_int((long long)nraces(&u), 1,
           "only the first access after a release fence can be a release store");
    finish(&u);
}

static void test_spawn_and_end(void)
{
    run u;
    start(&u, 1);
    store(&u, 0, 0x80000100, GLOBAL_X, 7);
    /* warp 0's wspawn starts warp 1 (spawn-wait, activate, unstall in one issue) */
    const vx_wctl sp[] = {wc(VX_WCTL_SPAWN_WAIT, 0, 2), wc(VX_WCTL_ACTIVATE, 1, 0),
                          wc(VX_WCTL_UNSTALL, 0, 0)};
    issue(&u, 0, 0x80000104, insn_of(VX_OP_VX_WSPAWN), NULL, 0, NULL, 0, sp, 3);
    load(&u, 1, 0x80000200, GLOBAL_X, 0);
    is_int((long long)nraces(&u), 0,
           "what warp 0 wrote before its wspawn, read by the warp it "
           "started");
    /* warp 1 writes Y and ends; warp 0's next wspawn (with nobody left: no effect)
     * waits for that end */
    store(&u, 1, 0x80000204, GLOBAL_Y, 1);
    const vx_wctl end[] = {wc(VX_WCTL_DEACTIVATE, 1, 0)};
    issue(&u, 1, 0x80000208, insn_of(VX_OP_VX_TMC), NULL, 0, NULL, 0, end, 1);
    issue(&u, 0, 0x80000108, insn_of(VX_OP_VX_WSPAWN), NULL, 0, NULL, 0, NULL, 0);
    load(&u, 0, 0x8000010c, GLOBAL_Y, 0);
    is_int((long long)nraces(&u), 0,
           "a warp's writes before it ended, read after a wspawn that "
           "waited for it");
    /* but not without the wspawn */
    store(&u, 2, 0x80000300, GLOBAL_Y + 8, 1);
    const vx_wctl end2[] = {wc(VX_WCTL_DEACTIVATE, 2, 0)};
    issue(&u, 2, 0x80000304, insn_of(VX_OP_VX_TMC), NULL, 0, NULL, 0, end2, 1);
    load(&u, 0, 0x80000110, GLOBAL_Y + 8, 0);
    const vxr_race *x = race0(&u);
    ok(x && x->kind == VXR_WR && x->prev.gwarp == 2 && x->cur.gwarp == 0,
       "the same without the wspawn: a race");
    finish(&u);
}

/* A global barrier completes once every active warp of each core arrived: a warp that
 * ends lets it complete (sim/exec.c, gbar_check from vx_warp_deactivated), so what a
 * warp did before its end is before the release, on every core. */
static void test_global_barrier_and_end(void)
{
    run u;
    start(&u, 2); /* warps 0..3 on core 0, 4..7 on core 1 */
    const uint32_t gid = 0x80000000u;
    /* warp 1 writes X and ends before anyone arrives */
    store(&u, 1, 0x80000100, GLOBAL_X, 1);
    const vx_wctl end1[] = {wc(VX_WCTL_DEACTIVATE, 1, 0)};
    issue(&u, 1, 0x80000104, insn_of(VX_OP_VX_TMC), NULL, 0, NULL, 0, end1, 1);
    /* warps 0 and 4 arrive; warp 5 writes Y and its end completes the barrier */
    const vx_wctl a0[] = {wc(VX_WCTL_BAR_ARRIVE, 0, gid)};
    issue(&u, 0, 0x80000108, insn_of(VX_OP_VX_BAR), NULL, 0, NULL, 0, a0, 1);
    const vx_wctl a4[] = {wc(VX_WCTL_BAR_ARRIVE, 4, gid)};
    issue(&u, 4, 0x80000200, insn_of(VX_OP_VX_BAR), NULL, 0, NULL, 0, a4, 1);
    store(&u, 5, 0x80000300, GLOBAL_Y, 2);
    const vx_wctl end5[] = {wc(VX_WCTL_DEACTIVATE, 5, 0), wc(VX_WCTL_BAR_RELEASE, 0, gid),
                            wc(VX_WCTL_BAR_RELEASE, 4, gid)};
    issue(&u, 5, 0x80000304, insn_of(VX_OP_VX_TMC), NULL, 0, NULL, 0, end5, 3);
    load(&u, 4, 0x80000204, GLOBAL_X, 0);
    load(&u, 0, 0x8000010c, GLOBAL_Y, 0);
    is_int((long long)nraces(&u), 0,
           "writes of warps that ended before a global barrier completed (one of them "
           "completing it), read after it on either core: no race");
    finish(&u);
}

static void test_spaces(void)
{
    run u;
    start(&u, 2); /* warps 0..3 on core 0, 4..7 on core 1 */
    store(&u, 0, 0x80000100, LOCAL_X, 7);
    load(&u, 4, 0x80000200, LOCAL_X, 0);
    is_int((long long)nraces(&u), 0, "the same local-memory address on two cores: two memories");
    load(&u, 1, 0x80000204, LOCAL_X, 0);
    const vxr_race *x = race0(&u);
    ok(x && x->space == 1 && x->kind == VXR_WR && x->addr == LOCAL_X,
       "on one core: a race, in core 0's local memory (space 1)");
    /* a global barrier (id bit 31) across the cores orders global memory */
    store(&u, 0, 0x80000108, GLOBAL_X, 1);
    const uint32_t both[] = {0, 4};
    barrier(&u, both, 2, 0x80000000u);
    load(&u, 4, 0x8000020c, GLOBAL_X, 0);
    is_int((long long)nraces(&u), 1,
           "a global barrier orders a write on core 0 before a read on "
           "core 1");
    /* two cores writing the exit status word (the I/O window): not checked */
    store(&u, 0, 0x80000110, 0x88, 0);
    store(&u, 4, 0x80000210, 0x88, 1);
    is_int((long long)nraces(&u), 1, "the I/O window (0x88) is not checked");
    finish(&u);
}

/* Sub-word and misaligned accesses: the shadow splits a word into bytes (and joins it
 * again when a store writes it whole); the reports are per byte all the same. */
static void test_bytes_of_a_word(void)
{
    run u;
    start(&u, 1);
    store(&u, 0, 0x80000100, GLOBAL_X, 0x11223344); /* bytes X..X+3 */
    const vx_memwrite b2 = {.addr = GLOBAL_X + 2, .size = 1, .lane = 0, .value = 0x55};
    issue(&u, 1, 0x80000200, INSN_PLAIN, NULL, 0, &b2, 1, NULL, 0);
    const vxr_race *x = race0(&u);
    ok(x && x->kind == VXR_WW && x->addr == GLOBAL_X + 2 && x->len == 1 && x->count == 1,
       "a byte store into another warp's word: one byte in conflict, X+2");
    load(&u, 2, 0x80000300, GLOBAL_X, 0);
    size_t n;
    x = vxr_races(u.r, &n);
    ok(n == 3 && x[1].kind == VXR_WR && x[1].prev.gwarp == 0 && x[1].addr == GLOBAL_X &&
           x[1].len == 2 && x[1].count == 3 && x[2].kind == VXR_WR && x[2].prev.gwarp == 1 &&
           x[2].addr == GLOBAL_X + 2 && x[2].len == 1 && x[2].count == 1,
       "a word read then races with warp 0 on bytes X, X+1, X+3 (len 2 from X, 3 pairs) and "
       "with warp 1 on X+2");
    /* everyone meets; a word store makes the word whole again: then one warp's */
    const uint32_t all[] = {0, 1, 2, 3};
    barrier(&u, all, 4, 0);
    store(&u, 3, 0x80000400, GLOBAL_X, 1);
    load(&u, 0, 0x80000104, GLOBAL_X + 1, 0);
    x = vxr_races(u.r, &n);
    ok(n == 4 && x[3].kind == VXR_WR && x[3].prev.gwarp == 3 && x[3].prev.pc == 0x80000400 &&
           x[3].addr == GLOBAL_X + 1 && x[3].len == 3 && x[3].count == 3,
       "after a barrier, warp 3's word store is the last write of every byte (a misaligned "
       "read of X+1..X+4: 3 of them)");
    finish(&u);

    /* a misaligned store (--allow-misaligned) across two words */
    start(&u, 1);
    const vx_memwrite mis = {.addr = GLOBAL_Y + 2, .size = 4, .lane = 1, .value = 0xAABBCCDD};
    issue(&u, 0, 0x80000100, INSN_PLAIN, NULL, 0, &mis, 1, NULL, 0);
    load(&u, 1, 0x80000200, GLOBAL_Y + 4, 0);
    x = race0(&u);
    ok(x && x->kind == VXR_WR && x->addr == GLOBAL_Y + 4 && x->len == 2 && x->count == 2 &&
           x->prev.lane == 1,
       "a misaligned store at Y+2, a word read at Y+4: Y+4 and Y+5 in conflict");
    finish(&u);
}

/* A misaligned plain access whose first word is a synchronisation word: the bytes it
 * takes of the next (plain) word are checked all the same. */
static void test_misaligned_from_sync_word(void)
{
    run u;
    start(&u, 1);
    amo(&u, 0, 0x80000100, AMOSWAP_AQ, LOCK, 1); /* LOCK: a synchronisation word */
    /* warp 1: a misaligned halfword store at LOCK+3: LOCK+3 (sync) and LOCK+4 (plain) */
    const vx_memwrite h = {.addr = LOCK + 3, .size = 2, .lane = 0, .value = 0x0101};
    issue(&u, 1, 0x80000200, INSN_PLAIN, NULL, 0, &h, 1, NULL, 0);
    /* warp 2 reads LOCK+4 with nothing between */
    const vx_memread m = {.addr = LOCK + 4, .size = 1, .lane = 0};
    issue(&u, 2, 0x80000300, INSN_PLAIN, &m, 1, NULL, 0, NULL, 0);
    const vxr_race *x = race0(&u);
    ok(x && x->kind == VXR_WR && x->addr == LOCK + 4 && x->len == 1 && x->prev.gwarp == 1 &&
           x->cur.gwarp == 2 && nraces(&u) == 1,
       "a misaligned store from a synchronisation word into a plain one: its plain byte "
       "races with another warp's read");
    /* a misaligned read from the synchronisation word, LOCK+2..LOCK+5, by warp 3 */
    const vx_memread r2 = {.addr = LOCK + 2, .size = 4, .lane = 1};
    issue(&u, 3, 0x80000400, INSN_PLAIN, &r2, 1, NULL, 0, NULL, 0);
    size_t n;
    x = vxr_races(u.r, &n);
    ok(n == 2 && x[1].kind == VXR_WR && x[1].addr == LOCK + 4 && x[1].len == 1 &&
           x[1].prev.gwarp == 1 && x[1].cur.gwarp == 3 && x[1].cur.lane == 1,
       "a misaligned read from a synchronisation word into a plain one: its plain byte "
       "races with the store");
    finish(&u);

    /* a misaligned release store (--allow-misaligned): its word becomes a
     * synchronisation word, its bytes in the next word are a plain store */
    start(&u, 1);
    const vx_memwrite b8 = {.addr = GLOBAL_Y + 8, .size = 1, .lane = 2, .value = 3};
    issue(&u, 3, 0x80000400, INSN_PLAIN, NULL, 0, &b8, 1, NULL, 0);
    issue(&u, 0, 0x80000100, FENCE_RW_W, NULL, 0, NULL, 0, NULL, 0);
    const vx_memwrite m6 = {.addr = GLOBAL_Y + 6, .size = 4, .lane = 0, .value = 0x01010101};
    issue(&u, 0, 0x80000104, INSN_PLAIN, NULL, 0, &m6, 1, NULL, 0);
    x = race0(&u);
    ok(x && nraces(&u) == 1 && x->kind == VXR_WW && x->addr == GLOBAL_Y + 8 && x->len == 1 &&
           x->prev.gwarp == 3 && x->cur.gwarp == 0,
       "a misaligned release store at Y+6: its byte Y+8 races with another warp's store");
    finish(&u);
}

/* A release store of a byte (an atomic bool: fence rw,w; sb) is checked against the
 * earlier plain stores of its own bytes, not of the rest of its word. */
static void test_byte_release_store(void)
{
    run u;
    start(&u, 1);
    const vx_memwrite b0 = {.addr = GLOBAL_X, .size = 1, .lane = 0, .value = 1};
    issue(&u, 0, 0x80000100, INSN_PLAIN, NULL, 0, &b0, 1, NULL, 0);
    issue(&u, 1, 0x80000200, FENCE_RW_W, NULL, 0, NULL, 0, NULL, 0);
    const vx_memwrite b2 = {.addr = GLOBAL_X + 2, .size = 1, .lane = 0, .value = 1};
    issue(&u, 1, 0x80000204, INSN_PLAIN, NULL, 0, &b2, 1, NULL, 0);
    is_int((long long)nraces(&u), 0,
           "a byte store, then another warp's release store of another byte of the word: "
           "no race");
    finish(&u);

    start(&u, 1);
    store(&u, 0, 0x80000100, GLOBAL_X, 0x01010101);
    issue(&u, 1, 0x80000200, FENCE_RW_W, NULL, 0, NULL, 0, NULL, 0);
    issue(&u, 1, 0x80000204, INSN_PLAIN, NULL, 0, &b2, 1, NULL, 0);
    const vxr_race *x = race0(&u);
    ok(x && nraces(&u) == 1 && x->kind == VXR_WW && x->addr == GLOBAL_X + 2 && x->len == 1 &&
           x->count == 1,
       "a word store, then another warp's release store of byte X+2: one byte in conflict, "
       "X+2");
    /* a release store by two lanes, of X+2 and of the whole word X: X..X+3 checked */
    const uint32_t w2[] = {0, 2};
    barrier(&u, w2, 2, 0);
    store(&u, 0, 0x80000104, GLOBAL_Y, 0x01010101);
    issue(&u, 2, 0x80000300, FENCE_RW_W, NULL, 0, NULL, 0, NULL, 0);
    const vx_memwrite two[] = {{.addr = GLOBAL_Y + 2, .size = 1, .lane = 0, .value = 1},
                               {.addr = GLOBAL_Y, .size = 4, .lane = 1, .value = 1}};
    issue(&u, 2, 0x80000304, INSN_PLAIN, NULL, 0, two, 2, NULL, 0);
    size_t n;
    x = vxr_races(u.r, &n);
    ok(n == 2 && x[1].kind == VXR_WW && x[1].prev.gwarp == 0 && x[1].cur.gwarp == 2 &&
           x[1].count == 4 && x[1].addr == GLOBAL_Y && x[1].cur.lane == 1,
       "a release store whose lanes write a byte and the whole word: the word's 4 bytes "
       "checked (4 conflicting byte pairs), the first one Y, lane 1's");
    finish(&u);
}

/* An acquire fence acquires what the warp's last read of a synchronisation word read:
 * the releases before that read, not those made since (lw flag reads 0; another warp
 * releases; the fence then does not order its data before the reader). */
static void test_acquire_what_was_read(void)
{
    run u;
    start(&u, 1);
    amo(&u, 0, 0x80000100, AMOSWAP_AQ, LOCK, 0); /* LOCK: a synchronisation word */
    load(&u, 1, 0x80000200, LOCK, 0);            /* warp 1 reads 0: not released yet */
    store(&u, 0, 0x80000104, GLOBAL_X, 7);
    issue(&u, 0, 0x80000108, FENCE_RW_W, NULL, 0, NULL, 0, NULL, 0);
    store(&u, 0, 0x8000010c, LOCK, 1); /* the release */
    issue(&u, 1, 0x80000204, FENCE_ACQ, NULL, 0, NULL, 0, NULL, 0);
    load(&u, 1, 0x80000208, GLOBAL_X, 0);
    const vxr_race *x = race0(&u);
    ok(x && nraces(&u) == 1 && x->kind == VXR_WR && x->prev.gwarp == 0 && x->cur.gwarp == 1,
       "lw flag before the release, fence r,rw after it: the data read races");
    finish(&u);

    /* the same with two flags: the fence after an acquire load of a plain word (F2,
     * never a synchronisation word) does not acquire the release of F1 read long ago */
    start(&u, 1);
    issue(&u, 0, 0x80000100, FENCE_RW_W, NULL, 0, NULL, 0, NULL, 0);
    store(&u, 0, 0x80000104, LOCK, 0); /* a release store: LOCK is a sync word */
    load(&u, 1, 0x80000200, LOCK, 0);  /* reads 0 */
    issue(&u, 1, 0x80000204, FENCE_ACQ, NULL, 0, NULL, 0, NULL, 0);
    store(&u, 0, 0x80000108, GLOBAL_X, 7);
    issue(&u, 0, 0x8000010c, FENCE_RW_W, NULL, 0, NULL, 0, NULL, 0);
    store(&u, 0, 0x80000110, LOCK, 1);
    load(&u, 1, 0x80000208, GLOBAL_Y, 0); /* an acquire load of a plain word */
    issue(&u, 1, 0x8000020c, FENCE_ACQ, NULL, 0, NULL, 0, NULL, 0);
    load(&u, 1, 0x80000210, GLOBAL_X, 0);
    x = race0(&u);
    ok(x && nraces(&u) == 1 && x->kind == VXR_WR && x->cur.pc == 0x80000210,
       "an acquire fence after a read of another word does not acquire the flag's later "
       "release: the data read races");
    /* once warp 1 reads the flag again (1) and fences, the data is ordered */
    load(&u, 1, 0x80000214, LOCK, 0);
    issue(&u, 1, 0x80000218, FENCE_ACQ, NULL, 0, NULL, 0, NULL, 0);
    load(&u, 1, 0x8000021c, GLOBAL_X, 0);
    is_int((long long)nraces(&u), 1, "lw flag (1); fence r,rw; then the data: ordered");
    finish(&u);
}

static void test_fence_kinds(void)
{
    run u;
    /* fence r,rw is an acquire fence, no release: a store after it is a plain store */
    start(&u, 1);
    issue(&u, 0, 0x80000100, FENCE_ACQ, NULL, 0, NULL, 0, NULL, 0);
    store(&u, 0, 0x80000104, GLOBAL_X, 7);
    load(&u, 1, 0x80000200, GLOBAL_X, 0);
    const vxr_race *x = race0(&u);
    ok(x && x->kind == VXR_WR, "a store after fence r,rw is no release store: its data races");
    finish(&u);
    /* fence rw,w is a release fence, no acquire: a relaxed AMO read before it acquires
     * nothing */
    start(&u, 1);
    store(&u, 0, 0x80000100, GLOBAL_X, 7);
    amo(&u, 0, 0x80000104, AMOSWAP_RL, LOCK, 1);
    amo(&u, 1, 0x80000200, AMOSWAP, LOCK, 1);
    issue(&u, 1, 0x80000204, FENCE_RW_W, NULL, 0, NULL, 0, NULL, 0);
    load(&u, 1, 0x80000208, GLOBAL_X, 0);
    x = race0(&u);
    ok(x && x->kind == VXR_WR, "fence rw,w after a relaxed read acquires nothing: a race");
    finish(&u);
    /* fence w,w leaves earlier loads out: no release; fence r,r leaves later stores out:
     * no acquire */
    start(&u, 1);
    store(&u, 0, 0x80000100, GLOBAL_X, 7);
    issue(&u, 0, 0x80000104, FENCE_W_W, NULL, 0, NULL, 0, NULL, 0);
    store(&u, 0, 0x80000108, LOCK, 1);
    load(&u, 1, 0x80000200, LOCK, 0);
    issue(&u, 1, 0x80000204, FENCE_ACQ, NULL, 0, NULL, 0, NULL, 0);
    load(&u, 1, 0x80000208, GLOBAL_X, 0);
    size_t n;
    x = vxr_races(u.r, &n);
    ok(n == 2 && x[0].addr == LOCK && x[1].kind == VXR_WR && x[1].addr == GLOBAL_X &&
           x[1].cur.pc == 0x80000208,
       "a store after fence w,w is no release store: the flag and the data it would "
       "publish race");
    finish(&u);
    start(&u, 1);
    store(&u, 0, 0x80000100, GLOBAL_X, 7);
    amo(&u, 0, 0x80000104, AMOSWAP_RL, LOCK, 1);
    amo(&u, 1, 0x80000200, AMOSWAP, LOCK, 1);
    issue(&u, 1, 0x80000204, FENCE_R_R, NULL, 0, NULL, 0, NULL, 0);
    load(&u, 1, 0x80000208, GLOBAL_X, 0);
    x = race0(&u);
    ok(x && x->kind == VXR_WR, "fence r,r after a relaxed read acquires nothing: a race");
    finish(&u);
}

/* The Debug Module's injected instructions (a debugger reading or writing memory through
 * a halted warp) are not the kernel's accesses: neither checked nor remembered. */
static void test_injected(void)
{
    run u;
    start(&u, 1);
    store(&u, 1, 0x80000100, GLOBAL_X, 7); /* the kernel's warp 1 writes X */
    const vx_memread m = {.addr = GLOBAL_X, .size = 4, .lane = 0};
    const vx_memwrite w = {.addr = GLOBAL_Y, .size = 4, .lane = 0, .value = 5};
    for (uint32_t i = 0; i < 2; i++) { /* the debugger reads X, writes Y through warp 0 */
        vx_event ev;
        vx_event_clear(&ev, u.index++);
        ev.kind = VX_EV_ISSUE;
        ev.flags = VX_EVF_INJECTED;
        ev.pc = 0x80000400;
        ev.insn = INSN_PLAIN;
        ev.tmask = 1;
        if (i == 0) {
            ev.reads = &m;
            ev.nreads = 1;
        } else {
            ev.mem = &w;
            ev.nmem = 1;
        }
        if (vxr_event(u.r, &ev) != VX_OK) tap_bail("vxr_event failed");
    }
    is_int((long long)nraces(&u), 0,
           "a debugger's injected load of a word another warp wrote: no race");
    load(&u, 2, 0x80000200, GLOBAL_Y, 0); /* warp 2 reads Y */
    is_int((long long)nraces(&u), 0,
           "  and its injected store is no access the kernel's races with");
    finish(&u);
}

/* A platform reset (the Debug Module's ndmreset) starts the kernel again: what the
 * warps did before it is ordered before everything after it. */
static void test_reset(void)
{
    run u;
    start(&u, 1);
    store(&u, 1, 0x80000100, GLOBAL_X, 7); /* warp 1 writes X, reads Y */
    load(&u, 1, 0x80000104, GLOBAL_Y, 0);
    vx_event ev;
    vx_event_clear(&ev, u.index);
    ev.kind = VX_EV_DM;
    ev.dm.op = VX_DM_RESET;
    if (vxr_event(u.r, &ev) != VX_OK) tap_bail("vxr_event failed");
    store(&u, 0, 0x80000200, GLOBAL_X, 0); /* the restarted kernel's warp 0 writes both */
    store(&u, 0, 0x80000204, GLOBAL_Y, 0);
    is_int((long long)nraces(&u), 0,
           "a write and a read, a reset, then writes by another warp: no race");
    load(&u, 2, 0x80000300, GLOBAL_X, 0); /* but after the reset as before: warp 2 */
    is_int((long long)nraces(&u), 1, "  a write after the reset still races with a read after it");
    finish(&u);
}

static void test_dedup_and_limit(void)
{
    run u;
    start(&u, 1);
    for (uint32_t i = 0; i < 10; i++) {
        store(&u, 0, 0x80000100, GLOBAL_X + 4 * i, i);
        load(&u, 1, 0x80000200, GLOBAL_X + 4 * i, 0);
    }
    const vxr_race *x = race0(&u);
    ok(nraces(&u) == 1 && x && x->count == 40 && x->len == 4 && x->addr == GLOBAL_X,
       "ten racing pairs at the same two instructions: one report, the first, 40 byte pairs");
    finish(&u);

    vxr *r = NULL;
    is_int(vxr_new(&r, 1025, 4), VX_ERR_LIMIT, "more than %u warps: VX_ERR_LIMIT", VXR_MAX_WARPS);
    ok(r == NULL, "  and no checker");
}

/* Two lanes of one byte or halfword store into a split word: VXR_LANES only on the
 * bytes where their values differ, each byte's value taken from its own place in the
 * store (a store at X+1 writes its value's low byte there). */
static void test_lanes_in_split_word(void)
{
    run u;
    start(&u, 1);
    const vx_memwrite same[] = {{.addr = GLOBAL_X + 1, .size = 1, .lane = 0, .value = 5},
                                {.addr = GLOBAL_X + 1, .size = 1, .lane = 2, .value = 5}};
    issue(&u, 0, 0x80000100, INSN_PLAIN, NULL, 0, same, 2, NULL, 0);
    is_int((long long)nraces(&u), 0, "two lanes of an sb writing the same value to X+1: no race");
    const vx_memwrite diff[] = {{.addr = GLOBAL_X + 2, .size = 2, .lane = 0, .value = 0x0102},
                                {.addr = GLOBAL_X + 2, .size = 2, .lane = 2, .value = 0x0103}};
    issue(&u, 0, 0x80000104, INSN_PLAIN, NULL, 0, diff, 2, NULL, 0);
    const vxr_race *x = race0(&u);
    ok(nraces(&u) == 1 && x && x->kind == VXR_LANES && x->addr == GLOBAL_X + 2 && x->len == 1 &&
           x->count == 1 && x->prev.lane == 0 && x->cur.lane == 2,
       "two lanes of an sh at X+2 writing 0x0102 and 0x0103: VXR_LANES on X+2 only, lanes 0 "
       "and 2");
    finish(&u);
}

/* A report's len counts the bytes of the same two accesses (events and lanes) in a row;
 * other conflicts at the same two instructions only add to count. */
static void test_report_len(void)
{
    run u;
    start(&u, 1);
    /* the same store instruction run twice (events 0 and 1) on bytes X and X+1 */
    const vx_memwrite b0 = {.addr = GLOBAL_X, .size = 1, .lane = 0, .value = 1};
    const vx_memwrite b1 = {.addr = GLOBAL_X + 1, .size = 1, .lane = 0, .value = 2};
    issue(&u, 0, 0x80000100, INSN_PLAIN, NULL, 0, &b0, 1, NULL, 0);
    issue(&u, 0, 0x80000100, INSN_PLAIN, NULL, 0, &b1, 1, NULL, 0);
    load(&u, 1, 0x80000200, GLOBAL_X, 0);
    const vxr_race *x = race0(&u);
    ok(nraces(&u) == 1 && x && x->kind == VXR_WR && x->addr == GLOBAL_X && x->len == 1 &&
           x->count == 2 && x->prev.index == 0,
       "a word read after two runs of one sb (X, then X+1): one report, event 0's byte, "
       "len 1, 2 byte pairs");
    finish(&u);
    start(&u, 1);
    store(&u, 0, 0x80000100, GLOBAL_X, 7);
    /* two lanes of one lb, on bytes X and X+1 */
    const vx_memread rd[] = {{.addr = GLOBAL_X, .size = 1, .lane = 0},
                             {.addr = GLOBAL_X + 1, .size = 1, .lane = 1}};
    issue(&u, 1, 0x80000200, INSN_PLAIN, rd, 2, NULL, 0, NULL, 0);
    x = race0(&u);
    ok(nraces(&u) == 1 && x && x->addr == GLOBAL_X && x->len == 1 && x->count == 2 &&
           x->cur.lane == 0,
       "lanes 0 and 1 of an lb reading X and X+1 after a word store: lane 0's byte, len 1, 2 "
       "byte pairs");
    finish(&u);
    /* write then write and two lanes at the same two PCs: two kinds, two reports */
    start(&u, 1);
    const vx_memwrite lanes[] = {{.addr = GLOBAL_X, .size = 4, .lane = 0, .value = 0x11},
                                 {.addr = GLOBAL_X, .size = 4, .lane = 1, .value = 0x12}};
    issue(&u, 0, 0x80000100, INSN_PLAIN, NULL, 0, lanes, 2, NULL, 0);
    store(&u, 1, 0x80000100, GLOBAL_X, 0);
    size_t n;
    x = vxr_races(u.r, &n);
    ok(n == 2 && x[0].kind == VXR_LANES && x[0].count == 1 && x[1].kind == VXR_WW &&
           x[1].addr == GLOBAL_X && x[1].len == 4 && x[1].count == 4 && x[1].prev.lane == 1 &&
           x[1].prev.gwarp == 0 && x[1].cur.gwarp == 1,
       "lanes of one sw writing 0x11 and 0x12, then another warp's sw at the same pc: a "
       "VXR_LANES report (1 byte) and a VXR_WW one (4 bytes, lane 1's write first)");
    finish(&u);
}

/* The first atomic on a word that is an LR (a read): checked against the plain store
 * before it as write then read. */
static void test_lr_after_plain_store(void)
{
    run u;
    start(&u, 1);
    store(&u, 0, 0x80000100, LOCK, 0);
    const vx_memread m = {.addr = LOCK, .size = 4, .lane = 2};
    issue(&u, 1, 0x80000200, insn_of(VX_OP_LR_W), &m, 1, NULL, 0, NULL, 0);
    const vxr_race *x = race0(&u);
    ok(nraces(&u) == 1 && x && x->kind == VXR_WR && x->count == 4 && x->prev.write == 1 &&
           x->cur.write == 0 && x->cur.lane == 2 && x->cur.gwarp == 1,
       "a plain store, then another warp's lr.w: write then read, 4 bytes, lane 2's read");
    finish(&u);
}

/* A local barrier id used by warps 0 and 1, then by warps 2 and 3: the second use
 * orders only what 2 and 3 did (the barrier starts again after its release). */
static void test_barrier_reused(void)
{
    run u;
    start(&u, 1);
    store(&u, 0, 0x80000100, GLOBAL_X, 7);
    const uint32_t a[] = {0, 1}, b[] = {2, 3};
    barrier(&u, a, 2, 0);
    load(&u, 1, 0x80000200, GLOBAL_X, 0);
    is_int((long long)nraces(&u), 0, "warp 0's write, barrier 0 of warps 0 and 1, warp 1 reads");
    barrier(&u, b, 2, 0);
    load(&u, 2, 0x80000300, GLOBAL_X, 0);
    const vxr_race *x = race0(&u);
    ok(nraces(&u) == 1 && x && x->kind == VXR_WR && x->prev.gwarp == 0 && x->cur.gwarp == 2,
       "then barrier 0 of warps 2 and 3, warp 2 reads: a race with warp 0's write");
    finish(&u);
}

/* A wspawn that waits for warp 1 to end: warp 1's end (its tmc 0) starts the new warps
 * and lets the spawning warp go, in the same issue; both come after warp 1's past. */
static void test_spawn_waiting_for_end(void)
{
    run u;
    start(&u, 1);
    store(&u, 1, 0x80000200, GLOBAL_X, 7);
    const vx_wctl sp[] = {wc(VX_WCTL_SPAWN_WAIT, 0, 3)};
    issue(&u, 0, 0x80000100, insn_of(VX_OP_VX_WSPAWN), NULL, 0, NULL, 0, sp, 1);
    const vx_wctl end[] = {wc(VX_WCTL_DEACTIVATE, 1, 0), wc(VX_WCTL_ACTIVATE, 1, 0),
                           wc(VX_WCTL_ACTIVATE, 2, 0), wc(VX_WCTL_UNSTALL, 0, 0)};
    issue(&u, 1, 0x80000204, insn_of(VX_OP_VX_TMC), NULL, 0, NULL, 0, end, 4);
    load(&u, 2, 0x80000300, GLOBAL_X, 0);
    is_int((long long)nraces(&u), 0, "a warp started when warp 1 ended reads what warp 1 wrote");
    load(&u, 0, 0x80000104, GLOBAL_X, 0);
    is_int((long long)nraces(&u), 0, "the spawning warp, let go by that end, reads it too");
    store(&u, 3, 0x80000400, GLOBAL_Y, 1);
    load(&u, 2, 0x80000304, GLOBAL_Y, 0);
    is_int((long long)nraces(&u), 1,
           "  (warp 3, not ended, writing Y before warp 2 reads it: a race)");
    finish(&u);
}

/* fence w,rw orders no earlier load: no acquire fence. */
static void test_fence_w_rw(void)
{
    run u;
    start(&u, 1);
    store(&u, 0, 0x80000100, GLOBAL_X, 7);
    amo(&u, 0, 0x80000104, AMOSWAP_RL, LOCK, 1);
    amo(&u, 1, 0x80000200, AMOSWAP, LOCK, 1);
    issue(&u, 1, 0x80000204, FENCE_W_RW, NULL, 0, NULL, 0, NULL, 0);
    load(&u, 1, 0x80000208, GLOBAL_X, 0);
    const vxr_race *x = race0(&u);
    ok(x && x->kind == VXR_WR && x->addr == GLOBAL_X,
       "fence w,rw after a relaxed read acquires nothing: a race");
    finish(&u);
}

/* The I/O window below 0x10000 is not checked; 0x10000 is. */
static void test_io_window(void)
{
    run u;
    start(&u, 1);
    store(&u, 0, 0x80000100, 0xFFFCu, 1);
    store(&u, 1, 0x80000200, 0xFFFCu, 2);
    is_int((long long)nraces(&u), 0, "two warps' stores at 0xfffc (the I/O window): no race");
    store(&u, 0, 0x80000100, 0x10000u, 1);
    store(&u, 1, 0x80000200, 0x10000u, 2);
    const vxr_race *x = race0(&u);
    ok(nraces(&u) == 1 && x && x->kind == VXR_WW && x->addr == 0x10000u,
       "the same at 0x10000: write then write");
    finish(&u);
}

/* A word read by two warps (a read set), then split by another warp's byte store: each
 * byte keeps both reads, and the store races with both. */
static void test_split_keeps_reads(void)
{
    run u;
    start(&u, 1);
    load(&u, 1, 0x80000200, GLOBAL_X, 0);
    load(&u, 2, 0x80000300, GLOBAL_X, 0);
    const vx_memwrite b1 = {.addr = GLOBAL_X + 1, .size = 1, .lane = 0, .value = 1};
    issue(&u, 3, 0x80000400, INSN_PLAIN, NULL, 0, &b1, 1, NULL, 0);
    size_t n;
    const vxr_race *x = vxr_races(u.r, &n);
    ok(n == 2 && x[0].kind == VXR_RW && x[1].kind == VXR_RW && x[0].addr == GLOBAL_X + 1 &&
           x[1].addr == GLOBAL_X + 1 && x[0].count == 1 && x[1].count == 1 &&
           x[0].prev.gwarp + x[1].prev.gwarp == 3 && x[0].cur.gwarp == 3,
       "lw X by warps 1 and 2, then warp 3's sb X+1: two read-then-write races on X+1");
    finish(&u);
}

/* A release fence makes the warp's next write to a synchronisation word a release, not
 * the ones after it; a reset forgets a fence left pending. */
static void test_release_fence_once(void)
{
    run u;
    start(&u, 1);
    store(&u, 0, 0x80000100, GLOBAL_X, 1);
    issue(&u, 0, 0x80000104, FENCE_REL, NULL, 0, NULL, 0, NULL, 0);
    amo(&u, 0, 0x80000108, AMOSWAP, LOCK, 1); /* a release */
    store(&u, 0, 0x8000010c, GLOBAL_Y, 2);
    amo(&u, 0, 0x80000110, AMOSWAP, LOCK, 0); /* relaxed: no release */
    amo(&u, 1, 0x80000200, AMOSWAP_AQ, LOCK, 1);
    load(&u, 1, 0x80000204, GLOBAL_X, 0);
    is_int((long long)nraces(&u), 0, "fence; amoswap (a release), then an acquire: X ordered");
    load(&u, 1, 0x80000208, GLOBAL_Y, 0);
    const vxr_race *x = race0(&u);
    ok(nraces(&u) == 1 && x && x->kind == VXR_WR && x->addr == GLOBAL_Y && x->prev.gwarp == 0,
       "Y, written before a second relaxed amoswap with no fence: a race");
    finish(&u);

    start(&u, 1);
    issue(&u, 0, 0x80000100, FENCE_REL, NULL, 0, NULL, 0, NULL, 0);
    vx_event ev;
    vx_event_clear(&ev, u.index);
    ev.kind = VX_EV_DM;
    ev.dm.op = VX_DM_RESET;
    if (vxr_event(u.r, &ev) != VX_OK) tap_bail("vxr_event failed");
    store(&u, 0, 0x80000200, GLOBAL_X, 1);    /* a plain store: the fence is gone */
    amo(&u, 0, 0x80000204, AMOSWAP, LOCK, 1); /* relaxed: no release */
    amo(&u, 1, 0x80000300, AMOSWAP_AQ, LOCK, 1);
    load(&u, 1, 0x80000304, GLOBAL_X, 0);
    x = race0(&u);
    ok(nraces(&u) == 1 && x && x->kind == VXR_WR && x->addr == GLOBAL_X,
       "a release fence, a reset, a store and a relaxed amoswap: no release, the store races");
    finish(&u);
}

/* A release store by two lanes (1 and 3) after another warp's plain store: its lowest
 * lane is the one reported. */
static void test_release_store_lowest_lane(void)
{
    run u;
    start(&u, 1);
    store(&u, 0, 0x80000100, LOCK, 0);
    issue(&u, 1, 0x80000200, FENCE_RW_W, NULL, 0, NULL, 0, NULL, 0);
    const vx_memwrite two[] = {{.addr = LOCK, .size = 4, .lane = 1, .value = 1},
                               {.addr = LOCK, .size = 4, .lane = 3, .value = 1}};
    issue(&u, 1, 0x80000204, INSN_PLAIN, NULL, 0, two, 2, NULL, 0);
    const vxr_race *x = race0(&u);
    ok(nraces(&u) == 1 && x && x->kind == VXR_WW && x->count == 4 && x->addr == LOCK &&
           x->cur.lane == 1 && x->prev.gwarp == 0,
       "a plain store, then lanes 1 and 3 of another warp's release store: write then "
       "write, 4 bytes, lane 1");
    finish(&u);
}

/* One warp running the same store twice (a loop) with different values: its own order,
 * not two lanes of one store. */
static void test_same_store_twice(void)
{
    run u;
    start(&u, 1);
    store(&u, 0, 0x80000100, GLOBAL_X, 1);
    store(&u, 0, 0x80000100, GLOBAL_X, 2);
    const vx_memwrite b1 = {.addr = GLOBAL_Y + 1, .size = 1, .lane = 0, .value = 1};
    const vx_memwrite b2 = {.addr = GLOBAL_Y + 1, .size = 1, .lane = 0, .value = 2};
    issue(&u, 0, 0x80000104, INSN_PLAIN, NULL, 0, &b1, 1, NULL, 0);
    issue(&u, 0, 0x80000104, INSN_PLAIN, NULL, 0, &b2, 1, NULL, 0);
    is_int((long long)nraces(&u), 0,
           "a warp's sw, then sb, each run twice with other values: no race");
    finish(&u);
}

/* A read set past RSET_SMALL (40 reads) whose reader acquired after some of them: the
 * read it is ordered after goes (warp 40's, before warp 41's by their barrier), as in a
 * small set; the reads after the acquire stay. */
static void test_large_set_prunes(void)
{
    run u;
    start(&u, 16);
    for (uint32_t g = 1; g <= 40; g++)
        load(&u, g, 0x80000200, GLOBAL_X, 0);
    const uint32_t b[] = {40, 41};
    barrier(&u, b, 2, 0);
    for (uint32_t g = 42; g <= 45; g++)
        load(&u, g, 0x80000200, GLOBAL_X, 0);
    load(&u, 41, 0x80000200, GLOBAL_X, 0);
    store(&u, 0, 0x80000100, GLOBAL_X, 1);
    const vxr_race *x = race0(&u);
    ok(nraces(&u) == 1 && x && x->kind == VXR_RW && x->count == 44 * 4 && x->prev.gwarp == 1 &&
           x->cur.gwarp == 0,
       "reads by warps 1-40, a barrier of 40 and 41, reads by 42-45 and 41, a write: races "
       "with 44 reads (not warp 40's), 176 byte pairs");
    finish(&u);
}

/* The same for a set whose ring has wrapped round (its first reads went, so it starts
 * past the array's start), looked through whole by a reader that acquired after all of
 * its reads: the reads ordered before that reader go. */
static void test_wrapped_set_prunes(void)
{
    run u;
    start(&u, 16);
    for (uint32_t g = 1; g <= 48; g++) /* 48 reads: a ring of 64 */
        load(&u, g, 0x80000200, GLOBAL_X, 0);
    all_meet(&u, 32, 0x80000000u); /* warps 0-31 */
    for (uint32_t g = 49; g <= 52; g++)
        load(&u, g, 0x80000200, GLOBAL_X, 0);
    load(&u, 0, 0x80000200, GLOBAL_X, 0); /* 1-31's reads go: 22 left, from the 32nd */
    for (uint32_t g = 53; g <= 62; g++)
        load(&u, g, 0x80000200, GLOBAL_X, 0);
    for (uint32_t g = 1; g <= 3; g++) /* 35 reads, past the array's end */
        load(&u, g, 0x80000200, GLOBAL_X, 0);
    const uint32_t b[] = {56, 57, 58, 59};
    barrier(&u, b, 4, 0);
    load(&u, 56, 0x80000200, GLOBAL_X, 0); /* 57-59's (and its own) go: 32 left */
    store(&u, 63, 0x80000100, GLOBAL_X, 1);
    const vxr_race *x = race0(&u);
    ok(nraces(&u) == 1 && x && x->kind == VXR_RW && x->count == 32 * 4 && x->cur.gwarp == 63,
       "reads, a global barrier of warps 0-31, more reads, then a barrier of 56-59 and 56's "
       "read: a write races with 32 reads, 128 byte pairs");
    finish(&u);
}

int main(void)
{
    test_unordered();
    test_barrier();
    test_read_sets();
    test_many_readers();
    test_lanes();
    test_atomics();
    test_plain_then_atomic();
    test_release_store_mapping();
    test_spawn_and_end();
    test_spaces();
    test_global_barrier_and_end();
    test_bytes_of_a_word();
    test_fence_kinds();
    test_misaligned_from_sync_word();
    test_byte_release_store();
    test_acquire_what_was_read();
    test_injected();
    test_reset();
    test_dedup_and_limit();
    test_lanes_in_split_word();
    test_report_len();
    test_lr_after_plain_store();
    test_barrier_reused();
    test_spawn_waiting_for_end();
    test_fence_w_rw();
    test_io_window();
    test_split_keeps_reads();
    test_release_fence_once();
    test_release_store_lowest_lane();
    test_same_store_twice();
    test_large_set_prunes();
    test_wrapped_set_prunes();
    tap_done();
    return tap_exit();
}
