/*
 * VX_config.h - platform constants of the Vortex GPGPU (v2.x, XLEN 32) under
 * the names of Vortex's generated VX_config.h, matching the vxrr simulator's
 * memory map (sim/vx_sim.h, DESIGN.md §1).
 *
 * NUM_CORES / NUM_WARPS / NUM_THREADS are only the defaults of the default
 * platform (1 x 1 x 4 x 4).  The simulator's shape is chosen at run time, so
 * kernels and the runtime always read the VX_CSR_NUM_* CSRs instead.
 */
#ifndef VX_CONFIG_H
#define VX_CONFIG_H

#ifndef XLEN
#define XLEN 32
#endif
#define XLEN_32 1

#ifndef NUM_CLUSTERS
#define NUM_CLUSTERS 1
#endif
#ifndef NUM_CORES
#define NUM_CORES 1
#endif
#ifndef NUM_WARPS
#define NUM_WARPS 4
#endif
#ifndef NUM_THREADS
#define NUM_THREADS 4
#endif
#ifndef NUM_BARRIERS
#define NUM_BARRIERS ((NUM_WARPS / 2) > 1 ? (NUM_WARPS / 2) : 1)
#endif

#define MEM_BLOCK_SIZE 64

/* Kernel image and entry point. */
#define STARTUP_ADDR 0x80000000

/* IO window: console bytes, performance dump and the exit-code word. */
#define IO_BASE_ADDR    0x00000040
#define IO_COUT_ADDR    0x00000040 /* one byte slot per hart: + (mhartid & 63) */
#define IO_COUT_SIZE    64
#define IO_MPM_ADDR     0x00000080
#define IO_MPM_EXITCODE (IO_MPM_ADDR + 8) /* 0x88: kernel exit status (32-bit word) */
#define IO_END_ADDR     0x00010000
#define USER_BASE_ADDR  IO_END_ADDR /* host buffers (vx_mem_alloc) start here */

/* Per-thread stacks: hart h has sp = STACK_BASE_ADDR - (h << STACK_LOG2_SIZE). */
#define STACK_BASE_ADDR 0xFFFF0000
#define STACK_LOG2_SIZE 13
#define STACK_SIZE      (1 << STACK_LOG2_SIZE)

/* Per-core local ("shared") memory. */
#define LMEM_LOG_SIZE  14
#define LMEM_BASE_ADDR STACK_BASE_ADDR
#define LMEM_SIZE      (1 << LMEM_LOG_SIZE)

#define PAGE_TABLE_BASE_ADDR 0xF0000000

#endif /* VX_CONFIG_H */
