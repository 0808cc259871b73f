/*
 * lines.h - source lines of a kernel image: the DWARF line tables (.debug_line, versions
 * 2 to 5) of an ELF, read with libelf from memory, so that a PC reads as vecadd.c:31 in
 * vxsim's and vxrec's fault and race reports, vxdump's listing and vxdiff's divergence,
 * and vxdump --pc FILE:LINE selects the issues of a line.
 *
 * A PC maps to the last row of its line-table sequence at or before it (as binutils'
 * addr2line does: of several rows at one address, the last).  Rows with line 0 (code
 * the compiler made up) and PCs outside every sequence have no line.  Images without
 * line tables (vxbin, raw binaries, ELFs built without -g or stripped) give an empty
 * table.  The tables come from someone else's file: every length, offset and index in
 * them is checked; a damaged table gives what was read before the damage.
 */
#ifndef VXD_LINES_H
#define VXD_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "vx_err.h"

typedef struct vxd_line_row {
    uint32_t addr, line;
    uint32_t file; /* index in vxd_lines.files */
} vxd_line_row;

typedef struct vxd_line_seq {
    uint32_t lo, hi; /* the addresses it covers: [lo, hi) */
    size_t first, n; /* its rows */
} vxd_line_seq;

/* The sequence that gives the lines of [lo, the next span's lo): seq, or none
 * (VXD_LINE_NOSEQ).  Where sequences overlap (dropped functions at 0, or a damaged
 * file), the one starting last (of several at one address, the last in the file). */
typedef struct vxd_line_span {
    uint32_t lo, seq;
} vxd_line_span;

#define VXD_LINE_NOSEQ UINT32_MAX

typedef struct vxd_line_file {
    char *path;  /* as the tables give it: the directory joined with the name */
    char *shown; /* for people: path without the compilation directory when it lies
                    under it (kernel/examples/vecadd.c), else path (the same pointer) */
    char *norm;  /* path without "." components and with "d/.." gone (sub/../inc.h is
                    inc.h): one file reached by two paths (else path, the same pointer) */
} vxd_line_file;

typedef struct vxd_lines {
    vxd_line_row *rows;
    size_t nrows;
    vxd_line_seq *seqs; /* sorted by lo */
    size_t nseqs;
    vxd_line_span *spans; /* sorted by lo, disjoint: a lookup is two binary searches */
    size_t nspans;
    vxd_line_file *files;
    size_t nfiles;
} vxd_lines;

/*
 * Read the line tables of an image of vx_image_kind `kind` (only an ELF has them).
 * No tables, a damaged ELF or damaged tables give what could be read, VX_OK and, for
 * damage, a note in msg (empty else).  Only VX_ERR_NOMEM is an error.
 */
vx_err vxd_lines_load(vxd_lines *t, uint8_t kind, const uint8_t *image, size_t len, char *msg,
                      size_t cap);
/* The same from an ELF open with libelf (vxd_elf_open). */
struct Elf;
vx_err vxd_lines_from_elf(vxd_lines *t, struct Elf *e, char *msg, size_t cap);
/* The same from the section contents themselves (line_str and str may be NULL). */
vx_err vxd_lines_parse(vxd_lines *t, const uint8_t *line, size_t len, const uint8_t *line_str,
                       size_t line_str_len, const uint8_t *str, size_t str_len, char *msg,
                       size_t cap);
void vxd_lines_release(vxd_lines *t); /* accepts an empty (zeroed) table */

/* The row giving pc's source line, or NULL. */
const vxd_line_row *vxd_lines_lookup(const vxd_lines *t, uint32_t pc);

/* "vecadd.c:31" (the file's shown name, control characters as \xNN: vis.h) into buf
 * (cap bytes, cut to fit), or "" when pc has no line; the length written. */
size_t vxd_lines_format(const vxd_lines *t, uint32_t pc, char *buf, size_t cap);

/*
 * Does file f of t match name: equal to its path, or a tail of it that starts after a
 * '/' (vecadd.c and examples/vecadd.c name kernel/examples/vecadd.c); or the same of
 * their normalized forms (inc.h names sub/../inc.h).
 */
bool vxd_lines_file_matches(const vxd_lines *t, uint32_t f, const char *name);

typedef struct vxd_range {
    uint32_t lo, hi; /* [lo, hi) */
} vxd_range;

/*
 * The code of source line `line` of the files `file` names (vxd_lines_file_matches):
 * the address ranges of every row with that line, merged and in order, into *out (n
 * of them, malloc'ed; none: NULL and 0), and in *next the first line after it with code
 * in those files (0: none).  Only VX_ERR_NOMEM is an error.
 */
vx_err vxd_lines_code(const vxd_lines *t, const char *file, uint32_t line, vxd_range **out,
                      size_t *n, uint32_t *next);

/* How many different files (normalized paths) `name` names; the first two paths in
 * *first and *second (NULL when fewer). */
size_t vxd_lines_files_named(const vxd_lines *t, const char *name, const char **first,
                             const char **second);

#endif
