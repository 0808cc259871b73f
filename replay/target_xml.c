/*
 * target_xml.c - register map and target description for GDB (see target_xml.h).
 *
 * Written from the GDB manual's "RISC-V Features" and "Target Description Format"
 * chapters.  `<osabi>none</osabi>` matters: Debian's gdb-multiarch otherwise
 * assumes GNU/Linux, which makes it single-step RISC-V in software (breakpoints
 * on the next PC) instead of sending `vCont;s` and `bs` (research §2.5).
 */
#include "target_xml.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const xnames[32] = {
    "zero", "ra", "sp", "gp", "tp",  "t0",  "t1", "t2", "fp", "s1", "a0",
    "a1",   "a2", "a3", "a4", "a5",  "a6",  "a7", "s2", "s3", "s4", "s5",
    "s6",   "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
};

static const char *const fnames[32] = {
    "ft0", "ft1", "ft2", "ft3", "ft4",  "ft5",  "ft6", "ft7", "fs0",  "fs1",  "fa0",
    "fa1", "fa2", "fa3", "fa4", "fa5",  "fa6",  "fa7", "fs2", "fs3",  "fs4",  "fs5",
    "fs6", "fs7", "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11",
};

/* CSRs shown when the simulator models them.  Standard names where GDB knows them.
 * At most 14 characters: GDB 13 (Debian bookworm) prints 'info registers' values at
 * column 15 with no room for a longer name, which runs into its value (15) or is
 * followed by bytes read past GDB's padding (16 and more); so the Vortex names
 * vx_active_warps and vx_local_mem_base are shortened. */
static const struct {
    uint16_t csr;
    const char *name;
} csr_table[] = {
    {0x300, "mstatus"},        {0x301, "misa"},         {0x304, "mie"},
    {0x305, "mtvec"},          {0x340, "mscratch"},     {0x341, "mepc"},
    {0x342, "mcause"},         {0x343, "mtval"},        {0x344, "mip"},
    {0x7B2, "dscratch0"},      {0x7B3, "dscratch1"},    {0x7B4, "vx_dscratch2"},
    {0x7B5, "vx_dscratch3"},   {0xB00, "mcycle"},       {0xB02, "minstret"},
    {0xB80, "mcycleh"},        {0xB82, "minstreth"},    {0xC00, "cycle"},
    {0xC02, "instret"},        {0xC80, "cycleh"},       {0xC82, "instreth"},
    {0xCC0, "vx_thread_id"},   {0xCC1, "vx_warp_id"},   {0xCC2, "vx_core_id"},
    {0xCC3, "vx_activewarps"}, {0xCC4, "vx_tmask"},     {0xF11, "mvendorid"},
    {0xF12, "marchid"},        {0xF13, "mimpid"},       {0xF14, "mhartid"},
    {0xFC0, "vx_num_threads"}, {0xFC1, "vx_num_warps"}, {0xFC2, "vx_num_cores"},
    {0xFC3, "vx_lmem_base"},
};

vx_err vx_regmap_build(const vx_sim *sim, vx_regmap *map)
{
    size_t cap = 32 + 1 + 32 + 3 + VX_ARRAY_SIZE(csr_table);
    vx_regdesc *r = calloc(cap, sizeof *r);
    if (!r) return VX_ERR_NOMEM;
    uint32_t n = 0;
    for (uint16_t i = 0; i < 32; i++)
        r[n++] = (vx_regdesc){i, VX_RF_X, i, xnames[i], "cpu"};
    r[n++] = (vx_regdesc){VX_REG_PC, VX_REG_FILE_PC, 0, "pc", "cpu"};
    for (uint16_t i = 0; i < 32; i++)
        r[n++] = (vx_regdesc){(uint16_t)(VX_REG_F0 + i), VX_RF_F, i, fnames[i], "fpu"};
    r[n++] = (vx_regdesc){VX_REG_CSR0 + 1, VX_RF_CSR, 1, "fflags", "fpu"};
    r[n++] = (vx_regdesc){VX_REG_CSR0 + 2, VX_RF_CSR, 2, "frm", "fpu"};
    r[n++] = (vx_regdesc){VX_REG_CSR0 + 3, VX_RF_CSR, 3, "fcsr", "fpu"};
    /* csr_table is in ascending CSR order, so regnums stay ascending */
    for (size_t i = 0; i < VX_ARRAY_SIZE(csr_table); i++) {
        uint32_t v;
        if (sim && vx_sim_reg_read(sim, 0, 0, VX_RF_CSR, csr_table[i].csr, &v) != VX_OK) continue;
        r[n++] = (vx_regdesc){(uint16_t)(VX_REG_CSR0 + csr_table[i].csr), VX_RF_CSR,
                              csr_table[i].csr, csr_table[i].name, "csr"};
    }
    map->regs = r;
    map->n = n;
    return VX_OK;
}

void vx_regmap_free(vx_regmap *map)
{
    free(map->regs);
    map->regs = NULL;
    map->n = 0;
}

const vx_regdesc *vx_regmap_find(const vx_regmap *map, uint32_t regnum)
{
    uint32_t lo = 0, hi = map->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (map->regs[mid].regnum < regnum)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < map->n && map->regs[lo].regnum == regnum ? &map->regs[lo] : NULL;
}

typedef struct {
    char *buf;
    size_t len, cap;
    bool failed;
} sbuf;

static void sb_printf(sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_printf(sbuf *s, const char *fmt, ...)
{
    if (s->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
        va_end(ap);
        if (k < 0) {
            s->failed = true;
            return;
        }
        if ((size_t)k < s->cap - s->len) {
            s->len += (size_t)k;
            return;
        }
        size_t ncap = (s->cap + (size_t)k + 1) * 2;
        char *nb = realloc(s->buf, ncap);
        if (!nb) {
            s->failed = true;
            return;
        }
        s->buf = nb;
        s->cap = ncap;
    }
}

char *vx_target_xml(const vx_regmap *map, size_t *len)
{
    sbuf s = {malloc(8192), 0, 8192, false};
    if (!s.buf) return NULL;
    sb_printf(&s, "<?xml version=\"1.0\"?>\n"
                  "<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
                  "<target version=\"1.0\">\n"
                  "<architecture>riscv:rv32</architecture>\n"
                  "<osabi>none</osabi>\n");
    static const char *const features[3][2] = {
        {"cpu", "org.gnu.gdb.riscv.cpu"},
        {"fpu", "org.gnu.gdb.riscv.fpu"},
        {"csr", "org.gnu.gdb.riscv.csr"},
    };
    for (int f = 0; f < 3; f++) {
        uint32_t count = 0;
        for (uint32_t i = 0; i < map->n; i++)
            count += strcmp(map->regs[i].feature, features[f][0]) == 0;
        if (!count) continue;
        sb_printf(&s, "<feature name=\"%s\">\n", features[f][1]);
        for (uint32_t i = 0; i < map->n; i++) {
            const vx_regdesc *r = &map->regs[i];
            if (strcmp(r->feature, features[f][0]) != 0) continue;
            const char *type = "int";
            const char *group = "";
            if (r->file == VX_REG_FILE_PC || (r->file == VX_RF_X && r->reg == 1))
                type = "code_ptr";
            else if (r->file == VX_RF_X && (r->reg == 2 || r->reg == 8))
                type = "data_ptr";
            else if (r->file == VX_RF_F)
                type = "ieee_single";
            if (r->file == VX_RF_CSR)
                group = r->reg <= 3 ? " group=\"float\"" : " group=\"system\"";
            sb_printf(&s, "  <reg name=\"%s\" bitsize=\"32\" type=\"%s\" regnum=\"%u\"%s/>\n",
                      r->name, type, r->regnum, group);
        }
        sb_printf(&s, "</feature>\n");
    }
    sb_printf(&s, "</target>\n");
    if (s.failed) {
        free(s.buf);
        return NULL;
    }
    *len = s.len;
    return s.buf;
}
