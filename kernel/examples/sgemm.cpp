/*
 * sgemm (C++): C = A x B for N x N matrices of floats, one task per element
 * of C over a 2-D grid (blockIdx.x = column, blockIdx.y = row).  The result is
 * checked with exact integer arithmetic, in parallel (one task per row and one
 * per column): every row sum and every column sum of C against closed forms
 * (rowsum(C)_r = sum_k A[r][k] * rowsum(B)_k, colsum(C)_c = sum_k colsum(A)_k *
 * B[k][c]), plus every element of the first and last rows.
 *
 * The inputs are small integers, so every float product and sum is exact.
 * -DN=... changes the size: N = 128 is about 3.9M warp-instructions on the
 * default 1x1x4x4 platform, N = 256 about 28M, N = 288 about 40M.
 */
#include "common.h"

#ifndef N
#define N 16
#endif

namespace {

float A[N * N], B[N * N], C[N * N];

template <typename T> inline T in_a(uint32_t r, uint32_t c)
{
    return T((int)((r * 7 + c * 3) % 17) - 8);
}

template <typename T> inline T in_b(uint32_t r, uint32_t c)
{
    return T((int)((r * 5 + c * 11) % 13) - 6);
}

struct Matrices {
    const float *a;
    const float *b;
    float *c;
    uint32_t n;
};

// A global object with a constructor: crt0 runs constructors once (core 0).
struct CtorCheck {
    uint32_t magic;
    CtorCheck() : magic(0x5eed) {}
};
CtorCheck ctor_check;

void init_cb(void *)
{
    uint32_t col = blockIdx.x, row = blockIdx.y;
    A[row * N + col] = in_a<float>(row, col);
    B[row * N + col] = in_b<float>(row, col);
}

void sgemm_cb(void *arg)
{
    const Matrices *m = static_cast<const Matrices *>(arg);
    uint32_t col = blockIdx.x, row = blockIdx.y, n = m->n;
    const float *a = m->a + row * n;
    const float *b = m->b + col;
    float sum = 0.0f;
    for (uint32_t k = 0; k < n; k++)
        sum += a[k] * b[k * n];
    m->c[row * n + col] = sum;
}

uint32_t errors;
int32_t rsb[N], csa[N]; // rowsum(B)_k, colsum(A)_k

// Every checking task below is branch-free in its data: GCC does not emit
// split/join, so lanes of one warp must not disagree about a branch.
void sums_cb(void *)
{
    uint32_t k = blockIdx.x;
    int32_t r = 0, c = 0;
    for (uint32_t j = 0; j < N; j++) {
        r += in_b<int32_t>(k, j);
        c += in_a<int32_t>(j, k);
    }
    rsb[k] = r;
    csa[k] = c;
}

void count(uint32_t bad)
{
    __atomic_fetch_add(&errors, bad, __ATOMIC_RELAXED);
}

void check_row_cb(void *)
{
    uint32_t r = blockIdx.x;
    int64_t want = 0, got = 0;
    for (uint32_t k = 0; k < N; k++)
        want += (int64_t)in_a<int32_t>(r, k) * rsb[k];
    for (uint32_t c = 0; c < N; c++)
        got += (int32_t)C[r * N + c];
    count(got != want);
}

void check_col_cb(void *)
{
    uint32_t c = blockIdx.x;
    int64_t want = 0, got = 0;
    for (uint32_t k = 0; k < N; k++)
        want += (int64_t)csa[k] * in_b<int32_t>(k, c);
    for (uint32_t r = 0; r < N; r++)
        got += (int32_t)C[r * N + c];
    count(got != want);
}

// Element (r, c) for r in {0, N-1}: blockIdx.y selects the row.
void check_elem_cb(void *)
{
    uint32_t c = blockIdx.x, r = blockIdx.y * (N - 1);
    int32_t want = 0;
    for (uint32_t k = 0; k < N; k++)
        want += in_a<int32_t>(r, k) * in_b<int32_t>(k, c);
    count((int32_t)C[r * N + c] != want);
}

} // namespace

int main()
{
    uint32_t grid[2] = {N, N};
    Matrices m = {A, B, C, N};
    if (vx_core_id() == 0)
        vx_printf("sgemm: %ux%u\n", (unsigned)N, (unsigned)N);
    if (vx_spawn_threads(2, grid, nullptr, init_cb, nullptr) != 0)
        return 100;
    global_barrier();
    if (vx_spawn_threads(2, grid, nullptr, sgemm_cb, &m) != 0)
        return 100;
    global_barrier();
    uint32_t n = N, edge[2] = {N, N > 1 ? 2u : 1u};
    if (vx_spawn_threads(1, &n, nullptr, sums_cb, nullptr) != 0)
        return 100;
    global_barrier(); // rsb and csa are complete on every core
    if (vx_spawn_threads(1, &n, nullptr, check_row_cb, nullptr) != 0 ||
        vx_spawn_threads(1, &n, nullptr, check_col_cb, nullptr) != 0 ||
        vx_spawn_threads(2, edge, nullptr, check_elem_cb, nullptr) != 0)
        return 100;
    global_barrier();
    if (vx_core_id() == 0 && ctor_check.magic != 0x5eed) {
        vx_printf("sgemm: the global constructor did not run\n");
        errors++;
    }
    return report("sgemm", errors);
}
