/*
 * record.c - vxrec: run a kernel on the simulator and write every event it reports
 * into a trace (trace-format/FORMAT.md).
 *
 * The simulator's observer hands us each event; we append it to the trace writer,
 * which buffers a chunk, compresses and writes it.  Keyframes (the simulator's
 * state encoding plus the pages written since the previous keyframe) are taken in
 * the observer right after a plain issue, when the machine is between two issues;
 * that works the same whether we drive vx_sim_run ourselves or the Debug Module
 * server (--dm-port) drives it.
 *
 * The END event is held back until the trace is finished: under --dm-port a
 * debugger may keep reading Debug Module registers after the kernel ended, and
 * those DM events must come before END in the trace.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rec.h"
#include "dmserver.h"
#include "pipe.h"

#define LOGBUF (64u << 10) /* the single-threaded compact log */

typedef struct rec rec;
static void log_flush(rec *r);

/* ---- small helpers ----------------------------------------------------------------------- */

static vx_err encode_state(vx_sim *s, uint8_t **buf, size_t *len)
{
    return vx_sim_state_encode(s, buf, len);
}

static const char *base_name(const char *p)
{
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

/* "12.3M" style numbers for the progress line and the summary. */
static const char *human(double v, char *buf, size_t cap)
{
    static const char *const suf[] = {"", "K", "M", "G", "T"};
    int i = 0;
    while (v >= 1000.0 && i < 4) {
        v /= 1000.0;
        i++;
    }
    snprintf(buf, cap, i ? "%.1f%s" : "%.0f%s", v, suf[i]);
    return buf;
}

/* ---- the recording --------------------------------------------------------------------------- */

struct rec {
    const vxrec_opts *o;
    const char *path;
    vx_sim *sim;
    vx_trace_writer *w;
    vx_err err; /* first recording error (message in errmsg) */
    char errmsg[600];
    /* The writer refused or failed on an event or keyframe it was given (rec_fail, the
     * writer thread's error): events are lost, so the trace is left cut off at its last
     * complete chunk, never finished with an END record after the gap.  werrmsg: the
     * writer thread's error when another one came first (in errmsg). */
    bool lost;
    bool placeholder; /* errmsg only says the writer thread stopped: its own error goes there */
    char werrmsg[600];
    bool keyframes;
    uint64_t kf_interval, next_kf;
    uint64_t last_kf; /* issues before the last keyframe */
    bool have_end;    /* END held back until finish */
    vx_event end;
    vx_fault end_fault;
    vxrec_pipe *pipe; /* writer thread, or NULL: encode in the simulator's thread */
    /* without the writer thread: the simulator's compact log, encoded a batch at a
     * time in this thread (fewer switches between simulating and encoding) */
    vx_log log;
    uint8_t *logbuf;
    uint64_t log_cycle0; /* cycle of the event before the log's first record */
    uint64_t nevents;    /* events other than issues (vx_sim_index counts those) */
    uint8_t *kf_pages;   /* pages of the keyframe being taken (writer-thread mode) */
    /* pages, their bytes (counted by keyframe_if_due), the buffer's size */
    size_t kf_npages, kf_bytes, kf_alloc;
    bool progress;
    bool dumb_term; /* TERM unset or dumb: no escape sequences, spaces clear the line */
    int shown_len;  /* characters of the progress line on screen */
    double t0, last_print;
    double cpu0; /* this thread's CPU seconds at t0 */
    bool progress_shown;
};

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

static void rec_fail(rec *r, vx_err e, const char *what)
{
    r->lost = true;
    if (r->err) return;
    r->err = e;
    snprintf(r->errmsg, sizeof r->errmsg, "%s: %s", what, vx_trace_writer_errmsg(r->w));
}

/* The writer thread's pipe took no more (an event or a keyframe, what): the thread
 * failed (its error comes from vxrec_pipe_finish), or no memory for the copy. */
static void pipe_refused(rec *r, const char *what)
{
    if (r->err) return;
    if (vxrec_pipe_failed(r->pipe)) {
        r->err = VX_ERR_IO;
        r->placeholder = true;
        snprintf(r->errmsg, sizeof r->errmsg, "the trace writer thread stopped");
    } else {
        r->err = VX_ERR_NOMEM;
        r->lost = true; /* (the pipe takes nothing after it: the trace ends before it) */
        snprintf(r->errmsg, sizeof r->errmsg,
                 "out of host memory: no room to copy %s for the trace writer thread", what);
    }
}

static void count_cb(void *ctx, uint32_t space, uint32_t addr, const uint8_t *page)
{
    (void)space, (void)addr, (void)page;
    ((rec *)ctx)->kf_bytes += 8 + VX_TRACE_PAGE_SIZE;
}

static void page_cb(void *ctx, uint32_t space, uint32_t addr, const uint8_t *page)
{
    rec *r = ctx;
    if (r->err) return;
    if (r->pipe) { /* copy now: the simulator goes on changing its memory */
        const size_t rec_len = 8 + VX_TRACE_PAGE_SIZE;
        if ((r->kf_npages + 1) * rec_len > r->kf_bytes) { /* counted before: never */
            r->err = VX_ERR_STATE;
            snprintf(r->errmsg, sizeof r->errmsg, "a keyframe's pages changed while taken");
            return;
        }
        uint8_t *d = r->kf_pages + r->kf_npages++ * rec_len;
        vx_put_le32(d, space);
        vx_put_le32(d + 4, addr);
        memcpy(d + 8, page, VX_TRACE_PAGE_SIZE);
        return;
    }
    vx_err e = vx_trace_writer_keyframe_page(r->w, space, addr, page);
    if (e) rec_fail(r, e, "cannot write a keyframe page");
}

/*
 * A keyframe: the state encoding and the pages written since the previous one.
 * Keyframe 0 (first) is taken right after loading: its memory is the prologue's
 * (the image and the loads, which the trace holds already), so it stores no page
 * (FORMAT.md §9.3: pages apply over the prologue's memory).
 */
static void take_keyframe(rec *r, bool first)
{
    log_flush(r);
    uint8_t *st = NULL;
    size_t len = 0;
    vx_err e = encode_state(r->sim, &st, &len);
    if (e) {
        r->err = e;
        snprintf(r->errmsg, sizeof r->errmsg,
                 "cannot encode the simulator state for a keyframe: %s", vx_strerror(e));
        free(st);
        return;
    }
    if (r->pipe) {
        /* the exact size first (keyframe_if_due counted the pages): one buffer
         * (usually the last keyframe's), no regrowth */
        r->kf_npages = 0;
        if (first) r->kf_bytes = 0;
        if (!(r->kf_pages = vxrec_pipe_pages(r->pipe, r->kf_bytes, &r->kf_alloc))) {
            free(st);
            r->err = VX_ERR_NOMEM;
            snprintf(r->errmsg, sizeof r->errmsg, "out of memory taking a keyframe");
            return;
        }
        if (!first) vx_sim_visit_pages(r->sim, false, page_cb, r);
        vx_sim_clear_dirty(r->sim);
        if (r->err) {
            free(st);
            free(r->kf_pages);
        } else if (!vxrec_pipe_keyframe(r->pipe, vx_sim_cycle(r->sim), st, len, r->kf_pages,
                                        r->kf_npages, r->kf_alloc)) {
            pipe_refused(r, "a keyframe");
        }
        r->kf_pages = NULL;
        return;
    }
    e = vx_trace_writer_keyframe_begin(r->w, vx_sim_cycle(r->sim), st, len);
    free(st);
    if (e) {
        rec_fail(r, e, "cannot write the events before a keyframe, or the keyframe");
        return;
    }
    if (!first) vx_sim_visit_pages(r->sim, false, page_cb, r);
    vx_sim_clear_dirty(r->sim);
    if (!r->err && (e = vx_trace_writer_keyframe_end(r->w)))
        rec_fail(r, e, "cannot write a keyframe");
}

/* Clear the progress line: an ANSI erase, or on a dumb terminal spaces over it. */
static void clear_progress(rec *r)
{
    if (r->dumb_term)
        fprintf(stderr, "\r%*s\r", r->shown_len, "");
    else
        fputs("\r\033[K", stderr);
    r->shown_len = 0;
}

static void show_progress(rec *r, bool final)
{
    char a[16], b[16], c[16], d[16], line[200];
    double t = vxrec_now() - r->t0;
    if (final) {
        if (r->progress_shown) clear_progress(r);
        return;
    }
    uint64_t bytes;
    if (r->pipe) {
        bytes = vxrec_pipe_file_bytes(r->pipe);
    } else {
        vx_trace_stats st;
        vx_trace_writer_stats(r->w, &st);
        bytes = st.file_bytes;
    }
    double n = (double)(vx_sim_index(r->sim) + r->nevents);
    int len =
        snprintf(line, sizeof line, "%s: %s events, %s cycles, trace %sB, %s events/s", vxrec_prog,
                 human(n, a, sizeof a), human((double)vx_sim_cycle(r->sim), b, sizeof b),
                 human((double)bytes, c, sizeof c), human(t > 0 ? n / t : 0, d, sizeof d));
    if (len < 0) len = 0;
    if (len >= (int)sizeof line) len = (int)sizeof line - 1;
    if (r->dumb_term) /* spaces over what is left of a longer line before */
        fprintf(stderr, "\r%s%*s", line, r->shown_len > len ? r->shown_len - len : 0, "");
    else
        fprintf(stderr, "\r\033[K%s", line);
    if (len > r->shown_len || !r->dumb_term) r->shown_len = len;
    fflush(stderr);
    r->progress_shown = true;
}

/* Encode what the compact log holds (single-threaded recording). */
static void log_flush(rec *r)
{
    if (!r->logbuf || r->log.pos == r->logbuf) return;
    uint64_t cycle = r->log_cycle0;
    vx_err e;
    vx_trace_writer_logrecs(r->w, r->logbuf, (size_t)(r->log.pos - r->logbuf), &cycle, &e);
    if (e) rec_fail(r, e, "cannot record an event");
    r->log.pos = r->logbuf;
    r->log_cycle0 = r->log.cycle;
}

static bool log_refill(vx_log *lg, size_t need)
{
    rec *r = lg->ctx;
    log_flush(r);
    return !r->err && need <= LOGBUF;
}

static void observer(void *ctx, const vx_event *ev)
{
    rec *r = ctx;
    if (r->err) return;
    if (r->logbuf) { /* the logged issues before this event first */
        log_flush(r);
        if (ev->kind != VX_EV_END) r->log.cycle = r->log_cycle0 = ev->cycle;
    }
    if (ev->kind == VX_EV_END) {
        r->end = *ev;
        if (ev->fault) {
            r->end_fault = *ev->fault;
            r->end.fault = &r->end_fault;
        }
        r->have_end = true;
        return;
    }
    if (ev->kind != VX_EV_ISSUE) r->nevents++;
    /* A Debug Module reset after the kernel ended starts it again: the END held back
     * is no longer the run's end (a recording stopped now ends with END = abort). */
    if (ev->kind == VX_EV_DM && ev->dm.op == VX_DM_RESET) r->have_end = false;
    if (r->pipe) {
        if (VX_UNLIKELY(!vxrec_pipe_event(r->pipe, ev))) {
            pipe_refused(r, "an event");
            return;
        }
    } else {
        vx_err e = vx_trace_writer_event(r->w, ev);
        if (e) {
            rec_fail(r, e, "cannot record an event");
            return;
        }
    }
}

/* The progress line: at the first slice boundary, then at most four times a second
 * (called between two slices). */
static void progress_tick(rec *r)
{
    if (!r->progress) return;
    double t = vxrec_now();
    if (t - r->last_print >= 0.25) {
        r->last_print = t;
        show_progress(r, false);
    }
}

/*
 * Between two vx_sim_run calls the machine is in a documented, resumable state:
 * keyframes are taken there (never inside the observer, where the simulator is in
 * the middle of its loop).  Due when the index reached the next multiple of the
 * interval; the trace stores the exact position anyway.
 */
/*
 * A keyframe stores the pages written since the previous one.  A kernel that writes
 * all over a large working set between two keyframes (strided stores touch every
 * page) would store the whole set each time, and the trace would grow with working
 * set x run length: when those pages exceed KF_WAIT_MIN bytes and KF_BYTES_PER_ISSUE
 * per issue since the previous keyframe, the keyframe waits for a later multiple of
 * the interval (so keyframes take at most that per issue, whatever the working set).
 */
#define KF_WAIT_MIN        (1u << 20)
#define KF_BYTES_PER_ISSUE 8u

static void keyframe_if_due(rec *r)
{
    if (!r->keyframes || !r->kf_interval || r->err || vx_sim_finished(r->sim)) return;
    uint64_t idx = vx_sim_index(r->sim);
    if (idx < r->next_kf) return;
    r->next_kf = (idx / r->kf_interval + 1) * r->kf_interval;
    r->kf_bytes = 0;
    vx_sim_visit_pages(r->sim, false, count_cb, r);
    if (r->kf_bytes > KF_WAIT_MIN && r->kf_bytes / KF_BYTES_PER_ISSUE > idx - r->last_kf) return;
    take_keyframe(r, false);
    r->last_kf = idx;
}

/* Issues to run before the next keyframe is due (at least 1, at most a slice). */
static uint64_t slice_budget(const rec *r)
{
    uint64_t b = 1u << 18, idx = vx_sim_index(r->sim);
    if (r->keyframes && r->kf_interval && r->next_kf > idx && r->next_kf - idx < b)
        b = r->next_kf - idx;
    return b;
}

static void on_slice(void *ctx)
{
    keyframe_if_due(ctx);
    progress_tick(ctx);
}

/* A console line of the kernel (ctx: the recording, or NULL).  The progress line, when
 * one is shown, is cleared first (the next tick draws it again), so that a console
 * line on the same terminal does not start in the middle of it. */
static void on_console(void *ctx, uint32_t slot, const char *line, size_t len)
{
    rec *r = ctx;
    if (r && r->progress_shown) {
        clear_progress(r);
        fflush(stderr);
        r->progress_shown = false;
    }
    vx_cli_console_line(slot, line, len);
    if (r && r->progress) fflush(stdout);
}

/* After a write error: what the file at path holds.  A trace cut off reads up to its
 * last complete chunk, when its prologue is whole.  A check that itself finds the host
 * out of memory says nothing of the file. */
static void say_cut_off(const char *path)
{
    vx_trace_reader *chk = NULL;
    vx_err e = vx_trace_reader_new(&chk);
    if (!e) e = vx_trace_reader_open(chk, path);
    vx_trace_reader_free(chk);
    if (!e)
        fprintf(stderr, "%s: the trace '%s' is incomplete\n", vxrec_prog, path);
    else if (e == VX_ERR_NOMEM)
        fprintf(stderr,
                "%s: the trace '%s' is incomplete; it could not be checked (out of host memory): "
                "it reads up to its last complete chunk unless the error came before its header "
                "was written whole\n",
                vxrec_prog, path);
    else
        fprintf(stderr,
                "%s: '%s' holds no readable trace: the error came before its header was "
                "written whole\n",
                vxrec_prog, path);
}

static void on_listen(void *ctx, const char *bind, unsigned port)
{
    (void)ctx;
    fprintf(stderr, "%s: Debug Module listening on %s:%u (VxDebug protocol); recording\n",
            vxrec_prog, bind, port);
    vx_cli_warn_exposed(vxrec_prog, bind);
    fflush(stderr);
}

/* What the Debug Module server has to say while it runs (a client it cannot accept). */
static void on_dm_note(void *ctx, const char *text)
{
    (void)ctx;
    fprintf(stderr, "%s: %s\n", vxrec_prog, text);
    fflush(stderr);
}

/* Default trace name: the kernel's basename without its extension, plus .vxt, here. */
static char *default_output(const char *kernel)
{
    const char *b = base_name(kernel);
    const char *dot = strrchr(b, '.');
    size_t n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
    char *p = malloc(n + sizeof VX_TRACE_SUFFIX);
    if (!p) return NULL;
    memcpy(p, b, n);
    memcpy(p + n, VX_TRACE_SUFFIX, sizeof VX_TRACE_SUFFIX);
    return p;
}

static void summary(rec *r, const char *kernel)
{
    vx_trace_stats st;
    char a[16], b[16], c[16];
    vx_trace_writer_stats(r->w, &st);
    uint32_t nw = vx_sim_num_warps(r->sim), ran = 0;
    for (uint32_t g = 0; g < nw; g++) {
        vx_warp_info wi;
        if (vx_sim_warp_info(r->sim, g, &wi) == VX_OK && wi.issued) ran++;
    }
    double per = st.issues ? (double)st.event_bytes / (double)st.issues : 0;
    vx_sim_stats ss; /* cycles as vxsim --stats and vxdump --summary count them */
    vx_sim_get_stats(r->sim, &ss);
    fprintf(stderr,
            "%s: recorded %s to %s\n"
            "%s:   %" PRIu64 " events (%" PRIu64 " issues, %" PRIu64
            " Debug Module events), %" PRIu64 " cycles, %u of %u warps ran\n"
            "%s:   trace %" PRIu64 " bytes (%sB), %.2f bytes/issue in event chunks, %" PRIu64
            " keyframe%s (%sB)\n"
            "%s:   raw commit log %" PRIu64 " bytes (%sB): compression ratio %.3gx\n",
            vxrec_prog, base_name(kernel), r->path, vxrec_prog, st.records, st.issues, st.dm_events,
            ss.cycles, ran, nw, vxrec_prog, st.file_bytes,
            human((double)st.file_bytes, a, sizeof a), per, st.keyframes,
            st.keyframes == 1 ? "" : "s", human((double)st.keyframe_bytes, b, sizeof b), vxrec_prog,
            st.raw_bytes, human((double)st.raw_bytes, c, sizeof c),
            st.file_bytes ? (double)st.raw_bytes / (double)st.file_bytes : 0.0);
}

static void discard_event(void *ctx, const vx_event *ev)
{
    (void)ev;
    ++*(uint64_t *)ctx;
}

/* --discard: the simulator with its observer on, and nothing else. */
/*
 * How the run ended, as vxsim says it (the fault with its function, the cycle limit), and
 * the exit status it gives; recorded: where the trace holds it.
 */
static int report_stop(const vxrec_opts *o, const vx_stop *stop, const vx_cli_loaded *ld,
                       vx_sim *sim, bool recorded)
{
    switch (stop->reason) {
    case VX_STOP_EXIT: return (int)(stop->exit_code & 0xff);
    case VX_STOP_FAULT: {
        char ft[600];
        vxd_symtab syms;
        vx_cli_kernel_symbols(ld, &syms);
        vx_cli_fault_text(&stop->fault, &syms, ft, sizeof ft);
        vxd_symtab_release(&syms);
        /* a deadlock is no instruction's fault: the END record (the next index) holds it */
        const bool in_end = stop->fault.kind == VX_FAULT_DEADLOCK;
        if (recorded)
            fprintf(stderr, "%s: %s (recorded %s %" PRIu64 ")\n", vxrec_prog, ft,
                    in_end ? "in the end record, event" : "at event",
                    vx_sim_index(sim) - (in_end ? 0 : 1));
        else
            fprintf(stderr, "%s: %s\n", vxrec_prog, ft);
        return VX_EXIT_FAULT;
    }
    case VX_STOP_LIMIT:
        fprintf(stderr, "%s: cycle limit of %" PRIu64 " reached (event index %" PRIu64 ")\n",
                vxrec_prog, o->run.max_cycles, vx_sim_index(sim));
        return VX_EXIT_LIMIT;
    default:
        fprintf(stderr, "%s: the machine stopped with nothing able to run (reason %d)\n",
                vxrec_prog, (int)stop->reason);
        return VX_EXIT_FAULT;
    }
}

static int run_discarding(vxrec_opts *o)
{
    vx_sim *sim = NULL;
    vx_cli_loaded ld;
    char msg[600];
    uint64_t n = 0;
    vx_stop stop;
    memset(&ld, 0, sizeof ld);
    if (!vx_cli_dumps_check(vxrec_prog, &o->run, o->kernel, NULL)) return VX_EXIT_USAGE;
    if (vx_cli_setup(&o->run, o->kernel, &sim, &ld, msg, sizeof msg)) {
        fprintf(stderr, "%s: %s\n", vxrec_prog, msg);
        vx_cli_loaded_release(&ld);
        return VX_EXIT_USAGE;
    }
    if (vx_cli_dumps_open(vxrec_prog, &o->run, sim)) {
        vx_sim_free(sim);
        vx_cli_loaded_release(&ld);
        return VX_EXIT_USAGE;
    }
    vx_sim_set_console(sim, on_console, NULL);
    vx_sim_set_observer(sim, discard_event, &n, 0);
    do {
        if (vx_sim_run(sim, 0, &stop) != VX_OK) { /* the host, not the kernel */
            vx_sim_console_flush(sim);
            fprintf(stderr, "%s: %s\n", vxrec_prog, vx_sim_errmsg(sim));
            vx_sim_free(sim);
            vx_cli_loaded_release(&ld);
            return VX_EXIT_USAGE;
        }
    } while (stop.reason == VX_STOP_HALT);
    vx_sim_console_flush(sim);
    fflush(stdout);
    if (!o->quiet)
        fprintf(stderr, "%s: %" PRIu64 " events observed and discarded\n", vxrec_prog, n);
    int rc = report_stop(o, &stop, &ld, sim, false);
    int drc = vx_cli_dumps_write(vxrec_prog, &o->run, sim);
    vx_sim_free(sim);
    vx_cli_loaded_release(&ld);
    return drc && rc == 0 ? drc : rc;
}

int vxrec_record(vxrec_opts *o)
{
    if (o->discard) return run_discarding(o);
    rec r;
    vx_cli_loaded ld;
    char msg[600];
    int rc = VX_EXIT_USAGE;
    char *path = NULL;
    vx_trace_load *loads = NULL;
    vx_stop stop;
    struct sigaction sa;
    bool server_failed = false, was_interrupted = false;
    vxrec_pipe_times times = {0, 0, 0, 0, 0, 0, false};
    char cbuf[96] = "";
    bool threaded = false;
    int dm_fd = -1; /* --dm-port: the socket, bound before the trace is created */
    const vx_dmserver_opts dso = {o->dm_bind ? o->dm_bind : "127.0.0.1",
                                  o->dm_port,
                                  on_listen,
                                  NULL,
                                  &interrupted,
                                  on_dm_note};

    /* Ctrl-C (or the session's end), SIGTERM, SIGHUP (its terminal closed): from the
     * start, so that one during start-up, too, ends the recording with a trace that ends
     * there (END = abort) rather than killing vxrec with a trace half written.  Not
     * restored: vxrec exits after this, and one that came then would kill it with the
     * trace whole. */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESTART; /* (a kernel read from a pipe goes on; the run stops later) */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    memset(&r, 0, sizeof r);
    memset(&ld, 0, sizeof ld);
    memset(&stop, 0, sizeof stop);
    r.o = o;
    if (o->output) {
        path = strdup(o->output);
    } else {
        if (!strcmp(o->kernel, "-")) {
            fprintf(stderr, "%s: the kernel comes from standard input: name the trace with -o\n",
                    vxrec_prog);
            return VX_EXIT_USAGE;
        }
        path = default_output(o->kernel);
    }
    if (!path) {
        fprintf(stderr, "%s: out of memory\n", vxrec_prog);
        return VX_EXIT_USAGE;
    }
    r.path = path;
    /* --force replaces an old trace, never the kernel or a --load file */
    const char *in = vx_cli_run_input(&o->run, o->kernel, path);
    if (in) {
        fprintf(stderr, "%s: the trace '%s' would overwrite the input '%s'\n", vxrec_prog, path,
                in);
        free(path);
        return VX_EXIT_USAGE;
    }
    if (!vx_cli_dumps_check(vxrec_prog, &o->run, o->kernel, path)) {
        free(path);
        return VX_EXIT_USAGE;
    }
    /* (as -o -: the console output and the messages go there too) */
    const char *std = vx_cli_std_stream(path);
    if (std) {
        fprintf(stderr, "%s: the trace '%s' is the %s: a trace goes to a file of its own\n",
                vxrec_prog, path, std);
        free(path);
        return VX_EXIT_USAGE;
    }

    if (vx_cli_setup(&o->run, o->kernel, &r.sim, &ld, msg, sizeof msg)) {
        fprintf(stderr, "%s: %s\n", vxrec_prog, msg);
        goto out;
    }
    /* --dump files: opened (not yet emptied) before the trace is created */
    if (vx_cli_dumps_open(vxrec_prog, &o->run, r.sim)) goto out;
    /* A bad address or a busy port is an input error: no trace is created or replaced. */
    if (o->dm && vx_dmserver_bind(&dso, &dm_fd, msg, sizeof msg)) {
        fprintf(stderr, "%s: %s\n", vxrec_prog, msg);
        goto out;
    }
    if (vx_trace_writer_new(&r.w)) {
        fprintf(stderr, "%s: out of memory\n", vxrec_prog);
        goto out;
    }
    vx_trace_writer_opts wo = VX_TRACE_WRITER_OPTS_INIT;
    wo.flags = (o->force ? VX_TRACE_W_FORCE : 0) | (o->no_compress ? VX_TRACE_W_NOCOMPRESS : 0);
    wo.chunk_bytes = o->chunk_bytes;
    vx_err e = vx_trace_writer_create(r.w, path, &wo);
    if (e == VX_ERR_EXISTS) {
        fprintf(
            stderr,
            "%s: '%s' already exists; use --force to overwrite it or -o to choose another name\n",
            vxrec_prog, path);
        goto out;
    }
    if (e) {
        fprintf(stderr, "%s: %s\n", vxrec_prog, vx_trace_writer_errmsg(r.w));
        goto out;
    }
    /* The header: everything needed to replay without the original files. */
    const vx_sim_config *cfg = vx_sim_get_config(r.sim);
    r.keyframes = true;
    r.kf_interval = o->keyframe_interval;
    r.next_kf = r.kf_interval;
    if (ld.nloads && !(loads = calloc(ld.nloads, sizeof *loads))) {
        fprintf(stderr, "%s: out of memory\n", vxrec_prog);
        goto out;
    }
    for (size_t i = 0; i < ld.nloads; i++)
        loads[i] =
            (vx_trace_load){ld.loads[i].addr, ld.loads[i].data, ld.loads[i].len, ld.loads[i].path};
    vx_trace_header h;
    memset(&h, 0, sizeof h);
    h.clusters = cfg->clusters;
    h.cores = cfg->cores;
    h.warps = cfg->warps;
    h.threads = cfg->threads;
    h.mem_limit = cfg->mem_limit;
    h.start_pc = cfg->start_pc;
    h.arg = cfg->arg;
    h.max_cycles = o->run.max_cycles;
    h.keyframe_interval = r.keyframes ? r.kf_interval : 0;
    h.flags = (o->dm ? VX_TRACE_HF_DM_SERVER : 0) | (cfg->misaligned ? VX_TRACE_HF_MISALIGNED : 0);
    h.image_kind = (uint8_t)ld.kind;
    h.image_name = ld.kernel.path;
    h.image = ld.kernel.data;
    h.image_len = ld.kernel.len;
    h.nloads = (uint32_t)ld.nloads;
    h.loads = loads;
    h.sim_version = VX_VERSION_STRING;
    /* A second thread encodes and writes while this one simulates: about half the
     * wall time on two idle cores, for some more CPU time in all (copying the events).
     * It writes the header too, once this thread has checked it: the image's
     * compression (LZ4HC, about 2.3 ms for a 176 KiB ELF) then overlaps the run. */
    const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    bool thread = o->writer_thread > 0 || (o->writer_thread < 0 && ncpu >= 2);
    bool cthread = o->compress_thread > 0 || (o->compress_thread < 0 && ncpu >= 3);
    const double wall0 = vxrec_now(); /* --timing: the writer thread starts here */
    e = vx_trace_writer_header_check(r.w, &h);
    if (!e && thread && vxrec_pipe_start(&r.pipe, r.w, &h, cfg->threads, cthread) != VX_OK)
        r.pipe = NULL; /* no thread: encode in this one */
    if (!e && !r.pipe) e = vx_trace_writer_header(r.w, &h);
    if (e) {
        fprintf(stderr, "%s: %s\n", vxrec_prog, vx_trace_writer_errmsg(r.w));
        say_cut_off(path);
        goto out;
    }
    vx_sim_set_console(r.sim, on_console, &r);
    vx_sim_set_observer(r.sim, observer, &r, 0);
    if (r.pipe) {
        vx_sim_set_log(r.sim, vxrec_pipe_log(r.pipe)); /* common issues: no observer call */
    } else if ((r.logbuf = aligned_alloc(16, LOGBUF))) {
        r.log = (vx_log){r.logbuf, r.logbuf + LOGBUF, vx_sim_cycle(r.sim), log_refill, &r, false};
        r.log_cycle0 = r.log.cycle;
        vx_sim_set_log(r.sim, &r.log);
    }
    if (r.keyframes) take_keyframe(&r, true); /* keyframe 0: the state after loading */
    r.progress = !o->quiet && isatty(STDERR_FILENO);
    const char *term = getenv("TERM");
    r.dumb_term = !term || !*term || !strcmp(term, "dumb");
    r.t0 = vxrec_now();
    r.cpu0 = vxrec_thread_cpu(); /* --timing: this thread's CPU from the run on */
    r.last_print = r.t0 - 1.0;   /* the first slice boundary draws the progress line */

    /* A debugging session may wait long for its first events, and a recorder killed in
     * the meantime must leave a readable trace: the header on disk first. */
    if (!r.err && o->dm && r.pipe && !vxrec_pipe_header_wait(r.pipe)) {
        r.err = VX_ERR_IO;
        r.placeholder = true;
        snprintf(r.errmsg, sizeof r.errmsg, "the trace writer thread stopped");
    }
    /* A signal (since the start): stop between two slices and finish the trace (END =
     * abort), with or without a debugger. */
    if (!r.err && o->dm) {
        e = vx_dmserver_run_bound(r.sim, &dso, dm_fd, on_slice, &r, &stop, msg, sizeof msg);
        dm_fd = -1; /* the server's now */
        if (e) {
            if (r.progress) show_progress(&r, true);
            fprintf(stderr, "%s: %s\n", vxrec_prog, msg);
            /* the trace is still finished below (END = abort) so that it stays usable */
            memset(&stop, 0, sizeof stop);
            server_failed = true;
        }
    } else if (!r.err) {
        while (!interrupted) {
            keyframe_if_due(&r);
            vx_err se = vx_sim_run(r.sim, slice_budget(&r), &stop);
            if (se && !r.err) { /* the host, not the kernel: out of memory */
                r.err = se;
                snprintf(r.errmsg, sizeof r.errmsg, "%s", vx_sim_errmsg(r.sim));
            }
            progress_tick(&r);
            if (stop.reason == VX_STOP_HALT) continue; /* others may still run */
            if (stop.reason != VX_STOP_NONE || interrupted || r.err) break;
            if (r.pipe && vxrec_pipe_failed(r.pipe)) break; /* a write error: stop early */
        }
    }
    /* Interrupted: the run stopped for the signal.  Not one that came once the kernel
     * had ended (in the same slice, or while the trace is finished below): the trace
     * then ends with the kernel's own end, and so does the exit status. */
    was_interrupted = interrupted && (o->dm || stop.reason == VX_STOP_NONE);
    vx_sim_console_flush(r.sim);
    fflush(stdout);
    if (r.progress) show_progress(&r, true);
    if (r.pipe) { /* drain the writer thread: the writer is ours again */
        char pm[600];
        vx_sim_set_log(r.sim, NULL);
        vx_err pe = vxrec_pipe_finish(r.pipe, pm, sizeof pm, &times);
        threaded = true;
        r.pipe = NULL;
        if (pe) { /* whatever else went wrong: the writer thread lost events */
            r.lost = true;
            if (!r.err || r.placeholder) {
                r.err = pe;
                snprintf(r.errmsg, sizeof r.errmsg, "%s", pm);
            } else {
                snprintf(r.werrmsg, sizeof r.werrmsg, "%s", pm);
            }
        }
    }

    if (r.logbuf) {
        log_flush(&r);
        vx_sim_set_log(r.sim, NULL);
    }

    /* Finish: the held-back END (with the final index), or END = abort when nothing was
     * lost before it.  Events lost (the writer refused one): no END after the gap, the
     * trace is left cut off at its last complete chunk. */
    if (r.have_end && !r.err) {
        r.end.index = vx_trace_writer_index(r.w);
        if ((e = vx_trace_writer_event(r.w, &r.end))) rec_fail(&r, e, "cannot record the end");
    }
    e = r.lost ? VX_OK : vx_trace_writer_finish(r.w);
    if (r.err || e) {
        fprintf(stderr, "%s: %s\n", vxrec_prog, r.err ? r.errmsg : vx_trace_writer_errmsg(r.w));
        if (r.werrmsg[0]) fprintf(stderr, "%s: %s\n", vxrec_prog, r.werrmsg);
        if (r.lost || e) {
            vx_trace_writer_free(r.w); /* the complete chunks queued are written, the file closed */
            r.w = NULL;
            say_cut_off(path);
        } else {
            fprintf(stderr, "%s: the trace '%s' ends there (its end record: aborted)\n", vxrec_prog,
                    path);
        }
        rc = VX_EXIT_USAGE;
        goto out;
    }
    if (!o->quiet) summary(&r, o->kernel);
    if (o->timing) {
        double wall = vxrec_now() - wall0, cpu = vxrec_thread_cpu() - r.cpu0;
        if (times.compressor)
            snprintf(cbuf, sizeof cbuf, "; a compressor thread %.3f s CPU, %" PRIu64 " chunks",
                     times.compressor_cpu, times.compressor_chunks);
        if (threaded)
            fprintf(stderr,
                    "%s: timing: wall %.3f s; simulator thread %.3f s CPU, writer thread %.3f s "
                    "CPU; the simulator waited %.3f s for the writer and compressed %" PRIu64
                    " of its %" PRIu64 " chunks%s\n",
                    vxrec_prog, wall, cpu, times.writer_cpu, times.waited, times.helped, times.jobs,
                    cbuf);
        else
            fprintf(stderr, "%s: timing: wall %.3f s; one thread, %.3f s CPU\n", vxrec_prog, wall,
                    cpu);
    }

    if (server_failed) goto out;                                    /* reported above; rc is 2 */
    const int drc = vx_cli_dumps_write(vxrec_prog, &o->run, r.sim); /* the memory as it ends */
    if (was_interrupted) {
        fprintf(stderr, "%s: interrupted at event %" PRIu64 "; the trace ends there\n", vxrec_prog,
                vx_sim_index(r.sim));
        rc = 130;
        goto out;
    }
    rc = report_stop(o, &stop, &ld, r.sim, true);
    vx_cli_note_unjoined(vxrec_prog, r.sim);
    if (drc && rc == 0) rc = drc;
out:
    if (dm_fd >= 0) close(dm_fd);
    if (r.logbuf) {
        vx_sim_set_log(r.sim, NULL);
        free(r.logbuf);
    }
    if (r.pipe) {
        vx_sim_set_log(r.sim, NULL);
        vxrec_pipe_finish(r.pipe, NULL, 0, NULL);
    }
    vx_trace_writer_free(r.w);
    vx_sim_free(r.sim);
    vx_cli_loaded_release(&ld);
    free(loads);
    free(path);
    return rc;
}
