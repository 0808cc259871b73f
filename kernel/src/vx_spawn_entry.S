/*
 * vx_spawn_entry.S - the thread-mask glue of vx_spawn_threads.
 *
 * These are in assembly because GCC must not schedule anything between a tmc
 * and the call it guards: after `tmc -1` the newly active lanes run with stale
 * registers (only sp, gp and tp are valid, from crt0), so the next instruction
 * must be a direct call whose callee rebuilds its state from CSRs and memory.
 * A direct `jal` gives every lane the same ra, so the returns are uniform.
 *
 * The lanes that take part are chosen with PRED on a per-lane condition, not
 * with a TMC mask: TMC's 32-bit operand can only name lanes 0..31 (bit 31 is
 * sign-extended), while warps may have up to 128 lanes.  Lane 0 always takes
 * part, so the predicate is never empty.
 */
#include <VX_types.h>

#define TMC(rs)       .insn r 0x0B, 0, 0, x0, rs, x0
#define PRED(rc, rm)  .insn r 0x0B, 5, 0, x0, rc, rm
/* Zicond: rd = rs2 == 0 ? 0 : rs1 (eqz), rd = rs2 != 0 ? 0 : rs1 (nez) */
#define CZERO_EQZ(rd, rs1, rs2) .insn r 0x33, 5, 7, rd, rs1, rs2
#define CZERO_NEZ(rd, rs1, rs2) .insn r 0x33, 7, 7, rd, rs1, rs2

    /* unwind information for debuggers (link32.ld keeps .debug_frame, not .eh_frame) */
    .cfi_sections .debug_frame
    .text

/*
 * void __vx_spawn_run(void)   (warp 0, lane 0 only)
 * Run __vx_spawn_lane_main on the lanes of warp 0 that have work, then go back
 * to lane 0.
 *
 * The other lanes get a frame like lane 0's (their sp 16 lower while they run), whose
 * saved ra is inside __vx_spawn_warp_entry: a debugger unwinding them stops there, as
 * in a spawned warp, instead of reading a return address that only lane 0 stored.
 * Lanes that sit out give their 16 bytes back before PRED, the others after.
 */
    .globl __vx_spawn_run
    .type __vx_spawn_run, @function
__vx_spawn_run:
    .cfi_startproc
    addi  sp, sp, -16
    .cfi_def_cfa_offset 16
    sw    ra, 12(sp)
    .cfi_offset ra, -4
    li    t0, -1
    TMC(t0)
    csrr  t1, VX_CSR_THREAD_ID
    li    t2, 16
    CZERO_EQZ(t2, t2, t1)               /* lanes other than 0: 16, lane 0: 0 */
    sub   sp, sp, t2
    la    t0, __vx_spawn_warp_entry + 4
    CZERO_EQZ(t0, t0, t1)
    CZERO_NEZ(t2, ra, t1)
    or    t0, t0, t2                    /* lane 0: its ra; the others: the sentinel */
    sw    t0, 12(sp)
    call  __vx_spawn_lane_on
    csrr  t1, VX_CSR_THREAD_ID
    li    t2, 16
    CZERO_EQZ(t2, t2, t1)
    CZERO_NEZ(t2, t2, a0)               /* lanes other than 0 without work */
    add   sp, sp, t2
    li    t0, 1
    PRED(a0, t0)
    call  __vx_spawn_lane_main
    csrr  t1, VX_CSR_THREAD_ID
    li    t2, 16
    CZERO_EQZ(t2, t2, t1)
    add   sp, sp, t2                    /* the lanes that worked */
    li    t0, 1
    TMC(t0)
    lw    ra, 12(sp)
    addi  sp, sp, 16
    .cfi_def_cfa_offset 0
    ret
    .cfi_endproc
    .size __vx_spawn_run, . - __vx_spawn_run

/*
 * Entry of the warps spawned by vx_spawn_threads (lane 0 active): the lanes
 * with work run __vx_spawn_lane_main, then the warp ends.
 */
    .globl __vx_spawn_warp_entry
    .type __vx_spawn_warp_entry, @function
__vx_spawn_warp_entry:
    .cfi_startproc
    .cfi_undefined ra                 /* the outermost frame of a spawned warp */
    li    t0, -1
    TMC(t0)
    call  __vx_spawn_lane_on
    li    t0, 1
    PRED(a0, t0)
    call  __vx_spawn_lane_main
    TMC(x0)
1:  j     1b
    .cfi_endproc
    .size __vx_spawn_warp_entry, . - __vx_spawn_warp_entry
