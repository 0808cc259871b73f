/*
 * clock.c - vxrec's clocks (the progress line, --timing).  The programs may read the
 * clock; the libraries may not.
 */
#include <time.h>

#include "rec.h"

static double seconds(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double vxrec_now(void)
{
    return seconds(CLOCK_MONOTONIC);
}

double vxrec_thread_cpu(void)
{
    return seconds(CLOCK_THREAD_CPUTIME_ID);
}
