/*
 * loader.c - kernel images: ELF32 RISC-V executables (through libelf), Vortex
 * .vxbin files and raw binaries.
 *
 * Every segment must lie in global memory [0x10000, 0xFFFF0000): below 0x10000
 * is the IO region (null guard, console, exit code) and at 0xFFFF0000 starts
 * the per-core local memory.  Bytes beyond a segment's file size (bss) are
 * zeroed explicitly, since memory may hold data from an earlier --load.
 */
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim_int.h"

#define IO_END 0x10000u

vx_image_kind vx_image_detect(const char *name, const uint8_t *bytes, size_t len)
{
    if (len >= 4 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F')
        return VX_IMAGE_ELF;
    if (name && (!strcmp(name, "-") || !strcmp(name, "/dev/stdin")) && len >= 16) {
        /* no name to go by: a .vxbin header (two 64-bit addresses, min < max, in the
         * 32-bit space, spanning the image) is one; a raw binary starts with code,
         * whose second word is not the zero upper half of an address */
        const uint64_t lo = vx_get_le64(bytes), hi = vx_get_le64(bytes + 8);
        if (lo >= IO_END && lo < hi && hi <= ((uint64_t)1 << 32) && hi - lo >= len - 16)
            return VX_IMAGE_VXBIN;
    }
    if (name) {
        size_t n = strlen(name);
        if (n >= 6 && !strcmp(name + n - 6, ".vxbin")) return VX_IMAGE_VXBIN;
        /* A file named .elf without the magic is a broken ELF, not a raw binary. */
        if (n >= 4 && !strcmp(name + n - 4, ".elf")) return VX_IMAGE_ELF;
    }
    return VX_IMAGE_BIN;
}

/* Check that [addr, addr+size) is inside loadable global memory. */
static vx_err check_range(vx_sim *s, const char *name, const char *what, uint64_t addr,
                          uint64_t size)
{
    if (size == 0) return VX_OK;
    uint64_t end = addr + size;
    if (addr < IO_END)
        return vx_sim_fail(s, VX_ERR_FORMAT,
                           "%s: %s [0x%llx, 0x%llx) overlaps the IO region [0x0, 0x10000)", name,
                           what, (unsigned long long)addr, (unsigned long long)end);
    if (end > VX_GMEM_END)
        return vx_sim_fail(s, VX_ERR_FORMAT,
                           "%s: %s [0x%llx, 0x%llx) reaches past global memory (local memory "
                           "starts at 0xffff0000)",
                           name, what, (unsigned long long)addr, (unsigned long long)end);
    return VX_OK;
}

static vx_err load_elf(vx_sim *s, const char *name, const uint8_t *bytes, size_t len,
                       uint32_t *entry)
{
    if (len < 4 || memcmp(bytes, ELFMAG, SELFMAG))
        return vx_sim_fail(s, VX_ERR_FORMAT, "%s: not an ELF file (no \\177ELF magic)", name);
    if (len < EI_NIDENT)
        return vx_sim_fail(s, VX_ERR_TRUNC, "%s: truncated ELF header (%zu bytes)", name, len);
    if (bytes[EI_CLASS] == ELFCLASS64)
        return vx_sim_fail(s, VX_ERR_FORMAT,
                           "%s: ELF64 file; vxrr simulates RV32 (build with -march=rv32imaf "
                           "-mabi=ilp32f)",
                           name);
    if (bytes[EI_CLASS] != ELFCLASS32)
        return vx_sim_fail(s, VX_ERR_FORMAT, "%s: unknown ELF class %u", name, bytes[EI_CLASS]);
    if (bytes[EI_DATA] != ELFDATA2LSB)
        return vx_sim_fail(s, VX_ERR_FORMAT, "%s: not a little-endian ELF file", name);
    if (len < sizeof(Elf32_Ehdr))
        return vx_sim_fail(s, VX_ERR_TRUNC, "%s: truncated ELF header (%zu bytes)", name, len);

    uint16_t machine = vx_get_le16(bytes + 18), type = vx_get_le16(bytes + 16);
    if (machine != EM_RISCV)
        return vx_sim_fail(s, VX_ERR_FORMAT, "%s: ELF machine %u is not RISC-V (%u)", name, machine,
                           EM_RISCV);
    if (type != ET_EXEC)
        return vx_sim_fail(s, VX_ERR_FORMAT, "%s: ELF type %u is not an executable (ET_EXEC)", name,
                           type);

    if (elf_version(EV_CURRENT) == EV_NONE)
        return vx_sim_fail(s, VX_ERR_UNSUPP, "libelf is unusable: %s", elf_errmsg(-1));
    char *copy = malloc(len);
    if (!copy) return vx_sim_fail(s, VX_ERR_NOMEM, "%s: out of memory", name);
    memcpy(copy, bytes, len);
    Elf *e = elf_memory(copy, len);
    GElf_Phdr *ph = NULL;
    vx_err err = VX_OK;
    if (!e) {
        err = vx_sim_fail(s, VX_ERR_FORMAT, "%s: %s", name, elf_errmsg(-1));
        goto out;
    }
    Elf32_Ehdr *eh = elf32_getehdr(e);
    if (!eh) {
        err = vx_sim_fail(s, VX_ERR_FORMAT, "%s: bad ELF header: %s", name, elf_errmsg(-1));
        goto out;
    }
    /* PN_XNUM: the count is in section header 0 (gABI); without a section header table
     * elfutils reads the ELF header itself as that section and takes e_phoff for it */
    if (eh->e_phnum == PN_XNUM && eh->e_shoff == 0) {
        err = vx_sim_fail(s, VX_ERR_FORMAT,
                          "%s: e_phnum is PN_XNUM (the count is in section header 0) but the file "
                          "has no section headers",
                          name);
        goto out;
    }
    size_t phnum;
    if (elf_getphdrnum(e, &phnum) != 0) {
        err = vx_sim_fail(s, VX_ERR_FORMAT, "%s: bad program headers: %s", name, elf_errmsg(-1));
        goto out;
    }
    /* libelf counts only the headers that fit in the file: the header's own count says
     * whether the table was cut (PN_XNUM: the count is elsewhere, libelf's then) */
    const uint64_t nph = eh->e_phnum == PN_XNUM ? phnum : eh->e_phnum;
    if ((uint64_t)eh->e_phoff + (nph > phnum ? nph : phnum) * sizeof(Elf32_Phdr) > len) {
        err = vx_sim_fail(s, VX_ERR_TRUNC, "%s: program headers extend past the end of the file",
                          name);
        goto out;
    }
    /* Copies of the program headers: libelf may hand out unaligned pointers into
     * the image on hosts that allow unaligned access. */
    ph = calloc(phnum ? phnum : 1, sizeof *ph);
    if (!ph) {
        err = vx_sim_fail(s, VX_ERR_NOMEM, "%s: out of memory", name);
        goto out;
    }
    for (size_t i = 0; i < phnum; i++)
        if (!gelf_getphdr(e, (int)i, &ph[i])) {
            err = vx_sim_fail(s, VX_ERR_FORMAT, "%s: bad program header %zu: %s", name, i,
                              elf_errmsg(-1));
            goto out;
        }
    /* Validate every segment before writing anything. */
    size_t nload = 0;
    for (size_t i = 0; i < phnum; i++) {
        const GElf_Phdr *p = &ph[i];
        if (p->p_type != PT_LOAD || p->p_memsz == 0) continue;
        nload++;
        char what[48];
        snprintf(what, sizeof what, "segment %zu", i);
        if (p->p_filesz > p->p_memsz) {
            err =
                vx_sim_fail(s, VX_ERR_FORMAT, "%s: %s has file size %llu > memory size %llu", name,
                            what, (unsigned long long)p->p_filesz, (unsigned long long)p->p_memsz);
            goto out;
        }
        if ((uint64_t)p->p_offset + p->p_filesz > len) {
            err = vx_sim_fail(s, VX_ERR_TRUNC,
                              "%s: %s (offset 0x%llx, %llu bytes) extends past the end of the "
                              "file (%zu bytes): truncated",
                              name, what, (unsigned long long)p->p_offset,
                              (unsigned long long)p->p_filesz, len);
            goto out;
        }
        err = check_range(s, name, what, p->p_vaddr, p->p_memsz);
        if (err) goto out;
    }
    if (!nload) {
        err = vx_sim_fail(s, VX_ERR_FORMAT, "%s: no loadable (PT_LOAD) segment", name);
        goto out;
    }
    for (size_t i = 0; i < phnum; i++) {
        const GElf_Phdr *p = &ph[i];
        if (p->p_type != PT_LOAD || p->p_memsz == 0) continue;
        if (p->p_filesz) {
            err = vx_gmem_write(s, (uint32_t)p->p_vaddr, bytes + p->p_offset, (size_t)p->p_filesz);
            if (err) goto out;
        }
        if (p->p_memsz > p->p_filesz) {
            err = vx_gmem_zero(s, (uint32_t)(p->p_vaddr + p->p_filesz), p->p_memsz - p->p_filesz);
            if (err) goto out;
        }
    }
    *entry = eh->e_entry;
out:
    free(ph);
    if (e) elf_end(e);
    free(copy);
    return err;
}

static vx_err load_vxbin(vx_sim *s, const char *name, const uint8_t *bytes, size_t len,
                         uint32_t *entry)
{
    if (len < 16)
        return vx_sim_fail(s, VX_ERR_TRUNC, "%s: truncated .vxbin header (%zu of 16 bytes)", name,
                           len);
    uint64_t min_vma = vx_get_le64(bytes), max_vma = vx_get_le64(bytes + 8);
    uint64_t size = len - 16;
    if (max_vma < min_vma)
        return vx_sim_fail(s, VX_ERR_FORMAT, "%s: .vxbin max_vma 0x%llx is below min_vma 0x%llx",
                           name, (unsigned long long)max_vma, (unsigned long long)min_vma);
    if (size > max_vma - min_vma)
        return vx_sim_fail(s, VX_ERR_FORMAT,
                           "%s: .vxbin image (%llu bytes) is larger than [min_vma, max_vma)", name,
                           (unsigned long long)size);
    vx_err err = check_range(s, name, "image", min_vma, max_vma - min_vma);
    if (err) return err;
    if (size) {
        err = vx_gmem_write(s, (uint32_t)min_vma, bytes + 16, (size_t)size);
        if (err) return err;
    }
    err = vx_gmem_zero(s, (uint32_t)(min_vma + size), max_vma - min_vma - size);
    if (err) return err;
    *entry = (uint32_t)min_vma;
    return VX_OK;
}

static vx_err load_bin(vx_sim *s, const char *name, const uint8_t *bytes, size_t len,
                       uint32_t *entry)
{
    if (len == 0) return vx_sim_fail(s, VX_ERR_FORMAT, "%s: empty binary", name);
    vx_err err = check_range(s, name, "binary", VX_STARTUP_ADDR, len);
    if (err) return err;
    err = vx_gmem_write(s, VX_STARTUP_ADDR, bytes, len);
    if (err) return err;
    *entry = VX_STARTUP_ADDR;
    return VX_OK;
}

vx_err vx_sim_load_image(vx_sim *s, const char *name, vx_image_kind kind, const uint8_t *bytes,
                         size_t len, uint32_t *entry)
{
    uint32_t e = 0;
    vx_err err;
    if (!name) name = "image";
    switch (kind) {
    case VX_IMAGE_ELF: err = load_elf(s, name, bytes, len, &e); break;
    case VX_IMAGE_VXBIN: err = load_vxbin(s, name, bytes, len, &e); break;
    case VX_IMAGE_BIN: err = load_bin(s, name, bytes, len, &e); break;
    default: return vx_sim_fail(s, VX_ERR_INVAL, "%s: unknown image kind %d", name, (int)kind);
    }
    if (err) return err;
    s->cfg.start_pc = e;
    vx_sim_reset(s);
    if (entry) *entry = e;
    return VX_OK;
}
