/*
 * pipe.c - vxrec's writer thread.
 *
 * Encoding and compressing events costs about as much as simulating them, so vxrec
 * moves it off the simulator's thread: the simulator writes its compact log of the
 * common issues straight into a batch buffer, and the observer copies every other
 * event there, in order; full batches go to a writer thread that gives the log
 * records to the trace writer as they are (vx_trace_writer_logrecs) and rebuilds the
 * other events for it.  Keyframes travel the same way
 * (their state and pages are captured by the simulator's thread, at the right
 * moment, into buffers the writer thread frees, or for the pages, hands back for the
 * next keyframe: vxrec_pipe_pages).  The trace is byte for byte the
 * one the single-threaded path writes: one producer, one consumer, FIFO order.
 *
 * Where the writer thread is the slower one (few lanes per warp: many small
 * records), the simulator's thread would wait for it; instead it compresses some of
 * the writer's full chunks (vx_trace_writer_defer / _help), which the writer then
 * writes in order.  vecadd and sgemm at 1x1x4x4: the simulator's thread compresses
 * about 40% of the chunks, wall time -10%.
 *
 * Memory is bounded: PIPE_NBATCH batches of about PIPE_BATCH bytes; the simulator
 * waits when the writer falls behind.  A keyframe's state and pages lie outside the
 * batch, and count towards it all the same (kf_bytes): a batch is handed over once
 * they reach PIPE_BATCH, else a batch of small items held thousands of keyframes
 * (--keyframe-interval 1 at 4x8x32: 1.6 GB, against 8 MB in one thread).  8 MiB in all: the simulator's stores into a
 * batch are its costliest part of recording when the lines are still in the writer
 * thread's cache (each must be taken back from the other core); a ring larger than
 * the caches lets them go first.  On a 2-CPU EPYC guest, vecadd at 1x1x4x4: 1.5 MiB
 * (6 x 256 KiB) 0.53 s, 8 or 16 MiB 0.43-0.45 s, 256 KiB 0.64 s (medians of 9-15
 * runs, side by side); on an earlier host, 1.5 MiB and 8 MiB measured the same.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pipe.h"
#include "rec.h"

#define PIPE_BATCH    (1u << 20)
#define PIPE_NBATCH   8u
#define PIPE_SLOT     ((size_t)PIPE_BATCH + 65536u) /* a batch's buffer: room past the batch */
#define ALIGN16(n)    (((n) + 15u) & ~(size_t)15u)
#define ALIGN64(n)    (((n) + 63u) & ~(size_t)63u)
#define KIND_KEYFRAME 0x80u /* qev kinds are VX_EV_* (< 0x80), this, or >= KIND_FAST */

/*
 * The items of a batch, each 16-byte aligned and starting with its kind.
 *
 * The common events are vx_logrec records (vx_sim.h: the simulator's compact log,
 * which writes them straight into the batch), 16 bytes and the commit's T values;
 * vxrec_pipe_event writes the same for the common events it is given.
 */
typedef vx_logrec qfast;
#define KIND_FAST VX_LOG_ISSUE

/* Any other event (or a keyframe, KIND_KEYFRAME); its arrays follow, each 16-byte aligned. */
typedef struct qev {
    uint8_t kind, flags;
    uint8_t has_fault;
    uint16_t ncommits;
    uint32_t size; /* bytes of the whole item */
    uint32_t core, warp, pc, insn;
    uint32_t nmem, nwctl, nconsole;
    uint64_t cycle;
    vx_lanes tmask;
} qev;

typedef struct qcommit {
    vx_lanes lanes;
    uint16_t reg;
    uint8_t file;
} qcommit;

typedef struct qkf {
    uint64_t cycle;
    uint8_t *state;
    size_t len;
    uint8_t *pages; /* npages x (u32 space, u32 addr, 4096 bytes), from vxrec_pipe_pages */
    size_t npages, cap;
} qkf;

/* A batch; one per cache line (the producer updates len after every event). */
typedef struct slot {
    _Alignas(64) uint8_t *buf;
    size_t len, cap;
} slot;

struct vxrec_pipe {
    vx_trace_writer *w;
    const vx_trace_header *hdr; /* to write first, on the writer thread (or NULL) */
    bool hdr_done;              /* it is (mu) */
    uint32_t T;
    pthread_t th;
    bool started;
    pthread_t cth; /* the compressor thread, when there is one */
    bool cstarted, cdone;
    double compressor_cpu;
    uint64_t compressor_chunks;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    slot s[PIPE_NBATCH];
    uint8_t *ring;  /* the batches' first buffers, one block (a grown batch has its own) */
    uint8_t *spare; /* a keyframe's page buffer, done with and kept for the next (mu) */
    size_t spare_cap;
    unsigned fill;  /* slot the producer fills */
    unsigned take;  /* next slot for the consumer */
    unsigned count; /* full slots handed over and not yet returned */
    bool done;
    vx_err err; /* the consumer's first error */
    char errmsg[600];
    _Atomic uint64_t file_bytes;
    atomic_bool failed;  /* err is set: the producer stops early (vxrec_pipe_failed) */
    bool refused;        /* an item found no memory: nothing after it is queued (the
                            trace ends before the gap; producer's own) */
    size_t kf_bytes;     /* keyframe state and pages the slot being filled holds (producer's) */
    double consumer_cpu; /* the writer thread's CPU seconds (set when it ends) */
    double waited;       /* seconds the producer waited (idle) for a free batch */
    uint64_t jobs;       /* chunks the writer queued for compression (vx_trace_writer_defer) */
    /* the consumer's (a cache line apart from the producer's, written per event) */
    _Alignas(64) uint64_t ccycle; /* the previous event's cycle */
    vx_commit commits[VX_TRACE_MAX_COMMITS];
    /* the producer's: the cursor in the slot being filled (the simulator writes through
     * it too), the previous event's cycle, refill */
    _Alignas(64) vx_log log;
};

static size_t event_size(const vx_event *ev, uint32_t T)
{
    size_t n = ALIGN16(sizeof(qev));
    if (ev->kind == VX_EV_DM) return n + ALIGN16(sizeof(vx_dm_event));
    n += ALIGN16(ev->ncommits * sizeof(qcommit)) + ALIGN16((size_t)ev->ncommits * T * 4);
    n += ALIGN16(ev->nmem * sizeof(vx_memwrite)) + ALIGN16(ev->nwctl * sizeof(vx_wctl));
    n += ALIGN16(ev->nconsole * sizeof(vx_console));
    if (ev->fault) n += ALIGN16(sizeof(vx_fault));
    return n;
}

/* ---- consumer ------------------------------------------------------------------------------ */

/* The consumer's first error (under the lock: the producer reads it in submit). */
static void consume_fail(vxrec_pipe *p, vx_err e, const char *what)
{
    if (p->err) return; /* only this thread writes it */
    pthread_mutex_lock(&p->mu);
    p->err = e;
    snprintf(p->errmsg, sizeof p->errmsg, "%s: %s", what, vx_trace_writer_errmsg(p->w));
    pthread_mutex_unlock(&p->mu);
    atomic_store(&p->failed, true);
}

bool vxrec_pipe_failed(vxrec_pipe *p)
{
    return atomic_load_explicit(&p->failed, memory_order_relaxed);
}

/* Done with a keyframe: its page buffer is kept for the next one (the larger of two). */
static void free_kf(vxrec_pipe *p, qkf *k)
{
    free(k->state);
    pthread_mutex_lock(&p->mu);
    if (k->cap > p->spare_cap) {
        uint8_t *t = p->spare;
        p->spare = k->pages;
        p->spare_cap = k->cap;
        k->pages = t;
    }
    pthread_mutex_unlock(&p->mu);
    free(k->pages);
    k->state = k->pages = NULL;
}

static void consume_batch(vxrec_pipe *p, uint8_t *b, size_t len)
{
    size_t off = 0;
    while (off < len) {
        if (VX_LIKELY(b[off] >= KIND_FAST)) { /* a run of compact records */
            if (VX_UNLIKELY(p->err)) {
                off += VX_LOGREC_SIZE(b[off + 1], p->T);
                continue;
            }
            vx_err e;
            off += vx_trace_writer_logrecs(p->w, b + off, len - off, &p->ccycle, &e);
            if (VX_UNLIKELY(e)) consume_fail(p, e, "cannot record an event");
            continue;
        }
        qev *q = (qev *)(void *)(b + off);
        uint8_t *d = b + off + ALIGN16(sizeof(qev));
        off += q->size;
        if (q->kind == KIND_KEYFRAME) {
            qkf *k = (qkf *)(void *)d;
            if (!p->err) {
                vx_err e = vx_trace_writer_keyframe_begin(p->w, k->cycle, k->state, k->len);
                for (size_t i = 0; !e && i < k->npages; i++) {
                    const uint8_t *pg = k->pages + i * (8 + VX_TRACE_PAGE_SIZE);
                    e = vx_trace_writer_keyframe_page(p->w, vx_get_le32(pg), vx_get_le32(pg + 4),
                                                      pg + 8);
                }
                if (!e) e = vx_trace_writer_keyframe_end(p->w);
                if (e)
                    consume_fail(p, e,
                                 "cannot write the events before a keyframe, or the keyframe");
            }
            free_kf(p, k);
            continue;
        }
        if (p->err) continue;
        vx_event ev;
        vx_event_clear(&ev, vx_trace_writer_index(p->w));
        ev.kind = q->kind;
        ev.flags = q->flags;
        ev.cycle = p->ccycle = q->cycle;
        if (q->kind == VX_EV_DM) {
            memcpy(&ev.dm, d, sizeof ev.dm);
        } else {
            ev.core = q->core;
            ev.warp = q->warp;
            ev.pc = q->pc;
            ev.insn = q->insn;
            ev.tmask = q->tmask;
            const qcommit *qc = (const qcommit *)(void *)d;
            d += ALIGN16(q->ncommits * sizeof(qcommit));
            for (uint32_t i = 0; i < q->ncommits; i++) {
                p->commits[i].file = qc[i].file;
                p->commits[i].reg = qc[i].reg;
                p->commits[i].lanes = qc[i].lanes;
                p->commits[i].values = (const uint32_t *)(void *)d + (size_t)i * p->T;
            }
            d += ALIGN16((size_t)q->ncommits * p->T * 4);
            ev.ncommits = q->ncommits;
            ev.commits = q->ncommits ? p->commits : NULL;
            ev.nmem = q->nmem;
            ev.mem = q->nmem ? (const vx_memwrite *)(void *)d : NULL;
            d += ALIGN16(q->nmem * sizeof(vx_memwrite));
            ev.nwctl = q->nwctl;
            ev.wctl = q->nwctl ? (const vx_wctl *)(void *)d : NULL;
            d += ALIGN16(q->nwctl * sizeof(vx_wctl));
            ev.nconsole = q->nconsole;
            ev.console = q->nconsole ? (const vx_console *)(void *)d : NULL;
            d += ALIGN16(q->nconsole * sizeof(vx_console));
            if (q->has_fault) ev.fault = (const vx_fault *)(void *)d;
        }
        vx_err e = vx_trace_writer_event(p->w, &ev);
        if (e) consume_fail(p, e, "cannot record an event");
    }
}

static void *consumer(void *arg)
{
    vxrec_pipe *p = arg;
    if (p->hdr) {
        vx_err e = vx_trace_writer_header(p->w, p->hdr);
        if (e) consume_fail(p, e, "cannot write the trace's header");
    }
    pthread_mutex_lock(&p->mu);
    p->hdr_done = true;
    pthread_cond_broadcast(&p->cv);
    for (;;) {
        while (!p->count && !p->done)
            pthread_cond_wait(&p->cv, &p->mu);
        if (!p->count) break;
        slot *s = &p->s[p->take];
        pthread_mutex_unlock(&p->mu);
        consume_batch(p, s->buf, s->len);
        vx_trace_stats st;
        vx_trace_writer_stats(p->w, &st);
        atomic_store(&p->file_bytes, st.file_bytes);
        pthread_mutex_lock(&p->mu);
        s->len = 0;
        p->take = (p->take + 1) % PIPE_NBATCH;
        p->count--;
        pthread_cond_broadcast(&p->cv);
    }
    p->consumer_cpu = vxrec_thread_cpu();
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* ---- producer -------------------------------------------------------------------------------- */

static bool log_refill(vx_log *lg, size_t need);

/*
 * The batches' block of n bytes, freed with free(): 2 MiB aligned and marked for
 * transparent huge pages when n is 2 MiB or more (a few faults instead of one per
 * 4 KiB page, where the system allows it; it is written over and over).
 */
static void *big_alloc(size_t n)
{
    const size_t huge = (size_t)2 << 20;
    if (n < huge) return malloc(n ? n : 1);
    void *m = NULL;
    if (posix_memalign(&m, huge, (n + huge - 1) & ~(huge - 1))) return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(m, n & ~(huge - 1), MADV_HUGEPAGE); /* a hint: nothing to do if refused */
#endif
    return m;
}

/* Free the batches' buffers (those grown on their own, then the block). */
static void free_slots(vxrec_pipe *p)
{
    for (unsigned i = 0; i < PIPE_NBATCH; i++)
        if (p->s[i].buf != p->ring + i * PIPE_SLOT) free(p->s[i].buf);
    free(p->ring);
    free(p->spare);
}

/* The writer queued a chunk for compression (on the writer thread). */
static void on_job(void *ctx)
{
    vxrec_pipe *p = ctx;
    pthread_mutex_lock(&p->mu);
    p->jobs++;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* The compressor thread: compresses the writer's queued chunks as they come. */
static void *compressor(void *arg)
{
    vxrec_pipe *p = arg;
    uint64_t seen = 0, n = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->jobs == seen && !p->cdone)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->cdone) break;
        seen = p->jobs;
        pthread_mutex_unlock(&p->mu);
        while (vx_trace_writer_help(p->w))
            n++;
        pthread_mutex_lock(&p->mu);
    }
    p->compressor_cpu = vxrec_thread_cpu();
    p->compressor_chunks = n;
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

vx_err vxrec_pipe_start(vxrec_pipe **out, vx_trace_writer *w, const vx_trace_header *hdr,
                        uint32_t threads, bool cthread)
{
    vxrec_pipe *p = aligned_alloc(64, ALIGN64(sizeof(vxrec_pipe)));
    *out = NULL;
    if (!p) return VX_ERR_NOMEM;
    memset(p, 0, sizeof *p);
    p->w = w;
    p->hdr = hdr;
    p->T = threads;
    if (!(p->ring = big_alloc(PIPE_NBATCH * PIPE_SLOT))) {
        free(p);
        return VX_ERR_NOMEM;
    }
    for (unsigned i = 0; i < PIPE_NBATCH; i++) {
        p->s[i].cap = PIPE_SLOT;
        p->s[i].buf = p->ring + i * PIPE_SLOT;
    }
    p->log.pos = p->s[0].buf;
    p->log.end = p->log.pos + PIPE_BATCH;
    p->log.refill = log_refill;
    p->log.ctx = p;
    p->log.affine = true; /* fewer bytes for the other thread to take */
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    vx_err e = vx_trace_writer_defer(w, true, on_job, p);
    /* The threads start with every signal blocked (they inherit the mask): vxrec's
     * SIGINT/SIGTERM/SIGHUP handler then runs on the simulator's thread, which reads
     * the flag it sets (a volatile sig_atomic_t is only promised to the thread the
     * handler interrupted). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (!e && pthread_create(&p->th, NULL, consumer, p) != 0) e = VX_ERR_NOMEM;
    /* without a compressor thread (it could not start) the others do its work */
    p->cstarted = !e && cthread && pthread_create(&p->cth, NULL, compressor, p) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (e) {
        /* the writer must not call on_job with p once p is gone: back to compressing
         * at once (no event yet, nothing queued) */
        (void)vx_trace_writer_defer(w, false, NULL, NULL);
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->cv);
        free_slots(p);
        free(p);
        return e;
    }
    p->started = true;
    *out = p;
    return VX_OK;
}

/*
 * Hand the filled slot over and take the next free one; false when the consumer
 * failed.  While every slot is full the writer thread is the slower one: rather
 * than wait, this thread compresses the chunks it has queued (vx_trace_writer_help),
 * and sleeps only when there is none.
 */
static bool submit(vxrec_pipe *p)
{
    pthread_mutex_lock(&p->mu);
    p->s[p->fill].len = (size_t)(p->log.pos - p->s[p->fill].buf);
    p->count++;
    pthread_cond_broadcast(&p->cv);
    p->fill = (p->fill + 1) % PIPE_NBATCH;
    while (p->count == PIPE_NBATCH) {
        const uint64_t jobs = p->jobs;
        pthread_mutex_unlock(&p->mu);
        const bool helped = vx_trace_writer_help(p->w);
        pthread_mutex_lock(&p->mu);
        if (helped || p->jobs != jobs || p->count != PIPE_NBATCH) continue;
        double t0 = vxrec_now();
        pthread_cond_wait(&p->cv, &p->mu); /* a free slot or a new chunk to compress */
        p->waited += vxrec_now() - t0;
    }
    bool ok = p->err == VX_OK;
    pthread_mutex_unlock(&p->mu);
    p->log.pos = p->s[p->fill].buf;
    p->log.end = p->log.pos + PIPE_BATCH;
    p->kf_bytes = 0;
    return ok;
}

/* Room for n more bytes at the cursor. */
static bool room(vxrec_pipe *p, size_t n)
{
    if (p->refused) return false;
    slot *s = &p->s[p->fill];
    size_t len = (size_t)(p->log.pos - s->buf);
    if (len && len + n > PIPE_BATCH) {
        if (!submit(p)) return false;
        s = &p->s[p->fill];
        len = 0;
    }
    if (len + n > s->cap) { /* an unusually large item: grow this slot */
        size_t cap = ALIGN16(len + n);
        uint8_t *b = aligned_alloc(16, cap);
        if (!b) {
            p->refused = true;
            p->log.end = p->log.pos; /* (the simulator's log too comes here, and stops) */
            return false;
        }
        memcpy(b, s->buf, len);
        if (s->buf != p->ring + p->fill * PIPE_SLOT) free(s->buf);
        s->buf = b;
        s->cap = cap;
        p->log.pos = b + len;
    }
    p->log.end = s->buf + (s->cap > PIPE_BATCH ? s->cap : PIPE_BATCH);
    return true;
}

/* Room for n more bytes at the cursor, the common case inline. */
static inline bool has_room(vxrec_pipe *p, size_t n)
{
    return VX_LIKELY((size_t)(p->log.end - p->log.pos) >= n) || room(p, n);
}

static bool log_refill(vx_log *lg, size_t need)
{
    return room(lg->ctx, need);
}

vx_log *vxrec_pipe_log(vxrec_pipe *p)
{
    return &p->log;
}

bool vxrec_pipe_event(vxrec_pipe *p, const vx_event *ev)
{
    const uint64_t dcycle = ev->cycle - p->log.cycle;
    const vx_commit *c = ev->commits;
    if (VX_LIKELY(ev->kind == VX_EV_ISSUE && ev->ncommits <= 1 && p->T <= 32 &&
                  !(ev->flags | ev->nmem | ev->nwctl | ev->nconsole) && !ev->fault && dcycle < 64 &&
                  !((ev->core | ev->warp) >> 8) &&
                  (!ev->ncommits || (c->lanes == ev->tmask && c->reg < 32 &&
                                     (c->file == VX_RF_X || c->file == VX_RF_F))))) {
        const uint8_t k =
            ev->ncommits ? (uint8_t)(VX_LOG_COMMIT | (c->file == VX_RF_F ? VX_LOG_F : 0) | c->reg)
                         : 0;
        const size_t n = VX_LOGREC_SIZE(k, p->T);
        if (VX_UNLIKELY(!has_room(p, n))) return false;
        qfast *f = (qfast *)(void *)p->log.pos;
        vx_logrec_head(f, (uint32_t)dcycle, k, ev->core, ev->warp, ev->pc, ev->insn,
                       (uint32_t)ev->tmask);
        if (ev->ncommits) memcpy(f + 1, c->values, (size_t)p->T * 4);
        p->log.cycle = ev->cycle;
        p->log.pos += n;
        return true;
    }
    if (ev->kind != VX_EV_END) p->log.cycle = ev->cycle;
    size_t n = event_size(ev, p->T);
    if (!has_room(p, n)) return false;
    uint8_t *base = p->log.pos, *d = base + ALIGN16(sizeof(qev));
    qev *q = (qev *)(void *)base;
    q->tmask = ev->tmask;
    q->cycle = ev->cycle;
    q->core = ev->core;
    q->warp = ev->warp;
    q->pc = ev->pc;
    q->insn = ev->insn;
    q->nmem = ev->nmem;
    q->nwctl = ev->nwctl;
    q->nconsole = ev->nconsole;
    q->size = (uint32_t)n;
    q->ncommits = (uint16_t)ev->ncommits;
    q->kind = ev->kind;
    q->flags = ev->flags;
    q->has_fault = ev->fault != NULL;
    if (ev->kind == VX_EV_DM) {
        memcpy(d, &ev->dm, sizeof ev->dm);
    } else {
        qcommit *qc = (qcommit *)(void *)d;
        for (uint32_t i = 0; i < ev->ncommits; i++) {
            qc[i].lanes = ev->commits[i].lanes;
            qc[i].reg = ev->commits[i].reg;
            qc[i].file = ev->commits[i].file;
        }
        d += ALIGN16(ev->ncommits * sizeof(qcommit));
        for (uint32_t i = 0; i < ev->ncommits; i++)
            memcpy(d + (size_t)i * p->T * 4, ev->commits[i].values, (size_t)p->T * 4);
        d += ALIGN16((size_t)ev->ncommits * p->T * 4);
        if (ev->nmem) memcpy(d, ev->mem, ev->nmem * sizeof(vx_memwrite));
        d += ALIGN16(ev->nmem * sizeof(vx_memwrite));
        if (ev->nwctl) memcpy(d, ev->wctl, ev->nwctl * sizeof(vx_wctl));
        d += ALIGN16(ev->nwctl * sizeof(vx_wctl));
        if (ev->nconsole) memcpy(d, ev->console, ev->nconsole * sizeof(vx_console));
        d += ALIGN16(ev->nconsole * sizeof(vx_console));
        if (ev->fault) memcpy(d, ev->fault, sizeof *ev->fault);
    }
    p->log.pos += n;
    return true;
}

/*
 * The writer thread hands a keyframe's page buffer back when it is done with it, and
 * the next keyframe takes it: the simulator's thread then copies into memory it has
 * written before instead of new memory, whose every page faults.  New buffers get a
 * quarter more than asked, for the next keyframe's (often a few more) pages.  Plain
 * pages, not huge ones: on a 2-CPU VM a fresh 9 MiB buffer (vecadd at 1x4x8x32, 2213
 * pages) took 2 to 21 ms to fill with huge pages, 3.8 ms without, and a reused one
 * 1.4 ms.  vecadd at 1x4x8x32: the simulator's thread -12%, wall -10% (medians of
 * 15, side by side); with a keyframe every 200000 issues, -19% and -13%.
 */
uint8_t *vxrec_pipe_pages(vxrec_pipe *p, size_t n, size_t *cap)
{
    pthread_mutex_lock(&p->mu);
    uint8_t *b = p->spare;
    size_t c = p->spare_cap;
    p->spare = NULL;
    p->spare_cap = 0;
    pthread_mutex_unlock(&p->mu);
    if (b && c >= n) {
        *cap = c;
        return b;
    }
    free(b);
    c = n + n / 4;
    *cap = c;
    return malloc(c ? c : 1);
}

bool vxrec_pipe_keyframe(vxrec_pipe *p, uint64_t cycle, uint8_t *state, size_t len, uint8_t *pages,
                         size_t npages, size_t cap)
{
    size_t n = ALIGN16(sizeof(qev)) + ALIGN16(sizeof(qkf));
    if (!has_room(p, n)) {
        free(state);
        free(pages);
        return false;
    }
    qev *q = (qev *)(void *)p->log.pos;
    memset(q, 0, sizeof *q);
    q->kind = KIND_KEYFRAME;
    q->size = (uint32_t)n;
    qkf *k = (qkf *)(void *)(p->log.pos + ALIGN16(sizeof(qev)));
    k->cycle = cycle;
    k->state = state;
    k->len = len;
    k->pages = pages;
    k->npages = npages;
    k->cap = cap;
    p->log.pos += n;
    /* the keyframe is queued; a consumer's error, if submit meets one, stops the
     * producer through vxrec_pipe_failed as for any batch */
    p->kf_bytes += len + cap;
    if (p->kf_bytes >= PIPE_BATCH) (void)submit(p);
    return true;
}

bool vxrec_pipe_header_wait(vxrec_pipe *p)
{
    pthread_mutex_lock(&p->mu);
    while (!p->hdr_done)
        pthread_cond_wait(&p->cv, &p->mu);
    const bool ok = p->err == VX_OK;
    pthread_mutex_unlock(&p->mu);
    return ok;
}

uint64_t vxrec_pipe_file_bytes(vxrec_pipe *p)
{
    return atomic_load(&p->file_bytes);
}

vx_err vxrec_pipe_finish(vxrec_pipe *p, char *msg, size_t cap, vxrec_pipe_times *t)
{
    if (!p) return VX_OK;
    pthread_mutex_lock(&p->mu);
    p->s[p->fill].len = (size_t)(p->log.pos - p->s[p->fill].buf);
    if (p->s[p->fill].len) {
        p->count++;
        p->fill = (p->fill + 1) % PIPE_NBATCH;
    }
    p->done = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->th, NULL);
    if (p->cstarted) {
        pthread_mutex_lock(&p->mu);
        p->cdone = true;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        pthread_join(p->cth, NULL);
    }
    vx_err e = p->err, de = vx_trace_writer_defer(p->w, false, NULL, NULL); /* no helper now */
    if (!e && de) {
        e = de;
        snprintf(p->errmsg, sizeof p->errmsg, "cannot write the chunks queued: %s",
                 vx_trace_writer_errmsg(p->w));
    }
    if (e && msg && cap) snprintf(msg, cap, "%s", p->errmsg);
    if (t) {
        t->writer_cpu = p->consumer_cpu;
        t->waited = p->waited;
        t->jobs = p->jobs;
        t->helped = vx_trace_writer_helped(p->w) - p->compressor_chunks;
        t->compressor = p->cstarted;
        t->compressor_cpu = p->compressor_cpu;
        t->compressor_chunks = p->compressor_chunks;
    }
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free_slots(p);
    free(p);
    return e;
}
