/*
 * fuzz-lines.c - libFuzzer harness: any bytes as a .debug_line section (and as its
 * .debug_line_str, so that string offsets land somewhere), and as a whole kernel ELF,
 * given to the line-table reader (tools/common/lines.c); then lookups, the text of a
 * line and the code of every file's lines.  Nothing may crash, leak or read out of
 * bounds; every answer must be a row of the table.
 */
#include <stdlib.h>
#include <string.h>

#include "lines.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void use(const vxd_lines *t)
{
    static const uint32_t pcs[] = {0,           4,           0x80000000u, 0x80000004u,
                                   0x80000100u, 0x8000fffcu, 0xfffffffcu};
    char buf[64];
    for (size_t i = 0; i < sizeof pcs / sizeof pcs[0]; i++) {
        const vxd_line_row *r = vxd_lines_lookup(t, pcs[i]);
        if (r && (r < t->rows || r >= t->rows + t->nrows || r->file >= t->nfiles)) abort();
        vxd_lines_format(t, pcs[i], buf, sizeof buf);
    }
    for (size_t s = 0; s < t->nseqs && s < 8; s++) {
        const vxd_line_row *r = vxd_lines_lookup(t, t->seqs[s].lo);
        if (r && r->file >= t->nfiles) abort();
    }
    for (size_t f = 0; f < t->nfiles && f < 8; f++) {
        vxd_range *rg;
        size_t n;
        uint32_t next;
        const char *a, *b;
        (void)vxd_lines_files_named(t, t->files[f].shown, &a, &b);
        if (vxd_lines_code(t, t->files[f].shown, 1 + (uint32_t)f, &rg, &n, &next) == VX_OK) {
            for (size_t i = 1; i < n; i++)
                if (rg[i].lo <= rg[i - 1].hi) abort(); /* in order, merged */
            free(rg);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char msg[128];
    vxd_lines t;
    if (vxd_lines_parse(&t, data, size, data, size, NULL, 0, msg, sizeof msg) == VX_OK) use(&t);
    vxd_lines_release(&t);
    if (vxd_lines_load(&t, 1, data, size, msg, sizeof msg) == VX_OK) use(&t);
    vxd_lines_release(&t);
    return 0;
}
