/*
 * t-dm.c - the VxDebug Debug Module at register level (sim/dm.c, vxdebug-spec.md).
 *
 * Every register and field: reset values, read-only fields, W1 bits, windows over
 * 64 warps, summary bits, each hacause, the step and inject state machines,
 * dmactive = 0, DPC, the DSCRATCH back door seen by the core as CSR 0x7B2.., the
 * injection classes, reset-halt, ebreak halt, DM events and snapshots.  The guest
 * programs are hand-encoded here; expected values are computed by hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "vx_sim.h"

/* ---- RV32 encoders (macros, so that static program arrays can use them) ------------------- */

#define ENC_I(op, f3, rd, rs1, imm)                                                      \
    ((((uint32_t)(imm)) & 0xFFFu) << 20 | (uint32_t)(rs1) << 15 | (uint32_t)(f3) << 12 | \
     (uint32_t)(rd) << 7 | (uint32_t)(op))
#define ENC_S(op, f3, rs1, rs2, imm)                                                          \
    ((((uint32_t)(imm)) >> 5 & 0x7Fu) << 25 | (uint32_t)(rs2) << 20 | (uint32_t)(rs1) << 15 | \
     (uint32_t)(f3) << 12 | (((uint32_t)(imm)) & 0x1Fu) << 7 | (uint32_t)(op))
#define ENC_R(op, f3, f7, rd, rs1, rs2)                                                            \
    ((uint32_t)(f7) << 25 | (uint32_t)(rs2) << 20 | (uint32_t)(rs1) << 15 | (uint32_t)(f3) << 12 | \
     (uint32_t)(rd) << 7 | (uint32_t)(op))
#define ENC_J(rd, off)                                                                \
    ((((uint32_t)(off)) >> 20 & 1u) << 31 | (((uint32_t)(off)) >> 1 & 0x3FFu) << 21 | \
     (((uint32_t)(off)) >> 11 & 1u) << 20 | (((uint32_t)(off)) >> 12 & 0xFFu) << 12 | \
     (uint32_t)(rd) << 7 | 0x6Fu)
#define ENC_B(f3, rs1, rs2, off)                                                     \
    ((((uint32_t)(off)) >> 12 & 1u) << 31 | (((uint32_t)(off)) >> 5 & 0x3Fu) << 25 | \
     (uint32_t)(rs2) << 20 | (uint32_t)(rs1) << 15 | (uint32_t)(f3) << 12 |          \
     (((uint32_t)(off)) >> 1 & 0xFu) << 8 | (((uint32_t)(off)) >> 11 & 1u) << 7 | 0x63u)

#define ADDI(rd, rs1, imm)     ENC_I(0x13, 0, rd, rs1, imm)
#define LW(rd, rs1, imm)       ENC_I(0x03, 2, rd, rs1, imm)
#define SW(rs2, rs1, imm)      ENC_S(0x23, 2, rs1, rs2, imm)
#define CSRRW(rd, csr, rs1)    ENC_I(0x73, 1, rd, rs1, (int32_t)(csr))
#define CSRRS(rd, csr, rs1)    ENC_I(0x73, 2, rd, rs1, (int32_t)(csr))
#define CSRR(rd, csr)          CSRRS(rd, csr, 0)
#define CSRW(csr, rs1)         CSRRW(0, csr, rs1)
#define LUI(rd, imm20)         ((uint32_t)(imm20) << 12 | (rd) << 7 | 0x37u)
#define AUIPC(rd, imm20)       ((uint32_t)(imm20) << 12 | (rd) << 7 | 0x17u)
#define JAL(rd, off)           ENC_J(rd, off)
#define JALR(rd, rs1, imm)     ENC_I(0x67, 0, rd, rs1, imm)
#define BEQ(rs1, rs2, off)     ENC_B(0, rs1, rs2, off)
#define TMC(rs1)               ENC_R(0x0B, 0, 0, 0, rs1, 0)
#define WSPAWN(rs1, rs2)       ENC_R(0x0B, 1, 0, 0, rs1, rs2)
#define BAR(rs1, rs2)          ENC_R(0x0B, 4, 0, 0, rs1, rs2)
#define AMOADD_W(rd, rs1, rs2) ENC_R(0x2F, 2, 0x00, rd, rs1, rs2)
#define FMV_W_X(rd, rs1)       ENC_R(0x53, 0, 0x78, rd, rs1, 0)
#define FMV_X_W(rd, rs1)       ENC_R(0x53, 0, 0x70, rd, rs1, 0)
#define FADD_S(rd, rs1, rs2)   ENC_R(0x53, 0, 0x00, rd, rs1, rs2)
#define MUL(rd, rs1, rs2)      ENC_R(0x33, 0, 0x01, rd, rs1, rs2)
#define EBREAK                 0x00100073u
#define ECALL                  0x00000073u
#define MRET                   0x30200073u
#define FENCE                  0x0FF0000Fu
#define NOP                    ADDI(0, 0, 0)

#define BASE 0x80000000u
#define DATA 0x00010000u /* user memory */

/* CSRs */
#define CSR_DSCRATCH0 0x7B2u
#define CSR_THREAD_ID 0xCC0u
#define CSR_WARP_ID   0xCC1u
#define CSR_MHARTID   0xF14u

/* DCTRL bits (vxdebug-spec.md) */
#define DA      (1u << 31)
#define NT      (1u << 30)
#define AH      (1u << 29)
#define NH      (1u << 28)
#define AR      (1u << 27)
#define NR      (1u << 26)
#define AU      (1u << 25)
#define NU      (1u << 24)
#define SERR    (1u << 13)
#define IERR    (1u << 12)
#define HR      (1u << 0)
#define RR      (1u << 1)
#define RHR     (1u << 2)
#define SR      (1u << 3)
#define IR      (1u << 6)
#define SUMMARY (AH | NH | AR | NR | AU | NU)
#define HC(v)   (((v) >> 9) & 7u)
#define IST(v)  (((v) >> 7) & 3u)
#define SST(v)  (((v) >> 4) & 3u)

/* ---- event capture --------------------------------------------------------------------- */

#define MAXEV 4096
static vx_dm_event evs[MAXEV];
static int nev;
static int nissue, nstep_issue, ninject_issue;
static uint32_t last_inject_tmask_lane;
static uint64_t first_issue_cycle; /* of the first issue since ev_clear (UINT64_MAX: none) */

static void observer(void *ctx, const vx_event *ev)
{
    (void)ctx;
    if (ev->kind == VX_EV_DM) {
        if (nev < MAXEV) evs[nev++] = ev->dm;
    } else if (ev->kind == VX_EV_ISSUE) {
        if (!nissue++) first_issue_cycle = ev->cycle;
        if (ev->flags & VX_EVF_STEP) nstep_issue++;
        if (ev->flags & VX_EVF_INJECTED) {
            ninject_issue++;
            last_inject_tmask_lane = vx_lanes_first(ev->tmask);
        }
    }
}

static void ev_clear(void)
{
    nev = 0;
    nissue = nstep_issue = ninject_issue = 0;
    first_issue_cycle = UINT64_MAX;
}

/* Index of the first event with this op (and gwarp if >= 0) at or after from, or -1. */
static int ev_find(int from, uint8_t op, long gwarp)
{
    for (int i = from; i < nev; i++)
        if (evs[i].op == op && (gwarp < 0 || evs[i].gwarp == (uint32_t)gwarp)) return i;
    return -1;
}

static int ev_count(uint8_t op)
{
    int n = 0;
    for (int i = 0; i < nev; i++)
        n += evs[i].op == op;
    return n;
}

/* ---- machine helpers ------------------------------------------------------------------- */

static vx_sim *mk(uint32_t clusters, uint32_t cores, uint32_t warps, uint32_t threads,
                  const uint32_t *prog, size_t n)
{
    vx_sim_config cfg = VX_SIM_CONFIG_INIT;
    vx_sim *sim = NULL;
    cfg.clusters = clusters;
    cfg.cores = cores;
    cfg.warps = warps;
    cfg.threads = threads;
    if (vx_sim_new(&cfg, &sim) != VX_OK) tap_bail("vx_sim_new failed");
    uint8_t *bytes = malloc(n * 4);
    for (size_t i = 0; i < n; i++)
        vx_put_le32(bytes + 4 * i, prog[i]);
    if (vx_sim_mem_write(sim, 0, BASE, bytes, n * 4) != VX_OK) tap_bail("mem_write failed");
    free(bytes);
    vx_sim_reset(sim);
    vx_sim_set_observer(sim, observer, NULL, 0);
    ev_clear();
    return sim;
}

static uint32_t rd(vx_sim *sim, uint32_t addr)
{
    uint32_t v = 0xDEADBEEF;
    if (vx_sim_dm_read(sim, addr, &v) != VX_OK) diag("dm_read(0x%x) failed", addr);
    return v;
}

static void wr(vx_sim *sim, uint32_t addr, uint32_t v)
{
    if (vx_sim_dm_write(sim, addr, v) != VX_OK) diag("dm_write(0x%x) failed", addr);
}

static void tick(vx_sim *sim, int n)
{
    while (n-- > 0)
        vx_sim_dm_tick(sim);
}

/*
 * vx_sim_run may stop in the middle of a cycle (after max_issues); the DM's cycle
 * is at the start of a cycle, so the first tick after that only completes the
 * cycle.  Call this (with no DM request pending) before counting DM cycles.
 */
static void align(vx_sim *sim)
{
    vx_sim_dm_tick(sim);
}

static vx_stop run(vx_sim *sim, uint64_t n)
{
    vx_stop st;
    memset(&st, 0, sizeof st);
    if (vx_sim_run(sim, n, &st) != VX_OK) diag("vx_sim_run: %s", vx_sim_errmsg(sim));
    return st;
}

static vx_warp_info winfo(vx_sim *sim, uint32_t g)
{
    vx_warp_info wi;
    memset(&wi, 0, sizeof wi);
    if (vx_sim_warp_info(sim, g, &wi) != VX_OK) diag("warp_info(%u) failed", g);
    return wi;
}

static uint32_t xreg(vx_sim *sim, uint32_t g, uint32_t lane, uint32_t r)
{
    uint32_t v = 0xDEADBEEF;
    if (vx_sim_reg_read(sim, g, lane, VX_RF_X, r, &v) != VX_OK) diag("reg_read failed");
    return v;
}

static uint32_t dsel(uint32_t winsel, uint32_t warp, uint32_t thread)
{
    return winsel << 22 | warp << 7 | thread;
}

/* Select (warp, thread) and halt exactly that warp. */
static void halt_only(vx_sim *sim, uint32_t g)
{
    uint32_t nw = vx_sim_num_warps(sim);
    for (uint32_t w = 0; w * 32 < nw || w == 0; w++) {
        wr(sim, VX_DM_DSELECT, dsel(w, g, 0));
        wr(sim, VX_DM_WMASK, g / 32 == w || nw <= 32 ? 1u << (g % 32) : 0);
        if (nw <= 32) break;
    }
    wr(sim, VX_DM_DSELECT, dsel(g / 32, g, 0));
    wr(sim, VX_DM_DCTRL, DA | HR);
    align(sim);
}

/* Inject one instruction into the selected (halted) warp and let it complete. */
static uint32_t inject(vx_sim *sim, uint32_t insn)
{
    wr(sim, VX_DM_INJECT, insn);
    wr(sim, VX_DM_DCTRL, DA | IR);
    tick(sim, 2);
    return rd(sim, VX_DM_DCTRL);
}

/* A loop every warp can run forever: x7 += 1. */
static const uint32_t prog_loop[] = {
    ADDI(7, 7, 1), /* 0x00 */
    JAL(0, -4),    /* 0x04 */
};

/* Warp 0 spawns all warps of its core into the loop at 0x20, then loops itself. */
static uint32_t prog_spawn[16];

static void build_spawn(uint32_t nw)
{
    uint32_t p[] = {
        ADDI(5, 0, (int32_t)nw), /* 0x00 t0 = nw */
        LUI(6, 0x80000),         /* 0x04 t1 = 0x80000000 */
        ADDI(6, 6, 0x20),        /* 0x08 t1 = 0x80000020 */
        WSPAWN(5, 6),            /* 0x0c */
        JAL(0, 0x10),            /* 0x10 -> 0x20 */
        NOP,
        NOP,
        NOP,           /* 0x14..0x1c */
        ADDI(7, 7, 1), /* 0x20 */
        JAL(0, -4),    /* 0x24 */
    };
    memset(prog_spawn, 0, sizeof prog_spawn);
    memcpy(prog_spawn, p, sizeof p);
}

/* Ends with exit code 7. */
static const uint32_t prog_exit[] = {
    ADDI(10, 0, 7),  /* a0 = 7 */
    SW(10, 0, 0x88), /* exit code */
    TMC(0),          /* done */
};

/* ebreak at BASE + 8 */
static const uint32_t prog_ebreak[] = {
    ADDI(5, 0, 1),  /* 0x00 */
    ADDI(5, 5, 1),  /* 0x04 */
    EBREAK,         /* 0x08 */
    ADDI(5, 5, 40), /* 0x0c */
    ADDI(10, 5, 0), /* 0x10 a0 = x5 */
    SW(10, 0, 0x88), TMC(0),
};

/* ---- tests ----------------------------------------------------------------------------- */

static void test_platform_and_inactive(void)
{
    vx_sim *sim = mk(2, 4, 8, 4, prog_loop, 2);
    /* 1 << 28 | 2 << 21 | 4 << 12 | 8 << 3 | log2(4) */
    uint32_t want = 0x10000000u | 2u << 21 | 4u << 12 | 8u << 3 | 2u;
    is_u32(rd(sim, VX_DM_PLATFORM), want, "PLATFORM 2x4x8x4 = 0x%08x (readable while inactive)",
           want);
    vx_sim *s2 = mk(1, 1, 4, 128, prog_loop, 2);
    is_u32(rd(s2, VX_DM_PLATFORM), 0x10000000u | 1u << 21 | 1u << 12 | 4u << 3 | 7u,
           "PLATFORM 1x1x4x128: numthreads field = 7");
    vx_sim_free(s2);
    s2 = mk(127, 2, 1, 1, prog_loop, 2);
    is_u32(rd(s2, VX_DM_PLATFORM), 0x10000000u | 127u << 21 | 2u << 12 | 1u << 3 | 0u,
           "PLATFORM 127x2x1x1: numclusters field holds 127");
    vx_sim_free(s2);
    s2 = mk(1, 511, 1, 2, prog_loop, 2);
    is_u32(rd(s2, VX_DM_PLATFORM), 0x10000000u | 1u << 21 | 511u << 12 | 1u << 3 | 1u,
           "PLATFORM 1x511x1x2: numcores field holds 511");
    vx_sim_free(s2);
    s2 = mk(1, 1, 511, 2, prog_loop, 2);
    is_u32(rd(s2, VX_DM_PLATFORM), 0x10000000u | 1u << 21 | 1u << 12 | 511u << 3 | 1u,
           "PLATFORM 1x1x511x2: numwarps field holds 511");
    vx_sim_free(s2);

    /* dmactive = 0: everything else reads 0 and ignores writes */
    int bad = 0;
    for (uint32_t a = 1; a < VX_DM_NREGS; a++)
        bad += rd(sim, a) != 0;
    is_int(bad, 0, "inactive: registers 0x1..0xC read 0");
    wr(sim, VX_DM_DSELECT, 0x12345678);
    wr(sim, VX_DM_DCONFIG, 0xFFFFFFFF);
    wr(sim, VX_DM_WMASK, 0xFFFFFFFF);
    wr(sim, VX_DM_INJECT, 0xFFFFFFFF);
    wr(sim, VX_DM_DCTRL, HR); /* haltreq without dmactive: nothing */
    ok(!winfo(sim, 0).halted, "inactive: haltreq without dmactive does nothing");
    wr(sim, VX_DM_DCTRL, DA);
    is_u32(rd(sim, VX_DM_DSELECT), 0, "writes while inactive were ignored (DSELECT)");
    is_u32(rd(sim, VX_DM_WMASK), 0, "writes while inactive were ignored (WMASK)");
    is_u32(rd(sim, VX_DM_INJECT), 0, "writes while inactive were ignored (INJECT)");
    is_u32(rd(sim, VX_DM_DCONFIG), 0x88000000u, "DCONFIG reset: NRC 4, RHC 2, ebreakh 0");
    uint32_t d = rd(sim, VX_DM_DCTRL);
    ok(d & DA, "dmactive reads 1 after activation");
    is_u32(d & 0x00FFFFFFu & ~(7u << 9), 0, "DCTRL: no request, state or error bits at reset");
    is_u32(rd(sim, VX_DM_PLATFORM), want, "PLATFORM ignores writes");
    wr(sim, VX_DM_PLATFORM, 0);
    is_u32(rd(sim, VX_DM_PLATFORM), want, "PLATFORM still the same after a write");
    uint32_t v;
    is_int(vx_sim_dm_read(sim, VX_DM_NREGS, &v), VX_ERR_RANGE, "address 0xD: VX_ERR_RANGE");
    is_int(vx_sim_dm_write(sim, 0xFFFF, 0), VX_ERR_RANGE, "address 0xFFFF: VX_ERR_RANGE");
    vx_sim_free(sim);
}

static void test_config_select(void)
{
    vx_sim *sim = mk(2, 4, 8, 4, prog_loop, 2);
    wr(sim, VX_DM_DCTRL, DA);
    wr(sim, VX_DM_DCONFIG, 0xFFFFFFFF);
    is_u32(rd(sim, VX_DM_DCONFIG), 0xFC000001u, "DCONFIG: reserved bits [25:1] read 0");
    wr(sim, VX_DM_DCONFIG, 3u << 29 | 5u << 26);
    is_u32(rd(sim, VX_DM_DCONFIG), 3u << 29 | 5u << 26, "DCONFIG NRC/RHC round trip");
    wr(sim, VX_DM_DSELECT, 0xFFFFFFFF);
    is_u32(rd(sim, VX_DM_DSELECT), 0xFFFFFFFF,
           "DSELECT keeps all 32 bits (winsel/warpsel/threadsel)");
    wr(sim, VX_DM_DSELECT, dsel(1, 37, 3));
    is_u32(rd(sim, VX_DM_DSELECT), 1u << 22 | 37u << 7 | 3u, "DSELECT field layout");
    wr(sim, VX_DM_INJECT, 0xCAFEF00D);
    is_u32(rd(sim, VX_DM_INJECT), 0xCAFEF00D, "INJECT round trip");
    vx_sim_free(sim);
}

static void test_windows(void)
{
    /* 2 clusters x 4 cores x 8 warps = 64 warps: two windows */
    vx_sim *sim = mk(2, 4, 8, 4, prog_loop, 2);
    wr(sim, VX_DM_DCTRL, DA);
    wr(sim, VX_DM_DSELECT, dsel(0, 0, 0));
    wr(sim, VX_DM_WMASK, 0xAAAAAAAA);
    wr(sim, VX_DM_DSELECT, dsel(1, 0, 0));
    wr(sim, VX_DM_WMASK, 0x00000101);
    wr(sim, VX_DM_DSELECT, dsel(2, 0, 0));
    wr(sim, VX_DM_WMASK, 0xFFFFFFFF);
    is_u32(rd(sim, VX_DM_WMASK), 0, "window 2 of 64 warps reads 0");
    wr(sim, VX_DM_DSELECT, dsel(0, 0, 0));
    is_u32(rd(sim, VX_DM_WMASK), 0xAAAAAAAA, "window 0 mask kept");
    wr(sim, VX_DM_DSELECT, dsel(1, 0, 0));
    is_u32(rd(sim, VX_DM_WMASK), 0x00000101,
           "window 1 mask kept (a write to window 2 did not alias)");

    /* Warp 0 of each core is active at reset: gwarps 0, 8, 16, ..., 56 */
    wr(sim, VX_DM_DSELECT, dsel(0, 0, 0));
    is_u32(rd(sim, VX_DM_WACTIVE), 0x01010101, "WACTIVE window 0: warp 0 of cores 0..3");
    wr(sim, VX_DM_DSELECT, dsel(1, 0, 0));
    is_u32(rd(sim, VX_DM_WACTIVE), 0x01010101, "WACTIVE window 1: warp 0 of cores 4..7");
    wr(sim, VX_DM_DSELECT, dsel(3, 0, 0));
    is_u32(rd(sim, VX_DM_WACTIVE), 0, "WACTIVE beyond the platform reads 0");
    wr(sim, VX_DM_WACTIVE, 0xFFFFFFFF);
    wr(sim, VX_DM_DSELECT, dsel(0, 0, 0));
    is_u32(rd(sim, VX_DM_WACTIVE), 0x01010101, "WACTIVE is read-only");

    /* haltreq halts exactly the selected warps: window 1 bits 0 and 8 = gwarps 32, 40;
     * window 0 = odd warps (none of them active; they are halted too). */
    ev_clear();
    wr(sim, VX_DM_DCTRL, DA | HR);
    int bad = 0;
    for (uint32_t g = 0; g < 64; g++) {
        bool want = (g < 32 && (g & 1)) || g == 32 || g == 40;
        if (winfo(sim, g).halted != want) bad++;
    }
    is_int(bad, 0, "haltreq halted exactly the warps of the global mask (both windows)");
    wr(sim, VX_DM_DSELECT, dsel(0, 0, 0));
    is_u32(rd(sim, VX_DM_WSTATUS), 0xAAAAAAAA, "WSTATUS window 0");
    wr(sim, VX_DM_DSELECT, dsel(1, 0, 0));
    is_u32(rd(sim, VX_DM_WSTATUS), 0x00000101, "WSTATUS window 1");
    wr(sim, VX_DM_WSTATUS, 0);
    is_u32(rd(sim, VX_DM_WSTATUS), 0x00000101, "WSTATUS is read-only");
    is_int(ev_count(VX_DM_HALT), 18, "one HALT event per halted warp (16 + 2)");
    int h = ev_find(0, VX_DM_HALT, 40);
    ok(h >= 0 && evs[h].arg == VX_HACAUSE_HALTREQ, "HALT event of gwarp 40 has cause HALTREQ");

    /* the running warps keep running; the halted ones do not issue */
    uint64_t before32 = winfo(sim, 32).issued, before0 = winfo(sim, 0).issued;
    run(sim, 200);
    is_u64(winfo(sim, 32).issued, before32, "halted gwarp 32 did not issue");
    ok(winfo(sim, 0).issued > before0, "unhalted gwarp 0 kept issuing");

    /* resume window 1 only */
    wr(sim, VX_DM_DSELECT, dsel(0, 0, 0));
    wr(sim, VX_DM_WMASK, 0);
    ev_clear();
    wr(sim, VX_DM_DCTRL, DA | RR);
    ok(!winfo(sim, 32).halted && !winfo(sim, 40).halted, "resumereq resumed gwarps 32 and 40");
    ok(winfo(sim, 1).halted, "gwarp 1 (mask cleared) stays halted");
    is_int(ev_count(VX_DM_RESUME), 2, "two RESUME events");
    vx_sim_free(sim);

    /* fewer than 32 warps: bits beyond the platform read 0; windows 1 and up hold no
     * warp (they read 0 and ignore writes, as beyond any platform) */
    sim = mk(1, 1, 4, 4, prog_loop, 2);
    wr(sim, VX_DM_DCTRL, DA);
    wr(sim, VX_DM_WMASK, 0xFFFFFFFF);
    is_u32(rd(sim, VX_DM_WMASK), 0xF, "4 warps: WMASK keeps bits 0..3 only");
    wr(sim, VX_DM_DSELECT, dsel(5, 0, 0));
    is_u32(rd(sim, VX_DM_WMASK), 0, "4 warps: window 5 reads 0");
    is_u32(rd(sim, VX_DM_WACTIVE), 0, "4 warps: window 5 has no active warp");
    wr(sim, VX_DM_WMASK, 0);
    wr(sim, VX_DM_DSELECT, dsel(1, 0, 0));
    wr(sim, VX_DM_WMASK, 0);
    wr(sim, VX_DM_DSELECT, dsel(0, 0, 0));
    is_u32(rd(sim, VX_DM_WMASK), 0xF, "4 warps: writes to windows 1 and 5 leave window 0");
    is_u32(rd(sim, VX_DM_WACTIVE), 0x1, "4 warps: WACTIVE = warp 0");
    vx_sim_free(sim);
}

static void test_summary(void)
{
    build_spawn(4);
    vx_sim *sim = mk(1, 1, 4, 4, prog_spawn, 10);
    wr(sim, VX_DM_DCTRL, DA);
    is_u32(rd(sim, VX_DM_DCTRL) & SUMMARY, AR | NR | NU,
           "reset, warp 0 running, warps 1-3 unavailable: allrunning anyrunning anyunavail");
    run(sim, 50);
    is_u32(winfo(sim, 3).active, 1, "(all four warps spawned)");
    is_u32(rd(sim, VX_DM_DCTRL) & SUMMARY, AR | NR,
           "all available and running: allrunning anyrunning");
    wr(sim, VX_DM_WMASK, 0x2);
    wr(sim, VX_DM_DCTRL, DA | HR);
    is_u32(rd(sim, VX_DM_DCTRL) & SUMMARY, NH | NR, "one halted: anyhalted anyrunning");
    wr(sim, VX_DM_WMASK, 0xF);
    wr(sim, VX_DM_DCTRL, DA | HR);
    is_u32(rd(sim, VX_DM_DCTRL) & SUMMARY, AH | NH, "all halted: allhalted anyhalted");
    vx_stop st = run(sim, 100);
    is_int(st.reason, VX_STOP_IDLE, "all warps halted: vx_sim_run reports IDLE");
    wr(sim, VX_DM_DCTRL, DA | RR);
    is_u32(rd(sim, VX_DM_DCTRL) & SUMMARY, AR | NR, "resumed: allrunning anyrunning");
    vx_sim_free(sim);

    /* none available: the kernel has ended */
    sim = mk(1, 1, 4, 4, prog_exit, 3);
    wr(sim, VX_DM_DCTRL, DA);
    st = run(sim, 100);
    is_int(st.reason, VX_STOP_EXIT, "(exit program ended)");
    is_u32(st.exit_code, 7, "(exit code 7)");
    is_u32(rd(sim, VX_DM_DCTRL) & SUMMARY, AU | NU,
           "no warp available: allunavail anyunavail, all/any halted/running read 0");
    vx_sim_free(sim);

    /* some halted, some unavailable, none running */
    sim = mk(1, 1, 4, 4, prog_loop, 2);
    wr(sim, VX_DM_DCTRL, DA);
    wr(sim, VX_DM_WMASK, 0x1);
    wr(sim, VX_DM_DCTRL, DA | HR);
    is_u32(rd(sim, VX_DM_DCTRL) & SUMMARY, AH | NH | NU,
           "only available warp halted: allhalted anyhalted anyunavail");
    vx_sim_free(sim);
}

static void test_w1_and_priority(void)
{
    vx_sim *sim = mk(1, 1, 4, 4, prog_loop, 2);
    wr(sim, VX_DM_DCTRL, DA);
    wr(sim, VX_DM_WMASK, 0x1);
    wr(sim, VX_DM_DCTRL, DA | HR | RR);
    ok(winfo(sim, 0).halted, "haltreq + resumereq in one write: halt wins");
    uint32_t d = rd(sim, VX_DM_DCTRL);
    is_u32(d & (HR | RR | RHR | SR | IR), 0, "W1 bits read 0");
    /* resume > step */
    wr(sim, VX_DM_DCTRL, DA | RR | SR);
    d = rd(sim, VX_DM_DCTRL);
    ok(!winfo(sim, 0).halted && SST(d) == 0, "resumereq + stepreq: resume wins, no step");
    /* step > inject */
    wr(sim, VX_DM_DCTRL, DA | HR);
    wr(sim, VX_DM_INJECT, ADDI(9, 0, 99));
    wr(sim, VX_DM_DCTRL, DA | SR | IR);
    d = rd(sim, VX_DM_DCTRL);
    ok(SST(d) == 1 && IST(d) == 0,
       "stepreq + injectreq: step wins (stepstate REQ, injectstate NONE)");
    tick(sim, 2);
    is_u32(xreg(sim, 0, 0, 9), 0, "the injection was not carried out");
    vx_sim_free(sim);
}

static void test_step(void)
{
    vx_sim *sim = mk(1, 1, 4, 4, prog_loop, 2);
    wr(sim, VX_DM_DCTRL, DA);
    run(sim, 3); /* x7 = 2, PC at 0x04 (jal) after 3 issues: addi, jal, addi */
    halt_only(sim, 0);
    vx_warp_info wi = winfo(sim, 0);
    uint32_t pc0 = wi.pc, x7 = xreg(sim, 0, 0, 7);
    is_u32(pc0, BASE + 4, "(halted at 0x80000004)");
    uint32_t d = rd(sim, VX_DM_DCTRL);
    is_u32(HC(d), VX_HACAUSE_HALTREQ, "hacause HALTREQ after haltreq");
    is_u32(rd(sim, VX_DM_DPC), pc0, "DPC reads the halted PC");
    ev_clear();
    wr(sim, VX_DM_DCTRL, DA | SR);
    d = rd(sim, VX_DM_DCTRL);
    is_u32(SST(d), 1, "stepstate REQ after the write");
    is_u32(winfo(sim, 0).pc, pc0, "nothing executed before the DM cycle");
    tick(sim, 1);
    d = rd(sim, VX_DM_DCTRL);
    is_u32(SST(d), 2, "stepstate INFLIGHT in the cycle it executes");
    is_u32(winfo(sim, 0).pc, BASE, "one instruction (the jal) executed");
    is_int(nstep_issue, 1, "one issue flagged VX_EVF_STEP");
    tick(sim, 1);
    d = rd(sim, VX_DM_DCTRL);
    is_u32(SST(d), 0, "stepstate NONE afterwards");
    ok(winfo(sim, 0).halted, "warp still halted after the step");
    is_u32(HC(d), VX_HACAUSE_STEP, "hacause STEP");
    ok(!(d & SERR), "steperr clear");
    wr(sim, VX_DM_DCTRL, DA | SR);
    tick(sim, 2);
    is_u32(xreg(sim, 0, 0, 7), x7 + 1, "second step executed the addi (x7 + 1)");
    is_u32(rd(sim, VX_DM_DPC), BASE + 4, "DPC after the second step");
    /* run the others: the halted warp does not move */
    run(sim, 20);
    is_u32(rd(sim, VX_DM_DPC), BASE + 4, "stepped warp stays halted");

    /* step a running warp: refused */
    wr(sim, VX_DM_DCTRL, DA | RR);
    wr(sim, VX_DM_DCTRL, DA | SR);
    d = rd(sim, VX_DM_DCTRL);
    ok(SST(d) == 0 && (d & SERR), "step of a running warp: stepstate NONE, steperr set");
    is_u32(HC(d), 0, "hacause 0 for a running warp");
    /* step a nonexistent warp: refused */
    wr(sim, VX_DM_DSELECT, dsel(0, 100, 0));
    wr(sim, VX_DM_DCTRL, DA | SR);
    d = rd(sim, VX_DM_DCTRL);
    ok(SST(d) == 0 && (d & SERR), "step of warpsel 100 (no such warp): refused");
    is_u32(HC(d), 0, "hacause 0 for a nonexistent warp");
    is_u32(rd(sim, VX_DM_DPC), 0, "DPC of a nonexistent warp reads 0");
    /* a busy step refuses a second request */
    halt_only(sim, 0);
    wr(sim, VX_DM_DCTRL, DA | SR);
    wr(sim, VX_DM_DCTRL, DA | SR);
    d = rd(sim, VX_DM_DCTRL);
    ok(SST(d) == 1 && (d & SERR), "second stepreq while one is pending: refused, first kept");
    tick(sim, 2);
    vx_sim_free(sim);
}

static void test_inject(void)
{
    vx_sim *sim = mk(1, 1, 4, 4, prog_loop, 2);
    wr(sim, VX_DM_DCTRL, DA);
    run(sim, 5);
    halt_only(sim, 0);
    vx_warp_info wi = winfo(sim, 0);

    /* GPR read: csrw dscratch, x7; read DSCRATCH0 */
    wr(sim, VX_DM_DSELECT, dsel(0, 0, 0));
    uint32_t x7 = xreg(sim, 0, 0, 7);
    ev_clear();
    wr(sim, VX_DM_INJECT, CSRW(CSR_DSCRATCH0, 7));
    wr(sim, VX_DM_DCTRL, DA | IR);
    uint32_t d = rd(sim, VX_DM_DCTRL);
    is_u32(IST(d), 1, "injectstate REQ after the write");
    tick(sim, 1);
    d = rd(sim, VX_DM_DCTRL);
    is_u32(IST(d), 2, "injectstate INFLIGHT in the cycle it executes");
    tick(sim, 1);
    d = rd(sim, VX_DM_DCTRL);
    is_u32(IST(d), 0, "injectstate NONE afterwards");
    ok(!(d & IERR), "injecterr clear");
    is_u32(rd(sim, VX_DM_DSCRATCH0), x7, "GPR read through injection + DSCRATCH0 = x7");
    is_int(ninject_issue, 1, "one issue flagged VX_EVF_INJECTED");
    vx_warp_info wi2 = winfo(sim, 0);
    ok(wi2.pc == wi.pc && wi2.tmask == wi.tmask && wi2.halted,
       "PC and mask unchanged, still halted");

    /* GPR write: DSCRATCH1 <- value; csrr x9, dscratch1 (lane 2 only) */
    wr(sim, VX_DM_DSELECT, dsel(0, 0, 2));
    wr(sim, VX_DM_DSCRATCH0 + 1, 0x5EED1234);
    inject(sim, CSRR(9, CSR_DSCRATCH0 + 1));
    is_u32(xreg(sim, 0, 2, 9), 0x5EED1234, "GPR write through DSCRATCH1 + injection (lane 2)");
    is_u32(xreg(sim, 0, 0, 9), 0, "other lanes untouched");
    is_u32(last_inject_tmask_lane, 2, "the injected issue ran on lane 2 only");

    /* DSCRATCH per thread: lanes see their own */
    for (uint32_t l = 0; l < 4; l++) {
        wr(sim, VX_DM_DSELECT, dsel(0, 0, l));
        for (uint32_t n = 0; n < 4; n++)
            wr(sim, VX_DM_DSCRATCH0 + n, 0x1000u * (l + 1) + n);
    }
    int bad = 0;
    for (uint32_t l = 0; l < 4; l++)
        for (uint32_t n = 0; n < 4; n++) {
            uint32_t v = 0;
            vx_sim_reg_read(sim, 0, l, VX_RF_CSR, CSR_DSCRATCH0 + n, &v);
            bad += v != 0x1000u * (l + 1) + n;
        }
    is_int(bad, 0, "DSCRATCH0..3 writes land in CSR 0x7B2..0x7B5 of the selected thread");
    wr(sim, VX_DM_DSELECT, dsel(0, 0, 3));
    inject(sim, CSRR(11, CSR_DSCRATCH0 + 3));
    is_u32(xreg(sim, 0, 3, 11), 0x4003, "core reads DSCRATCH3 with csrr (lane 3)");
    vx_sim_reg_write(sim, 0, 3, VX_RF_CSR, CSR_DSCRATCH0 + 2, 0xABCD);
    is_u32(rd(sim, VX_DM_DSCRATCH0 + 2), 0xABCD, "DSCRATCH2 reads the thread's CSR 0x7B4");
    is_int(ev_count(VX_DM_SCRATCH) >= 16, 1, "SCRATCH events for back-door writes");

    /* CSR reads by injection: thread id, warp id, mhartid */
    wr(sim, VX_DM_DSELECT, dsel(0, 0, 1));
    inject(sim, CSRR(12, CSR_THREAD_ID));
    inject(sim, CSRW(CSR_DSCRATCH0, 12));
    is_u32(rd(sim, VX_DM_DSCRATCH0), 1, "injected csrr thread_id = 1");
    inject(sim, CSRR(12, CSR_MHARTID));
    inject(sim, CSRW(CSR_DSCRATCH0, 12));
    is_u32(rd(sim, VX_DM_DSCRATCH0), 1, "injected csrr mhartid = 1 (core 0, warp 0, lane 1)");

    /* memory: sw then lw through injection */
    wr(sim, VX_DM_DSELECT, dsel(0, 0, 0));
    wr(sim, VX_DM_DSCRATCH0, DATA);
    inject(sim, CSRR(5, CSR_DSCRATCH0));
    wr(sim, VX_DM_DSCRATCH0, 0x600DF00D);
    inject(sim, CSRR(6, CSR_DSCRATCH0));
    d = inject(sim, SW(6, 5, 4));
    ok(!(d & IERR), "injected sw accepted");
    uint32_t m = 0;
    vx_sim_mem_read(sim, 0, DATA + 4, &m, 4);
    is_u32(m, 0x600DF00D, "injected sw wrote memory");
    d = inject(sim, LW(8, 5, 4));
    inject(sim, CSRW(CSR_DSCRATCH0, 8));
    is_u32(rd(sim, VX_DM_DSCRATCH0), 0x600DF00D, "injected lw read it back");
    /* AMO, MUL, FP, fence */
    d = inject(sim, AMOADD_W(8, 5, 6));
    ok(!(d & IERR), "amoadd.w accepted");
    vx_sim_mem_read(sim, 0, DATA, &m, 4);
    is_u32(m, 0x600DF00D, "amoadd.w added x6 to the word at DATA (was 0)");
    d = inject(sim, MUL(13, 6, 6));
    ok(!(d & IERR), "mul accepted");
    d = inject(sim, FMV_W_X(1, 6));
    ok(!(d & IERR), "fmv.w.x accepted");
    d = inject(sim, FADD_S(2, 1, 1));
    ok(!(d & IERR), "fadd.s accepted");
    d = inject(sim, FENCE);
    ok(!(d & IERR), "fence accepted");

    /* rejected classes */
    static const struct {
        uint32_t insn;
        const char *name;
    } rej[] = {
        {JAL(1, 8), "jal"},     {JALR(1, 5, 0), "jalr"}, {BEQ(0, 0, 8), "beq"},
        {AUIPC(5, 1), "auipc"}, {ECALL, "ecall"},        {EBREAK, "ebreak"},
        {MRET, "mret"},         {TMC(0), "tmc"},         {WSPAWN(5, 6), "wspawn"},
        {BAR(5, 6), "bar"},
    };

    for (size_t i = 0; i < VX_ARRAY_SIZE(rej); i++) {
        ev_clear();
        wi = winfo(sim, 0);
        d = inject(sim, rej[i].insn);
        int r = ev_find(0, VX_DM_INJECT_REJECT, 0);
        ok((d & IERR) && IST(d) == 0 && r >= 0 && evs[r].value == rej[i].insn && evs[r].arg == 1 &&
               ninject_issue == 0,
           "%s rejected: injecterr, INJECT_REJECT event (reason 1), nothing issued", rej[i].name);
        wi2 = winfo(sim, 0);
        ok(wi2.pc == wi.pc && wi2.tmask == wi.tmask && wi2.active && wi2.halted,
           "%s: warp state unchanged", rej[i].name);
    }
    d = inject(sim, ADDI(14, 0, 1));
    ok(!(d & IERR), "injecterr cleared by the next injectreq");

    /* a faulting injection does not end the kernel */
    wr(sim, VX_DM_DSCRATCH0, 0x00000001);
    inject(sim, CSRR(5, CSR_DSCRATCH0));
    ev_clear();
    d = inject(sim, LW(6, 5, 0)); /* misaligned load */
    int r = ev_find(0, VX_DM_INJECT_REJECT, 0);
    ok((d & IERR) && r >= 0 && evs[r].arg == 4, "faulting injected lw: injecterr, reason 4");
    ok(!vx_sim_finished(sim), "the kernel goes on after an injected fault");

    /* injection into a running warp: refused */
    wr(sim, VX_DM_DCTRL, DA | RR);
    ev_clear();
    d = inject(sim, ADDI(15, 0, 1));
    r = ev_find(0, VX_DM_INJECT_REJECT, -1);
    ok((d & IERR) && r >= 0 && evs[r].arg == 2 && ninject_issue == 0,
       "injection into a running warp: refused, reason 2");
    /* nonexistent thread */
    halt_only(sim, 0);
    wr(sim, VX_DM_DSELECT, dsel(0, 0, 4));
    ev_clear();
    d = inject(sim, ADDI(15, 0, 1));
    r = ev_find(0, VX_DM_INJECT_REJECT, -1);
    ok((d & IERR) && r >= 0 && evs[r].arg == 3, "threadsel 4 of 4 threads: refused, reason 3");
    is_u32(rd(sim, VX_DM_DSCRATCH0), 0, "DSCRATCH of a nonexistent thread reads 0");
    vx_sim_free(sim);
}

static void test_dpc(void)
{
    vx_sim *sim = mk(1, 1, 4, 4, prog_loop, 2);
    wr(sim, VX_DM_DCTRL, DA);
    run(sim, 4);
    uint32_t pc = winfo(sim, 0).pc;
    wr(sim, VX_DM_DPC, BASE + 0x40);
    is_u32(winfo(sim, 0).pc, pc, "DPC write to a running warp is ignored");
    halt_only(sim, 0);
    ev_clear();
    wr(sim, VX_DM_DPC, BASE);
    is_u32(winfo(sim, 0).pc, BASE, "DPC write to a halted warp moves the PC");
    is_u32(rd(sim, VX_DM_DPC), BASE, "DPC reads it back");
    int e = ev_find(0, VX_DM_SET_PC, 0);
    ok(e >= 0 && evs[e].value == BASE, "SET_PC event");
    ev_clear();
    wr(sim, VX_DM_DPC, BASE + 6);
    wr(sim, VX_DM_DPC, 1);
    is_u32(winfo(sim, 0).pc, BASE, "misaligned DPC writes are ignored");
    is_u32(rd(sim, VX_DM_DPC), BASE, "DPC keeps the PC");
    ok(ev_find(0, VX_DM_SET_PC, 0) < 0, "no SET_PC event for them");
    vx_sim_free(sim);
}

static void test_ebreak(void)
{
    vx_sim *sim = mk(1, 1, 4, 4, prog_ebreak, 7);
    wr(sim, VX_DM_DCTRL, DA);
    wr(sim, VX_DM_DCONFIG, 0x88000001);
    ev_clear();
    vx_stop st = run(sim, 100);
    ok(st.reason == VX_STOP_HALT || st.reason == VX_STOP_IDLE,
       "ebreak with ebreakh stops the run (%d)", st.reason);
    wr(sim, VX_DM_DSELECT, 0);
    uint32_t d = rd(sim, VX_DM_DCTRL);
    ok(winfo(sim, 0).halted, "warp halted on ebreak");
    is_u32(HC(d), VX_HACAUSE_EBREAK, "hacause EBREAK");
    is_u32(rd(sim, VX_DM_DPC), BASE + 8, "DPC = address of the ebreak");
    int h = ev_find(0, VX_DM_HALT, 0);
    ok(h >= 0 && evs[h].arg == VX_HACAUSE_EBREAK, "HALT event with cause EBREAK");
    /* haltreq on the halted warp keeps EBREAK */
    wr(sim, VX_DM_WMASK, 0xF);
    wr(sim, VX_DM_DCTRL, DA | HR);
    is_u32(HC(rd(sim, VX_DM_DCTRL)), VX_HACAUSE_EBREAK,
           "haltreq keeps the EBREAK cause of a halted warp");
    /* stepping an ebreak (ebreakh set) halts on it again: cause EBREAK, PC unchanged */
    align(sim);
    ev_clear();
    wr(sim, VX_DM_DCTRL, DA | SR);
    tick(sim, 2);
    d = rd(sim, VX_DM_DCTRL);
    ok(SST(d) == 0 && !(d & SERR), "step of the ebreak completed");
    is_u32(HC(d), VX_HACAUSE_EBREAK, "stepped ebreak: hacause EBREAK");
    is_u32(rd(sim, VX_DM_DPC), BASE + 8, "stepped ebreak: DPC still at the ebreak");
    h = ev_find(0, VX_DM_HALT, 0);
    ok(h >= 0 && evs[h].arg == VX_HACAUSE_EBREAK, "stepped ebreak: HALT event with cause EBREAK");
    /* skip the ebreak and finish */
    wr(sim, VX_DM_DPC, BASE + 12);
    wr(sim, VX_DM_DCTRL, DA | RR);
    st = run(sim, 100);
    is_int(st.reason, VX_STOP_EXIT, "resumed past the ebreak: kernel exits");
    is_u32(st.exit_code, 42, "exit code 2 + 40 = 42");
    vx_sim_free(sim);

    /* without ebreakh: a breakpoint fault */
    sim = mk(1, 1, 4, 4, prog_ebreak, 7);
    st = run(sim, 100);
    ok(st.reason == VX_STOP_FAULT && st.fault.kind == VX_FAULT_EBREAK && st.fault.pc == BASE + 8,
       "ebreak without ebreakh: VX_FAULT_EBREAK at the ebreak");
    wr(sim, VX_DM_DCTRL, DA);
    is_u32(rd(sim, VX_DM_DCTRL) & SUMMARY, AU | NU, "after a fault no warp is available");
    is_u32(rd(sim, VX_DM_WACTIVE), 1, "WACTIVE still shows the warp alive at the fault");
    is_u32(rd(sim, VX_DM_DPC), BASE + 8, "DPC = the faulting instruction");
    vx_sim_free(sim);
}

static void test_reset(void)
{
    build_spawn(4);
    vx_sim *sim = mk(1, 1, 4, 4, prog_spawn, 10);
    wr(sim, VX_DM_DCTRL, DA);
    run(sim, 60);
    ok(xreg(sim, 0, 0, 7) > 0, "(program ran: x7 > 0)");
    /* memory marker to check that memory survives */
    uint32_t mark = 0x77777777;
    vx_sim_mem_write(sim, 0, DATA, &mark, 4);
    wr(sim, VX_DM_DCONFIG, 1u << 29 | 0u << 26); /* NRC 1: 2 cycles */
    wr(sim, VX_DM_WMASK, 0xF);
    align(sim);
    ev_clear();
    wr(sim, VX_DM_DCTRL, DA | RHR | NT);
    uint32_t d = rd(sim, VX_DM_DCTRL);
    ok(d & NT, "ndmreset reads 1 while asserted");
    ok(vx_sim_in_reset(sim), "vx_sim_in_reset while asserted");
    ok(ev_find(0, VX_DM_RESET, -1) >= 0, "RESET event");
    is_u32(xreg(sim, 0, 0, 7), 0, "registers reset");
    wr(sim, VX_DM_DCTRL, DA); /* writing 0 does not cut the pulse short */
    ok(rd(sim, VX_DM_DCTRL) & NT, "writing ndmreset = 0 does not end the pulse");
    tick(sim, 1);
    ok((rd(sim, VX_DM_DCTRL) & NT) && vx_sim_in_reset(sim), "NRC 1: still in reset after 1 cycle");
    tick(sim, 1);
    d = rd(sim, VX_DM_DCTRL);
    ok(!(d & NT) && !vx_sim_in_reset(sim), "ndmreset clears after 2^NRC = 2 cycles");
    vx_stop st = run(sim, 10);
    is_int(st.reason, VX_STOP_IDLE, "every warp halted after the reset: IDLE");
    is_u64(winfo(sim, 0).issued, 0, "warp 0 did not issue after the reset");
    int bad = 0;
    for (uint32_t g = 0; g < 4; g++)
        bad += !winfo(sim, g).halted;
    is_int(bad, 0, "every selected warp halted (also those not active yet)");
    wr(sim, VX_DM_DSELECT, 0);
    is_u32(HC(d), VX_HACAUSE_RESETHALTREQ, "hacause RESETHALTREQ");
    is_u32(rd(sim, VX_DM_DPC), BASE, "DPC = reset PC (first instruction)");
    is_u32(d & SUMMARY, AH | NH | NU, "allhalted after reset-halt (warps 1-3 not available)");
    is_u32(rd(sim, VX_DM_WSTATUS), 0xF, "WSTATUS shows all four halted");
    int h = ev_find(0, VX_DM_HALT, 0);
    ok(h > ev_find(0, VX_DM_RESET, -1) && evs[h].arg == VX_HACAUSE_RESETHALTREQ,
       "HALT(RESETHALTREQ) events after the RESET event");
    uint32_t m = 0;
    vx_sim_mem_read(sim, 0, DATA, &m, 4);
    is_u32(m, mark, "memory kept across ndmreset");

    wr(sim, VX_DM_DSELECT, 3u << 7); /* warp 3: halted, not spawned yet */
    wr(sim, VX_DM_DPC, BASE + 0x40);
    ok(ev_find(0, VX_DM_SET_PC, 3) < 0, "DPC write to a warp not spawned yet is ignored");
    wr(sim, VX_DM_DSELECT, 0);
    /* resume warp 0 only: it spawns warps 1..3, which start halted */
    wr(sim, VX_DM_WMASK, 0x1);
    wr(sim, VX_DM_DCTRL, DA | RR);
    st = run(sim, 100);
    is_int(st.reason, VX_STOP_NONE, "warp 0 runs (its loop)");
    vx_warp_info w3 = winfo(sim, 3);
    ok(w3.active && w3.halted && w3.issued == 0,
       "spawned warp 3 is active and halted before its first instruction");
    is_u32(w3.pc, BASE + 0x20, "its PC is the spawn entry");
    wr(sim, VX_DM_DSELECT, 3u << 7); /* spawned and halted now: DPC writes work */
    wr(sim, VX_DM_DPC, BASE + 0x24);
    is_u32(winfo(sim, 3).pc, BASE + 0x24, "DPC write to the spawned, halted warp");
    wr(sim, VX_DM_DPC, BASE + 0x20);
    wr(sim, VX_DM_DSELECT, 0);
    wr(sim, VX_DM_WMASK, 0xE);
    wr(sim, VX_DM_DCTRL, DA | RR);
    run(sim, 100);
    ok(winfo(sim, 3).issued > 0, "resumed spawned warps run");

    /* reset without resethaltreq: everything runs from the start again */
    align(sim);
    wr(sim, VX_DM_DCTRL, DA | NT);
    tick(sim, 2);
    ok(!vx_sim_in_reset(sim), "(reset over)");
    ok(!winfo(sim, 0).halted, "no reset-halt requested: warp 0 not halted");
    run(sim, 10);
    ok(winfo(sim, 0).issued > 0, "warp 0 runs after a plain reset");
    /* resethaltreq is latched until the reset */
    wr(sim, VX_DM_WMASK, 0x1);
    wr(sim, VX_DM_DCTRL, DA | RHR);
    run(sim, 10);
    ok(!winfo(sim, 0).halted, "resethaltreq alone does not halt");
    align(sim);
    wr(sim, VX_DM_DCTRL, DA | NT);
    tick(sim, 2);
    ok(winfo(sim, 0).halted, "latched resethaltreq applied at the next reset");
    /* step and inject are refused during the hold */
    wr(sim, VX_DM_DCONFIG, 3u << 29);
    wr(sim, VX_DM_DCTRL, DA | NT);
    wr(sim, VX_DM_DCTRL, DA | SR);
    ok(rd(sim, VX_DM_DCTRL) & SERR, "stepreq during ndmreset: steperr");
    tick(sim, 8);
    ok(!vx_sim_in_reset(sim), "NRC 3: reset over after 8 cycles");
    /* vx_sim_dm_tick_to: the DM's timing as with single ticks, idle cycles at once */
    align(sim);
    wr(sim, VX_DM_DCTRL, DA | NT);
    uint64_t c0 = vx_sim_cycle(sim);
    vx_sim_dm_tick_to(sim, c0 + 7);
    ok(vx_sim_in_reset(sim) && vx_sim_cycle(sim) == c0 + 7, "tick_to: 7 of 8 reset cycles");
    vx_sim_dm_tick_to(sim, c0 + 8);
    ok(!vx_sim_in_reset(sim), "tick_to: the 8th ends the reset");
    vx_sim_dm_tick_to(sim, c0 + ((uint64_t)1 << 50));
    is_u64(vx_sim_cycle(sim), c0 + ((uint64_t)1 << 50), "tick_to a far cycle (at once)");
    vx_sim_dm_tick_to(sim, c0);
    is_u64(vx_sim_cycle(sim), c0 + ((uint64_t)1 << 50), "tick_to the past does nothing");
    vx_sim_free(sim);
}

/*
 * (from a model-based fuzzing of the DM) An ndmreset written when a run stopped in the
 * middle of a cycle, after core 0's issue: the hold has begun, so core 1 issues
 * nothing in the rest of that cycle either, and with resethaltreq its warp halts at
 * its first instruction.  Core 1 issued during the hold before, and halted one
 * instruction on (DPC = entry + 4), an issue a recording showed between the reset
 * and the reset-halt.
 */
static void test_reset_mid_cycle(void)
{
    vx_sim *sim = mk(2, 1, 2, 32, prog_loop, 2);
    wr(sim, VX_DM_DCTRL, DA);
    run(sim, 7); /* 3 cycles and core 0's issue of the 4th */
    is_u64(winfo(sim, 0).issued, 4, "(core 0 issued 4 times)");
    is_u64(winfo(sim, 2).issued, 3, "(core 1 issued 3 times: the run stopped mid-cycle)");
    wr(sim, VX_DM_WMASK, 0x5); /* warp 0 of each core */
    ev_clear();
    wr(sim, VX_DM_DCTRL, DA | NT | RHR);
    vx_stop st; /* (each run of the hold passes one cycle: IDLE) */
    /* the replayer's path refuses the issue the old run made (vxrec --verify, vxreplay) */
    is_int(vx_sim_issue(sim, 1, 0, vx_sim_cycle(sim), &st), VX_ERR_STATE,
           "vx_sim_issue of core 1 in that cycle refused: %s", vx_sim_errmsg(sim));
    for (int i = 0; i < 100 && (i == 0 || vx_sim_in_reset(sim)); i++)
        st = run(sim, 1000);
    st = run(sim, 1000);
    ok(!vx_sim_in_reset(sim), "(the hold is over)");
    is_int(st.reason, VX_STOP_IDLE, "every warp halted after the reset: IDLE");
    is_int(nissue, 0, "no issue after the reset (core 1 issued in the rest of the cycle)");
    int bad = 0;
    for (uint32_t g = 0; g < 4; g += 2) {
        wr(sim, VX_DM_DSELECT, g << 7);
        bad += rd(sim, VX_DM_DPC) != BASE || winfo(sim, g).issued != 0 || !winfo(sim, g).halted;
    }
    is_int(bad, 0, "both cores' warp 0 halted at the entry, none issued");
    vx_sim_free(sim);
}

static void test_deactivate(void)
{
    vx_sim *sim = mk(1, 1, 4, 4, prog_loop, 2);
    wr(sim, VX_DM_DCTRL, DA);
    wr(sim, VX_DM_DCONFIG, 0x88000001);
    wr(sim, VX_DM_DSELECT, dsel(0, 2, 1));
    wr(sim, VX_DM_WMASK, 0x1);
    wr(sim, VX_DM_INJECT, 0x13);
    wr(sim, VX_DM_DCTRL, DA | HR);
    ev_clear();
    wr(sim, VX_DM_DCTRL, 0);
    ok(winfo(sim, 0).halted, "dmactive = 0: halted warps stay halted");
    int e = ev_find(0, VX_DM_WRITE, -1);
    ok(e >= 0 && evs[e].addr == VX_DM_DCTRL, "WRITE event of DCTRL");
    e = ev_find(e + 1, VX_DM_WRITE, -1);
    ok(e >= 0 && evs[e].addr == VX_DM_DCONFIG && evs[e].value == 0,
       "deactivation with ebreakh set reports DCONFIG := 0");
    is_u32(rd(sim, VX_DM_DCTRL), 0, "DCTRL reads 0 while inactive");
    run(sim, 10);
    is_u64(winfo(sim, 0).issued, 0, "still nothing issues");
    wr(sim, VX_DM_DCTRL, DA);
    is_u32(rd(sim, VX_DM_DCONFIG), 0x88000000u, "reactivated: DCONFIG back to reset");
    is_u32(rd(sim, VX_DM_DSELECT), 0, "DSELECT back to 0");
    is_u32(rd(sim, VX_DM_WMASK), 0, "WMASK back to 0");
    is_u32(rd(sim, VX_DM_INJECT), 0, "INJECT back to 0");
    is_u32(rd(sim, VX_DM_WSTATUS), 0x1, "WSTATUS shows the warp still halted");
    wr(sim, VX_DM_WMASK, 0x1);
    wr(sim, VX_DM_DCTRL, DA | RR);
    run(sim, 10);
    ok(winfo(sim, 0).issued > 0, "resumed after reactivation");
    vx_sim_free(sim);

    /* ebreak after deactivation faults (ebreakh cleared) */
    sim = mk(1, 1, 4, 4, prog_ebreak, 7);
    wr(sim, VX_DM_DCTRL, DA);
    wr(sim, VX_DM_DCONFIG, 0x88000001);
    wr(sim, VX_DM_DCTRL, 0);
    vx_stop st = run(sim, 100);
    ok(st.reason == VX_STOP_FAULT && st.fault.kind == VX_FAULT_EBREAK,
       "after deactivation ebreak is a breakpoint fault again");
    vx_sim_free(sim);
}

static void test_events(void)
{
    vx_sim *sim = mk(1, 1, 4, 4, prog_loop, 2);
    ev_clear();
    wr(sim, VX_DM_DCTRL, DA);
    rd(sim, VX_DM_PLATFORM);
    wr(sim, VX_DM_DSELECT, 0x5);
    rd(sim, VX_DM_DSELECT);
    is_int(ev_count(VX_DM_WRITE), 2, "two WRITE events");
    is_int(ev_count(VX_DM_READ), 2, "two READ events");
    int e = ev_find(0, VX_DM_READ, -1);
    ok(evs[e].addr == VX_DM_PLATFORM && evs[e].value == rd(sim, VX_DM_PLATFORM),
       "READ event carries address and value");
    e = ev_find(0, VX_DM_WRITE, -1);
    e = ev_find(e + 1, VX_DM_WRITE, -1);
    ok(evs[e].addr == VX_DM_DSELECT && evs[e].value == 5, "WRITE event carries address and value");
    /* DCONFIG write event reports the stored value */
    ev_clear();
    wr(sim, VX_DM_DCONFIG, 0xFFFFFFFF);
    is_u32(evs[0].value, 0xFC000001u, "DCONFIG WRITE event reports the stored value");
    wr(sim, VX_DM_DCTRL, 0);
    ev_clear();
    wr(sim, VX_DM_DCONFIG, 0x1);
    is_u32(evs[0].value, 0, "DCONFIG write ignored while inactive is reported as 0");
    vx_sim_free(sim);
}

static void test_snapshot(void)
{
    vx_sim *sim = mk(2, 4, 8, 4, prog_loop, 2);
    wr(sim, VX_DM_DCTRL, DA);
    wr(sim, VX_DM_DSELECT, dsel(1, 33, 2));
    wr(sim, VX_DM_WMASK, 0x12345678 & 0xFFFFFFFF);
    wr(sim, VX_DM_INJECT, 0x00000013);
    wr(sim, VX_DM_DCONFIG, 0x24000001);
    vx_sim_snap *snap = NULL;
    if (vx_sim_snap_save(sim, &snap) != VX_OK) {
        ok(0, "snapshot save");
        vx_sim_free(sim);
        return;
    }
    wr(sim, VX_DM_DCTRL, 0);
    is_u32(rd(sim, VX_DM_DSELECT), 0, "(deactivated)");
    vx_sim_snap_restore(sim, snap);
    is_u32(rd(sim, VX_DM_DSELECT), dsel(1, 33, 2), "snapshot restores DSELECT");
    is_u32(rd(sim, VX_DM_WMASK), 0x12345678, "snapshot restores the global mask");
    is_u32(rd(sim, VX_DM_INJECT), 0x13, "snapshot restores INJECT");
    is_u32(rd(sim, VX_DM_DCONFIG), 0x24000001, "snapshot restores DCONFIG");
    ok(rd(sim, VX_DM_DCTRL) & DA, "snapshot restores dmactive");
    vx_sim_snap_free(snap);

    /* a snapshot in the middle of an ndmreset hold with a latched resethaltreq */
    wr(sim, VX_DM_DCONFIG, 2u << 29); /* 4 cycles */
    wr(sim, VX_DM_DSELECT, 0);
    wr(sim, VX_DM_WMASK, 0x1);
    align(sim);
    wr(sim, VX_DM_DCTRL, DA | RHR | NT);
    tick(sim, 1);
    if (vx_sim_snap_save(sim, &snap) != VX_OK) tap_bail("snapshot save");
    tick(sim, 3);
    ok(!vx_sim_in_reset(sim) && winfo(sim, 0).halted, "(hold over, warp 0 reset-halted)");
    wr(sim, VX_DM_DCTRL, DA | RR);
    vx_sim_snap_restore(sim, snap);
    ok(vx_sim_in_reset(sim), "restored: in reset again");
    ok(!winfo(sim, 0).halted, "restored: not halted yet");
    tick(sim, 2);
    ok(vx_sim_in_reset(sim), "restored: still 1 cycle to go after 2");
    tick(sim, 1);
    ok(!vx_sim_in_reset(sim) && winfo(sim, 0).halted &&
           winfo(sim, 0).hacause == VX_HACAUSE_RESETHALTREQ,
       "restored: the hold ends at the same cycle and the latched reset-halt applies");
    vx_sim_snap_free(snap);

    /* the portable state encoding (trace keyframes) carries the DM too */
    uint8_t *buf = NULL;
    size_t len = 0;
    wr(sim, VX_DM_DSELECT, dsel(1, 40, 3));
    wr(sim, VX_DM_WMASK, 0xCAFE);
    if (vx_sim_state_encode(sim, &buf, &len) != VX_OK) tap_bail("state encode");
    wr(sim, VX_DM_DCTRL, 0);
    ok(vx_sim_state_decode(sim, buf, len) == VX_OK, "state decode");
    is_u32(rd(sim, VX_DM_DSELECT), dsel(1, 40, 3), "decoded state restores DSELECT");
    is_u32(rd(sim, VX_DM_WMASK), 0xCAFE, "decoded state restores window 1 of the mask");
    free(buf);
    vx_sim_free(sim);
}

/* A one-warp, one-thread machine running prog, the DM active and warp 0 halted at its first
 * instruction. */
static vx_sim *halted_at_start(const uint32_t *prog, size_t n)
{
    vx_sim *sim = mk(1, 1, 1, 1, prog, n);
    wr(sim, VX_DM_DCTRL, DA);
    halt_only(sim, 0);
    return sim;
}

/* n single steps of the selected warp, each given the DM cycles it takes. */
static void steps(vx_sim *sim, int n)
{
    for (int i = 0; i < n; i++) {
        wr(sim, VX_DM_DCTRL, DA | SR);
        tick(sim, 2);
    }
}

/*
 * Stepping a warp into the end of the kernel (from a coverage review): a stepped
 * instruction that faults sets steperr and the kernel ends with that fault; a
 * stepped final `tmc 0` ends it with its exit code.  Both also with the step
 * still pending when vx_sim_run starts, whose own DM cycle then does it.
 */
static void test_step_end(void)
{
    static const uint32_t prog_fault[] = {LW(5, 0, 0), TMC(0)};
    vx_sim *sim = halted_at_start(prog_fault, 2);
    is_u32(winfo(sim, 0).pc, BASE, "(halted at the lw from 0)");
    steps(sim, 1);
    ok(rd(sim, VX_DM_DCTRL) & SERR, "stepped lw from 0 faults: steperr");
    ok(vx_sim_finished(sim), "the stepped fault ends the kernel");
    /* (from a DM fuzzing) a step of the warp, still active and halted, after the end is
     * refused at once, as the docs list the refusals; it was accepted (stepstate REQ,
     * steperr clear) and failed a cycle later, or, with an ndmreset right after it in
     * one batch, was cancelled with steperr 0 */
    ok(winfo(sim, 0).active && winfo(sim, 0).halted, "(warp 0 active and halted)");
    wr(sim, VX_DM_DCTRL, DA | SR);
    uint32_t dend = rd(sim, VX_DM_DCTRL);
    ok((dend & SERR) && SST(dend) == 0, "stepreq after the end: steperr at once, stepstate NONE");
    vx_stop st = run(sim, 10);
    ok(st.reason == VX_STOP_FAULT && st.fault.kind == VX_FAULT_UNMAPPED && st.fault.pc == BASE,
       "vx_sim_run reports the stepped fault: UNMAPPED at BASE (stop %d kind %d pc 0x%x)",
       st.reason, st.fault.kind, st.fault.pc);
    vx_sim_free(sim);

    sim = halted_at_start(prog_exit, 3);
    steps(sim, 3);
    ok(!(rd(sim, VX_DM_DCTRL) & SERR), "stepping the final tmc 0: steperr clear");
    ok(vx_sim_finished(sim), "the stepped tmc 0 ends the kernel");
    st = run(sim, 10);
    ok(st.reason == VX_STOP_EXIT && st.exit_code == 7,
       "vx_sim_run reports EXIT 7 (stop %d code %u)", st.reason, st.exit_code);
    vx_sim_free(sim);

    /* the step is still REQ when vx_sim_run starts: its DM cycle ends the kernel */
    sim = halted_at_start(prog_exit, 3);
    steps(sim, 2);
    wr(sim, VX_DM_DCTRL, DA | SR);
    ok(SST(rd(sim, VX_DM_DCTRL)) == 1 && !vx_sim_finished(sim), "(step of the tmc 0 pending)");
    st = run(sim, 10);
    ok(st.reason == VX_STOP_EXIT && st.exit_code == 7,
       "pending step of tmc 0 done by vx_sim_run: EXIT 7 (stop %d code %u)", st.reason,
       st.exit_code);
    vx_sim_free(sim);

    sim = halted_at_start(prog_fault, 2);
    wr(sim, VX_DM_DCTRL, DA | SR);
    st = run(sim, 10);
    ok(st.reason == VX_STOP_FAULT && st.fault.kind == VX_FAULT_UNMAPPED && st.fault.pc == BASE,
       "pending step of the lw done by vx_sim_run: FAULT UNMAPPED (stop %d kind %d)", st.reason,
       st.fault.kind);
    ok(rd(sim, VX_DM_DCTRL) & SERR, "... and steperr");
    vx_sim_free(sim);
}

/*
 * Requests that race (from a coverage review): an injection while a step is
 * pending or during ndmreset, vx_sim_run during ndmreset, and a resume before the
 * DM cycle of a pending step or injection.
 */
static void test_request_races(void)
{
    vx_sim *sim = halted_at_start(prog_loop, 2);
    ev_clear();
    wr(sim, VX_DM_DCTRL, DA | SR);
    wr(sim, VX_DM_INJECT, ADDI(9, 0, 5));
    wr(sim, VX_DM_DCTRL, DA | IR);
    uint32_t d = rd(sim, VX_DM_DCTRL);
    int r = ev_find(0, VX_DM_INJECT_REJECT, 0);
    ok((d & IERR) && SST(d) == 1 && IST(d) == 0 && r >= 0 && evs[r].arg == 5 &&
           evs[r].value == ADDI(9, 0, 5),
       "injectreq while a step is REQ: injecterr, reason 5 (BUSY), step kept");
    tick(sim, 2);
    ok(xreg(sim, 0, 0, 9) == 0 && xreg(sim, 0, 0, 7) == 1 && winfo(sim, 0).pc == BASE + 4 &&
           ninject_issue == 0 && nstep_issue == 1,
       "the step still happens (x7 = 1, pc BASE + 4), the injection does not");
    vx_sim_free(sim);

    sim = halted_at_start(prog_loop, 2);
    ev_clear();
    wr(sim, VX_DM_DCTRL, DA | NT);
    wr(sim, VX_DM_INJECT, ADDI(9, 0, 5));
    wr(sim, VX_DM_DCTRL, DA | IR);
    d = rd(sim, VX_DM_DCTRL);
    r = ev_find(0, VX_DM_INJECT_REJECT, -1);
    ok((d & IERR) && (d & NT) && IST(d) == 0 && r >= 0 && evs[r].arg == 6,
       "injectreq during ndmreset: injecterr, reason 6 (RESET)");
    uint64_t c0 = vx_sim_cycle(sim);
    vx_stop st = run(sim, 0);
    is_int(st.reason, VX_STOP_IDLE, "vx_sim_run during ndmreset: IDLE");
    is_u64(vx_sim_cycle(sim), c0 + 1, "vx_sim_run during ndmreset: one cycle passes");
    is_int(nissue, 0, "vx_sim_run during ndmreset: nothing issued");
    vx_sim_free(sim);

    sim = halted_at_start(prog_loop, 2);
    ev_clear();
    wr(sim, VX_DM_DCTRL, DA | SR);
    is_u32(SST(rd(sim, VX_DM_DCTRL)), 1, "(step REQ)");
    wr(sim, VX_DM_DCTRL, DA | RR);
    vx_sim_dm_tick(sim);
    d = rd(sim, VX_DM_DCTRL);
    ok((d & SERR) && SST(d) == 0 && nstep_issue == 0,
       "resumed before the step's DM cycle: steperr, stepstate NONE, no stepped issue");
    vx_sim_free(sim);

    sim = halted_at_start(prog_loop, 2);
    ev_clear();
    wr(sim, VX_DM_INJECT, ADDI(9, 0, 5));
    wr(sim, VX_DM_DCTRL, DA | IR);
    is_u32(IST(rd(sim, VX_DM_DCTRL)), 1, "(injection REQ)");
    wr(sim, VX_DM_DCTRL, DA | RR);
    vx_sim_dm_tick(sim);
    d = rd(sim, VX_DM_DCTRL);
    r = ev_find(0, VX_DM_INJECT_REJECT, 0);
    ok((d & IERR) && IST(d) == 0 && r >= 0 && evs[r].arg == 2 && ninject_issue == 0,
       "resumed before the injection's DM cycle: injecterr, reason 2 (NOT_HALTED), no "
       "injected issue");
    vx_sim_free(sim);
}

/* Barrier: warps 0 and 1 of a core meet at barrier 0 (count 2); warp 1 is halted. */
static void test_barrier_idle(void)
{
    static const uint32_t prog[] = {
        ADDI(5, 0, 2),    /* 0x00 t0 = 2 */
        LUI(6, 0x80000),  /* 0x04 */
        ADDI(6, 6, 0x18), /* 0x08 t1 = 0x80000018 */
        WSPAWN(5, 6),     /* 0x0c */
        JAL(0, 8),        /* 0x10 -> 0x18 */
        NOP,              /* 0x14 */
        ADDI(8, 0, 0),    /* 0x18 barrier id 0 */
        ADDI(9, 0, 2),    /* 0x1c count 2 */
        BAR(8, 9),        /* 0x20 */
        ADDI(7, 7, 1),    /* 0x24 */
        JAL(0, -4),       /* 0x28 */
    };
    vx_sim *sim = mk(1, 1, 2, 1, prog, VX_ARRAY_SIZE(prog));
    wr(sim, VX_DM_DCTRL, DA);
    wr(sim, VX_DM_DCONFIG, 0x00000000);
    /* run until warp 1 exists, then halt it before it reaches the barrier */
    for (int i = 0; i < 20 && !winfo(sim, 1).active; i++)
        run(sim, 1);
    ok(winfo(sim, 1).active, "(warp 1 spawned)");
    wr(sim, VX_DM_WMASK, 0x2);
    wr(sim, VX_DM_DCTRL, DA | HR);
    vx_stop st = run(sim, 100);
    is_int(st.reason, VX_STOP_IDLE,
           "warp 0 waits at the barrier for halted warp 1: IDLE, not a fault");
    vx_warp_info w0 = winfo(sim, 0);
    ok(w0.stalled && w0.at_barrier && w0.barrier == 0, "warp 0 is stalled at barrier 0");
    /* a stalled warp cannot step */
    wr(sim, VX_DM_WMASK, 0x1);
    wr(sim, VX_DM_DCTRL, DA | HR);
    wr(sim, VX_DM_DSELECT, dsel(0, 0, 0));
    wr(sim, VX_DM_DCTRL, DA | SR);
    ok(rd(sim, VX_DM_DCTRL) & SERR, "stepreq on a warp stalled at a barrier: steperr");
    /* but its registers can be read by injection */
    uint32_t d = inject(sim, CSRW(CSR_DSCRATCH0, 9));
    ok(!(d & IERR), "injection into a halted, stalled warp works");
    is_u32(rd(sim, VX_DM_DSCRATCH0), 2, "read x9 = 2 of the stalled warp");
    wr(sim, VX_DM_WMASK, 0x3);
    wr(sim, VX_DM_DCTRL, DA | RR);
    st = run(sim, 100);
    is_int(st.reason, VX_STOP_NONE, "resumed: both pass the barrier and run");
    ok(xreg(sim, 0, 0, 7) > 0 && xreg(sim, 1, 0, 7) > 0, "both warps past the barrier");
    vx_sim_free(sim);
}

/*
 * From a mutation review of dm.c: behaviour the tests above left open, each value
 * from the register map in dm.c's header and vxdebug-spec.md.
 */

/* warpsel is 15 bits and threadsel 7: warpsel 0x4000 and threadsel 0x40 name a warp and
 * a thread beyond this platform, not warp 0 and thread 0 */
static void test_select_full_width(void)
{
    vx_sim *sim = mk(1, 1, 4, 4, prog_loop, 2);
    wr(sim, VX_DM_DCTRL, DA);
    run(sim, 3);
    halt_only(sim, 0); /* warp 0 halted at BASE + 4 */
    wr(sim, VX_DM_DSELECT, dsel(0, 0, 0));
    wr(sim, VX_DM_DSCRATCH0, 0x1234);
    wr(sim, VX_DM_DSELECT, dsel(0, 0x4000, 0));
    uint32_t d = rd(sim, VX_DM_DCTRL);
    is_u32(HC(d), 0, "warpsel 0x4000 (no such warp): hacause 0, not warp 0's HALTREQ");
    is_u32(rd(sim, VX_DM_DPC), 0, "warpsel 0x4000: DPC reads 0");
    is_u32(rd(sim, VX_DM_DSCRATCH0), 0, "warpsel 0x4000: DSCRATCH0 reads 0");
    wr(sim, VX_DM_DCTRL, DA | SR);
    d = rd(sim, VX_DM_DCTRL);
    ok((d & SERR) && SST(d) == 0, "warpsel 0x4000: stepreq refused");
    wr(sim, VX_DM_DSELECT, dsel(0, 0, 0x40));
    is_u32(rd(sim, VX_DM_DSCRATCH0), 0, "threadsel 0x40 of 4 threads: DSCRATCH0 reads 0");
    wr(sim, VX_DM_DSCRATCH0, 0x9999);
    uint32_t v = 0;
    vx_sim_reg_read(sim, 0, 0, VX_RF_CSR, CSR_DSCRATCH0, &v);
    is_u32(v, 0x1234, "threadsel 0x40: the DSCRATCH0 write did not land in lane 0");
    ev_clear();
    d = inject(sim, ADDI(9, 0, 1));
    int r = ev_find(0, VX_DM_INJECT_REJECT, -1);
    ok((d & IERR) && r >= 0 && evs[r].arg == 3 && ninject_issue == 0,
       "threadsel 0x40: injection refused, reason 3 (NO_TARGET)");
    vx_sim_free(sim);
}

/* anyunavail with exactly one warp unavailable; resumereq reports only warps it resumed;
 * a warp not spawned yet (halted by haltreq) cannot step: refused at once */
static void test_summary_resume_step_inactive(void)
{
    build_spawn(3);
    vx_sim *sim = mk(1, 1, 4, 4, prog_spawn, 10);
    wr(sim, VX_DM_DCTRL, DA);
    run(sim, 50);
    ok(winfo(sim, 2).active && !winfo(sim, 3).active, "(warps 0-2 spawned, warp 3 not)");
    is_u32(rd(sim, VX_DM_DCTRL) & SUMMARY, AR | NR | NU,
           "3 of 4 warps available and running: allrunning anyrunning anyunavail");

    wr(sim, VX_DM_WMASK, 0x2);
    wr(sim, VX_DM_DCTRL, DA | HR); /* warp 1 halted, warps 0 and 2 running */
    wr(sim, VX_DM_WMASK, 0x7);
    ev_clear();
    wr(sim, VX_DM_DCTRL, DA | RR);
    ok(!winfo(sim, 1).halted, "resumereq resumed warp 1");
    is_int(ev_count(VX_DM_RESUME), 1, "one RESUME event: warps 0 and 2 were not halted");
    ok(ev_find(0, VX_DM_RESUME, 1) >= 0, "... and it names warp 1");

    wr(sim, VX_DM_WMASK, 0x8);
    wr(sim, VX_DM_DCTRL, DA | HR);
    ok(winfo(sim, 3).halted && !winfo(sim, 3).active, "(warp 3 halted, not spawned)");
    wr(sim, VX_DM_DSELECT, dsel(0, 3, 0));
    wr(sim, VX_DM_DCTRL, DA | SR);
    uint32_t d = rd(sim, VX_DM_DCTRL);
    ok((d & SERR) && SST(d) == 0, "stepreq of a halted warp not spawned yet: refused at once");
    vx_sim_free(sim);
}

/* the instruction word is taken when injectreq is accepted */
static void test_inject_word_taken_at_request(void)
{
    vx_sim *sim = halted_at_start(prog_loop, 2);
    wr(sim, VX_DM_INJECT, ADDI(9, 0, 5));
    wr(sim, VX_DM_DCTRL, DA | IR);
    wr(sim, VX_DM_INJECT, ADDI(9, 0, 6));
    tick(sim, 2);
    is_u32(xreg(sim, 0, 0, 9), 5, "INJECT rewritten after the request: the first word ran");
    vx_sim_free(sim);
}

/* ndmreset: cancels a pending step and injection; another ndmreset during the hold does
 * not restart it; the last hold cycle issues nothing; a latched resethaltreq is used once */
static void test_reset_details(void)
{
    vx_sim *sim = halted_at_start(prog_loop, 2);
    wr(sim, VX_DM_DCONFIG, 1u << 29); /* NRC 1: 2 cycles */
    wr(sim, VX_DM_WMASK, 0x1);
    ev_clear();
    wr(sim, VX_DM_DCTRL, DA | SR);
    is_u32(SST(rd(sim, VX_DM_DCTRL)), 1, "(step REQ)");
    wr(sim, VX_DM_DCTRL, DA | NT | RHR);
    uint32_t d = rd(sim, VX_DM_DCTRL);
    ok((d & NT) && SST(d) == 0 && IST(d) == 0, "ndmreset cancels the pending step: stepstate NONE");
    tick(sim, 4);
    ok(!vx_sim_in_reset(sim) && winfo(sim, 0).halted, "(hold over, warp 0 reset-halted)");
    is_int(nstep_issue, 0, "the cancelled step never ran");
    is_u32(winfo(sim, 0).pc, BASE, "warp 0 still at its first instruction");

    /* the same for an injection */
    wr(sim, VX_DM_INJECT, ADDI(9, 0, 5));
    wr(sim, VX_DM_DCTRL, DA | IR);
    is_u32(IST(rd(sim, VX_DM_DCTRL)), 1, "(injection REQ)");
    wr(sim, VX_DM_DCTRL, DA | NT | RHR);
    d = rd(sim, VX_DM_DCTRL);
    ok((d & NT) && IST(d) == 0, "ndmreset cancels the pending injection: injectstate NONE");
    tick(sim, 4);
    is_int(ninject_issue, 0, "the cancelled injection never ran");
    is_u32(xreg(sim, 0, 0, 9), 0, "x9 untouched");

    /* the latch is used by one reset: a plain reset after it halts nothing */
    wr(sim, VX_DM_DCTRL, DA | RR);
    align(sim);
    wr(sim, VX_DM_DCTRL, DA | NT);
    tick(sim, 2);
    ok(!vx_sim_in_reset(sim), "(plain reset over)");
    ok(!winfo(sim, 0).halted, "plain reset after a reset-halt: the selected warp runs");

    /* ndmreset written again during the hold: no new reset, the hold ends on time */
    wr(sim, VX_DM_DCONFIG, 2u << 29); /* 4 cycles */
    align(sim);
    ev_clear();
    wr(sim, VX_DM_DCTRL, DA | NT);
    tick(sim, 2);
    wr(sim, VX_DM_DCTRL, DA | NT);
    is_int(ev_count(VX_DM_RESET), 1, "ndmreset during the hold: one RESET event");
    tick(sim, 2);
    ok(!vx_sim_in_reset(sim), "the hold ends 4 cycles after the first write");

    /* nothing issues in the hold's last cycle: with NRC 1 written in cycle c, the first
     * issue is in cycle c + 2 */
    wr(sim, VX_DM_DCONFIG, 1u << 29);
    align(sim);
    uint64_t c = vx_sim_cycle(sim);
    wr(sim, VX_DM_DCTRL, DA | NT);
    ev_clear();
    for (int i = 0; i < 10 && !nissue; i++)
        run(sim, 1);
    is_u64(first_issue_cycle, c + 2, "first issue after a 2-cycle hold from cycle c: c + 2");
    vx_sim_free(sim);
}

int main(void)
{
    test_platform_and_inactive();
    test_config_select();
    test_windows();
    test_summary();
    test_w1_and_priority();
    test_step();
    test_step_end();
    test_inject();
    test_request_races();
    test_dpc();
    test_ebreak();
    test_reset();
    test_reset_mid_cycle();
    test_deactivate();
    test_events();
    test_snapshot();
    test_barrier_idle();
    test_select_full_width();
    test_summary_resume_step_inactive();
    test_inject_word_taken_at_request();
    test_reset_details();
    return tap_exit();
}
