/*
 * t-lines.c - the DWARF line-table reader (tools/common/lines.c) on tables built here
 * byte by byte: a version 5 unit (names as strings, rows at one address, a line 0, two
 * files, several sequences), a version 4 unit (include directories, a minimum
 * instruction length of 4, define_file), a 64-bit DWARF version 5 unit (names in
 * .debug_line_str), a VLIW unit (3 operations per instruction: op_index arithmetic,
 * fixed_advance_pc, a sequence without set_address), a version 5 unit of other forms
 * (.debug_str names, data2 / data8 / block fields, a relative compilation directory),
 * a unit in "/" with sequences out of order and an empty one; each expected answer is
 * worked out by hand from the program (binutils' objdump --dwarf=decodedline decodes
 * the same rows from these bytes).  Random overlapping sequences against a walk.
 * Then every truncation and many damaged bytes: never a crash (this test runs under
 * ASan+UBSan too), every answer a row of the table, and the units before a cut read as
 * before.  A hostile table of many overlapping sequences: lookups stay fast.
 * tests/t6005-lines.py checks real kernels against binutils' addr2line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lines.h"
#include "tap.h"

typedef struct buf {
    uint8_t b[4096];
    size_t n;
} buf;

static void u8(buf *b, unsigned v)
{
    b->b[b->n++] = (uint8_t)v;
}

static void un(buf *b, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        u8(b, (unsigned)(v >> (8 * i)) & 0xff);
}

static void uleb(buf *b, uint64_t v)
{
    do {
        u8(b, (unsigned)(v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        v >>= 7;
    } while (v);
}

static void sleb(buf *b, int64_t v)
{
    for (;;) {
        const unsigned byte = (unsigned)(v & 0x7f);
        v >>= 7; /* arithmetic */
        const int done = (v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40));
        u8(b, byte | (done ? 0 : 0x80));
        if (done) return;
    }
}

static void str(buf *b, const char *s)
{
    memcpy(b->b + b->n, s, strlen(s) + 1);
    b->n += strlen(s) + 1;
}

static void put_at(buf *b, size_t at, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        b->b[at + i] = (uint8_t)(v >> (8 * i));
}

/* opcodes */
enum {
    COPY = 1,
    ADV_PC,
    ADV_LINE,
    SET_FILE,
    SET_COL,
    NEG_STMT,
    CONST_ADD = 8,
    FIXED_ADV
};

static void set_address(buf *b, uint32_t a)
{
    u8(b, 0);
    uleb(b, 5);
    u8(b, 2);
    un(b, a, 4);
}

static void end_seq(buf *b)
{
    u8(b, 0);
    uleb(b, 1);
    u8(b, 1);
}

static const uint8_t std_len[12] = {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};

/* The parameters every unit here shares: line_base -5, line_range 14, opcode_base 13. */
static void params(buf *b, unsigned min_len, unsigned version)
{
    u8(b, min_len);
    if (version >= 4) u8(b, 1); /* max ops */
    u8(b, 1);                   /* default is_stmt */
    u8(b, (uint8_t)-5);
    u8(b, 14);
    u8(b, 13);
    for (int i = 0; i < 12; i++)
        u8(b, std_len[i]);
}

/* special opcode for an address advance of a (operations) and a line advance of l */
static unsigned special(unsigned a, int l)
{
    return (unsigned)(l + 5) + 14u * a + 13u;
}

/* Unit 1, version 5, 32-bit. */
static void unit_v5(buf *b)
{
    const size_t start = b->n;
    un(b, 0, 4); /* unit_length, patched */
    un(b, 5, 2);
    u8(b, 4); /* address size */
    u8(b, 0); /* segment selector size */
    const size_t hl = b->n;
    un(b, 0, 4); /* header_length, patched */
    params(b, 1, 5);
    u8(b, 1); /* directory formats: path string */
    uleb(b, 1);
    uleb(b, 0x08);
    uleb(b, 2);
    str(b, "/home/u/proj");
    str(b, "src");
    u8(b, 3); /* file formats: path string, directory udata, MD5 data16 */
    uleb(b, 1);
    uleb(b, 0x08);
    uleb(b, 2);
    uleb(b, 0x0f);
    uleb(b, 5);
    uleb(b, 0x1e);
    uleb(b, 2);
    str(b, "a.c");
    uleb(b, 1);
    for (int i = 0; i < 16; i++)
        u8(b, 0xaa);
    str(b, "/abs/b.h");
    uleb(b, 0);
    for (int i = 0; i < 16; i++)
        u8(b, 0xbb);
    put_at(b, hl, b->n - hl - 4, 4);
    /* sequence 1 */
    u8(b, SET_FILE);
    uleb(b, 0);
    set_address(b, 0x80000000u);
    u8(b, ADV_LINE);
    sleb(b, 9);
    u8(b, COPY);          /* 0x80000000 a.c:10 */
    u8(b, special(8, 1)); /* 0x80000008 a.c:11 */
    u8(b, ADV_LINE);
    sleb(b, 5);
    u8(b, SET_COL);
    uleb(b, 7);
    u8(b, COPY); /* 0x80000008 a.c:16 (the last row at this address) */
    u8(b, SET_FILE);
    uleb(b, 1);
    u8(b, FIXED_ADV);
    un(b, 4, 2);
    u8(b, ADV_LINE);
    sleb(b, -14);
    u8(b, NEG_STMT);
    u8(b, COPY);      /* 0x8000000c b.h:2 */
    u8(b, CONST_ADD); /* + (255-13)/14 = 17 -> 0x8000001d */
    u8(b, ADV_LINE);
    sleb(b, -2);
    u8(b, COPY); /* 0x8000001d line 0 */
    u8(b, 0);    /* set_discriminator: skipped */
    uleb(b, 2);
    u8(b, 4);
    uleb(b, 3);
    u8(b, ADV_PC);
    uleb(b, 3);
    end_seq(b); /* ends at 0x80000020 */
    /* sequence 2 */
    set_address(b, 0x80000100u);
    u8(b, SET_FILE);
    uleb(b, 0);
    u8(b, ADV_LINE);
    sleb(b, 99);
    u8(b, COPY); /* 0x80000100 a.c:100 */
    u8(b, ADV_PC);
    uleb(b, 8);
    end_seq(b); /* ends at 0x80000108 */
    /* sequence 3: a function the linker dropped (address 0) */
    set_address(b, 0);
    u8(b, COPY);
    u8(b, ADV_PC);
    uleb(b, 4);
    end_seq(b);
    put_at(b, start, b->n - start - 4, 4);
}

/* Unit 2, version 4: include directories, minimum instruction length 4 (also as
 * version 3, whose header has no maximum_operations_per_instruction). */
static void unit_v4_as(buf *b, unsigned version)
{
    const size_t start = b->n;
    un(b, 0, 4);
    un(b, version, 2);
    const size_t hl = b->n;
    un(b, 0, 4);
    params(b, 4, version);
    str(b, "inc");
    u8(b, 0); /* end of directories */
    str(b, "k.c");
    uleb(b, 0);
    uleb(b, 0);
    uleb(b, 0);
    str(b, "h.h");
    uleb(b, 1);
    uleb(b, 0);
    uleb(b, 0);
    u8(b, 0); /* end of files */
    put_at(b, hl, b->n - hl - 4, 4);
    set_address(b, 0x90000000u);
    u8(b, ADV_LINE);
    sleb(b, 4);
    u8(b, COPY);          /* 0x90000000 k.c:5 (file 1: the first) */
    u8(b, special(2, 3)); /* 2 ops x 4 = 0x90000008 k.c:8 */
    u8(b, 0);             /* define_file (version 4): skipped */
    uleb(b, 8);
    u8(b, 3);
    str(b, "x.c");
    uleb(b, 0);
    uleb(b, 0);
    uleb(b, 0);
    u8(b, SET_FILE);
    uleb(b, 2);
    u8(b, ADV_LINE);
    sleb(b, -7);
    u8(b, special(1, 0)); /* 0x9000000c inc/h.h:1 */
    u8(b, ADV_PC);
    uleb(b, 1); /* 0x90000010 */
    end_seq(b);
    put_at(b, start, b->n - start - 4, 4);
}

static void unit_v4(buf *b)
{
    unit_v4_as(b, 4);
}

/* Unit 3, 64-bit DWARF version 5, names in .debug_line_str (ls). */
static void unit_v5_64(buf *b, buf *ls)
{
    const size_t off_dir = ls->n;
    str(ls, "/w");
    const size_t off_file = ls->n;
    str(ls, "deep/z.c");
    const size_t start = b->n;
    un(b, 0xffffffffu, 4);
    un(b, 0, 8);
    un(b, 5, 2);
    u8(b, 4);
    u8(b, 0);
    const size_t hl = b->n;
    un(b, 0, 8);
    params(b, 1, 5);
    u8(b, 1);
    uleb(b, 1);
    uleb(b, 0x1f); /* line_strp */
    uleb(b, 1);
    un(b, off_dir, 8);
    u8(b, 2);
    uleb(b, 1);
    uleb(b, 0x1f);
    uleb(b, 2);
    uleb(b, 0x0b); /* directory index as data1 */
    uleb(b, 1);
    un(b, off_file, 8);
    u8(b, 0);
    put_at(b, hl, b->n - hl - 8, 8);
    u8(b, SET_FILE);
    uleb(b, 0);
    set_address(b, 0xa0000000u);
    u8(b, ADV_LINE);
    sleb(b, 41);
    u8(b, COPY); /* 0xa0000000 deep/z.c:42 */
    u8(b, ADV_PC);
    uleb(b, 4);
    end_seq(b);
    put_at(b, start + 4, b->n - start - 12, 8);
}

/*
 * Version 4, minimum instruction length 4 and 3 operations per instruction (VLIW: an
 * address advance is in operations, DWARF 5 section 6.2.5.1), file v.c.  Each row's
 * (address, op_index) worked out by hand below; the lookups want the address.
 */
static void unit_vliw(buf *b)
{
    const size_t start = b->n;
    un(b, 0, 4);
    un(b, 4, 2);
    const size_t hl = b->n;
    un(b, 0, 4);
    u8(b, 4); /* minimum_instruction_length */
    u8(b, 3); /* maximum_operations_per_instruction */
    u8(b, 1);
    u8(b, (uint8_t)-5);
    u8(b, 14);
    u8(b, 13);
    for (int i = 0; i < 12; i++)
        u8(b, std_len[i]);
    u8(b, 0); /* no include directories */
    str(b, "v.c");
    uleb(b, 0);
    uleb(b, 0);
    uleb(b, 0);
    u8(b, 0);
    put_at(b, hl, b->n - hl - 4, 4);
    set_address(b, 0xb0000000u); /* (0xb0000000, 0) */
    u8(b, ADV_LINE);
    sleb(b, 9);
    u8(b, COPY); /* 0xb0000000 v.c:10 */
    u8(b, ADV_PC);
    uleb(b, 2);           /* op 2, the address stays */
    u8(b, special(2, 1)); /* op 2+2 = 4: address + 4 * (4/3), op 1: 0xb0000004 v.c:11 */
    u8(b, ADV_PC);
    uleb(b, 4); /* op 1+4 = 5: + 4 * (5/3) = 0xb0000008, op 2 */
    u8(b, FIXED_ADV);
    un(b, 0x10, 2);              /* + 0x10 (not times 4), op 0: 0xb0000018 */
    u8(b, special(1, 1));        /* op 1, the address stays: 0xb0000018 v.c:12 */
    set_address(b, 0xb0000020u); /* op 0 again */
    u8(b, special(2, 1));        /* op 2: 0xb0000020 v.c:13 */
    u8(b, CONST_ADD);     /* (255-13)/14 = 17 operations: op 19, + 4 * 6 = 0xb0000038, op 1 */
    u8(b, special(0, 1)); /* 0xb0000038 v.c:14 */
    u8(b, ADV_LINE);
    sleb(b, 10);
    u8(b, 13); /* special opcode 13 (= opcode_base): no advance, line -5: 0xb0000038 v.c:19 */
    u8(b, ADV_PC);
    uleb(b, 2); /* op 1+2 = 3: 0xb000003c, op 0 */
    end_seq(b);
    /* a sequence with no set_address starts at address 0, op 0, line 1 */
    u8(b, ADV_PC);
    uleb(b, 3);  /* op 3: 0x4, op 0 */
    u8(b, COPY); /* 0x4 v.c:1 */
    u8(b, ADV_PC);
    uleb(b, 3); /* 0x8 */
    end_seq(b);
    put_at(b, start, b->n - start - 4, 4);
}

/*
 * Version 5 with other forms: directories as offsets into .debug_str (DW_FORM_strp),
 * the compilation directory relative ("." as -fdebug-prefix-map=DIR=. leaves it); files
 * with a DW_FORM_data8 timestamp, a DW_FORM_data2 directory index, a DW_FORM_block
 * size.  .debug_str goes in *st.
 */
static void unit_v5_forms(buf *b, buf *st)
{
    str(st, "not a directory");
    const size_t off_comp = st->n;
    str(st, ".");
    const size_t off_lib = st->n;
    str(st, "lib");
    const size_t start = b->n;
    un(b, 0, 4);
    un(b, 5, 2);
    u8(b, 4);
    u8(b, 0);
    const size_t hl = b->n;
    un(b, 0, 4);
    params(b, 1, 5);
    u8(b, 1);      /* directory formats */
    uleb(b, 1);    /* DW_LNCT_path */
    uleb(b, 0x0e); /* DW_FORM_strp */
    uleb(b, 2);
    un(b, off_comp, 4);
    un(b, off_lib, 4);
    u8(b, 4);      /* file formats */
    uleb(b, 1);    /* DW_LNCT_path */
    uleb(b, 0x08); /* DW_FORM_string */
    uleb(b, 3);    /* DW_LNCT_timestamp */
    uleb(b, 0x07); /* DW_FORM_data8 */
    uleb(b, 4);    /* DW_LNCT_size */
    uleb(b, 0x09); /* DW_FORM_block */
    uleb(b, 2);    /* DW_LNCT_directory_index */
    uleb(b, 0x05); /* DW_FORM_data2 */
    uleb(b, 2);
    str(b, "m.c");
    un(b, 0x0102030405060708ull, 8);
    uleb(b, 2);
    un(b, 0x0101, 2);
    un(b, 0, 2);
    str(b, "u.h");
    un(b, 0x0807060504030201ull, 8);
    uleb(b, 130); /* a block whose length takes two bytes */
    for (int i = 0; i < 130; i++)
        u8(b, 0xcc);
    un(b, 1, 2);
    put_at(b, hl, b->n - hl - 4, 4);
    u8(b, SET_FILE);
    uleb(b, 0);
    set_address(b, 0xc0000000u);
    u8(b, ADV_LINE);
    sleb(b, 4);
    u8(b, COPY); /* 0xc0000000 ./m.c:5 */
    u8(b, SET_FILE);
    uleb(b, 1);
    u8(b, special(4, 2)); /* 0xc0000004 ./lib/u.h:7 */
    u8(b, ADV_PC);
    uleb(b, 4);
    end_seq(b); /* 0xc0000008 */
    put_at(b, start, b->n - start - 4, 4);
}

/*
 * Version 5, the compilation directory "/" (file r.c in it: shown as r.c), and
 * sequences not in address order: [0x100, 0x300) with r.c:4 at 0x100 and r.c:5 at
 * 0x280; [0x200, 0x210) with r.c:5 (inside the first: its own line there, the last
 * to start); an empty one at 0x400 (a row, no addresses); [0x500, 0x510) with its
 * rows out of address order (r.c:7 at 0x508 first, then r.c:8 at 0x500).
 */
static void unit_root(buf *b)
{
    const size_t start = b->n;
    un(b, 0, 4);
    un(b, 5, 2);
    u8(b, 4);
    u8(b, 0);
    const size_t hl = b->n;
    un(b, 0, 4);
    params(b, 1, 5);
    u8(b, 1);
    uleb(b, 1);
    uleb(b, 0x08);
    uleb(b, 1);
    str(b, "/");
    u8(b, 2);
    uleb(b, 1);
    uleb(b, 0x08);
    uleb(b, 2);
    uleb(b, 0x0f);
    uleb(b, 1);
    str(b, "r.c");
    uleb(b, 0);
    put_at(b, hl, b->n - hl - 4, 4);
    u8(b, SET_FILE);
    uleb(b, 0);
    set_address(b, 0x100);
    u8(b, ADV_LINE);
    sleb(b, 3);
    u8(b, COPY); /* 0x100 r.c:4 */
    u8(b, ADV_PC);
    uleb(b, 0x180);
    u8(b, ADV_LINE);
    sleb(b, 1);
    u8(b, COPY); /* 0x280 r.c:5 */
    u8(b, ADV_PC);
    uleb(b, 0x80);
    end_seq(b); /* 0x300 */
    u8(b, SET_FILE);
    uleb(b, 0);
    set_address(b, 0x200);
    u8(b, ADV_LINE);
    sleb(b, 4);
    u8(b, COPY); /* 0x200 r.c:5 */
    u8(b, ADV_PC);
    uleb(b, 0x10);
    end_seq(b); /* 0x210 */
    u8(b, SET_FILE);
    uleb(b, 0);
    set_address(b, 0x400);
    u8(b, COPY);
    end_seq(b); /* [0x400, 0x400): empty */
    u8(b, SET_FILE);
    uleb(b, 0);
    set_address(b, 0x508);
    u8(b, ADV_LINE);
    sleb(b, 6);
    u8(b, COPY); /* 0x508 r.c:7 */
    set_address(b, 0x500);
    u8(b, ADV_LINE);
    sleb(b, 1);
    u8(b, COPY); /* 0x500 r.c:8: rows out of order, put in order */
    u8(b, ADV_PC);
    uleb(b, 0x10);
    end_seq(b); /* 0x510 */
    put_at(b, start, b->n - start - 4, 4);
}

/* A version 4 unit of n sequences (file s.c): sequence i is [lo[i], hi[i]) with one
 * row, line i + 1, at lo[i]. */
static void unit_seqs(buf *b, const uint32_t *lo, const uint32_t *hi, size_t n)
{
    const size_t start = b->n;
    un(b, 0, 4);
    un(b, 4, 2);
    const size_t hl = b->n;
    un(b, 0, 4);
    params(b, 1, 4);
    u8(b, 0);
    str(b, "s.c");
    uleb(b, 0);
    uleb(b, 0);
    uleb(b, 0);
    u8(b, 0);
    put_at(b, hl, b->n - hl - 4, 4);
    for (size_t i = 0; i < n; i++) {
        set_address(b, lo[i]);
        u8(b, ADV_LINE);
        sleb(b, (int64_t)i);
        u8(b, COPY);
        u8(b, ADV_PC);
        uleb(b, hi[i] - lo[i]);
        end_seq(b);
    }
    put_at(b, start, b->n - start - 4, 4);
}

typedef struct want {
    uint32_t pc;
    const char *path; /* NULL: no line */
    uint32_t line;
    int unit;
} want;

static const want wants[] = {
    {0x7ffffffcu, NULL, 0, 1},
    {0x80000000u, "/home/u/proj/src/a.c", 10, 1},
    {0x80000004u, "/home/u/proj/src/a.c", 10, 1},
    {0x80000008u, "/home/u/proj/src/a.c", 16, 1},
    {0x8000000cu, "/abs/b.h", 2, 1},
    {0x8000001cu, "/abs/b.h", 2, 1},
    {0x8000001du, NULL, 0, 1},
    {0x8000001fu, NULL, 0, 1},
    {0x80000020u, NULL, 0, 1},
    {0x80000100u, "/home/u/proj/src/a.c", 100, 1},
    {0x80000107u, "/home/u/proj/src/a.c", 100, 1},
    {0x80000108u, NULL, 0, 1},
    {0x00000000u, "/abs/b.h", 1, 1}, /* a new sequence starts at file 1: b.h in version 5 */
    {0x90000000u, "k.c", 5, 2},
    {0x90000004u, "k.c", 5, 2},
    {0x90000008u, "k.c", 8, 2},
    {0x9000000cu, "inc/h.h", 1, 2},
    {0x90000010u, NULL, 0, 2},
    {0xa0000000u, "/w/deep/z.c", 42, 3},
    {0xa0000003u, "/w/deep/z.c", 42, 3},
    {0xa0000004u, NULL, 0, 3},
};

/* The wants of units 1..units (only: the wants of unit -only). */
static int check_units(const vxd_lines *t, int units, int only, const char *what)
{
    int bad = 0;
    for (size_t i = 0; i < sizeof wants / sizeof wants[0]; i++) {
        const want *w = &wants[i];
        if (w->unit > units || (only && w->unit != only)) continue;
        const vxd_line_row *r = vxd_lines_lookup(t, w->pc);
        const char *path = r ? t->files[r->file].path : NULL;
        const int good = w->path ? r && !strcmp(path, w->path) && r->line == w->line : !r;
        if (!good) {
            diag("%s: 0x%08x: got %s:%u, want %s:%u", what, w->pc, path ? path : "-",
                 r ? r->line : 0, w->path ? w->path : "-", w->line);
            bad++;
        }
    }
    return bad;
}

static int check_all(const vxd_lines *t, int units, const char *what)
{
    return check_units(t, units, 0, what);
}

/* Every answer must be a row of the table with a file of the table. */
static int sane(const vxd_lines *t)
{
    for (uint32_t pc = 0; pc < 0x200; pc++) {
        const uint32_t bases[] = {0, 0x80000000u, 0x90000000u, 0xa0000000u};
        for (int k = 0; k < 4; k++) {
            const vxd_line_row *r = vxd_lines_lookup(t, bases[k] + pc);
            if (!r) continue;
            if (r < t->rows || r >= t->rows + t->nrows || r->file >= t->nfiles || !r->line)
                return 0;
            char s[64];
            vxd_lines_format(t, bases[k] + pc, s, sizeof s);
        }
    }
    return 1;
}

/*
 * A version 4 unit of one sequence [0, 0xf0000000) at line 7 of big.c, then n empty
 * ones [0, 1) after it (6 bytes each): every PC past 1 has its line from the first
 * sequence, which n later ones start with and overlap.  Malloc'ed, its length in *len.
 */
static uint8_t *overlapping(size_t n, size_t *len)
{
    static buf h;
    h.n = 0;
    un(&h, 0, 4); /* unit_length, patched */
    un(&h, 4, 2);
    const size_t hl = h.n;
    un(&h, 0, 4);
    params(&h, 1, 4);
    u8(&h, 0); /* no include directories */
    str(&h, "big.c");
    uleb(&h, 0);
    uleb(&h, 0);
    uleb(&h, 0);
    u8(&h, 0);
    put_at(&h, hl, h.n - hl - 4, 4);
    u8(&h, ADV_LINE);
    sleb(&h, 6);
    u8(&h, COPY);
    u8(&h, ADV_PC);
    uleb(&h, 0xf0000000u);
    end_seq(&h);
    static const uint8_t empty[6] = {COPY, ADV_PC, 1, 0, 1, 1};
    *len = h.n + n * sizeof empty;
    uint8_t *b = malloc(*len);
    if (!b) return NULL;
    memcpy(b, h.b, h.n);
    for (size_t i = 0; i < n; i++)
        memcpy(b + h.n + i * sizeof empty, empty, sizeof empty);
    for (unsigned i = 0; i < 4; i++)
        b[i] = (uint8_t)((*len - 4) >> (8 * i));
    return b;
}

/* A version 4 unit naming n files d/a.c (d = 0..n-1) twice each, and one sequence of
 * the first.  Malloc'ed, its length in *len. */
static uint8_t *many_files(size_t n, size_t *len)
{
    uint8_t *b = malloc(64 + n * 2 * 16);
    if (!b) return NULL;
    static buf h;
    h.n = 0;
    un(&h, 0, 4);
    un(&h, 4, 2);
    un(&h, 0, 4);
    params(&h, 1, 4);
    u8(&h, 0); /* no include directories */
    memcpy(b, h.b, h.n);
    size_t k = h.n;
    for (size_t i = 0; i < 2 * n; i++) {
        k += (size_t)sprintf((char *)b + k, "%zu/a.c", i % n) + 1;
        b[k++] = 0; /* directory, time, length */
        b[k++] = 0;
        b[k++] = 0;
    }
    b[k++] = 0;
    for (unsigned i = 0; i < 4; i++) /* header_length */
        b[6 + i] = (uint8_t)((k - 10) >> (8 * i));
    h.n = 0;
    set_address(&h, 0x80000000u);
    u8(&h, COPY);
    u8(&h, ADV_PC);
    uleb(&h, 4);
    end_seq(&h);
    memcpy(b + k, h.b, h.n);
    k += h.n;
    for (unsigned i = 0; i < 4; i++)
        b[i] = (uint8_t)((k - 4) >> (8 * i));
    *len = k;
    return b;
}

/* Version 4, one header by two paths: inc.h (the compilation directory) and
 * sub/../inc.h (a unit in sub/ including "../inc.h"), each with line 3;
 * /a/./b/../c/d.h line 9. */
static void unit_two_paths(buf *b)
{
    const size_t start = b->n;
    un(b, 0, 4);
    un(b, 4, 2);
    const size_t hl = b->n;
    un(b, 0, 4);
    params(b, 1, 4);
    str(b, "sub");
    str(b, "/a/./b/../c");
    u8(b, 0);
    const char *names[] = {"inc.h", "../inc.h", "d.h"};
    for (unsigned i = 0; i < 3; i++) {
        str(b, names[i]);
        uleb(b, i); /* directory 0, 1, 2 */
        uleb(b, 0);
        uleb(b, 0);
    }
    u8(b, 0);
    put_at(b, hl, b->n - hl - 4, 4);
    set_address(b, 0x100);
    u8(b, ADV_LINE);
    sleb(b, 2);
    u8(b, COPY); /* 0x100 inc.h:3 */
    u8(b, SET_FILE);
    uleb(b, 2);
    u8(b, ADV_PC);
    uleb(b, 4);
    u8(b, COPY); /* 0x104 sub/../inc.h:3 */
    u8(b, SET_FILE);
    uleb(b, 3);
    u8(b, ADV_LINE);
    sleb(b, 6);
    u8(b, ADV_PC);
    uleb(b, 4);
    u8(b, COPY); /* 0x108 /a/c/d.h:9 */
    u8(b, ADV_PC);
    uleb(b, 4);
    end_seq(b);
    put_at(b, start, b->n - start - 4, 4);
}

int main(void)
{
    static buf line, ls;
    unit_v5(&line);
    const size_t end1 = line.n;
    unit_v4(&line);
    const size_t end2 = line.n;
    unit_v5_64(&line, &ls);
    const size_t end3 = line.n;

    vxd_lines t;
    char msg[128];
    is_int(vxd_lines_parse(&t, line.b, line.n, ls.b, ls.n, NULL, 0, msg, sizeof msg), VX_OK,
           "three units parse");
    is_str(msg, "", "no note for sound tables");
    is_int(check_all(&t, 3, "whole"), 0, "every PC gives the hand-worked line");
    is_int((long long)t.nseqs, 5, "five sequences (3 + 1 + 1)");

    char s[64];
    vxd_lines_format(&t, 0x80000000u, s, sizeof s);
    is_str(s, "src/a.c:10", "shown without the compilation directory");
    vxd_lines_format(&t, 0x8000000cu, s, sizeof s);
    is_str(s, "/abs/b.h:2", "a file outside it: its path");
    vxd_lines_format(&t, 0x9000000cu, s, sizeof s);
    is_str(s, "inc/h.h:1", "version 4: directory joined");
    vxd_lines_format(&t, 0xa0000000u, s, sizeof s);
    is_str(s, "deep/z.c:42", "64-bit DWARF, names in .debug_line_str");
    ok(vxd_lines_format(&t, 0x8000001du, s, sizeof s) == 0 && !s[0], "line 0: no text");
    vxd_lines_format(&t, 0x80000000u, s, 6);
    is_str(s, "src/a", "cut to the buffer");

    /* file names */
    const vxd_line_row *r = vxd_lines_lookup(&t, 0x80000000u);
    ok(r && vxd_lines_file_matches(&t, r->file, "a.c"), "a.c names src/a.c");
    ok(r && vxd_lines_file_matches(&t, r->file, "proj/src/a.c"), "so does proj/src/a.c");
    ok(r && vxd_lines_file_matches(&t, r->file, "/home/u/proj/src/a.c"), "and its path");
    ok(r && !vxd_lines_file_matches(&t, r->file, "c"), "a tail not after a / does not");
    ok(r && !vxd_lines_file_matches(&t, r->file, "x/a.c"), "nor another directory");
    const char *a, *b;
    is_int((long long)vxd_lines_files_named(&t, "a.c", &a, &b), 1, "one file called a.c");
    is_str(a, "/home/u/proj/src/a.c", "its path");
    is_int((long long)vxd_lines_files_named(&t, "h", &a, &b), 0, "none called h");

    /* the code of a line */
    vxd_range *rg;
    size_t n;
    uint32_t next;
    is_int(vxd_lines_code(&t, "a.c", 10, &rg, &n, &next), VX_OK, "code of a.c:10");
    ok(n == 1 && rg[0].lo == 0x80000000u && rg[0].hi == 0x80000008u, "a.c:10 is [0x80000000, 8)");
    /* line 11's row has no length (line 16 follows it at its address): the next line
     * with code is 16, as vxdump --pc names it ("no code at line 11" else followed) */
    ok(next == 16, "after a.c:10 the next line with code is 16, not 11 (%u)", next);
    free(rg);
    vxd_lines_code(&t, "a.c", 100, &rg, &n, &next);
    ok(n == 1 && rg[0].lo == 0x80000100u && rg[0].hi == 0x80000108u, "a.c:100 is [0x80000100, 8)");
    free(rg);
    vxd_lines_code(&t, "a.c", 11, &rg, &n, &next);
    ok(n == 0 && !rg && next == 16, "a.c:11 has no code (a row of no length); the next is 16");
    vxd_lines_code(&t, "a.c", 101, &rg, &n, &next);
    ok(n == 0 && next == 0, "nothing after a.c:100");
    vxd_lines_code(&t, "k.c", 8, &rg, &n, &next);
    ok(n == 1 && rg[0].lo == 0x90000008u && rg[0].hi == 0x9000000cu, "k.c:8 is [0x90000008, 4)");
    free(rg);
    vxd_lines_release(&t);

    /* every truncation: no crash, sane answers, whole units before the cut as before */
    int fails = 0, kept = 0;
    for (size_t cut = 0; cut <= line.n; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1); /* exactly cut bytes: ASan sees overreads */
        memcpy(copy, line.b, cut);
        vxd_lines u;
        if (vxd_lines_parse(&u, copy, cut, ls.b, ls.n, NULL, 0, msg, sizeof msg) != VX_OK ||
            !sane(&u))
            fails++;
        const int units = cut >= end3 ? 3 : cut >= end2 ? 2 : cut >= end1 ? 1 : 0;
        if (check_all(&u, units, "cut")) fails++;
        if (units && cut != end1 && cut != end2 && cut != end3 && !msg[0]) fails++;
        kept += units > 0;
        vxd_lines_release(&u);
        free(copy);
    }
    is_int(fails, 0, "%zu truncations: the units before the cut read, a note for the cut one",
           line.n + 1);
    ok(kept > 0, "some truncations keep whole units");

    /* damaged bytes: each byte xor'ed with eight patterns */
    static const uint8_t pat[] = {0x01, 0x02, 0x04, 0x10, 0x40, 0x80, 0x7f, 0xff};
    fails = 0;
    for (size_t i = 0; i < line.n; i++)
        for (size_t k = 0; k < sizeof pat; k++) {
            uint8_t *copy = malloc(line.n);
            memcpy(copy, line.b, line.n);
            copy[i] ^= pat[k];
            vxd_lines u;
            /* (a damaged later unit may give rows anywhere: only sanity is checked) */
            if (vxd_lines_parse(&u, copy, line.n, ls.b, ls.n, NULL, 0, msg, sizeof msg) != VX_OK ||
                !sane(&u))
                fails++;
            vxd_lines_release(&u);
            free(copy);
        }
    is_int(fails, 0, "%zu damaged tables: no crash, every answer a row of the table",
           line.n * sizeof pat);

    /* a version this reader does not know ends the reading there */
    static buf v6;
    unit_v5(&v6);
    const size_t e = v6.n;
    unit_v5(&v6);
    put_at(&v6, e + 4, 6, 2);
    vxd_lines_parse(&t, v6.b, v6.n, NULL, 0, NULL, 0, msg, sizeof msg);
    ok(strstr(msg, "damaged line table at offset") != NULL, "version 6: a note (%s)", msg);
    is_int(check_all(&t, 1, "v6"), 0, "the unit before it is read");
    vxd_lines_release(&t);

    /* many sequences overlapping one: a lookup is not a walk through all of them */
    size_t olen;
    uint8_t *ob = overlapping(200000, &olen);
    ok(ob != NULL, "a table of 200,001 sequences");
    is_int(vxd_lines_parse(&t, ob, olen, NULL, 0, NULL, 0, msg, sizeof msg), VX_OK, "it parses");
    is_int((long long)t.nseqs, 200001, "every sequence kept");
    const clock_t c0 = clock();
    int wrong = 0;
    for (uint32_t k = 0; k < 40000; k++) {
        const vxd_line_row *rr = vxd_lines_lookup(&t, 0x80000000u + 4 * k);
        if (!rr || rr->line != 7) wrong++;
    }
    const double secs = (double)(clock() - c0) / CLOCKS_PER_SEC;
    is_int(wrong, 0, "every PC past 1 in big.c:7");
    ok(secs < 2.0, "40,000 lookups in %.3f s (walking the 200,000 back took seconds)", secs);
    vxd_lines_format(&t, 0, s, sizeof s);
    is_str(s, "big.c:1", "PC 0: the line of the last sequence holding it");
    vxd_lines_release(&t);
    free(ob);

    /* a name many files share: counted without comparing each with all before it */
    uint8_t *fb = many_files(50000, &olen);
    ok(fb != NULL, "a table of 100,000 files");
    is_int(vxd_lines_parse(&t, fb, olen, NULL, 0, NULL, 0, msg, sizeof msg), VX_OK,
           "it parses (%s)", msg);
    is_int((long long)t.nfiles, 100000, "every file kept");
    const clock_t c1 = clock();
    const size_t named = vxd_lines_files_named(&t, "a.c", &a, &b);
    const double fsecs = (double)(clock() - c1) / CLOCKS_PER_SEC;
    is_int((long long)named, 50000, "a.c names 50,000 paths (each twice)");
    ok(a && b && !strcmp(a, "0/a.c") && !strcmp(b, "1/a.c"), "the first two in order");
    ok(fsecs < 2.0, "counted in %.3f s", fsecs);
    is_int((long long)vxd_lines_files_named(&t, "7/a.c", &a, &b), 1, "7/a.c: one path, twice");
    ok(a && !strcmp(a, "7/a.c") && !b, "its path, no second");
    vxd_lines_release(&t);
    free(fb);

    /* one header by two paths is one file: --pc inc.h:3 takes both */
    static buf two;
    unit_two_paths(&two);
    is_int(vxd_lines_parse(&t, two.b, two.n, NULL, 0, NULL, 0, msg, sizeof msg), VX_OK,
           "a header by two paths");
    vxd_lines_format(&t, 0x104, s, sizeof s);
    is_str(s, "sub/../inc.h:3", "shown as the table gives it");
    is_int((long long)vxd_lines_files_named(&t, "inc.h", &a, &b), 1,
           "inc.h and sub/../inc.h: one file");
    ok(a && !strcmp(a, "inc.h") && !b, "named by its first path");
    is_int(vxd_lines_code(&t, "inc.h", 3, &rg, &n, &next), VX_OK, "the code of inc.h:3");
    ok(n == 1 && rg[0].lo == 0x100 && rg[0].hi == 0x108, "both rows: [0x100, 0x108)");
    free(rg);
    r = vxd_lines_lookup(&t, 0x104);
    ok(r && vxd_lines_file_matches(&t, r->file, "./inc.h"), "./inc.h names it");
    ok(r && vxd_lines_file_matches(&t, r->file, "sub/../inc.h"), "so does its own path");
    ok(r && !vxd_lines_file_matches(&t, r->file, "sub/inc.h"), "sub/inc.h does not");
    r = vxd_lines_lookup(&t, 0x108);
    ok(r && vxd_lines_file_matches(&t, r->file, "/a/c/d.h"), "/a/./b/../c/d.h is /a/c/d.h");
    ok(r && vxd_lines_file_matches(&t, r->file, "c/d.h"), "c/d.h names it");
    ok(r && vxd_lines_file_matches(&t, r->file, "/a/b/../c//d.h"), "as does another spelling");
    ok(r && !vxd_lines_file_matches(&t, r->file, "b/d.h"), "b/d.h does not");
    vxd_lines_release(&t);

    /* version 3 (and 2): no maximum_operations_per_instruction in the header */
    for (unsigned ver = 2; ver <= 3; ver++) {
        static buf v3;
        v3.n = 0;
        unit_v4_as(&v3, ver);
        is_int(vxd_lines_parse(&t, v3.b, v3.n, NULL, 0, NULL, 0, msg, sizeof msg), VX_OK,
               "version %u parses", ver);
        is_str(msg, "", "no note");
        is_int(check_units(&t, 2, 2, ver == 2 ? "v2" : "v3"), 0,
               "version %u: the lines of the version 4 unit", ver);
        vxd_lines_release(&t);
    }

    /* operations per instruction, fixed_advance_pc, opcode_base itself, a sequence
     * without set_address */
    static buf vl;
    unit_vliw(&vl);
    is_int(vxd_lines_parse(&t, vl.b, vl.n, NULL, 0, NULL, 0, msg, sizeof msg), VX_OK,
           "a VLIW unit parses");
    is_str(msg, "", "no note");

    static const struct {
        uint32_t pc, line; /* 0: no line */
    } vw[] = {{0xaffffffcu, 0},  {0xb0000000u, 10}, {0xb0000003u, 10}, {0xb0000004u, 11},
              {0xb0000008u, 11}, {0xb0000017u, 11}, {0xb0000018u, 12}, {0xb000001fu, 12},
              {0xb0000020u, 13}, {0xb0000037u, 13}, {0xb0000038u, 19}, {0xb000003bu, 19},
              {0xb000003cu, 0},  {0x0u, 0},         {0x3u, 0},         {0x4u, 1},
              {0x7u, 1},         {0x8u, 0}};

    for (size_t i = 0; i < sizeof vw / sizeof vw[0]; i++) {
        r = vxd_lines_lookup(&t, vw[i].pc);
        if (vw[i].line)
            ok(r && r->line == vw[i].line && !strcmp(t.files[r->file].path, "v.c"),
               "VLIW: 0x%08x is v.c:%u (got %u)", vw[i].pc, vw[i].line, r ? r->line : 0);
        else
            ok(!r, "VLIW: 0x%08x has no line (got %u)", vw[i].pc, r ? r->line : 0);
    }
    vxd_lines_release(&t);

    /* version 5 forms: strp, data8, data2, block; a relative compilation directory */
    static buf fm, st;
    unit_v5_forms(&fm, &st);
    is_int(vxd_lines_parse(&t, fm.b, fm.n, ls.b, ls.n, st.b, st.n, msg, sizeof msg), VX_OK,
           "version 5 forms parse");
    is_str(msg, "", "no note");
    r = vxd_lines_lookup(&t, 0xc0000000u);
    ok(r && r->line == 5 && !strcmp(t.files[r->file].path, "./m.c"), "0xc0000000: ./m.c:5");
    vxd_lines_format(&t, 0xc0000000u, s, sizeof s);
    is_str(s, "m.c:5", "shown without the compilation directory '.'");
    r = vxd_lines_lookup(&t, 0xc0000007u);
    ok(r && r->line == 7 && !strcmp(t.files[r->file].path, "./lib/u.h"),
       "0xc0000007: ./lib/u.h:7 (a directory relative to '.')");
    vxd_lines_format(&t, 0xc0000004u, s, sizeof s);
    is_str(s, "lib/u.h:7", "shown as lib/u.h");
    ok(!vxd_lines_lookup(&t, 0xc0000008u), "0xc0000008: the end of the sequence");
    vxd_lines_release(&t);

    /* the compilation directory "/", sequences out of order and overlapping, an empty one */
    static buf ro;
    unit_root(&ro);
    is_int(vxd_lines_parse(&t, ro.b, ro.n, NULL, 0, NULL, 0, msg, sizeof msg), VX_OK,
           "a unit in / parses");
    is_int((long long)t.nseqs, 3, "three sequences (the empty one covers nothing)");
    vxd_lines_format(&t, 0x100, s, sizeof s);
    is_str(s, "r.c:4", "a file of the compilation directory / is shown as r.c");

    static const struct {
        uint32_t pc, line;
    } rw[] = {{0xff, 0},  {0x100, 4}, {0x1ff, 4}, {0x200, 5}, {0x20f, 5}, {0x210, 4},
              {0x27f, 4}, {0x280, 5}, {0x2ff, 5}, {0x300, 0}, {0x400, 0}, {0x4ff, 0},
              {0x500, 8}, {0x507, 8}, {0x508, 7}, {0x50f, 7}, {0x510, 0}};

    for (size_t i = 0; i < sizeof rw / sizeof rw[0]; i++) {
        r = vxd_lines_lookup(&t, rw[i].pc);
        ok(rw[i].line ? r && r->line == rw[i].line : !r, "0x%x: line %u (got %u)", rw[i].pc,
           rw[i].line, r ? r->line : 0);
    }
    is_int(vxd_lines_code(&t, "r.c", 5, &rg, &n, &next), VX_OK, "the code of r.c:5");
    ok(n == 2 && rg[0].lo == 0x200 && rg[0].hi == 0x210 && rg[1].lo == 0x280 && rg[1].hi == 0x300,
       "r.c:5 is [0x200, 0x210) and [0x280, 0x300) (%zu ranges)", n);
    free(rg);
    /* no code at line 6: the next line with code is the least above it (7, at 0x508),
     * not the first in address order (8, at 0x500) */
    is_int(vxd_lines_code(&t, "r.c", 6, &rg, &n, &next), VX_OK, "the code of r.c:6");
    ok(n == 0 && next == 7, "r.c:6 has none; the next line with code is 7 (%u)", next);
    free(rg);
    vxd_lines_release(&t);

    /* random overlapping sequences: at each PC the line of the sequence that starts last
     * holding it (of two that start together, the later in the table), as a walk
     * through all of them finds it */
    uint32_t seed = 12345;
    int wrong_seq = 0;
    for (int round = 0; round < 200; round++) {
        enum {
            NS = 48
        };

        uint32_t slo[NS], shi[NS];
        for (size_t i = 0; i < NS; i++) {
            seed = seed * 1103515245u + 12345u;
            slo[i] = 4 * ((seed >> 16) % 48);
            seed = seed * 1103515245u + 12345u;
            shi[i] = slo[i] + 4 * (1 + (seed >> 16) % 24);
        }
        static buf sq;
        sq.n = 0;
        unit_seqs(&sq, slo, shi, NS);
        if (vxd_lines_parse(&t, sq.b, sq.n, NULL, 0, NULL, 0, msg, sizeof msg) != VX_OK) {
            wrong_seq++;
            continue;
        }
        for (uint32_t pc = 0; pc < 4 * 80; pc += 2) {
            long best = -1;
            for (size_t i = 0; i < NS; i++)
                if (slo[i] <= pc && pc < shi[i] && (best < 0 || slo[i] >= slo[best]))
                    best = (long)i;
            r = vxd_lines_lookup(&t, pc);
            if (best < 0 ? r != NULL : !r || r->line != (uint32_t)best + 1) {
                if (!wrong_seq)
                    diag("round %d pc 0x%x: line %u, want %ld", round, pc, r ? r->line : 0,
                         best + 1);
                wrong_seq++;
            }
        }
        vxd_lines_release(&t);
    }
    is_int(wrong_seq, 0, "200 tables of 48 random sequences: every PC's line as a walk finds it");

    /* nothing to read */
    is_int(vxd_lines_parse(&t, NULL, 0, NULL, 0, NULL, 0, msg, sizeof msg), VX_OK, "no section");
    ok(!vxd_lines_lookup(&t, 0x80000000u) && t.nrows == 0, "no section: no lines");
    vxd_lines_release(&t);
    is_int(vxd_lines_load(&t, 2, line.b, line.n, msg, sizeof msg), VX_OK, "not an ELF: VX_OK");
    ok(t.nseqs == 0, "not an ELF: no lines");
    vxd_lines_release(&t);
    return tap_exit();
}
