/*
 * vx_syscalls.c - the little operating-system glue picolibc needs on Vortex.
 *
 *   sbrk     heap for malloc, computed at run time from the platform shape:
 *            from the end of the last hart's TLS block (crt0.S) up to the
 *            bottom of the last hart's stack.  Not thread safe (picolibc is
 *            built without locks): call malloc from one thread only.
 *   stdout   picolibc's printf/puts/putchar write to the calling hart's console
 *            slot through vx_putchar.  Unlike vx_printf they are not serialised
 *            across lanes: call them with one lane active.
 *   abort    (and so a failing assert, after its message) stops the kernel right
 *            there with an ebreak: a breakpoint-trap fault that vxsim reports and
 *            vxrec records (or, with the Debug Module's ebreak-halt set, a halt of
 *            the warp), so a debugger lands on it, as with a device-side assert
 *            on other GPUs.  raise/kill of the kernel itself do the same.
 *
 * _exit is in crt0.S.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <vx_intrinsics.h>
#include <vx_print.h>

/* From link32.ld. */
extern char __vx_tls_area[];
extern char __vx_tls_block[]; /* absolute symbol: its address is the block size */

void *sbrk(ptrdiff_t incr);
void *_sbrk(ptrdiff_t incr);

static uintptr_t heap_cur, heap_end;

void *sbrk(ptrdiff_t incr)
{
    if (heap_cur == 0) {
        /* 64-bit: with very large platforms the stacks alone exceed 4 GiB */
        uint64_t harts =
            (uint64_t)vx_num_cores() * (uint64_t)vx_num_warps() * (uint64_t)vx_num_threads();
        uint64_t start = (uint64_t)(uintptr_t)__vx_tls_area + harts * (uintptr_t)__vx_tls_block;
        uint64_t stacks = harts << STACK_LOG2_SIZE;
        start = (start + 15) & ~(uint64_t)15;
        uint64_t end = stacks < STACK_BASE_ADDR ? STACK_BASE_ADDR - stacks : 0;
        if (end < start) end = start; /* no room: every allocation fails */
        heap_cur = (uintptr_t)start;
        heap_end = (uintptr_t)end;
    }
    uintptr_t old = heap_cur;
    if ((incr > 0 && (uintptr_t)incr > heap_end - heap_cur) ||
        (incr < 0 && (uintptr_t)(-incr) > heap_cur - (uintptr_t)__vx_tls_area)) {
        errno = ENOMEM;
        return (void *)-1;
    }
    heap_cur += (uintptr_t)incr;
    return (void *)old;
}

void *_sbrk(ptrdiff_t incr)
{
    return sbrk(incr);
}

static int console_put(char c, FILE *f)
{
    (void)f;
    vx_putchar((unsigned char)c);
    return (unsigned char)c;
}

static FILE console = FDEV_SETUP_STREAM(console_put, NULL, NULL, _FDEV_SETUP_WRITE);
FILE *const stdin = &console;
FILE *const stdout = &console;
FILE *const stderr = &console;

__attribute__((noinline)) void abort(void)
{
    for (;;)
        __asm__ volatile("ebreak");
}

int getpid(void);
int kill(int pid, int sig);

int getpid(void)
{
    return 1;
}

int kill(int pid, int sig)
{
    if (pid != 1) {
        errno = ESRCH;
        return -1;
    }
    if (sig != 0) abort();
    return 0;
}

/*
 * signal and raise, together (newer picolibc's raise ends the program with exit
 * status 128 + sig instead of calling kill, and its signal.o holds both, so one
 * alone would clash with it): a handler set with signal runs once (then the signal
 * is back to SIG_DFL), SIG_IGN ignores, and SIG_DFL stops the kernel at abort.
 * One table for the whole kernel: set handlers from one thread.
 */
#define VX_NSIG 32
static _sig_func_ptr vx_handlers[VX_NSIG];

_sig_func_ptr signal(int sig, _sig_func_ptr fn)
{
    if (sig <= 0 || sig >= VX_NSIG) {
        errno = EINVAL;
        return SIG_ERR;
    }
    _sig_func_ptr old = vx_handlers[sig];
    vx_handlers[sig] = fn;
    return old;
}

int raise(int sig)
{
    if (sig < 0 || sig >= VX_NSIG) {
        errno = EINVAL;
        return -1;
    }
    _sig_func_ptr fn = sig ? vx_handlers[sig] : SIG_IGN;
    if (fn == SIG_IGN) return 0;
    if (fn == SIG_DFL) return kill(1, sig);
    vx_handlers[sig] = SIG_DFL;
    fn(sig);
    return 0;
}
