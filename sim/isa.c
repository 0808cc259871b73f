/*
 * isa.c - the descriptor table and the decoder, generated from vx_isa.def.
 *
 * The decoder scans the rows for (raw & mask) == match, comparing the major
 * opcode (bits 6:0) first.  A linear scan of ~130 rows is fine because the
 * simulator keeps a per-PC cache of decoded instructions in front of it
 * (exec.c), and it needs no initialisation and no global mutable state.
 */
#include "vx_isa.h"

/* clang-format off */
static const vx_isa_row rows[VX_OP_COUNT] = {
    [VX_OP_INVALID] = {"INVALID", "invalid", 0, 0, VX_FMT_NONE, 0},
#define X(name, mn, match, mask, fmt, flags) \
    [VX_OP_##name] = {#name, mn, match, mask, VX_FMT_##fmt, flags},
#include "vx_isa.def"
#undef X
};

/* clang-format on */

const vx_isa_row *vx_isa_row_get(unsigned op)
{
    if (op == VX_OP_INVALID || op >= VX_OP_COUNT) return NULL;
    return &rows[op];
}

static unsigned char opcode_of(uint32_t match)
{
    return (unsigned char)(match & 0x7f);
}

vx_op vx_isa_op(uint32_t raw)
{
    unsigned char opc = (unsigned char)(raw & 0x7f);
    for (unsigned op = 1; op < VX_OP_COUNT; op++) {
        if (opcode_of(rows[op].match) != opc) continue;
        if ((raw & rows[op].mask) == rows[op].match) return (vx_op)op;
    }
    return VX_OP_INVALID;
}

static int32_t imm_i(uint32_t raw)
{
    return (int32_t)raw >> 20;
}

static int32_t imm_s(uint32_t raw)
{
    return (int32_t)(((int32_t)(raw & 0xfe000000u) >> 20) | (int32_t)((raw >> 7) & 0x1f));
}

static int32_t imm_b(uint32_t raw)
{
    uint32_t v = ((raw >> 31) & 1) << 12 | ((raw >> 7) & 1) << 11 | ((raw >> 25) & 0x3f) << 5 |
                 ((raw >> 8) & 0xf) << 1;
    return (int32_t)(v << 19) >> 19;
}

static int32_t imm_j(uint32_t raw)
{
    uint32_t v = ((raw >> 31) & 1) << 20 | ((raw >> 12) & 0xff) << 12 | ((raw >> 20) & 1) << 11 |
                 ((raw >> 21) & 0x3ff) << 1;
    return (int32_t)(v << 11) >> 11;
}

void vx_isa_decode(uint32_t raw, vx_insn *out)
{
    vx_insn d = {0};
    d.raw = raw;
    d.wrd = 32;
    d.op = (uint16_t)vx_isa_op(raw);
    if (d.op == VX_OP_INVALID) {
        *out = d;
        return;
    }
    const vx_isa_row *r = &rows[d.op];
    uint8_t rd = (uint8_t)((raw >> 7) & 31), rs1 = (uint8_t)((raw >> 15) & 31),
            rs2 = (uint8_t)((raw >> 20) & 31), f3 = (uint8_t)((raw >> 12) & 7);
    switch ((vx_isa_fmt)r->fmt) {
    case VX_FMT_NONE: break;
    case VX_FMT_R:
    case VX_FMT_FR:
    case VX_FMT_FRN:
    case VX_FMT_FCMP:
    case VX_FMT_VX_DSS: d.rd = rd, d.rs1 = rs1, d.rs2 = rs2; break;
    case VX_FMT_I:
    case VX_FMT_LD:
    case VX_FMT_FLD:
    case VX_FMT_JR: d.rd = rd, d.rs1 = rs1, d.imm = imm_i(raw); break;
    case VX_FMT_SH: d.rd = rd, d.rs1 = rs1, d.imm = rs2; break;
    case VX_FMT_ST:
    case VX_FMT_FST: d.rs1 = rs1, d.rs2 = rs2, d.imm = imm_s(raw); break;
    case VX_FMT_B: d.rs1 = rs1, d.rs2 = rs2, d.imm = imm_b(raw); break;
    case VX_FMT_U: d.rd = rd, d.imm = (int32_t)(raw & 0xfffff000u); break;
    case VX_FMT_J: d.rd = rd, d.imm = imm_j(raw); break;
    case VX_FMT_FENCE: d.imm = (int32_t)(raw >> 20); break;
    case VX_FMT_CSR:
    case VX_FMT_CSRI: d.rd = rd, d.rs1 = rs1, d.imm = (int32_t)(raw >> 20); break;
    case VX_FMT_AMO: d.rd = rd, d.rs1 = rs1, d.rs2 = rs2, d.rm = (uint8_t)((raw >> 25) & 3); break;
    case VX_FMT_LR: d.rd = rd, d.rs1 = rs1, d.rm = (uint8_t)((raw >> 25) & 3); break;
    case VX_FMT_FR1:
    case VX_FMT_F2X:
    case VX_FMT_F2XN:
    case VX_FMT_X2F:
    case VX_FMT_X2FN:
    case VX_FMT_VX_DS: d.rd = rd, d.rs1 = rs1; break;
    case VX_FMT_FR4: d.rd = rd, d.rs1 = rs1, d.rs2 = rs2, d.rs3 = (uint8_t)(raw >> 27); break;
    case VX_FMT_VX_S: d.rs1 = rs1; break;
    case VX_FMT_VX_SS: d.rs1 = rs1, d.rs2 = rs2; break;
    case VX_FMT_COUNT: break;
    }
    if (r->flags & VX_IF_RM) d.rm = f3;
    if ((r->flags & VX_IF_WRD) && d.rd != 0) d.wrd = d.rd;
    *out = d;
}

static const char *const xnames[32] = {
    "zero", "ra", "sp", "gp", "tp",  "t0",  "t1", "t2", "s0", "s1", "a0",
    "a1",   "a2", "a3", "a4", "a5",  "a6",  "a7", "s2", "s3", "s4", "s5",
    "s6",   "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
};

static const char *const fnames[32] = {
    "ft0", "ft1", "ft2", "ft3", "ft4",  "ft5",  "ft6", "ft7", "fs0",  "fs1",  "fa0",
    "fa1", "fa2", "fa3", "fa4", "fa5",  "fa6",  "fa7", "fs2", "fs3",  "fs4",  "fs5",
    "fs6", "fs7", "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11",
};

const char *vx_isa_xreg_name(unsigned r)
{
    return r < 32 ? xnames[r] : "?";
}

const char *vx_isa_freg_name(unsigned r)
{
    return r < 32 ? fnames[r] : "?";
}

const char *vx_isa_csr_name(uint32_t csr)
{
    static const char *const pmpaddr[16] = {
        "pmpaddr0",  "pmpaddr1",  "pmpaddr2",  "pmpaddr3",  "pmpaddr4",  "pmpaddr5",
        "pmpaddr6",  "pmpaddr7",  "pmpaddr8",  "pmpaddr9",  "pmpaddr10", "pmpaddr11",
        "pmpaddr12", "pmpaddr13", "pmpaddr14", "pmpaddr15",
    };
    static const char *const pmpcfg[4] = {"pmpcfg0", "pmpcfg1", "pmpcfg2", "pmpcfg3"};
    static const char *const dscratch[4] = {"dscratch0", "dscratch1", "dscratch2", "dscratch3"};
    static const char *const hpm[29] = {
        "mhpmcounter3",  "mhpmcounter4",  "mhpmcounter5",  "mhpmcounter6",  "mhpmcounter7",
        "mhpmcounter8",  "mhpmcounter9",  "mhpmcounter10", "mhpmcounter11", "mhpmcounter12",
        "mhpmcounter13", "mhpmcounter14", "mhpmcounter15", "mhpmcounter16", "mhpmcounter17",
        "mhpmcounter18", "mhpmcounter19", "mhpmcounter20", "mhpmcounter21", "mhpmcounter22",
        "mhpmcounter23", "mhpmcounter24", "mhpmcounter25", "mhpmcounter26", "mhpmcounter27",
        "mhpmcounter28", "mhpmcounter29", "mhpmcounter30", "mhpmcounter31"};
    static const char *const hpmh[29] = {
        "mhpmcounter3h",  "mhpmcounter4h",  "mhpmcounter5h",  "mhpmcounter6h",  "mhpmcounter7h",
        "mhpmcounter8h",  "mhpmcounter9h",  "mhpmcounter10h", "mhpmcounter11h", "mhpmcounter12h",
        "mhpmcounter13h", "mhpmcounter14h", "mhpmcounter15h", "mhpmcounter16h", "mhpmcounter17h",
        "mhpmcounter18h", "mhpmcounter19h", "mhpmcounter20h", "mhpmcounter21h", "mhpmcounter22h",
        "mhpmcounter23h", "mhpmcounter24h", "mhpmcounter25h", "mhpmcounter26h", "mhpmcounter27h",
        "mhpmcounter28h", "mhpmcounter29h", "mhpmcounter30h", "mhpmcounter31h"};
    if (csr >= 0x3B0 && csr <= 0x3BF) return pmpaddr[csr - 0x3B0];
    if (csr >= 0x3A0 && csr <= 0x3A3) return pmpcfg[csr - 0x3A0];
    if (csr >= 0x7B2 && csr <= 0x7B5) return dscratch[csr - 0x7B2];
    if (csr >= 0xB03 && csr <= 0xB1F) return hpm[csr - 0xB03];
    if (csr >= 0xB83 && csr <= 0xB9F) return hpmh[csr - 0xB83];
    switch (csr) {
    case 0x001: return "fflags";
    case 0x002: return "frm";
    case 0x003: return "fcsr";
    case 0x180: return "satp";
    case 0x300: return "mstatus";
    case 0x301: return "misa";
    case 0x302: return "medeleg";
    case 0x303: return "mideleg";
    case 0x304: return "mie";
    case 0x305: return "mtvec";
    case 0x340: return "mscratch";
    case 0x341: return "mepc";
    case 0x342: return "mcause";
    case 0x343: return "mtval";
    case 0x344: return "mip";
    case 0x744: return "mnstatus";
    case 0xB00: return "mcycle";
    case 0xB02: return "minstret";
    case 0xB80: return "mcycleh";
    case 0xB82: return "minstreth";
    case 0xF11: return "mvendorid";
    case 0xF12: return "marchid";
    case 0xF13: return "mimpid";
    case 0xF14: return "mhartid";
    case 0xCC0: return "vx_thread_id";
    case 0xCC1: return "vx_warp_id";
    case 0xCC2: return "vx_core_id";
    case 0xCC3: return "vx_active_warps";
    case 0xCC4: return "vx_active_threads";
    case 0xFC0: return "vx_num_threads";
    case 0xFC1: return "vx_num_warps";
    case 0xFC2: return "vx_num_cores";
    case 0xFC3: return "vx_local_mem_base";
    default: return NULL;
    }
}
