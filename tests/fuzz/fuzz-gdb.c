/*
 * fuzz-gdb.c - libFuzzer harness: any bytes from a GDB client to vxreplay's
 * server, over a small recorded trace (the one named by VXRR_FUZZ_TRACE, which
 * tests/fuzz/run.sh records): framing, checksums, every packet and its arguments,
 * motions both ways.  The session starts afresh for every input.
 */
#include <stdlib.h>

#include "common.h"
#include "gdbserver.h"

static vx_engine *eng;
static vx_gdbserver *srv;
static unsigned long sink;

static void out(void *ctx, const uint8_t *buf, size_t len)
{
    (void)ctx;
    sink += len ? buf[0] + buf[len - 1] : 0;
}

static bool poll_none(void *ctx)
{
    (void)ctx;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!eng) {
        const char *t = getenv("VXRR_FUZZ_TRACE");
        char msg[512];
        vx_engine_opts o = {.mem_budget = 64u << 20};
        snprintf(msg, sizeof msg, "VXRR_FUZZ_TRACE is not set");
        if (!t || vx_engine_open(t, &o, &eng, msg, sizeof msg) ||
            vx_gdbserver_new(eng, &(vx_gdbserver_opts){.thread_per_warp = false}, &srv)) {
            fprintf(stderr, "fuzz-gdb: cannot open the trace: %s\n", msg);
            abort();
        }
    }
    (void)vx_engine_seek(eng, 0); /* every input starts at the start of history */
    vx_gdb_io io = {out, poll_none, NULL};
    vx_gdbserver_begin(srv, &io);
    (void)vx_gdbserver_input(srv, data, size);
    vx_gdbserver_end(srv);
    return 0;
}
