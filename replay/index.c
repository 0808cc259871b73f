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
#include <stdlib.h>
#include <string.h>

#include "vx_trace.h"

#define PC_BITS   2048u /* Bloom filter bits for PCs, per block */
#define PAGE_BITS 256u  /* for written pages */

typedef struct block {
    uint64_t pc[PC_BITS / 64];
    uint64_t page[PAGE_BITS / 64];
    uint64_t warps;    /* bit gwarp % 64 */
    uint32_t wlo, whi; /* written bytes lie in [wlo, whi]; wlo > whi: none */
} block;

struct vx_index {
    char *path;
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

static void *summarise(void *arg)
{
    vx_index *ix = arg;
    vx_trace_reader *r = NULL;
    if (vx_trace_reader_new(&r) != VX_OK || vx_trace_reader_open(r, ix->path) != VX_OK) goto out;
    uint64_t cur = 0; /* block being filled */
    const vx_event *ev;
    uint64_t n = 0;
    while (vx_trace_reader_next(r, &ev) == VX_OK) {
        if ((++n & 4095) == 0 && atomic_load_explicit(&ix->stop, memory_order_relaxed)) goto out;
        if (ev->kind != VX_EV_ISSUE) continue;
        uint64_t bi = ev->index >> VX_INDEX_BLOCK_SHIFT;
        if (bi >= ix->nblocks) break;
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
    /* the whole stream was read: every block is complete */
    atomic_store_explicit(&ix->ready, ix->nblocks, memory_order_release);
out:
    vx_trace_reader_free(r);
    return NULL;
}

vx_index *vx_index_start(const char *path, uint64_t nissues, uint32_t warps_per_core)
{
    vx_index *ix = calloc(1, sizeof *ix);
    if (!ix) return NULL;
    ix->path = strdup(path);
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
