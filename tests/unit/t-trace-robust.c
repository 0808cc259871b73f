/*
 * t-trace-robust.c - the reader against damaged files (FORMAT.md §11):
 *   - a trace cut off at EVERY byte offset opens (once its prologue is complete),
 *     reads exactly the events of its complete chunks, says it is incomplete, and
 *     never reports corruption;
 *   - a single corrupted byte at EVERY offset (two patterns) is reported as
 *     VX_ERR_CORRUPT with an offset (VX_ERR_FORMAT in the magic), never accepted;
 *   - a hand-assembled trace (bytes written from FORMAT.md, not by libvxtrace) with a
 *     newer minor version, unknown header tags, chunk types, record kinds, an issue
 *     extension block and trailing bytes in DM/END bodies reads as specified;
 *   - a newer major version is refused;
 *   - the full check reads every chunk of a complete trace, not only those its INDEX
 *     lists: a prologue chunk after the prologue, a keyframe the INDEX does not list,
 *     PAGES chunks without their KEYFRAME and an unknown chunk whose CRC fails are
 *     corruption, a misplaced DIGEST chunk is not (and a cut trace stays incomplete);
 *   - a fault reason holding a newline is corruption.
 * Run under ASan+UBSan in the debug build: any out-of-bounds read fails the test.
 */
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "trace-gen.h"
#include "vx_trace.h"

static char dir[64];
static char path_full[128], path_cut[128];

/* ---- build the reference trace ---- */

static void write_reference(const char *path, unsigned flags)
{
    vx_trace_writer *w;
    vx_trace_writer_opts o = {VX_TRACE_W_FORCE | flags, 200};
    vx_trace_header h;
    static uint8_t image[64];
    static const uint8_t data[5] = {1, 2, 3, 4, 5};
    vx_trace_load load = {0x10000, data, sizeof data, "d.bin"};
    uint8_t page[VX_TRACE_PAGE_SIZE];
    tgen g;
    for (size_t i = 0; i < sizeof image; i++)
        image[i] = (uint8_t)(i * 3);
    memset(&h, 0, sizeof h);
    h.clusters = h.cores = 1;
    h.warps = 2;
    h.threads = 4;
    h.start_pc = 0x80000000u;
    h.image_kind = 1;
    h.image_name = "k.elf";
    h.image = image;
    h.image_len = sizeof image;
    h.nloads = 1;
    h.loads = &load;
    h.keyframe_interval = 40;
    vx_trace_writer_new(&w);
    vx_err e = vx_trace_writer_create(w, path, &o);
    if (!e) e = vx_trace_writer_header(w, &h);
    tgen_init(&g, 11, 1, 2, 4, 1);
    for (int i = 0; !e && i < 150; i++) {
        if (g.index % 40 == 0 && (i == 0 || g.ev.kind == VX_EV_ISSUE)) {
            uint8_t st[9] = {'s', 't', 'a', 't', 'e', (uint8_t)i};
            e = vx_trace_writer_keyframe_begin(w, g.cycle, st, sizeof st);
            for (int p = 0; !e && p < (i == 0 ? 2 : 1); p++) {
                for (size_t j = 0; j < sizeof page; j++)
                    page[j] = (uint8_t)(j % 7 + i + p);
                e = vx_trace_writer_keyframe_page(w, 0, 0x10000u + 4096u * (uint32_t)p, page);
            }
            if (!e) e = vx_trace_writer_keyframe_end(w);
        }
        if (!e) e = vx_trace_writer_event(w, tgen_next(&g));
    }
    if (!e) e = vx_trace_writer_event(w, tgen_end(&g, VX_END_EXIT, 0, false));
    if (!e) e = vx_trace_writer_finish(w);
    if (e) tap_bail("cannot write the reference trace: %s", vx_trace_writer_errmsg(w));
    vx_trace_writer_free(w);
    tgen_free(&g);
}

static uint8_t *slurp(const char *p, size_t *n)
{
    FILE *f = fopen(p, "rb");
    if (!f) tap_bail("cannot read %s", p);
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)sz + 1);
    if (fread(b, 1, (size_t)sz, f) != (size_t)sz) tap_bail("short read");
    fclose(f);
    *n = (size_t)sz;
    return b;
}

static void spit(const char *p, const uint8_t *b, size_t n)
{
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || (n && write(fd, b, n) != (ssize_t)n)) tap_bail("cannot write %s", p);
    close(fd);
}

/* Chunk layout of the reference, parsed here from FORMAT.md §4 (not via the library). */
typedef struct lay {
    uint8_t type;
    size_t off, end;
} lay;

static int layout(const uint8_t *b, size_t n, lay *out, int max)
{
    size_t off = 16;
    int k = 0;
    while (off + 28 <= n - 16 && k < max) {
        uint32_t stored = vx_get_le32(b + off + 4);
        out[k].type = b[off];
        out[k].off = off;
        out[k].end = off + 28 + stored;
        off = out[k++].end;
    }
    return k;
}

/* Everything a reader can do with a trace; returns the first error (VX_OK if none). */
typedef struct outcome {
    vx_err err;
    bool incomplete;
    uint64_t records, keyframes, digests;
    uint64_t digest_sum; /* order-sensitive digest of the records read */
    uint64_t err_off;    /* vx_trace_reader_error_offset */
    char msg[700];
} outcome;

static vx_err count_page(void *ctx, uint32_t space, uint32_t addr, const uint8_t *page)
{
    (void)space;
    (void)addr;
    (void)page;
    (*(int *)ctx)++;
    return VX_OK;
}

static outcome read_all(const char *p, const uint64_t *ref_digest, uint64_t ref_n, bool *prefix_ok)
{
    outcome o;
    vx_trace_reader *r;
    const vx_event *ev;
    vx_trace_summary sm;
    memset(&o, 0, sizeof o);
    *prefix_ok = true;
    vx_trace_reader_new(&r);
    o.err = vx_trace_reader_open(r, p);
    if (!o.err) {
        o.incomplete = vx_trace_reader_incomplete(r);
        while ((o.err = vx_trace_reader_next(r, &ev)) == VX_OK) {
            uint64_t d = tg_digest(ev, 4);
            if (o.records >= ref_n || d != ref_digest[o.records]) *prefix_ok = false;
            o.records++;
        }
        if (o.err == VX_ERR_END) o.err = VX_OK;
    }
    if (!o.err) o.err = vx_trace_reader_summary(r, &sm);
    if (!o.err) {
        o.keyframes = vx_trace_reader_num_keyframes(r);
        for (size_t k = 0; !o.err && k < o.keyframes; k++) {
            int pages = 0;
            o.err = vx_trace_reader_keyframe_pages(r, k, VX_TRACE_PAGES_ALL, count_page, &pages);
        }
    }
    if (!o.err) o.err = vx_trace_reader_check(r);
    /* chunk digests: stored ones read, every one computable */
    for (size_t i = 0; !o.err && i < vx_trace_reader_num_chunks(r); i++) {
        vx_trace_digest dg;
        vx_err e = vx_trace_reader_digest(r, i, VX_TRACE_DIGEST_STORED, &dg);
        if (e == VX_OK) o.digests++;
        if (e != VX_OK && e != VX_ERR_END) o.err = e;
        if (!o.err) o.err = vx_trace_reader_digest(r, i, VX_TRACE_DIGEST_COMPUTE, &dg);
    }
    if (!o.err) o.err = vx_trace_reader_seek(r, 37);
    if (!o.err && vx_trace_reader_num_keyframes(r)) o.err = vx_trace_reader_seek_keyframe(r, 0);
    snprintf(o.msg, sizeof o.msg, "%s", vx_trace_reader_errmsg(r));
    o.err_off = vx_trace_reader_error_offset(r);
    vx_trace_reader_free(r);
    return o;
}

static void test_truncation(const uint8_t *full, size_t n)
{
    bool pok;
    lay ch[256];
    int nch = layout(full, n, ch, 256);
    size_t prologue_end = 0;
    for (int i = 0; i < nch; i++)
        if (ch[i].type <= 3) prologue_end = ch[i].end;
    outcome ref = read_all(path_full, NULL, 0, &pok);
    ok(ref.err == VX_OK && !ref.incomplete && ref.records > 100,
       "reference trace reads (%llu records, %zu bytes, %d chunks)",
       (unsigned long long)ref.records, n, nch);
    /* reference digests */
    uint64_t *dig = calloc(ref.records + 1, sizeof *dig);
    {
        vx_trace_reader *r;
        const vx_event *ev;
        uint64_t i = 0;
        vx_trace_reader_new(&r);
        vx_trace_reader_open(r, path_full);
        while (vx_trace_reader_next(r, &ev) == VX_OK && i < ref.records)
            dig[i++] = tg_digest(ev, 4);
        vx_trace_reader_free(r);
    }
    int bad_trunc = 0, bad_open = 0, bad_prefix = 0, bad_count = 0, bad_kf = 0, bad_dg = 0;
    uint64_t last_records = ref.records, first_records = 0;
    spit(path_cut, full, n);
    for (size_t L = n; L-- > 0;) {
        if (truncate(path_cut, (off_t)L) != 0) tap_bail("truncate failed");
        outcome o = read_all(path_cut, dig, ref.records, &pok);
        if (L < prologue_end) {
            if (o.err != VX_ERR_TRUNC) {
                if (bad_trunc++ < 3) diag("cut at %zu (in the prologue): %s", L, o.msg);
            }
            continue;
        }
        if (o.err || !o.incomplete) {
            if (bad_open++ < 3)
                diag("cut at %zu: error %d incomplete %d: %s", L, o.err, o.incomplete, o.msg);
            continue;
        }
        if (!pok) bad_prefix++;
        /* records: those of the EVENTS chunks complete at L; never fewer than before */
        int complete_events = 0, complete_kf = 0, complete_dg = 0;
        for (int i = 0; i < nch; i++) {
            if (ch[i].end > L) break;
            complete_events += ch[i].type == 4;
            complete_dg += ch[i].type == 8;                     /* DIGEST */
            complete_kf += ch[i].type == 6 || ch[i].type == 10; /* KEYFRAME, KEYFRAME2 */
        }
        /* going down from the full size, the count only drops when a cut enters an EVENTS chunk */
        bool in_events = false;
        for (int i = 0; i < nch; i++)
            in_events |= ch[i].type == 4 && ch[i].end == L + 1;
        if (o.records > last_records || (!in_events && o.records != last_records)) {
            if (bad_count++ < 3)
                diag("cut at %zu: %llu records after %llu", L, (unsigned long long)o.records,
                     (unsigned long long)last_records);
        }
        if (complete_events == 0 && o.records) bad_count++;
        last_records = o.records;
        if (L + 28 + 16 >= n) first_records = o.records;
        if (o.digests != (uint64_t)complete_dg) {
            if (bad_dg++ < 3)
                diag("cut at %zu: %llu digests, %d complete", L, (unsigned long long)o.digests,
                     complete_dg);
        }
        if (o.keyframes != (uint64_t)complete_kf) {
            if (bad_kf++ < 3)
                diag("cut at %zu: %llu keyframes, %d complete", L, (unsigned long long)o.keyframes,
                     complete_kf);
        }
    }
    is_int(bad_trunc, 0, "cut inside the prologue (< %zu bytes): VX_ERR_TRUNC", prologue_end);
    is_int(bad_open, 0,
           "cut anywhere after the prologue: opens, incomplete, every operation succeeds");
    is_int(bad_prefix, 0, "the events read from a cut trace are a prefix of the original");
    is_int(bad_count, 0, "events appear exactly when their chunk is complete");
    is_int(bad_kf, 0, "keyframes are usable exactly when their KEYFRAME chunk is complete");
    is_int(bad_dg, 0, "chunk digests are stored exactly when their DIGEST chunk is complete");
    is_u64(first_records, ref.records, "a cut in the index or trailer still reads every event");
    free(dig);
}

static void test_corruption(uint8_t *full, size_t n)
{
    bool pok;
    int accepted = 0, wrong = 0, nomsg = 0, badoff = 0, tries = 0;
    static const uint8_t pats[2] = {0x01, 0xB6};
    spit(path_cut, full, n);
    int fd = open(path_cut, O_WRONLY);
    for (int pi = 0; pi < 2; pi++)
        for (size_t off = 0; off < n; off++) {
            uint8_t bad = full[off] ^ pats[pi];
            if (pwrite(fd, &bad, 1, (off_t)off) != 1) tap_bail("pwrite failed");
            outcome o = read_all(path_cut, NULL, 0, &pok);
            if (pwrite(fd, &full[off], 1, (off_t)off) != 1) tap_bail("pwrite failed");
            tries++;
            vx_err want = off < 8 ? VX_ERR_FORMAT : VX_ERR_CORRUPT;
            if (o.err == VX_OK) {
                if (accepted++ < 3) diag("flip 0x%02x at %zu accepted", pats[pi], off);
            } else if (o.err != want) {
                if (wrong++ < 5)
                    diag("flip 0x%02x at %zu: error %d (%s): %s", pats[pi], off, o.err,
                         vx_strerror(o.err), o.msg);
            } else if (want == VX_ERR_CORRUPT && !strstr(o.msg, "offset")) {
                if (nomsg++ < 3) diag("flip at %zu: message without an offset: %s", off, o.msg);
            } else if (want == VX_ERR_CORRUPT) {
                /* the accessor gives the offset the message names, at or before the
                 * damaged byte (the start of what holds it) */
                char named[40];
                snprintf(named, sizeof named, "offset %" PRIu64, o.err_off);
                if ((o.err_off > off || !strstr(o.msg, named)) && badoff++ < 3)
                    diag("flip at %zu: error offset %" PRIu64 ": %s", off, o.err_off, o.msg);
            }
        }
    close(fd);
    is_int(accepted, 0, "no corrupted byte goes unnoticed (%d files)", tries);
    is_int(wrong, 0, "corruption is VX_ERR_CORRUPT (VX_ERR_FORMAT in the magic)");
    is_int(nomsg, 0, "corruption messages name the byte offset");
    is_int(badoff, 0, "vx_trace_reader_error_offset: that offset, at or before the damage");
}

/*
 * Adversarial damage: bytes changed inside chunk payloads of an uncompressed trace
 * and the checksums recomputed, so that the decoders (header tags, records, pages,
 * keyframes, index) see well-formed chunks with nonsense inside.  Any outcome is
 * fine except a crash or an out-of-bounds access (ASan in the debug build), and a
 * reader must never report success for an index that contradicts the events.
 */
static void test_adversarial(uint8_t *full, size_t n)
{
    lay ch[512];
    int nch = layout(full, n, ch, 512);
    uint8_t *buf = malloc(n);
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    int runs = 0, errors = 0;
    bool pok;
    for (int it = 0; it < 3000; it++) {
        memcpy(buf, full, n);
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        const lay *c = &ch[(rng >> 33) % (uint64_t)nch];
        size_t plen = c->end - c->off - 28;
        if (!plen) continue;
        int nmut = 1 + (int)((rng >> 20) % 8);
        for (int k = 0; k < nmut; k++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = c->off + 28 + (size_t)((rng >> 33) % plen);
            uint8_t v = (uint8_t)(rng >> 25);
            /* small values, 0x80-continuations and 0xFF make varints and counts interesting */
            buf[at] = (rng >> 60) < 4   ? 0xFF
                      : (rng >> 60) < 8 ? (uint8_t)(0x80 | v)
                                        : (uint8_t)(v & 7);
        }
        vx_put_le32(buf + c->off + 20, vx_trace_crc32c(0, buf + c->off + 28, plen));
        vx_put_le32(buf + c->off + 24, vx_trace_crc32c(0, buf + c->off, 24));
        spit(path_cut, buf, n);
        outcome o = read_all(path_cut, NULL, 0, &pok);
        runs++;
        errors += o.err != VX_OK;
    }
    free(buf);
    ok(runs > 2500,
       "%d traces with nonsense inside valid chunks read without a crash (%d reported errors)",
       runs, errors);
}

/* ---- a trace assembled by hand from FORMAT.md ---- */

typedef struct bb {
    uint8_t b[4096];
    size_t n;
} bb;

static void put(bb *x, const void *p, size_t n)
{
    memcpy(x->b + x->n, p, n);
    x->n += n;
}

static void put8(bb *x, unsigned v)
{
    x->b[x->n++] = (uint8_t)v;
}

static void putv(bb *x, uint64_t v)
{
    while (v >= 0x80) {
        put8(x, (unsigned)(v & 0x7F) | 0x80);
        v >>= 7;
    }
    put8(x, (unsigned)v);
}

static void chunk(bb *f, uint8_t type, uint64_t key, const bb *pay)
{
    uint8_t h[28] = {0};
    h[0] = type;
    vx_put_le32(h + 4, (uint32_t)pay->n);
    vx_put_le32(h + 8, (uint32_t)pay->n);
    vx_put_le64(h + 12, key);
    vx_put_le32(h + 20, vx_trace_crc32c(0, pay->b, pay->n));
    vx_put_le32(h + 24, vx_trace_crc32c(0, h, 24));
    put(f, h, 28);
    put(f, pay->b, pay->n);
}

static void field(bb *x, unsigned tag, const bb *v)
{
    putv(x, tag);
    putv(x, v->n);
    put(x, v->b, v->n);
}

static size_t build_by_hand(bb *f, unsigned major, unsigned minor, bool with_index)
{
    bb p = {{0}, 0}, v;
    static const uint8_t magic[8] = {0x89, 'V', 'X', 'T', '\r', '\n', 0x1A, '\n'};
    f->n = 0;
    put(f, magic, 8);
    uint8_t vv[4];
    vx_put_le16(vv, (uint16_t)major);
    vx_put_le16(vv + 2, (uint16_t)minor);
    put(f, vv, 4);
    vx_put_le32(vv, vx_trace_crc32c(0, f->b, 12));
    put(f, vv, 4);
    /* HEADER: PLATFORM 1x1x2x4, START_PC, IMAGE (raw, 4 bytes, "k.bin"), unknown tag 99, FLAGS */
    v.n = 0;
    putv(&v, 1);
    putv(&v, 1);
    putv(&v, 2);
    putv(&v, 4);
    field(&p, 1, &v);
    v.n = 0;
    putv(&v, 0x80000000u);
    field(&p, 3, &v);
    v.n = 0;
    put8(&v, 3);
    putv(&v, 4);
    putv(&v, 5);
    put(&v, "k.bin", 5);
    field(&p, 7, &v);
    v.n = 0;
    put(&v, "later", 5);
    field(&p, 99, &v);
    v.n = 0;
    putv(&v, 0);
    field(&p, 10, &v);
    chunk(f, 1, 0, &p);
    p.n = 0;
    put(&p, "\x13\x00\x00\x00", 4);
    chunk(f, 2, 0, &p); /* IMAGE */
    p.n = 0;
    put(&p, "unknown chunk", 13);
    chunk(f, 42, 0, &p);
    size_t events_off = f->n;
    p.n = 0;
    put8(&p, 0xC3);
    putv(&p, 4);
    put(&p, "zzzz", 4); /* unknown record */
    /* issue 0: H = pcmode 2, form 3; X = flags + extension; F = STEP */
    put8(&p, 0x70);
    put8(&p, 0x90);
    put8(&p, 0x02);
    putv(&p, 1);
    putv(&p, 0);
    putv(&p, 1);
    putv(&p, 10);                       /* core 0, warp 1, cycle 0 + 5 */
    put(&p, "\xff\xff\xff\xff\x0f", 5); /* pc 0 + 0x80000000 */
    put(&p, "\x93\x00\x50\x00", 4);     /* insn 0x00500093 */
    put8(&p, 0x0F);                     /* tmask */
    put8(&p, 0x04);
    putv(&p, 10); /* commit x[rd] = 0 + 5 on tmask */
    putv(&p, 3);
    put(&p, "\x01\x02\x03", 3); /* extension block */
    /* DM: HALT warp 1 cause 2, cycle 6, with two future bytes */
    put8(&p, 0x80);
    putv(&p, 9);
    put8(&p, 3);
    put8(&p, 0);
    putv(&p, 7);
    putv(&p, 1);
    putv(&p, 0);
    putv(&p, 2);
    putv(&p, 2);
    put(&p, "\xAA\xBB", 2);
    /* issue 1: predicted schedule (core 0 warp 0 cycle 7), cached insn, same mask, pc explicit */
    put8(&p, 0x17);
    put(&p, "\xff\xff\xff\xff\x0f", 5);
    /* END: exit 0 at cycle 10, no fault, one future byte */
    put8(&p, 0x81);
    putv(&p, 5);
    put8(&p, 1);
    putv(&p, 0);
    putv(&p, 6);
    put8(&p, 0);
    put8(&p, 0xCC);
    chunk(f, 4, 0, &p);
    p.n = 0;
    put(&p, "tail", 4);
    chunk(f, 200, 0, &p);
    if (with_index) {
        size_t ioff = f->n;
        p.n = 0;
        putv(&p, 2);
        putv(&p, 4);
        putv(&p, 10);
        put8(&p, 1);
        putv(&p, 1);
        putv(&p, 0);
        putv(&p, events_off);
        putv(&p, 0);   /* no keyframes */
        putv(&p, 111); /* raw size (§13): issue 26 + commit 20, DM 26, issue 26, END 13 */
        chunk(f, 7, 0, &p);
        uint8_t t[16];
        vx_put_le64(t, ioff);
        vx_put_le32(t + 8, vx_trace_crc32c(0, t, 8));
        memcpy(t + 12, "VXTE", 4);
        put(f, t, 16);
    }
    return f->n;
}

static void test_by_hand(void)
{
    bb f;
    for (int with_index = 0; with_index < 2; with_index++) {
        build_by_hand(&f, 1, 3, with_index);
        spit(path_cut, f.b, f.n);
        vx_trace_reader *r;
        const vx_event *ev;
        vx_trace_reader_new(&r);
        vx_err e = vx_trace_reader_open(r, path_cut);
        if (!ok(e == VX_OK, "hand-built trace v1.3 %s index opens",
                with_index ? "with" : "without")) {
            diag("%s", vx_trace_reader_errmsg(r));
            vx_trace_reader_free(r);
            continue;
        }
        const vx_trace_header *h = vx_trace_reader_header(r);
        ok(h->minor == 3 && h->warps == 2 && h->threads == 4 && h->image_kind == 3 &&
               h->image_len == 4 && h->image[0] == 0x13 && !strcmp(h->image_name, "k.bin"),
           "header read, unknown tag skipped");
        is_int(vx_trace_reader_incomplete(r), !with_index, "incomplete iff no index");
        e = vx_trace_reader_next(r, &ev);
        ok(!e && ev->kind == VX_EV_ISSUE && ev->index == 0 && ev->flags == VX_EVF_STEP &&
               ev->core == 0 && ev->warp == 1 && ev->cycle == 5 && ev->pc == 0x80000000u &&
               ev->insn == 0x00500093u && ev->tmask == 0xF && ev->ncommits == 1 &&
               ev->commits[0].file == VX_RF_X && ev->commits[0].reg == 1 &&
               ev->commits[0].lanes == 0xF && ev->commits[0].values[0] == 5 &&
               ev->commits[0].values[3] == 5 && !ev->nmem && !ev->fault,
           "unknown record skipped; issue with extension block decoded as specified");
        e = vx_trace_reader_next(r, &ev);
        ok(!e && ev->kind == VX_EV_DM && ev->index == 1 && ev->cycle == 6 &&
               ev->dm.op == VX_DM_HALT && ev->dm.value == 7 && ev->dm.gwarp == 1 && ev->dm.arg == 2,
           "DM record with trailing future bytes");
        e = vx_trace_reader_next(r, &ev);
        ok(!e && ev->kind == VX_EV_ISSUE && ev->index == 1 && ev->core == 0 && ev->warp == 0 &&
               ev->cycle == 7 && ev->pc == 0x80000000u && ev->insn == 0x00500093u &&
               ev->tmask == 0xF && !ev->ncommits && !ev->flags,
           "predicted schedule, cached instruction, same mask");
        e = vx_trace_reader_next(r, &ev);
        ok(!e && ev->kind == VX_EV_END && ev->index == 2 && ev->cycle == 10 &&
               ev->end_status == VX_END_EXIT && !ev->fault,
           "END record with a trailing future byte");
        is_int(vx_trace_reader_next(r, &ev), VX_ERR_END, "then the end (unknown chunks skipped)");
        if (!is_int(vx_trace_reader_check(r), VX_OK, "full check passes"))
            diag("%s", vx_trace_reader_errmsg(r));
        vx_trace_reader_free(r);
    }
    build_by_hand(&f, 2, 0, true);
    spit(path_cut, f.b, f.n);
    vx_trace_reader *r;
    vx_trace_reader_new(&r);
    is_int(vx_trace_reader_open(r, path_cut), VX_ERR_VERSION, "major version 2 refused: %s",
           vx_trace_reader_errmsg(r));
    vx_trace_reader_free(r);
}

/* ---- a full check reads every chunk, not only what the INDEX lists ---- */

/* The reference with `ins` (n bytes) inserted right before its INDEX chunk (the trailer
 * offset moved; the INDEX lists nothing new); cut: without the INDEX and trailer. */
static void write_inserted(const uint8_t *full, size_t n, const uint8_t *ins, size_t len, bool cut)
{
    uint64_t ioff = vx_get_le64(full + n - 16);
    uint8_t *b = malloc(n + len);
    memcpy(b, full, ioff);
    memcpy(b + ioff, ins, len);
    memcpy(b + ioff + len, full + ioff, n - ioff);
    vx_put_le64(b + n + len - 16, ioff + len);
    vx_put_le32(b + n + len - 8, vx_trace_crc32c(0, b + n + len - 16, 8));
    spit(path_cut, b, cut ? ioff + len : n + len);
    free(b);
}

/* Open path_cut and run the full check: the check's result (open must succeed). */
static vx_err open_check(char *msg, size_t cap, bool *incomplete)
{
    vx_trace_reader *r;
    vx_trace_reader_new(&r);
    vx_err e = vx_trace_reader_open(r, path_cut);
    if (!e) {
        *incomplete = vx_trace_reader_incomplete(r);
        e = vx_trace_reader_check(r);
    } else {
        e = VX_ERR_STATE; /* not the outcome any case wants */
    }
    snprintf(msg, cap, "%s", vx_trace_reader_errmsg(r));
    vx_trace_reader_free(r);
    return e;
}

static void test_layout(const uint8_t *full, size_t n)
{
    lay ch[256];
    int nch = layout(full, n, ch, 256);
    const lay *hdr = NULL, *pages = NULL, *kf = NULL, *dg = NULL;
    for (int i = 0; i < nch; i++) {
        if (ch[i].type == 1 && !hdr) hdr = &ch[i];
        if (ch[i].type == 9) pages = &ch[i];
        if (ch[i].type == 10) kf = &ch[i];
        if (ch[i].type == 8) dg = &ch[i];
    }
    if (!hdr || !pages || !kf || !dg)
        tap_bail("the reference lacks a HEADER, PAGES2, KEYFRAME2 or DIGEST");
    uint8_t unk[28 + 6], unk_bad[28 + 6];
    bb pay = {{0}, 0};
    put(&pay, "future", 6);
    bb f = {{0}, 0};
    chunk(&f, 42, 0, &pay);
    memcpy(unk, f.b, f.n);
    memcpy(unk_bad, f.b, f.n);
    unk_bad[28] ^= 1; /* the payload no longer matches its CRC; the header is sound */

    struct {
        const char *what;
        const uint8_t *ins;
        size_t len;
        vx_err want, want_cut; /* complete; cut before its INDEX */
    } cases[] = {
        {"a HEADER chunk after the prologue", full + hdr->off, hdr->end - hdr->off, VX_ERR_CORRUPT,
         VX_ERR_STATE},
        {"a KEYFRAME2 chunk the INDEX does not list", full + kf->off, kf->end - kf->off,
         VX_ERR_CORRUPT, VX_ERR_CORRUPT},
        {"a PAGES2 chunk without its KEYFRAME2", full + pages->off, pages->end - pages->off,
         VX_ERR_CORRUPT, VX_OK},
        {"an unknown chunk whose payload fails its CRC", unk_bad, sizeof unk_bad, VX_ERR_CORRUPT,
         VX_ERR_CORRUPT},
        {"an unknown chunk", unk, sizeof unk, VX_OK, VX_OK},
        {"a DIGEST chunk that is not after its EVENTS chunk", full + dg->off, dg->end - dg->off,
         VX_OK, VX_OK},
    };

    for (size_t i = 0; i < VX_ARRAY_SIZE(cases); i++) {
        char msg[700];
        bool inc = false;
        for (int cut = 0; cut < 2; cut++) {
            write_inserted(full, n, cases[i].ins, cases[i].len, cut);
            vx_err e = open_check(msg, sizeof msg, &inc);
            vx_err want = cut ? cases[i].want_cut : cases[i].want;
            if (cut && want == VX_ERR_STATE) continue; /* the open's scan refuses it already */
            is_int(e, want, "%s%s: the full check says %s", cases[i].what,
                   cut ? " (cut before the INDEX)" : "", want ? "corrupt" : "fine");
            if (want && e == want)
                ok(strstr(msg, "offset") != NULL, "the message names the offset: %s", msg);
            else if (!e)
                is_int(inc, cut, "incomplete only when cut");
        }
    }
}

/* The first copy of string s in b[0..n), or NULL. */
static uint8_t *find(uint8_t *b, size_t n, const char *s)
{
    size_t m = strlen(s);
    for (size_t i = 0; i + m <= n; i++)
        if (!memcmp(b + i, s, m)) return b + i;
    return NULL;
}

/*
 * FORMAT.md §7.6: a fault reason holds no newline.  The writer refuses one; a trace
 * whose reason has one (written with a space, patched, checksums made right again)
 * is corruption to the reader.
 */
static void test_reason_newline(void)
{
    for (int nl = 0; nl < 2; nl++) {
        vx_trace_writer *w;
        vx_trace_header h;
        static const uint8_t image[4] = {0x13, 0, 0, 0};
        memset(&h, 0, sizeof h);
        h.clusters = h.cores = h.warps = 1;
        h.threads = 4;
        h.start_pc = 0x80000000u;
        h.image_kind = 3;
        h.image = image;
        h.image_len = sizeof image;
        vx_fault ft;
        memset(&ft, 0, sizeof ft);
        ft.kind = VX_FAULT_UNMAPPED;
        ft.lanes = 1;
        snprintf(ft.reason, sizeof ft.reason, "%s", nl ? "two\nlines" : "two lines");
        vx_event ev;
        memset(&ev, 0, sizeof ev);
        ev.kind = VX_EV_END;
        ev.end_status = VX_END_FAULT;
        ev.fault = &ft;
        vx_trace_writer_new(&w);
        vx_trace_writer_opts o = {VX_TRACE_W_FORCE | VX_TRACE_W_NOCOMPRESS, 0};
        vx_err e = vx_trace_writer_create(w, path_cut, &o);
        if (!e) e = vx_trace_writer_header(w, &h);
        if (e) tap_bail("cannot write: %s", vx_trace_writer_errmsg(w));
        e = vx_trace_writer_event(w, &ev);
        if (nl) {
            is_int(e, VX_ERR_INVAL, "the writer refuses a fault reason with a newline");
            ok(strstr(vx_trace_writer_errmsg(w), "newline") != NULL, "and says why: %s",
               vx_trace_writer_errmsg(w));
            vx_trace_writer_free(w);
            continue;
        }
        if (!e) e = vx_trace_writer_finish(w);
        if (e) tap_bail("cannot write: %s", vx_trace_writer_errmsg(w));
        vx_trace_writer_free(w);
        for (int patch = 0; patch < 2; patch++) {
            if (patch) { /* "two lines" -> "two\nlines" in the (stored) EVENTS chunk */
                size_t n;
                uint8_t *b = slurp(path_cut, &n);
                lay ch[16];
                int nch = layout(b, n, ch, 16), done = 0;
                for (int k = 0; k < nch; k++) {
                    uint8_t *hit =
                        find(b + ch[k].off + 28, ch[k].end - ch[k].off - 28, "two lines");
                    if (!hit) continue;
                    hit[3] = '\n';
                    vx_put_le32(b + ch[k].off + 20,
                                vx_trace_crc32c(0, b + ch[k].off + 28, ch[k].end - ch[k].off - 28));
                    vx_put_le32(b + ch[k].off + 24, vx_trace_crc32c(0, b + ch[k].off, 24));
                    done++;
                }
                ok(done == 1, "the reason is found in one chunk (%d)", done);
                spit(path_cut, b, n);
                free(b);
            }
            vx_trace_reader *r;
            const vx_event *got;
            vx_trace_reader_new(&r);
            e = vx_trace_reader_open(r, path_cut);
            if (!e) e = vx_trace_reader_next(r, &got);
            if (patch) {
                is_int(e, VX_ERR_CORRUPT, "a fault reason with a newline is corruption");
                ok(strstr(vx_trace_reader_errmsg(r), "newline") &&
                       strstr(vx_trace_reader_errmsg(r), "offset"),
                   "the message says so, with the offset: %s", vx_trace_reader_errmsg(r));
            } else {
                ok(!e && got->kind == VX_EV_END && got->fault &&
                       !strcmp(got->fault->reason, "two lines"),
                   "the reason with a space reads back");
            }
            vx_trace_reader_free(r);
        }
    }
}

/*
 * vx_trace_reader_chunk_check: every EVENTS chunk of the reference passes; with a
 * byte of one chunk's payload flipped, that chunk (and only it) fails, named by its
 * offset, and the reader still opens the trace (replay jumps chunks it has checked).
 */
static void test_chunk_check(const uint8_t *full, size_t n)
{
    lay l[256];
    int nl = layout(full, n, l, 256);
    size_t ev_off[256];
    int nev = 0;
    for (int k = 0; k < nl; k++)
        if (l[k].type == 4) ev_off[nev++] = l[k].off; /* EVENTS (FORMAT.md §4) */
    vx_trace_reader *r;
    vx_trace_reader_new(&r);
    ok(vx_trace_reader_open(r, path_full) == VX_OK, "reference opens");
    is_u64(vx_trace_reader_error_offset(r), UINT64_MAX, "no error: no error offset");
    size_t nc = vx_trace_reader_num_chunks(r);
    is_int((int)nc, nev, "the reader lists every EVENTS chunk");
    int bad = 0;
    for (size_t i = 0; i < nc; i++)
        bad += vx_trace_reader_chunk_check(r, i) != VX_OK;
    is_int(bad, 0, "every chunk of the reference passes its check");
    ok(vx_trace_reader_chunk_check(r, nc) == VX_ERR_RANGE, "a chunk past the last: VX_ERR_RANGE");
    /* vx_trace_reader_seek_chunk: the next event is the chunk's first (its key) */
    int wrong = 0;
    for (size_t i = nc; i-- > 0;) {
        const vx_event *ev;
        if (vx_trace_reader_seek_chunk(r, i) != VX_OK || vx_trace_reader_next(r, &ev) != VX_OK ||
            ev->index != vx_trace_reader_chunk_key(r, i))
            wrong++;
    }
    is_int(wrong, 0, "seek_chunk: the next event carries the chunk's key, every chunk");
    ok(vx_trace_reader_seek_chunk(r, nc) == VX_ERR_RANGE, "seek_chunk past the last: VX_ERR_RANGE");
    vx_trace_reader_free(r);

    size_t victim = nc / 2;
    uint8_t *cp = malloc(n);
    memcpy(cp, full, n);
    uint32_t stored = vx_get_le32(cp + ev_off[victim] + 4);
    cp[ev_off[victim] + 28 + stored / 2] ^= 0x10;
    spit(path_cut, cp, n);
    free(cp);
    vx_trace_reader_new(&r);
    ok(vx_trace_reader_open(r, path_cut) == VX_OK, "the damaged trace opens");
    bad = 0;
    for (size_t i = 0; i < nc; i++)
        if (i != victim) bad += vx_trace_reader_chunk_check(r, i) != VX_OK;
    is_int(bad, 0, "the other chunks pass");
    ok(vx_trace_reader_chunk_check(r, victim) == VX_ERR_CORRUPT, "the damaged chunk fails");
    char want[64];
    snprintf(want, sizeof want, "offset %zu", ev_off[victim]);
    ok(strstr(vx_trace_reader_errmsg(r), want) != NULL, "its message names it: %s",
       vx_trace_reader_errmsg(r));
    is_u64(vx_trace_reader_error_offset(r), ev_off[victim],
           "vx_trace_reader_error_offset: its offset");
    vx_trace_reader_free(r);
}

int main(int argc, char **argv)
{
    bool quick = argc > 1 && !strcmp(argv[1], "--quick");
    snprintf(dir, sizeof dir, "/tmp/vxrr-t-trace-robust-XXXXXX");
    if (!mkdtemp(dir)) tap_bail("mkdtemp failed");
    snprintf(path_full, sizeof path_full, "%s/full.vxt", dir);
    snprintf(path_cut, sizeof path_cut, "%s/cut.vxt", dir);
    write_reference(path_full, 0);
    size_t n;
    uint8_t *full = slurp(path_full, &n);
    test_by_hand();
    test_layout(full, n);
    test_reason_newline();
    test_chunk_check(full, n);
    if (!quick) {
        test_truncation(full, n);
        test_corruption(full, n);
        write_reference(path_full, VX_TRACE_W_NOCOMPRESS);
        free(full);
        full = slurp(path_full, &n);
        test_adversarial(full, n);
    }
    free(full);
    unlink(path_full);
    unlink(path_cut);
    rmdir(dir);
    return tap_exit();
}
