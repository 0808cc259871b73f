/*
 * t-rec-pipe.c - vxrec's writer thread (recorder/pipe.c).
 *
 * The same generated event streams (trace-gen.h: realistic and wild, 4 to 128
 * lanes, schedule gaps of up to 100 cycles, every record kind) and keyframes are
 * written twice: straight into a trace writer, and through the pipe (compact copies
 * of the common events, full copies of the others, a second thread encoding).  The
 * two files must be byte for byte the same.  Also: a writer that fails (a file-size
 * limit, as a full disk would) is reported through the pipe, and nothing hangs.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../../recorder/pipe.h"
#include "tap.h"
#include "trace-gen.h"
#include "vx_trace.h"

typedef struct shape {
    uint32_t cores, warps, threads;
    unsigned wild;
    uint32_t nevents, kf_every;
    uint64_t seed;
} shape;

/* A keyframe's state and pages, from its number (the bytes do not matter, only that
 * both paths write the same). */
static size_t kf_make(uint32_t k, uint8_t *st, uint8_t *pages, size_t *npages)
{
    size_t n = 16 + (k * 29) % 100;
    for (size_t i = 0; i < n; i++)
        st[i] = (uint8_t)(k * 3 + i);
    *npages = k % 3;
    for (size_t i = 0; i < *npages; i++) {
        uint8_t *p = pages + i * (8 + VX_TRACE_PAGE_SIZE);
        vx_put_le32(p, 0);
        vx_put_le32(p + 4, 0x10000u + (uint32_t)(k * 2 + i) * VX_TRACE_PAGE_SIZE);
        for (size_t j = 0; j < VX_TRACE_PAGE_SIZE; j++)
            p[8 + j] = (uint8_t)(k + j / 7 + i);
    }
    return n;
}

static uint8_t image[600];

/* A writer for the streams of s, its header written, or with later, only checked and
 * left in *later for the pipe's thread to write (as vxrec does). */
static vx_trace_writer *open_writer_hdr(const char *path, const shape *s, vx_trace_header *later)
{
    vx_trace_writer *w;
    if (vx_trace_writer_new(&w)) return NULL;
    vx_trace_writer_opts o = {VX_TRACE_W_FORCE, 4096};
    vx_trace_header hh, *hp = later ? later : &hh;
    vx_trace_header h;
    memset(&h, 0, sizeof h);
    h.clusters = 1;
    h.cores = s->cores;
    h.warps = s->warps;
    h.threads = s->threads;
    h.mem_limit = 1u << 20;
    h.start_pc = 0x80000000u;
    h.keyframe_interval = s->kf_every;
    h.image_kind = 1;
    h.image = image;
    h.image_len = sizeof image;
    h.sim_version = VX_VERSION_STRING;
    *hp = h;
    if (vx_trace_writer_create(w, path, &o) ||
        (later ? vx_trace_writer_header_check(w, hp) : vx_trace_writer_header(w, hp))) {
        diag("%s: %s", path, vx_trace_writer_errmsg(w));
        vx_trace_writer_free(w);
        return NULL;
    }
    return w;
}

static vx_trace_writer *open_writer(const char *path, const shape *s)
{
    return open_writer_hdr(path, s, NULL);
}

/* Keyframe k of the streams (kf_make), straight into w. */
static vx_err direct_keyframe(vx_trace_writer *w, uint32_t k, uint64_t cycle)
{
    static uint8_t st[256], pages[2 * (8 + VX_TRACE_PAGE_SIZE)];
    size_t np, n = kf_make(k, st, pages, &np);
    vx_err e = vx_trace_writer_keyframe_begin(w, cycle, st, n);
    for (size_t j = 0; !e && j < np; j++) {
        const uint8_t *pg = pages + j * (8 + VX_TRACE_PAGE_SIZE);
        e = vx_trace_writer_keyframe_page(w, vx_get_le32(pg), vx_get_le32(pg + 4), pg + 8);
    }
    return e ? e : vx_trace_writer_keyframe_end(w);
}

/* Write the stream of s to path: straight (piped 0), through the pipe (1), through
 * the pipe with a compressor thread (2); 0 on success. */
static int write_stream(const char *path, const shape *s, int piped)
{
    /* through the pipe, its thread writes the header too (as vxrec has it) */
    vx_trace_header h;
    vx_trace_writer *w = open_writer_hdr(path, s, piped ? &h : NULL);
    if (!w) return -1;
    vxrec_pipe *p = NULL;
    if (piped && vxrec_pipe_start(&p, w, &h, s->threads, piped == 2) != VX_OK) {
        vx_trace_writer_free(w);
        return -1;
    }
    tgen g;
    tgen_init(&g, s->seed, s->cores, s->warps, s->threads, s->wild);
    static uint8_t st[256], pages[2 * (8 + VX_TRACE_PAGE_SIZE)];
    int bad = 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->nevents && !bad; i++) {
        if (i % s->kf_every == 0 && p) {
            size_t np, n = kf_make(k++, st, pages, &np);
            /* the page buffer as vxrec gets it: the one of an earlier keyframe when
             * the writer thread handed it back and it is large enough (0 to 2 pages) */
            size_t cap;
            uint8_t *a = malloc(n), *b = vxrec_pipe_pages(p, np * (8 + VX_TRACE_PAGE_SIZE), &cap);
            memcpy(a, st, n);
            memcpy(b, pages, np * (8 + VX_TRACE_PAGE_SIZE));
            bad |= !vxrec_pipe_keyframe(p, g.cycle, a, n, b, np, cap);
        } else if (i % s->kf_every == 0) {
            bad |= direct_keyframe(w, k++, g.cycle) != VX_OK;
        }
        const vx_event *ev = tgen_next(&g);
        if (p)
            bad |= !vxrec_pipe_event(p, ev);
        else
            bad |= vx_trace_writer_event(w, ev) != VX_OK;
    }
    if (p) {
        char msg[600];
        vxrec_pipe_times t;
        if (vxrec_pipe_finish(p, msg, sizeof msg, &t)) {
            diag("pipe: %s", msg);
            bad = 1;
        }
    }
    /* END is written by the simulator's thread after the pipe is drained (as vxrec does) */
    const vx_event *end = tgen_end(&g, 0, 7, false);
    if (!bad && (vx_trace_writer_event(w, end) || vx_trace_writer_finish(w))) bad = 1;
    if (bad) diag("%s: %s", path, vx_trace_writer_errmsg(w));
    vx_trace_writer_free(w);
    tgen_free(&g);
    return bad ? -1 : 0;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(len > 0 ? (size_t)len : 1);
    *n = fread(b, 1, (size_t)len, f);
    fclose(f);
    return b;
}

static void same_bytes(const char *dir, const shape *s, const char *name)
{
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/direct.vxt", dir);
    snprintf(b, sizeof b, "%s/piped.vxt", dir);
    int ra = write_stream(a, s, 0), bad = ra != 0;
    size_t na = 0;
    uint8_t *da = slurp(a, &na);
    for (int piped = 1; piped <= 2; piped++) { /* without and with a compressor thread */
        int rb = write_stream(b, s, piped);
        size_t nb = 0, at = 0;
        uint8_t *db = slurp(b, &nb);
        while (da && db && at < na && at < nb && da[at] == db[at])
            at++;
        if (!(rb == 0 && da && db && na == nb && at == na)) {
            diag("%s: direct %zu bytes, piped (%s a compressor thread) %zu bytes, first "
                 "difference at %zu",
                 name, na, piped == 2 ? "with" : "without", nb, at);
            bad = 1;
        }
        free(db);
    }
    ok(!bad && na > 1000,
       "%s: the piped trace (without and with a compressor thread) is the direct one, byte for "
       "byte (%zu bytes)",
       name, na);
    free(da);
}

/*
 * Deferred compression (vx_trace_writer_defer), no pipe: the stream of s written
 * with chunks queued for compression, and compressed by: the writer alone (mode 0),
 * this thread calling vx_trace_writer_help after every event (1), another thread
 * calling it all along (2); or (3) as 1 but freed without finish after ncut events
 * (the queued chunks are written), and (4) the same without deferral.  Returns the
 * chunks helped, or -1.
 */
typedef struct helper {
    vx_trace_writer *w;
    atomic_bool stop;
} helper;

static void *help_loop(void *arg)
{
    helper *h = arg;
    while (!atomic_load(&h->stop))
        if (!vx_trace_writer_help(h->w)) sched_yield();
    return NULL;
}

static int jobs_seen;

static void count_job(void *ctx)
{
    (void)ctx;
    jobs_seen++;
}

static long write_deferred(const char *path, const shape *s, int mode, uint32_t ncut)
{
    vx_trace_writer *w = open_writer(path, s);
    if (!w) return -1;
    bool bad = mode != 4 && vx_trace_writer_defer(w, true, count_job, NULL) != VX_OK;
    helper h = {w, false};
    pthread_t th;
    bool started = mode == 2 && !bad && pthread_create(&th, NULL, help_loop, &h) == 0;
    tgen g;
    tgen_init(&g, s->seed, s->cores, s->warps, s->threads, s->wild);
    uint32_t k = 0, n = mode >= 3 ? ncut : s->nevents;
    for (uint32_t i = 0; i < n && !bad; i++) {
        if (i % s->kf_every == 0) bad |= direct_keyframe(w, k++, g.cycle) != VX_OK;
        bad |= vx_trace_writer_event(w, tgen_next(&g)) != VX_OK;
        if (mode == 1 || mode == 3) (void)vx_trace_writer_help(w);
    }
    if (started) {
        atomic_store(&h.stop, true);
        pthread_join(th, NULL);
    }
    if (mode < 3 && !bad &&
        (vx_trace_writer_event(w, tgen_end(&g, 0, 7, false)) || vx_trace_writer_finish(w)))
        bad = true;
    if (bad) diag("%s: %s", path, vx_trace_writer_errmsg(w));
    long helped = (long)vx_trace_writer_helped(w);
    vx_trace_writer_free(w);
    tgen_free(&g);
    return bad ? -1 : helped;
}

static bool files_equal(const char *a, const char *b, size_t *len)
{
    size_t na = 0, nb = 0;
    uint8_t *da = slurp(a, &na), *db = slurp(b, &nb);
    bool same = da && db && na == nb && !memcmp(da, db, na);
    *len = na;
    free(da);
    free(db);
    return same;
}

static void deferred(const char *dir)
{
    static const shape s = {2, 4, 8, 1, 40000, 9000, 11};
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/plain.vxt", dir);
    snprintf(b, sizeof b, "%s/deferred.vxt", dir);
    static const char *how[3] = {"by the writer alone", "by the same thread after each event",
                                 "by another thread all along"};
    int wa = write_stream(a, &s, 0);
    for (int mode = 0; mode < 3; mode++) {
        jobs_seen = 0;
        long helped = write_deferred(b, &s, mode, 0);
        size_t n = 0;
        bool same = wa == 0 && helped >= 0 && files_equal(a, b, &n);
        /* mode 2: how many the other thread gets to depends on the scheduler */
        ok(same && n > 10000 && jobs_seen > 10 &&
               (mode == 0 ? helped == 0 : helped > 0 || mode == 2),
           "deferred compression, chunks compressed %s: the same trace, byte for byte (%zu "
           "bytes; %ld of %d chunks helped)",
           how[mode], n, helped, jobs_seen);
    }
    /* freed without finish: what was queued is written, as a plain writer would have */
    const uint32_t cut = 23456;
    wa = (int)write_deferred(a, &s, 4, cut);
    long helped = write_deferred(b, &s, 3, cut);
    size_t n = 0;
    const bool same = files_equal(a, b, &n);
    ok(wa == 0 && helped > 0 && same && n > 10000,
       "deferred compression, freed without finish after %u events: the chunks queued are "
       "written (%zu bytes, as without deferral)",
       cut, n);
}

/*
 * Events through the pipe into path while the file may grow to limit bytes only (as a
 * full disk), the header written by the pipe's thread (hdr_on_thread) or before: the
 * writer thread's error must come back from finish with `expect` in its message, the
 * producer must be refused, and neither side may hang.
 */
static void limited_run(const char *path, rlim_t limit, bool hdr_on_thread, const char *expect,
                        const char *what)
{
    shape s = {1, 4, 4, 0, 0, 1000, 1};
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_IGN); /* write() fails with EFBIG instead */
    lim = old;
    lim.rlim_cur = limit;
    setrlimit(RLIMIT_FSIZE, &lim);
    vx_trace_header h;
    vx_trace_writer *w = open_writer_hdr(path, &s, hdr_on_thread ? &h : NULL);
    vxrec_pipe *p = NULL;
    bool started =
             w && vxrec_pipe_start(&p, w, hdr_on_thread ? &h : NULL, 4, !hdr_on_thread) == VX_OK,
         refused = false;
    tgen g;
    tgen_init(&g, 5, 1, 4, 4, 0);
    uint32_t i = 0;
    for (; started && i < 3000000 && !refused; i++)
        refused = !vxrec_pipe_event(p, tgen_next(&g));
    char msg[600] = "";
    vx_err e = started ? vxrec_pipe_finish(p, msg, sizeof msg, NULL) : VX_OK;
    setrlimit(RLIMIT_FSIZE, &old);
    ok(started && e != VX_OK && strstr(msg, expect) && refused,
       "%s: the writer thread's error comes back, the producer is refused (after %u events: %s)",
       what, i, msg);
    if (w) vx_trace_writer_free(w);
    tgen_free(&g);
}

/* A writer that cannot write: the pipe reports the writer thread's error. */
static void write_fails(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/limited.vxt", dir);
    limited_run(path, 256 * 1024, false, "cannot record an event", "a failing write");
}

/* A header the pipe's thread cannot write (the file-size limit: the signature fits,
 * the HEADER chunk does not): its error comes back from the pipe.  And a header
 * vx_trace_writer_header_check refuses is refused with the message
 * vx_trace_writer_header gives. */
static void header_fails(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/hdr.vxt", dir);
    limited_run(path, 40, true, "cannot write the trace's header",
                "a header the writer thread cannot write");

    shape s = {1, 4, 4, 0, 0, 1000, 1};
    vx_trace_header h;
    vx_trace_writer *w = open_writer_hdr(path, &s, &h); /* h filled and checked */
    if (w) vx_trace_writer_free(w);
    vx_trace_writer *a = NULL, *b = NULL;
    vx_trace_writer_opts o = {VX_TRACE_W_FORCE, 4096};
    char pa[600], pb[600];
    snprintf(pa, sizeof pa, "%s/hdr-a.vxt", dir);
    snprintf(pb, sizeof pb, "%s/hdr-b.vxt", dir);
    h.threads = 3; /* not a power of two */
    vx_err ea = VX_OK, eb = VX_OK;
    if (!vx_trace_writer_new(&a) && !vx_trace_writer_create(a, pa, &o))
        ea = vx_trace_writer_header_check(a, &h);
    if (!vx_trace_writer_new(&b) && !vx_trace_writer_create(b, pb, &o))
        eb = vx_trace_writer_header(b, &h);
    ok(a && b && ea == VX_ERR_CONFIG && eb == VX_ERR_CONFIG &&
           strstr(vx_trace_writer_errmsg(a), "impossible platform 1x1x4x3") &&
           strstr(vx_trace_writer_errmsg(b), "impossible platform 1x1x4x3") &&
           vx_trace_writer_header(a, &h) == VX_ERR_CONFIG,
       "a header the check refuses: as vx_trace_writer_header refuses it (%s), and the writer "
       "stays failed",
       a ? vx_trace_writer_errmsg(a) : "");
    if (a) vx_trace_writer_free(a);
    if (b) vx_trace_writer_free(b);
}

/* vx_trace_writer_logrecs stops at a byte that starts no record, and refuses a record
 * cut short (the pipe never cuts one; a caller could) or one with a commit byte no
 * record has. */
static void logrecs_edges(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/logrecs.vxt", dir);
    shape s = {1, 4, 4, 0, 0, 1000, 1};
    vx_trace_writer *w = open_writer(path, &s);
    _Alignas(16) uint8_t buf[128];
    memset(buf, 0, sizeof buf);
    vx_logrec q = {VX_LOG_ISSUE | 1, VX_LOG_COMMIT | 5, 0, 0, 0x80000000u, 0x00500293u, 0xF};
    memcpy(buf, &q, sizeof q); /* record 1: 32 bytes, x5 of 4 lanes */
    buf[32] = 0x02;            /* not a record: the run ends here */
    uint64_t cycle = 0;
    vx_err e = VX_ERR_IO;
    size_t n = w ? vx_trace_writer_logrecs(w, buf, 48, &cycle, &e) : 0;
    ok(w && n == 32 && e == VX_OK && cycle == 1 && vx_trace_writer_index(w) == 1,
       "logrecs: one record, then a byte that is no record's (consumed %zu, cycle %llu)", n,
       (unsigned long long)cycle);
    memcpy(buf, &q, sizeof q); /* the same record, cut after 20 bytes */
    n = w ? vx_trace_writer_logrecs(w, buf, 20, &cycle, &e) : 0;
    ok(w && n == 0 && e == VX_ERR_INVAL && vx_trace_writer_index(w) == 1,
       "logrecs: a record cut short is refused (%s)", w ? vx_trace_writer_errmsg(w) : "");
    if (w) vx_trace_writer_free(w);
    /* commit bytes no record has: a store of 3 bytes, affine addresses without a
     * store, a store of 8 bytes with affine addresses (each to a new writer: a
     * writer that failed refuses everything after) */
    static const uint8_t badc[3] = {VX_LOG_MEM | 3, VX_LOG_MEMAFF | 4,
                                    VX_LOG_MEM | VX_LOG_MEMAFF | 8};
    int bad = 0;
    for (int i = 0; i < 3; i++) {
        w = open_writer(path, &s);
        q.commit = badc[i];
        memcpy(buf, &q, sizeof q);
        n = w ? vx_trace_writer_logrecs(w, buf, 128, &cycle, &e) : 0;
        if (!w || n != 0 || e != VX_ERR_INVAL || vx_trace_writer_index(w) != 0 ||
            !strstr(vx_trace_writer_errmsg(w), "commit byte"))
            bad++, diag("commit byte 0x%02x: %s", badc[i], w ? vx_trace_writer_errmsg(w) : "");
        if (w) vx_trace_writer_free(w);
    }
    ok(!bad, "logrecs: records with commit bytes 0x23, 0x44 and 0x68 are refused");
}

/* Two writers at 1x4xT for a logrecs test: wa gets the records, wb the same events. */
typedef struct pair {
    char a[512], b[512];
    vx_trace_writer *wa, *wb;
} pair;

static void open_pair(pair *pr, const char *dir, const char *name, uint32_t T)
{
    const shape s = {1, 4, T, 0, 0, 1000, 1};
    snprintf(pr->a, sizeof pr->a, "%s/%s-log.vxt", dir, name);
    snprintf(pr->b, sizeof pr->b, "%s/%s-ev.vxt", dir, name);
    pr->wa = open_writer(pr->a, &s);
    pr->wb = open_writer(pr->b, &s);
}

/*
 * The tail of the logrecs tests: the records buf[0..len) go to wa (the run before
 * them at cycle0, ending at cycle_end), the same events ev[0..n) (the last one END)
 * to wb, the END to wa too; both finished and freed.  True when every step worked
 * and the two files at a and b are the same bytes (*size: their size).
 */
static bool logrecs_vs_events(const pair *pr, const uint8_t *buf, size_t len, uint64_t cycle0,
                              uint64_t cycle_end, const vx_event *ev, int n, size_t *size)
{
    vx_trace_writer *wa = pr->wa, *wb = pr->wb;
    uint64_t cycle = cycle0;
    vx_err e = VX_ERR_IO;
    size_t k = wa ? vx_trace_writer_logrecs(wa, buf, len, &cycle, &e) : 0;
    bool bad = !wa || !wb || k != len || e != VX_OK || cycle != cycle_end;
    for (int i = 0; i < n && !bad; i++)
        bad = vx_trace_writer_event(wb, &ev[i]) != VX_OK ||
              (i == n - 1 && vx_trace_writer_event(wa, &ev[i]));
    bad = bad || vx_trace_writer_finish(wa) || vx_trace_writer_finish(wb);
    if (bad && wa && wb) diag("%s / %s", vx_trace_writer_errmsg(wa), vx_trace_writer_errmsg(wb));
    if (wa) vx_trace_writer_free(wa);
    if (wb) vx_trace_writer_free(wb);
    *size = 0;
    return !bad && files_equal(pr->a, pr->b, size) && *size > 100;
}

/* Store records (VX_LOG_MEM) append what the same writes given as events append:
 * a halfword store by lanes 0 and 2, a word store by all four, then a commit. */
static void logrecs_stores(const char *dir)
{
    pair pr;
    open_pair(&pr, dir, "stores", 4);
    _Alignas(16) uint8_t buf[160];
    memset(buf, 0xEE, sizeof buf); /* lanes outside the mask hold junk: ignored */
    const vx_logrec r1 = {VX_LOG_ISSUE | 2, VX_LOG_MEM | 2, 0, 1, 0x80000010u, 0x00b11023u, 0x5};
    const uint32_t a1[4] = {0x1000, 0, 0x1008, 0}, v1[4] = {0xBEEF, 0, 0x1234, 0};
    memcpy(buf, &r1, 16);
    memcpy(buf + 16, a1, 16);
    memcpy(buf + 32, v1, 16);
    buf[20] = buf[36] = 0x77; /* lane 1: not in the mask */
    const vx_logrec r2 = {VX_LOG_ISSUE | 0, VX_LOG_MEM | 4, 0, 2, 0x80000020u, 0x00b12023u, 0xF};
    const uint32_t a2[4] = {0x2000, 0x2004, 0x2008, 0x200C}, v2[4] = {7, 8, 9, 0xFFFFFFFFu};
    memcpy(buf + 48, &r2, 16);
    memcpy(buf + 64, a2, 16);
    memcpy(buf + 80, v2, 16);
    const vx_logrec r3 = {VX_LOG_ISSUE | 1, VX_LOG_COMMIT | 5, 0, 3, 0x80000030u, 0x00500293u, 0xF};
    const uint32_t v3[4] = {5, 5, 5, 5};
    memcpy(buf + 96, &r3, 16);
    memcpy(buf + 112, v3, 16);
    const vx_memwrite m1[2] = {{0x1000, 0xBEEF, 2, 0}, {0x1008, 0x1234, 2, 2}};
    const vx_memwrite m2[4] = {
        {0x2000, 7, 4, 0}, {0x2004, 8, 4, 1}, {0x2008, 9, 4, 2}, {0x200C, 0xFFFFFFFFu, 4, 3}};
    const vx_commit c3 = {VX_RF_X, 5, 0xF, v3};
    vx_event ev[4];
    memset(ev, 0, sizeof ev);
    for (int i = 0; i < 3; i++) {
        ev[i].kind = VX_EV_ISSUE;
        ev[i].index = (uint64_t)i;
        ev[i].core = 0;
        ev[i].warp = (uint32_t)i + 1;
        ev[i].pc = 0x80000010u + 16u * (uint32_t)i;
    }
    ev[0].cycle = 12, ev[0].insn = 0x00b11023u, ev[0].tmask = 0x5, ev[0].nmem = 2, ev[0].mem = m1;
    ev[1].cycle = 12, ev[1].insn = 0x00b12023u, ev[1].tmask = 0xF, ev[1].nmem = 4, ev[1].mem = m2;
    ev[2].cycle = 13, ev[2].insn = 0x00500293u, ev[2].tmask = 0xF, ev[2].ncommits = 1,
    ev[2].commits = &c3;
    ev[3].kind = VX_EV_END, ev[3].index = 3, ev[3].cycle = 13, ev[3].end_status = VX_END_EXIT;
    size_t n = 0;
    const bool same = logrecs_vs_events(&pr, buf, 128, 10, 13, ev, 4, &n);
    ok(same, "logrecs: store records write what the same stores as events write (%zu bytes)", n);
}

/* Affine commit records (VX_LOG_AFFINE: base and stride for the values) append what
 * the same commits with every value given as events append, at 8 lanes: affine on
 * every lane, uniform, affine on some lanes, then a full commit after an affine one. */
static void logrecs_affine(const char *dir)
{
    pair pr;
    open_pair(&pr, dir, "affine", 8);

    static const struct {
        uint8_t commit, warp;
        uint32_t tmask, base, stride;
    } r[3] = {{VX_LOG_COMMIT | VX_LOG_AFFINE | 10, 0, 0xFF, 0x1000, 4},
              {VX_LOG_COMMIT | VX_LOG_AFFINE | VX_LOG_F | 3, 1, 0xFF, 0x3F800000u, 0},
              {VX_LOG_COMMIT | VX_LOG_AFFINE | 11, 2, 0x0F, 0xFFFFFFF0u, 0xFFFFFFFFu}};

    _Alignas(16) uint8_t buf[96 + 48];
    memset(buf, 0, sizeof buf);
    uint32_t vals[3][8];
    vx_commit cm[3];
    vx_event ev[5];
    memset(ev, 0, sizeof ev);
    for (int i = 0; i < 3; i++) {
        const uint32_t pc = 0x80000100u + 4u * (uint32_t)i, insn = 0x00000013u;
        vx_logrec q;
        vx_logrec_head(&q, 1, r[i].commit, 0, r[i].warp, pc, insn, r[i].tmask);
        memcpy(buf + 32 * i, &q, sizeof q);
        const uint32_t bs[4] = {r[i].base, r[i].stride, 0, 0};
        memcpy(buf + 32 * i + 16, bs, sizeof bs);
        for (uint32_t l = 0; l < 8; l++) /* computed here, not by the library */
            vals[i][l] = (uint32_t)((uint64_t)r[i].base + (uint64_t)l * r[i].stride);
        cm[i] = (vx_commit){r[i].commit & VX_LOG_F ? VX_RF_F : VX_RF_X, r[i].commit & 31u,
                            r[i].tmask, vals[i]};
        ev[i].kind = VX_EV_ISSUE;
        ev[i].index = (uint64_t)i;
        ev[i].cycle = 6 + (uint64_t)i;
        ev[i].warp = r[i].warp;
        ev[i].pc = pc;
        ev[i].insn = insn;
        ev[i].tmask = r[i].tmask;
        ev[i].ncommits = 1;
        ev[i].commits = &cm[i];
    }
    /* then x10 of warp 0 again, with values close to the affine ones: encoded as
     * deltas against them (what an affine record left in the predictor) */
    uint32_t v4[8];
    for (uint32_t l = 0; l < 8; l++)
        v4[l] = vals[0][l] + l * l;
    const vx_commit c4 = {VX_RF_X, 10, 0xFF, v4};
    vx_logrec q4;
    vx_logrec_head(&q4, 1, VX_LOG_COMMIT | 10, 0, 0, 0x8000010Cu, 0x00000013u, 0xFF);
    memcpy(buf + 96, &q4, sizeof q4);
    memcpy(buf + 112, v4, sizeof v4);
    ev[3] = ev[0];
    ev[3].index = 3, ev[3].cycle = 9, ev[3].pc = 0x8000010Cu, ev[3].commits = &c4;
    ev[4].kind = VX_EV_END, ev[4].index = 4, ev[4].cycle = 9, ev[4].end_status = VX_END_EXIT;
    size_t n = 0;
    const bool same = logrecs_vs_events(&pr, buf, sizeof buf, 5, 9, ev, 5, &n);
    ok(same,
       "logrecs: affine commit records write what the same commits with their values write "
       "(%zu bytes)",
       n);
}

/* Store records at 8 lanes append what the same writes given as events append:
 * affine addresses (VX_LOG_MEMAFF) with raw, uniform and affine values, listed
 * addresses on every lane, and affine addresses on some lanes only. */
static void logrecs_stores8(const char *dir)
{
    pair pr;
    open_pair(&pr, dir, "stores8", 8);

    static const struct {
        uint8_t commit;
        uint32_t tmask, a0, as; /* as: address stride; 0: listed addresses a0 + 40 * l * l */
        uint32_t v0, vs, vx;    /* value of lane l: v0 + l * vs ^ (l * vx) */
    } r[5] = {
        {VX_LOG_MEM | VX_LOG_MEMAFF | 4, 0xFF, 0x3000, 4, 0x12345678u, 0, 0x9E3779B9u},
        {VX_LOG_MEM | VX_LOG_MEMAFF | 1, 0xFF, 0x3100, 1, 0xAB, 0, 0},
        {VX_LOG_MEM | VX_LOG_MEMAFF | 2, 0xFF, 0xFFFF3FF0u, 0xFFFFFFFEu, 100, 3,
         0}, /* descending */
        {VX_LOG_MEM | 4, 0xFF, 0x5000, 0, 1, 1, 0},
        {VX_LOG_MEM | VX_LOG_MEMAFF | 4, 0x3C, 0x6000, 8, 0, 0, 0x01010101u},
    };

    _Alignas(16) uint8_t buf[5 * 80];
    size_t len = 0;
    vx_memwrite mem[5][8];
    vx_event ev[6];
    memset(ev, 0, sizeof ev);
    memset(buf, 0xEE, sizeof buf); /* unused lanes hold junk */
    for (int i = 0; i < 5; i++) {
        const uint32_t pc = 0x80000200u + 4u * (uint32_t)i, insn = 0x00b12023u;
        const bool aff = (r[i].commit & VX_LOG_MEMAFF) != 0;
        vx_logrec q;
        vx_logrec_head(&q, 2, r[i].commit, 0, (uint32_t)i % 4, pc, insn, r[i].tmask);
        memcpy(buf + len, &q, sizeof q);
        uint32_t *o = (uint32_t *)(void *)(buf + len + 16), n = 0;
        if (aff) o[0] = r[i].a0, o[1] = r[i].as, o[2] = o[3] = 0;
        for (uint32_t l = 0; l < 8; l++) {
            const uint32_t addr = r[i].as ? r[i].a0 + l * r[i].as : r[i].a0 + 40 * l * l;
            const uint32_t sz = r[i].commit & 7u, mask = sz == 4 ? 0xFFFFFFFFu : (1u << 8 * sz) - 1;
            const uint32_t v = ((r[i].v0 + l * r[i].vs) ^ (l * r[i].vx)) & mask;
            if (!aff) o[l] = addr;
            o[aff ? 4 + l : 8 + l] = v;
            if ((r[i].tmask >> l) & 1)
                mem[i][n++] = (vx_memwrite){addr, v, (uint8_t)sz, (uint8_t)l};
        }
        len += VX_LOGREC_SIZE(r[i].commit, 8);
        ev[i].kind = VX_EV_ISSUE;
        ev[i].index = (uint64_t)i;
        ev[i].cycle = 2 * (uint64_t)i + 2;
        ev[i].warp = (uint32_t)i % 4;
        ev[i].pc = pc;
        ev[i].insn = insn;
        ev[i].tmask = r[i].tmask;
        ev[i].nmem = n;
        ev[i].mem = mem[i];
    }
    ev[5].kind = VX_EV_END, ev[5].index = 5, ev[5].cycle = 10, ev[5].end_status = VX_END_EXIT;
    size_t n = 0;
    const bool same = logrecs_vs_events(&pr, buf, len, 0, 10, ev, 6, &n);
    ok(same,
       "logrecs: store records at 8 lanes (affine and listed addresses) write what the same "
       "stores as events write (%zu bytes, %zu bytes of records)",
       n, len);
}

int main(void)
{
    char dir[] = "/tmp/vxrr-t-rec-pipe.XXXXXX";
    if (!mkdtemp(dir)) tap_bail("mkdtemp failed");
    for (size_t i = 0; i < sizeof image; i++)
        image[i] = (uint8_t)(i * 7);
    static const shape shapes[] = {
        {1, 4, 4, 0, 60000, 7000, 1},   /* the default platform: compact copies */
        {1, 4, 4, 1, 60000, 5000, 2},   /* every record kind, gaps up to 100 cycles */
        {3, 5, 8, 1, 40000, 9000, 3},   /* cores and warps not a power of two */
        {2, 8, 32, 1, 30000, 4000, 4},  /* 32 lanes: the widest compact copy */
        {1, 3, 64, 1, 20000, 6000, 5},  /* 64 lanes: full copies */
        {2, 2, 128, 1, 30000, 8000, 6}, /* 128 lanes: the simulator waits for the writer */
    };
    tap_plan((int)(sizeof shapes / sizeof shapes[0] + 13));
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "%ux%ux%u%s", shapes[i].cores, shapes[i].warps,
                 shapes[i].threads, shapes[i].wild ? " wild" : "");
        same_bytes(dir, &shapes[i], name);
    }
    write_fails(dir);
    header_fails(dir);
    deferred(dir);
    logrecs_edges(dir);
    logrecs_stores(dir);
    logrecs_affine(dir);
    logrecs_stores8(dir);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) diag("could not remove %s", dir);
    return tap_exit();
}
