/*
 * vx_sim.h - libvxsim: a deterministic functional simulator of the Vortex GPGPU.
 *
 * Object model
 *   A vx_sim is one platform: clusters x cores x warps x threads, sparse paged
 *   guest memory, one local memory per core, and the VxDebug Debug Module.  It is
 *   created from a vx_sim_config, loaded with an image, then stepped.  Nothing in
 *   libvxsim prints, exits, reads the clock or uses randomness: the same
 *   configuration and image always give bit-identical results (DESIGN.md §1).
 *
 * Linking: libvxsim.a with -lelf (the image loader), -lcapstone (the disassembler of
 *   vx_isa.h) and -lm; installed (make install), `pkg-config --cflags --libs vxsim`.
 *
 * Identifiers
 *   core   global core id = cluster * cores_per_cluster + core_in_cluster
 *   warp   warp index within its core (0 .. warps-1)
 *   gwarp  global warp id = core * warps + warp (VxDebug numbering)
 *   lane   thread index within its warp (0 .. threads-1)
 *
 * Errors
 *   Functions return vx_err (vx_err.h).  After a failure vx_sim_errmsg() holds a
 *   message naming what was wrong.  Kernel faults are not errors: they are
 *   reported as VX_STOP_FAULT with a vx_fault.
 *
 * Time
 *   Every warp-instruction issue gets the next event index (vx_sim_index()).  The
 *   scheduler (documented in sim.c): one instruction per core per cycle, cores
 *   in index order, within a core round-robin over warps that are active, not
 *   stalled and not halted, starting after the warp that issued last.
 *
 * Semantics pinned beyond research §1-§4 (details next to the code, sim/exec.c)
 *   - A global barrier (id bit 31) counts cores of the WHOLE platform, not of a
 *     cluster: count = vx_num_cores() works with any number of clusters.
 *   - A mask read from a register (tmc, pred's restore mask) is the 32-bit value
 *     sign-extended to the lane count: `tmc -1` enables all of 64 or 128 lanes.
 *   - pred restoring an empty mask ends the warp like `tmc 0`.
 *   - Plain CSR storage (mstatus, mtvec, mepc, ...) is per warp; DSCRATCH per
 *     thread; fflags/frm/fcsr per warp; mscratch per core (sim/csr.c).
 *   - A CSR instruction on a shared CSR runs lane by lane in ascending order.
 *
 * Faults and their signals (vx_fault.signal: Linux numbers but SIGSYS, GDB's 12)
 *   ILLEGAL, CSR                                     4  SIGILL
 *   EBREAK (ebreak without DCONFIG.ebreakh)          5  SIGTRAP
 *   DIVERGENT, IPDOM_*, BARRIER, WSPAWN, DEADLOCK    6  SIGABRT
 *   MISALIGNED, CONSOLE                              7  SIGBUS
 *   UNMAPPED (including the guest memory limit)     11  SIGSEGV
 *   ECALL (a7 != 93)                                12  SIGSYS
 *   A fault is precise (the instruction has no effect; every lane is checked
 *   before any is performed) and freezes the machine (vx_sim_finished).
 */
#ifndef VX_SIM_H
#define VX_SIM_H

#include "vx_base.h"
#include "vx_err.h"
#include "vx_event.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- memory map (DESIGN.md §1, research §3.2) -------------------------------------- */

/*
 * As the executor sees it:
 *   [0x00000000, 0x00000040)  unmapped null guard: any access faults UNMAPPED
 *   [0x00000040, 0x00000080)  console: byte stores go to slot addr-0x40 (not stored);
 *                             other store sizes fault CONSOLE; loads read 0
 *   [0x00000080, 0xFFFF0000)  global memory: sparse 4 KiB pages, zero-filled, allocated
 *                             on first write and counted against mem_limit (exceeding
 *                             it faults UNMAPPED, "exceeds the guest memory limit")
 *   [0xFFFF0000, 0xFFFF4000)  the issuing core's 16 KiB local memory
 *   [0xFFFF4000, 2^32)        unmapped
 * Kernel images load into [0x10000, 0xFFFF0000).  The exit code is the word at 0x88.
 * Misaligned loads, stores and AMOs fault MISALIGNED.  Lanes access memory in
 * ascending lane order within an instruction.  LR/SC reservations are per thread,
 * for global memory only (SC to local memory fails); any write to a reserved word
 * clears the reservations of that word.
 */

#define VX_IO_COUT_ADDR     0x00000040u /* console window, 64 byte slots */
#define VX_IO_COUT_SIZE     0x40u
#define VX_IO_EXITCODE_ADDR 0x00000088u /* exit status word */
#define VX_USER_BASE_ADDR   0x00010000u
#define VX_STARTUP_ADDR     0x80000000u
#define VX_STACK_BASE_ADDR  0xFFFF0000u /* hart h: sp = base - h * 8 KiB */
#define VX_STACK_LOG2_SIZE  13u
#define VX_LMEM_BASE_ADDR   0xFFFF0000u /* per-core local memory */
#define VX_LMEM_LOG2_SIZE   14u         /* 16 KiB */

/* Is addr in local memory (each core's own)? */
static inline bool vx_addr_in_lmem(uint32_t addr)
{
    return addr >= VX_LMEM_BASE_ADDR && addr - VX_LMEM_BASE_ADDR < (1u << VX_LMEM_LOG2_SIZE);
}

/* ---- configuration ------------------------------------------------------------------ */

/* The guest memory limit when vx_sim_config.mem_limit is 0: 1 GiB. */
#define VX_SIM_DEFAULT_MEM_LIMIT ((uint64_t)1 << 30)

typedef struct vx_sim_config {
    uint32_t clusters;  /* 1..127 */
    uint32_t cores;     /* cores per cluster, 1..511 */
    uint32_t warps;     /* warps per core, 1..511 */
    uint32_t threads;   /* threads per warp: power of two, 1..128 */
    uint64_t mem_limit; /* max bytes of guest memory pages (0 = VX_SIM_DEFAULT_MEM_LIMIT) */
    uint32_t start_pc;  /* reset PC (default VX_STARTUP_ADDR; loaders set the entry) */
    uint32_t arg;       /* reset value of mscratch on every core (kernel argument) */
    bool misaligned;    /* misaligned loads and stores are carried out byte by byte, as
                           SimX does (false, the default: they fault); AMOs, LR/SC, jumps
                           and fetches must be aligned either way */
} vx_sim_config;

/* Default Vortex shape 1 x 1 x 4 x 4. */
#define VX_SIM_CONFIG_INIT                       \
    {                                            \
        1, 1, 4, 4, 0, VX_STARTUP_ADDR, 0, false \
    }

/* Checks limits: total warps <= 32768, threads a power of two <= 128, ... */
vx_err vx_sim_config_check(const vx_sim_config *cfg, char *msg, size_t cap);

typedef struct vx_sim vx_sim;

vx_err vx_sim_new(const vx_sim_config *cfg, vx_sim **out);
void vx_sim_free(vx_sim *sim);
const char *vx_sim_errmsg(const vx_sim *sim);
const vx_sim_config *vx_sim_get_config(const vx_sim *sim);
uint32_t vx_sim_num_cores(const vx_sim *sim); /* clusters * cores */
uint32_t vx_sim_num_warps(const vx_sim *sim); /* total warps */

/* ---- loading -------------------------------------------------------------------------- */

/* vx_image_kind (VX_IMAGE_ELF, _VXBIN, _BIN) is in vx_base.h: a trace names its kind. */

/*
 * Guess the kind from the bytes and the file name: ELF magic => ELF; name ending
 * in .vxbin => VXBIN; name ending in .elf => ELF (so that a broken .elf file is
 * reported as "not an ELF file" rather than run as a raw binary); otherwise BIN.
 */
vx_image_kind vx_image_detect(const char *name, const uint8_t *bytes, size_t len);

/*
 * Load an image held in memory.  name is used only in messages.  Sets the start
 * PC of every core to the entry point (ELF entry, vxbin min_vma, 0x80000000) and
 * resets the platform.  On error the message names the file and the problem
 * (not an ELF, ELF64, wrong machine, no loadable segment, segment overlapping the
 * IO region, truncated file, ...).  *entry may be NULL.
 */
vx_err vx_sim_load_image(vx_sim *sim, const char *name, vx_image_kind kind, const uint8_t *bytes,
                         size_t len, uint32_t *entry);

/* Reset every core, warp and register as at power-on; memory keeps its contents. */
void vx_sim_reset(vx_sim *sim);

/* ---- running -------------------------------------------------------------------------- */

typedef enum vx_stop_reason {
    VX_STOP_NONE = 0, /* the requested number of issues was done */
    VX_STOP_EXIT,     /* no warp is active any more (or ecall exit); exit_code valid */
    VX_STOP_FAULT,    /* a precise fault; fault valid; the machine is frozen */
    VX_STOP_LIMIT,    /* the cycle limit was reached */
    VX_STOP_IDLE, /* nothing can issue: every active warp is halted by the DM (or held in reset) */
    VX_STOP_HALT, /* a warp halted (ebreak with ebreakh, DM step done); see vx_sim_warp_info */
} vx_stop_reason;

typedef struct vx_stop {
    vx_stop_reason reason;
    uint64_t issued;    /* issues done by this call */
    uint32_t exit_code; /* VX_STOP_EXIT */
    vx_fault fault;     /* VX_STOP_FAULT */
    uint32_t gwarp;     /* VX_STOP_HALT: the warp that halted */
} vx_stop;

/*
 * Run until max_issues warp-instructions have issued (0 = no limit) or the
 * machine stops.  Cycles with nothing to issue advance the cycle counter.
 */
vx_err vx_sim_run(vx_sim *sim, uint64_t max_issues, vx_stop *stop);

/* Cycle limit for vx_sim_run (0 = none). */
void vx_sim_set_max_cycles(vx_sim *sim, uint64_t max_cycles);

/*
 * Issue the next instruction of (core, warp) as the scheduler's next decision at
 * cycle `cycle`: used by replay to follow a recorded schedule.  The warp must be
 * active and not stalled, and the cycle below the cycle limit, if one is set (the
 * scheduler issues nothing from there); the scheduler state (cycle, round-robin
 * position) is updated as if the scheduler had chosen this warp.  VX_ERR_NOMEM: the
 * host had no memory for a page the issue writes; the issue had no effect (nor on
 * the clock, unless the Debug Module was busy and ran the cycles before it), and can
 * be issued again once memory is free.
 */
vx_err vx_sim_issue(vx_sim *sim, uint32_t core, uint32_t warp, uint64_t cycle, vx_stop *stop);

uint64_t vx_sim_index(const vx_sim *sim); /* event index of the next issue */
uint64_t vx_sim_cycle(const vx_sim *sim); /* current cycle */
bool vx_sim_finished(const vx_sim *sim);  /* exited or faulted */

/* ---- the observer ---------------------------------------------------------------------- */

typedef void (*vx_sim_observer_fn)(void *ctx, const vx_event *ev);

#define VX_OBS_READS 0x1u /* also report per-lane memory reads in issue events */

/*
 * Called once per issue after it executed (or faulted), once per DM event, and
 * once at the end of the run.  fn = NULL removes the observer.  The event and
 * everything it points to are valid only during the call.
 */
void vx_sim_set_observer(vx_sim *sim, vx_sim_observer_fn fn, void *ctx, unsigned flags);

/*
 * The compact log (recorders): with a log set, the common issues are appended to
 * it instead of being passed to the observer, which gets every other event as
 * before, in the same order (an observer that writes into the same log keeps one
 * ordered stream).  A common issue: no flags (not injected, not a step), no fault,
 * warp-control effect or console byte, at most 32 threads per warp, core and warp
 * (within the core) below 256, less than 64 cycles after log->cycle, and either no
 * memory write and at most one commit, of the integer or float file and of the
 * issue's lanes, or no commit and one memory write of one size per lane of the
 * thread mask (a store).
 *
 * Its record is a vx_logrec (vx_event.h).  The simulator sets log->cycle to the
 * issue's cycle; an observer that writes into the log sets it for the events it
 * writes.  refill(log, need) is called when fewer
 * than need bytes are left before end; it makes room (pos and end may change) or
 * returns false, and the issue goes to the observer instead.  Host byte order: the
 * log is for another thread of the same process, not for files.
 */
typedef struct vx_log {
    uint8_t *pos, *end; /* where the next record goes; room up to end */
    uint64_t cycle;     /* cycle of the last event in the log */
    bool (*refill)(struct vx_log *log, size_t need);
    void *ctx; /* the client's */
    /* The client takes affine records, from 8 lanes up: commits whose values are
     * base + lane * stride (VX_LOG_AFFINE) and stores to every lane whose addresses
     * are (VX_LOG_MEMAFF), as the two numbers.  Fewer bytes to move to another
     * thread; in one thread, expanding them costs more than it saves. */
    bool affine;
} vx_log;

/* Set (or with NULL remove) the log; it stays the caller's.  Needs an observer. */
void vx_sim_set_log(vx_sim *sim, vx_log *log);

/* ---- state access (debuggers, replay, tests) ---------------------------------------------- */

typedef struct vx_warp_info {
    bool active;     /* has a nonzero thread mask and has not finished */
    bool stalled;    /* waiting at a barrier or a WSPAWN join */
    bool halted;     /* halted by the Debug Module */
    uint8_t hacause; /* VX_HACAUSE_* of the last halt */
    uint32_t pc;
    vx_lanes tmask;
    uint32_t ipdom_depth;
    bool at_barrier;      /* waiting at a barrier: */
    uint32_t barrier;     /* its id (bit 31 = global; 0 when not waiting) */
    uint32_t bar_arrived; /* warps of its core there (global: cores arrived), it included */
    uint32_t bar_need;    /* the count its vx_bar named (0 when not known) */
    bool spawn_wait;      /* waiting for a WSPAWN join */
    uint64_t issued;      /* instructions issued by this warp */
} vx_warp_info;

vx_err vx_sim_warp_info(const vx_sim *sim, uint32_t gwarp, vx_warp_info *out);

typedef struct vx_ipdom_entry {
    vx_lanes orig_mask;
    vx_lanes else_mask;
    uint32_t pc;
    bool fallthrough;
} vx_ipdom_entry;

/* Entry idx (0 = bottom) of gwarp's IPDOM stack. */
vx_err vx_sim_ipdom_get(const vx_sim *sim, uint32_t gwarp, uint32_t idx, vx_ipdom_entry *out);

/*
 * Registers of one thread.  file VX_RF_X / VX_RF_F / VX_RF_CSR.  CSR reads here
 * have no side effects and include the read-only Vortex CSRs; writes to read-only
 * CSRs give VX_ERR_STATE.  Writing x0 is ignored.
 */
vx_err vx_sim_reg_read(const vx_sim *sim, uint32_t gwarp, uint32_t lane, vx_regfile file,
                       uint32_t reg, uint32_t *val);
vx_err vx_sim_reg_write(vx_sim *sim, uint32_t gwarp, uint32_t lane, vx_regfile file, uint32_t reg,
                        uint32_t val);
vx_err vx_sim_set_pc(vx_sim *sim, uint32_t gwarp, uint32_t pc);
vx_err vx_sim_set_tmask(vx_sim *sim, uint32_t gwarp, vx_lanes tmask);

/*
 * Guest memory as seen from `core` (the local-memory window maps to that core's
 * local memory).  Reads of never-written memory give zeros; reads outside mapped
 * memory give VX_ERR_RANGE.  These accesses are not reported to the observer.
 */
vx_err vx_sim_mem_read(const vx_sim *sim, uint32_t core, uint32_t addr, void *buf, size_t len);
vx_err vx_sim_mem_write(vx_sim *sim, uint32_t core, uint32_t addr, const void *buf, size_t len);

/*
 * Console: bytes stored to 0x40 + slot are collected per slot; when a slot
 * receives '\n' the line (without the newline) is passed to fn.  At the end of a
 * run, vx_sim_console_flush() passes any unterminated lines.  Vortex prints each
 * line as "#<slot>: <line>"; formatting is the program's business.
 */
typedef void (*vx_sim_console_fn)(void *ctx, uint32_t slot, const char *line, size_t len);
void vx_sim_set_console(vx_sim *sim, vx_sim_console_fn fn, void *ctx);
void vx_sim_console_flush(vx_sim *sim);

/* Console bytes per slot are kept until a newline; this returns the partial line of slot. */
size_t vx_sim_console_pending(const vx_sim *sim, uint32_t slot, char *buf, size_t cap);

/*
 * The line assembly of one console slot, as the simulator does it, for whoever
 * reads recorded console bytes (vx_event.h) and wants the same lines: a byte is
 * added to the line; '\n' passes the line (without it) to emit and starts a new
 * one; a line that reached VX_CONSOLE_MAXLINE bytes is passed on before the next
 * byte.  Zero-initialise; vx_conline_free releases the buffer.  A byte that cannot
 * be stored (no memory) is dropped.
 */
#define VX_CONSOLE_SLOTS   64u
#define VX_CONSOLE_MAXLINE 4096u

typedef struct vx_conline {
    uint32_t len, cap;
    char *data;
} vx_conline;

typedef void (*vx_conline_fn)(void *ctx, const char *line, size_t len);
void vx_conline_put(vx_conline *b, uint8_t byte, vx_conline_fn emit, void *ctx);
void vx_conline_free(vx_conline *b);

typedef struct vx_sim_stats {
    uint64_t issues;   /* warp-instructions */
    uint64_t lane_ops; /* sum of active lanes over issues */
    uint64_t cycles;
    uint64_t splits, divergent_splits, joins, preds, barriers, spawns;
} vx_sim_stats;

void vx_sim_get_stats(const vx_sim *sim, vx_sim_stats *out);

/* ---- debug primitives (the Debug Module is built on these) --------------------------------- */

/* Halt / resume a warp.  A halted warp is never scheduled. */
vx_err vx_sim_halt(vx_sim *sim, uint32_t gwarp, uint8_t hacause);
vx_err vx_sim_resume(vx_sim *sim, uint32_t gwarp);

/* When on, `ebreak` halts its warp (hacause EBREAK, PC stays at the ebreak) instead of faulting. */
void vx_sim_set_ebreak_halt(vx_sim *sim, bool on);
/* Whether `ebreak` halts its warp now (set above, by the Debug Module, or restored). */
bool vx_sim_ebreak_halt(const vx_sim *sim);

/*
 * Execute exactly one instruction of a halted warp and leave it halted with
 * hacause STEP (the issue is reported with VX_EVF_STEP).  A warp that is stalled
 * at a barrier or WSPAWN join cannot step: VX_ERR_STATE.
 */
vx_err vx_sim_step_warp(vx_sim *sim, uint32_t gwarp, vx_stop *stop);

/*
 * Execute `insn` in gwarp with only `lane` active, without changing the warp's PC
 * or thread mask (VxDebug injection).  Allowed: integer/FP ALU, loads, stores,
 * AMOs, CSR instructions, fence.  Rejected with VX_ERR_REJECT (and a message):
 * branches, jal, jalr, auipc (PC-relative), ecall, ebreak, mret, and the custom-0
 * warp-control group.  A memory fault in an injected instruction is returned as
 * VX_STOP_FAULT in *stop but does not end the kernel.  Reported with VX_EVF_INJECTED.
 */
vx_err vx_sim_inject(vx_sim *sim, uint32_t gwarp, uint32_t lane, uint32_t insn, vx_stop *stop);

/* Send a DM event to the observer (used by the Debug Module). */
void vx_sim_emit_dm(vx_sim *sim, const vx_dm_event *dm);

/* ---- the VxDebug Debug Module (dm.c; registers 0x0..0xC of vxdebug-spec.md) --------------------- */

#define VX_DM_PLATFORM  0x0u
#define VX_DM_DCONFIG   0x1u
#define VX_DM_DSELECT   0x2u
#define VX_DM_WMASK     0x3u
#define VX_DM_WACTIVE   0x4u
#define VX_DM_WSTATUS   0x5u
#define VX_DM_DCTRL     0x6u
#define VX_DM_DPC       0x7u
#define VX_DM_INJECT    0x8u
#define VX_DM_DSCRATCH0 0x9u /* .. 0xC = DSCRATCH3 */
#define VX_DM_NREGS     0xDu

/* DSCRATCH0..3 as seen by the core: CSR 0x7B2..0x7B5, one set per thread. */
#define VX_CSR_DSCRATCH0 0x7B2u

/* Register access; every access is reported as a VX_EV_DM event.  Bad address: VX_ERR_RANGE. */
vx_err vx_sim_dm_read(vx_sim *sim, uint32_t addr, uint32_t *val);
vx_err vx_sim_dm_write(vx_sim *sim, uint32_t addr, uint32_t val);

/*
 * Advance DM timing by one cycle when the machine has nothing to issue (ndmreset
 * and resethaltreq last 2^N cycles).  vx_sim_run does this itself while it runs.
 */
void vx_sim_dm_tick(vx_sim *sim);

/*
 * vx_sim_dm_tick until the machine's cycle is `cycle` (nothing if it is there or
 * past).  Once the DM has nothing timed under way, the remaining idle cycles change
 * nothing but the count and are passed at once, so a far cycle costs no time.
 */
void vx_sim_dm_tick_to(vx_sim *sim, uint64_t cycle);

/* True while ndmreset holds the platform in reset. */
bool vx_sim_in_reset(const vx_sim *sim);

/* ---- snapshots (replay checkpoints) ------------------------------------------------------------ */

typedef struct vx_sim_snap vx_sim_snap;

/* Complete machine state; memory pages are shared copy-on-write with the live sim. */
vx_err vx_sim_snap_save(vx_sim *sim, vx_sim_snap **out);
vx_err vx_sim_snap_restore(vx_sim *sim, const vx_sim_snap *snap);
void vx_sim_snap_free(vx_sim_snap *snap);
uint64_t vx_sim_snap_index(const vx_sim_snap *snap);
/*
 * Pages the machine has copied because a snapshot shared them (copy-on-write), ever:
 * each leaves its old contents to the snapshots, so the growth of this count bounds
 * the growth of the memory they hold alone.
 */
uint64_t vx_sim_cow_pages(const vx_sim *sim);

/* Bytes this snapshot owns alone (registers + pages not shared with the live sim or others). */
size_t vx_sim_snap_bytes(const vx_sim_snap *snap);

/*
 * The memory a set of snapshots of sim holds beyond the live machine, counted one
 * snapshot at a time in position order: registers, plus the pages of snap that the
 * live sim does not hold and that prev (the snapshot before it, or NULL) does not
 * hold at the same address either.  Pages shared by snapshots that are not
 * neighbours are counted more than once (an overestimate, never an under-).
 */
size_t vx_sim_snap_bytes_beyond(const vx_sim *sim, const vx_sim_snap *snap,
                                const vx_sim_snap *prev);

/*
 * Portable state encoding for trace keyframes (format in sim/STATE.md, normative
 * part of trace-format/FORMAT.md): everything but memory.  *buf is malloc'd.
 */
vx_err vx_sim_state_encode(const vx_sim *sim, uint8_t **buf, size_t *len);
vx_err vx_sim_state_decode(vx_sim *sim, const uint8_t *buf, size_t len);

/* Memory pages (4 KiB) for keyframes.  space 0 = global memory, 1 + core = local memory. */
#define VX_PAGE_SIZE 4096u
typedef void (*vx_sim_page_fn)(void *ctx, uint32_t space, uint32_t addr, const uint8_t *page);
/* Visit pages written since the last vx_sim_clear_dirty (or every page when all). */
void vx_sim_visit_pages(const vx_sim *sim, bool all, vx_sim_page_fn fn, void *ctx);
void vx_sim_clear_dirty(vx_sim *sim);
vx_err vx_sim_put_page(vx_sim *sim, uint32_t space, uint32_t addr, const uint8_t *page);

#ifdef __cplusplus
}
#endif

#endif /* VX_SIM_H */
