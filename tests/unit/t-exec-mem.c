/*
 * t-exec-mem.c - loads, stores, atomics and the memory map through the
 * executor: sign/zero extension, per-lane addresses, ascending lane order,
 * precise faults (no partial effects), the null guard, the console window, local
 * memory per core, the guest memory limit, LR/SC reservations.
 */
#include "simtest.h"

static vx_sim *mk4(void)
{
    vx_sim *s = st_warp(4, 0);
    return s;
}

static void test_loads(void)
{
    vx_sim *s = mk4();
    const uint8_t bytes[8] = {0x80, 0xff, 0x01, 0x80, 0x7f, 0x00, 0x34, 0x12};
    vx_sim_mem_write(s, 0, ST_DATA, bytes, 8);
    st_setx_all(s, 0, 1, ST_DATA);
    ST_CODE_ARR(s, LB(3, 0, 1), LBU(4, 0, 1), LH(5, 0, 1), LHU(6, 0, 1), LW(7, 0, 1), LB(8, 4, 1),
                LH(9, 6, 1), LW(10, 4, 1));
    vx_stop st;
    ok(st_go(s, &st) == VX_STOP_EXIT, "load program runs");
    is_u32(st_x(s, 0, 0, 3), 0xffffff80, "lb sign-extends");
    is_u32(st_x(s, 0, 1, 4), 0x80, "lbu zero-extends");
    is_u32(st_x(s, 0, 2, 5), 0xffffff80, "lh sign-extends");
    is_u32(st_x(s, 0, 3, 6), 0xff80, "lhu zero-extends");
    is_u32(st_x(s, 0, 0, 7), 0x8001ff80, "lw little-endian");
    is_u32(st_x(s, 0, 0, 8), 0x7f, "lb positive");
    is_u32(st_x(s, 0, 0, 9), 0x1234, "lh positive at +6");
    is_u32(st_x(s, 0, 0, 10), 0x1234007f, "lw at +4");
    vx_sim_free(s);

    /* per-lane addresses; never-written memory reads zero */
    s = mk4();
    for (uint32_t l = 0; l < 4; l++) {
        st_w32(s, ST_DATA + 0x100 + 4 * l, 100 + l);
        st_setx(s, 0, l, 1, ST_DATA + 0x100 + 4 * l);
    }
    st_setx(s, 0, 3, 1, 0x00500000); /* lane 3: never written */
    ST_CODE_ARR(s, LW(3, 0, 1));
    st_go(s, NULL);
    ok(st_x(s, 0, 0, 3) == 100 && st_x(s, 0, 2, 3) == 102 && st_x(s, 0, 3, 3) == 0,
       "per-lane load addresses; untouched memory reads 0");
    vx_sim_free(s);

    /* rd == rs1 */
    s = mk4();
    st_w32(s, ST_DATA, 0xabcd);
    st_setx_all(s, 0, 1, ST_DATA);
    ST_CODE_ARR(s, LW(1, 0, 1));
    st_go(s, NULL);
    is_u32(st_x(s, 0, 2, 1), 0xabcd, "lw x1, 0(x1)");
    vx_sim_free(s);
}

static void test_stores(void)
{
    vx_sim *s = mk4();
    st_w32(s, ST_DATA, 0x11111111);
    st_w32(s, ST_DATA + 4, 0x22222222);
    st_setx_all(s, 0, 1, ST_DATA);
    st_setx_all(s, 0, 2, 0xaabbccdd);
    ST_CODE_ARR(s, SB(2, 1, 1), SH(2, 6, 1));
    st_go(s, NULL);
    is_u32(st_r32(s, 0, ST_DATA), 0x1111dd11, "sb writes one byte");
    is_u32(st_r32(s, 0, ST_DATA + 4), 0xccdd2222, "sh writes two bytes");
    vx_sim_free(s);

    /* ascending lane order: every lane stores to the same word, the last lane wins */
    s = mk4();
    st_setx_all(s, 0, 1, ST_DATA);
    for (uint32_t l = 0; l < 4; l++)
        st_setx(s, 0, l, 2, 10 + l);
    ST_CODE_ARR(s, SW(2, 0, 1));
    st_go(s, NULL);
    is_u32(st_r32(s, 0, ST_DATA), 13, "same-address stores: highest lane's value remains");
    vx_sim_free(s);

    /* partial mask: inactive lanes do not store */
    s = st_warp(4, 0x5);
    for (uint32_t l = 0; l < 4; l++) {
        st_setx(s, 0, l, 1, ST_DATA + 4 * l);
        st_setx(s, 0, l, 2, 0x50 + l);
    }
    ST_CODE_ARR(s, SW(2, 0, 1));
    st_go(s, NULL);
    ok(st_r32(s, 0, ST_DATA) == 0x50 && st_r32(s, 0, ST_DATA + 4) == 0 &&
           st_r32(s, 0, ST_DATA + 8) == 0x52 && st_r32(s, 0, ST_DATA + 12) == 0,
       "only active lanes store");
    vx_sim_free(s);

    /* sb and sh write one and two bytes on every store path (mutation review: a 4-byte
     * sh or a 2-byte sb went unseen on most of them): lanes on one page, lanes on four
     * pages (one page lookup per lane), local memory (the general path) and global
     * memory while a reservation is held (the path that checks reservations) */
    for (int path = 0; path < 4; path++) {
        static const char *const pname[] = {"lanes on one page", "lanes on four pages",
                                            "local memory", "a reservation held"};
        s = mk4();
        uint32_t base[4];
        for (uint32_t l = 0; l < 4; l++) {
            base[l] = path == 1   ? ST_DATA + 0x1000 * l
                      : path == 2 ? VX_LMEM_BASE_ADDR + 16 * l
                                  : ST_DATA + 16 * l;
            st_setx(s, 0, l, 1, base[l]);
        }
        st_setx_all(s, 0, 2, 0xaabbccdd);
        st_setx_all(s, 0, 5, ST_DATA + 0x100);
        ST_CODE_ARR(s, SW(0, 0, 1), SW(0, 4, 1), LR_W(6, 5), ADDI(7, 0, -1), SW(7, 0, 1),
                    SW(7, 4, 1), SB(2, 1, 1), SH(2, 4, 1));
        if (path != 3) {
            /* no lr.w: its reservation would send every store to the checking path */
            uint32_t nop = NOP();
            st_code_at(s, ST_CODE + 8, &nop, 1);
        }
        st_go(s, NULL);
        int bad = 0;
        for (uint32_t l = 0; l < 4; l++)
            if (st_r32(s, 0, base[l]) != 0xffffddff || st_r32(s, 0, base[l] + 4) != 0xffffccdd)
                bad++;
        ok(!bad, "sb one byte, sh two bytes, %s: 0x%08x 0x%08x", pname[path], st_r32(s, 0, base[3]),
           st_r32(s, 0, base[3] + 4));
        vx_sim_free(s);
    }

    /* a full warp storing bytes and halves to consecutive words (the stride of the
     * one-copy path for words) writes only those (mutation review: N02, the one copy
     * taken for sb and sh too, was caught only by a kernel test) */
    s = mk4();
    for (uint32_t l = 0; l < 4; l++) {
        st_w32(s, ST_DATA + 4 * l, 0xffffffffu);
        st_setx(s, 0, l, 1, ST_DATA + 4 * l);
    }
    st_setx_all(s, 0, 2, 0xaabbccdd);
    ST_CODE_ARR(s, SB(2, 0, 1), SH(2, 2, 1));
    st_go(s, NULL);
    int cbad = 0;
    for (uint32_t l = 0; l < 4; l++)
        if (st_r32(s, 0, ST_DATA + 4 * l) != 0xccddffddu) cbad++;
    ok(!cbad, "consecutive words, full warp: sb at +0 and sh at +2 give 0x%08x",
       st_r32(s, 0, ST_DATA + 4));
    vx_sim_free(s);
}

static void test_faults(void)
{
    vx_stop st;
    /* misaligned */
    vx_sim *s = mk4();
    st_setx_all(s, 0, 1, ST_DATA + 2);
    ST_CODE_ARR(s, LW(3, 0, 1));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_MISALIGNED &&
           st.fault.signal == 7 && st.fault.addr == ST_DATA + 2 && st.fault.lanes == 0xf,
       "misaligned lw faults MISALIGNED (SIGBUS) with the address");
    vx_sim_free(s);
    s = mk4();
    st_setx_all(s, 0, 1, ST_DATA + 1);
    ST_CODE_ARR(s, SH(2, 0, 1));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_MISALIGNED,
       "misaligned sh faults");
    vx_sim_free(s);
    s = mk4();
    st_setx_all(s, 0, 1, ST_DATA + 1);
    ST_CODE_ARR(s, LBU(3, 0, 1), LH(4, 0, 1));
    ok(st_go(s, &st) == VX_STOP_FAULT && st_x(s, 0, 0, 3) == 0 && st.fault.pc == ST_CODE + 4,
       "byte loads may be unaligned; the lh after it faults");
    vx_sim_free(s);

    /* precise: lane 2 faults, so no lane stores and rd is untouched */
    s = mk4();
    for (uint32_t l = 0; l < 4; l++) {
        st_setx(s, 0, l, 1, ST_DATA + 4 * l);
        st_setx(s, 0, l, 2, 0x77);
        st_setx(s, 0, l, 3, 0x99);
    }
    st_setx(s, 0, 2, 1, 0x30); /* null guard */
    ST_CODE_ARR(s, SW(2, 0, 1));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_UNMAPPED &&
           st.fault.signal == 11 && st.fault.lanes == 0x4 && st.fault.addr == 0x30,
       "store to the null guard faults UNMAPPED (SIGSEGV) naming lane 2");
    ok(st_r32(s, 0, ST_DATA) == 0 && st_r32(s, 0, ST_DATA + 4) == 0,
       "no partial effects: lanes 0 and 1 did not store");
    vx_sim_free(s);
    s = mk4();
    for (uint32_t l = 0; l < 4; l++) {
        st_setx(s, 0, l, 1, ST_DATA);
        st_setx(s, 0, l, 3, 0x99);
    }
    st_setx(s, 0, 3, 1, ST_DATA + 2);
    ST_CODE_ARR(s, LW(3, 0, 1));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.lanes == 0x8 && st_x(s, 0, 0, 3) == 0x99,
       "faulting load writes no lane's rd");
    vx_sim_free(s);

    /* above local memory */
    s = mk4();
    st_setx_all(s, 0, 1, 0xffff8000);
    ST_CODE_ARR(s, LW(3, 0, 1));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_UNMAPPED,
       "load above local memory faults UNMAPPED");
    vx_sim_free(s);
}

/* A warp of nt lanes in the misaligned mode (cfg.misaligned: byte by byte, as SimX). */
static vx_sim *mk_mis(uint32_t nt)
{
    vx_sim_config c = VX_SIM_CONFIG_INIT;
    c.threads = nt;
    c.warps = 1;
    c.misaligned = true;
    vx_sim *s = NULL;
    if (vx_sim_new(&c, &s)) tap_bail("vx_sim_new (misaligned) failed");
    vx_sim_set_tmask(s, 0, vx_lanes_all(nt));
    return s;
}

static void test_misaligned_mode(void)
{
    vx_stop st;
    uint8_t bytes[16];
    for (unsigned i = 0; i < 16; i++)
        bytes[i] = (uint8_t)(0x81 + 0x11 * i); /* 81 92 a3 b4 c5 d6 e7 f8 09 ... */

    /* loads: little-endian from any byte, signs as aligned loads have them */
    vx_sim *s = mk_mis(4);
    vx_sim_mem_write(s, 0, ST_DATA, bytes, 16);
    for (uint32_t l = 0; l < 4; l++)
        st_setx(s, 0, l, 1, ST_DATA + 1 + 2 * l); /* +1 +3 +5 +7 */
    ST_CODE_ARR(s, LW(3, 0, 1), LH(4, 0, 1), LHU(5, 0, 1), FLW(6, 0, 1), LW(7, 2, 1));
    ok(st_go(s, &st) == VX_STOP_EXIT, "misaligned loads run in the misaligned mode");
    is_u32(st_x(s, 0, 0, 3), 0xc5b4a392, "lw at +1: bytes 1..4, little-endian");
    is_u32(st_x(s, 0, 3, 3), 0x2b1a09f8, "lw at +7");
    is_u32(st_x(s, 0, 1, 4), 0xffffc5b4, "lh at +3 sign-extends");
    is_u32(st_x(s, 0, 2, 5), 0xe7d6, "lhu at +5");
    is_u32(st_f(s, 0, 0, 6), 0xc5b4a392, "flw at +1");
    is_u32(st_x(s, 0, 0, 7), 0xe7d6c5b4, "lw at +3 (offset 2 from +1)");
    vx_sim_free(s);

    /* stores, and a word across a page boundary both ways */
    s = mk_mis(4);
    for (uint32_t l = 0; l < 4; l++) {
        st_setx(s, 0, l, 1, ST_DATA + 0x101 + 8 * l);
        st_setx(s, 0, l, 2, 0xA1B2C3D4 + l);
    }
    st_setx(s, 0, 3, 1, ST_DATA + VX_PAGE_SIZE - 2);
    ST_CODE_ARR(s, SW(2, 0, 1), SH(2, 5, 1));
    ok(st_go(s, &st) == VX_STOP_EXIT, "misaligned stores run");
    uint8_t got[8];
    vx_sim_mem_read(s, 0, ST_DATA + 0x101, got, 8);
    ok(got[0] == 0xD4 && got[1] == 0xC3 && got[2] == 0xB2 && got[3] == 0xA1 && got[4] == 0 &&
           got[5] == 0xD4 && got[6] == 0xC3 && got[7] == 0,
       "sw at +0x101 and sh at +0x106, little-endian, nothing else written");
    vx_sim_mem_read(s, 0, ST_DATA + VX_PAGE_SIZE - 2, got, 4);
    ok(got[0] == 0xD7 && got[1] == 0xC3 && got[2] == 0xB2 && got[3] == 0xA1,
       "a word stored across a page boundary");
    vx_sim_free(s);

    /* a misaligned access with a byte outside memory faults, with no lane's effect */
    s = mk_mis(4);
    for (uint32_t l = 0; l < 4; l++) {
        st_setx(s, 0, l, 1, ST_DATA + 1 + 4 * l);
        st_setx(s, 0, l, 2, 0x55555555);
        st_setx(s, 0, l, 3, 0x99);
    }
    st_setx(s, 0, 2, 1, 0x3E); /* bytes 0x3E, 0x3F: the null guard */
    ST_CODE_ARR(s, SW(2, 0, 1));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_UNMAPPED &&
           st.fault.lanes == 0x4 && st.fault.addr == 0x3E,
       "a misaligned store reaching the null guard faults UNMAPPED naming lane 2");
    ok(st_r32(s, 0, ST_DATA) == 0 && st_r32(s, 0, ST_DATA + 4) == 0,
       "no partial effects: lanes 0 and 1 did not store");
    vx_sim_free(s);
    s = mk_mis(1);
    st_setx_all(s, 0, 1, 0x41);
    ST_CODE_ARR(s, SH(2, 0, 1));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_CONSOLE,
       "a misaligned halfword store to the console window faults CONSOLE (byte stores only)");
    vx_sim_free(s);

    /* the fault names the first byte that is unmapped, not the access's address */
    s = mk_mis(1);
    st_setx_all(s, 0, 1, 0xFFFF3FFEu);
    ST_CODE_ARR(s, LW(3, 0, 1));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_UNMAPPED &&
           st.fault.addr == 0xFFFF4000u, /* 16 KiB of local memory */
       "a misaligned lw from local memory past its end faults at its first unmapped byte");
    vx_sim_free(s);

    /* atomics are never carried out misaligned */
    s = mk_mis(1);
    st_setx_all(s, 0, 1, ST_DATA + 2);
    ST_CODE_ARR(s, AMOADD_W(3, 2, 1));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_MISALIGNED,
       "a misaligned amoadd.w still faults MISALIGNED");
    vx_sim_free(s);

    /* a misaligned store over the reserved word breaks the reservation */
    s = mk_mis(1);
    st_setx_all(s, 0, 1, ST_DATA);
    st_setx_all(s, 0, 5, ST_DATA - 2);
    st_setx_all(s, 0, 2, 9);
    ST_CODE_ARR(s, LR_W(3, 1), SW(0, 0, 5), SC_W(4, 2, 1));
    st_go(s, NULL);
    ok(st_x(s, 0, 0, 4) == 1 && st_r32(s, 0, ST_DATA) == 0,
       "a misaligned store reaching into the reserved word kills the reservation");
    vx_sim_free(s);
}

static char con_line[256];
static uint32_t con_slot = 99;
static int con_lines;

static void on_con(void *ctx, uint32_t slot, const char *line, size_t len)
{
    (void)ctx;
    con_slot = slot;
    snprintf(con_line, sizeof con_line, "%.*s", (int)len, line);
    con_lines++;
}

static void test_console(void)
{
    vx_stop st;
    vx_sim *s = st_warp(1, 0);
    vx_sim_set_console(s, on_con, NULL);
    st_setx_all(s, 0, 1, 0x45);
    st_setx_all(s, 0, 2, 'O');
    st_setx_all(s, 0, 3, 'K');
    st_setx_all(s, 0, 4, '\n');
    ST_CODE_ARR(s, SB(2, 0, 1), SB(3, 0, 1), LW(5, -5, 1), SB(4, 0, 1));
    st_setx_all(s, 0, 5, 7);
    ok(st_go(s, &st) == VX_STOP_EXIT, "console program runs");
    ok(con_lines == 1 && con_slot == 5 && !strcmp(con_line, "OK"), "line 'OK' on slot 5 (%s)",
       con_line);
    is_u32(st_x(s, 0, 0, 5), 0, "loads from the console window read 0");
    uint8_t b = 0xee;
    vx_sim_mem_read(s, 0, 0x45, &b, 1);
    is_u32(b, 0, "console bytes are not stored");
    vx_sim_free(s);

    s = st_warp(1, 0);
    vx_sim_set_console(s, on_con, NULL);
    st_setx_all(s, 0, 1, 0x41);
    st_setx_all(s, 0, 2, 'x');
    ST_CODE_ARR(s, SB(2, 0, 1));
    st_go(s, NULL);
    char buf[16];
    ok(vx_sim_console_pending(s, 1, buf, sizeof buf) == 1 && !strcmp(buf, "x"),
       "unterminated line is pending");
    con_lines = 0;
    vx_sim_console_flush(s);
    ok(con_lines == 1 && con_slot == 1 && !strcmp(con_line, "x"), "flush passes it on");
    vx_sim_free(s);

    s = st_warp(1, 0);
    st_setx_all(s, 0, 1, 0x40);
    ST_CODE_ARR(s, SW(2, 0, 1));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_CONSOLE && st.fault.signal == 7,
       "word store to the console faults CONSOLE (SIGBUS)");
    vx_sim_free(s);
    s = st_warp(1, 0);
    st_setx_all(s, 0, 1, 0x40);
    ST_CODE_ARR(s, SH(2, 0, 1));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_CONSOLE,
       "halfword store to the console faults CONSOLE");
    vx_sim_free(s);
}

static void test_lmem(void)
{
    /* two cores: each sees its own local memory */
    vx_sim *s = st_new(1, 2, 1, 1);
    uint32_t prog[] = {CSRRS(1, 0xCC2, 0), ADDI(1, 1, 5), LUI(2, 0xffff0),
                       SW(1, 8, 2),        LW(3, 8, 2),   VX_TMC(0)};
    st_code_at(s, ST_CODE, prog, 6);
    vx_stop st;
    ok(st_go(s, &st) == VX_STOP_EXIT, "two cores run");
    ok(st_x(s, 0, 0, 3) == 5 && st_x(s, 1, 0, 3) == 6, "each core reads its own local memory");
    ok(st_r32(s, 0, VX_LMEM_BASE_ADDR + 8) == 5 && st_r32(s, 1, VX_LMEM_BASE_ADDR + 8) == 6,
       "vx_sim_mem_read sees the core's local memory");
    uint32_t top = 0;
    ok(vx_sim_mem_read(s, 0, VX_LMEM_BASE_ADDR + 0x3ffc, &top, 4) == VX_OK &&
           vx_sim_mem_read(s, 0, VX_LMEM_BASE_ADDR + 0x4000, &top, 4) == VX_ERR_RANGE,
       "local memory is 16 KiB");
    vx_sim_free(s);
}

/*
 * Loads and stores off the executor's common path (from a coverage review): a
 * partial mask, lanes on different pages, local memory, page 0 of global memory
 * and the console window.
 */
static void test_load_paths(void)
{
    const uint32_t sent = 0xdeadbeefu;
    const uint8_t bytes[8] = {0x80, 0xff, 0x01, 0x80, 0x7f, 0x00, 0x34, 0x12};
    vx_sim *s = st_warp(4, 0x5);
    vx_sim_mem_write(s, 0, ST_DATA, bytes, 8);
    for (uint32_t l = 0; l < 4; l++) {
        st_setx(s, 0, l, 1, ST_DATA + l);
        st_setx(s, 0, l, 2, ST_DATA + 2 * l);
        for (uint32_t r = 3; r <= 5; r++)
            st_setx(s, 0, l, r, sent);
    }
    ST_CODE_ARR(s, LB(3, 0, 1), LH(4, 0, 2), LHU(5, 0, 2));
    ok(st_go(s, NULL) == VX_STOP_EXIT, "mask 0x5: lb, lh, lhu run");
    ok(st_x(s, 0, 0, 3) == 0xffffff80 && st_x(s, 0, 2, 3) == 0x1, "mask 0x5: lb 0xffffff80, 0x1");
    ok(st_x(s, 0, 0, 4) == 0xffffff80 && st_x(s, 0, 2, 4) == 0x7f, "mask 0x5: lh 0xffffff80, 0x7f");
    ok(st_x(s, 0, 0, 5) == 0xff80 && st_x(s, 0, 2, 5) == 0x7f, "mask 0x5: lhu 0xff80, 0x7f");
    ok(st_x(s, 0, 1, 3) == sent && st_x(s, 0, 3, 4) == sent && st_x(s, 0, 1, 5) == sent &&
           st_x(s, 0, 3, 5) == sent,
       "mask 0x5: inactive lanes 1 and 3 keep their values");
    vx_sim_free(s);

    /* a full warp reading consecutive words with lb, lbu, lh, lhu gets one extended
     * byte or halfword per lane, not the whole word (mutation review: the one-copy path
     * for consecutive words also took sub-word loads) */
    s = st_warp(4, 0);
    for (uint32_t l = 0; l < 4; l++) {
        st_w32(s, ST_DATA + 4 * l, 0x5a5a8080u + l);
        st_setx(s, 0, l, 1, ST_DATA + 4 * l);
    }
    ST_CODE_ARR(s, LB(3, 0, 1), LBU(4, 0, 1), LH(5, 0, 1), LHU(6, 0, 1));
    st_go(s, NULL);
    int bad = 0;
    for (uint32_t l = 0; l < 4; l++)
        if (st_x(s, 0, l, 3) != 0xffffff80u + l || st_x(s, 0, l, 4) != 0x80u + l ||
            st_x(s, 0, l, 5) != 0xffff8080u + l || st_x(s, 0, l, 6) != 0x8080u + l)
            bad++;
    ok(!bad, "consecutive words, full warp: lb 0x%x lbu 0x%x lh 0x%x lhu 0x%x (lane 1)",
       st_x(s, 0, 1, 3), st_x(s, 0, 1, 4), st_x(s, 0, 1, 5), st_x(s, 0, 1, 6));
    vx_sim_free(s);

    /* lane l reads bytes 0x80 + l, 0xf0 + l on page ST_DATA + 0x10000 l */
    s = mk4();
    for (uint32_t l = 0; l < 4; l++) {
        uint32_t ad = ST_DATA + 0x10000 * l;
        const uint8_t b[2] = {(uint8_t)(0x80 + l), (uint8_t)(0xf0 + l)};
        vx_sim_mem_write(s, 0, ad, b, 2);
        st_setx(s, 0, l, 1, ad);
    }
    ST_CODE_ARR(s, LB(3, 0, 1), LHU(4, 0, 1), LH(5, 0, 1), LBU(6, 0, 1));
    ok(st_go(s, NULL) == VX_STOP_EXIT, "lanes on four pages: loads run");
    is_u32(st_x(s, 0, 1, 3), 0xffffff81, "lanes on four pages: lb (lane 1)");
    is_u32(st_x(s, 0, 3, 4), 0xf383, "lanes on four pages: lhu (lane 3)");
    is_u32(st_x(s, 0, 2, 5), 0xfffff282, "lanes on four pages: lh (lane 2)");
    is_u32(st_x(s, 0, 2, 6), 0x82, "lanes on four pages: lbu (lane 2)");
    vx_sim_free(s);

    s = mk4();
    const uint8_t lm[4] = {0xfe, 0x81, 0x22, 0x11};
    vx_sim_mem_write(s, 0, VX_LMEM_BASE_ADDR + 0x10, lm, 4);
    st_setx_all(s, 0, 1, VX_LMEM_BASE_ADDR + 0x10);
    st_setx_all(s, 0, 7, 0xa1b2c3d4);
    st_setx_all(s, 0, 8, 0x100); /* page 0 of global memory */
    st_setx_all(s, 0, 9, VX_IO_COUT_ADDR);
    ST_CODE_ARR(s, LB(3, 0, 1), LBU(4, 0, 1), LH(5, 0, 1), LHU(6, 0, 1), SH(7, 4, 1), SB(7, 7, 1),
                SH(7, 2, 8), SB(7, 5, 8), LB(10, 0, 9), LHU(11, 2, 9));
    vx_stop st;
    ok(st_go(s, &st) == VX_STOP_EXIT, "local memory, page 0, console: program runs (%s)",
       st.fault.reason);
    is_u32(st_x(s, 0, 0, 3), 0xfffffffe, "local memory lb");
    is_u32(st_x(s, 0, 1, 4), 0xfe, "local memory lbu");
    is_u32(st_x(s, 0, 2, 5), 0xffff81fe, "local memory lh");
    is_u32(st_x(s, 0, 3, 6), 0x81fe, "local memory lhu");
    is_u32(st_r32(s, 0, VX_LMEM_BASE_ADDR + 0x14), 0xd400c3d4,
           "local memory: sh at +4 and sb at +7 of 0xa1b2c3d4");
    is_u32(st_r32(s, 0, 0x100), 0xc3d40000, "page 0: sh at 0x102");
    is_u32(st_r32(s, 0, 0x104), 0xd400, "page 0: sb at 0x105");
    ok(st_x(s, 0, 0, 10) == 0 && st_x(s, 0, 3, 11) == 0, "console lb and lhu read 0");
    vx_sim_free(s);
}

/* Code fetched from local memory (from a coverage review), per core. */
static void test_lmem_code(void)
{
    vx_sim *s = mk4();
    const uint32_t code[2] = {ADDI(3, 0, 42), VX_TMC(0)};
    st_code_at(s, VX_LMEM_BASE_ADDR + 0x100, code, 2);
    st_setx_all(s, 0, 5, VX_LMEM_BASE_ADDR + 0x100);
    ST_CODE_ARR(s, JALR(1, 5, 0));
    vx_stop st;
    ok(st_go(s, &st) == VX_STOP_EXIT && st_x(s, 0, 3, 3) == 42,
       "jalr to 0xffff0100 runs code from local memory: x3 = 42 (%s)", st.fault.reason);
    vx_sim_free(s);

    s = st_new(1, 2, 1, 1);
    const uint32_t c0[2] = {ADDI(3, 0, 10), VX_TMC(0)}, c1[2] = {ADDI(3, 0, 11), VX_TMC(0)};
    vx_sim_mem_write(s, 0, VX_LMEM_BASE_ADDR, c0, 8);
    vx_sim_mem_write(s, 1, VX_LMEM_BASE_ADDR, c1, 8);
    st_setx(s, 0, 0, 5, VX_LMEM_BASE_ADDR);
    st_setx(s, 1, 0, 5, VX_LMEM_BASE_ADDR);
    ST_CODE_ARR(s, JALR(1, 5, 0));
    ok(st_go(s, &st) == VX_STOP_EXIT && st_x(s, 0, 0, 3) == 10 && st_x(s, 1, 0, 3) == 11,
       "two cores: each runs its own local-memory code (x3 = %u, %u)", st_x(s, 0, 0, 3),
       st_x(s, 1, 0, 3));
    vx_sim_free(s);
}

static void test_limit(void)
{
    vx_sim_config c = VX_SIM_CONFIG_INIT;
    c.warps = 1;
    c.threads = 2;
    c.mem_limit = 4 * VX_PAGE_SIZE; /* the code page + 3 more */
    vx_sim *s = NULL;
    vx_sim_new(&c, &s);
    /* lane 0 writes page A, lane 1 page B; then a loop of new pages until the limit */
    uint32_t prog[] = {SW(2, 0, 1), ADD(1, 1, 3), JAL(0, -8)};
    st_code(s, prog, 3);
    vx_sim_set_tmask(s, 0, 3);
    st_setx(s, 0, 0, 1, ST_DATA);
    st_setx(s, 0, 1, 1, ST_DATA + 0x100000);
    st_setx_all(s, 0, 3, 0x1000);
    vx_stop st;
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_UNMAPPED &&
           strstr(st.fault.reason, "limit") != NULL,
       "exceeding the memory limit faults UNMAPPED with a clear reason (%s)", st.fault.reason);
    vx_sim_free(s);
}

static void test_amo(void)
{
    struct {
        const char *name;
        uint32_t insn, init, v[4], rd[4], final;
    } cases[] = {
        {"amoadd.w", AMOADD_W(3, 2, 1), 10, {1, 2, 3, 4}, {10, 11, 13, 16}, 20},
        {"amoswap.w", AMOSWAP_W(3, 2, 1), 7, {1, 2, 3, 4}, {7, 1, 2, 3}, 4},
        {"amoxor.w", AMOXOR_W(3, 2, 1), 0xff, {1, 2, 4, 1}, {0xff, 0xfe, 0xfc, 0xf8}, 0xf9},
        {"amoand.w",
         AMOAND_W(3, 2, 1),
         0xff,
         {0xf7, 0xef, 0xff, 0x0f},
         {0xff, 0xf7, 0xe7, 0xe7},
         7},
        {"amoor.w", AMOOR_W(3, 2, 1), 0, {1, 2, 4, 8}, {0, 1, 3, 7}, 15},
        {"amomin.w",
         AMOMIN_W(3, 2, 1),
         5,
         {7, 0xfffffffe, 3, 0},
         {5, 5, 0xfffffffe, 0xfffffffe},
         0xfffffffe},
        {"amomax.w",
         AMOMAX_W(3, 2, 1),
         0xfffffff0,
         {0xffffffff, 3, 2, 9},
         {0xfffffff0, 0xffffffff, 3, 3},
         9},
        {"amominu.w", AMOMINU_W(3, 2, 1), 5, {7, 0xfffffffe, 3, 4}, {5, 5, 5, 3}, 3},
        {"amomaxu.w",
         AMOMAXU_W(3, 2, 1),
         5,
         {7, 0xfffffffe, 3, 4},
         {5, 7, 0xfffffffe, 0xfffffffe},
         0xfffffffe},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vx_sim *s = mk4();
        st_w32(s, ST_DATA, cases[i].init);
        st_setx_all(s, 0, 1, ST_DATA);
        for (uint32_t l = 0; l < 4; l++)
            st_setx(s, 0, l, 2, cases[i].v[l]);
        st_code(s, &cases[i].insn, 1);
        st_go(s, NULL);
        int bad = st_r32(s, 0, ST_DATA) != cases[i].final;
        for (uint32_t l = 0; l < 4; l++)
            if (st_x(s, 0, l, 3) != cases[i].rd[l]) {
                diag("%s lane %u: rd 0x%x want 0x%x", cases[i].name, l, st_x(s, 0, l, 3),
                     cases[i].rd[l]);
                bad++;
            }
        ok(!bad, "%s: lanes in ascending order (final 0x%x)", cases[i].name, st_r32(s, 0, ST_DATA));
        vx_sim_free(s);
    }

    /* rd == rs2: each lane reads its own rs2 before writing rd */
    vx_sim *s = mk4();
    st_setx_all(s, 0, 1, ST_DATA);
    for (uint32_t l = 0; l < 4; l++)
        st_setx(s, 0, l, 2, 1u << l);
    ST_CODE_ARR(s, AMOADD_W(2, 2, 1));
    st_go(s, NULL);
    ok(st_r32(s, 0, ST_DATA) == 15 && st_x(s, 0, 3, 2) == 7, "amoadd rd == rs2");
    vx_sim_free(s);

    vx_stop st;
    s = mk4();
    st_setx_all(s, 0, 1, ST_DATA + 2);
    ST_CODE_ARR(s, AMOADD_W(3, 2, 1));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_MISALIGNED,
       "misaligned amo faults");
    vx_sim_free(s);
    s = mk4();
    st_setx_all(s, 0, 1, 0x40);
    ST_CODE_ARR(s, AMOSWAP_W(3, 2, 1));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_CONSOLE,
       "amo on the console faults CONSOLE");
    vx_sim_free(s);

    /* AMO on local memory works */
    s = st_warp(2, 0);
    st_setx_all(s, 0, 1, VX_LMEM_BASE_ADDR + 16);
    st_setx_all(s, 0, 2, 3);
    ST_CODE_ARR(s, AMOADD_W(3, 2, 1));
    st_go(s, NULL);
    ok(st_r32(s, 0, VX_LMEM_BASE_ADDR + 16) == 6 && st_x(s, 0, 1, 3) == 3, "amo on local memory");
    vx_sim_free(s);
}

/* Pages written since the last vx_sim_clear_dirty, as (space << 32 | addr) in order. */
struct pagelist {
    size_t n;
    uint64_t pg[8];
};

static void page_seen(void *ctx, uint32_t space, uint32_t addr, const uint8_t *page)
{
    struct pagelist *l = ctx;
    (void)page;
    if (l->n < 8) l->pg[l->n] = (uint64_t)space << 32 | addr;
    l->n++;
}

/* The pages written since the last vx_sim_clear_dirty (dirty) and all pages (all). */
static void page_lists(const vx_sim *s, struct pagelist *dirty, struct pagelist *all)
{
    *dirty = (struct pagelist){0};
    *all = (struct pagelist){0};
    vx_sim_visit_pages(s, false, page_seen, dirty);
    vx_sim_visit_pages(s, true, page_seen, all);
}

/*
 * A failed sc.w writes nothing, so it leaves its page clean (keyframes store only
 * pages written since the previous one: FORMAT.md section 9.3) and allocates none;
 * it still takes a store's faults (from the QEMU differential review: the page of
 * every lane was made writable before the reservation was checked).
 */
static void sc_fail_pages(void)
{
    /* lane 0 holds a reservation and writes its page; lane 1 has none (another
     * global page), lane 2 none in local memory, lane 3 one for another word */
    vx_sim *s = st_warp(4, 0);
    st_setx_all(s, 0, 2, 9);
    st_setx(s, 0, 0, 1, ST_DATA + 0x4000);
    st_setx(s, 0, 1, 1, ST_DATA + 0x6000);
    st_setx(s, 0, 2, 1, VX_LMEM_BASE_ADDR + 0x1000);
    st_setx(s, 0, 3, 1, ST_DATA + 0x8000);
    st_setx(s, 0, 0, 6, ST_DATA + 0x4000);
    st_setx(s, 0, 3, 6, ST_DATA + 0xA000);
    st_setx(s, 0, 1, 6, ST_DATA + 0x6000);
    st_setx(s, 0, 2, 6, VX_LMEM_BASE_ADDR + 0x1000);
    /* lr.w in lanes 0 and 3 only: lanes 1 and 2 turned off around it */
    st_setx_all(s, 0, 7, 0x9);
    st_setx_all(s, 0, 8, 0xF);
    ST_CODE_ARR(s, VX_TMC(7), LR_W(3, 6), VX_TMC(8), SC_W(4, 2, 1));
    vx_stop st;
    if (vx_sim_run(s, 3, &st) || st.reason != VX_STOP_NONE) tap_bail("lr.w set-up did not run");
    vx_sim_clear_dirty(s);
    if (vx_sim_run(s, 1, &st) || st.reason != VX_STOP_NONE) tap_bail("sc.w did not run");
    struct pagelist l = {0};
    vx_sim_visit_pages(s, false, page_seen, &l);
    ok(st_x(s, 0, 0, 4) == 0 && st_x(s, 0, 1, 4) == 1 && st_x(s, 0, 2, 4) == 1 &&
           st_x(s, 0, 3, 4) == 1 && st_r32(s, 0, ST_DATA + 0x4000) == 9,
       "sc.w: lane 0 succeeds, lanes 1-3 fail");
    ok(l.n == 1 && l.pg[0] == ST_DATA + 0x4000,
       "only the page lane 0 wrote is dirty (%zu pages, the first 0x%llx)", l.n,
       l.n ? (unsigned long long)l.pg[0] : 0ull);
    vx_sim_free(s);

    /* a failing sc.w still faults where a store would: the console takes no word */
    s = st_warp(1, 0);
    st_setx_all(s, 0, 1, VX_IO_COUT_ADDR);
    ST_CODE_ARR(s, SC_W(4, 2, 1));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_CONSOLE,
       "a failing sc.w to the console faults as a word store there (%s)", st.fault.reason);
    vx_sim_free(s);
    s = st_warp(1, 0);
    st_setx_all(s, 0, 1, ST_DATA + 2);
    ST_CODE_ARR(s, SC_W(4, 2, 1));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_MISALIGNED,
       "a failing sc.w to a misaligned address faults");
    vx_sim_free(s);
}

/*
 * An instruction that faults leaves every page as it was: none made dirty, none
 * allocated (keyframes store exactly the pages written since the previous one,
 * FORMAT.md 9.3; allocated pages count against the memory limit).  From the keyframe
 * review: pass 1 of a store made each lane's page (each byte's, in the misaligned
 * mode) writable before a later one faulted; an injected store that faults does not
 * end the kernel, and the next keyframe stored the page.
 */
static void fault_leaves_pages(void)
{
    vx_stop st;
    struct pagelist l, a;

    /* misaligned mode: an injected sw at the last 2 bytes of local memory */
    vx_sim *s = mk_mis(1);
    vx_sim_halt(s, 0, 2);
    vx_sim_clear_dirty(s);
    st_setx_all(s, 0, 1, 0xFFFF3FFEu);
    st_setx_all(s, 0, 2, 0x11223344);
    ok(vx_sim_inject(s, 0, 0, SW(2, 0, 1), &st) == VX_OK && st.reason == VX_STOP_FAULT &&
           st.fault.kind == VX_FAULT_UNMAPPED && st.fault.addr == 0xFFFF4000u,
       "an injected misaligned sw across the end of local memory faults at 0xffff4000");
    page_lists(s, &l, &a);
    ok(l.n == 0 && a.n == 0, "it leaves local page 3 clean and unallocated (%zu dirty, %zu in all)",
       l.n, a.n);
    vx_sim_free(s);

    /* misaligned mode, memory limit: room for one more page, the sw needs two */
    vx_sim_config c = VX_SIM_CONFIG_INIT;
    c.warps = 1;
    c.threads = 1;
    c.misaligned = true;
    c.mem_limit = 2 * VX_PAGE_SIZE; /* the code page + 1 */
    s = NULL;
    if (vx_sim_new(&c, &s)) tap_bail("vx_sim_new failed");
    ST_CODE_ARR(s, ADDI(0, 0, 0)); /* the code page */
    vx_sim_halt(s, 0, 2);
    vx_sim_clear_dirty(s);
    st_setx_all(s, 0, 1, ST_DATA + VX_PAGE_SIZE - 2);
    st_setx_all(s, 0, 3, ST_DATA + 0x8000);
    ok(vx_sim_inject(s, 0, 0, SW(2, 0, 1), &st) == VX_OK && st.reason == VX_STOP_FAULT &&
           st.fault.kind == VX_FAULT_UNMAPPED && st.fault.addr == ST_DATA + VX_PAGE_SIZE,
       "a misaligned sw over two new pages with room for one faults at the second (%s)",
       st.fault.reason);
    page_lists(s, &l, &a);
    ok(l.n == 0, "no page dirty after it (%zu)", l.n);
    ok(vx_sim_inject(s, 0, 0, SW(2, 0, 3), &st) == VX_OK && st.reason == VX_STOP_NONE,
       "the page it did not take is still there for the next store");
    vx_sim_free(s);

    /* 4 lanes: 0 and 2 a new page each, 1 the null guard, 3 local memory */
    c = (vx_sim_config)VX_SIM_CONFIG_INIT;
    c.warps = 1;
    c.threads = 4;
    c.mem_limit = 3 * VX_PAGE_SIZE;
    s = NULL;
    if (vx_sim_new(&c, &s)) tap_bail("vx_sim_new failed");
    vx_sim_set_tmask(s, 0, 0xF);
    st_setx(s, 0, 0, 1, ST_DATA + 0x4000);
    st_setx(s, 0, 1, 1, 0x10);
    st_setx(s, 0, 2, 1, ST_DATA + 0x8000);
    st_setx(s, 0, 3, 1, VX_LMEM_BASE_ADDR + 0x2000);
    ST_CODE_ARR(s, SW(2, 0, 1));
    vx_sim_clear_dirty(s);
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_UNMAPPED &&
           st.fault.lanes == 0x2,
       "a sw whose lane 1 is unmapped faults naming lane 1");
    page_lists(s, &l, &a);
    ok(l.n == 0 && a.n == 1,
       "no lane's page made dirty or allocated (%zu dirty, %zu in all: the code page)", l.n, a.n);
    vx_sim_free(s);

    /* the same with amoadd.w, lane 2 over the limit (2 new pages, room for 1) */
    s = NULL;
    c.mem_limit = 2 * VX_PAGE_SIZE;
    if (vx_sim_new(&c, &s)) tap_bail("vx_sim_new failed");
    vx_sim_set_tmask(s, 0, 0x5);
    st_setx(s, 0, 0, 1, ST_DATA + 0x4000);
    st_setx(s, 0, 2, 1, ST_DATA + 0x8000);
    ST_CODE_ARR(s, AMOADD_W(3, 2, 1));
    vx_sim_clear_dirty(s);
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.lanes == 0x4 &&
           strstr(st.fault.reason, "limit") != NULL,
       "an amoadd.w whose lane 2 needs a page over the limit faults (%s)", st.fault.reason);
    page_lists(s, &l, &a);
    ok(l.n == 0 && a.n == 1, "lane 0's page was not taken (%zu dirty, %zu in all)", l.n, a.n);
    vx_sim_free(s);
}

static void test_lrsc(void)
{
    /* lr + sc succeeds; sc clears the reservation, so a second sc fails */
    vx_sim *s = st_warp(1, 0);
    st_w32(s, ST_DATA, 5);
    st_setx_all(s, 0, 1, ST_DATA);
    st_setx_all(s, 0, 2, 9);
    st_setx_all(s, 0, 6, 11);
    ST_CODE_ARR(s, LR_W(3, 1), SC_W(4, 2, 1), SC_W(5, 6, 1));
    st_go(s, NULL);
    ok(st_x(s, 0, 0, 3) == 5 && st_x(s, 0, 0, 4) == 0 && st_x(s, 0, 0, 5) == 1 &&
           st_r32(s, 0, ST_DATA) == 9,
       "lr/sc succeeds once (rd 0), a second sc fails (rd 1, no store)");
    vx_sim_free(s);

    /* sc without lr fails */
    s = st_warp(1, 0);
    st_setx_all(s, 0, 1, ST_DATA);
    st_setx_all(s, 0, 2, 9);
    ST_CODE_ARR(s, SC_W(4, 2, 1));
    st_go(s, NULL);
    ok(st_x(s, 0, 0, 4) == 1 && st_r32(s, 0, ST_DATA) == 0, "sc without a reservation fails");
    vx_sim_free(s);

    /* a store to the reserved word in between breaks the reservation */
    s = st_warp(1, 0);
    st_setx_all(s, 0, 1, ST_DATA);
    st_setx_all(s, 0, 2, 9);
    ST_CODE_ARR(s, LR_W(3, 1), SW(0, 0, 1), SC_W(4, 2, 1));
    st_go(s, NULL);
    ok(st_x(s, 0, 0, 4) == 1 && st_r32(s, 0, ST_DATA) == 0,
       "intervening store kills the reservation");
    vx_sim_free(s);

    /* a store to another word does not */
    s = st_warp(1, 0);
    st_setx_all(s, 0, 1, ST_DATA);
    st_setx_all(s, 0, 2, 9);
    ST_CODE_ARR(s, LR_W(3, 1), SW(2, 4, 1), SC_W(4, 2, 1));
    st_go(s, NULL);
    ok(st_x(s, 0, 0, 4) == 0 && st_r32(s, 0, ST_DATA) == 9, "store elsewhere keeps it");
    vx_sim_free(s);

    /* per-lane reservations: lane 0 and 1 reserve different words; both succeed */
    s = st_warp(2, 0);
    st_setx(s, 0, 0, 1, ST_DATA);
    st_setx(s, 0, 1, 1, ST_DATA + 4);
    st_setx_all(s, 0, 2, 3);
    ST_CODE_ARR(s, LR_W(3, 1), SC_W(4, 2, 1));
    st_go(s, NULL);
    ok(st_x(s, 0, 0, 4) == 0 && st_x(s, 0, 1, 4) == 0 && st_r32(s, 0, ST_DATA + 4) == 3,
       "reservations are per thread");
    vx_sim_free(s);

    /* same word: lane 0's sc stores, which kills lane 1's reservation */
    s = st_warp(2, 0);
    st_setx_all(s, 0, 1, ST_DATA);
    st_setx(s, 0, 0, 2, 1);
    st_setx(s, 0, 1, 2, 2);
    ST_CODE_ARR(s, LR_W(3, 1), SC_W(4, 2, 1));
    st_go(s, NULL);
    ok(st_x(s, 0, 0, 4) == 0 && st_x(s, 0, 1, 4) == 1 && st_r32(s, 0, ST_DATA) == 1,
       "contending lanes: the first sc wins");
    vx_sim_free(s);

    /* sc to local memory always fails */
    s = st_warp(1, 0);
    st_setx_all(s, 0, 1, VX_LMEM_BASE_ADDR);
    st_setx_all(s, 0, 2, 9);
    ST_CODE_ARR(s, LR_W(3, 1), SC_W(4, 2, 1));
    st_go(s, NULL);
    ok(st_x(s, 0, 0, 4) == 1 && st_r32(s, 0, VX_LMEM_BASE_ADDR) == 0, "sc to local memory fails");
    vx_sim_free(s);

    /* the reservation is the most recent lr's: an lr to local memory (which can hold no
     * reservation) replaces an earlier one to global memory, so an sc to that earlier
     * word fails (RISC-V A: "the SC must fail if the address is not within the
     * reservation set of the most recent LR in program order"; mutation review: an lr
     * to local memory left the old reservation in place and that sc succeeded) */
    s = st_warp(1, 0);
    st_setx_all(s, 0, 1, ST_DATA);
    st_setx_all(s, 0, 6, VX_LMEM_BASE_ADDR);
    st_setx_all(s, 0, 2, 9);
    ST_CODE_ARR(s, LR_W(3, 1), LR_W(5, 6), SC_W(4, 2, 1));
    st_go(s, NULL);
    ok(st_x(s, 0, 0, 4) == 1 && st_r32(s, 0, ST_DATA) == 0,
       "lr global, lr local, sc global: the sc fails (rd %u, word %u)", st_x(s, 0, 0, 4),
       st_r32(s, 0, ST_DATA));
    vx_sim_free(s);

    /* sc to a word other than the reserved one fails: the reservation is of lr's word
     * (mutation review: sc that only checked a reservation exists stored here) */
    s = st_warp(1, 0);
    st_setx_all(s, 0, 1, ST_DATA);
    st_setx_all(s, 0, 6, ST_DATA + 4);
    st_setx_all(s, 0, 2, 9);
    ST_CODE_ARR(s, LR_W(3, 1), SC_W(4, 2, 6));
    st_go(s, NULL);
    ok(st_x(s, 0, 0, 4) == 1 && st_r32(s, 0, ST_DATA + 4) == 0 && st_r32(s, 0, ST_DATA) == 0,
       "sc to another word than lr's fails (rd 1, no store)");
    vx_sim_free(s);

    /* a failed sc still ends the reservation (RISC-V A: "SC.W ... invalidates any
     * reservation held by this hart" whether it succeeds or not), so a later sc to lr's
     * word fails too (mutation review: sc that failed left the reservation in place) */
    s = st_warp(1, 0);
    st_setx_all(s, 0, 1, ST_DATA);
    st_setx_all(s, 0, 6, ST_DATA + 4);
    st_setx_all(s, 0, 2, 9);
    ST_CODE_ARR(s, LR_W(3, 1), SC_W(4, 2, 6), SC_W(5, 2, 1));
    st_go(s, NULL);
    ok(st_x(s, 0, 0, 4) == 1 && st_x(s, 0, 0, 5) == 1 && st_r32(s, 0, ST_DATA) == 0,
       "a failed sc clears the reservation: the next sc to lr's word fails too");
    vx_sim_free(s);

    /* an AMO by another hart (lane 1) to lane 0's reserved word is a store to it: lane
     * 0's sc must fail (RISC-V A, LR/SC); lane 1's own reservation, elsewhere, holds
     * (mutation review: AMOs did not kill reservations) */
    s = st_warp(2, 0);
    st_w32(s, ST_DATA, 5);
    st_setx(s, 0, 0, 1, ST_DATA);
    st_setx(s, 0, 1, 1, ST_DATA + 8);
    st_setx(s, 0, 0, 7, ST_DATA + 16);
    st_setx(s, 0, 1, 7, ST_DATA);
    st_setx_all(s, 0, 2, 9);
    ST_CODE_ARR(s, LR_W(3, 1), AMOADD_W(6, 2, 7), SC_W(4, 2, 1));
    st_go(s, NULL);
    ok(st_x(s, 0, 1, 6) == 5 && st_x(s, 0, 0, 4) == 1 && st_r32(s, 0, ST_DATA) == 14 &&
           st_x(s, 0, 1, 4) == 0 && st_r32(s, 0, ST_DATA + 8) == 9,
       "another lane's amoadd to the reserved word kills the reservation (sc fails)");
    vx_sim_free(s);

    /* a debugger write of 4 bytes at W + 2 reaches into the word W + 4: its reservation
     * goes too (mutation review: the kill loop started at the unaligned address) */
    s = st_warp(1, 0);
    st_setx_all(s, 0, 1, ST_DATA + 4);
    st_setx_all(s, 0, 2, 9);
    ST_CODE_ARR(s, LR_W(3, 1), SC_W(4, 2, 1));
    vx_stop st1;
    if (vx_sim_run(s, 1, &st1) || st1.reason != VX_STOP_NONE) tap_bail("lr.w did not run alone");
    const uint8_t four[4] = {1, 2, 3, 4};
    vx_sim_mem_write(s, 0, ST_DATA + 2, four, 4);
    st_go(s, NULL);
    ok(st_x(s, 0, 0, 4) == 1 && st_r32(s, 0, ST_DATA + 4) == 0x0403,
       "a debugger write over part of the reserved word kills the reservation (sc fails)");
    vx_sim_free(s);

    vx_stop st;
    s = st_warp(1, 0);
    st_setx_all(s, 0, 1, 0x10);
    ST_CODE_ARR(s, LR_W(3, 1));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_UNMAPPED,
       "lr.w unmapped faults");
    vx_sim_free(s);

    /* several lanes fault: the lowest one's address is reported, as for loads
     * (mutation review: lr.w named the last faulting lane's address) */
    s = st_warp(4, 0);
    st_setx_all(s, 0, 1, ST_DATA);
    st_setx(s, 0, 1, 1, 0x10);
    st_setx(s, 0, 3, 1, 0x20);
    ST_CODE_ARR(s, LR_W(3, 1));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_UNMAPPED &&
           st.fault.lanes == 0xa && st.fault.addr == 0x10,
       "lr.w faulting in lanes 1 and 3 names lane 1's address");
    vx_sim_free(s);

    sc_fail_pages();
    fault_leaves_pages();
}

/* ---- whole warps: uniform, consecutive and multi-page accesses ---------------------------- */

struct memlog {
    uint32_t nmem, nreads;
    vx_memwrite mem[128];
    vx_memread reads[128];
};

static void log_obs(void *ctx, const vx_event *ev)
{
    struct memlog *m = ctx;
    if (ev->kind != VX_EV_ISSUE || (ev->nmem == 0 && ev->nreads == 0)) return;
    m->nmem = ev->nmem;
    m->nreads = ev->nreads;
    memcpy(m->mem, ev->mem, ev->nmem * sizeof *ev->mem);
    memcpy(m->reads, ev->reads, ev->nreads * sizeof *ev->reads);
}

/* Lane l's address in the "stack" layout: lanes 8 KiB apart, one page each. */
#define STK(l) (0x00400000u + 0x2000u * (l) + 0x7f8u)

static void test_wide(uint32_t nt)
{
    const vx_lanes all = vx_lanes_all(nt);
    int bad;

    /* a uniform load: every lane reads one address (sign and zero extension too) */
    vx_sim *s = st_warp(nt, 0);
    st_w32(s, ST_DATA + 8, 0x8000ff81u);
    st_setx_all(s, 0, 1, ST_DATA);
    ST_CODE_ARR(s, LW(3, 8, 1), LB(4, 8, 1), LHU(5, 8, 1), LH(6, 10, 1), LBU(7, 11, 1));
    st_go(s, NULL);
    bad = 0;
    for (uint32_t l = 0; l < nt; l++)
        bad += st_x(s, 0, l, 3) != 0x8000ff81u || st_x(s, 0, l, 4) != 0xffffff81u ||
               st_x(s, 0, l, 5) != 0xff81u || st_x(s, 0, l, 6) != 0xffff8000u ||
               st_x(s, 0, l, 7) != 0x80u;
    ok(!bad, "%u lanes: a uniform load reaches every lane", nt);
    vx_sim_free(s);

    /* consecutive words: load (rd == rs1), store, and a store with a lane masked off */
    s = st_warp(nt, 0);
    for (uint32_t l = 0; l < nt; l++) {
        st_w32(s, ST_DATA + 4 * l, 0x1000 + l);
        st_setx(s, 0, l, 1, ST_DATA + 4 * l);
        st_setx(s, 0, l, 2, 0x2000 + l);
    }
    ST_CODE_ARR(s, SW(2, 0x400, 1), LW(1, 0, 1));
    st_go(s, NULL);
    bad = 0;
    for (uint32_t l = 0; l < nt; l++)
        bad +=
            st_x(s, 0, l, 1) != 0x1000 + l || st_r32(s, 0, ST_DATA + 0x400 + 4 * l) != 0x2000 + l;
    ok(!bad, "%u lanes: consecutive words load and store", nt);
    vx_sim_free(s);

    s = st_warp(nt, all & ~vx_lanes_bit(5));
    for (uint32_t l = 0; l < nt; l++) {
        st_setx(s, 0, l, 1, ST_DATA + 4 * l);
        st_setx(s, 0, l, 2, 0x3000 + l);
    }
    ST_CODE_ARR(s, SW(2, 0, 1));
    st_go(s, NULL);
    bad = 0;
    for (uint32_t l = 0; l < nt; l++)
        bad += st_r32(s, 0, ST_DATA + 4 * l) != (l == 5 ? 0 : 0x3000 + l);
    ok(!bad, "%u lanes: consecutive store skips the inactive lane", nt);
    vx_sim_free(s);

    /* one page per lane (per-thread stacks): loads from written and untouched pages,
     * stores to new pages, two lanes on one word (the higher lane wins) */
    s = st_warp(nt, 0);
    for (uint32_t l = 0; l < nt; l += 2)
        st_w32(s, STK(l), 0x5000 + l); /* odd lanes' pages stay untouched */
    for (uint32_t l = 0; l < nt; l++) {
        st_setx(s, 0, l, 1, STK(l));
        st_setx(s, 0, l, 2, 0x6000 + l);
        st_setx(s, 0, l, 4, l == 3 ? STK(2) + 0x400000 : STK(l) + 0x400000); /* 2, 3 collide */
    }
    ST_CODE_ARR(s, LH(3, 0, 1), SW(2, 0, 4), SB(2, 4, 1), LW(1, 0, 1));
    st_go(s, NULL);
    bad = 0;
    for (uint32_t l = 0; l < nt; l++) {
        uint32_t v = l % 2 ? 0 : 0x5000 + l;
        bad += st_x(s, 0, l, 3) != v || st_x(s, 0, l, 1) != v;
        if (l != 2) bad += st_r32(s, 0, (l == 3 ? STK(2) : STK(l)) + 0x400000) != 0x6000 + l;
        bad += (st_r32(s, 0, STK(l) + 4) & 0xff) != ((0x6000 + l) & 0xff);
    }
    ok(!bad, "%u lanes: one page per lane, loads and stores in lane order", nt);

    vx_sim_free(s);

    /* copy-on-write: stores into pages shared with a snapshot do not show in it */
    s = st_warp(nt, 0);
    for (uint32_t l = 0; l < nt; l++) {
        st_w32(s, STK(l), 0x6000 + l);
        st_setx(s, 0, l, 1, STK(l));
        st_setx(s, 0, l, 2, 0x7000 + l);
    }
    vx_sim_snap *snap = NULL;
    if (vx_sim_snap_save(s, &snap)) tap_bail("snapshot failed");
    ST_CODE_ARR(s, SW(2, 0, 1));
    st_go(s, NULL);
    bad = 0;
    for (uint32_t l = 0; l < nt; l++)
        bad += st_r32(s, 0, STK(l)) != 0x7000 + l;
    vx_sim_snap_restore(s, snap);
    for (uint32_t l = 0; l < nt; l++)
        bad += st_r32(s, 0, STK(l)) != 0x6000 + l;
    vx_sim_snap_free(snap);
    ok(!bad, "%u lanes: one page per lane, copy-on-write kept", nt);
    vx_sim_free(s);

    /* the observer sees every lane's write and read, in lane order */
    s = st_warp(nt, 0);
    struct memlog m;
    memset(&m, 0, sizeof m);
    vx_sim_set_observer(s, log_obs, &m, VX_OBS_READS);
    for (uint32_t l = 0; l < nt; l++) {
        st_setx(s, 0, l, 1, STK(l));
        st_setx(s, 0, l, 2, 0xabcd0000u + l);
    }
    ST_CODE_ARR(s, SH(2, 2, 1));
    st_go(s, NULL);
    bad = m.nmem != nt;
    for (uint32_t l = 0; l < nt && !bad; l++)
        bad += m.mem[l].lane != l || m.mem[l].addr != STK(l) + 2 || m.mem[l].size != 2 ||
               m.mem[l].value != l;
    vx_sim_free(s);
    s = st_warp(nt, 0);
    memset(&m, 0, sizeof m);
    vx_sim_set_observer(s, log_obs, &m, VX_OBS_READS);
    for (uint32_t l = 0; l < nt; l++)
        st_setx(s, 0, l, 1, STK(l));
    ST_CODE_ARR(s, LW(3, 0, 1));
    st_go(s, NULL);
    bad += m.nreads != nt;
    for (uint32_t l = 0; l < nt && !bad; l++)
        bad += m.reads[l].lane != l || m.reads[l].addr != STK(l) || m.reads[l].size != 4;
    ok(!bad, "%u lanes: per-lane writes and reads reported in lane order", nt);
    vx_sim_free(s);

    /* the memory limit reached on the n-th new page: a precise fault, nothing stored */
    vx_sim_config c = VX_SIM_CONFIG_INIT;
    c.warps = 1;
    c.threads = nt;
    c.mem_limit = 8 * VX_PAGE_SIZE; /* the code page + 7 */
    s = NULL;
    if (vx_sim_new(&c, &s)) tap_bail("vx_sim_new failed");
    vx_sim_set_tmask(s, 0, all);
    for (uint32_t l = 0; l < nt; l++) {
        st_setx(s, 0, l, 1, STK(l));
        st_setx(s, 0, l, 2, 0x77);
    }
    ST_CODE_ARR(s, SW(2, 0, 1));
    vx_stop st;
    bad = st_go(s, &st) != VX_STOP_FAULT || st.fault.kind != VX_FAULT_UNMAPPED;
    for (uint32_t l = 0; l < nt; l++)
        bad += st_r32(s, 0, STK(l)) != 0;
    ok(!bad, "%u lanes: memory limit on a multi-page store is precise (%s)", nt, st.fault.reason);
    vx_sim_free(s);
}

int main(void)
{
    test_loads();
    test_wide(8);
    test_wide(32);
    test_wide(128);
    test_stores();
    test_faults();
    test_misaligned_mode();
    test_console();
    test_lmem();
    test_load_paths();
    test_lmem_code();
    test_limit();
    test_amo();
    test_lrsc();
    is_int(st_check_coverage(VX_IF_LOAD | VX_IF_STORE, VX_IF_FP), 0,
           "every integer memory row of the table is exercised");
    tap_done();
    return tap_exit();
}
