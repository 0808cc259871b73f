/*
 * writer.c - vx_trace_writer: builds a trace chunk by chunk (FORMAT.md).
 *
 * Records are encoded into one in-memory EVENTS chunk; when it reaches the chunk
 * size it is compressed, checksummed and written with one header.  The file on
 * disk is therefore always a valid prefix of a trace: a recorder that dies leaves
 * a readable (incomplete) trace.  No per-event allocation: the buffers only grow.
 */
#include <errno.h>
#include <fcntl.h>
#include <lz4.h>
#include <lz4hc.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_int.h"

typedef struct wchunk {
    uint64_t key, off, dg_off; /* dg_off: its DIGEST chunk */
} wchunk;

typedef struct wkf {
    uint64_t index, off, first_off, cycle;
} wkf;

enum {
    W_NEW,
    W_CREATED,
    W_OPEN,
    W_DONE
};

/*
 * Deferred compression (vx_trace_writer_defer): a full EVENTS chunk becomes a job,
 * compressed by whoever gets to it first (another thread in vx_trace_writer_help,
 * or the writer when it must write it) and written by the writer, in order.
 * States: FREE (the writer's), RAW (queued), BUSY (being compressed), DONE.  The
 * writer fills a FREE job, then publishes it RAW (release); a helper takes it by
 * RAW -> BUSY (acquire) and hands it back DONE (release).
 */
#define WJOBS 4u

enum {
    J_FREE,
    J_RAW,
    J_BUSY,
    J_DONE
};

typedef struct wjob {
    _Atomic int state;
    _Atomic uint64_t seq; /* queue order: helpers take the oldest first */
    uint8_t *raw;         /* the chunk's records */
    size_t rawlen, rawcap;
    uint8_t *z; /* room for the LZ4 block (sized when queued) */
    size_t zcap;
    int zlen; /* LZ4 size, <= 0 when it failed */
    uint64_t key;
    uint8_t *dg; /* the chunk's DIGEST payload */
    size_t dglen, dgcap;
} wjob;

struct vx_trace_writer {
    int fd;
    int state;
    bool fast; /* the fast path of vx_trace_writer_event may run (see update_fast) */
    char *path;
    vx_err failed; /* sticky I/O error: the file can no longer be trusted */
    char errmsg[512];
    vx_trace_writer_opts opts;

    uint32_t C, W, T, LB;
    vxt_pred pred;
    bool have_pred;
    vx_trace_digest dg; /* of the EVENTS chunk being built */
    uint8_t *dgbuf;     /* DIGEST payload */
    uint8_t *warpbits;  /* warps that issued in the chunk, FORMAT.md §10.3 */

    uint8_t *buf; /* the EVENTS chunk being built */
    size_t len, cap;
    uint64_t chunk_key;
    uint64_t index, cycle;
    bool ended;
    uint8_t end_status;

    uint8_t *zbuf; /* compressed payload */
    size_t zcap;
    uint64_t off; /* bytes written */

    wchunk *chunks;
    size_t nchunks, chunks_cap;
    wkf *kfs;
    size_t nkf, kf_cap;

    bool in_kf;
    uint64_t kf_cycle, kf_npages, kf_first_off, kf_start_off;
    uint8_t *kf_state;
    size_t kf_len, kf_state_cap;
    uint8_t *pbuf; /* PAGES payload, with 10 bytes of headroom for the count */
    size_t plen, pcap;
    uint32_t pcount;
    /* The pages of the keyframe being written (FORMAT.md 9.1: none twice), an open
     * addressing set of page_key() values (0: empty slot); kset_cap is a power of 2. */
    uint64_t *kset;
    size_t kset_n, kset_cap;

    vx_trace_stats st;

    bool defer; /* vx_trace_writer_defer: EVENTS chunks go through jobs */
    wjob jobs[WJOBS];
    unsigned jhead, jcount; /* the oldest job, jobs queued (writer side) */
    uint64_t jseq;
    void (*on_job)(void *ctx);
    void *on_job_ctx;
    _Atomic uint64_t helped; /* jobs compressed by vx_trace_writer_help */
};

static vx_err drain_jobs(vx_trace_writer *w);
static void salvage_jobs(vx_trace_writer *w);

#define PAGES_PER_CHUNK       256u
#define VXT_PROLOGUE_HC_LEVEL 4
#define PAGES_HEADROOM        10u

/* The writer's message: "PATH: " and the formatted text. */
static void wmsg(vx_trace_writer *w, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static void wmsg(vx_trace_writer *w, const char *fmt, va_list ap)
{
    int n = snprintf(w->errmsg, sizeof w->errmsg, "%s: ", w->path ? w->path : "trace");
    if (n < 0 || (size_t)n >= sizeof w->errmsg) n = 0;
    vsnprintf(w->errmsg + n, sizeof w->errmsg - (size_t)n, fmt, ap);
}

static vx_err wfail(vx_trace_writer *w, vx_err e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static vx_err wfail(vx_trace_writer *w, vx_err e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wmsg(w, fmt, ap);
    va_end(ap);
    return e;
}

/*
 * A failure while writing (I/O, host memory, a chunk the format cannot hold) poisons
 * the writer: what was accepted may be lost, so later calls return the same error and
 * nothing more is written after the gap (the file reads as cut off before it).  A
 * refusal (wfail: a bad argument or call, found before anything changed) does not.
 */
static vx_err wio(vx_trace_writer *w, vx_err e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static vx_err wio(vx_trace_writer *w, vx_err e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wmsg(w, fmt, ap);
    va_end(ap);
    if (!w->failed) w->failed = e;
    w->fast = false;
    return e;
}

/* Open, no failure, not inside a keyframe, no END yet: plain issues may take the
 * fast path.  Recomputed at every change of these. */
static void update_fast(vx_trace_writer *w)
{
    w->fast = w->state == W_OPEN && !w->in_kf && !w->ended && !w->failed;
}

/* Room for need items of elem bytes in *arr (capacity *cap items), doubling from 16. */
vx_err vx_trace_writer_new(vx_trace_writer **out)
{
    vx_trace_writer *w = calloc(1, sizeof *w);
    *out = w;
    if (!w) return VX_ERR_NOMEM;
    w->fd = -1;
    return VX_OK;
}

void vx_trace_writer_free(vx_trace_writer *w)
{
    if (!w) return;
    if (w->failed)
        salvage_jobs(w);
    else if (w->fd >= 0)
        (void)drain_jobs(w); /* the chunks queued are complete */
    if (w->fd >= 0) close(w->fd);
    if (w->have_pred) vxt_pred_free(&w->pred);
    free(w->path);
    free(w->buf);
    free(w->zbuf);
    free(w->chunks);
    free(w->kfs);
    free(w->kf_state);
    free(w->pbuf);
    free(w->kset);
    free(w->dgbuf);
    free(w->warpbits);
    for (unsigned i = 0; i < WJOBS; i++) {
        free(w->jobs[i].raw);
        free(w->jobs[i].z);
        free(w->jobs[i].dg);
    }
    free(w);
}

const char *vx_trace_writer_errmsg(const vx_trace_writer *w)
{
    if (!w) return "out of memory";
    return w->errmsg[0] ? w->errmsg : "no error";
}

vx_err vx_trace_writer_create(vx_trace_writer *w, const char *path,
                              const vx_trace_writer_opts *opts)
{
    if (w->state != W_NEW) return wfail(w, VX_ERR_STATE, "writer already created");
    if (!path || !*path) return wfail(w, VX_ERR_INVAL, "no trace file name");
    w->path = strdup(path);
    if (!w->path) return wio(w, VX_ERR_NOMEM, "out of memory");
    if (opts) w->opts = *opts;
    if (!w->opts.chunk_bytes) w->opts.chunk_bytes = VX_TRACE_DEFAULT_CHUNK;
    if (w->opts.chunk_bytes > 64u << 20) w->opts.chunk_bytes = 64u << 20;
    /* What is there already: a directory, a pipe or a socket is no place for a trace
     * (a FIFO would block the open, a pipe would mix the trace with other output). */
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return wfail(w, VX_ERR_INVAL, "is a directory");
        if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
            return wfail(w, VX_ERR_INVAL, "is a pipe or a socket: a trace is written to a file");
    }
    bool trunc = false;
    if (w->opts.flags & VX_TRACE_W_FORCE) {
        /* A regular file is replaced by a new one: a program still reading the old
         * trace (a vxreplay session) keeps it whole.  A symbolic link's target or a
         * device (/dev/null) is written in place. */
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (unlink(path) != 0 && errno != ENOENT)
                return wfail(w, VX_ERR_IO, "cannot replace the old trace: %s", strerror(errno));
        } else {
            trunc = true;
        }
    }
    w->fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (trunc ? O_TRUNC : O_EXCL), 0666);
    if (w->fd < 0) {
        if (errno == EEXIST)
            return wfail(w, VX_ERR_EXISTS,
                         "trace file already exists (VX_TRACE_W_FORCE overwrites it)");
        return wfail(w, VX_ERR_IO, "cannot create trace file: %s", strerror(errno));
    }
    w->state = W_CREATED;
    return VX_OK;
}

static vx_err write_all(vx_trace_writer *w, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    while (n) {
        ssize_t k = write(w->fd, p, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return wio(w, VX_ERR_IO, "write failed at offset %llu: %s", (unsigned long long)w->off,
                       strerror(errno));
        }
        p += k;
        n -= (size_t)k;
        w->off += (uint64_t)k;
    }
    return VX_OK;
}

/* Checksum and write one chunk: its payload raw, or the LZ4 block z of zlen bytes
 * when that is shorter. */
static vx_err emit_chunk(vx_trace_writer *w, uint8_t type, uint64_t key, const uint8_t *raw,
                         size_t rawlen, const uint8_t *z, int zlen, uint64_t *chunk_off)
{
    const uint8_t *stored = raw;
    size_t slen = rawlen;
    uint8_t flags = 0;
    if (zlen > 0 && (size_t)zlen < rawlen) {
        stored = z;
        slen = (size_t)zlen;
        flags = VXT_CHF_LZ4;
    }
    uint8_t h[VXT_CHDR_LEN];
    h[0] = type;
    h[1] = flags;
    vx_put_le16(h + 2, 0);
    vx_put_le32(h + 4, (uint32_t)slen);
    vx_put_le32(h + 8, (uint32_t)rawlen);
    vx_put_le64(h + 12, key);
    vx_put_le32(h + 20, vx_trace_crc32c(0, stored, slen));
    vx_put_le32(h + 24, vx_trace_crc32c(0, h, 24));
    if (chunk_off) *chunk_off = w->off;
    vx_err e = write_all(w, h, sizeof h);
    if (!e) e = write_all(w, stored, slen);
    return e;
}

/* Compress (unless disabled or useless), checksum and write one chunk. */
static vx_err write_chunk(vx_trace_writer *w, uint8_t type, uint64_t key, const uint8_t *raw,
                          size_t rawlen, uint64_t *chunk_off)
{
    if (rawlen > VXT_MAX_RAW)
        return wio(w, VX_ERR_RANGE, "chunk of %zu bytes exceeds the format's limit", rawlen);
    int z = 0;
    if (!(w->opts.flags & VX_TRACE_W_NOCOMPRESS) && rawlen > 0) {
        int bound = LZ4_compressBound((int)rawlen);
        if (!vxt_reserve(&w->zbuf, &w->zcap, (size_t)bound))
            return wio(w, VX_ERR_NOMEM, "out of memory");
        /* The prologue's files are written once and kept for good: the slower, tighter
         * LZ4HC (the same block format, the same decoder) pays there, at a low level:
         * for a 175 KiB kernel ELF level 4 takes about 1 ms where the default level 9
         * takes 4 ms (a few percent of a short recording) for 1% fewer bytes. */
        z = type == VXT_CH_IMAGE || type == VXT_CH_LOAD
                ? LZ4_compress_HC((const char *)raw, (char *)w->zbuf, (int)rawlen, bound,
                                  VXT_PROLOGUE_HC_LEVEL)
                : LZ4_compress_default((const char *)raw, (char *)w->zbuf, (int)rawlen, bound);
    }
    return emit_chunk(w, type, key, raw, rawlen, w->zbuf, z, chunk_off);
}

/* ---- header ------------------------------------------------------------------------------ */

static const char *base_name(const char *s)
{
    if (!s) return "";
    const char *b = strrchr(s, '/');
    return b ? b + 1 : s;
}

static uint8_t *put_field(uint8_t *p, unsigned tag, const uint8_t *val, size_t n)
{
    p = vxt_put_varint(p, tag);
    p = vxt_put_varint(p, n);
    memcpy(p, val, n);
    return p + n;
}

vx_err vx_trace_writer_header_check(vx_trace_writer *w, const vx_trace_header *h)
{
    if (w->failed) return w->failed;
    if (w->state != W_CREATED)
        return wfail(w, VX_ERR_STATE, "the header must be written once, right after create");
    if (h->clusters < 1 || h->clusters > 127 || h->cores < 1 || h->cores > 511 || h->warps < 1 ||
        h->warps > 511 || h->threads < 1 || h->threads > VX_MAX_THREADS ||
        (h->threads & (h->threads - 1)) ||
        (uint64_t)h->clusters * h->cores * h->warps > VX_MAX_WARPS)
        return wfail(w, VX_ERR_CONFIG, "impossible platform %ux%ux%ux%u for a trace", h->clusters,
                     h->cores, h->warps, h->threads);
    if (h->image_kind < 1 || h->image_kind > 3)
        return wfail(w, VX_ERR_INVAL, "unknown image kind %u", h->image_kind);
    if ((h->image_len && !h->image) || h->image_len > VXT_MAX_RAW)
        return wfail(w, VX_ERR_INVAL, "bad kernel image (%zu bytes)", h->image_len);
    if (h->nloads && !h->loads) return wfail(w, VX_ERR_INVAL, "load list missing");
    for (uint32_t i = 0; i < h->nloads; i++)
        if ((h->loads[i].len && !h->loads[i].bytes) || h->loads[i].len > VXT_MAX_RAW)
            return wfail(w, VX_ERR_INVAL, "bad load region %u (%zu bytes)", i, h->loads[i].len);
    const char *iname = base_name(h->image_name);
    const char *ver = h->sim_version ? h->sim_version : "";
    if (strlen(iname) > VXT_MAX_NAME || strlen(ver) > VXT_MAX_NAME)
        return wfail(w, VX_ERR_INVAL, "image name or version string too long");
    for (uint32_t i = 0; i < h->nloads; i++)
        if (strlen(base_name(h->loads[i].name)) > VXT_MAX_NAME)
            return wfail(w, VX_ERR_INVAL, "load %u: file name too long", i);
    return VX_OK;
}

vx_err vx_trace_writer_header(vx_trace_writer *w, const vx_trace_header *h)
{
    vx_err e = vx_trace_writer_header_check(w, h);
    if (e) return e;
    const char *iname = base_name(h->image_name);
    const char *ver = h->sim_version ? h->sim_version : "";
    w->C = h->clusters * h->cores;
    w->W = h->warps;
    w->T = h->threads;
    w->LB = (h->threads + 7) / 8;
    if (vxt_pred_init(&w->pred, w->C, w->W, w->T)) return wio(w, VX_ERR_NOMEM, "out of memory");
    w->have_pred = true;
    w->pred.dg = &w->dg;
    w->dgbuf = malloc(vxt_dg_bound(w->C * w->W));
    w->warpbits = malloc((w->C * w->W + 7) / 8);
    if (!w->dgbuf || !w->warpbits) return wio(w, VX_ERR_NOMEM, "out of memory");

    /* HEADER payload: tagged fields in increasing tag order (FORMAT.md §5.1). */
    size_t cap = 256 + 2 * VXT_MAX_NAME + (size_t)h->nloads * (32 + VXT_MAX_NAME);
    uint8_t *pay = malloc(cap), *p = pay, val[VXT_MAX_NAME + 64], *v;
    if (!pay) return wio(w, VX_ERR_NOMEM, "out of memory");
    v = val;
    v = vxt_put_varint(v, h->clusters);
    v = vxt_put_varint(v, h->cores);
    v = vxt_put_varint(v, h->warps);
    v = vxt_put_varint(v, h->threads);
    p = put_field(p, VXT_TAG_PLATFORM, val, (size_t)(v - val));
    v = vxt_put_varint(val, h->mem_limit);
    p = put_field(p, VXT_TAG_MEM_LIMIT, val, (size_t)(v - val));
    v = vxt_put_varint(val, h->start_pc);
    p = put_field(p, VXT_TAG_START_PC, val, (size_t)(v - val));
    v = vxt_put_varint(val, h->arg);
    p = put_field(p, VXT_TAG_ARG, val, (size_t)(v - val));
    v = vxt_put_varint(val, h->max_cycles);
    p = put_field(p, VXT_TAG_MAX_CYCLES, val, (size_t)(v - val));
    v = vxt_put_varint(val, h->keyframe_interval);
    p = put_field(p, VXT_TAG_KEYFRAME_INTERVAL, val, (size_t)(v - val));
    v = val;
    *v++ = h->image_kind;
    v = vxt_put_varint(v, h->image_len);
    v = vxt_put_string(v, iname, strlen(iname));
    p = put_field(p, VXT_TAG_IMAGE, val, (size_t)(v - val));
    for (uint32_t i = 0; i < h->nloads; i++) {
        const char *ln = base_name(h->loads[i].name);
        v = vxt_put_varint(val, h->loads[i].addr);
        v = vxt_put_varint(v, h->loads[i].len);
        v = vxt_put_string(v, ln, strlen(ln));
        p = put_field(p, VXT_TAG_LOAD, val, (size_t)(v - val));
    }
    v = vxt_put_string(val, ver, strlen(ver));
    p = put_field(p, VXT_TAG_SIM_VERSION, val, (size_t)(v - val));
    v = vxt_put_varint(val, h->flags);
    p = put_field(p, VXT_TAG_FLAGS, val, (size_t)(v - val));

    uint8_t sig[VXT_SIG_LEN];
    memcpy(sig, vxt_magic, 8);
    vx_put_le16(sig + 8, VX_TRACE_MAJOR);
    vx_put_le16(sig + 10, VX_TRACE_MINOR);
    vx_put_le32(sig + 12, vx_trace_crc32c(0, sig, 12));
    e = write_all(w, sig, sizeof sig);
    if (!e) e = write_chunk(w, VXT_CH_HEADER, 0, pay, (size_t)(p - pay), NULL);
    free(pay);
    if (!e) e = write_chunk(w, VXT_CH_IMAGE, 0, h->image, h->image_len, NULL);
    for (uint32_t i = 0; !e && i < h->nloads; i++)
        e = write_chunk(w, VXT_CH_LOAD, i, h->loads[i].bytes, h->loads[i].len, NULL);
    if (e) return e;
    if (!vxt_reserve(&w->buf, &w->cap, w->opts.chunk_bytes + 65536))
        return wio(w, VX_ERR_NOMEM, "out of memory");
    w->state = W_OPEN;
    update_fast(w);
    w->st.file_bytes = w->off;
    return VX_OK;
}

/* ---- events -------------------------------------------------------------------------------- */

/* The DIGEST payload of the EVENTS chunk being flushed (FORMAT.md §10.3), at out
 * (vxt_dg_bound bytes); returns its length. */
static size_t digest_payload(vx_trace_writer *w, uint8_t *out)
{
    const vxt_pred *ps = &w->pred;
    uint32_t nw = ps->nwarps;
    memset(w->warpbits, 0, (nw + 7) / 8);
    for (uint32_t g = 0; g < nw; g++) /* a warp's predictor state is valid iff it issued */
        if (ps->warps[g].epoch == ps->epoch) w->warpbits[g / 8] |= (uint8_t)(1u << (g % 8));
    w->dg.issues = w->index - w->chunk_key;
    return (size_t)(vxt_dg_encode(out, &w->dg, w->warpbits, nw) - out);
}

/* An EVENTS chunk and its DIGEST chunk are written: the index learns them. */
static vx_err add_chunk(vx_trace_writer *w, uint64_t key, uint64_t off, uint64_t dg_off)
{
    if (!vxt_grow((void **)&w->chunks, &w->chunks_cap, w->nchunks + 1, sizeof *w->chunks))
        return wio(w, VX_ERR_NOMEM, "out of memory");
    w->chunks[w->nchunks].key = key;
    w->chunks[w->nchunks].off = off;
    w->chunks[w->nchunks].dg_off = dg_off;
    w->nchunks++;
    w->st.chunks++;
    return VX_OK;
}

/* Compress a job this thread took (BUSY) and hand it back DONE. */
static void compress_job(wjob *j)
{
    j->zlen =
        LZ4_compress_default((const char *)j->raw, (char *)j->z, (int)j->rawlen, (int)j->zcap);
    atomic_store_explicit(&j->state, J_DONE, memory_order_release);
}

/* Write the oldest job (compressing it here unless a helper has it).  Never after an
 * I/O failure: every entry point refuses a failed writer, and a failure ends the call. */
static vx_err write_job(vx_trace_writer *w)
{
    wjob *j = &w->jobs[w->jhead];
    int st = J_RAW;
    if (atomic_compare_exchange_strong_explicit(&j->state, &st, J_BUSY, memory_order_acquire,
                                                memory_order_acquire))
        compress_job(j);
    while (atomic_load_explicit(&j->state, memory_order_acquire) != J_DONE)
        sched_yield(); /* a helper is compressing it: a fraction of a millisecond */
    uint64_t off, dg_off;
    vx_err e = emit_chunk(w, VXT_CH_EVENTS, j->key, j->raw, j->rawlen, j->z, j->zlen, &off);
    if (e) return e;
    w->st.event_bytes += w->off - off;
    /* written: off the queue before its digest or the index may fail (salvage never
     * writes it twice; j stays valid until the next job is queued) */
    atomic_store_explicit(&j->state, J_FREE, memory_order_relaxed);
    w->jhead = (w->jhead + 1) % WJOBS;
    w->jcount--;
    if ((e = write_chunk(w, VXT_CH_DIGEST, j->key, j->dg, j->dglen, &dg_off))) return e;
    return add_chunk(w, j->key, off, dg_off);
}

/* Write every queued job, in order (before any other chunk). */
static vx_err drain_jobs(vx_trace_writer *w)
{
    while (w->jcount) {
        vx_err e = write_job(w);
        if (e) return e;
    }
    return VX_OK;
}

/*
 * After a failure that was not the file's (host memory: the file is still sound), the
 * chunks queued before it are complete: written, so that the trace reads up to them.
 * Once: the queue is empty after it, whatever happens.  The first error and its
 * message stay.
 */
static void salvage_jobs(vx_trace_writer *w)
{
    if (w->fd < 0 || !w->jcount || w->failed == VX_ERR_IO) {
        w->jcount = 0;
        return;
    }
    char keep[sizeof w->errmsg];
    const vx_err f = w->failed;
    memcpy(keep, w->errmsg, sizeof keep);
    (void)drain_jobs(w);
    w->jcount = 0;
    w->failed = f;
    memcpy(w->errmsg, keep, sizeof keep);
}

/* Queue the EVENTS chunk being built as a job (deferred compression). */
static vx_err queue_events(vx_trace_writer *w)
{
    if (w->jcount == WJOBS) {
        vx_err e = write_job(w);
        if (e) return e;
    }
    wjob *j = &w->jobs[(w->jhead + w->jcount) % WJOBS];
    const size_t bound = (size_t)LZ4_compressBound((int)w->len);
    if (!vxt_reserve(&j->z, &j->zcap, bound) ||
        !vxt_reserve(&j->dg, &j->dgcap, vxt_dg_bound(w->W * w->C)))
        return wio(w, VX_ERR_NOMEM, "out of memory");
    j->dglen = digest_payload(w, j->dg);
    j->key = w->chunk_key;
    j->rawlen = w->len;
    /* the job takes the chunk's buffer; the writer goes on in the job's old one */
    uint8_t *b = j->raw;
    size_t cap = j->rawcap;
    j->raw = w->buf;
    j->rawcap = w->cap;
    w->buf = b;
    w->cap = cap;
    w->len = 0;
    atomic_store_explicit(&j->seq, w->jseq++, memory_order_relaxed);
    atomic_store_explicit(&j->state, J_RAW, memory_order_release);
    w->jcount++;
    if (!vxt_reserve(&w->buf, &w->cap, w->opts.chunk_bytes + 65536))
        return wio(w, VX_ERR_NOMEM, "out of memory");
    if (w->on_job) w->on_job(w->on_job_ctx);
    return VX_OK;
}

bool vx_trace_writer_help(vx_trace_writer *w)
{
    if (!w->defer) return false;
    for (;;) {
        wjob *best = NULL;
        uint64_t bs = UINT64_MAX;
        for (unsigned i = 0; i < WJOBS; i++) {
            wjob *j = &w->jobs[i];
            const uint64_t q = atomic_load_explicit(&j->seq, memory_order_relaxed);
            if (atomic_load_explicit(&j->state, memory_order_relaxed) == J_RAW && q < bs) {
                best = j;
                bs = q;
            }
        }
        if (!best) return false;
        int st = J_RAW;
        if (atomic_compare_exchange_strong_explicit(&best->state, &st, J_BUSY, memory_order_acquire,
                                                    memory_order_relaxed)) {
            compress_job(best);
            atomic_fetch_add_explicit(&w->helped, 1, memory_order_relaxed);
            return true;
        }
    }
}

vx_err vx_trace_writer_defer(vx_trace_writer *w, bool on, void (*on_job)(void *ctx), void *ctx)
{
    if (w->failed) return w->failed;
    if (w->state != W_CREATED && w->state != W_OPEN)
        return wfail(w, VX_ERR_STATE, "deferred compression before create or after finish");
    if (!on) { /* back to compressing at once: the queue first */
        vx_err e = drain_jobs(w);
        if (e) return e;
        w->defer = false;
        w->on_job = NULL;
        w->on_job_ctx = NULL;
        return VX_OK;
    }
    if (w->index || w->len || w->nchunks)
        return wfail(w, VX_ERR_STATE, "deferred compression after the first event");
    w->defer = !(w->opts.flags & VX_TRACE_W_NOCOMPRESS);
    w->on_job = on_job;
    w->on_job_ctx = ctx;
    return VX_OK;
}

uint64_t vx_trace_writer_helped(const vx_trace_writer *w)
{
    return atomic_load_explicit(&w->helped, memory_order_relaxed);
}

/* Start a new EVENTS chunk at the current index: predictors and digest reset. */
static inline void start_chunk(vx_trace_writer *w)
{
    w->chunk_key = w->index;
    vxt_pred_reset(&w->pred);
    vxt_dg_init(&w->dg, w->index);
}

static vx_err flush_events(vx_trace_writer *w)
{
    if (!w->len) return VX_OK;
    if (w->defer) return queue_events(w);
    uint64_t off;
    vx_err e = write_chunk(w, VXT_CH_EVENTS, w->chunk_key, w->buf, w->len, &off);
    if (e) return e;
    w->st.event_bytes += w->off - off;
    uint64_t dg_off;
    const size_t dglen = digest_payload(w, w->dgbuf);
    if ((e = write_chunk(w, VXT_CH_DIGEST, w->chunk_key, w->dgbuf, dglen, &dg_off))) return e;
    if ((e = add_chunk(w, w->chunk_key, off, dg_off))) return e;
    w->len = 0;
    return VX_OK;
}

static vx_err check_fault(vx_trace_writer *w, const vx_fault *f, vx_lanes all)
{
    if (f->lanes & ~all)
        return wfail(w, VX_ERR_INVAL, "fault names a lane beyond %u threads", w->T);
    /* FORMAT.md §7.6: a reader rejects a reason with a newline (NUL ends it here) */
    if (memchr(f->reason, '\n', strnlen(f->reason, sizeof f->reason)))
        return wfail(w, VX_ERR_INVAL, "fault reason contains a newline");
    return VX_OK;
}

static vx_err check_event(vx_trace_writer *w, const vx_event *ev)
{
    vx_lanes all = w->pred.all;
    if (ev->index != w->index)
        return wfail(w, VX_ERR_INVAL, "event index %llu out of order (expected %llu)",
                     (unsigned long long)ev->index, (unsigned long long)w->index);
    switch (ev->kind) {
    case VX_EV_ISSUE: break;
    case VX_EV_DM: return VX_OK;
    case VX_EV_END:
        /* FORMAT.md 8.2: a fault exactly with status fault */
        if ((ev->end_status == VX_END_FAULT) != (ev->fault != NULL))
            return wfail(w, VX_ERR_INVAL,
                         ev->fault ? "end event %llu: a fault with status %u (only status fault "
                                     "has one, FORMAT.md section 8.2)"
                                   : "end event %llu: status fault without its fault (FORMAT.md "
                                     "section 8.2)",
                         (unsigned long long)ev->index, ev->end_status);
        return ev->fault ? check_fault(w, ev->fault, all) : VX_OK;
    default: return wfail(w, VX_ERR_INVAL, "unknown event kind %u", ev->kind);
    }
    if (ev->core >= w->C || ev->warp >= w->W)
        return wfail(w, VX_ERR_INVAL, "event %llu: core %u warp %u outside the platform",
                     (unsigned long long)ev->index, ev->core, ev->warp);
    if (ev->tmask & ~all)
        return wfail(w, VX_ERR_INVAL, "event %llu: thread mask beyond %u threads",
                     (unsigned long long)ev->index, w->T);
    if (ev->ncommits > VX_TRACE_MAX_COMMITS || ev->nmem > VX_TRACE_MAX_MEM ||
        ev->nwctl > VX_TRACE_MAX_WCTL || ev->nconsole > VX_TRACE_MAX_CONSOLE)
        return wfail(w, VX_ERR_INVAL, "event %llu: too many effects for one issue",
                     (unsigned long long)ev->index);
    if ((ev->ncommits && !ev->commits) || (ev->nmem && !ev->mem) || (ev->nwctl && !ev->wctl) ||
        (ev->nconsole && !ev->console))
        return wfail(w, VX_ERR_INVAL, "event %llu: effect count without effects",
                     (unsigned long long)ev->index);
    for (uint32_t i = 0; i < ev->ncommits; i++) {
        const vx_commit *c = &ev->commits[i];
        bool ok = (c->file == VX_RF_X || c->file == VX_RF_F) ? c->reg < 32
                  : c->file == VX_RF_CSR                     ? c->reg < 4096
                                                             : false;
        if (!ok || (c->lanes & ~all) || (c->lanes && !c->values))
            return wfail(w, VX_ERR_INVAL, "event %llu: bad commit %u (file %u reg %u)",
                         (unsigned long long)ev->index, i, c->file, c->reg);
    }
    if (ev->fault && (ev->ncommits || ev->nmem || ev->nwctl || ev->nconsole))
        return wfail(w, VX_ERR_INVAL,
                     "event %llu: a faulting issue with other effects (it has none, FORMAT.md "
                     "section 7.6)",
                     (unsigned long long)ev->index);
    if ((ev->flags & VX_EVF_INJECTED) && (!ev->tmask || (ev->tmask & (ev->tmask - 1))))
        return wfail(w, VX_ERR_INVAL,
                     "event %llu: an injected instruction runs in one lane (its thread mask names "
                     "it)",
                     (unsigned long long)ev->index);
    for (uint32_t i = 0; i < ev->nmem; i++) {
        const vx_memwrite *m = &ev->mem[i];
        if ((m->size != 1 && m->size != 2 && m->size != 4) || m->lane >= w->T)
            return wfail(w, VX_ERR_INVAL, "event %llu: bad memory write %u (size %u lane %u)",
                         (unsigned long long)ev->index, i, m->size, m->lane);
        /* FORMAT.md 7.3: global memory from 0x80 (below: the null guard and the console
         * window, whose bytes are console bytes), local memory up to 0xFFFF3FFF */
        if (!vxt_write_reachable(m->addr, m->size))
            return wfail(w, VX_ERR_INVAL,
                         "event %llu: memory write %u at 0x%08x outside the memory a store "
                         "reaches, [0x80, 0xFFFF4000) (FORMAT.md section 7.3)",
                         (unsigned long long)ev->index, i, m->addr);
    }
    for (uint32_t i = 0; i < ev->nwctl; i++)
        if ((ev->wctl[i].mask | ev->wctl[i].mask2) & ~all)
            return wfail(w, VX_ERR_INVAL, "event %llu: warp-control mask beyond %u threads",
                         (unsigned long long)ev->index, w->T);
    for (uint32_t i = 0; i < ev->nconsole; i++)
        if (ev->console[i].slot >= 64)
            return wfail(w, VX_ERR_INVAL, "event %llu: console slot %u out of range",
                         (unsigned long long)ev->index, ev->console[i].slot);
    return ev->fault ? check_fault(w, ev->fault, all) : VX_OK;
}

/* Room for a fast-path record: an open writer with at least 64 KiB free (far more
 * than any record the fast paths write); starts the chunk when it is empty. */
static inline bool fast_room(vx_trace_writer *w)
{
    if (!(VX_LIKELY(w->fast) && VX_LIKELY(w->cap - w->len >= 65536))) return false;
    if (VX_UNLIKELY(!w->len)) start_chunk(w);
    return true;
}

/* Account for nrec fast-path issue records of n bytes in all, the last at `cycle`;
 * flushes the chunk when full (the error of that). */
static inline vx_err fast_done(vx_trace_writer *w, size_t n, uint64_t nrec, uint64_t cycle)
{
    w->len += n;
    w->st.encoded_bytes += n;
    w->st.records += nrec;
    w->index += nrec;
    w->cycle = cycle;
    if (VX_UNLIKELY(w->len >= w->opts.chunk_bytes)) {
        w->st.raw_bytes = w->pred.raw;
        w->st.issues = w->index;
        w->st.cycle = w->cycle;
        return flush_events(w);
    }
    return VX_OK;
}

/* The common case: a plain issue (ev->index == w->index) in an open writer with room in
 * its buffer, which vxt_enc_fast checks and encodes. Returns false when the event needs
 * the general path (which checks everything and explains what is wrong); otherwise the
 * event is written and *err says whether flushing a full chunk failed. */
static inline bool fast_append(vx_trace_writer *w, const vx_event *ev, vx_err *err)
{
    if (!fast_room(w)) return false;
    uint8_t *p0 = w->buf + w->len, *p = vxt_enc_fast(&w->pred, p0, ev);
    if (VX_UNLIKELY(p == NULL)) return false;
    *err = fast_done(w, (size_t)(p - p0), 1, ev->cycle);
    return true;
}

vx_err vx_trace_writer_event(vx_trace_writer *w, const vx_event *ev)
{
    vx_err fe;
    if (VX_LIKELY((ev->kind == VX_EV_ISSUE) & (ev->index == w->index)) && fast_append(w, ev, &fe))
        return fe;
    if (w->failed) return w->failed;
    if (w->state != W_OPEN)
        return wfail(w, VX_ERR_STATE, "event before the header or after finish");
    if (w->in_kf) return wfail(w, VX_ERR_STATE, "event inside a keyframe");
    if (w->ended) return wfail(w, VX_ERR_STATE, "event after the END event");
    vx_err e = check_event(w, ev);
    if (e) return e;
    /* Common events are far smaller than the 64 KiB kept free after a flush; only
     * unusually large ones need their exact bound. */
    if (VX_UNLIKELY(w->cap - w->len < 65536 || ev->ncommits > 16 || ev->nmem > 1024 ||
                    ev->nwctl > 256 || ev->nconsole > 4096)) {
        size_t bound = vxt_event_bound(ev, w->T);
        if (!vxt_reserve(&w->buf, &w->cap, w->len + bound))
            return wio(w, VX_ERR_NOMEM, "out of memory");
    }
    if (!w->len) start_chunk(w);
    uint8_t *p = vxt_enc_event(&w->pred, w->buf + w->len, ev);
    if (!p) return wio(w, VX_ERR_NOMEM, "out of memory");
    /* digest flags of the records the fast path never sees (PCs and writes are
     * accumulated by the encoder) */
    if (ev->kind == VX_EV_ISSUE) {
        w->dg.flags |= (ev->fault ? VX_TRACE_DG_FAULT : 0) | (ev->nwctl ? VX_TRACE_DG_WCTL : 0) |
                       (ev->nconsole ? VX_TRACE_DG_CONSOLE : 0) |
                       (ev->flags & (VX_EVF_INJECTED | VX_EVF_STEP) ? VX_TRACE_DG_FLAGGED : 0);
    } else {
        w->dg.flags |= ev->kind == VX_EV_DM ? VX_TRACE_DG_DM : VX_TRACE_DG_END;
    }
    size_t n = (size_t)(p - (w->buf + w->len));
    w->len += n;
    w->st.encoded_bytes += n;
    w->st.records++;
    w->st.raw_bytes = w->pred.raw;
    w->cycle = ev->cycle;
    if (ev->kind == VX_EV_ISSUE) {
        w->index++;
        w->st.issues = w->index;
    } else if (ev->kind == VX_EV_DM) {
        w->st.dm_events++;
    } else {
        w->ended = true;
        w->end_status = ev->end_status;
        update_fast(w);
    }
    w->st.cycle = w->cycle;
    if (w->len >= w->opts.chunk_bytes) return flush_events(w);
    return VX_OK;
}

size_t vx_trace_writer_logrecs(vx_trace_writer *w, const uint8_t *buf, size_t len, uint64_t *cycle,
                               vx_err *err)
{
    vx_event ev;
    vx_commit cm;
    vx_memwrite mem[32];
    uint32_t vals[32]; /* an affine commit's values */
    memset(&ev, 0, sizeof ev);
    uint64_t cyc = *cycle;
    size_t off = 0;
    *err = VX_OK;
    while (off < len && buf[off] >= VX_LOG_ISSUE) {
        /* vx_trace_writer_event's fast path, a run of records at a time, without
         * building events: up to the end of the chunk */
        if (VX_LIKELY(fast_room(w))) {
            const size_t lim =
                w->opts.chunk_bytes < w->cap - 65536 ? w->opts.chunk_bytes : w->cap - 65536;
            uint8_t *p0 = w->buf + w->len, *p = p0;
            uint64_t nrec;
            const size_t k =
                vxt_enc_logs(&w->pred, &p, w->buf + lim, buf + off, len - off, &cyc, &nrec);
            if (VX_LIKELY(k != 0)) {
                off += k;
                if ((*err = fast_done(w, (size_t)(p - p0), nrec, cyc))) break;
                continue;
            }
        }
        /* one record the general way (or refused, with the reason) */
        const vx_logrec *q = (const vx_logrec *)(const void *)(buf + off);
        const size_t n = len - off < 2 ? 16 : VX_LOGREC_SIZE(q->commit, w->T);
        if (VX_UNLIKELY(n > len - off)) { /* a cut record: not ours to guess */
            *err =
                wfail(w, VX_ERR_INVAL, "a compact log record cut off after %zu bytes", len - off);
            break;
        }
        if (VX_UNLIKELY(!vxt_log_commit_ok(q->commit, w->T))) {
            *err = wfail(w, VX_ERR_INVAL,
                         "a compact log record with commit byte 0x%02x at %u threads per warp",
                         q->commit, w->T);
            break;
        }
        off += n;
        cyc += q->kind & 63u;
        vx_logrec_event(q, w->T, w->index, cyc, &ev, &cm, mem, vals);
        if ((*err = vx_trace_writer_event(w, &ev))) break;
    }
    *cycle = cyc;
    return off;
}

uint64_t vx_trace_writer_index(const vx_trace_writer *w)
{
    return w->index;
}

/* ---- keyframes --------------------------------------------------------------------------------- */

vx_err vx_trace_writer_keyframe_begin(vx_trace_writer *w, uint64_t cycle, const uint8_t *state,
                                      size_t len)
{
    if (w->failed) return w->failed;
    if (w->state != W_OPEN || w->in_kf)
        return wfail(w, VX_ERR_STATE, "keyframe before the header, after finish or inside another");
    /* the KEYFRAME chunk holds the state and a few varints after it (§9.2) */
    if (len > VXT_MAX_RAW - 256)
        return wfail(w, VX_ERR_RANGE,
                     "a keyframe state of %zu bytes exceeds the format's chunk limit (FORMAT.md "
                     "section 14)",
                     len);
    if (len && !state) return wfail(w, VX_ERR_INVAL, "keyframe state missing");
    vx_err e = flush_events(w);
    if (!e) e = drain_jobs(w);
    if (e) return e;
    if (!vxt_reserve(&w->kf_state, &w->kf_state_cap, len ? len : 1))
        return wio(w, VX_ERR_NOMEM, "out of memory");
    if (len) memcpy(w->kf_state, state, len);
    w->kf_len = len;
    w->kf_cycle = cycle;
    w->kf_npages = 0;
    w->kf_first_off = 0;
    w->kf_start_off = w->off;
    w->pcount = 0;
    w->plen = PAGES_HEADROOM;
    if (!vxt_reserve(&w->pbuf, &w->pcap, PAGES_HEADROOM + 64))
        return wio(w, VX_ERR_NOMEM, "out of memory");
    if (w->kset_n) memset(w->kset, 0, w->kset_cap * sizeof *w->kset);
    w->kset_n = 0;
    w->in_kf = true;
    update_fast(w);
    return VX_OK;
}

static vx_err flush_pages(vx_trace_writer *w)
{
    if (!w->pcount) return VX_OK;
    /* The count goes right before the pages, in the headroom. */
    uint8_t tmp[10];
    size_t k = (size_t)(vxt_put_varint(tmp, w->pcount) - tmp);
    uint8_t *start = w->pbuf + PAGES_HEADROOM - k;
    memcpy(start, tmp, k);
    uint64_t off;
    vx_err e = write_chunk(w, VXT_CH_PAGES2, w->index, start, w->plen - (PAGES_HEADROOM - k), &off);
    if (e) return e;
    if (!w->kf_npages) w->kf_first_off = off;
    w->kf_npages += w->pcount;
    w->pcount = 0;
    w->plen = PAGES_HEADROOM;
    return VX_OK;
}

/* A page's slot in w->kset: where its key is, or the empty slot where it goes. */
static size_t kset_slot(const vx_trace_writer *w, uint64_t key)
{
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (w->kset_cap - 1);
    while (w->kset[i] && w->kset[i] != key)
        i = (i + 1) & (w->kset_cap - 1);
    return i;
}

/* Room in w->kset for one more page (at most half full). */
static bool kset_reserve(vx_trace_writer *w)
{
    if ((w->kset_n + 1) * 2 <= w->kset_cap) return true;
    size_t ncap = w->kset_cap ? w->kset_cap * 2 : 256;
    uint64_t *old = w->kset, *n = calloc(ncap, sizeof *n);
    if (!n) return false;
    size_t ocap = w->kset_cap;
    w->kset = n;
    w->kset_cap = ncap;
    for (size_t i = 0; i < ocap; i++)
        if (old[i]) w->kset[kset_slot(w, old[i])] = old[i];
    free(old);
    return true;
}

vx_err vx_trace_writer_keyframe_page(vx_trace_writer *w, uint32_t space, uint32_t addr,
                                     const uint8_t *page)
{
    if (w->failed) return w->failed;
    if (!w->in_kf) return wfail(w, VX_ERR_STATE, "page outside a keyframe");
    if (!page) return wfail(w, VX_ERR_INVAL, "page 0x%08x without its bytes", addr);
    if (addr & (VX_TRACE_PAGE_SIZE - 1))
        return wfail(w, VX_ERR_INVAL, "page address 0x%08x is not page aligned", addr);
    if (!vx_trace_page_in_space(space, addr, w->C))
        return wfail(w, VX_ERR_INVAL,
                     "page 0x%08x is not in memory space %u of a %u-core platform (FORMAT.md "
                     "section 9.1)",
                     addr, space, w->C);
    if (!vxt_reserve(&w->pbuf, &w->pcap, w->plen + 16 + VX_TRACE_PAGE_SIZE) || !kset_reserve(w))
        return wio(w, VX_ERR_NOMEM, "out of memory");
    /* key: space and page number, + 1 so that no page has the empty slot's 0 */
    const uint64_t key = ((uint64_t)space << 20 | addr >> 12) + 1;
    const size_t slot = kset_slot(w, key);
    if (w->kset[slot])
        return wfail(w, VX_ERR_INVAL,
                     "page 0x%08x of space %u twice in one keyframe (FORMAT.md section 9.1)", addr,
                     space);
    w->kset[slot] = key;
    w->kset_n++;
    uint8_t *p = w->pbuf + w->plen;
    p = vxt_put_varint(p, space);
    p = vxt_put_varint(p, addr >> 12);
    bool zero = true;
    for (unsigned i = 0; i < VX_TRACE_PAGE_SIZE && zero; i += 8)
        zero = vx_get_le64(page + i) == 0;
    *p++ = zero ? 1 : 0;
    if (!zero) {
        memcpy(p, page, VX_TRACE_PAGE_SIZE);
        p += VX_TRACE_PAGE_SIZE;
    }
    w->plen = (size_t)(p - w->pbuf);
    if (++w->pcount == PAGES_PER_CHUNK) return flush_pages(w);
    return VX_OK;
}

vx_err vx_trace_writer_keyframe_end(vx_trace_writer *w)
{
    if (w->failed) return w->failed;
    if (!w->in_kf) return wfail(w, VX_ERR_STATE, "keyframe end without begin");
    vx_err e = flush_pages(w);
    if (e) return e;
    if (!vxt_reserve(&w->pbuf, &w->pcap, w->kf_len + 32))
        return wio(w, VX_ERR_NOMEM, "out of memory");
    uint8_t *p = w->pbuf;
    p = vxt_put_varint(p, w->kf_cycle);
    p = vxt_put_varint(p, w->kf_npages);
    p = vxt_put_varint(p, w->kf_len);
    memcpy(p, w->kf_state, w->kf_len);
    p += w->kf_len;
    uint64_t off;
    e = write_chunk(w, VXT_CH_KEYFRAME2, w->index, w->pbuf, (size_t)(p - w->pbuf), &off);
    if (e) return e;
    if (!vxt_grow((void **)&w->kfs, &w->kf_cap, w->nkf + 1, sizeof *w->kfs))
        return wio(w, VX_ERR_NOMEM, "out of memory");
    w->kfs[w->nkf++] = (wkf){w->index, off, w->kf_npages ? w->kf_first_off : 0, w->kf_cycle};
    w->in_kf = false;
    update_fast(w);
    w->st.keyframes++;
    w->st.keyframe_bytes += w->off - w->kf_start_off;
    w->st.file_bytes = w->off;
    return VX_OK;
}

/* ---- finish ---------------------------------------------------------------------------------------- */

vx_err vx_trace_writer_finish(vx_trace_writer *w)
{
    if (w->failed) { /* a trace cut off: up to its last complete chunk, no END, no index */
        salvage_jobs(w);
        return w->failed;
    }
    if (w->state != W_OPEN) return wfail(w, VX_ERR_STATE, "finish before the header or twice");
    if (w->in_kf) return wfail(w, VX_ERR_STATE, "finish inside a keyframe");
    vx_err e;
    if (!w->ended) {
        vx_event end;
        memset(&end, 0, sizeof end);
        end.kind = VX_EV_END;
        end.index = w->index;
        end.cycle = w->cycle;
        end.end_status = VX_END_ABORT;
        if ((e = vx_trace_writer_event(w, &end))) return e;
    }
    if ((e = flush_events(w)) || (e = drain_jobs(w))) return e;

    /* 8 varints and the status byte, then 3 varints per chunk and 4 per keyframe */
    size_t cap = 8 * VXT_VARINT_MAX + 1 + (w->nchunks * 3 + w->nkf * 4) * VXT_VARINT_MAX;
    uint8_t *pay = malloc(cap), *p = pay;
    if (!pay) return wio(w, VX_ERR_NOMEM, "out of memory");
    w->st.raw_bytes = w->pred.raw;
    p = vxt_put_varint(p, w->index);
    p = vxt_put_varint(p, w->st.records);
    p = vxt_put_varint(p, w->cycle);
    *p++ = w->end_status;
    p = vxt_put_varint(p, w->nchunks);
    uint64_t pk = 0, po = 0;
    for (size_t i = 0; i < w->nchunks; i++) {
        p = vxt_put_varint(p, w->chunks[i].key - pk);
        p = vxt_put_varint(p, w->chunks[i].off - po);
        pk = w->chunks[i].key;
        po = w->chunks[i].off;
    }
    /* The keyframe list of format 1.0 is empty: our keyframes are of 1.1 (their base is
     * the prologue's memory), listed after raw_size where a 1.0 reader does not look. */
    p = vxt_put_varint(p, 0);
    p = vxt_put_varint(p, w->st.raw_bytes);
    p = vxt_put_varint(p, w->nkf);
    pk = po = 0;
    for (size_t i = 0; i < w->nkf; i++) {
        const wkf *k = &w->kfs[i];
        p = vxt_put_varint(p, k->index - pk);
        p = vxt_put_varint(p, k->off - po);
        p = vxt_put_varint(p, k->first_off ? k->off - k->first_off : 0);
        p = vxt_put_varint(p, k->cycle);
        pk = k->index;
        po = k->off;
    }
    p = vxt_put_varint(p, w->nchunks); /* each chunk's DIGEST chunk */
    for (size_t i = 0; i < w->nchunks; i++)
        p = vxt_put_varint(p, w->chunks[i].dg_off - w->chunks[i].off);
    uint64_t ioff;
    e = write_chunk(w, VXT_CH_INDEX, 0, pay, (size_t)(p - pay), &ioff);
    free(pay);
    if (e) return e;
    uint8_t t[VXT_TRAILER_LEN];
    vx_put_le64(t, ioff);
    vx_put_le32(t + 8, vx_trace_crc32c(0, t, 8));
    memcpy(t + 12, vxt_end_magic, 4);
    if ((e = write_all(w, t, sizeof t))) return e;
    w->st.file_bytes = w->off;
    int fd = w->fd;
    w->fd = -1;
    w->state = W_DONE;
    update_fast(w);
    if (close(fd) != 0) return wio(w, VX_ERR_IO, "close failed: %s", strerror(errno));
    return VX_OK;
}

void vx_trace_writer_stats(const vx_trace_writer *w, vx_trace_stats *out)
{
    *out = w->st;
    out->file_bytes = w->off;
    /* the fast path of vx_trace_writer_event leaves these to be filled here */
    out->raw_bytes = w->pred.raw;
    out->issues = w->index;
    out->cycle = w->cycle;
}
