/*
 * vx_event.h - the architectural event model shared by the simulator and the trace.
 *
 * The simulator reports everything that changes the machine through an observer
 * (vx_sim_set_observer) as a sequence of vx_event values; the recorder writes them
 * into a trace (trace-format/), and replay, vxdump and vxdiff read them back in the
 * same shape.  This header depends only on vx_base.h so that trace-format/ can use
 * it without the simulator (DESIGN.md §6).
 *
 * Time (DESIGN.md §3): every warp-instruction issue has an event index, counted
 * from 0 in the deterministic global order.  Events that are not issues (Debug
 * Module accesses, halts, resets, the end of the run) carry the index of the issue
 * that will come next, so they sit between two issues on the timeline.
 *
 * Ownership: every pointer inside a vx_event points into memory owned by whoever
 * produced the event (simulator or trace reader) and is valid only until the
 * callback returns / the next event is read.  Copy what you keep.
 */
#ifndef VX_EVENT_H
#define VX_EVENT_H

#include "vx_base.h"

/* ---- event kinds ---------------------------------------------------------- */

typedef enum vx_event_kind {
    VX_EV_ISSUE = 1, /* one warp-instruction issue (possibly injected by the DM) */
    VX_EV_DM = 2,    /* a Debug Module register access or DM-driven state change */
    VX_EV_END = 3,   /* end of the run: exit, fault, limit */
} vx_event_kind;

/* vx_event.flags for VX_EV_ISSUE */
#define VX_EVF_INJECTED 0x01u /* DM instruction injection: PC and mask of the warp unchanged */
#define VX_EVF_STEP     0x02u /* the issue was a DM single step of a halted warp */

/* ---- register commits ----------------------------------------------------- */

typedef enum vx_regfile {
    VX_RF_X = 1,   /* integer register x0..x31 (x0 is never committed) */
    VX_RF_F = 2,   /* float register f0..f31 (raw IEEE-754 single bits) */
    VX_RF_CSR = 3, /* CSR, reg = CSR address */
} vx_regfile;

/*
 * One destination written by an issue.  For per-thread registers values[t] is the
 * value written by lane t, for every t in lanes.  A CSR that is per warp (fflags,
 * frm, fcsr) or per core (mscratch) is committed with lanes = {0} and values[0].
 * An instruction may commit several destinations (csrrw writes rd and the CSR; an
 * FP op writes rd and fflags when the flags change).
 */
typedef struct vx_commit {
    uint8_t file;           /* vx_regfile */
    uint16_t reg;           /* register number or CSR address */
    vx_lanes lanes;         /* lanes written */
    const uint32_t *values; /* indexed by lane, [threads_per_warp] */
} vx_commit;

/* ---- memory ----------------------------------------------------------------- */

/*
 * One lane's memory write, in execution order (ascending lane order within an
 * instruction; an AMO is a read then a write per lane).  Addresses in the local
 * memory window [0xFFFF0000, 0xFFFF0000 + lmem size) refer to the local memory of
 * the issuing core.  value holds the size low bytes written (little-endian).
 */
typedef struct vx_memwrite {
    uint32_t addr;
    uint32_t value;
    uint8_t size; /* 1, 2 or 4 */
    uint8_t lane;
} vx_memwrite;

/* One lane's memory read (reported only with VX_OBS_READS; never stored in traces). */
typedef struct vx_memread {
    uint32_t addr;
    uint8_t size;
    uint8_t lane;
} vx_memread;

/* One byte written to the console window 0x40..0x7F (not stored to memory). */
typedef struct vx_console {
    uint8_t slot; /* address - 0x40 (= mhartid mod 64 when written by vx_putchar) */
    uint8_t byte;
} vx_console;

/* ---- warp control effects -------------------------------------------------------- */

typedef enum vx_wctl_kind {
    VX_WCTL_TMASK = 1,   /* warp's thread mask := mask */
    VX_WCTL_ACTIVATE,    /* warp becomes active: pc, mask (WSPAWN activation) */
    VX_WCTL_DEACTIVATE,  /* warp becomes inactive (tmc 0) */
    VX_WCTL_IPDOM_PUSH,  /* push {orig = mask, else = mask2, pc}; arg = new depth */
    VX_WCTL_IPDOM_POP,   /* pop; arg = new depth */
    VX_WCTL_IPDOM_ELSE,  /* mark top entry fallthrough and jump to its else side; arg = depth */
    VX_WCTL_SPAWN_WAIT,  /* WSPAWN pending: arg = warp count, pc = entry; issuing warp waits */
    VX_WCTL_BAR_ARRIVE,  /* warp arrives at barrier arg (bit 31 = global), count = arg2; stalls */
    VX_WCTL_BAR_RELEASE, /* barrier arg released; mask2 low bits unused; warp is released */
    VX_WCTL_STALL,       /* warp stalled (waiting) */
    VX_WCTL_UNSTALL,     /* warp released from a wait */
} vx_wctl_kind;

/*
 * One warp-control effect.  warp is the warp index within the issuing core (a
 * global barrier may release warps of other cores: core says which).
 */
typedef struct vx_wctl {
    uint8_t kind;  /* vx_wctl_kind */
    uint32_t core; /* global core id of the affected warp */
    uint32_t warp; /* warp index within that core */
    uint32_t pc;
    uint32_t arg, arg2;
    vx_lanes mask, mask2;
} vx_wctl;

/* ---- faults ------------------------------------------------------------------- */

typedef enum vx_fault_kind {
    VX_FAULT_NONE = 0,
    VX_FAULT_ILLEGAL,    /* illegal or unsupported instruction */
    VX_FAULT_CSR,        /* unknown CSR, or write to a read-only CSR */
    VX_FAULT_MISALIGNED, /* misaligned load/store/AMO or fetch */
    VX_FAULT_UNMAPPED,   /* access outside mapped memory (or guest memory limit) */
    VX_FAULT_DIVERGENT,  /* plain branch/jalr on which active lanes disagree */
    VX_FAULT_IPDOM_OVERFLOW,
    VX_FAULT_IPDOM_UNDERFLOW,
    VX_FAULT_BARRIER,  /* barrier id out of range */
    VX_FAULT_WSPAWN,   /* WSPAWN misuse */
    VX_FAULT_ECALL,    /* ecall that is not exit (a7 != 93) */
    VX_FAULT_EBREAK,   /* ebreak with DCONFIG.ebreakh clear: a breakpoint trap */
    VX_FAULT_DEADLOCK, /* every active warp waits and none can be released */
    VX_FAULT_CONSOLE,  /* non-byte store to the console window */
} vx_fault_kind;

/*
 * A precise fault: the faulting instruction has no architectural effect.
 * signal: Linux numbers (SIGILL 4, SIGTRAP 5, SIGABRT 6, SIGBUS 7, SIGFPE 8, SIGSEGV
 * 11), except SIGSYS 12 (GDB's number; vx_sim.h has the table); the replay server
 * turns them into GDB's numbers (SIGBUS 10).
 */
typedef struct vx_fault {
    uint8_t kind; /* vx_fault_kind */
    uint8_t signal;
    uint32_t core; /* global core id */
    uint32_t warp;
    uint32_t pc;
    uint32_t insn;
    uint32_t addr;   /* faulting address or CSR number, when relevant */
    vx_lanes lanes;  /* lanes involved */
    char reason[96]; /* human-readable, NUL-terminated, no newline */
} vx_fault;

/* ---- Debug Module events -------------------------------------------------------- */

typedef enum vx_dm_op {
    VX_DM_READ = 1, /* debugger read register addr -> value */
    VX_DM_WRITE,    /* debugger wrote value to register addr */
    VX_DM_HALT,     /* warp gwarp halted, arg = hacause */
    VX_DM_RESUME,   /* warp gwarp resumed */
    VX_DM_RESET,   /* platform reset (ndmreset) began: cores, warps, registers reset; memory kept */
    VX_DM_SET_PC,  /* warp gwarp's PC set to value by a DPC write */
    VX_DM_SCRATCH, /* DSCRATCH[arg] of (gwarp, lane) set to value by the debugger */
    VX_DM_INJECT_REJECT, /* injection of value (instruction word) rejected, arg = reason code */
} vx_dm_op;

/* hacause values (VxDebug DCTRL.hacause) */
#define VX_HACAUSE_NONE         0u
#define VX_HACAUSE_EBREAK       1u
#define VX_HACAUSE_HALTREQ      2u
#define VX_HACAUSE_STEP         3u
#define VX_HACAUSE_RESETHALTREQ 4u

/*
 * How a replayer applies recorded DM events (the rule every consumer follows):
 * replay never re-runs the Debug Module; it applies the recorded EFFECTS.
 *   VX_DM_READ           nothing (an observation)
 *   VX_DM_WRITE          nothing, except a write to DCONFIG: ebreak-halt := value & 1
 *                        (vx_sim_set_ebreak_halt), since it changes what ebreak does
 *   VX_DM_HALT / RESUME  vx_sim_halt(gwarp, arg) / vx_sim_resume(gwarp)
 *   VX_DM_RESET          vx_sim_reset()
 *   VX_DM_SET_PC         vx_sim_set_pc(gwarp, value)
 *   VX_DM_SCRATCH        vx_sim_reg_write(gwarp, lane, VX_RF_CSR, 0x7B2 + arg, value)
 *   VX_DM_INJECT_REJECT  nothing
 * Issues flagged VX_EVF_INJECTED are replayed with vx_sim_inject(gwarp, lane =
 * the single lane of tmask, insn); issues flagged VX_EVF_STEP with
 * vx_sim_step_warp(); other issues with vx_sim_issue(core, warp, cycle).
 * The Debug Module must therefore emit an effect event for every state change it
 * makes, in the order it makes them.
 */
typedef struct vx_dm_event {
    uint8_t op;   /* vx_dm_op */
    uint8_t addr; /* DM register address for READ/WRITE */
    uint32_t value;
    uint32_t gwarp; /* global warp id, when relevant */
    uint32_t lane;
    uint32_t arg;
} vx_dm_event;

/* ---- end of run ------------------------------------------------------------------ */

typedef enum vx_end_status {
    VX_END_EXIT = 1, /* all warps finished (or ecall exit): exit_code valid */
    VX_END_FAULT,    /* the run stopped at a fault: fault valid */
    VX_END_LIMIT,    /* --max-cycles reached */
    VX_END_ABORT,    /* recording stopped by the user or an error; the machine was still running */
} vx_end_status;

/* ---- the event ------------------------------------------------------------------ */

typedef struct vx_event {
    uint8_t kind;   /* vx_event_kind */
    uint8_t flags;  /* VX_EVF_* for issues */
    uint64_t index; /* event index (see top of file) */
    uint64_t cycle; /* cycle of the issue, or the current cycle */

    /* VX_EV_ISSUE: the schedule decision and what was issued */
    uint32_t core; /* global core id = cluster * cores_per_cluster + core */
    uint32_t warp; /* warp index within the core */
    uint32_t pc;
    uint32_t insn;
    vx_lanes tmask; /* thread mask at issue (for injection: the single injected lane) */

    uint32_t ncommits;
    const vx_commit *commits;
    uint32_t nmem;
    const vx_memwrite *mem;
    uint32_t nreads; /* only with VX_OBS_READS */
    const vx_memread *reads;
    uint32_t nwctl;
    const vx_wctl *wctl;
    uint32_t nconsole;
    const vx_console *console;
    /* Non-NULL when this issue faulted: then it has no other effect.  Also set on
     * VX_EV_END with status VX_END_FAULT (FORMAT.md 8.2; libvxtrace's writer refuses
     * one without, but a reader passes on what another writer wrote: check it). */
    const vx_fault *fault;

    /* VX_EV_DM */
    vx_dm_event dm;

    /* VX_EV_END */
    uint8_t end_status; /* vx_end_status */
    uint32_t exit_code;
} vx_event;

/* An empty event with index `index`: every field zero or NULL.  Field by field: a
 * memset of the whole struct per record is measurable where events are decoded. */
static inline void vx_event_clear(vx_event *ev, uint64_t index)
{
    ev->kind = ev->flags = 0;
    ev->index = index;
    ev->cycle = 0;
    ev->core = ev->warp = ev->pc = ev->insn = 0;
    ev->tmask = 0;
    ev->ncommits = ev->nmem = ev->nreads = ev->nwctl = ev->nconsole = 0;
    ev->commits = NULL;
    ev->mem = NULL;
    ev->reads = NULL;
    ev->wctl = NULL;
    ev->console = NULL;
    ev->fault = NULL;
    ev->dm.op = ev->dm.addr = 0; /* (no compound literal: C++ includes this header too) */
    ev->dm.value = ev->dm.gwarp = ev->dm.lane = ev->dm.arg = 0;
    ev->end_status = 0;
    ev->exit_code = 0;
}

/*
 * The compact record of a common issue (vx_sim_set_log; vx_trace_writer_logrecs):
 * no flags, fault, warp-control effect or console byte, at most 32 threads per
 * warp, core and warp below 256, less than 64 cycles after the event before it, and
 * either
 *   - no memory write and at most one commit, of the integer or float file and of
 *     the issue's lanes: a vx_logrec, then, with a commit, the T values of lanes
 *     0..T-1 (only the committed lanes matter); or, when VX_LOG_AFFINE is set in
 *     the commit byte, the value of lane l is base + l * stride (mod 2^32, uniform
 *     when stride is 0) and four u32 follow instead: base, stride, 0, 0; or
 *   - no commit and one memory write per lane of the thread mask, in ascending lane
 *     order, all of one size (a store): a vx_logrec whose commit byte is VX_LOG_MEM
 *     | size (1, 2 or 4), then the T addresses and the T values of lanes 0..T-1
 *     (only the lanes of the mask matter; values already cut to the size); or, when
 *     VX_LOG_MEMAFF is also set (every lane active, from 8 lanes up), the address of
 *     lane l is base + l * stride and four u32 (base, stride, 0, 0) and the T values
 *     follow,
 * padded to a multiple of 16 bytes: VX_LOGREC_SIZE.  Host byte order: for another
 * thread of the same process, never for files.
 */
typedef struct vx_logrec {
    uint8_t kind;   /* VX_LOG_ISSUE | (cycle - the cycle of the event before, < 64) */
    uint8_t commit; /* 0: none; VX_LOG_COMMIT | (VX_LOG_AFFINE) | (VX_LOG_F: the float
                       file) | reg; or VX_LOG_MEM | size */
    uint8_t core, warp;
    uint32_t pc, insn;
    uint32_t tmask;
} vx_logrec;

#define VX_LOG_ISSUE  0xC0u
#define VX_LOG_COMMIT 0x80u
#define VX_LOG_F      0x40u
#define VX_LOG_AFFINE 0x20u /* with VX_LOG_COMMIT */
#define VX_LOG_MEM    0x20u /* without VX_LOG_COMMIT */
#define VX_LOG_MEMAFF 0x40u /* with VX_LOG_MEM: the addresses are base + lane * stride */

/* Bytes of a record with this commit byte at T threads per warp. */
#define VX_LOGREC_SIZE(commit, T)                                                                  \
    (((commit)&VX_LOG_COMMIT)   ? (((commit)&VX_LOG_AFFINE) ? 32u : (16u + 4u * (T) + 15u) & ~15u) \
     : ((commit)&VX_LOG_MEMAFF) ? (32u + 4u * (T) + 15u) & ~15u                                    \
     : (commit)                 ? (16u + 8u * (T) + 15u) & ~15u                                    \
                                : 16u)

/* Fill a record's header: dcycle < 64, core and warp < 256. */
static inline void vx_logrec_head(vx_logrec *q, uint32_t dcycle, uint8_t commit, uint32_t core,
                                  uint32_t warp, uint32_t pc, uint32_t insn, uint32_t tmask)
{
    q->kind = (uint8_t)(VX_LOG_ISSUE | dcycle);
    q->commit = commit;
    q->core = (uint8_t)core;
    q->warp = (uint8_t)warp;
    q->pc = pc;
    q->insn = insn;
    q->tmask = tmask;
}

/* out[l] = base + l * stride (mod 2^32) for l < T: an affine record's lanes. */
static inline void vx_logrec_affine(uint32_t base, uint32_t stride, uint32_t T, uint32_t *out)
{
    for (uint32_t l = 0; l < T; l++)
        out[l] = base + l * stride;
}

/*
 * The values of a commit record's lanes 0..T-1: the record's own, or for an affine
 * one, written to vals (T entries).
 */
static inline const uint32_t *vx_logrec_values(const vx_logrec *q, uint32_t T, uint32_t *vals)
{
    const uint32_t *v = (const uint32_t *)(const void *)(q + 1);
    if (!(q->commit & VX_LOG_AFFINE)) return v;
    vx_logrec_affine(v[0], v[1], T, vals);
    return vals;
}

/*
 * The event a compact record stands for, at `cycle` with event index `index`:
 * fills *ev (whose other fields are left as they are), pointing it at *cm for its
 * commit (an affine one's values go to vals, T entries) or at mem[0..popcount(tmask))
 * for its writes.  T <= 32.
 */
static inline void vx_logrec_event(const vx_logrec *q, uint32_t T, uint64_t index, uint64_t cycle,
                                   vx_event *ev, vx_commit *cm, vx_memwrite *mem, uint32_t *vals)
{
    const uint32_t *v = (const uint32_t *)(const void *)(q + 1);
    ev->kind = VX_EV_ISSUE;
    ev->index = index;
    ev->cycle = cycle;
    ev->core = q->core;
    ev->warp = q->warp;
    ev->pc = q->pc;
    ev->insn = q->insn;
    ev->tmask = q->tmask;
    ev->ncommits = ev->nmem = 0;
    ev->commits = NULL;
    ev->mem = NULL;
    if (q->commit & VX_LOG_COMMIT) {
        cm->file = q->commit & VX_LOG_F ? VX_RF_F : VX_RF_X;
        cm->reg = q->commit & 31u;
        cm->lanes = q->tmask;
        cm->values = vx_logrec_values(q, T, vals);
        ev->ncommits = 1;
        ev->commits = cm;
    } else if (q->commit) {
        const bool aff = (q->commit & VX_LOG_MEMAFF) != 0;
        const uint32_t *val = aff ? v + 4 : v + T;
        uint32_t n = 0;
        for (uint32_t l = 0; l < T; l++) {
            if (!((q->tmask >> l) & 1u)) continue;
            mem[n].addr = aff ? v[0] + l * v[1] : v[l];
            mem[n].value = val[l];
            mem[n].size = (uint8_t)(q->commit & 7u);
            mem[n].lane = (uint8_t)l;
            n++;
        }
        ev->nmem = n;
        ev->mem = mem;
    }
}

#endif /* VX_EVENT_H */
