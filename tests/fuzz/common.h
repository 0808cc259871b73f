/*
 * common.h - shared by the libFuzzer harnesses: the input as a file (the trace
 * reader and the replay engine open paths), one per process.
 */
#ifndef VX_FUZZ_COMMON_H
#define VX_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* This process's scratch directory (mkdtemp, removed with what the harness left in it
 * when the process exits): its path, or NULL. */
static char fuzz_dir_path[64];

static inline void fuzz_dir_clean(void)
{
    static const char *const names[] = {"input.vxt", "input.vxt.observer", "timeline.json"};
    char p[128];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", fuzz_dir_path, names[i]);
        unlink(p);
    }
    rmdir(fuzz_dir_path);
}

static inline const char *fuzz_dir(void)
{
    if (!fuzz_dir_path[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "%s/vxrr-fuzz-XXXXXX",
                 t && *t && strlen(t) < 40 ? t : "/tmp");
        if (!mkdtemp(fuzz_dir_path)) {
            fuzz_dir_path[0] = 0;
            return NULL;
        }
        atexit(fuzz_dir_clean);
    }
    return fuzz_dir_path;
}

/* Write the input to this process's scratch file (input.vxt in fuzz_dir); its path,
 * or NULL. */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
    static char path[128];
    if (!path[0]) {
        const char *d = fuzz_dir();
        if (!d) return NULL;
        snprintf(path, sizeof path, "%s/input.vxt", d);
    }
    FILE *f = fopen(path, "wb");
    if (!f) return NULL;
    size_t n = size ? fwrite(data, 1, size, f) : 0;
    if (fclose(f) != 0 || n != size) return NULL;
    return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
