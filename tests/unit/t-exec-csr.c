/*
 * t-exec-csr.c - Zicsr through the executor: the Vortex CSRs, mhartid, misa,
 * counters, per-warp fflags/frm/fcsr, per-core mscratch, per-thread DSCRATCH,
 * plain storage, read-only and unknown CSRs, the rs1 = x0 / zimm = 0 no-write
 * rule, and the lane-ordered semantics of a CSR op on a shared CSR.
 */
#include "simtest.h"

static vx_stop_reason run_prog(vx_sim *s, const uint32_t *w, size_t n, vx_stop *st)
{
    st_code(s, w, n);
    return st_go(s, st);
}

#define RUN(s, st, ...)                                \
    do {                                               \
        const uint32_t w_[] = {__VA_ARGS__};           \
        run_prog(s, w_, sizeof w_ / sizeof w_[0], st); \
    } while (0)

static void test_vortex_csrs(void)
{
    /* 1 cluster x 2 cores x 2 warps x 4 threads; warp 0 of each core runs. */
    vx_sim_config c = VX_SIM_CONFIG_INIT;
    c.cores = 2;
    c.warps = 2;
    c.threads = 4;
    c.arg = 0x1234;
    vx_sim *s = NULL;
    vx_sim_new(&c, &s);
    vx_sim_set_tmask(s, 0, 0xf);
    vx_sim_set_tmask(s, 2, 0x7);
    vx_stop st;
    RUN(s, &st, CSRRS(1, 0xCC0, 0), CSRRS(2, 0xCC1, 0), CSRRS(3, 0xCC2, 0), CSRRS(4, 0xCC3, 0),
        CSRRS(5, 0xCC4, 0), CSRRS(6, 0xFC0, 0), CSRRS(7, 0xFC1, 0), CSRRS(8, 0xFC2, 0),
        CSRRS(9, 0xFC3, 0), CSRRS(10, 0xF14, 0), CSRRS(11, 0x301, 0), CSRRS(12, 0xF11, 0),
        CSRRS(13, 0xF12, 0), CSRRS(14, 0xF13, 0), CSRRS(15, 0x340, 0));
    ok(st.reason == VX_STOP_EXIT, "csr read program runs on both cores");
    ok(st_x(s, 0, 0, 1) == 0 && st_x(s, 0, 3, 1) == 3 && st_x(s, 2, 2, 1) == 2,
       "0xCC0 thread id = lane");
    ok(st_x(s, 0, 0, 2) == 0 && st_x(s, 2, 0, 2) == 0, "0xCC1 warp id");
    ok(st_x(s, 0, 1, 3) == 0 && st_x(s, 2, 1, 3) == 1, "0xCC2 core id (global)");
    is_u32(st_x(s, 0, 0, 4), 1, "0xCC3 active warps of the core");
    ok(st_x(s, 0, 0, 5) == 0xf && st_x(s, 2, 0, 5) == 0x7, "0xCC4 thread mask");
    ok(st_x(s, 0, 0, 6) == 4 && st_x(s, 0, 0, 7) == 2 && st_x(s, 0, 0, 8) == 2 &&
           st_x(s, 0, 0, 9) == 0xFFFF0000u,
       "0xFC0-0xFC3 threads, warps, cores, local memory base");
    ok(st_x(s, 0, 3, 10) == 3 && st_x(s, 2, 2, 10) == (1 * 2 + 0) * 4 + 2,
       "mhartid = (core*NW + warp)*NT + lane");
    is_u32(st_x(s, 0, 0, 11), 0x40001121, "misa = RV32IMAF");
    ok(!st_x(s, 0, 0, 12) && !st_x(s, 0, 0, 13) && !st_x(s, 0, 0, 14),
       "mvendorid/marchid/mimpid = 0");
    is_u32(st_x(s, 2, 0, 15), 0x1234, "mscratch resets to the config arg");
    vx_sim_free(s);
}

static void test_rw(void)
{
    vx_stop st;
    /* csrrw on a per-core CSR from 4 lanes: lane order, last lane's value stays */
    vx_sim *s = st_warp(4, 0);
    for (uint32_t l = 0; l < 4; l++)
        st_setx(s, 0, l, 5, 10 + l);
    RUN(s, &st, CSRRW(1, 0x340, 5), CSRRS(2, 0x340, 0));
    ok(st_x(s, 0, 0, 1) == 0 && st_x(s, 0, 1, 1) == 10 && st_x(s, 0, 3, 1) == 12,
       "csrrw: each lane reads what the lane before wrote");
    ok(st_x(s, 0, 0, 2) == 13 && st_csr(s, 0, 0, 0x340) == 13, "final mscratch = last lane");
    vx_sim_free(s);

    /* csrrs on fflags: lanes set bits 1,2,4,8 in turn */
    s = st_warp(4, 0);
    for (uint32_t l = 0; l < 4; l++)
        st_setx(s, 0, l, 5, 1u << l);
    RUN(s, &st, CSRRS(1, 0x001, 5));
    ok(st_x(s, 0, 0, 1) == 0 && st_x(s, 0, 1, 1) == 1 && st_x(s, 0, 2, 1) == 3 &&
           st_x(s, 0, 3, 1) == 7 && st_csr(s, 0, 0, 0x001) == 15,
       "csrrs fflags accumulates lane by lane (0,1,3,7 -> 15)");
    vx_sim_free(s);

    /* csrrc / csrrwi / csrrsi / csrrci */
    s = st_warp(1, 0);
    st_setx_all(s, 0, 5, 0xff);
    st_setx_all(s, 0, 6, 0x0f);
    RUN(s, &st, CSRRW(0, 0x305, 5), CSRRC(1, 0x305, 6), CSRRS(2, 0x305, 0), CSRRWI(3, 0x343, 21),
        CSRRSI(4, 0x343, 8), CSRRCI(7, 0x343, 1), CSRRS(8, 0x343, 0));
    ok(st_x(s, 0, 0, 1) == 0xff && st_x(s, 0, 0, 2) == 0xf0, "csrrc clears bits (mtvec)");
    ok(st_x(s, 0, 0, 3) == 0 && st_x(s, 0, 0, 4) == 21 && st_x(s, 0, 0, 7) == 29 &&
           st_x(s, 0, 0, 8) == 28,
       "csrrwi / csrrsi / csrrci with zimm (mtval)");
    vx_sim_free(s);

    /* csrrc / csrrci clear the mask's bits, and leave the ones already clear clear:
     * 0xf0 & ~0x3c = 0xc0, 28 & ~2 = 28 (mutation review: a csrrc that toggled the
     * bits passed, since every earlier mask bit was set) */
    s = st_warp(1, 0);
    st_setx_all(s, 0, 5, 0xf0);
    st_setx_all(s, 0, 6, 0x3c);
    RUN(s, &st, CSRRW(0, 0x305, 5), CSRRC(0, 0x305, 6), CSRRS(1, 0x305, 0), CSRRWI(0, 0x343, 28),
        CSRRCI(0, 0x343, 2), CSRRS(2, 0x343, 0));
    ok(st_x(s, 0, 0, 1) == 0xc0 && st_x(s, 0, 0, 2) == 28,
       "csrrc / csrrci on bits already clear: 0x%x, %u", st_x(s, 0, 0, 1), st_x(s, 0, 0, 2));
    vx_sim_free(s);

    /* mepc is WARL with bits 1:0 zero (IALIGN=32): 21 reads 20, 31 | 8 reads 28 */
    s = st_warp(1, 0);
    RUN(s, &st, CSRRWI(0, 0x341, 21), CSRRS(1, 0x341, 0), CSRRSI(2, 0x341, 31), CSRRS(3, 0x341, 0));
    ok(st_x(s, 0, 0, 1) == 20 && st_x(s, 0, 0, 2) == 20 && st_x(s, 0, 0, 3) == 28,
       "mepc's two low bits read 0 (got %u, %u, %u)", st_x(s, 0, 0, 1), st_x(s, 0, 0, 2),
       st_x(s, 0, 0, 3));
    vx_sim_free(s);

    /* fcsr composition */
    s = st_warp(1, 0);
    st_setx_all(s, 0, 5, 0xe3);
    st_setx_all(s, 0, 6, 0x1ff);
    RUN(s, &st, CSRRW(0, 0x003, 5), CSRRS(1, 0x002, 0), CSRRS(2, 0x001, 0), CSRRWI(0, 0x002, 2),
        CSRRS(3, 0x003, 0), CSRRSI(0, 0x001, 4), CSRRCI(0, 0x001, 1), CSRRS(4, 0x003, 0),
        CSRRW(0, 0x003, 6), CSRRS(7, 0x003, 0), CSRRWI(0, 0x001, 31), CSRRS(8, 0x002, 0));
    ok(st_x(s, 0, 0, 1) == 7 && st_x(s, 0, 0, 2) == 3, "fcsr splits into frm and fflags");
    is_u32(st_x(s, 0, 0, 3), 0x43, "writing frm keeps fflags");
    is_u32(st_x(s, 0, 0, 4), 0x46, "csrrsi/csrrci on fflags keep frm");
    is_u32(st_x(s, 0, 0, 7), 0xff, "fcsr is 8 bits");
    is_u32(st_x(s, 0, 0, 8), 7, "writing fflags keeps frm");
    vx_sim_free(s);

    /* fflags is bits 4:0 of fcsr: writing 0xff to it sets the five flags and leaves frm
     * 0 (mutation review: the bits above 4 of an fflags write reached frm unnoticed,
     * as frm was 7 already) */
    s = st_warp(1, 0);
    st_setx_all(s, 0, 5, 0xff);
    RUN(s, &st, CSRRW(0, 0x003, 0), CSRRW(0, 0x001, 5), CSRRS(1, 0x003, 0));
    is_u32(st_x(s, 0, 0, 1), 0x1f, "an fflags write of 0xff gives fcsr 0x1f (frm stays 0)");
    vx_sim_free(s);

    /* plain storage */
    s = st_warp(1, 0);
    st_setx_all(s, 0, 5, 0xa5a5);
    RUN(s, &st, CSRRW(0, 0x300, 5), CSRRW(0, 0x3B5, 5), CSRRW(0, 0x3A2, 5), CSRRW(0, 0x180, 5),
        CSRRW(0, 0x344, 5), CSRRS(1, 0x300, 0), CSRRS(2, 0x3B5, 0), CSRRS(3, 0x3A2, 0),
        CSRRS(4, 0x180, 0), CSRRS(6, 0x344, 0), CSRRS(7, 0x342, 0));
    ok(st_x(s, 0, 0, 1) == 0xa5a5 && st_x(s, 0, 0, 2) == 0xa5a5 && st_x(s, 0, 0, 3) == 0xa5a5 &&
           st_x(s, 0, 0, 4) == 0xa5a5 && st_x(s, 0, 0, 6) == 0xa5a5 && st_x(s, 0, 0, 7) == 0,
       "mstatus, pmpaddr5, pmpcfg2, satp, mip keep what is written; mcause reads 0");
    vx_sim_free(s);

    /* misa writes are ignored */
    s = st_warp(1, 0);
    st_setx_all(s, 0, 5, 0);
    RUN(s, &st, CSRRW(1, 0x301, 5), CSRRS(2, 0x301, 0));
    ok(st.reason == VX_STOP_EXIT && st_x(s, 0, 0, 2) == 0x40001121, "misa is WARL: write ignored");
    vx_sim_free(s);

    /* mnstatus exists (research §2.2): reads 0, writes ignored, no fault */
    s = st_warp(1, 0);
    st_setx_all(s, 0, 5, 0x1888);
    st_setx_all(s, 0, 1, 0xdead);
    RUN(s, &st, CSRRW(1, 0x744, 5), CSRRS(2, 0x744, 0), CSRRSI(3, 0x744, 8));
    ok(st.reason == VX_STOP_EXIT && st_x(s, 0, 0, 1) == 0 && st_x(s, 0, 0, 2) == 0 &&
           st_x(s, 0, 0, 3) == 0,
       "mnstatus reads 0 and ignores writes");
    vx_sim_free(s);

    /* DSCRATCH per thread */
    s = st_warp(4, 0);
    for (uint32_t l = 0; l < 4; l++)
        st_setx(s, 0, l, 5, 0x100 + l);
    RUN(s, &st, CSRRW(0, 0x7B3, 5), CSRRS(1, 0x7B3, 0));
    ok(st_x(s, 0, 0, 1) == 0x100 && st_x(s, 0, 3, 1) == 0x103 && st_csr(s, 0, 2, 0x7B3) == 0x102,
       "dscratch1 is per thread");
    vx_sim_free(s);
}

static void test_counters(void)
{
    vx_stop st;
    vx_sim *s = st_warp(1, 0);
    RUN(s, &st, NOP(), NOP(), CSRRS(1, 0xB00, 0), CSRRS(2, 0xB02, 0), CSRRS(3, 0xB80, 0),
        CSRRS(4, 0xB82, 0));
    ok(st_x(s, 0, 0, 1) == 2 && st_x(s, 0, 0, 2) == 3 && st_x(s, 0, 0, 3) == 0 &&
           st_x(s, 0, 0, 4) == 0,
       "mcycle = cycle of issue, minstret = instructions before (one warp)");
    vx_sim_free(s);

    /* two warps interleave round-robin: warp 0 issues at even cycles */
    s = st_new(1, 1, 2, 1);
    uint32_t prog[] = {CSRRS(1, 0xB00, 0), CSRRS(2, 0xB00, 0), CSRRS(3, 0xB02, 0), VX_TMC(0)};
    st_code_at(s, ST_CODE, prog, 4);
    st_setx(s, 0, 0, 5, 2);
    st_setx(s, 0, 0, 6, ST_CODE);
    uint32_t spawn[] = {VX_WSPAWN(5, 6)};
    st_code_at(s, ST_CODE - 4, spawn, 1);
    vx_sim_set_pc(s, 0, ST_CODE - 4);
    st_go(s, &st);
    /* cycle 0: w0 wspawn (w1 active now); 1: w1 csr; 2: w0 csr; 3: w1; 4: w0 ... */
    ok(st_x(s, 1, 0, 1) == 1 && st_x(s, 0, 0, 1) == 2 && st_x(s, 1, 0, 2) == 3,
       "round-robin issue order shows in mcycle (%u %u %u)", st_x(s, 1, 0, 1), st_x(s, 0, 0, 1),
       st_x(s, 1, 0, 2));
    is_u32(st_x(s, 0, 0, 3), 6, "minstret counts the core's issues");
    vx_sim_free(s);

    /* Vortex's performance counters (MPM class 0, research 2.2) read 0: the real
     * runtime's vx_perf_dump reads them at exit */
    s = st_warp(1, 0);
    st_setx(s, 0, 0, 1, 0x5555);
    st_setx(s, 0, 0, 2, 0x5555);
    st_setx(s, 0, 0, 3, 0x5555);
    st_setx(s, 0, 0, 4, 0x5555);
    RUN(s, &st, NOP(), CSRRS(1, 0xB03, 0), CSRRS(2, 0xB1F, 0), CSRRS(3, 0xB83, 0),
        CSRRS(4, 0xB9F, 0));
    ok(st.reason == VX_STOP_EXIT && st_x(s, 0, 0, 1) == 0 && st_x(s, 0, 0, 2) == 0 &&
           st_x(s, 0, 0, 3) == 0 && st_x(s, 0, 0, 4) == 0,
       "mhpmcounter3, 31, 3h and 31h read 0");
    vx_sim_free(s);

    /* mcycleh is bits 63:32 of the cycle count: start at cycle 0x2_8000_0000 (the
     * state's cycle field, sim/STATE.md 2: offset 32 + 8) so the two halves differ
     * from any shift but 32 (mutation review: no test read a nonzero mcycleh) */
    s = st_warp(1, 0);
    uint32_t hi[] = {CSRRS(1, 0xB80, 0), CSRRS(2, 0xB00, 0)};
    st_code(s, hi, 2);
    uint8_t *buf = NULL;
    size_t len = 0;
    if (vx_sim_state_encode(s, &buf, &len) != VX_OK || len < 48) tap_bail("state encode");
    const uint64_t c0 = UINT64_C(0x280000000);
    for (int i = 0; i < 8; i++)
        buf[40 + i] = (uint8_t)(c0 >> (8 * i));
    if (vx_sim_state_decode(s, buf, len) != VX_OK) tap_bail("state decode");
    free(buf);
    st_go(s, &st);
    ok(st.reason == VX_STOP_EXIT && st_x(s, 0, 0, 1) == 2 && st_x(s, 0, 0, 2) == 0x80000001u,
       "at cycle 0x2_8000_0000: mcycleh 0x%x, then mcycle 0x%08x", st_x(s, 0, 0, 1),
       st_x(s, 0, 0, 2));
    vx_sim_free(s);
}

/* 0xCC3 is the active warps of the reading warp's own core: core 0's warp finishes
 * at once while core 1's warp reads 0xCC3 a few cycles later (mutation review: core 1
 * read core 0's warps, which the main test could not tell apart) */
static void test_active_warps_per_core(void)
{
    vx_sim_config c = VX_SIM_CONFIG_INIT;
    c.cores = 2;
    c.warps = 2;
    c.threads = 1;
    vx_sim *s = NULL;
    if (vx_sim_new(&c, &s) != VX_OK) tap_bail("vx_sim_new");
    vx_stop st;
    st_setx(s, 2, 0, 1, 0x5555);
    /* core 0 (x2 = 0) branches to the final tmc x0; core 1 waits, then reads */
    RUN(s, &st, CSRRS(2, 0xCC2, 0), BEQ(2, 0, 20), NOP(), NOP(), NOP(), CSRRS(1, 0xCC3, 0));
    ok(st.reason == VX_STOP_EXIT && st_x(s, 2, 0, 1) == 0x1 && st_x(s, 2, 0, 2) == 1,
       "0xCC3 per core: core 1 reads its own active warps 0x%x after core 0 ended",
       st_x(s, 2, 0, 1));
    vx_sim_free(s);
}

/* 0xCC3 covers warps 0-31: 32 warps spawned by warp 0 each read it in their first
 * issue, before any of them ends (mutation review: bits 16-31 were never set) */
static void test_active_warps_32(void)
{
    vx_sim *s = st_new(1, 1, 32, 1);
    vx_stop st;
    uint32_t prog[] = {CSRRS(1, 0xCC3, 0), VX_TMC(0)};
    st_code_at(s, ST_CODE, prog, 2);
    st_setx(s, 0, 0, 5, 32);
    st_setx(s, 0, 0, 6, ST_CODE);
    uint32_t spawn[] = {VX_WSPAWN(5, 6)};
    st_code_at(s, ST_CODE - 4, spawn, 1);
    vx_sim_set_pc(s, 0, ST_CODE - 4);
    st_go(s, &st);
    ok(st.reason == VX_STOP_EXIT && st_x(s, 1, 0, 1) == 0xffffffffu &&
           st_x(s, 31, 0, 1) == 0xffffffffu,
       "0xCC3 with 32 warps: 0x%08x (warp 1), 0x%08x (warp 31)", st_x(s, 1, 0, 1),
       st_x(s, 31, 0, 1));
    vx_sim_free(s);
}

static void test_errors(void)
{
    vx_stop st;

    struct {
        const char *name;
        uint32_t insn;
        bool fault;
    } cases[] = {
        {"csrr of a read-only CSR", CSRRS(1, 0xCC0, 0), false},
        {"csrrs rs1!=x0 on read-only CSR (even if the value is 0)", CSRRS(1, 0xCC0, 7), true},
        {"csrrw x0 on read-only CSR", CSRRW(0, 0xF14, 0), true},
        {"csrrc rs1!=x0 on read-only CSR", CSRRC(1, 0xFC0, 7), true},
        {"csrrsi zimm=0 on read-only CSR", CSRRSI(1, 0xCC4, 0), false},
        {"csrrci zimm=1 on read-only CSR", CSRRCI(1, 0xCC4, 1), true},
        {"csrrwi zimm=0 on read-only CSR", CSRRWI(1, 0xCC1, 0), true},
        {"write to mcycle", CSRRW(0, 0xB00, 7), true},
        {"unknown CSR read", CSRRS(1, 0x7C0, 0), true},
        {"unknown CSR 0xC00 (cycle) read", CSRRS(1, 0xC00, 0), true},
        {"write to mhpmcounter3", CSRRW(0, 0xB03, 7), true},
        {"unknown CSR 0xB20 (past the counters) read", CSRRS(1, 0xB20, 0), true},
        {"unknown CSR 0xBA0 read", CSRRS(1, 0xBA0, 0), true},
        {"unknown CSR write", CSRRW(0, 0x123, 7), true},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vx_sim *s = st_warp(2, 0);
        st_setx_all(s, 0, 1, 0x5555);
        run_prog(s, &cases[i].insn, 1, &st);
        if (cases[i].fault)
            ok(st.reason == VX_STOP_FAULT && st.fault.kind == VX_FAULT_CSR &&
                   st.fault.signal == 4 && st.fault.addr == ((cases[i].insn >> 20) & 0xfff) &&
                   st_x(s, 0, 0, 1) == 0x5555,
               "%s faults CSR (SIGILL), rd untouched: %s", cases[i].name, st.fault.reason);
        else
            ok(st.reason == VX_STOP_EXIT, "%s is allowed", cases[i].name);
        vx_sim_free(s);
    }
}

int main(void)
{
    test_vortex_csrs();
    test_rw();
    test_counters();
    test_active_warps_per_core();
    test_active_warps_32();
    test_errors();
    is_int(st_check_coverage(VX_IF_CSR, 0), 0, "every CSR row of the table is exercised");
    tap_done();
    return tap_exit();
}
