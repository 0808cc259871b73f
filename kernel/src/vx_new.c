/*
 * vx_new.c - the C++ heap operators and the ABI's pure-virtual handler, for kernels
 * built without libstdc++ (Debian's cross g++ has none).
 *
 * A class with a virtual destructor makes GCC emit a "deleting destructor" that calls
 * operator delete(void *, size_t), so such a class did not link even when the kernel
 * never used the heap.  The operators are here under their Itanium-ABI names (ilp32:
 * size_t is unsigned int, 'j'), on picolibc's malloc and free, which are not made for
 * several threads at once: call new and delete from one lane (kernel/README.md).
 * Kernels are built with -fno-exceptions: a failing new that may throw prints why
 * and stops the kernel (abort: an ebreak fault, vxsim exits 3), as libstdc++ built
 * without exceptions does; the nothrow forms return NULL.
 */
#include <stddef.h>
#include <stdlib.h>
#include <vx_print.h>

/* std::nothrow (its type is an empty struct: one byte) */
const struct vx_nothrow {
    char unused;
} _ZSt7nothrow = {0};

void *_Znwj(size_t n);
void *_Znaj(size_t n);
void *_ZnwjRKSt9nothrow_t(size_t n, const struct vx_nothrow *t);
void *_ZnajRKSt9nothrow_t(size_t n, const struct vx_nothrow *t);
void *_ZnwjSt11align_val_t(size_t n, size_t al);
void *_ZnajSt11align_val_t(size_t n, size_t al);
void _ZdlPv(void *p);
void _ZdaPv(void *p);
void _ZdlPvj(void *p, size_t n);
void _ZdaPvj(void *p, size_t n);
void _ZdlPvRKSt9nothrow_t(void *p, const struct vx_nothrow *t);
void _ZdaPvRKSt9nothrow_t(void *p, const struct vx_nothrow *t);
void _ZdlPvSt11align_val_t(void *p, size_t al);
void _ZdaPvSt11align_val_t(void *p, size_t al);
void _ZdlPvjSt11align_val_t(void *p, size_t n, size_t al);
void _ZdaPvjSt11align_val_t(void *p, size_t n, size_t al);
void __cxa_pure_virtual(void);
void __cxa_deleted_virtual(void);

/* malloc(0) may return NULL: new of 0 bytes gives a unique pointer all the same */
static void *get(size_t n, size_t al)
{
    if (n == 0) n = 1;
    if (al <= 8) return malloc(n);
    /* (rounded up to a multiple of al, as aligned_alloc wants: no room for that is no
     * memory, not the few bytes the sum wraps to) */
    if (n > (size_t)-1 - (al - 1)) return NULL;
    return aligned_alloc(al, (n + al - 1) / al * al);
}

static void *get_or_stop(size_t n, size_t al)
{
    void *p = get(n, al);
    if (!p) {
        vx_printf("operator new: out of memory (%u bytes)\n", (unsigned)n);
        abort();
    }
    return p;
}

void *_Znwj(size_t n)
{
    return get_or_stop(n, 0);
}

void *_Znaj(size_t n)
{
    return get_or_stop(n, 0);
}

void *_ZnwjRKSt9nothrow_t(size_t n, const struct vx_nothrow *t)
{
    (void)t;
    return get(n, 0);
}

void *_ZnajRKSt9nothrow_t(size_t n, const struct vx_nothrow *t)
{
    (void)t;
    return get(n, 0);
}

void *_ZnwjSt11align_val_t(size_t n, size_t al)
{
    return get_or_stop(n, al);
}

void *_ZnajSt11align_val_t(size_t n, size_t al)
{
    return get_or_stop(n, al);
}

void _ZdlPv(void *p)
{
    free(p);
}

void _ZdaPv(void *p)
{
    free(p);
}

void _ZdlPvj(void *p, size_t n)
{
    (void)n;
    free(p);
}

void _ZdaPvj(void *p, size_t n)
{
    (void)n;
    free(p);
}

void _ZdlPvRKSt9nothrow_t(void *p, const struct vx_nothrow *t)
{
    (void)t;
    free(p);
}

void _ZdaPvRKSt9nothrow_t(void *p, const struct vx_nothrow *t)
{
    (void)t;
    free(p);
}

void _ZdlPvSt11align_val_t(void *p, size_t al)
{
    (void)al;
    free(p);
}

void _ZdaPvSt11align_val_t(void *p, size_t al)
{
    (void)al;
    free(p);
}

void _ZdlPvjSt11align_val_t(void *p, size_t n, size_t al)
{
    (void)n;
    (void)al;
    free(p);
}

void _ZdaPvjSt11align_val_t(void *p, size_t n, size_t al)
{
    (void)n;
    (void)al;
    free(p);
}

/* A call of a pure virtual function (from an abstract class's constructor or
 * destructor) or of a deleted one: say so and stop, as libstdc++ does. */
void __cxa_pure_virtual(void)
{
    vx_printf("pure virtual method called\n");
    abort();
}

void __cxa_deleted_virtual(void)
{
    vx_printf("deleted virtual method called\n");
    abort();
}
