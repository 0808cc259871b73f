/*
 * lines.c - the DWARF line tables of a kernel image (lines.h).
 *
 * A unit of .debug_line is a header (versions 2-4: directory and file names as strings;
 * version 5: entries described by a list of (content, form) pairs, names as strings or
 * offsets into .debug_line_str or .debug_str) and a program for a state machine whose
 * rows map addresses to lines (DWARF 5, section 6.2).  Each unit is read within its own
 * length; a damaged unit ends the reading there, keeping the rows before it.
 */
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lines.h"
#include "symtab.h"
#include "vis.h"

/* Rows of all the tables, at most: a kernel has thousands (a 52,000-line C file gives
 * 140,000); this bounds what a damaged or hostile file makes us allocate (each row
 * costs at least one byte of program). */
#define MAX_ROWS (1u << 22)
/* The largest compressed section inflated (-gz kernels): a kernel's line table is tens
 * of KiB; a hostile header must not make us allocate much. */
#define MAX_SECTION (32u << 20)

typedef struct cur {
    const uint8_t *p, *end;
    bool bad; /* read past the end, or a value that does not fit */
} cur;

static uint64_t rd_n(cur *c, unsigned n)
{
    if ((size_t)(c->end - c->p) < n) {
        c->bad = true;
        c->p = c->end;
        return 0;
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)c->p[i] << (8 * i);
    c->p += n;
    return v;
}

static uint64_t rd_uleb(cur *c)
{
    uint64_t v = 0;
    for (unsigned sh = 0;; sh += 7) {
        if (c->p >= c->end) {
            c->bad = true;
            return 0;
        }
        const uint8_t b = *c->p++;
        if (sh < 64) v |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80)) return v;
    }
}

static int64_t rd_sleb(cur *c)
{
    uint64_t v = 0;
    unsigned sh = 0;
    uint8_t b;
    do {
        if (c->p >= c->end) {
            c->bad = true;
            return 0;
        }
        b = *c->p++;
        if (sh < 64) v |= (uint64_t)(b & 0x7f) << sh;
        sh += 7;
    } while (b & 0x80);
    if (sh < 64 && (b & 0x40)) v |= ~(uint64_t)0 << sh;
    return (int64_t)v;
}

static void skip(cur *c, uint64_t n)
{
    if ((uint64_t)(c->end - c->p) < n) {
        c->bad = true;
        c->p = c->end;
    } else {
        c->p += n;
    }
}

/* A NUL-terminated string at c (NULL when it runs off the end). */
static const char *rd_str(cur *c)
{
    const uint8_t *z = memchr(c->p, 0, (size_t)(c->end - c->p));
    if (!z) {
        c->bad = true;
        c->p = c->end;
        return NULL;
    }
    const char *s = (const char *)c->p;
    c->p = z + 1;
    return s;
}

/* The string at offset off of a string section (NULL when outside it or unterminated). */
static const char *str_at(const uint8_t *sec, size_t len, uint64_t off)
{
    if (!sec || off >= len || !memchr(sec + off, 0, len - off)) return NULL;
    return (const char *)sec + off;
}

/* ---- building the table ------------------------------------------------------------ */

typedef struct build {
    vxd_lines *t;
    size_t rcap, scap, fcap;
    const uint8_t *line_str, *str;
    size_t line_str_len, str_len;
    bool nomem;
} build;

static bool grow(void **a, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return true;
    size_t n = *cap ? *cap * 2 : 64;
    while (n < need)
        n *= 2;
    void *p = realloc(*a, n * size);
    if (!p) return false;
    *a = p;
    *cap = n;
    return true;
}

static bool absolute(const char *s)
{
    return s[0] == '/';
}

/*
 * path without "." components, "d/.." pairs and repeated '/' (a/./b/../c is a/c; the
 * ".." that start a relative path stay; "/.." is "/"): malloc'ed, or NULL (no memory).
 * Lexical, as the compiler wrote the paths: one file reached by two of them is one.
 */
static char *normalize(const char *path)
{
    const size_t n = strlen(path);
    char *out = malloc(n + 2);
    if (!out) return NULL;
    const bool abs = path[0] == '/';
    size_t o = abs ? 1 : 0, keep = o; /* out[0..keep): ".." that cannot go */
    out[0] = '/';
    for (const char *p = path; *p;) {
        while (*p == '/')
            p++;
        const char *e = p;
        while (*e && *e != '/')
            e++;
        const size_t len = (size_t)(e - p);
        if (!len || (len == 1 && p[0] == '.')) {
            /* nothing */
        } else if (len == 2 && p[0] == '.' && p[1] == '.') {
            if (o > keep) { /* drop the last component */
                while (o > keep && out[o - 1] != '/')
                    o--;
                if (o > keep) o--; /* its '/' */
                if (o < keep) o = keep;
            } else if (!abs) {
                if (o) out[o++] = '/';
                memcpy(out + o, "..", 2);
                o += 2;
                keep = o;
            }
        } else {
            if (o && out[o - 1] != '/') out[o++] = '/';
            memcpy(out + o, p, len);
            o += len;
        }
        p = e;
    }
    if (!o) out[o++] = '.';
    out[o] = 0;
    return out;
}

/* A file of the table: dir (may be NULL or empty) joined with name; comp the
 * compilation directory (may be NULL). Returns its index, or -1 (no memory). */
static long add_file(build *b, const char *comp, const char *dir, const char *name)
{
    vxd_lines *t = b->t;
    if (!grow((void **)&t->files, &b->fcap, t->nfiles + 1, sizeof *t->files)) return -1;
    char *path;
    size_t nd = dir && !absolute(name) ? strlen(dir) : 0, nn = strlen(name);
    path = malloc(nd + 1 + nn + 1);
    if (!path) return -1;
    if (nd) {
        memcpy(path, dir, nd);
        path[nd] = '/';
        memcpy(path + nd + 1, name, nn + 1);
    } else {
        memcpy(path, name, nn + 1);
    }
    char *shown = path;
    size_t nc = comp ? strlen(comp) : 0;
    while (nc > 1 && comp[nc - 1] == '/')
        nc--;
    if (nc && !strncmp(path, comp, nc) && path[nc] == '/' && path[nc + 1]) shown = path + nc + 1;
    if (shown != path) {
        shown = strdup(shown);
        if (!shown) {
            free(path);
            return -1;
        }
    }
    char *norm = normalize(path);
    if (!norm) {
        if (shown != path) free(shown);
        free(path);
        return -1;
    }
    if (!strcmp(norm, path)) {
        free(norm);
        norm = path;
    }
    t->files[t->nfiles].path = path;
    t->files[t->nfiles].shown = shown;
    t->files[t->nfiles].norm = norm;
    return (long)t->nfiles++;
}

/* ---- version 5 entry formats --------------------------------------------------------- */

enum {
    LNCT_path = 1,
    LNCT_directory_index = 2,
};

enum {
    FORM_addr = 0x01,
    FORM_block2 = 0x03,
    FORM_block4 = 0x04,
    FORM_data2 = 0x05,
    FORM_data4 = 0x06,
    FORM_data8 = 0x07,
    FORM_string = 0x08,
    FORM_block = 0x09,
    FORM_block1 = 0x0a,
    FORM_data1 = 0x0b,
    FORM_flag = 0x0c,
    FORM_sdata = 0x0d,
    FORM_strp = 0x0e,
    FORM_udata = 0x0f,
    FORM_sec_offset = 0x17,
    FORM_strx = 0x1a,
    FORM_strp_sup = 0x1d,
    FORM_data16 = 0x1e,
    FORM_line_strp = 0x1f,
    FORM_strx1 = 0x25,
    FORM_strx2 = 0x26,
    FORM_strx3 = 0x27,
    FORM_strx4 = 0x28,
};

/* A value of an entry: a number, or a string (s; NULL when it has another form). */
typedef struct val {
    uint64_t u;
    const char *s;
} val;

/* Read one value of form `form` (offsets osz bytes, addresses asz); false: a form a
 * line table cannot hold (the unit is then not read further). */
static bool rd_form(build *b, cur *c, uint64_t form, unsigned osz, unsigned asz, val *v)
{
    v->u = 0;
    v->s = NULL;
    switch (form) {
    case FORM_string: v->s = rd_str(c); return true;
    case FORM_line_strp:
        v->s = str_at(b->line_str, b->line_str_len, rd_n(c, osz));
        if (!v->s) v->s = "?";
        return true;
    case FORM_strp:
        v->s = str_at(b->str, b->str_len, rd_n(c, osz));
        if (!v->s) v->s = "?";
        return true;
    case FORM_strp_sup:
    case FORM_sec_offset: v->u = rd_n(c, osz); return true;
    case FORM_strx:
    case FORM_udata: v->u = rd_uleb(c); return true;
    case FORM_sdata: v->u = (uint64_t)rd_sleb(c); return true;
    case FORM_data1:
    case FORM_flag:
    case FORM_strx1: v->u = rd_n(c, 1); return true;
    case FORM_data2:
    case FORM_strx2: v->u = rd_n(c, 2); return true;
    case FORM_strx3: v->u = rd_n(c, 3); return true;
    case FORM_data4:
    case FORM_strx4: v->u = rd_n(c, 4); return true;
    case FORM_data8: v->u = rd_n(c, 8); return true;
    case FORM_data16: skip(c, 16); return true;
    case FORM_addr: v->u = rd_n(c, asz); return true;
    case FORM_block1: skip(c, rd_n(c, 1)); return true;
    case FORM_block2: skip(c, rd_n(c, 2)); return true;
    case FORM_block4: skip(c, rd_n(c, 4)); return true;
    case FORM_block: skip(c, rd_uleb(c)); return true;
    default: return false;
    }
}

#define MAX_FORMATS 16u

/* A version 5 directory or file list: count entries described by a format list.  For
 * each entry, its path and directory index into path[i] and dir[i] (arrays of n). */
static bool rd_entries(build *b, cur *c, unsigned osz, unsigned asz, const char ***path,
                       uint64_t **dir, uint64_t *n)
{
    uint64_t ct[MAX_FORMATS], fm[MAX_FORMATS];
    const unsigned nf = (unsigned)rd_n(c, 1);
    if (nf > MAX_FORMATS) return false;
    for (unsigned i = 0; i < nf; i++) {
        ct[i] = rd_uleb(c);
        fm[i] = rd_uleb(c);
    }
    *n = rd_uleb(c);
    /* each entry takes at least a byte per format, or none at all (only with no format) */
    if (c->bad || (*n && (!nf || *n > (uint64_t)(c->end - c->p)))) return false;
    *path = calloc(*n ? *n : 1, sizeof **path);
    *dir = calloc(*n ? *n : 1, sizeof **dir);
    if (!*path || !*dir) {
        b->nomem = true;
        return false;
    }
    for (uint64_t k = 0; k < *n; k++)
        for (unsigned i = 0; i < nf; i++) {
            val v;
            if (!rd_form(b, c, fm[i], osz, asz, &v) || c->bad) return false;
            if (ct[i] == LNCT_path && v.s) (*path)[k] = v.s;
            if (ct[i] == LNCT_directory_index) (*dir)[k] = v.u;
        }
    return true;
}

/* ---- one unit ---------------------------------------------------------------------- */

typedef struct unit {
    unsigned version, osz, asz;
    uint8_t min_len, max_ops, line_range, opcode_base;
    bool default_stmt;
    int8_t line_base;
    uint8_t std_len[256];
    long *files; /* the unit's file numbers -> table file index (-1: no name) */
    uint64_t nfiles;
    uint64_t file_base; /* the number of the first file: 0 (v5) or 1 */
} unit;

/* One row of the program into the table; a sequence's rows are consecutive. */
static bool add_row(build *b, uint64_t addr, uint64_t line, uint64_t file, const unit *u)
{
    vxd_lines *t = b->t;
    if (t->nrows >= MAX_ROWS) return false;
    if (!grow((void **)&t->rows, &b->rcap, t->nrows + 1, sizeof *t->rows)) {
        b->nomem = true;
        return false;
    }
    long f = file >= u->file_base && file - u->file_base < u->nfiles ? u->files[file - u->file_base]
                                                                     : -1;
    t->rows[t->nrows++] =
        (vxd_line_row){(uint32_t)addr, f < 0 || line > UINT32_MAX ? 0 : (uint32_t)line,
                       f < 0 ? UINT32_MAX : (uint32_t)f};
    return true;
}

static int row_cmp(const void *pa, const void *pb)
{
    const vxd_line_row *a = pa, *b = pb;
    return (a->addr > b->addr) - (a->addr < b->addr);
}

/* The end of a sequence at address hi: its rows (from first) become one sequence. */
static bool end_seq(build *b, size_t first, uint64_t hi)
{
    vxd_lines *t = b->t;
    if (t->nrows == first) return true;
    /* rows go up in address in a sequence; a file where they do not is put in order
     * (qsort is not stable: rows at one address keep their order only when they are
     * already in order, which is checked first) */
    bool sorted = true;
    for (size_t i = first + 1; i < t->nrows; i++)
        if (t->rows[i].addr < t->rows[i - 1].addr) sorted = false;
    if (!sorted) qsort(t->rows + first, t->nrows - first, sizeof *t->rows, row_cmp);
    const uint32_t lo = t->rows[first].addr;
    if (hi > UINT32_MAX || hi <= lo) { /* empty or wrapping: no addresses covered */
        t->nrows = first;
        return true;
    }
    if (!grow((void **)&t->seqs, &b->scap, t->nseqs + 1, sizeof *t->seqs)) {
        b->nomem = true;
        return false;
    }
    t->seqs[t->nseqs++] = (vxd_line_seq){lo, (uint32_t)hi, first, t->nrows - first};
    return true;
}

/* Read the header of the unit at c (its own bytes); fills u and the files. */
static bool rd_header(build *b, cur *c, unit *u)
{
    u->version = (unsigned)rd_n(c, 2);
    if (u->version < 2 || u->version > 5) return false;
    if (u->version >= 5) {
        u->asz = (unsigned)rd_n(c, 1);
        (void)rd_n(c, 1); /* segment selector size */
        if (u->asz != 4 && u->asz != 8 && u->asz != 2) return false;
    }
    uint64_t hlen = rd_n(c, u->osz);
    if (c->bad || hlen > (uint64_t)(c->end - c->p)) return false;
    cur h = {c->p, c->p + hlen, false}; /* the rest of the header */
    c->p += hlen;                       /* the program follows it */
    u->min_len = (uint8_t)rd_n(&h, 1);
    u->max_ops = u->version >= 4 ? (uint8_t)rd_n(&h, 1) : 1;
    u->default_stmt = rd_n(&h, 1) != 0;
    u->line_base = (int8_t)rd_n(&h, 1);
    u->line_range = (uint8_t)rd_n(&h, 1);
    u->opcode_base = (uint8_t)rd_n(&h, 1);
    if (h.bad || !u->line_range || !u->max_ops || !u->opcode_base) return false;
    memset(u->std_len, 0, sizeof u->std_len);
    for (unsigned i = 1; i < u->opcode_base; i++)
        u->std_len[i] = (uint8_t)rd_n(&h, 1);
    if (h.bad) return false;

    const char **dpath = NULL, **fpath = NULL;
    uint64_t *ddir = NULL, *fdir = NULL, nd = 0, nfile = 0;
    bool ok = false;
    const char *comp = NULL;
    if (u->version >= 5) {
        if (!rd_entries(b, &h, u->osz, u->asz, &dpath, &ddir, &nd) ||
            !rd_entries(b, &h, u->osz, u->asz, &fpath, &fdir, &nfile))
            goto out;
        comp = nd ? dpath[0] : NULL;
        u->file_base = 0;
    } else {
        /* include_directories: strings up to an empty one; their numbers start at 1 */
        size_t cap = 0;
        nd = 1;
        for (;;) {
            const char *s = rd_str(&h);
            if (!s) goto out;
            if (!*s) break;
            if (!grow((void **)&dpath, &cap, nd + 1, sizeof *dpath)) {
                b->nomem = true;
                goto out;
            }
            dpath[nd++] = s;
        }
        if (!dpath && !(dpath = calloc(1, sizeof *dpath))) {
            b->nomem = true;
            goto out;
        }
        dpath[0] = NULL; /* the compilation directory: not in the line table */
        size_t fc = 0, fdc = 0;
        for (;;) {
            const char *s = rd_str(&h);
            if (!s) goto out;
            if (!*s) break;
            const uint64_t d = rd_uleb(&h);
            (void)rd_uleb(&h); /* modification time */
            (void)rd_uleb(&h); /* length */
            if (h.bad) goto out;
            if (!grow((void **)&fpath, &fc, nfile + 1, sizeof *fpath) ||
                !grow((void **)&fdir, &fdc, nfile + 1, sizeof *fdir)) {
                b->nomem = true;
                goto out;
            }
            fpath[nfile] = s;
            fdir[nfile++] = d;
        }
        u->file_base = 1;
    }
    u->files = calloc(nfile ? nfile : 1, sizeof *u->files);
    if (!u->files) {
        b->nomem = true;
        goto out;
    }
    u->nfiles = nfile;
    for (uint64_t i = 0; i < nfile; i++) {
        const char *dir = fdir[i] < nd ? dpath[fdir[i]] : NULL;
        if (!fpath[i]) {
            u->files[i] = -1;
            continue;
        }
        /* a directory relative to the compilation directory: joined to it */
        char *full = NULL;
        if (dir && !absolute(dir) && comp && fdir[i] != 0) {
            size_t a = strlen(comp), d = strlen(dir);
            full = malloc(a + 1 + d + 1);
            if (!full) {
                b->nomem = true;
                goto out;
            }
            memcpy(full, comp, a);
            full[a] = '/';
            memcpy(full + a + 1, dir, d + 1);
            dir = full;
        }
        u->files[i] = add_file(b, comp, dir, fpath[i]);
        free(full);
        if (u->files[i] < 0) {
            b->nomem = true;
            goto out;
        }
    }
    ok = true;
out:
    free(dpath);
    free(ddir);
    free(fpath);
    free(fdir);
    return ok;
}

/* Run the unit's program (c: its bytes after the header). */
static bool run_program(build *b, cur *c, const unit *u)
{
    vxd_lines *t = b->t;
    uint64_t addr = 0, op = 0, file = 1, line = 1;
    size_t first = t->nrows;
    while (c->p < c->end) {
        const uint8_t o = *c->p++;
        uint64_t adv = 0; /* operation advance */
        bool row = false;
        if (o >= u->opcode_base) { /* special opcode */
            const unsigned a = (unsigned)(o - u->opcode_base);
            adv = a / u->line_range;
            line += (uint64_t)(int64_t)(u->line_base + (int)(a % u->line_range));
            row = true;
        } else if (o == 0) { /* extended */
            const uint64_t n = rd_uleb(c);
            if (c->bad || !n || n > (uint64_t)(c->end - c->p)) return false;
            cur e = {c->p, c->p + n, false};
            c->p += n;
            const uint8_t sub = (uint8_t)rd_n(&e, 1);
            if (sub == 1) { /* end_sequence */
                if (!add_row(b, addr, line, file, u)) return false;
                t->nrows--; /* the end row only gives the sequence's end */
                if (!end_seq(b, first, addr)) return false;
                first = t->nrows;
                addr = op = 0;
                file = 1;
                line = 1;
            } else if (sub == 2) { /* set_address */
                addr = rd_n(&e, n - 1 <= 8 ? (unsigned)(n - 1) : 8);
                op = 0;
            }
            /* 3 define_file (before v5), 4 set_discriminator, others: skipped */
            continue;
        } else {
            switch (o) {
            case 1: row = true; break;                                    /* copy */
            case 2: adv = rd_uleb(c); break;                              /* advance_pc */
            case 3: line += (uint64_t)rd_sleb(c); break;                  /* advance_line */
            case 4: file = rd_uleb(c); break;                             /* set_file */
            case 8: adv = (255u - u->opcode_base) / u->line_range; break; /* const_add_pc */
            case 9:                                                       /* fixed_advance_pc */
                addr += rd_n(c, 2);
                op = 0;
                break;
            default: /* 5 set_column, 6-7, 10-11 flags, 12 set_isa, unknown: skip operands */
                for (unsigned i = 0; i < u->std_len[o]; i++)
                    (void)rd_uleb(c);
                break;
            }
        }
        if (c->bad) return false;
        if (adv) {
            addr += u->min_len * ((op + adv) / u->max_ops);
            op = (op + adv) % u->max_ops;
        }
        if (row && !add_row(b, addr, line, file, u)) return false;
    }
    t->nrows = first; /* rows with no end_sequence after them: no sequence */
    return true;
}

static int seq_cmp(const void *pa, const void *pb)
{
    const vxd_line_seq *a = pa, *b = pb;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    return (a->first > b->first) - (a->first < b->first);
}

/* Append span (lo, seq) unless the last one already has that sequence (lo only grows). */
static bool span_add(vxd_lines *t, size_t *cap, uint32_t lo, uint32_t seq)
{
    if (t->nspans && t->spans[t->nspans - 1].seq == seq) return true;
    if (!grow((void **)&t->spans, cap, t->nspans + 1, sizeof *t->spans)) return false;
    t->spans[t->nspans++] = (vxd_line_span){lo, seq};
    return true;
}

/*
 * The spans of the sorted sequences: at each address the sequence of the greatest
 * index holding it (the last to start).  A sweep over the addresses where that may
 * change, with the sequences begun and not yet ended in a max-heap of their indexes
 * (those that ended under a later one are dropped when they surface): O(n log n) for
 * n sequences however they overlap, where looking back through every sequence that
 * might reach a PC was O(n) a lookup in a hostile table.
 */
static bool make_spans(vxd_lines *t)
{
    const size_t n = t->nseqs;
    uint32_t *heap = malloc(n * sizeof *heap);
    if (!heap) return false;
    size_t nh = 0, i = 0, cap = 0;
    bool ok = true;
    uint64_t x = t->seqs[0].lo;
    for (;;) {
        while (i < n && t->seqs[i].lo == x) { /* push: sift up */
            size_t k = nh++;
            for (; k && heap[(k - 1) / 2] < i; k = (k - 1) / 2)
                heap[k] = heap[(k - 1) / 2];
            heap[k] = (uint32_t)i++;
        }
        while (nh && t->seqs[heap[0]].hi <= x) { /* pop: sift down */
            const uint32_t last = heap[--nh];
            size_t k = 0;
            for (;;) {
                size_t c = 2 * k + 1;
                if (c >= nh) break;
                if (c + 1 < nh && heap[c + 1] > heap[c]) c++;
                if (heap[c] <= last) break;
                heap[k] = heap[c];
                k = c;
            }
            if (nh) heap[k] = last;
        }
        if (!span_add(t, &cap, (uint32_t)x, nh ? heap[0] : VXD_LINE_NOSEQ)) {
            ok = false;
            break;
        }
        uint64_t next = UINT64_MAX;
        if (i < n) next = t->seqs[i].lo;
        if (nh && t->seqs[heap[0]].hi < next) next = t->seqs[heap[0]].hi;
        if (next == UINT64_MAX) break;
        x = next;
    }
    free(heap);
    return ok;
}

vx_err vxd_lines_parse(vxd_lines *t, const uint8_t *line, size_t len, const uint8_t *line_str,
                       size_t line_str_len, const uint8_t *str, size_t str_len, char *msg,
                       size_t cap)
{
    memset(t, 0, sizeof *t);
    if (msg && cap) msg[0] = 0;
    build b = {.t = t,
               .line_str = line_str,
               .line_str_len = line_str ? line_str_len : 0,
               .str = str,
               .str_len = str ? str_len : 0};
    cur c = {line, line ? line + len : NULL, false};
    while (line && c.p < c.end) {
        const size_t at = (size_t)(c.p - line);
        unit u = {.osz = 4, .asz = 4};
        uint64_t ulen = rd_n(&c, 4);
        if (ulen == 0xffffffffu) {
            u.osz = 8;
            ulen = rd_n(&c, 8);
        } else if (ulen >= 0xfffffff0u) {
            c.bad = true;
        }
        if (c.bad || ulen > (uint64_t)(c.end - c.p)) {
            if (msg && cap) snprintf(msg, cap, "damaged line table at offset %zu", at);
            break;
        }
        cur uc = {c.p, c.p + ulen, false};
        c.p += ulen;
        const bool ok = rd_header(&b, &uc, &u) && run_program(&b, &uc, &u);
        free(u.files);
        if (b.nomem) break;
        if (!ok) {
            if (msg && cap) snprintf(msg, cap, "damaged line table at offset %zu", at);
            break;
        }
    }
    if (!b.nomem && t->nseqs) {
        qsort(t->seqs, t->nseqs, sizeof *t->seqs, seq_cmp);
        if (!make_spans(t)) b.nomem = true;
    }
    if (b.nomem) {
        vxd_lines_release(t);
        if (msg && cap) snprintf(msg, cap, "out of memory reading line tables");
        return VX_ERR_NOMEM;
    }
    return VX_OK;
}

/* The contents of the section called name (.debug_xxx; NULL when none, or it holds no
 * bytes), or of its GNU-compressed form .zdebug_xxx (-gz=zlib-gnu). */
static const uint8_t *section(Elf *e, size_t shstrndx, const char *name, size_t *len)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS) continue;
        const char *n = elf_strptr(e, shstrndx, sh.sh_name);
        if (!n) continue;
        const bool gnu = n[0] == '.' && n[1] == 'z' && !strcmp(n + 2, name + 1);
        if (!gnu && strcmp(n, name)) continue;
        /* compressed: inflated in place (in our copy of the image), within reason */
        if (sh.sh_flags & SHF_COMPRESSED) { /* -gz */
            GElf_Chdr ch;
            if (!gelf_getchdr(scn, &ch) || ch.ch_size > MAX_SECTION || elf_compress(scn, 0, 0) != 1)
                return NULL;
        } else if (gnu) { /* "ZLIB", then the size in 8 bytes, big-endian */
            Elf_Data *z = elf_rawdata(scn, NULL);
            if (!z || z->d_size < 12 || memcmp(z->d_buf, "ZLIB", 4)) return NULL;
            uint64_t size = 0;
            for (int i = 4; i < 12; i++)
                size = size << 8 | ((const uint8_t *)z->d_buf)[i];
            if (size > MAX_SECTION || elf_compress_gnu(scn, 0, 0) != 1) return NULL;
        }
        Elf_Data *d = elf_rawdata(scn, NULL);
        if (!d || !d->d_buf || !d->d_size) return NULL;
        *len = d->d_size;
        return d->d_buf;
    }
    return NULL;
}

vx_err vxd_lines_from_elf(vxd_lines *t, struct Elf *e, char *msg, size_t cap)
{
    memset(t, 0, sizeof *t);
    if (msg && cap) msg[0] = 0;
    size_t shstrndx;
    if (elf_getshdrstrndx(e, &shstrndx) != 0) return VX_OK;
    size_t nl = 0, nls = 0, ns = 0;
    const uint8_t *l = section(e, shstrndx, ".debug_line", &nl);
    const uint8_t *ls = section(e, shstrndx, ".debug_line_str", &nls);
    const uint8_t *s = section(e, shstrndx, ".debug_str", &ns);
    return l ? vxd_lines_parse(t, l, nl, ls, nls, s, ns, msg, cap) : VX_OK;
}

vx_err vxd_lines_load(vxd_lines *t, uint8_t kind, const uint8_t *image, size_t len, char *msg,
                      size_t cap)
{
    memset(t, 0, sizeof *t);
    if (msg && cap) msg[0] = 0;
    void *copy = NULL;
    bool nomem = false;
    Elf *e = vxd_elf_open(kind, image, len, &copy, &nomem);
    if (!e) {
        if (nomem && msg && cap) snprintf(msg, cap, "out of memory reading line tables");
        return nomem ? VX_ERR_NOMEM : VX_OK;
    }
    vx_err err = vxd_lines_from_elf(t, e, msg, cap);
    vxd_elf_close(e, copy);
    return err;
}

void vxd_lines_release(vxd_lines *t)
{
    if (!t) return;
    for (size_t i = 0; i < t->nfiles; i++) {
        if (t->files[i].shown != t->files[i].path) free(t->files[i].shown);
        if (t->files[i].norm != t->files[i].path) free(t->files[i].norm);
        free(t->files[i].path);
    }
    free(t->files);
    free(t->rows);
    free(t->seqs);
    free(t->spans);
    memset(t, 0, sizeof *t);
}

const vxd_line_row *vxd_lines_lookup(const vxd_lines *t, uint32_t pc)
{
    size_t lo = 0, hi = t->nspans; /* the last span starting at or before pc */
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (t->spans[mid].lo <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo || t->spans[lo - 1].seq == VXD_LINE_NOSEQ) return NULL;
    const vxd_line_seq *s = &t->seqs[t->spans[lo - 1].seq];
    const vxd_line_row *r = t->rows + s->first;
    size_t a = 0, z = s->n; /* the last row with addr <= pc */
    while (a < z) {
        const size_t mid = a + (z - a) / 2;
        if (r[mid].addr <= pc)
            a = mid + 1;
        else
            z = mid;
    }
    if (!a) return NULL;
    return r[a - 1].line && r[a - 1].file < t->nfiles ? &r[a - 1] : NULL;
}

size_t vxd_lines_format(const vxd_lines *t, uint32_t pc, char *buf, size_t cap)
{
    if (!cap) return 0;
    buf[0] = 0;
    const vxd_line_row *r = vxd_lines_lookup(t, pc);
    if (!r) return 0;
    char text[600];
    snprintf(text, sizeof text, "%s:%u", t->files[r->file].shown, r->line);
    return vx_vis(text, strlen(text), buf, cap, 0);
}

/* Is name p itself or a tail of it after a '/'? */
static bool tail_of(const char *p, const char *name)
{
    const size_t np = strlen(p), nn = strlen(name);
    if (nn > np || strcmp(p + np - nn, name)) return false;
    return nn == np || p[np - nn - 1] == '/';
}

/* file_matches with name's normalized form nname (may be NULL: no memory) */
static bool matches(const vxd_lines *t, uint32_t f, const char *name, const char *nname)
{
    if (f >= t->nfiles || !*name) return false;
    return tail_of(t->files[f].path, name) || (nname && tail_of(t->files[f].norm, nname));
}

bool vxd_lines_file_matches(const vxd_lines *t, uint32_t f, const char *name)
{
    char *n = normalize(name);
    const bool m = matches(t, f, name, n);
    free(n);
    return m;
}

/* Add [lo, hi) to a sorted list of ranges, merging. */
static bool range_add(vxd_range **r, size_t *n, size_t *cap, uint32_t lo, uint32_t hi)
{
    if (*n && (*r)[*n - 1].hi >= lo && (*r)[*n - 1].lo <= lo) {
        if (hi > (*r)[*n - 1].hi) (*r)[*n - 1].hi = hi;
        return true;
    }
    if (!grow((void **)r, cap, *n + 1, sizeof **r)) return false;
    (*r)[(*n)++] = (vxd_range){lo, hi};
    return true;
}

static int range_cmp(const void *pa, const void *pb)
{
    const vxd_range *a = pa, *b = pb;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    return (a->hi > b->hi) - (a->hi < b->hi);
}

vx_err vxd_lines_code(const vxd_lines *t, const char *file, uint32_t line, vxd_range **out,
                      size_t *n, uint32_t *next)
{
    *out = NULL;
    *n = 0;
    *next = 0;
    size_t cap = 0;
    char *nfile = normalize(file);
    if (!nfile) return VX_ERR_NOMEM;
    for (size_t s = 0; s < t->nseqs; s++) {
        const vxd_line_seq *q = &t->seqs[s];
        for (size_t i = 0; i < q->n; i++) {
            const vxd_line_row *r = &t->rows[q->first + i];
            if (!r->line || !matches(t, r->file, file, nfile)) continue;
            const uint32_t hi = i + 1 < q->n ? t->rows[q->first + i + 1].addr : q->hi;
            if (hi <= r->addr) continue; /* a row of no length: no code */
            if (r->line > line && (!*next || r->line < *next)) *next = r->line;
            if (r->line != line) continue;
            if (!range_add(out, n, &cap, r->addr, hi)) {
                free(nfile);
                free(*out);
                *out = NULL;
                *n = 0;
                return VX_ERR_NOMEM;
            }
        }
    }
    free(nfile);
    if (*n > 1) { /* in order, overlapping ones merged */
        qsort(*out, *n, sizeof **out, range_cmp);
        size_t k = 0;
        for (size_t i = 1; i < *n; i++) {
            if ((*out)[i].lo <= (*out)[k].hi) {
                if ((*out)[i].hi > (*out)[k].hi) (*out)[k].hi = (*out)[i].hi;
            } else {
                (*out)[++k] = (*out)[i];
            }
        }
        *n = k + 1;
    }
    return VX_OK;
}

static int path_cmp(const void *pa, const void *pb)
{
    return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

size_t vxd_lines_files_named(const vxd_lines *t, const char *name, const char **first,
                             const char **second)
{
    *first = *second = NULL;
    char *nname = normalize(name);
    const char *fnorm = NULL;
    size_t m = 0;
    for (size_t f = 0; f < t->nfiles; f++)
        if (matches(t, (uint32_t)f, name, nname)) {
            if (!*first) {
                *first = t->files[f].path;
                fnorm = t->files[f].norm;
            } else if (!*second && strcmp(t->files[f].norm, fnorm)) {
                *second = t->files[f].path;
            }
            m++;
        }
    if (!*second) {
        free(nname);
        return m ? 1 : 0;
    }
    /* one file in several units, or by several paths, is one: the different normalized
     * paths counted (sorted, not each compared with all before it: a table may have many) */
    const char **p = malloc(m * sizeof *p);
    if (!p) {
        free(nname);
        return 2; /* at least the two found */
    }
    size_t k = 0;
    for (size_t f = 0; f < t->nfiles; f++)
        if (matches(t, (uint32_t)f, name, nname)) p[k++] = t->files[f].norm;
    free(nname);
    qsort(p, m, sizeof *p, path_cmp);
    size_t distinct = 1;
    for (size_t i = 1; i < m; i++)
        distinct += strcmp(p[i], p[i - 1]) != 0;
    free(p);
    return distinct;
}
