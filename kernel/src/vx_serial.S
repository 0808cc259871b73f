/*
 * vx_serial.S - vx_serial: run a callback on each active lane in turn.
 *
 * In assembly so that GCC cannot move anything between the split, the
 * branch it guards and the join.
 */
#include <VX_types.h>

#define SPLIT(rd, rs) .insn r 0x0B, 2, 0, rd, rs, x0
#define JOIN(rs)      .insn r 0x0B, 3, 0, x0, rs, x0

    /* unwind information for debuggers (link32.ld keeps .debug_frame, not .eh_frame) */
    .cfi_sections .debug_frame
    .text

/*
 * void vx_serial(vx_serial_cb callback, const void *arg)
 * Run callback(arg) on each active lane in turn, lowest lane first.  For each
 * lane i: split on (tid == i); the lanes with tid != i skip the call and wait
 * at the join, lane i calls; the join reconverges.  Only lanes that are active
 * take part (tested in the thread mask for lanes below 32; above that every
 * index is tried, an inactive one splits nothing).
 */
    .globl vx_serial
    .type vx_serial, @function
vx_serial:
    .cfi_startproc
    addi  sp, sp, -32
    .cfi_def_cfa_offset 32
    sw    ra, 28(sp)
    sw    s0, 24(sp)
    sw    s1, 20(sp)
    sw    s2, 16(sp)
    sw    s3, 12(sp)
    sw    s4, 8(sp)
    sw    s5, 4(sp)
    sw    s6, 0(sp)
    .cfi_offset ra, -4
    .cfi_offset s0, -8
    .cfi_offset s1, -12
    .cfi_offset s2, -16
    .cfi_offset s3, -20
    .cfi_offset s4, -24
    .cfi_offset s5, -28
    .cfi_offset s6, -32
    mv    s0, a0                      /* callback (the same in every lane) */
    mv    s1, a1                      /* argument (per lane) */
    csrr  s2, VX_CSR_THREAD_ID
    csrr  s3, VX_CSR_ACTIVE_THREADS   /* uniform */
    csrr  s6, VX_CSR_NUM_THREADS
    li    s4, 0                       /* lane index i */
1:  bgeu  s4, s6, 4f
    li    t1, 32
    bgeu  s4, t1, 2f
    srl   t0, s3, s4
    andi  t0, t0, 1
    beqz  t0, 3f                      /* lane i inactive: nothing to do */
2:  xor   t0, s2, s4
    seqz  t0, t0                      /* this lane is lane i */
    SPLIT(s5, t0)
    beqz  t0, 5f                      /* uniform under the split mask */
    mv    a0, s1
    jalr  s0
5:  JOIN(s5)
3:  addi  s4, s4, 1
    j     1b
4:  lw    ra, 28(sp)
    lw    s0, 24(sp)
    lw    s1, 20(sp)
    lw    s2, 16(sp)
    lw    s3, 12(sp)
    lw    s4, 8(sp)
    lw    s5, 4(sp)
    lw    s6, 0(sp)
    addi  sp, sp, 32
    .cfi_def_cfa_offset 0
    ret
    .cfi_endproc
    .size vx_serial, . - vx_serial
