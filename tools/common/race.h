/*
 * race.h - data races between warps, found from the events of a run (vxsim --races).
 *
 * Feed every event of a run, in order, with per-lane reads (VX_OBS_READS).  Two
 * accesses to the same byte of memory race when at least one writes, they come from
 * different warps, they are not both atomic, and nothing orders them:
 *   - a warp's instructions are ordered (its lanes run in lockstep: lanes of one warp
 *     never race with each other, except two lanes of one store writing different
 *     values to the same byte, VXR_LANES);
 *   - a barrier orders what each warp arriving at it did before it with what every
 *     warp it releases does after it (local barriers within a core, global ones
 *     across cores; at a global barrier the warps of its cores that ended count as
 *     arrived: the simulator waits only for active warps);
 *   - a wspawn orders what the spawning warp did before it with what the warps it
 *     starts do; the warps of a core that ended before a spawn completed (the
 *     spawning warp waits for them) are ordered before it and the started warps;
 *   - atomics (RVWMO): an AMO or LR/SC with aq acquires, one with rl releases (on its
 *     word); a release fence makes the warp's next write to such a word a release
 *     (and a plain store that is its first access after the fence a release store,
 *     its word a synchronisation word); an acquire fence makes its last read of such
 *     a word an acquire.  Plain accesses without their fence order nothing.  A word
 *     once accessed by an atomic is a synchronisation word, never reported after that
 *     (its first atomic is checked against an unordered plain store before it).
 * README.md (Finding data races) has the rules with GCC's and LLVM's code for them.
 * Vector clocks (happens-before), as in FastTrack; a shadow of the memory touched, per
 * word while its bytes share a history, else per byte.
 * Local memory (vx_addr_in_lmem) is each core's own; the I/O window below
 * VX_USER_BASE_ADDR (console, exit status) is not checked.  This is a library: it never
 * prints.
 */
#ifndef VXRR_RACE_H
#define VXRR_RACE_H

#include <stddef.h>
#include <stdint.h>
#include "vx_base.h"
#include "vx_err.h"
#include "vx_event.h"

/* Above this many warps in the platform the checker refuses (its clocks take warps^2
 * words). */
#define VXR_MAX_WARPS 4096u

typedef enum vxr_kind {
    VXR_WW = 1, /* a write, then a write by another warp */
    VXR_WR,     /* a write, then a read by another warp */
    VXR_RW,     /* a read, then a write by another warp */
    VXR_LANES,  /* two lanes of one store write different values to a byte */
} vxr_kind;

typedef struct vxr_access {
    uint64_t index; /* event index of the issue */
    uint32_t gwarp; /* global warp id */
    uint32_t pc;
    uint8_t lane;
    uint8_t write; /* 1 store (or the write of an AMO), 0 load */
} vxr_access;

typedef struct vxr_race {
    uint8_t kind;    /* vxr_kind */
    uint32_t space;  /* 0 global memory, 1 + core: that core's local memory */
    uint32_t addr;   /* the first byte in conflict */
    uint32_t len;    /* bytes of the later access in conflict with the same earlier one */
    vxr_access prev; /* the earlier access (for VXR_LANES: the lower lane) */
    vxr_access cur;  /* the later one */
    uint64_t count;  /* conflicting byte pairs of this kind at these two PCs */
} vxr_race;

typedef struct vxr vxr;

/* VX_ERR_LIMIT (no warps, or more than VXR_MAX_WARPS) or VX_ERR_NOMEM. */
vx_err vxr_new(vxr **out, uint32_t cores, uint32_t warps_per_core);
void vxr_free(vxr *r); /* accepts NULL */
/* One event of the run (any kind; issues need their reads).  VX_ERR_NOMEM: the
 * analysis stops (later calls return it too). */
vx_err vxr_event(vxr *r, const vx_event *ev);
/* The races found, one per kind and pair of PCs (the first conflict of each, with
 * the count of all), in the order found; at most VXR_MAX_REPORTS of them. */
#define VXR_MAX_REPORTS 1000u
const vxr_race *vxr_races(const vxr *r, size_t *n);
/* Conflicting byte pairs in all (also those past VXR_MAX_REPORTS). */
uint64_t vxr_total(const vxr *r);
/* Bytes of host memory the checker holds (its shadow of the memory touched). */
size_t vxr_memory(const vxr *r);

#endif
