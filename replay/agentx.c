/*
 * agentx.c - GDB agent-expression evaluator (see agentx.h).
 *
 * Encoding facts (GDB manual, "Bytecode Descriptions"): one opcode byte, then
 * its operands, multi-byte operands big-endian; jumps name an absolute offset
 * from the start of the expression; `end` yields the top of the stack.
 */
#include "agentx.h"

#include <string.h>

#define STACK_MAX 1024
#define STEP_MAX  100000

enum {
    OP_ADD = 0x02,
    OP_SUB,
    OP_MUL,
    OP_DIV_SIGNED,
    OP_DIV_UNSIGNED,
    OP_REM_SIGNED,
    OP_REM_UNSIGNED,
    OP_LSH,
    OP_RSH_SIGNED,
    OP_RSH_UNSIGNED,
    OP_TRACE,
    OP_TRACE_QUICK,
    OP_LOG_NOT,
    OP_BIT_AND,
    OP_BIT_OR,
    OP_BIT_XOR,
    OP_BIT_NOT,
    OP_EQUAL,
    OP_LESS_SIGNED,
    OP_LESS_UNSIGNED,
    OP_EXT,
    OP_REF8,
    OP_REF16,
    OP_REF32,
    OP_REF64,
    OP_IF_GOTO = 0x20,
    OP_GOTO,
    OP_CONST8,
    OP_CONST16,
    OP_CONST32,
    OP_CONST64,
    OP_REG,
    OP_END,
    OP_DUP,
    OP_POP,
    OP_ZERO_EXT,
    OP_SWAP,
    OP_TRACEV = 0x2e,
    OP_TRACENZ,
    OP_TRACE16,
    OP_PICK = 0x32,
    OP_ROT,
};

const char *vx_agentx_strerror(vx_agentx_result r)
{
    switch (r) {
    case VX_AGENTX_OK: return "no error";
    case VX_AGENTX_EMPTY: return "empty expression";
    case VX_AGENTX_OVERFLOW: return "stack overflow";
    case VX_AGENTX_UNDERFLOW: return "stack underflow";
    case VX_AGENTX_BAD_OPCODE: return "unsupported bytecode";
    case VX_AGENTX_TRUNCATED: return "bytecode cut off inside an operand";
    case VX_AGENTX_BAD_GOTO: return "jump outside the expression";
    case VX_AGENTX_DIV_ZERO: return "division by zero";
    case VX_AGENTX_NO_REG: return "unreadable register";
    case VX_AGENTX_NO_MEM: return "unreadable memory";
    case VX_AGENTX_TOO_LONG: return "expression runs too long";
    }
    return "unknown result";
}

/* An operand of n bytes (big-endian) at code[*pc]. */
static bool operand(const uint8_t *code, size_t len, size_t *pc, unsigned n, uint64_t *v)
{
    if (len - *pc < n) return false;
    uint64_t x = 0;
    for (unsigned i = 0; i < n; i++)
        x = x << 8 | code[*pc + i];
    *pc += n;
    *v = x;
    return true;
}

static uint64_t sign_extend(uint64_t v, uint64_t bits)
{
    if (bits == 0 || bits >= 64) return v;
    uint64_t m = (uint64_t)1 << (bits - 1);
    v &= (m << 1) - 1;
    return (v ^ m) - m;
}

static uint64_t zero_extend(uint64_t v, uint64_t bits)
{
    return bits >= 64 ? v : v & (((uint64_t)1 << bits) - 1);
}

vx_agentx_result vx_agentx_eval(const uint8_t *code, size_t len, const vx_agentx_env *env,
                                uint64_t *value)
{
    uint64_t st[STACK_MAX];
    size_t sp = 0; /* number of items */
    size_t pc = 0;
    *value = 0;
    if (!code || len == 0) return VX_AGENTX_EMPTY;

#define NEED(k)                                   \
    do {                                          \
        if (sp < (k)) return VX_AGENTX_UNDERFLOW; \
    } while (0)
#define PUSH(x)                                         \
    do {                                                \
        const uint64_t x_ = (x);                        \
        if (sp == STACK_MAX) return VX_AGENTX_OVERFLOW; \
        st[sp++] = x_;                                  \
    } while (0)
#define OPND(n, v)                                                           \
    do {                                                                     \
        if (!operand(code, len, &pc, (n), &(v))) return VX_AGENTX_TRUNCATED; \
    } while (0)

    for (unsigned steps = 0; pc < len; steps++) {
        if (steps == STEP_MAX) return VX_AGENTX_TOO_LONG;
        const uint8_t op = code[pc++];
        uint64_t a, b, n;
        switch (op) {
        case OP_ADD:
        case OP_SUB:
        case OP_MUL:
        case OP_DIV_SIGNED:
        case OP_DIV_UNSIGNED:
        case OP_REM_SIGNED:
        case OP_REM_UNSIGNED:
        case OP_LSH:
        case OP_RSH_SIGNED:
        case OP_RSH_UNSIGNED:
        case OP_BIT_AND:
        case OP_BIT_OR:
        case OP_BIT_XOR:
        case OP_EQUAL:
        case OP_LESS_SIGNED:
        case OP_LESS_UNSIGNED: {
            NEED(2);
            b = st[--sp];
            a = st[sp - 1];
            const int64_t sa = (int64_t)a, sb = (int64_t)b;
            uint64_t r = 0;
            switch (op) {
            case OP_ADD: r = a + b; break;
            case OP_SUB: r = a - b; break;
            case OP_MUL: r = a * b; break;
            case OP_DIV_SIGNED:
            case OP_REM_SIGNED:
                if (b == 0) return VX_AGENTX_DIV_ZERO;
                if (sa == INT64_MIN && sb == -1) /* the one quotient that overflows */
                    r = op == OP_DIV_SIGNED ? a : 0;
                else
                    r = op == OP_DIV_SIGNED ? (uint64_t)(sa / sb) : (uint64_t)(sa % sb);
                break;
            case OP_DIV_UNSIGNED:
            case OP_REM_UNSIGNED:
                if (b == 0) return VX_AGENTX_DIV_ZERO;
                r = op == OP_DIV_UNSIGNED ? a / b : a % b;
                break;
            case OP_LSH: r = b >= 64 ? 0 : a << b; break;
            case OP_RSH_UNSIGNED: r = b >= 64 ? 0 : a >> b; break;
            case OP_RSH_SIGNED:
                if (b >= 64) b = 63;
                r = sa < 0 ? ~(~a >> b) : a >> b;
                break;
            case OP_BIT_AND: r = a & b; break;
            case OP_BIT_OR: r = a | b; break;
            case OP_BIT_XOR: r = a ^ b; break;
            case OP_EQUAL: r = a == b; break;
            case OP_LESS_SIGNED: r = sa < sb; break;
            case OP_LESS_UNSIGNED: r = a < b; break;
            }
            st[sp - 1] = r;
            break;
        }
        case OP_LOG_NOT:
            NEED(1);
            st[sp - 1] = st[sp - 1] == 0;
            break;
        case OP_BIT_NOT:
            NEED(1);
            st[sp - 1] = ~st[sp - 1];
            break;
        case OP_EXT:
        case OP_ZERO_EXT:
            OPND(1, n);
            NEED(1);
            st[sp - 1] = op == OP_EXT ? sign_extend(st[sp - 1], n) : zero_extend(st[sp - 1], n);
            break;
        case OP_REF8:
        case OP_REF16:
        case OP_REF32:
        case OP_REF64: {
            NEED(1);
            const unsigned size = 1u << (op - OP_REF8);
            uint8_t buf[8];
            if (!env || !env->mem || !env->mem(env->ctx, st[sp - 1], buf, size))
                return VX_AGENTX_NO_MEM;
            uint64_t v = 0;
            for (unsigned i = size; i-- > 0;) /* the target is little-endian */
                v = v << 8 | buf[i];
            st[sp - 1] = v;
            break;
        }
        case OP_IF_GOTO:
        case OP_GOTO:
            OPND(2, n);
            if (op == OP_IF_GOTO) {
                NEED(1);
                if (st[--sp] == 0) break;
            }
            if (n >= len) return VX_AGENTX_BAD_GOTO;
            pc = (size_t)n;
            break;
        case OP_CONST8:
        case OP_CONST16:
        case OP_CONST32:
        case OP_CONST64:
            OPND(1u << (op - OP_CONST8), n);
            PUSH(n);
            break;
        case OP_REG: {
            OPND(2, n);
            uint64_t v;
            if (!env || !env->reg || !env->reg(env->ctx, (unsigned)n, &v)) return VX_AGENTX_NO_REG;
            PUSH(v);
            break;
        }
        case OP_END:
            if (sp == 0) return VX_AGENTX_EMPTY;
            *value = st[sp - 1];
            return VX_AGENTX_OK;
        case OP_DUP:
            NEED(1);
            PUSH(st[sp - 1]);
            break;
        case OP_POP:
            NEED(1);
            sp--;
            break;
        case OP_SWAP:
            NEED(2);
            a = st[sp - 2];
            st[sp - 2] = st[sp - 1];
            st[sp - 1] = a;
            break;
        case OP_PICK:
            OPND(1, n);
            NEED(n + 1);
            PUSH(st[sp - 1 - n]);
            break;
        case OP_ROT: /* a b c => c a b */
            NEED(3);
            a = st[sp - 3];
            b = st[sp - 2];
            st[sp - 3] = st[sp - 1];
            st[sp - 2] = a;
            st[sp - 1] = b;
            break;
        /* collection bytecodes: only their effect on the stack matters here */
        case OP_TRACE:
        case OP_TRACENZ:
            NEED(2);
            sp -= 2;
            break;
        case OP_TRACE_QUICK:
            OPND(1, n);
            NEED(1);
            break;
        case OP_TRACE16:
            OPND(2, n);
            NEED(1);
            break;
        case OP_TRACEV: OPND(2, n); break;
        default: return VX_AGENTX_BAD_OPCODE; /* float, getv/setv, printf, unknown */
        }
    }
    return VX_AGENTX_TRUNCATED; /* ran off the end without `end` */
#undef NEED
#undef PUSH
#undef OPND
}
