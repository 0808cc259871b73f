/*
 * dm_int.h - PRIVATE to sim/: the interface between the simulator core (sim.c,
 * sched.c, ...) and the Debug Module (dm.c).
 *
 * The core owns one struct vx_dm per vx_sim, created in vx_sim_new() with
 * vx_dm_new() and freed in vx_sim_free().  dm.c drives the machine only through
 * the public debug primitives of vx_sim.h (vx_sim_halt, vx_sim_resume,
 * vx_sim_step_warp, vx_sim_inject, vx_sim_reset, vx_sim_set_pc, vx_sim_reg_read/
 * write for DSCRATCH = CSR 0x7B2.., vx_sim_warp_info, vx_sim_emit_dm) plus the
 * hooks below, which the core calls.
 */
#ifndef VX_DM_INT_H
#define VX_DM_INT_H

#include "vx_sim.h"

struct vx_dm;

/*
 * The first member of struct vx_dm, so the core can read it inline: busy is
 * true while vx_dm_cycle has something to do (the DM is active and an ndmreset
 * hold, a step or an injection is under way).  dm.c recomputes it at the end of
 * every entry point that changes DM state (register writes, vx_dm_cycle,
 * vx_dm_state_restore, vx_dm_new).
 */
struct vx_dm_head {
    bool busy;
};

/* Cheap test for the core's cycle loop: false means vx_dm_cycle would do nothing
 * and return false, so the call can be skipped. */
static inline bool vx_dm_busy(const struct vx_dm *dm)
{
    return ((const struct vx_dm_head *)(const void *)dm)->busy;
}

struct vx_dm *vx_dm_new(vx_sim *sim);
void vx_dm_free(struct vx_dm *dm);

/*
 * Called by the core once at the start of every cycle of vx_sim_run (and by
 * vx_sim_dm_tick).  It advances the DM's timed state (ndmreset and resethaltreq
 * counters, step and inject state machines).  Returns true while the platform is
 * held in reset: then nothing issues in this cycle.  When vx_dm_busy() is false
 * it does nothing and returns false (the hot loop skips the call then).
 */
bool vx_dm_cycle(struct vx_dm *dm);

/* True while ndmreset is asserted. */
bool vx_dm_in_reset(const struct vx_dm *dm);

/*
 * Called by the core when a warp halts by itself (ebreak with ebreakh set: cause
 * EBREAK) so the DM can update its status; the core has already marked it halted.
 */
void vx_dm_on_halt(struct vx_dm *dm, uint32_t gwarp, uint8_t cause);

/* State for snapshots: the DM's registers are part of the machine state. */
size_t vx_dm_state_size(const struct vx_dm *dm);
void vx_dm_state_save(const struct vx_dm *dm, void *buf); /* buf has vx_dm_state_size bytes */
void vx_dm_state_restore(struct vx_dm *dm, const void *buf);

#endif /* VX_DM_INT_H */
