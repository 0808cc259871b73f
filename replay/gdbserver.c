/*
 * gdbserver.c - GDB remote protocol packets for vxreplay (see gdbserver.h).
 *
 * Packets are matched against static tables in the style of QEMU's gdbstub: each
 * entry names the packet, says whether the name is the whole packet or a prefix,
 * and gives a small schema for its arguments, so handlers receive parsed values
 * and never scan strings themselves.  Anything unknown gets the empty reply,
 * which GDB reads as "not supported".
 *
 * What GDB expects of a reverse-capable stub was verified against GDB 13.1
 * (research notes §2): `bs`/`bc` for every reverse command, RISC-V watchpoints
 * reported before the access forward and after it backward, `replaylog:begin` /
 * `replaylog:end` at the edges of history (never `W`), and expedited registers
 * in stop replies so that a stop costs one round trip.
 *
 * Threads: a GDB thread per (warp, lane), id 1 + gwarp * threads + lane
 * (VxDebug's numbering), or with --thread-per-warp one per warp, id 1 + gwarp.
 * A thread is listed while its warp is active at the current position; the
 * thread of the last stop is always listed so that GDB keeps a current thread
 * at the end of history, when every warp has finished, and so are the warps with
 * a thread-specific breakpoint (monitor thread-breaks), which GDB would delete.
 * Once listed, a warp's threads stay listed for the rest of the session, finished
 * or not started yet at a later position: GDB numbers threads in the order it
 * meets them, and a thread it deleted came back under a new number (an IDE's
 * thread view lost its selection, `thread N` meant another lane).  Stepping a thread
 * steps its whole warp: the lanes of a warp share one PC.
 */
#include "gdbserver.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "agentx.h"
#include "cli.h"
#include "rsp.h"
#include "target_xml.h"
#include "vis.h"

#define PACKET_SIZE 0x10000u /* advertised PacketSize (hex in qSupported) */

/* GDB signal numbers used in stop replies */
#define SIG_INT  2u
#define SIG_TRAP 5u
#define SIG_ABRT 6u
#define NO_POS   UINT64_MAX /* no position */

/*
 * A breakpoint GDB inserted (Z0/Z1), with the conditions it asked the target to
 * evaluate (ConditionalBreakpoints: agent expressions, any true one stops).
 * Z packets are idempotent: inserting one again replaces its conditions.
 */
/* A thread-specific breakpoint location of GDB's (monitor thread-breaks). */
/* A position in the list of live threads (warp, then lane). */
typedef struct thread_cursor {
    uint32_t gw, lane;
} thread_cursor;

typedef struct tbreak {
    uint32_t gw, lane, addr;
} tbreak;

typedef struct zpoint {
    uint32_t addr;
    uint8_t type;
    unsigned ncond;
    uint8_t *code; /* the conditions' bytecode, one after the other */
    size_t *lens;  /* their lengths */
} zpoint;

/*
 * A watchpoint GDB inserted (Z2/Z3/Z4), with the core whose local memory it watches
 * when its address is there.  A z packet finds it without a thread (none is named),
 * so it is removed whichever thread is current.  GDB removes a watchpoint to step
 * over the access that fired it and inserts it again at the next resume, with
 * whichever thread is selected then; so the core sticks to the watchpoint (its
 * type, address and length): the one vxrr.gdb named when GDB made it (`monitor
 * watch-core`), else the one it had when last removed, else (the first insertion)
 * the selected thread's core.
 */
typedef struct wzpoint {
    uint8_t type;
    uint32_t addr, len, core;
} wzpoint;

/* A list of watchpoints (inserted, removed, or named by vxrr.gdb). */
typedef struct wzlist {
    wzpoint *v;
    size_t n, cap;
} wzlist;

struct vx_gdbserver {
    /* the input bytes after the one being parsed (vx_gdbserver_input): a 0x03 that
     * arrived with the packet that started a motion interrupts it */
    const uint8_t *rest;
    size_t nrest;
    vx_engine *e;
    const vx_sim_config *cfg;
    uint32_t nwarps, threads, warps_per_core;
    vx_gdbserver_opts opts;
    vx_regmap map;
    char *xml;
    size_t xml_len;

    /* session */
    vx_rsp *rsp;
    vx_gdb_io io;
    bool over;       /* k / D / vKill received */
    bool swbreak_ok; /* GDB offered swbreak+ */
    bool hwbreak_ok;
    int64_t g_tid;  /* Hg: 0 any, -1 all, else a thread id */
    int64_t g_pick; /* the last specific Hg since the last stop, 0 if none */
    /* GDB lists the threads at a stop, then again for `info threads` / MI's -thread-info,
     * which reads every thread it has no registers of (an Hg each): such a sweep's Hg
     * is no thread choice (note_hg) */
    unsigned lists_since_stop; /* up to 2 (2: a listing other than the stop's own came) */
    int64_t c_tid;             /* Hc */
    int64_t user_pick;         /* the thread selected when the user last continued (monitor pick,
                          from vxrr.gdb's hooks), until that continue ends; 0 if none */
    uint8_t *listed;           /* per warp: its threads were listed to this session's GDB */
    long long motion_t0, motion_noted; /* when the motion began, and its last progress note (ms) */
    bool motion_backward;
    uint32_t focus_gw; /* thread of the last stop */
    uint32_t focus_lane;
    int32_t sel_lane; /* --thread-per-warp: lane shown for registers (-1: first active) */
    bool sel_exact;   /* and shown even masked off, at its own PC (monitor lane N exact) */
    vx_engine_stop last_stop;
    bool have_last_stop;
    bool last_stop_on_break; /* a step stop on an inserted breakpoint's address */
    bool break_removed;      /* GDB removed a breakpoint since the last stop (a step over?) */
    bool last_backward;      /* the motion of the last stop went backward */
    uint32_t removed_at;     /* the address of the last one removed */
    bool stop_sig0;          /* the next stop reply is T00: see run_motion */
    bool watch_by_other;     /* the last stop, a watchpoint's, named a thread that did not
                                make the access (the one GDB moved) */
    /* GDB's step over a breakpoint (z0 at the warp's pc, s or bs, Z0, c or bc) runs,
     * on one timeline, the issues other warps make before the warp's next one (or
     * undoes those since its previous one), their breakpoint hits too: the continue
     * that follows searches from where the step (or a chain of them) began
     * (over_from) when nothing moved since the step ended (at over_to). */
    bool over_valid, over_dir; /* over_dir: the step over went backward */
    uint64_t over_from, over_to;

    /* the warps stepped over in the chain, each with the issues its steps ran or undid
     * (GDB steps one; LLDB steps every thread at a breakpoint before it resumes) */
    vx_engine_over *over_w; /* nwarps of them */

    size_t nover_w;
    /* a 0x03 that came while stopped: GDB was busy with a stop of its own (a condition
     * it evaluates, a step over) and resumes next; that resume stops at once */
    bool pending_int;
    bool swallow_int; /* the 0x03 behind the packet stopped its motion: not again */
    /* monitor stop-step: the next step moves nothing and reports a stop where the server
     * is (vxrr.gdb's way to give GDB, and an IDE, a real stop after a seek) */
    bool stop_armed;
    /* vCont;r: the step in progress goes on while the stepped thread's PC stays in
     * range_lo .. range_hi - 1 (GDB's step range of a source line) */
    bool range_on;
    uint32_t range_lo, range_hi;

    /* GDB's thread-specific breakpoints (vxrr.gdb's `monitor thread-breaks`): a warp
     * that stops at one of these addresses with the thread's lane active reports that
     * lane, whose breakpoint GDB then takes (one thread per lane) */
    tbreak *tb;
    size_t ntb;

    zpoint *zp; /* inserted breakpoints */
    size_t nzp, capzp;
    wzlist wz;     /* inserted watchpoints */
    wzlist wpark;  /* removed ones, with their cores (for GDB inserting them again) */
    wzlist wbound; /* the cores vxrr.gdb named for watchpoints GDB made */

    thread_cursor list; /* where qsThreadInfo goes on listing threads */
    /* for monitor stats: packets, thread lists sent (qfThreadInfo, or a
     * qXfer:threads:read at offset 0), register reads (g, p) */
    uint64_t n_packets, n_lists, n_regreads;
    /* qXfer:threads:read document, built at offset 0 */
    char *threads_xml;
    size_t threads_xml_len;

    /* reply builder */
    char *out;
    size_t out_len, out_cap;
    bool out_failed;
};

/* ---- reply builder -------------------------------------------------------------------------- */

static void out_reset(vx_gdbserver *s)
{
    s->out_len = 0;
    s->out_failed = false;
}

static bool out_reserve(vx_gdbserver *s, size_t more)
{
    if (s->out_len + more + 1 <= s->out_cap) return true;
    size_t ncap = (s->out_cap ? s->out_cap : 1024);
    while (ncap < s->out_len + more + 1)
        ncap *= 2;
    char *nb = realloc(s->out, ncap);
    if (!nb) {
        s->out_failed = true;
        return false;
    }
    s->out = nb;
    s->out_cap = ncap;
    return true;
}

static void out_add(vx_gdbserver *s, const void *data, size_t n)
{
    if (!out_reserve(s, n)) return;
    memcpy(s->out + s->out_len, data, n);
    s->out_len += n;
    s->out[s->out_len] = 0;
}

static void out_str(vx_gdbserver *s, const char *str)
{
    out_add(s, str, strlen(str));
}

static void out_printf(vx_gdbserver *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void out_printf(vx_gdbserver *s, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k < 0) return;
    if ((size_t)k < sizeof tmp) {
        out_add(s, tmp, (size_t)k);
        return;
    }
    if (!out_reserve(s, (size_t)k)) return;
    va_start(ap, fmt);
    vsnprintf(s->out + s->out_len, (size_t)k + 1, fmt, ap);
    va_end(ap);
    s->out_len += (size_t)k;
}

static void out_hex(vx_gdbserver *s, const void *data, size_t n)
{
    if (!out_reserve(s, 2 * n)) return;
    vx_rsp_hex_encode(s->out + s->out_len, s->out_cap - s->out_len, data, n);
    s->out_len += 2 * n;
    s->out[s->out_len] = 0;
}

/* A 32-bit register in target byte order (little-endian) */
static void out_reg32(vx_gdbserver *s, uint32_t v)
{
    uint8_t b[4];
    vx_put_le32(b, v);
    out_hex(s, b, 4);
}

/* --debug-packets: a packet's first 200 bytes on one line, a byte that is not printable
 * ASCII (binary data of x and X packets, a newline) as \xNN, "..." after a longer one. */
static void log_packet(vx_gdbserver *s, const char *dir, const char *data, size_t len)
{
    if (!s->opts.debug || !s->opts.log) return;
    fprintf(s->opts.log, "vxreplay: %s ", dir);
    const size_t n = len > 200 ? 200 : len;
    for (size_t i = 0; i < n; i++) {
        const unsigned char c = (unsigned char)data[i];
        if (c >= 0x20 && c < 0x7f && c != '\\')
            fputc(c, s->opts.log);
        else
            fprintf(s->opts.log, "\\x%02x", c);
    }
    fprintf(s->opts.log, "%s\n", len > n ? "..." : "");
}

static void out_send(vx_gdbserver *s)
{
    if (s->out_failed) {
        vx_rsp_send_str(s->rsp, "E0c"); /* ENOMEM */
        return;
    }
    log_packet(s, "<-", s->out, s->out_len);
    vx_rsp_send(s->rsp, s->out ? s->out : "", s->out_len);
}

static void reply(vx_gdbserver *s, const char *str)
{
    out_reset(s);
    out_str(s, str);
    out_send(s);
}

/* Text for the GDB console: an 'O' packet (hex), sent before the real reply. */
static void console(vx_gdbserver *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void console(vx_gdbserver *s, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (k < 0) return;
    size_t n = (size_t)k < sizeof text ? (size_t)k : sizeof text - 1;
    char shown[4 * sizeof text];
    n = vx_vis(text, n, shown, sizeof shown, 1); /* (a fault reason from the trace) */
    out_reset(s);
    out_str(s, "O");
    out_hex(s, shown, n);
    out_send(s);
}

/* Longer console text (monitor output), split into O packets; control characters
 * other than newline and tab (the kernel's console output, names from the trace) as
 * \xNN (vis.h). */
static void console_text(vx_gdbserver *s, const char *text, size_t n)
{
    char shown[4 * 1000 + 1];
    while (n) {
        size_t k = n > 1000 ? 1000 : n;
        for (int back = 0; k < n && back < 3 && ((uint8_t)text[k] & 0xc0) == 0x80; back++)
            k--; /* (not inside a UTF-8 character: at most 3 bytes back) */
        const size_t m = vx_vis(text, k, shown, sizeof shown, 1);
        out_reset(s);
        out_str(s, "O");
        out_hex(s, shown, m);
        out_send(s);
        text += k;
        n -= k;
    }
}

/* ---- threads --------------------------------------------------------------------------------- */

uint64_t vx_gdbserver_tid(const vx_gdbserver *s, uint32_t gwarp, uint32_t lane)
{
    if (s->opts.thread_per_warp) return 1 + (uint64_t)gwarp;
    return 1 + (uint64_t)gwarp * s->threads + lane;
}

static const vx_sim *sim_of(const vx_gdbserver *s)
{
    return vx_engine_sim(s->e);
}

static bool warp_info(const vx_gdbserver *s, uint32_t gw, vx_warp_info *wi)
{
    return vx_sim_warp_info(sim_of(s), gw, wi) == VX_OK;
}

/* Is warp gw live here: active, the last stop's, or with a thread-specific breakpoint? */
static bool warp_live(const vx_gdbserver *s, uint32_t gw)
{
    vx_warp_info wi;
    if (gw == s->focus_gw) return true;
    if (warp_info(s, gw, &wi) && wi.active) return true;
    /* a warp with a thread-specific breakpoint stays listed while inactive: GDB would
     * delete the breakpoint with the thread (and GDB 13 crashes listing breakpoints
     * when the thread goes at the end of history) */
    for (size_t i = 0; i < s->ntb; i++)
        if (s->tb[i].gw == gw) return true;
    return false;
}

/* Are warp gw's threads listed: live, or listed to this session's GDB before? */
static bool warp_alive(const vx_gdbserver *s, uint32_t gw)
{
    return s->listed[gw] || warp_live(s, gw);
}

/* Decode a thread id into (warp, lane); false if it names no thread of the platform. */
static bool tid_decode(const vx_gdbserver *s, int64_t tid, uint32_t *gw, uint32_t *lane)
{
    if (tid <= 0) return false;
    uint64_t t = (uint64_t)tid - 1;
    if (s->opts.thread_per_warp) {
        if (t >= s->nwarps) return false;
        *gw = (uint32_t)t;
        *lane = 0;
        return true;
    }
    if (t >= (uint64_t)s->nwarps * s->threads) return false;
    *gw = (uint32_t)(t / s->threads);
    *lane = (uint32_t)(t % s->threads);
    return true;
}

/*
 * The lane whose registers a warp-thread shows (--thread-per-warp): the lane picked
 * (monitor lane N), else the focus lane for the warp of the last stop and the first
 * active lane for the others; but a lane masked off in the warp gives way to the
 * warp's first active lane, so that the registers GDB builds frames from (sp, ra,
 * fp, the arguments) go with the warp's PC: a masked-off lane's are those it waits
 * with, elsewhere, and `next`, `finish`, `bt` would follow them astray.  Only
 * `monitor lane N exact` (vx-print) shows lane N masked off, at its own PC.
 */
static uint32_t shown_lane(const vx_gdbserver *s, uint32_t gw)
{
    vx_warp_info wi;
    const bool live = warp_info(s, gw, &wi) && wi.tmask;
    uint32_t want;
    if (s->sel_lane >= 0 && (uint32_t)s->sel_lane < s->threads) {
        want = (uint32_t)s->sel_lane;
        if (s->sel_exact) return want;
    } else if (gw == s->focus_gw) {
        want = s->focus_lane;
    } else {
        return live ? vx_lanes_first(wi.tmask) : 0;
    }
    return live && !vx_lanes_test(wi.tmask, want) ? vx_lanes_first(wi.tmask) : want;
}

/* The thread a selection (Hg/Hc value) means: "any"/"all" is the current thread. */
static bool resolve(const vx_gdbserver *s, int64_t tid, uint32_t *gw, uint32_t *lane)
{
    if (tid <= 0) {
        *gw = s->focus_gw;
        *lane = s->focus_lane;
    } else if (!tid_decode(s, tid, gw, lane)) {
        return false;
    }
    if (s->opts.thread_per_warp) *lane = shown_lane(s, *gw);
    return true;
}

/* Pick a sensible current thread when there is no stop yet: the warp that issues next. */
static void default_focus(vx_gdbserver *s)
{
    vx_engine_issue is;
    s->focus_gw = 0;
    s->focus_lane = 0;
    if (vx_engine_next_issue(s->e, &is)) {
        s->focus_gw = is.gwarp;
        s->focus_lane = is.tmask ? vx_lanes_first(is.tmask) : 0;
        return;
    }
    for (uint32_t gw = 0; gw < s->nwarps; gw++) {
        vx_warp_info wi;
        if (warp_info(s, gw, &wi) && wi.active) {
            s->focus_gw = gw;
            s->focus_lane = wi.tmask ? vx_lanes_first(wi.tmask) : 0;
            return;
        }
    }
}

/*
 * After a jump in time (monitor seek / restart) GDB still has the thread it had
 * selected: keep it while its warp is live at the new position, else pick one.
 */
static void refocus(vx_gdbserver *s)
{
    vx_warp_info wi;
    if (warp_info(s, s->focus_gw, &wi) && wi.active) return;
    default_focus(s);
}

/* monitor seek / restart moved in time: the last stop no longer says where we are (no
 * step over of its breakpoint can follow), and a thread picked by Hg before is kept
 * only while its warp is live (as the selected thread is, by refocus). */
static void time_jumped(vx_gdbserver *s)
{
    s->have_last_stop = false;
    s->over_valid = false;
    s->sel_exact = false; /* (a lane shown for looking: not after a move, as after a resume) */
    s->lists_since_stop = 0;
    uint32_t gw, lane;
    vx_warp_info wi;
    if (s->g_pick > 0 &&
        !(tid_decode(s, s->g_pick, &gw, &lane) && warp_info(s, gw, &wi) && wi.active))
        s->g_pick = 0;
    refocus(s);
}

/* ---- registers ------------------------------------------------------------------------------ */

static bool read_reg(const vx_gdbserver *s, uint32_t gw, uint32_t lane, const vx_regdesc *r,
                     uint32_t *v)
{
    if (r->file == VX_REG_FILE_PC) {
        /* a masked-off lane stands where its registers were left; with one thread per
         * warp the thread is the warp, at the warp's PC (the lane shown is a view, an
         * active one but for monitor lane N exact) */
        if ((!s->opts.thread_per_warp || s->sel_exact) && vx_engine_lane_pc(s->e, gw, lane, v))
            return true;
        vx_warp_info wi;
        if (!warp_info(s, gw, &wi)) return false;
        *v = wi.pc;
        return true;
    }
    if (r->file == VX_RF_X && r->reg == 0) {
        *v = 0;
        return true;
    }
    return vx_sim_reg_read(sim_of(s), gw, lane, (vx_regfile)r->file, r->reg, v) == VX_OK;
}

/* The PC GDB sees for thread (gw, lane). */
static bool thread_pc(const vx_gdbserver *s, uint32_t gw, uint32_t lane, uint32_t *pc)
{
    const vx_regdesc *r = vx_regmap_find(&s->map, VX_REG_PC);
    return r && read_reg(s, gw, lane, r, pc);
}

static void out_reg(vx_gdbserver *s, uint32_t gw, uint32_t lane, const vx_regdesc *r)
{
    uint32_t v;
    if (read_reg(s, gw, lane, r, &v))
        out_reg32(s, v);
    else
        out_str(s, "xxxxxxxx"); /* unavailable */
}

/* ---- stop replies ----------------------------------------------------------------------------- */

/*
 * vx_fault.signal uses the Linux numbers; GDB's remote protocol numbers signals
 * with its own enum (gdb/signals.def), where 7 is SIGEMT and SIGBUS is 10.
 */
static unsigned gdb_signal(unsigned linux_sig)
{
    switch (linux_sig) {
    case 4: return 4;   /* SIGILL */
    case 5: return 5;   /* SIGTRAP */
    case 6: return 6;   /* SIGABRT */
    case 7: return 10;  /* SIGBUS */
    case 8: return 8;   /* SIGFPE */
    case 11: return 11; /* SIGSEGV */
    case 0: return SIG_TRAP;
    default: return linux_sig;
    }
}

static void send_stop(vx_gdbserver *s, const vx_engine_stop *st)
{
    s->lists_since_stop = 0;
    unsigned sig = SIG_TRAP;
    if (st->why == VX_WHY_FAULT) sig = gdb_signal(st->fault.signal);
    if (st->why == VX_WHY_INTERRUPT) sig = s->stop_sig0 ? 0 : SIG_INT;
    s->stop_sig0 = false;
    uint32_t gw = s->focus_gw, lane = s->focus_lane;
    if (s->opts.thread_per_warp) lane = shown_lane(s, gw);
    /* GDB takes the thread of a stop reply as the server's general thread from then on
     * (it sends no Hg for it), so the server does the same. */
    s->g_tid = (int64_t)vx_gdbserver_tid(s, gw, lane);
    out_reset(s);
    out_printf(s, "T%02xthread:%" PRIx64 ";", sig & 0xff, (uint64_t)s->g_tid);
    switch (st->why) {
    case VX_WHY_BREAK: {
        /* a Z0 breakpoint at the pc makes it a software one; else the Z1 there */
        vx_warp_info wi;
        bool sw = true;
        if (warp_info(s, gw, &wi)) {
            sw = false;
            for (size_t i = 0; i < s->nzp && !sw; i++)
                sw = s->zp[i].addr == wi.pc && s->zp[i].type == 0;
        }
        if (sw && s->swbreak_ok) out_str(s, "swbreak:;");
        if (!sw && s->hwbreak_ok) out_str(s, "hwbreak:;");
        break;
    }
    case VX_WHY_WATCH: {
        const char *k = st->watch_kind == VX_WATCH_READ     ? "rwatch"
                        : st->watch_kind == VX_WATCH_ACCESS ? "awatch"
                                                            : "watch";
        out_printf(s, "%s:%" PRIx32 ";", k, st->watch_addr);
        break;
    }
    case VX_WHY_BEGIN: out_str(s, "replaylog:begin;"); break;
    case VX_WHY_END: out_str(s, "replaylog:end;"); break;
    default: break;
    }
    /* Expedite pc, sp, fp and ra: GDB then needs no `g` to show the frame. */
    static const uint16_t expedite[] = {VX_REG_PC, 2, 8, 1};
    for (size_t i = 0; i < VX_ARRAY_SIZE(expedite); i++) {
        const vx_regdesc *r = vx_regmap_find(&s->map, expedite[i]);
        uint32_t v;
        if (r && read_reg(s, gw, lane, r, &v)) {
            out_printf(s, "%02x:", expedite[i]);
            out_reg32(s, v);
            out_str(s, ";");
        }
    }
    out_send(s);
}

static bool break_at(const vx_gdbserver *s, uint32_t addr);
static bool taken_out_at_pc(const vx_gdbserver *s, uint32_t gw);

static void remember_stop(vx_gdbserver *s, const vx_engine_stop *st)
{
    s->last_stop = *st;
    s->have_last_stop = true;
    s->break_removed = false;
    s->watch_by_other = false;
    s->g_pick = 0;
    /* a step that ends on a breakpoint: GDB may step over it next (stepping_over_break) */
    vx_warp_info wi;
    s->last_stop_on_break =
        st->why == VX_WHY_STEP && warp_info(s, st->gwarp, &wi) && break_at(s, wi.pc);
}

/* ---- argument parsing -------------------------------------------------------------------------- */

#define MAX_ARGS 4

typedef struct args {
    uint64_t v[MAX_ARGS]; /* numbers, in order */
    int64_t tid;          /* the 't' argument */
    const char *str;      /* the 's' argument (rest of the packet) */
    size_t slen;
    int n; /* numbers parsed */
} args;

/*
 * Schema letters: x = hex number, t = thread id (hex, "0", or "-1"), s = the rest
 * of the packet, * = ignore the rest, ? = everything after is optional; any other
 * character must appear literally.
 */
static bool parse_args(const char *schema, const char *p, const char *end, args *a)
{
    memset(a, 0, sizeof *a);
    bool optional = false;
    for (const char *c = schema; *c; c++) {
        if (*c == '?') {
            optional = true;
            continue;
        }
        if (p == end && optional) return true;
        switch (*c) {
        case 'x':
            if (a->n >= MAX_ARGS || !vx_rsp_parse_hex(&p, end, &a->v[a->n])) return false;
            a->n++;
            break;
        case 't':
            if (end - p >= 2 && p[0] == '-' && p[1] == '1') {
                a->tid = -1;
                p += 2;
            } else {
                uint64_t v;
                if (!vx_rsp_parse_hex(&p, end, &v) || v > INT64_MAX) return false;
                a->tid = (int64_t)v;
            }
            break;
        case 's':
            a->str = p;
            a->slen = (size_t)(end - p);
            p = end;
            break;
        case '*': return true;
        default:
            if (p == end || *p != *c) return false;
            p++;
            break;
        }
    }
    return p == end;
}

/* ---- handlers: state ----------------------------------------------------------------------- */

static void h_query_stop(vx_gdbserver *s, const args *a)
{
    (void)a;
    if (!s->have_last_stop) {
        vx_engine_stop st = {0};
        st.why = VX_WHY_STEP;
        remember_stop(s, &st);
    }
    send_stop(s, &s->last_stop);
}

static void h_read_regs(vx_gdbserver *s, const args *a)
{
    (void)a;
    s->n_regreads++;
    uint32_t gw, lane;
    if (!resolve(s, s->g_tid, &gw, &lane)) {
        reply(s, "E01");
        return;
    }
    out_reset(s);
    for (uint32_t i = 0; i < s->map.n; i++)
        out_reg(s, gw, lane, &s->map.regs[i]);
    out_send(s);
}

static void h_read_reg(vx_gdbserver *s, const args *a)
{
    s->n_regreads++;
    uint32_t gw, lane;
    const vx_regdesc *r = a->v[0] <= UINT32_MAX ? vx_regmap_find(&s->map, (uint32_t)a->v[0]) : NULL;
    if (!r || !resolve(s, s->g_tid, &gw, &lane)) {
        reply(s, "E01");
        return;
    }
    out_reset(s);
    out_reg(s, gw, lane, r);
    out_send(s);
}

/* G, P, M, X: the recorded history cannot be changed. */
static void h_write(vx_gdbserver *s, const args *a)
{
    (void)a;
    reply(s, "E01");
}

static uint32_t core_of(const vx_gdbserver *s, uint32_t gw)
{
    return s->warps_per_core ? gw / s->warps_per_core : 0;
}

/* The platform's cores (clusters x cores per cluster). */
static uint32_t num_cores(const vx_gdbserver *s)
{
    return s->cfg->clusters * s->cfg->cores;
}

/* Read as much of [addr, addr+len) as is mapped, stopping at the first unmapped byte. */
static size_t read_mem(vx_gdbserver *s, uint32_t core, uint64_t addr, uint8_t *buf, size_t len)
{
    if (addr > UINT32_MAX) return 0;
    if (addr + len > (uint64_t)UINT32_MAX + 1) len = (size_t)((uint64_t)UINT32_MAX + 1 - addr);
    if (vx_sim_mem_read(sim_of(s), core, (uint32_t)addr, buf, len) == VX_OK) return len;
    /* Part of it is unmapped: give the readable prefix, page by page then byte by byte. */
    size_t done = 0;
    while (done < len) {
        uint64_t a = addr + done;
        size_t chunk = VX_PAGE_SIZE - (size_t)(a % VX_PAGE_SIZE);
        if (chunk > len - done) chunk = len - done;
        if (vx_sim_mem_read(sim_of(s), core, (uint32_t)a, buf + done, chunk) == VX_OK) {
            done += chunk;
            continue;
        }
        while (chunk-- &&
               vx_sim_mem_read(sim_of(s), core, (uint32_t)(addr + done), buf + done, 1) == VX_OK)
            done++;
        break;
    }
    return done;
}

static void mem_request(vx_gdbserver *s, const args *a, bool binary)
{
    uint32_t gw, lane;
    if (!resolve(s, s->g_tid, &gw, &lane)) {
        reply(s, "E01");
        return;
    }
    uint64_t len = a->v[1];
    size_t max = binary ? PACKET_SIZE / 2 - 16 : PACKET_SIZE / 2 - 8;
    if (len > max) len = max;
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf) {
        reply(s, "E0c");
        return;
    }
    size_t got = read_mem(s, core_of(s, gw), a->v[0], buf, (size_t)len);
    out_reset(s);
    if (got == 0 && len != 0) {
        out_str(s, "E0e"); /* EFAULT */
    } else if (binary) {
        out_str(s, "b");
        out_add(s, buf, got);
    } else {
        out_hex(s, buf, got);
    }
    out_send(s);
    free(buf);
}

static void h_read_mem(vx_gdbserver *s, const args *a)
{
    mem_request(s, a, false);
}

static void h_read_mem_bin(vx_gdbserver *s, const args *a)
{
    mem_request(s, a, true);
}

/* A thread listing (qfThreadInfo, or qXfer:threads at offset 0): past the first one
 * since the stop (GDB's own, when it stops), the Hg that follow may be a sweep. */
static void note_listing(vx_gdbserver *s)
{
    s->n_lists++;
    if (s->lists_since_stop < 2) s->lists_since_stop++;
}

/*
 * An Hg of thread tid: GDB reads its registers, most often because the user selected
 * it, the best guess of the thread a resume that names none means (motion_thread).
 * Not after a listing other than the stop's own: that is `info threads` (MI's
 * -thread-info, which an IDE sends at every stop) reading each thread it holds no
 * registers of, in turn, and the last one was taken for the user's choice (the next
 * continue reported its stop in that lane); even one such read (a sweep of a kernel
 * with two threads) is no choice.  vxrr.gdb's vx-thread, which lists the threads
 * too, names its choice itself (monitor pick).
 */
static void note_hg(vx_gdbserver *s, int64_t tid)
{
    if (s->lists_since_stop < 2) s->g_pick = tid;
}

static void h_set_thread(vx_gdbserver *s, const args *a, bool general)
{
    uint32_t gw, lane;
    if (a->tid > 0 && !tid_decode(s, a->tid, &gw, &lane)) {
        reply(s, "E01");
        return;
    }
    if (general) {
        s->g_tid = a->tid;
        if (a->tid > 0) note_hg(s, a->tid);
    } else
        s->c_tid = a->tid;
    reply(s, "OK");
}

static void h_hg(vx_gdbserver *s, const args *a)
{
    h_set_thread(s, a, true);
}

static void h_hc(vx_gdbserver *s, const args *a)
{
    h_set_thread(s, a, false);
}

static void h_thread_alive(vx_gdbserver *s, const args *a)
{
    uint32_t gw, lane;
    reply(s, tid_decode(s, a->tid, &gw, &lane) && warp_alive(s, gw) ? "OK" : "E01");
}

/* ---- handlers: breakpoints and watchpoints ----------------------------------------------------- */

#define MAX_CONDS    64
#define MAX_COND_LEN 0x4000

static zpoint *zp_find(vx_gdbserver *s, unsigned type, uint32_t addr)
{
    for (size_t i = 0; i < s->nzp; i++)
        if (s->zp[i].type == type && s->zp[i].addr == addr) return &s->zp[i];
    return NULL;
}

static void zp_clear_conds(zpoint *z)
{
    free(z->code);
    free(z->lens);
    z->code = NULL;
    z->lens = NULL;
    z->ncond = 0;
}

static void zp_clear_all(vx_gdbserver *s)
{
    for (size_t i = 0; i < s->nzp; i++)
        zp_clear_conds(&s->zp[i]);
    s->nzp = 0;
}

/*
 * The conditions of a Z0/Z1 packet, after its kind: ";" then "X<len>,<hex bytecode>"
 * each (GDB writes them one after the other; a ";" between them is taken too; a
 * "cmds:" part, not asked for, ends the list).  False if malformed.
 */
static bool parse_conds(const char *p, const char *end, zpoint *z)
{
    uint8_t *code = NULL;
    size_t *lens = NULL, total = 0;
    unsigned n = 0;
    if (p < end && *p++ != ';') goto bad;
    while (p < end) {
        if (*p == ';' && n > 0) p++;
        if (end - p >= 5 && memcmp(p, "cmds:", 5) == 0) break;
        uint64_t len;
        if (p == end || *p++ != 'X' || !vx_rsp_parse_hex(&p, end, &len) || p == end ||
            *p++ != ',' || len == 0 || len > MAX_COND_LEN || n == MAX_CONDS ||
            (uint64_t)(end - p) < 2 * len)
            goto bad;
        uint8_t *nc = realloc(code, total + len);
        if (nc) code = nc;
        size_t *nl = realloc(lens, (n + 1) * sizeof *lens);
        if (nl) lens = nl;
        if (!nc || !nl) goto bad;
        for (uint64_t i = 0; i < len; i++, p += 2) {
            int hi = vx_rsp_hexval(p[0]), lo = vx_rsp_hexval(p[1]);
            if (hi < 0 || lo < 0) goto bad;
            code[total + i] = (uint8_t)(hi << 4 | lo);
        }
        lens[n++] = (size_t)len;
        total += len;
    }
    zp_clear_conds(z);
    z->code = code;
    z->lens = lens;
    z->ncond = n;
    return true;
bad:
    free(code);
    free(lens);
    return false;
}

static void update_filter(vx_gdbserver *s);

static void h_break_point(vx_gdbserver *s, const args *a, bool insert)
{
    const unsigned type = (unsigned)a->v[0];
    const uint32_t addr = (uint32_t)a->v[1];
    zpoint *z = zp_find(s, type, addr);
    if (!insert) {
        if (!z || vx_engine_break_remove(s->e, addr, VX_ENGINE_ANY_WARP) != VX_OK) {
            reply(s, "E01");
            return;
        }
        zp_clear_conds(z);
        *z = s->zp[--s->nzp];
        update_filter(s);
        s->break_removed = true;
        s->removed_at = addr;
        reply(s, "OK");
        return;
    }
    zpoint fresh = {addr, (uint8_t)type, 0, NULL, NULL};
    const char *rest = a->str ? a->str : ""; /* no conditions: nothing after the kind */
    if (!parse_conds(rest, rest + a->slen, z ? z : &fresh)) {
        reply(s, "E01");
        return;
    }
    if (z) { /* already in: its conditions were replaced */
        update_filter(s);
        reply(s, "OK");
        return;
    }
    if (s->nzp == s->capzp) {
        size_t nc = s->capzp ? 2 * s->capzp : 16;
        zpoint *nz = realloc(s->zp, nc * sizeof *nz);
        if (!nz) {
            zp_clear_conds(&fresh);
            reply(s, "E0c");
            return;
        }
        s->zp = nz;
        s->capzp = nc;
    }
    if (vx_engine_break_insert(s->e, addr, VX_ENGINE_ANY_WARP) != VX_OK) {
        zp_clear_conds(&fresh);
        reply(s, "E01");
        return;
    }
    s->zp[s->nzp++] = fresh;
    update_filter(s);
    reply(s, "OK");
}

/* The entry of l with w's type, address and length, or NULL. */
static wzpoint *wz_find(wzlist *l, const wzpoint *w)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].type == w->type && l->v[i].addr == w->addr && l->v[i].len == w->len)
            return &l->v[i];
    return NULL;
}

static bool wz_grow(wzlist *l)
{
    size_t nc = l->cap ? 2 * l->cap : 16;
    wzpoint *nv = realloc(l->v, nc * sizeof *nv);
    if (!nv) return false;
    l->v = nv;
    l->cap = nc;
    return true;
}

/* Take entry e out of l, keeping the others in order (oldest first). */
static void wz_remove(wzlist *l, wzpoint *e)
{
    memmove(e, e + 1, (size_t)(l->v + l->n - (e + 1)) * sizeof *e);
    l->n--;
}

/*
 * What the lists of removed watchpoints and of vxrr.gdb's cores keep at most: the
 * most recent; a watchpoint inserted again after so many others takes the selected
 * thread's core.  (Without a bound a client making ever new watchpoints grew them
 * for the whole session, and made every insertion slower.)
 */
#define WZ_REMEMBER 4096u

/* Put w in l, in place of the entry of the same watchpoint, else as the newest (the
 * oldest goes once l holds WZ_REMEMBER); false when out of memory. */
static bool wz_put(wzlist *l, const wzpoint *w)
{
    wzpoint *e = wz_find(l, w);
    if (!e) {
        if (l->n >= WZ_REMEMBER) wz_remove(l, &l->v[0]);
        if (l->n == l->cap && !wz_grow(l)) return false;
        e = &l->v[l->n++];
    }
    *e = *w;
    return true;
}

static void h_point(vx_gdbserver *s, const args *a, bool insert)
{
    uint64_t type = a->v[0], addr = a->v[1], kind = a->v[2];
    if (type > 4) {
        reply(s, ""); /* a type the server does not know: the empty reply */
        return;
    }
    if (addr > UINT32_MAX) {
        reply(s, "E01");
        return;
    }
    if (type <= 1) {
        h_break_point(s, a, insert);
        return;
    }
    if (kind == 0 || kind > UINT32_MAX) {
        reply(s, "E01");
        return;
    }
    vx_watch_kind wk = type == 2 ? VX_WATCH_WRITE : type == 3 ? VX_WATCH_READ : VX_WATCH_ACCESS;
    const wzpoint key = {(uint8_t)type, (uint32_t)addr, (uint32_t)kind, 0};
    wzpoint *w = wz_find(&s->wz, &key);
    if (!insert) {
        if (!w || vx_engine_watch_remove(s->e, wk, w->addr, w->len, w->core) != VX_OK) {
            reply(s, "E01");
            return;
        }
        const wzpoint gone = *w;
        *w = s->wz.v[--s->wz.n];
        (void)wz_put(&s->wpark, &gone); /* out of memory: the next insertion takes Hg's core */
        reply(s, "OK");
        return;
    }
    const wzpoint *b = wz_find(&s->wbound, &key);
    wzpoint *park = wz_find(&s->wpark, &key);
    uint32_t gw, lane, core;
    if (b)
        core = b->core;
    else if (w)
        core = w->core;
    else if (park)
        core = park->core;
    else
        core = resolve(s, s->g_tid, &gw, &lane) ? core_of(s, gw) : 0;
    if (w && w->core == core) { /* already in */
        reply(s, "OK");
        return;
    }
    if (!w && s->wz.n == s->wz.cap && !wz_grow(&s->wz)) {
        reply(s, "E0c");
        return;
    }
    if (vx_engine_watch_insert(s->e, wk, (uint32_t)addr, (uint32_t)kind, core) != VX_OK) {
        reply(s, "E01");
        return;
    }
    if (w) /* in already, for another core: vxrr.gdb has since named this one */
        vx_engine_watch_remove(s->e, wk, w->addr, w->len, w->core);
    else
        w = &s->wz.v[s->wz.n++];
    *w = key;
    w->core = core;
    if (park) wz_remove(&s->wpark, park); /* in again: parked again when removed */
    reply(s, "OK");
}

static void h_z_insert(vx_gdbserver *s, const args *a)
{
    h_point(s, a, true);
}

static void h_z_remove(vx_gdbserver *s, const args *a)
{
    h_point(s, a, false);
}

/* ---- handlers: execution ----------------------------------------------------------------------- */

static void report_error(vx_gdbserver *s, vx_err err)
{
    const char *msg = vx_engine_errmsg(s->e);
    if (!msg || !*msg) msg = vx_strerror(err);
    console(s, "vxreplay: %s\n", msg);
    if (s->opts.log) fprintf(s->opts.log, "vxreplay: %s\n", msg);
}

static bool engine_poll(void *ctx);

/* A motion begins: polls for GDB's interrupt, and for a progress note (opts.progress_ms). */
static void motion_start(vx_gdbserver *s, bool backward)
{
    vx_engine_set_poll(s->e, engine_poll, s);
    s->motion_t0 = vx_cli_now_ms();
    s->motion_noted = s->motion_t0;
    s->motion_backward = backward;
}

static bool engine_poll(void *ctx)
{
    vx_gdbserver *s = ctx;
    if (s->opts.progress_ms >= 0) {
        const long long every = s->opts.progress_ms ? s->opts.progress_ms : 3000;
        const long long now = vx_cli_now_ms();
        if (now - s->motion_noted >= every) {
            s->motion_noted = now;
            /* backward, the machine re-executes windows forward from checkpoints: its
             * position says nothing of how far back the search has got */
            if (s->motion_backward)
                console(s, "vxreplay: still searching back after %.1f s (Ctrl-C stops it)\n",
                        (double)(now - s->motion_t0) / 1000.0);
            else
                console(s,
                        "vxreplay: still going after %.1f s, at event %" PRIu64 " of %" PRIu64
                        " (Ctrl-C stops it)\n",
                        (double)(now - s->motion_t0) / 1000.0, vx_engine_now(s->e),
                        vx_engine_end(s->e));
        }
    }
    /* a 0x03 sent right behind the packet (read with it), before any next packet */
    for (size_t i = 0; i < s->nrest && s->rest[i] != '$'; i++)
        if (s->rest[i] == 0x03) {
            s->swallow_int = true; /* on_interrupt gets it after this motion */
            return true;
        }
    return s->io.poll && s->io.poll(s->io.ctx);
}

/* ---- breakpoint conditions (evaluated per lane) ---- */

typedef struct cond_ctx {
    vx_gdbserver *s;
    uint32_t gw, lane;
} cond_ctx;

static bool cond_reg(void *ctx, unsigned reg, uint64_t *v)
{
    const cond_ctx *c = ctx;
    const vx_regdesc *r = vx_regmap_find(&c->s->map, reg);
    uint32_t x;
    if (!r || !read_reg(c->s, c->gw, c->lane, r, &x)) return false;
    *v = x;
    return true;
}

static bool cond_mem(void *ctx, uint64_t addr, void *buf, size_t n)
{
    const cond_ctx *c = ctx;
    /* Addresses are 32 bits: GDB sign-extends a register cast to a pointer
     * (`*(int *)$a5` is `reg; ext 32; ref32`), so 0x80006064 comes as
     * 0xffffffff80006064. */
    return read_mem(c->s, core_of(c->s, c->gw), (uint32_t)addr, buf, n) == n;
}

/* Does any condition of the breakpoints at pc hold for (gw, lane)?  An expression
 * that cannot be evaluated counts as true (a stop to look at, not a silent miss). */
static bool conds_hold(vx_gdbserver *s, uint32_t pc, uint32_t gw, uint32_t lane)
{
    cond_ctx c = {s, gw, lane};
    const vx_agentx_env env = {&c, cond_reg, cond_mem};
    for (size_t i = 0; i < s->nzp; i++) {
        const zpoint *z = &s->zp[i];
        if (z->addr != pc) continue;
        const uint8_t *code = z->code;
        for (unsigned k = 0; k < z->ncond; code += z->lens[k], k++) {
            uint64_t v;
            vx_agentx_result r = vx_agentx_eval(code, z->lens[k], &env, &v);
            if (r != VX_AGENTX_OK || v != 0) return true;
        }
    }
    return false;
}

#define LANE_ANY  (-2) /* a breakpoint without conditions: every lane stops */
#define LANE_NONE (-1) /* conditions everywhere, none holds: go on */

/* At a breakpoint stop of warp gw: the lane to report (prefer it when it qualifies). */
static int break_lane(vx_gdbserver *s, uint32_t gw, uint32_t prefer)
{
    vx_warp_info wi;
    if (!warp_info(s, gw, &wi)) return LANE_ANY;
    bool conditional = false;
    for (size_t i = 0; i < s->nzp; i++) {
        if (s->zp[i].addr != wi.pc) continue;
        if (s->zp[i].ncond == 0) return LANE_ANY;
        conditional = true;
    }
    if (!conditional) return LANE_ANY;
    if (prefer < s->threads && vx_lanes_test(wi.tmask, prefer) && conds_hold(s, wi.pc, gw, prefer))
        return (int)prefer;
    for (uint32_t l = 0; l < s->threads; l++)
        if (l != prefer && vx_lanes_test(wi.tmask, l) && conds_hold(s, wi.pc, gw, l)) return (int)l;
    return LANE_NONE;
}

/* The lane of warp gw, active at its pc, that a thread-specific breakpoint there names
 * (the first such in the list), or LANE_ANY. */
static int thread_break_lane(const vx_gdbserver *s, uint32_t gw)
{
    vx_warp_info wi;
    if (!s->ntb || s->opts.thread_per_warp || !warp_info(s, gw, &wi)) return LANE_ANY;
    for (size_t i = 0; i < s->ntb; i++)
        if (s->tb[i].gw == gw && s->tb[i].addr == wi.pc && vx_lanes_test(wi.tmask, s->tb[i].lane))
            return (int)s->tb[i].lane;
    return LANE_ANY;
}

/* The engine asks while it runs, the machine at the breakpoint: does a lane qualify? */
static bool cond_filter(void *ctx, uint32_t gwarp, uint32_t pc)
{
    vx_gdbserver *s = ctx;
    (void)pc; /* break_lane reads the warp's pc itself */
    return break_lane(s, gwarp, s->focus_lane) != LANE_NONE;
}

/* Conditions are tested inside the engine's motions (both directions) while any exists. */
static void update_filter(vx_gdbserver *s)
{
    bool any = false;
    for (size_t i = 0; i < s->nzp && !any; i++)
        any = s->zp[i].ncond > 0;
    vx_engine_set_break_filter(s->e, any ? cond_filter : NULL, s);
}

/* A session's end or start: no breakpoint, watchpoint or condition left. */
static void points_clear(vx_gdbserver *s)
{
    vx_engine_points_clear(s->e);
    zp_clear_all(s);
    s->wz.n = s->wpark.n = s->wbound.n = 0;
    free(s->tb);
    s->tb = NULL;
    s->ntb = 0;
    update_filter(s);
}

/*
 * Run one motion and answer with a stop reply.  step_gw/step_lane name the
 * stepping thread (for steps) so the stop reports the same thread.
 */
/* Is warp gw active at position pos (the engine moved there)? */
static bool active_at(vx_gdbserver *s, uint32_t gw, uint64_t pos, bool *ok)
{
    vx_warp_info wi;
    *ok = vx_engine_seek(s->e, pos) == VX_OK && warp_info(s, gw, &wi);
    return *ok && wi.active;
}

/* The console note of a backward step that found no earlier instruction of warp gw
 * (of its lane, when lane >= 0) before the current position. */
static void note_no_history(vx_gdbserver *s, uint32_t gw, int64_t lane)
{
    char who[48] = "";
    if (lane >= 0) snprintf(who, sizeof who, "lane %" PRId64 " of ", lane);
    console(s,
            "vxreplay: no more reverse-execution history: %swarp %" PRIu32
            " has no instruction before event %" PRIu64 "\n",
            who, gw, vx_engine_now(s->e));
}

/* Move back to the issue that spawned warp gw, which has no issue before now (before
 * that issue the warp does not run yet; since it, it is active, issuing nothing: a
 * binary search).  False, and nothing moved, when it is active from the start. */
static bool before_spawn(vx_gdbserver *s, uint32_t gw)
{
    const uint64_t from = vx_engine_now(s->e);
    uint64_t lo = 0, hi = from; /* inactive at lo, active at hi */
    bool ok;
    if (from == 0 || active_at(s, gw, 0, &ok) || !ok) {
        (void)vx_engine_seek(s->e, from);
        return false;
    }
    while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        const bool act = active_at(s, gw, mid, &ok);
        if (!ok) {
            (void)vx_engine_seek(s->e, from);
            return false;
        }
        if (act)
            hi = mid;
        else
            lo = mid;
    }
    return vx_engine_seek(s->e, lo) == VX_OK;
}

static void run_motion(vx_gdbserver *s, const vx_engine_motion *m, uint32_t step_lane,
                       bool step_over)
{
    vx_engine_stop st;
    memset(&st, 0, sizeof st);
    if (s->pending_int && !m->step) { /* interrupted before it began: stop where we are */
        s->pending_int = false;
        st.why = VX_WHY_INTERRUPT;
        st.gwarp = s->focus_gw;
        remember_stop(s, &st);
        send_stop(s, &st);
        return;
    }
    /* Could GDB be stepping over a breakpoint with the moving thread?  (Then a stop
     * must name that thread.) */
    const uint32_t mover = m->step ? m->step_gwarp : m->only_gwarp;
    vx_warp_info mwi;
    const bool may_step_over =
        step_over || s->break_removed ||
        (mover != VX_ENGINE_ANY_WARP && warp_info(s, mover, &mwi) && break_at(s, mwi.pc));
    /* GDB took out a breakpoint at the stepping warp's pc: it steps over it (also one
     * it did not stop at, as after a fault) */
    const bool took_out_at_pc = m->step && taken_out_at_pc(s, m->step_gwarp);
    /* GDB stepping the thread a watchpoint stop named over the access, in the stop's
     * direction, from here (see below) */
    const uint64_t watch_over = m->step && s->have_last_stop && s->last_stop.why == VX_WHY_WATCH &&
                                        s->last_stop.gwarp == m->step_gwarp &&
                                        m->backward == s->last_backward
                                    ? vx_engine_now(s->e)
                                    : NO_POS;
    motion_start(s, m->backward);
    vx_err err;
    bool by_other = false; /* a watchpoint stop named in the thread GDB moved, not the maker */
    if (watch_over != NO_POS && s->watch_by_other) {
        /* GDB steps that thread over the access (forward the next issue, backward the
         * last one) with the watchpoints taken out.  Its own next instruction may be far
         * (a lane masked off or parked, another warp's access): the step would cross
         * other watched accesses unseen, or never come (a warp that has finished: the
         * step ran into the end of history, and GDB, its step over unfinished, hung at
         * its next command).  Carry out (or undo) the access only: the step is done, the
         * thread where it was. */
        const vx_engine_over none = {m->step_gwarp, 0, 0};
        err = vx_engine_seek_over(
            s->e, m->backward ? (watch_over ? watch_over - 1 : 0) : watch_over + 1, &none, 1);
        st.why = VX_WHY_STEP;
        st.gwarp = m->step_gwarp;
    } else {
        err = vx_engine_resume(s->e, m, &st);
        /* vCont;r: step on while the lane stays in the range and nothing else stopped the
         * step: not at an inserted breakpoint (GDB takes a step's end there for a hit), not
         * when interrupted.  Not after a step over: GDB steps over a breakpoint alone (and
         * a stop may come at any point of a range step).  A 0x03 stops it as it stops a
         * continue (each step is too short for the engine to look). */
        vx_engine_motion again = *m;
        uint32_t pc;
        for (unsigned n = 1;
             s->range_on && m->step && !m->backward && !step_over && !took_out_at_pc &&
             err == VX_OK && st.why == VX_WHY_STEP && thread_pc(s, m->step_gwarp, step_lane, &pc) &&
             pc >= s->range_lo && pc < s->range_hi && !break_at(s, pc);
             n++) {
            if (n % 256 == 0 && engine_poll(s)) {
                st.why = VX_WHY_INTERRUPT;
                break;
            }
            again.step_pc_known = true;
            again.step_pc = pc;
            err = vx_engine_resume(s->e, &again, &st);
        }
    }
    s->last_backward = m->backward;
    /* The engine stopped at a breakpoint only where a lane meets its conditions
     * (cond_filter): report that lane, the resumed one when it qualifies. */
    int cond_lane = LANE_ANY, tb_lane = LANE_ANY;
    if (err == VX_OK && st.why == VX_WHY_BREAK) tb_lane = thread_break_lane(s, st.gwarp);
    if (err == VX_OK && st.why == VX_WHY_BREAK && s->nzp)
        cond_lane = break_lane(s, st.gwarp, tb_lane >= 0 ? (uint32_t)tb_lane : s->focus_lane);
    if (err != VX_OK) {
        report_error(s, err);
        memset(&st, 0, sizeof st);
        if (vx_engine_unreadable(err)) {
            /* The trace cannot be read past here: history ends here in this direction. */
            console(s, "vxreplay: history ends at event %" PRIu64 " (the trace is unreadable %s)\n",
                    vx_engine_now(s->e), m->backward ? "before it" : "past it");
            st.why = m->backward ? VX_WHY_BEGIN : VX_WHY_END;
        } else if (err == VX_ERR_NOMEM) {
            /* The host ran out of memory (not the trace's fault): a plain stop (signal 0)
             * where the engine is, which GDB can resume from once memory is freed. */
            console(s, "vxreplay: stopped at event %" PRIu64 "\n", vx_engine_now(s->e));
            st.why = VX_WHY_INTERRUPT;
            s->stop_sig0 = true;
        } else {
            /* The engine stays at a consistent position (a divergence): an abort there. */
            st.why = VX_WHY_FAULT;
            st.fault.signal = SIG_ABRT;
        }
        remember_stop(s, &st);
        send_stop(s, &st);
        return;
    }
    /* GDB's backward step over a breakpoint it does not stop at (a thread-specific one
     * for another lane, a condition it found false) for a warp with no earlier issue:
     * "no history" there leaves GDB's step over unfinished, and GDB then never resumes
     * again (GDB 13 hangs at the next command).  A warp that some issue spawned has
     * history before that issue, where it does not run yet: the step goes back to
     * there (its pc leaves the breakpoint, and the backward continue that follows runs
     * on).  A warp that runs from reset has none: a plain stop (signal 0), which ends
     * GDB's step over and its command, with a note. */
    if (step_over && st.why == VX_WHY_BEGIN) {
        if (before_spawn(s, m->step_gwarp)) {
            st.why = VX_WHY_STEP;
        } else {
            st.why = VX_WHY_INTERRUPT;
            s->stop_sig0 = true;
            note_no_history(s, m->step_gwarp, -1);
        }
    } else if (m->step && st.why == VX_WHY_BEGIN && vx_engine_now(s->e) > 0) {
        /* a step back from a warp's (or lane's) first instruction, mid-trace: GDB says
         * only "No more reverse-execution history" (MI: a stop without a reason) */
        note_no_history(s, m->step_gwarp, m->lane_step ? (int64_t)step_lane : -1);
    } else if (m->step && !m->backward && st.why == VX_WHY_END && took_out_at_pc) {
        /* Forward the warp's issue at the breakpoint is there to step, but for the one
         * that faulted, which never executes (a breakpoint at the faulting pc):
         * "no history" there left GDB's step over unfinished too, and GDB hung at its
         * next command.  A plain stop ends it. */
        st.why = VX_WHY_INTERRUPT;
        s->stop_sig0 = true;
        /* the stop names the stepped thread, as any step's end does */
        s->focus_gw = m->step_gwarp;
        s->focus_lane = step_lane;
        /* The same end comes for a lane that never runs again (lost to a misplaced join,
         * or parked for good) when GDB took out (or the user deleted) a breakpoint at its
         * warp's pc: say which it is. */
        uint32_t code = 0;
        vx_fault f;
        if (vx_engine_end_status(s->e, &code, &f) == VX_END_FAULT &&
            f.core * s->warps_per_core + f.warp == m->step_gwarp)
            console(s, "vxreplay: no more history: warp %" PRIu32 " faults at event %" PRIu64 "\n",
                    m->step_gwarp, vx_engine_now(s->e));
        else {
            char who[32] = "";
            if (m->lane_step) snprintf(who, sizeof who, "lane %" PRIu32 " of ", step_lane);
            console(s,
                    "vxreplay: no more history: %swarp %" PRIu32
                    " does not run again before the end (event %" PRIu64 ")\n",
                    who, m->step_gwarp, vx_engine_now(s->e));
        }
    }
    switch (st.why) {
    case VX_WHY_STEP:
    case VX_WHY_BEGIN:
    case VX_WHY_END:
        if (m->step) {
            s->focus_gw = m->step_gwarp;
            s->focus_lane = step_lane;
        }
        /* back at the start, a warp spawned later does not exist yet; a reverse-continue
         * that ran out of history reports a lane that is active there (only lane 0 of
         * warp 0 at the very start), as any stop does */
        if (st.why == VX_WHY_BEGIN) {
            refocus(s);
            vx_warp_info wi;
            if (!m->step && warp_info(s, s->focus_gw, &wi) && wi.tmask &&
                !vx_lanes_test(wi.tmask, s->focus_lane))
                s->focus_lane = vx_lanes_first(wi.tmask);
        }
        break;
    case VX_WHY_BREAK: {
        /* Keep the user's lane when it takes part, in whichever warp stopped: GDB decides
         * thread-specific breakpoints (`break f thread N`, the scope of a `watch` on a
         * local, `finish`) in the reported thread, and steps over a breakpoint with the
         * thread it reported, so the lane must not drift to another warp's first lane. */
        vx_warp_info wi;
        const bool have = warp_info(s, st.gwarp, &wi);
        bool keep = have && vx_lanes_test(wi.tmask, s->focus_lane);
        /* GDB resumed one thread only (a step: vCont;s:N, s, bs; or a continue locked
         * to it: vCont;c:N, Hc N with c or bc, as vxrr.gdb does for finish, until and
         * advance), and its warp stops at a breakpoint without its lane (masked off or
         * parked, the other lanes at the breakpoint).  A stop named in another lane, a
         * thread GDB did not resume, breaks GDB (13 asserts in finish_step_over, or in
         * skip_inline_frames), and a step stop where the lane waits would let a `step`
         * run on past the breakpoint.  A plain stop of the resumed thread (signal 0)
         * ends the command there, and the console names the lanes at the breakpoint. */
        const uint32_t rgw = m->step ? m->step_gwarp : m->only_gwarp,
                       rlane = m->step ? step_lane : s->focus_lane;
        /* the resumed (or stepped) lane takes part in the stop: its warp's, the lane active */
        const bool resumed_lane_at_break =
            st.gwarp == rgw && have && vx_lanes_test(wi.tmask, rlane);
        if (!s->opts.thread_per_warp && rgw != VX_ENGINE_ANY_WARP && (!m->step || !m->others) &&
            !resumed_lane_at_break) {
            console(s,
                    "vxreplay: stopped where warp %" PRIu32 " reached a breakpoint at 0x%08" PRIx32
                    " without lane %" PRIu32 " (vx-thread %" PRIu32 " %" PRIu32 " shows it)\n",
                    st.gwarp, have ? wi.pc : 0, rlane, st.gwarp,
                    have && wi.tmask ? vx_lanes_first(wi.tmask) : 0);
            st.why = VX_WHY_INTERRUPT;
            s->stop_sig0 = true;
            s->focus_gw = rgw;
            s->focus_lane = rlane;
            break;
        }
        /* a step that meets a breakpoint in its own warp with the stepped lane taking
         * part (a parked lane woken there) reports that lane: GDB asked for it */
        if (m->step && resumed_lane_at_break && cond_lane < 0 && tb_lane < 0) {
            s->focus_lane = step_lane;
            keep = true;
        }
        if (cond_lane >= 0) {
            s->focus_lane = (uint32_t)cond_lane;
            /* --thread-per-warp with a lane picked: show the lane whose condition held */
            if (s->sel_lane >= 0) s->sel_lane = cond_lane;
        } else if (tb_lane >= 0) {
            s->focus_lane = (uint32_t)tb_lane;
        } else if (!keep)
            s->focus_lane = st.has_lane ? st.lane : 0;
        s->focus_gw = st.gwarp;
        break;
    }
    case VX_WHY_WATCH:
    case VX_WHY_FAULT:
        /* The lane that accessed or faulted, except in the warp GDB is stepping: there
         * GDB expects the stepped thread back (a watchpoint that fires while it steps
         * over a breakpoint, from another thread, trips its finish_step_over assertion).
         * But a write to another core's local memory is named in the writer's thread
         * when GDB cannot be stepping over a breakpoint: GDB reads the watched value
         * with the thread it is told, and the moving thread's core has other memory
         * there. */
        if (st.why == VX_WHY_WATCH && !may_step_over && mover != VX_ENGINE_ANY_WARP &&
            vx_addr_in_lmem(st.watch_addr) && core_of(s, st.gwarp) != core_of(s, mover)) {
            if (st.has_lane) s->focus_lane = st.lane;
        } else if ((m->step && st.gwarp == m->step_gwarp) ||
                   (st.why == VX_WHY_WATCH && (m->step || m->only_gwarp != VX_ENGINE_ANY_WARP))) {
            /* A step (or a continue locked to one thread) names the thread that moves:
             * the access may be another lane's, or another warp's (one timeline). */
            const uint32_t mlane = m->step ? step_lane : s->focus_lane;
            /* (a store whose lane the trace does not say: taken as another's) */
            by_other =
                st.why == VX_WHY_WATCH && (!st.has_lane || st.lane != mlane || st.gwarp != mover);
            if (by_other && st.has_lane) {
                char where[96] = "";
                if (vx_addr_in_lmem(st.watch_addr) && core_of(s, st.gwarp) != core_of(s, mover))
                    snprintf(where, sizeof where,
                             "; GDB shows core %" PRIu32
                             "'s local memory, the write was core %" PRIu32 "'s",
                             core_of(s, mover), core_of(s, st.gwarp));
                console(s,
                        "vxreplay: lane %" PRIu32 " of warp %" PRIu32
                        " made the access, not the %s lane %" PRIu32 " of warp %" PRIu32
                        " (vx-thread %" PRIu32 " %" PRIu32 ")%s\n",
                        st.lane, st.gwarp, m->step ? "stepped" : "resumed", mlane, mover, st.gwarp,
                        st.lane, where);
            }
            st.gwarp = mover;
            s->focus_lane = mlane;
        } else if (st.has_lane) {
            s->focus_lane = st.lane;
        }
        s->focus_gw = st.gwarp;
        break;
    case VX_WHY_INTERRUPT: break;
    }
    if (s->focus_gw >= s->nwarps) s->focus_gw = 0;
    if (s->focus_lane >= s->threads) s->focus_lane = 0;
    if (st.why == VX_WHY_FAULT && st.fault.reason[0]) /* GDB shows only the signal */
        console(s, "vxreplay: core %" PRIu32 " warp %" PRIu32 " faults at pc 0x%08" PRIx32 ": %s\n",
                st.fault.core, st.fault.warp, st.fault.pc, st.fault.reason);
    remember_stop(s, &st);
    s->watch_by_other = by_other;
    send_stop(s, &st);
}

/* The thread a resume applies to: the packet's (a vCont action's, or Hc's for c, s, bc and
 * bs), else the one GDB last read registers of, else the current thread. */
static bool motion_thread(vx_gdbserver *s, int64_t tid, uint32_t *gw, uint32_t *lane)
{
    /*
     * No thread named: `bs` after Hc0 (GDB sends it unless the scheduler is locked, as
     * vxrr.gdb locks it for steps), or a vCont action for every thread.  The thread GDB
     * last read registers of (Hg) since the stop is then the best guess of the one the
     * user selected.  Not Hc's: it names the thread of the last c, s, bc or bs packet,
     * which may be long past (a reverse-stepi of another lane; a vCont;c after it that
     * reported its breakpoint hits in that lane made GDB's `finish`, which waits for its
     * own thread, run to the end of history).
     */
    if (tid <= 0) tid = s->g_pick;
    if (tid <= 0) {
        *gw = s->focus_gw;
        *lane = s->focus_lane;
        return true;
    }
    if (!tid_decode(s, tid, gw, lane)) return false;
    /* --thread-per-warp: a warp-thread names no lane; keep the one it shows (GDB steps
     * over a watchpoint's access with the warp: the writer's lane stays shown) */
    if (s->opts.thread_per_warp) *lane = shown_lane(s, *gw);
    return true;
}

/* Did GDB take out, since the last stop, a breakpoint at warp gw's pc (to step over it)? */
static bool taken_out_at_pc(const vx_gdbserver *s, uint32_t gw)
{
    vx_warp_info wi;
    return s->break_removed && warp_info(s, gw, &wi) && s->removed_at == wi.pc;
}

/* Is a breakpoint (Z0/Z1) inserted at addr? */
static bool break_at(const vx_gdbserver *s, uint32_t addr)
{
    for (size_t i = 0; i < s->nzp; i++)
        if (s->zp[i].addr == addr && s->zp[i].type <= 1) return true;
    return false;
}

/* A step of warp gw is GDB stepping over the breakpoint it stopped at: the last stop
 * was that warp's breakpoint hit (or a step that ended on a breakpoint's address), and
 * GDB took the breakpoint out; or over one it believes another thread stopped at (an
 * earlier stop's thread, after a scheduler-locked `until` moved only the selected one
 * in its view): GDB took out the breakpoint at that warp's pc since the last stop. */
static bool stepping_over_break(const vx_gdbserver *s, uint32_t gw)
{
    vx_warp_info wi;
    if (!s->have_last_stop || !warp_info(s, gw, &wi) || break_at(s, wi.pc)) return false;
    return ((s->last_stop.why == VX_WHY_BREAK || s->last_stop_on_break) &&
            s->last_stop.gwarp == gw) ||
           taken_out_at_pc(s, gw);
}

/*
 * The step that monitor stop-step armed: no motion, a stop of the stepped thread where
 * the server already is (a seek moved it there behind GDB's back).  GDB takes it as its
 * step's end, so it refreshes everything and announces the stop (MI *stopped).  It is
 * a plain stop: nothing was stepped over (GDB's z0/Z0 around it, when the thread is at
 * a breakpoint GDB believes it stopped at, change nothing), and GDB's next step of
 * this warp with the breakpoint at its pc taken out is a step over that breakpoint
 * (stepping_over_break), as after any stop there.
 */
static void stop_here(vx_gdbserver *s, int64_t step_tid)
{
    uint32_t gw, lane;
    s->stop_armed = false;
    s->pending_int = false; /* a stop at once is what it asked for */
    if (!motion_thread(s, step_tid, &gw, &lane)) {
        reply(s, "E01");
        return;
    }
    s->over_valid = false;
    s->focus_gw = gw;
    s->focus_lane = lane;
    vx_engine_stop st;
    memset(&st, 0, sizeof st);
    st.why = VX_WHY_STEP;
    st.gwarp = gw;
    /* a breakpoint at the pc that GDB took out for this step (vxrr.gdb disables those,
     * and GDB steps over one it believes it stopped at) is back for its next resume */
    const bool taken_out = taken_out_at_pc(s, gw);
    remember_stop(s, &st);
    if (taken_out) s->last_stop_on_break = true;
    send_stop(s, &st);
}

static void start_motion(vx_gdbserver *s, bool backward, bool step, int64_t step_tid, bool others,
                         int64_t only_tid, int64_t focus_tid)
{
    /* a lane shown masked off, at its own PC, is for looking (vx-print): GDB steps and
     * continues the warp from the warp's PC */
    s->sel_exact = false;
    if (s->stop_armed) {
        if (step) {
            stop_here(s, step_tid);
            return;
        }
        s->stop_armed = false; /* only a step can end there (a continue is no step's end) */
    }
    bool after_over = s->over_valid && vx_engine_now(s->e) == s->over_to;
    s->over_valid = false;
    vx_engine_motion m;
    memset(&m, 0, sizeof m);
    m.backward = backward;
    m.step = step;
    m.others = others;
    m.only_gwarp = VX_ENGINE_ANY_WARP;
    m.step_gwarp = VX_ENGINE_ANY_WARP;
    uint32_t gw = 0, lane = 0;
    if (step) {
        if (!motion_thread(s, step_tid, &gw, &lane)) {
            reply(s, "E01");
            return;
        }
        m.step_gwarp = gw;
        /* one thread per lane: a step is the lane's next (or last) instruction, so a
         * lane that is masked off moves only when it executes, in both directions */
        if (!s->opts.thread_per_warp) {
            m.lane_step = true;
            m.step_lane = lane;
            /* where GDB sees the lane (PC 0 when tmc/pred parked it) */
            m.step_pc_known = !backward && thread_pc(s, gw, lane, &m.step_pc);
        }
    } else {
        /* A breakpoint stop reports this thread when its warp stops there with the
         * lane active (run_motion): GDB's `finish` and thread-specific breakpoints
         * wait for the thread they were set for. */
        /* focus_tid: the thread a continue of all names for itself (vCont;C06:15;c, a
         * signal GDB passes on): the stop is reported in it, as for only_tid */
        /* or the thread the user had selected for this continue (monitor pick): GDB
         * names none (vCont;c), and the one it stepped over a breakpoint first is the
         * last stop's, not necessarily the user's */
        const bool hint =
            only_tid <= 0 && ((focus_tid > 0 && motion_thread(s, focus_tid, &gw, &lane)) ||
                              (s->user_pick > 0 && motion_thread(s, s->user_pick, &gw, &lane)));
        if (!hint && !motion_thread(s, only_tid, &gw, &lane)) {
            reply(s, "E01");
            return;
        }
        if (only_tid > 0) m.only_gwarp = gw;
        s->focus_gw = gw;
        s->focus_lane = lane;
    }
    /* (not when a pending interrupt stops this motion at once: it stops where it is) */
    if (!step && after_over && s->over_dir == backward && !s->pending_int) {
        /* back where the step over began: the hits it passed come first (a failed
         * seek leaves the search where it is), but not the stepped warp's own: GDB
         * stepped it over those (also in a chain, where it showed the one between) */
        (void)vx_engine_seek_over(s->e, s->over_from, s->over_w, s->nover_w);
    }
    /* A 0x03 that came while stopped stops the next continue at once: GDB sent it
     * while busy with a stop of its own (a condition it evaluates) and resumes with a
     * step over the breakpoint, then a continue.  Any other step means GDB is not
     * resuming on its own but for the user, who is past that interrupt: drop it. */
    const bool step_over = step && stepping_over_break(s, gw);
    if (step && !step_over) s->pending_int = false;
    /* a step over right after another (GDB steps the warp over the breakpoint at the
     * next instruction too) extends it: the search goes back to the first one's start */
    const bool chain = step_over && after_over && s->over_dir == backward;
    const uint64_t at = vx_engine_now(s->e), from = chain ? s->over_from : at;
    run_motion(s, &m, lane, step_over);
    if (step_over && s->last_stop.why == VX_WHY_STEP) {
        s->over_valid = true;
        s->over_dir = backward;
        s->over_from = from;
        s->over_to = vx_engine_now(s->e);
        /* the issues this step ran (or undid), for its warp: the chain's range for that
         * warp once it was stepped in it before (the breakpoint at its next instruction) */
        const uint64_t lo = at < s->over_to ? at : s->over_to,
                       hi = at < s->over_to ? s->over_to : at;
        size_t i = 0;
        if (!chain) s->nover_w = 0;
        while (i < s->nover_w && s->over_w[i].gwarp != gw)
            i++;
        if (i < s->nover_w) {
            if (lo < s->over_w[i].lo) s->over_w[i].lo = lo;
            if (hi > s->over_w[i].hi) s->over_w[i].hi = hi;
        } else if (i < s->nwarps) {
            s->over_w[s->nover_w++] = (vx_engine_over){gw, lo, hi};
        }
    } else {
        s->user_pick = 0; /* it lasts through GDB's steps over, to the continue they precede */
    }
}

/*
 * "c addr", "s addr", "C sig;addr", "S sig;addr": resume at addr, the last of the
 * packet's `with_addr` numbers when it has them.  History cannot resume elsewhere, so
 * an address other than the resuming thread's PC is refused with E01 (as register
 * writes are), rather than ignored: true when refused.
 */
static bool resume_elsewhere(vx_gdbserver *s, const args *a, int with_addr)
{
    uint32_t gw, lane, pc;
    if (a->n < with_addr || (motion_thread(s, s->c_tid, &gw, &lane) &&
                             thread_pc(s, gw, lane, &pc) && pc == a->v[a->n - 1]))
        return false;
    reply(s, "E01");
    return true;
}

/* c [addr] and s [addr]; C sig[;addr] and S sig[;addr] (the signal is not delivered:
 * history cannot change) */
static void h_continue(vx_gdbserver *s, const args *a)
{
    if (!resume_elsewhere(s, a, 1)) start_motion(s, false, false, 0, true, s->c_tid, 0);
}

static void h_continue_sig(vx_gdbserver *s, const args *a)
{
    if (!resume_elsewhere(s, a, 2)) start_motion(s, false, false, 0, true, s->c_tid, 0);
}

static void h_step(vx_gdbserver *s, const args *a)
{
    if (!resume_elsewhere(s, a, 1)) start_motion(s, false, true, s->c_tid, false, 0, 0);
}

static void h_step_sig(vx_gdbserver *s, const args *a)
{
    if (!resume_elsewhere(s, a, 2)) start_motion(s, false, true, s->c_tid, false, 0, 0);
}

static void h_rcontinue(vx_gdbserver *s, const args *a)
{
    (void)a;
    start_motion(s, true, false, 0, true, s->c_tid, 0);
}

static void h_rstep(vx_gdbserver *s, const args *a)
{
    (void)a;
    start_motion(s, true, true, s->c_tid, false, 0, 0);
}

static void h_vcont_query(vx_gdbserver *s, const args *a)
{
    (void)a;
    reply(s, "vCont;c;C;s;S;r");
}

/*
 * vCont;action[:tid];...  "For each inferior thread, the leftmost action with a
 * matching thread-id is applied": an action names one thread (or, without a thread
 * id, every thread not named before it, after which later actions apply to none).
 * In all-stop mode on one timeline what matters is the thread that steps, if any,
 * and whether the other threads continue.
 */
#define VCONT_NAMED 64 /* threads remembered as named by an earlier action */

static void h_vcont(vx_gdbserver *s, const args *a)
{
    const char *p = a->str, *end = a->str + a->slen;
    bool step = false, step_any = false, others_continue = false, any = false, all = false;
    bool range = false; /* the step is a range step (r start,end): range_lo .. range_hi - 1 */
    uint64_t range_lo = 0, range_hi = 0;
    int64_t step_tid = 0, cont_tid = 0;
    int64_t named[VCONT_NAMED];
    size_t nnamed = 0;
    while (p < end) {
        char act = *p++;
        if (act != 'c' && act != 'C' && act != 's' && act != 'S' && act != 'r') {
            reply(s, "E01");
            return;
        }
        if (act == 'C' || act == 'S') {
            uint64_t sig;
            if (!vx_rsp_parse_hex(&p, end, &sig)) {
                reply(s, "E01");
                return;
            }
        }
        uint64_t lo = 0, hi = 0;
        if (act == 'r' && !(vx_rsp_parse_hex(&p, end, &lo) && p < end && *p++ == ',' &&
                            vx_rsp_parse_hex(&p, end, &hi) && lo <= UINT32_MAX &&
                            hi <= (uint64_t)UINT32_MAX + 1)) {
            reply(s, "E01");
            return;
        }
        int64_t tid = 0;
        bool has_tid = false;
        if (p < end && *p == ':') {
            p++;
            args t;
            const char *q = p;
            while (q < end && *q != ';')
                q++;
            if (!parse_args("t", p, q, &t)) {
                reply(s, "E01");
                return;
            }
            tid = t.tid;
            has_tid = tid > 0;
            p = q;
        }
        if (p < end) {
            if (*p != ';') {
                reply(s, "E01");
                return;
            }
            p++;
        }
        any = true;
        if (all) continue; /* every thread has its action: this one applies to none */
        bool taken = false;
        for (size_t k = 0; k < nnamed && has_tid; k++)
            taken |= named[k] == tid;
        if (taken) continue; /* the thread's leftmost action applies */
        if (has_tid && nnamed < VCONT_NAMED) named[nnamed++] = tid;
        bool is_step = act == 's' || act == 'S' || act == 'r';
        if (!has_tid) {
            all = true;
            if (is_step && !step) {
                step_any = true; /* the remaining threads step: the current one does */
                range = act == 'r';
                range_lo = lo;
                range_hi = hi;
            } else if (!is_step) {
                others_continue = true;
            }
        } else if (is_step) {
            if (!step) {
                step = true;
                step_tid = tid;
                range = act == 'r';
                range_lo = lo;
                range_hi = hi;
            }
        } else if (!cont_tid) {
            cont_tid = tid;
        }
    }
    if (!any) {
        reply(s, "E01");
        return;
    }
    if (step || step_any) {
        s->range_on = range;
        s->range_lo = (uint32_t)range_lo;
        s->range_hi = (uint32_t)(range_hi > UINT32_MAX ? UINT32_MAX : range_hi);
        start_motion(s, false, true, step ? step_tid : 0, others_continue, 0, 0);
        s->range_on = false;
    } else {
        start_motion(s, false, false, 0, true, others_continue ? 0 : cont_tid, cont_tid);
    }
}

static void end_session(vx_gdbserver *s)
{
    s->over = true;
}

static void h_kill(vx_gdbserver *s, const args *a)
{
    (void)a;
    end_session(s); /* 'k' has no reply */
}

static void h_vkill(vx_gdbserver *s, const args *a)
{
    (void)a;
    reply(s, "OK");
    end_session(s);
}

static void h_detach(vx_gdbserver *s, const args *a)
{
    (void)a;
    reply(s, "OK");
    end_session(s);
}

/* ---- handlers: queries ------------------------------------------------------------------------ */

static bool has_feature(const char *list, size_t n, const char *feat)
{
    size_t fl = strlen(feat);
    const char *p = list, *end = list + n;
    while (p < end) {
        const char *q = memchr(p, ';', (size_t)(end - p));
        if (!q) q = end;
        if ((size_t)(q - p) == fl && memcmp(p, feat, fl) == 0) return true;
        p = q + 1;
    }
    return false;
}

static void h_supported(vx_gdbserver *s, const args *a)
{
    const char *f = a->str ? a->str : "";
    size_t n = a->slen;
    if (n && *f == ':') {
        f++;
        n--;
    }
    s->swbreak_ok = has_feature(f, n, "swbreak+");
    s->hwbreak_ok = has_feature(f, n, "hwbreak+");
    out_reset(s);
    out_printf(s,
               "PacketSize=%x;QStartNoAckMode+;qXfer:features:read+;qXfer:threads:read+;"
               "vContSupported+;ReverseStep+;ReverseContinue+;ConditionalBreakpoints+",
               PACKET_SIZE);
    if (s->swbreak_ok) out_str(s, ";swbreak+");
    if (s->hwbreak_ok) out_str(s, ";hwbreak+");
    out_send(s);
}

static void h_noack(vx_gdbserver *s, const args *a)
{
    (void)a;
    reply(s, "OK");
    vx_rsp_set_noack(s->rsp, true);
}

/* Serve [off, off+len) of a document as qXfer wants it: 'm' more follows, 'l' last. */
static void xfer_slice(vx_gdbserver *s, const char *doc, size_t doclen, const char *spec, size_t n)
{
    args a;
    if (!parse_args("x,x", spec, spec + n, &a)) {
        reply(s, "E01");
        return;
    }
    uint64_t off = a.v[0], len = a.v[1];
    if (len > PACKET_SIZE - 16) len = PACKET_SIZE - 16;
    out_reset(s);
    if (off >= doclen) {
        out_str(s, "l");
    } else {
        size_t k = doclen - (size_t)off;
        if (k > len) k = (size_t)len;
        out_str(s, off + k < doclen ? "m" : "l");
        out_add(s, doc + off, k);
    }
    out_send(s);
}

static void h_xfer_features(vx_gdbserver *s, const args *a)
{
    static const char annex[] = "target.xml:";
    if (a->slen < sizeof annex - 1 || memcmp(a->str, annex, sizeof annex - 1) != 0) {
        reply(s, "E00");
        return;
    }
    xfer_slice(s, s->xml, s->xml_len, a->str + sizeof annex - 1, a->slen - (sizeof annex - 1));
}

static void warp_state_text(vx_gdbserver *s, uint32_t gw, char *buf, size_t cap)
{
    vx_warp_info wi;
    if (!warp_info(s, gw, &wi)) {
        snprintf(buf, cap, "?");
        return;
    }
    if (!wi.active)
        snprintf(buf, cap, wi.issued ? "finished" : "not started");
    else if (wi.halted)
        snprintf(buf, cap, "halted by the DM");
    else if (wi.at_barrier && wi.bar_need)
        snprintf(buf, cap, "waiting at %s barrier %" PRIu32 " (%" PRIu32 " of %" PRIu32 " %s)",
                 (wi.barrier & 0x80000000u) ? "global" : "local", wi.barrier & 0x7fffffffu,
                 wi.bar_arrived, wi.bar_need, (wi.barrier & 0x80000000u) ? "cores" : "warps");
    else if (wi.at_barrier)
        snprintf(buf, cap, "waiting at %s barrier %" PRIu32,
                 (wi.barrier & 0x80000000u) ? "global" : "local", wi.barrier & 0x7fffffffu);
    else if (wi.spawn_wait)
        snprintf(buf, cap, "waiting for wspawn");
    else if (wi.stalled)
        snprintf(buf, cap, "stalled");
    else
        snprintf(buf, cap, "ready"); /* (it can issue: GDB says "running" of its own) */
}

static void thread_extra(vx_gdbserver *s, uint32_t gw, uint32_t lane, char *buf, size_t cap)
{
    vx_warp_info wi;
    bool ok = warp_info(s, gw, &wi);
    char state[96];
    warp_state_text(s, gw, state, sizeof state);
    uint32_t core = core_of(s, gw), w = gw - core * s->warps_per_core;
    if (s->opts.thread_per_warp)
        snprintf(buf, cap,
                 "core %" PRIu32 " warp %" PRIu32 " (gwarp %" PRIu32 "), %u/%" PRIu32
                 " lanes active, shows lane %" PRIu32 ", %s",
                 core, w, gw, ok ? vx_lanes_count(wi.tmask) : 0, s->threads, lane, state);
    else {
        /* masked off: by divergence, waiting at its own PC (its side of a split not run
         * yet, or done and waiting after the join), or parked (PC 0) */
        uint32_t pc = 0;
        const char *how = ok && vx_lanes_test(wi.tmask, lane) ? "active"
                          : vx_engine_lane_pc(s->e, gw, lane, &pc) && pc
                              ? "masked off by divergence, waiting"
                              : "masked off, parked";
        snprintf(buf, cap, "core %" PRIu32 " warp %" PRIu32 " lane %" PRIu32 ", %s, %s", core, w,
                 lane, how, state);
    }
}

static void h_extra_info(vx_gdbserver *s, const args *a)
{
    uint32_t gw, lane;
    if (!tid_decode(s, a->tid, &gw, &lane)) {
        reply(s, "E01");
        return;
    }
    char text[224];
    if (s->opts.thread_per_warp) lane = shown_lane(s, gw);
    thread_extra(s, gw, lane, text, sizeof text);
    out_reset(s);
    out_hex(s, text, strlen(text));
    out_send(s);
}

/* Iterate the live threads: the next (gw, lane) at or after the cursor.  A warp met
 * here stays listed (s->listed). */
static bool next_thread(vx_gdbserver *s, thread_cursor *c, uint32_t *gw, uint32_t *lane)
{
    uint32_t per = s->opts.thread_per_warp ? 1 : s->threads;
    while (c->gw < s->nwarps) {
        if (c->lane == 0 && !warp_alive(s, c->gw)) {
            c->gw++;
            continue;
        }
        s->listed[c->gw] = 1;
        *gw = c->gw;
        *lane = c->lane;
        if (++c->lane >= per) {
            c->lane = 0;
            c->gw++;
        }
        return true;
    }
    return false;
}

static void thread_list_chunk(vx_gdbserver *s)
{
    out_reset(s);
    uint32_t gw, lane;
    bool any = false;
    while (s->out_len < PACKET_SIZE - 64 && next_thread(s, &s->list, &gw, &lane)) {
        out_str(s, any ? "," : "m");
        out_printf(s, "%" PRIx64, vx_gdbserver_tid(s, gw, lane));
        any = true;
    }
    if (!any) out_str(s, "l");
    out_send(s);
}

static void h_first_thread(vx_gdbserver *s, const args *a)
{
    (void)a;
    s->list = (thread_cursor){0, 0};
    note_listing(s);
    thread_list_chunk(s);
}

static void h_next_thread(vx_gdbserver *s, const args *a)
{
    (void)a;
    thread_list_chunk(s);
}

static void xml_escape_into(vx_gdbserver *s, const char *text)
{
    for (const char *c = text; *c; c++) {
        if (*c == '<')
            out_str(s, "&lt;");
        else if (*c == '>')
            out_str(s, "&gt;");
        else if (*c == '&')
            out_str(s, "&amp;");
        else
            out_add(s, c, 1);
    }
}

static void h_xfer_threads(vx_gdbserver *s, const args *a)
{
    if (a->slen < 1 || a->str[0] != ':') {
        reply(s, "E00");
        return;
    }
    const char *spec = a->str + 1;
    size_t n = a->slen - 1;
    args o;
    if (!parse_args("x,x", spec, spec + n, &o)) {
        reply(s, "E01");
        return;
    }
    if (o.v[0] == 0 || !s->threads_xml) {
        /* Build the whole document at offset 0; later offsets slice the same text. */
        note_listing(s);
        out_reset(s);
        out_str(s, "<?xml version=\"1.0\"?>\n<threads>\n");
        /* a cursor of its own: a qsThreadInfo listing in progress goes on */
        thread_cursor cur = {0, 0};
        uint32_t gw, lane;
        while (next_thread(s, &cur, &gw, &lane)) {
            char text[224];
            uint32_t shown = s->opts.thread_per_warp ? shown_lane(s, gw) : lane;
            uint32_t core = core_of(s, gw);
            thread_extra(s, gw, shown, text, sizeof text);
            out_printf(s, "<thread id=\"%" PRIx64 "\" core=\"%" PRIu32 "\" name=\"",
                       vx_gdbserver_tid(s, gw, lane), core);
            if (s->opts.thread_per_warp)
                out_printf(s, "warp %" PRIu32, gw);
            else
                out_printf(s, "warp %" PRIu32 " lane %" PRIu32, gw, lane);
            out_str(s, "\">");
            xml_escape_into(s, text);
            out_str(s, "</thread>\n");
        }
        out_str(s, "</threads>\n");
        if (s->out_failed) {
            reply(s, "E0c");
            return;
        }
        free(s->threads_xml);
        s->threads_xml = malloc(s->out_len + 1);
        if (!s->threads_xml) {
            reply(s, "E0c");
            return;
        }
        memcpy(s->threads_xml, s->out, s->out_len + 1);
        s->threads_xml_len = s->out_len;
    }
    /* The document in the reply buffer is copied out before the buffer is reused. */
    xfer_slice(s, s->threads_xml, s->threads_xml_len, spec, n);
}

static void h_current_thread(vx_gdbserver *s, const args *a)
{
    (void)a;
    uint32_t lane = s->opts.thread_per_warp ? shown_lane(s, s->focus_gw) : s->focus_lane;
    out_reset(s);
    out_printf(s, "QC%" PRIx64, vx_gdbserver_tid(s, s->focus_gw, lane));
    out_send(s);
}

static void h_attached(vx_gdbserver *s, const args *a)
{
    (void)a;
    reply(s, "1"); /* attached: quitting GDB detaches and the server lives on */
}

static void h_offsets(vx_gdbserver *s, const args *a)
{
    (void)a;
    reply(s, "Text=0;Data=0;Bss=0");
}

static void h_symbol(vx_gdbserver *s, const args *a)
{
    (void)a;
    reply(s, "OK"); /* no symbols needed */
}

static void h_empty(vx_gdbserver *s, const args *a)
{
    (void)a;
    reply(s, "");
}

/* ---- monitor commands ------------------------------------------------------------------------ */

typedef struct text {
    char *buf;
    size_t len, cap;
} text;

static void tprintf(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void tprintf(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(t->buf ? t->buf + t->len : NULL, t->buf ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (k < 0) return;
        if (t->buf && (size_t)k < t->cap - t->len) {
            t->len += (size_t)k;
            return;
        }
        size_t ncap = (t->cap + (size_t)k + 256) * 2;
        char *nb = realloc(t->buf, ncap);
        if (!nb) return;
        t->buf = nb;
        t->cap = ncap;
    }
}

static void mon_help(vx_gdbserver *s, text *t, const char *arg)
{
    (void)s;
    (void)arg;
    tprintf(
        t,
        "vxreplay monitor commands:\n"
        "  when               current event index, cycle, and the warp that issues next\n"
        "  seek N             go to event index N (without vxrr.gdb, then: maint flush\n"
        "                     register-cache)\n"
        "  last-issue W       back to global warp W's last issue before now (a warp that\n"
        "                     finished or waits: its last instruction; vxrr.gdb: vx-last)\n"
        "  warps              every warp: PC, thread mask, IPDOM depth, state\n"
        "  lane [N [exact]|auto [N]]  lane whose registers a warp thread shows\n"
        "                     (--thread-per-warp): N while active, else the first\n"
        "                     active one; exact: N even masked off, at its own PC\n"
        "  info dm            Debug Module state: halted warps, hacause, ebreak-halt\n"
        "  checkpoint         remember the current position (prints its number)\n"
        "  restart N          go back to checkpoint N\n"
        "  stop-step [TID|off]  the next step (s, bs, vCont;s) moves nothing and\n"
        "                     reports a stop of its thread here (with TID: only if\n"
        "                     thread TID is live); vxrr.gdb steps so after a seek, to\n"
        "                     show GDB (and an IDE) a real stop\n"
        "  pick TID|off       the thread selected for the next continue (sent by\n"
        "                     vxrr.gdb): a breakpoint stop reports its lane when it\n"
        "                     takes part\n"
        "  info checkpoints   user checkpoints\n"
        "  stats              replay statistics (checkpoints, memory, issues replayed, packets)\n"
        "  config             platform shape and thread numbering (for scripts)\n"
        "  console [N|all]    the last N (20) lines the kernel printed before now\n"
        "  mem CORE ADDR [LEN]  memory as core CORE sees it (its local memory too, also\n"
        "                     when no thread of the core is listed); numbers are\n"
        "                     decimal or 0x hex: ADDR 0x80000000\n"
        "  thread-breaks [TID:ADDR ...]  GDB's thread-specific breakpoints (hex), set\n"
        "                     by vxrr.gdb: a warp stopping at ADDR reports thread TID\n"
        "                     when that lane is active (no argument: none)\n"
        "  watch-core TYPE ADDR LEN CORE  set by vxrr.gdb as GDB makes a watchpoint\n"
        "                     (Z TYPE at ADDR, LEN bytes): in local memory it watches\n"
        "                     core CORE's, whoever is selected when GDB inserts it\n"
        "  help               this text\n"
        "Positions: event N is 'N issues executed, issue N next'.\n");
}

/* A thread mask as monitor commands print it: 0x hex, 32 digits past 64 lanes. */
static void mask_text(const vx_gdbserver *s, vx_lanes m, char out[40])
{
    uint64_t hi = (uint64_t)(m >> 64), lo = (uint64_t)m;
    if (s->threads > 64)
        snprintf(out, 40, "0x%016" PRIx64 "%016" PRIx64, hi, lo);
    else
        snprintf(out, 40, "0x%" PRIx64, lo);
}

static void mon_when(vx_gdbserver *s, text *t, const char *arg)
{
    (void)arg;
    uint64_t now = vx_engine_now(s->e), end = vx_engine_end(s->e);
    vx_engine_issue is;
    tprintf(t, "event %" PRIu64 " of %" PRIu64, now, end);
    if (vx_engine_next_issue(s->e, &is)) {
        /* lanes, not a thread id: GDB numbers its threads in its own order, and "thread N"
         * here would read as its Thread N */
        char lanes[40];
        mask_text(s, is.tmask, lanes);
        tprintf(t,
                ", cycle %" PRIu64 ": core %" PRIu32 " warp %" PRIu32 " (gwarp %" PRIu32
                ", lanes %s) issues pc 0x%08" PRIx32 "%s\n",
                is.cycle, is.core, is.warp, is.gwarp, lanes, is.pc, is.faults ? " and faults" : "");
    } else if (now < end) {
        const char *m = vx_engine_errmsg(s->e);
        tprintf(t, ": the trace cannot be read past here (%s)\n", m && *m ? m : "unreadable chunk");
    } else {
        uint32_t code = 0;
        vx_fault f;
        uint8_t st = vx_engine_end_status(s->e, &code, &f);
        const uint64_t cyc = vx_sim_cycle(sim_of(s)), end_cyc = vx_engine_end_cycle(s->e);
        tprintf(t, ": end of history, cycle %" PRIu64 " (%s", cyc,
                st == VX_END_EXIT    ? "the kernel exited"
                : st == VX_END_FAULT ? "the kernel faulted"
                : st == VX_END_LIMIT ? "cycle limit reached"
                                     : "recording stopped");
        /* a deadlock, or the cycle limit, is found cycles after the last issue: at the
         * cycle vxdump and vxrec name */
        if (end_cyc > cyc) tprintf(t, " at cycle %" PRIu64, end_cyc);
        tprintf(t, ")\n");
    }
}

/* A number of a monitor command: 0x... hex, else decimal (010 is ten, not octal), after
 * any spaces; *end is s itself when there is none. */
static unsigned long long parse_num(const char *s, char **end)
{
    const char *p = s;
    while (*p == ' ')
        p++;
    char *e;
    unsigned long long v = strtoull(p, &e, vx_num_base(p));
    *end = e == p ? (char *)s : e;
    return v;
}

static bool parse_u64(const char *arg, uint64_t *v)
{
    if (!arg || !*arg) return false;
    char *end;
    errno = 0;
    unsigned long long x = parse_num(arg, &end);
    while (*end == ' ')
        end++;
    if (*end || arg[0] == '-' || errno == ERANGE) return false;
    *v = x;
    return true;
}

static void mon_seek(vx_gdbserver *s, text *t, const char *arg)
{
    uint64_t n;
    const uint64_t end = vx_engine_end(s->e);
    if (!parse_u64(arg, &n)) {
        tprintf(t, "usage: monitor seek N (an event index, 0..%" PRIu64 ")\n", end);
        return;
    }
    if (n > end) {
        tprintf(t, "event %" PRIu64 " is past the end of history: going to its end\n", n);
        n = end;
    }
    motion_start(s, false);
    bool stopped = false;
    vx_err err = vx_engine_seek_polled(s->e, n, &stopped);
    if (err) {
        const char *m = vx_engine_errmsg(s->e);
        tprintf(t, "seek failed: %s\n", m && *m ? m : vx_strerror(err));
        if (s->opts.log) fprintf(s->opts.log, "vxreplay: %s\n", m && *m ? m : vx_strerror(err));
    } else if (stopped) {
        tprintf(t, "seek to event %" PRIu64 " interrupted at event %" PRIu64 "\n", n,
                vx_engine_now(s->e));
    }
    time_jumped(s);
    mon_when(s, t, NULL);
}

/* monitor last-issue W: back to global warp W's last issue before here, W about to
 * issue it (a warp that finished or waits: its last instruction, where a reverse
 * step of its own thread would go, also when GDB never listed its threads); W is then
 * the current warp, its first active lane the thread shown. */
static void mon_last_issue(vx_gdbserver *s, text *t, const char *arg)
{
    uint64_t w;
    if (!parse_u64(arg, &w) || w >= s->nwarps) {
        tprintf(t, "usage: monitor last-issue W (a global warp, 0..%" PRIu32 ")\n", s->nwarps - 1);
        return;
    }
    vx_engine_motion m = {.backward = true, .step = true, .step_gwarp = (uint32_t)w};
    vx_engine_stop st;
    const uint64_t from = vx_engine_now(s->e);
    motion_start(s, true);
    vx_err err = vx_engine_resume(s->e, &m, &st);
    if (err) {
        const char *msg = vx_engine_errmsg(s->e);
        tprintf(t, "going back failed: %s\n", msg && *msg ? msg : vx_strerror(err));
    } else if (st.why == VX_WHY_BEGIN) {
        tprintf(t, "warp %" PRIu64 " issued nothing before event %" PRIu64 "\n", w, from);
    } else if (st.why == VX_WHY_STEP) {
        vx_warp_info wi;
        s->focus_gw = (uint32_t)w;
        s->focus_lane = warp_info(s, s->focus_gw, &wi) && wi.tmask ? vx_lanes_first(wi.tmask) : 0;
    } else if (st.why == VX_WHY_INTERRUPT) {
        tprintf(t, "interrupted before warp %" PRIu64 "'s last issue was found\n", w);
    }
    time_jumped(s);
    mon_when(s, t, NULL);
}

/* monitor stop-step [TID | off]: the next step answers at once, where the server is
 * (stop_here), so that GDB sees a stop after a seek; "off" takes that back.  With TID
 * (the thread vxrr.gdb is about to step) only while that thread is live here (warp_live:
 * listed is not enough, a finished or not-started warp stays listed), else
 * it says so: GDB takes a stop of a thread it did not step for a stray SIGTRAP, and
 * vxrr.gdb then selects a live thread first. */
static void mon_stop_step(vx_gdbserver *s, text *t, const char *arg)
{
    uint64_t tid;
    uint32_t gw, lane;
    if (arg && strcmp(arg, "off") == 0) {
        s->stop_armed = false;
    } else if (!arg || !*arg) {
        s->stop_armed = true;
    } else if (!parse_u64(arg, &tid) || tid > INT64_MAX) {
        tprintf(t, "usage: monitor stop-step [TID | off]\n");
    } else if (!tid_decode(s, (int64_t)tid, &gw, &lane) || !warp_live(s, gw)) {
        tprintf(t, "thread %" PRIu64 " is not live here: not armed\n", tid);
    } else {
        s->stop_armed = true;
    }
}

/* monitor pick TID|off: the thread the user has selected, for the next continue (GDB
 * names no thread in vCont;c): its lane is the one a breakpoint stop reports when it
 * takes part, as for a thread GDB resumed alone.  vxrr.gdb sends it from its continue
 * and reverse-continue hooks. */
static void mon_pick(vx_gdbserver *s, text *t, const char *arg)
{
    uint64_t tid;
    uint32_t gw, lane;
    if (arg && strcmp(arg, "off") == 0)
        s->user_pick = 0;
    else if (!arg || !parse_u64(arg, &tid) || tid > INT64_MAX ||
             !tid_decode(s, (int64_t)tid, &gw, &lane))
        tprintf(t, "usage: monitor pick TID | off (TID: a thread id of this trace)\n");
    else
        s->user_pick = (int64_t)tid;
}

/* monitor console: the last `keep` complete lines, then the unfinished ones. */
typedef struct con_lines {
    char **ring;
    size_t keep, total;
    text *unfinished;
} con_lines;

static void con_line(void *ctx, uint32_t slot, const char *line, size_t len, bool complete)
{
    con_lines *c = ctx;
    if (!complete) {
        tprintf(c->unfinished, "#%" PRIu32 ": %.*s   (no newline yet)\n", slot, (int)len, line);
        return;
    }
    char **at = &c->ring[c->total++ % c->keep];
    free(*at);
    size_t n = len + 16;
    *at = malloc(n);
    if (*at) snprintf(*at, n, "#%" PRIu32 ": %.*s", slot, (int)len, line);
}

#define CONSOLE_MAX 100000u /* lines monitor console shows at most (all) */

static void mon_console(vx_gdbserver *s, text *t, const char *arg)
{
    uint64_t keep = 20;
    if (arg && strcmp(arg, "all") == 0)
        keep = CONSOLE_MAX;
    else if (arg && *arg && (!parse_u64(arg, &keep) || keep == 0 || keep > CONSOLE_MAX)) {
        tprintf(t, "usage: monitor console [N | all] (N: 1..%u lines, default 20)\n", CONSOLE_MAX);
        return;
    }
    text unfinished = {0};
    con_lines c = {calloc((size_t)keep, sizeof(char *)), (size_t)keep, 0, &unfinished};
    if (!c.ring) {
        tprintf(t, "out of memory\n");
        return;
    }
    uint64_t now = vx_engine_now(s->e);
    vx_err err = vx_engine_console(s->e, now, con_line, &c);
    size_t first = c.total > c.keep ? c.total - c.keep : 0;
    if (first && keep == CONSOLE_MAX) /* all: the most there is */
        tprintf(t, "(%zu earlier line%s not shown: at most the last %u are)\n", first,
                first == 1 ? "" : "s", CONSOLE_MAX);
    else if (first)
        tprintf(t, "(%zu earlier line%s; monitor console all)\n", first, first == 1 ? "" : "s");
    for (size_t i = first; i < c.total; i++)
        tprintf(t, "%s\n", c.ring[i % c.keep] ? c.ring[i % c.keep] : "(line lost: out of memory)");
    if (unfinished.len) tprintf(t, "%.*s", (int)unfinished.len, unfinished.buf);
    if (!c.total && !unfinished.len) tprintf(t, "nothing printed before event %" PRIu64 "\n", now);
    if (err) tprintf(t, "(the trace cannot be read further: %s)\n", vx_engine_errmsg(s->e));
    for (size_t i = 0; i < c.keep; i++)
        free(c.ring[i]);
    free(c.ring);
    free(unfinished.buf);
}

static void mon_warps(vx_gdbserver *s, text *t, const char *arg)
{
    (void)arg;
    /* current: the warp of the thread GDB last named (Hg: the one it shows), else the
     * last stop's */
    uint32_t cur = s->focus_gw, g_gw, g_lane;
    if (s->g_tid > 0 && tid_decode(s, s->g_tid, &g_gw, &g_lane)) cur = g_gw;
    tprintf(t, "%-6s %-4s %-4s %-10s %-34s %-5s %s\n", "gwarp", "core", "warp", "pc", "tmask",
            "ipdom", "state");
    for (uint32_t gw = 0; gw < s->nwarps; gw++) {
        vx_warp_info wi;
        if (!warp_info(s, gw, &wi)) continue;
        char st[96], mask[40];
        warp_state_text(s, gw, st, sizeof st);
        mask_text(s, wi.tmask, mask);
        uint32_t core = core_of(s, gw);
        tprintf(t,
                "%-6" PRIu32 " %-4" PRIu32 " %-4" PRIu32 " 0x%08" PRIx32 " %-34s %-5" PRIu32
                " %s%s\n",
                gw, core, gw - core * s->warps_per_core, wi.pc, mask, wi.ipdom_depth, st,
                gw == cur ? "  <- current" : "");
    }
}

/* What a warp thread shows without `monitor lane N` (shown_lane). */
#define LANE_AUTO_TEXT                                                                        \
    "a warp thread shows the lane of the last stop or step when it is that warp's, else its " \
    "first active lane"

/* monitor lane [N [exact] | auto [N]] */
static void mon_lane(vx_gdbserver *s, text *t, const char *arg)
{
    uint64_t n;
    char word[32] = "", extra[32] = "";
    int nw = arg ? sscanf(arg, "%31s %31s", word, extra) : 0;
    if (nw <= 0) {
        if (s->opts.thread_per_warp && s->sel_lane >= 0)
            tprintf(t,
                    "every warp thread shows lane %" PRId32 "%s (monitor lane auto: as stops go)",
                    s->sel_lane,
                    s->sel_exact ? " exactly, also masked off (at its own PC)"
                                 : " where it is active, else its first active lane");
        else if (s->opts.thread_per_warp)
            tprintf(t, "auto: %s", LANE_AUTO_TEXT);
        else
            tprintf(t,
                    "current thread: warp %" PRIu32 " lane %" PRIu32 " (target id Thread %" PRIu64
                    ")\n",
                    s->focus_gw, s->focus_lane, vx_gdbserver_tid(s, s->focus_gw, s->focus_lane));
        if (s->opts.thread_per_warp)
            tprintf(t, " (warp %" PRIu32 ", of the last stop, shows lane %" PRIu32 ")\n",
                    s->focus_gw, shown_lane(s, s->focus_gw));
        return;
    }
    const bool is_auto = strcmp(word, "auto") == 0;
    const bool exact = nw == 2 && !is_auto && strcmp(extra, "exact") == 0;
    const bool ok = is_auto ? nw == 1 || (parse_u64(extra, &n) && n < s->threads)
                            : parse_u64(word, &n) && n < s->threads && (nw == 1 || exact);
    if (!ok) {
        tprintf(t, "usage: monitor lane N [exact] (N: 0..%" PRIu32 ") or monitor lane auto [N]\n",
                s->threads - 1);
        return;
    }
    if (is_auto) {
        s->sel_lane = -1;
        s->sel_exact = false;
        /* auto, with the last stop's warp showing lane N (a stop vxrr.gdb picks a lane of) */
        if (nw == 2 && s->opts.thread_per_warp) s->focus_lane = (uint32_t)n;
        tprintf(t, "auto: %s\n", LANE_AUTO_TEXT);
        return;
    }
    if (s->opts.thread_per_warp) {
        s->sel_lane = (int32_t)n;
        s->sel_exact = exact;
        tprintf(t,
                "registers now show lane %" PRIu64
                "%s (without vxrr.gdb, then: maint flush register-cache)\n",
                n,
                exact ? ", also masked off (until the next resume or seek)"
                      : " where it is active, else the warp's first active lane");
    } else {
        /* GDB numbers its threads itself: only the target id is the server's */
        tprintf(t,
                "lane %" PRIu64 " of warp %" PRIu32 " is target id Thread %" PRIu64
                " in `info threads` (select it with vxrr.gdb's vx-lane %" PRIu64 ")\n",
                n, s->focus_gw, vx_gdbserver_tid(s, s->focus_gw, (uint32_t)n), n);
    }
}

static const char *hacause_name(uint8_t c)
{
    switch (c) {
    case VX_HACAUSE_NONE: return "none";
    case VX_HACAUSE_EBREAK: return "ebreak";
    case VX_HACAUSE_HALTREQ: return "haltreq";
    case VX_HACAUSE_STEP: return "step";
    case VX_HACAUSE_RESETHALTREQ: return "resethaltreq";
    }
    return "?";
}

static void mon_info_dm(vx_gdbserver *s, text *t)
{
    tprintf(t, "ebreak-halt (DCONFIG.ebreakh): %s\n", vx_engine_ebreak_halt(s->e) ? "on" : "off");
    uint32_t nh = 0;
    for (uint32_t gw = 0; gw < s->nwarps; gw++) {
        vx_warp_info wi;
        if (!warp_info(s, gw, &wi) || !wi.halted) continue;
        tprintf(t, "warp %" PRIu32 " halted, hacause %u (%s), pc 0x%08" PRIx32 "\n", gw, wi.hacause,
                hacause_name(wi.hacause), wi.pc);
        nh++;
    }
    if (!nh) tprintf(t, "no warp is halted by the Debug Module\n");
}

static void mon_checkpoint(vx_gdbserver *s, text *t, const char *arg)
{
    (void)arg;
    unsigned id;
    vx_err err = vx_engine_checkpoint(s->e, &id);
    if (err)
        tprintf(t, "checkpoint failed: %s\n", vx_strerror(err));
    else
        tprintf(t, "checkpoint %u at event %" PRIu64 "\n", id, vx_engine_now(s->e));
    vx_engine_stats st;
    vx_engine_get_stats(s->e, &st);
    if (!err && st.checkpoint_bytes > st.budget)
        tprintf(t,
                "note: the checkpoints take %.1f MiB, more than --mem (%.1f MiB); the ones "
                "monitor checkpoint made are kept all the same, the others get a quarter of "
                "--mem beyond them\n",
                (double)st.checkpoint_bytes / 1048576.0, (double)st.budget / 1048576.0);
}

static void mon_restart(vx_gdbserver *s, text *t, const char *arg)
{
    uint64_t n;
    if (!parse_u64(arg, &n) || n > UINT32_MAX) {
        tprintf(t, "usage: monitor restart N (a number printed by monitor checkpoint)\n");
        return;
    }
    motion_start(s, false);
    vx_err err = vx_engine_restart(s->e, (unsigned)n);
    if (err == VX_ERR_RANGE) {
        tprintf(t, "no checkpoint %" PRIu64 "\n", n);
        return;
    }
    if (err) {
        const char *m = vx_engine_errmsg(s->e);
        tprintf(t, "restart failed: %s\n", m && *m ? m : vx_strerror(err));
        return;
    }
    time_jumped(s);
    mon_when(s, t, NULL);
}

static void mon_info_checkpoints(vx_gdbserver *s, text *t)
{
    unsigned n = 0;
    for (unsigned id = 1, last = vx_engine_checkpoint_last(s->e); id <= last; id++) {
        uint64_t pos;
        if (!vx_engine_checkpoint_get(s->e, id, &pos)) continue;
        tprintf(t, "checkpoint %u at event %" PRIu64 "\n", id, pos);
        n++;
    }
    if (!n) tprintf(t, "no checkpoints (monitor checkpoint makes one)\n");
}

static void mon_stats(vx_gdbserver *s, text *t, const char *arg)
{
    (void)arg;
    vx_engine_stats st;
    vx_engine_get_stats(s->e, &st);
    tprintf(t,
            "issues replayed %" PRIu64 " (verified %" PRIu64 ", from the schedule cache %" PRIu64
            "), scanned %" PRIu64 ", skipped by the summary %" PRIu64 ", restores %" PRIu64
            ", reader seeks %" PRIu64 "\ncheckpoints %" PRIu32
            " using %.1f MiB of %.1f MiB, keyframes %" PRIu32 "\n",
            st.replayed, st.verified, st.cached, st.scanned, st.skipped, st.restores,
            st.reader_seeks, st.checkpoints, (double)st.checkpoint_bytes / 1048576.0,
            (double)st.budget / 1048576.0, st.keyframes);
    if (st.summary_blocks) {
        tprintf(t, "trace summary: %" PRIu64 " of %" PRIu64 " chunk digests", st.summary_ready,
                st.summary_blocks);
        if (st.summary_chunks > st.summary_blocks) /* (runs of chunks share a digest) */
            tprintf(t, " (of runs of up to %" PRIu64 " of the %" PRIu64 " chunks)",
                    (st.summary_chunks + st.summary_blocks - 1) / st.summary_blocks,
                    st.summary_chunks);
        if (st.summary_damaged)
            tprintf(t, ", %" PRIu64 " damaged (searched by their events)", st.summary_damaged);
        tprintf(t, "\n");
    }
    tprintf(t,
            "packets %" PRIu64 " (this session), thread lists sent %" PRIu64
            ", register reads %" PRIu64 "\n",
            s->n_packets, s->n_lists, s->n_regreads);
    tprintf(t, "watchpoints %zu inserted, %zu removed remembered (of %u at most)\n", s->wz.n,
            s->wpark.n, WZ_REMEMBER);
}

/* Machine-readable shape, for scripts (vxrr.gdb). */
static void mon_config(vx_gdbserver *s, text *t, const char *arg)
{
    (void)arg;
    tprintf(t,
            "clusters=%" PRIu32 " cores=%" PRIu32 " warps=%" PRIu32 " threads=%" PRIu32
            " gdb_thread=%s lane=%" PRIu32 " events=%" PRIu64 " thread=%" PRIu64 "\n",
            s->cfg->clusters, s->cfg->cores, s->cfg->warps, s->cfg->threads,
            s->opts.thread_per_warp ? "warp" : "lane", shown_lane(s, s->focus_gw),
            vx_engine_end(s->e), vx_gdbserver_tid(s, s->focus_gw, shown_lane(s, s->focus_gw)));
}

/* monitor mem CORE ADDR [LEN]: memory as core CORE sees it (its local memory at
 * 0xFFFF0000...), also when no thread of that core is listed (GDB's own reads take the
 * selected thread's core). */
static void mon_mem(vx_gdbserver *s, text *t, const char *arg)
{
    unsigned long long core = 0, addr = 0, len = 64;
    char *e = NULL;
    const char *p = arg ? arg : "";
    core = parse_num(p, &e);
    bool ok = e != p;
    if (ok) {
        p = e;
        addr = parse_num(p, &e);
        ok = e != p && addr <= 0xffffffffull;
    }
    if (ok) {
        p = e;
        while (*p == ' ')
            p++;
        if (*p) {
            len = parse_num(p, &e);
            ok = e != p && !*e && len >= 1 && len <= 4096;
        }
    }
    const uint32_t ncores = num_cores(s);
    if (!ok || core >= ncores) {
        tprintf(t,
                "usage: monitor mem CORE ADDR [LEN]: LEN (1..4096, default 64) bytes at ADDR as "
                "core CORE (0..%" PRIu32 ") sees them (decimal, or hex as 0x80000000)\n",
                ncores - 1);
        return;
    }
    uint8_t buf[4096];
    size_t got = read_mem(s, (uint32_t)core, addr, buf, (size_t)len);
    for (size_t i = 0; i < got; i += 16) {
        tprintf(t, "0x%08llx:", (unsigned long long)(addr + i));
        for (size_t j = i; j < got && j < i + 16; j++)
            tprintf(t, " %02x", buf[j]);
        tprintf(t, "\n");
    }
    if (got < len) tprintf(t, "0x%08llx: not mapped\n", (unsigned long long)(addr + got));
}

static void mon_thread_breaks(vx_gdbserver *s, text *t, const char *arg)
{
    size_t n = 0, cap = 0;
    tbreak *v = NULL;
    for (const char *p = arg ? arg : ""; *p;) {
        while (*p == ' ')
            p++;
        if (!*p) break;
        char *e;
        unsigned long long tid = strtoull(p, &e, 16), addr;
        uint32_t gw, lane;
        if (e == p || *e != ':' || !tid_decode(s, (int64_t)tid, &gw, &lane)) goto bad;
        p = e + 1;
        addr = strtoull(p, &e, 16);
        if (e == p || (*e && *e != ' ') || addr > 0xffffffffull) goto bad;
        p = e;
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            tbreak *nv = realloc(v, cap * sizeof *v);
            if (!nv) goto bad;
            v = nv;
        }
        v[n].gw = gw;
        v[n].lane = lane;
        v[n].addr = (uint32_t)addr;
        n++;
    }
    free(s->tb);
    s->tb = v;
    s->ntb = n;
    tprintf(t, "%zu thread-specific breakpoint location%s\n", n, n == 1 ? "" : "s");
    return;
bad:
    free(v);
    tprintf(t, "usage: monitor thread-breaks [TID:ADDR ...] (hex thread ids and addresses)\n");
}

/* monitor watch-core TYPE ADDR LEN CORE (vxrr.gdb, as GDB makes a watchpoint): the
 * local memory it watches is that core's, whichever thread is selected when GDB
 * inserts it (again). */
static void mon_watch_core(vx_gdbserver *s, text *t, const char *arg)
{
    unsigned long long v[4];
    const uint32_t ncores = num_cores(s);
    const char *p = arg ? arg : "";
    for (int i = 0; i < 4; i++) {
        char *e;
        while (*p == ' ')
            p++;
        if (!*p || *p == '-') goto bad;
        v[i] = parse_num(p, &e);
        if (e == p || (*e && *e != ' ')) goto bad;
        p = e;
    }
    while (*p == ' ')
        p++;
    if (*p || v[0] < 2 || v[0] > 4 || v[1] > UINT32_MAX || v[2] == 0 || v[2] > UINT32_MAX ||
        v[3] >= ncores)
        goto bad;
    const wzpoint w = {(uint8_t)v[0], (uint32_t)v[1], (uint32_t)v[2], (uint32_t)v[3]};
    if (!wz_put(&s->wbound, &w)) {
        tprintf(t, "out of memory\n");
        return;
    }
    tprintf(t, "watchpoint Z%u 0x%08" PRIx32 ",%" PRIu32 ": core %" PRIu32 "\n", w.type, w.addr,
            w.len, w.core);
    return;
bad:
    tprintf(t,
            "usage: monitor watch-core TYPE ADDR LEN CORE (TYPE 2 write, 3 read, 4 access; "
            "CORE 0..%" PRIu32 ")\n",
            ncores - 1);
}

static void mon_info(vx_gdbserver *s, text *t, const char *arg)
{
    if (arg && strcmp(arg, "dm") == 0)
        mon_info_dm(s, t);
    else if (arg && strcmp(arg, "checkpoints") == 0)
        mon_info_checkpoints(s, t);
    else
        tprintf(t, "usage: monitor info dm | monitor info checkpoints\n");
}

static const struct {
    const char *name;
    void (*fn)(vx_gdbserver *, text *, const char *);
    bool noarg; /* takes no argument: one is an error, not ignored */
} monitor_cmds[] = {
    {"help", mon_help, false}, /* "help seek" shows the whole list */
    {"when", mon_when, true},
    {"seek", mon_seek, false},
    {"last-issue", mon_last_issue, false},
    {"warps", mon_warps, true},
    {"lane", mon_lane, false},
    {"info", mon_info, false},
    {"checkpoint", mon_checkpoint, true},
    {"restart", mon_restart, false},
    {"stop-step", mon_stop_step, false},
    {"pick", mon_pick, false},
    {"stats", mon_stats, true},
    {"config", mon_config, true},
    {"console", mon_console, false},
    {"thread-breaks", mon_thread_breaks, false},
    {"watch-core", mon_watch_core, false},
    {"mem", mon_mem, false},
};

static void h_rcmd(vx_gdbserver *s, const args *a)
{
    size_t n = a->slen / 2;
    char *cmd = malloc(n + 1);
    if (!cmd || vx_rsp_hex_decode((uint8_t *)cmd, n, a->str, a->slen) == SIZE_MAX) {
        free(cmd);
        reply(s, "E01");
        return;
    }
    cmd[n] = 0;
    /* split "name rest" at blanks (a trailing newline included) */
    char *p = cmd;
    while (*p && strchr(" \t\r\n", *p))
        p++;
    char *name = p;
    while (*p && !strchr(" \t\r\n", *p))
        p++;
    if (*p) *p++ = 0;
    while (*p && strchr(" \t\r\n", *p))
        p++;
    char *argend = p + strlen(p);
    while (argend > p && strchr(" \t\r\n", argend[-1]))
        *--argend = 0;
    text t = {0};
    bool found = false;
    for (size_t i = 0; i < VX_ARRAY_SIZE(monitor_cmds); i++) {
        if (strcmp(name, monitor_cmds[i].name) == 0) {
            if (monitor_cmds[i].noarg && *p)
                tprintf(&t, "usage: monitor %s (takes no argument)\n", name);
            else
                monitor_cmds[i].fn(s, &t, p);
            found = true;
            break;
        }
    }
    if (!found) {
        if (*name)
            tprintf(&t, "unknown monitor command '%s' (try: monitor help)\n", name);
        else
            mon_help(s, &t, p);
    }
    if (t.buf) console_text(s, t.buf, t.len);
    free(t.buf);
    free(cmd);
    reply(s, "OK");
}

/* ---- dispatch --------------------------------------------------------------------------------- */

typedef struct cmd {
    const char *name;
    bool prefix; /* the name starts the packet; the schema parses what follows */
    const char *schema;
    void (*fn)(vx_gdbserver *, const args *);
} cmd;

/* Where names share a stem, the longer one comes first (the first match wins). */
static const cmd commands[] = {
    {"?", false, "", h_query_stop},
    {"g", false, "", h_read_regs},
    {"G", true, "*", h_write},
    {"p", true, "x", h_read_reg},
    {"P", true, "*", h_write},
    {"m", true, "x,x", h_read_mem},
    {"M", true, "*", h_write},
    {"x", true, "x,x", h_read_mem_bin},
    {"X", true, "*", h_write},
    {"Hg", true, "t", h_hg},
    {"Hc", true, "t", h_hc},
    {"T", true, "t", h_thread_alive},
    {"Z", true, "x,x,x?s", h_z_insert},
    {"z", true, "x,x,x*", h_z_remove},
    {"c", true, "?x", h_continue},
    {"C", true, "x?;x", h_continue_sig},
    {"s", true, "?x", h_step},
    {"S", true, "x?;x", h_step_sig},
    {"bc", false, "", h_rcontinue},
    {"bs", false, "", h_rstep},
    {"k", false, "", h_kill},
    {"D", true, "*", h_detach},
    {"vCont?", false, "", h_vcont_query},
    {"vCont;", true, "s", h_vcont},
    {"vKill", true, "*", h_vkill},
    {"vMustReplyEmpty", false, "", h_empty},
    {"qSupported", true, "s", h_supported},
    {"qXfer:features:read:", true, "s", h_xfer_features},
    {"qXfer:threads:read:", true, "s", h_xfer_threads},
    {"qfThreadInfo", false, "", h_first_thread},
    {"qsThreadInfo", false, "", h_next_thread},
    {"qThreadExtraInfo,", true, "t", h_extra_info},
    {"qC", false, "", h_current_thread},
    {"qAttached", true, "*", h_attached},
    {"qOffsets", false, "", h_offsets},
    {"qSymbol:", true, "*", h_symbol},
    {"qRcmd,", true, "s", h_rcmd},
    {"QStartNoAckMode", false, "", h_noack},
};

static void dispatch(vx_gdbserver *s, const char *pkt, size_t len)
{
    for (size_t i = 0; i < VX_ARRAY_SIZE(commands); i++) {
        const cmd *c = &commands[i];
        size_t nl = strlen(c->name);
        if (len < nl || memcmp(pkt, c->name, nl) != 0) continue;
        if (!c->prefix && len != nl) continue;
        args a;
        if (!parse_args(c->schema, pkt + nl, pkt + len, &a)) {
            reply(s, "E01"); /* a packet we know, with malformed arguments */
            return;
        }
        c->fn(s, &a);
        return;
    }
    reply(s, ""); /* unknown: "not supported" */
}

static void on_packet(void *ctx, const char *data, size_t len, vx_rsp_status st)
{
    vx_gdbserver *s = ctx;
    if (s->over) return;
    log_packet(s, "->", data, len);
    s->n_packets++;
    if (st != VX_RSP_OK) {
        reply(s, "E01"); /* too long or malformed: refuse it, stay in sync */
        return;
    }
    dispatch(s, data, len);
}

static void on_interrupt(void *ctx)
{
    vx_gdbserver *s = ctx;
    if (s->swallow_int)
        s->swallow_int = false;
    else
        s->pending_int = true;
}

static void on_write(void *ctx, const uint8_t *buf, size_t len)
{
    vx_gdbserver *s = ctx;
    if (s->io.write) s->io.write(s->io.ctx, buf, len);
}

/* ---- life cycle ----------------------------------------------------------------------------- */

vx_err vx_gdbserver_new(vx_engine *e, const vx_gdbserver_opts *opts, vx_gdbserver **out)
{
    *out = NULL;
    vx_gdbserver *s = calloc(1, sizeof *s);
    if (!s) return VX_ERR_NOMEM;
    s->e = e;
    if (opts) s->opts = *opts;
    s->cfg = vx_engine_config(e);
    s->nwarps = vx_sim_num_warps(vx_engine_sim(e));
    s->threads = s->cfg->threads ? s->cfg->threads : 1;
    s->warps_per_core = s->cfg->warps ? s->cfg->warps : 1;
    s->sel_lane = -1;
    s->sel_exact = false;
    vx_err err = vx_regmap_build(vx_engine_sim(e), &s->map);
    if (err) {
        free(s);
        return err;
    }
    s->xml = vx_target_xml(&s->map, &s->xml_len);
    static const vx_rsp_ops ops = {on_write, on_packet, on_interrupt};
    s->rsp = vx_rsp_new(&ops, s, PACKET_SIZE);
    s->listed = calloc(s->nwarps ? s->nwarps : 1, 1);
    s->over_w = calloc(s->nwarps ? s->nwarps : 1, sizeof *s->over_w);
    /* the reply buffer at the packet size from the start (see vx_rsp_new) */
    if (!s->xml || !s->rsp || !s->listed || !s->over_w || !out_reserve(s, PACKET_SIZE)) {
        vx_gdbserver_free(s);
        return VX_ERR_NOMEM;
    }
    *out = s;
    return VX_OK;
}

void vx_gdbserver_free(vx_gdbserver *s)
{
    if (!s) return;
    vx_rsp_free(s->rsp);
    vx_regmap_free(&s->map);
    free(s->xml);
    free(s->threads_xml);
    free(s->out);
    zp_clear_all(s);
    free(s->zp);
    free(s->tb);
    free(s->listed);
    free(s->over_w);
    free(s->wz.v);
    free(s->wpark.v);
    free(s->wbound.v);
    free(s);
}

void vx_gdbserver_begin(vx_gdbserver *s, const vx_gdb_io *io)
{
    s->io = *io;
    vx_rsp_reset(s->rsp);
    s->over = false;
    s->swbreak_ok = s->hwbreak_ok = false;
    s->g_tid = s->c_tid = s->user_pick = s->g_pick = 0;
    s->lists_since_stop = 0;
    s->sel_lane = -1;
    s->sel_exact = false;
    s->have_last_stop = false;
    s->over_valid = false;
    s->pending_int = s->swallow_int = false;
    s->stop_armed = false;
    s->n_packets = s->n_lists = s->n_regreads = 0;
    memset(s->listed, 0, s->nwarps); /* a new GDB: it numbers the threads anew */
    free(s->threads_xml);
    s->threads_xml = NULL;
    points_clear(s);
    /* Every session starts at the beginning of history, like a fresh replay: without
     * the checkpoints an earlier client made (they are never evicted). */
    vx_engine_checkpoints_drop(s->e);
    if (vx_engine_seek(s->e, 0) != VX_OK && s->opts.log)
        fprintf(s->opts.log, "vxreplay: %s\n", vx_engine_errmsg(s->e));
    default_focus(s);
}

bool vx_gdbserver_input(vx_gdbserver *s, const uint8_t *buf, size_t n)
{
    /* Fed up to each packet's end ('#' and two checksum digits) at a time, so that
     * what follows a packet is known while it runs (engine_poll). */
    size_t i = 0;
    while (i < n && !s->over) {
        const uint8_t *h = memchr(buf + i, '#', n - i);
        size_t end = h ? (size_t)(h - buf) + 3 : n;
        if (end > n) end = n;
        s->rest = buf + end;
        s->nrest = n - end;
        vx_rsp_feed(s->rsp, buf + i, end - i);
        i = end;
    }
    s->rest = NULL;
    s->nrest = 0;
    return !s->over;
}

bool vx_gdbserver_awaiting_ack(const vx_gdbserver *s)
{
    return vx_rsp_awaiting_ack(s->rsp);
}

void vx_gdbserver_end(vx_gdbserver *s)
{
    points_clear(s);
    s->over = true;
    memset(&s->io, 0, sizeof s->io);
}
