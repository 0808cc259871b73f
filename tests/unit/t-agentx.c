/*
 * t-agentx.c - the agent-expression evaluator (replay/agentx.c) on bytecode
 * assembled here by hand from the GDB manual's opcode list; every expected value
 * is worked out in the comments.
 */
#include "../../replay/agentx.h"
#include "tap.h"

#include <string.h>

/* a tiny machine: registers r[n] = 0x100 * n + 7, memory bytes mem[i] = i ^ 0x5a at
 * 0x1000..0x10ff, everything else unreadable */
static bool reg(void *ctx, unsigned n, uint64_t *v)
{
    (void)ctx;
    if (n > 64) return false;
    *v = 0x100u * n + 7;
    return true;
}

static bool mem(void *ctx, uint64_t addr, void *buf, size_t n)
{
    (void)ctx;
    if (addr < 0x1000 || addr + n > 0x1100) return false;
    for (size_t i = 0; i < n; i++)
        ((uint8_t *)buf)[i] = (uint8_t)((addr - 0x1000 + i) ^ 0x5a);
    return true;
}

static const vx_agentx_env env = {NULL, reg, mem};

static vx_agentx_result run(const uint8_t *code, size_t n, uint64_t *v)
{
    return vx_agentx_eval(code, n, &env, v);
}

#define RUN(v, ...)                                \
    ({                                             \
        static const uint8_t c_[] = {__VA_ARGS__}; \
        run(c_, sizeof c_, &(v));                  \
    })

/* opcodes (GDB manual, Bytecode Descriptions) */
enum {
    ADD = 0x02,
    SUB,
    MUL,
    DIVS,
    DIVU,
    REMS,
    REMU,
    LSH,
    RSHS,
    RSHU,
    TRACE,
    TRACEQ,
    LNOT,
    BAND,
    BOR,
    BXOR,
    BNOT,
    EQ,
    LTS,
    LTU,
    EXT,
    REF8,
    REF16,
    REF32,
    REF64,
    IFGOTO = 0x20,
    GOTO,
    C8,
    C16,
    C32,
    C64,
    REG,
    END,
    DUP,
    POP,
    ZEXT,
    SWAP,
    PICK = 0x32,
    ROT,
};

static void arithmetic(void)
{
    uint64_t v;
    is_int(RUN(v, C8, 7, C8, 5, SUB, END), VX_AGENTX_OK, "7 - 5 runs");
    is_u64(v, 2, "7 - 5 = 2");
    RUN(v, C8, 5, C8, 7, SUB, END);
    is_u64(v, (uint64_t)-2, "5 - 7 wraps to -2 (64-bit)");
    RUN(v, C16, 0x12, 0x34, C8, 0x10, MUL, END);
    is_u64(v, 0x12340, "const16 is big-endian: 0x1234 * 16");
    RUN(v, C32, 0xde, 0xad, 0xbe, 0xef, END);
    is_u64(v, 0xdeadbeef, "const32 big-endian, not sign-extended");
    RUN(v, C64, 0x80, 0, 0, 0, 0, 0, 0, 1, END);
    is_u64(v, 0x8000000000000001ull, "const64");
    /* -7 / 2: signed -3 (truncating), remainder -1; unsigned is huge */
    RUN(v, C8, 0, C8, 7, SUB, C8, 2, DIVS, END);
    is_u64(v, (uint64_t)-3, "div_signed -7 / 2 = -3");
    RUN(v, C8, 0, C8, 7, SUB, C8, 2, REMS, END);
    is_u64(v, (uint64_t)-1, "rem_signed -7 %% 2 = -1");
    RUN(v, C8, 0, C8, 7, SUB, C8, 2, DIVU, END);
    is_u64(v, 0x7ffffffffffffffcull, "div_unsigned (2^64 - 7) / 2");
    RUN(v, C8, 100, C8, 7, REMU, END);
    is_u64(v, 2, "rem_unsigned 100 %% 7 = 2");
    /* INT64_MIN / -1 must not trap */
    RUN(v, C64, 0x80, 0, 0, 0, 0, 0, 0, 0, C8, 0, C8, 1, SUB, DIVS, END);
    is_u64(v, 0x8000000000000000ull, "INT64_MIN / -1 wraps");
    is_int(RUN(v, C8, 1, C8, 0, DIVU, END), VX_AGENTX_DIV_ZERO, "division by zero refused");
    RUN(v, C8, 3, C8, 4, LSH, END);
    is_u64(v, 48, "3 << 4 = 48");
    RUN(v, C8, 1, C8, 64, LSH, END);
    is_u64(v, 0, "a shift of 64 gives 0");
    RUN(v, C8, 0, C8, 64, SUB, C8, 2, RSHS, END);
    is_u64(v, (uint64_t)-16, "-64 >> 2 (arithmetic) = -16");
    RUN(v, C8, 0, C8, 64, SUB, C8, 60, RSHU, END);
    is_u64(v, 15, "(2^64 - 64) >> 60 (logical) = 15");
    RUN(v, C8, 0xf0, C8, 0x3c, BAND, C8, 0x01, BOR, C8, 0xff, BXOR, END);
    is_u64(v, 0xce, "((0xf0 & 0x3c) | 1) ^ 0xff = 0xce");
    RUN(v, C8, 0, BNOT, END);
    is_u64(v, ~0ull, "bit_not 0");
    RUN(v, C8, 0, LNOT, C8, 9, LNOT, ADD, END);
    is_u64(v, 1, "log_not: !0 + !9 = 1");
}

static void comparisons_and_extension(void)
{
    uint64_t v;
    RUN(v, C8, 5, C8, 5, EQ, END);
    is_u64(v, 1, "5 == 5");
    RUN(v, C8, 0, C8, 1, SUB, C8, 1, LTS, END);
    is_u64(v, 1, "-1 < 1 signed");
    RUN(v, C8, 0, C8, 1, SUB, C8, 1, LTU, END);
    is_u64(v, 0, "-1 < 1 unsigned is false");
    RUN(v, C8, 0xff, EXT, 8, END);
    is_u64(v, (uint64_t)-1, "ext 8 of 0xff = -1");
    RUN(v, C8, 0x7f, EXT, 8, END);
    is_u64(v, 0x7f, "ext 8 of 0x7f = 0x7f");
    RUN(v, C16, 0x12, 0x34, ZEXT, 8, END);
    is_u64(v, 0x34, "zero_ext 8 of 0x1234");
    RUN(v, C32, 0x80, 0, 0, 0, EXT, 32, END);
    is_u64(v, 0xffffffff80000000ull, "ext 32 of 0x80000000");
}

static void stack_ops(void)
{
    uint64_t v;
    RUN(v, C8, 1, C8, 2, SWAP, SUB, END);
    is_u64(v, 1, "swap: 2 - 1");
    RUN(v, C8, 6, DUP, MUL, END);
    is_u64(v, 36, "dup: 6 * 6");
    RUN(v, C8, 1, C8, 2, POP, END);
    is_u64(v, 1, "pop");
    RUN(v, C8, 10, C8, 20, C8, 30, PICK, 2, END);
    is_u64(v, 10, "pick 2 copies the third item");
    /* rot: a b c => c a b; then the top (b) - next (a) */
    RUN(v, C8, 1, C8, 2, C8, 30, ROT, SUB, END);
    is_u64(v, (uint64_t)-1, "rot: 1 2 30 => 30 1 2, then 1 - 2 = -1");
    RUN(v, C8, 1, C8, 2, C8, 30, ROT, POP, POP, END);
    is_u64(v, 30, "rot puts the old top at the bottom of the three");
    is_int(RUN(v, ADD, END), VX_AGENTX_UNDERFLOW, "add on an empty stack");
    is_int(RUN(v, C8, 1, PICK, 1, END), VX_AGENTX_UNDERFLOW, "pick past the bottom");
    is_int(RUN(v, END), VX_AGENTX_EMPTY, "end with nothing on the stack");
    is_int(run(NULL, 0, &v), VX_AGENTX_EMPTY, "no bytecode");
    /* push forever: goto back to the const */
    is_int(RUN(v, C8, 1, GOTO, 0, 0), VX_AGENTX_OVERFLOW, "stack overflow");
    is_int(RUN(v, GOTO, 0, 0), VX_AGENTX_TOO_LONG, "an endless loop is cut");
}

static void control_flow(void)
{
    uint64_t v;
    /* 0: const8 1; 2: if_goto 7; 5: const8 11; 7: const8 22; 9: end  -> 22 */
    is_int(RUN(v, C8, 1, IFGOTO, 0, 7, C8, 11, C8, 22, END), VX_AGENTX_OK, "if_goto taken");
    is_u64(v, 22, "if_goto jumps to the absolute offset");
    RUN(v, C8, 0, IFGOTO, 0, 8, C8, 11, END, C8, 22, END);
    is_u64(v, 11, "if_goto not taken on 0 (and pops it)");
    RUN(v, GOTO, 0, 5, C8, 1, C8, 2, END);
    is_u64(v, 2, "goto");
    is_int(RUN(v, GOTO, 0, 50), VX_AGENTX_BAD_GOTO, "goto outside the expression");
    is_int(RUN(v, C16, 1), VX_AGENTX_TRUNCATED, "operand cut off");
    is_int(RUN(v, C8, 1), VX_AGENTX_TRUNCATED, "no end");
    is_int(RUN(v, 0x01, END), VX_AGENTX_BAD_OPCODE, "float refused");
    is_int(RUN(v, C8, 0, 0x2c, 0, 1, END), VX_AGENTX_BAD_OPCODE, "getv refused");
    is_int(RUN(v, 0xff), VX_AGENTX_BAD_OPCODE, "unknown opcode");
}

static void target_access(void)
{
    uint64_t v;
    RUN(v, REG, 0, 3, END);
    is_u64(v, 0x307, "reg 3");
    RUN(v, REG, 0, 0x40, END);
    is_u64(v, 0x4007, "reg 64 (16-bit operand)");
    is_int(RUN(v, REG, 0, 65, END), VX_AGENTX_NO_REG, "unknown register");
    /* mem[0x1004..] = 4^0x5a, 5^0x5a, 6^0x5a, 7^0x5a = 0x5e 0x5f 0x5c 0x5d, little-endian */
    RUN(v, C16, 0x10, 0x04, REF8, END);
    is_u64(v, 0x5e, "ref8");
    RUN(v, C16, 0x10, 0x04, REF16, END);
    is_u64(v, 0x5f5e, "ref16 is little-endian");
    RUN(v, C16, 0x10, 0x04, REF32, END);
    is_u64(v, 0x5d5c5f5e, "ref32");
    RUN(v, C16, 0x10, 0x04, REF64, END);
    is_u64(v, 0x515053525d5c5f5eull, "ref64");
    is_int(RUN(v, C8, 0, REF32, END), VX_AGENTX_NO_MEM, "unreadable memory");
    is_int(RUN(v, C16, 0x10, 0xfe, REF32, END), VX_AGENTX_NO_MEM, "a read running off the end");
    /* a typical GDB condition: *(int *)(reg 2 + 0xff9) == mem word, as signed 32 */
    /* reg 2 = 0x207: + 0xefd = 0x1104 is past the memory */
    is_int(RUN(v, REG, 0, 2, C16, 0x0e, 0xfd, ADD, REF32, END), VX_AGENTX_NO_MEM,
           "register-relative load outside memory");
    /* + 0xdfd = 0x1004 -> 0x5d5c5f5e */
    RUN(v, REG, 0, 2, C16, 0x0d, 0xfd, ADD, REF32, EXT, 32, C32, 0x5d, 0x5c, 0x5f, 0x5e, EQ, END);
    is_u64(v, 1, "register-relative load compared with a constant");
    const vx_agentx_env none = {NULL, NULL, NULL};
    static const uint8_t rr[] = {REG, 0, 1, END};
    is_int(vx_agentx_eval(rr, sizeof rr, &none, &v), VX_AGENTX_NO_REG, "no register callback");
    /* collection bytecodes keep their stack effect only */
    RUN(v, C8, 9, C8, 1, C8, 2, TRACE, TRACEQ, 4, END);
    is_u64(v, 9, "trace pops two, trace_quick keeps the address");
    ok(strcmp(vx_agentx_strerror(VX_AGENTX_DIV_ZERO), "division by zero") == 0, "strerror");
}

int main(void)
{
    arithmetic();
    comparisons_and_extension();
    stack_ops();
    control_flow();
    target_access();
    tap_done();
    return tap_exit();
}
