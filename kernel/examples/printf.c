/*
 * printf: every task prints one line with vx_printf, from full warps and from
 * the partial warp of the last run, then the odd tasks print a second line
 * from inside a divergent region (vx_split / vx_join).  vx_printf serialises
 * the active lanes, so each line arrives whole in its hart's console slot.
 * Core 0 checks that every task ran once and that vx_printf returned the
 * length of each line.
 */
#include "common.h"

#ifndef N
#define N 22
#endif

static uint32_t ran[N];
static int32_t len_err;

static void print_cb(void *arg)
{
    (void)arg;
    uint32_t i = blockIdx.x;
    /* "even"/"odd" picked with arithmetic: a lane-dependent ?: could become a branch */
    const char *parity = "even\0odd" + 5 * (i & 1);
    int n = vx_printf("task %2u: %c %-4s 0x%03x %5.2f|\n", (unsigned)i, 'A' + (int)(i % 26), parity,
                      (unsigned)(i * 37), (double)((float)i * 0.25f));
    /* the line is 29 characters long while the fields keep their width */
    __atomic_fetch_add(&len_err, (n != 29) & (i < 100), __ATOMIC_RELAXED);
    __atomic_fetch_add(&ran[i], 1, __ATOMIC_RELAXED);

    int tok = vx_split(i & 1);
    if (i & 1) vx_printf("task %2u is odd\n", (unsigned)i);
    vx_join(tok);
}

int main(void)
{
    uint32_t n = N;
    if (vx_spawn_threads(1, &n, 0, print_cb, 0) != 0) return 100;
    global_barrier();
    uint32_t errors = 0;
    if (vx_core_id() == 0) {
        for (uint32_t i = 0; i < n; i++)
            errors += ran[i] != 1;
        errors += (uint32_t)len_err;
    }
    return report("printf", errors);
}
