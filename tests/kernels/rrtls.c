/* rrtls - user thread-locals for vx-tls's condition forms (t5001 TlsFormTests): a
 * struct with unsigned and signed bitfields, a char, an array, a float, a short in an
 * anonymous member, and a float alone.  Task t (blockIdx.x, 0..7) stores
 * a = t & 7, b = 31 - t, c = 200 + t, d = t - 20, arr[1] = t, f = t / 2, s = -t and
 * tls_f = t / 4, then calls probe(t). */
#include <stdint.h>
#include <vx_intrinsics.h>
#include <vx_spawn.h>

/* absorbs crt0's over-long line range (see rrtest.c) */
__attribute__((noinline)) void rr_pad(void)
{
    __asm__ volatile(".rept 16\n nop\n .endr");
}

struct S {
    unsigned a : 3;
    unsigned b : 5;
    unsigned char c;
    int d : 6;
    int arr[2];
    float f;

    struct {
        short s;
    };
};
__thread struct S tls_s;
__thread float tls_f;
int out[16];

__attribute__((noinline)) int probe(int x)
{
    return x + 1; /* PROBE */
}

static void body(void *arg)
{
    (void)arg;
    int t = (int)blockIdx.x;
    tls_s.a = t & 7;
    tls_s.b = 31 - t;
    tls_s.c = 200 + t;
    tls_s.d = t - 20;
    tls_s.arr[1] = t;
    tls_s.f = t * 0.5f;
    tls_s.s = -t;
    tls_f = t * 0.25f;
    out[t] = probe(t);
}

int main(void)
{
    rr_pad();
    uint32_t n = 8;
    if (vx_core_id() == 0) vx_spawn_threads(1, &n, 0, body, 0);
    return 0;
}
