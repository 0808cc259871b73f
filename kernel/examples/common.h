/*
 * common.h - helpers shared by the example kernels.
 *
 * main() runs once per core.  The examples keep all cores in step with a
 * global barrier between phases, let vx_spawn_threads spread each phase over
 * the cores, and have core 0 check the result and print the verdict.  The
 * exit status is the number of errors (crt0 makes the kernel's exit status the
 * largest code any core returned; cores other than 0 return 0).
 */
#ifndef EXAMPLES_COMMON_H
#define EXAMPLES_COMMON_H

#include <stdint.h>

#include <vx_intrinsics.h>
#include <vx_print.h>
#include <vx_spawn.h>

/* Wait until every core got here (only warp 0 may be active on each core). */
static inline void global_barrier(void)
{
    int n = vx_num_cores();
    if (n > 1) vx_barrier((int)0x80000000, n);
}

/* Print the verdict (core 0) and turn an error count into main's return value. */
static inline int report(const char *name, uint32_t errors)
{
    if (vx_core_id() != 0) return 0;
    if (errors == 0)
        vx_printf("%s: PASSED\n", name);
    else
        vx_printf("%s: FAILED (%u errors)\n", name, (unsigned)errors);
    return errors > 255 ? 255 : (int)errors;
}

#endif /* EXAMPLES_COMMON_H */
