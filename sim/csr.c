/*
 * csr.c - the CSRs of the simulated Vortex v2.x core (research §2.1-§2.2).
 *
 *  address          name                     access  scope       value
 *  0x001-0x003      fflags / frm / fcsr      RW      per warp    one byte: frm << 5 | fflags
 *  0x180            satp                     RW      per warp    plain storage
 *  0x300,0x302-5    mstatus medeleg mideleg  RW      per warp    plain storage
 *                   mie mtvec
 *  0x301            misa                     RW      global      0x40001121 (RV32IMAF); writes ignored
 *  0x340            mscratch                 RW      per core    reset value = config arg
 *  0x341-0x344      mepc mcause mtval mip    RW      per warp    plain storage (mret jumps to mepc;
 *                                                                mepc's bits 1:0 read 0, WARL)
 *  0x3A0-0x3A3      pmpcfg0-3                RW      per warp    plain storage
 *  0x3B0-0x3BF      pmpaddr0-15              RW      per warp    plain storage
 *  0x744            mnstatus                 RW      global      reads 0, writes ignored (research §2.2)
 *  0x7B2-0x7B5      dscratch0-3              RW      per thread  VxDebug DSCRATCH (the DM's view)
 *  0xB00 / 0xB80    mcycle / mcycleh         RO      global      the global cycle counter
 *  0xB02 / 0xB82    minstret / minstreth     RO      per core    instructions issued by the core
 *  0xB03-0xB1F      mhpmcounter3-31 and      RO      global      0: Vortex's performance counters
 *  0xB83-0xB9F      their high halves                            in MPM class 0 (none), research
 *                                                                §2.2 (vx_perf_dump reads them)
 *  0xCC0            vx_thread_id             RO      per thread  lane index
 *  0xCC1            vx_warp_id               RO      per warp    warp index in the core
 *  0xCC2            vx_core_id               RO      per core    global core id
 *  0xCC3            vx_active_warps          RO      per core    bitmask of active warps (warps 0-31)
 *  0xCC4            vx_active_threads        RO      per warp    thread mask (lanes 0-31)
 *  0xF11-0xF13      mvendorid marchid mimpid RO      global      0
 *  0xF14            mhartid                  RO      per thread  (core * warps + warp) * threads + lane
 *  0xFC0-0xFC3      vx_num_threads / warps / RO      global      NT, NW, total cores, 0xFFFF0000
 *                   cores / local_mem_base
 * Any other address is an unknown CSR: the instruction faults CSR, as does a
 * write (csrrw, or csrrs/csrrc with a nonzero source) to a read-only CSR.
 * Plain storage is per warp (not per thread) because Vortex v2.x keeps no real
 * trap state; it is simpler and what a debugger shows for every lane.
 * The mcycle/minstret counters are read-only here (writing them faults), a
 * simplification: nothing in the Vortex runtime writes them.
 */
#include "sim_int.h"

#define MISA_RV32IMAF 0x40001121u

static int plain_index(uint32_t csr)
{
    switch (csr) {
    case 0x300: return VX_PCSR_MSTATUS;
    case 0x302: return VX_PCSR_MEDELEG;
    case 0x303: return VX_PCSR_MIDELEG;
    case 0x304: return VX_PCSR_MIE;
    case 0x305: return VX_PCSR_MTVEC;
    case 0x341: return VX_PCSR_MEPC;
    case 0x342: return VX_PCSR_MCAUSE;
    case 0x343: return VX_PCSR_MTVAL;
    case 0x344: return VX_PCSR_MIP;
    case 0x180: return VX_PCSR_SATP;
    default: break;
    }
    if (csr >= 0x3A0 && csr <= 0x3A3) return VX_PCSR_PMPCFG0 + (int)(csr - 0x3A0);
    if (csr >= 0x3B0 && csr <= 0x3BF) return VX_PCSR_PMPADDR0 + (int)(csr - 0x3B0);
    return -1;
}

/* Vortex's MPM counters (mhpmcounter3..31 and their high halves): read 0. */
static bool mpm_counter(uint32_t csr)
{
    return (csr >= 0xB03 && csr <= 0xB1F) || (csr >= 0xB83 && csr <= 0xB9F);
}

int vx_csr_access(uint32_t csr)
{
    if (plain_index(csr) >= 0) return 1;
    if (csr >= 0x7B2 && csr <= 0x7B5) return 1;
    if (mpm_counter(csr)) return 0;
    switch (csr) {
    case 0x001:
    case 0x002:
    case 0x003:
    case 0x301:
    case 0x340:
    case 0x744: return 1;
    case 0xB00:
    case 0xB80:
    case 0xB02:
    case 0xB82:
    case 0xCC0:
    case 0xCC1:
    case 0xCC2:
    case 0xCC3:
    case 0xCC4:
    case 0xF11:
    case 0xF12:
    case 0xF13:
    case 0xF14:
    case 0xFC0:
    case 0xFC1:
    case 0xFC2:
    case 0xFC3: return 0;
    default: return -1;
    }
}

int vx_csr_scope(uint32_t csr)
{
    if (plain_index(csr) >= 0) return 1;
    if (csr >= 0x7B2 && csr <= 0x7B5) return 0;
    switch (csr) {
    case 0x001:
    case 0x002:
    case 0x003:
    case 0xCC1:
    case 0xCC4: return 1;
    case 0x340:
    case 0xB02:
    case 0xB82:
    case 0xCC2:
    case 0xCC3: return 2;
    case 0xCC0:
    case 0xF14: return 0;
    default: return 3;
    }
}

uint32_t vx_csr_read(const vx_sim *s, uint32_t gw, uint32_t lane, uint32_t csr)
{
    const vx_warp *w = &s->warps[gw];
    uint32_t core = gw / s->nw;
    int pi = plain_index(csr);
    if (pi >= 0) return vx_pcsr_of(s, gw)[pi];
    if (csr >= 0x7B2 && csr <= 0x7B5)
        return s->dscratch[((size_t)gw * 4 + (csr - 0x7B2)) * s->nt + lane];
    switch (csr) {
    case 0x001: return w->fcsr & 0x1f;
    case 0x002: return (w->fcsr >> 5) & 7;
    case 0x003: return w->fcsr;
    case 0x301: return MISA_RV32IMAF;
    case 0x340: return s->cores[core].mscratch;
    case 0xB00: return (uint32_t)s->cycle;
    case 0xB80: return (uint32_t)(s->cycle >> 32);
    case 0xB02: return (uint32_t)vx_core_minstret(s, core);
    case 0xB82: return (uint32_t)(vx_core_minstret(s, core) >> 32);
    case 0xCC0: return lane;
    case 0xCC1: return gw % s->nw;
    case 0xCC2: return core;
    case 0xCC3: {
        uint32_t m = 0;
        for (uint32_t i = 0; i < s->nw && i < 32; i++)
            if (s->warps[core * s->nw + i].active) m |= 1u << i;
        return m;
    }
    case 0xCC4: return (uint32_t)w->tm[0];
    case 0xF11:
    case 0xF12:
    case 0xF13: return 0;
    case 0xF14: return gw * s->nt + lane;
    case 0xFC0: return s->nt;
    case 0xFC1: return s->nw;
    case 0xFC2: return s->nc;
    case 0xFC3: return VX_LMEM_BASE_ADDR;
    default: return 0;
    }
}

void vx_csr_write(vx_sim *s, uint32_t gw, uint32_t lane, uint32_t csr, uint32_t val)
{
    vx_warp *w = &s->warps[gw];
    int pi = plain_index(csr);
    if (pi >= 0) {
        /* mepc is WARL: with 4-byte instructions only (IALIGN=32) its two low bits are
         * always 0 (RISC-V privileged spec, mepc), so mret always goes to an aligned pc */
        vx_pcsr_of(s, gw)[pi] = pi == VX_PCSR_MEPC ? val & ~3u : val;
        return;
    }
    if (csr >= 0x7B2 && csr <= 0x7B5) {
        s->dscratch[((size_t)gw * 4 + (csr - 0x7B2)) * s->nt + lane] = val;
        return;
    }
    switch (csr) {
    case 0x001: w->fcsr = (uint8_t)((w->fcsr & 0xe0) | (val & 0x1f)); break;
    case 0x002: w->fcsr = (uint8_t)((w->fcsr & 0x1f) | ((val & 7) << 5)); break;
    case 0x003: w->fcsr = (uint8_t)val; break;
    case 0x340: s->cores[gw / s->nw].mscratch = val; break;
    default: break; /* misa (WARL) and mnstatus: writes ignored; read-only CSRs never get here */
    }
}
