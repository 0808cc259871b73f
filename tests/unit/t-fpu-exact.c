/*
 * t-fpu-exact.c - the whole of t-fpu.c against sim/fpu.c built without its
 * binary64 fast paths (VX_FPU_NO_FAST), so the exact integer paths are checked
 * on every operand, normal ones included.  This test compiles its own copy of
 * fpu.c; the linker then has no reason to pull fpu.o out of libvxsim.a.
 */
#define VX_FPU_NO_FAST 1
#include "../../sim/fpu.c"
#include "tap.h"

/*
 * isqrt64's r-- correction, called from t-fpu.c's main (from a coverage review).
 * Significand 0x9bba5b with an even exponent is the only binary32 input whose
 * double estimate is one too large: sqrt((double)(0x9bba5b << 39)) gives
 * 0x8d2f5603, the floor is 0x8d2f5602.  The fsqrt result cannot show the
 * correction (r | sticky is 0x8d2f5603 either way), so it is checked here.
 */
static void isqrt64_corrections(void)
{
    uint64_t n = UINT64_C(0x9bba5b) << 39, r = UINT64_C(0x8d2f5602);
    is_u64(isqrt64(n), r, "isqrt64(0x9bba5b << 39) = 0x8d2f5602 (the estimate is one too large)");
    is_u64(isqrt64(r * r), r, "isqrt64(0x8d2f5602^2) = 0x8d2f5602");
    is_u64(isqrt64(r * r - 1), r - 1, "isqrt64(0x8d2f5602^2 - 1) = 0x8d2f5601");
}

#include "t-fpu.c"
