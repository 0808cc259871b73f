/*
 * assert.h - picolibc's assert, made safe for conditions that differ between the
 * lanes of a warp.
 *
 * GCC compiles assert(e) to a plain branch, and a plain branch on which the active
 * lanes disagree faults ("divergent branch") before the message is printed.  Here
 * the lanes where e fails are split off (vx_split / vx_join) and report as
 * picolibc's assert does: the message (each lane in its console slot), then abort,
 * which stops the kernel with an ebreak fault (vx_syscalls.c).  Like any <assert.h>
 * it may be included again after NDEBUG changed.
 */
#include_next <assert.h>

#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) __vx_assert(!(e), __FILE__, __LINE__, __ASSERT_FUNC, #e)
#endif

#ifndef VX_ASSERT_H
#define VX_ASSERT_H

#include <vx_intrinsics.h>

#ifdef __cplusplus
extern "C" {
#endif

static inline __attribute__((always_inline)) void
__vx_assert(int failed, const char *file, int line, const char *func, const char *expr)
{
    int token = vx_split(failed);
    if (failed) __assert_func(file, line, func, expr); /* uniform under the split */
    vx_join(token);
}

#ifdef __cplusplus
}
#endif

#endif /* VX_ASSERT_H */
