/*
 * common.h - shared by the libFuzzer harnesses: the input as a file (the trace
 * reader and the replay engine open paths), one per process.
 */
#ifndef VX_FUZZ_COMMON_H
#define VX_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Write the input to this process's scratch file; its path, or NULL. */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0]) snprintf(path, sizeof path, "/tmp/vxrr-fuzz-%d.vxt", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return NULL;
    size_t n = size ? fwrite(data, 1, size, f) : 0;
    if (fclose(f) != 0 || n != size) return NULL;
    return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
