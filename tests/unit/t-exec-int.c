/*
 * t-exec-int.c - integer instructions through the executor, with hand-computed
 * expectations: RV32I ALU, M (division corner cases), Zicond, branches and jumps
 * (uniform and divergent), ecall / ebreak / mret / fence.  Each ALU case runs
 * with a full thread mask and with a partial one (lane 1 inactive must keep its
 * old rd), so both executor paths are covered.
 */
#include "simtest.h"

#define SENT 0xdeadbeefu

/* rd = x3, rs1 = x1 = a, rs2 = x2 = b. */
static void alu(const char *name, uint32_t insn, uint32_t a, uint32_t b, uint32_t exp)
{
    int bad = 0;
    for (int pass = 0; pass < 2; pass++) {
        vx_lanes mask = pass ? 0xd : 0xf;
        vx_sim *s = st_warp(4, mask);
        for (uint32_t l = 0; l < 4; l++) {
            st_setx(s, 0, l, 1, a);
            st_setx(s, 0, l, 2, b);
            st_setx(s, 0, l, 3, SENT);
        }
        st_code(s, &insn, 1);
        vx_stop st;
        if (st_go(s, &st) != VX_STOP_EXIT) {
            diag("%s: stop %d (%s)", name, st.reason, st.fault.reason);
            bad++;
        }
        for (uint32_t l = 0; l < 4; l++) {
            uint32_t want = vx_lanes_test(mask, l) ? exp : SENT;
            if (st_x(s, 0, l, 3) != want) {
                diag("%s pass %d lane %u: got 0x%08x want 0x%08x", name, pass, l, st_x(s, 0, l, 3),
                     want);
                bad++;
            }
        }
        vx_sim_free(s);
    }
    ok(!bad, "%s", name);
}

#define R(op)      op(3, 1, 2)
#define I(op, imm) op(3, 1, imm)

static void test_alu(void)
{
    alu("add", R(ADD), 5, 7, 12);
    alu("add wraps", R(ADD), 0xffffffff, 1, 0);
    alu("add signed overflow", R(ADD), 0x7fffffff, 1, 0x80000000);
    alu("sub", R(SUB), 5, 7, 0xfffffffe);
    alu("sub 0-1", R(SUB), 0, 1, 0xffffffff);
    alu("sll 31", R(SLL), 1, 31, 0x80000000);
    alu("sll uses 5 bits (33 -> 1)", R(SLL), 1, 33, 2);
    alu("slt -1 < 1", R(SLT), 0xffffffff, 1, 1);
    alu("slt 1 < -1", R(SLT), 1, 0xffffffff, 0);
    alu("slt equal", R(SLT), 5, 5, 0);
    alu("sltu 0xffffffff < 1", R(SLTU), 0xffffffff, 1, 0);
    alu("sltu 1 < 0xffffffff", R(SLTU), 1, 0xffffffff, 1);
    alu("xor", R(XOR), 0xf0f0, 0xff00, 0x0ff0);
    alu("srl 31", R(SRL), 0x80000000, 31, 1);
    alu("srl 32 -> 0", R(SRL), 0x80000000, 32, 0x80000000);
    alu("sra 31", R(SRA), 0x80000000, 31, 0xffffffff);
    alu("sra positive", R(SRA), 0x40000000, 30, 1);
    alu("sra 33 -> 1", R(SRA), 0x80000000, 33, 0xc0000000);
    alu("or", R(OR), 0xf0f0, 0x0f00, 0xfff0);
    alu("and", R(AND), 0xf0f0, 0xff00, 0xf000);

    alu("addi -1", I(ADDI, -1), 5, 0, 4);
    alu("addi -2048", I(ADDI, -2048), 0, 0, 0xfffff800);
    alu("addi 2047", I(ADDI, 2047), 1, 0, 2048);
    alu("slti -1 < 0 (imm)", I(SLTI, 0), 0xffffffff, 0, 1);
    alu("slti 5 < -3", I(SLTI, -3), 5, 0, 0);
    alu("sltiu x < 0xffffffff (imm -1)", I(SLTIU, -1), 7, 0, 1);
    alu("sltiu 0xffffffff < 0xffffffff", I(SLTIU, -1), 0xffffffff, 0, 0);
    alu("xori -1 = not", I(XORI, -1), 0x12345678, 0, 0xedcba987);
    alu("ori", I(ORI, 0x0f0), 0x100, 0, 0x1f0);
    alu("andi sign-extended imm", I(ANDI, -16), 0x12345678, 0, 0x12345670);
    alu("slli 31", I(SLLI, 31), 3, 0, 0x80000000);
    alu("srli 31", I(SRLI, 31), 0xffffffff, 0, 1);
    alu("srai 31", I(SRAI, 31), 0x80000000, 0, 0xffffffff);
    alu("srai 4", I(SRAI, 4), 0xf0000000, 0, 0xff000000);
    alu("lui", LUI(3, 0x12345), 0, 0, 0x12345000);
    alu("lui top bit", LUI(3, 0xfffff), 0, 0, 0xfffff000);
    alu("auipc", AUIPC(3, 1), 0, 0, ST_CODE + 0x1000);

    alu("mul", R(MUL), 7, 6, 42);
    alu("mul -1*-1", R(MUL), 0xffffffff, 0xffffffff, 1);
    alu("mul overflow low bits", R(MUL), 0x10000, 0x10000, 0);
    alu("mulh -1*-1", R(MULH), 0xffffffff, 0xffffffff, 0);
    alu("mulh INT_MIN^2", R(MULH), 0x80000000, 0x80000000, 0x40000000);
    alu("mulh -2*3", R(MULH), 0xfffffffe, 3, 0xffffffff);
    alu("mulhsu -1*0xffffffff", R(MULHSU), 0xffffffff, 0xffffffff, 0xffffffff);
    alu("mulhsu 2*0x80000000", R(MULHSU), 2, 0x80000000, 1);
    alu("mulhu max*max", R(MULHU), 0xffffffff, 0xffffffff, 0xfffffffe);
    alu("div 7/2", R(DIV), 7, 2, 3);
    alu("div -7/2 truncates", R(DIV), (uint32_t)-7, 2, (uint32_t)-3);
    alu("div by zero", R(DIV), 7, 0, 0xffffffff);
    alu("div INT_MIN/-1", R(DIV), 0x80000000, 0xffffffff, 0x80000000);
    alu("divu", R(DIVU), 0xfffffffe, 2, 0x7fffffff);
    alu("divu by zero", R(DIVU), 7, 0, 0xffffffff);
    alu("rem -7%2", R(REM), (uint32_t)-7, 2, 0xffffffff);
    alu("rem 7%-2", R(REM), 7, (uint32_t)-2, 1);
    alu("rem by zero", R(REM), 0x1234, 0, 0x1234);
    alu("rem INT_MIN%-1", R(REM), 0x80000000, 0xffffffff, 0);
    alu("remu", R(REMU), 7, 2, 1);
    alu("remu by zero", R(REMU), 0xfffffff0, 0, 0xfffffff0);

    alu("czero.eqz b=0", R(CZERO_EQZ), 5, 0, 0);
    alu("czero.eqz b!=0", R(CZERO_EQZ), 5, 3, 5);
    alu("czero.nez b=0", R(CZERO_NEZ), 5, 0, 5);
    alu("czero.nez b!=0", R(CZERO_NEZ), 5, 3, 0);
}

static void test_x0(void)
{
    vx_sim *s = st_warp(4, 0);
    st_setx_all(s, 0, 1, 77);
    ST_CODE_ARR(s, ADDI(0, 1, 5), ADD(5, 0, 1), LUI(0, 0x12345), ADD(6, 0, 0));
    st_go(s, NULL);
    ok(st_x(s, 0, 0, 0) == 0 && st_x(s, 0, 3, 0) == 0, "writes to x0 are ignored");
    is_u32(st_x(s, 0, 2, 5), 77, "x0 reads 0 after a write to it");
    is_u32(st_x(s, 0, 1, 6), 0, "add x6, x0, x0 = 0");
    vx_sim_free(s);
}

/* Branch: x3 = 1 on the fall-through path, x4 = 1 on both paths; taken skips x3. */
static void branch(const char *name, uint32_t insn, uint32_t a, uint32_t b, int taken)
{
    vx_sim *s = st_warp(4, 0);
    st_setx_all(s, 0, 1, a);
    st_setx_all(s, 0, 2, b);
    ST_CODE_ARR(s, insn, ADDI(3, 0, 1), ADDI(4, 0, 1));
    vx_stop st;
    int r = st_go(s, &st);
    ok(r == VX_STOP_EXIT && st_x(s, 0, 0, 3) == (taken ? 0u : 1u) && st_x(s, 0, 3, 4) == 1, "%s %s",
       name, taken ? "taken" : "not taken");
    vx_sim_free(s);
}

static void test_branches(void)
{
    branch("beq", BEQ(1, 2, 8), 5, 5, 1);
    branch("beq", BEQ(1, 2, 8), 5, 6, 0);
    branch("bne", BNE(1, 2, 8), 5, 6, 1);
    branch("bne", BNE(1, 2, 8), 5, 5, 0);
    branch("blt signed", BLT(1, 2, 8), 0xffffffff, 1, 1);
    branch("blt", BLT(1, 2, 8), 1, 0xffffffff, 0);
    branch("bge equal", BGE(1, 2, 8), 3, 3, 1);
    branch("bge signed", BGE(1, 2, 8), 0xffffffff, 0, 0);
    branch("bltu", BLTU(1, 2, 8), 1, 0xffffffff, 1);
    branch("bltu unsigned", BLTU(1, 2, 8), 0xffffffff, 1, 0);
    branch("bgeu", BGEU(1, 2, 8), 0xffffffff, 1, 1);
    branch("bgeu", BGEU(1, 2, 8), 0, 1, 0);
    /* the equal cases: blt/bltu not taken, bge/bgeu taken (>= is not >) */
    branch("bgeu equal", BGEU(1, 2, 8), 0x80000000, 0x80000000, 1);
    branch("bltu equal", BLTU(1, 2, 8), 7, 7, 0);
    branch("blt equal", BLT(1, 2, 8), 0xfffffffe, 0xfffffffe, 0);
    branch("bge signed, both negative", BGE(1, 2, 8), 0xfffffffe, 0xfffffff0, 1);

    /* backwards branch loop: count x5 down from 3 */
    vx_sim *s = st_warp(2, 0);
    st_setx_all(s, 0, 5, 3);
    ST_CODE_ARR(s, ADDI(6, 6, 1), ADDI(5, 5, -1), BNE(5, 0, -8));
    st_go(s, NULL);
    is_u32(st_x(s, 0, 1, 6), 3, "backward branch loops 3 times");
    vx_sim_free(s);

    /* A branch on which active lanes disagree is a precise fault. */
    s = st_warp(4, 0);
    st_setx(s, 0, 2, 1, 1); /* lane 2 differs */
    ST_CODE_ARR(s, ADDI(7, 0, 9), BEQ(1, 0, 8), ADDI(3, 0, 1));
    vx_stop st;
    int r = st_go(s, &st);
    ok(r == VX_STOP_FAULT && st.fault.kind == VX_FAULT_DIVERGENT && st.fault.signal == 6,
       "divergent beq faults DIVERGENT (SIGABRT)");
    is_u32(st.fault.pc, ST_CODE + 4, "fault pc is the branch");
    ok(st.fault.lanes == 0xf && st.fault.core == 0 && st.fault.warp == 0, "fault names lanes/warp");
    ok(strstr(st.fault.reason, "divergent") != NULL, "reason: %s", st.fault.reason);
    vx_warp_info wi;
    vx_sim_warp_info(s, 0, &wi);
    ok(wi.pc == ST_CODE + 4 && st_x(s, 0, 0, 7) == 9 && st_x(s, 0, 0, 3) == 0,
       "state frozen at the branch");
    ok(vx_sim_finished(s), "machine finished after the fault");
    vx_sim_free(s);

    /* Only active lanes matter: lane 2 disagrees but is masked off. */
    s = st_warp(4, 0xb);
    st_setx(s, 0, 2, 1, 1);
    ST_CODE_ARR(s, BEQ(1, 0, 8), ADDI(3, 0, 1));
    r = st_go(s, &st);
    ok(r == VX_STOP_EXIT && st_x(s, 0, 0, 3) == 0, "inactive lanes do not make a branch divergent");
    vx_sim_free(s);

    /* misaligned branch target */
    s = st_warp(1, 0);
    ST_CODE_ARR(s, BEQ(0, 0, 6));
    r = st_go(s, &st);
    ok(r == VX_STOP_FAULT && st.fault.kind == VX_FAULT_MISALIGNED && st.fault.pc == ST_CODE,
       "taken branch to a misaligned target faults at the branch");
    vx_sim_free(s);
}

static void test_jumps(void)
{
    vx_sim *s = st_warp(4, 0);
    ST_CODE_ARR(s, JAL(1, 8), ADDI(3, 0, 1), ADDI(4, 0, 1));
    st_go(s, NULL);
    ok(st_x(s, 0, 3, 1) == ST_CODE + 4 && st_x(s, 0, 0, 3) == 0 && st_x(s, 0, 0, 4) == 1,
       "jal links pc+4 and jumps");
    vx_sim_free(s);

    /* jalr rd == rs1, with an odd immediate: target bit 0 is cleared */
    s = st_warp(4, 0);
    st_setx_all(s, 0, 5, ST_CODE + 8);
    ST_CODE_ARR(s, JALR(5, 5, 5), ADDI(3, 0, 1), ADDI(3, 0, 2), ADDI(4, 0, 1));
    st_go(s, NULL);
    ok(st_x(s, 0, 2, 5) == ST_CODE + 4 && st_x(s, 0, 0, 3) == 0 && st_x(s, 0, 0, 4) == 1,
       "jalr rd==rs1: target (rs1+imm)&~1, link pc+4");
    vx_sim_free(s);

    s = st_warp(4, 0);
    st_setx_all(s, 0, 5, ST_CODE + 8);
    st_setx(s, 0, 3, 5, ST_CODE + 12);
    ST_CODE_ARR(s, JALR(1, 5, 0), NOP(), NOP(), NOP());
    vx_stop st;
    int r = st_go(s, &st);
    ok(r == VX_STOP_FAULT && st.fault.kind == VX_FAULT_DIVERGENT && st.fault.lanes == 0x7 &&
           st_x(s, 0, 0, 1) == 0,
       "divergent jalr faults, lanes = those leaving the last lane's target, no link");
    vx_sim_free(s);

    s = st_warp(1, 0);
    st_setx_all(s, 0, 5, ST_CODE + 6);
    ST_CODE_ARR(s, JALR(1, 5, 0));
    r = st_go(s, &st);
    ok(r == VX_STOP_FAULT && st.fault.kind == VX_FAULT_MISALIGNED && st_x(s, 0, 0, 1) == 0,
       "jalr to a misaligned target faults without linking");
    vx_sim_free(s);
}

/*
 * Branch and jump faults (from a coverage review): the divergent-branch message
 * names the taken and not-taken lanes for the signed and unsigned compares; a
 * misaligned target faults only when the branch is taken; jal and a divergent
 * jalr fault before linking.  Lanes 0..3 hold x1 = -1, 1, -1, 1.
 */
static void divergent_branch(const char *name, uint32_t insn, uint32_t b, const char *want)
{
    static const uint32_t a[4] = {0xffffffffu, 1, 0xffffffffu, 1};
    vx_sim *s = st_warp(4, 0);
    for (uint32_t l = 0; l < 4; l++)
        st_setx(s, 0, l, 1, a[l]);
    st_setx_all(s, 0, 2, b);
    ST_CODE_ARR(s, insn, NOP(), ADDI(3, 0, 1));
    vx_stop st;
    int r = st_go(s, &st);
    ok(r == VX_STOP_FAULT && st.fault.kind == VX_FAULT_DIVERGENT && st.fault.signal == 6 &&
           st.fault.pc == ST_CODE && st.fault.lanes == 0xf,
       "%s on lanes -1, 1, -1, 1 vs %u faults DIVERGENT", name, b);
    is_str(st.fault.reason, want, "%s: the reason names the taken lanes", name);
    vx_sim_free(s);
}

static void test_control_faults(void)
{
    divergent_branch("blt", BLT(1, 2, 8), 0, "divergent branch: taken by lanes 0x5, not by 0xa");
    divergent_branch("bltu", BLTU(1, 2, 8), 2, "divergent branch: taken by lanes 0xa, not by 0x5");
    divergent_branch("bgeu", BGEU(1, 2, 8), 2, "divergent branch: taken by lanes 0x5, not by 0xa");

    vx_sim *s = st_warp(4, 0);
    ST_CODE_ARR(s, BEQ(0, 0, 6), ADDI(3, 0, 1));
    vx_stop st;
    int r = st_go(s, &st);
    ok(r == VX_STOP_FAULT && st.fault.kind == VX_FAULT_MISALIGNED && st.fault.signal == 7 &&
           st.fault.pc == ST_CODE && st.fault.addr == ST_CODE + 6,
       "taken beq +6: MISALIGNED (SIGBUS) at the branch, addr 0x80000006");
    is_str(st.fault.reason, "branch target 0x80000006 is misaligned", "taken beq +6: reason");
    vx_sim_free(s);

    s = st_warp(4, 0);
    ST_CODE_ARR(s, BNE(0, 0, 6), ADDI(3, 0, 1));
    r = st_go(s, &st);
    ok(r == VX_STOP_EXIT && st_x(s, 0, 2, 3) == 1,
       "not-taken bne with a misaligned target does not fault");
    vx_sim_free(s);

    s = st_warp(4, 0);
    st_setx_all(s, 0, 1, SENT);
    ST_CODE_ARR(s, JAL(1, 6));
    r = st_go(s, &st);
    ok(r == VX_STOP_FAULT && st.fault.kind == VX_FAULT_MISALIGNED && st.fault.signal == 7 &&
           st.fault.addr == ST_CODE + 6 && st_x(s, 0, 0, 1) == SENT && st_x(s, 0, 3, 1) == SENT,
       "jal +6: MISALIGNED at 0x80000006, x1 not linked");
    is_str(st.fault.reason, "jump target 0x80000006 is misaligned", "jal +6: reason");
    vx_sim_free(s);

    /* the lanes named are those leaving the last lane's target */
    static const uint32_t t[4] = {ST_CODE + 0x10, ST_CODE + 0x10, ST_CODE + 0x20, ST_CODE + 0x10};
    s = st_warp(4, 0);
    for (uint32_t l = 0; l < 4; l++)
        st_setx(s, 0, l, 5, t[l]);
    st_setx_all(s, 0, 1, SENT);
    ST_CODE_ARR(s, JALR(1, 5, 0));
    r = st_go(s, &st);
    ok(r == VX_STOP_FAULT && st.fault.kind == VX_FAULT_DIVERGENT && st.fault.lanes == 0x4 &&
           st.fault.addr == ST_CODE + 0x10 && st_x(s, 0, 0, 1) == SENT,
       "jalr to 0x10, 0x10, 0x20, 0x10: DIVERGENT, lanes 0x4, addr 0x80000010, no link");
    is_str(st.fault.reason, "divergent jalr: lanes 0x4 jump elsewhere than 0x80000010 (lane 3)",
           "divergent jalr: reason");
    vx_sim_free(s);

    /* jalr clears bit 0: lanes that differ only there agree */
    s = st_warp(4, 0);
    for (uint32_t l = 0; l < 4; l++)
        st_setx(s, 0, l, 5, (ST_CODE + 8) | (l & 1));
    ST_CODE_ARR(s, JALR(1, 5, 0), ADDI(3, 0, 5), ADDI(3, 0, 7));
    r = st_go(s, &st);
    ok(r == VX_STOP_EXIT && st_x(s, 0, 1, 3) == 7 && st_x(s, 0, 3, 1) == ST_CODE + 4,
       "jalr targets differing only in bit 0 are not divergent");
    vx_sim_free(s);
}

static void test_system(void)
{
    vx_sim *s = st_warp(4, 0);
    st_setx_all(s, 0, A7, 93);
    st_setx_all(s, 0, A0, 1);
    st_setx(s, 0, 3, A0, 42); /* last active lane decides */
    ST_CODE_ARR(s, ECALL(), ADDI(3, 0, 1));
    vx_stop st;
    int r = st_go(s, &st);
    ok(r == VX_STOP_EXIT && st.exit_code == 42, "ecall a7=93 exits with a0 of the last lane (%u)",
       st.exit_code);
    ok(st_x(s, 0, 0, 3) == 0 && vx_sim_finished(s), "nothing runs after the exit ecall");
    vx_sim_free(s);

    s = st_warp(4, 0);
    st_setx_all(s, 0, A7, 64);
    ST_CODE_ARR(s, ECALL());
    r = st_go(s, &st);
    ok(r == VX_STOP_FAULT && st.fault.kind == VX_FAULT_ECALL && st.fault.signal == 12,
       "other ecalls fault ECALL (SIGSYS)");
    vx_sim_free(s);

    s = st_warp(4, 0);
    ST_CODE_ARR(s, NOP(), EBREAK());
    r = st_go(s, &st);
    ok(r == VX_STOP_FAULT && st.fault.kind == VX_FAULT_EBREAK && st.fault.signal == 5 &&
           st.fault.pc == ST_CODE + 4,
       "ebreak is a breakpoint trap (SIGTRAP) at its pc");
    vx_sim_free(s);

    s = st_warp(4, 0);
    vx_sim_set_ebreak_halt(s, true);
    ST_CODE_ARR(s, NOP(), EBREAK(), ADDI(3, 0, 1));
    r = st_go(s, &st);
    vx_warp_info wi;
    vx_sim_warp_info(s, 0, &wi);
    ok(r == VX_STOP_HALT && st.gwarp == 0 && wi.halted && wi.hacause == VX_HACAUSE_EBREAK &&
           wi.pc == ST_CODE + 4,
       "ebreak with ebreak-halt halts the warp at the ebreak");
    r = st_go(s, &st);
    ok(r == VX_STOP_IDLE, "a halted warp leaves the machine idle (%d)", r);
    vx_sim_set_pc(s, 0, ST_CODE + 8);
    vx_sim_resume(s, 0);
    r = st_go(s, &st);
    ok(r == VX_STOP_EXIT && st_x(s, 0, 0, 3) == 1, "resume after moving the pc past the ebreak");
    vx_sim_free(s);

    /* mret jumps to mepc (plain storage) */
    s = st_warp(2, 0);
    st_setx_all(s, 0, 5, ST_CODE + 16);
    ST_CODE_ARR(s, CSRRW(0, 0x341, 5), MRET(), ADDI(3, 0, 1), ADDI(3, 0, 2), ADDI(4, 0, 1));
    r = st_go(s, &st);
    ok(r == VX_STOP_EXIT && st_x(s, 0, 1, 3) == 0 && st_x(s, 0, 1, 4) == 1, "mret jumps to mepc");
    vx_sim_free(s);
    /* mepc written with bits 1:0 set keeps them 0 (WARL): mret goes to the aligned pc */
    s = st_warp(2, 0);
    st_setx_all(s, 0, 5, ST_CODE + 18);
    ST_CODE_ARR(s, CSRRW(0, 0x341, 5), MRET(), ADDI(3, 0, 1), ADDI(3, 0, 2), ADDI(4, 0, 1));
    r = st_go(s, &st);
    ok(r == VX_STOP_EXIT && st_x(s, 0, 1, 3) == 0 && st_x(s, 0, 1, 4) == 1,
       "mret after mepc = pc + 2 goes to pc (no misaligned fault)");
    vx_sim_free(s);

    s = st_warp(2, 0);
    ST_CODE_ARR(s, FENCE(), FENCE_I(), ADDI(3, 0, 3));
    r = st_go(s, &st);
    ok(r == VX_STOP_EXIT && st_x(s, 0, 1, 3) == 3, "fence and fence.i are no-ops");
    vx_sim_free(s);

    /* illegal instructions */
    s = st_warp(2, 0);
    ST_CODE_ARR(s, 0x00000000u);
    r = st_go(s, &st);
    ok(r == VX_STOP_FAULT && st.fault.kind == VX_FAULT_ILLEGAL && st.fault.signal == 4 &&
           st.fault.insn == 0,
       "all-zero word is an illegal instruction (SIGILL)");
    vx_sim_free(s);
    s = st_warp(2, 0);
    ST_CODE_ARR(s, 0x0400000bu); /* custom-0 funct7 = 2 (WMMA): not supported */
    r = st_go(s, &st);
    ok(r == VX_STOP_FAULT && st.fault.kind == VX_FAULT_ILLEGAL && st.fault.insn == 0x0400000bu,
       "unsupported custom-0 word is illegal");
    vx_sim_free(s);

    /* fetch faults */
    s = st_warp(1, 0);
    vx_sim_set_pc(s, 0, 0x20);
    r = st_go(s, &st);
    ok(r == VX_STOP_FAULT && st.fault.kind == VX_FAULT_UNMAPPED && st.fault.pc == 0x20,
       "fetch from the null guard faults UNMAPPED");
    vx_sim_free(s);
    s = st_warp(1, 0);
    vx_sim_set_pc(s, 0, ST_CODE + 2);
    r = st_go(s, &st);
    ok(r == VX_STOP_FAULT && st.fault.kind == VX_FAULT_MISALIGNED, "misaligned fetch faults");
    vx_sim_free(s);
}

/*
 * divu/remu over whole warps (8 to 128 lanes): a divisor shared by every lane
 * takes the executor's reciprocal path, one lane with another divisor or a
 * partial mask the per-lane one; both must give C's / and % (and the RISC-V
 * results for 0), lane by lane.
 */
static void test_wide_division(void)
{
    static const uint32_t divisors[] = {0,          1,          2,          3,          7,
                                        10,         16,         1000003,    0x10000,    0x7fffffff,
                                        0x80000000, 0x80000001, 0xfffffffe, 0xffffffff, 12345};
    static const uint32_t nts[] = {8, 32, 128};
    uint64_t r = 0x9E3779B97F4A7C15u;
    int bad = 0, runs = 0;
    for (size_t ni = 0; ni < sizeof nts / sizeof nts[0]; ni++)
        for (size_t di = 0; di < sizeof divisors / sizeof divisors[0]; di++)
            for (int variant = 0; variant < 3; variant++) {
                /* 0: uniform divisor, full mask; 1: lane 3 differs; 2: lane 5 masked off */
                uint32_t nt = nts[ni], b = divisors[di];
                vx_lanes all = vx_lanes_all(nt);
                vx_sim *s = st_warp(nt, variant == 2 ? all & ~vx_lanes_bit(5) : all);
                uint32_t a[128], bb[128];
                for (uint32_t l = 0; l < nt; l++) {
                    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
                    static const uint32_t edges[] = {0, 1, 0xffffffffu, 0x80000000u, 0x7fffffffu};
                    a[l] = l < 5 ? edges[l] : (uint32_t)(r >> (r % 32));
                    if (l == 7) a[l] = b;     /* a == b */
                    if (l == 8) a[l] = b - 1; /* just below */
                    bb[l] = variant == 1 && l == 3 ? b + 1 : b;
                    st_setx(s, 0, l, 1, a[l]);
                    st_setx(s, 0, l, 2, bb[l]);
                    st_setx(s, 0, l, 3, SENT);
                    st_setx(s, 0, l, 4, SENT);
                }
                ST_CODE_ARR(s, DIVU(3, 1, 2), REMU(4, 1, 2));
                vx_stop st;
                if (st_go(s, &st) != VX_STOP_EXIT) bad++;
                for (uint32_t l = 0; l < nt; l++) {
                    int on = variant != 2 || l != 5;
                    uint32_t q = bb[l] ? a[l] / bb[l] : 0xffffffffu;
                    uint32_t m = bb[l] ? a[l] % bb[l] : a[l];
                    if (st_x(s, 0, l, 3) != (on ? q : SENT) ||
                        st_x(s, 0, l, 4) != (on ? m : SENT)) {
                        if (bad++ < 5)
                            diag("nt %u b 0x%x variant %d lane %u: a 0x%x q 0x%x r 0x%x", nt, b,
                                 variant, l, a[l], st_x(s, 0, l, 3), st_x(s, 0, l, 4));
                    }
                }
                runs++;
                vx_sim_free(s);
            }
    ok(!bad, "divu/remu on %d wide warps (shared divisors: reciprocal path) match / and %%", runs);
}

int main(void)
{
    test_alu();
    test_wide_division();
    test_x0();
    test_branches();
    test_jumps();
    test_control_faults();
    test_system();
    is_int(st_check_coverage(0, VX_IF_LOAD | VX_IF_STORE | VX_IF_CSR | VX_IF_FP | VX_IF_CUSTOM), 0,
           "every integer/control row of the table is exercised");
    tap_done();
    return tap_exit();
}
