/*
 * t-trace-golden.c - pins the bytes of the format version written (1.1), and reads
 * the golden file of every earlier version (1.0) that readers must still read.
 *
 * A small fixed event list (defined here, independent of every other test helper)
 * covering every record kind is written WITHOUT compression (so the bytes depend
 * on nothing but FORMAT.md and libvxtrace, not on the liblz4 version) and compared
 * byte for byte with tests/golden/small-v<major>.<minor>.vxt.  The golden files are
 * also read back and checked against the list.
 *
 * A difference means the format changed.  If that is deliberate: bump
 * VX_TRACE_MAJOR/VX_TRACE_MINOR (vx_trace.h) and FORMAT.md §3.1, add a new golden
 * file with
 *     build/tests/t-trace-golden --regen tests/golden
 * (it writes small-v<major>.<minor>.vxt), keep the old one if readers must still
 * read it, and commit both with the format change.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "vx_trace.h"

#define T   4
#define NEV 40

typedef struct item {
    vx_event ev;
    vx_commit c[2];
    uint32_t v[2][T];
    vx_memwrite m[T];
    vx_wctl w[2];
    vx_console con[3];
    vx_fault f;
} item;

static item items[NEV + 1];
static int nitems;

static vx_event *add(uint8_t kind, uint64_t index, uint64_t cycle)
{
    item *it = &items[nitems++];
    memset(it, 0, sizeof *it);
    it->ev.kind = kind;
    it->ev.index = index;
    it->ev.cycle = cycle;
    return &it->ev;
}

/* The fixed list: 2 cores x 2 warps x 4 threads, round-robin, a loop, every record kind. */
static void build_list(void)
{
    uint64_t idx = 0, cyc = 0;
    uint32_t pc[4] = {0x80000000u, 0x80000000u, 0x80000000u, 0x80000000u};
    static const uint32_t loop[6] = {0x00158593u, 0x00462603u, 0x00c6a023u,
                                     0x00000033u, 0xfe5ff06fu, 0x00100093u};
    for (int i = 0; i < 30; i++) {
        uint32_t core = (uint32_t)i % 2, warp = ((uint32_t)i / 2) % 2, g = core * 2 + warp;
        if (core == 0) cyc++;
        item *it = &items[nitems];
        vx_event *ev = add(VX_EV_ISSUE, idx++, cyc);
        ev->core = core;
        ev->warp = warp;
        ev->pc = pc[g];
        ev->insn = loop[(pc[g] - 0x80000000u) / 4 % 6];
        ev->tmask = 0xF;
        pc[g] += 4;
        switch (i % 6) {
        case 0: /* uniform commit */
            it->c[0] = (vx_commit){VX_RF_X, (uint16_t)((ev->insn >> 7) & 31), 0xF, it->v[0]};
            for (int l = 0; l < T; l++)
                it->v[0][l] = (uint32_t)i;
            ev->ncommits = 1;
            break;
        case 1: /* affine commit (addresses) */
            it->c[0] = (vx_commit){VX_RF_X, 12, 0xF, it->v[0]};
            for (int l = 0; l < T; l++)
                it->v[0][l] = 0x10000u + (uint32_t)l * 4 + (uint32_t)i * 16;
            ev->ncommits = 1;
            break;
        case 2: /* affine store */
            for (int l = 0; l < T; l++)
                it->m[l] =
                    (vx_memwrite){0x20000u + (uint32_t)l * 4, 0xA0u + (uint32_t)l, 4, (uint8_t)l};
            ev->nmem = T;
            break;
        case 3: /* random lane values, two commits (rd and fflags) on a partial mask */
            ev->tmask = 0x5;
            it->c[0] = (vx_commit){VX_RF_F, 3, 0x5, it->v[0]};
            it->v[0][0] = 0x3F800000u ^ (uint32_t)i * 0x9E3779B9u;
            it->v[0][2] = 0x40490FDBu + (uint32_t)i;
            it->c[1] = (vx_commit){VX_RF_CSR, 0x001, 0x1, it->v[1]};
            it->v[1][0] = 0x10;
            ev->ncommits = 2;
            pc[g] = ev->pc - 16; /* loop back */
            break;
        case 4: /* jal: pc from the branch target */
            ev->insn = 0xfe5ff06fu;
            pc[g] = ev->pc - 28;
            break;
        default:
            if (i == 5) { /* warp control and console */
                it->w[0] = (vx_wctl){VX_WCTL_IPDOM_PUSH, core, warp, 0x80000040u, 1, 0, 0xF, 0x3};
                it->w[1] = (vx_wctl){VX_WCTL_TMASK, core, warp, 0, 0, 0, 0xC, 0};
                ev->nwctl = 2;
                it->con[0] = (vx_console){1, 'h'};
                it->con[1] = (vx_console){1, 'i'};
                it->con[2] = (vx_console){1, '\n'};
                ev->nconsole = 3;
            }
            if (i == 11) { /* odd memory list: explicit lanes, mixed sizes */
                it->m[0] = (vx_memwrite){0x30001u, 0xEE, 1, 3};
                it->m[1] = (vx_memwrite){0x30010u, 0xBEEF, 2, 1};
                ev->nmem = 2;
            }
            break;
        }
        if (i == 20) { /* DM: halt warp 0 and poke it */
            static const uint8_t ops[6] = {VX_DM_WRITE,  VX_DM_HALT,    VX_DM_READ,
                                           VX_DM_SET_PC, VX_DM_SCRATCH, VX_DM_INJECT_REJECT};
            for (int k = 0; k < 6; k++) {
                vx_event *d = add(VX_EV_DM, idx, cyc);
                d->dm = (vx_dm_event){ops[k], (uint8_t)(k + 2), 0x1000u * (uint32_t)k + 1,
                                      0,      (uint32_t)k % T,  (uint32_t)k};
            }
            item *inj = &items[nitems];
            vx_event *e = add(VX_EV_ISSUE, idx++, cyc);
            e->flags = VX_EVF_INJECTED;
            e->pc = 0x80000040u;
            e->insn = 0x7b202573u; /* csrr a0, dscratch0 */
            e->tmask = 0x2;
            inj->c[0] = (vx_commit){VX_RF_X, 10, 0x2, inj->v[0]};
            inj->v[0][1] = 0xCAFE;
            e->ncommits = 1;
            item *st = &items[nitems];
            e = add(VX_EV_ISSUE, idx++, cyc + 1);
            e->flags = VX_EVF_STEP;
            e->pc = 0x80000040u;
            e->insn = 0x00100093u;
            e->tmask = 0xF;
            st->c[0] = (vx_commit){VX_RF_X, 1, 0xF, st->v[0]};
            for (int l = 0; l < T; l++)
                st->v[0][l] = 1;
            e->ncommits = 1;
            add(VX_EV_DM, idx, cyc + 1)->dm = (vx_dm_event){VX_DM_RESUME, 0, 0, 0, 0, 0};
        }
    }
    /* a faulting issue, then END(fault) */
    item *fi = &items[nitems];
    vx_event *ev = add(VX_EV_ISSUE, idx++, cyc + 1);
    ev->core = 1;
    ev->warp = 1;
    ev->pc = 0x80000100u;
    ev->insn = 0x0000a003u;
    ev->tmask = 0xF;
    fi->f = (vx_fault){VX_FAULT_MISALIGNED, 7, 1, 1, 0x80000100u, 0x0000a003u, 0x10001u, 0x6,
                       "misaligned load"};
    ev->fault = &fi->f;
    item *ei = &items[nitems];
    ev = add(VX_EV_END, idx, cyc + 1);
    ev->end_status = VX_END_FAULT;
    ei->f = fi->f;
    ev->fault = &ei->f;
    /* wire the pointers */
    for (int i = 0; i < nitems; i++) {
        item *it = &items[i];
        if (it->ev.ncommits) it->ev.commits = it->c;
        if (it->ev.nmem) it->ev.mem = it->m;
        if (it->ev.nwctl) it->ev.wctl = it->w;
        if (it->ev.nconsole) it->ev.console = it->con;
    }
}

static const uint8_t image[] = {0x7f, 'E', 'L', 'F', 1, 1, 1, 0, 'g', 'o', 'l', 'd'};
static const uint8_t ldata[] = {9, 8, 7};

static vx_err write_golden(const char *path, unsigned flags)
{
    vx_trace_writer *w;
    vx_trace_writer_opts o = {flags | VX_TRACE_W_FORCE, 120};
    vx_trace_load load = {0x10000, ldata, sizeof ldata, "in.bin"};
    vx_trace_header h = {1,
                         2,
                         2,
                         T,
                         1u << 20,
                         0x80000000u,
                         0x10000u,
                         1000,
                         16,
                         0,
                         1,
                         "golden.elf",
                         image,
                         sizeof image,
                         1,
                         &load,
                         "1.0-golden",
                         0,
                         0};
    uint8_t page[VX_TRACE_PAGE_SIZE];
    vx_trace_writer_new(&w);
    vx_err e = vx_trace_writer_create(w, path, &o);
    if (!e) e = vx_trace_writer_header(w, &h);
    if (!e) e = vx_trace_writer_keyframe_begin(w, 0, (const uint8_t *)"state0", 6);
    memset(page, 0, sizeof page);
    memcpy(page, ldata, sizeof ldata);
    if (!e) e = vx_trace_writer_keyframe_page(w, 0, 0x10000u, page);
    memset(page, 0, sizeof page);
    if (!e) e = vx_trace_writer_keyframe_page(w, 1, 0xFFFF0000u, page);
    if (!e) e = vx_trace_writer_keyframe_end(w);
    bool kf16 = false;
    for (int i = 0; !e && i < nitems; i++) {
        if (items[i].ev.index == 16 && !kf16) {
            kf16 = true;
            e = vx_trace_writer_keyframe_begin(w, items[i].ev.cycle - 1, (const uint8_t *)"state16",
                                               7);
            memset(page, 0x5A, sizeof page);
            if (!e) e = vx_trace_writer_keyframe_page(w, 0, 0x20000u, page);
            if (!e) e = vx_trace_writer_keyframe_end(w);
        }
        if (!e) e = vx_trace_writer_event(w, &items[i].ev);
    }
    if (!e) e = vx_trace_writer_finish(w);
    if (e) diag("%s", vx_trace_writer_errmsg(w));
    vx_trace_writer_free(w);
    return e;
}

static uint8_t *slurp(const char *p, size_t *n)
{
    FILE *f = fopen(p, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)sz + 1);
    if (sz < 0 || fread(b, 1, (size_t)sz, f) != (size_t)sz) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *n = (size_t)sz;
    return b;
}

static void read_back(const char *path, const char *what, unsigned minor)
{
    vx_trace_reader *r;
    const vx_event *ev;
    char msg[200];
    vx_trace_reader_new(&r);
    if (!ok(vx_trace_reader_open(r, path) == VX_OK, "%s opens", what)) {
        diag("%s", vx_trace_reader_errmsg(r));
        vx_trace_reader_free(r);
        return;
    }
    const vx_trace_header *h = vx_trace_reader_header(r);
    ok(h->cores == 2 && h->threads == T && h->arg == 0x10000u &&
           !strcmp(h->image_name, "golden.elf") && h->image_len == sizeof image &&
           !memcmp(h->image, image, sizeof image) && h->nloads == 1 && h->loads[0].len == 3 &&
           !strcmp(h->sim_version, "1.0-golden"),
       "%s: header", what);
    int n = 0, bad = 0;
    while (vx_trace_reader_next(r, &ev) == VX_OK) {
        if (n >= nitems || vx_trace_event_diff(ev, &items[n].ev, T, msg, sizeof msg)) {
            if (bad++ < 3) diag("%s: event %d: %s", what, n, n >= nitems ? "extra" : msg);
        }
        n++;
    }
    ok(!bad && n == nitems, "%s: all %d events as built", what, nitems);
    is_u64(vx_trace_reader_num_keyframes(r), 2, "%s: two keyframes", what);
    vx_trace_keyframe k1;
    ok(vx_trace_reader_keyframe(r, 1, &k1, NULL, NULL) == VX_OK && k1.index == 16 &&
           k1.npages == 1 && k1.on_image == (minor >= 1),
       "%s: keyframe 1 at event 16, one page, %s memory as base", what,
       minor >= 1 ? "the prologue's" : "zero");
    is_int(vx_trace_reader_check(r), VX_OK, "%s: check passes", what);
    /* digests: stored from 1.1 on, computed for 1.0; the same either way */
    size_t nc = vx_trace_reader_num_chunks(r);
    int dbad = 0;
    for (size_t i = 0; i < nc; i++) {
        vx_trace_digest a, b;
        vx_err es = vx_trace_reader_digest(r, i, VX_TRACE_DIGEST_STORED, &a);
        vx_err ec = vx_trace_reader_digest(r, i, VX_TRACE_DIGEST_COMPUTE, &b);
        if ((minor >= 1 ? es != VX_OK || memcmp(&a, &b, sizeof a) : es != VX_ERR_END) || ec) dbad++;
    }
    ok(nc > 1 && !dbad, "%s: %zu chunk digests, %s", what, nc,
       minor >= 1 ? "stored and equal to the computed ones" : "none stored, computed");
    /* what the digests say about the list: chunk 0 holds events 0.. (pc 0x80000000 issued,
     * the affine store of event 2 wrote 0x20000..0x2000f, warp 0 issued, nothing at 0x90000000) */
    vx_trace_digest d0;
    ok(vx_trace_reader_digest(r, 0, VX_TRACE_DIGEST_COMPUTE, &d0) == VX_OK && d0.first == 0 &&
           vx_trace_digest_may_pc(&d0, 0x80000000u) && vx_trace_digest_may_warp(&d0, 0) &&
           vx_trace_digest_may_write(&d0, 0x2000Cu, 4) &&
           !vx_trace_digest_may_write(&d0, 0x20010u, 4) &&
           !vx_trace_digest_may_write(&d0, 0x90000000u, 64),
       "%s: the first chunk's digest", what);
    vx_trace_reader_free(r);
}

int main(int argc, char **argv)
{
    char golden[256], tmp[64];
    build_list();
    if (argc > 2 && !strcmp(argv[1], "--regen")) {
        snprintf(golden, sizeof golden, "%s/small-v%d.%d.vxt", argv[2], VX_TRACE_MAJOR,
                 VX_TRACE_MINOR);
        vx_err e = write_golden(golden, VX_TRACE_W_NOCOMPRESS);
        printf("# wrote %s: %s\n", golden, vx_strerror(e));
        return e ? 1 : 0;
    }
    snprintf(golden, sizeof golden, "tests/golden/small-v%d.%d.vxt", VX_TRACE_MAJOR,
             VX_TRACE_MINOR);
    snprintf(tmp, sizeof tmp, "/tmp/vxrr-t-golden-%ld.vxt", (long)getpid());
    is_int(write_golden(tmp, VX_TRACE_W_NOCOMPRESS), VX_OK, "the fixed list is written (%d events)",
           nitems);
    size_t na, nb;
    uint8_t *a = slurp(tmp, &na), *b = slurp(golden, &nb);
    if (!ok(b != NULL, "%s exists", golden)) {
        diag("regenerate with: build/tests/t-trace-golden --regen tests/golden");
    } else {
        size_t i = 0;
        while (i < na && i < nb && a[i] == b[i])
            i++;
        if (!ok(na == nb && i == na, "bytes identical to %s (%zu bytes)", golden, nb))
            diag("first difference at offset %zu (written %zu bytes, golden %zu): the format "
                 "changed; "
                 "see the comment at the top of tests/unit/t-trace-golden.c",
                 i, na, nb);
        read_back(golden, "golden file", VX_TRACE_MINOR);
    }
    /* every earlier minor version of this major version must still be read */
    for (int m = 0; m < VX_TRACE_MINOR; m++) {
        char old[256], what[64];
        snprintf(old, sizeof old, "tests/golden/small-v%d.%d.vxt", VX_TRACE_MAJOR, m);
        snprintf(what, sizeof what, "golden file %d.%d", VX_TRACE_MAJOR, m);
        if (ok(access(old, R_OK) == 0, "%s exists", old)) read_back(old, what, (unsigned)m);
    }
    free(a);
    free(b);
    is_int(write_golden(tmp, 0), VX_OK, "the list is written compressed");
    read_back(tmp, "compressed copy", VX_TRACE_MINOR);
    unlink(tmp);
    return tap_exit();
}
