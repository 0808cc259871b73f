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

volatile int sink;

/* run by every lane of warp 0: lanes other than 0 run under main's spawn call too */
__attribute__((noinline)) void touch(int v)
{
    sink = v;
}

static void cb(void *arg)
{
    (void)arg;
    if (vx_warp_id() != 0) work((int)blockIdx.x); /* uniform per warp */
    if (vx_warp_id() == 0) touch((int)blockIdx.x);
}

int main(void)
{
    work(21);
    uint32_t n = 8;
    return vx_spawn_threads(1, &n, 0, cb, 0);
}
