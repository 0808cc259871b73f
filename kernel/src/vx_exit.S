/*
 * vx_exit.S - _exit for the vxrr device runtime (its own archive member, so that
 * a kernel with its own _start, which then does without crt0, still gets it).
 *
 * Exit status.  _exit takes the atomic unsigned maximum of its code and the
 * codes exited with before into __vx_exit_status (a BSS word, 0 before main),
 * stores that maximum into the word at IO_MPM_EXITCODE (0x88), then ends the
 * warp (tmc 0).  With one core this is Vortex's plain store.  With several
 * cores (each core's main returns) the kernel's exit status is the LARGEST
 * code any core exited with, taken as unsigned: 0 exactly when every core
 * returned 0, and the result does not depend on which core finishes last.
 * As with Vortex's runtime, 0x88 is not written before the first exit, so a
 * kernel can read what the host put there (upstream's io_addr test does).
 */
#include <VX_config.h>

#define TMC(rs) .insn r 0x0B, 0, 0, x0, rs, x0

    .option arch, +a
    .option norelax

/*
 * void _exit(int status): record the status (atomic unsigned max, see above)
 * and end the calling warp.
 */
    .text
    .globl _exit
    .type _exit, @function
_exit:
    la    t0, __vx_exit_status
    amomaxu.w zero, a0, (t0)
    /* Store the maximum; a warp that raised it between this load and the store
       stores again after us (it got there after our amomaxu), and the last
       store's check reads the final maximum, so 0x88 ends with it. */
2:  lw    t1, 0(t0)
    sw    t1, IO_MPM_EXITCODE(zero)
    fence
    lw    t2, 0(t0)
    bne   t1, t2, 2b
    TMC(x0)
1:  j     1b
    .size _exit, . - _exit

    .section .bss
    .balign 4
    .type __vx_exit_status, @object
__vx_exit_status:
    .zero 4
    .size __vx_exit_status, 4
