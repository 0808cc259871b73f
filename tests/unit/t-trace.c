/*
 * t-trace.c - libvxtrace round trips: hand-built event streams of every record
 * kind through the writer and back through the reader, for several platform shapes
 * (1 to 128 lanes), chunk sizes, with and without compression; seeking, keyframes
 * (state, delta pages, accumulated pages), summaries, determinism, CRC-32C against
 * a bitwise reference, and the writer's refusal of bad input.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "trace-gen.h"
#include "trace_int.h"
#include "vx_trace.h"

static char dir[64];

static char *tpath(const char *name)
{
    static char buf[4][256];
    static int i;
    char *p = buf[i++ & 3];
    snprintf(p, 256, "%s/%s", dir, name);
    return p;
}

/* ---- CRC-32C against a bitwise reference ---- */

static uint32_t crc_ref(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ ((c & 1) ? 0x82F63B78u : 0);
    }
    return ~c;
}

static void test_crc(void)
{
    is_u32(vx_trace_crc32c(0, "123456789", 9), 0xE3069283u, "CRC-32C check value");
    is_u32(vx_trace_crc32c(0, "", 0), 0, "CRC-32C of nothing");
    uint8_t buf[300];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 7 + 3);
    int bad = 0, bad_sw = 0;
    for (size_t off = 0; off < 9; off++)
        for (size_t n = 0; n + off <= sizeof buf; n += 7) {
            const uint32_t want = crc_ref(buf + off, n);
            if (vx_trace_crc32c(0, buf + off, n) != want) bad++;
            uint32_t half = vx_trace_crc32c(0, buf + off, n / 2);
            if (vx_trace_crc32c(half, buf + off + n / 2, n - n / 2) != want) bad++;
            /* the tables' path, which runs where the CPU has no crc32 instruction */
            if (vxt_crc32c_sw(0, buf + off, n) != want) bad_sw++;
            half = vxt_crc32c_sw(0, buf + off, n / 2);
            if (vxt_crc32c_sw(half, buf + off + n / 2, n - n / 2) != want) bad_sw++;
        }
    is_int(bad, 0,
           "the CRC (this CPU's path) equals the bitwise reference at every alignment and "
           "split");
    is_int(bad_sw, 0,
           "the slicing-by-8 tables equal the bitwise reference at every alignment and "
           "split");
    is_u32(vxt_crc32c_sw(0, "123456789", 9), 0xE3069283u, "tables: CRC-32C check value");
}

/* ---- keyframe page model ---- */

typedef struct pg {
    uint32_t space, addr;
} pg;

/* Pages written with keyframe k (deterministic). */
static int kf_pages(uint32_t k, uint32_t C, pg *out)
{
    int n = 0;
    if (k == 0) {
        for (uint32_t i = 0; i < 6; i++)
            out[n++] = (pg){0, 0x10000u + i * 4096};
        out[n++] = (pg){0, 0x80000000u};
        for (uint32_t c = 0; c < C && c < 3; c++)
            out[n++] = (pg){1 + c, 0xFFFF0000u};
    } else {
        out[n++] = (pg){0, 0x10000u + ((k * 3) % 8) * 4096};
        out[n++] = (pg){0, 0x10000u + ((k * 5 + 1) % 8) * 4096};
        out[n++] = (pg){1 + k % C, 0xFFFF0000u + (k % 4) * 4096};
    }
    return n;
}

static void page_fill(uint8_t *p, uint32_t k, uint32_t space, uint32_t addr)
{
    if (((addr >> 12) + k) % 5 == 0) {
        memset(p, 0, VX_TRACE_PAGE_SIZE);
        return;
    }
    for (uint32_t j = 0; j < VX_TRACE_PAGE_SIZE; j++)
        p[j] = (uint8_t)(k * 31 + space * 7 + (addr >> 12) * 13 + j / 3);
}

static size_t kf_state(uint32_t k, uint8_t *buf)
{
    size_t n = 10 + (k * 37) % 200;
    for (size_t i = 0; i < n; i++)
        buf[i] = (uint8_t)(k + i * 11);
    return n;
}

/* ---- a trace description ---- */

typedef struct spec {
    const char *name;
    uint32_t clusters, cores, warps, threads;
    unsigned wild;
    uint32_t nevents;
    uint32_t chunk;
    uint32_t kf_every; /* issues between keyframes */
    unsigned flags;    /* writer flags */
    uint8_t end_status;
    bool end_fault;
    uint64_t seed;
} spec;

typedef struct wrote {
    uint64_t records, issues, raw;
    uint32_t nkf;
    uint64_t kf_index[256], kf_cycle[256], kf_record[256];
    vx_trace_stats st;
} wrote;

static uint8_t image[1500], load0[100], load1[7];

static void fill_header(vx_trace_header *h, const spec *s, vx_trace_load *loads)
{
    memset(h, 0, sizeof *h);
    h->clusters = s->clusters;
    h->cores = s->cores;
    h->warps = s->warps;
    h->threads = s->threads;
    h->mem_limit = 1u << 20;
    h->start_pc = 0x80000000u;
    h->arg = 0x7FFF0000u;
    h->max_cycles = 123456789;
    h->keyframe_interval = s->kf_every;
    h->flags = VX_TRACE_HF_EBREAK_HALT;
    h->image_kind = 1;
    h->image_name = "/home/someone/build/kernels/kern.elf";
    h->image = image;
    h->image_len = sizeof image;
    loads[0] = (vx_trace_load){0x10000, load0, sizeof load0, "data/input.bin"};
    loads[1] = (vx_trace_load){0x20000, load1, sizeof load1, NULL};
    h->nloads = 2;
    h->loads = loads;
    h->sim_version = VX_VERSION_STRING;
}

static vx_err write_keyframe(vx_trace_writer *w, uint32_t k, uint64_t cycle, uint32_t C)
{
    uint8_t st[256], page[VX_TRACE_PAGE_SIZE];
    pg pages[16];
    vx_err e = vx_trace_writer_keyframe_begin(w, cycle, st, kf_state(k, st));
    int n = kf_pages(k, C, pages);
    for (int i = 0; !e && i < n; i++) {
        page_fill(page, k, pages[i].space, pages[i].addr);
        e = vx_trace_writer_keyframe_page(w, pages[i].space, pages[i].addr, page);
    }
    if (!e) e = vx_trace_writer_keyframe_end(w);
    return e;
}

static vx_err write_trace(const char *path, const spec *s, wrote *out)
{
    vx_trace_writer *w;
    vx_trace_writer_opts o = {s->flags | VX_TRACE_W_FORCE, s->chunk};
    vx_trace_header h;
    vx_trace_load loads[2];
    tgen g;
    vx_err e;
    memset(out, 0, sizeof *out);
    fill_header(&h, s, loads);
    if ((e = vx_trace_writer_new(&w))) return e;
    e = vx_trace_writer_create(w, path, &o);
    if (!e) e = vx_trace_writer_header(w, &h);
    tgen_init(&g, s->seed, s->clusters * s->cores, s->warps, s->threads, s->wild);
    uint64_t next_kf = 0;
    for (uint32_t i = 0; !e && i <= s->nevents; i++) {
        if (g.index >= next_kf && out->nkf < 256) {
            out->kf_index[out->nkf] = g.index;
            out->kf_cycle[out->nkf] = g.cycle;
            out->kf_record[out->nkf] = out->records;
            e = write_keyframe(w, out->nkf, g.cycle, g.C);
            out->nkf++;
            next_kf = s->kf_every ? g.index + s->kf_every : UINT64_MAX;
            if (e) break;
        }
        const vx_event *ev =
            i < s->nevents ? tgen_next(&g) : tgen_end(&g, s->end_status, 42, s->end_fault);
        e = vx_trace_writer_event(w, ev);
        out->raw += vx_trace_event_raw_size(ev, s->threads);
        out->records++;
    }
    out->issues = g.index;
    if (!e) e = vx_trace_writer_finish(w);
    if (e) diag("write %s: %s", s->name, vx_trace_writer_errmsg(w));
    vx_trace_writer_stats(w, &out->st);
    vx_trace_writer_free(w);
    tgen_free(&g);
    return e;
}

typedef struct rec {
    uint64_t index, digest;
} rec;

typedef struct page_check {
    uint32_t k; /* keyframe whose pages we expect */
    uint32_t C;
    bool all;
    int count, bad;
    uint8_t seen[64][64]; /* [space][addr slot] for duplicates */
} page_check;

/* For PAGES_ALL: the newest keyframe <= k that wrote (space, addr), or -1. */
static int newest_writer(uint32_t k, uint32_t C, uint32_t space, uint32_t addr)
{
    pg pages[16];
    for (int j = (int)k; j >= 0; j--) {
        int n = kf_pages((uint32_t)j, C, pages);
        for (int i = 0; i < n; i++)
            if (pages[i].space == space && pages[i].addr == addr) return j;
    }
    return -1;
}

static int slot_of(uint32_t addr)
{
    return (int)(((addr >> 12) ^ (addr >> 28)) & 63);
}

static vx_err on_page(void *ctx, uint32_t space, uint32_t addr, const uint8_t *page)
{
    page_check *pc = ctx;
    uint8_t want[VX_TRACE_PAGE_SIZE];
    int k = pc->all ? newest_writer(pc->k, pc->C, space, addr) : (int)pc->k;
    pc->count++;
    if (k < 0) {
        pc->bad++;
        return VX_OK;
    }
    if (space < 64 && pc->seen[space][slot_of(addr)]++) pc->bad++; /* duplicate */
    page_fill(want, (uint32_t)k, space, addr);
    if (memcmp(want, page, sizeof want)) pc->bad++;
    return VX_OK;
}

static int expected_all_pages(uint32_t k, uint32_t C)
{
    pg pages[16], seen[4096];
    int ns = 0;
    for (uint32_t j = 0; j <= k; j++) {
        int n = kf_pages(j, C, pages);
        for (int i = 0; i < n; i++) {
            bool dup = false;
            for (int q = 0; q < ns; q++)
                dup |= seen[q].space == pages[i].space && seen[q].addr == pages[i].addr;
            if (!dup && ns < 4096) seen[ns++] = pages[i];
        }
    }
    return ns;
}

static void read_trace(const char *path, const spec *s, const wrote *wr)
{
    vx_trace_reader *r;
    const vx_event *ev;
    vx_trace_load loads[2];
    vx_trace_header want;
    tgen g;
    char msg[256];
    vx_err e;
    fill_header(&want, s, loads);
    vx_trace_reader_new(&r);
    e = vx_trace_reader_open(r, path);
    if (!ok(e == VX_OK, "%s: opens", s->name)) {
        diag("%s", vx_trace_reader_errmsg(r));
        vx_trace_reader_free(r);
        return;
    }
    ok(!vx_trace_reader_incomplete(r), "%s: complete", s->name);
    const vx_trace_header *h = vx_trace_reader_header(r);
    ok(h->clusters == s->clusters && h->cores == s->cores && h->warps == s->warps &&
           h->threads == s->threads && h->mem_limit == want.mem_limit &&
           h->start_pc == want.start_pc && h->arg == want.arg && h->max_cycles == want.max_cycles &&
           h->keyframe_interval == s->kf_every && h->flags == want.flags && h->image_kind == 1 &&
           h->major == VX_TRACE_MAJOR && h->minor == VX_TRACE_MINOR,
       "%s: header fields round trip", s->name);
    ok(!strcmp(h->image_name, "kern.elf") && h->image_len == sizeof image &&
           !memcmp(h->image, image, sizeof image) && !strcmp(h->sim_version, VX_VERSION_STRING),
       "%s: image bytes and basename round trip", s->name);
    ok(h->nloads == 2 && h->loads[0].addr == 0x10000 && h->loads[0].len == sizeof load0 &&
           !memcmp(h->loads[0].bytes, load0, sizeof load0) &&
           !strcmp(h->loads[0].name, "input.bin") && h->loads[1].addr == 0x20000 &&
           h->loads[1].len == sizeof load1 && !memcmp(h->loads[1].bytes, load1, sizeof load1) &&
           !strcmp(h->loads[1].name, ""),
       "%s: loads round trip", s->name);

    /* sequential read against a second generator */
    rec *recs = calloc(wr->records + 1, sizeof *recs);
    uint64_t n = 0;
    int diffs = 0;
    tgen_init(&g, s->seed, s->clusters * s->cores, s->warps, s->threads, s->wild);
    int here_bad = 0;
    for (;;) {
        /* keyframe_here: true exactly where the writer put keyframes */
        size_t kk = 0;
        bool here = vx_trace_reader_keyframe_here(r, &kk);
        int want_k = -1;
        for (uint32_t k = 0; k < wr->nkf; k++)
            if (wr->kf_record[k] == n) want_k = (int)k;
        if (here != (want_k >= 0) || (here && kk != (size_t)want_k)) {
            if (here_bad++ < 3)
                diag("%s: before record %llu: keyframe_here %d (%zu), want %d", s->name,
                     (unsigned long long)n, here, kk, want_k);
        }
        if ((e = vx_trace_reader_next(r, &ev)) != VX_OK) break;
        const vx_event *want_ev =
            n < s->nevents ? tgen_next(&g) : tgen_end(&g, s->end_status, 42, s->end_fault);
        if (n > s->nevents || vx_trace_event_diff(ev, want_ev, s->threads, msg, sizeof msg)) {
            if (diffs++ < 3)
                diag("%s: record %llu: %s", s->name, (unsigned long long)n,
                     n > s->nevents ? "extra" : msg);
        }
        /* lanes outside a commit read as 0 */
        for (uint32_t c = 0; c < ev->ncommits; c++)
            for (uint32_t l = 0; l < s->threads; l++)
                if (!vx_lanes_test(ev->commits[c].lanes, l) && ev->commits[c].values[l]) diffs++;
        if (n <= wr->records) recs[n] = (rec){ev->index, tg_digest(ev, s->threads)};
        n++;
    }
    tgen_free(&g);
    is_int(here_bad, 0, "%s: keyframe_here marks exactly the keyframe positions", s->name);
    is_int(e, VX_ERR_END, "%s: stream ends with VX_ERR_END", s->name);
    is_int(diffs, 0, "%s: every event reads back equal", s->name);
    is_u64(n, wr->records, "%s: %llu records", s->name, (unsigned long long)wr->records);
    is_int(vx_trace_reader_next(r, &ev), VX_ERR_END, "%s: still the end", s->name);

    vx_trace_summary sm;
    e = vx_trace_reader_summary(r, &sm);
    ok(!e && sm.complete && sm.has_end && sm.end_status == s->end_status &&
           sm.issues == wr->issues && sm.records == wr->records &&
           sm.raw_bytes == wr->st.raw_bytes && sm.keyframes == wr->nkf &&
           sm.file_bytes == wr->st.file_bytes,
       "%s: summary matches the writer (%llu issues, %llu keyframes)", s->name,
       (unsigned long long)sm.issues, (unsigned long long)sm.keyframes);

    /* seeks: the next event is the first record whose index >= target */
    uint64_t targets[16] = {0,
                            1,
                            wr->issues / 3,
                            wr->issues / 2,
                            wr->issues - 1,
                            wr->issues,
                            wr->issues + 10,
                            7,
                            wr->issues / 5,
                            2 * wr->issues / 3,
                            100,
                            3,
                            9,
                            500,
                            1000,
                            2};
    int seek_bad = 0;
    for (int t = 0; t < 16; t++) {
        uint64_t target = targets[t];
        uint64_t want_i = 0;
        while (want_i < n && recs[want_i].index < target)
            want_i++;
        e = vx_trace_reader_seek(r, target);
        if (e) {
            seek_bad++;
            diag("seek %llu: %s", (unsigned long long)target, vx_trace_reader_errmsg(r));
            continue;
        }
        for (int step = 0; step < 3; step++, want_i++) {
            e = vx_trace_reader_next(r, &ev);
            if (want_i >= n) {
                if (e != VX_ERR_END) seek_bad++;
                break;
            }
            if (e || ev->index != recs[want_i].index ||
                tg_digest(ev, s->threads) != recs[want_i].digest) {
                seek_bad++;
                diag("seek %llu step %d: wrong event", (unsigned long long)target, step);
                break;
            }
        }
    }
    is_int(seek_bad, 0, "%s: seeks land on the first event at or after the target", s->name);

    /* keyframes */
    is_u64(vx_trace_reader_num_keyframes(r), wr->nkf, "%s: %u keyframes", s->name, wr->nkf);
    int kbad = 0;
    for (uint32_t k = 0; k < wr->nkf; k++) {
        vx_trace_keyframe info;
        const uint8_t *st;
        size_t len;
        uint8_t wst[256];
        size_t wlen = kf_state(k, wst);
        pg pages[16];
        if (vx_trace_reader_keyframe(r, k, &info, &st, &len) || info.index != wr->kf_index[k] ||
            info.cycle != wr->kf_cycle[k] || len != wlen || memcmp(st, wst, wlen) ||
            info.npages != (uint64_t)kf_pages(k, s->clusters * s->cores, pages)) {
            kbad++;
            diag("keyframe %u: %s", k, vx_trace_reader_errmsg(r));
        }
        size_t found;
        if (vx_trace_reader_keyframe_find(r, wr->kf_index[k], &found) ||
            wr->kf_index[found] != wr->kf_index[k])
            kbad++;
        page_check pc;
        memset(&pc, 0, sizeof pc);
        pc.k = k;
        pc.C = s->clusters * s->cores;
        if (vx_trace_reader_keyframe_pages(r, k, VX_TRACE_PAGES_DELTA, on_page, &pc) || pc.bad ||
            pc.count != kf_pages(k, pc.C, pages)) {
            kbad++;
            diag("keyframe %u delta pages: %d seen, %d bad", k, pc.count, pc.bad);
        }
        if (k % 3 == 0 || k + 1 == wr->nkf) {
            memset(&pc, 0, sizeof pc);
            pc.k = k;
            pc.C = s->clusters * s->cores;
            pc.all = true;
            if (vx_trace_reader_keyframe_pages(r, k, VX_TRACE_PAGES_ALL, on_page, &pc) || pc.bad ||
                pc.count != expected_all_pages(k, pc.C)) {
                kbad++;
                diag("keyframe %u all pages: %d seen (want %d), %d bad", k, pc.count,
                     expected_all_pages(k, pc.C), pc.bad);
            }
        }
        /* the stream right after the keyframe */
        if (vx_trace_reader_seek_keyframe(r, k)) {
            kbad++;
        } else if (vx_trace_reader_tell(r) != wr->kf_index[k]) {
            kbad++;
        } else {
            e = vx_trace_reader_next(r, &ev);
            uint64_t ri = wr->kf_record[k];
            if (ri < n ? (e || tg_digest(ev, s->threads) != recs[ri].digest) : e != VX_ERR_END)
                kbad++;
        }
    }
    is_int(kbad, 0, "%s: keyframe states, pages (delta and accumulated) and positions", s->name);
    if (wr->nkf) {
        size_t k;
        ok(vx_trace_reader_keyframe_find(r, wr->issues + 100, &k) == VX_OK && k == wr->nkf - 1,
           "%s: keyframe_find past the end gives the last keyframe", s->name);
    }
    if (wr->nkf >= 2) {
        /* keyframe 0's state stays valid while the pages are visited and the trace is
         * checked (only the next vx_trace_reader_keyframe call ends it): the state of
         * keyframe 0 is the smallest, the others' would move or overwrite it */
        const uint8_t *st0;
        size_t len0;
        uint8_t w0[256];
        size_t wlen0 = kf_state(0, w0);
        page_check pc;
        memset(&pc, 0, sizeof pc);
        pc.k = wr->nkf - 1;
        pc.C = s->clusters * s->cores;
        pc.all = true;
        ok(vx_trace_reader_keyframe(r, 0, NULL, &st0, &len0) == VX_OK &&
               vx_trace_reader_keyframe_pages(r, wr->nkf - 1, VX_TRACE_PAGES_ALL, on_page, &pc) ==
                   VX_OK &&
               vx_trace_reader_check(r) == VX_OK && len0 == wlen0 && !memcmp(st0, w0, wlen0),
           "%s: a keyframe's state outlives keyframe_pages and check", s->name);
    }
    is_int(vx_trace_reader_check(r), VX_OK, "%s: full check passes", s->name);
    if (vx_trace_reader_num_keyframes(r)) {
        page_check pc;
        memset(&pc, 0, sizeof pc);
        is_int(vx_trace_reader_keyframe_pages(r, 0, 7, on_page, &pc), VX_ERR_INVAL,
               "%s: keyframe pages in an unknown mode refused", s->name);
    }
    free(recs);
    vx_trace_reader_free(r);
}

/*
 * Chunk digests (FORMAT.md §10.3) against a model built here from the events read:
 * every chunk has a stored digest; each of its issues is answered "maybe" (PC, warp,
 * every byte written); the PC set, the written range and the flags are exact: a PC
 * answered "maybe" maps to a PC of the chunk, [wlo, whi] is the hull of the writes.
 */
typedef struct dgmodel {
    uint8_t pcs[VX_TRACE_DG_PC_BITS]; /* (pc >> 2) mod 8192 seen */
    uint32_t wlo, whi;
    bool writes;
    uint32_t flags; /* of issues: FAULT, WCTL, CONSOLE, FLAGGED */
    uint64_t issues;
} dgmodel;

static void check_digests(const char *path, const spec *s)
{
    vx_trace_reader *r;
    const vx_event *ev;
    vx_trace_reader_new(&r);
    if (vx_trace_reader_open(r, path)) {
        ok(0, "%s: digests: open: %s", s->name, vx_trace_reader_errmsg(r));
        vx_trace_reader_free(r);
        return;
    }
    size_t nc = vx_trace_reader_num_chunks(r);
    vx_trace_digest *dg = calloc(nc ? nc : 1, sizeof *dg);
    dgmodel *md = calloc(nc ? nc : 1, sizeof *md);
    int missing = 0, no_false_neg = 0, inexact = 0;
    for (size_t i = 0; i < nc; i++) {
        if (vx_trace_reader_digest(r, i, VX_TRACE_DIGEST_STORED, &dg[i]) != VX_OK) missing++;
        md[i].wlo = UINT32_MAX;
    }
    size_t ci = 0;
    uint32_t W = s->warps;
    while (vx_trace_reader_next(r, &ev) == VX_OK) {
        if (ev->kind != VX_EV_ISSUE) continue;
        /* the chunk of issue t: the last one whose key is <= t */
        while (ci + 1 < nc && vx_trace_reader_chunk_key(r, ci + 1) <= ev->index)
            ci++;
        dgmodel *m = &md[ci];
        const vx_trace_digest *d = &dg[ci];
        m->issues++;
        if (!(ev->flags & VX_EVF_INJECTED)) {
            m->pcs[(ev->pc >> 2) & (VX_TRACE_DG_PC_BITS - 1)] = 1;
            if (!vx_trace_digest_may_pc(d, ev->pc)) no_false_neg++;
        }
        if (!vx_trace_digest_may_warp(d, ev->core * W + ev->warp)) no_false_neg++;
        m->flags |= (ev->fault ? VX_TRACE_DG_FAULT : 0) | (ev->nwctl ? VX_TRACE_DG_WCTL : 0) |
                    (ev->nconsole ? VX_TRACE_DG_CONSOLE : 0) |
                    (ev->flags & (VX_EVF_INJECTED | VX_EVF_STEP) ? VX_TRACE_DG_FLAGGED : 0);
        for (uint32_t k = 0; k < ev->nmem; k++) {
            uint32_t a = ev->mem[k].addr, e = a + ev->mem[k].size - 1u;
            if (e < a) e = UINT32_MAX;
            m->writes = true;
            if (a < m->wlo) m->wlo = a;
            if (e > m->whi) m->whi = e;
            for (uint32_t b = a;; b++) { /* every byte written, one at a time */
                if (!vx_trace_digest_may_write(d, b, 1)) no_false_neg++;
                if (b == e) break;
            }
            if (!vx_trace_digest_may_write(d, a, ev->mem[k].size)) no_false_neg++;
        }
    }
    for (size_t i = 0; i < nc; i++) {
        const vx_trace_digest *d = &dg[i];
        const dgmodel *m = &md[i];
        uint32_t mask = VX_TRACE_DG_FAULT | VX_TRACE_DG_WCTL | VX_TRACE_DG_CONSOLE |
                        VX_TRACE_DG_FLAGGED | VX_TRACE_DG_WRITES;
        if (d->issues != m->issues ||
            (d->flags & mask) != (m->flags | (m->writes ? VX_TRACE_DG_WRITES : 0)) ||
            (m->writes && (d->wlo != m->wlo || d->whi != m->whi)))
            inexact++;
        for (uint32_t b = 0; b < VX_TRACE_DG_PC_BITS; b++)
            if (vx_trace_digest_may_pc(d, 0x80000000u + b * 4) != (m->pcs[b] != 0)) inexact++;
    }
    ok(nc > 0 && !missing, "%s: every one of %zu chunks has a stored digest", s->name, nc);
    is_int(no_false_neg, 0, "%s: digests never rule out an issue's PC, warp or written byte",
           s->name);
    is_int(inexact, 0, "%s: digests are exact: issue counts, flags, written range, PC set",
           s->name);
    free(dg);
    free(md);
    vx_trace_reader_free(r);
}

static void roundtrip(const spec *s)
{
    wrote wr;
    const char *p = tpath(s->name);
    if (!ok(write_trace(p, s, &wr) == VX_OK, "%s: written", s->name)) return;
    diag("%s: %llu issues, %llu bytes, %.2f bytes/issue, %llu chunks, raw/trace %.1f", s->name,
         (unsigned long long)wr.issues, (unsigned long long)wr.st.file_bytes,
         (double)(wr.st.file_bytes - wr.st.keyframe_bytes) / (double)(wr.issues ? wr.issues : 1),
         (unsigned long long)wr.st.chunks, (double)wr.st.raw_bytes / (double)wr.st.file_bytes);
    is_u64(wr.st.issues, wr.issues, "%s: writer counts issues", s->name);
    is_u64(wr.st.raw_bytes, wr.raw, "%s: raw commit-log size = sum of vx_trace_event_raw_size",
           s->name);
    read_trace(p, s, &wr);
    check_digests(p, s);
}

/* ---- the writer refuses bad input ---- */

static void on_alarm(int sig)
{
    (void)sig;
}

static void test_writer_errors(void)
{
    vx_trace_writer *w;
    vx_trace_header h;
    vx_trace_load loads[2];
    spec s = {"errors", 1, 1, 4, 4, 0, 10, 0, 0, 0, VX_END_EXIT, false, 1};
    fill_header(&h, &s, loads);
    const char *p = tpath("errors.vxt");
    vx_event ev;
    memset(&ev, 0, sizeof ev);

    vx_trace_writer_new(&w);
    is_int(vx_trace_writer_event(w, &ev), VX_ERR_STATE, "event before create refused");
    is_int(vx_trace_writer_create(w, p, NULL), VX_OK, "create");
    is_int(vx_trace_writer_event(w, &ev), VX_ERR_STATE, "event before the header refused");
    vx_trace_header bad = h;
    bad.threads = 3;
    is_int(vx_trace_writer_header(w, &bad), VX_ERR_CONFIG, "3 threads per warp refused");
    bad = h;
    bad.clusters = 64;
    bad.cores = 64;
    bad.warps = 16;
    is_int(vx_trace_writer_header(w, &bad), VX_ERR_CONFIG, "more than 32768 warps refused");
    ok(strstr(vx_trace_writer_errmsg(w), "errors.vxt") != NULL, "message names the file: %s",
       vx_trace_writer_errmsg(w));
    is_int(vx_trace_writer_header(w, &h), VX_OK, "header");
    is_int(vx_trace_writer_header(w, &h), VX_ERR_STATE, "second header refused");

    ev.kind = VX_EV_ISSUE;
    ev.index = 1;
    ev.tmask = 1;
    is_int(vx_trace_writer_event(w, &ev), VX_ERR_INVAL, "event index out of order refused");
    ev.index = 0;
    ev.core = 1;
    is_int(vx_trace_writer_event(w, &ev), VX_ERR_INVAL, "core outside the platform refused");
    ev.core = 0;
    ev.warp = 4;
    is_int(vx_trace_writer_event(w, &ev), VX_ERR_INVAL, "warp outside the platform refused");
    ev.warp = 0;
    ev.tmask = 0x10;
    is_int(vx_trace_writer_event(w, &ev), VX_ERR_INVAL, "lane beyond the thread count refused");
    ev.tmask = 1;
    uint32_t vals[4] = {1, 2, 3, 4};
    vx_commit c = {VX_RF_X, 40, 1, vals};
    ev.ncommits = 1;
    ev.commits = &c;
    is_int(vx_trace_writer_event(w, &ev), VX_ERR_INVAL, "register x40 refused");
    c.reg = 5;
    vx_memwrite m = {0x100, 1, 3, 0};
    ev.nmem = 1;
    ev.mem = &m;
    is_int(vx_trace_writer_event(w, &ev), VX_ERR_INVAL, "3-byte memory write refused");
    m.size = 200;
    is_int(vx_trace_writer_event(w, &ev), VX_ERR_INVAL, "200-byte memory write refused");
    m.size = 4;
    m.lane = 4;
    is_int(vx_trace_writer_event(w, &ev), VX_ERR_INVAL, "memory write by lane 4 of 4 refused");
    m.lane = 0;
    c.lanes = 0x20;
    is_int(vx_trace_writer_event(w, &ev), VX_ERR_INVAL, "commit on lane 5 of 4 refused");
    c.lanes = 1;
    m.size = 4;
    vx_console con = {64, 'x'};
    ev.nconsole = 1;
    ev.console = &con;
    is_int(vx_trace_writer_event(w, &ev), VX_ERR_INVAL, "console slot 64 refused");
    con.slot = 3;
    /* FORMAT.md 7.3: a store reaches [0x80, 0xFFFF4000) only (below 0x80: the null
     * guard, and the console window, whose bytes are console bytes) */
    static const uint32_t unreachable[][2] = {{0, 1},           {0x40, 1},        {0x7C, 4},
                                              {0x7F, 2},        {0xFFFF4000u, 1}, {0xFFFF3FFEu, 4},
                                              {0xFFFFFFFFu, 1}, {0xFFFFFFFCu, 4}};
    int reached = 0;
    for (size_t i = 0; i < sizeof unreachable / sizeof unreachable[0]; i++) {
        m.addr = unreachable[i][0];
        m.size = (uint8_t)unreachable[i][1];
        reached += vx_trace_writer_event(w, &ev) != VX_ERR_INVAL;
    }
    is_int(reached, 0, "memory writes outside [0x80, 0xFFFF4000) refused");
    ok(strstr(vx_trace_writer_errmsg(w), "section 7.3") != NULL, "message says why: %s",
       vx_trace_writer_errmsg(w));
    {
        /* the same for a store with no other effect, which the writer's fast path
         * encodes: one lane, and every lane (lanes 0..1 below 0x80, 2..3 past local memory) */
        vx_event st = ev;
        st.ncommits = 0;
        st.commits = NULL;
        st.nconsole = 0;
        st.console = NULL;
        vx_memwrite one = {0x40, 0x41, 1, 0}, lo4[4], hi4[4];
        for (uint8_t i = 0; i < 4; i++) {
            lo4[i] = (vx_memwrite){0x78u + 4u * i, i, 4, i};
            hi4[i] = (vx_memwrite){0xFFFF3FF8u + 4u * i, i, 4, i};
        }
        st.nmem = 1;
        st.mem = &one;
        int fast = vx_trace_writer_event(w, &st) != VX_ERR_INVAL;
        st.tmask = 0xF;
        st.nmem = 4;
        st.mem = lo4;
        fast += vx_trace_writer_event(w, &st) != VX_ERR_INVAL;
        st.mem = hi4;
        fast += vx_trace_writer_event(w, &st) != VX_ERR_INVAL;
        is_int(fast, 0, "the same for a plain store (the fast path): refused");
    }
    m.size = 4;
    /* 7.6: a faulting issue has no other effect */
    vx_fault fl;
    memset(&fl, 0, sizeof fl);
    fl.kind = 1;
    fl.signal = 4;
    fl.lanes = 1;
    ev.fault = &fl;
    is_int(vx_trace_writer_event(w, &ev), VX_ERR_INVAL, "a faulting issue with effects refused");
    ev.fault = NULL;
    /* an injected instruction runs in one lane */
    ev.flags = VX_EVF_INJECTED;
    ev.tmask = 3;
    c.lanes = 1;
    is_int(vx_trace_writer_event(w, &ev), VX_ERR_INVAL, "an injection in two lanes refused");
    ev.flags = 0;
    ev.tmask = 1;
    m.addr = 0x80; /* the first address a store reaches */
    is_int(vx_trace_writer_event(w, &ev), VX_OK, "valid event accepted after refusals");
    uint8_t page[VX_TRACE_PAGE_SIZE] = {0};
    is_int(vx_trace_writer_keyframe_page(w, 0, 0, page), VX_ERR_STATE,
           "page outside a keyframe refused");
    is_int(vx_trace_writer_keyframe_begin(w, 1, NULL, 0), VX_OK, "keyframe begin");
    is_int(vx_trace_writer_keyframe_page(w, 0, 0x10004, page), VX_ERR_INVAL,
           "unaligned page refused");
    /* 9.1: global pages in space 0, local ones (0xFFFF0000..) in 1 + core */
    is_int(vx_trace_writer_keyframe_page(w, 2, 0xFFFF0000u, page), VX_ERR_INVAL,
           "a page of space 2 on a 1-core platform refused");
    is_int(vx_trace_writer_keyframe_page(w, 0, 0xFFFF1000u, page), VX_ERR_INVAL,
           "a local memory page in global memory's space refused");
    is_int(vx_trace_writer_keyframe_page(w, 1, 0x10000, page), VX_ERR_INVAL,
           "a global page in a local memory's space refused");
    is_int(vx_trace_writer_keyframe_page(w, 1, 0xFFFF4000u, page), VX_ERR_INVAL,
           "a page past local memory refused");
    /* FORMAT.md 9.1: a page MUST NOT appear twice in one keyframe (a full validation
     * reports it as corruption), so the writer refuses the second copy */
    is_int(vx_trace_writer_keyframe_page(w, 0, 0x10000, page), VX_OK, "page accepted");
    is_int(vx_trace_writer_keyframe_page(w, 1, 0xFFFF0000u, page), VX_OK,
           "a local memory page accepted");
    is_int(vx_trace_writer_keyframe_page(w, 0, 0x10000, page), VX_ERR_INVAL,
           "the same page again in the same keyframe refused");
    ok(strstr(vx_trace_writer_errmsg(w), "twice") != NULL, "message says so: %s",
       vx_trace_writer_errmsg(w));
    is_int(vx_trace_writer_keyframe_page(w, 1, 0xFFFF0000u, page), VX_ERR_INVAL,
           "the same local memory page again refused");
    is_int(vx_trace_writer_event(w, &ev), VX_ERR_STATE, "event inside a keyframe refused");
    /* a plain issue (no effects: the writer's fast path) is refused the same way */
    vx_event plain;
    memset(&plain, 0, sizeof plain);
    plain.kind = VX_EV_ISSUE;
    plain.index = 1;
    plain.cycle = 2;
    plain.tmask = 1;
    is_int(vx_trace_writer_event(w, &plain), VX_ERR_STATE, "plain issue inside a keyframe refused");
    is_int(vx_trace_writer_keyframe_end(w), VX_OK, "keyframe end");
    ev.index = 1;
    ev.kind = VX_EV_END;
    /* 8.2: a fault exactly with status fault */
    ev.end_status = VX_END_FAULT;
    is_int(vx_trace_writer_event(w, &ev), VX_ERR_INVAL,
           "END with status fault and no fault refused");
    ev.end_status = VX_END_EXIT;
    ev.fault = &fl;
    is_int(vx_trace_writer_event(w, &ev), VX_ERR_INVAL, "END exit with a fault refused");
    ev.fault = NULL;
    is_int(vx_trace_writer_event(w, &ev), VX_OK, "END");
    ev.kind = VX_EV_DM;
    is_int(vx_trace_writer_event(w, &ev), VX_ERR_STATE, "event after END refused");
    is_int(vx_trace_writer_event(w, &plain), VX_ERR_STATE, "plain issue after END refused");
    is_u64(vx_trace_writer_index(w), 1, "and not counted");
    is_int(vx_trace_writer_finish(w), VX_OK, "finish");
    is_int(vx_trace_writer_finish(w), VX_ERR_STATE, "second finish refused");
    vx_trace_writer_free(w);
    {
        vx_trace_reader *cr;
        vx_trace_reader_new(&cr);
        is_int(vx_trace_reader_open(cr, p), VX_OK, "the trace written after refusals opens");
        vx_err ce = vx_trace_reader_check(cr);
        is_int(ce, VX_OK, "and passes a full validation: %s", vx_trace_reader_errmsg(cr));
        vx_trace_reader_free(cr);
    }

    vx_trace_writer_new(&w);
    is_int(vx_trace_writer_create(w, p, NULL), VX_ERR_EXISTS, "existing trace not overwritten");
    ok(strstr(vx_trace_writer_errmsg(w), "exists") != NULL, "message says so: %s",
       vx_trace_writer_errmsg(w));
    vx_trace_writer_free(w);
    vx_trace_writer_opts o = {VX_TRACE_W_FORCE, 0};
    vx_trace_writer_new(&w);
    is_int(vx_trace_writer_create(w, p, &o), VX_OK, "--force overwrites");
    is_int(vx_trace_writer_header(w, &h), VX_OK, "header");
    is_int(vx_trace_writer_finish(w), VX_OK, "finish without events writes END(abort)");
    vx_trace_writer_free(w);

    vx_trace_reader *r;
    const vx_event *e;
    vx_trace_reader_new(&r);
    is_int(vx_trace_reader_open(r, p), VX_OK, "empty trace opens");
    ok(vx_trace_reader_next(r, &e) == VX_OK && e->kind == VX_EV_END &&
           e->end_status == VX_END_ABORT && e->index == 0,
       "its only event is END(abort) at index 0");
    is_int(vx_trace_reader_next(r, &e), VX_ERR_END, "then the end");
    vx_trace_reader_free(r);

    vx_trace_reader_new(&r);
    is_int(vx_trace_reader_open(r, tpath("missing.vxt")), VX_ERR_IO, "missing file: VX_ERR_IO");
    ok(strstr(vx_trace_reader_errmsg(r), "missing.vxt") != NULL, "message names it: %s",
       vx_trace_reader_errmsg(r));
    vx_trace_reader_free(r);
    /* a FIFO (no writer on it) is refused at once, not waited on: open(2) of a FIFO
     * for reading blocks until a writer comes (the alarm interrupts a reader that waits) */
    if (mkfifo(tpath("fifo.vxt"), 0600) == 0) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_alarm;
        sigaction(SIGALRM, &sa, &old);
        vx_trace_reader_new(&r);
        alarm(5);
        vx_err fe = vx_trace_reader_open(r, tpath("fifo.vxt"));
        alarm(0);
        sigaction(SIGALRM, &old, NULL);
        is_int(fe, VX_ERR_IO, "FIFO: VX_ERR_IO");
        ok(strstr(vx_trace_reader_errmsg(r), "not a regular file") != NULL,
           "at once, not a regular file: %s", vx_trace_reader_errmsg(r));
        vx_trace_reader_free(r);
    } else {
        skip(2, "no FIFO here");
    }
    FILE *f = fopen(tpath("notatrace"), "w");
    fputs("hello, I am not a trace at all, and I am long enough.\n", f);
    fclose(f);
    vx_trace_reader_new(&r);
    is_int(vx_trace_reader_open(r, tpath("notatrace")), VX_ERR_FORMAT,
           "not a trace: VX_ERR_FORMAT");
    vx_trace_reader_free(r);
}

/* Same events, same options: identical bytes. */
static void test_determinism(void)
{
    spec s = {"det", 1, 2, 4, 8, 1, 2000, 1000, 500, 0, VX_END_EXIT, false, 77};
    wrote a, b;
    write_trace(tpath("det1.vxt"), &s, &a);
    write_trace(tpath("det2.vxt"), &s, &b);
    FILE *f1 = fopen(tpath("det1.vxt"), "rb"), *f2 = fopen(tpath("det2.vxt"), "rb");
    int same = f1 && f2;
    for (int c1 = 0, c2 = 0; same && c1 != EOF;) {
        c1 = fgetc(f1);
        c2 = fgetc(f2);
        same = c1 == c2;
    }
    if (f1) fclose(f1);
    if (f2) fclose(f2);
    ok(same && a.st.file_bytes > 1000,
       "two recordings of the same stream are byte-identical (%llu bytes)",
       (unsigned long long)a.st.file_bytes);
}

/* ---- the writer's choices (FORMAT.md 12), byte for byte ---- */

/* The payload of the first EVENTS chunk of an uncompressed trace: *n bytes, or NULL. */
static uint8_t *events_payload(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    uint8_t *b = NULL, *out = NULL;
    long sz = -1;
    if (f && !fseek(f, 0, SEEK_END)) sz = ftell(f);
    if (sz > 0 && (b = malloc((size_t)sz)) && !fseek(f, 0, SEEK_SET) &&
        fread(b, 1, (size_t)sz, f) == (size_t)sz) {
        /* the 16-byte signature, then 28-byte chunk headers (FORMAT.md 3, 4) */
        for (size_t off = 16; off + 28 <= (size_t)sz;) {
            uint32_t stored = vx_get_le32(b + off + 4);
            if (b[off] == 4 && off + 28 + stored <= (size_t)sz) {
                out = malloc(stored ? stored : 1);
                memcpy(out, b + off + 28, stored);
                *n = stored;
                break;
            }
            off += 28 + (size_t)stored;
        }
    }
    if (f) fclose(f);
    free(b);
    return out;
}

/* One issue (core 0, warp 0, cycle 1, pc 0, insn `addi x1, x0, 0`) on a 1x1x1x4
 * platform, uncompressed, then finish (END abort at cycle 1): the EVENTS payload
 * must be want (hand-encoded from FORMAT.md 6-8 and the choices of 12). */
static void choice(const char *what, vx_lanes tmask, const vx_commit *cm, const vx_memwrite *m,
                   uint32_t nmem, const uint8_t *want, size_t nwant)
{
    vx_trace_writer *w;
    vx_trace_writer_opts o = {VX_TRACE_W_NOCOMPRESS | VX_TRACE_W_FORCE, 0};
    vx_trace_header h;
    vx_trace_load loads[2];
    spec s = {"choice", 1, 1, 1, 4, 0, 1, 0, 0, 0, VX_END_ABORT, false, 1};
    fill_header(&h, &s, loads);
    vx_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = VX_EV_ISSUE;
    ev.cycle = 1;
    ev.insn = 0x00000093u;
    ev.tmask = tmask;
    ev.ncommits = cm ? 1 : 0;
    ev.commits = cm;
    ev.nmem = nmem;
    ev.mem = m;
    const char *p = tpath("choice.vxt");
    vx_trace_writer_new(&w);
    vx_err e = vx_trace_writer_create(w, p, &o);
    if (!e) e = vx_trace_writer_header(w, &h);
    if (!e) e = vx_trace_writer_event(w, &ev);
    if (!e) e = vx_trace_writer_finish(w);
    if (e) diag("%s", vx_trace_writer_errmsg(w));
    vx_trace_writer_free(w);
    size_t n = 0;
    uint8_t *got = e ? NULL : events_payload(p, &n);
    if (!ok(got && n == nwant && !memcmp(got, want, n), "writer's choice: %s", what) && got)
        for (size_t i = 0; i < n || i < nwant; i++)
            if (i >= n || i >= nwant || got[i] != want[i]) {
                diag("first difference at byte %zu of %zu (want %zu bytes)", i, n, nwant);
                break;
            }
    free(got);
}

static void test_writer_choices(void)
{
    /* H: S (core 0 warp 0 at cycle 0 + 1 is the predicted schedule), no I (empty insn
     * cache), M when the mask is 0xF (a warp's first mask is every lane), pcmode 0
     * (next_pc starts at 0); the insn word follows.  END: 81, length 4, status 4
     * (abort), exit 0, cycle delta 0, no fault. */
#define INSN 0x93, 0x00, 0x00, 0x00
#define END  0x81, 0x04, 0x04, 0x00, 0x00, 0x00
    /* every lane of x1, values neither uniform nor affine, whose zigzag deltas from
     * the zero shadow (2 * v, 22 bits) take 4 varint bytes each: 16 = 4 * 4 raw bytes,
     * a tie, so raw (K = rd 0 | lanes = tmask 4 | mode 3 << 3) */
    uint32_t v[4] = {0x100000u, 0x100001u, 0x100003u, 0x100007u};
    vx_commit cm = {VX_RF_X, 1, 0xF, v};
    static const uint8_t full_tie[] = {0x25, INSN, 0x1C, 0x00, 0x00, 0x10, 0x00, 0x01, 0x00, 0x10,
                                       0x00, 0x03, 0x00, 0x10, 0x00, 0x07, 0x00, 0x10, 0x00, END};
    choice("a commit to every lane whose deltas are as long as raw values is raw", 0xF, &cm, NULL,
           0, full_tie, sizeof full_tie);
    /* the same on lanes 0..2 of mask 0x7 (not the warp's mask: it follows H): 12 = 4 * 3 */
    cm.lanes = 0x7;
    static const uint8_t part_tie[] = {0x21, INSN, 0x07, 0x1C, 0x00, 0x00, 0x10, 0x00, 0x01,
                                       0x00, 0x10, 0x00, 0x03, 0x00, 0x10, 0x00, END};
    choice("a commit to some lanes whose deltas are as long as raw values is raw", 0x7, &cm, NULL,
           0, part_tie, sizeof part_tie);
    /* one CSR commit (fflags = 0x10 on every lane) and nothing else: form 1, K mode 2
     * with destination 64 + 1, lanes = tmask, uniform value zigzag(0x10) */
    uint32_t f[4] = {0x10, 0x10, 0x10, 0x10};
    vx_commit csr = {VX_RF_CSR, 0x001, 0xF, f};
    static const uint8_t csr_form1[] = {0x25, INSN, 0x06, 0x41, 0x20, END};
    choice("an issue with one CSR commit takes the short form 1", 0xF, &csr, NULL, 0, csr_form1,
           sizeof csr_form1);
    /* two word stores on mask 0x3, lane 1 first: (lane 1, 0x1004, 7), (lane 0, 0x1000, 5).
     * Stride from write 0 and write 1: (0x1000 - 0x1004) / (0 - 1) = 4, b = 0x1000;
     * values: (5 - 7) / (0 - 1) = 2, b = 5.  G = size 4 (2) | affine values (1 << 4);
     * no G bit 2 (the lanes are not in mask order): count 2, lanes 1 0; addresses
     * svarint(0x1000 - 0) = 80 40, svarint(4 - 0) = 08; values varint 5, svarint 2 = 04.
     * H: S, form 2, no M (mask 0x3): the mask byte follows the insn. */
    vx_memwrite mw[2] = {{0x1004u, 7, 4, 1}, {0x1000u, 5, 4, 0}};
    static const uint8_t mem_down[] = {0x41, INSN, 0x03, 0x12, 0x02, 0x01, 0x00,
                                       0x80, 0x40, 0x08, 0x05, 0x04, END};
    choice("memory writes in descending lane order fit affine addresses and values", 0x3, NULL, mw,
           2, mem_down, sizeof mem_down);
#undef INSN
#undef END
}

/* vx_trace_reader_seek(i) right after the DM event that precedes issue i was read:
 * the next event is that DM event again (vx_trace.h: the DM events that precede issue
 * `index` come first), not issue i */
static void test_seek_back_to_dm(void)
{
    vx_trace_writer *w;
    vx_trace_writer_opts o = {VX_TRACE_W_FORCE, 0};
    vx_trace_header h;
    vx_trace_load loads[2];
    spec s = {"seekdm", 1, 1, 1, 4, 0, 2, 0, 0, 0, VX_END_EXIT, false, 1};
    fill_header(&h, &s, loads);
    vx_event ev[4];
    memset(ev, 0, sizeof ev);
    ev[0] = (vx_event){
        .kind = VX_EV_ISSUE, .index = 0, .cycle = 1, .pc = 0, .insn = 0x13, .tmask = 0xF};
    ev[1] = (vx_event){.kind = VX_EV_DM, .index = 1, .cycle = 2};
    ev[1].dm = (vx_dm_event){VX_DM_HALT, 0, 0, 0, 0, 2};
    ev[2] = (vx_event){
        .kind = VX_EV_ISSUE, .index = 1, .cycle = 3, .pc = 4, .insn = 0x13, .tmask = 0xF};
    ev[3] = (vx_event){.kind = VX_EV_END, .index = 2, .cycle = 4, .end_status = VX_END_EXIT};
    const char *p = tpath("seekdm.vxt");
    vx_trace_writer_new(&w);
    vx_err e = vx_trace_writer_create(w, p, &o);
    if (!e) e = vx_trace_writer_header(w, &h);
    for (int i = 0; !e && i < 4; i++)
        e = vx_trace_writer_event(w, &ev[i]);
    if (!e) e = vx_trace_writer_finish(w);
    vx_trace_writer_free(w);
    vx_trace_reader *r;
    const vx_event *got = NULL;
    vx_trace_reader_new(&r);
    if (!e) e = vx_trace_reader_open(r, p);
    if (!e) e = vx_trace_reader_next(r, &got); /* issue 0 */
    if (!e) e = vx_trace_reader_next(r, &got); /* the DM event before issue 1 */
    ok(!e && got->kind == VX_EV_DM && got->index == 1, "the DM event carries index 1");
    if (!e) e = vx_trace_reader_seek(r, 1);
    if (!e) e = vx_trace_reader_next(r, &got);
    ok(!e && got->kind == VX_EV_DM && got->index == 1 && got->dm.op == VX_DM_HALT,
       "seek to 1 right after reading that DM event gives it again");
    if (!e) e = vx_trace_reader_next(r, &got);
    ok(!e && got->kind == VX_EV_ISSUE && got->index == 1 && got->pc == 4, "then issue 1");
    if (e) diag("%s", vx_trace_reader_errmsg(r));
    vx_trace_reader_free(r);
}

/*
 * (from a mutation review of writer.c) vx_trace_writer_logrecs takes a record its fast
 * path cannot encode (a store of some lanes only: VX_LOG_MEM with a partial thread mask)
 * the general way, with the same 6-bit cycle delta as the fast path: a gap of 40 cycles
 * before such a store and before a plain issue after it reads back as written.
 */
static void test_logrecs_general_path_cycles(void)
{
    vx_trace_writer *w;
    vx_trace_writer_opts o = {VX_TRACE_W_FORCE, 0};
    vx_trace_header h;
    vx_trace_load loads[2];
    spec s = {"logslow", 1, 1, 1, 4, 0, 2, 0, 0, 0, VX_END_EXIT, false, 1};
    fill_header(&h, &s, loads);
    _Alignas(16) uint8_t buf[16 + 48 + 16];
    memset(buf, 0, sizeof buf);
    vx_logrec *q = (vx_logrec *)(void *)buf;
    vx_logrec_head(q, 5, 0, 0, 0, 0x80000000u, 0x13, 0xF); /* cycle 100 + 5 */
    q = (vx_logrec *)(void *)(buf + 16);
    vx_logrec_head(q, 40, VX_LOG_MEM | 4, 0, 0, 0x80000004u, 0x00A12023u, 0x1); /* + 40 */
    uint32_t *v = (uint32_t *)(void *)(q + 1);
    v[0] = 0x10000; /* lane 0's address, then the 4 values */
    v[4] = 0xABCD;
    q = (vx_logrec *)(void *)(buf + 16 + VX_LOGREC_SIZE(VX_LOG_MEM | 4, 4));
    vx_logrec_head(q, 63, 0, 0, 0, 0x80000008u, 0x13, 0xF); /* + 63 */
    const size_t len = 16 + VX_LOGREC_SIZE(VX_LOG_MEM | 4, 4) + 16;
    const char *p = tpath("logslow.vxt");
    vx_trace_writer_new(&w);
    vx_err e = vx_trace_writer_create(w, p, &o);
    if (!e) e = vx_trace_writer_header(w, &h);
    uint64_t cycle = 100;
    size_t used = 0;
    if (!e) used = vx_trace_writer_logrecs(w, buf, len, &cycle, &e);
    is_int((int)used, (int)len, "every record taken");
    is_u64(cycle, 208, "the cycle after them: 100 + 5 + 40 + 63");
    if (!e) e = vx_trace_writer_finish(w);
    vx_trace_writer_free(w);
    vx_trace_reader *r;
    const vx_event *got = NULL;
    uint64_t want[3] = {105, 145, 208};
    int bad = 0;
    vx_trace_reader_new(&r);
    if (!e) e = vx_trace_reader_open(r, p);
    for (int i = 0; i < 3 && !e; i++) {
        if ((e = vx_trace_reader_next(r, &got))) break;
        if (got->kind != VX_EV_ISSUE || got->cycle != want[i]) {
            diag("event %d: kind %u cycle %llu, want %llu", i, got->kind,
                 (unsigned long long)got->cycle, (unsigned long long)want[i]);
            bad++;
        }
        if (i == 1 &&
            (got->nmem != 1 || got->mem[0].addr != 0x10000 || got->mem[0].value != 0xABCD))
            bad++;
    }
    ok(!e && !bad, "cycles 105, 145 (the store of lane 0) and 208 read back");
    if (e) diag("%s", vx_trace_reader_errmsg(r));
    vx_trace_reader_free(r);
}

/* vx_trace_event_diff names the field that differs and prints both values (vxrec --verify
 * and vxreplay show its message): a warp-control effect's mask or arg2, a fault's insn or
 * lanes, a commit's lanes printed the same text on both sides, or no values at all */
static void test_diff_message(void)
{
    char msg[512];
    uint32_t va[4] = {1, 2, 3, 4}, vb[4] = {1, 2, 3, 4};
    vx_wctl wa = {.kind = 2, .core = 0, .warp = 1, .pc = 0x80000140, .mask = 0x3};
    vx_wctl wb = wa;
    vx_commit ca = {.file = VX_RF_X, .reg = 5, .lanes = 0xf, .values = va};
    vx_commit cb = ca;
    vx_fault fa = {.kind = VX_FAULT_MISALIGNED,
                   .signal = 7,
                   .pc = 0x80000008,
                   .insn = 0x0005a503,
                   .addr = 0x10001,
                   .lanes = 0xf};
    vx_fault fb = fa;
    vx_event a = {.kind = VX_EV_ISSUE,
                  .index = 24,
                  .cycle = 30,
                  .pc = 0x80000140,
                  .tmask = 0xf,
                  .nwctl = 1,
                  .wctl = &wa};
    vx_event b = a;
    b.wctl = &wb;
    wb.mask = 0x1;
    ok(vx_trace_event_diff(&a, &b, 4, msg, sizeof msg) && strstr(msg, "mask 0x3 ") &&
           strstr(msg, "mask 0x1 "),
       "a warp-control mask differs: both masks said (%s)", msg);
    wb.mask = wa.mask;
    wb.arg2 = 9;
    ok(vx_trace_event_diff(&a, &b, 4, msg, sizeof msg) && strstr(msg, "arg2 0 ") &&
           strstr(msg, "arg2 9 "),
       "a warp-control arg2 differs: both said (%s)", msg);
    a.nwctl = b.nwctl = 0;
    a.fault = &fa;
    b.fault = &fb;
    fb.insn ^= 1;
    ok(vx_trace_event_diff(&a, &b, 4, msg, sizeof msg) && strstr(msg, "insn 0x0005a503") &&
           strstr(msg, "insn 0x0005a502"),
       "a fault's insn differs: both said (%s)", msg);
    fb.insn = fa.insn;
    fb.lanes = 0x3;
    ok(vx_trace_event_diff(&a, &b, 4, msg, sizeof msg) && !strcmp(msg, "fault lanes 0xf != 0x3"),
       "a fault's lanes differ: both said (%s)", msg);
    a.fault = b.fault = NULL;
    a.ncommits = b.ncommits = 1;
    a.commits = &ca;
    b.commits = &cb;
    cb.values = vb;
    cb.lanes = 0x7;
    ok(vx_trace_event_diff(&a, &b, 4, msg, sizeof msg) &&
           !strcmp(msg, "commit 0 (x5): lanes 0xf != 0x7"),
       "a commit's lanes differ: both said (%s)", msg);
    cb.lanes = ca.lanes;
    ok(!vx_trace_event_diff(&a, &b, 4, msg, sizeof msg), "equal events: no difference");
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/vxrr-t-trace-XXXXXX");
    if (!mkdtemp(dir)) tap_bail("mkdtemp failed");
    for (size_t i = 0; i < sizeof image; i++)
        image[i] = (uint8_t)(i * 13 + 1);
    for (size_t i = 0; i < sizeof load0; i++)
        load0[i] = (uint8_t)(i ^ 0x5A);
    memcpy(load1, "loaded", 7);

    test_crc();
    test_diff_message();
    static const spec specs[] = {
        /* name            cl co  wa  th wild  n    chunk  kf   flags                 end              fault seed */
        {"real-1x1x4x4", 1, 1, 4, 4, 0, 20000, 0, 5000, 0, VX_END_EXIT, false, 1},
        {"wild-1x1x4x4", 1, 1, 4, 4, 1, 4000, 700, 1000, 0, VX_END_FAULT, true, 2},
        {"wild-1lane", 1, 1, 1, 1, 1, 3000, 300, 700, 0, VX_END_LIMIT, false, 3},
        {"wild-128lanes", 1, 1, 2, 128, 1, 1500, 4000, 400, 0, VX_END_ABORT, false, 4},
        {"wild-1x4x8x32", 1, 4, 8, 32, 1, 3000, 2000, 900, 0, VX_END_EXIT, false, 5},
        {"wild-2x3x5x8", 2, 3, 5, 8, 1, 3000, 500, 0, 0, 9, false, 6}, /* an unknown status */
        {"wild-nocompress", 1, 2, 3, 16, 1, 2000, 900, 600, VX_TRACE_W_NOCOMPRESS, VX_END_FAULT,
         true, 7},
        {"real-many-warps", 4, 8, 64, 4, 0, 5000, 0, 2000, 0, VX_END_EXIT, false, 8},
    };
    for (size_t i = 0; i < VX_ARRAY_SIZE(specs); i++)
        roundtrip(&specs[i]);
    test_writer_errors();
    test_writer_choices();
    test_seek_back_to_dm();
    test_logrecs_general_path_cycles();
    test_determinism();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) diag("could not remove %s", dir);
    return tap_exit();
}
