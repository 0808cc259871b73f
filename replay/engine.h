/*
 * engine.h - time travel over a recorded trace: the state of the whole machine at
 * any event index, moving forward and backward with breakpoints and watchpoints.
 *
 * Positions.  The trace is a sequence of warp-instruction issues numbered from 0
 * (DESIGN.md §3).  Position p means "issues 0 .. p-1 have executed, together with
 * every Debug Module event recorded before issue p; issue p is next".  Positions
 * run from 0 (start of history) to end (after the last issue; when the run ended
 * with a fault, end is the faulting issue, which never executes).  The state at
 * the current position is read through the simulator returned by
 * vx_engine_sim(), with the ordinary vx_sim_* accessors.
 *
 * How the state is rebuilt (DESIGN.md §5, research notes §1.3-§1.4): restore the
 * nearest checkpoint at or before the target (our own snapshots, or a keyframe of
 * the trace), then re-execute the recorded schedule forward with the simulator.
 * Every re-executed issue is compared with the recorded one; a mismatch stops with
 * VX_ERR_DIVERGED and vx_engine_errmsg() says "replay diverged at event N: ...".
 *
 * Stops.  Going forward a breakpoint or watchpoint is reported BEFORE the issue
 * that hits it (the issue has not executed); going backward a watchpoint is
 * reported AFTER the accessing issue, i.e. before it is undone, and a breakpoint
 * at the issue itself.  That is what GDB expects on RISC-V (research §2.3).
 */
#ifndef VX_ENGINE_H
#define VX_ENGINE_H

#include "vx_sim.h"
#include "vx_trace.h"

typedef struct vx_engine vx_engine;

typedef struct vx_engine_opts {
    uint64_t mem_budget;  /* bytes for checkpoints; 0 = 512 MiB */
    bool no_verify;       /* do not compare re-executed issues with the trace */
    bool no_summary_file; /* obsolete, ignored (summaries are now in the trace: format 1.1) */
    uint32_t undo_max;    /* forward steps a reverse step undoes exactly (vx_engine_resume),
                           * rounded up to a power of two; 0 = VX_ENGINE_UNDO_MAX */
} vx_engine_opts;

/* Open a trace file.  On failure *out is NULL and msg names the file and the problem. */
vx_err vx_engine_open(const char *path, const vx_engine_opts *opts, vx_engine **out, char *msg,
                      size_t cap);
void vx_engine_free(vx_engine *e);
const char *vx_engine_errmsg(const vx_engine *e);
/* After vx_engine_open: what the trace lacks that replay works around, for the user
 * (a damaged keyframe); "" when nothing. */
const char *vx_engine_note(const vx_engine *e);

/* The simulator holding the state at the current position (read it, never run it). */
const vx_sim *vx_engine_sim(const vx_engine *e);
const vx_sim_config *vx_engine_config(const vx_engine *e);

/* The kernel image recorded in the trace (ELF bytes), or NULL. */
const uint8_t *vx_engine_image(const vx_engine *e, size_t *len);
/* The trace's header (format version, platform, image, loads). */
const vx_trace_header *vx_engine_header(const vx_engine *e);

/* ---- time ---------------------------------------------------------------------------------- */

uint64_t vx_engine_now(const vx_engine *e);
uint64_t vx_engine_end(const vx_engine *e);
/* Is the issue at end the recorded fault (it never executes: the trace holds end + 1 issues)? */
bool vx_engine_faults_at_end(const vx_engine *e);

/* Was the trace cut off (no END record: the recorder was killed, the disk filled)? */
bool vx_engine_cut_off(const vx_engine *e);

/* How the recorded run ended (vx_end_status); *fault is set when it faulted. */
uint8_t vx_engine_end_status(const vx_engine *e, uint32_t *exit_code, vx_fault *fault);

/* The cycle of the END record (when the run ended: a deadlock or the cycle limit is
 * found after the last issue's cycle); 0 when the trace has none (cut off). */
uint64_t vx_engine_end_cycle(const vx_engine *e);

/* The issue at the current position, as recorded (false at the end of history). */
typedef struct vx_engine_issue {
    uint64_t index;
    uint64_t cycle;
    uint32_t core, warp, gwarp;
    uint32_t pc, insn;
    vx_lanes tmask;
    uint8_t flags; /* VX_EVF_* */
    bool faults;   /* this issue faulted in the recording */
} vx_engine_issue;

bool vx_engine_next_issue(vx_engine *e, vx_engine_issue *out);

/* Go to a position (clamped to end).  The stops remembered so far (the forward steps
 * a reverse step undoes, the positions a later stop may move to) are forgotten: the
 * position is the only one remembered. */
vx_err vx_engine_seek(vx_engine *e, uint64_t pos);
/* vx_engine_seek that polls (vx_engine_set_poll) while it replays towards pos, every
 * few thousand issues: when the poll says stop, it stays at the position reached
 * (vx_engine_now: a whole one), VX_OK and *interrupted true. */
vx_err vx_engine_seek_polled(vx_engine *e, uint64_t pos, bool *interrupted);

/* Warp gwarp's issues [lo, hi), which a step over breakpoints ran (or undid). */
typedef struct vx_engine_over {
    uint32_t gwarp;
    uint64_t lo, hi;
} vx_engine_over;

/* The same, for the motion that follows steps over breakpoints (the debugger's, one or
 * a chain, of one warp or several: LLDB steps every thread at a breakpoint before it
 * resumes): the breakpoints of the n ranges r (one a warp, at most as many as the
 * platform has warps) are not stopped at again by the next motion (in either
 * direction). */
vx_err vx_engine_seek_over(vx_engine *e, uint64_t pos, const vx_engine_over *r, size_t n);

/*
 * What the kernel printed before position upto: the console bytes of the issues
 * before it, read from the trace and assembled into lines as the simulator does
 * (vx_conline).  fn gets each line in the order lines were completed, complete =
 * true, then each slot's unterminated line, complete = false.  A part of the trace
 * that cannot be read ends the scan with its error (the lines before it given).
 */
typedef void (*vx_engine_console_fn)(void *ctx, uint32_t slot, const char *line, size_t len,
                                     bool complete);
vx_err vx_engine_console(vx_engine *e, uint64_t upto, vx_engine_console_fn fn, void *ctx);

/* ---- breakpoints and watchpoints ------------------------------------------------------------- */

#define VX_ENGINE_ANY_WARP UINT32_MAX

/* A breakpoint at pc, for one global warp or VX_ENGINE_ANY_WARP.  Inserting twice needs two removes. */
vx_err vx_engine_break_insert(vx_engine *e, uint32_t pc, uint32_t gwarp);
vx_err vx_engine_break_remove(vx_engine *e, uint32_t pc, uint32_t gwarp);

typedef enum vx_watch_kind {
    VX_WATCH_WRITE = 1,
    VX_WATCH_READ = 2,
    VX_WATCH_ACCESS = 3,
} vx_watch_kind;

/*
 * A watchpoint on [addr, addr + len) (len >= 1; any number of them).  Addresses in
 * the local-memory window refer to the local memory of `core`; elsewhere core is
 * ignored.
 */
vx_err vx_engine_watch_insert(vx_engine *e, vx_watch_kind kind, uint32_t addr, uint32_t len,
                              uint32_t core);
vx_err vx_engine_watch_remove(vx_engine *e, vx_watch_kind kind, uint32_t addr, uint32_t len,
                              uint32_t core);

/* Remove every breakpoint and watchpoint (a new client starts clean). */
void vx_engine_points_clear(vx_engine *e);

/* ---- moving -------------------------------------------------------------------------------------- */

typedef struct vx_engine_motion {
    bool backward;
    bool step; /* one instruction of step_gwarp (else: continue) */
    uint32_t step_gwarp;
    /*
     * With lane_step, one instruction of lane step_lane of step_gwarp: the step ends
     * at the first issue of the warp in which that lane takes part (backward: undoes
     * the last one), the warp's other issues running (or undone) on the way, as the
     * other threads do.  A lane that divergence or tmc/pred masked off thus moves
     * only when it executes.  Forward, a step of the instruction that parks the
     * lane (tmc or pred: vx_engine_lane_pc's PC 0 after it) does not end there: it
     * ends right after the issue of the warp that enables the lane again (or after
     * the warp's last issue), the lane about to run its next instruction.
     */
    bool lane_step;
    uint32_t step_lane;
    /*
     * Forward, with step_pc_known: the PC the debugger shows for the stepped thread.
     * A breakpoint at the step's own instruction is what the debugger steps over
     * only when it is there; else (a lane parked by tmc/pred, shown at PC 0, that
     * its warp wakes at a breakpoint) the breakpoint stops the step before it.
     */
    bool step_pc_known;
    uint32_t step_pc;
    /*
     * While stepping, also stop for other warps' breakpoints and watchpoints (GDB's
     * "vCont;s:T;c").  When continuing, only_gwarp != ANY limits stops to one warp.
     */
    bool others;
    uint32_t only_gwarp;
} vx_engine_motion;

typedef enum vx_engine_why {
    VX_WHY_STEP = 1,  /* the step finished */
    VX_WHY_BREAK,     /* a breakpoint: gwarp is about to issue at its pc */
    VX_WHY_WATCH,     /* a watchpoint: watch_kind, watch_addr */
    VX_WHY_FAULT,     /* the recorded fault: the faulting issue is next */
    VX_WHY_BEGIN,     /* start of history reached going backward */
    VX_WHY_END,       /* end of history reached going forward */
    VX_WHY_INTERRUPT, /* the poll function asked to stop */
} vx_engine_why;

typedef struct vx_engine_stop {
    vx_engine_why why;
    uint32_t gwarp; /* the warp concerned (the stepping warp for STEP/BEGIN/END) */
    uint32_t lane;  /* a lane of it: the accessing lane for WATCH, first involved for FAULT */
    bool has_lane;  /* lane is meaningful (else the caller keeps its own choice) */
    vx_watch_kind watch_kind;
    uint32_t watch_addr; /* inside the watched range */
    vx_fault fault;
} vx_engine_stop;

/*
 * Poll for an interrupt during long motions: called every few thousand issues;
 * returning true stops the motion with VX_WHY_INTERRUPT at a consistent position.
 */
typedef bool (*vx_engine_poll_fn)(void *ctx);
void vx_engine_set_poll(vx_engine *e, vx_engine_poll_fn fn, void *ctx);

/*
 * Breakpoint conditions: with a filter set, a breakpoint stops gwarp at pc only when
 * fn, called with the machine right there (before the instruction), returns true,
 * in both directions.  Backward searches then re-execute windows from checkpoints
 * (the conditions need the machine), so set it only while a condition exists.
 */
typedef bool (*vx_engine_break_filter_fn)(void *ctx, uint32_t gwarp, uint32_t pc);
void vx_engine_set_break_filter(vx_engine *e, vx_engine_break_filter_fn fn, void *ctx);

/*
 * Move, and say why the motion stopped.  A step or breakpoint stop of a warp shows it
 * between two of its issues; where, when other warps issue in between: backward just
 * before the issue undone (the other warps as far on as that allows), forward just
 * after the warp's issue, unless the debugger was shown that warp in the same state
 * at a recent stop that only other warps' quiet issues separate from there (no
 * breakpoint, watchpoint, Debug Module event; for a breakpoint stop no memory
 * write): then at that stop, so that going back retraces going forward exactly.
 * A reverse step of a warp right after its forward steps (no other motion between)
 * undoes them exactly, the last VX_ENGINE_UNDO_MAX of them (24 bytes each; or
 * vx_engine_opts.undo_max); older ones are forgotten, and a reverse step past them is
 * one as any other.
 */
#define VX_ENGINE_UNDO_MAX (1u << 20)
vx_err vx_engine_resume(vx_engine *e, const vx_engine_motion *m, vx_engine_stop *stop);

/* An error of a part of the trace that cannot be read (damaged, cut off): history
 * ends there, in the direction that met it; the engine stays usable before it. */
static inline bool vx_engine_unreadable(vx_err err)
{
    return err == VX_ERR_CORRUPT || err == VX_ERR_TRUNC || err == VX_ERR_IO || err == VX_ERR_FORMAT;
}

/* ---- debugger state ---------------------------------------------------------------------------- */

/*
 * The PC of a lane that is masked off: where the lane itself stands, its registers
 * being those it had there.  A lane waiting for the other side of a split (an IPDOM
 * entry not yet fallen through, the lane in its else mask) stands at the entry's PC,
 * right after the split; a lane whose side of the split is done, waiting while the
 * other side runs, stands right after the join that ended its side (found in the
 * trace), where it continues once the sides rejoin.  A lane parked otherwise (by tmc
 * or pred, or never enabled yet) has no position of its own: *pc = 0 (the warp takes
 * it along, wherever it is, when it enables the lane again).  False when the lane is
 * active or its warp is not (the warp's PC is the lane's), or when the join cannot
 * be found (an unreadable trace).
 */
bool vx_engine_lane_pc(vx_engine *e, uint32_t gwarp, uint32_t lane, uint32_t *pc);

/* ebreak-halt mode (DCONFIG.ebreakh) at the current position, as set by recorded DM writes. */
bool vx_engine_ebreak_halt(const vx_engine *e);

/* User checkpoints: remember the current position under a number, go back to it later. */
vx_err vx_engine_checkpoint(vx_engine *e, unsigned *id);
vx_err vx_engine_restart(vx_engine *e, unsigned id);
/* Fill *pos for checkpoint id; false if there is none. */
bool vx_engine_checkpoint_get(const vx_engine *e, unsigned id, uint64_t *pos);
/* The highest number vx_engine_checkpoint has given (0: none since the last drop). */
unsigned vx_engine_checkpoint_last(const vx_engine *e);
/* Forget every user checkpoint (a new debugging session); numbers start at 1 again. */
void vx_engine_checkpoints_drop(vx_engine *e);

typedef struct vx_engine_stats {
    uint64_t replayed;     /* issues re-executed */
    uint64_t verified;     /* of which compared with the trace */
    uint64_t scanned;      /* recorded issues examined without executing */
    uint64_t skipped;      /* recorded issues ruled out by the trace summary */
    uint64_t cached;       /* of the replayed, issues taken from the schedule cache */
    uint64_t reader_seeks; /* times the trace reader was repositioned */
    uint64_t restores;     /* checkpoint restores */
    uint32_t checkpoints;  /* live checkpoints */
    uint64_t checkpoint_bytes;
    uint64_t budget;
    uint32_t keyframes;
    uint64_t summary_blocks;  /* trace chunks with issues, for the digests (0: not indexed) */
    uint64_t summary_ready;   /* of which the digest is known so far */
    uint64_t summary_damaged; /* of which the digest cannot be had (damage) */
    uint64_t summary_chunks;  /* the trace's EVENTS chunks with issues they cover */
} vx_engine_stats;

void vx_engine_get_stats(const vx_engine *e, vx_engine_stats *out);

#endif /* VX_ENGINE_H */
