/* t-isa.c - properties of the instruction table (sim/vx_isa.def) and the decoder. */
#include <string.h>
#include "tap.h"
#include "vx_isa.h"

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s;
}

int main(void)
{
    /* 1. match & ~mask == 0 for every row; every row decodes to itself. */
    int bad_mask = 0, bad_self = 0, bad_fuzz = 0;
    uint32_t seed = 12345;
    for (unsigned op = 1; op < VX_OP_COUNT; op++) {
        const vx_isa_row *r = vx_isa_row_get(op);
        if (!r) {
            bad_self++;
            continue;
        }
        if (r->match & ~r->mask) {
            diag("%s: match 0x%08x has bits outside mask 0x%08x", r->name, r->match, r->mask);
            bad_mask++;
        }
        if (vx_isa_op(r->match) != (vx_op)op) {
            diag("%s: decodes to %d", r->name, vx_isa_op(r->match));
            bad_self++;
        }
        /* Any value of the don't-care bits must still decode to this row. */
        for (int k = 0; k < 200; k++) {
            uint32_t w = r->match | (lcg(&seed) & ~r->mask);
            if (vx_isa_op(w) != (vx_op)op) {
                diag("%s: 0x%08x decodes to %d", r->name, w, vx_isa_op(w));
                bad_fuzz++;
                break;
            }
        }
    }
    is_int(bad_mask, 0, "match & ~mask == 0 for every row");
    is_int(bad_self, 0, "every row decodes its own match word");
    is_int(bad_fuzz, 0, "don't-care bits do not change the decoded row");

    /* 2. No two rows overlap (Spike's check). */
    int overlaps = 0;
    for (unsigned a = 1; a < VX_OP_COUNT; a++)
        for (unsigned b = a + 1; b < VX_OP_COUNT; b++) {
            const vx_isa_row *ra = vx_isa_row_get(a), *rb = vx_isa_row_get(b);
            if ((ra->mask & rb->mask & (ra->match ^ rb->match)) == 0) {
                diag("%s overlaps %s", ra->name, rb->name);
                overlaps++;
            }
        }
    is_int(overlaps, 0, "no two rows overlap");

    /* 3. Unique names and mnemonics. */
    int dup = 0;
    for (unsigned a = 1; a < VX_OP_COUNT; a++)
        for (unsigned b = a + 1; b < VX_OP_COUNT; b++)
            if (!strcmp(vx_isa_row_get(a)->mnemonic, vx_isa_row_get(b)->mnemonic)) dup++;
    is_int(dup, 0, "mnemonics are unique");
    ok(vx_isa_row_get(0) == NULL && vx_isa_row_get(VX_OP_COUNT) == NULL, "row_get bounds");

    /* 4. Known words (hand-encoded, research §1.2 examples and the RISC-V spec). */
    vx_insn d;
    vx_isa_decode(0x00032A8Bu, &d); /* split s5, t1 */
    ok(d.op == VX_OP_VX_SPLIT && d.rd == 21 && d.rs1 == 6 && d.wrd == 21, "split s5,t1");
    vx_isa_decode(0x0015A50Bu, &d); /* split.n a0, a1 */
    ok(d.op == VX_OP_VX_SPLIT_N && d.rd == 10 && d.rs1 == 11, "split.n a0,a1");
    vx_isa_decode(0x0025A50Bu, &d); /* rs2 field = 2: not a valid flag */
    is_int(d.op, VX_OP_INVALID, "split with rs2 field x2 is illegal");
    vx_isa_decode(0x00B5500Bu, &d);
    ok(d.op == VX_OP_VX_PRED && d.rs1 == 10 && d.rs2 == 11, "pred a0,a1");
    vx_isa_decode(0x00B5508Bu, &d);
    is_int(d.op, VX_OP_VX_PRED_N, "pred.n a0,a1");
    vx_isa_decode(0x00B5510Bu, &d);
    is_int(d.op, VX_OP_INVALID, "pred with rd field x2 is illegal");
    vx_isa_decode(0x0000000Bu, &d);
    ok(d.op == VX_OP_VX_TMC && d.rs1 == 0, "tmc x0");
    vx_isa_decode(0x0002800Bu, &d);
    ok(d.op == VX_OP_VX_TMC && d.rs1 == 5, "tmc t0");
    vx_isa_decode(0x0062900Bu, &d);
    ok(d.op == VX_OP_VX_WSPAWN && d.rs1 == 5 && d.rs2 == 6, "wspawn t0,t1");
    vx_isa_decode(0x000AB00Bu, &d);
    ok(d.op == VX_OP_VX_JOIN && d.rs1 == 21, "join s5");
    vx_isa_decode(0x00B5400Bu, &d);
    ok(d.op == VX_OP_VX_BAR && d.rs1 == 10 && d.rs2 == 11, "bar a0,a1");
    vx_isa_decode(0x02C5C50Bu, &d); /* f7=1 f3=4: shfl.up a0, a1, a2 */
    ok(d.op == VX_OP_VX_SHFL_UP && d.rd == 10 && d.rs1 == 11 && d.rs2 == 12, "shfl.up a0,a1,a2");
    vx_isa_decode(0x0205B50Bu, &d); /* f7=1 f3=3 */
    ok(d.op == VX_OP_VX_VOTE_BAL && d.rd == 10 && d.rs1 == 11, "vote.bal a0,a1");
    vx_isa_decode(0x0400000Bu, &d); /* f7=2 (WMMA): not supported */
    is_int(d.op, VX_OP_INVALID, "custom-0 funct7=2 is illegal");
    /* the rest of custom-0 (V3's BAR.ARRIVE/WAIT and WSYNC at f7=0 f3=6/7, f7=3/4) and
     * the custom-1/2/3 opcodes (older graphics and texture extensions) are not v2.x */
    static const uint32_t not_v2[] = {0x0000600Bu, 0x0000700Bu, 0x0600000Bu, 0x0800000Bu,
                                      0x0000002Bu, 0x0000005Bu, 0x0000007Bu};
    for (size_t i = 0; i < sizeof not_v2 / sizeof not_v2[0]; i++) {
        vx_isa_decode(not_v2[i], &d);
        ok(d.op == VX_OP_INVALID, "0x%08x is illegal", not_v2[i]);
    }

    /* Immediates. */
    vx_isa_decode(0xfeb51ee3u, &d); /* bne a0, a1, -4 */
    ok(d.op == VX_OP_BNE && d.imm == -4 && d.rs1 == 10 && d.rs2 == 11, "bne offset -4");
    vx_isa_decode(0x7e000fe3u, &d); /* beq x0, x0, +4094 */
    ok(d.op == VX_OP_BEQ && d.imm == 4094, "beq offset +4094 (got %d)", d.imm);
    vx_isa_decode(0x80000063u, &d); /* beq x0, x0, -4096 */
    ok(d.op == VX_OP_BEQ && d.imm == -4096, "beq offset -4096 (got %d)", d.imm);
    vx_isa_decode(0x0080056fu, &d); /* jal a0, 8 */
    ok(d.op == VX_OP_JAL && d.imm == 8 && d.rd == 10, "jal a0, 8");
    vx_isa_decode(0x800000efu, &d); /* jal ra, -1 MiB */
    ok(d.op == VX_OP_JAL && d.imm == -1048576, "jal offset -1MiB (got %d)", d.imm);
    vx_isa_decode(0x7ffff0efu, &d); /* jal ra, +1MiB-2 */
    ok(d.op == VX_OP_JAL && d.imm == 1048574, "jal offset +1MiB-2 (got %d)", d.imm);
    vx_isa_decode(0xfea5ae23u, &d); /* sw a0, -4(a1) */
    ok(d.op == VX_OP_SW && d.imm == -4 && d.rs1 == 11 && d.rs2 == 10, "sw a0,-4(a1)");
    vx_isa_decode(0x80050513u, &d); /* addi a0, a0, -2048 */
    ok(d.op == VX_OP_ADDI && d.imm == -2048, "addi imm -2048");
    vx_isa_decode(0xfffff537u, &d); /* lui a0, 0xfffff */
    ok(d.op == VX_OP_LUI && (uint32_t)d.imm == 0xfffff000u, "lui imm");
    vx_isa_decode(0x41f5d513u, &d); /* srai a0, a1, 31 */
    ok(d.op == VX_OP_SRAI && d.imm == 31, "srai shamt 31");
    vx_isa_decode(0x0205d513u, &d); /* srli with shamt bit 5 set: illegal on RV32 */
    is_int(d.op, VX_OP_INVALID, "shamt[5] set is illegal on RV32");
    /* the same for slli and srai (RV32I: shamt[5] != 0 is reserved; mutation review:
     * only srli was checked) */
    vx_isa_decode(0x02059513u, &d); /* slli a0, a1, shamt 32 */
    is_int(d.op, VX_OP_INVALID, "slli with shamt[5] set is illegal on RV32");
    vx_isa_decode(0x4205d513u, &d); /* srai a0, a1, shamt 32 */
    is_int(d.op, VX_OP_INVALID, "srai with shamt[5] set is illegal on RV32");
    vx_isa_decode(0xcc0025f3u, &d); /* csrr a1, 0xcc0 */
    ok(d.op == VX_OP_CSRRS && d.imm == 0xcc0 && d.rd == 11 && d.rs1 == 0, "csrr a1, thread_id");
    vx_isa_decode(0x40b50543u, &d); /* fmadd.s fa0, fa0, fa1, fs0, rne */
    ok(d.op == VX_OP_FMADD_S && d.rs3 == 8 && d.rm == 0, "fmadd.s rs3/rm");
    /* rs3 is the 5-bit field 31:27 (mutation review: no test used an rs3 above 15) */
    vx_isa_decode(0xf8b50543u, &d); /* fmadd.s fa0, fa0, fa1, ft11, rne */
    ok(d.op == VX_OP_FMADD_S && d.rs3 == 31 && d.rs2 == 11 && d.rs1 == 10 && d.rd == 10,
       "fmadd.s with rs3 = ft11 (got %u)", d.rs3);
    vx_isa_decode(0x42b50543u, &d); /* fmadd.d: no D extension */
    is_int(d.op, VX_OP_INVALID, "fmadd.d is illegal");
    vx_isa_decode(0x00b57553u, &d);
    ok(d.op == VX_OP_FADD_S && d.rm == 7, "fadd.s dynamic rm");
    vx_isa_decode(0x0eb5252fu, &d);
    ok(d.op == VX_OP_AMOSWAP_W && d.rm == 3, "amoswap.w.aqrl");
    vx_isa_decode(0x0e5b5533u, &d);
    ok(d.op == VX_OP_CZERO_EQZ && d.rd == 10 && d.rs1 == 22 && d.rs2 == 5, "czero.eqz");
    vx_isa_decode(0x00000513u, &d); /* addi x10, x0, 0 */
    ok(d.wrd == 10, "wrd = rd");
    vx_isa_decode(0x00000013u, &d); /* nop: rd = x0 */
    ok(d.op == VX_OP_ADDI && d.wrd == 32, "x0 destination goes to the sink row");
    vx_isa_decode(0x00000000u, &d);
    is_int(d.op, VX_OP_INVALID, "all-zero word is illegal");
    vx_isa_decode(0xffffffffu, &d);
    is_int(d.op, VX_OP_INVALID, "all-ones word is illegal");
    vx_isa_decode(0x00001001u, &d); /* compressed-looking: no C extension */
    is_int(d.op, VX_OP_INVALID, "16-bit encodings are illegal");
    ok(!strcmp(vx_isa_xreg_name(10), "a0") && !strcmp(vx_isa_freg_name(31), "ft11"),
       "register names");
    ok(!strcmp(vx_isa_csr_name(0x340), "mscratch") && vx_isa_csr_name(0x123) == NULL, "csr names");
    return tap_exit();
}
