/*
 * t-simt.c - the Vortex custom-0 group (research §1.2-§1.5, v2.x-master): TMC,
 * WSPAWN (join-wait), SPLIT/JOIN (larger side first, IPDOM depth limit), PRED,
 * local and global barriers, vote and shuffle, the last-active-lane operand
 * rule, console bytes from several harts, exit-code propagation, deadlock.
 * Programs are hand-assembled with tests/lib/rvenc.h; branch offsets are
 * (target index - branch index) * 4.
 */
#include "simtest.h"

#define CTR  ST_DATA
#define SENT 0xdeadbeefu

static void test_tmc(void)
{
    vx_sim *s = st_warp(4, 0);
    st_setx_all(s, 0, 5, 5);
    ST_CODE_ARR(s, VX_TMC(5), ADDI(3, 0, 7));
    vx_stop st;
    ok(st_go(s, &st) == VX_STOP_EXIT, "tmc program exits");
    ok(st_x(s, 0, 0, 3) == 7 && st_x(s, 0, 1, 3) == 0 && st_x(s, 0, 2, 3) == 7 &&
           st_x(s, 0, 3, 3) == 0,
       "tmc 0b0101 leaves lanes 0 and 2 running");
    vx_sim_free(s);

    /* last active lane supplies the operand */
    s = st_warp(4, 0x7);
    st_setx(s, 0, 0, 5, 1);
    st_setx(s, 0, 1, 5, 3);
    st_setx(s, 0, 2, 5, 0xf);
    st_setx(s, 0, 3, 5, 0);
    ST_CODE_ARR(s, VX_TMC(5), ADDI(3, 0, 7));
    st_go(s, NULL);
    is_u32(st_x(s, 0, 3, 3), 7, "tmc takes its mask from the last active lane (lane 2: 0xf)");
    vx_sim_free(s);

    /* 64 lanes: tmc -1 enables all of them (32-bit mask sign-extended) */
    s = st_warp(64, 1);
    st_setx(s, 0, 0, 5, 0xffffffff);
    ST_CODE_ARR(s, VX_TMC(5), ADDI(3, 0, 7), CSRRS(4, 0xCC4, 0));
    st_go(s, NULL);
    ok(st_x(s, 0, 63, 3) == 7 && st_x(s, 0, 40, 4) == 0xffffffff, "tmc -1 with 64 lanes");
    vx_sim_free(s);

    /* tmc 0 ends the warp; the kernel exits with the word at 0x88 */
    s = st_warp(1, 0);
    ST_CODE_ARR(s, ADDI(5, 0, 42), SW(5, 0x88, 0), VX_TMC(0), ADDI(6, 0, 1));
    ok(st_go(s, &st) == VX_STOP_EXIT && st.exit_code == 42 && st_x(s, 0, 0, 6) == 0,
       "tmc 0 ends the kernel; exit code = word at 0x88 (%u)", st.exit_code);
    vx_warp_info wi;
    vx_sim_warp_info(s, 0, &wi);
    ok(!wi.active && wi.pc == ST_CODE + 12, "finished warp is inactive, pc after the tmc");
    vx_sim_free(s);
}

/* ENTRY used by spawn tests: take a ticket, store it at DATA+0x20+4*wid, end. */
#define ENTRY (ST_CODE + 0x100)

static void put_entry(vx_sim *s, uint32_t at, uint32_t slot_base)
{
    uint32_t e[] = {CSRRS(12, 0xCC1, 0),
                    LUI(10, ST_DATA >> 12),
                    ADDI(9, 0, 1),
                    AMOADD_W(8, 9, 10),
                    SLLI(12, 12, 2),
                    ADD(12, 12, 10),
                    SW(8, (int32_t)slot_base, 12),
                    VX_TMC(0)};
    st_code_at(s, at, e, 8);
}

static void test_wspawn(void)
{
    vx_stop st;
    /* spawn 3 warps while alone: immediate; then wspawn(1) waits for them */
    vx_sim *s = st_new(1, 1, 4, 1);
    put_entry(s, ENTRY, 0x20);
    st_setx(s, 0, 0, 5, 4);
    st_setx(s, 0, 0, 6, ENTRY);
    st_setx(s, 0, 0, 7, 1);
    st_setx(s, 0, 0, 9, 1);
    st_setx(s, 0, 0, 10, CTR);
    st_setx(s, 0, 0, 11, ST_DATA + 0x40);
    ST_CODE_ARR(s, VX_WSPAWN(5, 6), VX_WSPAWN(7, 0), AMOADD_W(8, 9, 10), SW(8, 0, 11));
    vx_sim_run(s, 1, &st);
    vx_warp_info wi[4];
    for (uint32_t g = 0; g < 4; g++)
        vx_sim_warp_info(s, g, &wi[g]);
    ok(wi[1].active && wi[3].active && wi[2].pc == ENTRY && wi[3].tmask == 1 && !wi[0].stalled,
       "wspawn(4) while alone activates warps 1-3 at the entry with lane 0");
    vx_sim_run(s, 1, &st); /* warp 1 */
    vx_sim_run(s, 2, &st); /* warp 2, 3 */
    vx_sim_run(s, 1, &st); /* warp 0: wspawn(1) */
    vx_sim_warp_info(s, 0, &wi[0]);
    ok(wi[0].stalled && wi[0].spawn_wait, "wspawn(1) with other warps active waits (join)");
    ok(st_go(s, &st) == VX_STOP_EXIT, "spawn program exits");
    uint32_t t1 = st_r32(s, 0, ST_DATA + 0x24), t2 = st_r32(s, 0, ST_DATA + 0x28),
             t3 = st_r32(s, 0, ST_DATA + 0x2c);
    ok(t1 + t2 + t3 == 3 && t1 != t2 && t2 != t3 && t1 != t3, "three spawned warps ran (%u %u %u)",
       t1, t2, t3);
    is_u32(st_r32(s, 0, ST_DATA + 0x40), 3, "warp 0 continued only after all of them ended");
    vx_sim_free(s);

    /* wspawn while others run: the caller waits, then the new spawn starts */
    s = st_new(1, 1, 4, 1);
    put_entry(s, ENTRY, 0x20);
    put_entry(s, ENTRY + 0x100, 0x60);
    st_setx(s, 0, 0, 5, 4);
    st_setx(s, 0, 0, 6, ENTRY);
    st_setx(s, 0, 0, 8, ENTRY + 0x100);
    st_setx(s, 0, 0, 7, 1);
    ST_CODE_ARR(s, VX_WSPAWN(5, 6), VX_WSPAWN(5, 8), VX_WSPAWN(7, 0));
    ok(st_go(s, &st) == VX_STOP_EXIT, "double spawn exits");
    uint32_t lo = 99, hi = 0;
    for (uint32_t w = 1; w < 4; w++) {
        uint32_t a = st_r32(s, 0, ST_DATA + 0x20 + 4 * w), b = st_r32(s, 0, ST_DATA + 0x60 + 4 * w);
        if (b < lo) lo = b;
        if (a > hi) hi = a;
    }
    ok(hi == 2 && lo == 3, "second spawn started after the first generation ended");
    vx_sim_free(s);

    /* n < 2 while alone: no-op, no stall */
    s = st_warp(1, 0);
    st_setx_all(s, 0, 5, 1);
    ST_CODE_ARR(s, VX_WSPAWN(5, 0), ADDI(3, 0, 1));
    ok(st_go(s, &st) == VX_STOP_EXIT && st_x(s, 0, 0, 3) == 1, "wspawn(1) alone is a no-op");
    vx_sim_free(s);

    /* n is clamped to the warp count */
    s = st_new(1, 1, 4, 1);
    put_entry(s, ENTRY, 0x20);
    st_setx(s, 0, 0, 5, 100);
    st_setx(s, 0, 0, 6, ENTRY);
    ST_CODE_ARR(s, VX_WSPAWN(5, 6));
    ok(st_go(s, &st) == VX_STOP_EXIT && st_r32(s, 0, CTR) == 3, "wspawn(100) starts NW-1 warps");
    vx_sim_free(s);

    /* misaligned entry */
    s = st_new(1, 1, 4, 1);
    st_setx(s, 0, 0, 5, 2);
    st_setx(s, 0, 0, 6, ENTRY + 2);
    ST_CODE_ARR(s, VX_WSPAWN(5, 6));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_WSPAWN && st.fault.signal == 6,
       "misaligned wspawn entry faults WSPAWN (SIGABRT)");
    vx_sim_free(s);

    /* a wspawn that starts no warp never uses its entry (SimX and the RTL never read it),
     * so a misaligned one is no fault there: alone with 1 warp (a no-op) ... */
    s = st_new(1, 1, 4, 1);
    st_setx(s, 0, 0, 5, 1);
    st_setx(s, 0, 0, 6, ENTRY + 2);
    ST_CODE_ARR(s, VX_WSPAWN(5, 6), ADDI(3, 0, 7));
    ok(st_go(s, &st) == VX_STOP_EXIT && st_x(s, 0, 0, 3) == 7,
       "wspawn(1) alone with a misaligned entry is a no-op");
    vx_sim_free(s);
    /* ... and wspawn(0) while spawned warps run: waits for them, then goes on */
    s = st_new(1, 1, 4, 1);
    uint32_t ce[] = {LUI(10, ST_DATA >> 12), ADDI(9, 0, 1), AMOADD_W(8, 9, 10), VX_TMC(0)};
    st_code_at(s, ENTRY, ce, 4);
    st_setx(s, 0, 0, 5, 4);
    st_setx(s, 0, 0, 6, ENTRY);
    st_setx(s, 0, 0, 7, 0);
    st_setx(s, 0, 0, 11, 0x80000001u);
    st_setx(s, 0, 0, 10, CTR);
    ST_CODE_ARR(s, VX_WSPAWN(5, 6), VX_WSPAWN(7, 11), LW(3, 0, 10));
    ok(st_go(s, &st) == VX_STOP_EXIT && st_x(s, 0, 0, 3) == 3,
       "wspawn(0, misaligned) while 3 warps run waits for them and goes on (x3 = %u)",
       st_x(s, 0, 0, 3));
    vx_sim_free(s);
    /* wspawn(1) from warp 1 while warp 0 runs does start warp 0 (i < 1, not the caller)
     * once warp 0 ends: its misaligned entry faults */
    s = st_new(1, 1, 4, 1);
    uint32_t w1[] = {VX_WSPAWN(5, 6), VX_TMC(0)};
    st_code_at(s, ENTRY, w1, 2);
    st_setx(s, 0, 0, 5, 2);
    st_setx(s, 0, 0, 6, ENTRY);
    st_setx(s, 1, 0, 5, 1);
    st_setx(s, 1, 0, 6, ENTRY + 0x42);
    ST_CODE_ARR(s, VX_WSPAWN(5, 6), ADDI(3, 0, 1), ADDI(3, 3, 1), ADDI(3, 3, 1), VX_TMC(0));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_WSPAWN && st.fault.warp == 1,
       "wspawn(1, misaligned) from warp 1 beside warp 0 faults WSPAWN in warp 1");
    vx_sim_free(s);

    /* wspawn(1) from warp 1 while it is the core's only active warp is a no-op (SimX:
     * n < 2 and one active warp, research 1.5): warp 0, ended, is not started again
     * (mutation review: only n < 1 was taken as a no-op, which restarted warp 0) */
    s = st_new(1, 1, 2, 1);
    uint32_t w1a[] = {ADDI(14, 0, 20), ADDI(14, 14, -1), BNE(14, 0, -4),
                      VX_WSPAWN(5, 6), ADDI(3, 0, 1),    VX_TMC(0)};
    uint32_t w0b[] = {LUI(10, ST_DATA >> 12), ADDI(9, 0, 0x77), SW(9, 0x90, 10), VX_TMC(0)};
    st_code_at(s, ENTRY, w1a, 6);
    st_code_at(s, ENTRY + 0x100, w0b, 4);
    st_setx(s, 0, 0, 5, 2);
    st_setx(s, 0, 0, 6, ENTRY);
    st_setx(s, 1, 0, 5, 1);
    st_setx(s, 1, 0, 6, ENTRY + 0x100);
    ST_CODE_ARR(s, VX_WSPAWN(5, 6));
    st_go(s, &st);
    ok(st.reason == VX_STOP_EXIT && st_x(s, 1, 0, 3) == 1 && st_r32(s, 0, ST_DATA + 0x90) == 0,
       "wspawn(1) from warp 1 alone is a no-op: warp 0 not restarted (0x%x)",
       st_r32(s, 0, ST_DATA + 0x90));
    vx_sim_free(s);

    /* a second pending spawn in the core */
    s = st_new(1, 1, 4, 1);
    uint32_t e1[] = {ADDI(5, 0, 2), LUI(6, ENTRY >> 12), ADDI(6, 6, ENTRY & 0xfff), VX_WSPAWN(5, 6),
                     VX_TMC(0)};
    st_code_at(s, ENTRY, e1, 5);
    st_setx(s, 0, 0, 5, 2);
    st_setx(s, 0, 0, 6, ENTRY);
    ST_CODE_ARR(s, VX_WSPAWN(5, 6), VX_WSPAWN(5, 6));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_WSPAWN &&
           strstr(st.fault.reason, "pending") != NULL,
       "second pending wspawn faults: %s", st.fault.reason);
    vx_sim_free(s);

    /* a spawn from warp 1 (the only active warp) starts warps 0 and 2 */
    s = st_new(1, 1, 4, 1);
    uint32_t e2[] = {CSRRS(12, 0xCC1, 0),
                     ADDI(13, 0, 1),
                     BNE(12, 13, 24),
                     ADDI(5, 0, 3),
                     LUI(6, ENTRY >> 12),
                     ADDI(6, 6, ENTRY & 0xfff),
                     VX_WSPAWN(5, 6),
                     VX_TMC(0),
                     /* 8: others */ LUI(10, ST_DATA >> 12),
                     SLLI(12, 12, 2),
                     ADD(12, 12, 10),
                     SW(13, 0x80, 12),
                     VX_TMC(0)};
    st_code_at(s, ENTRY, e2, 13);
    st_setx(s, 0, 0, 5, 2);
    st_setx(s, 0, 0, 6, ENTRY);
    ST_CODE_ARR(s, VX_WSPAWN(5, 6));
    ok(st_go(s, &st) == VX_STOP_EXIT && st_r32(s, 0, ST_DATA + 0x80) == 1 &&
           st_r32(s, 0, ST_DATA + 0x88) == 1 && st_r32(s, 0, ST_DATA + 0x84) == 0,
       "wspawn from warp 1 starts warps i < n, i != caller");
    vx_sim_free(s);

    /* tmc 0 on warp 0 while another warp still runs; its exit code wins */
    s = st_new(1, 1, 2, 1);
    uint32_t e3[] = {ADDI(14, 0, 20), ADDI(14, 14, -1), BNE(14, 0, -4),
                     ADDI(15, 0, 7),  SW(15, 0x88, 0),  VX_TMC(0)};
    st_code_at(s, ENTRY, e3, 6);
    st_setx(s, 0, 0, 5, 2);
    st_setx(s, 0, 0, 6, ENTRY);
    ST_CODE_ARR(s, VX_WSPAWN(5, 6));
    ok(st_go(s, &st) == VX_STOP_EXIT && st.exit_code == 7 && vx_sim_index(s) > 40,
       "kernel ends when the last warp ends, not warp 0 (exit %u)", st.exit_code);
    vx_sim_free(s);
}

static void test_split_join(void)
{
    vx_stop st;
    /* non-divergent: token = depth, no push, join is a no-op */
    vx_sim *s = st_warp(4, 0);
    st_setx_all(s, 0, 5, 1);
    st_setx_all(s, 0, 10, SENT);
    ST_CODE_ARR(s, VX_SPLIT(10, 5), ADDI(9, 0, 1), VX_JOIN(10), CSRRS(13, 0xCC4, 0));
    vx_sim_run(s, 1, &st);
    vx_warp_info wi;
    vx_sim_warp_info(s, 0, &wi);
    ok(wi.ipdom_depth == 0 && wi.tmask == 0xf && st_x(s, 0, 3, 10) == 0,
       "uniform split: token 0, no push");
    st_go(s, &st);
    ok(st_x(s, 0, 2, 13) == 0xf && st_x(s, 0, 3, 9) == 1, "uniform join is a no-op");
    vx_sim_free(s);

    /* the canonical if/else */
    s = st_warp(4, 0);
    st_setx(s, 0, 0, 5, 1);
    st_setx(s, 0, 1, 5, 1);
    ST_CODE_ARR(s, VX_SPLIT(10, 5), BEQ(5, 0, 12), ADDI(9, 0, 1), JAL(0, 8), ADDI(9, 0, 2),
                VX_JOIN(10), CSRRS(13, 0xCC4, 0));
    vx_sim_run(s, 1, &st);
    vx_ipdom_entry e;
    vx_sim_warp_info(s, 0, &wi);
    ok(vx_sim_ipdom_get(s, 0, 0, &e) == VX_OK && e.orig_mask == 0xf && e.else_mask == 0xc &&
           e.pc == ST_CODE + 4 && !e.fallthrough && wi.tmask == 0x3 && wi.ipdom_depth == 1,
       "divergent split pushes {orig, else, pc+4}; a tie runs the then side");
    ok(vx_sim_ipdom_get(s, 0, 1, &e) == VX_ERR_RANGE, "only one entry");
    ok(st_go(s, &st) == VX_STOP_EXIT, "if/else exits");
    ok(st_x(s, 0, 0, 9) == 1 && st_x(s, 0, 1, 9) == 1 && st_x(s, 0, 2, 9) == 2 &&
           st_x(s, 0, 3, 9) == 2,
       "then lanes took path 1, else lanes path 2");
    ok(st_x(s, 0, 0, 13) == 0xf && st_x(s, 0, 3, 13) == 0xf && st_x(s, 0, 3, 10) == 0,
       "join restores the full mask; token 0 in every lane");
    vx_sim_warp_info(s, 0, &wi);
    is_u32(wi.ipdom_depth, 0, "stack empty at the end");
    vx_sim_free(s);

    /* larger side first: then = {0}, else = {1,2,3} runs first */
    static const struct {
        const char *name;
        bool neg;
        uint32_t pred[4];
        uint32_t first_lane_ticket0; /* lane that takes ticket 0 */
        uint32_t late_lane, late_ticket;
    } order[] = {
        {"split: larger else side runs first", false, {1, 0, 0, 0}, 1, 0, 3},
        {"split: tie runs the then side first", false, {1, 1, 0, 0}, 0, 3, 3},
        {"split.n: negated predicate", true, {1, 1, 1, 0}, 0, 3, 3},
        /* the then side of split.n is the lanes whose bit 0 is 0: a tie runs them first
         * (mutation review: split.n without its negation passed every other row) */
        {"split.n: tie runs the negated then side first", true, {1, 1, 0, 0}, 2, 1, 3},
        {"split: predicate is bit 0 only", false, {3, 2, 2, 2}, 1, 0, 3},
    };

    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        s = st_warp(4, 0);
        for (uint32_t l = 0; l < 4; l++)
            st_setx(s, 0, l, 5, order[i].pred[l]);
        st_setx_all(s, 0, 7, 1);
        st_setx_all(s, 0, 10, CTR);
        st_setx_all(s, 0, 6, 1);
        ST_CODE_ARR(s, order[i].neg ? VX_SPLIT_N(11, 5) : VX_SPLIT(11, 5), AND(12, 5, 6),
                    BEQ(12, 0, 16), AMOADD_W(8, 7, 10), ADDI(9, 0, 1), JAL(0, 12),
                    AMOADD_W(8, 7, 10), ADDI(9, 0, 2), VX_JOIN(11));
        int r = st_go(s, &st);
        ok(r == VX_STOP_EXIT && st_x(s, 0, order[i].first_lane_ticket0, 8) == 0 &&
               st_x(s, 0, order[i].late_lane, 8) == order[i].late_ticket,
           "%s (tickets %u %u %u %u)", order[i].name, st_x(s, 0, 0, 8), st_x(s, 0, 1, 8),
           st_x(s, 0, 2, 8), st_x(s, 0, 3, 8));
        vx_sim_free(s);
    }

    /* properly nested to the maximum depth NT-1 = 3 */
    s = st_warp(4, 0);
    for (uint32_t l = 0; l < 4; l++) {
        st_setx(s, 0, l, 11, l == 0);
        st_setx(s, 0, l, 12, l == 1);
        st_setx(s, 0, l, 13, l == 2);
    }
    ST_CODE_ARR(s, VX_SPLIT(20, 11), BNE(11, 0, 36), VX_SPLIT(21, 12), BNE(12, 0, 20),
                VX_SPLIT(22, 13), CSRRS(15, 0xCC4, 0), VX_JOIN(22), JAL(0, 8), ADDI(16, 0, 1),
                VX_JOIN(21), VX_JOIN(20), CSRRS(17, 0xCC4, 0));
    int r = st_go(s, &st);
    ok(r == VX_STOP_EXIT, "nested splits to depth 3 with 4 lanes do not overflow (%s)",
       st.fault.reason);
    ok(st_x(s, 0, 2, 15) == 0x4 && st_x(s, 0, 3, 15) == 0x8 && st_x(s, 0, 1, 16) == 1 &&
           st_x(s, 0, 2, 22) == 2 && st_x(s, 0, 0, 17) == 0xf,
       "innermost level ran lanes 2 and 3 apart; full mask restored");
    vx_sim_free(s);

    /* re-enabling lanes with tmc inside divergent regions: one past the limit faults */
    s = st_warp(4, 0);
    st_setx(s, 0, 0, 5, 1);
    st_setx_all(s, 0, 6, 0xffffffff);
    st_setx_all(s, 0, 23, SENT);
    ST_CODE_ARR(s, VX_SPLIT(20, 5), VX_TMC(6), VX_SPLIT(21, 5), VX_TMC(6), VX_SPLIT(22, 5),
                VX_TMC(6), VX_SPLIT(23, 5));
    r = st_go(s, &st);
    vx_sim_warp_info(s, 0, &wi);
    ok(r == VX_STOP_FAULT && st.fault.kind == VX_FAULT_IPDOM_OVERFLOW && st.fault.signal == 6 &&
           st.fault.pc == ST_CODE + 24,
       "fourth nested divergent split with 4 lanes overflows: %s", st.fault.reason);
    ok(wi.ipdom_depth == 3 && st_x(s, 0, 1, 22) == 2 && st_x(s, 0, 1, 23) == SENT,
       "no effect: depth stays 3, rd untouched");
    vx_sim_free(s);

    /* join with an empty stack */
    s = st_warp(4, 0);
    st_setx_all(s, 0, 5, 7);
    ST_CODE_ARR(s, VX_JOIN(5));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_IPDOM_UNDERFLOW,
       "join with a token != depth and an empty stack faults");
    vx_sim_free(s);
}

static void test_pred(void)
{
    vx_sim *s = st_warp(4, 0);
    uint32_t p[4] = {1, 0, 1, 0}, m[4] = {0xf, 0xf, 0x3, 0xf};
    for (uint32_t l = 0; l < 4; l++) {
        st_setx(s, 0, l, 5, p[l]);
        st_setx(s, 0, l, 6, m[l]);
    }
    ST_CODE_ARR(s, VX_PRED(5, 6), CSRRS(7, 0xCC4, 0), VX_PRED(0, 6), CSRRS(9, 0xCC4, 0),
                VX_PRED_N(5, 6), CSRRS(10, 0xCC4, 0));
    vx_stop st;
    ok(st_go(s, &st) == VX_STOP_EXIT, "pred program exits");
    ok(st_x(s, 0, 0, 7) == 5 && st_x(s, 0, 2, 7) == 5 && st_x(s, 0, 1, 7) == 0,
       "pred keeps the lanes whose predicate is set");
    ok(st_x(s, 0, 0, 9) == 3 && st_x(s, 0, 1, 9) == 3 && st_x(s, 0, 2, 9) == 0,
       "pred with no lane set restores rs2 of the last active lane (0x3)");
    ok(st_x(s, 0, 1, 10) == 2 && st_x(s, 0, 0, 10) == 0, "pred.n negates the predicate");
    vx_sim_free(s);

    /* restore mask 0 ends the warp */
    s = st_warp(4, 0);
    ST_CODE_ARR(s, VX_PRED(0, 0), ADDI(3, 0, 1));
    ok(st_go(s, &st) == VX_STOP_EXIT && st_x(s, 0, 0, 3) == 0,
       "pred restoring mask 0 ends the warp");
    vx_sim_free(s);
}

static void test_barriers(void)
{
    vx_stop st;
    /* local barrier, count 2, with 3 active warps: warp 0 waits for warp 1 */
    vx_sim *s = st_new(1, 1, 4, 1);
    uint32_t e[] = {CSRRS(12, 0xCC1, 0),    ADDI(13, 0, 1),   BNE(12, 13, 32),
                    ADDI(14, 0, 20),        ADDI(14, 14, -1), BNE(14, 0, -4),
                    LUI(10, ST_DATA >> 12), SW(13, 0, 10),    ADDI(7, 0, 2),
                    VX_BAR(0, 7),           VX_TMC(0)};
    st_code_at(s, ENTRY, e, 11);
    st_setx(s, 0, 0, 5, 3);
    st_setx(s, 0, 0, 6, ENTRY);
    st_setx(s, 0, 0, 7, 2);
    st_setx(s, 0, 0, 10, ST_DATA);
    ST_CODE_ARR(s, VX_WSPAWN(5, 6), VX_BAR(0, 7), LW(8, 0, 10));
    ok(st_go(s, &st) == VX_STOP_EXIT, "local barrier program exits");
    is_u32(st_x(s, 0, 0, 8), 1, "warp 0 passed the barrier only after warp 1 arrived");
    vx_sim_free(s);

    /* two local barriers at once: warps 0 and 1 meet at barrier 0 while warp 2 waits at
     * barrier 1 for warp 3, which stores a flag first; opening barrier 0 must not free
     * warp 2 (mutation review: the release freed every waiting warp whatever its id) */
    s = st_new(1, 1, 4, 1);
    uint32_t two[] = {CSRRS(12, 0xCC1, 0),
                      LUI(10, ST_DATA >> 12),
                      ADDI(7, 0, 2),
                      ADDI(13, 0, 2),
                      BEQ(12, 13, 36),
                      ADDI(13, 0, 3),
                      BEQ(12, 13, 44),
                      /* 7: warp 1 */ ADDI(14, 0, 10),
                      ADDI(14, 14, -1),
                      BNE(14, 0, -4),
                      VX_BAR(0, 7),
                      VX_TMC(0),
                      NOP(),
                      /* 13: warp 2 */ ADDI(11, 0, 1),
                      VX_BAR(11, 7),
                      LW(8, 0, 10),
                      VX_TMC(0),
                      /* 17: warp 3 */ ADDI(14, 0, 60),
                      ADDI(14, 14, -1),
                      BNE(14, 0, -4),
                      ADDI(13, 0, 1),
                      SW(13, 0, 10),
                      ADDI(11, 0, 1),
                      VX_BAR(11, 7),
                      VX_TMC(0)};
    st_code_at(s, ENTRY, two, sizeof two / sizeof two[0]);
    st_setx(s, 0, 0, 5, 4);
    st_setx(s, 0, 0, 6, ENTRY);
    st_setx(s, 0, 0, 7, 2);
    ST_CODE_ARR(s, VX_WSPAWN(5, 6), VX_BAR(0, 7));
    st_go(s, &st);
    ok(st.reason == VX_STOP_EXIT && st_x(s, 2, 0, 8) == 1,
       "barrier 0 opening leaves warp 2 at barrier 1 until warp 3 arrives (flag %u)",
       st_x(s, 2, 0, 8));
    vx_sim_free(s);

    /* count 1 (and 0) is a no-op */
    s = st_new(1, 1, 2, 1);
    st_setx(s, 0, 0, 7, 1);
    ST_CODE_ARR(s, VX_BAR(0, 7), VX_BAR(0, 0), ADDI(3, 0, 1));
    ok(st_go(s, &st) == VX_STOP_EXIT && st_x(s, 0, 0, 3) == 1, "bar with count < 2 is a no-op");
    vx_sim_stats bs;
    vx_sim_get_stats(s, &bs);
    /* the statistics count bar instructions with a count of at least 2 (sim/STATE.md §2)
     * (mutation review: a count-1 bar that arrived and released itself went unseen) */
    is_u64(bs.barriers, 0, "a no-op bar (count 1 or 0) is not counted as a barrier");
    vx_sim_free(s);

    /* barrier id out of range: NB = max(1, NW/2) = 2 */
    s = st_new(1, 1, 4, 1);
    st_setx(s, 0, 0, 5, 2);
    st_setx(s, 0, 0, 7, 2);
    ST_CODE_ARR(s, VX_BAR(5, 7));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_BARRIER && st.fault.signal == 6,
       "barrier id 2 with 4 warps faults BARRIER: %s", st.fault.reason);
    vx_sim_free(s);
    s = st_new(1, 1, 1, 1);
    st_setx(s, 0, 0, 5, 0x80000001u);
    st_setx(s, 0, 0, 7, 2);
    ST_CODE_ARR(s, VX_BAR(5, 7));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_BARRIER,
       "global barrier index out of range faults too");
    vx_sim_free(s);

    /* deadlock: count 3 but only 2 warps */
    s = st_new(1, 1, 2, 1);
    uint32_t e2[] = {ADDI(7, 0, 3), VX_BAR(0, 7), VX_TMC(0)};
    st_code_at(s, ENTRY, e2, 3);
    st_setx(s, 0, 0, 5, 2);
    st_setx(s, 0, 0, 6, ENTRY);
    st_setx(s, 0, 0, 7, 3);
    ST_CODE_ARR(s, VX_WSPAWN(5, 6), VX_BAR(0, 7));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_DEADLOCK && st.fault.signal == 6,
       "barrier that can never complete is a DEADLOCK fault: %s", st.fault.reason);
    vx_sim_free(s);

    /* global barrier across two cores (and across two clusters) */
    for (int clusters = 1; clusters <= 2; clusters++) {
        s = st_new((uint32_t)clusters, (uint32_t)(3 - clusters), 1, 1);
        uint32_t g[] = {CSRRS(12, 0xCC2, 0), LUI(10, ST_DATA >> 12), LUI(15, 0x80000),
                        ADDI(7, 0, 2),       BEQ(12, 0, 24),         ADDI(14, 0, 10),
                        ADDI(14, 14, -1),    BNE(14, 0, -4),         ADDI(13, 0, 1),
                        SW(13, 0, 10),       VX_BAR(15, 7),          LW(8, 0, 10)};
        st_code(s, g, 12);
        ok(st_go(s, &st) == VX_STOP_EXIT && st_x(s, 0, 0, 8) == 1,
           "global barrier (%s): core 0 waits for core 1",
           clusters == 1 ? "2 cores" : "2 clusters: platform-wide, not per cluster");
        vx_sim_free(s);
    }

    /* a core reports when its other warp ends (tmc 0) instead of arriving */
    s = st_new(1, 2, 2, 1);
    uint32_t d[] = {ADDI(14, 0, 30), ADDI(14, 14, -1), BNE(14, 0, -4), VX_TMC(0)};
    st_code_at(s, ENTRY, d, 4);
    uint32_t g2[] = {ADDI(5, 0, 2),    LUI(6, ENTRY >> 12), ADDI(6, 6, ENTRY & 0xfff),
                     VX_WSPAWN(5, 6),  CSRRS(12, 0xCC2, 0), LUI(10, ST_DATA >> 12),
                     LUI(15, 0x80000), ADDI(7, 0, 2),       BEQ(12, 0, 12),
                     ADDI(13, 0, 1),   SW(13, 0, 10),       VX_BAR(15, 7),
                     LW(8, 0, 10)};
    st_code(s, g2, 13);
    ok(st_go(s, &st) == VX_STOP_EXIT && st_x(s, 0, 0, 8) == 1,
       "global barrier completes when the remaining warps of a core end (%d %s)", st.reason,
       st.fault.reason);
    vx_sim_free(s);

    /* a core reports only once every active warp of it arrived: warp 0 of each core
     * arrives at once, warp 1 after a delay and a store; warp 0 must see the store
     * (mutation review: a core that reported at its first arrival released early) */
    s = st_new(1, 2, 2, 1);
    uint32_t d3[] = {ADDI(14, 0, 30), ADDI(14, 14, -1), BNE(14, 0, -4),   LUI(10, ST_DATA >> 12),
                     ADDI(13, 0, 1),  SW(13, 0, 10),    LUI(15, 0x80000), ADDI(7, 0, 2),
                     VX_BAR(15, 7),   VX_TMC(0)};
    st_code_at(s, ENTRY, d3, 10);
    uint32_t g3[] = {ADDI(5, 0, 2),   LUI(6, ENTRY >> 12),    ADDI(6, 6, ENTRY & 0xfff),
                     VX_WSPAWN(5, 6), LUI(10, ST_DATA >> 12), LUI(15, 0x80000),
                     ADDI(7, 0, 2),   VX_BAR(15, 7),          LW(8, 0, 10)};
    st_code(s, g3, 9);
    ok(st_go(s, &st) == VX_STOP_EXIT && st_x(s, 0, 0, 8) == 1,
       "global barrier: a core with one of two warps arrived does not report");
    vx_sim_free(s);

    /* the count that opens a global barrier is the one the last warp to arrive gave:
     * core 0 arrives at once with count `first`, core 1 later with `later` */
    for (uint32_t later = 2; later <= 3; later++) {
        s = st_new(1, 2, 1, 1);
        uint32_t gc[] = {CSRRS(12, 0xCC2, 0),
                         LUI(15, 0x80000),
                         ADDI(7, 0, (int32_t)(5 - later)),
                         BEQ(12, 0, 20),
                         ADDI(7, 0, (int32_t)later),
                         ADDI(14, 0, 10),
                         ADDI(14, 14, -1),
                         BNE(14, 0, -4),
                         VX_BAR(15, 7),
                         ADDI(3, 0, 9)};
        st_code(s, gc, 10);
        vx_stop_reason r = st_go(s, &st);
        if (later == 2)
            ok(r == VX_STOP_EXIT && st_x(s, 0, 0, 3) == 9 && st_x(s, 1, 0, 3) == 9,
               "global barrier: counts 3 then 2, two cores reported: it opens");
        else
            ok(r == VX_STOP_FAULT && st.fault.kind == VX_FAULT_DEADLOCK,
               "global barrier: counts 2 then 3, two cores reported: it stays shut (deadlock)");
        vx_sim_free(s);
    }

    /* local barrier 0 and global barrier 0 are apart: a warp at each, neither opens
     * (SimX records both in one set, and two arrivals would open its local barrier) */
    s = st_new(1, 2, 2, 1);
    uint32_t lg1[] = {LUI(15, 0x80000), ADDI(7, 0, 2), VX_BAR(15, 7), VX_TMC(0)};
    st_code_at(s, ENTRY, lg1, 4);
    uint32_t lg0[] = {ADDI(5, 0, 2),   LUI(6, ENTRY >> 12), ADDI(6, 6, ENTRY & 0xfff),
                      VX_WSPAWN(5, 6), ADDI(7, 0, 2),       VX_BAR(0, 7)};
    st_code(s, lg0, 6);
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_DEADLOCK,
       "local barrier 0 and global barrier 0 of one core count apart (deadlock: %s)",
       st.fault.reason);
    vx_sim_free(s);
}

static void test_vote(void)
{
    static const struct {
        uint32_t pred[4];
        uint32_t all, any, uni, bal;
    } v[] = {
        {{1, 1, 0, 1}, 1, 1, 1, 0xb},
        {{1, 0, 1, 1}, 0, 1, 0, 0x9},
        {{0, 2, 1, 0}, 1 - 1, 0, 1, 0x0},
    };

    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        vx_sim *s = st_warp(4, 0xb); /* lane 2 inactive */
        for (uint32_t l = 0; l < 4; l++) {
            st_setx(s, 0, l, 5, v[i].pred[l]);
            st_setx(s, 0, l, 6, SENT);
        }
        ST_CODE_ARR(s, VX_VOTE_ALL(6, 5), VX_VOTE_ANY(7, 5), VX_VOTE_UNI(8, 5), VX_VOTE_BAL(9, 5));
        st_go(s, NULL);
        ok(st_x(s, 0, 0, 6) == v[i].all && st_x(s, 0, 1, 7) == v[i].any &&
               st_x(s, 0, 3, 8) == v[i].uni && st_x(s, 0, 0, 9) == v[i].bal &&
               st_x(s, 0, 2, 6) == SENT,
           "vote case %zu: all %u any %u uni %u ballot 0x%x (inactive lane ignored)", i,
           st_x(s, 0, 0, 6), st_x(s, 0, 1, 7), st_x(s, 0, 3, 8), st_x(s, 0, 0, 9));
        vx_sim_free(s);
    }

    /* 64 lanes: the ballot holds lanes 0..31 (a 32-bit register), every lane gets it */
    vx_sim *s = st_warp(64, 0);
    for (uint32_t l = 0; l < 64; l++)
        st_setx(s, 0, l, 5, l == 1 || l == 31 || l == 32 || l == 63);
    ST_CODE_ARR(s, VX_VOTE_BAL(9, 5), VX_VOTE_ANY(7, 5));
    st_go(s, NULL);
    ok(st_x(s, 0, 0, 9) == 0x80000002u && st_x(s, 0, 63, 9) == 0x80000002u &&
           st_x(s, 0, 40, 7) == 1,
       "ballot at 64 lanes: lanes 1 and 31 (0x%x), lanes 32 and 63 left out", st_x(s, 0, 0, 9));
    vx_sim_free(s);
}

static uint32_t shfl_ctl(uint32_t b, uint32_t c, uint32_t mask)
{
    return b | c << 6 | mask << 12;
}

static void shfl(const char *name, uint32_t insn, uint32_t ctl, vx_lanes tmask,
                 const uint32_t *want)
{
    vx_sim *s = st_warp(8, tmask);
    for (uint32_t l = 0; l < 8; l++) {
        st_setx(s, 0, l, 5, 100 + l);
        st_setx(s, 0, l, 6, ctl);
        st_setx(s, 0, l, 7, SENT);
    }
    st_code(s, &insn, 1);
    st_go(s, NULL);
    int bad = 0;
    for (uint32_t l = 0; l < 8; l++) {
        uint32_t reg = (insn >> 7) & 31;
        uint32_t w = vx_lanes_test(tmask, l) ? want[l] : (reg == 5 ? 100 + l : SENT);
        if (st_x(s, 0, l, reg) != w) {
            diag("%s lane %u: got %u want %u", name, l, st_x(s, 0, l, reg), w);
            bad++;
        }
    }
    ok(!bad, "%s", name);
    vx_sim_free(s);
}

static void test_shuffle(void)
{
    const vx_lanes all = 0xff;
    shfl("shfl.up 1", VX_SHFL_UP(7, 5, 6), shfl_ctl(1, 0, 0), all,
         (uint32_t[]){100, 100, 101, 102, 103, 104, 105, 106});
    shfl("shfl.down 2, clamp 7", VX_SHFL_DOWN(7, 5, 6), shfl_ctl(2, 7, 0), all,
         (uint32_t[]){102, 103, 104, 105, 106, 107, 106, 107});
    shfl("shfl.bfly 1", VX_SHFL_BFLY(7, 5, 6), shfl_ctl(1, 7, 0), all,
         (uint32_t[]){101, 100, 103, 102, 105, 104, 107, 106});
    shfl("shfl.idx 3", VX_SHFL_IDX(7, 5, 6), shfl_ctl(3, 7, 0), all,
         (uint32_t[]){103, 103, 103, 103, 103, 103, 103, 103});
    shfl("shfl.up 1 in segments of 4", VX_SHFL_UP(7, 5, 6), shfl_ctl(1, 3, 0x3c), all,
         (uint32_t[]){100, 100, 101, 102, 104, 104, 105, 106});
    shfl("shfl.idx 1 in segments of 4", VX_SHFL_IDX(7, 5, 6), shfl_ctl(1, 3, 0x3c), all,
         (uint32_t[]){101, 101, 101, 101, 105, 105, 105, 105});
    shfl("shfl.down past the clamp keeps own value", VX_SHFL_DOWN(7, 5, 6), shfl_ctl(1, 3, 0x3c),
         all, (uint32_t[]){101, 102, 103, 103, 105, 106, 107, 107});
    shfl("shfl.idx from an inactive lane reads 0", VX_SHFL_IDX(7, 5, 6), shfl_ctl(3, 7, 0), 0xf7,
         (uint32_t[]){0, 0, 0, 0, 0, 0, 0, 0});
    shfl("shfl.up from inactive lane 2 reads 0", VX_SHFL_UP(7, 5, 6), shfl_ctl(1, 0, 0), 0xfb,
         (uint32_t[]){100, 100, 0, 0, 103, 104, 105, 106});
    shfl("shfl.bfly rd == rs1", VX_SHFL_BFLY(5, 5, 6), shfl_ctl(1, 7, 0), all,
         (uint32_t[]){101, 100, 103, 102, 105, 104, 107, 106});
    /* bfly's source t ^ 2 above the clamp 5 (lanes 4, 5) keeps the lane's own value
     * (mutation review: bfly's clamp was not checked) */
    shfl("shfl.bfly 2, clamp 5", VX_SHFL_BFLY(7, 5, 6), shfl_ctl(2, 5, 0), all,
         (uint32_t[]){102, 103, 100, 101, 104, 105, 104, 105});

    /* 64 lanes: c and mask are 6-bit fields (research 1.3), so a clamp of 63 and a
     * segment mask of 0x20 (two segments of 32) reach the upper lanes (mutation
     * review: 5-bit fields left them out) */
    vx_sim *s = st_warp(64, 0);
    for (uint32_t l = 0; l < 64; l++) {
        st_setx(s, 0, l, 5, 1000 + l);
        st_setx(s, 0, l, 6, shfl_ctl(8, 63, 0));
        st_setx(s, 0, l, 8, shfl_ctl(1, 31, 0x20));
    }
    ST_CODE_ARR(s, VX_SHFL_DOWN(7, 5, 6), VX_SHFL_IDX(9, 5, 8));
    st_go(s, NULL);
    int bad = 0;
    for (uint32_t l = 0; l < 64; l++) {
        uint32_t down = l + 8 <= 63 ? 1008 + l : 1000 + l; /* min = 0, max = 63 */
        uint32_t idx = l < 32 ? 1001 : 1033;               /* min = l & 32, src = min | 1 */
        if (st_x(s, 0, l, 7) != down || st_x(s, 0, l, 9) != idx) {
            if (bad++ < 4)
                diag("lane %u: down %u (want %u) idx %u (want %u)", l, st_x(s, 0, l, 7), down,
                     st_x(s, 0, l, 9), idx);
        }
    }
    ok(!bad, "64 lanes: shfl.down 8 with clamp 63, shfl.idx 1 in two segments of 32");
    vx_sim_free(s);
}

static char lines[64][16];
static int nlines;

static void on_con(void *ctx, uint32_t slot, const char *line, size_t len)
{
    (void)ctx;
    if (slot < 64) snprintf(lines[slot], sizeof lines[slot], "%.*s", (int)len, line);
    nlines++;
}

static void test_console(void)
{
    vx_sim *s = st_new(1, 1, 2, 2);
    vx_sim_set_console(s, on_con, NULL);
    st_setx(s, 0, 0, 5, 2);
    st_setx(s, 0, 0, 6, ST_CODE + 4);
    ST_CODE_ARR(s, VX_WSPAWN(5, 6), ADDI(7, 0, -1), VX_TMC(7), CSRRS(8, 0xF14, 0), ADDI(9, 8, 0x40),
                ADDI(10, 8, 'a'), SB(10, 0, 9), ADDI(11, 0, '\n'), SB(11, 0, 9));
    vx_stop st;
    ok(st_go(s, &st) == VX_STOP_EXIT && nlines == 4, "4 harts printed 4 lines");
    ok(!strcmp(lines[0], "a") && !strcmp(lines[1], "b") && !strcmp(lines[2], "c") &&
           !strcmp(lines[3], "d"),
       "each hart's line is on its slot (mhartid)");
    vx_sim_free(s);
}

int main(void)
{
    test_tmc();
    test_wspawn();
    test_split_join();
    test_pred();
    test_barriers();
    test_vote();
    test_shuffle();
    test_console();
    is_int(st_check_coverage(VX_IF_CUSTOM, 0), 0, "every custom-0 row of the table is exercised");
    tap_done();
    return tap_exit();
}
