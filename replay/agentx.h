/*
 * agentx.h - evaluation of GDB agent expressions (the bytecode GDB sends with a
 * Z0/Z1 packet for a breakpoint condition evaluated by the target; GDB manual,
 * "Agent Expressions").  vxreplay evaluates a condition once for each active lane
 * of the warp that reached the breakpoint, so `break f if i == 5` stops in the
 * lane where i is 5.
 *
 * The evaluator is self-contained: registers and memory come through callbacks.
 * Values are 64-bit integers; the floating-point, tracing, printf and
 * trace-state-variable bytecodes are refused (the condition then counts as true,
 * as gdbserver does: a stop the user can look at beats a silent miss).
 */
#ifndef VX_AGENTX_H
#define VX_AGENTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct vx_agentx_env {
    void *ctx;
    /* the value of remote register number `reg`; false if there is none */
    bool (*reg)(void *ctx, unsigned reg, uint64_t *value);
    /* n bytes at addr; false if they cannot be read */
    bool (*mem)(void *ctx, uint64_t addr, void *buf, size_t n);
} vx_agentx_env;

typedef enum vx_agentx_result {
    VX_AGENTX_OK = 0,
    VX_AGENTX_EMPTY,      /* no bytecode, or `end` with an empty stack */
    VX_AGENTX_OVERFLOW,   /* stack overflow */
    VX_AGENTX_UNDERFLOW,  /* an operator with too few operands */
    VX_AGENTX_BAD_OPCODE, /* unknown or unsupported bytecode */
    VX_AGENTX_TRUNCATED,  /* an operand runs past the end of the bytecode */
    VX_AGENTX_BAD_GOTO,   /* a jump outside the bytecode */
    VX_AGENTX_DIV_ZERO,   /* division or remainder by zero */
    VX_AGENTX_NO_REG,     /* a register that cannot be read */
    VX_AGENTX_NO_MEM,     /* memory that cannot be read */
    VX_AGENTX_TOO_LONG,   /* more steps than the budget (a loop) */
} vx_agentx_result;

/* Run `code` (len bytes); on VX_AGENTX_OK *value is the top of the stack at `end`. */
vx_agentx_result vx_agentx_eval(const uint8_t *code, size_t len, const vx_agentx_env *env,
                                uint64_t *value);

/* A short description of a result, for messages. */
const char *vx_agentx_strerror(vx_agentx_result r);

#endif
