/*
 * symtab.c - code symbols of an ELF kernel image read with libelf from memory.
 */
#include <gelf.h>
#include <stdbool.h>
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

static vx_err name_symbols(vxd_symtab *t);

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
        s->shown = s->name;
        t->n++;
    }
    err = name_symbols(t);
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
    for (size_t i = 0; i < t->n; i++) {
        if (t->syms[i].shown != t->syms[i].name) free(t->syms[i].shown);
        free(t->syms[i].name);
    }
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
        n = snprintf(buf, cap, "<%s+0x%x>", s->shown, off);
    else
        n = snprintf(buf, cap, "<%s>", s->shown);
    return n < 0 ? 0 : (size_t)n;
}

const vxd_sym *vxd_symtab_find(const vxd_symtab *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->syms[i].name, name)) return &t->syms[i];
    return NULL;
}

/*
 * The qualified name of a C++ function from its Itanium-ABI mangled symbol, as far
 * as the name goes (not the parameter types): "_ZN2ns1fEi" is ns::f, "_Z1fv" f,
 * "_ZL4helpi" (internal linkage) help, "_ZN12_GLOBAL__N_12cbEPv" (anonymous
 * namespace)::cb, "_ZNSt3maxEii" std::max; template arguments (I...E) are skipped.
 * At most VXD_MAX_PARTS components; 0 when the symbol is not mangled or its name has
 * a form not handled here (constructors, operators, local entities, substitutions
 * other than St), which then only matches its mangled spelling.
 */
#define VXD_MAX_PARTS 16

typedef struct name_part {
    const char *s;
    size_t n;
} name_part;

/* A <source-name> (decimal length, then that many bytes) at *p; false if none. */
static bool source_name(const char **p, name_part *out)
{
    const char *q = *p;
    size_t n = 0;
    if (*q < '1' || *q > '9') return false;
    while (*q >= '0' && *q <= '9') {
        n = n * 10 + (size_t)(*q++ - '0');
        if (n > 4096) return false;
    }
    if (strnlen(q, n) < n) return false;
    out->s = q;
    out->n = n;
    *p = q + n;
    return true;
}

/* Skip template arguments "I ... E" at *p (nested I/N/X/L ... E balanced, source
 * names skipped whole so their letters are not taken for codes). */
static bool skip_template_args(const char **p)
{
    const char *q = *p;
    unsigned depth = 0;
    do {
        name_part ignored;
        if (!*q) return false;
        if (*q >= '1' && *q <= '9') {
            if (!source_name(&q, &ignored)) return false;
            continue;
        }
        if (*q == 'I' || *q == 'N' || *q == 'X' || *q == 'L') depth++;
        if (*q == 'E') depth--;
        q++;
    } while (depth);
    *p = q;
    return true;
}

static size_t mangled_parts(const char *sym, name_part *parts)
{
    if (strncmp(sym, "_Z", 2) != 0) return 0;
    const char *p = sym + 2;
    if (*p == 'L') p++;
    size_t n = 0;
    if (*p != 'N') { /* an unscoped name: one source name */
        if (!source_name(&p, &parts[0])) return 0;
        return 1;
    }
    p++;
    while (*p == 'r' || *p == 'V' || *p == 'K' || *p == 'R' || *p == 'O')
        p++; /* qualifiers of a member function */
    if (p[0] == 'S' && p[1] == 't') {
        parts[n++] = (name_part){"std", 3};
        p += 2;
    }
    while (*p != 'E') {
        if (*p == 'I') {
            if (!n || !skip_template_args(&p)) return 0;
            continue;
        }
        if (n == VXD_MAX_PARTS || !source_name(&p, &parts[n])) return 0;
        n++;
    }
    return n;
}

/* Component c of a mangled name as a user writes it: the anonymous namespace is
 * "(anonymous namespace)". */
static name_part part_spelling(const name_part *c)
{
    static const char anon[] = "_GLOBAL__N_1", shown[] = "(anonymous namespace)";
    if (c->n == sizeof anon - 1 && !memcmp(c->s, anon, c->n))
        return (name_part){shown, sizeof shown - 1};
    return *c;
}

/* Does component c of a mangled name spell w (w[0..wn), as a user writes it)? */
static bool part_is(const name_part *c, const char *w, size_t wn)
{
    const name_part u = part_spelling(c);
    return u.n == wn && !memcmp(u.s, w, wn);
}

/* "ns::f" for a mangled symbol whose name mangled_parts reads (malloc'd); NULL when it
 * is not one (*oom: out of memory). */
static char *qualified_name(const char *sym, bool *oom)
{
    name_part parts[VXD_MAX_PARTS];
    size_t n = mangled_parts(sym, parts), len = 0;
    if (!n) return NULL;
    for (size_t i = 0; i < n; i++)
        len += part_spelling(&parts[i]).n + 2;
    char *q = malloc(len), *p = q;
    if (!q) {
        *oom = true;
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        const name_part u = part_spelling(&parts[i]);
        if (i) {
            memcpy(p, "::", 2);
            p += 2;
        }
        memcpy(p, u.s, u.n);
        p += u.n;
    }
    *p = 0;
    return q;
}

typedef struct shown_cand {
    const char *s;
    size_t i;
} shown_cand;

static int shown_cmp(const void *a, const void *b)
{
    return strcmp(((const shown_cand *)a)->s, ((const shown_cand *)b)->s);
}

/* Give each symbol its shown name: the qualified name of a mangled C++ function unless
 * another symbol would be shown the same (overloads keep their ELF names). */
static vx_err name_symbols(vxd_symtab *t)
{
    shown_cand *c = malloc((t->n ? t->n : 1) * sizeof *c);
    if (!c) return VX_ERR_NOMEM;
    for (size_t i = 0; i < t->n; i++) {
        bool oom = false;
        char *q = qualified_name(t->syms[i].name, &oom);
        if (oom) {
            free(c);
            return VX_ERR_NOMEM;
        }
        if (q) t->syms[i].shown = q;
        c[i] = (shown_cand){t->syms[i].shown, i};
    }
    qsort(c, t->n, sizeof *c, shown_cmp);
    for (size_t i = 0, j; i < t->n; i = j) {
        for (j = i + 1; j < t->n && !strcmp(c[j].s, c[i].s); j++)
            ;
        if (j - i < 2) continue;
        for (size_t k = i; k < j; k++) {
            vxd_sym *s = &t->syms[c[k].i];
            if (s->shown != s->name) free(s->shown);
            s->shown = s->name;
        }
    }
    free(c);
    for (size_t i = 0; i < t->n; i++) {
        size_t l = strlen(t->syms[i].shown);
        if (l > t->maxlen) t->maxlen = l;
    }
    return VX_OK;
}

bool vxd_symtab_matches(const vxd_sym *sym, const char *name)
{
    if (!strcmp(sym->name, name)) return true;
    if (!*name) return false;
    name_part parts[VXD_MAX_PARTS];
    size_t n = mangled_parts(sym->name, parts);
    if (!n) return false;
    /* name is "a::b::c": its components must be the last ones of the symbol's */
    const char *end = name + strlen(name);
    while (end > name) {
        const char *start = end;
        while (start > name && !(start - name >= 2 && start[-1] == ':' && start[-2] == ':'))
            start--;
        if (!n || !part_is(&parts[--n], start, (size_t)(end - start))) return false;
        end = start > name ? start - 2 : start;
        if (start > name && end == name) return false; /* a leading "::" */
    }
    return true;
}
