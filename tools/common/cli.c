/* cli.c - shared command-line support (see cli.h). */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "vx_isa.h"
#include "vx_trace.h"

void vx_cli_run_init(vx_cli_run *o)
{
    memset(o, 0, sizeof *o);
    vx_sim_config d = VX_SIM_CONFIG_INIT;
    o->cfg = d;
}

void vx_cli_run_release(vx_cli_run *o)
{
    for (size_t i = 0; i < o->nloads; i++)
        free(o->loads[i].path);
    free(o->loads);
    o->loads = NULL;
    o->nloads = 0;
    for (size_t i = 0; i < o->ndumps; i++)
        if (o->dumps[i].f) fclose(o->dumps[i].f);
    free(o->dumps);
    o->dumps = NULL;
    o->ndumps = 0;
}

const char *vx_cli_run_help(void)
{
    return "platform and run options:\n"
           "  -C, --clusters N      clusters, 1..127 (default 1)\n"
           "  -c, --cores N         cores per cluster, 1..511 (default 1)\n"
           "  -w, --warps N         warps per core, 1..511 (default 4); at most 32768 warps\n"
           "                        in all (VxDebug's limit)\n"
           "  -t, --threads N       threads per warp, a power of two <= 128 (default 4)\n"
           "      --load FILE@ADDR  copy FILE into memory at ADDR before start (repeatable)\n"
           "      --arg ADDR        kernel argument: reset value of mscratch (default 0)\n"
           "      --max-cycles N    stop after N cycles (exit status 4)\n"
           "      --mem-limit SIZE  guest memory limit, 4K..4G, suffix K/M/G (default 1G)\n"
           "      --allow-misaligned\n"
           "                        carry out misaligned loads and stores byte by byte, as\n"
           "                        SimX does (default: they fault, exit status 3)\n"
           "      --dump ADDR:LEN[@CORE]=FILE\n"
           "                        write LEN bytes of memory at ADDR to FILE after the run\n"
           "                        (repeatable; LEN may have a K/M/G suffix; local memory,\n"
           "                        0xFFFF0000.., is that of global core CORE, default 0)\n";
}

bool vx_cli_parse_u64(const char *s, bool size_suffix, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ') return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, vx_num_base(s));
    if (errno || end == s) return false;
    if (size_suffix && *end) {
        unsigned sh = 0;
        switch (*end) {
        case 'k':
        case 'K': sh = 10; break;
        case 'm':
        case 'M': sh = 20; break;
        case 'g':
        case 'G': sh = 30; break;
        default: return false;
        }
        end++;
        if (*end == 'i' && end[1] == 'B')
            end += 2;
        else if (*end == 'B')
            end++;
        if (v > (~0ull >> sh)) return false;
        v <<= sh;
    }
    if (*end) return false;
    *out = v;
    return true;
}

bool vx_cli_parse_u32(const char *s, uint32_t *out)
{
    uint64_t v;
    if (!vx_cli_parse_u64(s, false, &v) || v > 0xffffffffull) return false;
    *out = (uint32_t)v;
    return true;
}

/* Match argv[*i] against a long name and an optional short letter; fetch the value. */
static int opt_value(int argc, char **argv, int *i, const char *lng, char shrt, const char **val,
                     char *msg, size_t cap)
{
    const char *a = argv[*i];
    size_t n = strlen(lng);
    if (!strncmp(a, lng, n) && (a[n] == 0 || a[n] == '=')) {
        if (a[n] == '=') {
            *val = a + n + 1;
            return 1;
        }
    } else if (shrt && a[0] == '-' && a[1] == shrt) {
        if (a[2]) {
            *val = a + 2;
            return 1;
        }
    } else {
        return 0;
    }
    if (*i + 1 >= argc) {
        snprintf(msg, cap, "option '%s' needs a value", a);
        return -1;
    }
    *val = argv[++*i];
    return 1;
}

static int shape_opt(int argc, char **argv, int *i, const char *lng, char shrt, uint32_t *dst,
                     uint32_t max, char *msg, size_t cap)
{
    const char *v;
    int r = opt_value(argc, argv, i, lng, shrt, &v, msg, cap);
    if (r <= 0) return r;
    uint32_t x;
    if (!vx_cli_parse_u32(v, &x) || x < 1 || x > max) {
        snprintf(msg, cap, "%s: '%s' is not a number in 1..%u", lng, v, max);
        return -1;
    }
    *dst = x;
    return 1;
}

/* ADDR:LEN[@CORE]=FILE: 0, -1 when v is not that, -2 when the range passes 4 GiB. */
static int parse_dump(const char *v, vx_cli_dump *d)
{
    const char *colon = strchr(v, ':'), *eq = colon ? strchr(colon, '=') : NULL;
    if (!colon || !eq || !eq[1]) return -1;
    const char *at = memchr(colon, '@', (size_t)(eq - colon));
    const char *lend = at ? at : eq;
    char a[32], l[32], c[32];
    size_t na = (size_t)(colon - v), nl = (size_t)(lend - colon - 1),
           nc = at ? (size_t)(eq - at - 1) : 0;
    if (na == 0 || na >= sizeof a || nl == 0 || nl >= sizeof l || (at && nc == 0) || nc >= sizeof c)
        return -1;
    memcpy(a, v, na);
    a[na] = 0;
    memcpy(l, colon + 1, nl);
    l[nl] = 0;
    memcpy(c, at ? at + 1 : "", nc);
    c[nc] = 0;
    d->core = 0;
    if (!vx_cli_parse_u32(a, &d->addr) || !vx_cli_parse_u64(l, true, &d->len) ||
        (at && !vx_cli_parse_u32(c, &d->core)))
        return -1;
    if ((uint64_t)d->addr + d->len > (1ull << 32)) return -2;
    d->file = eq + 1;
    d->f = NULL;
    return 0;
}

int vx_cli_run_option(vx_cli_run *o, int argc, char **argv, int *i, char *msg, size_t cap)
{
    const char *v;
    int r;
    if ((r = shape_opt(argc, argv, i, "--clusters", 'C', &o->cfg.clusters, 127, msg, cap)))
        return r;
    if ((r = shape_opt(argc, argv, i, "--cores", 'c', &o->cfg.cores, 511, msg, cap))) return r;
    if ((r = shape_opt(argc, argv, i, "--warps", 'w', &o->cfg.warps, 511, msg, cap))) return r;
    if ((r = shape_opt(argc, argv, i, "--threads", 't', &o->cfg.threads, 128, msg, cap))) return r;
    if ((r = opt_value(argc, argv, i, "--load", 0, &v, msg, cap))) {
        if (r < 0) return r;
        const char *at = strrchr(v, '@');
        uint32_t addr;
        if (!at || at == v || !vx_cli_parse_u32(at + 1, &addr)) {
            snprintf(msg, cap, "--load: '%s' is not FILE@ADDR", v);
            return -1;
        }
        vx_cli_load *nl = realloc(o->loads, (o->nloads + 1) * sizeof *nl);
        if (!nl) {
            snprintf(msg, cap, "out of memory");
            return -1;
        }
        o->loads = nl;
        char *path = strndup(v, (size_t)(at - v));
        if (!path) {
            snprintf(msg, cap, "out of memory");
            return -1;
        }
        o->loads[o->nloads].path = path;
        o->loads[o->nloads].addr = addr;
        o->nloads++;
        return 1;
    }
    if ((r = opt_value(argc, argv, i, "--arg", 0, &v, msg, cap))) {
        if (r < 0) return r;
        if (!vx_cli_parse_u32(v, &o->cfg.arg)) {
            snprintf(msg, cap, "--arg: '%s' is not a 32-bit number", v);
            return -1;
        }
        return 1;
    }
    if ((r = opt_value(argc, argv, i, "--max-cycles", 0, &v, msg, cap))) {
        if (r < 0) return r;
        if (!vx_cli_parse_u64(v, false, &o->max_cycles) || o->max_cycles == 0) {
            snprintf(msg, cap, "--max-cycles: '%s' is not a positive number", v);
            return -1;
        }
        return 1;
    }
    if (!strcmp(argv[*i], "--allow-misaligned")) {
        o->cfg.misaligned = true;
        return 1;
    }
    if ((r = opt_value(argc, argv, i, "--dump", 0, &v, msg, cap))) {
        if (r < 0) return r;
        vx_cli_dump d;
        int pe = parse_dump(v, &d);
        if (pe) {
            snprintf(msg, cap,
                     pe == -2 ? "--dump '%s': the range runs past the 4 GiB address space"
                              : "--dump wants ADDR:LEN=FILE or ADDR:LEN@CORE=FILE (got '%s')",
                     v);
            return -1;
        }
        vx_cli_dump *nd = realloc(o->dumps, (o->ndumps + 1) * sizeof *nd);
        if (!nd) {
            snprintf(msg, cap, "out of memory");
            return -1;
        }
        o->dumps = nd;
        o->dumps[o->ndumps++] = d;
        return 1;
    }
    if ((r = opt_value(argc, argv, i, "--mem-limit", 0, &v, msg, cap))) {
        if (r < 0) return r;
        if (!vx_cli_parse_u64(v, true, &o->cfg.mem_limit) || o->cfg.mem_limit < VX_PAGE_SIZE) {
            snprintf(msg, cap, "--mem-limit: '%s' is not a size of at least 4K", v);
            return -1;
        }
        if (o->cfg.mem_limit > ((uint64_t)1 << 32)) {
            snprintf(msg, cap, "--mem-limit: '%s' is more than the guest's 4G address space", v);
            return -1;
        }
        return 1;
    }
    return 0;
}

#define KERNEL_FILE_MIN ((uint64_t)256 << 20)

static vx_err too_large(const char *path, uint64_t max, const char *limit, char *msg, size_t cap)
{
    snprintf(msg, cap, "cannot read '%s': larger than %" PRIu64 " bytes (%s)", path, max, limit);
    return VX_ERR_FORMAT;
}

vx_err vx_cli_read_file_max(const char *path, uint64_t max, const char *limit, uint8_t **buf,
                            size_t *len, char *msg, size_t cap)
{
    *buf = NULL;
    *len = 0;
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        snprintf(msg, cap, "cannot read '%s': %s", path, strerror(errno));
        return VX_ERR_IO;
    }
    if (max > SIZE_MAX / 2) max = SIZE_MAX / 2; /* max + 1 and c * 2 below never wrap */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > max) {
        /* known too large without reading it (a sparse file of many GiB) */
        if (f != stdin) fclose(f);
        return too_large(path, max, limit, msg, cap);
    }
    size_t n = 0, c = 1 << 16;
    uint8_t *b = malloc(c);
    vx_err err = VX_OK;
    for (;;) {
        if (!b) {
            snprintf(msg, cap, "cannot read '%s': out of memory", path);
            err = VX_ERR_NOMEM;
            break;
        }
        size_t got = fread(b + n, 1, c - n, f);
        n += got;
        if (n > max) { /* before reading all of a huge file (or /dev/zero) */
            err = too_large(path, max, limit, msg, cap);
            break;
        }
        if (got == 0) {
            if (ferror(f)) {
                snprintf(msg, cap, "cannot read '%s': %s", path, strerror(errno));
                err = VX_ERR_IO;
            }
            break;
        }
        if (n == c) {
            /* one byte past max is enough to know the file is too large */
            size_t nc = (uint64_t)c * 2 > max + 1 ? (size_t)(max + 1) : c * 2;
            uint8_t *nb = realloc(b, nc);
            if (!nb) free(b);
            b = nb;
            c = nc;
        }
    }
    if (f != stdin) fclose(f);
    if (err) {
        free(b);
        return err;
    }
    *buf = b;
    *len = n;
    return VX_OK;
}

static void blob_release(vx_cli_blob *b)
{
    free(b->path);
    free(b->data);
    memset(b, 0, sizeof *b);
}

void vx_cli_loaded_release(vx_cli_loaded *l)
{
    if (!l) return;
    blob_release(&l->kernel);
    for (size_t i = 0; i < l->nloads; i++)
        blob_release(&l->loads[i]);
    free(l->loads);
    memset(l, 0, sizeof *l);
}

/* Text (source, a script), not code: its first bytes (up to 256) all printable ASCII,
 * tabs or newlines, with at least one newline.  No RISC-V program starts so (its first
 * words would have to be made of such bytes only). */
static bool looks_like_text(const uint8_t *b, size_t len)
{
    size_t n = len < 256 ? len : 256;
    bool nl = false;
    if (n < 16) return false;
    for (size_t i = 0; i < n; i++) {
        if (b[i] == '\n')
            nl = true;
        else if (b[i] != '\t' && b[i] != '\r' && (b[i] < 0x20 || b[i] > 0x7e))
            return false;
    }
    return nl;
}

vx_err vx_cli_setup(const vx_cli_run *o, const char *kernel, vx_sim **out, vx_cli_loaded *loaded,
                    char *msg, size_t cap)
{
    vx_cli_loaded tmp;
    vx_cli_loaded *l = loaded ? loaded : &tmp;
    memset(l, 0, sizeof *l);
    *out = NULL;
    /* standard input can be read once: the kernel or one --load */
    unsigned from_stdin = !strcmp(kernel, "-");
    for (size_t i = 0; i < o->nloads; i++)
        from_stdin += !strcmp(o->loads[i].path, "-");
    if (from_stdin > 1) {
        snprintf(msg, cap,
                 "standard input ('-') is named %u times (kernel and --load): it can be read once",
                 from_stdin);
        return VX_ERR_INVAL;
    }
    char cm[160];
    vx_err err = vx_sim_config_check(&o->cfg, cm, sizeof cm);
    if (err) {
        snprintf(msg, cap, "bad platform: %s", cm);
        return err;
    }
    vx_sim *s = NULL;
    err = vx_sim_new(&o->cfg, &s);
    if (err) {
        snprintf(msg, cap, "cannot create the simulator: %s", vx_strerror(err));
        return err;
    }
    /* A kernel file is at most the guest memory, or KERNEL_FILE_MIN for an ELF with much
     * debug information beside a small image (a read of /dev/zero stops there). */
    const uint64_t lim = o->cfg.mem_limit ? o->cfg.mem_limit : VX_SIM_DEFAULT_MEM_LIMIT;
    err = vx_cli_read_file_max(kernel, lim > KERNEL_FILE_MIN ? lim : KERNEL_FILE_MIN,
                               lim > KERNEL_FILE_MIN
                                   ? "the guest memory limit, --mem-limit"
                                   : "the most a kernel file may be, with this --mem-limit",
                               &l->kernel.data, &l->kernel.len, msg, cap);
    if (err) goto fail;
    l->kernel.path = strdup(kernel);
    l->kind = vx_image_detect(kernel, l->kernel.data, l->kernel.len);
    if (l->kind == VX_IMAGE_BIN && looks_like_text(l->kernel.data, l->kernel.len)) {
        /* a source file given by mistake would run as raw code and fault at once */
        snprintf(msg, cap,
                 "'%s' is text, not a kernel image (ELF, Vortex .vxbin or raw binary): "
                 "build it with vxcc first",
                 kernel);
        err = VX_ERR_FORMAT;
        goto fail;
    }
    err = vx_sim_load_image(s, kernel, l->kind, l->kernel.data, l->kernel.len, &l->kernel.addr);
    if (err) {
        snprintf(msg, cap, "cannot load kernel '%s': %s", kernel, vx_sim_errmsg(s));
        goto fail;
    }
    if (o->nloads) {
        l->loads = calloc(o->nloads, sizeof *l->loads);
        if (!l->loads) {
            snprintf(msg, cap, "out of memory");
            err = VX_ERR_NOMEM;
            goto fail;
        }
    }
    for (size_t i = 0; i < o->nloads; i++) {
        vx_cli_blob *b = &l->loads[i];
        l->nloads = i + 1;
        err = vx_cli_read_file_max(o->loads[i].path, lim, "the guest memory limit, --mem-limit",
                                   &b->data, &b->len, msg, cap);
        if (err) goto fail;
        b->path = strdup(o->loads[i].path);
        b->addr = o->loads[i].addr;
        uint64_t end = (uint64_t)b->addr + b->len;
        if (b->addr < 0x80 || end > VX_LMEM_BASE_ADDR) {
            snprintf(msg, cap,
                     "--load '%s'@0x%08x: [0x%08x, 0x%llx) is not inside global memory "
                     "[0x80, 0xffff0000)",
                     b->path, b->addr, b->addr, (unsigned long long)end);
            err = VX_ERR_RANGE;
            goto fail;
        }
        err = vx_sim_mem_write(s, 0, b->addr, b->data, b->len);
        if (err) {
            snprintf(msg, cap, "--load '%s': %s", b->path, vx_sim_errmsg(s));
            goto fail;
        }
    }
    if (o->max_cycles) vx_sim_set_max_cycles(s, o->max_cycles);
    *out = s;
    if (!loaded) vx_cli_loaded_release(l);
    return VX_OK;
fail:
    vx_sim_free(s);
    vx_cli_loaded_release(l);
    return err;
}

size_t vx_cli_lanes_text(vx_lanes m, char *buf, size_t cap)
{
    uint64_t hi = (uint64_t)(m >> 64), lo = (uint64_t)m;
    if (hi)
        return (size_t)snprintf(buf, cap, "0x%llx%016llx", (unsigned long long)hi,
                                (unsigned long long)lo);
    return (size_t)snprintf(buf, cap, "0x%llx", (unsigned long long)lo);
}

static const char *signame(unsigned sig)
{
    switch (sig) {
    case 4: return "SIGILL";
    case 5: return "SIGTRAP";
    case 6: return "SIGABRT";
    case 7: return "SIGBUS";
    case 8: return "SIGFPE";
    case 11: return "SIGSEGV";
    case 12: return "SIGSYS";
    default: return "signal";
    }
}

void vx_cli_kernel_symbols(const vx_cli_loaded *l, vxd_symtab *syms)
{
    char note[160];
    memset(syms, 0, sizeof *syms);
    (void)vxd_symtab_load(syms, (uint8_t)l->kind, l->kernel.data, l->kernel.len, note, sizeof note);
}

size_t vx_cli_fault_text(const vx_fault *f, const vxd_symtab *syms, char *buf, size_t cap)
{
    char lanes[48], dis[96] = "", fn[400] = "";
    /* (a deadlock is at no instruction: its pc is a waiting warp's) */
    if (f->kind != VX_FAULT_DEADLOCK) vxd_symtab_where(syms, f->pc, fn, sizeof fn);
    vx_cli_lanes_text(f->lanes, lanes, sizeof lanes);
    if (f->kind != VX_FAULT_DEADLOCK && !(f->insn == 0 && f->kind == VX_FAULT_UNMAPPED)) {
        char d[80];
        vx_disasm(f->pc, f->insn, d, sizeof d);
        snprintf(dis, sizeof dis, " [%s]", d);
    }
    /* the first fault a kernel compiled with plain GCC meets: say what to do; and a
     * misaligned load or store, which SimX carries out (the upstream runtime's TLS
     * does one) */
    const char *hint =
        f->kind == VX_FAULT_DIVERGENT
            ? "; a branch the lanes may disagree on needs vx_split/vx_join around "
              "it (kernel/README.md, \"SIMT rules\")"
        : f->kind == VX_FAULT_MISALIGNED &&
                (strstr(f->reason, "-byte load at") || strstr(f->reason, "-byte store at"))
            ? "; SimX carries out misaligned loads and stores: --allow-misaligned does too"
            : "";
    return (size_t)snprintf(
        buf, cap, "kernel fault at pc 0x%08x%s (core %u, warp %u, lanes %s): %s%s (%s)%s", f->pc,
        fn, f->core, f->warp, lanes, f->reason, dis, signame(f->signal), hint);
}

void vx_cli_signals(void)
{
    signal(SIGXFSZ, SIG_IGN);
    /* A standard stream the caller closed (vxrec k.elf >&-) is /dev/null, read-only:
     * the next file opened would otherwise get its number, and a trace or a --dump file
     * opened as fd 1 received the kernel's console output.  Writes to it now fail, and
     * the programs say so as for any write error. */
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
            int nfd = open("/dev/null", O_RDONLY);
            if (nfd >= 0 && nfd != fd) close(nfd); /* (a number below fd was free: not ours) */
        }
}

void vx_cli_usage_error(const char *prog, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry '%s --help'.\n", prog);
    va_end(ap);
}

uint32_t vx_cli_note_unjoined(const char *prog, const vx_sim *s)
{
    const uint32_t ngw = vx_sim_num_warps(s), nw = vx_sim_get_config(s)->warps;
    uint32_t found = 0;
    for (uint32_t gw = 0; gw < ngw; gw++) {
        vx_warp_info wi;
        vx_ipdom_entry e;
        if (vx_sim_warp_info(s, gw, &wi) != VX_OK || wi.active || !wi.issued ||
            wi.ipdom_depth == 0 || vx_sim_ipdom_get(s, gw, wi.ipdom_depth - 1, &e) != VX_OK)
            continue;
        if (found++ >= 8) continue;
        /* the innermost split: its else side not started (e.fallthrough 0: the else
         * lanes never ran it), or started and never joined (the first side's lanes,
         * waiting at the join, never ran again) */
        char lanes[48];
        vx_cli_lanes_text(e.fallthrough ? e.orig_mask & ~e.else_mask : e.else_mask, lanes,
                          sizeof lanes);
        fprintf(stderr,
                "%s: note: warp %" PRIu32 ":%" PRIu32 " finished with %" PRIu32
                " split%s not joined: lanes %s, divided by the vx_split at pc 0x%08" PRIx32
                ", %s (a vx_join missing or misplaced?)\n",
                prog, gw / nw, gw % nw, wi.ipdom_depth, wi.ipdom_depth == 1 ? "" : "s", lanes,
                e.pc - 4,
                e.fallthrough ? "never ran again after their side" : "never ran their side");
    }
    if (found > 8)
        fprintf(stderr, "%s: note: and %" PRIu32 " more warps finished with splits not joined\n",
                prog, found - 8);
    return found;
}

bool vx_cli_trace_version_note(const char *prog, const char *path, unsigned major, unsigned minor)
{
    if (major != VX_TRACE_MAJOR || minor <= VX_TRACE_MINOR) return false;
    fprintf(stderr,
            "%s: note: %s is trace format %u.%u, newer than this program's %u.%u; anything "
            "added since %u.%u is skipped\n",
            prog, path, major, minor, VX_TRACE_MAJOR, VX_TRACE_MINOR, VX_TRACE_MAJOR,
            VX_TRACE_MINOR);
    return true;
}

void vx_cli_ignore_sigpipe(void)
{
    signal(SIGPIPE, SIG_IGN);
}

void vx_cli_console_line(uint32_t slot, const char *line, size_t len)
{
    printf("#%u: %.*s\n", slot, (int)len, line);
}

/* 0 when all of standard output was written, else why not (an errno; -1: unknown). */
static int stdout_failure(void)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return 0;
    int e = errno;
    if (!e) { /* an earlier write failed (nothing was left to flush): ask again, for why */
        clearerr(stdout);
        errno = 0;
        if (fputc('\n', stdout) == EOF || fflush(stdout)) e = errno;
    }
    return e ? e : -1;
}

int vx_cli_output_done(const char *prog)
{
    const int e = stdout_failure();
    if (!e) return 0;
    fprintf(stderr, "%s: cannot write the output: %s\n", prog, e > 0 ? strerror(e) : "write error");
    return VX_EXIT_USAGE;
}

bool vx_cli_stdout_check(const char *prog, const char *what)
{
    const int e = stdout_failure();
    if (!e) return true;
    fprintf(stderr, "%s: %s could not be written to standard output%s%s\n", prog, what,
            e > 0 ? ": " : "", e > 0 ? strerror(e) : "");
    return false;
}

bool vx_cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

const char *vx_cli_std_stream(const char *path)
{
    struct stat sp, sf;
    if (!path || stat(path, &sp) != 0) return NULL;
    for (int fd = 1; fd <= 2; fd++)
        if (fstat(fd, &sf) == 0 && sf.st_dev == sp.st_dev && sf.st_ino == sp.st_ino)
            return fd == 1 ? "standard output" : "standard error";
    return NULL;
}

/* path made absolute and canonical, also when it does not exist yet (its directory
 * does): malloc'ed, or NULL. */
static char *canon_path(const char *path)
{
    char *r = realpath(path, NULL);
    if (r) return r;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
    char *rd = dir ? realpath(dir, NULL) : NULL;
    free(dir);
    if (!rd) return NULL;
    size_t n = strlen(rd) + strlen(base) + 2;
    r = malloc(n);
    if (r) snprintf(r, n, "%s%s%s", rd, rd[1] ? "/" : "", base);
    free(rd);
    return r;
}

bool vx_cli_same_output(const char *a, const char *b)
{
    if (vx_cli_same_file(a, b) || !strcmp(a, b)) return true;
    char *ca = canon_path(a), *cb = canon_path(b);
    bool same = ca && cb && !strcmp(ca, cb);
    free(ca);
    free(cb);
    return same;
}

int vx_cli_operand(const char *a, bool *operands)
{
    if (!*operands && !strcmp(a, "--")) {
        *operands = true;
        return -1;
    }
    return *operands || a[0] != '-' || !a[1];
}

bool vx_cli_list_ok(const char *s)
{
    return *s && *s != ',' && s[strlen(s) - 1] != ',' && !strstr(s, ",,");
}

bool vx_cli_accept_short(int err)
{
    return err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM;
}

bool vx_cli_accept_fatal(int err)
{
    switch (err) {
    case EAGAIN:
#if EWOULDBLOCK != EAGAIN
    case EWOULDBLOCK:
#endif
    case EINTR:
    case ECONNABORTED:
    /* Linux passes a pending network error of the connection on (accept(2)) */
    case ENETDOWN:
    case EPROTO:
    case ENOPROTOOPT:
    case EHOSTDOWN:
#ifdef ENONET
    case ENONET:
#endif
    case EHOSTUNREACH:
    case EOPNOTSUPP:
    case ENETUNREACH:
    case EPERM: /* (a firewall rule refused it) */
    case ETIMEDOUT:
    case ECONNRESET: return false;
    default: return !vx_cli_accept_short(err);
    }
}

long long vx_cli_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void vx_cli_warn_exposed(const char *prog, const char *addr)
{
    if (!strncmp(addr, "127.", 4) || !strcmp(addr, "localhost") || !strcmp(addr, "::1")) return;
    fprintf(stderr,
            "%s: warning: listening on %s: anyone who can reach that address can connect (there "
            "is no authentication); the default, 127.0.0.1, is reachable from this machine "
            "only\n",
            prog, addr);
}

bool vx_cli_write_fd(int fd, const uint8_t *buf, size_t len)
{
    for (size_t off = 0; off < len;) {
        ssize_t k = write(fd, buf + off, len - off);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            if (k == 0) errno = EIO;
            return false;
        }
        off += (size_t)k;
    }
    return true;
}

/* Is the file's start that of a RISC-V ELF32 (a kernel)? */
static bool riscv_elf32(const uint8_t *b, size_t n)
{
    return n >= 20 && !memcmp(b, "\177ELF", 4) && b[4] == 1 && b[5] == 1 &&
           (b[18] | b[19] << 8) == 243; /* ELFCLASS32, little-endian, EM_RISCV */
}

/* Write all of buf to fd from offset 0 (over what it holds: truncated first). */
static bool rewrite_fd(int fd, const uint8_t *buf, size_t len)
{
    if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0) return false;
    return vx_cli_write_fd(fd, buf, len);
}

/* Does fd (a regular file) hold exactly buf?  *kernel: does it start as a kernel does?
 * -1 when it cannot be read (errno set). */
static int holds(int fd, const uint8_t *buf, size_t len, bool *kernel)
{
    uint8_t chunk[65536];
    size_t off = 0;
    ssize_t k;
    *kernel = false;
    while ((k = read(fd, chunk, sizeof chunk)) > 0) {
        if (off == 0) *kernel = riscv_elf32(chunk, (size_t)k);
        if (off + (size_t)k > len || memcmp(chunk, buf + off, (size_t)k) != 0) return 0;
        off += (size_t)k;
    }
    return k < 0 ? -1 : off == len;
}

/*
 * Every check is made on the descriptor that is then written, and the last component
 * of the path is not followed when it is a symbolic link (but to a character device):
 * a link planted where the file goes (another user's, in a shared directory), or
 * swapped between a check and the write, made it write over the file it pointed to.
 */
bool vx_cli_write_new_file(const char *path, const uint8_t *buf, size_t len, bool replace_kernel,
                           char *msg, size_t cap)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && stat(path, &st) != 0) {
        snprintf(msg, cap, "'%s' is a symbolic link to nothing: not written", path);
        return false;
    }
    /* not blocking on a FIFO (O_NONBLOCK); a character device (/dev/null) is written as
     * it is, also through a link (/dev/stdout) */
    int fd = open(path, O_RDWR | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    const bool writable = fd >= 0;
    const int why_not = errno; /* (when not writable) */
    if (fd < 0 && (errno == EACCES || errno == EISDIR || errno == EROFS))
        /* one it cannot write: the same bytes will do (a directory is refused below) */
        fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ELOOP) {
        fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode))) {
            close(fd);
            snprintf(msg, cap,
                     "'%s' is a symbolic link: not written through it (name the file itself)",
                     path);
            return false;
        }
    }
    bool created = false, ok;
    if (fd < 0 && errno == ENOENT) { /* a new file */
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        created = fd >= 0;
        ok = fd >= 0 && vx_cli_write_fd(fd, buf, len);
    } else if (fd < 0) {
        ok = false;
    } else if (fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode))) {
        close(fd);
        snprintf(msg, cap, "'%s' exists and is not a regular file: not overwritten", path);
        return false;
    } else if (S_ISCHR(st.st_mode)) {
        /* (opened not to block on a FIFO: a terminal takes its time) */
        const int fl = fcntl(fd, F_GETFL);
        ok =
            fl != -1 && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != -1 && vx_cli_write_fd(fd, buf, len);
    } else {
        bool kernel;
        const int same = holds(fd, buf, len, &kernel);
        if (same != 0) {
            int e = errno;
            close(fd);
            if (same > 0) return true;
            snprintf(msg, cap, "cannot read '%s': %s", path, strerror(e));
            return false;
        }
        if (!replace_kernel || !kernel) {
            close(fd);
            snprintf(msg, cap,
                     "'%s' exists and holds something else: not overwritten (remove it, or "
                     "name another file)",
                     path);
            return false;
        }
        if (!writable) {
            close(fd);
            snprintf(msg, cap, "cannot write '%s': %s", path, strerror(why_not));
            return false;
        }
        ok = rewrite_fd(fd, buf, len); /* a kernel, replaced */
        if (!ok) {
            /* no partial kernel: the path's file, if it is still the one written */
            struct stat now;
            int e = errno;
            if (lstat(path, &now) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino)
                unlink(path);
            errno = e;
        }
    }
    int e = errno;
    if (fd >= 0 && close(fd) != 0 && ok) ok = false, e = errno;
    if (!ok) {
        snprintf(msg, cap, "cannot write '%s': %s", path, strerror(e));
        if (created) unlink(path); /* no partial file: it was created here */
    }
    return ok;
}

const char *vx_cli_run_input(const vx_cli_run *run, const char *kernel, const char *path)
{
    if (vx_cli_same_file(path, kernel)) return kernel;
    for (size_t i = 0; i < run->nloads; i++)
        if (vx_cli_same_file(path, run->loads[i].path)) return run->loads[i].path;
    return NULL;
}

bool vx_cli_dumps_check(const char *prog, const vx_cli_run *run, const char *kernel,
                        const char *other)
{
    for (size_t i = 0; i < run->ndumps; i++) {
        const char *o = run->dumps[i].file;
        if (vx_cli_run_input(run, kernel, o)) {
            fprintf(stderr, "%s: the output '%s' is an input of the run\n", prog, o);
            return false;
        }
        if (other && vx_cli_same_output(o, other)) {
            fprintf(stderr, "%s: --dump '%s' is also the output '%s'\n", prog, o, other);
            return false;
        }
        for (size_t j = 0; j < i; j++)
            if (vx_cli_same_output(o, run->dumps[j].file)) {
                fprintf(stderr, "%s: two --dump options write '%s'\n", prog, o);
                return false;
            }
    }
    return true;
}

int vx_cli_dumps_open(const char *prog, vx_cli_run *run, vx_sim *s)
{
    const uint32_t ncores = vx_sim_num_cores(s);
    for (size_t i = 0; i < run->ndumps; i++) {
        vx_cli_dump *d = &run->dumps[i];
        if (d->core >= ncores) {
            fprintf(stderr,
                    "%s: --dump '%s': there is no core %" PRIu32 " (the platform has %" PRIu32
                    " core%s: 0..%" PRIu32 ")\n",
                    prog, d->file, d->core, ncores, ncores == 1 ? "" : "s", ncores - 1);
            return VX_EXIT_USAGE;
        }
        /* the memory map decides what is readable, not the run: the first and the last
         * byte tell (unmapped space lies only below and above the mapped range) */
        uint8_t b;
        if (d->len && (vx_sim_mem_read(s, d->core, d->addr, &b, 1) ||
                       vx_sim_mem_read(s, d->core, (uint32_t)(d->addr + d->len - 1), &b, 1))) {
            fprintf(stderr, "%s: --dump '%s': [0x%08x, +%" PRIu64 ") is not readable memory\n",
                    prog, d->file, d->addr, d->len);
            return VX_EXIT_USAGE;
        }
    }
    for (size_t i = 0; i < run->ndumps; i++) {
        vx_cli_dump *d = &run->dumps[i];
        /* created if need be, but emptied only when written: an old file stays as it
         * was when the program fails before the run ends */
        int fd = open(d->file, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0 || !(d->f = fdopen(fd, "wb"))) {
            if (fd >= 0) close(fd);
            fprintf(stderr, "%s: --dump: cannot write '%s': %s\n", prog, d->file, strerror(errno));
            return VX_EXIT_USAGE;
        }
    }
    return 0;
}

int vx_cli_dumps_write(const char *prog, vx_cli_run *run, vx_sim *s)
{
    int rc = 0;
    for (size_t i = 0; i < run->ndumps; i++) {
        vx_cli_dump *d = &run->dumps[i];
        if (!d->f) continue;
        FILE *f = d->f;
        d->f = NULL;
        uint8_t *buf = malloc(d->len ? d->len : 1);
        bool ok = false;
        if (!buf) {
            fprintf(stderr, "%s: --dump '%s': out of memory\n", prog, d->file);
        } else if (vx_sim_mem_read(s, d->core, d->addr, buf, d->len)) {
            fprintf(stderr, "%s: --dump '%s': [0x%08x, +%" PRIu64 ") is not readable memory\n",
                    prog, d->file, d->addr, d->len);
        } else {
            struct stat st;
            /* emptied now (a regular file: not /dev/stdout, a pipe or a terminal) */
            ok = (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) ||
                  ftruncate(fileno(f), 0) == 0) &&
                 fwrite(buf, 1, d->len, f) == d->len && fflush(f) == 0;
            if (!ok) fprintf(stderr, "%s: cannot write '%s': %s\n", prog, d->file, strerror(errno));
        }
        if (fclose(f) != 0 && ok) {
            fprintf(stderr, "%s: cannot write '%s': %s\n", prog, d->file, strerror(errno));
            ok = false;
        }
        if (!ok) rc = VX_EXIT_USAGE;
        free(buf);
    }
    return rc;
}

void vx_cli_put_word(FILE *f, const char *s)
{
    bool plain = *s != '\0';
    for (const char *p = s; *p && plain; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                strchr("_@%+=:,./-", *p) != NULL;
    if (plain) {
        fputs(s, f);
        return;
    }
    fputc('\'', f);
    for (const char *p = s; *p; p++)
        if (*p == '\'')
            fputs("'\\''", f);
        else
            fputc(*p, f);
    fputc('\'', f);
}

const char *vx_cli_trace_name(const char *arg)
{
    return strcmp(arg, "-") ? arg : "standard input";
}

const char *vx_cli_trace_file(const char *prog, const char *arg)
{
    static char path[64];
    static int fd = -1;
    if (strcmp(arg, "-")) return arg;
    if (fd >= 0) return path;
    if (isatty(STDIN_FILENO)) {
        fprintf(stderr, "%s: the trace '-' is standard input, which is a terminal\n", prog);
        return NULL;
    }
    const char *dir = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/vxrr-stdin-XXXXXX", dir && *dir ? dir : "/tmp");
    int t = mkstemp(tmpl);
    if (t < 0) {
        fprintf(stderr, "%s: cannot copy standard input: %s: %s\n", prog, tmpl, strerror(errno));
        return NULL;
    }
    unlink(tmpl); /* gone when this process ends, however it ends */
    char buf[65536];
    for (;;) {
        ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
        if (n == 0) break;
        if (n < 0 && errno == EINTR) continue;
        const char *why = n < 0 ? strerror(errno) : NULL;
        for (ssize_t off = 0; !why && off < n;) {
            ssize_t w = write(t, buf + off, (size_t)(n - off));
            if (w < 0 && errno != EINTR) why = strerror(errno);
            if (w > 0) off += w;
        }
        if (why) {
            fprintf(stderr, "%s: cannot copy standard input to a temporary file: %s\n", prog, why);
            close(t);
            return NULL;
        }
    }
    fd = t;
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    return path;
}

/* ---- --races ---------------------------------------------------------------------- */

/* "<sym+off>" (with a space before) for a pc or a data address, or "". */
static void race_sym_text(const vxd_symtab *t, uint32_t a, char *buf, size_t cap)
{
    buf[0] = 0;
    if (t && vxd_symtab_format(t, a, buf + 1, cap - 1) > 0) buf[0] = ' ';
}

static void race_access(const vx_sim *s, const vxd_symtab *code, const char *what,
                        const vxr_access *a)
{
    const uint32_t nw = vx_sim_get_config(s)->warps;
    char fn[400], dis[96] = "";
    uint32_t insn;
    vxd_symtab_where(code, a->pc, fn, sizeof fn);
    if (vx_sim_mem_read(s, a->gwarp / nw, a->pc, &insn, 4) == VX_OK) {
        dis[0] = ' ';
        dis[1] = '[';
        size_t n = vx_disasm(a->pc, insn, dis + 2, sizeof dis - 3);
        if (n + 3 >= sizeof dis) n = sizeof dis - 4;
        dis[2 + n] = ']';
        dis[3 + n] = 0;
    }
    fprintf(stderr, "  %-6s event %" PRIu64 ", warp %u:%u lane %u, pc 0x%08x%s%s\n", what, a->index,
            a->gwarp / nw, a->gwarp % nw, a->lane, a->pc, fn, dis);
}

vxr *vx_cli_races_new(const char *prog, const vx_sim *s)
{
    vxr *r = NULL;
    vx_err e = vxr_new(&r, vx_sim_num_cores(s), vx_sim_get_config(s)->warps);
    if (e == VX_ERR_LIMIT)
        fprintf(stderr, "%s: --races checks platforms of up to %u warps (this one has %u)\n", prog,
                VXR_MAX_WARPS, vx_sim_num_warps(s));
    else if (e)
        fprintf(stderr, "%s: out of memory\n", prog);
    return r;
}

size_t vx_cli_races_report(const char *prog, const vx_sim *s, const vxr *race,
                           const vxd_symtab *code, const vxd_symtab *data, bool traced)
{
    static const char *const kinds[] = {"", "write then write", "write then read",
                                        "read then write",
                                        "two lanes of one store write different values"};
    size_t n;
    const vxr_race *x = vxr_races(race, &n);
    for (size_t i = 0; i < n; i++, x++) {
        char obj[200], where[48] = "";
        race_sym_text(data, x->addr, obj, sizeof obj);
        if (x->space) snprintf(where, sizeof where, " (core %u's local memory)", x->space - 1);
        fprintf(stderr, "%s: data race (%s) on %u byte%s at 0x%08x%s%s:\n", prog, kinds[x->kind],
                x->len, x->len == 1 ? "" : "s", x->addr, obj, where);
        race_access(s, code, x->prev.write ? "write" : "read", &x->prev);
        race_access(s, code, x->cur.write ? "write" : "read", &x->cur);
        if (x->count > x->len)
            fprintf(stderr, "  %" PRIu64 " conflicting byte pairs at these two instructions\n",
                    x->count);
    }
    if (!n) {
        fprintf(stderr, "%s: --races: no data race found in %" PRIu64 " issues\n", prog,
                vx_sim_index(s));
    } else {
        fprintf(stderr,
                "%s: --races: %zu race%s (pairs of instructions)%s, %" PRIu64
                " conflicting byte pairs in all\n%s",
                prog, n, n == 1 ? "" : "s", n >= VXR_MAX_REPORTS ? ", the first ones shown" : "",
                vxr_total(race),
                traced
                    ? "  (in vxreplay, 'monitor seek N' or vx-seek N goes to event N, and\n"
                      "  vx-thread G L selects an access's warp C:W, G = C x warps + W, and lane)\n"
                    : "  (the event numbers are those of a recording of this run: vxrec "
                      "with the same\n  options; in vxreplay, 'monitor seek N' or vx-seek "
                      "N goes to event N, and\n  vx-thread G L selects an access's warp C:W, "
                      "G = C x warps + W, and lane)\n");
    }
    return n;
}
