/*
 * vxdump - show a vxrr trace: one line per event, JSON Lines for scripts, a
 * summary of what the kernel did, or a timeline for Perfetto.
 *
 *   vxdump [options] TRACE
 *
 * Exit status: 0 success; 1 the trace is incomplete (cut off while it was
 * written): everything up to its last complete chunk was shown and a note went
 * to stderr; 2 usage error, or a trace that cannot be read or is corrupt (the
 * message names the file and the byte offset; events before the damage are
 * shown).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "evfmt.h"
#include "summary.h"
#include "symtab.h"
#include "timeline.h"
#include "vx_isa.h"
#include "vx_trace.h"

#define EXIT_INCOMPLETE 1

static const char *prog = "vxdump";

/* --kind bits */
enum {
    K_ISSUE = 1 << 0,   /* every issue */
    K_MEM = 1 << 1,     /* issues with memory writes */
    K_WCTL = 1 << 2,    /* issues with warp-control effects */
    K_BARRIER = 1 << 3, /* issues that arrive at or release a barrier */
    K_SPLIT = 1 << 4,   /* vx_split / vx_split.n issues */
    K_DIVERGE = 1 << 5, /* divergent splits (an IPDOM push) */
    K_CONSOLE = 1 << 6, /* issues that write console bytes */
    K_FAULT = 1 << 7,   /* faulting issues and an END record with a fault */
    K_DM = 1 << 8,      /* Debug Module events */
    K_END = 1 << 9,     /* the END record */
    K_COMMIT = 1 << 10, /* issues with register commits */
    K_ALL = (1 << 11) - 1,
};

static const struct {
    const char *name;
    unsigned bit;
} kinds[] = {
    {"issue", K_ISSUE}, {"mem", K_MEM},         {"wctl", K_WCTL},       {"barrier", K_BARRIER},
    {"split", K_SPLIT}, {"diverge", K_DIVERGE}, {"console", K_CONSOLE}, {"fault", K_FAULT},
    {"dm", K_DM},       {"end", K_END},         {"commit", K_COMMIT},   {"all", K_ALL},
};

typedef struct opts {
    const char *trace;
    bool json, summary, no_header, check, lines;
    const char *timeline;
    const char *extract;
    bool has_from, has_to;
    uint64_t from, to;
    const char *warp_arg; /* resolved after the header is known */
    const char *pc_arg;
    const char *addr_arg;
    int lane; /* -1: all */
    unsigned kinds;
} opts;

typedef struct warpset {
    uint32_t *g;
    size_t n;
} warpset;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: vxdump [options] TRACE\n"
            "Show a vxrr trace (.vxt): one line per event with its event index, cycle,\n"
            "core:warp, PC and symbol, thread mask, instruction and effects.  TRACE '-'\n"
            "reads the trace from standard input.\n\n"
            "selection (the listing; --from/--to also bound --summary and --timeline; the\n"
            "filters --warp, --lane, --pc, --addr and --kind combine; each is given once):\n"
            "      --from N            start at event index N (uses the trace index: no scan)\n"
            "      --to N              stop after event index N\n"
            "      --warp W[,W...]     only warp W: CORE:WARP or a global warp id\n"
            "      --lane L            only events where lane L is active, and only its values\n"
            "                          (Debug Module events that name a lane: lane L's)\n"
            "      --pc ADDR|SYM[+OFF] only issues at that PC (ADDR: 0x..., or 8 hex digits as\n"
            "                          listed); a bare function name selects every PC in\n"
            "                          the function (C++: ns::f or f, unmangled; an\n"
            "                          overload by its signature: 'f(P const&, int)');\n"
            "      --pc FILE:LINE      only issues of that source line (from the kernel's\n"
            "                          DWARF line tables: build it with -g); FILE is the\n"
            "                          file's name or the end of its path (vecadd.c);\n"
            "                          FILE:LINE:COL is read as FILE:LINE\n"
            "      --addr ADDR[:LEN]   only issues whose memory writes touch the LEN bytes\n"
            "                          (default 1) at ADDR (0x... or decimal; with --lane,\n"
            "                          that lane's writes; bytes stored to the console\n"
            "                          window 0x40..0x7f too); local memory (0xffff0000...) is\n"
            "                          each core's own: give --warp the core's warps\n"
            "                          (--pc and --addr decode only the chunks whose stored\n"
            "                          digests may hold a match)\n"
            "      --kind K[,K...]     only these kinds of events: issue, commit, mem, wctl,\n"
            "                          barrier, split, diverge, console, fault, dm, end, all\n\n"
            "output:\n"
            "      --json              JSON Lines, one object per event (tools/vxdump/SCHEMA.md)\n"
            "      --no-header         no column header line in the text listing\n"
            "      --lines             a SOURCE column (FILE:LINE) after the symbol in the\n"
            "                          text listing (the JSON objects always have \"source\")\n"
            "      --summary           header, totals, per-warp counts, divergence, barrier\n"
            "                          waits, a per-function histogram and the busiest\n"
            "                          source lines (with --json: one JSON object, every\n"
            "                          line) instead of the listing\n"
            "      --timeline FILE     write the warp activity as Chrome trace-event JSON for\n"
            "                          Perfetto / chrome://tracing (1 cycle shown as 1 us)\n"
            "      --check             first verify the whole file (every chunk, its checksum\n"
            "                          and its place, every record and keyframe, the index),\n"
            "                          not only the events shown\n"
            "      --extract DIR       write the kernel image and the loaded files stored in\n"
            "                          the trace into DIR and print the vxrec options that\n"
            "                          record the same run again; a file already in DIR\n"
            "                          with other contents, or a symbolic link there, is\n"
            "                          not overwritten (exit 2)\n\n"
            "  -h, --help              this text\n"
            "      --version           print the version\n\n"
            "SCHEMA.md is in the source tree and in PREFIX/share/vxrr/doc (installed).\n"
            "exit status: 0 success; 1 the trace is incomplete (cut off): everything up to\n"
            "its last complete chunk was shown; 2 usage error, unreadable or corrupt trace\n");
}

/* Report a usage error; evaluates to the usage exit status. */
#define usage_error(...) (vx_cli_usage_error(prog, __VA_ARGS__), VX_EXIT_USAGE)

/* "--opt V" or "--opt=V": the value, or NULL (and *i unchanged) when argv[*i] is not opt. */
static const char *optval(int argc, char **argv, int *i, const char *name, bool *missing)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n)) return NULL;
    if (a[n] == '=') return a + n + 1;
    if (a[n]) return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

static int parse_kinds(const char *s, unsigned *out)
{
    unsigned k = 0;
    if (!vx_cli_list_ok(s)) {
        fprintf(stderr, "%s: --kind: an empty item in '%s'\n", prog, s);
        return -1;
    }
    char *copy = strdup(s), *save = NULL;
    if (!copy) return -1;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        size_t j;
        for (j = 0; j < VX_ARRAY_SIZE(kinds); j++)
            if (!strcmp(t, kinds[j].name)) break;
        if (j == VX_ARRAY_SIZE(kinds)) {
            fprintf(stderr,
                    "%s: --kind: unknown kind '%s' (issue, commit, mem, wctl, barrier, split, "
                    "diverge, console, fault, dm, end, all)\n",
                    prog, t);
            free(copy);
            return -1;
        }
        k |= kinds[j].bit;
    }
    free(copy);
    *out = k;
    return 0;
}

/* A filter given twice: one would silently replace the other, where a user may expect
 * both to select. */
static int filter_twice(const char *opt, bool list)
{
    return usage_error("%s given twice: it takes one %s", opt,
                       list ? "comma-separated list" : "value (one listing per value)");
}

static int parse_args(int argc, char **argv, opts *o)
{
    bool has_kinds = false;
    memset(o, 0, sizeof *o);
    o->lane = -1;
    o->kinds = K_ALL;
    bool operands = false; /* after "--": the trace, whatever its name */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool missing = false;
        const int operand = vx_cli_operand(a, &operands);
        if (operand < 0) {
            continue;
        } else if (operand) {
            if (o->trace) return usage_error("one trace at a time ('%s' is extra)", a);
            o->trace = a;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(vx_cli_output_done(prog));
        } else if (!strcmp(a, "--version")) {
            printf("vxdump (vxrr) %s\n", VX_VERSION_STRING);
            exit(vx_cli_output_done(prog));
        } else if (!strcmp(a, "--json")) {
            o->json = true;
        } else if (!strcmp(a, "--summary")) {
            o->summary = true;
        } else if (!strcmp(a, "--no-header")) {
            o->no_header = true;
        } else if (!strcmp(a, "--lines")) {
            o->lines = true;
        } else if (!strcmp(a, "--check")) {
            o->check = true;
        } else if ((v = optval(argc, argv, &i, "--from", &missing))) {
            if (!vx_cli_parse_u64(v, false, &o->from))
                return usage_error("--from: '%s' is not an event index", v);
            o->has_from = true;
        } else if ((v = optval(argc, argv, &i, "--to", &missing))) {
            if (!vx_cli_parse_u64(v, false, &o->to))
                return usage_error("--to: '%s' is not an event index", v);
            o->has_to = true;
        } else if ((v = optval(argc, argv, &i, "--warp", &missing))) {
            if (o->warp_arg) return filter_twice("--warp", true);
            o->warp_arg = v;
        } else if ((v = optval(argc, argv, &i, "--lane", &missing))) {
            uint32_t l;
            if (o->lane >= 0) return filter_twice("--lane", false);
            if (!vx_cli_parse_u32(v, &l) || l >= VX_MAX_THREADS)
                return usage_error("--lane: '%s' is not a lane number (0..127)", v);
            o->lane = (int)l;
        } else if ((v = optval(argc, argv, &i, "--pc", &missing))) {
            if (o->pc_arg) return filter_twice("--pc", false);
            o->pc_arg = v;
        } else if ((v = optval(argc, argv, &i, "--addr", &missing))) {
            if (o->addr_arg) return filter_twice("--addr", false);
            o->addr_arg = v;
        } else if ((v = optval(argc, argv, &i, "--kind", &missing))) {
            if (has_kinds) return filter_twice("--kind", true);
            has_kinds = true;
            if (parse_kinds(v, &o->kinds)) return VX_EXIT_USAGE;
        } else if ((v = optval(argc, argv, &i, "--timeline", &missing))) {
            o->timeline = v;
        } else if ((v = optval(argc, argv, &i, "--extract", &missing))) {
            o->extract = v;
        } else if (missing) {
            return usage_error("option %s needs a value", a);
        } else {
            return usage_error("unknown option '%s'", a);
        }
    }
    if (!o->trace) return usage_error("%s", "no trace given");
    if (o->has_from && o->has_to && o->to < o->from)
        return usage_error("%s", "--to is before --from");
    return 0;
}

/* --addr ADDR[:LEN]: the byte range [ADDR, ADDR + LEN), LEN 1 by default. */
static int parse_addr(const char *s, uint64_t *lo, uint64_t *hi)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    char *colon = strchr(buf, ':');
    uint64_t len = 1;
    uint32_t a;
    if (colon) *colon = 0;
    if (strlen(s) >= sizeof buf || !vx_cli_parse_u32(buf, &a) ||
        (colon &&
         (!vx_cli_parse_u64(colon + 1, false, &len) || len == 0 || len > 0x100000000ull - a))) {
        fprintf(stderr,
                "%s: --addr: '%s' is not ADDR or ADDR:LEN (a 32-bit address, a length of at "
                "least 1 that stays below 4 GiB)\n",
                prog, s);
        return -1;
    }
    *lo = a;
    *hi = a + len;
    return 0;
}

/* --warp: CORE:WARP or a global warp id, comma separated. */
static int parse_warps(const char *s, const vx_trace_header *h, warpset *ws)
{
    uint32_t ncores = h->clusters * h->cores, total = ncores * h->warps;
    if (!vx_cli_list_ok(s)) {
        fprintf(stderr, "%s: --warp: an empty item in '%s'\n", prog, s);
        return -1;
    }
    char *copy = strdup(s), *save = NULL;
    if (!copy) return -1;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        uint32_t c = 0, w = 0, g;
        char *colon = strchr(t, ':');
        if (colon) {
            *colon = 0;
            if (!vx_cli_parse_u32(t, &c) || !vx_cli_parse_u32(colon + 1, &w) || c >= ncores ||
                w >= h->warps) {
                fprintf(stderr, "%s: --warp: no warp %s:%s in this trace (%u cores x %u warps)\n",
                        prog, t, colon + 1, ncores, h->warps);
                free(copy);
                return -1;
            }
            g = c * h->warps + w;
        } else if (!vx_cli_parse_u32(t, &g) || g >= total) {
            fprintf(stderr,
                    "%s: --warp: no warp '%s' in this trace (global ids 0..%u, or CORE:WARP)\n",
                    prog, t, total - 1);
            free(copy);
            return -1;
        }
        uint32_t *p = realloc(ws->g, (ws->n + 1) * sizeof *p);
        if (!p) {
            free(copy);
            return -1;
        }
        ws->g = p;
        ws->g[ws->n++] = g;
    }
    free(copy);
    return 0;
}

static bool in_warps(const warpset *ws, uint32_t g)
{
    for (size_t i = 0; i < ws->n; i++)
        if (ws->g[i] == g) return true;
    return false;
}

/* --pc ADDR or SYM[+OFF]: [lo, hi) */
static int parse_pc_sym(const char *s, const vxd_symtab *syms, uint32_t *lo, uint32_t *hi)
{
    uint32_t v;
    /* eight hex digits, as the listing prints a PC, are hex without the 0x */
    const bool hex8 = strlen(s) == 8 && strspn(s, "0123456789abcdefABCDEF") == 8;
    if (hex8) v = (uint32_t)strtoul(s, NULL, 16);
    if (hex8 || vx_cli_parse_u32(s, &v)) {
        *lo = v;
        *hi = v + 1;
        return 0;
    }
    char name[256];
    snprintf(name, sizeof name, "%s", s);
    char *plus = strrchr(name, '+');
    uint32_t off = 0;
    bool has_off = false;
    /* a '+' that the name ends with, or one that "=", a copy's suffix or a parameter
     * list follows, is a C++ operator's (operator+, operator++, operator+=,
     * operator+.isra.0, operator+(V const&)) */
    if (plus && plus[1] && plus[1] != '=' && plus[1] != '+' && plus[1] != '.' && plus[1] != '(') {
        *plus = 0;
        if (!vx_cli_parse_u32(plus + 1, &off)) {
            fprintf(stderr, "%s: --pc: bad offset in '%s'\n", prog, s);
            return -1;
        }
        has_off = true;
    }
    const vxd_sym *sym = vxd_symtab_find(syms, name);
    size_t nmatch = 0;
    if (!sym) /* a C++ function by its name: one symbol of that name */
        nmatch = vxd_symtab_match_count(syms, name, &sym);
    if (nmatch > 1) {
        fprintf(stderr,
                "%s: --pc: %zu functions are called '%s'; give one's signature or symbol:", prog,
                nmatch, name);
        for (size_t i = 0; i < syms->n; i++) {
            const vxd_sym *m = &syms->syms[i];
            if (!vxd_symtab_matches_at(syms, i, name)) continue;
            if (m->shown != m->name)
                fprintf(stderr, " '%s' (%s)", m->shown, m->name);
            else
                fprintf(stderr, " %s", m->name);
        }
        fputc('\n', stderr);
        return -1;
    }
    if (!sym) {
        fprintf(stderr, "%s: --pc: no symbol '%s' in the kernel of this trace%s\n", prog, name,
                !syms->n                           ? " (it has no symbol table)"
                : name[0] >= '0' && name[0] <= '9' ? " (an address in hex is written 0x...)"
                                                   : "");
        return -1;
    }
    if (has_off && off > UINT32_MAX - sym->addr) {
        fprintf(stderr, "%s: --pc: '%s' is past the 4 GiB address space\n", prog, s);
        return -1;
    }
    if (has_off && ((sym->addr + off) & 3)) {
        fprintf(stderr,
                "%s: --pc: '%s' is 0x%08" PRIx32
                ", not an instruction's address (a multiple of 4)\n",
                prog, s, sym->addr + off);
        return -1;
    }
    if (has_off) {
        *lo = sym->addr + off;
        *hi = *lo + 1;
    } else {
        *lo = sym->addr;
        *hi = vxd_symtab_end(syms, (size_t)(sym - syms->syms));
    }
    return 0;
}

/* The last ':' of s that digits alone follow (up to end, which points at a ':' or the
 * end of s), where something other than ':' comes before it; NULL when there is none. */
static const char *number_colon(const char *s, const char *end)
{
    const char *c = end;
    while (c > s && c[-1] >= '0' && c[-1] <= '9')
        c--;
    if (c == end || c - 1 <= s || c[-1] != ':' || c[-2] == ':') return NULL;
    return c - 1;
}

/* --pc FILE:LINE (or FILE:LINE:COLUMN, as compilers print a place; the column is not
 * used): the code of that line (from the kernel's line tables). 1: not a FILE:LINE;
 * 0 done; -1 error (said). */
static int parse_pc_line(const char *s, const vxd_symtab *syms, vxd_range **pcs, size_t *npcs)
{
    const char *end = s + strlen(s), *colon = number_colon(s, end);
    if (!colon) return 1;
    const char *lcolon = number_colon(s, colon);
    if (lcolon) { /* FILE:LINE:COLUMN */
        end = colon;
        colon = lcolon;
    }
    char file[1024 + 64]; /* FILE, then LINE after its NUL (the column cut off) */
    uint32_t line = 0;
    const bool too_long = colon - s >= 1024, fits = (size_t)(end - s) < sizeof file;
    if (!too_long && fits) {
        memcpy(file, s, (size_t)(end - s));
        file[end - s] = 0;
        file[colon - s] = 0;
    }
    if (too_long || !fits || !vx_cli_parse_u32(file + (colon - s) + 1, &line) || !line) {
        fprintf(stderr, "%s: --pc: '%s': %s\n", prog, s,
                too_long ? "the file name is too long" : "a line number is 1 to 4294967295");
        return -1;
    }
    const char *a, *b;
    const size_t nf = vxd_lines_files_named(&syms->lines, file, &a, &b);
    if (nf == 0) {
        fprintf(stderr,
                "%s: --pc: no source file '%s' in the line tables of this trace's kernel%s\n", prog,
                file,
                syms->lines.nseqs ? "" : " (it has none: record the kernel's ELF, built with -g)");
        return -1;
    }
    if (nf > 1) {
        fprintf(stderr, "%s: --pc: '%s' names %zu files (%s, %s%s); give more of its path\n", prog,
                file, nf, a, b, nf > 2 ? ", ..." : "");
        return -1;
    }
    uint32_t next;
    if (vxd_lines_code(&syms->lines, file, line, pcs, npcs, &next)) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return -1;
    }
    if (!*npcs) {
        if (next)
            fprintf(stderr, "%s: --pc: no code at line %u of %s (the next line with code is %u)\n",
                    prog, line, a, next);
        else
            fprintf(stderr, "%s: --pc: no code at line %u of %s, nor after it\n", prog, line, a);
        return -1;
    }
    return 0;
}

/* --pc: the ranges of PCs it selects, in order (*pcs, malloc'ed) */
static int parse_pc(const char *s, const vxd_symtab *syms, vxd_range **pcs, size_t *npcs)
{
    int rl = parse_pc_line(s, syms, pcs, npcs);
    if (rl <= 0) return rl;
    uint32_t lo, hi;
    int rs = parse_pc_sym(s, syms, &lo, &hi);
    if (rs) return rs;
    if (!(*pcs = malloc(sizeof **pcs))) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return -1;
    }
    **pcs = (vxd_range){lo, hi};
    *npcs = 1;
    return 0;
}

typedef struct filter {
    warpset warps;
    bool has_pc;
    vxd_range *pcs; /* --pc: the PCs selected, [lo, hi) ranges in order */
    size_t npcs;
    bool has_addr;
    uint64_t addr_lo, addr_hi; /* --addr: memory writes touching [lo, hi) */
    int lane;
    unsigned kinds;
    uint32_t nw;
} filter;

static unsigned issue_kinds(const vx_event *ev)
{
    unsigned k = K_ISSUE;
    if (ev->ncommits) k |= K_COMMIT;
    if (ev->nmem) k |= K_MEM;
    if (ev->nconsole) k |= K_CONSOLE;
    if (ev->fault) k |= K_FAULT;
    if (vxd_is_split(ev->insn)) k |= K_SPLIT;
    if (ev->nwctl) k |= K_WCTL;
    for (uint32_t i = 0; i < ev->nwctl; i++) {
        unsigned w = ev->wctl[i].kind;
        if (w == VX_WCTL_BAR_ARRIVE || w == VX_WCTL_BAR_RELEASE) k |= K_BARRIER;
        if (w == VX_WCTL_IPDOM_PUSH) k |= K_DIVERGE;
    }
    return k;
}

/* The ops whose gwarp field names a warp (FORMAT.md 8.1: halt, resume, set-pc, scratch,
 * inject-reject). */
static bool dm_has_warp(const vx_dm_event *d)
{
    return d->op == VX_DM_HALT || d->op == VX_DM_RESUME || d->op == VX_DM_SET_PC ||
           d->op == VX_DM_SCRATCH || d->op == VX_DM_INJECT_REJECT;
}

/* Does a memory write of ev (by the --lane lane, if given) touch [addr_lo, addr_hi)?
 * A byte stored to the console window counts as a write to its address (the trace
 * does not say which lane stored it). */
static bool writes_range(const filter *f, const vx_event *ev)
{
    for (uint32_t i = 0; i < ev->nmem; i++) {
        const vx_memwrite *m = &ev->mem[i];
        if (f->lane >= 0 && m->lane != (unsigned)f->lane) continue;
        if (m->addr < f->addr_hi && (uint64_t)m->addr + m->size > f->addr_lo) return true;
    }
    for (uint32_t i = 0; i < ev->nconsole; i++) {
        const uint32_t a = VX_IO_COUT_ADDR + ev->console[i].slot;
        if (a < f->addr_hi && a >= f->addr_lo) return true;
    }
    return false;
}

/* Can EVENTS chunk i hold an issue the --pc / --addr filter selects?  False only when
 * its stored digest is sure (FORMAT.md §10.3); no digest: true.  A damaged digest is
 * reported (*e), as any damage this reader reads (FORMAT.md §11). */
static bool chunk_may_match(vx_trace_reader *r, size_t i, const filter *f, vx_err *e)
{
    vx_trace_digest d;
    *e = vx_trace_reader_digest(r, i, VX_TRACE_DIGEST_STORED, &d);
    if (*e != VX_OK) {
        if (*e == VX_ERR_END) *e = VX_OK;
        return true;
    }
    if (f->has_addr &&
        !vx_trace_digest_may_write(&d, (uint32_t)f->addr_lo, (uint32_t)(f->addr_hi - f->addr_lo)) &&
        !vx_trace_digest_may_console(&d, (uint32_t)f->addr_lo, (uint32_t)(f->addr_hi - f->addr_lo)))
        return false;
    if (f->has_pc) {
        /* the PC set leaves out injected issues, which --pc lists too */
        if (d.flags & VX_TRACE_DG_FLAGGED) return true;
        uint64_t span = 0;
        for (size_t k = 0; k < f->npcs; k++)
            span += (uint64_t)f->pcs[k].hi - f->pcs[k].lo;
        if (span >= 4ull * VX_TRACE_DG_PC_BITS) return true;
        for (size_t k = 0; k < f->npcs; k++)
            for (uint64_t pc = f->pcs[k].lo & ~3u; pc < f->pcs[k].hi; pc += 4)
                if (vx_trace_digest_may_pc(&d, (uint32_t)pc)) return true;
        return false;
    }
    return true;
}

/* With a --pc or --addr filter (which selects issues only) and nothing that needs
 * every event (a summary, a timeline): move the reader, at the start of a chunk,
 * past the chunks whose digests rule the filter out (not the last chunk), without
 * decoding them.  *ci: the chunk the reader is in, kept up to date. */
static vx_err skip_chunks(vx_trace_reader *r, const filter *f, size_t *ci)
{
    const size_t n = vx_trace_reader_num_chunks(r);
    uint64_t pos = vx_trace_reader_tell(r);
    while (*ci + 1 < n && vx_trace_reader_chunk_key(r, *ci + 1) <= pos)
        ++*ci;
    vx_err e = VX_OK;
    while (*ci + 1 < n && vx_trace_reader_chunk_key(r, *ci) == pos &&
           !chunk_may_match(r, *ci, f, &e)) {
        e = vx_trace_reader_seek_chunk(r, ++*ci);
        if (e) return e;
        pos = vx_trace_reader_chunk_key(r, *ci);
    }
    return e; /* a damaged digest stopped the loop */
}

/* Is pc in one of the --pc ranges? */
static bool pc_selected(const filter *f, uint32_t pc)
{
    size_t lo = 0, hi = f->npcs;
    while (lo < hi) { /* the first range ending after pc */
        const size_t mid = lo + (hi - lo) / 2;
        if (f->pcs[mid].hi <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < f->npcs && f->pcs[lo].lo <= pc;
}

static bool selected(const filter *f, const vx_event *ev)
{
    switch (ev->kind) {
    case VX_EV_ISSUE:
        if (!(issue_kinds(ev) & f->kinds)) return false;
        if (f->warps.n && !in_warps(&f->warps, ev->core * f->nw + ev->warp)) return false;
        if (f->lane >= 0 && !vx_lanes_test(ev->tmask, (unsigned)f->lane)) return false;
        if (f->has_pc && !pc_selected(f, ev->pc)) return false;
        if (f->has_addr && !writes_range(f, ev)) return false;
        return true;
    case VX_EV_DM:
        if (!(f->kinds & K_DM) || f->has_pc || f->has_addr) return false;
        if (f->warps.n && !(dm_has_warp(&ev->dm) && in_warps(&f->warps, ev->dm.gwarp)))
            return false;
        /* the events of one lane (a DSCRATCH write, a refused injection): that lane's */
        if (f->lane >= 0 && (ev->dm.op == VX_DM_SCRATCH || ev->dm.op == VX_DM_INJECT_REJECT) &&
            ev->dm.lane != (unsigned)f->lane)
            return false;
        return true;
    case VX_EV_END:
        if (f->has_pc || f->has_addr) return false;
        return (f->kinds & K_END) || ((f->kinds & K_FAULT) && ev->fault);
    default: return false;
    }
}

/* ---- --extract ---------------------------------------------------------------------------------- */

/* A file name from a stored basename: no directories, no dot files, never empty. */
static void safe_name(const char *name, const char *fallback, char *out, size_t cap)
{
    const char *b = name ? strrchr(name, '/') : NULL;
    b = b ? b + 1 : name;
    if (!b || !*b || b[0] == '.') b = fallback;
    snprintf(out, cap, "%s", b);
    for (char *p = out; *p; p++)
        if (*p == '/' || *p == '\\' || (unsigned char)*p < 0x20) *p = '_';
}

/* Write one extracted file, unless it would be the trace being read. */
static int extract_file(const char *path, const char *trace, const uint8_t *buf, size_t len)
{
    if (vx_cli_same_file(path, trace)) {
        fprintf(stderr, "%s: --extract: '%s' would overwrite the trace itself\n", prog, path);
        return -1;
    }
    char msg[1200];
    if (vx_cli_write_new_file(path, buf, len, false, msg, sizeof msg)) return 0;
    fprintf(stderr, "%s: --extract: %s\n", prog, msg);
    return -1;
}

/* Is name one of the n names taken? */
static bool name_taken(char (*names)[512], uint32_t n, const char *name)
{
    for (uint32_t j = 0; j < n; j++)
        if (!strcmp(names[j], name)) return true;
    return false;
}

static int extract(const char *dir, const char *trace, const vx_trace_header *h)
{
    char path[4096];
    if (mkdir(dir, 0777) && errno != EEXIST) {
        fprintf(stderr, "%s: cannot create directory '%s': %s\n", prog, dir, strerror(errno));
        return VX_EXIT_USAGE;
    }
    /* A name for every file, all different: the stored basename, else load<i>.bin (a
     * load with the kernel's name, two loads of files with the same name), else
     * load<i>-<k>.bin.  names[0] is the kernel's. */
    char(*names)[512] = calloc((size_t)h->nloads + 1, sizeof *names);
    if (!names) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return VX_EXIT_USAGE;
    }
    safe_name(h->image_name, "kernel.bin", names[0], sizeof names[0]);
    for (uint32_t i = 0; i < h->nloads; i++) {
        char *n = names[i + 1], fb[32];
        snprintf(fb, sizeof fb, "load%u.bin", i);
        safe_name(h->loads[i].name, fb, n, sizeof names[0]);
        if (name_taken(names, i + 1, n)) snprintf(n, sizeof names[0], "%s", fb);
        for (unsigned k = 2; name_taken(names, i + 1, n); k++)
            snprintf(n, sizeof names[0], "load%u-%u.bin", i, k);
    }
    /* the files first: the options are printed only when all of them are there */
    int rc = 0;
    for (uint32_t i = 0; i <= h->nloads && !rc; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (i == 0 ? extract_file(path, trace, h->image, h->image_len)
                   : extract_file(path, trace, h->loads[i - 1].bytes, h->loads[i - 1].len))
            rc = VX_EXIT_USAGE;
    }
    if (!rc) {
        printf("-C %u -c %u -w %u -t %u", h->clusters, h->cores, h->warps, h->threads);
        if (h->arg) printf(" --arg 0x%" PRIx32, h->arg);
        if (h->max_cycles) printf(" --max-cycles %" PRIu64, h->max_cycles);
        if (h->mem_limit) printf(" --mem-limit %" PRIu64, h->mem_limit);
        if (h->flags & VX_TRACE_HF_MISALIGNED) printf(" --allow-misaligned");
        /* not the run, but the trace: with the default chunk size, the same bytes */
        if (h->keyframe_interval != VX_TRACE_DEFAULT_KEYFRAME_ISSUES)
            printf(" --keyframe-interval %" PRIu64, h->keyframe_interval);
        for (uint32_t i = 0; i < h->nloads; i++) {
            char word[4200];
            snprintf(word, sizeof word, "%s/%s@0x%" PRIx32, dir, names[i + 1], h->loads[i].addr);
            fputs(" --load ", stdout);
            vx_cli_put_word(stdout, word);
        }
        snprintf(path, sizeof path, "%s/%s", dir, names[0]);
        fputc(' ', stdout);
        vx_cli_put_word(stdout, path);
        fputc('\n', stdout);
    }
    free(names);
    return rc;
}

/* ---- main ---------------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    opts o;
    int rc = parse_args(argc, argv, &o);
    vx_cli_signals();
    if (rc) return rc;

    vx_trace_reader *r = NULL;
    vxd_symtab syms = {0};
    vx_disasm_ctx *dis = NULL;
    vxd_summary *sum = NULL;
    vxd_timeline *tl = NULL;
    FILE *tlf = NULL;
    filter flt = {0};
    vxd_sb line = {0};
    char msg[256];
    vx_err e;
    int status = 0;
    /* "-": standard input, copied to a file first */
    const char *file = vx_cli_trace_file(prog, o.trace), *tname = vx_cli_trace_name(o.trace);
    if (!file) return VX_EXIT_USAGE;

    if ((e = vx_trace_reader_new(&r)) || (e = vx_trace_reader_open_as(r, file, tname))) {
        fprintf(stderr, "%s: %s\n", prog, r ? vx_trace_reader_errmsg(r) : vx_strerror(e));
        status = VX_EXIT_USAGE;
        goto out;
    }
    const vx_trace_header *h = vx_trace_reader_header(r);
    vx_cli_trace_version_note(prog, tname, h->major, h->minor);
    if (o.check && (e = vx_trace_reader_check(r))) {
        fprintf(stderr, "%s: %s\n", prog, vx_trace_reader_errmsg(r));
        status = VX_EXIT_USAGE;
        goto out;
    }
    if (o.extract) {
        status = extract(o.extract, file, h);
        if (!status) status = vx_cli_output_done(prog); /* the printed options are the result */
        goto out;
    }
    vx_trace_summary ts;
    if ((e = vx_trace_reader_summary(r, &ts))) {
        fprintf(stderr, "%s: %s\n", prog, vx_trace_reader_errmsg(r));
        status = VX_EXIT_USAGE;
        goto out;
    }
    if ((e = vxd_symtab_load(&syms, h->image_kind, h->image, h->image_len, msg, sizeof msg))) {
        fprintf(stderr, "%s: %s: %s\n", prog, tname, msg);
        status = VX_EXIT_USAGE;
        goto out;
    }
    if (msg[0]) /* damaged symbols or line tables: what could be read is used */
        fprintf(stderr, "%s: %s: note: %s (the recorded kernel's)\n", prog, tname, msg);
    if (vx_disasm_new(&dis)) dis = NULL; /* vx_disasm() per call still works */

    flt.lane = o.lane;
    flt.kinds = o.kinds;
    flt.nw = h->warps;
    if (o.lane >= 0 && (uint32_t)o.lane >= h->threads) {
        fprintf(stderr, "%s: --lane: no lane %d in this trace (%u threads per warp)\n", prog,
                o.lane, h->threads);
        status = VX_EXIT_USAGE;
        goto out;
    }
    if (o.warp_arg && parse_warps(o.warp_arg, h, &flt.warps)) {
        status = VX_EXIT_USAGE;
        goto out;
    }
    if (o.pc_arg) {
        if (parse_pc(o.pc_arg, &syms, &flt.pcs, &flt.npcs)) {
            status = VX_EXIT_USAGE;
            goto out;
        }
        flt.has_pc = true;
    }
    if (o.addr_arg) {
        if (parse_addr(o.addr_arg, &flt.addr_lo, &flt.addr_hi)) {
            status = VX_EXIT_USAGE;
            goto out;
        }
        flt.has_addr = true;
    }

    vxd_fmt fmt;
    vxd_fmt_init(&fmt, h, &syms, dis, ts.issues, ts.cycle);
    if (o.lines) vxd_fmt_show_lines(&fmt);
    fmt.lane = o.lane;
    bool listing = !o.summary && !o.timeline;
    if (o.summary && (e = vxd_summary_new(&sum, h, &syms))) {
        fprintf(stderr, "%s: out of memory\n", prog);
        status = VX_EXIT_USAGE;
        goto out;
    }
    if (o.timeline && vx_cli_same_file(o.timeline, file)) {
        fprintf(stderr, "%s: --timeline '%s' is the trace itself\n", prog, o.timeline);
        status = VX_EXIT_USAGE;
        goto out;
    }
    if (o.timeline) {
        tlf = !strcmp(o.timeline, "-") ? stdout : fopen(o.timeline, "w");
        if (!tlf) {
            fprintf(stderr, "%s: cannot create '%s': %s\n", prog, o.timeline, strerror(errno));
            status = VX_EXIT_USAGE;
            goto out;
        }
        const char *base = strrchr(tname, '/');
        if ((e = vxd_timeline_new(&tl, tlf, h, &syms, base ? base + 1 : tname))) {
            fprintf(stderr, "%s: out of memory\n", prog);
            status = VX_EXIT_USAGE;
            goto out;
        }
    }
    if (o.has_from && (e = vx_trace_reader_seek(r, o.from))) {
        fprintf(stderr, "%s: %s\n", prog, vx_trace_reader_errmsg(r));
        status = VX_EXIT_USAGE;
        goto out;
    }
    if (listing && !o.json && !o.no_header) {
        vxd_fmt_columns(&fmt, &line);
        puts(line.s);
    }

    const vx_event *ev;
    uint64_t last_cycle = 0, shown = 0, last_index = o.from;
    bool any = false;
    const bool skipping = listing && !sum && !tl && (flt.has_pc || flt.has_addr);
    size_t chunk = 0;
    while ((!skipping || (e = skip_chunks(r, &flt, &chunk)) == VX_OK) &&
           (e = vx_trace_reader_next(r, &ev)) == VX_OK) {
        any = true;
        if (o.has_to && ev->index > o.to) break;
        last_cycle = ev->cycle;
        last_index = ev->index;
        if (sum) vxd_summary_event(sum, ev);
        if (tl) vxd_timeline_event(tl, ev);
        if (!listing || !selected(&flt, ev)) continue;
        vxd_sb_clear(&line);
        if (o.json)
            vxd_fmt_event_json(&fmt, ev, &line);
        else
            vxd_fmt_event(&fmt, ev, &line);
        if (line.oom) {
            fprintf(stderr, "%s: out of memory\n", prog);
            status = VX_EXIT_USAGE;
            goto out;
        }
        fputs(line.s, stdout);
        putchar('\n');
        shown++;
    }
    if (e != VX_OK && e != VX_ERR_END) {
        fflush(stdout);
        fprintf(stderr, "%s: %s\n", prog, vx_trace_reader_errmsg(r));
        status = VX_EXIT_USAGE;
    } else if (o.has_from && !any) {
        /* not an error (an empty selection), but say why nothing came */
        fprintf(stderr, "%s: %s: no event at or after --from %" PRIu64, prog, tname, o.from);
        if (ts.records) fprintf(stderr, " (the last is %" PRIu64 ")", ts.records - 1);
        fputc('\n', stderr);
    }
    if (tl) {
        vxd_timeline_finish(tl, last_cycle);
        if (tlf != stdout && fclose(tlf)) {
            fprintf(stderr, "%s: cannot write '%s': %s\n", prog, o.timeline, strerror(errno));
            status = VX_EXIT_USAGE;
        }
        tlf = NULL;
    }
    if (sum) {
        /* --from alone: the range ends at the last event read */
        vxd_summary_file sf = {tname, &ts, o.has_from || o.has_to, o.from,
                               o.has_to ? o.to : last_index};
        vxd_summary_print(sum, h, &sf, o.json, stdout);
    }
    const int wrc = vx_cli_output_done(prog);
    if (!status) status = wrc;
    if (!status && vx_trace_reader_incomplete(r)) {
        fprintf(stderr,
                "%s: %s: the trace is incomplete (cut off while it was recorded): shown up to its "
                "last complete chunk (%" PRIu64 " issues)\n",
                prog, tname, ts.issues);
        status = EXIT_INCOMPLETE;
    }
    (void)shown;
out:
    if (tlf && tlf != stdout) fclose(tlf);
    vxd_timeline_free(tl);
    vxd_summary_free(sum);
    vxd_sb_release(&line);
    free(flt.warps.g);
    free(flt.pcs);
    vx_disasm_free(dis);
    vxd_symtab_release(&syms);
    vx_trace_reader_free(r);
    return status;
}
