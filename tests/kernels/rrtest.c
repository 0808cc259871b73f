/*
 * rrtest - a small kernel for the reverse-debugging tests (tests/t5*.py).
 *
 * Every task calls middle() -> leaf() (for step, next, finish in both
 * directions), reads the global `scale` (read watchpoints) and stores into the
 * global `total` (written by every lane of every warp: write watchpoints).  The
 * marker comments name lines the tests look up; keep one marker per line.
 * Built with -O0 -g (one instruction group per line); no lane-dependent branches (Vortex faults on them).
 */
#include <stdint.h>

#include <vx_intrinsics.h>
#include <vx_spawn.h>

/*
 * crt0.S's debug info claims a few bytes past the end of its code (its DWARF
 * range was not shrunk by linker relaxation), so GDB finds no line numbers for
 * the first function linked after it.  This one absorbs that; it comes first.
 */
__attribute__((noinline)) void rr_pad(void)
{
    __asm__ volatile(".rept 16\n nop\n .endr");
}

int total;     /* last value stored by any lane */
int scale = 3; /* read by every lane */
int out[64];

__attribute__((noinline)) int leaf(int x)
{
    int y = x * scale; /* LEAF_MUL */
    y = y + 1;         /* LEAF_ADD */
    return y;          /* LEAF_RET */
}

__attribute__((noinline)) int middle(int x)
{
    int r = leaf(x); /* MID_CALL */
    r = r + 2;       /* MID_ADD */
    return r;        /* MID_RET */
}

static void body(void *arg)
{
    (void)arg;
    int i = (int)blockIdx.x; /* BODY_I */
    int v = middle(i);       /* BODY_CALL */
    out[i] = v;              /* BODY_OUT */
    total = v;               /* BODY_TOTAL */
}

int main(void)
{
    rr_pad();
    uint32_t n = 32;
    if (vx_core_id() == 0) vx_spawn_threads(1, &n, 0, body, 0); /* MAIN_SPAWN */
    return 0;
}
