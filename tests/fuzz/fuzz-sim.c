/*
 * fuzz-sim.c - libFuzzer harness: any program on the simulator, with any Debug
 * Module accesses between slices of the run, recorded as vxrec records it (the
 * compact log and the observer into a trace writer).  The input is
 *   byte 0      platform: cores 1 + bit 0, warps 1 + bits 1..2, threads 2^(bits 3..5);
 *               bit 6: the log takes affine records (as vxrec's writer thread);
 *               bit 7: deferred compression (vx_trace_writer_defer), each queued
 *               chunk compressed by vx_trace_writer_help between slices
 *   byte 1      n, the number of steps (at most 32)
 *   n x 6 bytes a step: kind, DM address, a 32-bit value (little-endian)
 *   the rest    the code, at 0x80000000 (a raw binary image)
 * Oracles beyond "no crash, no leak, no undefined behaviour": the trace writer
 * accepts every event the simulator makes (one it refuses is a bug in one of the
 * two: abort), the trace is byte for byte the one the same run makes through the
 * observer alone (no log, no deferral), the finished trace reads back and checks
 * clean, and the state encoding round-trips through a second simulator byte for
 * byte.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "vx_sim.h"
#include "vx_trace.h"

#define LOGBUF 4096u

typedef struct fz {
    vx_trace_writer *w;
    vx_log log;
    uint64_t cycle0; /* cycle of the event before the log's first record */
    _Alignas(16) uint8_t buf[LOGBUF];
} fz;

static void refused(fz *f, vx_err e)
{
    fprintf(stderr, "fuzz-sim: the trace writer refused an event of the simulator (%s): %s\n",
            vx_strerror(e), vx_trace_writer_errmsg(f->w));
    abort();
}

static void flush(fz *f)
{
    size_t len = (size_t)(f->log.pos - f->buf);
    if (!len) return;
    uint64_t c = f->cycle0;
    vx_err e;
    size_t used = vx_trace_writer_logrecs(f->w, f->buf, len, &c, &e);
    if (e || used != len) refused(f, e);
    f->log.pos = f->buf;
    f->cycle0 = f->log.cycle;
}

static bool refill(vx_log *lg, size_t need)
{
    flush(lg->ctx);
    return need <= LOGBUF;
}

static void observe(void *ctx, const vx_event *ev)
{
    fz *f = ctx;
    flush(f);
    if (ev->kind != VX_EV_END) f->log.cycle = f->cycle0 = ev->cycle;
    vx_err e = vx_trace_writer_event(f->w, ev);
    if (e) refused(f, e);
}

static void state_round_trip(vx_sim *s, const vx_sim_config *cfg)
{
    uint8_t *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    vx_sim *t = NULL;
    if (vx_sim_state_encode(s, &a, &na) || vx_sim_new(cfg, &t)) abort();
    if (vx_sim_state_decode(t, a, na) || vx_sim_state_encode(t, &b, &nb) || na != nb ||
        memcmp(a, b, na)) {
        fprintf(stderr, "fuzz-sim: the state encoding does not round-trip\n");
        abort();
    }
    free(a);
    free(b);
    vx_sim_free(t);
}

/* The bytes of the file at path (malloc'd, *n its size), or NULL. */
static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    uint8_t *b = NULL;
    size_t cap = 0;
    *n = 0;
    for (;;) {
        if (*n == cap) {
            uint8_t *q = realloc(b, cap = cap ? 2 * cap : 65536);
            if (!q) break;
            b = q;
        }
        size_t k = fread(b + *n, 1, cap - *n, fp);
        if (!k) break;
        *n += k;
    }
    fclose(fp);
    return b;
}

/*
 * Run the input's program and steps and record them into path: through the compact
 * log (logged; affine records when affine) or the observer alone; with deferred
 * compression, each queued chunk compressed right away by vx_trace_writer_help.
 * The state encoding of the end is checked (round_trip).
 */
static void record_run(const vx_sim_config *cfg, const uint8_t *steps, size_t nsteps,
                       const uint8_t *code, size_t ncode, const char *path, bool logged,
                       bool affine, bool defer, bool round_trip)
{
    vx_sim *s = NULL;
    uint32_t entry = 0;
    if (vx_sim_new(cfg, &s)) abort();
    if (ncode && vx_sim_load_image(s, "fuzz.bin", VX_IMAGE_BIN, code, ncode, &entry)) abort();
    fz *f = calloc(1, sizeof *f);
    vx_trace_writer_opts wo = {VX_TRACE_W_FORCE, 512};
    vx_trace_header h = {0};
    h.clusters = 1;
    h.cores = cfg->cores;
    h.warps = cfg->warps;
    h.threads = cfg->threads;
    h.mem_limit = cfg->mem_limit;
    h.flags = cfg->misaligned ? VX_TRACE_HF_MISALIGNED : 0;
    h.start_pc = 0x80000000u;
    h.image_kind = VX_IMAGE_BIN;
    h.image_name = "fuzz.bin";
    h.image = code;
    h.image_len = ncode;
    h.sim_version = VX_VERSION_STRING;
    if (!f || vx_trace_writer_new(&f->w) || vx_trace_writer_create(f->w, path, &wo) ||
        vx_trace_writer_header(f->w, &h) ||
        (defer && vx_trace_writer_defer(f->w, true, NULL, NULL)))
        abort();
    f->log = (vx_log){f->buf, f->buf + LOGBUF, vx_sim_cycle(s), refill, f, affine};
    f->cycle0 = f->log.cycle;
    vx_sim_set_observer(s, observe, f, 0);
    if (logged) vx_sim_set_log(s, &f->log);
    vx_sim_set_max_cycles(s, 20000);

    vx_stop st;
    for (size_t i = 0; i <= nsteps && !vx_sim_finished(s); i++) {
        if (i < nsteps) {
            const uint8_t *p = steps + 6 * i;
            uint32_t v = (uint32_t)p[2] | (uint32_t)p[3] << 8 | (uint32_t)p[4] << 16 |
                         (uint32_t)p[5] << 24,
                     r;
            switch (p[0] % 4) {
            case 0: (void)vx_sim_dm_read(s, p[1] % 16, &r); break;
            case 1: (void)vx_sim_dm_write(s, p[1] % 16, v); break;
            case 2: vx_sim_dm_tick(s); break;
            default:
                if (vx_sim_run(s, 1 + (v % 512), &st)) i = nsteps;
                break;
            }
        } else {
            (void)vx_sim_run(s, 4000, &st);
        }
        if (defer)
            while (vx_trace_writer_help(f->w))
                ;
    }
    flush(f);
    vx_sim_set_log(s, NULL);
    vx_sim_set_observer(s, NULL, NULL, 0);
    if (round_trip) state_round_trip(s, cfg);
    if (vx_trace_writer_finish(f->w)) refused(f, VX_ERR_IO);
    vx_trace_writer_free(f->w);
    vx_sim_free(s);
    free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    vx_sim_config cfg = VX_SIM_CONFIG_INIT;
    cfg.cores = 1 + (data[0] & 1u);
    cfg.warps = 1 + ((data[0] >> 1) & 3u);
    cfg.threads = 1u << ((data[0] >> 3) & 7u) % 6; /* 1..32 */
    cfg.mem_limit = 16u << 20;
    /* misaligned loads/stores carried out: step counts 231..255 (data[1] % 33 is the
     * number of steps either way; data[0]'s bits are all taken) */
    cfg.misaligned = data[1] >= 231;
    size_t nsteps = data[1] % 33, off = 2;
    if (size < off + 6 * nsteps) return 0;
    const uint8_t *steps = data + off;
    off += 6 * nsteps;
    const uint8_t *code = data + off;
    size_t ncode = size - off;
    if (ncode > 16384) ncode = 16384;
    {
        vx_sim *s = NULL;
        uint32_t entry = 0;
        if (vx_sim_new(&cfg, &s)) abort();
        const bool loads =
            !ncode || !vx_sim_load_image(s, "fuzz.bin", VX_IMAGE_BIN, code, ncode, &entry);
        vx_sim_free(s);
        if (!loads) return 0;
    }
    static char other[160];
    const char *path = fuzz_file(NULL, 0);
    if (!path) abort();
    if (!other[0]) snprintf(other, sizeof other, "%s.observer", path);

    /* as vxrec records it (bit 6: affine records, bit 7: deferred compression), and
     * through the observer alone: the same trace, byte for byte */
    record_run(&cfg, steps, nsteps, code, ncode, path, true, (data[0] & 0x40) != 0,
               (data[0] & 0x80) != 0, true);
    record_run(&cfg, steps, nsteps, code, ncode, other, false, false, false, false);
    size_t na = 0, nb = 0;
    uint8_t *a = slurp(path, &na), *b = slurp(other, &nb);
    if (!a || !b || na != nb || memcmp(a, b, na)) {
        fprintf(stderr,
                "fuzz-sim: the trace recorded through the log (%zu bytes) is not the one "
                "recorded through the observer (%zu bytes)\n",
                na, nb);
        abort();
    }
    free(a);
    free(b);

    vx_trace_reader *r;
    if (vx_trace_reader_new(&r)) abort();
    vx_err e = vx_trace_reader_open(r, path);
    if (!e) e = vx_trace_reader_check(r);
    if (e) {
        fprintf(stderr, "fuzz-sim: the recorded trace does not check: %s\n",
                vx_trace_reader_errmsg(r));
        abort();
    }
    vx_trace_reader_free(r);
    return 0;
}
