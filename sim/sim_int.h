/*
 * sim_int.h - PRIVATE to sim/: the body of struct vx_sim and the helpers shared
 * by sim.c (lifecycle, scheduler, debug primitives), exec.c (the executor),
 * mem.c (paged memory), csr.c, loader.c and snapshot.c.
 *
 * Layout choices (for speed, see exec.c):
 *   - register files are [reg][lane] so a full-mask ALU op is a plain loop over
 *     lanes the compiler vectorises;  integer row 32 is a sink that receives
 *     writes to x0 (x0 itself stays zero), so no instruction tests rd != 0;
 *   - all per-warp arrays live in a few big blocks indexed by global warp id,
 *     so a snapshot or a state encoding is a handful of memcpy / loops;
 *   - the scheduler keeps a "ready" bitmap per core (active, not stalled, not
 *     halted) and picks round-robin with count-trailing-zeros.
 */
#ifndef VX_SIM_INT_H
#define VX_SIM_INT_H

#include "vx_sim.h"
#include "vx_isa.h"
#include "dm_int.h"

#define VX_XROWS       33u /* x0..x31 + the x0 sink */
#define VX_XSINK       32u
#define VX_PAGE_SHIFT  12u
#define VX_L1_SIZE     1024u /* 4 MiB per level-1 entry */
#define VX_L2_SIZE     1024u
#define VX_NPAGES      (1u << 20)
#define VX_LMEM_SIZE   (1u << VX_LMEM_LOG2_SIZE)
#define VX_LMEM_PAGES  (VX_LMEM_SIZE / VX_PAGE_SIZE)
#define VX_GMEM_BASE   0x80u /* [0x80, 0xFFFF0000) is global memory */
#define VX_GMEM_END    0xFFFF0000u
#define VX_ICACHE_SIZE 4096u /* decoded-instruction cache entries (power of two) */

/* Plain-storage machine CSRs (per warp; see csr.c for the list). */
enum {
    VX_PCSR_MSTATUS,
    VX_PCSR_MEDELEG,
    VX_PCSR_MIDELEG,
    VX_PCSR_MIE,
    VX_PCSR_MTVEC,
    VX_PCSR_MEPC,
    VX_PCSR_MCAUSE,
    VX_PCSR_MTVAL,
    VX_PCSR_MIP,
    VX_PCSR_SATP,
    VX_PCSR_PMPCFG0,                        /* .. +3 */
    VX_PCSR_PMPADDR0 = VX_PCSR_PMPCFG0 + 4, /* .. +15 */
    VX_PCSR_COUNT = VX_PCSR_PMPADDR0 + 16
};

/* A 4 KiB guest page, shared copy-on-write between the live machine and snapshots. */
typedef struct vx_page {
    uint32_t refs;
    uint32_t pad;
    uint8_t data[VX_PAGE_SIZE];
} vx_page;

/* Two-level page table of global memory.  l1[i] == NULL: 4 MiB of zeros. */
typedef struct vx_ptab {
    vx_page **l1[VX_L1_SIZE];
} vx_ptab;

typedef struct vx_ipdom {
    vx_lanes orig, els;
    uint32_t pc;
    uint32_t fallthrough;
} vx_ipdom;

/* Scalar state of one warp (no pointers: snapshots copy the array). */
typedef struct vx_warp {
    uint32_t pc;
    /* thread mask, lanes 0-63 and 64-127 (two words: the hot path keeps them in registers) */
    uint64_t tm[2];
    uint32_t nlanes; /* lanes in tm (kept by vx_warp_set_mask) */
    uint8_t active;
    uint8_t halted;
    uint8_t hacause;
    uint8_t spawn_wait; /* stalled waiting for a WSPAWN join */
    uint8_t bar_wait;   /* stalled at barrier bar_id */
    uint32_t bar_id;    /* barrier id (bit 31 = global) while bar_wait */
    uint8_t fcsr;       /* frm << 5 | fflags */
    uint32_t depth;     /* IPDOM stack depth */
    uint64_t issued;
    uint8_t pad[8]; /* to 64 bytes: indexing is a shift */
} vx_warp;          /* kept small (the plain CSRs live in vx_sim.pcsr) so indexing is cheap */

static inline vx_lanes vx_warp_mask(const vx_warp *w)
{
    return (vx_lanes)w->tm[1] << 64 | w->tm[0];
}

/* Every change of a warp's thread mask goes through here. */
static inline void vx_warp_set_mask(vx_warp *w, vx_lanes m)
{
    w->tm[0] = (uint64_t)m;
    w->tm[1] = (uint64_t)(m >> 64);
    w->nlanes = vx_lanes_count(m);
}

typedef struct vx_core {
    uint32_t last; /* warp that issued last (round-robin position) */
    uint32_t mscratch;
    uint32_t nactive; /* active warps */
    uint8_t spawn_pending;
    uint32_t spawn_n, spawn_pc, spawn_caller;
    uint8_t lmem_dirty; /* bit i: local page i written since clear_dirty */
    vx_page *lmem[VX_LMEM_PAGES];
} vx_core;

/* Growable array of wctl effects for the observer (filled up to iev.nwctl). */
typedef struct vx_wctl_vec {
    vx_wctl *v;
    uint32_t cap;
} vx_wctl_vec;

struct vx_sim {
    vx_sim_config cfg;
    uint32_t nc, nw, nt; /* cores (total), warps per core, threads per warp */
    uint32_t ngw;        /* global warps */
    uint32_t nb;         /* barriers per core: max(1, nw / 2) */
    uint32_t nww;        /* 64-bit words per warp bitmap */
    vx_lanes allmask;
    uint64_t all0, all1; /* allmask as two words */
    uint64_t mem_limit;

    /* ---- architectural state (snapshot.c copies all of it) ---- */
    vx_core *cores;       /* [nc] */
    vx_warp *warps;       /* [ngw] */
    uint32_t *xregs;      /* [ngw][33][nt] */
    uint32_t *fregs;      /* [ngw][32][nt] */
    uint32_t *dscratch;   /* [ngw][4][nt] */
    uint32_t *pcsr;       /* [ngw][VX_PCSR_COUNT] plain-storage CSRs per warp */
    uint32_t *resv;       /* [ngw][nt] LR reservation address */
    uint8_t *resv_ok;     /* [ngw][nt] reservation valid */
    vx_ipdom *ipdom;      /* [ngw][ipcap] */
    uint32_t ipcap;       /* IPDOM entries per warp = max(1, nt - 1) */
    uint64_t *ready;      /* [nc][nww] active & !stalled & !halted */
    uint64_t *core_ready; /* [ncw] bit c: core c has a ready warp */
    uint32_t ncw;         /* 64-bit words of core_ready */
    uint32_t *bar_count;  /* [nc][nb] warps arrived at each local barrier */
    uint32_t *gbar_count; /* [nb] cores reported at each global barrier */
    uint32_t *gbar_need;  /* [nb] count (cores) of the last arrival */
    uint8_t *gbar_rep;    /* [nc][nb] core reported at global barrier */
    uint32_t nresv;       /* valid reservations (stores scan only when > 0) */

    uint64_t index; /* event index of the next issue */
    uint64_t cycle;
    uint32_t core_pos;    /* next core to consider in this cycle (0: cycle not started) */
    uint8_t cycle_issued; /* something issued in the current cycle */
    uint32_t nactive;     /* active warps, all cores */
    uint8_t finished;     /* exited or faulted */
    uint8_t end_kind;     /* vx_end_status when finished */
    uint8_t ebreak_halt;
    uint32_t exit_code;
    vx_fault fault;
    vx_sim_stats stats;
    vx_conline console[VX_CONSOLE_SLOTS];

    /* memory */
    vx_ptab mem;
    uint64_t npages;    /* global pages referenced by the live machine */
    bool host_oom;      /* a page allocation failed (a host error, not the guest limit) */
    uint64_t cow_pages; /* pages copied because a snapshot shared them (vx_sim_cow_pages) */
    uint64_t *dirty;    /* [VX_NPAGES / 64] */

    /* ---- not architectural ---- */
    uint64_t max_cycles;

    struct {
        uint32_t pc, raw;
        vx_insn insn;
    } * icache; /* [VX_ICACHE_SIZE] */

    uint32_t fetch_pn; /* fetch page cache: page number, or ~0 */
    const uint8_t *fetch_page;

    vx_sim_observer_fn obs;
    void *obs_ctx;
    unsigned obs_flags;
    vx_log *log; /* the compact log of common issues, or NULL */
    bool logged; /* the issue being executed wrote its own log record (log_store, log_commit) */
    vx_sim_console_fn con_fn;
    void *con_ctx;

    /*
     * Event scratch (used only with an observer).  iev is the issue event handed
     * to the observer, reused for every issue: vx_sim_new sets its constant
     * fields (kind, the array pointers) once, an issue sets only what changes.
     * Its counts (ncommits, nmem, nreads, nwctl, nconsole) are the fill levels
     * of the arrays below while the issue executes.
     */
    vx_event iev;
    vx_commit ev_commits[4];
    uint32_t *ev_csrvals; /* [nt] */
    uint32_t *ev_fvals;   /* [nt] fflags/fcsr commit values */
    vx_memwrite *ev_mem;  /* [nt] */
    vx_memread *ev_reads; /* [nt] */
    vx_console *ev_con;   /* [nt] */
    vx_wctl_vec ev_wctl;

    struct vx_dm *dm;
    char errmsg[256];
};

/* What the private API of sim/ calls the Debug Module. */
#define VX_SIM_DM(sim) ((sim)->dm)

/* ---- helpers ---------------------------------------------------------------------------------- */

static inline uint32_t *vx_xrow(const vx_sim *s, uint32_t gw, uint32_t r)
{
    return s->xregs + ((size_t)gw * VX_XROWS + r) * s->nt;
}

static inline uint32_t *vx_pcsr_of(const vx_sim *s, uint32_t gw)
{
    return s->pcsr + (size_t)gw * VX_PCSR_COUNT;
}

static inline uint32_t *vx_frow(const vx_sim *s, uint32_t gw, uint32_t r)
{
    return s->fregs + ((size_t)gw * 32u + r) * s->nt;
}

static inline vx_ipdom *vx_ipdom_of(const vx_sim *s, uint32_t gw)
{
    return s->ipdom + (size_t)gw * s->ipcap;
}

static inline uint64_t *vx_ready_of(const vx_sim *s, uint32_t core)
{
    return s->ready + (size_t)core * s->nww;
}

/* Recompute the ready bit of a warp after any of active/stalled/halted changed. */
static inline void vx_sched_update(vx_sim *s, uint32_t gw)
{
    const vx_warp *w = &s->warps[gw];
    uint32_t core = gw / s->nw, wi = gw % s->nw;
    uint64_t *r = vx_ready_of(s, core) + (wi >> 6);
    uint64_t bit = 1ull << (wi & 63);
    if (w->active && !w->halted && !w->spawn_wait && !w->bar_wait)
        *r |= bit;
    else
        *r &= ~bit;
    /* keep the per-core summary: does any word of this core have a ready warp? */
    const uint64_t *rr = vx_ready_of(s, core);
    uint64_t any = 0;
    for (uint32_t i = 0; i < s->nww; i++)
        any |= rr[i];
    uint64_t cb = 1ull << (core & 63);
    if (any)
        s->core_ready[core >> 6] |= cb;
    else
        s->core_ready[core >> 6] &= ~cb;
}

/* First core >= pos with a ready warp, or nc. */
static inline uint32_t vx_next_ready_core(const vx_sim *s, uint32_t pos)
{
    uint32_t wi = pos >> 6;
    if (wi >= s->ncw) return s->nc;
    uint64_t m = s->core_ready[wi] & (~0ull << (pos & 63));
    while (!m) {
        if (++wi >= s->ncw) return s->nc;
        m = s->core_ready[wi];
    }
    return wi * 64 + (uint32_t)__builtin_ctzll(m);
}

/* Round-robin pick: first ready warp after `last`, or -1. */
static inline int vx_sched_pick(const vx_sim *s, uint32_t core)
{
    const uint64_t *r = vx_ready_of(s, core);
    uint32_t start = s->cores[core].last + 1;
    if (start >= s->nw) start = 0;
    if (VX_LIKELY(s->nww == 1)) {
        uint64_t m = r[0];
        if (!m) return -1;
        uint64_t hi = m & (~0ull << start);
        return (int)__builtin_ctzll(hi ? hi : m);
    }
    uint32_t sw = start >> 6;
    uint64_t hi = r[sw] & (~0ull << (start & 63));
    if (hi) return (int)(sw * 64 + (uint32_t)__builtin_ctzll(hi));
    for (uint32_t i = 1; i <= s->nww; i++) {
        uint32_t wi = (sw + i) % s->nww;
        uint64_t m = r[wi];
        if (wi == sw) m &= ~(~0ull << (start & 63));
        if (m) return (int)(wi * 64 + (uint32_t)__builtin_ctzll(m));
    }
    return -1;
}

/* minstret of a core: the instructions its warps issued (derived, not counted separately). */
static inline uint64_t vx_core_minstret(const vx_sim *s, uint32_t core)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < s->nw; i++)
        n += s->warps[core * s->nw + i].issued;
    return n;
}

/* Formats the handle's message; returns err. */
vx_err vx_sim_fail(vx_sim *s, vx_err err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- memory (mem.c) ---- */
extern const uint8_t vx_zero_page[VX_PAGE_SIZE];

/* Pointer for reading global page pn (the zero page when absent). */
static inline const uint8_t *vx_gmem_rpage(const vx_sim *s, uint32_t pn)
{
    vx_page **l2 = s->mem.l1[pn >> 10];
    if (!l2) return vx_zero_page;
    vx_page *p = l2[pn & (VX_L2_SIZE - 1)];
    return p ? p->data : vx_zero_page;
}

/* Writable global page, allocated or unshared as needed; NULL when over the limit. */
uint8_t *vx_gmem_wpage_slow(vx_sim *s, uint32_t pn);

static inline uint8_t *vx_gmem_wpage(vx_sim *s, uint32_t pn)
{
    vx_page **l2 = s->mem.l1[pn >> 10];
    vx_page *p = l2 ? l2[pn & (VX_L2_SIZE - 1)] : NULL;
    if (VX_LIKELY(p && p->refs == 1)) {
        s->dirty[pn >> 6] |= 1ull << (pn & 63);
        return p->data;
    }
    return vx_gmem_wpage_slow(s, pn);
}

static inline const uint8_t *vx_lmem_rpage(const vx_sim *s, uint32_t core, uint32_t i)
{
    vx_page *p = s->cores[core].lmem[i];
    return p ? p->data : vx_zero_page;
}

uint8_t *vx_lmem_wpage(vx_sim *s, uint32_t core, uint32_t i); /* NULL on out of memory */

void vx_page_release(vx_page *p);
void vx_mem_free_all(vx_sim *s);
/* Make [addr, addr+len) of global memory read as zero (drops whole pages). */
vx_err vx_gmem_zero(vx_sim *s, uint32_t addr, uint64_t len);
vx_err vx_gmem_write(vx_sim *s, uint32_t addr, const void *buf, size_t len);

/* ---- CSRs (csr.c) ---- */
/* 1 = readable and writable, 0 = read-only, -1 = no such CSR. */
int vx_csr_access(uint32_t csr);
uint32_t vx_csr_read(const vx_sim *s, uint32_t gw, uint32_t lane, uint32_t csr);
void vx_csr_write(vx_sim *s, uint32_t gw, uint32_t lane, uint32_t csr, uint32_t val);
/* How a CSR is shared: 0 per thread, 1 per warp, 2 per core, 3 global. */
int vx_csr_scope(uint32_t csr);

/* ---- execution (exec.c) ---- */
enum {
    VX_X_OK = 0,
    VX_X_FAULT,   /* s->fault filled; no architectural effect */
    VX_X_HALT,    /* ebreak with ebreak-halt: warp halted */
    VX_X_EXIT,    /* ecall exit: s->exit_code set */
    VX_X_DONE,    /* the issue ended the last active warp: the kernel is over */
    VX_X_HOSTERR, /* the host ran out of memory for a guest page: no effect, no event;
                     the run stops with VX_ERR_NOMEM (not a kernel fault) */
};

#define VX_XM_INJECT 0x1u /* injected: PC and tmask unchanged, tmask = one lane */
#define VX_XM_STEP   0x2u

/*
 * Issue one instruction of global warp gw (fetch, decode, execute, report to the
 * observer).  Returns VX_X_*.  For injection, insn is the word to execute and
 * lane the lane.
 */
int vx_exec_issue(vx_sim *s, uint32_t gw, unsigned mode, uint32_t insn, uint32_t lane);

/*
 * The scheduler's cycle loop (documented in sim.c), here so that the issue path
 * inlines into it.  Runs until one of VX_LOOP_*; *issued counts the issues.
 * VX_LOOP_ISSUE: the issue of *gw returned *r != VX_X_OK.
 */
enum {
    VX_LOOP_LIMIT,    /* the cycle limit was reached at the start of a cycle */
    VX_LOOP_RESET,    /* the DM holds reset: the cycle passed without issues */
    VX_LOOP_FINISHED, /* the machine finished during vx_dm_cycle */
    VX_LOOP_ISSUE,    /* see above */
    VX_LOOP_MAX,      /* max_issues issued */
    VX_LOOP_NOTHING,  /* a whole cycle issued nothing */
};

int vx_exec_loop(vx_sim *s, uint64_t max_issues, uint64_t *issued, uint32_t *gw, int *r);

/* Warp control shared with the debug primitives (sim.c). */
void vx_warp_deactivated(vx_sim *s, uint32_t gw, bool traced);
void vx_fault_set(vx_sim *s, vx_fault_kind kind, uint32_t gw, uint32_t pc, uint32_t insn,
                  vx_lanes lanes, uint32_t addr, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));
uint8_t vx_fault_signal(vx_fault_kind kind);
void vx_console_put(vx_sim *s, uint32_t slot, uint8_t byte);
void vx_wctl_push(vx_sim *s, uint8_t kind, uint32_t gw, uint32_t pc, uint32_t arg, uint32_t arg2,
                  vx_lanes mask, vx_lanes mask2);
void vx_resv_kill(vx_sim *s, uint32_t addr);

#endif /* VX_SIM_INT_H */
