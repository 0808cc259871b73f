/*
 * fuzz-tools.c - libFuzzer harness: any bytes as a trace given to vxdump (text
 * listing, JSON, summary, Perfetto timeline, a lane, warp, PC and address filter) and to vxdiff
 * (against itself and against a small recorded trace, lockstep and per warp, text
 * and JSON).  Their main() functions run in this process (compiled as vxdump_main
 * and vxdiff_main); stdout goes to /dev/null.  Nothing may crash, leak or read
 * out of bounds, whatever the exit status.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

int vxdump_main(int argc, char **argv);
int vxdiff_main(int argc, char **argv);

#define RUN(fn, ...)                                                \
    do {                                                            \
        char *argv_[] = {__VA_ARGS__, NULL};                        \
        (void)fn((int)(sizeof argv_ / sizeof argv_[0]) - 1, argv_); \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char tl[128];
    static const char *other;
    if (!tl[0]) {
        if (!fuzz_dir()) return 0;
        snprintf(tl, sizeof tl, "%s/timeline.json", fuzz_dir());
        other = getenv("VXRR_FUZZ_TRACE");
        if (!freopen("/dev/null", "w", stdout)) abort();
    }
    const char *path = fuzz_file(data, size);
    if (!path) return 0;
    char *p = (char *)path, *o = (char *)(other ? other : path);
    RUN(vxdump_main, "vxdump", p);
    RUN(vxdump_main, "vxdump", "--json", "--lane", "1", p);
    /* --pc/--addr jump chunks by their digests */
    RUN(vxdump_main, "vxdump", "--pc", "0x80000010", p);
    RUN(vxdump_main, "vxdump", "--addr", "0x40:0x10000", "--from", "2", p);
    RUN(vxdump_main, "vxdump", "--summary", p);
    RUN(vxdump_main, "vxdump", "--summary", "--json", "--warp", "0,1", p);
    RUN(vxdump_main, "vxdump", "--timeline", tl, "--from", "3", "--to", "400", p);
    RUN(vxdiff_main, "vxdiff", "-q", p, p);
    RUN(vxdiff_main, "vxdiff", "--max", "0", p, o);
    RUN(vxdiff_main, "vxdiff", "--json", "--per-warp", o, p);
    return 0;
}
