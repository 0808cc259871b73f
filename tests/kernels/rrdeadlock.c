/*
 * rrdeadlock - a kernel that deadlocks (tests/t5002): main, on warp 0 alone, waits at
 * a barrier for two warps.  The simulator ends it with a deadlock fault after the
 * last issue; vxrec records that in the END record.
 */
#include <vx_intrinsics.h>

int main(void)
{
    vx_barrier(0, 2); /* DEADLOCK_BAR */
    return 0;
}
