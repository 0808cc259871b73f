/*
 * rrbt - backtraces through the runtime's assembly (tests/t5001.py): vx_printf
 * runs its formatting under vx_serial, and callbacks run under the spawn glue.
 * Built with -O0 -g.
 */
#include <vx_print.h>
#include <vx_spawn.h>

__attribute__((noinline)) void report_value(int v)
{
    vx_printf("v=%d\n", v); /* REPORT */
}

__attribute__((noinline)) void work(int v)
{
    report_value(v * 2);
}

static void cb(void *arg)
{
    (void)arg;
    if (vx_warp_id() != 0) work((int)blockIdx.x); /* uniform per warp */
}

int main(void)
{
    work(21);
    uint32_t n = 8;
    return vx_spawn_threads(1, &n, 0, cb, 0);
}
