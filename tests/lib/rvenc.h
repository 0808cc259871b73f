/*
 * rvenc.h - a tiny RISC-V instruction encoder for the C tests.
 *
 * Written from the RISC-V unprivileged/privileged specs and the Vortex custom-0
 * layout (research §1.2-§1.3), independently of sim/vx_isa.def, so that tests
 * built with it check the simulator's table rather than agree with it by
 * construction.  Register numbers are plain integers (10 = a0, ...).
 */
#ifndef VX_RVENC_H
#define VX_RVENC_H

#include <stdint.h>

/* clang-format off */
enum {
    X0 = 0, RA = 1, SP = 2, GP = 3, TP = 4, T0 = 5, T1 = 6, T2 = 7, S0 = 8, S1 = 9,
    A0 = 10, A1 = 11, A2 = 12, A3 = 13, A4 = 14, A5 = 15, A6 = 16, A7 = 17,
    S2 = 18, S3 = 19, T3 = 28, T4 = 29, T5 = 30, T6 = 31
};

/* clang-format on */

static inline uint32_t rv_r(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd,
                            uint32_t opc)
{
    return f7 << 25 | (rs2 & 31) << 20 | (rs1 & 31) << 15 | f3 << 12 | (rd & 31) << 7 | opc;
}

static inline uint32_t rv_i(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t opc)
{
    return ((uint32_t)imm & 0xfff) << 20 | (rs1 & 31) << 15 | f3 << 12 | (rd & 31) << 7 | opc;
}

static inline uint32_t rv_s(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t opc)
{
    uint32_t u = (uint32_t)imm;
    return ((u >> 5) & 0x7f) << 25 | (rs2 & 31) << 20 | (rs1 & 31) << 15 | f3 << 12 |
           (u & 31) << 7 | opc;
}

static inline uint32_t rv_b(int32_t off, uint32_t rs2, uint32_t rs1, uint32_t f3)
{
    uint32_t u = (uint32_t)off;
    return ((u >> 12) & 1) << 31 | ((u >> 5) & 0x3f) << 25 | (rs2 & 31) << 20 | (rs1 & 31) << 15 |
           f3 << 12 | ((u >> 1) & 0xf) << 8 | ((u >> 11) & 1) << 7 | 0x63;
}

static inline uint32_t rv_u(uint32_t imm20, uint32_t rd, uint32_t opc)
{
    return (imm20 & 0xfffff) << 12 | (rd & 31) << 7 | opc;
}

static inline uint32_t rv_j(int32_t off, uint32_t rd)
{
    uint32_t u = (uint32_t)off;
    return ((u >> 20) & 1) << 31 | ((u >> 1) & 0x3ff) << 21 | ((u >> 11) & 1) << 20 |
           ((u >> 12) & 0xff) << 12 | (rd & 31) << 7 | 0x6f;
}

static inline uint32_t rv_r4(uint32_t rs3, uint32_t rs2, uint32_t rs1, uint32_t rm, uint32_t rd,
                             uint32_t opc)
{
    return (rs3 & 31) << 27 | (rs2 & 31) << 20 | (rs1 & 31) << 15 | rm << 12 | (rd & 31) << 7 | opc;
}

/* clang-format off */
/* RV32I */
#define LUI(rd, imm20)       rv_u(imm20, rd, 0x37)
#define AUIPC(rd, imm20)     rv_u(imm20, rd, 0x17)
#define JAL(rd, off)         rv_j(off, rd)
#define JALR(rd, rs1, imm)   rv_i(imm, rs1, 0, rd, 0x67)
#define BEQ(a, b, off)       rv_b(off, b, a, 0)
#define BNE(a, b, off)       rv_b(off, b, a, 1)
#define BLT(a, b, off)       rv_b(off, b, a, 4)
#define BGE(a, b, off)       rv_b(off, b, a, 5)
#define BLTU(a, b, off)      rv_b(off, b, a, 6)
#define BGEU(a, b, off)      rv_b(off, b, a, 7)
#define LB(rd, imm, rs1)     rv_i(imm, rs1, 0, rd, 0x03)
#define LH(rd, imm, rs1)     rv_i(imm, rs1, 1, rd, 0x03)
#define LW(rd, imm, rs1)     rv_i(imm, rs1, 2, rd, 0x03)
#define LBU(rd, imm, rs1)    rv_i(imm, rs1, 4, rd, 0x03)
#define LHU(rd, imm, rs1)    rv_i(imm, rs1, 5, rd, 0x03)
#define SB(rs2, imm, rs1)    rv_s(imm, rs2, rs1, 0, 0x23)
#define SH(rs2, imm, rs1)    rv_s(imm, rs2, rs1, 1, 0x23)
#define SW(rs2, imm, rs1)    rv_s(imm, rs2, rs1, 2, 0x23)
#define ADDI(rd, rs1, imm)   rv_i(imm, rs1, 0, rd, 0x13)
#define SLTI(rd, rs1, imm)   rv_i(imm, rs1, 2, rd, 0x13)
#define SLTIU(rd, rs1, imm)  rv_i(imm, rs1, 3, rd, 0x13)
#define XORI(rd, rs1, imm)   rv_i(imm, rs1, 4, rd, 0x13)
#define ORI(rd, rs1, imm)    rv_i(imm, rs1, 6, rd, 0x13)
#define ANDI(rd, rs1, imm)   rv_i(imm, rs1, 7, rd, 0x13)
#define SLLI(rd, rs1, sh)    rv_r(0x00, sh, rs1, 1, rd, 0x13)
#define SRLI(rd, rs1, sh)    rv_r(0x00, sh, rs1, 5, rd, 0x13)
#define SRAI(rd, rs1, sh)    rv_r(0x20, sh, rs1, 5, rd, 0x13)
#define ADD(rd, a, b)        rv_r(0x00, b, a, 0, rd, 0x33)
#define SUB(rd, a, b)        rv_r(0x20, b, a, 0, rd, 0x33)
#define SLL(rd, a, b)        rv_r(0x00, b, a, 1, rd, 0x33)
#define SLT(rd, a, b)        rv_r(0x00, b, a, 2, rd, 0x33)
#define SLTU(rd, a, b)       rv_r(0x00, b, a, 3, rd, 0x33)
#define XOR(rd, a, b)        rv_r(0x00, b, a, 4, rd, 0x33)
#define SRL(rd, a, b)        rv_r(0x00, b, a, 5, rd, 0x33)
#define SRA(rd, a, b)        rv_r(0x20, b, a, 5, rd, 0x33)
#define OR(rd, a, b)         rv_r(0x00, b, a, 6, rd, 0x33)
#define AND(rd, a, b)        rv_r(0x00, b, a, 7, rd, 0x33)
#define FENCE()              0x0ff0000fu
#define FENCE_I()            0x0000100fu
#define ECALL()              0x00000073u
#define EBREAK()             0x00100073u
#define MRET()               0x30200073u
#define NOP()                ADDI(0, 0, 0)
/* Zicsr */
#define CSRRW(rd, csr, rs1)  rv_i((int32_t)(csr), rs1, 1, rd, 0x73)
#define CSRRS(rd, csr, rs1)  rv_i((int32_t)(csr), rs1, 2, rd, 0x73)
#define CSRRC(rd, csr, rs1)  rv_i((int32_t)(csr), rs1, 3, rd, 0x73)
#define CSRRWI(rd, csr, z)   rv_i((int32_t)(csr), z, 5, rd, 0x73)
#define CSRRSI(rd, csr, z)   rv_i((int32_t)(csr), z, 6, rd, 0x73)
#define CSRRCI(rd, csr, z)   rv_i((int32_t)(csr), z, 7, rd, 0x73)
/* M */
#define MUL(rd, a, b)        rv_r(0x01, b, a, 0, rd, 0x33)
#define MULH(rd, a, b)       rv_r(0x01, b, a, 1, rd, 0x33)
#define MULHSU(rd, a, b)     rv_r(0x01, b, a, 2, rd, 0x33)
#define MULHU(rd, a, b)      rv_r(0x01, b, a, 3, rd, 0x33)
#define DIV(rd, a, b)        rv_r(0x01, b, a, 4, rd, 0x33)
#define DIVU(rd, a, b)       rv_r(0x01, b, a, 5, rd, 0x33)
#define REM(rd, a, b)        rv_r(0x01, b, a, 6, rd, 0x33)
#define REMU(rd, a, b)       rv_r(0x01, b, a, 7, rd, 0x33)
/* Zicond */
#define CZERO_EQZ(rd, a, b)  rv_r(0x07, b, a, 5, rd, 0x33)
#define CZERO_NEZ(rd, a, b)  rv_r(0x07, b, a, 7, rd, 0x33)
/* A: funct5 << 2 | aq << 1 | rl */
#define AMO(f5, rd, rs2, rs1) rv_r((f5) << 2, rs2, rs1, 2, rd, 0x2f)
#define LR_W(rd, rs1)        AMO(0x02, rd, 0, rs1)
#define SC_W(rd, rs2, rs1)   AMO(0x03, rd, rs2, rs1)
#define AMOSWAP_W(rd, v, a)  AMO(0x01, rd, v, a)
#define AMOADD_W(rd, v, a)   AMO(0x00, rd, v, a)
#define AMOXOR_W(rd, v, a)   AMO(0x04, rd, v, a)
#define AMOAND_W(rd, v, a)   AMO(0x0c, rd, v, a)
#define AMOOR_W(rd, v, a)    AMO(0x08, rd, v, a)
#define AMOMIN_W(rd, v, a)   AMO(0x10, rd, v, a)
#define AMOMAX_W(rd, v, a)   AMO(0x14, rd, v, a)
#define AMOMINU_W(rd, v, a)  AMO(0x18, rd, v, a)
#define AMOMAXU_W(rd, v, a)  AMO(0x1c, rd, v, a)
/* F (single) */
#define RM_RNE 0
#define RM_RTZ 1
#define RM_RDN 2
#define RM_RUP 3
#define RM_RMM 4
#define RM_DYN 7
#define FLW(fd, imm, rs1)    rv_i(imm, rs1, 2, fd, 0x07)
#define FSW(fs2, imm, rs1)   rv_s(imm, fs2, rs1, 2, 0x27)
#define FMADD_S(d, a, b, c, rm)  rv_r4(c, b, a, rm, d, 0x43)
#define FMSUB_S(d, a, b, c, rm)  rv_r4(c, b, a, rm, d, 0x47)
#define FNMSUB_S(d, a, b, c, rm) rv_r4(c, b, a, rm, d, 0x4b)
#define FNMADD_S(d, a, b, c, rm) rv_r4(c, b, a, rm, d, 0x4f)
#define FADD_S(d, a, b, rm)  rv_r(0x00, b, a, rm, d, 0x53)
#define FSUB_S(d, a, b, rm)  rv_r(0x04, b, a, rm, d, 0x53)
#define FMUL_S(d, a, b, rm)  rv_r(0x08, b, a, rm, d, 0x53)
#define FDIV_S(d, a, b, rm)  rv_r(0x0c, b, a, rm, d, 0x53)
#define FSQRT_S(d, a, rm)    rv_r(0x2c, 0, a, rm, d, 0x53)
#define FSGNJ_S(d, a, b)     rv_r(0x10, b, a, 0, d, 0x53)
#define FSGNJN_S(d, a, b)    rv_r(0x10, b, a, 1, d, 0x53)
#define FSGNJX_S(d, a, b)    rv_r(0x10, b, a, 2, d, 0x53)
#define FMIN_S(d, a, b)      rv_r(0x14, b, a, 0, d, 0x53)
#define FMAX_S(d, a, b)      rv_r(0x14, b, a, 1, d, 0x53)
#define FCVT_W_S(rd, fa, rm)   rv_r(0x60, 0, fa, rm, rd, 0x53)
#define FCVT_WU_S(rd, fa, rm)  rv_r(0x60, 1, fa, rm, rd, 0x53)
#define FMV_X_W(rd, fa)      rv_r(0x70, 0, fa, 0, rd, 0x53)
#define FEQ_S(rd, a, b)      rv_r(0x50, b, a, 2, rd, 0x53)
#define FLT_S(rd, a, b)      rv_r(0x50, b, a, 1, rd, 0x53)
#define FLE_S(rd, a, b)      rv_r(0x50, b, a, 0, rd, 0x53)
#define FCLASS_S(rd, fa)     rv_r(0x70, 0, fa, 1, rd, 0x53)
#define FCVT_S_W(fd, ra, rm)   rv_r(0x68, 0, ra, rm, fd, 0x53)
#define FCVT_S_WU(fd, ra, rm)  rv_r(0x68, 1, ra, rm, fd, 0x53)
#define FMV_W_X(fd, ra)      rv_r(0x78, 0, ra, 0, fd, 0x53)
/* Vortex custom-0 */
#define VX_TMC(rs1)          rv_r(0, 0, rs1, 0, 0, 0x0b)
#define VX_WSPAWN(n, pc)     rv_r(0, pc, n, 1, 0, 0x0b)
#define VX_SPLIT(rd, p)      rv_r(0, 0, p, 2, rd, 0x0b)
#define VX_SPLIT_N(rd, p)    rv_r(0, 1, p, 2, rd, 0x0b)
#define VX_JOIN(tok)         rv_r(0, 0, tok, 3, 0, 0x0b)
#define VX_BAR(id, cnt)      rv_r(0, cnt, id, 4, 0, 0x0b)
#define VX_PRED(c, m)        rv_r(0, m, c, 5, 0, 0x0b)
#define VX_PRED_N(c, m)      rv_r(0, m, c, 5, 1, 0x0b)
#define VX_VOTE_ALL(rd, p)   rv_r(1, 0, p, 0, rd, 0x0b)
#define VX_VOTE_ANY(rd, p)   rv_r(1, 0, p, 1, rd, 0x0b)
#define VX_VOTE_UNI(rd, p)   rv_r(1, 0, p, 2, rd, 0x0b)
#define VX_VOTE_BAL(rd, p)   rv_r(1, 0, p, 3, rd, 0x0b)
#define VX_SHFL_UP(rd, v, c)   rv_r(1, c, v, 4, rd, 0x0b)
#define VX_SHFL_DOWN(rd, v, c) rv_r(1, c, v, 5, rd, 0x0b)
#define VX_SHFL_BFLY(rd, v, c) rv_r(1, c, v, 6, rd, 0x0b)
#define VX_SHFL_IDX(rd, v, c)  rv_r(1, c, v, 7, rd, 0x0b)

/* clang-format on */

/* Load a 32-bit constant into rd with lui + addi (2 words into out[]). */
static inline void rv_li(uint32_t *out, uint32_t rd, uint32_t v)
{
    uint32_t lo = v & 0xfff, hi = (v >> 12) + (lo >> 11);
    out[0] = LUI(rd, hi & 0xfffff);
    out[1] = ADDI(rd, rd, (int32_t)(lo << 20) >> 20);
}

#endif /* VX_RVENC_H */
