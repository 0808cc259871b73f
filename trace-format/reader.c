/*
 * reader.c - vx_trace_reader: opens, validates and iterates traces (FORMAT.md §11).
 *
 * Nothing read from the file is trusted: every chunk is checked (header CRC,
 * reserved bits, expected type and key, payload CRC, LZ4 decompression to exactly
 * raw_len) before its bytes are parsed, every length is bounded by the data that
 * contains it, and every failure becomes VX_ERR_CORRUPT / VX_ERR_TRUNC with the
 * byte offset of the chunk in the message.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <lz4.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_int.h"

typedef struct rchunk {
    uint64_t key, off;
    uint64_t dg_off; /* its DIGEST chunk, 0: none */
} rchunk;

typedef struct rkf {
    uint64_t index, off, first_off;
    uint64_t cycle; /* the cycle the INDEX gives (complete traces; checked by a full check) */
    bool on_image;  /* a format 1.1 keyframe (PAGES2 / KEYFRAME2 chunks) */
} rkf;

typedef struct chdr {
    uint8_t type, flags;
    uint32_t stored, raw;
    uint64_t key;
    uint32_t pcrc;
} chdr;

/* A decoding position in the event stream (the iterator, or a scratch one). */
typedef struct vxt_dec {
    vxt_pred pred;
    bool have_pred;
    vxt_evbuf eb;
    uint8_t *raw;
    size_t raw_cap;
    vxt_cur cur;
    size_t chunk;      /* loaded chunk (valid when loaded) */
    size_t next_chunk; /* chunk to load next */
    bool loaded;
    bool pending;   /* eb.ev decoded but not yet returned */
    bool ended;     /* END record seen */
    bool have_prev; /* the previous chunk was decoded to its end: check key continuity */
    uint64_t index; /* event index of the next record */
    size_t limit;   /* when not 0: stop (VX_ERR_END) before loading chunk `limit` */
} vxt_dec;

struct vx_trace_reader {
    int fd;
    char *path;
    uint64_t fsize;
    char errmsg[640];
    uint64_t err_off; /* the byte offset errmsg names, UINT64_MAX when none */
    bool opened;

    vx_trace_header hdr;
    uint8_t *image;
    char *image_name, *sim_version;
    vx_trace_load *loads;
    uint32_t C, W, T, LB;

    bool complete;
    uint64_t prologue_end, index_off;
    uint64_t ix_issues, ix_records, ix_cycle, ix_raw;
    uint8_t ix_end_status;
    rchunk *chunks;
    size_t nchunks;
    rkf *kfs;
    size_t nkf;

    uint8_t *sbuf; /* stored (compressed) payload scratch */
    size_t scap;
    vxt_dec it;
    uint8_t *kbuf; /* KEYFRAME payload whose state vx_trace_reader_keyframe returned */
    size_t kcap;
    uint8_t *kibuf; /* KEYFRAME payload read for its other fields only */
    size_t kicap;
    uint8_t *pgbuf; /* PAGES payload */
    size_t pgcap;
    uint8_t *dgbuf; /* DIGEST payload; an EVENTS payload keyframe_here looks into */
    size_t dgcap;
    vxt_dec dgdec; /* decoder computing digests */
    uint8_t zero_page[VX_TRACE_PAGE_SIZE];
};

static vx_err rfail(vx_trace_reader *r, vx_err e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static vx_err rfail(vx_trace_reader *r, vx_err e, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(r->errmsg, sizeof r->errmsg, "%s: ", r->path ? r->path : "trace");
    if (n < 0 || (size_t)n >= sizeof r->errmsg) n = 0;
    va_start(ap, fmt);
    vsnprintf(r->errmsg + n, sizeof r->errmsg - (size_t)n, fmt, ap);
    va_end(ap);
    /* the offset the message names ("... chunk at offset N ..."), its first: where the
     * damage is (the messages are written so); not in the path before it */
    r->err_off = UINT64_MAX;
    for (const char *q = strstr(r->errmsg + n, "offset "); q; q = strstr(q + 1, "offset ")) {
        const char *d = q + 7;
        if (*d < '0' || *d > '9') continue;
        uint64_t v = 0;
        for (; *d >= '0' && *d <= '9' && v <= (UINT64_MAX - 9) / 10; d++)
            v = v * 10 + (uint64_t)(*d - '0');
        r->err_off = v;
        break;
    }
    return e;
}

static const char *chunk_name(unsigned t)
{
    static const char *const names[] = {"invalid", "HEADER", "IMAGE",    "LOAD",
                                        "EVENTS",  "PAGES",  "KEYFRAME", "INDEX",
                                        "DIGEST",  "PAGES2", "KEYFRAME2"};
    return t < VX_ARRAY_SIZE(names) ? names[t] : "unknown";
}

vx_err vx_trace_reader_new(vx_trace_reader **out)
{
    vx_trace_reader *r = calloc(1, sizeof *r);
    *out = r;
    if (!r) return VX_ERR_NOMEM;
    r->fd = -1;
    return VX_OK;
}

static void dec_free(vxt_dec *d)
{
    if (d->have_pred) vxt_pred_free(&d->pred);
    vxt_evbuf_free(&d->eb);
    free(d->raw);
    memset(d, 0, sizeof *d);
}

void vx_trace_reader_free(vx_trace_reader *r)
{
    if (!r) return;
    if (r->fd >= 0) close(r->fd);
    if (r->loads)
        for (uint32_t i = 0; i < r->hdr.nloads; i++) {
            free((void *)r->loads[i].bytes);
            free((void *)r->loads[i].name);
        }
    free(r->loads);
    free(r->image);
    free(r->image_name);
    free(r->sim_version);
    free(r->chunks);
    free(r->kfs);
    free(r->sbuf);
    free(r->kbuf);
    free(r->kibuf);
    free(r->pgbuf);
    free(r->dgbuf);
    dec_free(&r->dgdec);
    dec_free(&r->it);
    free(r->path);
    free(r);
}

const char *vx_trace_reader_errmsg(const vx_trace_reader *r)
{
    if (!r) return "out of memory";
    return r->errmsg[0] ? r->errmsg : "no error";
}

uint64_t vx_trace_reader_error_offset(const vx_trace_reader *r)
{
    return r && r->errmsg[0] ? r->err_off : UINT64_MAX;
}

static void dec_position(vxt_dec *d, size_t chunk, uint64_t index)
{
    d->next_chunk = chunk;
    d->loaded = d->pending = d->ended = d->have_prev = false;
    d->index = index;
}

/* ---- low-level I/O ------------------------------------------------------------------------ */

static vx_err pread_all(vx_trace_reader *r, void *buf, size_t n, uint64_t off)
{
    uint8_t *p = buf;
    while (n) {
        ssize_t k = pread(r->fd, p, n, (off_t)off);
        if (k < 0) {
            if (errno == EINTR) continue;
            return rfail(r, VX_ERR_IO, "read error at offset %" PRIu64 ": %s", off,
                         strerror(errno));
        }
        if (k == 0)
            return rfail(r, VX_ERR_TRUNC, "file shrank while reading at offset %" PRIu64, off);
        p += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return VX_OK;
}

/* A stored checksum against the computed one.  Fuzzing builds (libFuzzer's
 * FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, make fuzz) accept any, so that mutated
 * inputs reach the decoders the checksums guard; never in a normal build. */
static inline bool crc_ok(uint32_t stored, uint32_t computed)
{
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    (void)stored, (void)computed;
    return true;
#else
    return stored == computed;
#endif
}

/* What can be wrong with a chunk header (FORMAT.md §4, §14): each is corruption, whatever
 * the chunk's type. */
enum {
    CHDR_OK,
    CHDR_CRC,
    CHDR_TYPE0,
    CHDR_RESERVED,
    CHDR_SIZES
};

/* The chunk header h into *c: CHDR_OK, or what is wrong with it. */
static int parse_chdr(const uint8_t *h, chdr *c)
{
    if (!crc_ok(vx_get_le32(h + 24), vx_trace_crc32c(0, h, 24))) return CHDR_CRC;
    c->type = h[0];
    c->flags = h[1];
    c->stored = vx_get_le32(h + 4);
    c->raw = vx_get_le32(h + 8);
    c->key = vx_get_le64(h + 12);
    c->pcrc = vx_get_le32(h + 20);
    if (c->type == 0) return CHDR_TYPE0;
    if ((c->flags & ~VXT_CHF_LZ4) || vx_get_le16(h + 2) != 0) return CHDR_RESERVED;
    if (c->raw > VXT_MAX_RAW ||
        ((c->flags & VXT_CHF_LZ4) ? (uint64_t)c->raw > 255ull * c->stored + 1024
                                  : c->raw != c->stored))
        return CHDR_SIZES;
    return CHDR_OK;
}

/* The reader's message for the chunk header at off that parse_chdr found wrong. */
static vx_err bad_chdr(vx_trace_reader *r, uint64_t off, const chdr *c, int why)
{
    if (why == CHDR_SIZES)
        return rfail(r, VX_ERR_CORRUPT,
                     "%s chunk at offset %" PRIu64 " has impossible sizes (%u stored, %u raw)",
                     chunk_name(c->type), off, c->stored, c->raw);
    return rfail(r, VX_ERR_CORRUPT, "corrupt chunk header at offset %" PRIu64 " (%s)", off,
                 why == CHDR_CRC     ? "checksum mismatch"
                 : why == CHDR_TYPE0 ? "type 0"
                                     : "reserved bits set");
}

/* Read and check the header of the chunk at off, and that its payload lies in the file
 * (arguments as for read_chunk). */
static vx_err read_chdr(vx_trace_reader *r, uint64_t off, uint8_t expect_type, uint64_t expect_key,
                        vx_err cut, chdr *c)
{
    uint8_t h[VXT_CHDR_LEN];
    vx_err e;
    if (off > r->fsize || r->fsize - off < VXT_CHDR_LEN)
        return rfail(r, cut, "%s chunk header at offset %" PRIu64 " runs past the end of the file",
                     chunk_name(expect_type), off);
    if ((e = pread_all(r, h, sizeof h, off))) return e;
    const int bad = parse_chdr(h, c);
    if (bad) return bad_chdr(r, off, c, bad);
    if (expect_type && c->type != expect_type)
        return rfail(r, VX_ERR_CORRUPT,
                     "expected a %s chunk at offset %" PRIu64 ", found %s (type %u)",
                     chunk_name(expect_type), off, chunk_name(c->type), c->type);
    if (expect_key != UINT64_MAX && c->key != expect_key)
        return rfail(r, VX_ERR_CORRUPT,
                     "%s chunk at offset %" PRIu64 " has key %" PRIu64 ", expected %" PRIu64,
                     chunk_name(c->type), off, c->key, expect_key);
    if (r->fsize - off - VXT_CHDR_LEN < c->stored)
        return rfail(r, cut,
                     "%s chunk at offset %" PRIu64 " (%u bytes) runs past the end of the file",
                     chunk_name(c->type), off, c->stored);
    return VX_OK;
}

/*
 * Read the chunk at off, check it (expect_type 0: any; expect_key UINT64_MAX: any)
 * and decompress it into *raw (grown as needed).  `cut` is the error to return when
 * the chunk runs past the end of the file (VX_ERR_TRUNC in the prologue; corruption
 * for chunks the index or a scan said were complete).
 */
static vx_err read_chunk(vx_trace_reader *r, uint64_t off, uint8_t expect_type, uint64_t expect_key,
                         vx_err cut, chdr *c, uint8_t **raw, size_t *raw_cap)
{
    vx_err e = read_chdr(r, off, expect_type, expect_key, cut, c);
    if (e) return e;
    bool lz = c->flags & VXT_CHF_LZ4;
    uint8_t *dst;
    if (lz) {
        if (!vxt_reserve(&r->sbuf, &r->scap, c->stored ? c->stored : 1))
            return rfail(r, VX_ERR_NOMEM, "out of memory");
        dst = r->sbuf;
    } else {
        if (!vxt_reserve(raw, raw_cap, c->raw ? c->raw : 1))
            return rfail(r, VX_ERR_NOMEM, "out of memory");
        dst = *raw;
    }
    if (c->stored && (e = pread_all(r, dst, c->stored, off + VXT_CHDR_LEN))) return e;
    if (!crc_ok(c->pcrc, vx_trace_crc32c(0, dst, c->stored)))
        return rfail(r, VX_ERR_CORRUPT, "%s chunk at offset %" PRIu64 ": payload checksum mismatch",
                     chunk_name(c->type), off);
    if (lz) {
        if (!vxt_reserve(raw, raw_cap, c->raw ? c->raw : 1))
            return rfail(r, VX_ERR_NOMEM, "out of memory");
        int n =
            LZ4_decompress_safe((const char *)r->sbuf, (char *)*raw, (int)c->stored, (int)c->raw);
        if (n < 0 || (uint32_t)n != c->raw)
            return rfail(r, VX_ERR_CORRUPT,
                         "%s chunk at offset %" PRIu64 ": LZ4 data does not decompress to %u bytes",
                         chunk_name(c->type), off, c->raw);
    }
    return VX_OK;
}

/* ---- prologue --------------------------------------------------------------------------------- */

static vx_err bad_header(vx_trace_reader *r, const char *what)
{
    return rfail(r, VX_ERR_CORRUPT, "HEADER chunk at offset %u: %s", VXT_SIG_LEN, what);
}

static bool get_string(vxt_cur *c, char **out)
{
    uint64_t n;
    if (!vxt_get_varint(c, &n)) return false;
    if (n > VXT_MAX_NAME || n > vxt_cur_left(c)) return vxt_fail(c, "string too long");
    if (memchr(c->p, 0, (size_t)n)) return vxt_fail(c, "string contains a NUL byte");
    char *s = malloc((size_t)n + 1);
    if (!s) return vxt_fail(c, "out of memory");
    memcpy(s, c->p, (size_t)n);
    s[n] = 0;
    c->p += n;
    free(*out);
    *out = s;
    return true;
}

typedef struct load_tag {
    uint32_t addr;
    uint64_t size;
    char *name;
} load_tag;

static vx_err parse_header(vx_trace_reader *r, const uint8_t *p, size_t n, load_tag **lt,
                           uint32_t *nlt, uint64_t *image_size)
{
    vxt_cur c;
    vx_trace_header *h = &r->hdr;
    bool have_platform = false, have_pc = false, have_image = false;
    uint32_t seen = 0;
    vxt_cur_init(&c, p, n);
    while (vxt_cur_left(&c)) {
        uint64_t tag, len;
        if (!vxt_get_varint(&c, &tag) || !vxt_get_varint(&c, &len)) return bad_header(r, c.err);
        if (len > vxt_cur_left(&c)) return bad_header(r, "field runs past the end of the chunk");
        vxt_cur f;
        vxt_cur_init(&f, c.p, (size_t)len);
        c.p += len;
        if (tag >= 1 && tag <= 10 && tag != VXT_TAG_LOAD) {
            if (seen & (1u << tag)) return bad_header(r, "a field appears twice");
            seen |= 1u << tag;
        }
        bool ok = true;
        uint64_t v = 0;
        switch (tag) {
        case VXT_TAG_PLATFORM:
            ok = vxt_get_v32(&f, &h->clusters) && vxt_get_v32(&f, &h->cores) &&
                 vxt_get_v32(&f, &h->warps) && vxt_get_v32(&f, &h->threads);
            have_platform = ok;
            break;
        case VXT_TAG_MEM_LIMIT: ok = vxt_get_varint(&f, &h->mem_limit); break;
        case VXT_TAG_START_PC:
            ok = vxt_get_v32(&f, &h->start_pc);
            have_pc = ok;
            break;
        case VXT_TAG_ARG: ok = vxt_get_v32(&f, &h->arg); break;
        case VXT_TAG_MAX_CYCLES: ok = vxt_get_varint(&f, &h->max_cycles); break;
        case VXT_TAG_KEYFRAME_INTERVAL: ok = vxt_get_varint(&f, &h->keyframe_interval); break;
        case VXT_TAG_IMAGE:
            ok = vxt_get_u8(&f, &h->image_kind) && vxt_get_varint(&f, image_size) &&
                 get_string(&f, &r->image_name);
            have_image = ok;
            break;
        case VXT_TAG_LOAD: {
            if (*nlt >= n) return bad_header(r, "too many loads");
            load_tag *q = realloc(*lt, sizeof **lt * (*nlt + 1));
            if (!q) return rfail(r, VX_ERR_NOMEM, "out of memory");
            *lt = q;
            load_tag *t = &q[(*nlt)++];
            memset(t, 0, sizeof *t);
            ok = vxt_get_v32(&f, &t->addr) && vxt_get_varint(&f, &t->size) &&
                 get_string(&f, &t->name);
            break;
        }
        case VXT_TAG_SIM_VERSION: ok = get_string(&f, &r->sim_version); break;
        case VXT_TAG_FLAGS:
            ok = vxt_get_varint(&f, &v);
            h->flags = (uint32_t)v;
            break;
        default: break; /* unknown tag: skipped (FORMAT.md §5.1) */
        }
        if (!ok) return bad_header(r, f.err ? f.err : "bad field");
    }
    if (!have_platform || !have_pc || !have_image)
        return bad_header(r, "a required field is missing");
    if (h->clusters < 1 || h->clusters > 127 || h->cores < 1 || h->cores > 511 || h->warps < 1 ||
        h->warps > 511 || h->threads < 1 || h->threads > VX_MAX_THREADS ||
        (h->threads & (h->threads - 1)) ||
        (uint64_t)h->clusters * h->cores * h->warps > VX_MAX_WARPS)
        return bad_header(r, "impossible platform shape");
    if (*image_size > VXT_MAX_RAW) return bad_header(r, "image too large");
    return VX_OK;
}

static vx_err read_prologue(vx_trace_reader *r)
{
    chdr c;
    uint8_t *raw = NULL;
    size_t cap = 0;
    load_tag *lt = NULL;
    uint32_t nlt = 0;
    uint64_t image_size = 0, off = VXT_SIG_LEN;
    vx_err e = read_chunk(r, off, VXT_CH_HEADER, 0, VX_ERR_TRUNC, &c, &raw, &cap);
    if (!e) e = parse_header(r, raw, c.raw, &lt, &nlt, &image_size);
    free(raw);
    if (e) goto out;
    /* LOAD regions the simulator could not hold are refused before they are read (a
     * small trace can claim GiBs of them: decompressed, they took the host's memory) */
    const uint64_t limit = r->hdr.mem_limit ? r->hdr.mem_limit : (uint64_t)1 << 30;
    uint64_t total = 0;
    for (uint32_t i = 0; i < nlt; i++) {
        if (lt[i].size > limit || lt[i].size > ((uint64_t)1 << 32) - total) {
            e = rfail(r, VX_ERR_CORRUPT,
                      "LOAD region %" PRIu32 " (%" PRIu64 " bytes, after %" PRIu64
                      " bytes of others) cannot fit the guest memory limit of %" PRIu64
                      " bytes or the 4 GiB address space",
                      i, lt[i].size, total, limit);
            goto out;
        }
        total += lt[i].size;
    }
    off += VXT_CHDR_LEN + (uint64_t)c.stored;
    r->loads = calloc(nlt ? nlt : 1, sizeof *r->loads);
    if (!r->loads) {
        e = VX_ERR_NOMEM;
        goto out;
    }
    r->hdr.nloads = nlt;
    for (uint32_t i = 0; i < nlt; i++) {
        r->loads[i].addr = lt[i].addr;
        r->loads[i].name = lt[i].name;
        lt[i].name = NULL;
    }
    /* IMAGE, then LOAD 0..n-1; unknown chunk types in between are skipped. */
    for (uint32_t want = 0; want <= nlt;) {
        uint8_t *buf = NULL;
        size_t bcap = 0;
        e = read_chunk(r, off, 0, UINT64_MAX, VX_ERR_TRUNC, &c, &buf, &bcap);
        if (e) {
            free(buf);
            goto out;
        }
        uint8_t t = want == 0 ? VXT_CH_IMAGE : VXT_CH_LOAD;
        uint64_t size = want == 0 ? image_size : lt[want - 1].size;
        if (c.type == t) {
            if (c.key != (want == 0 ? 0 : want - 1) || c.raw != size) {
                free(buf);
                e = rfail(r, VX_ERR_CORRUPT,
                          "%s chunk at offset %" PRIu64 " does not match the header (key %" PRIu64
                          ", %u bytes)",
                          chunk_name(t), off, c.key, c.raw);
                goto out;
            }
            if (want == 0) {
                r->image = buf;
            } else {
                r->loads[want - 1].bytes = buf;
                r->loads[want - 1].len = c.raw;
            }
            want++;
        } else {
            free(buf);
            if (c.type <= VXT_CH_LAST_KNOWN) {
                e = rfail(r, VX_ERR_CORRUPT,
                          "%s chunk at offset %" PRIu64 " where the %s chunk was expected",
                          chunk_name(c.type), off, chunk_name(t));
                goto out;
            }
        }
        off += VXT_CHDR_LEN + (uint64_t)c.stored;
    }
    r->prologue_end = off;
    r->hdr.image = r->image;
    r->hdr.image_len = (size_t)image_size;
    r->hdr.image_name = r->image_name ? r->image_name : "";
    r->hdr.sim_version = r->sim_version ? r->sim_version : "";
    r->hdr.loads = r->loads;
out:
    for (uint32_t i = 0; i < nlt; i++)
        free(lt[i].name);
    free(lt);
    if (e == VX_ERR_TRUNC)
        rfail(r, VX_ERR_TRUNC,
              "the trace was cut off before the end of its header (%" PRIu64 " bytes)", r->fsize);
    return e;
}

/* ---- index or scan ------------------------------------------------------------------------------- */

static vx_err add_chunk(vx_trace_reader *r, size_t *cap, uint64_t key, uint64_t off)
{
    if (r->nchunks == *cap) {
        size_t n = *cap ? 2 * *cap : 64;
        rchunk *q = realloc(r->chunks, n * sizeof *q);
        if (!q) return rfail(r, VX_ERR_NOMEM, "out of memory");
        r->chunks = q;
        *cap = n;
    }
    r->chunks[r->nchunks++] = (rchunk){key, off, 0};
    return VX_OK;
}

static vx_err add_kf(vx_trace_reader *r, size_t *cap, uint64_t index, uint64_t off, uint64_t first,
                     uint64_t cycle, bool on_image)
{
    if (r->nkf == *cap) {
        size_t n = *cap ? 2 * *cap : 16;
        rkf *q = realloc(r->kfs, n * sizeof *q);
        if (!q) return rfail(r, VX_ERR_NOMEM, "out of memory");
        r->kfs = q;
        *cap = n;
    }
    r->kfs[r->nkf++] = (rkf){index, off, first, cycle, on_image};
    return VX_OK;
}

/* An INDEX that breaks FORMAT.md §10.1: corrupt, saying which rule. */
static vx_err index_bad(vx_trace_reader *r, const char *why)
{
    return rfail(r, VX_ERR_CORRUPT, "INDEX chunk at offset %" PRIu64 " is inconsistent: %s",
                 r->index_off, why);
}

/* A keyframe list of the INDEX (FORMAT.md §10.1): 1.0 (KEYFRAME chunks) or 1.1 (KEYFRAME2). */
static vx_err parse_kf_list(vx_trace_reader *r, vxt_cur *c, size_t *kcap, bool on_image)
{
    uint64_t cnt, key = 0, off = 0, d, d2, first, cyc;
    vx_err e;
    if (!vxt_get_varint(c, &cnt)) return index_bad(r, "its keyframe count is cut short");
    if (cnt > vxt_cur_left(c) / 4) return index_bad(r, "more keyframes than its bytes can hold");
    for (uint64_t i = 0; i < cnt; i++) {
        if (!vxt_get_varint(c, &d) || !vxt_get_varint(c, &d2) || !vxt_get_varint(c, &first) ||
            !vxt_get_varint(c, &cyc))
            return index_bad(r, "a keyframe entry is cut short or not a varint");
        if (i && !d2) return index_bad(r, "two keyframes at one offset");
        if (d2 > r->index_off || d > UINT64_MAX - key)
            return index_bad(r, "a keyframe offset or index past the INDEX chunk or 2^64");
        key += d;
        off += d2;
        if (off < r->prologue_end) return index_bad(r, "a keyframe offset in the prologue");
        if (off + VXT_CHDR_LEN > r->index_off)
            return index_bad(r, "a keyframe offset at or past the INDEX chunk");
        if (first > off - r->prologue_end)
            return index_bad(r, "a keyframe's first PAGES chunk before the prologue's end");
        if ((e = add_kf(r, kcap, key, off, first ? off - first : 0, cyc, on_image))) return e;
    }
    return VX_OK;
}

static vx_err parse_index(vx_trace_reader *r, const uint8_t *p, size_t n)
{
    vxt_cur c;
    uint64_t cnt, key = 0, off = 0, d, d2;
    size_t ccap = 0, kcap = 0;
    vx_err e;
    vxt_cur_init(&c, p, n);
    if (!vxt_get_varint(&c, &r->ix_issues) || !vxt_get_varint(&c, &r->ix_records) ||
        !vxt_get_varint(&c, &r->ix_cycle) || !vxt_get_u8(&c, &r->ix_end_status) ||
        !vxt_get_varint(&c, &cnt))
        return index_bad(r, "its totals are cut short or not varints");
    if (cnt > vxt_cur_left(&c) / 2) return index_bad(r, "more chunks than its bytes can hold");
    for (uint64_t i = 0; i < cnt; i++) {
        if (!vxt_get_varint(&c, &d) || !vxt_get_varint(&c, &d2))
            return index_bad(r, "a chunk entry is cut short or not a varint");
        if (i && !d2) return index_bad(r, "two EVENTS chunks at one offset");
        if (d2 > r->index_off || d > UINT64_MAX - key)
            return index_bad(r, "a chunk offset or key past the INDEX chunk or 2^64");
        key += d;
        off += d2;
        if (off < r->prologue_end) return index_bad(r, "an EVENTS chunk offset in the prologue");
        if (off + VXT_CHDR_LEN > r->index_off)
            return index_bad(r, "an EVENTS chunk offset at or past the INDEX chunk");
        if ((e = add_chunk(r, &ccap, key, off))) return e;
    }
    if ((e = parse_kf_list(r, &c, &kcap, false))) return e;
    if (!vxt_get_varint(&c, &r->ix_raw)) return index_bad(r, "its raw size is cut short");
    /* Format 1.1 appends the list of its keyframes and the DIGEST chunk offsets; a
     * 1.0 file ends here.  Bytes after the fields we know are a later minor version's. */
    if (!vxt_cur_left(&c)) return VX_OK;
    size_t n10 = r->nkf;
    if ((e = parse_kf_list(r, &c, &kcap, true))) return e;
    if (n10 && r->nkf > n10) return index_bad(r, "keyframes of both formats (1.0 and 1.1)");
    if (!vxt_get_varint(&c, &cnt)) return index_bad(r, "its DIGEST count is cut short");
    if (cnt && cnt != r->nchunks)
        return index_bad(r, "a DIGEST count other than 0 or the EVENTS chunks'");
    for (uint64_t i = 0; i < cnt; i++) {
        rchunk *rc = &r->chunks[i];
        if (!vxt_get_varint(&c, &d)) return index_bad(r, "a DIGEST offset is cut short");
        if (!d) continue;
        if (d < VXT_CHDR_LEN || d > r->index_off - rc->off ||
            rc->off + d + VXT_CHDR_LEN > r->index_off ||
            (i + 1 < r->nchunks && rc->off + d >= r->chunks[i + 1].off))
            return index_bad(r, "a DIGEST chunk not between its EVENTS chunk and the next");
        rc->dg_off = rc->off + d;
    }
    return VX_OK;
}

/* Try the trailer and the INDEX chunk: VX_OK (complete), VX_ERR_END (no valid trailer), or an error. */
static vx_err read_index(vx_trace_reader *r)
{
    uint8_t t[VXT_TRAILER_LEN];
    vx_err e;
    if (r->fsize < r->prologue_end + VXT_CHDR_LEN + VXT_TRAILER_LEN) return VX_ERR_END;
    if ((e = pread_all(r, t, sizeof t, r->fsize - VXT_TRAILER_LEN))) return e;
    if (memcmp(t + 12, vxt_end_magic, 4) || !crc_ok(vx_get_le32(t + 8), vx_trace_crc32c(0, t, 8)))
        return VX_ERR_END;
    uint64_t ioff = vx_get_le64(t);
    if (ioff < r->prologue_end || ioff > r->fsize - VXT_TRAILER_LEN - VXT_CHDR_LEN)
        return rfail(r, VX_ERR_CORRUPT, "trailer points outside the file (offset %" PRIu64 ")",
                     ioff);
    r->index_off = ioff;
    chdr c;
    uint8_t *raw = NULL;
    size_t cap = 0;
    e = read_chunk(r, ioff, VXT_CH_INDEX, 0, VX_ERR_CORRUPT, &c, &raw, &cap);
    if (!e && ioff + VXT_CHDR_LEN + c.stored != r->fsize - VXT_TRAILER_LEN)
        e = rfail(r, VX_ERR_CORRUPT,
                  "INDEX chunk at offset %" PRIu64 " does not end at the trailer", ioff);
    if (!e) e = parse_index(r, raw, c.raw);
    free(raw);
    return e;
}

static vx_err scan(vx_trace_reader *r)
{
    uint64_t off = r->prologue_end, run_start = 0, run_key = 0;
    bool run = false, after_events = false;
    uint8_t run_type = 0;
    size_t ccap = 0, kcap = 0;
    uint8_t h[VXT_CHDR_LEN];
    chdr c;
    vx_err e;
    free(r->chunks);
    free(r->kfs);
    r->chunks = NULL;
    r->kfs = NULL;
    r->nchunks = r->nkf = 0;
    for (;;) {
        uint64_t left = r->fsize - off;
        if (left < VXT_CHDR_LEN) break; /* end, or a cut inside a chunk header */
        if ((e = pread_all(r, h, sizeof h, off))) return e;
        const int bad = parse_chdr(h, &c);
        if (bad) return bad_chdr(r, off, &c, bad);
        if (left - VXT_CHDR_LEN < c.stored) break; /* cut inside the payload */
        bool events = false;
        switch (c.type) {
        case VXT_CH_EVENTS:
            if (r->nchunks && c.key < r->chunks[r->nchunks - 1].key)
                return rfail(r, VX_ERR_CORRUPT,
                             "EVENTS chunk at offset %" PRIu64 " goes back in time", off);
            if ((e = add_chunk(r, &ccap, c.key, off))) return e;
            run = false;
            events = true;
            break;
        case VXT_CH_DIGEST: /* it describes the EVENTS chunk right before it */
            if (after_events && c.key == r->chunks[r->nchunks - 1].key)
                r->chunks[r->nchunks - 1].dg_off = off;
            break; /* elsewhere it is ignored, like an unknown chunk */
        case VXT_CH_PAGES:
        case VXT_CH_PAGES2:
            if (!run || run_key != c.key || run_type != c.type) {
                run = true;
                run_start = off;
                run_key = c.key;
                run_type = c.type;
            }
            break;
        case VXT_CH_KEYFRAME:
        case VXT_CH_KEYFRAME2: {
            bool img = c.type == VXT_CH_KEYFRAME2;
            uint8_t pt = img ? VXT_CH_PAGES2 : VXT_CH_PAGES;
            if (r->nkf && c.key < r->kfs[r->nkf - 1].index)
                return rfail(r, VX_ERR_CORRUPT, "%s chunk at offset %" PRIu64 " goes back in time",
                             chunk_name(c.type), off);
            if (r->nkf && r->kfs[r->nkf - 1].on_image != img)
                return rfail(r, VX_ERR_CORRUPT,
                             "%s chunk at offset %" PRIu64
                             ": keyframes of format 1.0 and 1.1 in one trace",
                             chunk_name(c.type), off);
            if ((e = add_kf(r, &kcap, c.key, off,
                            run && run_key == c.key && run_type == pt ? run_start : 0, 0, img)))
                return e;
            run = false;
            break;
        }
        case VXT_CH_INDEX:
            if (left - VXT_CHDR_LEN - c.stored < VXT_TRAILER_LEN)
                return VX_OK; /* cut in the trailer */
            return rfail(r, VX_ERR_CORRUPT,
                         "the trailer after the INDEX chunk at offset %" PRIu64 " is corrupt", off);
        case VXT_CH_HEADER:
        case VXT_CH_IMAGE:
        case VXT_CH_LOAD:
            return rfail(r, VX_ERR_CORRUPT, "%s chunk at offset %" PRIu64 " after the prologue",
                         chunk_name(c.type), off);
        default: break; /* unknown chunk type: skipped (between PAGES chunks too) */
        }
        after_events = events;
        off += VXT_CHDR_LEN + (uint64_t)c.stored;
    }
    return VX_OK;
}

vx_err vx_trace_reader_open(vx_trace_reader *r, const char *path)
{
    return vx_trace_reader_open_as(r, path, path);
}

static vx_err open_fd(vx_trace_reader *r);

vx_err vx_trace_reader_open_as(vx_trace_reader *r, const char *path, const char *name)
{
    if (r->opened || r->fd >= 0) return rfail(r, VX_ERR_STATE, "reader already opened");
    free(r->path);
    r->path = strdup(name ? name : "");
    if (!r->path) return rfail(r, VX_ERR_NOMEM, "out of memory");
    if (!path) return rfail(r, VX_ERR_INVAL, "no trace file name");
    /* O_NONBLOCK: opening a FIFO does not wait for a writer (open_fd refuses it as
     * not a regular file); on a regular file it changes nothing (pread) */
    r->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (r->fd < 0) return rfail(r, VX_ERR_IO, "cannot open: %s", strerror(errno));
    return open_fd(r);
}

vx_err vx_trace_reader_open_same(vx_trace_reader *r, const vx_trace_reader *other)
{
    if (r->opened || r->fd >= 0) return rfail(r, VX_ERR_STATE, "reader already opened");
    free(r->path);
    r->path = strdup(other->path ? other->path : "");
    if (!r->path) return rfail(r, VX_ERR_NOMEM, "out of memory");
    if (!other->opened || other->fd < 0)
        return rfail(r, VX_ERR_STATE, "the other reader is not open");
    r->fd = fcntl(other->fd, F_DUPFD_CLOEXEC, 0);
    if (r->fd < 0) return rfail(r, VX_ERR_IO, "cannot open it again: %s", strerror(errno));
    return open_fd(r);
}

/* vx_trace_reader_open's work once the file is open (r->fd). */
static vx_err open_fd(vx_trace_reader *r)
{
    struct stat st;
    uint8_t sig[VXT_SIG_LEN];
    vx_err e;
    if (fstat(r->fd, &st) != 0) return rfail(r, VX_ERR_IO, "cannot stat: %s", strerror(errno));
    if (!S_ISREG(st.st_mode)) return rfail(r, VX_ERR_IO, "not a regular file");
    r->fsize = (uint64_t)st.st_size;
    size_t n = r->fsize < VXT_SIG_LEN ? (size_t)r->fsize : VXT_SIG_LEN;
    if ((e = pread_all(r, sig, n, 0))) return e;
    if (memcmp(sig, vxt_magic, n < 8 ? n : 8))
        return rfail(r, VX_ERR_FORMAT, "not a vxrr trace (bad signature)");
    if (n < VXT_SIG_LEN)
        return rfail(r, VX_ERR_TRUNC, "the trace was cut off in its signature (%zu bytes)", n);
    if (!crc_ok(vx_get_le32(sig + 12), vx_trace_crc32c(0, sig, 12)))
        return rfail(r, VX_ERR_CORRUPT,
                     "corrupt signature at offset 0 (its checksum, bytes 12..15, does not match)");
    r->hdr.major = vx_get_le16(sig + 8);
    r->hdr.minor = vx_get_le16(sig + 10);
    if (r->hdr.major != VX_TRACE_MAJOR)
        return rfail(r, VX_ERR_VERSION, "trace format version %u.%u, this reader reads %u.x",
                     r->hdr.major, r->hdr.minor, VX_TRACE_MAJOR);
    if ((e = read_prologue(r))) return e;
    r->C = r->hdr.clusters * r->hdr.cores;
    r->W = r->hdr.warps;
    r->T = r->hdr.threads;
    r->LB = (r->T + 7) / 8;
    e = read_index(r);
    if (e == VX_OK) {
        r->complete = true;
    } else if (e == VX_ERR_END) {
        r->complete = false;
        if ((e = scan(r))) return e;
    } else {
        return e;
    }
    if (vxt_pred_init(&r->it.pred, r->C, r->W, r->T))
        return rfail(r, VX_ERR_NOMEM, "out of memory");
    r->it.have_pred = true;
    dec_position(&r->it, 0, 0);
    r->it.have_prev = true; /* the first EVENTS chunk must start at event 0 */
    r->opened = true;
    return VX_OK;
}

const vx_trace_header *vx_trace_reader_header(const vx_trace_reader *r)
{
    return &r->hdr;
}

bool vx_trace_reader_incomplete(const vx_trace_reader *r)
{
    return !r->complete;
}

/* ---- the event stream ------------------------------------------------------------------------------- */

static vx_err dec_next(vx_trace_reader *r, vxt_dec *d, const vx_event **ev)
{
    if (d->pending) {
        d->pending = false;
        *ev = &d->eb.ev;
        return VX_OK;
    }
    for (;;) {
        if (!d->loaded) {
            if (d->next_chunk >= r->nchunks || (d->limit && d->next_chunk >= d->limit))
                return VX_ERR_END;
            const rchunk *rc = &r->chunks[d->next_chunk];
            if (d->ended)
                return rfail(r, VX_ERR_CORRUPT,
                             "EVENTS chunk at offset %" PRIu64 " follows the END record", rc->off);
            if (d->have_prev && rc->key != d->index)
                return rfail(r, VX_ERR_CORRUPT,
                             "EVENTS chunk at offset %" PRIu64 " starts at event %" PRIu64
                             ", expected %" PRIu64,
                             rc->off, rc->key, d->index);
            chdr c;
            vx_err e = read_chunk(r, rc->off, VXT_CH_EVENTS, rc->key, VX_ERR_CORRUPT, &c, &d->raw,
                                  &d->raw_cap);
            if (e) return e;
            vxt_pred_reset(&d->pred);
            vxt_cur_init(&d->cur, d->raw, c.raw);
            d->chunk = d->next_chunk++;
            d->index = rc->key;
            d->loaded = true;
        }
        if (d->cur.p == d->cur.end) {
            d->loaded = false;
            d->have_prev = true;
            continue;
        }
        const rchunk *rc = &r->chunks[d->chunk];
        if (d->ended)
            return rfail(r, VX_ERR_CORRUPT,
                         "EVENTS chunk at offset %" PRIu64 ": record after the END record",
                         rc->off);
        size_t at = (size_t)(d->cur.p - d->cur.base);
        bool skipped;
        vx_err e = vxt_dec_record(&d->pred, &d->cur, &d->eb, d->index, &skipped);
        if (e == VX_ERR_NOMEM)
            return rfail(r, e, "out of memory decoding event %" PRIu64, d->index);
        if (e) {
            d->loaded = false; /* do not resume inside a broken chunk */
            d->next_chunk = r->nchunks;
            return rfail(r, VX_ERR_CORRUPT,
                         "EVENTS chunk at offset %" PRIu64
                         ": corrupt record at byte %zu (event %" PRIu64 "): %s",
                         rc->off, at, d->index, d->cur.err ? d->cur.err : "bad record");
        }
        if (skipped) continue;
        if (d->eb.ev.kind == VX_EV_ISSUE)
            d->index++;
        else if (d->eb.ev.kind == VX_EV_END)
            d->ended = true;
        *ev = &d->eb.ev;
        return VX_OK;
    }
}

vx_err vx_trace_reader_next(vx_trace_reader *r, const vx_event **ev)
{
    if (!r->opened) return rfail(r, VX_ERR_STATE, "reader not open");
    return dec_next(r, &r->it, ev);
}

/* First chunk whose key is >= index (binary search; keys never decrease). */
static size_t lower_chunk(const vx_trace_reader *r, uint64_t index)
{
    size_t lo = 0, hi = r->nchunks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->chunks[mid].key < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static vx_err dec_seek(vx_trace_reader *r, vxt_dec *d, uint64_t index)
{
    /* The first event >= index lives in the last chunk that starts before index, or
     * in the first one that starts at or after it. */
    size_t ci = lower_chunk(r, index);
    if (ci > 0) ci--;
    /* Already inside chunk ci or a later one, with every event returned so far before
     * index (the next issue's index is below it, and a DM or END record carries the
     * index of the issue after it): decode on from here instead of from ci's start.
     * Readers that seek a little forward again and again (vxdiff's context) then
     * decode each event once. */
    const bool onward = d->loaded && !d->pending && !d->ended && d->chunk >= ci && d->index < index;
    if (!onward) dec_position(d, ci, ci < r->nchunks ? r->chunks[ci].key : 0);
    for (;;) {
        const vx_event *ev = NULL; /* (GCC -O3 does not see that an error leaves it unread) */
        vx_err e = dec_next(r, d, &ev);
        if (e == VX_ERR_END) {
            dec_position(d, r->nchunks, d->index);
            return VX_OK;
        }
        if (e) return e;
        if (ev->index >= index) {
            d->pending = true;
            return VX_OK;
        }
    }
}

vx_err vx_trace_reader_seek(vx_trace_reader *r, uint64_t index)
{
    if (!r->opened) return rfail(r, VX_ERR_STATE, "reader not open");
    return dec_seek(r, &r->it, index);
}

vx_err vx_trace_reader_seek_chunk(vx_trace_reader *r, size_t i)
{
    if (!r->opened) return rfail(r, VX_ERR_STATE, "reader not open");
    if (i >= r->nchunks) return VX_ERR_RANGE;
    dec_position(&r->it, i, r->chunks[i].key);
    return VX_OK;
}

uint64_t vx_trace_reader_tell(const vx_trace_reader *r)
{
    const vxt_dec *d = &r->it;
    return d->pending ? d->eb.ev.index : d->index;
}

/* ---- summary and full check ----------------------------------------------------------------------------- */

vx_err vx_trace_reader_summary(vx_trace_reader *r, vx_trace_summary *out)
{
    memset(out, 0, sizeof *out);
    if (!r->opened) return rfail(r, VX_ERR_STATE, "reader not open");
    out->complete = r->complete;
    out->file_bytes = r->fsize;
    out->chunks = r->nchunks;
    out->keyframes = r->nkf;
    if (r->complete) {
        out->has_end = true;
        out->end_status = r->ix_end_status;
        out->issues = r->ix_issues;
        out->records = r->ix_records;
        out->cycle = r->ix_cycle;
        out->raw_bytes = r->ix_raw;
        return VX_OK;
    }
    if (!r->nchunks) return VX_OK;
    /* Decode the last chunk with a scratch decoder. */
    vxt_dec d;
    memset(&d, 0, sizeof d);
    if (vxt_pred_init(&d.pred, r->C, r->W, r->T)) return rfail(r, VX_ERR_NOMEM, "out of memory");
    d.have_pred = true;
    dec_position(&d, r->nchunks - 1, r->chunks[r->nchunks - 1].key);
    out->issues = r->chunks[r->nchunks - 1].key;
    vx_err e;
    const vx_event *ev;
    while ((e = dec_next(r, &d, &ev)) == VX_OK) {
        out->cycle = ev->cycle;
        if (ev->kind == VX_EV_ISSUE) out->issues = ev->index + 1;
        if (ev->kind == VX_EV_END) {
            out->has_end = true;
            out->end_status = ev->end_status;
        }
    }
    dec_free(&d);
    return e == VX_ERR_END ? VX_OK : e;
}

static vx_err visit_pages(vx_trace_reader *r, size_t k, vx_trace_page_fn fn, void *ctx,
                          uint64_t *set, size_t setcap, size_t *setn);

/* ---- chunk digests (FORMAT.md §10.3) ---------------------------------------------------------------- */

size_t vx_trace_reader_num_chunks(const vx_trace_reader *r)
{
    return r->opened ? r->nchunks : 0;
}

uint64_t vx_trace_reader_chunk_key(const vx_trace_reader *r, size_t i)
{
    return r->opened && i < r->nchunks ? r->chunks[i].key : 0;
}

/* The digest stored for chunk i: VX_OK, VX_ERR_END (none, or a layout we do not use), or damage. */
static vx_err stored_digest(vx_trace_reader *r, size_t i, vx_trace_digest *out)
{
    const rchunk *rc = &r->chunks[i];
    if (!rc->dg_off) return VX_ERR_END;
    chdr c;
    vx_err e =
        read_chunk(r, rc->dg_off, VXT_CH_DIGEST, rc->key, VX_ERR_CORRUPT, &c, &r->dgbuf, &r->dgcap);
    if (e) return e;
    bool known;
    out->first = rc->key;
    if (!vxt_dg_decode(r->dgbuf, c.raw, r->C * r->W, out, &known))
        return rfail(r, VX_ERR_CORRUPT, "DIGEST chunk at offset %" PRIu64 " is malformed",
                     rc->dg_off);
    return known ? VX_OK : VX_ERR_END;
}

/* Compute the digest of chunk i by decoding it. */
static vx_err computed_digest(vx_trace_reader *r, size_t i, vx_trace_digest *out)
{
    vxt_dec *d = &r->dgdec;
    if (!d->have_pred) {
        if (vxt_pred_init(&d->pred, r->C, r->W, r->T))
            return rfail(r, VX_ERR_NOMEM, "out of memory");
        d->have_pred = true;
    }
    dec_position(d, i, r->chunks[i].key);
    d->limit = i + 1;
    vxt_dg_init(out, r->chunks[i].key);
    const vx_event *ev = NULL; /* (as in dec_seek) */
    vx_err e;
    while ((e = dec_next(r, d, &ev)) == VX_OK)
        vxt_dg_add(out, ev, r->W);
    return e == VX_ERR_END ? VX_OK : e;
}

vx_err vx_trace_reader_digest(vx_trace_reader *r, size_t i, unsigned mode, vx_trace_digest *out)
{
    if (!r->opened) return rfail(r, VX_ERR_STATE, "reader not open");
    if (i >= r->nchunks)
        return rfail(r, VX_ERR_RANGE, "no EVENTS chunk %zu (the trace has %zu)", i, r->nchunks);
    vx_err e = stored_digest(r, i, out);
    if (e != VX_ERR_END || mode != VX_TRACE_DIGEST_COMPUTE) return e;
    return computed_digest(r, i, out);
}

/* Chunk i's header and stored payload (checked against its CRC) into *buf. */
static vx_err stored_chunk(vx_trace_reader *r, size_t i, chdr *c, uint8_t **buf)
{
    vx_err e = read_chdr(r, r->chunks[i].off, VXT_CH_EVENTS, r->chunks[i].key, VX_ERR_CORRUPT, c);
    if (e) return e;
    *buf = malloc(c->stored ? c->stored : 1);
    if (!*buf) return rfail(r, VX_ERR_NOMEM, "out of memory");
    if (c->stored && (e = pread_all(r, *buf, c->stored, r->chunks[i].off + VXT_CHDR_LEN))) return e;
    if (!crc_ok(c->pcrc, vx_trace_crc32c(0, *buf, c->stored)))
        return rfail(r, VX_ERR_CORRUPT,
                     "EVENTS chunk at offset %" PRIu64 ": payload checksum mismatch",
                     r->chunks[i].off);
    return VX_OK;
}

vx_err vx_trace_reader_chunk_check(vx_trace_reader *r, size_t i)
{
    if (!r->opened) return VX_ERR_STATE;
    if (i >= r->nchunks) return VX_ERR_RANGE;
    chdr c;
    uint8_t *buf = NULL;
    vx_err e = stored_chunk(r, i, &c, &buf);
    free(buf);
    return e;
}

vx_err vx_trace_reader_chunks_same(vx_trace_reader *a, size_t ia, vx_trace_reader *b, size_t ib,
                                   bool *same)
{
    *same = false;
    if (!a->opened || !b->opened) return VX_ERR_STATE;
    if (ia >= a->nchunks || ib >= b->nchunks) return VX_ERR_RANGE;
    if (a->chunks[ia].key != b->chunks[ib].key || a->C != b->C || a->W != b->W || a->T != b->T)
        return VX_OK;
    chdr ca, cb;
    uint8_t *pa = NULL, *pb = NULL;
    vx_err e = stored_chunk(a, ia, &ca, &pa);
    if (!e) e = stored_chunk(b, ib, &cb, &pb);
    if (!e)
        *same = ca.flags == cb.flags && ca.raw == cb.raw && ca.stored == cb.stored &&
                ca.pcrc == cb.pcrc && !memcmp(pa, pb, ca.stored);
    free(pa);
    free(pb);
    return e;
}

/* Every stored digest must be exactly the digest of its chunk's records. */
static vx_err check_digests(vx_trace_reader *r)
{
    vx_trace_digest a, b;
    for (size_t i = 0; i < r->nchunks; i++) {
        vx_err e = stored_digest(r, i, &a);
        if (e == VX_ERR_END) continue;
        if (e || (e = computed_digest(r, i, &b))) return e;
        if (memcmp(&a, &b, sizeof a))
            return rfail(r, VX_ERR_CORRUPT,
                         "DIGEST chunk at offset %" PRIu64
                         " does not match its EVENTS chunk at offset %" PRIu64,
                         r->chunks[i].dg_off, r->chunks[i].off);
    }
    return VX_OK;
}

/* Add key to an open-addressing set of (space, page) keys (cap a power of two, never
 * full; key + 1 stored, 0 = empty): VX_TRACE_PAGES_ALL and the full check's
 * duplicate test.  false when it was there already. */
static bool set_insert(uint64_t *set, size_t cap, uint64_t key)
{
    uint64_t h = (key + 1) * 0x9E3779B97F4A7C15ull;
    for (size_t i = (size_t)(h >> 20) & (cap - 1);; i = (i + 1) & (cap - 1)) {
        if (set[i] == key + 1) return false;
        if (!set[i]) {
            set[i] = key + 1;
            return true;
        }
    }
}

/* The pages of one keyframe, for a full check: no page twice (FORMAT.md §9.1). */
typedef struct uniq_pages {
    uint64_t *set;
    size_t cap;
    bool dup;
    uint32_t space, addr; /* the page listed twice */
} uniq_pages;

static vx_err unique_page(void *ctx, uint32_t space, uint32_t addr, const uint8_t *page)
{
    uniq_pages *u = ctx;
    (void)page;
    if (set_insert(u->set, u->cap, (uint64_t)space << 20 | addr >> 12)) return VX_OK;
    u->dup = true;
    u->space = space;
    u->addr = addr;
    return VX_ERR_CORRUPT;
}

/* Keyframe k's PAGES chunks (whose count the caller checked against the file size),
 * every page once. */
static vx_err check_kf_pages(vx_trace_reader *r, size_t k, uint64_t npages)
{
    uniq_pages u = {NULL, 16, false, 0, 0};
    while (u.cap < 2 * npages + 16)
        u.cap *= 2;
    if (!(u.set = calloc(u.cap, sizeof *u.set))) return rfail(r, VX_ERR_NOMEM, "out of memory");
    vx_err e = visit_pages(r, k, unique_page, &u, NULL, 0, NULL);
    free(u.set);
    if (e && u.dup)
        return rfail(r, VX_ERR_CORRUPT,
                     "the keyframe at offset %" PRIu64 " holds page 0x%08x of space %u twice",
                     r->kfs[k].off, u.addr, u.space);
    return e;
}

/* The payload checksum of a chunk that is otherwise skipped (FORMAT.md §4: SHOULD;
 * an unknown chunk, or a DIGEST chunk that is ignored). */
static vx_err check_payload_crc(vx_trace_reader *r, uint64_t off, const chdr *c)
{
    uint64_t pos = off + VXT_CHDR_LEN, left = c->stored;
    size_t blk = left < (1u << 20) ? (size_t)left : (size_t)1 << 20;
    uint32_t crc = 0;
    if (!vxt_reserve(&r->sbuf, &r->scap, blk ? blk : 1))
        return rfail(r, VX_ERR_NOMEM, "out of memory");
    while (left) {
        size_t n = left < blk ? (size_t)left : blk;
        vx_err e = pread_all(r, r->sbuf, n, pos);
        if (e) return e;
        crc = vx_trace_crc32c(crc, r->sbuf, n);
        pos += n;
        left -= n;
    }
    if (!crc_ok(c->pcrc, crc))
        return rfail(r, VX_ERR_CORRUPT, "%s chunk at offset %" PRIu64 ": payload checksum mismatch",
                     chunk_name(c->type), off);
    return VX_OK;
}

static vx_err orphan_pages(vx_trace_reader *r, uint8_t type, uint64_t off, uint64_t key)
{
    return rfail(r, VX_ERR_CORRUPT,
                 "%s chunk at offset %" PRIu64 " (key %" PRIu64 ") is not followed by its %s chunk",
                 chunk_name(type), off, key,
                 chunk_name(type == VXT_CH_PAGES ? VXT_CH_KEYFRAME : VXT_CH_KEYFRAME2));
}

/* The DIGEST chunk the INDEX lists for EVENTS chunk i was not met before the next one. */
static vx_err digest_missing(vx_trace_reader *r, size_t i)
{
    return rfail(r, VX_ERR_CORRUPT,
                 "INDEX chunk at offset %" PRIu64 " lists a DIGEST chunk at offset %" PRIu64
                 " for the EVENTS chunk at offset %" PRIu64 ", but there is none",
                 r->index_off, r->chunks[i].dg_off, r->chunks[i].off);
}

/*
 * The chunks after the prologue, every one in file order (a full check; opening a
 * complete trace trusts its INDEX and never looks at the chunks it does not list):
 * no prologue or INDEX chunk among them; every EVENTS and keyframe chunk listed in
 * the INDEX as it is in the file (a scanned trace: as the scan found it), every
 * PAGES(2) run followed by the KEYFRAME(2) chunk of its key, every DIGEST chunk the
 * INDEX lists present, the payload checksum of every unknown chunk right.  DIGEST
 * chunks elsewhere are ignored.  A scanned (cut off) trace is walked up to where the
 * scan stopped.  kf_next[k]: the number of EVENTS chunks before keyframe k.
 */
static vx_err check_layout(vx_trace_reader *r, size_t *kf_next)
{
    uint64_t end = r->complete ? r->index_off : r->fsize, off = r->prologue_end;
    uint64_t run_start = 0, run_key = 0;
    uint8_t run_type = 0;
    bool run = false, dg_seen = true;
    size_t ci = 0, ki = 0;
    uint8_t h[VXT_CHDR_LEN];
    chdr c;
    vx_err e;
    while (off < end) {
        uint64_t left = end - off;
        if (left < VXT_CHDR_LEN) {
            if (!r->complete) break; /* the cut */
            return rfail(r, VX_ERR_CORRUPT,
                         "%" PRIu64 " bytes at offset %" PRIu64
                         " before the INDEX chunk are not a chunk",
                         left, off);
        }
        if ((e = pread_all(r, h, sizeof h, off))) return e;
        const int bad = parse_chdr(h, &c);
        if (bad) return bad_chdr(r, off, &c, bad);
        if (left - VXT_CHDR_LEN < c.stored) {
            if (!r->complete) break; /* the cut */
            return rfail(r, VX_ERR_CORRUPT,
                         "%s chunk at offset %" PRIu64
                         " runs into the INDEX chunk at offset %" PRIu64,
                         chunk_name(c.type), off, end);
        }
        switch (c.type) {
        case VXT_CH_EVENTS:
            if (run) return orphan_pages(r, run_type, run_start, run_key);
            if (!dg_seen) return digest_missing(r, ci - 1);
            if (ci < r->nchunks && r->chunks[ci].off < off)
                return rfail(r, VX_ERR_CORRUPT,
                             "INDEX chunk at offset %" PRIu64
                             " lists an EVENTS chunk at offset %" PRIu64 ", but there is none",
                             r->index_off, r->chunks[ci].off);
            if (ci >= r->nchunks || r->chunks[ci].off != off)
                return rfail(r, VX_ERR_CORRUPT,
                             "EVENTS chunk at offset %" PRIu64 " is not listed in the INDEX", off);
            dg_seen = !r->chunks[ci++].dg_off;
            break;
        case VXT_CH_DIGEST:
            if (ci && r->chunks[ci - 1].dg_off == off)
                dg_seen = true; /* its payload is checked with the digests */
            else if ((e = check_payload_crc(r, off, &c)))
                return e; /* ignored, but not damaged */
            break;
        case VXT_CH_PAGES:
        case VXT_CH_PAGES2:
            if (run && (run_type != c.type || run_key != c.key))
                return orphan_pages(r, run_type, run_start, run_key);
            if (!run) {
                run = true;
                run_start = off;
                run_type = c.type;
                run_key = c.key;
            }
            break;
        case VXT_CH_KEYFRAME:
        case VXT_CH_KEYFRAME2: {
            bool img = c.type == VXT_CH_KEYFRAME2;
            if (run && (run_type != (img ? VXT_CH_PAGES2 : VXT_CH_PAGES) || run_key != c.key))
                return orphan_pages(r, run_type, run_start, run_key);
            if (ki < r->nkf && r->kfs[ki].off < off)
                return rfail(r, VX_ERR_CORRUPT,
                             "INDEX chunk at offset %" PRIu64 " lists a keyframe at offset %" PRIu64
                             ", but there is none",
                             r->index_off, r->kfs[ki].off);
            if (ki >= r->nkf || r->kfs[ki].off != off)
                return rfail(r, VX_ERR_CORRUPT,
                             "%s chunk at offset %" PRIu64 " is not listed in the INDEX",
                             chunk_name(c.type), off);
            const rkf *kf = &r->kfs[ki];
            if (kf->on_image != img || kf->index != c.key || kf->first_off != (run ? run_start : 0))
                return rfail(r, VX_ERR_CORRUPT,
                             "%s chunk at offset %" PRIu64 " (key %" PRIu64
                             ") does not match its entry in the INDEX",
                             chunk_name(c.type), off, c.key);
            kf_next[ki++] = ci;
            run = false;
            break;
        }
        case VXT_CH_INDEX:
            if (!r->complete) goto done; /* a scan stops here too (cut in the trailer) */
            return rfail(r, VX_ERR_CORRUPT,
                         "INDEX chunk at offset %" PRIu64
                         " before the INDEX chunk at offset %" PRIu64,
                         off, r->index_off);
        case VXT_CH_HEADER:
        case VXT_CH_IMAGE:
        case VXT_CH_LOAD:
            return rfail(r, VX_ERR_CORRUPT, "%s chunk at offset %" PRIu64 " after the prologue",
                         chunk_name(c.type), off);
        default:
            if ((e = check_payload_crc(r, off, &c))) return e;
            break;
        }
        off += VXT_CHDR_LEN + (uint64_t)c.stored;
    }
    /* a complete trace: nothing may be left pending before its INDEX (a cut trace may
     * lose the end of a keyframe, or a DIGEST chunk) */
    if (r->complete && run) return orphan_pages(r, run_type, run_start, run_key);
    if (r->complete && !dg_seen) return digest_missing(r, ci - 1);
done:
    if (ci < r->nchunks)
        return rfail(r, VX_ERR_CORRUPT,
                     "INDEX chunk at offset %" PRIu64 " lists an EVENTS chunk at offset %" PRIu64
                     ", but there is none",
                     r->index_off, r->chunks[ci].off);
    if (ki < r->nkf)
        return rfail(r, VX_ERR_CORRUPT,
                     "INDEX chunk at offset %" PRIu64 " lists a keyframe at offset %" PRIu64
                     ", but there is none",
                     r->index_off, r->kfs[ki].off);
    return VX_OK;
}

/* Decode every record: the stream is well formed, and for a complete trace it ends with
 * an END record and agrees with every total of the INDEX.  *issues: the issues read. */
static vx_err check_events(vx_trace_reader *r, uint64_t *issues)
{
    vxt_dec d;
    memset(&d, 0, sizeof d);
    if (vxt_pred_init(&d.pred, r->C, r->W, r->T)) return rfail(r, VX_ERR_NOMEM, "out of memory");
    d.have_pred = true;
    dec_position(&d, 0, 0);
    d.have_prev = true; /* the first chunk must start at event 0 */
    vx_err e;
    const vx_event *ev;
    uint64_t records = 0, cycle = 0, raw = 0;
    bool ended = false;
    uint8_t status = 0;
    while ((e = dec_next(r, &d, &ev)) == VX_OK) {
        records++;
        cycle = ev->cycle;
        raw += vx_trace_event_raw_size(ev, r->T);
        if (ev->kind == VX_EV_END) {
            ended = true;
            status = ev->end_status;
        }
    }
    *issues = d.index;
    dec_free(&d);
    if (e != VX_ERR_END) return e;
    if (!r->complete) return VX_OK;
    if (!ended)
        return rfail(r, VX_ERR_CORRUPT,
                     "the trace is complete (INDEX chunk at offset %" PRIu64
                     ") but its events have no END record",
                     r->index_off);
    if (*issues != r->ix_issues || records != r->ix_records || cycle != r->ix_cycle ||
        status != r->ix_end_status || raw != r->ix_raw)
        return rfail(r, VX_ERR_CORRUPT,
                     "INDEX chunk at offset %" PRIu64 " does not match the events (%" PRIu64
                     " issues, %" PRIu64 " records, cycle %" PRIu64
                     ", end status %u, raw size %" PRIu64 "; the INDEX says %" PRIu64 ", %" PRIu64
                     ", %" PRIu64 ", %u, %" PRIu64 ")",
                     r->index_off, *issues, records, cycle, status, raw, r->ix_issues,
                     r->ix_records, r->ix_cycle, r->ix_end_status, r->ix_raw);
    return VX_OK;
}

/* A keyframe whose page count no file of this size could hold (3 bytes a page at the
 * least, FORMAT.md 9.1). */
static vx_err kf_too_many_pages(vx_trace_reader *r, size_t k, uint64_t npages)
{
    return rfail(r, VX_ERR_CORRUPT,
                 "keyframe chunk at offset %" PRIu64 ": keyframe %zu claims %" PRIu64
                 " pages, more than a file of %" PRIu64 " bytes holds",
                 r->kfs[k].off, k, npages, r->fsize);
}

vx_err vx_trace_reader_check(vx_trace_reader *r)
{
    if (!r->opened) return rfail(r, VX_ERR_STATE, "reader not open");
    size_t *kf_next = calloc(r->nkf ? r->nkf : 1, sizeof *kf_next);
    if (!kf_next) return rfail(r, VX_ERR_NOMEM, "out of memory");
    uint64_t issues = 0;
    vx_err e = check_layout(r, kf_next);
    if (!e) e = check_events(r, &issues);
    for (size_t k = 0; !e && k < r->nkf; k++) {
        vx_trace_keyframe info;
        const rkf *kf = &r->kfs[k];
        if ((e = vx_trace_reader_keyframe(r, k, &info, NULL, NULL))) break;
        /* the number of issues before it (the EVENTS chunk keys chain, checked above) */
        uint64_t before = kf_next[k] < r->nchunks ? r->chunks[kf_next[k]].key : issues;
        if (info.index != before)
            e = rfail(r, VX_ERR_CORRUPT,
                      "%s chunk at offset %" PRIu64 " has key %" PRIu64 " but %" PRIu64
                      " issues precede it",
                      chunk_name(kf->on_image ? VXT_CH_KEYFRAME2 : VXT_CH_KEYFRAME), kf->off,
                      info.index, before);
        else if (r->complete && info.cycle != kf->cycle)
            e = rfail(r, VX_ERR_CORRUPT,
                      "INDEX chunk at offset %" PRIu64 " gives cycle %" PRIu64
                      " for the keyframe at offset %" PRIu64 ", which says %" PRIu64,
                      r->index_off, kf->cycle, kf->off, info.cycle);
        else if (info.npages > r->fsize / 3)
            e = kf_too_many_pages(r, k, info.npages);
        else
            e = check_kf_pages(r, k, info.npages);
    }
    free(kf_next);
    return e ? e : check_digests(r);
}

/* ---- keyframes -------------------------------------------------------------------------------------------- */

size_t vx_trace_reader_num_keyframes(const vx_trace_reader *r)
{
    return r->nkf;
}

vx_err vx_trace_reader_keyframe_find(const vx_trace_reader *r, uint64_t index, size_t *k)
{
    size_t lo = 0, hi = r->nkf;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->kfs[mid].index <= index)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return VX_ERR_RANGE;
    *k = lo - 1;
    return VX_OK;
}

/* Read the KEYFRAME(2) chunk of keyframe k and parse it: into kbuf when the caller
 * wants the state (which stays valid until the next such call, as vx_trace.h says),
 * else into kibuf. */
static vx_err load_kf(vx_trace_reader *r, size_t k, vx_trace_keyframe *info, const uint8_t **state,
                      size_t *len)
{
    chdr c;
    const rkf *kf = &r->kfs[k];
    uint8_t **buf = state ? &r->kbuf : &r->kibuf;
    vx_err e = read_chunk(r, kf->off, kf->on_image ? VXT_CH_KEYFRAME2 : VXT_CH_KEYFRAME, kf->index,
                          VX_ERR_CORRUPT, &c, buf, state ? &r->kcap : &r->kicap);
    if (e) return e;
    vxt_cur cur;
    uint64_t slen;
    vxt_cur_init(&cur, *buf, c.raw);
    info->index = kf->index;
    info->on_image = kf->on_image;
    if (!vxt_get_varint(&cur, &info->cycle) || !vxt_get_varint(&cur, &info->npages) ||
        !vxt_get_varint(&cur, &slen) || slen > vxt_cur_left(&cur))
        return rfail(r, VX_ERR_CORRUPT, "%s chunk at offset %" PRIu64 " is malformed",
                     chunk_name(c.type), kf->off);
    if ((kf->first_off == 0) != (info->npages == 0))
        return rfail(
            r, VX_ERR_CORRUPT, "%s chunk at offset %" PRIu64 " does not match its %s chunks",
            chunk_name(c.type), kf->off, chunk_name(kf->on_image ? VXT_CH_PAGES2 : VXT_CH_PAGES));
    if (state) *state = cur.p;
    if (len) *len = (size_t)slen;
    return VX_OK;
}

vx_err vx_trace_reader_keyframe(vx_trace_reader *r, size_t k, vx_trace_keyframe *info,
                                const uint8_t **state, size_t *len)
{
    vx_trace_keyframe tmp;
    if (!r->opened) return rfail(r, VX_ERR_STATE, "reader not open");
    if (k >= r->nkf)
        return rfail(r, VX_ERR_RANGE, "no keyframe %zu (the trace has %zu)", k, r->nkf);
    return load_kf(r, k, info ? info : &tmp, state, len);
}

static vx_err visit_pages(vx_trace_reader *r, size_t k, vx_trace_page_fn fn, void *ctx,
                          uint64_t *set, size_t setcap, size_t *setn)
{
    vx_trace_keyframe info;
    vx_err e = load_kf(r, k, &info, NULL, NULL);
    if (e) return e;
    const rkf *kf = &r->kfs[k];
    uint64_t off = kf->first_off, seen = 0;
    if (!off) return VX_OK;
    while (off < kf->off) {
        chdr c;
        /* an unknown chunk, or a DIGEST chunk that is not after its EVENTS chunk, is
         * skipped, not taken for the end of the keyframe's PAGES chunks */
        if ((e = read_chdr(r, off, 0, UINT64_MAX, VX_ERR_CORRUPT, &c))) return e;
        if (c.type == VXT_CH_DIGEST || c.type > VXT_CH_LAST_KNOWN) {
            off += VXT_CHDR_LEN + (uint64_t)c.stored;
            continue;
        }
        if ((e = read_chunk(r, off, kf->on_image ? VXT_CH_PAGES2 : VXT_CH_PAGES, kf->index,
                            VX_ERR_CORRUPT, &c, &r->pgbuf, &r->pgcap)))
            return e;
        vxt_cur cur;
        uint64_t cnt;
        vxt_cur_init(&cur, r->pgbuf, c.raw);
        if (!vxt_get_varint(&cur, &cnt) || cnt > vxt_cur_left(&cur) / 3) goto bad;
        for (uint64_t i = 0; i < cnt; i++) {
            uint32_t space, page;
            uint8_t mode;
            if (!vxt_get_v32(&cur, &space) || !vxt_get_v32(&cur, &page) ||
                !vxt_get_u8(&cur, &mode) || page > 0xFFFFFu || mode > 1)
                goto bad;
            const uint8_t *data = r->zero_page;
            if (mode == 0) {
                if (vxt_cur_left(&cur) < VX_TRACE_PAGE_SIZE) goto bad;
                data = cur.p;
                cur.p += VX_TRACE_PAGE_SIZE;
            }
            if (set && !set_insert(set, setcap, (uint64_t)space << 20 | page)) continue;
            if (set) (*setn)++;
            if ((e = fn(ctx, space, page << 12, data)))
                return rfail(r, e, "page visitor stopped at page 0x%08x of space %u: %s",
                             page << 12, space, vx_strerror(e));
        }
        if (vxt_cur_left(&cur)) goto bad;
        seen += cnt;
        off += VXT_CHDR_LEN + (uint64_t)c.stored;
        continue;
    bad:
        return rfail(r, VX_ERR_CORRUPT, "PAGES chunk at offset %" PRIu64 " is malformed", off);
    }
    if (off != kf->off || seen != info.npages)
        return rfail(r, VX_ERR_CORRUPT,
                     "the PAGES chunks of the keyframe at offset %" PRIu64
                     " do not add up (%" PRIu64 " of %" PRIu64 " pages)",
                     kf->off, seen, info.npages);
    return VX_OK;
}

vx_err vx_trace_reader_keyframe_pages(vx_trace_reader *r, size_t k, unsigned mode,
                                      vx_trace_page_fn fn, void *ctx)
{
    if (!r->opened) return rfail(r, VX_ERR_STATE, "reader not open");
    if (k >= r->nkf)
        return rfail(r, VX_ERR_RANGE, "no keyframe %zu (the trace has %zu)", k, r->nkf);
    if (mode != VX_TRACE_PAGES_DELTA && mode != VX_TRACE_PAGES_ALL)
        return rfail(r, VX_ERR_INVAL, "keyframe pages: unknown mode %u", mode);
    if (mode == VX_TRACE_PAGES_DELTA) return visit_pages(r, k, fn, ctx, NULL, 0, NULL);
    /* Newest first, so that the first copy of a page seen is the one to keep.  The
     * set is sized from the page counts, so it never fills up. */
    uint64_t total = 0;
    for (size_t j = 0; j <= k; j++) {
        vx_trace_keyframe info;
        vx_err e = load_kf(r, j, &info, NULL, NULL);
        if (e) return e;
        if (info.npages > r->fsize / 3) return kf_too_many_pages(r, j, info.npages);
        total += info.npages;
    }
    size_t cap = 16;
    while (cap < 2 * total + 16)
        cap *= 2;
    uint64_t *set = calloc(cap, sizeof *set);
    if (!set) return rfail(r, VX_ERR_NOMEM, "out of memory");
    size_t n = 0;
    vx_err e = VX_OK;
    for (size_t j = k + 1; j-- > 0 && !e;)
        e = visit_pages(r, j, fn, ctx, set, cap, &n);
    free(set);
    return e;
}

vx_err vx_trace_reader_seek_keyframe(vx_trace_reader *r, size_t k)
{
    if (!r->opened) return rfail(r, VX_ERR_STATE, "reader not open");
    if (k >= r->nkf)
        return rfail(r, VX_ERR_RANGE, "no keyframe %zu (the trace has %zu)", k, r->nkf);
    const rkf *kf = &r->kfs[k];
    /* first EVENTS chunk after the KEYFRAME chunk */
    size_t lo = 0, hi = r->nchunks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->chunks[mid].off < kf->off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < r->nchunks && r->chunks[lo].key != kf->index)
        return rfail(r, VX_ERR_CORRUPT,
                     "the EVENTS chunk after the keyframe at offset %" PRIu64
                     " starts at event %" PRIu64 ", not %" PRIu64,
                     kf->off, r->chunks[lo].key, kf->index);
    dec_position(&r->it, lo, kf->index);
    r->it.have_prev = true; /* its key must continue from the keyframe */
    return VX_OK;
}

/* Whether EVENTS chunk i holds no event (FORMAT.md §6, §8.3: no record, or records of
 * unknown kinds only), so that vx_trace_reader_next passes through it without a stop.
 * next_key: the event index after it.  A chunk that holds an issue record has a lower
 * key and is not read; one that holds none is (a Debug Module or END record would be an
 * event).  False on damage: the iteration reports it when it gets there. */
static bool chunk_has_no_event(vx_trace_reader *r, size_t i, uint64_t next_key)
{
    if (r->chunks[i].key != next_key) return false;
    chdr c;
    if (read_chunk(r, r->chunks[i].off, VXT_CH_EVENTS, next_key, VX_ERR_CORRUPT, &c, &r->dgbuf,
                   &r->dgcap))
        return false;
    vxt_cur cur;
    vxt_cur_init(&cur, r->dgbuf, c.raw);
    return vxt_only_unknown_records(cur);
}

bool vx_trace_reader_keyframe_here(vx_trace_reader *r, size_t *k)
{
    const vxt_dec *d = &r->it;
    if (!r->opened || d->pending || !r->nkf) return false;
    /* the boundary we are at: between chunk `after` - 1 (or the prologue) and chunk
     * `after`; records of unknown kinds left in the loaded chunk are no events */
    size_t after;
    if (d->loaded) {
        if (!vxt_only_unknown_records(d->cur)) return false; /* keyframes are never in a chunk */
        after = d->chunk + 1;
    } else {
        after = d->next_chunk;
    }
    const uint64_t lo = after ? r->chunks[after - 1].off : 0;
    /* the first keyframe past the boundary (keyframes are in file order) */
    size_t a = 0, b = r->nkf;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (r->kfs[mid].off <= lo)
            a = mid + 1;
        else
            b = mid;
    }
    if (a == r->nkf) return false;
    /* vx_trace_reader_next passes through chunks without events without a stop: a
     * keyframe after them is here too */
    for (; after < r->nchunks && r->chunks[after].off < r->kfs[a].off; after++)
        if (!chunk_has_no_event(r, after, r->kfs[a].index)) return false;
    const uint64_t index = r->kfs[a].index;
    for (;;) {
        /* the last of the keyframes before the next chunk */
        const uint64_t hi = after < r->nchunks ? r->chunks[after].off : UINT64_MAX;
        for (b = r->nkf; a + 1 < b;) {
            size_t mid = a + (b - a) / 2;
            if (r->kfs[mid].off < hi)
                a = mid;
            else
                b = mid;
        }
        /* a keyframe of the same index after more chunks without events (FORMAT.md 6
         * allows EVENTS chunks without records, 9 keyframes of one index) is here too */
        if (a + 1 == r->nkf || r->kfs[a + 1].index != index) break;
        size_t j = after;
        while (j < r->nchunks && r->chunks[j].off < r->kfs[a + 1].off &&
               chunk_has_no_event(r, j, index))
            j++;
        if (j == after || (j < r->nchunks && r->chunks[j].off < r->kfs[a + 1].off)) break;
        after = j;
    }
    *k = a;
    return true;
}
