/*
 * trace-gen.h - a deterministic generator of hand-built vx_event streams for the
 * libvxtrace tests (t-trace*.c).  Two generators with the same seed produce the
 * same events, so a test writes with one and checks what it reads with the other.
 *
 * The streams mix realistic SIMT patterns (round-robin schedule, pc + 4, taken
 * branches, uniform / affine register values, affine stores) with everything the
 * format must carry losslessly: random lane values, partial and empty lane sets,
 * CSR / float / explicit destinations, several commits, mixed-size and explicit-lane
 * memory writes, warp-control effects with every field, console bytes, faults,
 * injected and stepped issues, and Debug Module events of every kind.
 */
#ifndef VX_TRACE_GEN_H
#define VX_TRACE_GEN_H

#include <stdlib.h>
#include <string.h>

#include "vx_event.h"

#define TG_MAXC 4
#define TG_MAXM 260

typedef struct tgen {
    uint64_t rng;
    uint32_t C, W, T;
    unsigned wild; /* 0: realistic kernel-like stream; 1: mixes in every oddity */
    uint64_t index, cycle;
    uint32_t core, warp;
    uint32_t *pc;   /* per warp */
    vx_lanes *mask; /* per warp */
    uint32_t *regs; /* per warp, 32 x T: a running shadow to make deltas realistic */
    vx_event ev;
    vx_commit commits[TG_MAXC];
    uint32_t values[TG_MAXC][128];
    vx_memwrite mem[TG_MAXM];
    vx_wctl wctl[4];
    vx_console con[8];
    vx_fault fault;
} tgen;

static inline uint64_t tg_rand(tgen *g)
{
    /* xorshift64*: fixed seed, so the tests are reproducible */
    g->rng ^= g->rng >> 12;
    g->rng ^= g->rng << 25;
    g->rng ^= g->rng >> 27;
    return g->rng * 0x2545F4914F6CDD1Dull;
}

static inline uint32_t tg_below(tgen *g, uint32_t n)
{
    return (uint32_t)(tg_rand(g) % n);
}

static inline vx_lanes tg_lanes(tgen *g)
{
    uint64_t hi = tg_rand(g), lo = tg_rand(g); /* sequenced: same stream on every compiler */
    vx_lanes m = ((vx_lanes)hi << 64) | lo;
    return m & vx_lanes_all(g->T);
}

static inline void tgen_init(tgen *g, uint64_t seed, uint32_t C, uint32_t W, uint32_t T,
                             unsigned wild)
{
    memset(g, 0, sizeof *g);
    g->rng = seed * 0x9E3779B97F4A7C15ull + 1;
    g->C = C;
    g->W = W;
    g->T = T;
    g->wild = wild;
    g->core = C - 1;
    g->warp = W - 1;
    g->pc = calloc(C * W, sizeof *g->pc);
    g->mask = calloc(C * W, sizeof *g->mask);
    g->regs = calloc((size_t)C * W * 32 * T, sizeof *g->regs);
    for (uint32_t i = 0; i < C * W; i++) {
        g->pc[i] = 0x80000000u + 0x100 * (i % 3);
        g->mask[i] = vx_lanes_all(T);
    }
}

static inline void tgen_free(tgen *g)
{
    free(g->pc);
    free(g->mask);
    free(g->regs);
}

/* The instruction at a pc: a fixed pseudo-random word (so the insn cache hits), with
 * a fixed rd; every 8th word is a backward BRANCH, every 13th a JAL. */
static inline uint32_t tg_insn_at(uint32_t pc)
{
    uint32_t h = (pc >> 2) * 2654435761u;
    if ((pc >> 2) % 8 == 7) return 0xFE000EE3u;   /* beq x0,x0,-4 */
    if ((pc >> 2) % 13 == 12) return 0x0100006Fu; /* jal x0, +16 */
    return (h & ~0x7Fu) | 0x33u;
}

static inline void tg_values(tgen *g, uint32_t *v, vx_lanes lanes, uint32_t *shadow)
{
    unsigned kind = tg_below(g, g->wild ? 5 : 4);
    uint32_t base = (uint32_t)tg_rand(g), stride = tg_below(g, 3) ? 4 : (uint32_t)tg_rand(g);
    uint32_t d = tg_below(g, 40);
    for (uint32_t l = 0; l < g->T; l++) {
        if (!vx_lanes_test(lanes, l)) {
            v[l] = 0xDEADBEEF; /* never compared: must not leak into the trace */
            continue;
        }
        switch (kind) {
        case 0: v[l] = shadow ? shadow[0] + d : base; break;          /* uniform */
        case 1: v[l] = base + l * stride; break;                      /* affine */
        case 2: v[l] = (shadow ? shadow[l] : 0) + d + (l & 1); break; /* small deltas */
        case 3: v[l] = (uint32_t)tg_rand(g); break;                   /* random */
        default: {
            uint32_t x = (uint32_t)tg_rand(g);
            v[l] = x >> tg_below(g, 32);
            break;
        }
        }
        if (shadow) shadow[l] = v[l];
    }
}

static inline void tg_fault(tgen *g, vx_fault *f)
{
    memset(f, 0, sizeof *f);
    f->kind = (uint8_t)(1 + tg_below(g, 13));
    f->signal = (uint8_t)tg_below(g, 32);
    f->core = g->ev.core;
    f->warp = g->ev.warp;
    f->pc = g->ev.pc;
    f->insn = g->ev.insn;
    f->addr = (uint32_t)tg_rand(g);
    f->lanes = tg_lanes(g);
    unsigned n = tg_below(g, 96);
    for (unsigned i = 0; i < n; i++)
        f->reason[i] = (char)(' ' + tg_below(g, 95));
    f->reason[n] = 0;
}

/* The next event (an issue, or sometimes a DM event); never END. */
static inline const vx_event *tgen_next(tgen *g)
{
    vx_event *ev = &g->ev;
    memset(ev, 0, sizeof *ev);
    ev->index = g->index;

    if (g->wild && tg_below(g, 40) == 0) {
        ev->kind = VX_EV_DM;
        g->cycle += tg_below(g, 3);
        ev->cycle = g->cycle;
        ev->dm.op = (uint8_t)(1 + tg_below(g, 8));
        ev->dm.addr = (uint8_t)tg_below(g, 13);
        ev->dm.value = (uint32_t)tg_rand(g);
        ev->dm.gwarp = tg_below(g, g->C * g->W);
        ev->dm.lane = tg_below(g, g->T);
        ev->dm.arg = tg_below(g, 5);
        return ev;
    }

    ev->kind = VX_EV_ISSUE;
    /* schedule: round-robin, sometimes a jump or a gap */
    if (tg_below(g, 10) == 0) {
        g->core = tg_below(g, g->C);
        g->warp = tg_below(g, g->W);
        g->cycle += 1 + tg_below(g, 100);
    } else {
        if (++g->warp == g->W) g->warp = 0;
        if (++g->core == g->C) {
            g->core = 0;
            g->cycle++;
        }
    }
    ev->core = g->core;
    ev->warp = g->warp;
    ev->cycle = g->cycle;
    uint32_t gw = g->core * g->W + g->warp;
    uint32_t *shadow = g->regs + (size_t)gw * 32 * g->T;

    if (g->wild && tg_below(g, 25) == 0) ev->flags = tg_below(g, 2) ? VX_EVF_INJECTED : VX_EVF_STEP;
    if (g->wild && tg_below(g, 30) == 0) g->pc[gw] = (uint32_t)tg_rand(g) & ~3u;
    ev->pc = g->pc[gw];
    ev->insn = tg_insn_at(ev->pc);
    if (g->wild && tg_below(g, 20) == 0) ev->insn = (uint32_t)tg_rand(g);
    if (g->wild && tg_below(g, 8) == 0) g->mask[gw] = tg_lanes(g);
    ev->tmask = g->mask[gw];
    if (ev->flags & VX_EVF_INJECTED) ev->tmask = vx_lanes_bit(tg_below(g, g->T));

    /* next pc of this warp */
    if (!(ev->flags & VX_EVF_INJECTED)) {
        uint32_t op = ev->insn & 0x7F;
        if (ev->insn == 0xFE000EE3u) /* B-immediate -4 (hand-decoded): taken or not */
            g->pc[gw] = tg_below(g, 2) ? ev->pc - 4 : ev->pc + 4;
        else if (ev->insn == 0x0100006Fu) /* J-immediate +16 */
            g->pc[gw] = ev->pc + 16;
        else if (op == 0x63 && tg_below(g, 4) == 0)
            g->pc[gw] = ev->pc - 4 * (1 + ((ev->pc >> 2) % 6));
        else
            g->pc[gw] = ev->pc + 4;
    }

    /* commits */
    unsigned nc = tg_below(g, 10) < 7 ? 1 : 0;
    if (g->wild && tg_below(g, 6) == 0) nc = tg_below(g, TG_MAXC + 1);
    uint32_t rd = (ev->insn >> 7) & 31;
    for (unsigned i = 0; i < nc; i++) {
        vx_commit *c = &g->commits[i];
        c->lanes = ev->tmask;
        c->file = VX_RF_X;
        c->reg = (uint16_t)(rd ? rd : 1);
        uint32_t *sh = shadow + (size_t)c->reg * g->T;
        if (g->wild) {
            switch (tg_below(g, 8)) {
            case 0:
                c->file = VX_RF_F;
                c->reg = (uint16_t)tg_below(g, 32);
                sh = NULL;
                break;
            case 1:
                c->file = VX_RF_CSR;
                c->reg = (uint16_t)tg_below(g, 4096);
                c->lanes = 1;
                sh = NULL;
                break;
            case 2:
                c->reg = (uint16_t)tg_below(g, 32);
                sh = NULL;
                break;
            case 3: c->lanes = tg_lanes(g); break;
            case 4: c->lanes = 0; break;
            default: break;
            }
        }
        tg_values(g, g->values[i], c->lanes, sh);
        c->values = g->values[i];
    }
    ev->ncommits = nc;
    ev->commits = nc ? g->commits : NULL;

    /* memory writes */
    if (tg_below(g, 6) == 0 && ev->tmask) {
        uint32_t n = 0, base = 0x10000 + tg_below(g, 1 << 16) * 4, st = tg_below(g, 2) ? 4 : 8;
        uint32_t vb = (uint32_t)tg_rand(g);
        unsigned vk = tg_below(g, 3), sz = g->wild ? 1u << tg_below(g, 3) : 4;
        for (uint32_t l = 0; l < g->T; l++) {
            if (!vx_lanes_test(ev->tmask, l)) continue;
            vx_memwrite *m = &g->mem[n++];
            m->lane = (uint8_t)l;
            m->size = (uint8_t)sz;
            m->addr = base + l * st;
            m->value = vk == 0 ? vb : vk == 1 ? vb + l * 3 : (uint32_t)tg_rand(g);
            if (sz < 4) m->value &= (1u << (8 * sz)) - 1;
        }
        if (g->wild && tg_below(g, 3) == 0) {
            /* an odd list: explicit lanes (repeats, descending), random addresses and sizes */
            n = 1 + tg_below(g, 2 * g->T + 2);
            for (uint32_t i = 0; i < n; i++) {
                vx_memwrite *m = &g->mem[i];
                m->lane = (uint8_t)tg_below(g, g->T);
                m->size = (uint8_t)(1u << tg_below(g, 3));
                /* anywhere a store reaches (FORMAT.md 7.3: [0x80, 0xFFFF4000)) */
                m->addr = 0x80u + (uint32_t)(tg_rand(g) % (0xFFFF4000u - 0x80u - 3u));
                m->value = (uint32_t)tg_rand(g);
                if (m->size < 4) m->value &= (1u << (8 * m->size)) - 1;
            }
        }
        ev->nmem = n;
        ev->mem = g->mem;
    }
    if (g->wild && tg_below(g, 12) == 0) {
        uint32_t n = 1 + tg_below(g, 4);
        for (uint32_t i = 0; i < n; i++) {
            vx_wctl *w = &g->wctl[i];
            memset(w, 0, sizeof *w);
            w->kind = (uint8_t)(1 + tg_below(g, 11));
            w->core = tg_below(g, 2) ? ev->core : tg_below(g, g->C);
            w->warp = tg_below(g, 2) ? ev->warp : tg_below(g, g->W);
            if (tg_below(g, 2)) w->pc = (uint32_t)tg_rand(g);
            if (tg_below(g, 2)) w->arg = tg_below(g, 1000);
            if (tg_below(g, 2)) w->arg2 = (uint32_t)tg_rand(g);
            if (tg_below(g, 2)) w->mask = tg_lanes(g);
            if (tg_below(g, 2)) w->mask2 = tg_lanes(g);
        }
        ev->nwctl = n;
        ev->wctl = g->wctl;
    }
    if (g->wild && tg_below(g, 15) == 0) {
        uint32_t n = 1 + tg_below(g, 8);
        for (uint32_t i = 0; i < n; i++) {
            g->con[i].slot = (uint8_t)tg_below(g, 64);
            g->con[i].byte = (uint8_t)tg_rand(g);
        }
        ev->nconsole = n;
        ev->console = g->con;
    }
    if (g->wild && tg_below(g, 50) == 0) { /* a faulting issue has no other effect (7.6) */
        tg_fault(g, &g->fault);
        ev->fault = &g->fault;
        ev->ncommits = ev->nmem = ev->nwctl = ev->nconsole = 0;
    }
    g->index++;
    return ev;
}

static inline const vx_event *tgen_end(tgen *g, uint8_t status, uint32_t exit_code, bool fault)
{
    vx_event *ev = &g->ev;
    memset(ev, 0, sizeof *ev);
    ev->kind = VX_EV_END;
    ev->index = g->index;
    ev->cycle = g->cycle + 5;
    ev->end_status = status;
    ev->exit_code = exit_code;
    if (fault) {
        tg_fault(g, &g->fault);
        ev->fault = &g->fault;
    }
    return ev;
}

/* A digest of everything an event carries (for comparing positions after a seek). */
static inline uint64_t tg_digest(const vx_event *ev, uint32_t T)
{
    uint64_t h = 1469598103934665603ull;
#define TG_MIX(x) (h = (h ^ (uint64_t)(x)) * 1099511628211ull)
    TG_MIX(ev->kind);
    TG_MIX(ev->flags);
    TG_MIX(ev->index);
    TG_MIX(ev->cycle);
    TG_MIX(ev->core);
    TG_MIX(ev->warp);
    TG_MIX(ev->pc);
    TG_MIX(ev->insn);
    TG_MIX((uint64_t)ev->tmask);
    TG_MIX((uint64_t)(ev->tmask >> 64));
    for (uint32_t i = 0; i < ev->ncommits; i++) {
        TG_MIX(ev->commits[i].file);
        TG_MIX(ev->commits[i].reg);
        TG_MIX((uint64_t)ev->commits[i].lanes);
        for (uint32_t l = 0; l < T; l++)
            if (vx_lanes_test(ev->commits[i].lanes, l)) TG_MIX(ev->commits[i].values[l]);
    }
    for (uint32_t i = 0; i < ev->nmem; i++) {
        TG_MIX(ev->mem[i].addr);
        TG_MIX(ev->mem[i].value);
        TG_MIX(ev->mem[i].size);
        TG_MIX(ev->mem[i].lane);
    }
    for (uint32_t i = 0; i < ev->nwctl; i++) {
        TG_MIX(ev->wctl[i].kind);
        TG_MIX(ev->wctl[i].pc);
        TG_MIX(ev->wctl[i].arg);
        TG_MIX((uint64_t)ev->wctl[i].mask);
    }
    for (uint32_t i = 0; i < ev->nconsole; i++)
        TG_MIX(ev->console[i].byte);
    if (ev->fault) TG_MIX(ev->fault->addr);
    TG_MIX(ev->dm.op);
    TG_MIX(ev->dm.value);
    TG_MIX(ev->end_status);
    TG_MIX(ev->exit_code);
#undef TG_MIX
    return h;
}

#endif
