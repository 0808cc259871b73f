/*
 * vx_isa.h - the instruction set: opcodes, decoded instructions, the decoder
 * and the disassembler.  Everything here is generated from sim/vx_isa.def.
 *
 * Decoding never fails: a word that matches no row decodes to VX_OP_INVALID
 * (an illegal instruction).  Decoded instructions are plain data.
 *
 * Disassembly: vx_disasm() renders standard instructions with capstone 5
 * (RISCV32) and the Vortex custom-0 group with our own table, e.g.
 * "vx_split a0, a1", "vx_tmc a0", "vx_shfl.up a0, a1, a2".  Words that neither
 * decodes come out as ".word 0x%08x".  Text outputs follow snprintf: they
 * return the length the full text needs and write at most cap bytes (NUL
 * terminated when cap > 0).
 */
#ifndef VX_ISA_H
#define VX_ISA_H

#include <stddef.h>
#include <stdint.h>
#include "vx_err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Operand formats (how the fields of a row are read and printed). */
typedef enum vx_isa_fmt {
    VX_FMT_NONE,   /* no operands: ecall, ebreak, mret, fence.i */
    VX_FMT_R,      /* rd, rs1, rs2 */
    VX_FMT_I,      /* rd, rs1, imm */
    VX_FMT_SH,     /* rd, rs1, shamt */
    VX_FMT_LD,     /* rd, imm(rs1) */
    VX_FMT_ST,     /* rs2, imm(rs1) */
    VX_FMT_B,      /* rs1, rs2, offset */
    VX_FMT_U,      /* rd, imm20 (imm holds the value << 12) */
    VX_FMT_J,      /* rd, offset */
    VX_FMT_JR,     /* rd, rs1, imm */
    VX_FMT_FENCE,  /* pred, succ (in imm bits 7:4 and 3:0) */
    VX_FMT_CSR,    /* rd, csr, rs1 (csr in imm) */
    VX_FMT_CSRI,   /* rd, csr, zimm (zimm in rs1) */
    VX_FMT_AMO,    /* rd, rs2, (rs1) */
    VX_FMT_LR,     /* rd, (rs1) */
    VX_FMT_FLD,    /* frd, imm(rs1) */
    VX_FMT_FST,    /* frs2, imm(rs1) */
    VX_FMT_FR,     /* frd, frs1, frs2 [, rm] */
    VX_FMT_FRN,    /* frd, frs1, frs2 */
    VX_FMT_FR1,    /* frd, frs1 [, rm] */
    VX_FMT_FR4,    /* frd, frs1, frs2, frs3 [, rm] */
    VX_FMT_FCMP,   /* rd, frs1, frs2 */
    VX_FMT_F2X,    /* rd, frs1 [, rm] */
    VX_FMT_F2XN,   /* rd, frs1 */
    VX_FMT_X2F,    /* frd, rs1 [, rm] */
    VX_FMT_X2FN,   /* frd, rs1 */
    VX_FMT_VX_S,   /* custom: rs1 */
    VX_FMT_VX_SS,  /* custom: rs1, rs2 */
    VX_FMT_VX_DS,  /* custom: rd, rs1 */
    VX_FMT_VX_DSS, /* custom: rd, rs1, rs2 */
    VX_FMT_COUNT
} vx_isa_fmt;

/* Row flags. */
#define VX_IF_WRD    0x0001u /* writes integer rd */
#define VX_IF_WFD    0x0002u /* writes float rd */
#define VX_IF_BRANCH 0x0004u /* control transfer (branches, jal, jalr, mret) */
#define VX_IF_LOAD   0x0008u /* reads memory */
#define VX_IF_STORE  0x0010u /* writes memory */
#define VX_IF_CSR    0x0020u /* CSR access */
#define VX_IF_FP     0x0040u /* F extension */
#define VX_IF_RM     0x0080u /* has a rounding-mode field (funct3) */
#define VX_IF_PCREL  0x0100u /* reads the PC (auipc) */
#define VX_IF_SYSTEM 0x0200u /* ecall, ebreak, mret */
#define VX_IF_CUSTOM 0x0400u /* Vortex custom-0 group */
#define VX_IF_WARP   0x0800u /* custom-0 warp control (tmc, wspawn, split, join, bar, pred) */

typedef enum vx_op {
    VX_OP_INVALID = 0,
#define X(name, mn, match, mask, fmt, flags) VX_OP_##name,
#include "vx_isa.def"
#undef X
    VX_OP_COUNT
} vx_op;

/* One row of the table. */
typedef struct vx_isa_row {
    const char *name;     /* "ADD" */
    const char *mnemonic; /* "add" */
    uint32_t match, mask;
    uint8_t fmt;    /* vx_isa_fmt */
    uint16_t flags; /* VX_IF_* */
} vx_isa_row;

/* Row of op (op in 1..VX_OP_COUNT-1); NULL for VX_OP_INVALID or out of range. */
const vx_isa_row *vx_isa_row_get(unsigned op);

/*
 * A decoded instruction.  Fields that the format does not use are zero.
 *   imm: sign-extended immediate (I, S, B, J offsets), the U value (already << 12),
 *        the CSR number (CSR/CSRI), shamt (SH), fence pred<<4|succ (FENCE).
 *   rm:  funct3 (the rounding mode for VX_IF_RM rows; aq<<1|rl for AMO/LR).
 */
typedef struct vx_insn {
    uint16_t op; /* vx_op */
    uint8_t rd, rs1, rs2, rs3;
    uint8_t rm;
    uint8_t
        wrd; /* destination row in the simulator's integer file: rd, or 32 (a sink) when rd == x0 */
    int32_t imm;
    uint32_t raw;
} vx_insn;

/* Decode a word (never fails; unknown words give op = VX_OP_INVALID). */
void vx_isa_decode(uint32_t raw, vx_insn *out);

/* Shorthand: the op of a word. */
vx_op vx_isa_op(uint32_t raw);

/* ABI register names ("zero", "ra", ..., "t6") and float names ("ft0", ..., "ft11"). */
const char *vx_isa_xreg_name(unsigned r);
const char *vx_isa_freg_name(unsigned r);

/* Name of a CSR known to the simulator ("mscratch", "vx_thread_id", ...), or NULL. */
const char *vx_isa_csr_name(uint32_t csr);

/* ---- disassembly ---------------------------------------------------------------------------- */

/* Disassemble one word at pc.  See the top of the file for the conventions. */
size_t vx_disasm(uint32_t pc, uint32_t insn, char *buf, size_t cap);

/*
 * Render with our own table only (no capstone): "mnemonic op, op, ..." in
 * capstone's style (ABI names, offset(base), relative branch offsets, the
 * rounding mode only when not dynamic, CSR names).  Used for custom-0, for
 * rows capstone 5 does not know (Zicond) and by the tests that check capstone
 * and the table agree.  Undecodable words give ".word 0x%08x".
 */
size_t vx_disasm_table(uint32_t pc, uint32_t insn, char *buf, size_t cap);

/*
 * A disassembler handle keeps one capstone instance open (vx_disasm opens one
 * per call, which is fine for a few words but slow for long listings).
 */
typedef struct vx_disasm_ctx vx_disasm_ctx;
vx_err vx_disasm_new(vx_disasm_ctx **out);
void vx_disasm_free(vx_disasm_ctx *d);
size_t vx_disasm_ctx_insn(vx_disasm_ctx *d, uint32_t pc, uint32_t insn, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* VX_ISA_H */
