/*
 * VX_types.h - CSR and device-configuration register numbers of the Vortex
 * GPGPU (v2.x), under the names the Vortex kernel headers use, so kernels
 * written for Vortex compile unchanged against the vxrr runtime.
 *
 * Values are the v2.x-master numbers (research notes §2).  Do not mix them with
 * the v1.x numbering (LTID 0xCC1, ...), which is gone.
 */
#ifndef VX_TYPES_H
#define VX_TYPES_H

/* ---- device configuration registers (host-written) ---- */
#define VX_CSR_ADDR_BITS          12
#define VX_DCR_ADDR_BITS          12
#define VX_DCR_BASE_STATE_BEGIN   0x001
#define VX_DCR_BASE_STARTUP_ADDR0 0x001
#define VX_DCR_BASE_STARTUP_ADDR1 0x002
#define VX_DCR_BASE_STARTUP_ARG0  0x003
#define VX_DCR_BASE_STARTUP_ARG1  0x004
#define VX_DCR_BASE_MPM_CLASS     0x005
#define VX_DCR_BASE_STATE_END     0x006
#define VX_DCR_MPM_CLASS_NONE     0
#define VX_DCR_MPM_CLASS_CORE     1
#define VX_DCR_MPM_CLASS_MEM      2

/* ---- standard CSRs ---- */
#define VX_CSR_FFLAGS   0x001
#define VX_CSR_FRM      0x002
#define VX_CSR_FCSR     0x003
#define VX_CSR_SATP     0x180
#define VX_CSR_PMPCFG0  0x3A0
#define VX_CSR_PMPADDR0 0x3B0
#define VX_CSR_MSTATUS  0x300
#define VX_CSR_MISA     0x301
#define VX_CSR_MEDELEG  0x302
#define VX_CSR_MIDELEG  0x303
#define VX_CSR_MIE      0x304
#define VX_CSR_MTVEC    0x305
#define VX_CSR_MSCRATCH 0x340 /* per core; kernel argument at reset */
#define VX_CSR_MEPC     0x341
#define VX_CSR_MCAUSE   0x342
#define VX_CSR_MNSTATUS 0x744

/* ---- performance counters ---- */
#define VX_CSR_MPM_BASE       0xB00
#define VX_CSR_MPM_BASE_H     0xB80
#define VX_CSR_MPM_USER       0xB03
#define VX_CSR_MPM_USER_H     0xB83
#define VX_CSR_MCYCLE         0xB00
#define VX_CSR_MCYCLE_H       0xB80
#define VX_CSR_MPM_RESERVED   0xB01
#define VX_CSR_MPM_RESERVED_H 0xB81
#define VX_CSR_MINSTRET       0xB02
#define VX_CSR_MINSTRET_H     0xB82

/* ---- machine information ---- */
#define VX_CSR_MVENDORID 0xF11
#define VX_CSR_MARCHID   0xF12
#define VX_CSR_MIMPID    0xF13
#define VX_CSR_MHARTID   0xF14 /* global thread id = (core*NW + warp)*NT + lane */

/* ---- GPGPU CSRs (read only) ---- */
#define VX_CSR_THREAD_ID      0xCC0 /* lane within the warp */
#define VX_CSR_WARP_ID        0xCC1 /* warp within the core */
#define VX_CSR_CORE_ID        0xCC2 /* global core index */
#define VX_CSR_ACTIVE_WARPS   0xCC3 /* mask of the core's active warps */
#define VX_CSR_ACTIVE_THREADS 0xCC4 /* this warp's thread mask */
#define VX_CSR_NUM_THREADS    0xFC0 /* threads per warp */
#define VX_CSR_NUM_WARPS      0xFC1 /* warps per core */
#define VX_CSR_NUM_CORES      0xFC2 /* total cores (all clusters) */
#define VX_CSR_LOCAL_MEM_BASE 0xFC3

#endif /* VX_TYPES_H */
