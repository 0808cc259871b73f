/*
 * race.c - data races between warps (race.h): vector clocks and a shadow of every
 * byte of memory the run touched.
 *
 * Each warp g has a vector clock vc[g] (one word per warp of the platform); its own
 * entry is its epoch, which moves on at every release (barrier arrival, wspawn,
 * end, atomic release).  An access is stamped with (warp, epoch); an earlier access
 * a is ordered before one of warp g when a is g's own or vc[g][a.warp] >= a.epoch.
 * Per byte: the last write, and the last reads not ordered before one another (one
 * inline, more in a read set).  A write clears the reads (those that race with it
 * are reported; a later access that races with one of them races with the write
 * too, or is ordered after both).  A read drops those of the set ordered before it;
 * it looks only at the reads made up to its warp's last acquire (no later one can be
 * ordered before it), so that many warps reading the same data between two barriers
 * cost a few steps a read, not one per warp (read_keep).
 *
 * The shadow is kept per 4-byte word while the word's bytes have the same history
 * (word accesses, the common case: 48 bytes a word), and per byte once an access
 * takes part of it (the word is split: its bytes get a group of four entries of their
 * own); a write of the whole word makes it whole again.  The reports are those a
 * per-byte shadow gives, byte for byte.
 */
#include <stdlib.h>
#include <string.h>

#include "race.h"
#include "vx_isa.h"
#include "vx_sim.h"

#define PAGE_BITS 12u
#define PAGE_SIZE (1u << PAGE_BITS)

/* An access: its event, pc, warp and lane, and the warp's epoch then. */
typedef struct acc {
    uint32_t pc, epoch;
    uint64_t index : 44, gw : 12, lane : 7, set : 1; /* (VXR_MAX_WARPS <= 4096) */
} acc;

/* One byte of a split word. */
typedef struct sbyte {
    acc w, r;
    uint32_t rs; /* read set + 1, or 0 (then r is the only read to keep) */
    uint8_t val; /* the byte w wrote, for VXR_LANES */
} sbyte;

/* A word: while whole, w, r, rs and wval stand for each of its bytes. */
typedef struct sword {
    acc w, r;
    uint32_t rs;     /* as sbyte's */
    uint32_t bytes;  /* 0: whole; else split: its bytes are group bytes - 1 */
    uint8_t wval[4]; /* the bytes w wrote */
    uint8_t sync;    /* a synchronisation word (w, r, rs unused) */
} sword;

#define WORDS_PER_PAGE (PAGE_SIZE / 4u)

/* A read set of up to this many reads is looked through whole at each read (cheap
 * enough; it keeps no dead reads, so it takes no more room than it must).  (A test can
 * make it 1, to put almost every set through read_keep's other way.) */
#ifndef RSET_SMALL
#define RSET_SMALL 32u
#endif

/*
 * A read set: its reads in the order they were kept, oldest first (so their event
 * indices never go down), in a ring: the k-th of them (k < len) is RS_AT(s, k).  A
 * warp's newer read stands for its older ones: an older one still in the ring (one that
 * was not at hand to remove) is dead, and goes when the ring is full.  The first chk
 * were looked at against the clock of the warp whose last acquire is number sgen
 * (read_keep): none of them is ordered before that clock or that warp's.
 */
typedef struct rset {
    acc *a;
    uint64_t sgen;
    uint16_t head, len, cap, chk; /* (cap <= 8192: see rset_put) */
} rset;

#define RS_AT(s, k) ((s)->a[((s)->head + (k)) & ((s)->cap - 1u)])

/*
 * A map from a 64-bit key to an object (open addressing, capacity a power of two, at
 * most half full): the shadow pages (key: space << 20 | address >> 12) and the
 * synchronisation objects' clocks (a barrier, a core's spawn or its ended warps, an
 * atomic word: SY_* below), both allocated for their key; the reports (key: RK_KEY).
 */
typedef struct kslot {
    uint64_t key; /* the key + 1; 0: an empty slot */
    void *obj;
} kslot;

typedef struct kmap {
    kslot *s;
    size_t n, cap;
} kmap;

/* A pool of items numbered from 0, with a free list of those given back (the read
 * sets, the byte groups of split words). */
typedef struct pool {
    void *items;
    uint32_t *free;
    uint32_t n, cap, nfree; /* items made, room for, given back */
    size_t size;            /* bytes an item */
} pool;

struct vxr {
    uint32_t G, nw;  /* warps in all, per core */
    uint32_t *vc;    /* G x G */
    kmap pages;      /* shadow pages: sword[WORDS_PER_PAGE] */
    kmap sy;         /* synchronisation objects: their clocks, uint32_t[G] */
    pool rsets;      /* read sets: rset */
    pool groups;     /* the bytes of split words: sbyte[4] */
    vxr_race *races; /* VXR_MAX_REPORTS of them */
    size_t nraces;
    kmap rk; /* the reports by kind and pair of PCs: their races[] entry */
    uint64_t total;
    size_t mem;
    vx_err err;
    uint64_t *released; /* barriers released by the event being read */
    size_t nreleased, relcap;
    /* per warp: a release fence since its last write to a synchronisation variable
     * (that write releases); whether it has read a synchronisation word, and the
     * word's clock at its last such read (made at its first), which an acquire fence
     * acquires: what that read can have seen, not the releases made since */
    uint8_t *relfence;
    uint64_t *lastrd;
    uint32_t **rdvc;
    /* per warp: a release fence is its last memory instruction so far: a store now is
     * a release store (RVWMO's mapping, table A.6, GCC 13's and later and LLVM's:
     * fence rw,w; sw) */
    uint8_t *fresh;
    /* per warp: the event of its clock's last acquire (its clock took something from
     * another warp's: nothing read after that event can be ordered before its reads),
     * and that acquire's number (acquires are numbered from 1 in the order made) */
    uint64_t *acq, *acqgen;
    uint64_t nacq;
    uint64_t next;   /* the last issue's index + 1 (0: none yet) */
    uint8_t unorder; /* the issues' indices did not always go up: acq is no guide */
    /* read set compaction: mark[g] == markgen: warp g has a later read in the set */
    uint32_t *mark, markgen;
};

#define RSET(r, i)  ((rset *)(r)->rsets.items + (i))
#define GROUP(r, i) ((sbyte *)(r)->groups.items + 4 * (size_t)(i)) /* its 4 bytes */

#define SY_BAR(global, core, id) \
    ((uint64_t)1 << 60 | (uint64_t)((global) ? 0xFFFFFu : (core)) << 32 | (id))
#define SY_SPAWN(core)       ((uint64_t)2 << 60 | (core))
#define SY_ENDED(core)       ((uint64_t)3 << 60 | (core))
#define SY_WORD(space, addr) ((uint64_t)4 << 60 | (uint64_t)(space) << 32 | (addr))

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    return x;
}

vx_err vxr_new(vxr **out, uint32_t cores, uint32_t warps_per_core)
{
    *out = NULL;
    const uint64_t G = (uint64_t)cores * warps_per_core;
    if (G == 0 || G > VXR_MAX_WARPS) return VX_ERR_LIMIT;
    vxr *r = calloc(1, sizeof *r);
    if (!r) return VX_ERR_NOMEM;
    r->G = (uint32_t)G;
    r->nw = warps_per_core;
    r->vc = calloc(G * G, sizeof *r->vc);
    r->pages = (kmap){calloc(1024, sizeof(kslot)), 0, 1024};
    r->sy = (kmap){calloc(64, sizeof(kslot)), 0, 64};
    r->rk = (kmap){calloc(256, sizeof(kslot)), 0, 256};
    r->races = calloc(VXR_MAX_REPORTS, sizeof *r->races);
    r->rsets.size = sizeof(rset);
    r->groups.size = 4 * sizeof(sbyte);
    r->relfence = calloc(G, 1);
    r->lastrd = calloc(G, sizeof *r->lastrd);
    r->rdvc = calloc(G, sizeof *r->rdvc);
    r->fresh = calloc(G, 1);
    r->acq = calloc(G, sizeof *r->acq);
    r->acqgen = calloc(G, sizeof *r->acqgen);
    r->mark = calloc(G, sizeof *r->mark);
    if (!r->vc || !r->pages.s || !r->sy.s || !r->rk.s || !r->races || !r->relfence || !r->lastrd ||
        !r->rdvc || !r->fresh || !r->acq || !r->acqgen || !r->mark) {
        vxr_free(r);
        return VX_ERR_NOMEM;
    }
    for (uint32_t g = 0; g < G; g++) {
        r->vc[(size_t)g * G + g] = 1;
        r->acqgen[g] = ++r->nacq;
    }
    r->mem = G * G * sizeof *r->vc + G * (2 * sizeof *r->acq + sizeof *r->mark);
    *out = r;
    return VX_OK;
}

void vxr_free(vxr *r)
{
    if (!r) return;
    for (size_t i = 0; r->pages.s && i < r->pages.cap; i++)
        free(r->pages.s[i].obj);
    for (size_t i = 0; r->sy.s && i < r->sy.cap; i++)
        free(r->sy.s[i].obj);
    for (uint32_t i = 0; i < r->rsets.n; i++)
        free(RSET(r, i)->a);
    free(r->pages.s);
    free(r->sy.s);
    free(r->rk.s); /* (its objects are races[] entries) */
    free(r->rsets.items);
    free(r->rsets.free);
    free(r->groups.items);
    free(r->groups.free);
    free(r->races);
    free(r->released);
    free(r->relfence);
    free(r->lastrd);
    if (r->rdvc)
        for (uint32_t g = 0; g < r->G; g++)
            free(r->rdvc[g]);
    free(r->rdvc);
    free(r->fresh);
    free(r->acq);
    free(r->acqgen);
    free(r->mark);
    free(r->vc);
    free(r);
}

const vxr_race *vxr_races(const vxr *r, size_t *n)
{
    *n = r->nraces;
    return r->races;
}

uint64_t vxr_total(const vxr *r)
{
    return r->total;
}

size_t vxr_memory(const vxr *r)
{
    return r->mem;
}

static vx_err fail(vxr *r)
{
    r->err = VX_ERR_NOMEM;
    return r->err;
}

/* ---- clocks ------------------------------------------------------------------------- */

static uint32_t *vc_of(vxr *r, uint32_t g)
{
    return r->vc + (size_t)g * r->G;
}

/* dst takes src: true when it changed. */
static bool join(uint32_t *dst, const uint32_t *src, uint32_t G)
{
    uint32_t more = 0;
    for (uint32_t i = 0; i < G; i++) {
        const uint32_t d = dst[i], s = src[i];
        more |= s > d;
        dst[i] = s > d ? s : d;
    }
    return more;
}

/* Warp g's clock took something from another warp's (an acquire, the Debug Module's
 * reset): reads made before can now be ordered before g's (see read_keep). */
static void acquired(vxr *r, uint32_t g)
{
    r->acq[g] = r->next ? r->next - 1 : 0;
    r->acqgen[g] = ++r->nacq;
}

/* The slot of key in m: its own, or the empty one where it would go. */
static kslot *kmap_slot(const kmap *m, uint64_t key)
{
    key++;
    size_t j = mix(key) & (m->cap - 1);
    while (m->s[j].key && m->s[j].key != key)
        j = (j + 1) & (m->cap - 1);
    return &m->s[j];
}

/* A new key's slot in m (the map grown first when it would be over half full), its
 * object to be set; NULL: no memory. */
static kslot *kmap_insert(kmap *m, uint64_t key)
{
    if (2 * (m->n + 1) > m->cap) {
        const kmap old = *m;
        kslot *t = calloc(2 * old.cap, sizeof *t);
        if (!t) return NULL;
        *m = (kmap){t, old.n, 2 * old.cap};
        for (size_t i = 0; i < old.cap; i++)
            if (old.s[i].key) *kmap_slot(m, old.s[i].key - 1) = old.s[i];
        free(old.s);
    }
    kslot *sl = kmap_slot(m, key);
    sl->key = key + 1;
    m->n++;
    return sl;
}

/* The object of key in m, made (size bytes, zeroed) when there is none; NULL: no
 * memory. */
static void *kmap_get(vxr *r, kmap *m, uint64_t key, size_t size)
{
    kslot *sl = kmap_slot(m, key);
    if (sl->key) return sl->obj;
    void *obj = calloc(1, size);
    if (!obj || !(sl = kmap_insert(m, key))) {
        free(obj);
        return NULL;
    }
    sl->obj = obj;
    r->mem += size;
    return obj;
}

/* The clock of a synchronisation object (created zero); NULL: no memory. */
static uint32_t *sync_vc(vxr *r, uint64_t key)
{
    return kmap_get(r, &r->sy, key, r->G * sizeof(uint32_t));
}

/* Warp g releases into object key: key's clock takes g's, g moves to a new epoch. */
static vx_err release(vxr *r, uint32_t g, uint64_t key)
{
    uint32_t *s = sync_vc(r, key);
    if (!s) return fail(r);
    join(s, vc_of(r, g), r->G);
    vc_of(r, g)[g]++;
    return VX_OK;
}

/* Warp g acquires object key: g's clock takes key's. */
static vx_err acquire(vxr *r, uint32_t g, uint64_t key)
{
    uint32_t *s = sync_vc(r, key);
    if (!s) return fail(r);
    if (join(vc_of(r, g), s, r->G)) acquired(r, g);
    return VX_OK;
}

/* ---- shadow memory ------------------------------------------------------------------ */

static sword *shadow_page(vxr *r, uint32_t space, uint32_t addr)
{
    return kmap_get(r, &r->pages, (uint64_t)space << 20 | addr >> PAGE_BITS,
                    WORDS_PER_PAGE * sizeof(sword));
}

/* An item of p: one given back, or a new one (the pool grown by doubling, from
 * first); false: no memory. */
static bool pool_take(vxr *r, pool *p, uint32_t first, uint32_t *id)
{
    if (p->nfree) {
        *id = p->free[--p->nfree];
        return true;
    }
    if (p->n == p->cap) {
        const uint32_t cap = p->cap ? 2 * p->cap : first;
        void *t = realloc(p->items, cap * p->size);
        if (!t) return false;
        p->items = t;
        uint32_t *f = realloc(p->free, cap * sizeof *f);
        if (!f) return false;
        p->free = f;
        r->mem += (cap - p->cap) * p->size;
        p->cap = cap;
    }
    *id = p->n++;
    memset((uint8_t *)p->items + (size_t)*id * p->size, 0, p->size);
    return true;
}

static void pool_give(pool *p, uint32_t id)
{
    p->free[p->nfree++] = id;
}

/* An empty read set (its array kept from an earlier use); NULL: no memory. */
static rset *rset_new(vxr *r, uint32_t *id)
{
    if (!pool_take(r, &r->rsets, 64, id)) return NULL;
    rset *s = RSET(r, *id);
    s->head = s->len = s->chk = 0;
    s->sgen = 0;
    return s;
}

/* s without its dead reads (and those of next's warp, when next is the read to be put
 * next); O(reads in the ring). */
static void rset_compact(vxr *r, rset *s, const acc *next)
{
    if (++r->markgen == 0) {
        memset(r->mark, 0, r->G * sizeof *r->mark);
        r->markgen = 1;
    }
    const uint32_t m = r->markgen;
    if (next) r->mark[next->gw] = m;
    uint32_t k = s->len; /* the newest first, packed towards the newest */
    for (uint32_t i = s->len; i-- > 0;) {
        const acc x = RS_AT(s, i);
        if (r->mark[x.gw] == m) continue; /* (the warp has a newer one) */
        r->mark[x.gw] = m;
        RS_AT(s, --k) = x;
    }
    s->head = (uint16_t)((s->head + k) & (s->cap - 1u));
    s->len = (uint16_t)(s->len - k);
    s->sgen = 0;
}

/*
 * a put at the end of s (a read newer than all in it, or a copy of a set's reads in
 * their order, of warps all different); false: no memory.  When the ring is full its
 * dead reads go first, and it doubles when they leave less than a quarter of it free
 * (each compaction then pays for a quarter of the ring's puts at least).  The reads
 * kept are of different warps, a's not among them: at most VXR_MAX_WARPS - 1, so the
 * ring doubles at 4096 reads at most and holds 8192 at most.
 */
static bool rset_put(vxr *r, rset *s, const acc *a)
{
    if (s->len == s->cap) {
        if (s->cap) rset_compact(r, s, a);
        if (!s->cap || 4u * (s->len + 1u) > 3u * s->cap) {
            const uint32_t cap = s->cap ? 2u * s->cap : 4u;
            acc *t = realloc(s->a, cap * sizeof *t);
            if (!t) return false;
            r->mem += (cap - s->cap) * sizeof *t;
            /* the ring's part past the old end follows it now */
            const uint32_t wrap = s->head + s->len > s->cap ? s->head + s->len - s->cap : 0;
            memcpy(t + s->cap, t, wrap * sizeof *t);
            s->a = t;
            s->cap = (uint16_t)cap;
        }
    }
    RS_AT(s, s->len) = *a;
    s->len++;
    return true;
}

/* ---- reports ------------------------------------------------------------------------- */

static void report(vxr *r, unsigned kind, uint32_t space, uint32_t addr, const acc *prev,
                   const acc *cur, bool prev_write, bool cur_write)
{
    r->total++;
    /* (PCs are multiples of 4: RV32 without C) */
    const uint64_t key =
        (uint64_t)kind << 60 | (uint64_t)(prev->pc >> 2) << 30 | (uint64_t)(cur->pc >> 2);
    kslot *sl = kmap_slot(&r->rk, key);
    if (sl->key) {
        vxr_race *x = sl->obj;
        x->count++;
        /* the next byte of the same pair of accesses: the conflict is one longer */
        if (x->prev.index == prev->index && x->prev.lane == prev->lane &&
            x->cur.index == cur->index && x->cur.lane == cur->lane && x->space == space &&
            addr == x->addr + x->len)
            x->len++;
        return;
    }
    if (r->nraces >= VXR_MAX_REPORTS) return;
    if (!(sl = kmap_insert(&r->rk, key))) {
        fail(r);
        return;
    }
    vxr_race *x = &r->races[r->nraces++];
    *x = (vxr_race){.kind = (uint8_t)kind, .space = space, .addr = addr, .len = 1, .count = 1};
    x->prev = (vxr_access){prev->index, prev->gw, prev->pc, prev->lane, prev_write};
    x->cur = (vxr_access){cur->index, cur->gw, cur->pc, cur->lane, cur_write};
    sl->obj = x;
}

/* ---- accesses ------------------------------------------------------------------------ */

static bool ordered(const acc *a, uint32_t g, const uint32_t *vcg)
{
    return a->gw == g || vcg[a->gw] >= a->epoch;
}

static void rset_free(vxr *r, uint32_t *rs)
{
    if (*rs) pool_give(&r->rsets, *rs - 1);
    *rs = 0;
}

/*
 * The reads of a byte or a word (r, *rs; n bytes from addr) when warp g (clock vcg)
 * writes it, stamped cur: each one not ordered before the write is a read-then-write
 * race (each with its own pair of instructions); the reads are then forgotten.
 */
static void reads_before_write(vxr *r, acc *rd, uint32_t *rs, uint32_t g, const uint32_t *vcg,
                               uint32_t space, uint32_t addr, uint32_t n, const acc *cur)
{
    if (*rs) {
        rset *st = RSET(r, *rs - 1);
        rset_compact(r, st, NULL);
        for (uint32_t i = 0; i < st->len; i++)
            if (!ordered(&RS_AT(st, i), g, vcg))
                for (uint32_t k = 0; k < n; k++)
                    report(r, VXR_RW, space, addr + k, &RS_AT(st, i), cur, false, true);
        rset_free(r, rs);
    } else if (rd->set && !ordered(rd, g, vcg)) {
        for (uint32_t k = 0; k < n; k++)
            report(r, VXR_RW, space, addr + k, rd, cur, false, true);
    }
    rd->set = 0;
}

/* A read of a byte or a word (r, *rs) by warp g stamped cur: kept with the others
 * that nothing orders before it. */
static vx_err read_keep(vxr *r, acc *rd, uint32_t *rs, uint32_t g, const uint32_t *vcg,
                        const acc *cur)
{
    if (*rs) {
        /*
         * Keep one read per warp, and only those not ordered before this one.  A read
         * of another warp is ordered before g's only if g's clock took its epoch,
         * which that warp released after the read: g acquired after it.  So only the
         * reads of events up to g's last acquire need a look (the first ones: the
         * indices never go down), and not the first chk when they were looked at
         * against g's clock as it is.  (A small set is looked through whole: then no
         * read of g's is left to be dead.)  Those that are ordered go; g's own read
         * further on is dead once this one is put, or replaced by it when it is the
         * last one.
         */
        rset *st = RSET(r, *rs - 1);
        const uint64_t gen = r->acqgen[g];
        const uint32_t from = st->sgen == gen ? st->chk : 0;
        uint32_t p = st->len, k, gone;
        if (!r->unorder && st->len > RSET_SMALL)
            for (p = from; p < st->len && RS_AT(st, p).index <= r->acq[g];)
                p++;
        const bool all = p == st->len;
        if (all) { /* all looked at: those that stay move down over those that go */
            k = from;
            if (st->head + p <= st->cap) {
                acc *a = st->a + st->head;
                for (uint32_t i = from; i < p; i++)
                    if (!ordered(&a[i], g, vcg)) a[k++] = a[i];
            } else {
                for (uint32_t i = from; i < p; i++)
                    if (!ordered(&RS_AT(st, i), g, vcg)) RS_AT(st, k++) = RS_AT(st, i);
            }
            gone = p - k;
        } else { /* the first ones: those that stay are packed up to p, and the first
                  * from (looked at before) move up after them */
            for (k = p; k > from && !ordered(&RS_AT(st, k - 1u), g, vcg);)
                k--;
            if (k > from) /* the one before k goes */
                for (uint32_t i = k - 1u; i-- > from;)
                    if (!ordered(&RS_AT(st, i), g, vcg)) RS_AT(st, --k) = RS_AT(st, i);
            gone = k - from;
            for (uint32_t i = from; gone && i-- > 0;)
                RS_AT(st, i + gone) = RS_AT(st, i);
            st->head = (uint16_t)((st->head + gone) & (st->cap - 1u));
        }
        st->len = (uint16_t)(st->len - gone);
        st->sgen = gen;
        st->chk = (uint16_t)(p - gone);
        if (!all && RS_AT(st, st->len - 1u).gw == g) /* (none of g's is left when all) */
            RS_AT(st, st->len - 1u) = *cur;
        else if (!rset_put(r, st, cur))
            return fail(r);
    } else if (!rd->set || ordered(rd, g, vcg)) {
        *rd = *cur;
    } else { /* two reads that nothing orders: both are kept */
        uint32_t id;
        rset *st = rset_new(r, &id);
        if (!st || !rset_put(r, st, rd) || !rset_put(r, st, cur)) return fail(r);
        *rs = id + 1;
        rd->set = 0;
    }
    return VX_OK;
}

/* One byte of a plain access by warp g (its clock vcg) stamped cur, writing val. */
static vx_err byte_plain(vxr *r, sbyte *b, uint32_t space, uint32_t addr, uint32_t g,
                         const uint32_t *vcg, const acc *cur, bool write, uint8_t val)
{
    if (write) {
        if (b->w.set && !ordered(&b->w, g, vcg))
            report(r, VXR_WW, space, addr, &b->w, cur, true, true);
        else if (b->w.set && b->w.index == cur->index && b->w.gw == g && b->val != val)
            report(r, VXR_LANES, space, addr, &b->w, cur, true, true);
        reads_before_write(r, &b->r, &b->rs, g, vcg, space, addr, 1, cur);
        b->w = *cur;
        b->val = val;
        return r->err;
    }
    if (b->w.set && !ordered(&b->w, g, vcg))
        report(r, VXR_WR, space, addr, &b->w, cur, true, false);
    (void)read_keep(r, &b->r, &b->rs, g, vcg, cur);
    return r->err;
}

/* The same for a whole word that is whole: what byte_plain does to each of its bytes
 * (whose histories are the same), the reports byte by byte. */
static vx_err word_plain(vxr *r, sword *w, uint32_t space, uint32_t addr, uint32_t g,
                         const uint32_t *vcg, const acc *cur, bool write, const uint8_t *val)
{
    if (write) {
        const bool ww = w->w.set && !ordered(&w->w, g, vcg);
        const bool lanes = !ww && w->w.set && w->w.index == cur->index && w->w.gw == g;
        for (uint32_t i = 0; i < 4; i++) {
            if (ww)
                report(r, VXR_WW, space, addr + i, &w->w, cur, true, true);
            else if (lanes && w->wval[i] != val[i])
                report(r, VXR_LANES, space, addr + i, &w->w, cur, true, true);
        }
        reads_before_write(r, &w->r, &w->rs, g, vcg, space, addr, 4, cur);
        w->w = *cur;
        memcpy(w->wval, val, 4);
        return r->err;
    }
    if (w->w.set && !ordered(&w->w, g, vcg))
        for (uint32_t i = 0; i < 4; i++)
            report(r, VXR_WR, space, addr + i, &w->w, cur, true, false);
    (void)read_keep(r, &w->r, &w->rs, g, vcg, cur);
    return r->err;
}

/* Split a whole word: each byte gets the word's history (a read set of its own). */
static vx_err word_split(vxr *r, sword *w)
{
    uint32_t id;
    if (!pool_take(r, &r->groups, 256, &id)) return fail(r);
    for (uint32_t i = 0; i < 4; i++) {
        sbyte *b = &GROUP(r, id)[i];
        *b = (sbyte){.w = w->w, .r = w->r, .val = w->wval[i]};
        if (!w->rs) continue;
        if (i == 3) { /* the last byte takes the word's set, the others copies */
            b->rs = w->rs;
            continue;
        }
        uint32_t c;
        if (i == 0) rset_compact(r, RSET(r, w->rs - 1), NULL);
        rset *st = rset_new(r, &c);
        if (!st) return fail(r);
        /* (indexed after rset_new, which may move the sets) */
        for (uint32_t k = 0; k < RSET(r, w->rs - 1)->len; k++)
            if (!rset_put(r, RSET(r, c), &RS_AT(RSET(r, w->rs - 1), k))) return fail(r);
        b->rs = c + 1;
    }
    w->bytes = id + 1;
    w->rs = 0;
    w->w.set = w->r.set = 0;
    return VX_OK;
}

/* A split word whose four bytes were all just written by the same access: whole again. */
static void word_join(vxr *r, sword *w, const acc *cur)
{
    const uint32_t id = w->bytes - 1;
    for (uint32_t i = 0; i < 4; i++) {
        sbyte *b = &GROUP(r, id)[i];
        w->wval[i] = b->val;
        rset_free(r, &b->rs);
    }
    w->w = *cur;
    w->r.set = 0;
    w->rs = 0;
    w->bytes = 0;
    pool_give(&r->groups, id);
}

static uint32_t space_of(const vx_event *ev, uint32_t addr)
{
    return vx_addr_in_lmem(addr) ? 1 + ev->core : 0;
}

/* The word at addr (a multiple of 4) of space; NULL: no memory. */
static sword *word_at(vxr *r, uint32_t space, uint32_t addr)
{
    sword *p = shadow_page(r, space, addr);
    return p ? &p[(addr & (PAGE_SIZE - 1)) / 4] : NULL;
}

/* The first atomic on a word: the bytes it takes checked against the unordered plain
 * stores before them (not plain loads, which may be atomic loads: GCC's and LLVM's
 * are lw); the word is a synchronisation word from now on.  lanes[i]: the lane that
 * takes byte i (an AMO or LR/SC: one lane, all four; a release store: the lowest of
 * its lanes that write the byte), or 0xFF: none. */
static void word_to_sync(vxr *r, sword *w, uint32_t space, uint32_t waddr, uint32_t g,
                         const uint32_t *vcg, const acc *cur, bool rmw, const uint8_t *lanes)
{
    const unsigned kind = rmw ? VXR_WW : VXR_WR;
    acc c = *cur;
    for (uint32_t i = 0; i < 4; i++) {
        const acc *pw = w->bytes ? &GROUP(r, w->bytes - 1)[i].w : &w->w;
        if (lanes[i] == 0xFF || !pw->set || ordered(pw, g, vcg)) continue;
        c.lane = lanes[i] & 0x7Fu;
        report(r, kind, space, waddr + i, pw, &c, true, rmw);
    }
    if (w->bytes) {
        const uint32_t id = w->bytes - 1;
        for (uint32_t i = 0; i < 4; i++)
            rset_free(r, &GROUP(r, id)[i].rs);
        pool_give(&r->groups, id);
        w->bytes = 0;
    } else {
        rset_free(r, &w->rs);
    }
    w->w.set = w->r.set = 0;
    w->sync = 1;
}

/*
 * size bytes at addr of lane `lane` of the issue ev by warp g; atomic: an AMO or
 * LR/SC (aq, rl its bits); value: the bytes written (write).
 */
static vx_err access(vxr *r, const vx_event *ev, uint32_t g, uint32_t addr, uint32_t size,
                     uint8_t lane, bool write, uint32_t value, bool atomic, bool aq, bool rl)
{
    /* the I/O window (console, exit status: device registers, which the runtime's
     * _exit writes from every core on purpose) */
    if (addr < VX_USER_BASE_ADDR) return VX_OK;
    const bool relst = write && !atomic && r->fresh[g]; /* fence rw,w; sw: a release store */
    if (relst) atomic = rl = true;
    const uint32_t space = space_of(ev, addr);
    uint32_t *vcg = vc_of(r, g);
    const uint32_t waddr = addr & ~3u;
    const uint64_t word = SY_WORD(space, waddr);
    sword *w = word_at(r, space, waddr);
    if (!w) return fail(r);
    const acc cur = {.pc = ev->pc,
                     .epoch = vcg[g],
                     .index = ev->index,
                     .gw = g & 0xFFFu,
                     .lane = lane & 0x7Fu,
                     .set = 1};
    if (atomic || w->sync) {
        /* a synchronisation word: an AMO or LR with aq acquires; any other read
         * acquires at the warp's next acquire fence (lw; fence r,rw: an acquire load);
         * a write releases with rl or after a release fence (see vxr_event) */
        if (!write) { /* what this read can have seen: the word's releases so far */
            const uint32_t *s = sync_vc(r, word);
            if (!s) return fail(r);
            if (!r->rdvc[g]) {
                if (!(r->rdvc[g] = malloc(r->G * sizeof(uint32_t)))) return fail(r);
                r->mem += r->G * sizeof(uint32_t);
            }
            memcpy(r->rdvc[g], s, r->G * sizeof(uint32_t));
            r->lastrd[g] = word + 1;
        }
        if (atomic && aq && !write)
            if (acquire(r, g, word)) return r->err;
        if (atomic && !w->sync) {
            bool rmw = write;
            for (uint32_t i = 0; !rmw && i < ev->nmem; i++)
                rmw = ev->mem[i].lane == lane && ev->mem[i].addr == addr;
            uint8_t lanes[4] = {lane, lane, lane, lane};
            if (relst) { /* the bytes of this word that the store's lanes write */
                memset(lanes, 0xFF, sizeof lanes);
                for (uint32_t i = ev->nmem; i-- > 0;) /* (ascending lanes: the lowest last) */
                    for (uint32_t k = 0; k < ev->mem[i].size; k++)
                        if (((ev->mem[i].addr + k) & ~3u) == waddr)
                            lanes[(ev->mem[i].addr + k) & 3u] = ev->mem[i].lane;
            }
            word_to_sync(r, w, space, waddr, g, vcg, &cur, rmw, lanes);
        }
        if (write && (rl || r->relfence[g])) {
            r->relfence[g] = 0;
            if (release(r, g, word)) return r->err;
        }
        /* a plain misaligned access (a release store too) that goes on into the next
         * word: that part below (the loop passes over this word, a synchronisation
         * word) */
        if ((atomic && !relst) || addr + size <= waddr + 4 || r->err) return r->err;
    }
    /* word by word (a misaligned access may take two), byte by byte in split words */
    for (uint32_t a = addr, end = addr + size; a < end;) {
        const uint32_t wa = a & ~3u, hi = end - wa < 4 ? end - wa : 4, lo = a - wa;
        if (wa != waddr && !(w = word_at(r, space, wa))) return fail(r);
        if (w->sync) { /* (a misaligned access that reaches into one: that part) */
            a = wa + hi;
            continue;
        }
        uint8_t val[4] = {0, 0, 0, 0};
        for (uint32_t i = lo; i < hi; i++)
            val[i] = (uint8_t)(value >> (8 * ((wa + i - addr) & 3)));
        if (lo == 0 && hi == 4 && !w->bytes) {
            if (word_plain(r, w, space, wa, g, vcg, &cur, write, val)) return r->err;
        } else {
            if (!w->bytes && word_split(r, w)) return r->err;
            sbyte *b = GROUP(r, w->bytes - 1);
            for (uint32_t i = lo; i < hi; i++)
                if (byte_plain(r, &b[i], space, wa + i, g, vcg, &cur, write, val[i])) return r->err;
            if (write && lo == 0 && hi == 4) word_join(r, w, &cur);
        }
        a = wa + hi;
    }
    return VX_OK;
}

/* ---- warp control ------------------------------------------------------------------- */

/* A global barrier is released once every active warp of each core taking part arrived
 * (sim/exec.c, gbar_check): a warp of such a core that ended, before or in this event
 * (its end can be what completes the barrier), is ordered before the release.  The
 * cores taking part are those of the warps the event releases from it. */
static vx_err gbar_ended(vxr *r, const vx_event *ev, uint32_t from, uint64_t key)
{
    uint32_t *s = sync_vc(r, key);
    if (!s) return fail(r);
    for (uint32_t j = from; j < ev->nwctl; j++) {
        const vx_wctl *w = &ev->wctl[j];
        if (w->kind != VX_WCTL_BAR_RELEASE || w->arg != ev->wctl[from].arg) continue;
        const uint32_t *e = sync_vc(r, SY_ENDED(w->core));
        if (!e) return fail(r);
        join(s, e, r->G);
    }
    return VX_OK;
}

static vx_err wctl(vxr *r, const vx_event *ev, uint32_t i)
{
    const vx_wctl *w = &ev->wctl[i];
    const uint32_t g = w->core * r->nw + w->warp;
    if (g >= r->G) return VX_OK;
    switch (w->kind) {
    case VX_WCTL_BAR_ARRIVE: {
        const bool global = w->arg >> 31;
        return release(r, g, SY_BAR(global, w->core, w->arg));
    }
    case VX_WCTL_BAR_RELEASE: {
        const bool global = w->arg >> 31;
        const uint64_t key = SY_BAR(global, w->core, w->arg);
        bool first = true; /* the event's first release from this barrier */
        for (size_t k = 0; k < r->nreleased; k++)
            if (r->released[k] == key) first = false;
        if (global && first && gbar_ended(r, ev, i, key)) return r->err;
        if (acquire(r, g, key)) return r->err;
        /* the barrier starts again after this event: forget its clock then */
        if (r->nreleased == r->relcap) {
            size_t cap = r->relcap ? 2 * r->relcap : 16;
            uint64_t *t = realloc(r->released, cap * sizeof *t);
            if (!t) return fail(r);
            r->released = t;
            r->relcap = cap;
        }
        r->released[r->nreleased++] = key;
        return VX_OK;
    }
    case VX_WCTL_SPAWN_WAIT: return release(r, g, SY_SPAWN(w->core));
    case VX_WCTL_ACTIVATE:
        if (acquire(r, g, SY_SPAWN(w->core))) return r->err;
        return acquire(r, g, SY_ENDED(w->core));
    case VX_WCTL_UNSTALL: return acquire(r, g, SY_ENDED(w->core));
    case VX_WCTL_DEACTIVATE: return release(r, g, SY_ENDED(w->core));
    default: return VX_OK;
    }
}

/* A platform reset (the Debug Module's ndmreset): the kernel starts again, and what
 * every warp did before it is ordered before all that follows.  Every warp's clock
 * takes all of them, and a new epoch; what the warps' fences left pending is gone. */
static void reset(vxr *r)
{
    uint32_t *all = vc_of(r, 0);
    for (uint32_t g = 1; g < r->G; g++)
        join(all, vc_of(r, g), r->G);
    for (uint32_t g = 1; g < r->G; g++)
        memcpy(vc_of(r, g), all, r->G * sizeof *all);
    for (uint32_t g = 0; g < r->G; g++) {
        vc_of(r, g)[g]++;
        acquired(r, g);
    }
    memset(r->relfence, 0, r->G);
    memset(r->fresh, 0, r->G);
    memset(r->lastrd, 0, r->G * sizeof *r->lastrd);
}

vx_err vxr_event(vxr *r, const vx_event *ev)
{
    if (r->err) return r->err;
    if (ev->kind == VX_EV_DM && ev->dm.op == VX_DM_RESET) reset(r);
    if (ev->kind != VX_EV_ISSUE || ev->fault) return VX_OK;
    /* an instruction the debugger injected (its memory reads and writes through a halted
     * warp: vxdbg, GDB's print and set var) is not the kernel's: nothing to check */
    if (ev->flags & VX_EVF_INJECTED) return VX_OK;
    const uint32_t g = ev->core * r->nw + ev->warp;
    if (g >= r->G) return VX_OK;
    /* (acc keeps 44 bits of an index) */
    if (ev->index < r->next || ev->index >> 44) r->unorder = 1;
    r->next = ev->index + 1;
    vx_insn in;
    vx_isa_decode(ev->insn, &in);
    const vx_isa_row *row = vx_isa_row_get(in.op);
    const bool atomic = row && (row->fmt == VX_FMT_AMO || row->fmt == VX_FMT_LR);
    const bool aq = atomic && (in.rm & 2), rl = atomic && (in.rm & 1);
    if (in.op == VX_OP_FENCE) {
        /* imm: pred << 4 | succ, each i o r w (8 4 2 1).  Release fence: earlier loads
         * and stores before later stores (GCC's release store is `fence iorw,ow` or
         * `fence rw,w` and a relaxed amoswap or sw); acquire fence: earlier loads before
         * later loads and stores (`lw` or a relaxed AMO, then `fence r,rw`).  So
         * `fence r,rw` is no release, `fence rw,w` no acquire, and `fence w,w` and
         * `fence r,r` neither (RVWMO lets the accesses they leave out pass them); nor is
         * `fence rw,o`, which orders later device output, not stores to memory. */
        const unsigned pred = ((unsigned)in.imm >> 4) & 15, succ = (unsigned)in.imm & 15;
        if ((pred & 3) == 3 && (succ & 1)) r->relfence[g] = r->fresh[g] = 1;
        if ((pred & 2) && (succ & 3) == 3 && r->lastrd[g] && join(vc_of(r, g), r->rdvc[g], r->G))
            acquired(r, g);
        return VX_OK;
    }
    for (uint32_t i = 0; i < ev->nreads; i++) {
        const vx_memread *m = &ev->reads[i];
        if (access(r, ev, g, m->addr, m->size, m->lane, false, 0, atomic, aq, false)) return r->err;
    }
    for (uint32_t i = 0; i < ev->nmem; i++) {
        const vx_memwrite *m = &ev->mem[i];
        if (access(r, ev, g, m->addr, m->size, m->lane, true, m->value, atomic, false, rl))
            return r->err;
    }
    if (ev->nreads || ev->nmem) r->fresh[g] = 0;
    /* a wspawn goes on once the other warps of the core have ended (or at once when
     * none is left: then it has no warp-control effect): what ended is before it */
    if (in.op == VX_OP_VX_WSPAWN && acquire(r, g, SY_ENDED(ev->core))) return r->err;
    for (uint32_t i = 0; i < ev->nwctl; i++)
        if (wctl(r, ev, i)) return r->err;
    for (size_t i = 0; i < r->nreleased; i++) {
        uint32_t *s = sync_vc(r, r->released[i]);
        if (!s) return fail(r);
        memset(s, 0, r->G * sizeof *s);
    }
    r->nreleased = 0;
    return VX_OK;
}
