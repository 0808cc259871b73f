/*
 * crt0.S - kernel startup and exit for the vxrr device runtime (the Vortex
 * v2.x startup contract, research notes §3.3).
 *
 * At reset only warp 0, lane 0 of every core runs, at _start, with mscratch =
 * the kernel argument.  So main() runs once PER CORE, as on Vortex.
 *
 *  1. Per-thread registers.  Warp 0 spawns warps 1..NW-1 at __vx_init_warp
 *     (all lanes: set up, then tmc 0), activates all its own lanes and sets
 *     them up too, then goes back to lane 0 and waits for the other warps with
 *     a second WSPAWN of one warp (the WSPAWN join).  "Set up" is:
 *       gp = __global_pointer$
 *       sp = STACK_BASE_ADDR - (mhartid << STACK_LOG2_SIZE)
 *       tp = __vx_tls_area + mhartid * __vx_tls_block
 *     and a fresh TLS block at tp: .tdata copied, the rest (.tbss) zeroed.
 *     __vx_tls_block is the whole TLS image (.tdata + .tbss, rounded up to
 *     16), so blocks never overlap.  The TLS blocks of all harts follow _end;
 *     the heap (sbrk) starts after the last one.  These registers survive a
 *     warp's tmc 0, which is what vx_spawn_threads relies on.
 *
 *     Every hart also clears its share of .sbss/.bss in the same pass: hart h
 *     of H (all harts of all cores) zeroes the words h, h+H, h+2H, ...  So a
 *     large BSS is cleared by every lane at once instead of by one lane.
 *
 *  2. BSS is complete only when every core has finished step 1, so all cores
 *     meet at a global barrier (bit 31 set, count = number of cores); then
 *     core 0 alone runs the C/C++ constructors, and all cores meet again
 *     before calling main.  So no core can write a
 *     BSS variable that is still being cleared, and constructors run once
 *     (Vortex's crt0 has every core clear BSS and run them, which races).
 *     With one core there are no barriers.
 *
 *  3. main(0, 0).
 *  4. The last core to return from main calls exit(status) -> picolibc's exit
 *     (atexit handlers, static destructors) -> _exit: they run once, after every
 *     core's main, as the constructors ran once before (picolibc's atexit list is
 *     one for all cores: each core's exit ran what the cores before it had left, and
 *     cores exiting together raced on it).  The other cores go to _exit(status).  A
 *     core that calls exit itself runs the handlers then (and they do not run again).
 *
 * Exit: _exit is in vx_exit.S.  crt0.o is a member of libvxrt.a that vxcc
 * links for _start (-u _start), so a kernel with its own _start goes without
 * it, as with Vortex's libvortex.a.
 */
#include <VX_config.h>
#include <VX_types.h>

#define TMC(rs)         .insn r 0x0B, 0, 0, x0, rs, x0
#define WSPAWN(rn, rpc) .insn r 0x0B, 1, 0, x0, rn, rpc
#define BAR(rid, rn)    .insn r 0x0B, 4, 0, x0, rid, rn

    .option arch, +a
    /* No linker relaxation here: it would shrink this code but not the DWARF
       ranges the assembler wrote for it, and GDB would then lose the source
       lines of the function linked right after crt0. */
    .option norelax

    .section .init, "ax"
    .globl _start
    .type _start, @function
_start:
    /* 0. the stacks (8 KiB a hart, down from STACK_BASE_ADDR) and the TLS blocks (one
          a hart, up from __vx_tls_area after the image) must not meet: on a platform
          with too many harts, say so and stop (core 0; the others wait for it) */
    csrr  t0, VX_CSR_NUM_CORES
    csrr  t1, VX_CSR_NUM_WARPS
    mul   t0, t0, t1
    csrr  t1, VX_CSR_NUM_THREADS
    mul   t0, t0, t1                 /* harts (at most 2^25) */
    li    t1, STACK_BASE_ADDR >> STACK_LOG2_SIZE
    bgeu  t0, t1, .Ltoo_many         /* the stacks alone reach address 0 */
    slli  t1, t0, STACK_LOG2_SIZE
    li    t2, STACK_BASE_ADDR
    sub   t1, t2, t1                 /* the lowest stack's bottom */
    lui   t2, %hi(__vx_tls_block)
    addi  t2, t2, %lo(__vx_tls_block)
    mulhu t3, t0, t2
    bnez  t3, .Ltoo_many
    mul   t2, t0, t2
    la    t3, __vx_tls_area
    add   t2, t3, t2                 /* the end of the last TLS block */
    bltu  t2, t3, .Ltoo_many
    bgtu  t2, t1, .Ltoo_many

    /* 1. registers of every thread */
    csrr  t0, VX_CSR_NUM_WARPS
    la    t1, __vx_init_warp
    WSPAWN(t0, t1)
    li    t0, -1
    TMC(t0)
    jal   __vx_init_regs
    li    t0, 1
    TMC(t0)
    li    t0, 1
    WSPAWN(t0, x0)            /* wait until the spawned warps have ended */

    /* 2. all cores have cleared their share of BSS; core 0: constructors;
          then all cores meet again */
    call  __vx_all_cores
    csrr  t0, VX_CSR_CORE_ID
    bnez  t0, 1f
    call  __libc_init_array
1:  call  __vx_all_cores

    /* 3. main; 4. the last core to return from it calls exit (atexit handlers and
          static destructors: once, after every core's main), the others _exit */
2:  li    a0, 0
    li    a1, 0
    call  main
    la    t0, __vx_mains_done
    li    t1, 1
    amoadd.w t1, t1, (t0)
    addi  t1, t1, 1
    csrr  t2, VX_CSR_NUM_CORES
    bne   t1, t2, 3f
    tail  exit
3:  tail  _exit
    .size _start, . - _start

/* cores that returned from main (BSS: 0 before main) */
    .section .sbss, "aw", @nobits
    .p2align 2
    .type __vx_mains_done, @object
__vx_mains_done:
    .zero 4
    .size __vx_mains_done, 4
    .section .init, "ax"

/* Step 0 failed: core 0 prints why on its console slot and stops with an ebreak.  A
   function symbol of its own, so that the fault names it. */
    .type __vx_crt0_too_many_harts, @function
__vx_crt0_too_many_harts:
.Ltoo_many:
    csrr  t0, VX_CSR_CORE_ID
    bnez  t0, 2f
    csrr  t1, VX_CSR_MHARTID
    andi  t1, t1, 63
    addi  t1, t1, IO_COUT_ADDR
    la    t2, .Ltoo_many_msg
1:  lbu   t3, 0(t2)
    beqz  t3, 3f
    sb    t3, 0(t1)
    addi  t2, t2, 1
    j     1b
3:  ebreak
2:  j     2b
    .size __vx_crt0_too_many_harts, . - __vx_crt0_too_many_harts

    .section .rodata
.Ltoo_many_msg:
    .asciz "crt0: too many harts for this runtime's memory layout: their 8 KiB stacks (down from 0xffff0000) would overlap the kernel image and TLS blocks; use fewer cores, warps or threads\n"
    .text

/* Global barrier of all cores (nothing with one core); a leaf. */
    .type __vx_all_cores, @function
__vx_all_cores:
    csrr  t1, VX_CSR_NUM_CORES
    li    t0, 2
    bltu  t1, t0, 1f
    li    t0, 0x80000000
    BAR(t0, t1)
1:  ret
    .size __vx_all_cores, . - __vx_all_cores

/* Entry of the warps spawned by _start: set up all lanes, then end. */
    .type __vx_init_warp, @function
__vx_init_warp:
    li    t0, -1
    TMC(t0)
    jal   __vx_init_regs
    TMC(x0)
1:  j     1b
    .size __vx_init_warp, . - __vx_init_warp

/* gp, sp, tp and the TLS block of the calling lanes (a leaf: no stack yet). */
    .type __vx_init_regs, @function
__vx_init_regs:
    .option push
    .option norelax
    la    gp, __global_pointer$
    .option pop
    csrr  t0, VX_CSR_MHARTID
    li    sp, STACK_BASE_ADDR
    slli  t1, t0, STACK_LOG2_SIZE
    sub   sp, sp, t1
    lui   t2, %hi(__vx_tls_block)
    addi  t2, t2, %lo(__vx_tls_block)
    mul   t1, t0, t2
    la    tp, __vx_tls_area
    add   tp, tp, t1
    /* Copy .tdata, then zero up to the end of the block.  Sizes are multiples
       of 4 (link32.ld) and the same in every lane, so the loops are uniform. */
    la    t3, __tdata_start
    la    t4, __tdata_end
    mv    t5, tp
1:  bgeu  t3, t4, 2f
    lw    t6, 0(t3)
    sw    t6, 0(t5)
    addi  t3, t3, 4
    addi  t5, t5, 4
    j     1b
2:  add   t4, tp, t2
3:  bgeu  t5, t4, 4f
    sw    zero, 0(t5)
    addi  t5, t5, 4
    j     3b
    /* This hart's share of .sbss/.bss (step 1 above).  The loop runs
       ceil(words / H) times in every lane, so it is warp-uniform; a lane whose
       word lies past _end stores to its own stack slot below sp instead
       (selected without a branch). */
4:  csrr  t2, VX_CSR_NUM_CORES
    csrr  t3, VX_CSR_NUM_WARPS
    mul   t2, t2, t3
    csrr  t3, VX_CSR_NUM_THREADS
    mul   t2, t2, t3
    slli  t2, t2, 2              /* stride: H words */
    la    t3, __bss_start        /* uniform cursor */
    la    t4, _end
    slli  t5, t0, 2
    add   t5, t5, t3             /* this hart's word */
    addi  t6, sp, -4             /* harmless scratch slot */
5:  bgeu  t3, t4, 6f
    sltu  t1, t5, t4             /* 1 when the word is inside BSS */
    neg   t1, t1
    xor   t0, t5, t6
    and   t0, t0, t1
    xor   t0, t0, t6             /* t1 ? t5 : t6 */
    sw    zero, 0(t0)
    add   t5, t5, t2
    add   t3, t3, t2
    j     5b
6:  ret
    .size __vx_init_regs, . - __vx_init_regs
