/*
 * symtab.h - function symbols of a kernel image, for the tools (vxdump and vxdiff
 * listings, the function a fault is in for vxsim and vxrec).
 *
 * A trace holds the kernel file bytes (FORMAT.md §5.2).  When they are an ELF
 * with a symbol table we read its code symbols with libelf (elf_memory, no
 * file needed) so that PCs can be shown as <main+0x14> and instruction counts
 * grouped per function.  Images without symbols (vxbin, raw binaries, stripped
 * ELFs) give an empty table: every lookup then fails and callers print the
 * bare address.
 */
#ifndef VXD_SYMTAB_H
#define VXD_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lines.h"
#include "vx_err.h"

typedef struct vxd_sym {
    uint32_t addr;
    uint32_t size; /* 0: unknown, the symbol extends to the next one */
    char *name;    /* as in the ELF (JSON output, matching) */
    char *shown;   /* for people: a C++ function's qualified name (ns::f), when no other
                      symbol has that name; else the ELF name (then the same pointer) */
} vxd_sym;

/* Another symbol at a kept symbol's address (an alias: __riscv_save_1 of
 * __riscv_save_0, a C++ C2 constructor of its C1): it names that symbol too. */
typedef struct vxd_alias {
    char *name;
    size_t sym; /* index in syms */
} vxd_alias;

typedef struct vxd_symtab {
    vxd_sym *syms; /* sorted by address, one per address */
    size_t n;
    size_t maxlen;      /* longest shown name */
    vxd_alias *aliases; /* by sym index */
    size_t naliases;
    vxd_lines lines; /* the image's source lines (code tables only; may be empty) */
} vxd_symtab;

/*
 * Read the code symbols (STT_FUNC, and STT_NOTYPE labels such as an assembly
 * _start, in executable sections) of an image of vx_image_kind `kind`.  A non
 * ELF image or an ELF without a symbol table gives an empty table and VX_OK; a
 * damaged ELF gives an empty table too (we only use symbols for display), with
 * a note in msg.  Only VX_ERR_NOMEM is an error.
 */
vx_err vxd_symtab_load(vxd_symtab *t, uint8_t kind, const uint8_t *image, size_t len, char *msg,
                       size_t cap);
/* The same for data: the sized objects (STT_OBJECT) of allocated sections that are not
 * executable (.data, .bss, .rodata, ...), so that an address reads as <out+0x34>. */
vx_err vxd_symtab_load_data(vxd_symtab *t, uint8_t kind, const uint8_t *image, size_t len,
                            char *msg, size_t cap);
void vxd_symtab_release(vxd_symtab *t);

/* A libelf reader of an image of vx_image_kind `kind` (a copy of it in *copy, which
 * vxd_elf_close frees), or NULL: not a readable ELF, or no memory (*nomem). */
struct Elf;
struct Elf *vxd_elf_open(uint8_t kind, const uint8_t *image, size_t len, void **copy, bool *nomem);
void vxd_elf_close(struct Elf *e, void *copy);

/* The symbol containing pc (and the offset into it), or NULL. */
const vxd_sym *vxd_symtab_lookup(const vxd_symtab *t, uint32_t pc, uint32_t *off);

/* Index of the symbol containing pc in t->syms, or t->n when none. */
size_t vxd_symtab_index(const vxd_symtab *t, uint32_t pc);

/* "<main+0x14>", "<main>" or "" when pc has no symbol (shown names, control characters
 * as \xNN: vis.h) into buf (cap bytes, cut to fit); the length written. */
size_t vxd_symtab_format(const vxd_symtab *t, uint32_t pc, char *buf, size_t cap);

/* " <main+0x14>" and " in vecadd.c:31" for a pc, each when known (the table's symbols,
 * its source lines), else "", into buf (cap bytes, cut to fit); NULL t: "". */
void vxd_symtab_where(const vxd_symtab *t, uint32_t pc, char *buf, size_t cap);

/* The symbol called name (its own name or an alias), or NULL. */
const vxd_sym *vxd_symtab_find(const vxd_symtab *t, const char *name);

/*
 * How many symbols name matches (vxd_symtab_matches, by a symbol's own name or an
 * alias; a symbol counts once), the first of them in *first when there is one.
 */
size_t vxd_symtab_match_count(const vxd_symtab *t, const char *name, const vxd_sym **first);

/* Does symbol i of t match name (vxd_symtab_matches) by its name or an alias? */
bool vxd_symtab_matches_at(const vxd_symtab *t, size_t i, const char *name);

/*
 * Is sym called name, either exactly or, for a mangled C++ symbol, by the function's
 * qualified name without its parameter types, whole or by its last components:
 * _ZN12_GLOBAL__N_18sgemm_cbEPv matches "sgemm_cb" and
 * "(anonymous namespace)::sgemm_cb"; _ZN2ns1fEi and _ZN2ns1fEf both match "f" and
 * "ns::f"; _ZNK3geo4VecplERKS0_ matches "geo::Vec::operator+".  A copy GCC made of a
 * function matches with its suffix or by the function's name: _ZNK2Fn1fEv.isra.0 and
 * f.constprop.0 match "Fn::f.isra.0" and "Fn::f", "f.constprop.0" and "f".
 */
bool vxd_symtab_matches(const vxd_sym *sym, const char *name);

/* End address (exclusive) of symbol i: addr + size, or the next symbol's address. */
uint32_t vxd_symtab_end(const vxd_symtab *t, size_t i);

#endif /* VXD_SYMTAB_H */
