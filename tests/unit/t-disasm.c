/*
 * t-disasm.c - the disassembler: our rendering of every custom-0 row, and for
 * every standard row an independent check that capstone 5 and our table
 * renderer agree on mnemonic and operands (numbers compared by value), using
 * operands that avoid capstone's aliases (mv, li, nop, j, csrr, fmv.s, ...).
 */
#include <capstone/capstone.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "vx_isa.h"

/* A representative word for a row: a0/a1/a2/a3 registers, immediates that no alias uses. */
static uint32_t sample(const vx_isa_row *r)
{
    uint32_t w = r->match;
    uint32_t rd = 10u << 7, rs1 = 11u << 15, rs2 = 12u << 20, rs3 = 13u << 27;
    switch ((vx_isa_fmt)r->fmt) {
    case VX_FMT_NONE: return w;
    case VX_FMT_R:
    case VX_FMT_FR:
    case VX_FMT_FRN:
    case VX_FMT_FCMP:
    case VX_FMT_VX_DSS: w |= rd | rs1 | rs2; break;
    case VX_FMT_I:
    case VX_FMT_LD:
    case VX_FMT_FLD:
    case VX_FMT_JR: w |= rd | rs1 | (36u << 20); break;
    case VX_FMT_SH: w |= rd | rs1 | (3u << 20); break;
    case VX_FMT_ST:
    case VX_FMT_FST: w |= rs1 | rs2 | (1u << 25) | (4u << 7); break; /* imm 36 */
    case VX_FMT_B: w |= rs1 | rs2 | (8u << 8); break;                /* +16 */
    case VX_FMT_U: w |= rd | (0x12u << 12); break;
    case VX_FMT_J: w |= rd | (8u << 21); break; /* +16 */
    case VX_FMT_FENCE: w |= 0x33u << 20; break; /* rw, rw */
    case VX_FMT_CSR: w |= rd | rs1 | (0x340u << 20); break;
    case VX_FMT_CSRI: w |= rd | (5u << 15) | (0x340u << 20); break;
    case VX_FMT_AMO: w |= rd | rs1 | rs2; break;
    case VX_FMT_LR: w |= rd | rs1; break;
    case VX_FMT_FR1:
    case VX_FMT_F2X:
    case VX_FMT_F2XN:
    case VX_FMT_X2F:
    case VX_FMT_X2FN:
    case VX_FMT_VX_DS: w |= rd | rs1; break;
    case VX_FMT_FR4: w |= rd | rs1 | rs2 | rs3; break;
    case VX_FMT_VX_S: w |= rs1; break;
    case VX_FMT_VX_SS: w |= rs1 | rs2; break;
    case VX_FMT_COUNT: break;
    }
    if (r->flags & VX_IF_RM) w = (w & ~(7u << 12)) | (1u << 12); /* rtz: printed by both */
    return w;
}

/* Normalise "mn a, 0x24(b)" into "mn|a|36|b" (numbers by value). */
static void normalise(const char *in, char *out, size_t cap)
{
    size_t o = 0;
    const char *p = in;
    while (*p && o + 24 < cap) {
        while (*p == ' ' || *p == ',' || *p == '(' || *p == ')')
            p++;
        if (!*p) break;
        const char *q = p;
        while (*q && *q != ' ' && *q != ',' && *q != '(' && *q != ')')
            q++;
        char tok[48];
        size_t n = (size_t)(q - p) < sizeof tok - 1 ? (size_t)(q - p) : sizeof tok - 1;
        memcpy(tok, p, n);
        tok[n] = 0;
        char *end;
        long v = strtol(tok, &end, 0);
        if (o) out[o++] = '|';
        if (*tok && (isdigit((unsigned char)tok[0]) || tok[0] == '-') && !*end)
            o += (size_t)snprintf(out + o, cap - o, "%ld", v);
        else
            o += (size_t)snprintf(out + o, cap - o, "%s", tok);
        p = q;
    }
    out[o] = 0;
}

static void test_custom(void)
{
    static const struct {
        uint32_t w;
        const char *want;
    } c[] = {
        {0x0005000bu, "vx_tmc a0"},
        {0x00b5100bu, "vx_wspawn a0, a1"},
        {0x0005a50bu, "vx_split a0, a1"},
        {0x0015a50bu, "vx_split.n a0, a1"},
        {0x0005300bu, "vx_join a0"},
        {0x00b5400bu, "vx_bar a0, a1"},
        {0x00b5500bu, "vx_pred a0, a1"},
        {0x00b5508bu, "vx_pred.n a0, a1"},
        {0x0205850bu, "vx_vote.all a0, a1"},
        {0x0205950bu, "vx_vote.any a0, a1"},
        {0x0205a50bu, "vx_vote.uni a0, a1"},
        {0x0205b50bu, "vx_vote.bal a0, a1"},
        {0x02c5c50bu, "vx_shfl.up a0, a1, a2"},
        {0x02c5d50bu, "vx_shfl.down a0, a1, a2"},
        {0x02c5e50bu, "vx_shfl.bfly a0, a1, a2"},
        {0x02c5f50bu, "vx_shfl.idx a0, a1, a2"},
    };

    int seen[VX_OP_COUNT] = {0};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char a[64], b[64];
        vx_disasm(0x80000000u, c[i].w, a, sizeof a);
        vx_disasm_table(0x80000000u, c[i].w, b, sizeof b);
        ok(!strcmp(a, c[i].want) && !strcmp(b, c[i].want), "0x%08x -> '%s' (got '%s')", c[i].w,
           c[i].want, a);
        seen[vx_isa_op(c[i].w)] = 1;
    }
    int missing = 0;
    for (unsigned op = 1; op < VX_OP_COUNT; op++)
        if ((vx_isa_row_get(op)->flags & VX_IF_CUSTOM) && !seen[op]) missing++;
    is_int(missing, 0, "every custom-0 row has a checked rendering");
}

static void test_agree(void)
{
    csh h;
    if (cs_open(CS_ARCH_RISCV, CS_MODE_RISCV32, &h) != CS_ERR_OK) {
        skip(1, "capstone cannot open RISCV32");
        return;
    }
    int bad = 0, checked = 0, unknown = 0, standard = 0;
    for (unsigned op = 1; op < VX_OP_COUNT; op++)
        if (!(vx_isa_row_get(op)->flags & VX_IF_CUSTOM)) standard++;
    for (unsigned op = 1; op < VX_OP_COUNT; op++) {
        const vx_isa_row *r = vx_isa_row_get(op);
        if (r->flags & VX_IF_CUSTOM) continue;
        uint32_t w = sample(r);
        if (vx_isa_op(w) != (vx_op)op) {
            diag("%s: sample 0x%08x does not decode to itself", r->mnemonic, w);
            bad++;
            continue;
        }
        uint8_t bytes[4] = {(uint8_t)w, (uint8_t)(w >> 8), (uint8_t)(w >> 16), (uint8_t)(w >> 24)};
        cs_insn *ci = NULL;
        size_t n = cs_disasm(h, bytes, 4, 0x1000, 1, &ci);
        if (n != 1) {
            /* capstone 5 has no Zicond */
            if (op != VX_OP_CZERO_EQZ && op != VX_OP_CZERO_NEZ) {
                diag("capstone does not decode %s 0x%08x", r->mnemonic, w);
                bad++;
            }
            unknown++;
            continue;
        }
        char cs[256], ours[96], ncs[320], nours[320];
        snprintf(cs, sizeof cs, "%s %s", ci[0].mnemonic, ci[0].op_str);
        cs_free(ci, n);
        vx_disasm_table(0x1000, w, ours, sizeof ours);
        normalise(cs, ncs, sizeof ncs);
        normalise(ours, nours, sizeof nours);
        checked++;
        if (strcmp(ncs, nours)) {
            diag("%s 0x%08x: capstone '%s' vs table '%s'", r->mnemonic, w, cs, ours);
            bad++;
        }
    }
    cs_close(&h);
    ok(bad == 0 && checked == standard - 2,
       "capstone and the table agree on %d of %d standard rows", checked, standard);
    is_int(unknown, 2, "only the two Zicond rows are unknown to capstone 5");
}

static void test_misc(void)
{
    char b[64];
    vx_disasm(0, 0x00000000u, b, sizeof b);
    is_str(b, ".word 0x00000000", "undecodable word");
    vx_disasm(0, 0x0400000bu, b, sizeof b);
    is_str(b, ".word 0x0400000b", "custom-0 funct7=2 is undecodable");
    vx_disasm(0, 0x0e5b5533u, b, sizeof b);
    is_str(b, "czero.eqz a0, s6, t0", "Zicond through the table");
    vx_disasm(0, 0xcc0025f3u, b, sizeof b);
    is_str(b, "csrr a1, vx_thread_id", "Vortex CSR names");
    vx_disasm(0, 0x34051073u, b, sizeof b);
    is_str(b, "csrw mscratch, a0", "csrw alias");
    vx_disasm(0, 0x7b2fd073u, b, sizeof b);
    is_str(b, "csrwi dscratch0, 0x1f", "csrwi alias");
    vx_disasm(0, 0x00b50533u, b, sizeof b);
    is_str(b, "add a0, a0, a1", "capstone path");
    vx_disasm(0x80000000u, 0xfeb51ee3u, b, sizeof b);
    is_str(b, "bne a0, a1, -4", "branch offsets are relative");
    vx_disasm_table(0, 0x0eb5252fu, b, sizeof b);
    is_str(b, "amoswap.w.aqrl a0, a1, (a0)", "aq/rl suffixes");
    vx_disasm_table(0, 0x8330000fu, b, sizeof b);
    is_str(b, "fence.tso", "fence.tso");
    vx_disasm_table(0, 0x00b57553u, b, sizeof b);
    is_str(b, "fadd.s fa0, fa0, fa1", "dynamic rounding is not printed");
    vx_disasm_table(0, 0x00b50553u, b, sizeof b);
    is_str(b, "fadd.s fa0, fa0, fa1, rne", "static rounding is printed");

    char small[8];
    size_t n = vx_disasm(0, 0x02c5c50bu, small, sizeof small);
    ok(n == strlen("vx_shfl.up a0, a1, a2") && !strcmp(small, "vx_shfl"),
       "truncates like snprintf and returns the full length");
    ok(vx_disasm(0, 0x00b50533u, NULL, 0) == strlen("add a0, a0, a1"), "cap 0 only measures");

    vx_disasm_ctx *d = NULL;
    ok(vx_disasm_new(&d) == VX_OK && d, "a disassembler handle");
    vx_disasm_ctx_insn(d, 0, 0x00150513u, b, sizeof b);
    is_str(b, "addi a0, a0, 1", "handle renders like vx_disasm");
    vx_disasm_free(d);
    vx_disasm_free(NULL);
}

int main(void)
{
    test_custom();
    test_agree();
    test_misc();
    tap_done();
    return tap_exit();
}
