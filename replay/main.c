/*
 * vxreplay - serve a recorded trace to GDB with reverse execution.
 *
 *   vxreplay [options] TRACE
 *
 * Listens on 127.0.0.1:3333 (or --port/--bind), prints the gdb-multiarch command
 * that connects, and serves one client at a time (another that connects meanwhile
 * is turned away: its connection is closed at once; out of file descriptors, it
 * waits its turn instead).  With --stdio it speaks the protocol on stdin/stdout
 * instead:  (gdb) target remote | vxreplay --stdio TRACE
 *
 * Exit status: 0 after serving (--once, --stdio), 2 for usage or input errors
 * (missing or damaged trace, port in use) and when the listening socket fails (no
 * client can be served).  Out of file descriptors (or memory), a client waits until
 * it can be accepted: vxreplay says so once and tries again every 100 ms.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "engine.h"
#include "gdbserver.h"
#include "net.h"

static const char *prog = "vxreplay";

static void usage(FILE *f)
{
    fprintf(
        f, "usage: vxreplay [options] TRACE\n"
           "Serve a trace recorded by vxrec to gdb-multiarch, with reverse execution\n"
           "(reverse-step, reverse-continue, reverse watchpoints, ...).\n\n"
           "connection:\n"
           "  -p, --port N            TCP port to listen on (default 3333; 0 = any free port)\n"
           "      --bind ADDR         address to listen on (default 127.0.0.1); another one is\n"
           "                          warned of: whoever reaches it can connect\n"
           "      --stdio             speak the protocol on stdin/stdout, for\n"
           "                          (gdb) target remote | vxreplay --stdio TRACE\n"
           "                          (one session; not with --port, --bind, --once)\n"
           "      --once              exit after the first client instead of waiting for the next\n"
           "  One client at a time: another that connects meanwhile is turned away (its\n"
           "  connection is closed at once).  Out of file descriptors, a client waits until\n"
           "  one is free: one that connects during a session cannot be turned away then,\n"
           "  it waits until the first has left.\n\n"
           "replay:\n"
           "      --mem SIZE          memory budget for checkpoints (default 512M; K/M/G suffix,\n"
           "                          a bare number is MiB); those 'monitor checkpoint' made\n"
           "                          are kept beyond it\n"
           "      --thread-per-warp   one GDB thread per warp (default: one per lane);\n"
           "                          'monitor lane N' picks the lane whose registers are shown\n"
           "      --no-verify         do not compare re-executed instructions with the trace\n"
           "      --no-summary-file   obsolete, ignored (the chunk digests that make reverse\n"
           "                          searches fast are in the trace since format 1.1)\n"
           "      --extract-elf FILE  write the recorded kernel ELF to FILE (for gdb's symbols);\n"
           "                          by default it is written to TRACE.elf when serving TCP\n"
           "                          (where that cannot be written, to a new file in TMPDIR,\n"
           "                          removed when vxreplay ends).\n"
           "                          An existing file is replaced only when it is a\n"
           "                          RISC-V ELF32 (a kernel, as one written before); any\n"
           "                          other is left, refused, and so is a symbolic link at\n"
           "                          FILE (but to a device such as /dev/null)\n"
           "      --progress MS       a continue or step (either direction), or a monitor\n"
           "                          seek, that runs longer than MS milliseconds says\n"
           "                          so on gdb's console, and again every MS (default\n"
           "                          3000; 0 = never)\n"
           "      --debug-packets     log every protocol packet to stderr (its first 200\n"
           "                          bytes, other than printable ASCII as \\xNN)\n\n"
           "  -h, --help              this text\n"
           "      --version           print the version\n\n"
           "Threads: target id 1 + gwarp * threads + lane (gwarp = core * warps + warp);\n"
           "GDB numbers its threads in its own order: select one with vxrr.gdb's vx-thread.\n"
           "In gdb: 'monitor help' lists the replay commands (when, seek, warps, lane, ...);\n"
           "source vxrr.gdb (next to the programs in the build tree, PREFIX/share/vxrr when\n"
           "installed) for convenience commands.\n"
           "exit status: 0 when done, 2 usage or input error, or the listening socket\n"
           "failed (no client can be served)\n");
}

static bool opt_value(int argc, char **argv, int *i, const char *name, const char **val)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0) return false;
    if (a[n] == '=') {
        *val = a + n + 1;
        return true;
    }
    if (a[n] != 0) return false;
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: option %s needs a value\n", prog, name);
        exit(VX_EXIT_USAGE);
    }
    *val = argv[++*i];
    return true;
}

/* A client that connected while another is served was turned away (err 0), or could
 * not be taken to be (err: out of file descriptors, ...): then it waits its turn. */
static void turned_away(void *ctx, const char *peer, int err)
{
    if (err)
        fprintf(stderr,
                "%s: another client cannot be accepted to be turned away: %s (it waits, "
                "and is served once %s has left)\n",
                prog, strerror(err), (const char *)ctx);
    else
        fprintf(stderr, "%s: client %s turned away: %s is connected (one debugger at a time)\n",
                prog, peer, (const char *)ctx);
}

/* The ELF written to TMPDIR when TRACE.elf could not be: removed when vxreplay ends. */
static char tmp_elf[PATH_MAX];

static void remove_tmp_elf(void)
{
    if (tmp_elf[0]) unlink(tmp_elf);
}

static void remove_tmp_elf_and_die(int sig)
{
    remove_tmp_elf(); /* (unlink is async-signal-safe) */
    signal(sig, SIG_DFL);
    raise(sig);
}

/*
 * A trace in a directory vxreplay cannot write (a colleague's, a CI artifact, a
 * read-only mount): the kernel's ELF goes to a new file of its own in $TMPDIR (else
 * /tmp), created exclusively, removed at exit.  False when that fails too.
 */
static bool write_tmp_elf(const uint8_t *img, size_t len, char *out, size_t cap)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/vxreplay-XXXXXX.elf", dir) >= (int)sizeof path)
        return false;
    int fd = mkstemps(path, 4);
    if (fd < 0) return false;
    const bool written = vx_cli_write_fd(fd, img, len);
    if (close(fd) != 0 || !written) {
        unlink(path);
        return false;
    }
    snprintf(tmp_elf, sizeof tmp_elf, "%s", path);
    atexit(remove_tmp_elf);
    /* (not a signal the caller ignores: under nohup a hangup must not end vxreplay) */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction was;
        if (sigaction(sigs[i], NULL, &was) == 0 && was.sa_handler == SIG_IGN) continue;
        signal(sigs[i], remove_tmp_elf_and_die);
    }
    snprintf(out, cap, "%s", path);
    return true;
}

/* vxrr.gdb next to the program (build tree) or in ../share/vxrr (installed). */
static bool find_script(char *out, size_t cap)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return false;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash) return false;
    *slash = 0;
    const char *cands[] = {"/vxrr.gdb", "/../share/vxrr/vxrr.gdb"};
    for (size_t i = 0; i < 2; i++) {
        if (strlen(exe) + strlen(cands[i]) + 1 > cap) continue;
        strcpy(out, exe);
        strcat(out, cands[i]);
        if (access(out, R_OK) == 0) {
            char real[PATH_MAX];
            if (realpath(out, real)) snprintf(out, cap, "%s", real);
            return true;
        }
    }
    return false;
}

int main(int argc, char **argv)
{
    const char *trace = NULL, *bind = "127.0.0.1", *elf_out = NULL, *net_opt = NULL;
    unsigned port = 3333;
    vx_cli_signals();
    bool use_stdio = false, once = false, per_warp = false, no_verify = false, debug = false;
    bool no_summary = false;
    uint64_t mem = 0;
    int progress_ms = 0;

    bool operands = false; /* after "--": the trace, whatever its name */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        const int operand = vx_cli_operand(a, &operands);
        if (operand < 0) {
            continue;
        } else if (operand) {
            if (trace) {
                fprintf(stderr, "%s: more than one trace given ('%s' and '%s')\n", prog, trace, a);
                return VX_EXIT_USAGE;
            }
            trace = a;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return vx_cli_output_done(prog);
        } else if (strcmp(a, "--version") == 0) {
            printf("vxreplay (vxrr) %s\n", VX_VERSION_STRING);
            return vx_cli_output_done(prog);
        } else if (strcmp(a, "--stdio") == 0) {
            use_stdio = true;
        } else if (strcmp(a, "--once") == 0) {
            once = true;
        } else if (strcmp(a, "--thread-per-warp") == 0) {
            per_warp = true;
        } else if (strcmp(a, "--no-verify") == 0) {
            no_verify = true;
        } else if (strcmp(a, "--no-summary-file") == 0) {
            no_summary = true;
        } else if (strcmp(a, "--debug-packets") == 0) {
            debug = true;
        } else if (opt_value(argc, argv, &i, "--progress", &v)) {
            uint32_t ms;
            if (!vx_cli_parse_u32(v, &ms) || ms > 3600000) {
                fprintf(stderr,
                        "%s: --progress: '%s' is not a number of milliseconds (0..3600000)\n", prog,
                        v);
                return VX_EXIT_USAGE;
            }
            progress_ms = ms ? (int)ms : -1;
        } else if (opt_value(argc, argv, &i, "--port", &v) || opt_value(argc, argv, &i, "-p", &v)) {
            uint32_t p;
            if (!vx_cli_parse_u32(v, &p) || p > 65535) {
                fprintf(stderr, "%s: --port: '%s' is not a port number (0..65535)\n", prog, v);
                return VX_EXIT_USAGE;
            }
            port = p;
            net_opt = "--port";
        } else if (opt_value(argc, argv, &i, "--bind", &v)) {
            bind = v;
            net_opt = "--bind";
        } else if (opt_value(argc, argv, &i, "--mem", &v)) {
            uint64_t m;
            bool bare = v[0] && strspn(v, "0123456789") == strlen(v);
            /* a bare number is MiB: one whose bytes do not fit in 64 bits is no size */
            if (!vx_cli_parse_u64(v, true, &m) || m == 0 || (bare && m > UINT64_MAX >> 20)) {
                fprintf(stderr, "%s: --mem: '%s' is not a size (e.g. 256M, 2G)\n", prog, v);
                return VX_EXIT_USAGE;
            }
            mem = bare ? m << 20 : m;
        } else if (opt_value(argc, argv, &i, "--extract-elf", &v)) {
            elf_out = v;
        } else {
            fprintf(stderr, "%s: unknown option '%s' (see --help)\n", prog, a);
            return VX_EXIT_USAGE;
        }
    }
    if (use_stdio && (net_opt || once)) {
        fprintf(stderr,
                "%s: %s does not go with --stdio (no socket: one session on stdin/stdout)\n", prog,
                net_opt ? net_opt : "--once");
        return VX_EXIT_USAGE;
    }
    if (!trace) {
        fprintf(stderr, "%s: no trace given\n", prog);
        usage(stderr);
        return VX_EXIT_USAGE;
    }
    signal(SIGPIPE, SIG_IGN);

    char msg[1024];
    vx_engine_opts eo = {.mem_budget = mem, .no_verify = no_verify, .no_summary_file = no_summary};
    vx_engine *eng;
    vx_err err = vx_engine_open(trace, &eo, &eng, msg, sizeof msg);
    if (err) {
        fprintf(stderr, "%s: cannot replay '%s': %s\n", prog, trace, msg);
        return VX_EXIT_USAGE;
    }
    if (*vx_engine_note(eng)) fprintf(stderr, "%s: note: %s\n", prog, vx_engine_note(eng));
    /* FORMAT.md §3.1: the engine skipped what a newer minor version added */
    const vx_trace_header *th = vx_engine_header(eng);
    vx_cli_trace_version_note(prog, trace, th->major, th->minor);

    /* The kernel ELF from the trace, so that gdb has the symbols. */
    size_t img_len = 0;
    const uint8_t *img = vx_engine_image(eng, &img_len);
    if (!img && elf_out) {
        fprintf(stderr,
                "%s: --extract-elf: the trace's kernel is a .vxbin or raw image, not an ELF "
                "(vxdump --extract writes it as it is)\n",
                prog);
        vx_engine_free(eng);
        return VX_EXIT_USAGE;
    }
    char elf_path[PATH_MAX] = "";
    if (img && (elf_out || !use_stdio)) {
        if (elf_out)
            snprintf(elf_path, sizeof elf_path, "%s", elf_out);
        else
            snprintf(elf_path, sizeof elf_path, "%s.elf", trace);
        if (vx_cli_same_file(elf_path, trace)) {
            fprintf(stderr, "%s: --extract-elf '%s' is the trace itself\n", prog, elf_path);
            vx_engine_free(eng);
            return VX_EXIT_USAGE;
        }
        if (!vx_cli_write_new_file(elf_path, img, img_len, true, msg, sizeof msg)) {
            fprintf(stderr, "%s: %s\n", prog, msg);
            if (elf_out) {
                vx_engine_free(eng);
                return VX_EXIT_USAGE;
            }
            if (write_tmp_elf(img, img_len, elf_path, sizeof elf_path))
                fprintf(stderr,
                        "%s: the kernel's ELF is in '%s' instead (removed when vxreplay "
                        "ends; --extract-elf FILE keeps one)\n",
                        prog, elf_path);
            else {
                fprintf(stderr,
                        "%s: gdb will have no symbols: write the ELF with --extract-elf FILE "
                        "and load it in gdb with 'file FILE'\n",
                        prog);
                elf_path[0] = 0;
            }
        }
    }

    vx_gdbserver_opts go = {per_warp, stderr, debug, progress_ms};
    vx_gdbserver *srv;
    err = vx_gdbserver_new(eng, &go, &srv);
    if (err) {
        fprintf(stderr, "%s: %s\n", prog, vx_strerror(err));
        vx_engine_free(eng);
        return VX_EXIT_USAGE;
    }

    const vx_sim_config *cfg = vx_engine_config(eng);
    uint64_t lanes = (uint64_t)cfg->clusters * cfg->cores * cfg->warps * cfg->threads;
    if (!per_warp && lanes > 4096)
        fprintf(stderr,
                "%s: note: this platform has %" PRIu64 " lanes, each a GDB thread; "
                "--thread-per-warp makes one thread per warp instead\n",
                prog, lanes);
    /* the issues of the trace, as vxrec and vxdump count them: a faulting last one too */
    const bool faults = vx_engine_faults_at_end(eng);
    const uint64_t issues = vx_engine_end(eng) + faults;
    const char *last = faults ? ", the last of which faults" : "";
    if (vx_engine_cut_off(eng))
        fprintf(stderr,
                "%s: note: '%s' was cut off (it has no end record): history ends at its "
                "last complete chunk\n",
                prog, trace);
    if (use_stdio) {
        fprintf(stderr, "%s: serving '%s' (%" PRIu64 " issues%s) on stdin/stdout\n", prog, trace,
                issues, last);
        if (elf_path[0]) {
            fprintf(stderr, "%s: the kernel's ELF is in '%s' (in gdb: file ", prog, elf_path);
            vx_cli_put_word(stderr, elf_path);
            fputs(")\n", stderr);
        }
        int r = vx_net_session(srv, 0, 1);
        if (r < 0)
            fprintf(stderr, "%s: the replies could not be written to standard output: %s\n", prog,
                    strerror(-r));
        vx_gdbserver_free(srv);
        vx_engine_free(eng);
        return r < 0 ? VX_EXIT_USAGE : 0;
    }

    unsigned actual = port;
    int lfd = vx_net_listen(bind, port, &actual, msg, sizeof msg);
    if (lfd < 0) {
        fprintf(stderr, "%s: %s\n", prog, msg);
        vx_gdbserver_free(srv);
        vx_engine_free(eng);
        return VX_EXIT_USAGE;
    }
    char script[PATH_MAX];
    bool have_script = find_script(script, sizeof script);
    printf("vxreplay: serving '%s': %" PRIu64 " issues%s, %" PRIu32 "x%" PRIu32 "x%" PRIu32
           "x%" PRIu32 " (clusters x cores x warps x threads)\n",
           trace, issues, last, cfg->clusters, cfg->cores, cfg->warps, cfg->threads);
    printf("vxreplay: listening on %s port %u\n", bind, actual);
    vx_cli_warn_exposed(prog, bind);
    printf("connect with:\n  gdb-multiarch");
    if (have_script) {
        fputs(" -x ", stdout);
        vx_cli_put_word(stdout, script);
    }
    if (elf_path[0]) {
        fputc(' ', stdout);
        vx_cli_put_word(stdout, elf_path);
    }
    if (strcmp(bind, "127.0.0.1") == 0 || strcmp(bind, "localhost") == 0)
        printf(" -ex 'target remote :%u'\n", actual);
    else
        printf(" -ex 'target remote %s:%u'\n", bind, actual);
    fflush(stdout);

    int rc = 0;
    bool told = false; /* that clients cannot be accepted for the moment */
    for (;;) {
        char peer[64];
        int aerr;
        int fd = vx_net_accept(lfd, -1, peer, sizeof peer, msg, sizeof msg, &aerr);
        if (fd < 0 && vx_cli_accept_fatal(aerr)) {
            fprintf(stderr, "%s: %s: no client can be served\n", prog, msg);
            rc = VX_EXIT_USAGE;
            break;
        }
        if (fd < 0) {
            /* Out of file descriptors (or memory, ...): the client waits in the backlog
             * until one is free; or a network error of that one connection. */
            if (!told && vx_cli_accept_short(aerr))
                fprintf(stderr,
                        "%s: cannot accept a client for now: %s (it waits, and is served "
                        "once a file descriptor is free; trying every %d ms)\n",
                        prog, strerror(aerr), VX_CLI_ACCEPT_BACKOFF_MS);
            told = told || vx_cli_accept_short(aerr);
            poll(NULL, 0, VX_CLI_ACCEPT_BACKOFF_MS);
            continue;
        }
        told = false;
        fprintf(stderr, "%s: client %s connected\n", prog, peer);
        bool clean = vx_net_session_guarded(srv, fd, fd, lfd, turned_away, peer) > 0;
        close(fd);
        fprintf(stderr, "%s: client %s %s\n", prog, peer,
                clean ? "ended the session" : "disconnected");
        if (once) break;
    }
    close(lfd);
    vx_gdbserver_free(srv);
    vx_engine_free(eng);
    return rc;
}
