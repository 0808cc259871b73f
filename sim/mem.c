/*
 * mem.c - guest memory: sparse 4 KiB pages, copy-on-write between the live
 * machine and snapshots, dirty tracking for trace keyframes.
 *
 * Memory map (vx_sim.h, DESIGN.md §1), as the executor sees it:
 *   [0x00000000, 0x00000040)  unmapped (null guard): any access faults UNMAPPED
 *   [0x00000040, 0x00000080)  console: byte stores go to the console (not stored),
 *                             other store sizes fault CONSOLE, loads read 0
 *   [0x00000080, 0xFFFF0000)  global memory: zero-filled pages allocated on first
 *                             write, counted against mem_limit
 *   [0xFFFF0000, 0xFFFF4000)  local memory of the issuing core (16 KiB)
 *   [0xFFFF4000, 2^32)        unmapped
 *
 * Pages: a vx_page has a reference count.  The live machine and every snapshot
 * hold references; a write to a page whose count is above one first copies it
 * (vx_gmem_wpage_slow).  The page tables themselves are never shared: a
 * snapshot copies the level-2 tables it needs (a few KiB each).
 */
#include <stdlib.h>
#include <string.h>
#include "sim_int.h"

const uint8_t vx_zero_page[VX_PAGE_SIZE];

static vx_page *page_new(const uint8_t *from)
{
    vx_page *p = malloc(sizeof *p);
    if (!p) return NULL;
    p->refs = 1;
    p->pad = 0;
    if (from)
        memcpy(p->data, from, VX_PAGE_SIZE);
    else
        memset(p->data, 0, VX_PAGE_SIZE);
    return p;
}

void vx_page_release(vx_page *p)
{
    if (p && --p->refs == 0) free(p);
}

uint8_t *vx_gmem_wpage_slow(vx_sim *s, uint32_t pn)
{
    vx_page **l2 = s->mem.l1[pn >> 10];
    if (!l2) {
        l2 = calloc(VX_L2_SIZE, sizeof *l2);
        if (!l2) {
            s->host_oom = true;
            return NULL;
        }
        s->mem.l1[pn >> 10] = l2;
    }
    vx_page **slot = &l2[pn & (VX_L2_SIZE - 1)];
    vx_page *p = *slot;
    if (!p) {
        if ((s->npages + 1) * (uint64_t)VX_PAGE_SIZE > s->mem_limit) return NULL;
        p = page_new(NULL);
        if (!p) {
            s->host_oom = true;
            return NULL;
        }
        s->npages++;
        *slot = p;
    } else if (p->refs != 1) {
        vx_page *c = page_new(p->data);
        if (!c) {
            s->host_oom = true;
            return NULL;
        }
        s->cow_pages++;
        p->refs--;
        *slot = p = c;
    }
    s->fetch_pn = ~0u;
    s->dirty[pn >> 6] |= 1ull << (pn & 63);
    return p->data;
}

uint8_t *vx_lmem_wpage(vx_sim *s, uint32_t core, uint32_t i)
{
    vx_core *c = &s->cores[core];
    vx_page *p = c->lmem[i];
    if (!p) {
        p = page_new(NULL);
        if (!p) {
            s->host_oom = true;
            return NULL;
        }
        c->lmem[i] = p;
    } else if (p->refs != 1) {
        vx_page *n = page_new(p->data);
        if (!n) {
            s->host_oom = true;
            return NULL;
        }
        s->cow_pages++;
        p->refs--;
        c->lmem[i] = p = n;
    }
    c->lmem_dirty |= (uint8_t)(1u << i);
    return p->data;
}

void vx_mem_free_all(vx_sim *s)
{
    for (uint32_t i = 0; i < VX_L1_SIZE; i++) {
        vx_page **l2 = s->mem.l1[i];
        if (!l2) continue;
        for (uint32_t j = 0; j < VX_L2_SIZE; j++)
            vx_page_release(l2[j]);
        free(l2);
        s->mem.l1[i] = NULL;
    }
    s->npages = 0;
    if (s->cores)
        for (uint32_t c = 0; c < s->nc; c++)
            for (uint32_t i = 0; i < VX_LMEM_PAGES; i++) {
                vx_page_release(s->cores[c].lmem[i]);
                s->cores[c].lmem[i] = NULL;
            }
    s->fetch_pn = ~0u;
}

/*
 * No page to write at addr (a wpage call returned NULL): the host out of memory
 * (host_oom, which is cleared: it was this write's) or else the guest memory limit.
 */
static vx_err no_page(vx_sim *s, uint32_t addr)
{
    if (s->host_oom) {
        s->host_oom = false;
        return vx_sim_fail(s, VX_ERR_NOMEM,
                           "out of host memory: no page for the write at 0x%08x; the guest memory "
                           "limit was not reached",
                           addr);
    }
    return vx_sim_fail(s, VX_ERR_MEMORY, "guest memory limit of %llu bytes exceeded writing 0x%08x",
                       (unsigned long long)s->mem_limit, addr);
}

vx_err vx_gmem_write(vx_sim *s, uint32_t addr, const void *buf, size_t len)
{
    const uint8_t *src = buf;
    while (len) {
        uint32_t off = addr & (VX_PAGE_SIZE - 1);
        size_t n = VX_PAGE_SIZE - off;
        if (n > len) n = len;
        uint8_t *pg = vx_gmem_wpage(s, addr >> VX_PAGE_SHIFT);
        if (!pg) return no_page(s, addr);
        memcpy(pg + off, src, n);
        src += n;
        len -= n;
        addr += (uint32_t)n;
    }
    return VX_OK;
}

vx_err vx_gmem_zero(vx_sim *s, uint32_t addr, uint64_t len)
{
    while (len) {
        uint32_t pn = addr >> VX_PAGE_SHIFT, off = addr & (VX_PAGE_SIZE - 1);
        uint64_t n = VX_PAGE_SIZE - off;
        if (n > len) n = len;
        vx_page **l2 = s->mem.l1[pn >> 10];
        vx_page **slot = l2 ? &l2[pn & (VX_L2_SIZE - 1)] : NULL;
        if (slot && *slot) {
            if (n == VX_PAGE_SIZE) {
                /* A whole page of zeros: drop it (reads give zeros again). */
                vx_page_release(*slot);
                *slot = NULL;
                s->npages--;
                s->fetch_pn = ~0u;
                s->dirty[pn >> 6] |= 1ull << (pn & 63);
            } else {
                uint8_t *pg = vx_gmem_wpage(s, pn);
                if (!pg) return no_page(s, addr); /* (the page is there: a copy of it) */
                memset(pg + off, 0, (size_t)n);
            }
        }
        len -= n;
        addr += (uint32_t)n;
        if (addr == 0) break; /* wrapped */
    }
    return VX_OK;
}

/* ---- public access (debuggers, loaders, tests) ------------------------------------------------ */

/* Split [addr, addr+len) into region pieces; returns the piece length at addr. */
static size_t piece(uint32_t addr, size_t len, int *region)
{
    uint64_t end = (uint64_t)addr + len, lim;
    if (addr < VX_IO_COUT_ADDR) {
        *region = 0; /* null guard */
        lim = VX_IO_COUT_ADDR;
    } else if (addr < VX_GMEM_BASE) {
        *region = 1; /* console */
        lim = VX_GMEM_BASE;
    } else if (addr < VX_GMEM_END) {
        *region = 2;
        lim = VX_GMEM_END;
    } else if (addr < (uint64_t)VX_LMEM_BASE_ADDR + VX_LMEM_SIZE) {
        *region = 3;
        lim = (uint64_t)VX_LMEM_BASE_ADDR + VX_LMEM_SIZE;
    } else {
        *region = 0;
        lim = 1ull << 32;
    }
    if (end > lim) end = lim;
    return (size_t)(end - addr);
}

vx_err vx_sim_mem_read(const vx_sim *s, uint32_t core, uint32_t addr, void *buf, size_t len)
{
    uint8_t *dst = buf;
    if (core >= s->nc) return VX_ERR_RANGE;
    if ((uint64_t)addr + len > (1ull << 32)) return VX_ERR_RANGE;
    while (len) {
        int region;
        size_t n = piece(addr, len, &region);
        if (region == 0) return VX_ERR_RANGE;
        if (region == 1) {
            memset(dst, 0, n);
        } else {
            for (size_t done = 0; done < n;) {
                uint32_t a = addr + (uint32_t)done, off = a & (VX_PAGE_SIZE - 1);
                size_t k = VX_PAGE_SIZE - off;
                if (k > n - done) k = n - done;
                const uint8_t *pg =
                    region == 2 ? vx_gmem_rpage(s, a >> VX_PAGE_SHIFT)
                                : vx_lmem_rpage(s, core, (a - VX_LMEM_BASE_ADDR) >> VX_PAGE_SHIFT);
                memcpy(dst + done, pg + off, k);
                done += k;
            }
        }
        dst += n;
        len -= n;
        addr += (uint32_t)n;
    }
    return VX_OK;
}

vx_err vx_sim_mem_write(vx_sim *s, uint32_t core, uint32_t addr, const void *buf, size_t len)
{
    const uint8_t *src = buf;
    if (core >= s->nc)
        return vx_sim_fail(s, VX_ERR_RANGE, "no core %u (the platform has %u)", core, s->nc);
    if ((uint64_t)addr + len > (1ull << 32))
        return vx_sim_fail(s, VX_ERR_RANGE, "write of %zu bytes at 0x%08x wraps around", len, addr);
    while (len) {
        int region;
        size_t n = piece(addr, len, &region);
        if (region == 0 || region == 1)
            return vx_sim_fail(s, VX_ERR_RANGE, "address 0x%08x is not writable memory", addr);
        if (region == 2) {
            vx_err e = vx_gmem_write(s, addr, src, n);
            if (e) return e;
            if (s->nresv)
                for (uint32_t a = addr & ~3u; a < addr + n; a += 4)
                    vx_resv_kill(s, a);
        } else {
            for (size_t done = 0; done < n;) {
                uint32_t a = addr + (uint32_t)done, off = a & (VX_PAGE_SIZE - 1);
                size_t k = VX_PAGE_SIZE - off;
                if (k > n - done) k = n - done;
                uint8_t *pg = vx_lmem_wpage(s, core, (a - VX_LMEM_BASE_ADDR) >> VX_PAGE_SHIFT);
                if (!pg) return no_page(s, a); /* (local memory has no limit) */
                memcpy(pg + off, src + done, k);
                done += k;
            }
        }
        src += n;
        len -= n;
        addr += (uint32_t)n;
    }
    return VX_OK;
}

/* ---- keyframe pages ------------------------------------------------------------------------- */

void vx_sim_visit_pages(const vx_sim *s, bool all, vx_sim_page_fn fn, void *ctx)
{
    for (uint32_t w = 0; w < VX_NPAGES / 64; w++) {
        uint64_t bits = all ? ~0ull : s->dirty[w];
        if (!bits) continue;
        if (all && !s->mem.l1[(w * 64) >> 10]) continue;
        while (bits) {
            uint32_t pn = w * 64 + (uint32_t)__builtin_ctzll(bits);
            bits &= bits - 1;
            vx_page **l2 = s->mem.l1[pn >> 10];
            vx_page *p = l2 ? l2[pn & (VX_L2_SIZE - 1)] : NULL;
            if (all && !p) continue;
            fn(ctx, 0, pn << VX_PAGE_SHIFT, p ? p->data : vx_zero_page);
        }
    }
    for (uint32_t c = 0; c < s->nc; c++)
        for (uint32_t i = 0; i < VX_LMEM_PAGES; i++) {
            const vx_page *p = s->cores[c].lmem[i];
            bool want = all ? p != NULL : (s->cores[c].lmem_dirty >> i) & 1;
            if (want)
                fn(ctx, 1 + c, VX_LMEM_BASE_ADDR + i * VX_PAGE_SIZE, p ? p->data : vx_zero_page);
        }
}

void vx_sim_clear_dirty(vx_sim *s)
{
    memset(s->dirty, 0, VX_NPAGES / 8);
    for (uint32_t c = 0; c < s->nc; c++)
        s->cores[c].lmem_dirty = 0;
}

vx_err vx_sim_put_page(vx_sim *s, uint32_t space, uint32_t addr, const uint8_t *page)
{
    if (addr & (VX_PAGE_SIZE - 1))
        return vx_sim_fail(s, VX_ERR_INVAL, "page address 0x%08x is not page aligned", addr);
    bool zero = memcmp(page, vx_zero_page, VX_PAGE_SIZE) == 0;
    if (space == 0) {
        if (addr >= VX_GMEM_END)
            return vx_sim_fail(s, VX_ERR_RANGE, "page 0x%08x is outside global memory", addr);
        if (zero) return vx_gmem_zero(s, addr, VX_PAGE_SIZE);
        uint8_t *pg = vx_gmem_wpage(s, addr >> VX_PAGE_SHIFT);
        if (!pg) return no_page(s, addr);
        memcpy(pg, page, VX_PAGE_SIZE);
        return VX_OK;
    }
    uint32_t core = space - 1;
    if (core >= s->nc || addr < VX_LMEM_BASE_ADDR || addr >= VX_LMEM_BASE_ADDR + VX_LMEM_SIZE)
        return vx_sim_fail(s, VX_ERR_RANGE, "no local-memory page 0x%08x in space %u", addr, space);
    uint32_t i = (addr - VX_LMEM_BASE_ADDR) >> VX_PAGE_SHIFT;
    if (zero && !s->cores[core].lmem[i]) {
        s->cores[core].lmem_dirty |= (uint8_t)(1u << i);
        return VX_OK;
    }
    uint8_t *pg = vx_lmem_wpage(s, core, i);
    if (!pg) return no_page(s, addr);
    memcpy(pg, page, VX_PAGE_SIZE);
    return VX_OK;
}
