// cxxstd - the standard C++ headers vxcc provides (kernel/include/c++/), used the way
// kernels use them; tests/t2004-vxcc.py checks the output line by line (the same
// source built for the host with -DHOST and libstdc++ prints the same).
#include <algorithm>
#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>
#ifdef HOST
#include <cstdio>
#define OUT(...) std::printf(__VA_ARGS__)
#else
#include <vx_print.h>
#define OUT(...) vx_printf(__VA_ARGS__)
#endif
struct P { int a; P(int x) : a(x * 2) {} };
int main() {
    std::uint32_t u = 7; std::int64_t w = -5; std::size_t n = sizeof(std::max_align_t) > 0;
    OUT("ints %u %lld %u\n", (unsigned)u, (long long)w, (unsigned)n);
    OUT("minmax %d %d %d %.2f\n", std::min(3, 9), std::max(3, 9), std::clamp(12, 0, 10), std::max(1.5, -2.0));
    int a = 1, b = 2; std::swap(a, b); OUT("swap %d %d\n", a, b);
    int arr[5]; std::fill(arr, arr + 5, 4); int dst[5]; std::copy(arr, arr + 5, dst); OUT("fill %d %d\n", dst[0], dst[4]);
    auto pr = std::make_pair(1, 2.5f); OUT("pair %d %.1f\n", pr.first, (double)pr.second);
    alignas(P) unsigned char buf[sizeof(P)]; P *p = new (buf) P(21); OUT("new %d\n", p->a);
    volatile float xf = 2.0f; volatile double xd = 2.0;
    OUT("math %.6f %.6f %.6f %.6f\n", (double)std::sqrt(xf), std::sqrt(xd), (double)std::pow(xf, 10.0f), std::floor(-2.5));
    OUT("abs %d %.1f %ld\n", std::abs(-4), (double)std::abs(-1.5f), std::abs(-7L));
    OUT("class %d %d %d %d\n", (int)std::isnan(std::numeric_limits<float>::quiet_NaN()), (int)std::isinf(std::numeric_limits<double>::infinity()),
        (int)std::isfinite(1.0), (int)std::signbit(-0.0));
    OUT("limits %d %u %lld %g %g %d\n", std::numeric_limits<int>::max(), std::numeric_limits<unsigned>::max(),
        std::numeric_limits<long long>::min(), (double)std::numeric_limits<float>::epsilon(), std::numeric_limits<double>::lowest(),
        std::numeric_limits<float>::digits);
    OUT("traits %d %d\n", (int)std::is_same<std::remove_reference_t<int &>, int>::value, (int)std::is_same<int, long>::value);
    char s[8]; std::strcpy(s, "abc"); OUT("str %u %d\n", (unsigned)std::strlen(s), std::memcmp(s, "abd", 3) < 0);
    OUT("limits.h %d %g\n", INT_MAX, (double)FLT_MAX);
    // C++'s promotions: float with an integer computes in double; integers as doubles
    volatile int nine = 9;
    OUT("promote %.1f %d %.1f %d %d\n", std::pow(xf, 10), (int)std::is_same_v<decltype(std::pow(2.0f, 10)), double>,
        std::sqrt(nine), (int)std::isnan(nine), (int)std::is_same_v<decltype(std::pow(2.0f, 2.0f)), float>);
    std::pair<int, float> pf2(1, 2.5f);
    int aa[3] = {1, 2, 3}, bb[3] = {4, 5, 6};
    std::swap(aa, bb);
    OUT("more %d %.1f %d %d %d %.5g %d %d %.1f\n", pf2.first, (double)pf2.second, aa[0], bb[2],
        std::numeric_limits<int>::digits10, (double)std::numeric_limits<const float>::max(),
        std::min({3, 1, 2}), std::max({3, 1, 2}), (double)std::copysign(2.0f, -1.0f));
    assert(u == 7);
    return 0;
}
