/*
 * t-sim-api.c - the simulator API: determinism, snapshots (save, run, restore,
 * rerun gives the same state and event stream), the observer's contents, the
 * state encoding round trip and its error checks, replay through vx_sim_issue,
 * the debug primitives (halt, resume, step, inject, set_pc, reset), dirty-page
 * tracking, configuration checks, and that every fault kind carries a reason.
 */
#include "simtest.h"

/* ---- a workload: 4 warps x 4 lanes, loads/stores/AMO/FP in a loop, console, exit 77 ---- */

static void load_workload(vx_sim *s)
{
    const uint32_t body = ST_CODE + 20;
    uint32_t w[] = {
        ADDI(5, 0, 4),
        LUI(6, body >> 12),
        ADDI(6, 6, body & 0xfff),
        VX_WSPAWN(5, 6),
        NOP(),
        /* 5 */ ADDI(7, 0, -1),
        VX_TMC(7),
        CSRRS(8, 0xF14, 0),
        SLLI(9, 8, 2),
        LUI(10, 0x10),
        /* 10 */ ADD(9, 9, 10),
        ADDI(11, 0, 30),
        ADDI(14, 0, 1),
        /* 13: loop */ LW(12, 0x100, 9),
        ADD(12, 12, 8),
        ADDI(12, 12, 1),
        SW(12, 0x100, 9),
        AMOADD_W(13, 14, 10),
        FCVT_S_W(1, 12, RM_DYN),
        FADD_S(2, 2, 1, RM_DYN),
        ADDI(11, 11, -1),
        BNE(11, 0, -32),
        /* 22 */ ADDI(18, 8, 'A'),
        ANDI(19, 8, 63),
        SB(18, 0x40, 19),
        /* 25 */ CSRRS(15, 0xCC1, 0),
        BNE(15, 0, 20),
        /* 27 */ ADDI(16, 0, 1),
        VX_WSPAWN(16, 0),
        ADDI(17, 0, 77),
        SW(17, 0x88, 0),
        /* 31 */
    };
    st_code(s, w, sizeof w / sizeof w[0]);
}

static vx_sim *workload(void)
{
    vx_sim *s = st_new(1, 1, 4, 4);
    load_workload(s);
    return s;
}

/* ---- event hashing ---- */

typedef struct evlog {
    uint64_t h;
    uint64_t n, issues, ends, dms;
    uint32_t nt;
    vx_event last_end;
    /* schedule for replay */
    uint32_t *core, *warp;
    uint64_t *cycle;
    size_t nsched, cap;
    bool keep_sched;
} evlog;

static void mix(evlog *l, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) {
        l->h ^= b[i];
        l->h *= 0x100000001b3ull;
    }
}

#define MIX(l, v)               \
    do {                        \
        __typeof__(v) v_ = (v); \
        mix(l, &v_, sizeof v_); \
    } while (0)

static void on_event(void *ctx, const vx_event *ev)
{
    evlog *l = ctx;
    l->n++;
    MIX(l, ev->kind);
    MIX(l, ev->flags);
    MIX(l, ev->index);
    MIX(l, ev->cycle);
    if (ev->kind == VX_EV_ISSUE) {
        l->issues++;
        MIX(l, ev->core);
        MIX(l, ev->warp);
        MIX(l, ev->pc);
        MIX(l, ev->insn);
        MIX(l, ev->tmask);
        for (uint32_t i = 0; i < ev->ncommits; i++) {
            const vx_commit *c = &ev->commits[i];
            MIX(l, c->file);
            MIX(l, c->reg);
            MIX(l, c->lanes);
            for (uint32_t t = 0; t < l->nt; t++)
                if (vx_lanes_test(c->lanes, t)) MIX(l, c->values[t]);
        }
        for (uint32_t i = 0; i < ev->nmem; i++)
            mix(l, &ev->mem[i], sizeof ev->mem[i]);
        for (uint32_t i = 0; i < ev->nconsole; i++)
            mix(l, &ev->console[i], sizeof ev->console[i]);
        for (uint32_t i = 0; i < ev->nwctl; i++) {
            const vx_wctl *w = &ev->wctl[i];
            MIX(l, w->kind);
            MIX(l, w->core);
            MIX(l, w->warp);
            MIX(l, w->pc);
            MIX(l, w->arg);
            MIX(l, w->arg2);
            MIX(l, w->mask);
            MIX(l, w->mask2);
        }
        if (ev->fault) mix(l, ev->fault->reason, strlen(ev->fault->reason));
        if (l->keep_sched && !(ev->flags & (VX_EVF_INJECTED | VX_EVF_STEP))) {
            if (l->nsched == l->cap) {
                l->cap = l->cap ? l->cap * 2 : 1024;
                l->core = realloc(l->core, l->cap * sizeof *l->core);
                l->warp = realloc(l->warp, l->cap * sizeof *l->warp);
                l->cycle = realloc(l->cycle, l->cap * sizeof *l->cycle);
            }
            l->core[l->nsched] = ev->core;
            l->warp[l->nsched] = ev->warp;
            l->cycle[l->nsched] = ev->cycle;
            l->nsched++;
        }
    } else if (ev->kind == VX_EV_END) {
        l->ends++;
        l->last_end = *ev;
        MIX(l, ev->end_status);
        MIX(l, ev->exit_code);
    } else {
        l->dms++;
        mix(l, &ev->dm, sizeof ev->dm);
    }
}

static void evlog_init(evlog *l, uint32_t nt)
{
    memset(l, 0, sizeof *l);
    l->h = 0xcbf29ce484222325ull;
    l->nt = nt;
}

static void evlog_free(evlog *l)
{
    free(l->core);
    free(l->warp);
    free(l->cycle);
}

/* Encoded state plus a digest of global memory and local memory. */
static uint64_t state_digest(const vx_sim *s)
{
    evlog l;
    evlog_init(&l, 0);
    uint8_t *buf;
    size_t len;
    if (vx_sim_state_encode(s, &buf, &len)) return 0;
    mix(&l, buf, len);
    free(buf);
    static uint8_t chunk[0x1000];
    uint32_t ranges[][2] = {
        {0x80, 0x1000 - 0x80}, {ST_DATA, 0x2000}, {ST_CODE, 0x1000}, {VX_LMEM_BASE_ADDR, 0x4000}};
    for (size_t r = 0; r < 4; r++)
        for (uint32_t off = 0; off < ranges[r][1]; off += 0x1000) {
            uint32_t n = ranges[r][1] - off < 0x1000 ? ranges[r][1] - off : 0x1000;
            vx_sim_mem_read(s, 0, ranges[r][0] + off, chunk, n);
            mix(&l, chunk, n);
        }
    return l.h;
}

static void test_determinism(void)
{
    evlog a, b;
    vx_stop st;
    evlog_init(&a, 4);
    evlog_init(&b, 4);
    vx_sim *s1 = workload(), *s2 = workload();
    vx_sim_set_observer(s1, on_event, &a, 0);
    vx_sim_set_observer(s2, on_event, &b, 0);
    ok(st_go(s1, &st) == VX_STOP_EXIT && st.exit_code == 77, "workload exits with 77 (%u %s)",
       st.exit_code, st.fault.reason);
    st_go(s2, NULL);
    ok(a.h == b.h && a.n == b.n && a.issues > 1000,
       "two runs: identical event streams (%llu issues)", (unsigned long long)a.issues);
    ok(state_digest(s1) == state_digest(s2), "two runs: identical final state");
    ok(a.ends == 1 && a.last_end.end_status == VX_END_EXIT && a.last_end.exit_code == 77 &&
           a.last_end.index == vx_sim_index(s1),
       "one END event with the exit code");

    /* Traced and untraced runs agree. */
    vx_sim *s3 = workload();
    st_go(s3, NULL);
    ok(state_digest(s3) == state_digest(s1), "a run without observer ends in the same state");
    vx_sim_stats x, y;
    vx_sim_get_stats(s1, &x);
    vx_sim_get_stats(s3, &y);
    ok(x.issues == y.issues && x.lane_ops == y.lane_ops && x.cycles == y.cycles &&
           x.issues == a.issues && x.spawns == 2,
       "statistics agree (issues %llu, lane-ops %llu, cycles %llu)", (unsigned long long)x.issues,
       (unsigned long long)x.lane_ops, (unsigned long long)x.cycles);
    vx_sim_free(s1);
    vx_sim_free(s2);
    vx_sim_free(s3);
    evlog_free(&a);
    evlog_free(&b);
}

static void test_snapshots(void)
{
    vx_stop st;
    vx_sim *s = workload();
    vx_sim_run(s, 300, &st);
    ok(st.reason == VX_STOP_NONE && st.issued == 300 && vx_sim_index(s) == 300,
       "run stops after 300 issues");
    vx_sim_snap *snap = NULL;
    ok(vx_sim_snap_save(s, &snap) == VX_OK && vx_sim_snap_index(snap) == 300, "snapshot at 300");
    size_t b0 = vx_sim_snap_bytes(snap);
    uint64_t at_snap = state_digest(s);

    evlog a, b;
    evlog_init(&a, 4);
    evlog_init(&b, 4);
    vx_sim_set_observer(s, on_event, &a, 0);
    st_go(s, &st);
    uint64_t end1 = state_digest(s);
    size_t b1 = vx_sim_snap_bytes(snap);
    ok(b1 >= b0 + VX_PAGE_SIZE,
       "pages written after the snapshot become the snapshot's (%zu -> %zu)", b0, b1);

    ok(vx_sim_snap_restore(s, snap) == VX_OK, "restore");
    ok(state_digest(s) == at_snap && vx_sim_index(s) == 300 && !vx_sim_finished(s),
       "restored state equals the state at the snapshot");
    vx_sim_set_observer(s, on_event, &b, 0);
    st_go(s, &st);
    ok(st.reason == VX_STOP_EXIT && a.h == b.h && a.n == b.n && state_digest(s) == end1,
       "rerun after restore: identical events and final state");

    /* restore twice, and into a second machine of the same shape */
    vx_sim *t = workload();
    ok(vx_sim_snap_restore(t, snap) == VX_OK && state_digest(t) == at_snap,
       "restore into another machine");
    st_go(t, NULL);
    ok(state_digest(t) == end1, "which then finishes identically");
    vx_sim *u = st_new(1, 1, 2, 4);
    ok(vx_sim_snap_restore(u, snap) == VX_ERR_INVAL, "restore into a different shape is refused");
    vx_sim_free(u);

    /* the memory two snapshots hold beyond the live machine (one 4 KiB page written
     * after them, then another after the second): counted once, not by nobody */
    vx_sim_snap *s1 = NULL, *s2 = NULL;
    ok(vx_sim_snap_restore(t, snap) == VX_OK && vx_sim_snap_save(t, &s1) == VX_OK &&
           vx_sim_snap_save(t, &s2) == VX_OK,
       "two snapshots of one state");
    size_t r1 = vx_sim_snap_bytes_beyond(t, s1, NULL), r2 = vx_sim_snap_bytes_beyond(t, s2, s1);
    ok(r1 == vx_sim_snap_bytes(s1) && r2 == vx_sim_snap_bytes(s2),
       "all their pages are the live machine's: registers only (%zu, %zu)", r1, r2);
    st_w32(t, ST_CODE + 0x800, 0x1234); /* a page they have: copy-on-write, both keep the old one */
    size_t w1 = vx_sim_snap_bytes_beyond(t, s1, NULL), w2 = vx_sim_snap_bytes_beyond(t, s2, s1);
    ok(w1 - r1 >= VX_PAGE_SIZE && w1 - r1 < 2 * VX_PAGE_SIZE,
       "the first counts the page they share (%zu more)", w1 - r1);
    is_u32((uint32_t)(w2 - r2), 0, "the second, its neighbour, does not count it again");
    ok(vx_sim_snap_bytes(s1) == r1 && vx_sim_snap_bytes(s2) == r2,
       "while the per-snapshot count sees it in neither (shared)");
    vx_sim_snap_free(s1);
    vx_sim_snap_free(s2);

    /* memory written after the snapshot is undone */
    st_w32(t, ST_DATA + 0x1800, 0x1234);
    vx_sim_snap_restore(t, snap);
    is_u32(st_r32(t, 0, ST_DATA + 0x1800), 0, "restore undoes memory writes");
    vx_sim_snap_free(snap);
    ok(state_digest(t) == at_snap, "the machine outlives the freed snapshot");
    vx_sim_free(t);
    vx_sim_free(s);
    evlog_free(&a);
    evlog_free(&b);

    /* local memory is snapshotted too */
    s = st_warp(1, 0);
    vx_sim_mem_write(s, 0, VX_LMEM_BASE_ADDR, "abcd", 4);
    vx_sim_snap_save(s, &snap);
    vx_sim_mem_write(s, 0, VX_LMEM_BASE_ADDR, "wxyz", 4);
    vx_sim_snap_restore(s, snap);
    char buf[5] = {0};
    vx_sim_mem_read(s, 0, VX_LMEM_BASE_ADDR, buf, 4);
    is_str(buf, "abcd", "local memory restored");
    vx_sim_snap_free(snap);
    vx_sim_free(s);
}

/* ---- observer contents ---- */

typedef struct capture {
    vx_event ev[16];
    vx_commit commits[16][4];
    uint32_t vals[16][4][8];
    vx_memwrite mem[16][8];
    vx_memread reads[16][8];
    vx_wctl wctl[16][8];
    vx_fault fault[16];
    int n;
} capture;

static void on_capture(void *ctx, const vx_event *ev)
{
    capture *c = ctx;
    if (c->n >= 16) return;
    int i = c->n++;
    c->ev[i] = *ev;
    for (uint32_t k = 0; k < ev->ncommits && k < 4; k++) {
        c->commits[i][k] = ev->commits[k];
        for (uint32_t t = 0; t < 8; t++)
            c->vals[i][k][t] =
                vx_lanes_test(ev->commits[k].lanes, t) ? ev->commits[k].values[t] : 0;
    }
    for (uint32_t k = 0; k < ev->nmem && k < 8; k++)
        c->mem[i][k] = ev->mem[k];
    for (uint32_t k = 0; k < ev->nreads && k < 8; k++)
        c->reads[i][k] = ev->reads[k];
    for (uint32_t k = 0; k < ev->nwctl && k < 8; k++)
        c->wctl[i][k] = ev->wctl[k];
    if (ev->fault) c->fault[i] = *ev->fault;
}

static void test_observer(void)
{
    static capture c;
    memset(&c, 0, sizeof c);
    vx_sim *s = st_warp(4, 0xd);
    for (uint32_t l = 0; l < 4; l++) {
        st_setx(s, 0, l, 1, 10 * l);
        st_setx(s, 0, l, 2, ST_DATA + 4 * l);
        st_setf(s, 0, l, 1, 0x3f800000);
        st_setf(s, 0, l, 2, 0x40400000);
        st_setx(s, 0, l, 5, l != 2);
    }
    st_setx_all(s, 0, 6, 5);
    ST_CODE_ARR(s, ADDI(3, 1, 1), SW(1, 0, 2), CSRRW(4, 0x340, 1), FDIV_S(4, 1, 2, RM_RNE),
                FDIV_S(5, 1, 2, RM_RNE), VX_SPLIT(7, 5), LW(8, 0, 2), ADDI(0, 0, 1), VX_TMC(6));
    vx_sim_set_observer(s, on_capture, &c, VX_OBS_READS);
    vx_stop st;
    st_go(s, &st);
    ok(c.n == 11, "9 issues + tmc 0 issue + END = 11 events (%d)", c.n);
    vx_event *e = &c.ev[0];
    ok(e->kind == VX_EV_ISSUE && e->index == 0 && e->cycle == 0 && e->pc == ST_CODE &&
           e->insn == ADDI(3, 1, 1) && e->tmask == 0xd && e->ncommits == 1,
       "addi: schedule decision and one commit");
    ok(c.commits[0][0].file == VX_RF_X && c.commits[0][0].reg == 3 &&
           c.commits[0][0].lanes == 0xd && c.vals[0][0][0] == 1 && c.vals[0][0][3] == 31,
       "addi commit: x3, active lanes, per-lane values");
    e = &c.ev[1];
    ok(e->ncommits == 0 && e->nmem == 3 && c.mem[1][0].addr == ST_DATA && c.mem[1][0].lane == 0 &&
           c.mem[1][1].lane == 2 && c.mem[1][2].value == 30 && c.mem[1][2].size == 4,
       "sw: memory writes in lane order, none for the inactive lane");
    e = &c.ev[2];
    ok(e->ncommits == 2 && c.commits[2][0].file == VX_RF_X && c.commits[2][1].file == VX_RF_CSR &&
           c.commits[2][1].reg == 0x340 && c.commits[2][1].lanes == 1 && c.vals[2][1][0] == 30 &&
           c.vals[2][0][2] == 0 && c.vals[2][0][3] == 20,
       "csrrw: rd per lane and the per-core CSR once (lane 0 = final value)");
    e = &c.ev[3];
    ok(e->ncommits == 2 && c.commits[3][0].file == VX_RF_F && c.commits[3][1].reg == 0x001 &&
           c.vals[3][1][0] == 1,
       "fdiv raising NX commits fd and fflags");
    e = &c.ev[4];
    ok(e->ncommits == 1 && c.commits[4][0].file == VX_RF_F,
       "the same flags again: no fflags commit (unchanged)");
    e = &c.ev[5];
    ok(e->nwctl == 2 && c.wctl[5][0].kind == VX_WCTL_IPDOM_PUSH && c.wctl[5][0].mask == 0xd &&
           c.wctl[5][0].mask2 == 0x4 && c.wctl[5][0].arg == 1 &&
           c.wctl[5][1].kind == VX_WCTL_TMASK && c.wctl[5][1].mask == 0x9,
       "divergent split: IPDOM push (orig, else, depth) and the new mask");
    e = &c.ev[6];
    ok(e->tmask == 0x9 && e->nreads == 2 && c.reads[6][0].addr == ST_DATA &&
           c.reads[6][1].lane == 3 && c.reads[6][1].size == 4,
       "VX_OBS_READS reports per-lane reads");
    e = &c.ev[7];
    ok(e->ncommits == 0, "a write to x0 is not committed");
    e = &c.ev[8];
    ok(e->nwctl == 1 && c.wctl[8][0].kind == VX_WCTL_TMASK && c.wctl[8][0].mask == 0x5,
       "tmc: mask effect");
    e = &c.ev[10];
    ok(e->kind == VX_EV_END && e->end_status == VX_END_EXIT && e->index == 10, "END event last");
    vx_sim_free(s);

    /* a faulting issue: fault pointer, no effects; END carries it */
    memset(&c, 0, sizeof c);
    s = st_warp(2, 0);
    st_setx_all(s, 0, 1, 0x10);
    ST_CODE_ARR(s, ADDI(3, 0, 1), SW(3, 0, 1));
    vx_sim_set_observer(s, on_capture, &c, 0);
    st_go(s, &st);
    ok(c.n == 3 && c.ev[1].fault && c.fault[1].kind == VX_FAULT_UNMAPPED && c.ev[1].nmem == 0 &&
           c.ev[1].ncommits == 0 && c.ev[1].index == 1,
       "faulting issue is reported with its fault and no effects");
    ok(c.ev[2].kind == VX_EV_END && c.ev[2].end_status == VX_END_FAULT && c.ev[2].fault &&
           c.fault[2].kind == VX_FAULT_UNMAPPED,
       "END with status FAULT");
    vx_sim_free(s);
}

/* ---- state encoding ---- */

static void test_state_encoding(void)
{
    vx_stop st;
    vx_sim *s = workload();
    vx_sim_run(s, 777, &st);
    uint8_t *a = NULL, *b = NULL;
    size_t la = 0, lb = 0;
    ok(vx_sim_state_encode(s, &a, &la) == VX_OK && la > 100, "encode (%zu bytes)", la);
    vx_sim *t = workload();
    ok(vx_sim_state_decode(t, a, la) == VX_OK, "decode into a fresh machine: %s", vx_sim_errmsg(t));
    ok(vx_sim_state_encode(t, &b, &lb) == VX_OK && la == lb && !memcmp(a, b, la),
       "re-encoding gives identical bytes");
    free(b);
    /* memory is not in the state: copy the pages the program wrote, then both finish alike */
    uint8_t page[VX_PAGE_SIZE];
    for (uint32_t addr = 0; addr < 0x2000; addr += VX_PAGE_SIZE) {
        vx_sim_mem_read(s, 0, ST_DATA + addr, page, VX_PAGE_SIZE);
        vx_sim_put_page(t, 0, ST_DATA + addr, page);
    }
    st_go(s, NULL);
    st_go(t, NULL);
    ok(state_digest(s) == state_digest(t), "decoded machine continues identically");

    /* errors leave the machine untouched */
    uint64_t before = state_digest(t);
    uint8_t *bad = malloc(la + 1);
    memcpy(bad, a, la);
    bad[0] = 'X';
    ok(vx_sim_state_decode(t, bad, la) == VX_ERR_FORMAT, "bad magic: FORMAT");
    memcpy(bad, a, la);
    ok(vx_sim_state_decode(t, bad, la - 1) == VX_ERR_CORRUPT, "truncated: CORRUPT (%s)",
       vx_sim_errmsg(t));
    ok(vx_sim_state_decode(t, bad, 30) == VX_ERR_CORRUPT, "very truncated: CORRUPT");
    bad[la] = 0;
    ok(vx_sim_state_decode(t, bad, la + 1) == VX_ERR_CORRUPT, "trailing bytes: CORRUPT");
    vx_put_le32(bad + 4, 99);
    ok(vx_sim_state_decode(t, bad, la) == VX_ERR_VERSION, "unknown version: VERSION");
    memcpy(bad, a, la);
    vx_put_le32(bad + 16, 8); /* warps */
    ok(vx_sim_state_decode(t, bad, la) == VX_ERR_CONFIG, "other shape: CONFIG (%s)",
       vx_sim_errmsg(t));
    memcpy(bad, a, la);
    vx_put_le32(bad + 48, 9); /* core_pos beyond the cores */
    ok(vx_sim_state_decode(t, bad, la) == VX_ERR_CORRUPT, "invalid field: CORRUPT (%s)",
       vx_sim_errmsg(t));
    memcpy(bad, a, la);
    bad[98] = 96; /* the fault reason's length (sim/STATE.md 2: 0..95) */
    ok(vx_sim_state_decode(t, bad, la) == VX_ERR_CORRUPT &&
           strstr(vx_sim_errmsg(t), "fault reason has 96 bytes (at most 95)"),
       "a fault reason of 96 bytes: CORRUPT, said so (%s)", vx_sim_errmsg(t));
    ok(state_digest(t) == before, "failed decodes changed nothing");
    /* fuzz: flip bytes, decode must never crash (result may be OK or an error) */
    uint32_t seed = 1;
    for (int i = 0; i < 300; i++) {
        memcpy(bad, a, la);
        seed = seed * 1103515245u + 12345u;
        bad[(seed >> 8) % la] ^= (uint8_t)(1u << (seed % 8));
        vx_sim *f = workload();
        vx_sim_state_decode(f, bad, la);
        vx_sim_run(f, 2000, &st);
        vx_sim_free(f);
    }
    ok(1, "300 corrupted states decoded and run without crashing");
    free(bad);
    free(a);
    vx_sim_free(s);
    vx_sim_free(t);
}

/*
 * Corrupt machine states that only the decoder sees (from a coverage review):
 * a console slot over the 4096-byte line limit, a Debug Module block of the
 * wrong length (STATE.md section 7).  The state holds the pending console line
 * "ABC" in slot 0, stored as its length and bytes; the DM block (length 52 for
 * one window) ends the encoding.
 */
static void test_corrupt_states(void)
{
    vx_sim *s = st_warp(1, 0);
    st_setx_all(s, 0, 5, 'A');
    st_setx_all(s, 0, 6, 'B');
    st_setx_all(s, 0, 7, 'C');
    ST_CODE_ARR(s, SB(5, 0x40, 0), SB(6, 0x40, 0), SB(7, 0x40, 0), EBREAK());
    vx_stop st;
    vx_sim_run(s, 3, &st);
    uint8_t *a = NULL;
    size_t la = 0, at = 0;
    if (vx_sim_state_encode(s, &a, &la) != VX_OK) tap_bail("state encode failed");
    for (size_t i = 0; i + 7 <= la; i++)
        if (!memcmp(a + i, "\x03\0\0\0ABC", 7)) at = i;
    ok(at != 0, "(the console slot holding \"ABC\" is at byte %zu)", at);

    /* the slot rewritten with n bytes of 'y' */
    uint8_t *b = calloc(1, la + 5000);
    static const uint32_t sizes[] = {4096, 5000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint32_t n = sizes[i];
        memcpy(b, a, at);
        vx_put_le32(b + at, n);
        memset(b + at + 4, 'y', n);
        memcpy(b + at + 4 + n, a + at + 7, la - at - 7);
        vx_err e = vx_sim_state_decode(s, b, la - 3 + n);
        if (n == 4096) {
            char pend[8];
            size_t pn = vx_sim_console_pending(s, 0, pend, sizeof pend);
            ok(e == VX_OK && pn == 4096 && !strcmp(pend, "yyyyyyy"),
               "a console slot of exactly 4096 bytes is accepted and restored (%zu pending)", pn);
        } else {
            ok(e == VX_ERR_CORRUPT && strstr(vx_sim_errmsg(s), "console slot 0 holds 5000 bytes"),
               "a console slot of 5000 bytes: CORRUPT (%s)", vx_sim_errmsg(s));
        }
    }

    is_u32(vx_get_le32(a + la - 56), 52, "(the DM block's length 52 ends the state)");
    memcpy(b, a, la - 4);
    vx_put_le32(b + la - 56, 48);
    ok(vx_sim_state_decode(s, b, la - 4) == VX_ERR_CORRUPT &&
           strstr(vx_sim_errmsg(s), "Debug Module state of 48 bytes, expected 52"),
       "a DM block of 48 bytes: CORRUPT (%s)", vx_sim_errmsg(s));
    vx_put_le32(b + la - 56, 0);
    ok(vx_sim_state_decode(s, b, la - 52) == VX_OK, "a DM block of length 0 is accepted");
    free(b);
    free(a);
    vx_sim_free(s);
}

/* ---- replay through vx_sim_issue ---- */

static void test_issue_replay(void)
{
    evlog a, b;
    evlog_init(&a, 4);
    evlog_init(&b, 4);
    a.keep_sched = true;
    vx_sim *s = workload();
    vx_sim_set_observer(s, on_event, &a, 0);
    st_go(s, NULL);
    vx_sim *t = workload();
    vx_sim_set_observer(t, on_event, &b, 0);
    vx_stop st;
    int errs = 0;
    for (size_t i = 0; i < a.nsched; i++)
        if (vx_sim_issue(t, a.core[i], a.warp[i], a.cycle[i], &st)) errs++;
    ok(errs == 0 && st.reason == VX_STOP_EXIT && b.h == a.h,
       "replaying the schedule with vx_sim_issue reproduces the event stream");
    ok(vx_sim_issue(t, 0, 0, 0, &st) == VX_ERR_STATE, "issue after the end is refused");
    vx_sim_free(t);
    t = workload();
    ok(vx_sim_issue(t, 0, 1, 0, &st) == VX_ERR_STATE, "issuing an inactive warp is refused: %s",
       vx_sim_errmsg(t));
    vx_sim_issue(t, 0, 0, 5, &st);
    ok(vx_sim_issue(t, 0, 0, 3, &st) == VX_ERR_STATE, "a schedule going backwards is refused");
    vx_sim_free(t);
    vx_sim_free(s);
    evlog_free(&a);
    evlog_free(&b);
}

/* Errors of the API (from a coverage review): issue, reg_write, put_page. */
static void test_api_errors(void)
{
    vx_stop st;
    vx_sim *s = st_new(1, 2, 2, 4);
    ok(vx_sim_issue(s, 2, 0, 0, &st) == VX_ERR_RANGE &&
           vx_sim_issue(s, 0, 2, 0, &st) == VX_ERR_RANGE,
       "issue of core 2 or warp 2 in a 2x2 platform: RANGE (%s)", vx_sim_errmsg(s));
    vx_sim_halt(s, 0, VX_HACAUSE_HALTREQ);
    ok(vx_sim_issue(s, 0, 0, 0, &st) == VX_ERR_STATE && strstr(vx_sim_errmsg(s), "(halted)"),
       "issue of a halted warp: STATE (%s)", vx_sim_errmsg(s));
    ok(vx_sim_issue(s, 0, 1, 0, &st) == VX_ERR_STATE && strstr(vx_sim_errmsg(s), "(inactive)"),
       "issue of an inactive warp: STATE (%s)", vx_sim_errmsg(s));
    ok(vx_sim_reg_write(s, 0, 7, VX_RF_X, 1, 0) == VX_ERR_RANGE,
       "reg_write of lane 7 of 4: RANGE (%s)", vx_sim_errmsg(s));
    ok(vx_sim_reg_write(s, 0, 0, (vx_regfile)9, 1, 0) == VX_ERR_RANGE,
       "reg_write of register file 9: RANGE (%s)", vx_sim_errmsg(s));
    vx_sim_free(s);

    /* warp 0 waits at barrier 0 (count 2) for warp 1 */
    s = st_new(1, 1, 2, 1);
    ST_CODE_ARR(s, ADDI(5, 0, 0), ADDI(6, 0, 2), VX_BAR(5, 6));
    vx_sim_set_tmask(s, 1, 1);
    int errs = 0;
    for (uint64_t c = 0; c < 3; c++)
        errs += vx_sim_issue(s, 0, 0, c, &st) != VX_OK;
    vx_warp_info wi;
    vx_sim_warp_info(s, 0, &wi);
    ok(!errs && wi.stalled && wi.at_barrier, "(warp 0 stalled at the barrier)");
    ok(vx_sim_issue(s, 0, 0, 3, &st) == VX_ERR_STATE && strstr(vx_sim_errmsg(s), "(stalled)"),
       "issue of a stalled warp: STATE (%s)", vx_sim_errmsg(s));
    vx_sim_free(s);

    vx_sim_config c = VX_SIM_CONFIG_INIT;
    c.mem_limit = 2 * VX_PAGE_SIZE;
    if (vx_sim_new(&c, &s) != VX_OK) tap_bail("vx_sim_new failed");
    uint8_t page[VX_PAGE_SIZE];
    memset(page, 0xab, sizeof page);
    ok(vx_sim_put_page(s, 0, ST_DATA, page) == VX_OK &&
           vx_sim_put_page(s, 0, ST_DATA + VX_PAGE_SIZE, page) == VX_OK,
       "put_page: two pages within a limit of two");
    ok(vx_sim_put_page(s, 0, ST_DATA + 2 * VX_PAGE_SIZE, page) == VX_ERR_MEMORY,
       "put_page of a third: MEMORY (%s)", vx_sim_errmsg(s));
    memset(page, 0, sizeof page);
    uint32_t v = 1;
    ok(vx_sim_put_page(s, 1, VX_LMEM_BASE_ADDR + 0x1000, page) == VX_OK &&
           vx_sim_mem_read(s, 0, VX_LMEM_BASE_ADDR + 0x1000, &v, 4) == VX_OK && v == 0,
       "put_page of a zero local-memory page with none held: accepted, reads 0");
    vx_sim_free(s);
}

/* ---- debug primitives ---- */

static void test_debug(void)
{
    static capture c;
    vx_stop st;
    vx_sim *s = st_warp(4, 0);
    ST_CODE_ARR(s, ADDI(3, 0, 1), ADDI(4, 0, 2), ADDI(5, 0, 3), SW(4, 0x100, 0));
    ok(vx_sim_halt(s, 0, VX_HACAUSE_HALTREQ) == VX_OK, "halt");
    ok(st_go(s, &st) == VX_STOP_IDLE && vx_sim_index(s) == 0, "halted warp does not issue: IDLE");
    memset(&c, 0, sizeof c);
    vx_sim_set_observer(s, on_capture, &c, 0);
    ok(vx_sim_step_warp(s, 0, &st) == VX_OK && st.reason == VX_STOP_HALT && st.gwarp == 0,
       "step one instruction");
    vx_warp_info wi;
    vx_sim_warp_info(s, 0, &wi);
    ok(wi.halted && wi.hacause == VX_HACAUSE_STEP && wi.pc == ST_CODE + 4 && st_x(s, 0, 0, 3) == 1,
       "after the step: still halted, cause STEP, pc advanced");
    ok(c.n == 1 && (c.ev[0].flags & VX_EVF_STEP) && c.ev[0].index == 0,
       "the step is an issue with VX_EVF_STEP");

    /* inject: executes in one lane, pc and mask unchanged */
    memset(&c, 0, sizeof c);
    ok(vx_sim_inject(s, 0, 2, ADDI(6, 0, 9), &st) == VX_OK && st.reason == VX_STOP_NONE,
       "inject addi into lane 2");
    vx_sim_warp_info(s, 0, &wi);
    ok(st_x(s, 0, 2, 6) == 9 && st_x(s, 0, 1, 6) == 0 && wi.pc == ST_CODE + 4 && wi.tmask == 0xf,
       "only lane 2 changed; pc and mask unchanged");
    ok(c.n == 1 && (c.ev[0].flags & VX_EVF_INJECTED) && c.ev[0].tmask == 0x4 &&
           c.ev[0].index == 1 && c.ev[0].insn == ADDI(6, 0, 9),
       "injection is an issue with VX_EVF_INJECTED and the next index");
    /* inject a CSR write (dscratch) and a load */
    vx_sim_inject(s, 0, 1, CSRRW(0, 0x7B2, 6), &st);
    st_w32(s, ST_DATA, 0x5151);
    st_setx(s, 0, 3, 7, ST_DATA);
    vx_sim_inject(s, 0, 3, LW(8, 0, 7), &st);
    ok(st_csr(s, 0, 1, 0x7B2) == 0 && st_x(s, 0, 3, 8) == 0x5151, "inject csrrw and lw");

    /* rejected classes */
    const struct {
        uint32_t insn;
        const char *what;
    } rej[] = {{BEQ(0, 0, 8), "branch"}, {JAL(1, 8), "jal"}, {JALR(1, 1, 0), "jalr"},
               {AUIPC(1, 1), "auipc"},   {ECALL(), "ecall"}, {EBREAK(), "ebreak"},
               {MRET(), "mret"},         {VX_TMC(0), "tmc"}, {VX_VOTE_ALL(1, 2), "vote"}};

    int nrej = 0;
    uint64_t idx = vx_sim_index(s);
    for (size_t i = 0; i < sizeof rej / sizeof rej[0]; i++)
        if (vx_sim_inject(s, 0, 0, rej[i].insn, &st) == VX_ERR_REJECT &&
            strstr(vx_sim_errmsg(s), "cannot inject"))
            nrej++;
        else
            diag("%s was not rejected", rej[i].what);
    ok(nrej == 9 && vx_sim_index(s) == idx,
       "control transfers, auipc, system and custom-0 rejected");
    /* a memory fault in an injection does not end the kernel */
    st_setx(s, 0, 0, 7, 0x10);
    ok(vx_sim_inject(s, 0, 0, LW(8, 0, 7), &st) == VX_OK && st.reason == VX_STOP_FAULT &&
           st.fault.kind == VX_FAULT_UNMAPPED && !vx_sim_finished(s),
       "faulting injection reports the fault but the kernel goes on");
    ok(vx_sim_inject(s, 0, 9, NOP(), &st) == VX_ERR_RANGE,
       "inject into a lane that does not exist");

    /* set_pc on a halted warp, resume, run to the end */
    vx_sim_set_pc(s, 0, ST_CODE + 8);
    ok(vx_sim_step_warp(s, 0, &st) == VX_OK && st_x(s, 0, 0, 5) == 3, "set_pc then step");
    ok(vx_sim_resume(s, 0) == VX_OK && st_go(s, &st) == VX_STOP_EXIT && st_x(s, 0, 0, 4) == 0 &&
           st_r32(s, 0, 0x100) == 0,
       "resume runs to the end (the skipped addi x4 never ran)");
    ok(vx_sim_step_warp(s, 0, &st) == VX_ERR_STATE, "cannot step after the end");

    /* reset: registers zero, pc = start, only warp 0 lane 0 */
    vx_sim_reset(s);
    vx_sim_warp_info(s, 0, &wi);
    ok(!vx_sim_finished(s) && wi.active && wi.tmask == 1 && wi.pc == ST_CODE &&
           st_x(s, 0, 2, 6) == 0 && st_csr(s, 0, 0, 0x001) == 0,
       "reset: registers zero, warp 0 lane 0 at the start pc");
    ok(st_r32(s, 0, ST_CODE) == ADDI(3, 0, 1), "reset keeps memory");
    ok(vx_sim_step_warp(s, 0, &st) == VX_ERR_STATE, "cannot step a running warp");
    vx_sim_free(s);

    /* a stalled (barrier) warp cannot step */
    s = st_new(1, 1, 2, 1);
    uint32_t e[] = {VX_TMC(0)};
    st_code_at(s, ST_CODE + 0x100, e, 1);
    st_setx(s, 0, 0, 5, 2);
    st_setx(s, 0, 0, 6, ST_CODE + 0x100);
    st_setx(s, 0, 0, 7, 1);
    ST_CODE_ARR(s, VX_WSPAWN(5, 6), VX_WSPAWN(7, 0));
    vx_sim_halt(s, 1, VX_HACAUSE_HALTREQ);
    st_go(s, &st);
    vx_sim_warp_info(s, 0, &wi);
    ok(st.reason == VX_STOP_IDLE && wi.spawn_wait, "a join waiting for a halted warp just waits");
    vx_sim_halt(s, 0, VX_HACAUSE_HALTREQ);
    ok(vx_sim_step_warp(s, 0, &st) == VX_ERR_STATE, "a stalled warp cannot step");
    vx_sim_resume(s, 0);
    vx_sim_resume(s, 1);
    ok(st_go(s, &st) == VX_STOP_EXIT, "resumed, the kernel finishes");
    vx_sim_free(s);

    /* code patched in memory after it ran (a debugger's breakpoint) is what runs next:
     * the decoded-instruction cache re-reads the word (mutation review) */
    s = st_warp(1, 0);
    ST_CODE_ARR(s, ADDI(3, 3, 1));
    ok(vx_sim_run(s, 1, &st) == VX_OK && st.reason == VX_STOP_NONE && st_x(s, 0, 0, 3) == 1,
       "addi x3, x3, 1 ran once");
    st_w32(s, ST_CODE, ADDI(3, 3, 100));
    vx_sim_set_pc(s, 0, ST_CODE);
    ok(st_go(s, &st) == VX_STOP_EXIT && st_x(s, 0, 0, 3) == 101,
       "the patched word runs, not the decode cached for its pc");
    vx_sim_free(s);

    /* a faulting injection after the kernel ended with a fault leaves the kernel's
     * fault (mutation review: the injected fault replaced it) */
    s = st_warp(1, 0);
    st_setx(s, 0, 0, 1, 0x10);
    ST_CODE_ARR(s, LW(2, 0, 1));
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_UNMAPPED,
       "the kernel ends with an unmapped load");
    st_setx(s, 0, 0, 1, ST_DATA + 1);
    ok(vx_sim_inject(s, 0, 0, LW(2, 0, 1), &st) == VX_OK && st.reason == VX_STOP_FAULT &&
           st.fault.kind == VX_FAULT_MISALIGNED,
       "an injected misaligned load reports its own fault");
    ok(st_go(s, &st) == VX_STOP_FAULT && st.fault.kind == VX_FAULT_UNMAPPED &&
           st.fault.addr == 0x10 && st.fault.pc == ST_CODE,
       "the ended kernel still reports its own fault");
    vx_sim_free(s);
}

/* ---- dirty pages ---- */

typedef struct pages {
    uint32_t n, space[8], addr[8];
    uint8_t first0;
} pages;

static void on_page(void *ctx, uint32_t space, uint32_t addr, const uint8_t *page)
{
    pages *p = ctx;
    if (p->n < 8) {
        p->space[p->n] = space;
        p->addr[p->n] = addr;
        if (p->n == 0) p->first0 = page[0];
    }
    p->n++;
}

static void test_pages(void)
{
    vx_sim *s = st_new(1, 2, 1, 1);
    ST_CODE_ARR(s, ADDI(3, 0, 0x5a), SW(3, 0x700, 10), LUI(4, 0xffff0), SW(3, 0x10, 4));
    st_setx(s, 0, 0, 10, ST_DATA + 0x3000);
    st_setx(s, 1, 0, 10, ST_DATA + 0x3000);
    vx_sim_clear_dirty(s);
    pages p = {0};
    vx_sim_visit_pages(s, false, on_page, &p);
    ok(p.n == 0, "no dirty pages after clear");
    vx_sim_set_tmask(s, 1, 1);
    vx_stop st;
    st_go(s, &st);
    memset(&p, 0, sizeof p);
    vx_sim_visit_pages(s, false, on_page, &p);
    ok(p.n == 3 && p.space[0] == 0 && p.addr[0] == ST_DATA + 0x3000 && p.space[1] == 1 &&
           p.addr[1] == VX_LMEM_BASE_ADDR && p.space[2] == 2,
       "dirty: the written global page and each core's local page (%u)", p.n);
    memset(&p, 0, sizeof p);
    vx_sim_visit_pages(s, true, on_page, &p);
    ok(p.n == 4 && p.addr[0] == ST_DATA + 0x3000, "all pages: code, data, two local pages (%u)",
       p.n);

    uint8_t page[VX_PAGE_SIZE];
    memset(page, 0x33, sizeof page);
    vx_sim *t = st_new(1, 2, 1, 1);
    ok(vx_sim_put_page(t, 0, ST_DATA, page) == VX_OK && st_r32(t, 0, ST_DATA + 8) == 0x33333333,
       "put_page global");
    ok(vx_sim_put_page(t, 2, VX_LMEM_BASE_ADDR + 0x1000, page) == VX_OK &&
           st_r32(t, 1, VX_LMEM_BASE_ADDR + 0x1000) == 0x33333333 &&
           st_r32(t, 0, VX_LMEM_BASE_ADDR + 0x1000) == 0,
       "put_page into core 1's local memory");
    ok(vx_sim_put_page(t, 0, ST_DATA + 4, page) == VX_ERR_INVAL &&
           vx_sim_put_page(t, 3, VX_LMEM_BASE_ADDR, page) == VX_ERR_RANGE &&
           vx_sim_put_page(t, 0, VX_LMEM_BASE_ADDR, page) == VX_ERR_RANGE,
       "put_page rejects misaligned, bad space, wrong region");
    memset(page, 0, sizeof page);
    vx_sim_put_page(t, 0, ST_DATA, page);
    is_u32(st_r32(t, 0, ST_DATA + 8), 0, "a zero page clears");
    vx_sim_free(t);
    vx_sim_free(s);
}

/* ---- configuration and memory API ---- */

static void test_config(void)
{
    char msg[128];
    vx_sim_config c = VX_SIM_CONFIG_INIT;
    ok(vx_sim_config_check(&c, msg, sizeof msg) == VX_OK, "default config is valid");
    c.threads = 3;
    ok(vx_sim_config_check(&c, msg, sizeof msg) == VX_ERR_CONFIG && strstr(msg, "power of two"),
       "threads must be a power of two: %s", msg);
    c.threads = 256;
    ok(vx_sim_config_check(&c, msg, sizeof msg) == VX_ERR_CONFIG, "threads <= 128");
    c.threads = 4;
    c.clusters = 127;
    c.cores = 511;
    c.warps = 2;
    ok(vx_sim_config_check(&c, msg, sizeof msg) == VX_ERR_CONFIG && strstr(msg, "32768"),
       "total warps <= 32768: %s", msg);
    c.clusters = 0;
    ok(vx_sim_config_check(&c, msg, sizeof msg) == VX_ERR_CONFIG, "clusters >= 1");
    vx_sim *s = NULL;
    ok(vx_sim_new(&c, &s) == VX_ERR_CONFIG && s == NULL, "vx_sim_new refuses a bad config");
    vx_sim_free(NULL);
    ok(1, "vx_sim_free(NULL) is a no-op");

    s = st_new(2, 3, 4, 8);
    ok(vx_sim_num_cores(s) == 6 && vx_sim_num_warps(s) == 24, "6 cores, 24 warps");
    uint8_t b[8];
    ok(vx_sim_mem_read(s, 0, 0x10, b, 4) == VX_ERR_RANGE, "null guard is not readable");
    ok(vx_sim_mem_read(s, 0, 0x40, b, 8) == VX_OK && b[0] == 0, "console window reads zero");
    ok(vx_sim_mem_write(s, 0, 0x40, b, 1) == VX_ERR_RANGE, "console window is not writable");
    ok(vx_sim_mem_read(s, 9, 0x1000, b, 4) == VX_ERR_RANGE, "no core 9");
    ok(vx_sim_mem_write(s, 0, 0xfffffffc, b, 8) == VX_ERR_RANGE, "wrap-around write refused");
    ok(vx_sim_mem_write(s, 0, 0x7e, "xyzw", 4) == VX_ERR_RANGE, "write crossing into IO refused");
    ok(vx_sim_mem_write(s, 0, 0xFFFEFFFE, "xyzw", 4) == VX_OK &&
           vx_sim_mem_read(s, 0, 0xFFFEFFFE, b, 4) == VX_OK && !memcmp(b, "xyzw", 4),
       "an access straddling global and local memory is split");
    uint32_t v;
    ok(vx_sim_reg_read(s, 0, 0, VX_RF_X, 32, &v) == VX_ERR_RANGE &&
           vx_sim_reg_read(s, 24, 0, VX_RF_X, 1, &v) == VX_ERR_RANGE &&
           vx_sim_reg_read(s, 0, 8, VX_RF_X, 1, &v) == VX_ERR_RANGE &&
           vx_sim_reg_read(s, 0, 0, VX_RF_CSR, 0x123, &v) == VX_ERR_RANGE,
       "register reads check warp, lane, register");
    ok(vx_sim_reg_write(s, 0, 0, VX_RF_CSR, 0xCC0, 1) == VX_ERR_STATE,
       "writing a read-only CSR: STATE");
    ok(vx_sim_reg_write(s, 0, 0, VX_RF_X, 0, 5) == VX_OK &&
           vx_sim_reg_read(s, 0, 0, VX_RF_X, 0, &v) == VX_OK && v == 0,
       "x0 stays zero");
    ok(vx_sim_set_tmask(s, 0, 0) == VX_ERR_INVAL, "empty thread mask refused");
    vx_sim_free(s);
}

/* ---- every fault kind carries a reason and its signal ---- */

static void test_fault_reasons(void)
{
    const struct {
        uint8_t kind, signal;
        uint32_t code[3];
        uint32_t x5;
        const char *word;
    } f[] = {
        {VX_FAULT_ILLEGAL, 4, {0xffffffffu}, 0, "illegal"},
        {VX_FAULT_CSR, 4, {CSRRS(1, 0x7C0, 0)}, 0, "CSR"},
        {VX_FAULT_MISALIGNED, 7, {LW(1, 2, 5)}, ST_DATA, "misaligned"},
        {VX_FAULT_UNMAPPED, 11, {LW(1, 0, 5)}, 0x4, "unmapped"},
        {VX_FAULT_IPDOM_UNDERFLOW, 6, {VX_JOIN(5)}, 3, "IPDOM"},
        {VX_FAULT_BARRIER, 6, {ADDI(6, 0, 2), VX_BAR(5, 6)}, 7, "barrier"},
        {VX_FAULT_WSPAWN, 6, {ADDI(6, 0, 2), VX_WSPAWN(6, 5)}, ST_CODE + 1, "wspawn"},
        {VX_FAULT_ECALL, 12, {ECALL()}, 0, "ecall"},
        {VX_FAULT_EBREAK, 5, {EBREAK()}, 0, "ebreak"},
        {VX_FAULT_CONSOLE, 7, {SW(0, 0, 5)}, 0x44, "console"},
        {VX_FAULT_DEADLOCK, 6, {ADDI(6, 0, 2), VX_BAR(0, 6)}, 0, "deadlock"},
    };

    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        vx_sim *s = st_new(1, 1, 2, 2);
        uint32_t n = 0;
        while (n < 3 && f[i].code[n])
            n++;
        st_code(s, f[i].code, n);
        st_setx_all(s, 0, 5, f[i].x5);
        vx_stop st;
        st_go(s, &st);
        ok(st.reason == VX_STOP_FAULT && st.fault.kind == f[i].kind &&
               st.fault.signal == f[i].signal && strstr(st.fault.reason, f[i].word) != NULL,
           "fault kind %u: signal %u, reason '%s'", f[i].kind, st.fault.signal, st.fault.reason);
        vx_stop again;
        st_go(s, &again);
        ok(again.reason == VX_STOP_FAULT && again.fault.kind == f[i].kind && again.issued == 0,
           "  the machine stays frozen at the fault");
        vx_sim_free(s);
    }
}

int main(void)
{
    test_determinism();
    test_snapshots();
    test_observer();
    test_state_encoding();
    test_corrupt_states();
    test_issue_replay();
    test_api_errors();
    test_debug();
    test_pages();
    test_config();
    test_fault_reasons();
    tap_done();
    return tap_exit();
}
