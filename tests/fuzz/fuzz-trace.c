/*
 * fuzz-trace.c - libFuzzer harness: any bytes as a trace file, through every reader
 * entry point (open, summary, check, iterate, seek, keyframes and their pages,
 * chunk digests).  Nothing may crash, leak or read out of bounds; errors are fine.
 */
#include <string.h>

#include "common.h"
#include "vx_trace.h"

static vx_err count_page(void *ctx, uint32_t space, uint32_t addr, const uint8_t *page)
{
    (void)space, (void)addr;
    *(unsigned *)ctx += page[0] + page[VX_TRACE_PAGE_SIZE - 1]; /* reads the whole range */
    return VX_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    vx_trace_reader *r;
    if (!path || vx_trace_reader_new(&r)) return 0;
    if (vx_trace_reader_open(r, path) == VX_OK) {
        vx_trace_summary sum;
        (void)vx_trace_reader_summary(r, &sum);
        const vx_event *ev;
        uint64_t n = 0;
        while (n < 100000 && vx_trace_reader_next(r, &ev) == VX_OK)
            n++;
        (void)vx_trace_reader_seek(r, n / 2);
        if (vx_trace_reader_next(r, &ev) == VX_OK) (void)vx_trace_reader_tell(r);
        size_t nk = vx_trace_reader_num_keyframes(r);
        for (size_t k = 0; k < nk && k < 8; k++) {
            vx_trace_keyframe info;
            const uint8_t *state;
            size_t len;
            unsigned acc = 0;
            if (vx_trace_reader_keyframe(r, k, &info, &state, &len) == VX_OK && len)
                acc += state[0] + state[len - 1];
            (void)vx_trace_reader_keyframe_pages(
                r, k, k & 1 ? VX_TRACE_PAGES_ALL : VX_TRACE_PAGES_DELTA, count_page, &acc);
            (void)vx_trace_reader_seek_keyframe(r, k);
            size_t kk;
            (void)vx_trace_reader_keyframe_here(r, &kk);
        }
        size_t nc = vx_trace_reader_num_chunks(r);
        for (size_t i = 0; i < nc && i < 8; i++) {
            vx_trace_digest dg;
            (void)vx_trace_reader_digest(r, i, 0, &dg);
            (void)vx_trace_reader_chunk_check(r, i);
            if (vx_trace_reader_seek_chunk(r, i) == VX_OK) (void)vx_trace_reader_next(r, &ev);
        }
        (void)vx_trace_reader_check(r);
    }
    vx_trace_reader_free(r);
    return 0;
}
