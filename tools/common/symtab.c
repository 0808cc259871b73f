/*
 * symtab.c - code symbols of an ELF kernel image read with libelf from memory.
 */
#include <ctype.h>
#include <gelf.h>
#include <stdbool.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symtab.h"
#include "vis.h"

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

/* Is s a symbol of the table: code (a function or label in an executable section), or
 * with data, a sized object in an allocated section that is not executable? */
static bool wanted(Elf *e, const GElf_Sym *s, bool data)
{
    const int type = GELF_ST_TYPE(s->st_info);
    if (data ? type != STT_OBJECT || !s->st_size : type != STT_FUNC && type != STT_NOTYPE)
        return false;
    if (s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE) return false;
    Elf_Scn *in = elf_getscn(e, s->st_shndx);
    GElf_Shdr ish;
    if (!in || !gelf_getshdr(in, &ish)) return false;
    return data ? (ish.sh_flags & SHF_ALLOC) && !(ish.sh_flags & SHF_EXECINSTR)
                : (ish.sh_flags & SHF_EXECINSTR) != 0;
}

static vx_err collect(Elf *e, vxd_symtab *t, char *msg, size_t cap, bool data)
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
            if (!wanted(e, &s, data)) continue;
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
        if (i && c[i].addr == c[i - 1].addr) { /* the best name per address; the others */
            if (!strcmp(c[i].name, c[i - 1].name)) continue; /* (a local and a global) */
            vxd_alias *a = realloc(t->aliases, (t->naliases + 1) * sizeof *a);
            if (!a) {
                err = VX_ERR_NOMEM;
                goto out;
            }
            t->aliases = a;
            a[t->naliases].sym = t->n - 1;
            a[t->naliases].name = strdup(c[i].name);
            if (!a[t->naliases].name) {
                err = VX_ERR_NOMEM;
                goto out;
            }
            t->naliases++;
            continue;
        }
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

Elf *vxd_elf_open(uint8_t kind, const uint8_t *image, size_t len, void **copy, bool *nomem)
{
    *copy = NULL;
    *nomem = false;
    if (kind != VXD_IMAGE_ELF || !image || len < 16) return NULL;
    if (elf_version(EV_CURRENT) == EV_NONE) return NULL;
    /* elf_memory wants a writable buffer; libelf may touch it for byte swapping. */
    char *c = malloc(len);
    if (!c) {
        *nomem = true;
        return NULL;
    }
    memcpy(c, image, len);
    Elf *e = elf_memory(c, len);
    if (!e || elf_kind(e) != ELF_K_ELF) {
        if (e) elf_end(e);
        free(c);
        return NULL;
    }
    *copy = c;
    return e;
}

void vxd_elf_close(Elf *e, void *copy)
{
    if (e) elf_end(e);
    free(copy);
}

static vx_err load(vxd_symtab *t, uint8_t kind, const uint8_t *image, size_t len, char *msg,
                   size_t cap, bool data)
{
    memset(t, 0, sizeof *t);
    if (msg && cap) msg[0] = 0;
    void *copy;
    bool nomem;
    Elf *e = vxd_elf_open(kind, image, len, &copy, &nomem);
    if (nomem) {
        if (msg && cap) snprintf(msg, cap, "out of memory reading symbols");
        return VX_ERR_NOMEM;
    }
    if (!e) {
        if (kind == VXD_IMAGE_ELF && image && len >= 16 && msg && cap)
            snprintf(msg, cap, "kernel image is not a readable ELF: no symbols");
        return VX_OK;
    }
    vx_err err = collect(e, t, msg, cap, data);
    if (!err && !data) {
        /* damaged line tables: a note only when the symbols gave none */
        char note[160];
        err = vxd_lines_from_elf(&t->lines, e, note, sizeof note);
        if (note[0] && msg && cap && (err || !msg[0])) snprintf(msg, cap, "%s", note);
    }
    vxd_elf_close(e, copy);
    if (err) vxd_symtab_release(t);
    return err;
}

vx_err vxd_symtab_load(vxd_symtab *t, uint8_t kind, const uint8_t *image, size_t len, char *msg,
                       size_t cap)
{
    return load(t, kind, image, len, msg, cap, false);
}

vx_err vxd_symtab_load_data(vxd_symtab *t, uint8_t kind, const uint8_t *image, size_t len,
                            char *msg, size_t cap)
{
    return load(t, kind, image, len, msg, cap, true);
}

void vxd_symtab_release(vxd_symtab *t)
{
    if (!t) return;
    for (size_t i = 0; i < t->n; i++) {
        if (t->syms[i].shown != t->syms[i].name) free(t->syms[i].shown);
        free(t->syms[i].name);
    }
    free(t->syms);
    for (size_t i = 0; i < t->naliases; i++)
        free(t->aliases[i].name);
    free(t->aliases);
    vxd_lines_release(&t->lines);
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
    if (pc - t->syms[i].addr < vxd_symtab_end(t, i) - t->syms[i].addr) return i;
    /* past its end: pc may lie in a function that encloses it (a sized label nested in
     * hand-written assembly); such neighbours are close, a few symbols back */
    for (size_t k = 1; k <= 16 && k <= i; k++) {
        const vxd_sym *s = &t->syms[i - k];
        if (s->size && pc - s->addr < s->size) return i - k;
    }
    return t->n;
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
    char text[512];
    if (!s)
        n = snprintf(text, sizeof text, "%s", "");
    else if (off)
        n = snprintf(text, sizeof text, "<%s+0x%x>", s->shown, off);
    else
        n = snprintf(text, sizeof text, "<%s>", s->shown);
    if (n < 0 || !cap) return 0;
    /* text for a terminal: a name from the ELF may hold escape sequences (vis.h) */
    return vx_vis(text, strlen(text), buf, cap, 0);
}

void vxd_symtab_where(const vxd_symtab *t, uint32_t pc, char *buf, size_t cap)
{
    if (!cap) return;
    buf[0] = 0;
    if (!t || cap < 8) return;
    size_t n = 0;
    if (vxd_symtab_format(t, pc, buf + 1, cap - 1) > 0) {
        buf[0] = ' ';
        n = strlen(buf);
    }
    if (cap - n > 5 && vxd_lines_format(&t->lines, pc, buf + n + 4, cap - n - 4) > 0)
        memcpy(buf + n, " in ", 4);
}

const vxd_sym *vxd_symtab_find(const vxd_symtab *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->syms[i].name, name)) return &t->syms[i];
    for (size_t i = 0; i < t->naliases; i++)
        if (!strcmp(t->aliases[i].name, name)) return &t->syms[t->aliases[i].sym];
    return NULL;
}

/*
 * The qualified name of a C++ function from its Itanium-ABI mangled symbol, as far
 * as the name goes (not the parameter types), the way c++filt and GDB spell it:
 * "_ZN2ns1fEi" is ns::f, "_Z1fv" f, "_ZL4helpi" (internal linkage) help,
 * "_ZN12_GLOBAL__N_12cbEPv" (anonymous namespace)::cb, "_ZSt4sqrtf" std::sqrt,
 * "_ZN3geo3BufIiLi4EE2atEi" geo::Buf<int, 4>::at, "_ZN3geo6squareIiEET_S1_"
 * geo::square<int>, "_ZN3geo7CounterC2Ei" geo::Counter::Counter.  Template arguments
 * are spelled when they are built-in types, pointers, references, const, class names
 * or integer literals; other ones (substitutions, template parameters, expressions)
 * are skipped, and the name is then only matched, not shown.  0 components when the
 * symbol is not mangled or its name has a form not handled here (local entities such
 * as lambdas), which then only matches its mangled spelling.  Operators are spelled as
 * GDB does ("_ZNK3geo4VecplERKS0_" geo::Vec::operator+, "cvi" operator int), and a copy
 * GCC made of the function keeps its suffix ("_ZNK2FnclEi.isra.0" Fn::operator().isra.0).
 */
#define VXD_MAX_PARTS 16
#define VXD_PART_TEXT 256

typedef struct name_part {
    char base[VXD_PART_TEXT]; /* the component as a user writes it */
    char args[VXD_PART_TEXT]; /* its template arguments, "<int, 4>", or "" */
    bool args_unknown;        /* it has template arguments not spelled here */
} name_part;

typedef struct out_buf {
    char *s;
    size_t cap, len;
    bool full;
} out_buf;

static void put(out_buf *o, const char *t, size_t n)
{
    if (o->len + n >= o->cap) {
        o->full = true;
        return;
    }
    memcpy(o->s + o->len, t, n);
    o->len += n;
    o->s[o->len] = 0;
}

static void puts_(out_buf *o, const char *t)
{
    put(o, t, strlen(t));
}

/* A <source-name> (decimal length, then that many bytes) at *p; false if none. */
static bool source_name(const char **p, const char **s, size_t *n)
{
    const char *q = *p;
    size_t k = 0;
    if (*q < '1' || *q > '9') return false;
    while (*q >= '0' && *q <= '9') {
        k = k * 10 + (size_t)(*q++ - '0');
        if (k > 4096) return false;
    }
    if (strnlen(q, k) < k) return false;
    *s = q;
    *n = k;
    *p = q + k;
    return true;
}

/* A source name as a user writes it (the anonymous namespace has a name of its own). */
static void put_source(out_buf *o, const char *s, size_t n)
{
    static const char anon[] = "_GLOBAL__N_1";
    if (n == sizeof anon - 1 && !memcmp(s, anon, n))
        puts_(o, "(anonymous namespace)");
    else
        put(o, s, n);
}

static const char *builtin_type(char c)
{
    switch (c) {
    case 'v': return "void";
    case 'w': return "wchar_t";
    case 'b': return "bool";
    case 'c': return "char";
    case 'a': return "signed char";
    case 'h': return "unsigned char";
    case 's': return "short";
    case 't': return "unsigned short";
    case 'i': return "int";
    case 'j': return "unsigned int";
    case 'l': return "long";
    case 'm': return "unsigned long";
    case 'x': return "long long";
    case 'y': return "unsigned long long";
    case 'f': return "float";
    case 'd': return "double";
    case 'e': return "long double";
    default: return NULL;
    }
}

static bool nested_name(const char **p, name_part *parts, size_t *n);
static bool template_args(const char **p, out_buf *o);
static bool type_name(const char **p, out_buf *o, unsigned depth);
static bool new_part(name_part *parts, size_t *n, const char *s, size_t len, bool source);

/* The Itanium ABI's two-letter <operator-name> codes and how C++ spells them. */
static const char *const operator_codes[][2] = {
    {"nw", "new"}, {"na", "new[]"}, {"dl", "delete"}, {"da", "delete[]"}, {"ps", "+"},
    {"ng", "-"},   {"ad", "&"},     {"de", "*"},      {"co", "~"},        {"pl", "+"},
    {"mi", "-"},   {"ml", "*"},     {"dv", "/"},      {"rm", "%"},        {"an", "&"},
    {"or", "|"},   {"eo", "^"},     {"aS", "="},      {"pL", "+="},       {"mI", "-="},
    {"mL", "*="},  {"dV", "/="},    {"rM", "%="},     {"aN", "&="},       {"oR", "|="},
    {"eO", "^="},  {"ls", "<<"},    {"rs", ">>"},     {"lS", "<<="},      {"rS", ">>="},
    {"eq", "=="},  {"ne", "!="},    {"lt", "<"},      {"gt", ">"},        {"le", "<="},
    {"ge", ">="},  {"ss", "<=>"},   {"nt", "!"},      {"aa", "&&"},       {"oo", "||"},
    {"pp", "++"},  {"mm", "--"},    {"cm", ","},      {"pm", "->*"},      {"pt", "->"},
    {"cl", "()"},  {"ix", "[]"},    {"qu", "?"},
};

/* An <operator-name> at *p, spelled as GDB and c++filt do ("operator+", "operator()",
 * "operator new", "operator int" for a conversion, "operator\"\" _km" for a literal
 * operator) into buf; false if there is none or it has a form not handled here. */
static bool operator_name(const char **p, char *buf, size_t cap)
{
    const char *q = *p, *s;
    size_t n;
    if (!q[0] || !q[1]) return false;
    for (size_t i = 0; i < sizeof operator_codes / sizeof operator_codes[0]; i++)
        if (q[0] == operator_codes[i][0][0] && q[1] == operator_codes[i][0][1]) {
            const char *op = operator_codes[i][1];
            snprintf(buf, cap, "operator%s%s", op[0] >= 'a' && op[0] <= 'z' ? " " : "", op);
            *p = q + 2;
            return true;
        }
    if (q[0] == 'c' && q[1] == 'v') { /* conversion: cv <type> */
        out_buf o = {buf, cap, 0, false};
        buf[0] = 0;
        puts_(&o, "operator ");
        q += 2;
        if (!type_name(&q, &o, 0) || o.full) return false;
        *p = q;
        return true;
    }
    if (q[0] == 'l' && q[1] == 'i') { /* literal operator: li <source-name> */
        q += 2;
        if (!source_name(&q, &s, &n) || n + 12 > cap) return false;
        snprintf(buf, cap, "operator\"\" %.*s", (int)n, s);
        *p = q;
        return true;
    }
    return false;
}

/* An operator's name as a component of parts (false: none, or no room). */
static bool operator_part(const char **p, name_part *parts, size_t *n)
{
    char name[VXD_PART_TEXT];
    return operator_name(p, name, sizeof name) && new_part(parts, n, name, strlen(name), false);
}

/* An integer literal "L <type> [n] <digits> E" at *p, as c++filt spells it. */
static bool literal(const char **p, out_buf *o)
{
    const char *q = *p + 1, t = *q++;
    static const char *const sfx[][2] = {{"i", ""},   {"j", "u"},  {"l", "l"},
                                         {"m", "ul"}, {"x", "ll"}, {"y", "ull"}};
    const char *suffix = NULL;
    for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++)
        if (t == sfx[i][0][0]) suffix = sfx[i][1];
    if (t == 'b' && (q[0] == '0' || q[0] == '1') && q[1] == 'E') {
        puts_(o, q[0] == '1' ? "true" : "false");
        *p = q + 2;
        return true;
    }
    if (!suffix) return false;
    const char *d = q;
    if (*d == 'n') d++;
    if (*d < '0' || *d > '9') return false;
    while (*d >= '0' && *d <= '9')
        d++;
    if (*d != 'E') return false;
    if (*q == 'n') {
        puts_(o, "-");
        q++;
    }
    put(o, q, (size_t)(d - q));
    puts_(o, suffix);
    *p = d + 1;
    return true;
}

/* Skip template arguments "I ... E" at *p that template_args cannot spell (nested
 * I/J/N/X/L ... E balanced: J opens an argument pack; source names skipped whole so
 * their letters are not taken for codes, nor the digits of a substitution or template
 * parameter, S12_ or T3_, or of a literal, Li42E, for a source name's length). */
static bool skip_template_args(const char **p)
{
    const char *q = *p, *s;
    size_t n;
    unsigned depth = 0;
    do {
        if (!*q) return false;
        if (*q >= '1' && *q <= '9') {
            if (!source_name(&q, &s, &n)) return false;
            continue;
        }
        if ((*q == 'S' || *q == 'T') &&
            (q[1] == '_' || isdigit((unsigned char)q[1]) || (q[1] >= 'A' && q[1] <= 'Z'))) {
            const char *e = q + 1; /* <seq-id> _ */
            while (isdigit((unsigned char)*e) || (*e >= 'A' && *e <= 'Z'))
                e++;
            if (*e == '_') {
                q = e + 1;
                continue;
            }
        }
        if (*q == 'L' && q[1] >= 'a' && q[1] <= 'z') { /* L <builtin type> [n] <digits> E */
            const char *e = q + 2;
            if (*e == 'n') e++;
            while (isdigit((unsigned char)*e))
                e++;
            if (*e == 'E') {
                q = e + 1;
                continue;
            }
        }
        if (*q == 'I' || *q == 'J' || *q == 'N' || *q == 'X' || *q == 'L') depth++;
        if (*q == 'E') depth--;
        q++;
    } while (depth);
    *p = q;
    return true;
}

/* Template arguments of the last component, spelled when possible, else skipped. */
static bool part_args(const char **p, name_part *c)
{
    const char *q = *p;
    out_buf o = {c->args, sizeof c->args, 0, false};
    c->args[0] = 0;
    if (template_args(&q, &o)) {
        *p = q;
        return true;
    }
    c->args[0] = 0;
    c->args_unknown = true;
    return skip_template_args(p);
}

/* A new component at parts[*n] spelled from s[0..n); false when there is no room. */
static bool new_part(name_part *parts, size_t *n, const char *s, size_t len, bool source)
{
    if (*n == VXD_MAX_PARTS) return false;
    name_part *c = &parts[(*n)++];
    out_buf o = {c->base, sizeof c->base, 0, false};
    c->base[0] = c->args[0] = 0;
    c->args_unknown = false;
    if (source)
        put_source(&o, s, len);
    else
        put(&o, s, len);
    return !o.full;
}

/* A <nested-name> "N ... E" at *p. */
static bool nested_name(const char **p, name_part *parts, size_t *n)
{
    const char *q = *p + 1, *s;
    size_t len;
    while (*q == 'r' || *q == 'V' || *q == 'K' || *q == 'R' || *q == 'O')
        q++; /* qualifiers of a member function */
    if (q[0] == 'S' && q[1] == 't') {
        if (!new_part(parts, n, "std", 3, false)) return false;
        q += 2;
    }
    while (*q != 'E') {
        if (*q == 'I') {
            if (!*n || !part_args(&q, &parts[*n - 1])) return false;
        } else if (source_name(&q, &s, &len)) {
            if (!new_part(parts, n, s, len, true)) return false;
        } else if ((q[0] == 'C' && q[1] >= '1' && q[1] <= '3') ||
                   (q[0] == 'D' && q[1] >= '0' && q[1] <= '2')) {
            /* constructor / destructor: the class's own name */
            if (!*n) return false;
            char name[VXD_PART_TEXT + 1];
            snprintf(name, sizeof name, "%s%s", q[0] == 'D' ? "~" : "", parts[*n - 1].base);
            if (!new_part(parts, n, name, strlen(name), false)) return false;
            q += 2;
        } else if (!operator_part(&q, parts, n)) {
            return false;
        }
    }
    *p = q + 1;
    return true;
}

static size_t mangled_parts(const char *sym, name_part *parts)
{
    if (strncmp(sym, "_Z", 2) != 0) return 0;
    const char *p = sym + 2, *s;
    size_t n = 0, len;
    if (*p == 'L') p++;
    if (*p == 'N') return nested_name(&p, parts, &n) ? n : 0;
    /* an unscoped name, maybe in std, maybe a template */
    if (p[0] == 'S' && p[1] == 't') {
        if (!new_part(parts, &n, "std", 3, false)) return 0;
        p += 2;
    }
    if (source_name(&p, &s, &len)) {
        if (!new_part(parts, &n, s, len, true)) return 0;
    } else if (!operator_part(&p, parts, &n)) {
        return 0;
    }
    if (*p == 'I' && !part_args(&p, &parts[n - 1])) return 0;
    return n;
}

/* Equal, spaces aside ("Buf<int,4>" is "Buf<int, 4>")? */
static bool same_spelling(const char *a, const char *w, size_t wn)
{
    const char *we = w + wn;
    for (;;) {
        while (*a == ' ')
            a++;
        while (w < we && *w == ' ')
            w++;
        if (!*a || w == we) return !*a && w == we;
        if (*a++ != *w++) return false;
    }
}

/* Does component c spell w[0..wn)?  With its template arguments when w has some. */
static bool part_is(const name_part *c, const char *w, size_t wn)
{
    const char *lt = memchr(w, '<', wn);
    if (!lt) return strlen(c->base) == wn && !memcmp(c->base, w, wn);
    if (c->args_unknown) return false;
    char full[2 * VXD_PART_TEXT];
    snprintf(full, sizeof full, "%s%s", c->base, c->args);
    return same_spelling(full, w, wn);
}

/* What GCC appends to the symbol of a copy of a function it specialised or split
 * (".constprop.0", ".isra.0", ".part.0", ".cold"), "" if nothing: a mangled name has no
 * '.' of its own. */
static const char *clone_suffix(const char *sym)
{
    const char *dot = strchr(sym, '.');
    return dot ? dot : sym + strlen(sym);
}

/* Does component c, an operator, spell w[0..wn), spaces aside ("operator ()")?  Its
 * template arguments only when w has some. */
static bool part_is_operator(const name_part *c, const char *w, size_t wn)
{
    if (strncmp(c->base, "operator", 8) != 0) return false;
    if (same_spelling(c->base, w, wn)) return true;
    if (c->args_unknown || !c->args[0]) return false;
    char full[2 * VXD_PART_TEXT];
    snprintf(full, sizeof full, "%s%s", c->base, c->args);
    return same_spelling(full, w, wn);
}

/* ---- a function's whole signature, "ns::f<int>(int, P const&) const" ------------------------------ */

/*
 * A second reader of mangled names, for the parameter types that tell overloads apart:
 * it keeps the Itanium ABI's substitution table (S_, S0_, ...: earlier prefixes and
 * types; T_, T0_, ...: the function's template arguments), which parameter lists use
 * all the time ("_Z5twiceRK1PS1_": twice(P const&, P const&)).  Types are spelled as
 * c++filt and GDB do ("char const*", "P const&").  Forms not handled here (function
 * and member pointers, arrays, packs, expressions, local entities such as lambdas)
 * make the whole signature unknown.
 */
#define DM_SUBS  64
#define DM_TEXT  256
#define DM_TARGS 16

typedef struct dmstate {
    const char *p, *end; /* the mangled name, up to a clone suffix */
    char subs[DM_SUBS][DM_TEXT];
    size_t nsubs;
    char targs[DM_TARGS][DM_TEXT]; /* the function's template arguments */
    size_t ntargs;
} dmstate;

static bool dm_type(dmstate *d, out_buf *o, unsigned depth);

/* A member function's qualifiers in its <nested-name> (bit i: DMQ_CODES[i]), spelled
 * after its parameters in this order. */
#define DMQ_CODES "KVrRO"
static const char *const dmq_spelling[] = {" const", " volatile", " restrict", " &", " &&"};

static bool dm_sub(dmstate *d, const char *s)
{
    if (d->nsubs == DM_SUBS || strlen(s) >= DM_TEXT) return false;
    strcpy(d->subs[d->nsubs++], s);
    return true;
}

/* The <seq-id> "_" after an S or a T: 0 for "_", else 1 + its base-36 value. */
static bool dm_seq(dmstate *d, size_t *k)
{
    size_t v = 0;
    bool digits = false;
    for (char c; d->p < d->end && (isdigit((unsigned char)(c = *d->p)) || (c >= 'A' && c <= 'Z'));
         d->p++) {
        v = v * 36 + (size_t)(c <= '9' ? c - '0' : c - 'A' + 10);
        if (v > 4096) return false;
        digits = true;
    }
    if (d->p == d->end || *d->p != '_') return false;
    d->p++;
    *k = digits ? v + 1 : 0;
    return true;
}

/* Template arguments "I ... E" appended to o as "<a, b>" (and kept as the function's
 * when `own`). */
static bool dm_targs(dmstate *d, out_buf *o, bool own, unsigned depth)
{
    size_t n = 0;
    d->p++;
    puts_(o, "<");
    while (d->p < d->end && *d->p != 'E') {
        char a[DM_TEXT] = "";
        out_buf ao = {a, sizeof a, 0, false};
        if (*d->p == 'L' ? !literal(&d->p, &ao) : !dm_type(d, &ao, depth + 1)) return false;
        if (ao.full || n == DM_TARGS) return false;
        if (own) strcpy(d->targs[n], a);
        puts_(o, n++ ? ", " : "");
        puts_(o, a);
    }
    if (d->p == d->end) return false;
    d->p++;
    if (own) d->ntargs = n;
    if (o->len && o->s[o->len - 1] == '>') puts_(o, " "); /* "f<g<int> >", as c++filt */
    puts_(o, ">");
    return !o->full;
}

/* A <source-name> that ends within the mangled name (not in a clone suffix after it). */
static bool dm_source_name(dmstate *d, const char **s, size_t *n)
{
    const char *q = d->p;
    if (!source_name(&q, s, n) || q > d->end) return false;
    d->p = q;
    return true;
}

/*
 * A <nested-name> "N ... E" into o: a class type (`type`: every prefix and the whole
 * name are candidates, the caller adds the whole) or a function's name (the last
 * component is not a candidate; its template arguments are the function's: *tmpl; a
 * member function's qualifiers: *quals, DMQ_*; a constructor, destructor or conversion: *notype, which
 * has no return type in the mangling).
 */
static bool dm_nested(dmstate *d, out_buf *o, bool type, bool *tmpl, unsigned *quals, bool *notype,
                      unsigned depth)
{
    const size_t from = o->len;
    char last[DM_TEXT] = ""; /* the last component's name, for a constructor's */
    size_t comps = 0;
    d->p++;
    for (; d->p < d->end && strchr(DMQ_CODES, *d->p); d->p++)
        if (quals) *quals |= 1u << (strchr(DMQ_CODES, *d->p) - DMQ_CODES);
    if (d->end - d->p >= 2 && d->p[0] == 'S' && d->p[1] == 't') {
        puts_(o, "std");
        d->p += 2;
        comps++;
    } else if (d->p < d->end && (*d->p == 'S' || *d->p == 'T')) {
        const char c = *d->p++;
        size_t k;
        if (!dm_seq(d, &k) || k >= (c == 'S' ? d->nsubs : d->ntargs)) return false;
        puts_(o, c == 'S' ? d->subs[k] : d->targs[k]);
        if (c == 'T' && !dm_sub(d, o->s + from)) return false;
        comps++;
    }
    while (d->p < d->end && *d->p != 'E') {
        const char *s;
        size_t n;
        bool name = true;
        if (*d->p == 'I') {
            if (!comps || !dm_targs(d, o, !type, depth)) return false;
            name = false;
        } else if (dm_source_name(d, &s, &n)) {
            puts_(o, comps ? "::" : "");
            const size_t at = o->len;
            put_source(o, s, n);
            snprintf(last, sizeof last, "%s", o->s + at);
        } else if ((d->p[0] == 'C' && d->p[1] >= '1' && d->p[1] <= '3') ||
                   (d->p[0] == 'D' && d->p[1] >= '0' && d->p[1] <= '2')) {
            if (!comps) return false;
            puts_(o, d->p[0] == 'D' ? "::~" : "::");
            puts_(o, last);
            d->p += 2;
            if (notype) *notype = true;
        } else {
            char op[DM_TEXT];
            if (d->p[0] == 'c' && d->p[1] == 'v' && notype) *notype = true;
            if (!operator_name(&d->p, op, sizeof op)) return false;
            puts_(o, comps ? "::" : "");
            puts_(o, op);
        }
        comps++;
        const bool final = d->p < d->end && *d->p == 'E';
        if (tmpl) *tmpl = !name && final;
        /* a prefix, or a template's name before its arguments, is a candidate; the
         * whole name is the caller's (a type) or none (a function) */
        if (!final && !dm_sub(d, o->s + from)) return false;
        if (o->full) return false;
    }
    if (d->p == d->end) return false;
    d->p++;
    return comps > 0;
}

/* A <type> into o (and into the substitution table when it is a candidate). */
static bool dm_type(dmstate *d, out_buf *o, unsigned depth)
{
    static const char *const abbrev[][2] = {{"a", "std::allocator"}, {"b", "std::basic_string"},
                                            {"s", "std::string"},    {"i", "std::istream"},
                                            {"o", "std::ostream"},   {"d", "std::iostream"}};
    static const char *const dtypes[][2] = {
        {"n", "decltype(nullptr)"}, {"s", "char16_t"}, {"i", "char32_t"}, {"u", "char8_t"}};
    char t[DM_TEXT] = "";
    out_buf to = {t, sizeof t, 0, false};
    if (depth > 16 || d->p >= d->end) return false;
    const char c = *d->p;
    const char *s;
    size_t n;
    if (builtin_type(c)) { /* (not candidates) */
        d->p++;
        puts_(o, builtin_type(c));
        return !o->full;
    }
    if (c == 'D' && d->p + 1 < d->end) {
        for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
            if (d->p[1] == dtypes[i][0][0]) {
                d->p += 2;
                puts_(o, dtypes[i][1]);
                return !o->full;
            }
        return false;
    }
    if (c == 'P' || c == 'R' || c == 'O') {
        d->p++;
        if (!dm_type(d, &to, depth + 1)) return false;
        puts_(&to, c == 'P' ? "*" : c == 'R' ? "&" : "&&");
    } else if (c == 'r' || c == 'V' || c == 'K') {
        bool q[3] = {false, false, false}; /* const, volatile, restrict */
        for (; d->p < d->end && strchr("rVK", *d->p); d->p++)
            q[*d->p == 'K' ? 0 : *d->p == 'V' ? 1 : 2] = true;
        if (!dm_type(d, &to, depth + 1)) return false;
        puts_(&to, q[0] ? " const" : "");
        puts_(&to, q[1] ? " volatile" : "");
        puts_(&to, q[2] ? " restrict" : "");
    } else if (c == 'N') {
        if (!dm_nested(d, &to, true, NULL, NULL, NULL, depth)) return false;
    } else if (c == 'T') {
        size_t k;
        d->p++;
        if (!dm_seq(d, &k) || k >= d->ntargs) return false;
        puts_(&to, d->targs[k]);
        if (d->p < d->end && *d->p == 'I' && (!dm_sub(d, t) || !dm_targs(d, &to, false, depth)))
            return false;
    } else if (c == 'S' && d->p + 1 < d->end && d->p[1] != 't' &&
               !isdigit((unsigned char)d->p[1]) && d->p[1] != '_' &&
               !(d->p[1] >= 'A' && d->p[1] <= 'Z')) {
        size_t i = 0; /* Sa, Ss, ...: not candidates themselves */
        while (i < sizeof abbrev / sizeof abbrev[0] && d->p[1] != abbrev[i][0][0])
            i++;
        if (i == sizeof abbrev / sizeof abbrev[0]) return false;
        d->p += 2;
        puts_(&to, abbrev[i][1]);
        if (d->p >= d->end || *d->p != 'I') {
            puts_(o, t);
            return !o->full;
        }
        if (!dm_targs(d, &to, false, depth)) return false;
    } else if (c == 'S' && d->p[1] != 't') {
        size_t k;
        d->p++;
        if (!dm_seq(d, &k) || k >= d->nsubs) return false;
        puts_(&to, d->subs[k]);
        if (d->p >= d->end || *d->p != 'I') { /* a substitution is no new candidate */
            puts_(o, t);
            return !o->full;
        }
        if (!dm_targs(d, &to, false, depth)) return false;
    } else {
        if (c == 'S') { /* St <source-name> */
            d->p += 2;
            puts_(&to, "std::");
        }
        if (!dm_source_name(d, &s, &n)) return false;
        put_source(&to, s, n);
        if (d->p < d->end && *d->p == 'I' && (!dm_sub(d, t) || !dm_targs(d, &to, false, depth)))
            return false;
    }
    if (to.full || !dm_sub(d, t)) return false;
    puts_(o, t);
    return !o->full;
}

/* A <type> (type_name) or template arguments "I ... E" (template_args) at *p, spelled
 * into o, where no substitution is known (a name's components); false for a form not
 * handled here. */
static bool dm_alone(const char **p, out_buf *o, bool args, unsigned depth)
{
    dmstate *d = malloc(sizeof *d);
    if (!d) return false;
    d->p = *p;
    d->end = *p + strlen(*p);
    d->nsubs = d->ntargs = 0;
    bool ok = args ? dm_targs(d, o, false, depth) : dm_type(d, o, depth);
    if (ok) *p = d->p;
    free(d);
    return ok;
}

static bool type_name(const char **p, out_buf *o, unsigned depth)
{
    return dm_alone(p, o, false, depth);
}

static bool template_args(const char **p, out_buf *o)
{
    return dm_alone(p, o, true, 0);
}

/*
 * The signature of mangled function symbol sym: its qualified name with its parameter
 * types, " const" for a const member function, then GCC's clone suffix
 * ("geo::Buf<int, 4>::at(int) const", "twice(int).constprop.0"), into sig; the return
 * type of a function template (which the mangling holds) into ret, "" for the others.
 * False when sym is no mangled function or has a form not handled here.
 */
static bool signature(const char *sym, char *sig, size_t cap, char *ret, size_t rcap)
{
    if (strncmp(sym, "_Z", 2) != 0) return false;
    dmstate *d = malloc(sizeof *d);
    if (!d) return false;
    d->p = sym + 2;
    d->end = clone_suffix(sym);
    d->nsubs = d->ntargs = 0;
    out_buf o = {sig, cap, 0, false}, r = {ret, rcap, 0, false};
    sig[0] = ret[0] = 0;
    bool ok = true, tmpl = false, notype = false;
    unsigned quals = 0;
    const char *s;
    size_t n;
    if (d->p < d->end && *d->p == 'L') d->p++;
    if (d->p < d->end && *d->p == 'N') {
        ok = dm_nested(d, &o, false, &tmpl, &quals, &notype, 0);
    } else {
        char op[DM_TEXT];
        if (d->end - d->p >= 2 && d->p[0] == 'S' && d->p[1] == 't') {
            d->p += 2;
            puts_(&o, "std::");
        }
        if (dm_source_name(d, &s, &n)) {
            put_source(&o, s, n);
        } else if (d->p[0] == 'c' && d->p[1] == 'v') {
            ok = false; /* (a conversion is a member: nested) */
        } else if ((ok = operator_name(&d->p, op, sizeof op))) {
            puts_(&o, op);
        }
        if (ok && d->p < d->end && *d->p == 'I') /* the template's name is a candidate */
            ok = dm_sub(d, sig) && dm_targs(d, &o, true, 0) && (tmpl = true);
    }
    /* a function has parameters: a data object's name ends here */
    ok = ok && d->p < d->end;
    if (ok && tmpl && !notype) ok = dm_type(d, &r, 0);
    puts_(&o, "(");
    if (ok && d->p + 1 == d->end && *d->p == 'v') d->p++;
    for (bool first = true; ok && d->p < d->end; first = false) {
        puts_(&o, first ? "" : ", ");
        ok = dm_type(d, &o, 0);
    }
    puts_(&o, ")");
    /* as c++filt and GDB: "f() const volatile &&" */
    for (size_t i = 0; i < sizeof dmq_spelling / sizeof dmq_spelling[0]; i++)
        puts_(&o, quals & (1u << i) ? dmq_spelling[i] : "");
    puts_(&o, d->end);
    free(d);
    return ok && !o.full && !r.full;
}

/* Do a and w spell the same, spaces aside, or does a end with "::" and w so? */
static bool same_tail(const char *a, const char *w)
{
    char x[2 * DM_TEXT], y[2 * DM_TEXT];
    size_t i = 0, j = 0;
    for (; *a && i + 1 < sizeof x; a++)
        if (*a != ' ') x[i++] = *a;
    for (; *w && j + 1 < sizeof y; w++)
        if (*w != ' ') y[j++] = *w;
    if (*a || *w || !j) return false; /* (too long to be a name we spell) */
    x[i] = y[j] = 0;
    return i >= j && !strcmp(x + i - j, y) &&
           (i == j || (i - j >= 2 && !strncmp(x + i - j - 2, "::", 2)));
}

/* Is the mangled function sym called name with its parameter types ("twice(float)",
 * "ns::f<int>(int)", with or without a template's return type or the clone suffix)? */
static bool matches_signature(const char *sym, const char *name)
{
    char sig[DM_TEXT], ret[DM_TEXT], full[2 * DM_TEXT + 1];
    if (!strchr(name, '(') || !signature(sym, sig, sizeof sig, ret, sizeof ret)) return false;
    if (same_tail(sig, name)) return true;
    const char *clone = clone_suffix(sym);
    size_t base = strlen(sig) - strlen(clone); /* without the clone suffix */
    snprintf(full, sizeof full, "%.*s", (int)base, sig);
    if (same_tail(full, name)) return true;
    if (!ret[0]) return false;
    /* "int ns::id<int>(int)": the return type, then the whole name */
    size_t rl = strlen(ret);
    while (*name == ' ')
        name++;
    if (strncmp(name, ret, rl) != 0 || name[rl] != ' ') return false;
    return same_tail(sig, name + rl + 1) || same_tail(full, name + rl + 1);
}

/* "ns::f<int>" for a mangled symbol whose name mangled_parts reads and spells whole
 * (malloc'd); NULL when it is not one (*oom: out of memory). */
static char *qualified_name(const char *sym, bool *oom)
{
    name_part parts[VXD_MAX_PARTS];
    size_t n = mangled_parts(sym, parts), len = 1;
    if (!n) return NULL;
    const char *clone = clone_suffix(sym);
    len += strlen(clone);
    for (size_t i = 0; i < n; i++) {
        if (parts[i].args_unknown) return NULL;
        len += strlen(parts[i].base) + strlen(parts[i].args) + 2;
    }
    char *q = malloc(len);
    if (!q) {
        *oom = true;
        return NULL;
    }
    q[0] = 0;
    for (size_t i = 0; i < n; i++) {
        if (i) strcat(q, "::");
        strcat(q, parts[i].base);
        strcat(q, parts[i].args);
    }
    strcat(q, clone);
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
 * another symbol would be shown the same; such overloads are shown with their
 * parameter types ("math::over(float)") when every one of them has a signature we
 * spell and no two spell the same, else with their ELF names. */
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
        bool sigs = true;
        char **sig = calloc(j - i, sizeof *sig);
        if (!sig) {
            free(c);
            return VX_ERR_NOMEM;
        }
        for (size_t k = i; k < j && sigs; k++) {
            char text[DM_TEXT], ret[DM_TEXT];
            sigs = signature(t->syms[c[k].i].name, text, sizeof text, ret, sizeof ret) &&
                   (sig[k - i] = strdup(text)) != NULL;
            for (size_t m = i; m < k && sigs; m++)
                sigs = strcmp(sig[m - i], text) != 0;
        }
        for (size_t k = i; k < j; k++) {
            vxd_sym *s = &t->syms[c[k].i];
            if (s->shown != s->name) free(s->shown);
            s->shown = sigs ? sig[k - i] : s->name;
            if (!sigs) free(sig[k - i]);
        }
        free(sig);
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
    if (matches_signature(sym->name, name)) return true;
    /* a copy GCC made of a function (f.constprop.0, f.isra.0, f.part.0, f.cold) is
     * named with its suffix, as the listing shows it, or by its function's name: at -O2
     * most small C++ member functions are such copies */
    const char *clone = clone_suffix(sym->name), *end = name + strlen(name);
    size_t cl = strlen(clone);
    if (cl && (size_t)(end - name) > cl && !strcmp(end - cl, clone)) end -= cl;
    name_part parts[VXD_MAX_PARTS];
    size_t n = mangled_parts(sym->name, parts);
    if (!n) /* C: the name before the suffix */
        return cl && (size_t)(end - name) == (size_t)(clone - sym->name) &&
               !memcmp(sym->name, name, (size_t)(end - name));
    /* an operator is the last component, whatever its characters ("operator<<",
     * "operator->", "operator()") */
    for (const char *op = end; op > name;) {
        op--;
        /* (not a name that only begins so: namespace operators, class operator_pool) */
        if (end - op >= 8 && !strncmp(op, "operator", 8) &&
            (op + 8 == end || !(isalnum((unsigned char)op[8]) || op[8] == '_')) &&
            (op == name || (op - name >= 2 && op[-1] == ':' && op[-2] == ':'))) {
            if (!part_is_operator(&parts[--n], op, (size_t)(end - op))) return false;
            if (op == name) return true;
            end = op - 2;
            if (end == name) return false; /* a leading "::" */
            break;
        }
    }
    /* name is "a::b<x::y>::c": its components (split at "::" outside <...>) must be the
     * last ones of the symbol's */
    while (end > name) {
        const char *start = end;
        int angle = 0;
        while (start > name) {
            if (start[-1] == '>') angle++;
            if (start[-1] == '<') angle--;
            if (!angle && start - name >= 2 && start[-1] == ':' && start[-2] == ':') break;
            start--;
        }
        if (!n || !part_is(&parts[--n], start, (size_t)(end - start))) return false;
        end = start > name ? start - 2 : start;
        if (start > name && end == name) return false; /* a leading "::" */
    }
    return true;
}

bool vxd_symtab_matches_at(const vxd_symtab *t, size_t i, const char *name)
{
    if (vxd_symtab_matches(&t->syms[i], name)) return true;
    for (size_t k = 0; k < t->naliases; k++) /* (few: a linear look is enough) */
        if (t->aliases[k].sym == i) {
            const vxd_sym a = {t->syms[i].addr, t->syms[i].size, t->aliases[k].name,
                               t->aliases[k].name};
            if (vxd_symtab_matches(&a, name)) return true;
        }
    return false;
}

size_t vxd_symtab_match_count(const vxd_symtab *t, const char *name, const vxd_sym **first)
{
    size_t n = 0;
    *first = NULL;
    for (size_t i = 0; i < t->n; i++)
        if (vxd_symtab_matches_at(t, i, name) && !n++) *first = &t->syms[i];
    return n;
}
