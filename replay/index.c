/*
 * index.c - background summary of a trace for fast backward searches (index.h).
 *
 * The summarising thread owns its reader and writes only blocks at or above the
 * published count; the server thread reads only blocks below it.  The count is
 * published with release order and read with acquire order, which is all the
 * synchronisation needed.
 */
#include "index.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vx_trace.h"

#define PC_BITS   2048u /* Bloom filter bits for PCs, per block */
#define PAGE_BITS 256u  /* for written pages */

typedef struct block {
    uint64_t pc[PC_BITS / 64];
    uint64_t page[PAGE_BITS / 64];
    uint64_t warps;    /* bit gwarp % 64 */
    uint32_t wlo, whi; /* written bytes lie in [wlo, whi]; wlo > whi: none */
} block;

#define SAVE_MAGIC  "VXRRSUM1"
#define SAVE_TAIL   32u /* last bytes of the trace kept to recognise it */
#define BLOCK_BYTES (PC_BITS / 8 + PAGE_BITS / 8 + 8 + 4 + 4)

struct vx_index {
    char *path;
    char *save_path;
    uint64_t trace_size;
    uint8_t tail[SAVE_TAIL];
    bool have_id; /* trace_size and tail were read */
    uint64_t nissues, nblocks;
    uint32_t W;
    block *b;
    _Atomic uint64_t ready;
    _Atomic bool stop;
    pthread_t th;
    bool started;
};

static uint32_t pc_hash(uint32_t pc)
{
    return ((pc >> 2) * 0x9E3779B1u) >> (32 - 11); /* 11 bits: PC_BITS */
}

static uint32_t page_hash(uint32_t page)
{
    return (page * 0x9E3779B1u) >> (32 - 8); /* 8 bits: PAGE_BITS */
}

static void set_bit(uint64_t *bits, uint32_t i)
{
    bits[i >> 6] |= 1ull << (i & 63);
}

static bool get_bit(const uint64_t *bits, uint32_t i)
{
    return (bits[i >> 6] >> (i & 63)) & 1;
}

/* The trace's size and last bytes (its trailer holds a CRC): what identifies it. */
static bool trace_id(vx_index *ix)
{
    FILE *f = fopen(ix->path, "rb");
    if (!f) return false;
    bool ok = fseek(f, 0, SEEK_END) == 0;
    long size = ok ? ftell(f) : -1;
    ok = ok && size >= (long)SAVE_TAIL && fseek(f, size - (long)SAVE_TAIL, SEEK_SET) == 0 &&
         fread(ix->tail, 1, SAVE_TAIL, f) == SAVE_TAIL;
    fclose(f);
    ix->trace_size = (uint64_t)size;
    return ok;
}

static size_t header_bytes(void)
{
    return 8 + 8 + 8 + 4 + 8 + SAVE_TAIL;
}

static void put_header(const vx_index *ix, uint8_t *h)
{
    memcpy(h, SAVE_MAGIC, 8);
    vx_put_le64(h + 8, ix->nissues);
    vx_put_le64(h + 16, ix->nblocks);
    vx_put_le32(h + 24, ix->W);
    vx_put_le64(h + 28, ix->trace_size);
    memcpy(h + 36, ix->tail, SAVE_TAIL);
}

static void put_block(const block *b, uint8_t *p)
{
    for (unsigned i = 0; i < PC_BITS / 64; i++, p += 8)
        vx_put_le64(p, b->pc[i]);
    for (unsigned i = 0; i < PAGE_BITS / 64; i++, p += 8)
        vx_put_le64(p, b->page[i]);
    vx_put_le64(p, b->warps);
    vx_put_le32(p + 8, b->wlo);
    vx_put_le32(p + 12, b->whi);
}

static void get_block(block *b, const uint8_t *p)
{
    for (unsigned i = 0; i < PC_BITS / 64; i++, p += 8)
        b->pc[i] = vx_get_le64(p);
    for (unsigned i = 0; i < PAGE_BITS / 64; i++, p += 8)
        b->page[i] = vx_get_le64(p);
    b->warps = vx_get_le64(p);
    b->wlo = vx_get_le32(p + 8);
    b->whi = vx_get_le32(p + 12);
}

/* Load a saved summary of this very trace; false if there is none or it does not match. */
static bool load_saved(vx_index *ix)
{
    if (!ix->save_path || !ix->have_id) return false;
    FILE *f = fopen(ix->save_path, "rb");
    if (!f) return false;
    uint8_t want[128], got[128], buf[BLOCK_BYTES];
    size_t hb = header_bytes();
    put_header(ix, want);
    bool ok = fread(got, 1, hb, f) == hb && memcmp(got, want, hb) == 0;
    for (uint64_t i = 0; ok && i < ix->nblocks; i++) {
        ok = fread(buf, 1, BLOCK_BYTES, f) == BLOCK_BYTES;
        if (ok) get_block(&ix->b[i], buf);
    }
    ok = ok && fgetc(f) == EOF;
    fclose(f);
    return ok;
}

/* Save the summary (temporary file, then rename: readers never see half of one). */
static void save(const vx_index *ix)
{
    if (!ix->save_path || !ix->have_id) return;
    size_t n = strlen(ix->save_path) + 16;
    char *tmp = malloc(n);
    if (!tmp) return;
    snprintf(tmp, n, "%s.tmp", ix->save_path);
    FILE *f = fopen(tmp, "wb");
    bool ok = f != NULL;
    if (ok) {
        uint8_t h[128], buf[BLOCK_BYTES];
        put_header(ix, h);
        ok = fwrite(h, 1, header_bytes(), f) == header_bytes();
        for (uint64_t i = 0; ok && i < ix->nblocks; i++) {
            put_block(&ix->b[i], buf);
            ok = fwrite(buf, 1, BLOCK_BYTES, f) == BLOCK_BYTES;
        }
        if (fclose(f) != 0) ok = false;
    }
    if (!ok || rename(tmp, ix->save_path) != 0) remove(tmp);
    free(tmp);
}

static void *summarise(void *arg)
{
    vx_index *ix = arg;
    vx_trace_reader *r = NULL;
    if (vx_trace_reader_new(&r) != VX_OK || vx_trace_reader_open(r, ix->path) != VX_OK) goto out;
    uint64_t cur = 0; /* block being filled */
    const vx_event *ev;
    uint64_t n = 0;
    vx_err err;
    while ((err = vx_trace_reader_next(r, &ev)) == VX_OK) {
        if ((++n & 4095) == 0 && atomic_load_explicit(&ix->stop, memory_order_relaxed)) goto out;
        if (ev->kind != VX_EV_ISSUE) continue;
        uint64_t bi = ev->index >> VX_INDEX_BLOCK_SHIFT;
        if (bi >= ix->nblocks) {
            err = VX_ERR_END; /* the faulting issue at the end of history */
            break;
        }
        if (bi != cur) {
            atomic_store_explicit(&ix->ready, bi, memory_order_release);
            cur = bi;
        }
        block *b = &ix->b[bi];
        if (!(ev->flags & VX_EVF_INJECTED)) set_bit(b->pc, pc_hash(ev->pc));
        b->warps |= 1ull << ((ev->core * ix->W + ev->warp) & 63);
        for (uint32_t i = 0; i < ev->nmem; i++) {
            uint32_t a = ev->mem[i].addr, e = a + (ev->mem[i].size ? ev->mem[i].size - 1u : 0u);
            if (e < a) e = UINT32_MAX;
            if (a < b->wlo) b->wlo = a;
            if (e > b->whi) b->whi = e;
            set_bit(b->page, page_hash(a >> 12));
            if ((e >> 12) != (a >> 12)) set_bit(b->page, page_hash(e >> 12));
        }
    }
    /* Read to the end: every block is complete.  After damage, the blocks from the
     * damaged one on stay unsummarised (searched the slow way, which reports it). */
    if (err == VX_ERR_END) {
        save(ix); /* first, so that "all ready" also means "saved" */
        atomic_store_explicit(&ix->ready, ix->nblocks, memory_order_release);
    }
out:
    vx_trace_reader_free(r);
    return NULL;
}

vx_index *vx_index_start(const char *path, uint64_t nissues, uint32_t warps_per_core,
                         const char *save_path)
{
    vx_index *ix = calloc(1, sizeof *ix);
    if (!ix) return NULL;
    ix->path = strdup(path);
    ix->save_path = save_path ? strdup(save_path) : NULL;
    ix->nissues = nissues;
    ix->nblocks = (nissues + VX_INDEX_BLOCK - 1) >> VX_INDEX_BLOCK_SHIFT;
    ix->W = warps_per_core ? warps_per_core : 1;
    ix->b = calloc(ix->nblocks ? ix->nblocks : 1, sizeof *ix->b);
    if (!ix->path || !ix->b) {
        vx_index_free(ix);
        return NULL;
    }
    for (uint64_t i = 0; i < ix->nblocks; i++) {
        ix->b[i].wlo = UINT32_MAX;
        ix->b[i].whi = 0;
    }
    atomic_init(&ix->ready, 0);
    atomic_init(&ix->stop, false);
    ix->have_id = trace_id(ix);
    if (load_saved(ix)) {
        atomic_store(&ix->ready, ix->nblocks);
        return ix;
    }
    for (uint64_t i = 0; i < ix->nblocks; i++) { /* a failed load may have filled some */
        memset(&ix->b[i], 0, sizeof ix->b[i]);
        ix->b[i].wlo = UINT32_MAX;
    }
    if (pthread_create(&ix->th, NULL, summarise, ix) == 0) ix->started = true;
    return ix;
}

void vx_index_free(vx_index *ix)
{
    if (!ix) return;
    if (ix->started) {
        atomic_store(&ix->stop, true);
        pthread_join(ix->th, NULL);
    }
    free(ix->b);
    free(ix->path);
    free(ix->save_path);
    free(ix);
}

uint64_t vx_index_ready(const vx_index *ix)
{
    return ix ? atomic_load_explicit(&((vx_index *)ix)->ready, memory_order_acquire) : 0;
}

bool vx_index_may_pc(const vx_index *ix, uint64_t b, uint32_t pc)
{
    return get_bit(ix->b[b].pc, pc_hash(pc));
}

bool vx_index_may_write(const vx_index *ix, uint64_t b, uint32_t addr, uint32_t len)
{
    const block *k = &ix->b[b];
    if (k->wlo > k->whi || len == 0) return false;
    uint64_t end = (uint64_t)addr + len - 1;
    if (end < k->wlo || addr > k->whi) return false;
    uint64_t p0 = addr >> 12, p1 = end >> 12;
    if (p1 - p0 >= PAGE_BITS) return true;
    for (uint64_t p = p0; p <= p1; p++)
        if (get_bit(k->page, page_hash((uint32_t)p))) return true;
    return false;
}

bool vx_index_may_warp(const vx_index *ix, uint64_t b, uint32_t gwarp)
{
    return (ix->b[b].warps >> (gwarp & 63)) & 1;
}
