/* tap.c - see tap.h */
#include "tap.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed, tap_planned;

void tap_plan(int n)
{
    tap_planned = 1;
    printf("1..%d\n", n);
}

void tap_done(void)
{
    if (!tap_planned) printf("1..%d\n", tap_n);
    tap_planned = 1;
}

int tap_exit(void)
{
    tap_done();
    fflush(stdout);
    return tap_failed ? 1 : 0;
}

static int vok(int cond, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static int vok(int cond, const char *fmt, va_list ap)
{
    tap_n++;
    printf("%sok %d - ", cond ? "" : "not ", tap_n);
    vprintf(fmt, ap);
    printf("\n");
    if (!cond) tap_failed++;
    fflush(stdout);
    return cond;
}

int ok(int cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vok(cond, fmt, ap);
    va_end(ap);
    return r;
}

#define TAP_IS(name, type, pf)                                             \
    int name(type got, type want, const char *fmt, ...)                    \
    {                                                                      \
        va_list ap;                                                        \
        va_start(ap, fmt);                                                 \
        int r = vok(got == want, fmt, ap);                                 \
        va_end(ap);                                                        \
        if (!r) printf("#   got:  " pf "\n#   want: " pf "\n", got, want); \
        return r;                                                          \
    }
TAP_IS(is_u32, uint32_t, "0x%08" PRIx32)
TAP_IS(is_u64, uint64_t, "%" PRIu64)
TAP_IS(is_int, long long, "%lld")

int is_str(const char *got, const char *want, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int same = got && want ? strcmp(got, want) == 0 : got == want;
    int r = vok(same, fmt, ap);
    va_end(ap);
    if (!r)
        printf("#   got:  '%s'\n#   want: '%s'\n", got ? got : "(null)", want ? want : "(null)");
    return r;
}

void diag(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("# ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

void skip(int n, const char *why)
{
    for (int i = 0; i < n; i++)
        printf("ok %d # SKIP %s\n", ++tap_n, why);
}

void tap_bail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("Bail out! ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    exit(255);
}
