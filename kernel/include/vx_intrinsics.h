/*
 * vx_intrinsics.h - Vortex GPGPU intrinsics for kernels built with GCC.
 *
 * Source compatible with Vortex v2.x kernel/include/vx_intrinsics.h: the same
 * names and signatures.  Every custom instruction is an R-type word on the
 * custom-0 opcode, emitted with the GNU assembler's `.insn r OPCODE, F3, F7,
 * rd, rs1, rs2`, so no patched toolchain is needed.
 *
 * Differences from Vortex that matter when reading generated code:
 *   - The functions are `static inline` with always_inline, so they also work
 *     at -O0 (C99 `inline` alone would need an external definition).
 *   - Intrinsics whose result depends on the thread mask (vx_active_threads,
 *     vote, shuffle) are volatile asm, so GCC never moves them across a
 *     split, join, pred or tmc.
 *
 * GCC knows nothing of SIMT: every conditional branch it emits must be uniform
 * across the active lanes of a warp (the simulator faults otherwise).  Use
 * vx_split / vx_join (or vx_pred) around code whose control flow depends on the
 * lane; see kernel/examples/diverge.c.
 */
#ifndef VX_INTRINSICS_H
#define VX_INTRINSICS_H

#include <stddef.h>
#include <stdint.h>

#include <VX_config.h>
#include <VX_types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define __UNIFORM__ /* a clang/Vortex-LLVM divergence hint; nothing for GCC */

#define RISCV_CUSTOM0 0x0B
#define RISCV_CUSTOM1 0x2B
#define RISCV_CUSTOM2 0x5B
#define RISCV_CUSTOM3 0x7B

#define VX_INLINE static inline __attribute__((always_inline))

/* ---- CSR access (csr must be a compile-time constant) ---- */

#define csr_read(csr)                                                  \
    ({                                                                 \
        size_t __vx_r;                                                 \
        __asm__ __volatile__("csrr %0, %1" : "=r"(__vx_r) : "i"(csr)); \
        __vx_r;                                                        \
    })

#define csr_write(csr, val)                                                     \
    ({                                                                          \
        size_t __vx_v = (size_t)(val);                                          \
        __asm__ __volatile__("csrw %0, %1" ::"i"(csr), "r"(__vx_v) : "memory"); \
    })

#define csr_swap(csr, val)                           \
    ({                                               \
        size_t __vx_r, __vx_v = (size_t)(val);       \
        __asm__ __volatile__("csrrw %0, %1, %2"      \
                             : "=r"(__vx_r)          \
                             : "i"(csr), "r"(__vx_v) \
                             : "memory");            \
        __vx_r;                                      \
    })

#define csr_read_set(csr, val)                       \
    ({                                               \
        size_t __vx_r, __vx_v = (size_t)(val);       \
        __asm__ __volatile__("csrrs %0, %1, %2"      \
                             : "=r"(__vx_r)          \
                             : "i"(csr), "r"(__vx_v) \
                             : "memory");            \
        __vx_r;                                      \
    })

#define csr_set(csr, val)                                                       \
    ({                                                                          \
        size_t __vx_v = (size_t)(val);                                          \
        __asm__ __volatile__("csrs %0, %1" ::"i"(csr), "r"(__vx_v) : "memory"); \
    })

#define csr_read_clear(csr, val)                     \
    ({                                               \
        size_t __vx_r, __vx_v = (size_t)(val);       \
        __asm__ __volatile__("csrrc %0, %1, %2"      \
                             : "=r"(__vx_r)          \
                             : "i"(csr), "r"(__vx_v) \
                             : "memory");            \
        __vx_r;                                      \
    })

#define csr_clear(csr, val)                                                     \
    ({                                                                          \
        size_t __vx_v = (size_t)(val);                                          \
        __asm__ __volatile__("csrc %0, %1" ::"i"(csr), "r"(__vx_v) : "memory"); \
    })

/* ---- warp control (custom-0, funct7 0) ---- */

/*
 * Warp-control instructions read their scalar operands (a mask, a barrier's id and
 * count) from the warp's last active lane.  Given as "r" operands, constants can come
 * from a register GCC set while fewer lanes were active (it loads -1 once for two
 * vx_tmc(-1) calls with a vx_tmc(3) between), which the lanes turned on since never
 * wrote: vx_tmc(-1) would read garbage, often 0, and end the warp.  So a constant
 * operand is loaded inside the asm, in the lanes active at the instruction (t0, t1),
 * as vx_tmc_one does; values computed at run time are the caller's to compute with
 * the lanes that execute the instruction (kernel/README.md, "SIMT rules").
 */

/* Set the thread mask of the calling warp; 0 ends the warp. */
VX_INLINE void vx_tmc(int thread_mask)
{
    if (__builtin_constant_p(thread_mask))
        __asm__ volatile("li t0, %1\n\t.insn r %0, 0, 0, x0, t0, x0" ::"i"(RISCV_CUSTOM0),
                         "i"(thread_mask)
                         : "t0", "memory");
    else
        __asm__ volatile(".insn r %0, 0, 0, x0, %1, x0" ::"i"(RISCV_CUSTOM0), "r"(thread_mask)
                         : "memory");
}

/* End the calling warp (tmc 0). */
VX_INLINE void vx_tmc_zero(void)
{
    __asm__ volatile(".insn r %0, 0, 0, x0, x0, x0" ::"i"(RISCV_CUSTOM0) : "memory");
}

/* Keep only lane 0 active.  The 1 is loaded inside the asm (clobbering a0), as Vortex
 * does: given as an "r" operand, GCC may reuse a register it set to 1 while fewer lanes
 * were active, and tmc would read a lane that never wrote it (tmc 0 ends the warp). */
VX_INLINE void vx_tmc_one(void)
{
    __asm__ volatile("li a0, 1\n\t.insn r %0, 0, 0, x0, a0, x0" ::"i"(RISCV_CUSTOM0)
                     : "a0", "memory");
}

/* PRED with rd field x0 (vx_pred) or x1 (vx_pred_n: the condition negated). */
#define VX_PRED_(rd, condition, thread_mask)                                                       \
    do {                                                                                           \
        if (__builtin_constant_p(thread_mask))                                                     \
            __asm__ volatile("li t0, %2\n\t.insn r %0, 5, 0, " rd ", %1, t0" ::"i"(RISCV_CUSTOM0), \
                             "r"(condition), "i"(thread_mask)                                      \
                             : "t0", "memory");                                                    \
        else                                                                                       \
            __asm__ volatile(".insn r %0, 5, 0, " rd ", %1, %2" ::"i"(RISCV_CUSTOM0),              \
                             "r"(condition), "r"(thread_mask)                                      \
                             : "memory");                                                          \
    } while (0)

/* Active lanes := lanes whose condition bit 0 is 1; if none, thread_mask. */
VX_INLINE void vx_pred(int condition, int thread_mask)
{
    VX_PRED_("x0", condition, thread_mask);
}

/* As vx_pred with the condition negated. */
VX_INLINE void vx_pred_n(int condition, int thread_mask)
{
    VX_PRED_("x1", condition, thread_mask);
}

typedef void (*vx_wspawn_pfn)(void);

/*
 * Activate warps 1..num_warps-1 of this core at func_ptr (lane 0 only) once the
 * caller is the only active warp; the caller waits until then.  vx_wspawn(1, 0)
 * therefore waits until every other warp of the core has ended.
 */
VX_INLINE void vx_wspawn(int num_warps, vx_wspawn_pfn func_ptr)
{
    __asm__ volatile(".insn r %0, 1, 0, x0, %1, %2" ::"i"(RISCV_CUSTOM0), "r"(num_warps),
                     "r"(func_ptr)
                     : "memory");
}

/* Diverge on bit 0 of predicate; returns the token for vx_join. */
VX_INLINE int vx_split(int predicate)
{
    int ret;
    __asm__ volatile(".insn r %1, 2, 0, %0, %2, x0"
                     : "=r"(ret)
                     : "i"(RISCV_CUSTOM0), "r"(predicate)
                     : "memory");
    return ret;
}

/* As vx_split with the predicate negated. */
VX_INLINE int vx_split_n(int predicate)
{
    int ret;
    __asm__ volatile(".insn r %1, 2, 0, %0, %2, x1"
                     : "=r"(ret)
                     : "i"(RISCV_CUSTOM0), "r"(predicate)
                     : "memory");
    return ret;
}

/* Reconverge at the matching vx_split. */
VX_INLINE void vx_join(int stack_ptr)
{
    __asm__ volatile(".insn r %0, 3, 0, x0, %1, x0" ::"i"(RISCV_CUSTOM0), "r"(stack_ptr)
                     : "memory");
}

/*
 * Wait until num_warps warps reached barrier barrier_id.  Bit 31 of the id
 * makes it a global barrier, and num_warps then counts cores.
 */
VX_INLINE void vx_barrier(int barrier_id, int num_warps)
{
    if (__builtin_constant_p(barrier_id) && __builtin_constant_p(num_warps))
        __asm__ volatile(
            "li t0, %1\n\tli t1, %2\n\t.insn r %0, 4, 0, x0, t0, t1" ::"i"(RISCV_CUSTOM0),
            "i"(barrier_id), "i"(num_warps)
            : "t0", "t1", "memory");
    else
        __asm__ volatile(".insn r %0, 4, 0, x0, %1, %2" ::"i"(RISCV_CUSTOM0), "r"(barrier_id),
                         "r"(num_warps)
                         : "memory");
}

VX_INLINE void vx_fence(void)
{
    __asm__ volatile("fence iorw, iorw" ::: "memory");
}

/* ---- identity (read-only CSRs) ---- */

#define VX_CSR_GETTER(name, type, csr)                 \
    VX_INLINE __attribute__((const)) type name(void)   \
    {                                                  \
        type ret;                                      \
        __asm__("csrr %0, %1" : "=r"(ret) : "i"(csr)); \
        return ret;                                    \
    }

VX_CSR_GETTER(vx_thread_id, int, VX_CSR_THREAD_ID) /* lane within the warp */
VX_CSR_GETTER(vx_warp_id, int, VX_CSR_WARP_ID)     /* warp within the core */
VX_CSR_GETTER(vx_core_id, int, VX_CSR_CORE_ID)     /* global core index */
VX_CSR_GETTER(vx_num_threads, int, VX_CSR_NUM_THREADS)
VX_CSR_GETTER(vx_num_warps, int, VX_CSR_NUM_WARPS)
VX_CSR_GETTER(vx_num_cores, int, VX_CSR_NUM_CORES) /* total cores, all clusters */
VX_CSR_GETTER(vx_hart_id, int, VX_CSR_MHARTID)     /* global thread id */

#undef VX_CSR_GETTER

/* This warp's current thread mask (changes with tmc/split/join/pred). */
VX_INLINE size_t vx_active_threads(void)
{
    size_t ret;
    __asm__ volatile("csrr %0, %1" : "=r"(ret) : "i"(VX_CSR_ACTIVE_THREADS));
    return ret;
}

/* Mask of the core's active warps. */
VX_INLINE size_t vx_active_warps(void)
{
    size_t ret;
    __asm__ volatile("csrr %0, %1" : "=r"(ret) : "i"(VX_CSR_ACTIVE_WARPS));
    return ret;
}

/* ---- vote and shuffle (custom-0, funct7 1) ---- */

#define VX_VOTE(name, f3)                                       \
    VX_INLINE size_t name(int predicate)                        \
    {                                                           \
        size_t ret;                                             \
        __asm__ volatile(".insn r %1, " #f3 ", 1, %0, %2, x0"   \
                         : "=r"(ret)                            \
                         : "i"(RISCV_CUSTOM0), "r"(predicate)); \
        return ret;                                             \
    }

VX_VOTE(vx_vote_all, 0)    /* 1 if every active lane's predicate is true */
VX_VOTE(vx_vote_any, 1)    /* 1 if any active lane's predicate is true */
VX_VOTE(vx_vote_uni, 2)    /* 1 if the active lanes all agree */
VX_VOTE(vx_vote_ballot, 3) /* bit t set if lane t is active and its predicate is true */

#undef VX_VOTE

/*
 * Shuffles: the control word packs b (delta, xor mask or index) in bits [5:0],
 * c (clamp) in [11:6] and the segment mask in [17:12].  A lane whose source is
 * out of its segment keeps its own value.
 */
#define VX_SHFL(name, f3)                                                       \
    VX_INLINE size_t name(size_t value, int bval, int cval, int mask)           \
    {                                                                           \
        size_t ret;                                                             \
        int ctl = ((mask & 0x3f) << 12) | ((cval & 0x3f) << 6) | (bval & 0x3f); \
        __asm__ volatile(".insn r %1, " #f3 ", 1, %0, %2, %3"                   \
                         : "=r"(ret)                                            \
                         : "i"(RISCV_CUSTOM0), "r"(value), "r"(ctl));           \
        return ret;                                                             \
    }

VX_SHFL(vx_shfl_up, 4)
VX_SHFL(vx_shfl_down, 5)
VX_SHFL(vx_shfl_bfly, 6)
VX_SHFL(vx_shfl_idx, 7)

#undef VX_SHFL

/* Write this core's performance counters to the IO window (vx_perf.c), as the
 * Vortex runtime does at exit; vxrr's own start-up does not call it. */
void vx_perf_dump(void);

#ifdef __cplusplus
}
#endif

#endif /* VX_INTRINSICS_H */
