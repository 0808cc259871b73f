/*
 * vxsim - run a Vortex kernel on the vxrr simulator.
 *
 *   vxsim [options] KERNEL
 *
 * Console output of the kernel is printed as "#<slot>: <line>" on stdout, as
 * Vortex's simx does.  Exit status: the kernel's exit code (the word at 0x88,
 * or a0 of an exit ecall) modulo 256 when it finished; 2 for usage or input
 * errors, 3 when the kernel faulted, 4 when --max-cycles was reached.  (A
 * kernel that exits with 2, 3 or 4 is told apart by the message on stderr.)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "dmserver.h"
#include "race.h"
#include "vx_isa.h"
#include "vx_sim.h"

typedef struct tracer {
    FILE *f;
    vx_disasm_ctx *dis;
    uint32_t nt;
} tracer;

static const char *prog = "vxsim";

/* What the observer feeds: --trace-insn's lines and --races' checker (either or both). */
typedef struct observers {
    tracer *tr; /* NULL when no --trace-insn */
    vxr *race;  /* NULL when no --races */
} observers;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: vxsim [options] KERNEL\n"
            "Run a Vortex kernel (ELF32, .vxbin or raw .bin; - reads it from standard input) "
            "to\ncompletion.\n\n"
            "%s\n"
            "output options:\n"
            "      --stats               print instruction, cycle and divergence counts to stderr\n"
            "      --trace-insn[=FILE]   log every issued instruction with its effects\n"
            "                            (to stderr, or FILE); meant for small runs\n\n"
            "debugging:\n"
            "      --races               report data races between warps: accesses to the same\n"
            "                            bytes, one a write, that no barrier, wspawn or\n"
            "                            atomic orders (README: Finding data races); the\n"
            "                            run is several times slower\n"
            "      --dm-port PORT        serve the VxDebug Debug Module on TCP PORT (0 = any)\n"
            "                            and wait for a debugger before running\n"
            "      --dm-bind ADDR        address to listen on (default 127.0.0.1); another one\n"
            "                            is warned of: whoever reaches it can connect\n\n"
            "  -h, --help                this text\n"
            "      --version             print the version\n\n"
            "exit status: the kernel's exit code (mod 256) when it finished; 2 usage or\n"
            "input error, or the host out of memory, or a run that ended with 0 but whose\n"
            "output (console, --stats, --trace-insn or --dump files) could not be written;\n"
            "3 kernel fault; 4 --max-cycles reached; 5 --races found a race in a run that\n"
            "otherwise ended with 0\n",
            vx_cli_run_help());
}

static void on_console(void *ctx, uint32_t slot, const char *line, size_t len)
{
    (void)ctx;
    vx_cli_console_line(slot, line, len);
}

static const char *wctl_name(uint8_t k)
{
    switch (k) {
    case VX_WCTL_TMASK: return "tmask";
    case VX_WCTL_ACTIVATE: return "activate";
    case VX_WCTL_DEACTIVATE: return "deactivate";
    case VX_WCTL_IPDOM_PUSH: return "ipdom-push";
    case VX_WCTL_IPDOM_POP: return "ipdom-pop";
    case VX_WCTL_IPDOM_ELSE: return "ipdom-else";
    case VX_WCTL_SPAWN_WAIT: return "spawn-wait";
    case VX_WCTL_BAR_ARRIVE: return "bar-arrive";
    case VX_WCTL_BAR_RELEASE: return "bar-release";
    case VX_WCTL_STALL: return "stall";
    case VX_WCTL_UNSTALL: return "unstall";
    default: return "wctl?";
    }
}

static void reg_name(uint8_t file, uint16_t reg, char *buf, size_t cap)
{
    if (file == VX_RF_X)
        snprintf(buf, cap, "%s", vx_isa_xreg_name(reg));
    else if (file == VX_RF_F)
        snprintf(buf, cap, "%s", vx_isa_freg_name(reg));
    else {
        const char *n = vx_isa_csr_name(reg);
        if (n)
            snprintf(buf, cap, "%s", n);
        else
            snprintf(buf, cap, "csr0x%03x", reg);
    }
}

/*
 * --trace-insn: one line per event.
 *   [INDEX] CYCLE core:warp PC mask=M  DISASSEMBLY  | effects
 * effects: reg={v0,v1,-,...} (per lane, '-' = lane not written), mem[ADDR].SIZE=V@lane,
 * console slot<-'c', wctl kinds, or FAULT: reason.
 */
static void trace_event(void *ctx, const vx_event *ev)
{
    tracer *t = ctx;
    FILE *f = t->f;
    char lanes[48];
    if (ev->kind == VX_EV_DM) {
        fprintf(f,
                "[%" PRIu64 "] %" PRIu64
                " dm op=%u addr=0x%x value=0x%08x gwarp=%u lane=%u arg=%u\n",
                ev->index, ev->cycle, ev->dm.op, ev->dm.addr, ev->dm.value, ev->dm.gwarp,
                ev->dm.lane, ev->dm.arg);
        return;
    }
    if (ev->kind == VX_EV_END) {
        fprintf(f, "[%" PRIu64 "] %" PRIu64 " end status=%u exit=%u\n", ev->index, ev->cycle,
                ev->end_status, ev->exit_code);
        return;
    }
    char dis[96];
    vx_disasm_ctx_insn(t->dis, ev->pc, ev->insn, dis, sizeof dis);
    vx_cli_lanes_text(ev->tmask, lanes, sizeof lanes);
    fprintf(f, "[%" PRIu64 "] %" PRIu64 " %u:%u 0x%08x mask=%s%s%s  %-28s |", ev->index, ev->cycle,
            ev->core, ev->warp, ev->pc, lanes, (ev->flags & VX_EVF_INJECTED) ? " inject" : "",
            (ev->flags & VX_EVF_STEP) ? " step" : "", dis);
    if (ev->fault) {
        fprintf(f, " FAULT: %s\n", ev->fault->reason);
        return;
    }
    for (uint32_t i = 0; i < ev->ncommits; i++) {
        const vx_commit *c = &ev->commits[i];
        char rn[24];
        reg_name(c->file, c->reg, rn, sizeof rn);
        fprintf(f, " %s={", rn);
        unsigned last = vx_lanes_last(c->lanes);
        for (uint32_t l = 0; l <= last && l < t->nt; l++) {
            if (vx_lanes_test(c->lanes, l))
                fprintf(f, "%s0x%x", l ? "," : "", c->values[l]);
            else
                fprintf(f, "%s-", l ? "," : "");
        }
        fprintf(f, "}");
    }
    for (uint32_t i = 0; i < ev->nmem; i++)
        fprintf(f, " mem[0x%08x].%u=0x%x@%u", ev->mem[i].addr, ev->mem[i].size, ev->mem[i].value,
                ev->mem[i].lane);
    for (uint32_t i = 0; i < ev->nconsole; i++) {
        uint8_t b = ev->console[i].byte;
        if (b >= 0x20 && b < 0x7f && b != '\'')
            fprintf(f, " con%u<-'%c'", ev->console[i].slot, b);
        else
            fprintf(f, " con%u<-0x%02x", ev->console[i].slot, b);
    }
    for (uint32_t i = 0; i < ev->nwctl; i++) {
        const vx_wctl *w = &ev->wctl[i];
        vx_cli_lanes_text(w->mask, lanes, sizeof lanes);
        fprintf(f, " %s(%u:%u", wctl_name(w->kind), w->core, w->warp);
        switch (w->kind) {
        case VX_WCTL_TMASK: fprintf(f, " %s", lanes); break;
        case VX_WCTL_ACTIVATE: fprintf(f, " pc=0x%08x %s", w->pc, lanes); break;
        case VX_WCTL_IPDOM_PUSH: {
            char l2[48];
            vx_cli_lanes_text(w->mask2, l2, sizeof l2);
            fprintf(f, " orig=%s else=%s pc=0x%08x depth=%u", lanes, l2, w->pc, w->arg);
            break;
        }
        case VX_WCTL_IPDOM_POP:
        case VX_WCTL_IPDOM_ELSE: fprintf(f, " depth=%u", w->arg); break;
        case VX_WCTL_SPAWN_WAIT: fprintf(f, " n=%u pc=0x%08x", w->arg, w->pc); break;
        case VX_WCTL_BAR_ARRIVE: fprintf(f, " id=0x%x count=%u", w->arg, w->arg2); break;
        case VX_WCTL_BAR_RELEASE: fprintf(f, " id=0x%x", w->arg); break;
        default: break;
        }
        fprintf(f, ")");
    }
    fprintf(f, "\n");
}

static void observe(void *ctx, const vx_event *ev)
{
    observers *o = ctx;
    if (o->tr) trace_event(o->tr, ev);
    if (o->race) (void)vxr_event(o->race, ev); /* an error stays: vxr_event says it again */
}

static void print_stats(vx_sim *s)
{
    vx_sim_stats st;
    vx_sim_get_stats(s, &st);
    fprintf(stderr,
            "instructions: %" PRIu64 "\ncycles: %" PRIu64 "\nlane-ops: %" PRIu64
            "\nsplits: %" PRIu64 " (divergent %" PRIu64 ")\njoins: %" PRIu64 "\npreds: %" PRIu64
            "\nbarriers: %" PRIu64 "\nspawns: %" PRIu64 "\n",
            st.issues, st.cycles, st.lane_ops, st.splits, st.divergent_splits, st.joins, st.preds,
            st.barriers, st.spawns);
    uint32_t nw = vx_sim_get_config(s)->warps;
    for (uint32_t g = 0; g < vx_sim_num_warps(s); g++) {
        vx_warp_info wi;
        vx_sim_warp_info(s, g, &wi);
        if (wi.issued)
            fprintf(stderr, "warp %u:%u: %" PRIu64 " instructions\n", g / nw, g % nw, wi.issued);
    }
}

static void on_listen(void *ctx, const char *bind, unsigned port)
{
    (void)ctx;
    fprintf(stderr, "%s: Debug Module listening on %s:%u (VxDebug protocol)\n", prog, bind, port);
    vx_cli_warn_exposed(prog, bind);
}

/* What the Debug Module server has to say while it runs (a client it cannot accept). */
static void on_dm_note(void *ctx, const char *text)
{
    (void)ctx;
    fprintf(stderr, "%s: %s\n", prog, text);
}

int main(int argc, char **argv)
{
    vx_cli_run run;
    vx_cli_run_init(&run);
    vx_cli_signals();
    vx_cli_ignore_sigpipe(); /* `| head`: the run goes on, its --dump files are written */
    /* The kernel's console line by line, also into a pipe or a file: a run that is
     * stopped (Ctrl-C, kill) or never ends has written every complete line. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    bool stats = false, trace = false, dm = false, races = false;
    const char *trace_file = NULL, *kernel = NULL, *dm_bind = NULL;
    uint32_t dm_port = 0;
    char msg[512];
    int rc = 2;
    vx_sim *s = NULL;
    vx_cli_loaded loaded;
    vxd_symtab syms, dsyms;
    tracer tr = {0};
    observers obs = {NULL, NULL};
    memset(&loaded, 0, sizeof loaded);
    memset(&syms, 0, sizeof syms);
    memset(&dsyms, 0, sizeof dsyms);

    bool operands = false; /* after "--": the kernel, whatever its name */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const int operand = vx_cli_operand(a, &operands);
        if (operand < 0) continue;
        if (operand) {
            if (kernel) {
                fprintf(stderr, "%s: more than one kernel given ('%s' and '%s')\n", prog, kernel,
                        a);
                goto out;
            }
            kernel = a;
            continue;
        }
        int r = vx_cli_run_option(&run, argc, argv, &i, msg, sizeof msg);
        if (r < 0) {
            fprintf(stderr, "%s: %s\n", prog, msg);
            goto out;
        }
        if (r > 0) continue;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            rc = vx_cli_output_done(prog);
            goto out;
        } else if (!strcmp(a, "--version")) {
            printf("vxsim (vxrr) %s\n", VX_VERSION_STRING);
            rc = vx_cli_output_done(prog);
            goto out;
        } else if (!strcmp(a, "--stats")) {
            stats = true;
        } else if (!strcmp(a, "--races")) {
            races = true;
        } else if (!strcmp(a, "--trace-insn")) {
            trace = true;
        } else if (!strncmp(a, "--trace-insn=", 13)) {
            trace = true;
            trace_file = a + 13;
            if (!*trace_file) {
                fprintf(stderr, "%s: --trace-insn= needs a file name\n", prog);
                goto out;
            }
        } else if (!strcmp(a, "--dm-port") || !strncmp(a, "--dm-port=", 10)) {
            const char *v = a[9] == '=' ? a + 10 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || !vx_cli_parse_u32(v, &dm_port) || dm_port > 65535) {
                fprintf(stderr, "%s: --dm-port: '%s' is not a TCP port\n", prog, v ? v : "");
                goto out;
            }
            dm = true;
        } else if (!strcmp(a, "--dm-bind") || !strncmp(a, "--dm-bind=", 10)) {
            dm_bind = a[9] == '=' ? a + 10 : (i + 1 < argc ? argv[++i] : NULL);
            if (!dm_bind || !*dm_bind) {
                fprintf(stderr, "%s: --dm-bind needs an address\n", prog);
                goto out;
            }
        } else {
            fprintf(stderr, "%s: unknown option '%s' (try --help)\n", prog, a);
            goto out;
        }
    }
    if (!kernel) {
        fprintf(stderr, "%s: no kernel given (try --help)\n", prog);
        goto out;
    }
    if (dm_bind && !dm) {
        fprintf(stderr, "%s: --dm-bind needs --dm-port\n", prog);
        goto out;
    }
    /* an output file must not be an input: the kernel or a --load file */
    if (trace_file && vx_cli_run_input(&run, kernel, trace_file)) {
        fprintf(stderr, "%s: the output '%s' is an input of the run\n", prog, trace_file);
        goto out;
    }
    if (!vx_cli_dumps_check(prog, &run, kernel, trace_file)) goto out;
    if (vx_cli_setup(&run, kernel, &s, &loaded, msg, sizeof msg)) {
        fprintf(stderr, "%s: %s\n", prog, msg);
        goto out;
    }
    /* the kernel's functions, to name the one a fault is in; the bytes are not kept */
    vx_cli_kernel_symbols(&loaded, &syms);
    if (races) {
        char note[160];
        if (vxd_symtab_load_data(&dsyms, (uint8_t)loaded.kind, loaded.kernel.data,
                                 loaded.kernel.len, note, sizeof note) == VX_ERR_NOMEM) {
            fprintf(stderr, "%s: out of memory\n", prog);
            goto out;
        }
    }
    vx_cli_loaded_release(&loaded);
    vx_sim_set_console(s, on_console, NULL);
    if (trace) {
        tr.f = trace_file ? fopen(trace_file, "w") : stderr;
        if (!tr.f) {
            fprintf(stderr, "%s: cannot write '%s': %s\n", prog, trace_file, strerror(errno));
            goto out;
        }
        tr.nt = vx_sim_get_config(s)->threads;
        if (vx_disasm_new(&tr.dis)) goto out;
        obs.tr = &tr;
    }
    if (races && !(obs.race = vx_cli_races_new(prog, s))) goto out;
    if (obs.tr || obs.race) vx_sim_set_observer(s, observe, &obs, obs.race ? VX_OBS_READS : 0);

    if ((rc = vx_cli_dumps_open(prog, &run, s))) goto out;
    vx_stop stop;
    if (dm) {
        vx_dmserver_opts o = {
            dm_bind ? dm_bind : "127.0.0.1", dm_port, on_listen, NULL, NULL, on_dm_note};
        vx_err e = vx_dmserver_run(s, &o, &stop, msg, sizeof msg);
        if (e) {
            fprintf(stderr, "%s: %s\n", prog, msg);
            rc = 2;
            goto out;
        }
    } else if (vx_sim_run(s, 0, &stop) != VX_OK) { /* the host, not the kernel: out of memory */
        vx_sim_console_flush(s);
        fprintf(stderr, "%s: %s\n", prog, vx_sim_errmsg(s));
        rc = 2;
        goto out;
    }
    vx_sim_console_flush(s);
    const bool console_ok = vx_cli_stdout_check(prog, "the kernel's console output");

    switch (stop.reason) {
    case VX_STOP_EXIT: rc = (int)(stop.exit_code & 0xff); break;
    case VX_STOP_FAULT: {
        char ft[512];
        vx_cli_fault_text(&stop.fault, &syms, ft, sizeof ft);
        fprintf(stderr, "%s: %s\n", prog, ft);
        rc = VX_EXIT_FAULT;
        break;
    }
    case VX_STOP_LIMIT:
        fprintf(stderr, "%s: cycle limit of %" PRIu64 " reached (event index %" PRIu64 ")\n", prog,
                run.max_cycles, vx_sim_index(s));
        rc = VX_EXIT_LIMIT;
        break;
    default:
        fprintf(stderr, "%s: the machine stopped with nothing able to run (reason %d)\n", prog,
                (int)stop.reason);
        rc = VX_EXIT_FAULT;
        break;
    }
    vx_cli_note_unjoined(prog, s);
    if (stats) print_stats(s);
    if (obs.race) {
        if (vxr_event(obs.race, &(vx_event){.kind = VX_EV_END}) != VX_OK) {
            fprintf(stderr, "%s: --races: out of memory after %zu MiB of shadow memory\n", prog,
                    vxr_memory(obs.race) >> 20);
            rc = VX_EXIT_USAGE;
        } else if (vx_cli_races_report(prog, s, obs.race, &syms, &dsyms, false) && rc == 0) {
            rc = VX_EXIT_RACE;
        }
    }
    /* lost output turns a successful run into an error, as a --dump file that cannot be
     * written does; a kernel's own failure status stays */
    if (!console_ok && rc == 0) rc = VX_EXIT_USAGE;
    if ((stats || races || tr.f == stderr) && (fflush(stderr) != 0 || ferror(stderr)) && rc == 0)
        rc = VX_EXIT_USAGE; /* --stats or --trace-insn on standard error: nowhere to say so */
    int drc = vx_cli_dumps_write(prog, &run, s);
    if (drc && rc == 0) rc = drc;
    if (tr.f && tr.f != stderr) {
        bool lost = ferror(tr.f) != 0;
        int e = 0; /* errno of an earlier failed write is gone: only fclose's is known */
        if (fclose(tr.f) != 0) {
            lost = true;
            e = errno;
        }
        tr.f = NULL;
        if (lost) {
            fprintf(stderr, "%s: cannot write '%s': %s\n", prog, trace_file,
                    e ? strerror(e) : "a write failed, output was lost");
            if (rc == 0) rc = VX_EXIT_USAGE;
        }
    }
out:
    vx_cli_loaded_release(&loaded);
    vxd_symtab_release(&syms);
    vxd_symtab_release(&dsyms);
    vxr_free(obs.race);
    if (tr.f && tr.f != stderr) fclose(tr.f);
    vx_disasm_free(tr.dis);
    vx_sim_free(s);
    vx_cli_run_release(&run);
    return rc;
}
