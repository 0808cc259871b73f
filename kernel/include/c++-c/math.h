// math.h as a C++ kernel sees it: the C header, then, as C++'s own <math.h> has them,
// <cmath>'s float overloads and templates in the global namespace too, so that
// sqrt(float) or fmin(float, float) computes in float as with Vortex's clang/libc++
// (picolibc's C declarations alone would convert to double, whose library code
// branches on the data).  vxcc puts this directory first for C++ only; with a
// toolchain that has libstdc++, #include_next finds its math.h, and these
// declarations repeat what it already made.
#pragma GCC system_header
#include_next <math.h>

#if defined(__cplusplus) && !defined(VX_CXX_C_MATH_H)
#include <cmath>
/* Only once kernel/include/c++'s <cmath> is complete (this header runs inside it when
 * <cmath> comes first; a later #include <math.h> then declares the names).  A
 * toolchain's own <cmath> leaves this to its own math.h. */
#if defined(VX_CXX_CMATH_DONE)
#define VX_CXX_C_MATH_H

using std::abs;
using std::acos;
using std::acosh;
using std::asin;
using std::asinh;
using std::atan;
using std::atan2;
using std::atanh;
using std::cbrt;
using std::ceil;
using std::copysign;
using std::cos;
using std::cosh;
using std::erf;
using std::erfc;
using std::exp;
using std::exp2;
using std::expm1;
using std::fabs;
using std::fdim;
using std::floor;
using std::fma;
using std::fmax;
using std::fmin;
using std::fmod;
using std::frexp;
using std::hypot;
using std::ldexp;
using std::lgamma;
using std::log;
using std::log10;
using std::log1p;
using std::log2;
using std::logb;
using std::modf;
using std::nearbyint;
using std::nextafter;
using std::nexttoward;
using std::pow;
using std::remainder;
using std::remquo;
using std::rint;
using std::round;
using std::scalbln;
using std::scalbn;
using std::sin;
using std::sinh;
using std::sqrt;
using std::tan;
using std::tanh;
using std::tgamma;
using std::trunc;
#endif
#endif
