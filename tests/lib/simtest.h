/*
 * simtest.h - helpers for the simulator's C tests: build a small machine, put
 * a program at 0x80000000 (followed by `tmc x0`, which ends the warp), set and
 * read registers, run.  Everything is static inline so each test includes it
 * freely.  st_seen[] records the ops of every program written, so a test can
 * check that it exercised every row of a group of the instruction table.
 */
#ifndef VX_SIMTEST_H
#define VX_SIMTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rvenc.h"
#include "tap.h"
#include "vx_isa.h"
#include "vx_sim.h"

#define ST_CODE 0x80000000u
#define ST_DATA 0x00010000u

static uint8_t st_seen[VX_OP_COUNT];

static inline vx_sim *st_new(uint32_t clusters, uint32_t cores, uint32_t warps, uint32_t threads)
{
    vx_sim_config c = VX_SIM_CONFIG_INIT;
    c.clusters = clusters;
    c.cores = cores;
    c.warps = warps;
    c.threads = threads;
    vx_sim *s = NULL;
    if (vx_sim_new(&c, &s))
        tap_bail("vx_sim_new %ux%ux%ux%u failed", clusters, cores, warps, threads);
    return s;
}

/* One warp of nt lanes with thread mask `mask` (0 = all lanes). */
static inline vx_sim *st_warp(uint32_t nt, vx_lanes mask)
{
    vx_sim *s = st_new(1, 1, 1, nt);
    vx_sim_set_tmask(s, 0, mask ? mask : vx_lanes_all(nt));
    return s;
}

/* Write n words at addr and record their ops. */
static inline void st_code_at(vx_sim *s, uint32_t addr, const uint32_t *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t b[4] = {(uint8_t)w[i], (uint8_t)(w[i] >> 8), (uint8_t)(w[i] >> 16),
                        (uint8_t)(w[i] >> 24)};
        if (vx_sim_mem_write(s, 0, addr + 4 * (uint32_t)i, b, 4)) tap_bail("code write failed");
        st_seen[vx_isa_op(w[i])] = 1;
    }
}

/* The program at ST_CODE followed by `tmc x0`. */
static inline void st_code(vx_sim *s, const uint32_t *w, size_t n)
{
    uint32_t end = VX_TMC(X0);
    st_code_at(s, ST_CODE, w, n);
    st_code_at(s, ST_CODE + 4 * (uint32_t)n, &end, 1);
}

#define ST_CODE_ARR(s, ...)                                \
    do {                                                   \
        const uint32_t st_w_[] = {__VA_ARGS__};            \
        st_code(s, st_w_, sizeof st_w_ / sizeof st_w_[0]); \
    } while (0)

static inline void st_setx(vx_sim *s, uint32_t gw, uint32_t lane, uint32_t reg, uint32_t v)
{
    if (vx_sim_reg_write(s, gw, lane, VX_RF_X, reg, v)) tap_bail("reg write failed");
}

/* The same value in every lane of warp gw. */
static inline void st_setx_all(vx_sim *s, uint32_t gw, uint32_t reg, uint32_t v)
{
    for (uint32_t l = 0; l < vx_sim_get_config(s)->threads; l++)
        st_setx(s, gw, l, reg, v);
}

static inline uint32_t st_x(const vx_sim *s, uint32_t gw, uint32_t lane, uint32_t reg)
{
    uint32_t v = 0;
    vx_sim_reg_read(s, gw, lane, VX_RF_X, reg, &v);
    return v;
}

static inline void st_setf(vx_sim *s, uint32_t gw, uint32_t lane, uint32_t reg, uint32_t v)
{
    if (vx_sim_reg_write(s, gw, lane, VX_RF_F, reg, v)) tap_bail("freg write failed");
}

static inline uint32_t st_f(const vx_sim *s, uint32_t gw, uint32_t lane, uint32_t reg)
{
    uint32_t v = 0;
    vx_sim_reg_read(s, gw, lane, VX_RF_F, reg, &v);
    return v;
}

static inline uint32_t st_csr(const vx_sim *s, uint32_t gw, uint32_t lane, uint32_t csr)
{
    uint32_t v = 0;
    vx_sim_reg_read(s, gw, lane, VX_RF_CSR, csr, &v);
    return v;
}

static inline void st_w32(vx_sim *s, uint32_t addr, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    if (vx_sim_mem_write(s, 0, addr, b, 4)) tap_bail("mem write 0x%08x failed", addr);
}

static inline uint32_t st_r32(const vx_sim *s, uint32_t core, uint32_t addr)
{
    uint8_t b[4] = {0};
    vx_sim_mem_read(s, core, addr, b, 4);
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Run (at most a million issues); returns the stop reason. */
static inline vx_stop_reason st_go(vx_sim *s, vx_stop *st)
{
    vx_stop tmp;
    if (!st) st = &tmp;
    if (vx_sim_run(s, 1000000, st)) tap_bail("vx_sim_run failed: %s", vx_sim_errmsg(s));
    return st->reason;
}

/* Every row of the table whose flags satisfy (flags & any) && !(flags & none) was written. */
static inline int st_check_coverage(unsigned any, unsigned none)
{
    int missing = 0;
    for (unsigned op = 1; op < VX_OP_COUNT; op++) {
        const vx_isa_row *r = vx_isa_row_get(op);
        bool in = (any == 0 || (r->flags & any)) && !(r->flags & none);
        if (in && !st_seen[op]) {
            diag("no test executes %s", r->mnemonic);
            missing++;
        }
    }
    return missing;
}

#endif /* VX_SIMTEST_H */
