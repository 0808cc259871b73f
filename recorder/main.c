/*
 * vxrec - record a Vortex kernel run into a trace (DESIGN.md §7), or verify one.
 *
 *   vxrec [options] KERNEL [-o TRACE]
 *   vxrec --verify TRACE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmserver.h"
#include "rec.h"

const char *vxrec_prog = "vxrec";

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: vxrec [options] KERNEL [-o TRACE]\n"
        "       vxrec --verify TRACE [--races]\n"
        "Run a Vortex kernel (ELF32, .vxbin or raw .bin) on the simulator and record every\n"
        "warp-instruction issue, register commit, memory write, warp-control effect,\n"
        "console byte, fault and Debug Module event into a trace (format:\n"
        "trace-format/FORMAT.md).  The kernel's console output goes to stdout as\n"
        "\"#slot: line\".  KERNEL - reads it from standard input (then name the trace\n"
        "with -o).\n\n"
        "%s\n"
        "trace options:\n"
        "  -o, --output TRACE        trace file (default: KERNEL's basename without its\n"
        "                            extension, plus .vxt, in the current directory)\n"
        "  -f, --force               overwrite an existing trace\n"
        "      --keyframe-interval N a full-state keyframe every N issues (default %u;\n"
        "                            0 = only the one at the start); one whose pages\n"
        "                            written since the last exceed 1 MiB and 8 bytes\n"
        "                            per issue since it waits for a later multiple\n"
        "      --chunk-size SIZE     raw bytes per compressed chunk, 64..64M, suffix K/M\n"
        "                            (default %u)\n"
        "      --no-compress         store chunks uncompressed\n"
        "      --writer-thread       encode and write the trace in a second thread (the\n"
        "                            default when 2 or more CPUs are online; the trace is\n"
        "                            byte for byte the same either way)\n"
        "      --no-writer-thread    encode and write in the simulator's thread\n"
        "      --compress-thread     with the writer thread, a third thread compresses its\n"
        "                            chunks (the default when 3 or more CPUs are online)\n"
        "      --no-compress-thread  no third thread\n"
        "      --timing              after the summary, print where the time went (wall,\n"
        "                            each thread's CPU, time spent waiting for the writer,\n"
        "                            chunks the simulator's thread compressed for it)\n"
        "      --discard             run with the simulator's observer on but record nothing\n"
        "                            (to measure what observing costs; no trace is written)\n"
        "  -q, --quiet               no progress line, no summary\n\n"
        "debugging while recording:\n"
        "      --dm-port PORT        serve the VxDebug Debug Module on TCP PORT (0 = any)\n"
        "                            and wait for a debugger to start the platform; the\n"
        "                            session is recorded with the run\n"
        "      --dm-bind ADDR        address to listen on (default 127.0.0.1); another one\n"
        "                            is warned of: whoever reaches it can connect\n\n"
        "checking a trace:\n"
        "      --verify TRACE        check the file as vxdump --check does (every chunk, the\n"
        "                            index, the END record), then re-simulate TRACE from its\n"
        "                            own header (image, loads, platform), follow its schedule\n"
        "                            and Debug Module events, and check that every event and\n"
        "                            keyframe matches (TRACE - : standard input)\n"
        "                            (only -q and --races go with it: the trace holds\n"
        "                            the rest)\n"
        "      --races               with --verify: also report data races between warps\n"
        "                            in the re-simulated run, as vxsim --races does (also\n"
        "                            in a recorded debugging session)\n\n"
        "  -h, --help                this text\n"
        "      --version             print the version\n\n"
        "The summary reports bytes per issue and the compression ratio: the size of a\n"
        "naive fixed-width log of the same events (FORMAT.md §13) over the trace size.\n"
        "A trace is readable even when vxrec is killed (up to its last complete chunk),\n"
        "unless that happened before its header was written (vxdump: cut off in its header).\n"
        "Documents named here are in the source tree and in PREFIX/share/vxrr/doc (installed).\n\n"
        "exit status: recording: the kernel's exit code (mod 256) when it finished;\n"
        "2 usage or input error (or the trace exists), a write error (the trace is cut\n"
        "off there) or the host out of memory: when the simulator ran out, the trace\n"
        "ends there, its end record saying aborted; when the trace writer did, events\n"
        "were lost: the trace ends at its last complete chunk and reads as incomplete\n"
        "(vxrec says which); 3 kernel fault (recorded: the trace ends with it);\n"
        "4 --max-cycles reached; 130 interrupted (SIGINT, SIGTERM or SIGHUP: the\n"
        "trace ends there, at event 0 if it came during loading; one that comes once\n"
        "the run is over, or while vxrec finishes the trace after the first, changes\n"
        "nothing: SIGKILL stops it at once).  Console output that cannot be\n"
        "written to standard output is reported and leaves the status as it is: the\n"
        "trace holds it.\n"
        "--verify: 0 the trace matches (a cut-off trace: up to its last complete\n"
        "chunk, with a note), 1 it diverges (the first difference is reported), 2 error\n"
        "(a damaged trace, one with a code this vxrec does not know, or the host out of\n"
        "memory: not checked), 5 the trace matches and --races found a race.\n",
        vx_cli_run_help(), VX_TRACE_DEFAULT_KEYFRAME_ISSUES, VX_TRACE_DEFAULT_CHUNK);
}

/* The value of an option written "--opt V", "--opt=V" or "-oV" (short). */
static const char *opt_value(int argc, char **argv, int *i, const char *lng, const char *shrt)
{
    const char *a = argv[*i];
    size_t n = strlen(lng);
    if (!strncmp(a, lng, n) && a[n] == '=') return a + n + 1;
    if (!strcmp(a, lng) || (shrt && !strcmp(a, shrt))) return *i + 1 < argc ? argv[++*i] : NULL;
    if (shrt && !strncmp(a, shrt, 2) && a[2]) return a + 2;
    return NULL;
}

static bool is_opt(const char *a, const char *lng, const char *shrt)
{
    size_t n = strlen(lng);
    if (!strcmp(a, lng) || (!strncmp(a, lng, n) && a[n] == '=')) return true;
    return shrt && !strncmp(a, shrt, 2);
}

int main(int argc, char **argv)
{
    vxrec_opts o;
    char msg[512];
    vx_cli_signals();
    const char *verify = NULL;
    const char *rec_opt = NULL; /* the last option that only recording takes */
    bool verify_later = false;  /* --verify followed by an option: the trace comes after */
    int rc = 2;
    bool dm_bind_given = false, races = false;

    memset(&o, 0, sizeof o);
    o.writer_thread = -1;
    o.compress_thread = -1;
    vx_cli_run_init(&o.run);
    o.keyframe_interval = VX_TRACE_DEFAULT_KEYFRAME_ISSUES;

    bool operands = false; /* after "--": the kernel (or trace), whatever its name */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        const int operand = vx_cli_operand(a, &operands);
        if (operand < 0) continue;
        if (operand) {
            if (verify_later && !verify) {
                verify = a;
            } else if (o.kernel) {
                fprintf(stderr, "%s: more than one kernel given ('%s' and '%s')\n", vxrec_prog,
                        o.kernel, a);
                goto out;
            } else {
                o.kernel = a;
            }
            continue;
        }
        if (strcmp(a, "-q") && strcmp(a, "--quiet") && strcmp(a, "--races") &&
            !is_opt(a, "--verify", NULL))
            rec_opt = a;
        int r = vx_cli_run_option(&o.run, argc, argv, &i, msg, sizeof msg);
        if (r < 0) {
            fprintf(stderr, "%s: %s\n", vxrec_prog, msg);
            goto out;
        }
        if (r > 0) continue;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            rc = vx_cli_output_done(vxrec_prog);
            goto out;
        } else if (!strcmp(a, "--version")) {
            printf("vxrec (vxrr) %s, trace format %d.%d\n", VX_VERSION_STRING, VX_TRACE_MAJOR,
                   VX_TRACE_MINOR);
            rc = vx_cli_output_done(vxrec_prog);
            goto out;
        } else if (!strcmp(a, "-f") || !strcmp(a, "--force")) {
            o.force = true;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            o.quiet = true;
        } else if (!strcmp(a, "--no-compress")) {
            o.no_compress = true;
        } else if (!strcmp(a, "--writer-thread")) {
            o.writer_thread = 1;
        } else if (!strcmp(a, "--no-writer-thread")) {
            o.writer_thread = 0;
        } else if (!strcmp(a, "--compress-thread")) {
            o.compress_thread = 1;
        } else if (!strcmp(a, "--no-compress-thread")) {
            o.compress_thread = 0;
        } else if (!strcmp(a, "--timing")) {
            o.timing = true;
        } else if (!strcmp(a, "--races")) {
            races = true;
        } else if (!strcmp(a, "--discard")) {
            o.discard = true;
        } else if (is_opt(a, "--output", "-o")) {
            if (!(v = opt_value(argc, argv, &i, "--output", "-o")) || !*v) {
                fprintf(stderr, "%s: -o needs a trace file name\n", vxrec_prog);
                goto out;
            }
            if (!strcmp(v, "-")) { /* the index and the trailer are written at the end */
                fprintf(stderr,
                        "%s: -o -: a trace goes to a file, not to standard output (name one, "
                        "or ./- for a file called '-')\n",
                        vxrec_prog);
                goto out;
            }
            o.output = v;
        } else if (is_opt(a, "--verify", NULL)) {
            if (verify || verify_later) {
                fprintf(stderr, "%s: --verify given twice\n", vxrec_prog);
                goto out;
            }
            if (!strcmp(a, "--verify") && i + 1 < argc && argv[i + 1][0] == '-' && argv[i + 1][1])
                verify_later = true; /* `--verify -q TRACE`: the trace comes later */
            else if (!(v = opt_value(argc, argv, &i, "--verify", NULL)) || !*v) {
                fprintf(stderr, "%s: --verify needs a trace file\n", vxrec_prog);
                goto out;
            } else
                verify = v;
        } else if (is_opt(a, "--keyframe-interval", NULL)) {
            v = opt_value(argc, argv, &i, "--keyframe-interval", NULL);
            if (!v || !vx_cli_parse_u64(v, false, &o.keyframe_interval)) {
                fprintf(stderr, "%s: --keyframe-interval: '%s' is not a number of issues\n",
                        vxrec_prog, v ? v : "");
                goto out;
            }
        } else if (is_opt(a, "--chunk-size", NULL)) {
            uint64_t n = 0;
            v = opt_value(argc, argv, &i, "--chunk-size", NULL);
            if (!v || !vx_cli_parse_u64(v, true, &n) || n < 64 || n > (64u << 20)) {
                fprintf(stderr, "%s: --chunk-size: '%s' is not a size in 64..64M\n", vxrec_prog,
                        v ? v : "");
                goto out;
            }
            o.chunk_bytes = (uint32_t)n;
        } else if (is_opt(a, "--dm-port", NULL)) {
            uint32_t port;
            v = opt_value(argc, argv, &i, "--dm-port", NULL);
            if (!v || !vx_cli_parse_u32(v, &port) || port > 65535) {
                fprintf(stderr, "%s: --dm-port: '%s' is not a TCP port\n", vxrec_prog, v ? v : "");
                goto out;
            }
            o.dm = true;
            o.dm_port = port;
        } else if (is_opt(a, "--dm-bind", NULL)) {
            if (!(v = opt_value(argc, argv, &i, "--dm-bind", NULL)) || !*v) {
                fprintf(stderr, "%s: --dm-bind needs an address\n", vxrec_prog);
                goto out;
            }
            o.dm_bind = v;
            dm_bind_given = true;
        } else {
            fprintf(stderr, "%s: unknown option '%s' (try --help)\n", vxrec_prog, a);
            goto out;
        }
    }
    if (verify_later && !verify) {
        fprintf(stderr, "%s: --verify needs a trace file\n", vxrec_prog);
        goto out;
    }
    if (verify) {
        if (o.kernel) {
            fprintf(stderr, "%s: --verify takes a trace, not a kernel ('%s')\n", vxrec_prog,
                    o.kernel);
            goto out;
        }
        if (rec_opt) {
            fprintf(stderr,
                    "%s: --verify re-simulates the trace with the platform and options it was "
                    "recorded with: '%s' does not apply\n",
                    vxrec_prog, rec_opt);
            goto out;
        }
        rc = vxrec_verify(verify, o.quiet, races);
        goto out;
    }
    if (races) {
        fprintf(stderr,
                "%s: --races checks a run: 'vxsim --races KERNEL' with the options you record "
                "with (its event numbers are the recording's), or 'vxrec --verify TRACE "
                "--races' for a trace\n",
                vxrec_prog);
        goto out;
    }
    if (!o.kernel) {
        fprintf(stderr, "%s: no kernel given (try --help)\n", vxrec_prog);
        goto out;
    }
    if (dm_bind_given && !o.dm) {
        fprintf(stderr, "%s: --dm-bind needs --dm-port\n", vxrec_prog);
        goto out;
    }
    vx_cli_ignore_sigpipe();
    rc = vxrec_record(&o);
    vx_cli_stdout_check(vxrec_prog, "the kernel's console output (the trace holds it)");
out:
    vx_cli_run_release(&o.run);
    return rc;
}
