/*
 * target_xml.h - the registers vxreplay shows GDB and the target description
 * that names them (research notes §2.5, DESIGN.md §5).
 *
 * Remote register numbers follow GDB's internal RISC-V numbering so that `p`, `g`
 * and the XML agree with gdb/riscv-tdep.h: x0-x31 = 0-31, pc = 32, f0-f31 =
 * 33-64, CSR n = 65 + n (fflags 66, frm 67, fcsr 68, mhartid 3925, the Vortex
 * CSRs 0xCC0.. at 3329..).  `g` lists them in ascending number.
 */
#ifndef VX_TARGET_XML_H
#define VX_TARGET_XML_H

#include "vx_sim.h"

#define VX_REG_PC      32u /* remote number of pc */
#define VX_REG_F0      33u /* remote number of f0 */
#define VX_REG_CSR0    65u /* remote number of CSR 0 */
#define VX_REG_FILE_PC 0u  /* vx_regdesc.file for the pc */

typedef struct vx_regdesc {
    uint16_t regnum; /* remote register number */
    uint8_t file;    /* VX_RF_X, VX_RF_F, VX_RF_CSR, or VX_REG_FILE_PC */
    uint16_t reg;    /* register number or CSR address */
    const char *name;
    const char *feature; /* "cpu", "fpu" or "csr" */
} vx_regdesc;

typedef struct vx_regmap {
    vx_regdesc *regs; /* ascending regnum */
    uint32_t n;
} vx_regmap;

/*
 * The register list: the 33 integer registers and pc, the FPU (f0-f31, fflags,
 * frm, fcsr), and every CSR of our table that the simulator answers for warp 0,
 * lane 0 (so the list follows what libvxsim models).
 */
vx_err vx_regmap_build(const vx_sim *sim, vx_regmap *map);
void vx_regmap_free(vx_regmap *map);

/* The entry with remote number regnum, or NULL. */
const vx_regdesc *vx_regmap_find(const vx_regmap *map, uint32_t regnum);

/* target.xml for the map (malloc'd, NUL-terminated), or NULL when out of memory. */
char *vx_target_xml(const vx_regmap *map, size_t *len);

#endif /* VX_TARGET_XML_H */
