/*
 * disasm.c - disassembly: capstone 5 for standard RISC-V instructions, our own
 * table (vx_isa.def) for the Vortex custom-0 group, for rows capstone does not
 * know (Zicond) and for CSR instructions (so that the Vortex CSRs get names).
 *
 * The table renderer imitates capstone's style so listings look uniform: ABI
 * register names, "offset(base)" for loads and stores, "(base)" for atomics,
 * branch and jump offsets relative to the PC, immediates in decimal when
 * |v| <= 9 and in hex otherwise, the rounding mode only when it is static.
 */
#include <capstone/capstone.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vx_isa.h"

struct vx_disasm_ctx {
    csh h;
    bool ok;
};

/* An append-only text buffer with snprintf semantics. */
typedef struct tbuf {
    char *buf;
    size_t cap, len;
} tbuf;

__attribute__((format(printf, 2, 3))) static void put(tbuf *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = t->len < t->cap ? t->cap - t->len : 0;
    int n = vsnprintf(room ? t->buf + t->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0) t->len += (size_t)n;
}

static void put_imm(tbuf *t, int64_t v)
{
    if (v > 9)
        put(t, "0x%llx", (unsigned long long)v);
    else if (v < -9)
        put(t, "-0x%llx", (unsigned long long)-v);
    else
        put(t, "%lld", (long long)v);
}

static void put_csr(tbuf *t, uint32_t csr)
{
    const char *n = vx_isa_csr_name(csr);
    if (n)
        put(t, "%s", n);
    else
        put(t, "0x%x", csr);
}

static const char *rm_name(unsigned rm)
{
    static const char *const names[8] = {"rne", "rtz", "rdn", "rup", "rmm", "rm5", "rm6", "dyn"};
    return names[rm & 7];
}

static void put_rm(tbuf *t, unsigned rm)
{
    if (rm != 7) put(t, ", %s", rm_name(rm));
}

static void put_fence_set(tbuf *t, unsigned set)
{
    static const char letters[4] = {'i', 'o', 'r', 'w'};
    for (int b = 3; b >= 0; b--)
        if (set & (1u << b)) put(t, "%c", letters[3 - b]);
    if (!set) put(t, "0");
}

#define XN(r) vx_isa_xreg_name(r)
#define FN(r) vx_isa_freg_name(r)

/* The table renderer.  aliases: csrr/csrw/... forms as capstone prints them. */
static size_t render(uint32_t pc, uint32_t raw, bool aliases, char *buf, size_t cap)
{
    (void)pc;
    tbuf t = {buf, cap, 0};
    if (cap) buf[0] = 0;
    vx_insn d;
    vx_isa_decode(raw, &d);
    const vx_isa_row *r = vx_isa_row_get(d.op);
    if (!r) {
        put(&t, ".word 0x%08x", raw);
        return t.len;
    }
    const char *mn = r->mnemonic;
    uint32_t csr = (uint32_t)d.imm & 0xfff;
    if (aliases && (r->flags & VX_IF_CSR)) {
        bool imm = r->fmt == VX_FMT_CSRI;
        if (d.op == VX_OP_CSRRS && d.rs1 == 0) {
            put(&t, "csrr %s, ", XN(d.rd));
            put_csr(&t, csr);
            return t.len;
        }
        if (d.rd == 0) {
            const char *a = d.op == VX_OP_CSRRW    ? "csrw"
                            : d.op == VX_OP_CSRRS  ? "csrs"
                            : d.op == VX_OP_CSRRC  ? "csrc"
                            : d.op == VX_OP_CSRRWI ? "csrwi"
                            : d.op == VX_OP_CSRRSI ? "csrsi"
                                                   : "csrci";
            put(&t, "%s ", a);
            put_csr(&t, csr);
            if (imm) {
                put(&t, ", ");
                put_imm(&t, d.rs1);
            } else {
                put(&t, ", %s", XN(d.rs1));
            }
            return t.len;
        }
    }
    if (r->fmt == VX_FMT_AMO || r->fmt == VX_FMT_LR) {
        static const char *const sfx[4] = {"", ".rl", ".aq", ".aqrl"};
        put(&t, "%s%s", mn, sfx[d.rm & 3]);
    } else if (d.op == VX_OP_FENCE && ((raw >> 28) == 8) && ((raw >> 20) & 0xff) == 0x33) {
        put(&t, "fence.tso");
        return t.len;
    } else {
        put(&t, "%s", mn);
    }
    switch ((vx_isa_fmt)r->fmt) {
    case VX_FMT_NONE: break;
    case VX_FMT_R: put(&t, " %s, %s, %s", XN(d.rd), XN(d.rs1), XN(d.rs2)); break;
    case VX_FMT_I:
    case VX_FMT_SH:
    case VX_FMT_JR:
        put(&t, " %s, %s, ", XN(d.rd), XN(d.rs1));
        put_imm(&t, d.imm);
        break;
    case VX_FMT_LD:
        put(&t, " %s, ", XN(d.rd));
        put_imm(&t, d.imm);
        put(&t, "(%s)", XN(d.rs1));
        break;
    case VX_FMT_ST:
        put(&t, " %s, ", XN(d.rs2));
        put_imm(&t, d.imm);
        put(&t, "(%s)", XN(d.rs1));
        break;
    case VX_FMT_B:
        put(&t, " %s, %s, ", XN(d.rs1), XN(d.rs2));
        put_imm(&t, d.imm);
        break;
    case VX_FMT_U:
        put(&t, " %s, ", XN(d.rd));
        put_imm(&t, (int64_t)((uint32_t)d.imm >> 12));
        break;
    case VX_FMT_J:
        put(&t, " %s, ", XN(d.rd));
        put_imm(&t, d.imm);
        break;
    case VX_FMT_FENCE: {
        unsigned pred = ((unsigned)d.imm >> 4) & 15, succ = (unsigned)d.imm & 15;
        if (pred == 15 && succ == 15) break;
        put(&t, " ");
        put_fence_set(&t, pred);
        put(&t, ", ");
        put_fence_set(&t, succ);
        break;
    }
    case VX_FMT_CSR:
        put(&t, " %s, ", XN(d.rd));
        put_csr(&t, csr);
        put(&t, ", %s", XN(d.rs1));
        break;
    case VX_FMT_CSRI:
        put(&t, " %s, ", XN(d.rd));
        put_csr(&t, csr);
        put(&t, ", ");
        put_imm(&t, d.rs1);
        break;
    case VX_FMT_AMO: put(&t, " %s, %s, (%s)", XN(d.rd), XN(d.rs2), XN(d.rs1)); break;
    case VX_FMT_LR: put(&t, " %s, (%s)", XN(d.rd), XN(d.rs1)); break;
    case VX_FMT_FLD:
        put(&t, " %s, ", FN(d.rd));
        put_imm(&t, d.imm);
        put(&t, "(%s)", XN(d.rs1));
        break;
    case VX_FMT_FST:
        put(&t, " %s, ", FN(d.rs2));
        put_imm(&t, d.imm);
        put(&t, "(%s)", XN(d.rs1));
        break;
    case VX_FMT_FR:
        put(&t, " %s, %s, %s", FN(d.rd), FN(d.rs1), FN(d.rs2));
        put_rm(&t, d.rm);
        break;
    case VX_FMT_FRN: put(&t, " %s, %s, %s", FN(d.rd), FN(d.rs1), FN(d.rs2)); break;
    case VX_FMT_FR1:
        put(&t, " %s, %s", FN(d.rd), FN(d.rs1));
        put_rm(&t, d.rm);
        break;
    case VX_FMT_FR4:
        put(&t, " %s, %s, %s, %s", FN(d.rd), FN(d.rs1), FN(d.rs2), FN(d.rs3));
        put_rm(&t, d.rm);
        break;
    case VX_FMT_FCMP: put(&t, " %s, %s, %s", XN(d.rd), FN(d.rs1), FN(d.rs2)); break;
    case VX_FMT_F2X:
        put(&t, " %s, %s", XN(d.rd), FN(d.rs1));
        put_rm(&t, d.rm);
        break;
    case VX_FMT_F2XN: put(&t, " %s, %s", XN(d.rd), FN(d.rs1)); break;
    case VX_FMT_X2F:
        put(&t, " %s, %s", FN(d.rd), XN(d.rs1));
        put_rm(&t, d.rm);
        break;
    case VX_FMT_X2FN: put(&t, " %s, %s", FN(d.rd), XN(d.rs1)); break;
    case VX_FMT_VX_S: put(&t, " %s", XN(d.rs1)); break;
    case VX_FMT_VX_SS: put(&t, " %s, %s", XN(d.rs1), XN(d.rs2)); break;
    case VX_FMT_VX_DS: put(&t, " %s, %s", XN(d.rd), XN(d.rs1)); break;
    case VX_FMT_VX_DSS: put(&t, " %s, %s, %s", XN(d.rd), XN(d.rs1), XN(d.rs2)); break;
    case VX_FMT_COUNT: break;
    }
    return t.len;
}

size_t vx_disasm_table(uint32_t pc, uint32_t insn, char *buf, size_t cap)
{
    return render(pc, insn, false, buf, cap);
}

vx_err vx_disasm_new(vx_disasm_ctx **out)
{
    vx_disasm_ctx *d = calloc(1, sizeof *d);
    if (!d) return VX_ERR_NOMEM;
    /* Without capstone the table renders everything; that is not an error. */
    d->ok = cs_open(CS_ARCH_RISCV, CS_MODE_RISCV32, &d->h) == CS_ERR_OK;
    *out = d;
    return VX_OK;
}

void vx_disasm_free(vx_disasm_ctx *d)
{
    if (!d) return;
    if (d->ok) cs_close(&d->h);
    free(d);
}

size_t vx_disasm_ctx_insn(vx_disasm_ctx *d, uint32_t pc, uint32_t insn, char *buf, size_t cap)
{
    vx_insn di;
    vx_isa_decode(insn, &di);
    const vx_isa_row *r = vx_isa_row_get(di.op);
    if (!r || (r->flags & (VX_IF_CUSTOM | VX_IF_CSR)) || !d || !d->ok)
        return render(pc, insn, true, buf, cap);
    uint8_t bytes[4];
    bytes[0] = (uint8_t)insn;
    bytes[1] = (uint8_t)(insn >> 8);
    bytes[2] = (uint8_t)(insn >> 16);
    bytes[3] = (uint8_t)(insn >> 24);
    cs_insn *ci = NULL;
    size_t n = cs_disasm(d->h, bytes, 4, pc, 1, &ci);
    if (n != 1) {
        if (ci) cs_free(ci, n);
        return render(pc, insn, true, buf, cap);
    }
    int len = ci[0].op_str[0] ? snprintf(buf, cap, "%s %s", ci[0].mnemonic, ci[0].op_str)
                              : snprintf(buf, cap, "%s", ci[0].mnemonic);
    cs_free(ci, n);
    return len > 0 ? (size_t)len : 0;
}

size_t vx_disasm(uint32_t pc, uint32_t insn, char *buf, size_t cap)
{
    vx_insn di;
    vx_isa_decode(insn, &di);
    const vx_isa_row *r = vx_isa_row_get(di.op);
    if (!r || (r->flags & (VX_IF_CUSTOM | VX_IF_CSR))) return render(pc, insn, true, buf, cap);
    vx_disasm_ctx *d = NULL;
    if (vx_disasm_new(&d)) return render(pc, insn, true, buf, cap);
    size_t n = vx_disasm_ctx_insn(d, pc, insn, buf, cap);
    vx_disasm_free(d);
    return n;
}
