/*
 * fuzz-replay.c - libFuzzer harness: any bytes as a trace given to the replay
 * engine, which loads the image into a simulator, restores keyframes and
 * re-executes (verifying) what the trace says: open, run to the end, back to the
 * start, to the middle, a reverse step.  Errors are fine; crashes are not.
 */
#include "common.h"
#include "engine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    if (!path) return 0;
    vx_engine_opts o = {.mem_budget = 16u << 20};
    vx_engine *e = NULL;
    char msg[512];
    if (vx_engine_open(path, &o, &e, msg, sizeof msg) != VX_OK) return 0;
    uint64_t end = vx_engine_end(e);
    if (end > 200000) end = 200000; /* bound the time an input may take */
    (void)vx_engine_seek(e, end);
    (void)vx_engine_seek(e, 0);
    (void)vx_engine_seek(e, end / 2);
    if (end / 2) (void)vx_engine_seek(e, end / 2 - 1);
    vx_engine_issue is;
    (void)vx_engine_next_issue(e, &is);
    vx_engine_free(e);
    return 0;
}
