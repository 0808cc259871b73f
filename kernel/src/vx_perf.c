/*
 * vx_perf.c - vx_perf_dump: the machine performance counters into the IO window,
 * where a Vortex host reads them (the v2.x runtime's layout).
 *
 * Core c writes its 32 counters (mcycle 0xB00, minstret 0xB02 and the MPM
 * counters 0xB03..0xB1F, which vxsim reads as 0), each as a 64-bit
 * little-endian pair (low half from 0xB00 + i, high half from 0xB80 + i), at
 * IO_MPM_ADDR + 256 * c + 8 * i.  Counter 1's slot is left alone: for core 0
 * it is the exit status word at IO_MPM_EXITCODE.
 */
#include <VX_config.h>
#include <VX_types.h>
#include <stdint.h>
#include <vx_intrinsics.h>

/* csr_read needs its CSR number as a constant: one statement per counter. */
#define PERF_PAIR(i)                                          \
    do {                                                      \
        out[2 * (i)] = csr_read(VX_CSR_MPM_BASE + (i));       \
        out[2 * (i) + 1] = csr_read(VX_CSR_MPM_BASE_H + (i)); \
    } while (0)
#define PERF_4(i)           \
    do {                    \
        PERF_PAIR(i);       \
        PERF_PAIR((i) + 1); \
        PERF_PAIR((i) + 2); \
        PERF_PAIR((i) + 3); \
    } while (0)

void vx_perf_dump(void)
{
    uintptr_t at = IO_MPM_ADDR + 256u * (uint32_t)vx_core_id();
    __asm__("" : "+r"(at)); /* GCC takes a small constant address for a null pointer */
    volatile uint32_t *out = (volatile uint32_t *)at;
    PERF_PAIR(0);
    PERF_PAIR(2);
    PERF_PAIR(3);
    PERF_4(4);
    PERF_4(8);
    PERF_4(12);
    PERF_4(16);
    PERF_4(20);
    PERF_4(24);
    PERF_4(28);
}
