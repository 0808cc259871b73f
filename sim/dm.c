/*
 * dm.c - the VxDebug Debug Module (DM) of the simulator.
 *
 * The normative description is /work/shared/spec/vxdebug-spec.md ("VxDebug: Vortex
 * Debug Extension"); DESIGN.md §2 says how vxrr serves it.  This comment is the
 * reference for everything the spec leaves open: each choice below is deliberate
 * and covered by tests/unit/t-dm.c and tests/t3*.py.
 *
 * Structure
 *   One struct vx_dm per vx_sim (created by the core with vx_dm_new).  The DM holds
 *   only its own registers; everything about warps (active, halted, hacause, PC,
 *   registers) lives in the core and is read and changed through the public debug
 *   primitives of vx_sim.h.  The debugger side is vx_sim_dm_read / vx_sim_dm_write
 *   (register address 0x0..0xC); the core drives the DM's clock with vx_dm_cycle()
 *   at the start of every simulated cycle, and vx_sim_dm_tick() does the same when
 *   the machine has nothing to issue (all warps halted, kernel over, or before the
 *   debugger started it), so a debugger that only polls still sees progress.
 *   (The DM's cycle is the start of a simulated cycle: after vx_sim_run stopped in
 *   the middle of one, the first vx_sim_dm_tick only completes that cycle.)
 *   The VxDebug TCP transport (tools/common/dmserver.c) advances the DM clock by
 *   itself while the machine is idle, so over TCP a requested reset, step or
 *   injection has completed by the time the next command is answered.
 *
 * Register map (addr, access, reset value)
 *   0x0 PLATFORM  RO  [31:28] platformid = 1 (Vortex), [27:21] clusters,
 *                     [20:12] cores per cluster, [11:3] warps per core,
 *                     [2:0] log2(threads per warp).  Readable even when inactive.
 *   0x1 DCONFIG   RW  [31:29] NRC: ndmreset lasts 2^NRC cycles (reset 4 -> 16),
 *                     [28:26] RHC: resethaltreq cycles (reset 2; stored and readable,
 *                     see "reset" below), [0] ebreakh (reset 0).  Other bits read 0.
 *                     Reset value 0x88000000.
 *   0x2 DSELECT   RW  [31:22] winsel, [21:7] warpsel, [6:0] threadsel.  All 32 bits
 *                     are stored as written, in range or not (reset 0).
 *   0x3 WMASK     RW  the selected 32-warp window of the global warp-select mask.
 *   0x4 WACTIVE   RO  window of warp-active bits (vx_warp_info.active).
 *   0x5 WSTATUS   RO  window of warp-halted bits.
 *   0x6 DCTRL     [31] dmactive RW, [30] ndmreset RW (reads 1 while asserted),
 *                 [29] allhalted, [28] anyhalted, [27] allrunning, [26] anyrunning,
 *                 [25] allunavail, [24] anyunavail (all RO),
 *                 [13] steperr, [12] injecterr (RO, vxrr extensions in reserved bits),
 *                 [11:9] hacause of the selected warp, [8:7] injectstate,
 *                 [6] injectreq W1, [5:4] stepstate, [3] stepreq W1,
 *                 [2] resethaltreq W1, [1] resumereq W1, [0] haltreq W1.
 *                 W1 bits read 0; other reserved bits read 0.
 *   0x7 DPC       RW  PC of the selected warp.
 *   0x8 INJECT    RW  instruction word for injectreq (reset 0).
 *   0x9..0xC DSCRATCH0..3  RW back door to CSR 0x7B2..0x7B5 of the selected thread.
 *   Other addresses: VX_ERR_RANGE (the TCP transport answers "-").
 *
 * Warp numbering and windows
 *   Global warp id gwarp = core * warps_per_core + warp, core = cluster *
 *   cores_per_cluster + core_in_cluster.  Window w covers gwarps 32w .. 32w+31, on
 *   every platform (with 32 warps or fewer too, winsel 1 and up select no warp).  Bits
 *   of warps that do not exist read 0 and are dropped on WMASK writes; a window
 *   entirely beyond the platform reads 0 and ignores writes.
 *
 * dmactive
 *   Reset value 0.  While dmactive = 0 every register except PLATFORM reads 0 and
 *   ignores writes; only a DCTRL write with bit 31 set does anything.  Such a write
 *   activates the DM and the rest of that same write is then carried out (so
 *   "dmactive|haltreq" in one write works).  Writing DCTRL with bit 31 clear
 *   deactivates the DM and returns every DM register to its reset value: DCONFIG
 *   (so ebreak-halt is switched off), DSELECT, WMASK (the whole global mask),
 *   INJECT, pending step/inject requests, the error bits, a latched resethaltreq,
 *   and an ndmreset in progress (the platform is released at once).
 *   Warps that are halted STAY HALTED: deactivating never lets code run behind the
 *   debugger's back (a planted ebreak would now fault, ebreakh being cleared).  A
 *   debugger reactivates the DM, sees them in WSTATUS and resumes them.  DSCRATCH
 *   are CSRs of the core's threads and keep their values (they only read as 0
 *   while the DM is inactive).
 *
 * Availability and summary bits (DCTRL[29:24])
 *   A warp is AVAILABLE when it is active (vx_warp_info.active: it has a thread
 *   mask and has not finished) and the kernel has not ended; never-spawned and
 *   finished warps are unavailable, and so is every warp once the kernel has
 *   exited or stopped at a fault (the machine is frozen: WACTIVE still shows which
 *   warps were alive, and a debugger can halt the faulting warp and inspect its
 *   registers by injection; DPC of that warp is the faulting instruction).
 *   The summary bits cover every warp of the platform:
 *     anyhalted  = some available warp is halted
 *     allhalted  = at least one warp is available and every available warp is halted
 *     anyrunning = some available warp is not halted (a warp stalled at a barrier
 *                  or WSPAWN join but not halted counts as running)
 *     allrunning = at least one warp is available and none of them is halted
 *     anyunavail = some warp is unavailable
 *     allunavail = no warp is available (e.g. the kernel has ended)
 *   With no available warp all four halted/running bits read 0: a debugger that
 *   waits for "allhalted" after a resume must also watch allunavail (kernel ended).
 *   WSTATUS shows the halt latch of every warp, available or not (see reset-halt).
 *
 * hacause (DCTRL[11:9])
 *   The cause of the selected warp's current halt: 1 EBREAK, 2 HALTREQ, 3 STEP,
 *   4 RESETHALTREQ; 0 when the warp is not halted or warpsel is out of range.
 *
 * Requests in one DCTRL write
 *   Order of processing: dmactive, resethaltreq (latched), ndmreset, then ONE of
 *   haltreq, resumereq, stepreq, injectreq, in that order of priority (the lowest
 *   set bit of the four wins; the others in the same write are ignored).  The spec
 *   gives no order for such a write: this
 *   is vxrr's choice (a halt is the safe request to honour).
 *   haltreq   halts every warp whose mask bit is set, available or not (a selected
 *             warp that is not yet spawned starts halted when WSPAWN activates it).
 *             A warp that is already halted keeps its halt and its hacause, so a
 *             warp that stopped on a breakpoint still reports EBREAK after the
 *             debugger has stopped the others.
 *   resumereq resumes every selected halted warp (hacause then reads 0).
 *   Both act at once (before the write returns).
 *
 * Single step (stepreq, stepstate)
 *   Steps the warp selected by warpsel, which must exist, be active, be halted and
 *   not be waiting at a barrier or WSPAWN join.  On acceptance stepstate = REQ (1).
 *   At the next DM cycle the warp executes exactly one instruction
 *   (vx_sim_step_warp, reported by the core as an issue with VX_EVF_STEP) and
 *   stepstate = INFLIGHT (2); at the cycle after, NONE (0).  The warp stays halted
 *   with hacause STEP (EBREAK if the stepped instruction was an ebreak with ebreakh).
 *   The request is refused - stepstate stays NONE and DCTRL.steperr (bit 13) is set
 *   - when warpsel is out of range, the warp is not active, not halted or stalled,
 *   a step or injection is already pending, the platform is in reset, or the kernel
 *   has ended (an exit or a fault: nothing issues any more).  steperr
 *   is also set when the stepped instruction faulted (the kernel then ends with
 *   that fault, as it would have without the debugger).  steperr is cleared by
 *   the next stepreq.  A stalled warp cannot step because its next instruction
 *   cannot issue until the other warps arrive (VxDebug's own debugger warns about
 *   this deadlock); resume the others instead.
 *
 * Instruction injection (injectreq, injectstate)
 *   Executes INJECT in the warp selected by warpsel with only lane threadsel
 *   active; the warp's PC and thread mask do not change (vx_sim_inject; reported as
 *   an issue with VX_EVF_INJECTED).  The warp must exist and be HALTED (it may be
 *   stalled at a barrier: reading its registers is what a debugger wants there);
 *   threadsel must be < threads per warp.  The instruction word is taken when the
 *   request is accepted.  States as for step: REQ, then at the next DM cycle the
 *   instruction executes and the state is INFLIGHT, then NONE.
 *   Allowed: integer/FP ALU, loads, stores, AMOs, CSR instructions, fence.
 *   Rejected: branches, jal, jalr, auipc, ecall, ebreak, mret, the custom-0
 *   warp-control group.  The spec has no error field, so vxrr defines
 *   DCTRL.injecterr (bit 12, sticky, cleared by the next injectreq) and emits a
 *   VX_DM_INJECT_REJECT event (value = instruction word, gwarp, lane, arg = reason):
 *     1 VX_DM_REJ_CLASS      the instruction class may not be injected
 *     2 VX_DM_REJ_NOT_HALTED the selected warp is not halted
 *     3 VX_DM_REJ_NO_TARGET  warpsel or threadsel is out of range
 *     4 VX_DM_REJ_FAULT      the injected instruction faulted (e.g. a load from an
 *                            unmapped address); it had no effect, the kernel goes on
 *     5 VX_DM_REJ_BUSY       a step or injection was still pending
 *     6 VX_DM_REJ_RESET      the platform is held in reset
 *     7 VX_DM_REJ_OTHER      the simulator refused for another reason
 *
 * DPC
 *   Reads the selected warp's PC (meaningful when it is halted; 0 for warpsel out
 *   of range).  A write moves the PC (vx_sim_set_pc) only when the warp is halted;
 *   otherwise, or when the warp has not been spawned yet (WSPAWN will set its PC),
 *   or when the value is not 4-byte aligned (RV32 without the C extension fetches
 *   only aligned words) or the simulator refuses it, it is ignored.  After an ebreak
 *   halt DPC is the address of the ebreak itself (the core does not advance past
 *   it), so "restore the word and resume" re-executes the original instruction.
 *
 * DSCRATCH0..3
 *   The debugger reads and writes CSR 0x7B2 + n of thread (warpsel, threadsel)
 *   through vx_sim_reg_read/write; the core's threads see the same registers with
 *   csrr/csrw (one set per thread).  Out-of-range selection: reads 0, writes are
 *   ignored.  Access does not require the warp to be halted.
 *
 * DCONFIG.ebreakh
 *   Mirrors vx_sim_set_ebreak_halt: with it set an ebreak halts its warp (hacause
 *   EBREAK, DPC = the ebreak) instead of being a breakpoint fault; the core then
 *   calls vx_dm_on_halt.
 *
 * Reset (ndmreset, resethaltreq)
 *   Writing ndmreset = 1 (while it is not already asserted) resets the platform at
 *   once (vx_sim_reset: cores, warps, registers, halt state; memory is kept),
 *   cancels a pending step or injection, and holds the platform in reset for 2^NRC
 *   cycles: ndmreset reads 1 and vx_dm_cycle returns true (nothing issues) during
 *   those cycles.  Writing 0 has no effect (the pulse ends by itself), so a
 *   read-modify-write of DCTRL cannot cut it short.  haltreq/resumereq work during
 *   the hold; stepreq/injectreq are refused.
 *   resethaltreq = 1 is latched until the next reset ends (or the DM is
 *   deactivated).  When the hold ends with the latch set, every warp selected in
 *   the global mask is halted with hacause RESETHALTREQ before any instruction
 *   issues - including warps that are not active yet: they start halted when WSPAWN
 *   activates them, so a debugger really stops "everything at its first
 *   instruction".  (Those warps then wait for a resume; like VxDebug's "continue -e
 *   0" the debugger resumes them.)  RHC is kept for compatibility: the halt is
 *   applied atomically at the end of the hold, so its length does not matter.
 *
 * Halted warps, barriers and WSPAWN
 *   A halted warp is never scheduled (the core's job).  It does not arrive at
 *   barriers while halted, so the other warps wait there, and a warp waiting for a
 *   WSPAWN join waits while the spawned warps are halted.  The simulator reports
 *   that situation as VX_STOP_IDLE (waiting for the debugger), never as a deadlock
 *   fault.
 *
 * Events (replay)
 *   Every register access is reported through vx_sim_emit_dm: VX_DM_READ (addr,
 *   value read) and VX_DM_WRITE (addr, value written; for DCONFIG the value is
 *   the register's content after the write, so that a replayer's "ebreak-halt :=
 *   value & 1" rule is exact even for writes ignored while the DM is inactive).
 *   After a write come the effects it caused, in order: VX_DM_HALT (arg =
 *   hacause), VX_DM_RESUME, VX_DM_RESET, VX_DM_SET_PC, VX_DM_SCRATCH,
 *   VX_DM_INJECT_REJECT; deactivation with ebreakh set adds a VX_DM_WRITE of
 *   DCONFIG = 0 (the reset of DCONFIG, so the replayer clears ebreak-halt).
 *   Reset-halts are emitted when the hold ends, ebreak halts from vx_dm_on_halt
 *   (and after a step that executed a halting ebreak).
 *   Stepped and injected instructions are the core's issue events.
 *   Accesses to nonexistent addresses are not reported.
 *
 * Snapshots
 *   vx_dm_state_save writes a fixed little-endian layout (version 1): 12 u32
 *   fields (version, warps, flags, DCONFIG, DSELECT, INJECT, step/inject states,
 *   reset cycles left, step target, inject target warp, lane and word) followed by
 *   the global mask, one u32 per 32 warps.  No pointers.
 */
#include <stdlib.h>
#include <string.h>
#include "dm_int.h"
#include "sim_int.h"

/* DCONFIG */
#define DCONFIG_NRC_SHIFT 29
#define DCONFIG_RHC_SHIFT 26
#define DCONFIG_EH        0x1u
#define DCONFIG_MASK      (0x7u << DCONFIG_NRC_SHIFT | 0x7u << DCONFIG_RHC_SHIFT | DCONFIG_EH)
#define DCONFIG_RESET     (4u << DCONFIG_NRC_SHIFT | 2u << DCONFIG_RHC_SHIFT)

/* DSELECT */
#define DSEL_WINSEL(v)    ((v) >> 22)
#define DSEL_WARPSEL(v)   (((v) >> 7) & 0x7FFFu)
#define DSEL_THREADSEL(v) ((v)&0x7Fu)

/* DCTRL */
#define DCTRL_DA        (1u << 31)
#define DCTRL_NT        (1u << 30)
#define DCTRL_AH        (1u << 29)
#define DCTRL_NH        (1u << 28)
#define DCTRL_AR        (1u << 27)
#define DCTRL_NR        (1u << 26)
#define DCTRL_AU        (1u << 25)
#define DCTRL_NU        (1u << 24)
#define DCTRL_SERR      (1u << 13) /* vxrr: last step request failed */
#define DCTRL_IERR      (1u << 12) /* vxrr: last injection failed */
#define DCTRL_HC_SHIFT  9
#define DCTRL_IST_SHIFT 7
#define DCTRL_IR        (1u << 6)
#define DCTRL_SST_SHIFT 4
#define DCTRL_SR        (1u << 3)
#define DCTRL_RHR       (1u << 2)
#define DCTRL_RR        (1u << 1)
#define DCTRL_HR        (1u << 0)

enum {
    DM_ST_NONE = 0,
    DM_ST_REQ = 1,
    DM_ST_INFLIGHT = 2
};

/* arg of VX_DM_INJECT_REJECT (documented above) */
enum {
    VX_DM_REJ_CLASS = 1,
    VX_DM_REJ_NOT_HALTED = 2,
    VX_DM_REJ_NO_TARGET = 3,
    VX_DM_REJ_FAULT = 4,
    VX_DM_REJ_BUSY = 5,
    VX_DM_REJ_RESET = 6,
    VX_DM_REJ_OTHER = 7,
};

#define DM_STATE_VERSION 1u
#define DM_STATE_FIXED   48u /* 12 u32 before the mask words */

struct vx_dm {
    struct vx_dm_head head; /* first member: read inline by the core (dm_int.h) */
    vx_sim *sim;
    uint32_t nwarps;   /* warps in the platform */
    uint32_t nthreads; /* threads per warp */
    uint32_t nwin;     /* 32-warp windows = mask words */
    uint32_t platform; /* PLATFORM value */

    bool active; /* dmactive */
    bool steperr, injecterr;
    bool resethalt; /* resethaltreq latched */
    uint32_t dconfig, dselect, inject;
    uint8_t stepstate, injectstate;
    uint32_t reset_left; /* cycles of ndmreset hold still to come (0 = not asserted) */
    uint32_t step_warp;
    uint32_t inj_warp, inj_lane, inj_insn;
    uint32_t *mask; /* global warp-select mask, nwin words */
};

/* ---- helpers --------------------------------------------------------------------------- */

/* Recompute head.busy (dm_int.h) after anything that may have changed DM state. */
static void dm_sync(struct vx_dm *dm)
{
    dm->head.busy = dm->active && (dm->reset_left != 0 || dm->stepstate != DM_ST_NONE ||
                                   dm->injectstate != DM_ST_NONE);
}

static void dm_emit(struct vx_dm *dm, uint8_t op, uint8_t addr, uint32_t value, uint32_t gwarp,
                    uint32_t lane, uint32_t arg)
{
    vx_dm_event ev;
    memset(&ev, 0, sizeof ev);
    ev.op = op;
    ev.addr = addr;
    ev.value = value;
    ev.gwarp = gwarp;
    ev.lane = lane;
    ev.arg = arg;
    vx_sim_emit_dm(dm->sim, &ev);
}

static bool dm_info(const struct vx_dm *dm, uint32_t gwarp, vx_warp_info *wi)
{
    if (gwarp >= dm->nwarps) return false;
    return vx_sim_warp_info(dm->sim, gwarp, wi) == VX_OK;
}

/* The window DSELECT.winsel designates, or -1 when it is beyond the platform. */
static long dm_window(const struct vx_dm *dm)
{
    uint32_t w = DSEL_WINSEL(dm->dselect);
    return w < dm->nwin ? (long)w : -1;
}

/* Bits of window w that correspond to existing warps. */
static uint32_t dm_window_valid(const struct vx_dm *dm, uint32_t w)
{
    uint32_t first = w * 32;
    uint32_t n = dm->nwarps - first;
    return n >= 32 ? 0xFFFFFFFFu : ((1u << n) - 1u);
}

/* WACTIVE (halted = false) or WSTATUS (halted = true) of the current window. */
static uint32_t dm_window_bits(const struct vx_dm *dm, bool halted)
{
    long w = dm_window(dm);
    if (w < 0) return 0;
    uint32_t first = (uint32_t)w * 32, bits = 0;
    for (uint32_t i = 0; i < 32 && first + i < dm->nwarps; i++) {
        vx_warp_info wi;
        if (!dm_info(dm, first + i, &wi)) continue;
        if (halted ? wi.halted : wi.active) bits |= 1u << i;
    }
    return bits;
}

static uint32_t dm_summary(const struct vx_dm *dm)
{
    uint32_t navail = 0, nhalted = 0, nrunning = 0, v = 0;
    /* After the kernel has ended (exit or fault) nothing runs until a reset. */
    bool over = vx_sim_finished(dm->sim);
    for (uint32_t g = 0; g < dm->nwarps && !over; g++) {
        vx_warp_info wi;
        if (!dm_info(dm, g, &wi) || !wi.active) continue;
        navail++;
        if (wi.halted)
            nhalted++;
        else
            nrunning++;
    }
    if (navail && nhalted == navail) v |= DCTRL_AH;
    if (nhalted) v |= DCTRL_NH;
    if (navail && nrunning == navail) v |= DCTRL_AR;
    if (nrunning) v |= DCTRL_NR;
    if (navail == 0) v |= DCTRL_AU;
    if (navail < dm->nwarps) v |= DCTRL_NU;
    return v;
}

static uint32_t dm_dctrl(const struct vx_dm *dm)
{
    uint32_t v = DCTRL_DA | dm_summary(dm);
    if (dm->reset_left) v |= DCTRL_NT;
    if (dm->steperr) v |= DCTRL_SERR;
    if (dm->injecterr) v |= DCTRL_IERR;
    vx_warp_info wi;
    if (dm_info(dm, DSEL_WARPSEL(dm->dselect), &wi) && wi.halted)
        v |= (uint32_t)(wi.hacause & 7u) << DCTRL_HC_SHIFT;
    v |= (uint32_t)dm->injectstate << DCTRL_IST_SHIFT;
    v |= (uint32_t)dm->stepstate << DCTRL_SST_SHIFT;
    return v;
}

/* Return every DM register but PLATFORM to its reset value (dmactive = 0 or vx_dm_new). */
static void dm_reset_regs(struct vx_dm *dm)
{
    dm->active = false;
    dm->steperr = dm->injecterr = false;
    dm->resethalt = false;
    dm->dconfig = DCONFIG_RESET;
    dm->dselect = 0;
    dm->inject = 0;
    dm->stepstate = dm->injectstate = DM_ST_NONE;
    dm->reset_left = 0;
    dm->step_warp = dm->inj_warp = dm->inj_lane = dm->inj_insn = 0;
    memset(dm->mask, 0, (size_t)dm->nwin * sizeof dm->mask[0]);
}

static void dm_deactivate(struct vx_dm *dm)
{
    bool eh = dm->dconfig & DCONFIG_EH;
    dm_reset_regs(dm);
    if (eh) {
        vx_sim_set_ebreak_halt(dm->sim, false);
        dm_emit(dm, VX_DM_WRITE, VX_DM_DCONFIG, 0, 0, 0, 0);
    }
}

/* Halt one warp (not already halted) and report it. */
static void dm_halt_one(struct vx_dm *dm, uint32_t g, uint8_t cause)
{
    vx_warp_info wi;
    if (!dm_info(dm, g, &wi) || wi.halted) return;
    if (vx_sim_halt(dm->sim, g, cause) == VX_OK) dm_emit(dm, VX_DM_HALT, 0, 0, g, 0, cause);
}

static void dm_halt_selected(struct vx_dm *dm, uint8_t cause)
{
    for (uint32_t w = 0; w < dm->nwin; w++) {
        uint32_t m = dm->mask[w];
        while (m) {
            uint32_t b = (uint32_t)__builtin_ctz(m);
            m &= m - 1;
            dm_halt_one(dm, w * 32 + b, cause);
        }
    }
}

static void dm_resume_selected(struct vx_dm *dm)
{
    for (uint32_t w = 0; w < dm->nwin; w++) {
        uint32_t m = dm->mask[w];
        while (m) {
            uint32_t g = w * 32 + (uint32_t)__builtin_ctz(m);
            m &= m - 1;
            vx_warp_info wi;
            if (!dm_info(dm, g, &wi) || !wi.halted) continue;
            if (vx_sim_resume(dm->sim, g) == VX_OK) dm_emit(dm, VX_DM_RESUME, 0, 0, g, 0, 0);
        }
    }
}

static void dm_start_reset(struct vx_dm *dm)
{
    vx_sim_reset(dm->sim);
    dm_emit(dm, VX_DM_RESET, 0, 0, 0, 0, 0);
    dm->stepstate = dm->injectstate = DM_ST_NONE;
    dm->reset_left = 1u << (dm->dconfig >> DCONFIG_NRC_SHIFT);
}

static void dm_step_request(struct vx_dm *dm)
{
    uint32_t g = DSEL_WARPSEL(dm->dselect);
    vx_warp_info wi;
    dm->steperr = true;
    if (dm->stepstate != DM_ST_NONE || dm->injectstate != DM_ST_NONE) return;
    if (dm->reset_left || vx_sim_finished(dm->sim)) return;
    if (!dm_info(dm, g, &wi) || !wi.active || !wi.halted || wi.stalled) return;
    dm->steperr = false;
    dm->step_warp = g;
    dm->stepstate = DM_ST_REQ;
}

static void dm_inject_reject(struct vx_dm *dm, uint32_t g, uint32_t lane, uint32_t insn,
                             uint32_t why)
{
    dm->injecterr = true;
    dm_emit(dm, VX_DM_INJECT_REJECT, 0, insn, g, lane, why);
}

static void dm_inject_request(struct vx_dm *dm)
{
    uint32_t g = DSEL_WARPSEL(dm->dselect), lane = DSEL_THREADSEL(dm->dselect);
    vx_warp_info wi;
    dm->injecterr = false;
    if (dm->stepstate != DM_ST_NONE || dm->injectstate != DM_ST_NONE) {
        dm_inject_reject(dm, g, lane, dm->inject, VX_DM_REJ_BUSY);
    } else if (dm->reset_left) {
        dm_inject_reject(dm, g, lane, dm->inject, VX_DM_REJ_RESET);
    } else if (lane >= dm->nthreads || !dm_info(dm, g, &wi)) {
        dm_inject_reject(dm, g, lane, dm->inject, VX_DM_REJ_NO_TARGET);
    } else if (!wi.halted) {
        dm_inject_reject(dm, g, lane, dm->inject, VX_DM_REJ_NOT_HALTED);
    } else {
        dm->inj_warp = g;
        dm->inj_lane = lane;
        dm->inj_insn = dm->inject;
        dm->injectstate = DM_ST_REQ;
    }
}

static void dm_write_dctrl(struct vx_dm *dm, uint32_t v)
{
    if (!(v & DCTRL_DA)) {
        if (dm->active) dm_deactivate(dm);
        return;
    }
    dm->active = true;
    if (v & DCTRL_RHR) dm->resethalt = true;
    if ((v & DCTRL_NT) && !dm->reset_left) dm_start_reset(dm);
    if (v & DCTRL_HR)
        dm_halt_selected(dm, VX_HACAUSE_HALTREQ);
    else if (v & DCTRL_RR)
        dm_resume_selected(dm);
    else if (v & DCTRL_SR)
        dm_step_request(dm);
    else if (v & DCTRL_IR)
        dm_inject_request(dm);
}

/* Advance the step and injection state machines by one DM cycle. */
static void dm_cycle_requests(struct vx_dm *dm)
{
    vx_stop stop;
    vx_warp_info wi;

    if (dm->stepstate == DM_ST_INFLIGHT) {
        dm->stepstate = DM_ST_NONE;
    } else if (dm->stepstate == DM_ST_REQ) {
        uint32_t g = dm->step_warp;
        memset(&stop, 0, sizeof stop);
        /* The warp may have been resumed (or changed) since the request. */
        if (!dm_info(dm, g, &wi) || !wi.active || !wi.halted || wi.stalled ||
            vx_sim_step_warp(dm->sim, g, &stop) != VX_OK) {
            dm->steperr = true;
            dm->stepstate = DM_ST_NONE;
        } else {
            if (stop.reason == VX_STOP_FAULT) dm->steperr = true;
            /* A stepped ebreak (with ebreakh) halts by itself: report its cause. */
            if (dm_info(dm, g, &wi) && wi.halted && wi.hacause == VX_HACAUSE_EBREAK)
                dm_emit(dm, VX_DM_HALT, 0, 0, g, 0, VX_HACAUSE_EBREAK);
            dm->stepstate = DM_ST_INFLIGHT;
        }
    }

    if (dm->injectstate == DM_ST_INFLIGHT) {
        dm->injectstate = DM_ST_NONE;
    } else if (dm->injectstate == DM_ST_REQ) {
        uint32_t g = dm->inj_warp, lane = dm->inj_lane, insn = dm->inj_insn;
        memset(&stop, 0, sizeof stop);
        if (!dm_info(dm, g, &wi) || !wi.halted) {
            dm->injectstate = DM_ST_NONE;
            dm_inject_reject(dm, g, lane, insn, VX_DM_REJ_NOT_HALTED);
            return;
        }
        vx_err e = vx_sim_inject(dm->sim, g, lane, insn, &stop);
        if (e != VX_OK) {
            dm->injectstate = DM_ST_NONE;
            dm_inject_reject(dm, g, lane, insn,
                             e == VX_ERR_REJECT ? VX_DM_REJ_CLASS : VX_DM_REJ_OTHER);
            return;
        }
        if (stop.reason == VX_STOP_FAULT) dm_inject_reject(dm, g, lane, insn, VX_DM_REJ_FAULT);
        dm->injectstate = DM_ST_INFLIGHT;
    }
}

/* ---- hooks called by the core (dm_int.h) --------------------------------------------------- */

struct vx_dm *vx_dm_new(vx_sim *sim)
{
    const vx_sim_config *cfg = vx_sim_get_config(sim);
    struct vx_dm *dm = calloc(1, sizeof *dm);
    if (!dm) return NULL;
    dm->sim = sim;
    dm->nwarps = cfg->clusters * cfg->cores * cfg->warps;
    dm->nthreads = cfg->threads;
    dm->nwin = (dm->nwarps + 31) / 32;
    if (dm->nwin == 0) dm->nwin = 1;
    dm->mask = calloc(dm->nwin, sizeof dm->mask[0]);
    if (!dm->mask) {
        free(dm);
        return NULL;
    }
    uint32_t log2t = 0;
    while (log2t < 7 && (1u << log2t) < cfg->threads)
        log2t++;
    dm->platform = 1u << 28 | (cfg->clusters & 0x7Fu) << 21 | (cfg->cores & 0x1FFu) << 12 |
                   (cfg->warps & 0x1FFu) << 3 | log2t;
    dm_reset_regs(dm);
    dm_sync(dm);
    return dm;
}

void vx_dm_free(struct vx_dm *dm)
{
    if (!dm) return;
    free(dm->mask);
    free(dm);
}

bool vx_dm_cycle(struct vx_dm *dm)
{
    if (VX_LIKELY(!dm->active)) return false;
    if (dm->reset_left) {
        if (--dm->reset_left) return true;
        /* Last cycle of the hold: apply the reset-halt now, so that the selected
         * warps never issue an instruction after the reset. */
        if (dm->resethalt) {
            dm->resethalt = false;
            dm_halt_selected(dm, VX_HACAUSE_RESETHALTREQ);
        }
        dm_sync(dm);
        return true;
    }
    if (dm->stepstate != DM_ST_NONE || dm->injectstate != DM_ST_NONE) {
        dm_cycle_requests(dm);
        dm_sync(dm);
    }
    return false;
}

bool vx_dm_in_reset(const struct vx_dm *dm)
{
    return dm->reset_left != 0;
}

void vx_dm_on_halt(struct vx_dm *dm, uint32_t gwarp, uint8_t cause)
{
    dm_emit(dm, VX_DM_HALT, 0, 0, gwarp, 0, cause);
}

size_t vx_dm_state_size(const struct vx_dm *dm)
{
    return DM_STATE_FIXED + 4u * (size_t)dm->nwin;
}

void vx_dm_state_save(const struct vx_dm *dm, void *buf)
{
    uint8_t *p = buf;
    uint32_t flags = (dm->active ? 1u : 0u) | (dm->steperr ? 2u : 0u) | (dm->injecterr ? 4u : 0u) |
                     (dm->resethalt ? 8u : 0u);
    vx_put_le32(p + 0, DM_STATE_VERSION);
    vx_put_le32(p + 4, dm->nwarps);
    vx_put_le32(p + 8, flags);
    vx_put_le32(p + 12, dm->dconfig);
    vx_put_le32(p + 16, dm->dselect);
    vx_put_le32(p + 20, dm->inject);
    vx_put_le32(p + 24, (uint32_t)dm->stepstate | (uint32_t)dm->injectstate << 8);
    vx_put_le32(p + 28, dm->reset_left);
    vx_put_le32(p + 32, dm->step_warp);
    vx_put_le32(p + 36, dm->inj_warp);
    vx_put_le32(p + 40, dm->inj_lane);
    vx_put_le32(p + 44, dm->inj_insn);
    for (uint32_t i = 0; i < dm->nwin; i++)
        vx_put_le32(p + DM_STATE_FIXED + 4 * i, dm->mask[i]);
}

void vx_dm_state_restore(struct vx_dm *dm, const void *buf)
{
    const uint8_t *p = buf;
    /* A buffer saved by another platform shape (or a future layout) is ignored:
     * the caller only hands back what vx_dm_state_save produced for this sim. */
    if (vx_get_le32(p) != DM_STATE_VERSION || vx_get_le32(p + 4) != dm->nwarps) return;
    uint32_t flags = vx_get_le32(p + 8), st = vx_get_le32(p + 24);
    dm->active = flags & 1u;
    dm->steperr = flags & 2u;
    dm->injecterr = flags & 4u;
    dm->resethalt = flags & 8u;
    dm->dconfig = vx_get_le32(p + 12) & DCONFIG_MASK;
    dm->dselect = vx_get_le32(p + 16);
    dm->inject = vx_get_le32(p + 20);
    dm->stepstate = (uint8_t)(st & 3u);
    dm->injectstate = (uint8_t)((st >> 8) & 3u);
    if (dm->stepstate > DM_ST_INFLIGHT) dm->stepstate = DM_ST_NONE;
    if (dm->injectstate > DM_ST_INFLIGHT) dm->injectstate = DM_ST_NONE;
    dm->reset_left = vx_get_le32(p + 28);
    if (dm->reset_left > 128) dm->reset_left = 128;
    dm->step_warp = vx_get_le32(p + 32);
    dm->inj_warp = vx_get_le32(p + 36);
    dm->inj_lane = vx_get_le32(p + 40);
    dm->inj_insn = vx_get_le32(p + 44);
    for (uint32_t i = 0; i < dm->nwin; i++) {
        uint32_t m = vx_get_le32(p + DM_STATE_FIXED + 4 * i);
        dm->mask[i] = m & dm_window_valid(dm, i);
    }
    dm_sync(dm);
    /* not the machine's ebreak-halt mode: the snapshot restores that with the rest of
     * the machine (a replay sets it from the recorded DCONFIG writes, without this DM) */
}

/* ---- the debugger's side: register access -------------------------------------------------- */

static uint32_t dm_read_reg(struct vx_dm *dm, uint32_t addr)
{
    if (addr == VX_DM_PLATFORM) return dm->platform;
    if (!dm->active) return 0;
    uint32_t g = DSEL_WARPSEL(dm->dselect), lane = DSEL_THREADSEL(dm->dselect);
    vx_warp_info wi;
    switch (addr) {
    case VX_DM_DCONFIG: return dm->dconfig;
    case VX_DM_DSELECT: return dm->dselect;
    case VX_DM_WMASK: {
        long w = dm_window(dm);
        return w < 0 ? 0 : dm->mask[w];
    }
    case VX_DM_WACTIVE: return dm_window_bits(dm, false);
    case VX_DM_WSTATUS: return dm_window_bits(dm, true);
    case VX_DM_DCTRL: return dm_dctrl(dm);
    case VX_DM_DPC: return dm_info(dm, g, &wi) ? wi.pc : 0;
    case VX_DM_INJECT: return dm->inject;
    default: {
        /* DSCRATCH0..3 */
        uint32_t v = 0;
        if (g < dm->nwarps && lane < dm->nthreads &&
            vx_sim_reg_read(dm->sim, g, lane, VX_RF_CSR,
                            VX_CSR_DSCRATCH0 + (addr - VX_DM_DSCRATCH0), &v) != VX_OK)
            v = 0;
        return v;
    }
    }
}

/* A debugger write: report it, then carry it out (effects are reported after it). */
static void dm_write_reg(struct vx_dm *dm, uint32_t addr, uint32_t v)
{
    uint32_t g = DSEL_WARPSEL(dm->dselect), lane = DSEL_THREADSEL(dm->dselect);
    vx_warp_info wi;

    if (addr == VX_DM_DCTRL) {
        dm_emit(dm, VX_DM_WRITE, (uint8_t)addr, v, 0, 0, 0);
        dm_write_dctrl(dm, v);
        return;
    }
    if (addr == VX_DM_DCONFIG) {
        if (dm->active) {
            dm->dconfig = v & DCONFIG_MASK;
            vx_sim_set_ebreak_halt(dm->sim, dm->dconfig & DCONFIG_EH);
        }
        dm_emit(dm, VX_DM_WRITE, (uint8_t)addr, dm->active ? dm->dconfig : 0, 0, 0, 0);
        return;
    }
    dm_emit(dm, VX_DM_WRITE, (uint8_t)addr, v, 0, 0, 0);
    if (!dm->active) return;
    switch (addr) {
    case VX_DM_DSELECT: dm->dselect = v; break;
    case VX_DM_WMASK: {
        long w = dm_window(dm);
        if (w >= 0) dm->mask[w] = v & dm_window_valid(dm, (uint32_t)w);
        break;
    }
    case VX_DM_DPC:
        /* refused: a PC the core could not fetch from (no compressed instructions), and
         * the PC of a warp not spawned yet (WSPAWN sets it) */
        if ((v & 3u) == 0 && dm_info(dm, g, &wi) && wi.halted && wi.active &&
            vx_sim_set_pc(dm->sim, g, v) == VX_OK)
            dm_emit(dm, VX_DM_SET_PC, 0, v, g, 0, 0);
        break;
    case VX_DM_INJECT: dm->inject = v; break;
    case VX_DM_PLATFORM:
    case VX_DM_WACTIVE:
    case VX_DM_WSTATUS: break; /* read-only */
    default: {
        uint32_t n = addr - VX_DM_DSCRATCH0;
        if (g < dm->nwarps && lane < dm->nthreads &&
            vx_sim_reg_write(dm->sim, g, lane, VX_RF_CSR, VX_CSR_DSCRATCH0 + n, v) == VX_OK)
            dm_emit(dm, VX_DM_SCRATCH, 0, v, g, lane, n);
        break;
    }
    }
}

vx_err vx_sim_dm_read(vx_sim *sim, uint32_t addr, uint32_t *val)
{
    struct vx_dm *dm = VX_SIM_DM(sim);
    if (addr >= VX_DM_NREGS) {
        *val = 0;
        return VX_ERR_RANGE;
    }
    *val = dm_read_reg(dm, addr);
    dm_emit(dm, VX_DM_READ, (uint8_t)addr, *val, 0, 0, 0);
    return VX_OK;
}

vx_err vx_sim_dm_write(vx_sim *sim, uint32_t addr, uint32_t val)
{
    struct vx_dm *dm = VX_SIM_DM(sim);
    if (addr >= VX_DM_NREGS) return VX_ERR_RANGE;
    dm_write_reg(dm, addr, val);
    dm_sync(dm);
    return VX_OK;
}
