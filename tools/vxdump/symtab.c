/*
 * symtab.c - code symbols of an ELF kernel image read with libelf from memory.
 */
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symtab.h"

#define VXD_IMAGE_ELF 1 /* vx_image_kind VX_IMAGE_ELF (vx_sim.h); we do not depend on the sim */

/* Rank of a symbol among several at one address: sized functions, then globals, then labels. */
static int sym_rank(const GElf_Sym *s)
{
    int r = 0;
    if (GELF_ST_TYPE(s->st_info) == STT_FUNC) r += 4;
    if (s->st_size) r += 2;
    if (GELF_ST_BIND(s->st_info) == STB_GLOBAL) r += 1;
    return r;
}

typedef struct cand {
    uint32_t addr, size;
    int rank;
    const char *name;
} cand;

static int cand_cmp(const void *pa, const void *pb)
{
    const cand *a = pa, *b = pb;
    if (a->addr != b->addr) return a->addr < b->addr ? -1 : 1;
    if (a->rank != b->rank) return a->rank > b->rank ? -1 : 1; /* best first */
    return strcmp(a->name, b->name);
}

/* Names the assembler and linker make up that would only clutter the output. */
static int boring(const char *n)
{
    return !n[0] || n[0] == '$' || !strncmp(n, ".L", 2) || !strncmp(n, "__tls", 5);
}

static vx_err collect(Elf *e, vxd_symtab *t, char *msg, size_t cap)
{
    Elf_Scn *scn = NULL;
    cand *c = NULL;
    size_t nc = 0, capc = 0;
    vx_err err = VX_OK;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize) continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d) continue;
        size_t n = sh.sh_size / sh.sh_entsize;
        for (size_t i = 1; i < n; i++) {
            GElf_Sym s;
            if (!gelf_getsym(d, (int)i, &s)) break;
            int type = GELF_ST_TYPE(s.st_info);
            if (type != STT_FUNC && type != STT_NOTYPE) continue;
            if (s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE) continue;
            Elf_Scn *in = elf_getscn(e, s.st_shndx);
            GElf_Shdr ish;
            if (!in || !gelf_getshdr(in, &ish) || !(ish.sh_flags & SHF_EXECINSTR)) continue;
            const char *name = elf_strptr(e, sh.sh_link, s.st_name);
            if (!name || boring(name)) continue;
            if (nc == capc) {
                size_t ncap = capc ? capc * 2 : 256;
                cand *p = realloc(c, ncap * sizeof *c);
                if (!p) {
                    err = VX_ERR_NOMEM;
                    goto out;
                }
                c = p;
                capc = ncap;
            }
            c[nc].addr = (uint32_t)s.st_value;
            c[nc].size = (uint32_t)s.st_size;
            c[nc].rank = sym_rank(&s);
            c[nc].name = name;
            nc++;
        }
    }
    if (!nc) goto out;
    qsort(c, nc, sizeof *c, cand_cmp);
    t->syms = calloc(nc, sizeof *t->syms);
    if (!t->syms) {
        err = VX_ERR_NOMEM;
        goto out;
    }
    for (size_t i = 0; i < nc; i++) {
        if (i && c[i].addr == c[i - 1].addr) continue; /* keep the best name per address */
        vxd_sym *s = &t->syms[t->n];
        s->addr = c[i].addr;
        s->size = c[i].size;
        s->name = strdup(c[i].name);
        if (!s->name) {
            err = VX_ERR_NOMEM;
            goto out;
        }
        size_t l = strlen(s->name);
        if (l > t->maxlen) t->maxlen = l;
        t->n++;
    }
out:
    if (err == VX_ERR_NOMEM && msg && cap) snprintf(msg, cap, "out of memory reading symbols");
    free(c);
    return err;
}

vx_err vxd_symtab_load(vxd_symtab *t, uint8_t kind, const uint8_t *image, size_t len, char *msg,
                       size_t cap)
{
    memset(t, 0, sizeof *t);
    if (msg && cap) msg[0] = 0;
    if (kind != VXD_IMAGE_ELF || !image || len < 16) return VX_OK;
    if (elf_version(EV_CURRENT) == EV_NONE) return VX_OK;
    /* elf_memory wants a writable buffer; libelf may touch it for byte swapping. */
    char *copy = malloc(len);
    if (!copy) {
        if (msg && cap) snprintf(msg, cap, "out of memory reading symbols");
        return VX_ERR_NOMEM;
    }
    memcpy(copy, image, len);
    Elf *e = elf_memory(copy, len);
    vx_err err = VX_OK;
    if (!e || elf_kind(e) != ELF_K_ELF) {
        if (msg && cap) snprintf(msg, cap, "kernel image is not a readable ELF: no symbols");
    } else {
        err = collect(e, t, msg, cap);
    }
    if (e) elf_end(e);
    free(copy);
    if (err) vxd_symtab_release(t);
    return err;
}

void vxd_symtab_release(vxd_symtab *t)
{
    if (!t) return;
    for (size_t i = 0; i < t->n; i++)
        free(t->syms[i].name);
    free(t->syms);
    memset(t, 0, sizeof *t);
}

uint32_t vxd_symtab_end(const vxd_symtab *t, size_t i)
{
    const vxd_sym *s = &t->syms[i];
    if (s->size) return s->addr + s->size;
    if (i + 1 < t->n) return t->syms[i + 1].addr;
    return s->addr +
           0x1000u; /* a last unsized label: assume it covers what follows, within reason */
}

size_t vxd_symtab_index(const vxd_symtab *t, uint32_t pc)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) { /* first symbol with addr > pc */
        size_t mid = lo + (hi - lo) / 2;
        if (t->syms[mid].addr <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return t->n;
    size_t i = lo - 1;
    if (pc - t->syms[i].addr >= vxd_symtab_end(t, i) - t->syms[i].addr) return t->n;
    return i;
}

const vxd_sym *vxd_symtab_lookup(const vxd_symtab *t, uint32_t pc, uint32_t *off)
{
    size_t i = vxd_symtab_index(t, pc);
    if (i == t->n) return NULL;
    if (off) *off = pc - t->syms[i].addr;
    return &t->syms[i];
}

size_t vxd_symtab_format(const vxd_symtab *t, uint32_t pc, char *buf, size_t cap)
{
    uint32_t off;
    const vxd_sym *s = vxd_symtab_lookup(t, pc, &off);
    int n;
    if (!s)
        n = snprintf(buf, cap, "%s", "");
    else if (off)
        n = snprintf(buf, cap, "<%s+0x%x>", s->name, off);
    else
        n = snprintf(buf, cap, "<%s>", s->name);
    return n < 0 ? 0 : (size_t)n;
}

const vxd_sym *vxd_symtab_find(const vxd_symtab *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->syms[i].name, name)) return &t->syms[i];
    return NULL;
}
