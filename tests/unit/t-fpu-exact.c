/*
 * t-fpu-exact.c - the whole of t-fpu.c against sim/fpu.c built without its
 * binary64 fast paths (VX_FPU_NO_FAST), so the exact integer paths are checked
 * on every operand, normal ones included.  This test compiles its own copy of
 * fpu.c; the linker then has no reason to pull fpu.o out of libvxsim.a.
 */
#define VX_FPU_NO_FAST 1
#include "../../sim/fpu.c"
#include "t-fpu.c"
